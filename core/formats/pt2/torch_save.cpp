#include "core/formats/pt2/torch_save.hpp"

#include <cstring>
#include <limits>
#include <map>
#include <stdexcept>

#include "core/formats/pickle/pickle_reader.hpp"
#include "core/formats/zip/zip_archive.hpp"
#include "core/ir/diagnostics.hpp"

namespace fxl {

namespace {

using pickle::Kind;

// The storage classes torch.save names (torch/storage.py's legacy typed storages).
const std::map<std::string, DType, std::less<>>& storageTypes()
{
    static const std::map<std::string, DType, std::less<>> m = {
        {"torch.FloatStorage", DType::F32},
        {"torch.DoubleStorage", DType::F64},
        {"torch.HalfStorage", DType::F16},
        {"torch.BFloat16Storage", DType::BF16},
        {"torch.LongStorage", DType::I64},
        {"torch.IntStorage", DType::I32},
        {"torch.ShortStorage", DType::I16},
        {"torch.CharStorage", DType::I8},
        {"torch.ByteStorage", DType::U8},
        {"torch.BoolStorage", DType::Bool},
        {"torch.UInt16Storage", DType::U16},
        {"torch.UInt32Storage", DType::U32},
        {"torch.UInt64Storage", DType::U64},
        {"torch.ComplexFloatStorage", DType::C64},
        {"torch.ComplexDoubleStorage", DType::C128},
        {"torch.Float8_e4m3fnStorage", DType::F8E4M3FN},
        {"torch.Float8_e5m2Storage", DType::F8E5M2},
        {"torch.Float8_e4m3fnuzStorage", DType::F8E4M3FNUZ},
        {"torch.Float8_e5m2fnuzStorage", DType::F8E5M2FNUZ},
    };
    return m;
}

const pickle::Globals& torchSaveGlobals()
{
    static const pickle::Globals g = [] {
        pickle::Globals out;
        out.what = "the globals torch.save uses for plain tensors (the tensor and parameter rebuild functions, "
                   "the storage types, collections.OrderedDict)";
        out.names = {"torch._utils._rebuild_tensor_v2", "torch._utils._rebuild_parameter",
                     "torch._utils._rebuild_parameter_with_state", "collections.OrderedDict"};
        for (const auto& [name, dtype] : storageTypes()) out.names.push_back(name);
        return out;
    }();
    return g;
}

class Interpreter
{
public:
    Interpreter(const pickle::Document& doc, const zip::Archive& zip, std::string root, const std::string& name)
        : doc_(doc)
        , zip_(zip)
        , root_(std::move(root))
        , name_(name)
    { }

    void walk(pickle::NodeId v, const std::string& path, TorchSaveContents& out, int depth)
    {
        if (depth > 64) fail(path, "nested more than 64 deep");
        switch (doc_.kind(v)) {
        case Kind::Dict: {
            const auto c = doc_.children(v);
            for (size_t i = 0; i + 1 < c.size(); i += 2) {
                std::string key;
                if (doc_.kind(c[i]) == Kind::String)
                    key = std::string(doc_.str(c[i]));
                else if (doc_.kind(c[i]) == Kind::Int)
                    key = std::to_string(doc_.toInt(c[i]));
                else
                    fail(path, "a dict key that is " + doc_.describe(c[i]));
                walk(c[i + 1], join(path, key), out, depth + 1);
            }
            break;
        }
        case Kind::List:
        case Kind::Tuple: {
            const auto c = doc_.children(v);
            for (size_t i = 0; i < c.size(); ++i) walk(c[i], join(path, std::to_string(i)), out, depth + 1);
            break;
        }
        case Kind::Call: {
            SafeTensor t = tensor(v, path);
            t.name = path;
            out.tensors.tensors.push_back(std::move(t));
            break;
        }
        default: out.skipped.push_back((path.empty() ? "(root)" : path) + ": " + doc_.describe(v)); break;
        }
    }

private:
    static std::string join(const std::string& a, const std::string& b) { return a.empty() ? b : a + "." + b; }
    [[noreturn]] void fail(const std::string& path, const std::string& why) const
    {
        throw InputError(name_, 0, 0, "data.pkl" + (path.empty() ? std::string() : " at '" + path + "'") + ": " + why);
    }

    SafeTensor tensor(pickle::NodeId call, const std::string& path)
    {
        const auto parts = doc_.children(call);
        const std::string_view fn = doc_.str(parts[0]);
        const auto args = doc_.children(parts[1]);
        if (fn == "torch._utils._rebuild_parameter" || fn == "torch._utils._rebuild_parameter_with_state") {
            if (args.empty() || doc_.kind(args[0]) != Kind::Call)
                fail(path, std::string(fn) + " of something that is not a tensor");
            return tensor(args[0], path);
        }
        if (fn != "torch._utils._rebuild_tensor_v2")
            fail(path, "a call of " + std::string(fn) + " where a tensor was expected");
        if (args.size() < 4)
            fail(path, "_rebuild_tensor_v2 with " + std::to_string(args.size()) + " arguments (6 or 7 expected)");
        // args: storage (a persistent id), storage offset, sizes, strides, requires_grad, hooks[, metadata]
        if (doc_.kind(args[0]) != Kind::PersistentId) fail(path, "a tensor whose storage is " + doc_.describe(args[0]));
        const auto pid = doc_.children(doc_.children(args[0])[0]);
        // ('storage', storage type, key, location, numel)
        if (pid.size() < 5 || doc_.kind(pid[0]) != Kind::String || doc_.str(pid[0]) != "storage"
            || doc_.kind(pid[1]) != Kind::Global || doc_.kind(pid[2]) != Kind::String)
            fail(path, "a storage id that is not ('storage', type, key, location, numel)");
        const auto st = storageTypes().find(doc_.str(pid[1]));
        if (st == storageTypes().end()) fail(path, "storage type " + std::string(doc_.str(pid[1])) + " is not read");
        const DType dtype = st->second;
        const std::string key(doc_.str(pid[2]));
        const int64_t numel = integer(pid[4], path, "the storage's element count");
        const int item = dtypeItemSize(dtype);
        const std::vector<uint8_t>& storage = storageBytes(key, path);
        if (numel < 0 || static_cast<uint64_t>(numel) * static_cast<uint64_t>(item) > storage.size())
            fail(path,
                 "storage " + key + " holds " + std::to_string(storage.size()) + " bytes, fewer than its "
                     + std::to_string(numel) + " elements of " + std::to_string(item) + " bytes");
        SafeTensor t;
        t.dtype = dtype;
        t.shape = ints(args[2], path, "sizes");
        const std::vector<int64_t> strides = ints(args[3], path, "strides");
        if (strides.size() != t.shape.size()) fail(path, "sizes and strides of different lengths");
        try {
            t.data = gatherStrided(storage.data(), static_cast<size_t>(numel) * static_cast<size_t>(item), item,
                                   t.shape, strides, integer(args[1], path, "the storage offset"));
        } catch (const std::invalid_argument& e) {
            fail(path, e.what());
        }
        return t;
    }

    const std::vector<uint8_t>& storageBytes(const std::string& key, const std::string& path)
    {
        if (auto it = storages_.find(key); it != storages_.end()) return it->second;
        const zip::Entry* e = zip_.find(root_ + "/data/" + key);
        if (!e) fail(path, "storage " + key + " has no entry " + root_ + "/data/" + key);
        return storages_.emplace(key, zip_.read(*e)).first->second;
    }
    int64_t integer(pickle::NodeId v, const std::string& path, const char* what) const
    {
        if (doc_.kind(v) != Kind::Int) fail(path, std::string(what) + " is " + doc_.describe(v));
        return doc_.toInt(v);
    }
    std::vector<int64_t> ints(pickle::NodeId v, const std::string& path, const char* what) const
    {
        if (doc_.kind(v) != Kind::Tuple && doc_.kind(v) != Kind::List)
            fail(path, std::string(what) + " are " + doc_.describe(v));
        std::vector<int64_t> out;
        for (pickle::NodeId c : doc_.children(v)) out.push_back(integer(c, path, what));
        return out;
    }

    const pickle::Document& doc_;
    const zip::Archive& zip_;
    std::string root_;
    const std::string& name_;
    std::map<std::string, std::vector<uint8_t>> storages_;
};

}  // namespace

std::vector<uint8_t> gatherStrided(const uint8_t* storage, size_t storageBytes, int itemSize,
                                   const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                                   int64_t offset)
{
    const size_t item = static_cast<size_t>(itemSize);
    int64_t numel = 1;
    int64_t lo = offset, hi = offset;  // the element range the view touches
    for (size_t d = 0; d < sizes.size(); ++d) {
        if (sizes[d] < 0) throw std::invalid_argument("a negative size");
        if (sizes[d] == 0) return {};
        if (numel > std::numeric_limits<int64_t>::max() / sizes[d]) throw std::invalid_argument("too many elements");
        numel *= sizes[d];
        const __int128 reach = static_cast<__int128>(strides[d]) * (sizes[d] - 1);
        if (reach > std::numeric_limits<int64_t>::max() / 2 || reach < std::numeric_limits<int64_t>::min() / 2)
            throw std::invalid_argument("a stride that reaches outside any storage");
        if (reach < 0)
            lo += static_cast<int64_t>(reach);
        else
            hi += static_cast<int64_t>(reach);
    }
    if (lo < 0 || static_cast<uint64_t>(hi) >= storageBytes / item)
        throw std::invalid_argument("the view (offset " + std::to_string(offset) + ") reaches element "
                                    + std::to_string(lo < 0 ? lo : hi) + ", outside its storage of "
                                    + std::to_string(storageBytes / item) + " elements");
    // a view may repeat its storage (stride 0), but not without bound
    const uint64_t outBytes = static_cast<uint64_t>(numel) * item;
    if (outBytes > (64u << 20) && outBytes / 64 > storageBytes)
        throw std::invalid_argument("a view of " + std::to_string(numel) + " elements over a storage of "
                                    + std::to_string(storageBytes / item)
                                    + " elements (more than 64 times its storage) is refused");
    std::vector<uint8_t> out(static_cast<size_t>(outBytes));
    std::vector<int64_t> index(sizes.size(), 0);
    int64_t at = offset;
    for (int64_t k = 0; k < numel; ++k) {
        std::memcpy(out.data() + static_cast<size_t>(k) * item, storage + static_cast<size_t>(at) * item, item);
        for (size_t d = sizes.size(); d-- > 0;) {
            if (++index[d] < sizes[d]) {
                at += strides[d];
                break;
            }
            at -= strides[d] * (sizes[d] - 1);
            index[d] = 0;
        }
    }
    return out;
}

TorchSaveContents readTorchSave(std::shared_ptr<const std::vector<uint8_t>> bytes, const std::string& name)
{
    const bool isZip = bytes->size() >= 4 && (*bytes)[0] == 'P' && (*bytes)[1] == 'K';
    if (!isZip)
        throw InputError(name, 0, 0,
                         "not a torch.save ZIP file (the legacy format of PyTorch before 1.6 is not read; "
                         "save with torch.save's default _use_new_zipfile_serialization=True)");
    const zip::Archive zip = zip::Archive::fromBytes(bytes, name);
    if (zip.entries().empty()) throw InputError(name, 0, 0, "an empty archive (torch.save writes ROOT/data.pkl)");
    const std::string& first = zip.entries().front().name;
    const std::string root = first.substr(0, first.find('/'));
    const zip::Entry* pkl = zip.find(root + "/data.pkl");
    if (!pkl) throw InputError(name, 0, 0, "no entry " + root + "/data.pkl (not a torch.save file)");
    if (const zip::Entry* bo = zip.find(root + "/byteorder")) {
        const std::string order = zip.readText(*bo);
        if (order != "little")
            throw InputError(name, 0, 0, "entry '" + bo->name + "': byte order '" + order + "' (only little is read)");
    }
    const std::vector<uint8_t> data = zip.read(*pkl);
    const pickle::Document doc = pickle::Document::parseAllowing(data, name + ":" + pkl->name, torchSaveGlobals());
    TorchSaveContents out;
    Interpreter(doc, zip, root, name).walk(doc.root(), "", out, 0);
    return out;
}

}  // namespace fxl

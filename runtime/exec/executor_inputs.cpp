#include "runtime/exec/executor_inputs.hpp"

#include <algorithm>

#include "runtime/base/dtype_codec.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/math/philox.hpp"

namespace fxl::exec {

namespace {

int64_t hintOf(const SymInt& s, const std::string& what)
{
    auto h = s.maybeValue();
    if (!h) {
        std::string bind;
        for (const auto& sym : s.expr().symbols()) bind += (bind.empty() ? "" : ",") + sym + "=N";
        throw KernelError(what + ": a size has no hint (" + s.str()
                          + "); give the symbol a value (fxlens run --symbols " + bind + ")");
    }
    return *h;
}

}  // namespace

Tensor uploadSafeTensor(const SafeTensor& st, Backend& b, std::string_view kind, std::string_view name)
{
    auto what = [&] { return std::string(kind) + " '" + std::string(name) + "'"; };
    if (!runtimeSupportsDType(st.dtype))
        throw KernelError(what() + ": dtype " + std::string(dtypeAbbr(st.dtype)) + " is not supported by the runtime");
    Tensor t = b.empty(st.shape, st.dtype);
    if (static_cast<int64_t>(st.data.size()) != t.nbytes())
        throw KernelError(what() + ": " + std::to_string(st.data.size()) + " bytes for shape of "
                          + std::to_string(t.nbytes()));
    if (hasOtherNans(st.data.data(), st.dtype, t.numel())) {
        // every NaN of a run is the canonical one (docs/numerics.md section 6): a file's NaNs
        // (PyTorch writes 0x7fc00000 for float('nan')) are replaced on the way in
        std::vector<uint8_t> bytes(st.data.begin(), st.data.end());
        canonicalizeNans(bytes.data(), st.dtype, t.numel());
        b.upload(t, bytes.data(), t.nbytes());
        return t;
    }
    b.upload(t, st.data.data(), t.nbytes());
    return t;
}

void checkInputAgainstMeta(const Node& n, const SafeTensor& st)
{
    const ValueMeta& m = n.val;
    if (!m.isTensor()) return;
    const TensorMeta& tm = m.tensor;
    if (tm.dtype != DType::Undefined && st.dtype != tm.dtype)
        throw KernelError("input '" + n.name + "': the inputs file has dtype " + std::string(dtypeAbbr(st.dtype))
                          + ", the graph expects " + std::string(dtypeAbbr(tm.dtype)));
    bool bad = st.shape.size() != tm.sizes.size();
    for (size_t k = 0; k < tm.sizes.size() && !bad; ++k)
        if (tm.sizes[k].isConcrete()) {
            auto v = tm.sizes[k].maybeValue();
            if (v && *v != st.shape[k]) bad = true;
        }
    if (!bad) return;
    std::string expected = "[";
    for (size_t k = 0; k < tm.sizes.size(); ++k) expected += (k ? ", " : "") + tm.sizes[k].str();
    expected += "]";
    throw KernelError("input '" + n.name + "': the inputs file has shape " + sizesText(st.shape)
                      + ", the graph expects " + expected);
}

TensorIndex::TensorIndex(const SafeTensorsFile* f)
{
    if (!f) return;
    tensorsByName_.reserve(f->tensors.size());
    for (const auto& t : f->tensors) tensorsByName_.emplace(t.name, &t);  // first of duplicate names, as find()
}

const SafeTensor* findInput(const Node& n, const TensorIndex& inputs)
{
    const SafeTensor* st = inputs.find(n.name);
    if (!st && n.target != n.name) st = inputs.find(n.target);
    return st;
}

std::optional<int64_t> boundOf(const std::unordered_map<NodeId, int64_t>& bounds, const Node& n)
{
    auto it = bounds.find(n.id);
    if (it == bounds.end()) return std::nullopt;
    return it->second;
}

Value generateInput(const Node& n, uint64_t seed, uint64_t index, Backend& b, std::optional<int64_t> indexBound)
{
    const ValueMeta& m = n.val;
    if (m.kind == ValueMeta::Kind::SymInt) {
        if (!m.symHint) throw KernelError("input '" + n.name + "': symbolic int without a hint");
        return Value::ofInt(*m.symHint);
    }
    if (!m.isTensor())
        throw KernelError("input '" + n.name + "' has no tensor meta to generate it from; give it in the inputs file");
    std::vector<int64_t> sizes;
    for (const auto& s : m.tensor.sizes) sizes.push_back(hintOf(s, "input '" + n.name + "'"));
    Tensor t = b.empty(sizes, m.tensor.dtype);
    const int64_t count = t.numel();
    std::vector<uint8_t> host(static_cast<size_t>(t.nbytes()));
    const DType dt = m.tensor.dtype;
    // [0, 16), narrowed to what the consumers index (an empty dim: 0, which they reject)
    const uint32_t intRange = indexBound ? static_cast<uint32_t>(std::clamp<int64_t>(*indexBound, 1, 16)) : 16u;
    for (int64_t k = 0; k < count; ++k) {
        void* p = host.data() + k * t.itemSize();
        if (isFloatingPoint(dt))
            storeFromFloat(p, dt, philoxNormal(seed, index, static_cast<uint64_t>(k)));
        else if (dt == DType::Bool)
            storeFromDouble(p, dt, philoxDraw(seed, index, static_cast<uint64_t>(k)) & 1u);
        else
            storeFromDouble(p, dt, philoxDraw(seed, index, static_cast<uint64_t>(k)) % intRange);
    }
    b.upload(t, host.data(), t.nbytes());
    return Value::ofTensor(t);
}

}  // namespace fxl::exec

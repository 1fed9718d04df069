#include "core/formats/safetensors_header.hpp"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <string_view>
#include <unordered_set>

#include "core/formats/safetensors_checks.hpp"
#include "core/formats/utf8.hpp"

namespace fxl {

namespace {

uint64_t readLe64(const uint8_t* p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

struct RawEntry
{
    std::string name;
    DType dtype = DType::Undefined;
    std::vector<int64_t> shape;
    uint64_t offsets[2] = {0, 0};
    int nOffsets = 0;
    bool hasDtype = false, hasShape = false, hasOffsets = false;
};

// SAX handler for the header: builds the entries directly (no DOM), finds duplicate keys
// (which a DOM would silently merge) and stops at the first problem.
class HeaderSax : public nlohmann::json_sax<nlohmann::json>
{
public:
    std::vector<RawEntry> entries;
    std::map<std::string, std::string> metadata;
    std::string error;  // set when a handler returned false
    size_t errorPos = 0;
    bool syntaxError = false;

    bool null() override { return scalar("null"); }
    bool boolean(bool) override { return scalar("a boolean"); }
    bool number_integer(number_integer_t v) override
    {
        // nlohmann reports only negative integers here ("-0" aside)
        if (skip_ > 0) return true;
        if (v == 0) return number_unsigned(0);
        if (where_ == Where::Shape)
            return bad("tensor " + showName(cur().name) + ": shape entry " + std::to_string(v) + " is negative");
        if (where_ == Where::Offsets)
            return bad("tensor " + showName(cur().name) + ": data_offsets entry " + std::to_string(v) + " is negative");
        return scalar("a number");
    }
    bool number_unsigned(number_unsigned_t v) override
    {
        if (skip_ > 0) return true;
        if (where_ == Where::Shape) {
            if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
                return bad("tensor " + showName(cur().name) + ": shape entry " + std::to_string(v) + " is too large");
            cur().shape.push_back(static_cast<int64_t>(v));
            return true;
        }
        if (where_ == Where::Offsets) {
            if (cur().nOffsets >= 2)
                return bad("tensor " + showName(cur().name)
                           + ": data_offsets must be [begin, end] (more than 2 entries)");
            cur().offsets[cur().nOffsets++] = v;
            return true;
        }
        return scalar("a number");
    }
    bool number_float(number_float_t, const string_t& text) override
    {
        if (skip_ > 0) return true;
        if (where_ == Where::Shape)
            return bad("tensor " + showName(cur().name) + ": shape entry " + text + " is not an integer");
        if (where_ == Where::Offsets)
            return bad("tensor " + showName(cur().name) + ": data_offsets entry " + text + " is not an integer");
        return scalar("a number");
    }
    bool string(string_t& s) override
    {
        if (skip_ > 0) return true;
        if (where_ == Where::Metadata) {
            metadata[key_] = std::move(s);
            return true;
        }
        if (where_ == Where::Tensor && field_ == "dtype") {
            auto t = dtypeFromSafetensorsName(s);
            if (!t)
                return bad("tensor " + showName(cur().name) + ": unknown dtype " + showName(s)
                           + " (expected BOOL, U8, I8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, "
                             "F64, F8_E4M3, F8_E5M2, F8_E8M0, F4, C64, ...)");
            cur().dtype = *t;
            cur().hasDtype = true;
            return true;
        }
        return scalar("a string");
    }
    bool binary(binary_t&) override { return scalar("binary data"); }

    bool start_object(std::size_t) override
    {
        if (skip_ > 0) {
            ++skip_;
            return true;
        }
        switch (where_) {
        case Where::Start: where_ = Where::Root; return true;
        case Where::Root:
            if (key_ == "__metadata__") {
                where_ = Where::Metadata;
                metaKeys_.clear();
                return true;
            }
            entries.push_back({});
            entries.back().name = key_;
            where_ = Where::Tensor;
            fields_.clear();
            return true;
        case Where::Tensor:
            if (isKnownField()) return wrongFieldType();
            skip_ = 1;
            return true;
        default: return scalar("an object");
        }
    }
    bool end_object() override
    {
        if (skip_ > 0) {
            --skip_;
            return true;
        }
        switch (where_) {
        case Where::Root: where_ = Where::Done; return true;
        case Where::Metadata: where_ = Where::Root; return true;
        case Where::Tensor: {
            const RawEntry& e = cur();
            const char* missing = !e.hasDtype ? "dtype"
                : !e.hasShape                 ? "shape"
                : !e.hasOffsets               ? "data_offsets"
                                              : nullptr;
            if (missing)
                return bad("tensor " + showName(e.name) + " has no " + missing
                           + " (expected {\"dtype\": ..., \"shape\": [...], \"data_offsets\": [begin, end]})");
            where_ = Where::Root;
            return true;
        }
        default: return bad("unexpected end of object");
        }
    }
    bool start_array(std::size_t) override
    {
        if (skip_ > 0) {
            ++skip_;
            return true;
        }
        if (where_ == Where::Tensor) {
            if (field_ == "shape") {
                where_ = Where::Shape;
                cur().hasShape = true;
                return true;
            }
            if (field_ == "data_offsets") {
                where_ = Where::Offsets;
                cur().hasOffsets = true;
                return true;
            }
            if (field_ == "dtype") return wrongFieldType();
            skip_ = 1;
            return true;
        }
        return scalar("an array");
    }
    bool end_array() override
    {
        if (skip_ > 0) {
            --skip_;
            return true;
        }
        if (where_ == Where::Shape) {
            where_ = Where::Tensor;
            return true;
        }
        if (where_ == Where::Offsets) {
            if (cur().nOffsets != 2)
                return bad("tensor " + showName(cur().name) + ": data_offsets must be [begin, end] (got "
                           + std::to_string(cur().nOffsets) + " entries)");
            where_ = Where::Tensor;
            return true;
        }
        return bad("unexpected end of array");
    }
    bool key(string_t& k) override
    {
        if (skip_ > 0) return true;
        switch (where_) {
        case Where::Root:
            if (!rootKeys_.insert(k).second)
                return bad(k == "__metadata__" ? std::string("duplicate __metadata__")
                                               : "duplicate tensor name " + showName(k));
            key_ = std::move(k);
            return true;
        case Where::Metadata:
            if (!metaKeys_.insert(k).second) return bad("duplicate __metadata__ key " + showName(k));
            key_ = std::move(k);
            return true;
        case Where::Tensor:
            if (!fields_.insert(k).second)
                return bad("tensor " + showName(cur().name) + ": duplicate field " + showName(k));
            field_ = std::move(k);
            return true;
        default: return bad("unexpected key");
        }
    }
    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) override
    {
        std::string what = ex.what();
        // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ..."
        if (auto p = what.find("] "); p != std::string::npos) what = what.substr(p + 2);
        error = "header is not valid JSON: " + what;
        errorPos = position;
        syntaxError = true;
        return false;
    }

private:
    enum class Where
    {
        Start,
        Root,
        Metadata,
        Tensor,
        Shape,
        Offsets,
        Done
    };
    Where where_ = Where::Start;
    int skip_ = 0;  // > 0 while skipping an unknown field's value (nesting depth)
    std::string key_, field_;
    std::unordered_set<std::string> rootKeys_, metaKeys_, fields_;

    RawEntry& cur() { return entries.back(); }
    bool isKnownField() const { return field_ == "dtype" || field_ == "shape" || field_ == "data_offsets"; }

    bool bad(std::string msg)
    {
        error = std::move(msg);
        return false;
    }
    bool wrongFieldType()
    {
        if (field_ == "dtype") return bad("tensor " + showName(cur().name) + ": dtype must be a string");
        if (field_ == "shape")
            return bad("tensor " + showName(cur().name) + ": shape must be an array of non-negative integers");
        return bad("tensor " + showName(cur().name) + ": data_offsets must be an array [begin, end]");
    }
    // A scalar value (or a container where only a scalar fits) at the current place.
    bool scalar(const char* what)
    {
        if (skip_ > 0) return true;
        switch (where_) {
        case Where::Start: return bad(std::string("header must be a JSON object, not ") + what);
        case Where::Root:
            if (key_ == "__metadata__") {
                if (std::string_view(what) == "null") return true;  // Option::None in the reference
                return bad(std::string("__metadata__ must be an object of strings, not ") + what);
            }
            return bad("tensor " + showName(key_) + " must be an object with dtype, shape and data_offsets, not "
                       + what);
        case Where::Metadata:
            return bad("__metadata__ value for key " + showName(key_) + " must be a string, not " + what);
        case Where::Tensor:
            if (isKnownField()) return wrongFieldType();
            return true;  // unknown field with a scalar value: ignored, as the reference does
        case Where::Shape:
            return bad("tensor " + showName(cur().name) + ": shape entries must be non-negative integers, not " + what);
        case Where::Offsets:
            return bad("tensor " + showName(cur().name) + ": data_offsets entries must be non-negative integers, not "
                       + what);
        default: return bad(std::string("unexpected ") + what);
        }
    }
};

}  // namespace

SafeTensorsFile parseSafetensorsHeader(const uint8_t* hdr, uint64_t n, uint64_t dataLen, const std::string& file)
{
    constexpr uint64_t kBase = 8;  // header starts after the length
    size_t bad = firstInvalidUtf8(std::string_view(reinterpret_cast<const char*>(hdr), n));
    if (bad != std::string_view::npos)
        failAtByte(file, kBase + bad, "header is not valid UTF-8 (byte " + std::to_string(kBase + bad) + ")");
    if (n == 0) failAtByte(file, kBase, "header is empty (expected a JSON object)");
    if (hdr[0] != '{') failAtByte(file, kBase, "header must start with '{' (the JSON object; padding goes at the end)");

    HeaderSax sax;
    const char* b = reinterpret_cast<const char*>(hdr);
    bool ok = nlohmann::json::sax_parse(b, b + n, &sax, nlohmann::json::input_format_t::json, true, false);
    if (!ok || !sax.error.empty()) {
        if (sax.syntaxError) {
            uint64_t pos = kBase + (sax.errorPos > 0 ? sax.errorPos - 1 : 0);
            failAtByte(file, pos, sax.error + " (file byte " + std::to_string(pos) + ")");
        }
        failAtByte(file, kBase, sax.error.empty() ? std::string("header is not valid JSON") : sax.error);
    }

    // Offsets must tile the data section: sorted by (begin, end), each starts where the
    // previous ended, the first at 0, the last ends at the end of the data.
    std::vector<size_t> idx(sax.entries.size());
    std::iota(idx.begin(), idx.end(), size_t{0});
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t c) {
        const auto& x = sax.entries[a].offsets;
        const auto& y = sax.entries[c].offsets;
        return x[0] != y[0] ? x[0] < y[0] : x[1] < y[1];
    });

    SafeTensorsFile out;
    out.metadata = std::move(sax.metadata);
    out.tensors.reserve(idx.size());
    uint64_t pos = 0;
    const std::string* prevName = nullptr;
    for (size_t i : idx) {
        RawEntry& e = sax.entries[i];
        uint64_t begin = e.offsets[0], end = e.offsets[1];
        std::string offs = "[" + std::to_string(begin) + ", " + std::to_string(end) + "]";
        if (end < begin)
            failFile(file, "tensor " + showName(e.name) + ": data_offsets " + offs + " end before they begin");
        if (begin > pos)
            failFile(file,
                     "data_offsets leave a hole: bytes [" + std::to_string(pos) + ", " + std::to_string(begin)
                         + ") of the data section belong to no tensor (before tensor " + showName(e.name)
                         + "); the offsets must tile the data section");
        if (begin < pos)
            failFile(file,
                     "tensor " + showName(e.name) + ": data_offsets " + offs + " overlap tensor "
                         + showName(prevName ? *prevName : std::string()) + ", which ends at " + std::to_string(pos)
                         + "; the offsets must tile the data section");
        std::string why;
        auto need = bytesFor(e.dtype, e.shape, &why);
        if (!need)
            failFile(file,
                     "tensor " + showName(e.name) + ": shape " + shapeStr(e.shape) + " of "
                         + std::string(dtypeSafetensorsName(e.dtype)) + ": " + why);
        if (*need != end - begin)
            failFile(file,
                     "tensor " + showName(e.name) + ": shape " + shapeStr(e.shape) + " of "
                         + std::string(dtypeSafetensorsName(e.dtype)) + " needs " + std::to_string(*need)
                         + " bytes but data_offsets " + offs + " span " + std::to_string(end - begin));
        if (end > dataLen)
            failFile(file,
                     "file is truncated: tensor " + showName(e.name) + " ends at data byte " + std::to_string(end)
                         + " but the data section has only " + std::to_string(dataLen) + " bytes");
        pos = end;
        SafeTensor t;
        t.name = std::move(e.name);
        t.dtype = e.dtype;
        t.shape = std::move(e.shape);
        t.fileOffset = kBase + n + begin;
        out.tensors.push_back(std::move(t));
        prevName = &out.tensors.back().name;
    }
    if (pos != dataLen)
        failFile(file,
                 "the tensors cover " + std::to_string(pos) + " bytes but the data section has "
                     + std::to_string(dataLen) + " (" + std::to_string(dataLen - pos)
                     + " trailing bytes no tensor uses); the offsets must tile the data section");
    return out;
}

uint64_t checkSafetensorsHeaderLength(const uint8_t* first8, uint64_t fileSize, const std::string& file)
{
    if (fileSize < 8)
        failAtByte(file, 0,
                   "file too small: " + std::to_string(fileSize)
                       + " bytes, a safetensors file starts with an 8-byte header length");
    uint64_t n = readLe64(first8);
    if (n > kSafetensorsMaxHeader)
        failAtByte(file, 0,
                   "header length " + std::to_string(n) + " exceeds the limit of "
                       + std::to_string(kSafetensorsMaxHeader) + " bytes");
    if (n > fileSize - 8)
        failAtByte(file, 0,
                   "header length " + std::to_string(n) + " is larger than the file (" + std::to_string(fileSize - 8)
                       + " bytes after the length)");
    return n;
}

}  // namespace fxl

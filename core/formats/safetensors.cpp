#include "core/formats/safetensors.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <string_view>
#include <unordered_set>

#include "core/ir/diagnostics.hpp"

#ifndef _WIN32
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#else
#include <fstream>
#endif

namespace fxl {
namespace {

// ---------------------------------------------------------------- small helpers

[[noreturn]] void fail(const std::string& file, uint64_t byteOffset, const std::string& msg)
{
    // Column = 1-based byte offset in the file (0 when it does not fit an int).
    int col = byteOffset < static_cast<uint64_t>(INT_MAX) ? static_cast<int>(byteOffset + 1) : 0;
    throw InputError(file, 0, col, msg);
}

[[noreturn]] void fail(const std::string& file, const std::string& msg) { throw InputError(file, 0, 0, msg); }

uint64_t readLe64(const uint8_t* p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

// Index of the first byte that is not part of valid UTF-8 (overlongs, surrogates and code
// points above U+10FFFF are invalid, as for Rust's str::from_utf8), or n when all is valid.
size_t firstInvalidUtf8(const uint8_t* s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        size_t len;
        uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            if (c == 0xE0) lo = 0xA0;
            if (c == 0xED) hi = 0x9F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            if (c == 0xF0) lo = 0x90;
            if (c == 0xF4) hi = 0x8F;
        } else {
            return i;
        }
        if (n - i < len) return i;
        if (s[i + 1] < lo || s[i + 1] > hi) return i;
        for (size_t k = 2; k < len; ++k)
            if ((s[i + k] & 0xC0) != 0x80) return i;
        i += len;
    }
    return n;
}

bool validUtf8(const std::string& s)
{
    return firstInvalidUtf8(reinterpret_cast<const uint8_t*>(s.data()), s.size()) == s.size();
}

// A name as it appears in messages: quoted, control characters escaped, long names cut.
std::string showName(std::string_view s)
{
    std::string out = "'";
    size_t n = std::min<size_t>(s.size(), 200);
    for (size_t i = 0; i < n; ++i) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        if (c < 0x20 || c == 0x7F) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
    }
    if (s.size() > n) out += "...";
    return out + "'";
}

// Bits per element in the safetensors sense ("F4" is 4 bits; our F4E2M1FNx2 maps to it).
int dtypeBits(DType t)
{
    if (dtypeSafetensorsName(t).empty()) return 0;
    if (t == DType::F4E2M1FNx2) return 4;
    return dtypeItemSize(t) * 8;
}

// numel * bits / 8 with overflow checks; nullopt when it overflows or leaves a partial byte.
std::optional<uint64_t> bytesFor(DType t, const std::vector<int64_t>& shape, std::string* why)
{
    uint64_t numel = 1;
    for (int64_t d : shape) {
        if (d < 0) {
            if (why) *why = "negative dimension";
            return std::nullopt;
        }
        if (__builtin_mul_overflow(numel, static_cast<uint64_t>(d), &numel)) {
            if (why) *why = "the element count overflows 64 bits";
            return std::nullopt;
        }
    }
    int bits = dtypeBits(t);
    if (bits == 0) {
        if (why) *why = "dtype has no safetensors name";
        return std::nullopt;
    }
    uint64_t totalBits;
    if (__builtin_mul_overflow(numel, static_cast<uint64_t>(bits), &totalBits)) {
        if (why) *why = "the byte count overflows 64 bits";
        return std::nullopt;
    }
    if (totalBits % 8 != 0) {
        if (why) *why = std::to_string(numel) + " values of " + std::to_string(bits) + " bits do not fill whole bytes";
        return std::nullopt;
    }
    return totalBits / 8;
}

std::string shapeStr(const std::vector<int64_t>& shape)
{
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) {
        if (i) s += ", ";
        s += std::to_string(shape[i]);
    }
    return s + "]";
}

// ---------------------------------------------------------------- header parsing

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

// Parses and checks the header bytes. `dataLen` is the size of the data section. The
// tensors come back in data-offset order with fileOffset set; data stays empty.
SafeTensorsFile parseHeader(const uint8_t* hdr, uint64_t n, uint64_t dataLen, const std::string& file)
{
    constexpr uint64_t kBase = 8;  // header starts after the length
    size_t bad = firstInvalidUtf8(hdr, n);
    if (bad != n) fail(file, kBase + bad, "header is not valid UTF-8 (byte " + std::to_string(kBase + bad) + ")");
    if (n == 0) fail(file, kBase, "header is empty (expected a JSON object)");
    if (hdr[0] != '{') fail(file, kBase, "header must start with '{' (the JSON object; padding goes at the end)");

    HeaderSax sax;
    const char* b = reinterpret_cast<const char*>(hdr);
    bool ok = nlohmann::json::sax_parse(b, b + n, &sax, nlohmann::json::input_format_t::json, true, false);
    if (!ok || !sax.error.empty()) {
        if (sax.syntaxError) {
            uint64_t pos = kBase + (sax.errorPos > 0 ? sax.errorPos - 1 : 0);
            fail(file, pos, sax.error + " (file byte " + std::to_string(pos) + ")");
        }
        fail(file, kBase, sax.error.empty() ? std::string("header is not valid JSON") : sax.error);
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
        if (end < begin) fail(file, "tensor " + showName(e.name) + ": data_offsets " + offs + " end before they begin");
        if (begin > pos)
            fail(file,
                 "data_offsets leave a hole: bytes [" + std::to_string(pos) + ", " + std::to_string(begin)
                     + ") of the data section belong to no tensor (before tensor " + showName(e.name)
                     + "); the offsets must tile the data section");
        if (begin < pos)
            fail(file,
                 "tensor " + showName(e.name) + ": data_offsets " + offs + " overlap tensor "
                     + showName(prevName ? *prevName : std::string()) + ", which ends at " + std::to_string(pos)
                     + "; the offsets must tile the data section");
        std::string why;
        auto need = bytesFor(e.dtype, e.shape, &why);
        if (!need)
            fail(file,
                 "tensor " + showName(e.name) + ": shape " + shapeStr(e.shape) + " of "
                     + std::string(dtypeSafetensorsName(e.dtype)) + ": " + why);
        if (*need != end - begin)
            fail(file,
                 "tensor " + showName(e.name) + ": shape " + shapeStr(e.shape) + " of "
                     + std::string(dtypeSafetensorsName(e.dtype)) + " needs " + std::to_string(*need)
                     + " bytes but data_offsets " + offs + " span " + std::to_string(end - begin));
        if (end > dataLen)
            fail(file,
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
        fail(file,
             "the tensors cover " + std::to_string(pos) + " bytes but the data section has " + std::to_string(dataLen)
                 + " (" + std::to_string(dataLen - pos)
                 + " trailing bytes no tensor uses); the offsets must tile the data section");
    return out;
}

// Checks the 8-byte length against the limit and the file size; returns it.
uint64_t checkHeaderLength(const uint8_t* first8, uint64_t fileSize, const std::string& file)
{
    if (fileSize < 8)
        fail(file, 0,
             "file too small: " + std::to_string(fileSize)
                 + " bytes, a safetensors file starts with an 8-byte header length");
    uint64_t n = readLe64(first8);
    if (n > kSafetensorsMaxHeader)
        fail(file, 0,
             "header length " + std::to_string(n) + " exceeds the limit of " + std::to_string(kSafetensorsMaxHeader)
                 + " bytes");
    if (n > fileSize - 8)
        fail(file, 0,
             "header length " + std::to_string(n) + " is larger than the file (" + std::to_string(fileSize - 8)
                 + " bytes after the length)");
    return n;
}

// ---------------------------------------------------------------- file I/O

struct File
{
    std::FILE* f = nullptr;
    ~File()
    {
        if (f) std::fclose(f);
    }
};

std::string errnoText() { return std::strerror(errno); }

uint64_t openForRead(File& fh, const std::string& path)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) fail(path, "cannot read: is a directory");
    fh.f = std::fopen(path.c_str(), "rb");
    if (!fh.f) fail(path, "cannot open: " + errnoText());
    if (std::fseek(fh.f, 0, SEEK_END) != 0) fail(path, "cannot seek: " + errnoText());
    long sz = std::ftell(fh.f);
    if (sz < 0) fail(path, "cannot tell the file size: " + errnoText());
    std::rewind(fh.f);
    return static_cast<uint64_t>(sz);
}

void readExact(File& fh, uint8_t* dst, uint64_t n, const std::string& path)
{
    if (n == 0) return;
    if (std::fread(dst, 1, n, fh.f) != n)
        fail(path, std::ferror(fh.f) ? "read error: " + errnoText() : std::string("file shrank while reading"));
}

// ---------------------------------------------------------------- writing

void appendJsonString(std::string& out, std::string_view s)
{
    // serde_json's escaping: quote, backslash and control characters; the rest verbatim.
    static const char* hex = "0123456789abcdef";
    out += '"';
    for (char ch : s) {
        unsigned char c = static_cast<unsigned char>(ch);
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c < 0x20) {
                out += "\\u00";
                out += hex[c >> 4];
                out += hex[c & 15];
            } else {
                out += ch;
            }
        }
    }
    out += '"';
}

[[noreturn]] void writeFail(const std::string& path, const std::string& msg) { throw InputError(path, 0, 0, msg); }

std::vector<uint8_t> serializeImpl(const SafeTensorsFile& f, TensorOrder order, const std::string& dest)
{
    std::unordered_set<std::string_view> names;
    for (const auto& t : f.tensors) {
        if (!names.insert(t.name).second) writeFail(dest, "cannot write: duplicate tensor name " + showName(t.name));
        if (t.name == "__metadata__") writeFail(dest, "cannot write: a tensor may not be named __metadata__");
        if (!validUtf8(t.name)) writeFail(dest, "cannot write: tensor name " + showName(t.name) + " is not UTF-8");
        if (dtypeSafetensorsName(t.dtype).empty())
            writeFail(dest,
                      "cannot write: tensor " + showName(t.name) + " has dtype " + std::string(dtypeTorchName(t.dtype))
                          + ", which safetensors cannot store");
        std::string why;
        auto need = bytesFor(t.dtype, t.shape, &why);
        if (!need)
            writeFail(dest, "cannot write: tensor " + showName(t.name) + ": shape " + shapeStr(t.shape) + ": " + why);
        if (*need != t.data.size())
            writeFail(dest,
                      "cannot write: tensor " + showName(t.name) + ": shape " + shapeStr(t.shape) + " of "
                          + std::string(dtypeSafetensorsName(t.dtype)) + " needs " + std::to_string(*need)
                          + " bytes but it holds " + std::to_string(t.data.size()));
    }
    for (const auto& [k, v] : f.metadata)
        if (!validUtf8(k) || !validUtf8(v))
            writeFail(dest, "cannot write: __metadata__ entry " + showName(k) + " is not UTF-8");

    std::vector<const SafeTensor*> ts;
    ts.reserve(f.tensors.size());
    for (const auto& t : f.tensors) ts.push_back(&t);
    if (order == TensorOrder::Library)
        std::stable_sort(ts.begin(), ts.end(), [](const SafeTensor* a, const SafeTensor* b) {
            int ra = safetensorsDtypeRank(a->dtype), rb = safetensorsDtypeRank(b->dtype);
            if (ra != rb) return ra > rb;
            return a->name < b->name;  // bytewise, as Rust's String ordering
        });

    std::string h = "{";
    bool first = true;
    if (!f.metadata.empty()) {
        h += "\"__metadata__\":{";
        bool firstKv = true;
        for (const auto& [k, v] : f.metadata) {
            if (!firstKv) h += ',';
            firstKv = false;
            appendJsonString(h, k);
            h += ':';
            appendJsonString(h, v);
        }
        h += '}';
        first = false;
    }
    uint64_t offset = 0;
    for (const SafeTensor* t : ts) {
        if (!first) h += ',';
        first = false;
        appendJsonString(h, t->name);
        h += ":{\"dtype\":\"";
        h += dtypeSafetensorsName(t->dtype);
        h += "\",\"shape\":[";
        for (size_t i = 0; i < t->shape.size(); ++i) {
            if (i) h += ',';
            h += std::to_string(t->shape[i]);
        }
        h += "],\"data_offsets\":[";
        h += std::to_string(offset);
        h += ',';
        offset += t->data.size();
        h += std::to_string(offset);
        h += "]}";
    }
    h += '}';
    h.append((8 - h.size() % 8) % 8, ' ');  // data section starts 8-aligned
    if (h.size() > kSafetensorsMaxHeader)
        writeFail(dest,
                  "cannot write: the header would be " + std::to_string(h.size())
                      + " bytes, over the format's limit of " + std::to_string(kSafetensorsMaxHeader));

    std::vector<uint8_t> out;
    out.reserve(8 + h.size() + offset);
    uint64_t n = h.size();
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(n >> (8 * i)));
    out.insert(out.end(), h.begin(), h.end());
    for (const SafeTensor* t : ts) out.insert(out.end(), t->data.begin(), t->data.end());
    return out;
}

#ifndef _WIN32
void atomicWrite(const std::string& path, const std::vector<uint8_t>& bytes)
{
    namespace fs = std::filesystem;
    fs::path target(path);
    fs::path dir = target.parent_path();
    if (dir.empty()) dir = ".";
    std::string tmp;
    int fd = -1;
    static std::atomic<unsigned> counter{0};
    for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
        // Hidden temp file beside the target, so that rename() stays on one file system.
        tmp = (dir
               / ("." + target.filename().string() + ".tmp." + std::to_string(::getpid()) + "."
                  + std::to_string(counter++)))
                  .string();
        fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) writeFail(path, "cannot create a temporary file beside it: " + errnoText());
    }
    if (fd < 0) writeFail(path, "cannot create a temporary file beside it");
    auto abandon = [&](const std::string& what) {
        std::string msg = what + ": " + errnoText();
        if (fd >= 0) ::close(fd);
        ::unlink(tmp.c_str());
        writeFail(path, msg);
    };
    size_t done = 0;
    while (done < bytes.size()) {
        ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (w < 0) {
            if (errno == EINTR) continue;
            abandon("cannot write");
        }
        done += static_cast<size_t>(w);
    }
    if (::fsync(fd) != 0) abandon("cannot sync");
    int rc = ::close(fd);
    fd = -1;
    if (rc != 0) abandon("cannot close");
    if (::rename(tmp.c_str(), path.c_str()) != 0) abandon("cannot rename the temporary file over it");
    // Make the rename itself durable; failure here does not lose data, so it is not fatal.
    int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
}
#else
void atomicWrite(const std::string& path, const std::vector<uint8_t>& bytes)
{
    std::string tmp = path + ".tmp";
    {
        std::ofstream o(tmp, std::ios::binary | std::ios::trunc);
        o.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        o.flush();
        if (!o) {
            std::error_code ec;
            std::filesystem::remove(tmp, ec);
            writeFail(path, "cannot write");
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        writeFail(path, "cannot rename the temporary file over it");
    }
}
#endif

}  // namespace

// ---------------------------------------------------------------- public API

int64_t SafeTensor::numel() const
{
    int64_t n = 1;
    for (int64_t d : shape) {
        if (d < 0) return 0;
        if (__builtin_mul_overflow(n, d, &n)) return std::numeric_limits<int64_t>::max();
    }
    return n;
}

int64_t SafeTensor::byteSize() const
{
    auto b = bytesFor(dtype, shape, nullptr);
    if (!b || *b > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return -1;
    return static_cast<int64_t>(*b);
}

const SafeTensor* SafeTensorsFile::find(const std::string& name) const
{
    for (const auto& t : tensors)
        if (t.name == name) return &t;
    return nullptr;
}

int safetensorsDtypeRank(DType t)
{
    // The reference Dtype enum, "in increasing alignment order": BOOL, F4, F6_E2M3, F6_E3M2,
    // U8, I8, F8_E5M2, F8_E4M3, F8_E8M0, I16, U16, F16, BF16, I32, U32, F32, C64, F64, I64,
    // U64 (x10). Names it lacks (FNUZ fp8s, C32, C128) slot in beside their alignment.
    switch (t) {
    case DType::Bool: return 0;
    case DType::F4E2M1FNx2: return 10;
    case DType::U8: return 40;
    case DType::I8: return 50;
    case DType::F8E5M2: return 60;
    case DType::F8E4M3FN: return 70;
    case DType::F8E8M0FNU: return 80;
    case DType::F8E4M3FNUZ: return 81;
    case DType::F8E5M2FNUZ: return 82;
    case DType::I16: return 90;
    case DType::U16: return 100;
    case DType::F16: return 110;
    case DType::BF16: return 120;
    case DType::I32: return 130;
    case DType::U32: return 140;
    case DType::C32: return 145;
    case DType::F32: return 150;
    case DType::C64: return 160;
    case DType::F64: return 170;
    case DType::I64: return 180;
    case DType::U64: return 190;
    case DType::C128: return 200;
    default: return -1;
    }
}

SafeTensorsFile parseSafetensors(const uint8_t* data, size_t size, const std::string& file)
{
    uint64_t n = checkHeaderLength(data, size, file);
    uint64_t dataLen = size - 8 - n;
    SafeTensorsFile f = parseHeader(data + 8, n, dataLen, file);
    for (auto& t : f.tensors) {
        const uint8_t* p = data + t.fileOffset;
        t.data.assign(p, p + t.byteSize());
    }
    return f;
}

SafeTensorsFile readSafetensors(const std::string& path)
{
    File fh;
    uint64_t size = openForRead(fh, path);
    if (size > static_cast<uint64_t>(std::numeric_limits<size_t>::max())) fail(path, "file too large to read");
    std::vector<uint8_t> buf(static_cast<size_t>(size));
    readExact(fh, buf.data(), size, path);
    return parseSafetensors(buf.data(), buf.size(), path);
}

SafeTensorsFile readSafetensorsHeader(const std::string& path)
{
    File fh;
    uint64_t size = openForRead(fh, path);
    uint8_t first8[8] = {};
    readExact(fh, first8, std::min<uint64_t>(size, 8), path);
    uint64_t n = checkHeaderLength(first8, size, path);
    std::vector<uint8_t> hdr(static_cast<size_t>(n));
    readExact(fh, hdr.data(), n, path);
    return parseHeader(hdr.data(), n, size - 8 - n, path);
}

std::vector<uint8_t> serializeSafetensors(const SafeTensorsFile& f)
{
    return serializeImpl(f, TensorOrder::Library, "<memory>");
}

std::vector<uint8_t> serializeSafetensors(const SafeTensorsFile& f, TensorOrder order)
{
    return serializeImpl(f, order, "<memory>");
}

void writeSafetensors(const std::string& path, const SafeTensorsFile& f)
{
    writeSafetensors(path, f, TensorOrder::Library);
}

void writeSafetensors(const std::string& path, const SafeTensorsFile& f, TensorOrder order)
{
    // Everything that can be wrong with the tensors fails here, before the disk is touched.
    std::vector<uint8_t> bytes = serializeImpl(f, order, path);
    atomicWrite(path, bytes);
}

}  // namespace fxl

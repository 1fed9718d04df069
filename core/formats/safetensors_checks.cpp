#include "core/formats/safetensors_checks.hpp"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>

#include "core/formats/utf8.hpp"
#include "core/ir/diagnostics.hpp"

namespace fxl {

void failAtByte(const std::string& file, uint64_t byteOffset, const std::string& msg)
{
    // Column = 1-based byte offset in the file (0 when it does not fit an int).
    int col = byteOffset < static_cast<uint64_t>(INT_MAX) ? static_cast<int>(byteOffset + 1) : 0;
    throw InputError(file, 0, col, msg);
}

void failFile(const std::string& file, const std::string& msg) { throw InputError(file, 0, 0, msg); }

bool validUtf8(const std::string& s) { return firstInvalidUtf8(s) == std::string_view::npos; }

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

int dtypeBits(DType t)
{
    if (dtypeSafetensorsName(t).empty()) return 0;
    if (t == DType::F4E2M1FNx2) return 4;
    return dtypeItemSize(t) * 8;
}

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

std::string errnoText() { return std::strerror(errno); }

}  // namespace fxl

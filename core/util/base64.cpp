#include "core/util/base64.hpp"

#include <array>

namespace fxl {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// -1 for characters outside the alphabet.
constexpr std::array<int8_t, 256> decodeTable()
{
    std::array<int8_t, 256> t{};
    for (auto& v : t) v = -1;
    for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(kAlphabet[i])] = static_cast<int8_t>(i);
    return t;
}

}  // namespace

std::string encodeBase64(const uint8_t* data, size_t size)
{
    std::string out;
    out.reserve((size + 2) / 3 * 4);
    size_t i = 0;
    for (; i + 3 <= size; i += 3) {
        const uint32_t v = uint32_t(data[i]) << 16 | uint32_t(data[i + 1]) << 8 | data[i + 2];
        out += kAlphabet[v >> 18];
        out += kAlphabet[(v >> 12) & 63];
        out += kAlphabet[(v >> 6) & 63];
        out += kAlphabet[v & 63];
    }
    if (size - i == 1) {
        const uint32_t v = uint32_t(data[i]) << 16;
        out += kAlphabet[v >> 18];
        out += kAlphabet[(v >> 12) & 63];
        out += "==";
    } else if (size - i == 2) {
        const uint32_t v = uint32_t(data[i]) << 16 | uint32_t(data[i + 1]) << 8;
        out += kAlphabet[v >> 18];
        out += kAlphabet[(v >> 12) & 63];
        out += kAlphabet[(v >> 6) & 63];
        out += '=';
    }
    return out;
}

std::optional<std::vector<uint8_t>> decodeBase64(std::string_view text, size_t& errorOffset)
{
    static constexpr std::array<int8_t, 256> table = decodeTable();
    if (text.size() % 4 != 0) {
        errorOffset = text.size() - text.size() % 4;
        return std::nullopt;
    }
    std::vector<uint8_t> out;
    out.reserve(text.size() / 4 * 3);
    for (size_t i = 0; i < text.size(); i += 4) {
        const bool last = i + 4 == text.size();
        // padding: only in the last group, "x===" is never valid
        const size_t padding = last ? (text[i + 3] == '=') + (text[i + 3] == '=' && text[i + 2] == '=') : 0;
        uint32_t v = 0;
        for (size_t k = 0; k < 4 - padding; ++k) {
            const int8_t d = table[static_cast<unsigned char>(text[i + k])];
            if (d < 0) {
                errorOffset = i + k;
                return std::nullopt;
            }
            v |= uint32_t(d) << (18 - 6 * k);
        }
        // the bits a padded group leaves over must be zero (one encoding per byte string)
        const uint32_t spareBits = padding == 2 ? (v & 0xFFFF) : padding == 1 ? (v & 0xFF) : 0;
        if (spareBits != 0) {
            errorOffset = i + 3 - padding;
            return std::nullopt;
        }
        out.push_back(uint8_t(v >> 16));
        if (padding < 2) out.push_back(uint8_t(v >> 8));
        if (padding < 1) out.push_back(uint8_t(v));
    }
    return out;
}

}  // namespace fxl

#include "core/formats/utf8.hpp"

#include <cstdint>
#include <cstring>

namespace fxl {

size_t firstInvalidUtf8(std::string_view bytes, NulByte nul)
{
    const unsigned char* s = reinterpret_cast<const unsigned char*>(bytes.data());
    const size_t n = bytes.size();
    const bool nulInvalid = nul == NulByte::Invalid;
    size_t i = 0;
    while (i < n) {
        // fast path: 8 ASCII bytes (without NUL when NUL is invalid) at a time
        if (i + 8 <= n) {
            uint64_t w;
            std::memcpy(&w, s + i, 8);
            const uint64_t hasHigh = w & 0x8080808080808080ULL;
            const uint64_t hasZero = (w - 0x0101010101010101ULL) & ~w & 0x8080808080808080ULL;
            if (!hasHigh && !(nulInvalid && hasZero)) {
                i += 8;
                continue;
            }
        }
        unsigned char c = s[i];
        if (c == 0 && nulInvalid) return i;
        if (c < 0x80) {
            ++i;
            continue;
        }
        size_t len;
        uint32_t cp;
        if ((c & 0xE0) == 0xC0) {
            len = 2;
            cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            len = 3;
            cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            len = 4;
            cp = c & 0x07;
        } else {
            return i;
        }
        if (i + len > n) return i;
        for (size_t k = 1; k < len; ++k) {
            if ((s[i + k] & 0xC0) != 0x80) return i;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        // overlong forms, surrogates, beyond U+10FFFF
        if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF
            || (cp >= 0xD800 && cp <= 0xDFFF))
            return i;
        i += len;
    }
    return std::string_view::npos;
}

}  // namespace fxl

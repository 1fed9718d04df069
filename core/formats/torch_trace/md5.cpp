#include "core/formats/torch_trace/md5.hpp"

#include <cstring>

namespace fxl {

namespace {

inline uint32_t rotl(uint32_t x, int c) { return (x << c) | (x >> (32 - c)); }
inline uint32_t load32(const uint8_t* p)
{
    return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
}

// RFC 1321 3.4: T[i] = floor(2^32 * |sin(i + 1)|), and the per-round shift amounts.
constexpr uint32_t kT[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};
constexpr int kS[4][4] = {{7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21}};

}  // namespace

void Md5::reset()
{
    a_ = 0x67452301;
    b_ = 0xefcdab89;
    c_ = 0x98badcfe;
    d_ = 0x10325476;
    length_ = 0;
    buffered_ = 0;
}

void Md5::block(const uint8_t* p)
{
    uint32_t x[16];
    for (int i = 0; i < 16; ++i) x[i] = load32(p + 4 * i);
    uint32_t a = a_, b = b_, c = c_, d = d_;
    // The four rounds differ in the mixing function and in which message word each step uses;
    // fully unrolled so that the word index and shift are constants.
#define FXL_MD5_STEP(F, a, b, c, d, k, s, i) a = b + rotl(a + (F) + x[k] + kT[i], s)
#define FXL_MD5_ROUND(F, k0, k1, k2, k3, i)                                                                            \
    FXL_MD5_STEP(F(b, c, d), a, b, c, d, k0, kS[(i) >> 4][0], i);                                                      \
    FXL_MD5_STEP(F(a, b, c), d, a, b, c, k1, kS[(i) >> 4][1], (i) + 1);                                                \
    FXL_MD5_STEP(F(d, a, b), c, d, a, b, k2, kS[(i) >> 4][2], (i) + 2);                                                \
    FXL_MD5_STEP(F(c, d, a), b, c, d, a, k3, kS[(i) >> 4][3], (i) + 3)
#define FXL_F(x, y, z) ((z) ^ ((x) & ((y) ^ (z))))
#define FXL_G(x, y, z) ((y) ^ ((z) & ((x) ^ (y))))
#define FXL_H(x, y, z) ((x) ^ (y) ^ (z))
#define FXL_I(x, y, z) ((y) ^ ((x) | ~(z)))
    FXL_MD5_ROUND(FXL_F, 0, 1, 2, 3, 0);
    FXL_MD5_ROUND(FXL_F, 4, 5, 6, 7, 4);
    FXL_MD5_ROUND(FXL_F, 8, 9, 10, 11, 8);
    FXL_MD5_ROUND(FXL_F, 12, 13, 14, 15, 12);
    FXL_MD5_ROUND(FXL_G, 1, 6, 11, 0, 16);
    FXL_MD5_ROUND(FXL_G, 5, 10, 15, 4, 20);
    FXL_MD5_ROUND(FXL_G, 9, 14, 3, 8, 24);
    FXL_MD5_ROUND(FXL_G, 13, 2, 7, 12, 28);
    FXL_MD5_ROUND(FXL_H, 5, 8, 11, 14, 32);
    FXL_MD5_ROUND(FXL_H, 1, 4, 7, 10, 36);
    FXL_MD5_ROUND(FXL_H, 13, 0, 3, 6, 40);
    FXL_MD5_ROUND(FXL_H, 9, 12, 15, 2, 44);
    FXL_MD5_ROUND(FXL_I, 0, 7, 14, 5, 48);
    FXL_MD5_ROUND(FXL_I, 12, 3, 10, 1, 52);
    FXL_MD5_ROUND(FXL_I, 8, 15, 6, 13, 56);
    FXL_MD5_ROUND(FXL_I, 4, 11, 2, 9, 60);
#undef FXL_MD5_STEP
#undef FXL_MD5_ROUND
#undef FXL_F
#undef FXL_G
#undef FXL_H
#undef FXL_I
    a_ += a;
    b_ += b;
    c_ += c;
    d_ += d;
}

void Md5::update(const void* data, size_t size)
{
    const auto* p = static_cast<const uint8_t*>(data);
    length_ += size;
    if (buffered_ > 0) {
        size_t take = std::min(size, sizeof buffer_ - buffered_);
        std::memcpy(buffer_ + buffered_, p, take);
        buffered_ += take;
        p += take;
        size -= take;
        if (buffered_ < sizeof buffer_) return;
        block(buffer_);
        buffered_ = 0;
    }
    for (; size >= 64; p += 64, size -= 64) block(p);
    if (size > 0) {
        std::memcpy(buffer_, p, size);
        buffered_ = size;
    }
}

std::array<uint8_t, 16> Md5::finish()
{
    const uint64_t bits = length_ * 8;
    static const uint8_t pad[64] = {0x80};
    // Pad to 56 mod 64, then the message length in bits, little-endian.
    size_t padLen = (buffered_ < 56) ? 56 - buffered_ : 120 - buffered_;
    update(pad, padLen);
    uint8_t len[8];
    for (int i = 0; i < 8; ++i) len[i] = uint8_t(bits >> (8 * i));
    update(len, 8);
    std::array<uint8_t, 16> out{};
    const uint32_t words[4] = {a_, b_, c_, d_};
    for (int w = 0; w < 4; ++w)
        for (int i = 0; i < 4; ++i) out[4 * w + i] = uint8_t(words[w] >> (8 * i));
    return out;
}

std::string Md5::finishHex()
{
    static const char hex[] = "0123456789abcdef";
    auto d = finish();
    std::string s(32, '0');
    for (int i = 0; i < 16; ++i) {
        s[2 * i] = hex[d[i] >> 4];
        s[2 * i + 1] = hex[d[i] & 15];
    }
    return s;
}

std::string md5Hex(std::string_view data)
{
    Md5 m;
    m.update(data);
    return m.finishHex();
}

}  // namespace fxl

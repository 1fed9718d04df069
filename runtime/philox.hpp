// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3"), the counter-based
// generator PyTorch uses for (seed, offset) random streams: value k of a stream depends only on
// (seed, offset + k), so a recomputation replays the same bits.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>

namespace fxl {

inline std::array<uint32_t, 4> philox4x32(std::array<uint32_t, 4> ctr, std::array<uint32_t, 2> key) {
    constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u, kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
    for (int round = 0; round < 10; ++round) {
        const uint64_t p0 = static_cast<uint64_t>(kM0) * ctr[0];
        const uint64_t p1 = static_cast<uint64_t>(kM1) * ctr[2];
        ctr = {static_cast<uint32_t>(p1 >> 32) ^ ctr[1] ^ key[0], static_cast<uint32_t>(p1),
               static_cast<uint32_t>(p0 >> 32) ^ ctr[3] ^ key[1], static_cast<uint32_t>(p0)};
        key[0] += kW0;
        key[1] += kW1;
    }
    return ctr;
}

// 32-bit draw number `index` of the stream (seed, subsequence).
inline uint32_t philoxDraw(uint64_t seed, uint64_t subsequence, uint64_t index) {
    const uint64_t block = index / 4;
    const auto r = philox4x32({static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32),
                               static_cast<uint32_t>(subsequence), static_cast<uint32_t>(subsequence >> 32)},
                              {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)});
    return r[index % 4];
}

// Uniform float in [0, 1) from 24 random bits.
inline float philoxUniform(uint64_t seed, uint64_t subsequence, uint64_t index) {
    return static_cast<float>(philoxDraw(seed, subsequence, index) >> 8) * (1.0f / 16777216.0f);
}

// Standard normal by Box-Muller from draws 2i and 2i+1 (computed in double, rounded once).
inline float philoxNormal(uint64_t seed, uint64_t subsequence, uint64_t index) {
    const double u1 = (static_cast<double>(philoxDraw(seed, subsequence, 2 * index) >> 8) + 1.0) / 16777217.0;
    const double u2 = static_cast<double>(philoxDraw(seed, subsequence, 2 * index + 1) >> 8) / 16777216.0;
    return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
}

}  // namespace fxl

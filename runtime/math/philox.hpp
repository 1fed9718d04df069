// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3"), the counter-based
// generator PyTorch uses for (seed, offset) random streams: value k of a stream depends only on
// (seed, offset + k), so a recomputation replays the same bits.
#pragma once

#include <cstdint>
#include <cstring>

#include "runtime/math/fn_exp.hpp"
#include "runtime/math/fn_log.hpp"
#include "runtime/math/fn_trig.hpp"
#include "runtime/math/hostdev.hpp"
#include "runtime/math/storage.hpp"

namespace fxl {

// Four 32-bit words (a counter block, a result) and two (a key).
struct PhiloxWords4
{
    uint32_t w[4];
    FXL_HD uint32_t operator[](size_t i) const { return w[i]; }
};
struct PhiloxWords2
{
    uint32_t w[2];
};

FXL_HD inline PhiloxWords4 philox4x32(PhiloxWords4 ctr, PhiloxWords2 key)
{
    constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u, kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
    for (int round = 0; round < 10; ++round) {
        const uint64_t p0 = static_cast<uint64_t>(kM0) * ctr.w[0];
        const uint64_t p1 = static_cast<uint64_t>(kM1) * ctr.w[2];
        ctr = {{static_cast<uint32_t>(p1 >> 32) ^ ctr.w[1] ^ key.w[0], static_cast<uint32_t>(p1),
                static_cast<uint32_t>(p0 >> 32) ^ ctr.w[3] ^ key.w[1], static_cast<uint32_t>(p0)}};
        key.w[0] += kW0;
        key.w[1] += kW1;
    }
    return ctr;
}

// 32-bit draw number `index` of the stream (seed, subsequence).
FXL_HD inline uint32_t philoxDraw(uint64_t seed, uint64_t subsequence, uint64_t index)
{
    const uint64_t block = index / 4;
    const auto r = philox4x32({{static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32),
                                static_cast<uint32_t>(subsequence), static_cast<uint32_t>(subsequence >> 32)}},
                              {{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)}});
    return r[index % 4];
}

// Uniform float in [0, 1) from 24 random bits.
FXL_HD inline float philoxUniform(uint64_t seed, uint64_t subsequence, uint64_t index)
{
    return static_cast<float>(philoxDraw(seed, subsequence, index) >> 8) * (1.0f / 16777216.0f);
}

// Standard normal by Box-Muller from draws 2i and 2i+1 (computed in double, rounded once).
FXL_HD inline float philoxNormal(uint64_t seed, uint64_t subsequence, uint64_t index)
{
    const double u1 = (static_cast<double>(philoxDraw(seed, subsequence, 2 * index) >> 8) + 1.0) / 16777217.0;
    const double u2 = static_cast<double>(philoxDraw(seed, subsequence, 2 * index + 1) >> 8) / 16777216.0;
    return static_cast<float>(math::sqrt(-2.0 * math::log(u1)) * math::cos(6.283185307179586 * u2));
}

// ---- Random ops: (seed, offset) streams (runtime/cpu/cpu_random.hpp documents the ops).
//
// Stream. 32-bit draw number d of the stream of `seed` is lane d % 4 of
//   philox4x32(counter = {lo(d / 4), hi(d / 4), 0, 0}, key = {lo(seed), hi(seed)})
// i.e. philoxDraw(seed, 0, d): the sequence curand_init(seed, subsequence 0, offset 0) yields,
// and curand's skipahead(offset) moves to draw `offset` of it. A random op called with
// (seed, offset) gives element k of its output (flat row-major index in the output's logical
// shape, whatever its strides) the draws offset + D*k .. offset + D*k + D - 1, where D is 1
// for f32/bf16/f16 and 2 for f64. Element k therefore depends only on (seed, offset, k):
// never on thread count, chunking or layout; drawing elements [k, n) of an op equals the same
// op drawn from offset + D*k. (PyTorch's CUDA kernels give each thread its own subsequence and
// a grid-dependent element order, so bitwise equality with CUDA streams is not a goal: the
// counter layout, the bits -> float maps and the offset accounting are PyTorch's.)
//
// Uniform. As curand_uniform: float(x) * 2^-32 + 2^-33 in float (float(x) rounds to nearest;
// the product is exact, so fused or not gives the same sum), in (0, 1]. f64 as
// curand_uniform2_double: z = x0 ^ (x1 << 21) (53 bits), z * 2^-53 + 2^-54. The ops then apply
// PyTorch's uniform transform: value = (scalar_t)(u * (to - from) + from), and a value equal to
// `to` becomes `from` (the "reversed bound" of aten/native/cuda/DistributionTemplates.h), so
// rand() is in [0, 1).
//
// Normal. curand's Box-Muller on the pair of draws (2j, 2j + 1) (absolute draw indices, so
// the pairing does not depend on the offset): u = uniform(x), v = y * 2pi*2^-32 + pi*2^-32,
// s = sqrt(-2 log u); draw 2j gives s * sin(v), draw 2j + 1 gives s * cos(v) (float, with
// runtime/math's correctly rounded log/sin/cos, the same bits on every device; curand's own
// device path uses the __logf/__sincosf intrinsics, whose bits no other device gives). f64: four draws 4j..4j+3 -> (u,
// v) as curand_normal2_double: element with draws at 4j gets s*sin(pi v), at 4j+2 gets s*cos(pi v).
//
// Offsets. A non-functional random op takes its offset from the run's generator and advances
// it by its number of draws rounded up to a multiple of 4 (whole Philox blocks, as PyTorch's
// philox_cuda_state increments are); functional forms (rngprims.philox_rand) take (seed,
// offset) as inputs and return the advanced offset.

FXL_HD inline uint64_t philoxRoundUp4(uint64_t draws) { return (draws + 3) / 4 * 4; }

// curand_uniform: (0, 1].
FXL_HD inline float philoxBitsToUniformF32(uint32_t x) { return static_cast<float>(x) * 0x1p-32f + 0x1p-33f; }
// curand_uniform2_double's _curand_uniform_double_hq: (0, 1].
FXL_HD inline double philoxBitsToUniformF64(uint32_t x0, uint32_t x1)
{
    const uint64_t z = static_cast<uint64_t>(x0) ^ (static_cast<uint64_t>(x1) << 21);
    return static_cast<double>(z) * 0x1p-53 + 0x1p-54;
}
// Raw uniform (0, 1] of element k of an op at (seed, offset).
FXL_HD inline float philoxUniformAtF32(uint64_t seed, uint64_t offset, uint64_t k)
{
    return philoxBitsToUniformF32(philoxDraw(seed, 0, offset + k));
}
FXL_HD inline double philoxUniformAtF64(uint64_t seed, uint64_t offset, uint64_t k)
{
    return philoxBitsToUniformF64(philoxDraw(seed, 0, offset + 2 * k), philoxDraw(seed, 0, offset + 2 * k + 1));
}
// Standard normal of element k (curand Box-Muller, see above).
FXL_HD inline float philoxNormalAtF32(uint64_t seed, uint64_t offset, uint64_t k)
{
    const uint64_t d = offset + k, base = d & ~uint64_t(1);
    const float u = philoxBitsToUniformF32(philoxDraw(seed, 0, base));
    const float v =
        static_cast<float>(philoxDraw(seed, 0, base + 1)) * 1.4629180792671596e-09f + 7.3145903963357980e-10f;
    const float s = math::sqrt(-2.0f * math::log(u));
    return (d == base) ? s * math::sin(v) : s * math::cos(v);
}
FXL_HD inline double philoxNormalAtF64(uint64_t seed, uint64_t offset, uint64_t k)
{
    const uint64_t d = offset + 2 * k, base = d & ~uint64_t(3);
    const double u = philoxBitsToUniformF64(philoxDraw(seed, 0, base), philoxDraw(seed, 0, base + 1));
    const uint64_t zy = static_cast<uint64_t>(philoxDraw(seed, 0, base + 2))
        ^ (static_cast<uint64_t>(philoxDraw(seed, 0, base + 3)) << 21);
    const double v = static_cast<double>(zy) * 0x1p-52 + 0x1p-53;  // in (0, 2]: the angle is pi*v
    const double s = math::sqrt(-2.0 * math::log(u));
    constexpr double kPi = 3.141592653589793;
    return (d == base) ? s * math::sin(kPi * v) : s * math::cos(kPi * v);
}

// ---- Inductor's Triton RNG (prims.inductor_random / inductor_randint): element k of a
// tensor uses philox4x32({lo(k), hi(k), 0, 0}, {lo(seed), hi(seed)}) (tl.randint4x(seed, k));
// no offset: the seed itself comes from prims.inductor_seeds.
FXL_HD inline PhiloxWords4 philoxTriton4(uint64_t seed, uint64_t k)
{
    return philox4x32({{static_cast<uint32_t>(k), static_cast<uint32_t>(k >> 32), 0u, 0u}},
                      {{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)}});
}
// triton.language.random.uint_to_uniform_float (uint32): [0, 1).
FXL_HD inline float tritonBitsToUniform(uint32_t x)
{
    int32_t i;
    memcpy(&i, &x, 4);
    if (i < 0) i = ~i;  // -i - 1 without overflow
    return static_cast<float>(i) * 4.6566127342e-10f;
}
FXL_HD inline float tritonRand(uint64_t seed, uint64_t k) { return tritonBitsToUniform(philoxTriton4(seed, k)[0]); }
// tl.randn: pair_uniform_to_normal(u1, u2), first of the pair.
FXL_HD inline float tritonRandn(uint64_t seed, uint64_t k)
{
    const auto r = philoxTriton4(seed, k);
    const float u1 = (tritonBitsToUniform(r[0]) > 1.0e-7f ? tritonBitsToUniform(r[0]) : 1.0e-7f);
    const float th = 6.283185307179586f * tritonBitsToUniform(r[1]);
    return math::sqrt(-2.0f * math::log(u1)) * math::cos(th);
}
// torch/_inductor/runtime/triton_helpers.randint64: (r0 | r1 << 32) % (high - low) + low.
FXL_HD inline int64_t tritonRandint64(uint64_t seed, uint64_t k, int64_t low, int64_t high)
{
    const auto r = philoxTriton4(seed, k);
    const uint64_t v = static_cast<uint64_t>(r[0]) | (static_cast<uint64_t>(r[1]) << 32);
    const uint64_t size = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
    return static_cast<int64_t>(static_cast<uint64_t>(low) + v % size);
}

// ---- the random ops' transforms of a draw (PyTorch's DistributionTemplates.h rules), in the
// compute type (double for f64, float otherwise, rounded to the storage type where PyTorch does).
namespace rng {

// uniform_(from, to): v = u * range + from (one fma), in the storage type; v == to becomes from.
FXL_HD inline double uniformF64(double u, double range, double from, double to)
{
    const double v = math::fma(u, range, from);
    return v == to ? from : v;
}
FXL_HD inline float uniformF32(float u, float range, float from, float to, math::Narrow n)
{
    const float v = math::roundToStorage(math::fma(u, range, from), n);
    return v == to ? from : v;
}

// normal_(mean, std): n * std + mean (one fma).
FXL_HD inline double normalF64(double n, double stdv, double mean) { return math::fma(n, stdv, mean); }
FXL_HD inline float normalF32(float n, float stdv, float mean) { return math::fma(n, stdv, mean); }

// rand_like's value in the storage type: [0, 1) (a draw that rounds to 1 becomes 0).
FXL_HD inline double randF64(double u) { return u == 1.0 ? 0.0 : u; }
FXL_HD inline float randF32(float u, math::Narrow n)
{
    u = math::roundToStorage(u, n);
    return u == 1.0f ? 0.0f : u;
}

// bernoulli: 1 where the rand value is below p.
FXL_HD inline bool bernoulli(double u, double p) { return u < p; }

// dropout: an element is kept where the rand value exceeds p (every element for p = 0); the
// output is (x * mask) * scale, the masked value in the storage type first for bf16 / f16.
FXL_HD inline bool dropoutKeeps(double u, double p, bool keepAll) { return keepAll || u > p; }
FXL_HD inline double dropoutF64(double x, bool keep, double scale) { return (x * (keep ? 1.0 : 0.0)) * scale; }
FXL_HD inline float dropoutF32(float x, bool keep, float scale, math::Narrow n)
{
    return math::roundToStorage(x * (keep ? 1.0f : 0.0f), n) * scale;
}

// randperm's Fisher-Yates step i swaps position i with floor(draw * (i + 1) / 2^32).
FXL_HD inline int64_t randpermSwap(uint32_t draw, int64_t i)
{
    return static_cast<int64_t>((static_cast<uint64_t>(draw) * static_cast<uint64_t>(i + 1)) >> 32);
}

}  // namespace rng

}  // namespace fxl

// Compile-only check that runtime/math/ is device code: every function instantiated in a
// __global__ kernel, compiled by nvcc with the flags that keep bits (--fmad=false -ftz=false
// -prec-div=true -prec-sqrt=true) and with a call from device code to a host function made an
// error (--diag-error=20011,20014: without it nvcc only warns and emits an empty kernel). Built
// whenever the CUDA toolkit is found (runtime/CMakeLists.txt); nothing links it.
#include <cstdint>

#include "runtime/math/bits.hpp"
#include "runtime/math/storage.hpp"

namespace m = fxlens::math;

__global__ void bitsAndStorage(const float* x, const double* d, const uint16_t* h, float* out, double* outD,
                               uint16_t* outH, uint32_t* outU)
{
    const int i = static_cast<int>(threadIdx.x);
    out[i] = m::fma(x[i], x[i + 1], x[i + 2]) + m::sqrt(x[i]) + m::fabs(x[i]) + m::copysign(x[i], x[i + 1])
        + m::floatFromBits(m::bitsOf(x[i])) + m::canonicalNanF() + m::bf16ToF32(h[i]) + m::f16ToF32(h[i + 1]);
    outD[i] = m::fma(d[i], d[i + 1], d[i + 2]) + m::sqrt(d[i]) + m::fabs(d[i]) + m::copysign(d[i], d[i + 1])
        + m::doubleFromBits(m::bitsOf(d[i])) + m::canonicalNanD() + m::scaleByPow2Normal(d[i], 3);
    outH[i] = static_cast<uint16_t>(m::f32ToBf16(x[i]) ^ m::f32ToF16(x[i + 1]));
    outU[i] = static_cast<uint32_t>(m::isNan(x[i])) + static_cast<uint32_t>(m::isInf(d[i]));
}

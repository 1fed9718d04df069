#pragma once
// One macro makes every function of runtime/math/ callable from host code and, compiled by nvcc,
// from device code. math/ is header-only and self-contained: no exceptions, no std containers,
// no library math (std::exp and friends differ between glibc and CUDA), only IEEE operations
// (+ - * / sqrt, explicit fma) and integer arithmetic, so that every device computes the same bits.
#if defined(__CUDACC__)
#define FXL_HD __host__ __device__
#else
#define FXL_HD
#endif

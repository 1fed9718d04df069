#pragma once
// MPFR as the oracle for runtime/math/'s functions: the correctly rounded binary32 result of a
// function, the error of a binary64 result in ulps, and sweeps over float inputs that call MPFR
// only where a fast double evaluation cannot decide the rounding. Used by tests/math (a slice)
// and tests/bench/bench_math_exhaustive (all 2^32 inputs).
#include <mpfr.h>

#include <cstdint>
#include <string>
#include <vector>

namespace fxltest::oracle {

using MpfrUnary = int (*)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);
using MpfrBinary = int (*)(mpfr_ptr, mpfr_srcptr, mpfr_srcptr, mpfr_rnd_t);

// The correctly rounded (to nearest, ties to even) binary32 value of f(x) / f(x, y), with
// binary32's subnormals, overflow to infinity and NaN.
float crFloat(MpfrUnary f, float x);
float crFloat(MpfrBinary f, float x, float y);
// The correctly rounded binary64 value (for tests that want it).
double crDouble(MpfrUnary f, double x);
double crDouble(MpfrBinary f, double x, double y);

// |got - f(x)| in ulps of binary64 at f(x) (the exact value, computed with 160 bits). 0 when
// both are the same infinity or both NaN; +inf when only one of them is NaN or infinite.
double ulpErrorDouble(MpfrUnary f, double x, double got);
double ulpErrorDouble(MpfrBinary f, double x, double y, double got);

// true when the bits are equal, or both are NaN (a NaN's payload is checked apart)
bool sameFloat(float got, float want);

struct UnaryF32
{
    const char* name;
    float (*ours)(float);
    MpfrUnary mpfr;
    // a double evaluation within 2^-45 relative error (glibc's double function): decides the
    // rounding of most inputs without MPFR
    double (*quick)(double);
};
struct BinaryF32
{
    const char* name;
    float (*ours)(float, float);
    MpfrBinary mpfr;
    double (*quick)(double, double);
};
struct UnaryF64
{
    const char* name;
    double (*ours)(double);
    MpfrUnary mpfr;
};
struct BinaryF64
{
    const char* name;
    double (*ours)(double, double);
    MpfrBinary mpfr;
};

struct Mismatch
{
    uint32_t x = 0, y = 0;  // bit patterns of the inputs (y for binary functions)
    uint32_t got = 0, want = 0;
};
struct SweepResult
{
    uint64_t checked = 0;
    uint64_t mpfrCalls = 0;
    uint64_t wrong = 0;
    uint64_t nonCanonicalNan = 0;  // NaN results whose bits are not 0xffc00000
    std::vector<Mismatch> first;  // the first few wrong results, for the message
    std::string describe(const char* name) const;
};

// The expected result of f at x: from the quick double where it decides the rounding, else MPFR.
float expectedFloat(const UnaryF32& f, float x, bool* usedMpfr = nullptr);
float expectedFloat(const BinaryF32& f, float x, float y, bool* usedMpfr = nullptr);

// Every bit pattern in [begin, end) (end <= 2^32), on `threads` threads.
SweepResult sweepBits(const UnaryF32& f, uint64_t begin, uint64_t end, int threads);
// n random bit patterns (seeded), and the given inputs.
SweepResult sweepRandom(const UnaryF32& f, uint64_t n, uint64_t seed, int threads);
SweepResult checkInputs(const UnaryF32& f, const std::vector<float>& xs);
SweepResult sweepRandom(const BinaryF32& f, uint64_t n, uint64_t seed, int threads);
SweepResult checkInputs(const BinaryF32& f, const std::vector<float>& xs, const std::vector<float>& ys);

// The special values every function must get right: +-0, +-inf, NaN, the smallest and largest
// subnormals and normals, +-1, and the neighbours of each.
std::vector<float> specialFloats();
std::vector<double> specialDoubles();

struct UlpResult
{
    double maxUlp = 0;
    double argX = 0, argY = 0;  // where the maximum was found
    uint64_t checked = 0;
    uint64_t nonCanonicalNan = 0;
    std::string describe(const char* name) const;
};
// n random inputs: half random bit patterns, half uniform in [lo, hi] (and for binary functions,
// in [lo, hi] x [lo2, hi2]); plus specialDoubles().
UlpResult ulpRandom(const UnaryF64& f, uint64_t n, uint64_t seed, double lo, double hi, int threads);
UlpResult ulpRandom(const BinaryF64& f, uint64_t n, uint64_t seed, double lo, double hi, double lo2, double hi2,
                    int threads);

}  // namespace fxltest::oracle

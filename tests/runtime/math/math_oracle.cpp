#include "math_oracle.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <mutex>
#include <random>
#include <thread>

namespace fxltest::oracle {
namespace {

// MPFR's exponent range set to binary32's (or binary64's) for the calling thread, so that
// mpfr_subnormalize rounds subnormal results as the format does.
struct FormatRange
{
    mpfr_exp_t emin, emax;
    FormatRange(mpfr_exp_t lo, mpfr_exp_t hi)
        : emin(mpfr_get_emin())
        , emax(mpfr_get_emax())
    {
        mpfr_set_emin(lo);
        mpfr_set_emax(hi);
    }
    ~FormatRange()
    {
        mpfr_set_emin(emin);
        mpfr_set_emax(emax);
    }
};

template<typename Call>
float roundToFloat(Call call)
{
    FormatRange range(-148, 128);
    mpfr_t r;
    mpfr_init2(r, 24);
    int t = call(r);
    t = mpfr_check_range(r, t, MPFR_RNDN);
    mpfr_subnormalize(r, t, MPFR_RNDN);
    const float out = mpfr_get_flt(r, MPFR_RNDN);
    mpfr_clear(r);
    return out;
}
template<typename Call>
double roundToDouble(Call call)
{
    FormatRange range(-1073, 1024);
    mpfr_t r;
    mpfr_init2(r, 53);
    int t = call(r);
    t = mpfr_check_range(r, t, MPFR_RNDN);
    mpfr_subnormalize(r, t, MPFR_RNDN);
    const double out = mpfr_get_d(r, MPFR_RNDN);
    mpfr_clear(r);
    return out;
}

// the double d decides the float rounding when d nudged by 2^-45 either way rounds the same. A
// double result that is 0, infinite or NaN decides it too: |exact| < 2^-1074 rounds to a float
// zero, |exact| > DBL_MAX to a float infinity (the special values are checked with MPFR alone).
bool decides(double d)
{
    if (!std::isfinite(d) || d == 0) return true;
    const float f = static_cast<float>(d);
    const double e = std::ldexp(std::fabs(d), -45);
    return static_cast<float>(d - e) == f && static_cast<float>(d + e) == f;
}

void record(SweepResult& r, uint32_t x, uint32_t y, float got, float want)
{
    ++r.checked;
    if (std::isnan(got) && std::bit_cast<uint32_t>(got) != 0xffc00000u) ++r.nonCanonicalNan;
    if (sameFloat(got, want)) return;
    ++r.wrong;
    if (r.first.size() < 16) r.first.push_back({x, y, std::bit_cast<uint32_t>(got), std::bit_cast<uint32_t>(want)});
}

void merge(SweepResult& into, const SweepResult& part)
{
    into.checked += part.checked;
    into.mpfrCalls += part.mpfrCalls;
    into.wrong += part.wrong;
    into.nonCanonicalNan += part.nonCanonicalNan;
    for (const Mismatch& m : part.first)
        if (into.first.size() < 16) into.first.push_back(m);
}

template<typename Body>
SweepResult parallel(uint64_t n, int threads, Body body)
{
    threads = std::max(1, threads);
    std::vector<SweepResult> parts(static_cast<size_t>(threads));
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            const uint64_t b = n * static_cast<uint64_t>(t) / static_cast<uint64_t>(threads);
            const uint64_t e = n * static_cast<uint64_t>(t + 1) / static_cast<uint64_t>(threads);
            body(b, e, parts[static_cast<size_t>(t)], static_cast<uint64_t>(t));
            mpfr_free_cache();  // MPFR keeps constants per thread
        });
    for (auto& th : pool) th.join();
    SweepResult all;
    for (const auto& p : parts) merge(all, p);
    return all;
}

double ulpOfExact(const mpfr_t exact)
{
    // ulp of binary64 at |exact|: 2^(e-53) for exact in [2^(e-1), 2^e), at least 2^-1074
    const mpfr_exp_t e = mpfr_get_exp(exact);
    return std::ldexp(1.0, static_cast<int>(std::max<mpfr_exp_t>(e - 53, -1074)));
}

template<typename Call>
double ulpError(Call call, double got)
{
    mpfr_t exact, diff;
    mpfr_init2(exact, 160);
    mpfr_init2(diff, 160);
    call(exact);
    double out;
    if (mpfr_nan_p(exact))
        out = std::isnan(got) ? 0 : std::numeric_limits<double>::infinity();
    else if (mpfr_inf_p(exact))
        out = (std::isinf(got) && (got > 0) == (mpfr_sgn(exact) > 0)) ? 0 : std::numeric_limits<double>::infinity();
    else if (!std::isfinite(got)) {
        // a finite exact value beyond DBL_MAX rounds to inf: that is 0.5 ulp or less
        mpfr_t big;
        mpfr_init2(big, 53);
        mpfr_set_d(big, std::numeric_limits<double>::max(), MPFR_RNDN);
        const bool beyond = mpfr_cmpabs(exact, big) > 0;
        mpfr_clear(big);
        out = (std::isinf(got) && beyond && (got > 0) == (mpfr_sgn(exact) > 0))
            ? 0.5
            : std::numeric_limits<double>::infinity();
    } else if (mpfr_zero_p(exact))
        out = got == 0 ? 0 : std::fabs(got) / std::ldexp(1.0, -1074);
    else {
        // the ratio in MPFR: a difference of a fraction of a subnormal ulp is not a double
        mpfr_sub_d(diff, exact, got, MPFR_RNDN);
        mpfr_abs(diff, diff, MPFR_RNDN);
        mpfr_div_d(diff, diff, ulpOfExact(exact), MPFR_RNDN);
        out = mpfr_get_d(diff, MPFR_RNDN);
    }
    mpfr_clear(exact);
    mpfr_clear(diff);
    return out;
}

double randomIn(std::mt19937_64& rng, double lo, double hi)
{
    return lo + (hi - lo) * std::uniform_real_distribution<double>(0, 1)(rng);
}

}  // namespace

float crFloat(MpfrUnary f, float x)
{
    return roundToFloat([&](mpfr_t r) {
        mpfr_t a;
        mpfr_init2(a, 24);
        mpfr_set_flt(a, x, MPFR_RNDN);
        const int t = f(r, a, MPFR_RNDN);
        mpfr_clear(a);
        return t;
    });
}
float crFloat(MpfrBinary f, float x, float y)
{
    return roundToFloat([&](mpfr_t r) {
        mpfr_t a, b;
        mpfr_init2(a, 24);
        mpfr_init2(b, 24);
        mpfr_set_flt(a, x, MPFR_RNDN);
        mpfr_set_flt(b, y, MPFR_RNDN);
        const int t = f(r, a, b, MPFR_RNDN);
        mpfr_clear(a);
        mpfr_clear(b);
        return t;
    });
}
double crDouble(MpfrUnary f, double x)
{
    return roundToDouble([&](mpfr_t r) {
        mpfr_t a;
        mpfr_init2(a, 53);
        mpfr_set_d(a, x, MPFR_RNDN);
        const int t = f(r, a, MPFR_RNDN);
        mpfr_clear(a);
        return t;
    });
}
double crDouble(MpfrBinary f, double x, double y)
{
    return roundToDouble([&](mpfr_t r) {
        mpfr_t a, b;
        mpfr_init2(a, 53);
        mpfr_init2(b, 53);
        mpfr_set_d(a, x, MPFR_RNDN);
        mpfr_set_d(b, y, MPFR_RNDN);
        const int t = f(r, a, b, MPFR_RNDN);
        mpfr_clear(a);
        mpfr_clear(b);
        return t;
    });
}

double ulpErrorDouble(MpfrUnary f, double x, double got)
{
    return ulpError(
        [&](mpfr_t r) {
            mpfr_t a;
            mpfr_init2(a, 53);
            mpfr_set_d(a, x, MPFR_RNDN);
            f(r, a, MPFR_RNDN);
            mpfr_clear(a);
        },
        got);
}
double ulpErrorDouble(MpfrBinary f, double x, double y, double got)
{
    return ulpError(
        [&](mpfr_t r) {
            mpfr_t a, b;
            mpfr_init2(a, 53);
            mpfr_init2(b, 53);
            mpfr_set_d(a, x, MPFR_RNDN);
            mpfr_set_d(b, y, MPFR_RNDN);
            f(r, a, b, MPFR_RNDN);
            mpfr_clear(a);
            mpfr_clear(b);
        },
        got);
}

bool sameFloat(float got, float want)
{
    if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
    return std::bit_cast<uint32_t>(got) == std::bit_cast<uint32_t>(want);
}

std::string SweepResult::describe(const char* name) const
{
    std::string s = std::string(name) + ": " + std::to_string(checked) + " inputs, " + std::to_string(wrong)
        + " not correctly rounded, " + std::to_string(mpfrCalls) + " decided by MPFR, "
        + std::to_string(nonCanonicalNan) + " NaN results not canonical";
    for (const Mismatch& m : first) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "; x=%a (0x%08x)%s got %a want %a", double(std::bit_cast<float>(m.x)), m.x,
                      m.y ? (" y=" + std::to_string(std::bit_cast<float>(m.y))).c_str() : "",
                      double(std::bit_cast<float>(m.got)), double(std::bit_cast<float>(m.want)));
        s += buf;
    }
    return s;
}

std::string UlpResult::describe(const char* name) const
{
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s: %llu inputs, max error %.4f ulp at x=%a y=%a, %llu NaN results not canonical",
                  name, static_cast<unsigned long long>(checked), maxUlp, argX, argY,
                  static_cast<unsigned long long>(nonCanonicalNan));
    return buf;
}

float expectedFloat(const UnaryF32& f, float x, bool* usedMpfr)
{
    if (f.quick) {
        const double d = f.quick(static_cast<double>(x));
        if (decides(d)) {
            if (usedMpfr) *usedMpfr = false;
            return static_cast<float>(d);
        }
    }
    if (usedMpfr) *usedMpfr = true;
    return crFloat(f.mpfr, x);
}
float expectedFloat(const BinaryF32& f, float x, float y, bool* usedMpfr)
{
    if (f.quick) {
        const double d = f.quick(static_cast<double>(x), static_cast<double>(y));
        if (decides(d)) {
            if (usedMpfr) *usedMpfr = false;
            return static_cast<float>(d);
        }
    }
    if (usedMpfr) *usedMpfr = true;
    return crFloat(f.mpfr, x, y);
}

SweepResult sweepBits(const UnaryF32& f, uint64_t begin, uint64_t end, int threads)
{
    return parallel(end - begin, threads, [&](uint64_t b, uint64_t e, SweepResult& r, uint64_t) {
        for (uint64_t i = begin + b; i < begin + e; ++i) {
            const float x = std::bit_cast<float>(static_cast<uint32_t>(i));
            bool m = false;
            const float want = expectedFloat(f, x, &m);
            r.mpfrCalls += m;
            record(r, static_cast<uint32_t>(i), 0, f.ours(x), want);
        }
    });
}

SweepResult sweepRandom(const UnaryF32& f, uint64_t n, uint64_t seed, int threads)
{
    return parallel(n, threads, [&](uint64_t b, uint64_t e, SweepResult& r, uint64_t t) {
        std::mt19937_64 rng(seed * 7919 + t);
        for (uint64_t i = b; i < e; ++i) {
            const uint32_t bits = static_cast<uint32_t>(rng());
            const float x = std::bit_cast<float>(bits);
            bool m = false;
            const float want = expectedFloat(f, x, &m);
            r.mpfrCalls += m;
            record(r, bits, 0, f.ours(x), want);
        }
    });
}

SweepResult checkInputs(const UnaryF32& f, const std::vector<float>& xs)
{
    SweepResult r;
    for (float x : xs) {
        ++r.mpfrCalls;
        record(r, std::bit_cast<uint32_t>(x), 0, f.ours(x), crFloat(f.mpfr, x));
    }
    return r;
}

SweepResult sweepRandom(const BinaryF32& f, uint64_t n, uint64_t seed, int threads)
{
    return parallel(n, threads, [&](uint64_t b, uint64_t e, SweepResult& r, uint64_t t) {
        std::mt19937_64 rng(seed * 7919 + t);
        for (uint64_t i = b; i < e; ++i) {
            const uint64_t bits = rng();
            const float x = std::bit_cast<float>(static_cast<uint32_t>(bits));
            const float y = std::bit_cast<float>(static_cast<uint32_t>(bits >> 32));
            bool m = false;
            const float want = expectedFloat(f, x, y, &m);
            r.mpfrCalls += m;
            record(r, std::bit_cast<uint32_t>(x), std::bit_cast<uint32_t>(y), f.ours(x, y), want);
        }
    });
}

SweepResult checkInputs(const BinaryF32& f, const std::vector<float>& xs, const std::vector<float>& ys)
{
    SweepResult r;
    for (size_t i = 0; i < xs.size() && i < ys.size(); ++i) {
        ++r.mpfrCalls;
        record(r, std::bit_cast<uint32_t>(xs[i]), std::bit_cast<uint32_t>(ys[i]), f.ours(xs[i], ys[i]),
               crFloat(f.mpfr, xs[i], ys[i]));
    }
    return r;
}

std::vector<float> specialFloats()
{
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<float> base = {0.0f,
                               1.0f,
                               2.0f,
                               0.5f,
                               inf,
                               std::numeric_limits<float>::denorm_min(),
                               std::numeric_limits<float>::min(),
                               std::nextafter(std::numeric_limits<float>::min(), 0.0f),
                               std::numeric_limits<float>::max(),
                               88.72283935546875f,
                               89.41598510742188f,
                               -103.97207641601562f,
                               -87.33654022216797f,
                               3.14159274101257324f,
                               1.57079637050628662f,
                               0.78539818525314331f,
                               1e-4f,
                               1e4f,
                               1e10f,
                               1e30f};
    std::vector<float> out;
    for (float v : base)
        for (float s : {v, -v}) {
            out.push_back(s);
            if (std::isfinite(s)) {
                out.push_back(std::nextafter(s, inf));
                out.push_back(std::nextafter(s, -inf));
            }
        }
    out.push_back(std::numeric_limits<float>::quiet_NaN());
    out.push_back(-std::numeric_limits<float>::quiet_NaN());
    return out;
}

std::vector<double> specialDoubles()
{
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> base = {0.0,
                                1.0,
                                2.0,
                                0.5,
                                inf,
                                std::numeric_limits<double>::denorm_min(),
                                std::numeric_limits<double>::min(),
                                std::numeric_limits<double>::max(),
                                709.782712893384,
                                -745.1332191019411,
                                -708.3964185322641,
                                3.141592653589793,
                                1.5707963267948966,
                                0.7853981633974483,
                                1e-8,
                                1e8,
                                1e22,
                                1e300};
    std::vector<double> out;
    for (double v : base)
        for (double s : {v, -v}) {
            out.push_back(s);
            if (std::isfinite(s)) {
                out.push_back(std::nextafter(s, inf));
                out.push_back(std::nextafter(s, -inf));
            }
        }
    out.push_back(std::numeric_limits<double>::quiet_NaN());
    return out;
}

namespace {
void mergeUlp(UlpResult& into, const UlpResult& p)
{
    into.checked += p.checked;
    into.nonCanonicalNan += p.nonCanonicalNan;
    if (p.maxUlp > into.maxUlp || (std::isnan(p.maxUlp) && !std::isnan(into.maxUlp))) {
        into.maxUlp = p.maxUlp;
        into.argX = p.argX;
        into.argY = p.argY;
    }
}
void noteUlp(UlpResult& r, double err, double x, double y, double got)
{
    ++r.checked;
    if (std::isnan(got) && std::bit_cast<uint64_t>(got) != 0xfff8000000000000ull) ++r.nonCanonicalNan;
    if (err > r.maxUlp) {
        r.maxUlp = err;
        r.argX = x;
        r.argY = y;
    }
}
template<typename Body>
UlpResult parallelUlp(uint64_t n, int threads, Body body)
{
    threads = std::max(1, threads);
    std::vector<UlpResult> parts(static_cast<size_t>(threads));
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            const uint64_t b = n * static_cast<uint64_t>(t) / static_cast<uint64_t>(threads);
            const uint64_t e = n * static_cast<uint64_t>(t + 1) / static_cast<uint64_t>(threads);
            body(b, e, parts[static_cast<size_t>(t)], static_cast<uint64_t>(t));
            mpfr_free_cache();  // MPFR keeps constants per thread
        });
    for (auto& th : pool) th.join();
    UlpResult all;
    for (const auto& p : parts) mergeUlp(all, p);
    return all;
}
}  // namespace

UlpResult ulpRandom(const UnaryF64& f, uint64_t n, uint64_t seed, double lo, double hi, int threads)
{
    UlpResult r = parallelUlp(n, threads, [&](uint64_t b, uint64_t e, UlpResult& part, uint64_t t) {
        std::mt19937_64 rng(seed * 104729 + t);
        for (uint64_t i = b; i < e; ++i) {
            const double x = (i & 1) ? std::bit_cast<double>(rng()) : randomIn(rng, lo, hi);
            const double got = f.ours(x);
            noteUlp(part, ulpErrorDouble(f.mpfr, x, got), x, 0, got);
        }
    });
    for (double x : specialDoubles()) {
        const double got = f.ours(x);
        noteUlp(r, ulpErrorDouble(f.mpfr, x, got), x, 0, got);
    }
    return r;
}

UlpResult ulpRandom(const BinaryF64& f, uint64_t n, uint64_t seed, double lo, double hi, double lo2, double hi2,
                    int threads)
{
    UlpResult r = parallelUlp(n, threads, [&](uint64_t b, uint64_t e, UlpResult& part, uint64_t t) {
        std::mt19937_64 rng(seed * 104729 + t);
        for (uint64_t i = b; i < e; ++i) {
            const bool bits = (i & 1);
            const double x = bits ? std::bit_cast<double>(rng()) : randomIn(rng, lo, hi);
            const double y = bits ? std::bit_cast<double>(rng()) : randomIn(rng, lo2, hi2);
            const double got = f.ours(x, y);
            noteUlp(part, ulpErrorDouble(f.mpfr, x, y, got), x, y, got);
        }
    });
    for (double x : specialDoubles())
        for (double y : specialDoubles()) {
            const double got = f.ours(x, y);
            noteUlp(r, ulpErrorDouble(f.mpfr, x, y, got), x, y, got);
        }
    return r;
}

}  // namespace fxltest::oracle

// runtime/math/'s functions against MPFR, exhaustively: every float32 unary function on all 2^32
// inputs, the binary ones (pow, atan2) on 2^28 random pairs plus their hard cases, the float64
// functions on 2^24 random inputs each (maximum error in ulps). Prints one line per function,
// with its time. Usage: bench_math_exhaustive [--only NAME[,NAME...]] [--threads N]
//   [--pairs LOG2] [--f64 LOG2] [--skip-f32] [--skip-f64]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "math_cases.hpp"

using namespace fxltest::oracle;

int main(int argc, char** argv)
{
    std::set<std::string> only;
    int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    int pairsLog2 = 28, f64Log2 = 24;
    bool f32 = true, f64 = true;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "bench_math_exhaustive: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--only") {
            std::stringstream s(next());
            for (std::string n; std::getline(s, n, ',');) only.insert(n);
        } else if (a == "--threads")
            threads = std::atoi(next().c_str());
        else if (a == "--pairs")
            pairsLog2 = std::atoi(next().c_str());
        else if (a == "--f64")
            f64Log2 = std::atoi(next().c_str());
        else if (a == "--skip-f32")
            f32 = false;
        else if (a == "--skip-f64")
            f64 = false;
        else {
            std::fprintf(stderr,
                         "usage: bench_math_exhaustive [--only NAME,...] [--threads N] [--pairs LOG2] "
                         "[--f64 LOG2] [--skip-f32] [--skip-f64]\n");
            return 2;
        }
    }
    auto wanted = [&](const char* n) { return only.empty() || only.count(n); };
    const FunctionCases c = allCases();
    int bad = 0;
    using Clock = std::chrono::steady_clock;
    auto seconds = [](Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); };
    std::printf("threads %d\n", threads);
    if (f32) {
        for (const UnaryF32& f : c.unaryF32) {
            if (!wanted(f.name)) continue;
            const auto t0 = Clock::now();
            SweepResult r = sweepBits(f, 0, uint64_t(1) << 32, threads);
            std::printf("f32 %-8s all 2^32: %s  [%.1f s]\n", f.name, r.describe(f.name).c_str(), seconds(t0));
            std::fflush(stdout);
            bad += r.wrong != 0 || r.nonCanonicalNan != 0;
        }
        for (const BinaryF32& f : c.binaryF32) {
            if (!wanted(f.name)) continue;
            const auto t0 = Clock::now();
            SweepResult r = sweepRandom(f, uint64_t(1) << pairsLog2, 2026, threads);
            for (const HardBinary& h : c.hardBinary)
                if (h.name == f.name) {
                    const SweepResult hr = checkInputs(f, h.xs, h.ys);
                    r.checked += hr.checked;
                    r.wrong += hr.wrong;
                    r.mpfrCalls += hr.mpfrCalls;
                    for (const auto& m : hr.first) r.first.push_back(m);
                }
            std::printf("f32 %-8s 2^%d random pairs + hard cases: %s  [%.1f s]\n", f.name, pairsLog2,
                        r.describe(f.name).c_str(), seconds(t0));
            std::fflush(stdout);
            bad += r.wrong != 0 || r.nonCanonicalNan != 0;
        }
    }
    if (f64) {
        for (const UnaryF64Case& f : c.unaryF64) {
            if (!wanted(f.f.name)) continue;
            const auto t0 = Clock::now();
            const UlpResult r = ulpRandom(f.f, uint64_t(1) << f64Log2, 2026, f.lo, f.hi, threads);
            std::printf("f64 %-8s 2^%d random: %s  [%.1f s]\n", f.f.name, f64Log2, r.describe(f.f.name).c_str(),
                        seconds(t0));
            std::fflush(stdout);
            bad += !(r.maxUlp < 1.0) || r.nonCanonicalNan != 0;
        }
        for (const BinaryF64Case& f : c.binaryF64) {
            if (!wanted(f.f.name)) continue;
            const auto t0 = Clock::now();
            const UlpResult r = ulpRandom(f.f, uint64_t(1) << f64Log2, 2026, f.lo, f.hi, f.lo2, f.hi2, threads);
            std::printf("f64 %-8s 2^%d random: %s  [%.1f s]\n", f.f.name, f64Log2, r.describe(f.f.name).c_str(),
                        seconds(t0));
            std::fflush(stdout);
            bad += !(r.maxUlp < 1.0) || r.nonCanonicalNan != 0;
        }
    }
    std::printf("%d function(s) failed\n", bad);
    return bad ? 1 : 0;
}

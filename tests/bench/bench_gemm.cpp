// GFLOP/s of the fixed-order CPU GEMM (runtime/cpu/gemm.hpp) on square f32 products, 1 and 2
// threads, best of N runs. Optional comparison with an OpenBLAS shared library that is NOT
// installed system-wide: FXLENS_BENCH_OPENBLAS=/path/to/libopenblas.so.0 (set
// OPENBLAS_CORETYPE yourself, e.g. SkylakeX; the bench prints what it used).
//
//   bench_gemm [--reps N] [--sizes 256,512,1024,2048] [--isa scalar|avx2|avx512] [--nt]
//   a size is n (an n x n x n product) or MxNxK (e.g. 8x4096x4096: few rows, a big weight).
//   --nt: B is a transposed view (the x @ W.t() pattern of linear layers).
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "runtime/cpu/gemm.hpp"
#include "runtime/cpu/thread_pool.hpp"

using namespace fxl;

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double cpuNow()
{
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

struct Timing
{
    double wall = 1e30;  // best wall seconds per call
    double cpu = 1e30;  // best process CPU seconds per call (all threads): robust to other
                        // processes taking the cores, which wall time is not on a shared machine
};

// Best per-call times over `reps` timing windows of at least 0.2 s each.
template<class F>
Timing bestTimes(int reps, F&& fn)
{
    fn();  // warm-up (buffers, page faults)
    Timing best;
    for (int r = 0; r < reps; ++r) {
        int calls = 0;
        const double t0 = now(), c0 = cpuNow();
        double t1;
        do {
            fn();
            ++calls;
            t1 = now();
        } while (t1 - t0 < 0.2);
        const double c1 = cpuNow();
        best.wall = std::min(best.wall, (t1 - t0) / calls);
        best.cpu = std::min(best.cpu, (c1 - c0) / calls);
    }
    return best;
}

// cblas_sgemm(order, transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc)
using SgemmFn = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
using SetThreadsFn = void (*)(int);
using CoreNameFn = char* (*)();

struct OpenBlas
{
    SgemmFn sgemm = nullptr;
    SetThreadsFn setThreads = nullptr;
    CoreNameFn coreName = nullptr;
};

OpenBlas loadOpenBlas()
{
    OpenBlas ob;
    const char* path = std::getenv("FXLENS_BENCH_OPENBLAS");
    if (!path || !*path) return ob;
    void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        std::fprintf(stderr, "cannot load %s: %s\n", path, dlerror());
        return ob;
    }
    ob.sgemm = reinterpret_cast<SgemmFn>(dlsym(h, "cblas_sgemm"));
    ob.setThreads = reinterpret_cast<SetThreadsFn>(dlsym(h, "openblas_set_num_threads"));
    ob.coreName = reinterpret_cast<CoreNameFn>(dlsym(h, "openblas_get_corename"));
    if (!ob.sgemm || !ob.setThreads) {
        std::fprintf(stderr, "%s has no cblas_sgemm / openblas_set_num_threads\n", path);
        ob.sgemm = nullptr;
    }
    return ob;
}

}  // namespace

int main(int argc, char** argv)
{
    int reps = 3;
    bool nt = false;
    struct Shape
    {
        int64_t m, n, k;
    };
    std::vector<Shape> sizes{{256, 256, 256}, {512, 512, 512}, {1024, 1024, 1024}, {2048, 2048, 2048}};
    for (int k = 1; k < argc; ++k) {
        const std::string a = argv[k];
        if (a == "--reps" && k + 1 < argc) {
            reps = std::max(1, std::atoi(argv[++k]));
        } else if (a == "--sizes" && k + 1 < argc) {
            sizes.clear();
            std::string s = argv[++k];
            for (size_t p = 0; p < s.size();) {
                size_t q = s.find(',', p);
                if (q == std::string::npos) q = s.size();
                const std::string item = s.substr(p, q - p);
                long long m = 0, n = 0, kk = 0;
                if (std::sscanf(item.c_str(), "%lldx%lldx%lld", &m, &n, &kk) == 3)
                    sizes.push_back({m, n, kk});
                else
                    sizes.push_back({std::atoll(item.c_str()), std::atoll(item.c_str()), std::atoll(item.c_str())});
                p = q + 1;
            }
        } else if (a == "--isa" && k + 1 < argc) {
            const std::string i = argv[++k];
            cpu::setGemmIsaOverride(i == "scalar"     ? cpu::GemmIsa::Scalar
                                        : i == "avx2" ? cpu::GemmIsa::Avx2
                                                      : cpu::GemmIsa::Avx512);
        } else if (a == "--nt") {
            nt = true;
        } else {
            std::fprintf(stderr, "usage: %s [--reps N] [--sizes 256,512] [--isa scalar|avx2|avx512] [--nt]\n", argv[0]);
            return 2;
        }
    }
    const OpenBlas ob = loadOpenBlas();
    std::printf("fixed-order GEMM, path %s, f32, B %s, best of %d\n", cpu::gemmIsaName(cpu::gemmIsa()),
                nt ? "transposed view (NT)" : "row-major (NN)", reps);
    if (ob.sgemm)
        std::printf("OpenBLAS: %s, core %s (OPENBLAS_CORETYPE=%s)\n", std::getenv("FXLENS_BENCH_OPENBLAS"),
                    ob.coreName ? ob.coreName() : "?",
                    std::getenv("OPENBLAS_CORETYPE") ? std::getenv("OPENBLAS_CORETYPE") : "unset");
    std::printf("GFLOP/s = 2MNK / best wall time; per core = 2MNK / best CPU time of all threads\n");
    std::printf("%16s %7s %9s %9s%s\n", "MxNxK", "threads", "GFLOP/s", "per core",
                ob.sgemm ? "  OpenBLAS  per core" : "");

    for (const Shape& sh : sizes) {
        const int64_t m = sh.m, n = sh.n, k = sh.k;
        std::vector<float> A(static_cast<size_t>(m * k)), B(static_cast<size_t>(k * n)), C(static_cast<size_t>(m * n));
        std::mt19937 rng(7);
        std::normal_distribution<float> nd;
        for (auto& x : A) x = nd(rng);
        for (auto& x : B) x = nd(rng);
        const cpu::GemmOperand a{A.data(), DType::F32, k, 1, 0};
        // NT: B's values stored as [N, K] (B[k][j] at j*K + k)
        const cpu::GemmOperand b =
            nt ? cpu::GemmOperand{B.data(), DType::F32, 1, k, 0} : cpu::GemmOperand{B.data(), DType::F32, n, 1, 0};
        const double flop = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
        for (int threads : {1, 2}) {
            ThreadPool pool(threads);
            const Timing t = bestTimes(reps, [&] { cpu::gemmF32(1, m, n, k, a, b, C.data(), n, 0, &pool); });
            const std::string label = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
            std::printf("%16s %7d %9.1f %9.1f", label.c_str(), threads, flop / t.wall * 1e-9, flop / t.cpu * 1e-9);
            if (ob.sgemm) {
                ob.setThreads(threads);
                const int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
                // CblasRowMajor = 101, CblasNoTrans = 111, CblasTrans = 112
                const Timing to = bestTimes(reps, [&] {
                    ob.sgemm(101, 111, nt ? 112 : 111, mi, ni, ki, 1.0f, A.data(), ki, B.data(), nt ? ki : ni, 0.0f,
                             C.data(), ni);
                });
                std::printf("  %8.1f %9.1f", flop / to.wall * 1e-9, flop / to.cpu * 1e-9);
            }
            std::printf("\n");
            std::fflush(stdout);
        }
    }
    return 0;
}

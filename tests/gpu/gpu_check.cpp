// fxlens_gpu_check: the prepared check of the CUDA backend on a GPU (tests/gpu/README.md). Runs,
// on the CPU reference and on a device, every case of the kernel tests, the corpus graphs it is
// given and the float functions over all their inputs, and prints one table: what is bitwise
// equal, what is not, and where. No Qt, libstdc++ linked statically, the CUDA runtime too: it
// runs on a bare machine with an NVIDIA driver. Exit status 0 when everything that ran was
// bitwise equal, 1 when something differed or failed, 2 for a bad command line.
//
//   fxlens_gpu_check --device cuda:0 --data DIR [--graphs DIR] [--outputs DIR] [--sweep-bits N] [--threads N]
//
// --data: the kernel tests' case files (DIR/kernels, DIR/differential: tests/data).
// --graphs: a folder of graph files (*.py with their sidecars, *.json) to run on both; repeatable.
// --outputs: write each graph's device outputs (NAME.outputs.safetensors) and run times
// (device_seconds.json) to DIR, for tests/gpu/torch_eager.py.
// --sweep-bits: f32 functions over 2^N inputs (32: every float; 0: none); bf16 / f16 always
// over all 2^16.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "device_compare.hpp"
#include "runtime/backends.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/cpu/gemm.hpp"
#if defined(FXLENS_HAVE_CUDA)
#include <random>

#include "runtime/cuda/cublas_gemm.hpp"
#endif

using namespace fxl;
namespace fs = std::filesystem;

namespace {

struct Options
{
    std::string device = "cuda:0";
    std::string data;
    std::vector<std::string> graphs;
    int sweepBits = 32;
    int threads = 0;
    std::string outputs;  // where the device runs' outputs and times go (torch_eager.py reads them)
};

bool parse(int argc, char** argv, Options& o)
{
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
        const char* v = nullptr;
        if (a == "--device" && (v = next()))
            o.device = v;
        else if (a == "--data" && (v = next()))
            o.data = v;
        else if (a == "--graphs" && (v = next()))
            o.graphs.push_back(v);
        else if (a == "--sweep-bits" && (v = next()))
            o.sweepBits = std::atoi(v);
        else if (a == "--threads" && (v = next()))
            o.threads = std::atoi(v);
        else if (a == "--outputs" && (v = next()))
            o.outputs = v;
        else {
            std::cerr << "fxlens_gpu_check: unknown or incomplete option '" << a << "'\n";
            return false;
        }
    }
    if (o.data.empty()) {
        std::cerr << "fxlens_gpu_check: --data DIR (the kernel tests' case files) is required\n";
        return false;
    }
    if (o.sweepBits < 0 || o.sweepBits > 32) {
        std::cerr << "fxlens_gpu_check: --sweep-bits takes 0 to 32\n";
        return false;
    }
    return true;
}

std::string mib(int64_t b)
{
    char s[32];
    std::snprintf(s, sizeof s, "%.1f MiB", static_cast<double>(b) / (1 << 20));
    return s;
}

}  // namespace

// The matrix product's speed on a GPU against cuBLAS (FP32 with TF32 off, as cublasSgemm; and
// TF32), on 4096^3 and the corpus models' product shapes scaled to GPT-2 small (8 x 1024
// tokens, width 768, 12 heads): the kernel's best of 5 runs, and its first and last 64 rows of
// C bitwise against the CPU GEMM. False when those rows differ.
bool gemmSpeed(const std::string& device)
{
    std::cout << "\nmatmul speed (f32, best of 5; target: at least 0.8 of cuBLAS FP32)\n";
#if defined(FXLENS_HAVE_CUDA)
    if (device.starts_with("cuda:")) {
        struct Shape
        {
            const char* what;
            int64_t batch, m, n, k;
        };
        const Shape shapes[] = {
            {"4096^3", 1, 4096, 4096, 4096},
            {"mlp up 8192x3072x768", 1, 8192, 3072, 768},
            {"mlp down 8192x768x3072", 1, 8192, 768, 3072},
            {"qkv 8192x2304x768", 1, 8192, 2304, 768},
            {"weight grad 768x3072x8192", 1, 768, 3072, 8192},
            {"scores 96x1024x1024x64", 96, 1024, 1024, 64},
        };
        std::printf("%-28s %10s %10s %7s %10s %s\n", "shape", "kernel ms", "cuBLAS ms", "ratio", "TF32 ms",
                    "rows bitwise");
        bool equal = true, fastEnough = true;
        std::mt19937 rng(7);
        std::uniform_real_distribution<float> u(-1.0f, 1.0f);
        for (const Shape& s : shapes) {
            std::vector<float> a(static_cast<size_t>(s.batch * s.m * s.k)), b(static_cast<size_t>(s.batch * s.k * s.n));
            for (float& v : a) v = u(rng);
            for (float& v : b) v = u(rng);
            try {
                const cuda::GemmTiming t =
                    cuda::timeGemm(std::atoi(device.c_str() + 5), s.batch, s.m, s.n, s.k, a.data(), b.data(), 5);
                // rows [0, 64) of the first product and the last 64 of the last, on the CPU
                const int64_t rows = std::min<int64_t>(64, s.m);
                bool same = true;
                for (const int64_t bi : {int64_t(0), s.batch - 1}) {
                    const int64_t r0 = bi == 0 ? 0 : s.m - rows;
                    std::vector<float> want(static_cast<size_t>(rows * s.n));
                    const cpu::GemmOperand A{a.data() + (bi * s.m + r0) * s.k, DType::F32, s.k, 1, 0};
                    const cpu::GemmOperand B{b.data() + bi * s.k * s.n, DType::F32, s.n, 1, 0};
                    cpu::gemmF32(1, rows, s.n, s.k, A, B, want.data(), s.n, 0, nullptr);
                    same = same && std::memcmp(want.data(), t.c.data() + (bi * s.m + r0) * s.n, want.size() * 4) == 0;
                }
                const double ratio = t.cublasFp32Seconds / t.kernelSeconds;
                std::printf("%-28s %10.3f %10.3f %7.2f %10.3f %s\n", s.what, t.kernelSeconds * 1e3,
                            t.cublasFp32Seconds * 1e3, ratio, t.cublasTf32Seconds * 1e3, same ? "yes" : "NO");
                equal = equal && same;
                fastEnough = fastEnough && ratio >= 0.8;
            } catch (const std::exception& e) {
                std::printf("%-28s failed: %s\n", s.what, e.what());
                equal = false;
            }
        }
        if (!fastEnough) std::cout << "  the kernel is below 0.8 of cuBLAS FP32 on some shape (ratio column)\n";
        return equal;
    }
#endif
    std::cout << "  skipped: " << device << " is not a GPU of this build\n";
    return true;
}

int main(int argc, char** argv)
{
    Options o;
    if (!parse(argc, argv, o)) return 2;
    if (o.threads <= 0) o.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    auto makeDevice = [&]() {
        std::string w;
        auto b = makeBackend(o.device, BackendOptions{}, &w);
        if (!b) throw std::runtime_error(o.device + ": " + w);
        return b;
    };
    std::unique_ptr<Backend> dev;
    try {
        dev = makeDevice();
    } catch (const std::exception& e) {
        std::cout << "fxlens GPU check: no device: " << e.what() << "\n";
        return 1;
    }
    auto cpu = makeCpuBackend(CpuBackendOptions{o.threads});
    const DevicesReport rep = probeDevices();
    std::cout << "fxlens GPU check on " << dev->name();
    if (o.device.starts_with("cuda:") && !rep.cuda.devices.empty()) {
        const int idx = std::atoi(o.device.c_str() + 5);
        for (const auto& d : rep.cuda.devices)
            if (d.index == idx)
                std::cout << " (" << d.name << ", compute capability " << d.ccMajor << "." << d.ccMinor << ", driver "
                          << cuda::cudaVersionText(rep.cuda.driverVersion) << ")";
    }
    if (o.device.starts_with("cuda-emu")) std::cout << " (emulation: the CUDA kernels' code run by the CPU)";
    std::cout << ", against the CPU with " << o.threads << " threads\n\n";
    bool allEqual = true;

    // ---- the kernel cases, per family
    std::printf("%-14s %7s %9s %10s %7s %9s\n", "family", "cases", "outputs", "same error", "differ", "no kernel");
    std::vector<std::string> differing;
    for (const gpucheck::Family& f : gpucheck::families()) {
        kerneltest::RefFile refs;
        refs.load(fs::path(o.data) / f.dir, f.file);
        if (refs.doc.is_null()) {
            std::printf("%-14s missing: %s\n", f.name,
                        (fs::path(o.data) / f.dir / (std::string(f.file) + ".cases.json")).c_str());
            allEqual = false;
            continue;
        }
        int cases = 0, outputs = 0, sameError = 0, differ = 0, noKernel = 0;
        for (const auto& c : refs.doc.at("cases")) {
            const std::string op = c.at("op").get<std::string>();
            if (!KernelRegistry::instance().find(op, dev->device())) {
                ++noKernel;
                continue;
            }
            ++cases;
            try {
                const gpucheck::CaseResult r = gpucheck::compareCase(*cpu, *dev, refs, c);
                outputs += r.outputs;
                if (r.status == gpucheck::CaseResult::Status::SameError) ++sameError;
                if (r.status == gpucheck::CaseResult::Status::Differs) {
                    ++differ;
                    differing.push_back(std::string(f.name) + " " + r.detail);
                }
            } catch (const std::exception& e) {
                ++differ;
                differing.push_back(std::string(f.name) + " " + c.at("id").get<std::string>() + ": " + e.what());
            }
        }
        std::printf("%-14s %7d %9d %10d %7d %9d\n", f.name, cases, outputs, sameError, differ, noKernel);
        allEqual = allEqual && differ == 0;
    }
    for (size_t k = 0; k < differing.size() && k < 20; ++k) std::cout << "  differs: " << differing[k] << "\n";
    if (differing.size() > 20) std::cout << "  (" << differing.size() - 20 << " more)\n";

    // ---- the graphs
    if (!o.graphs.empty()) {
        std::vector<std::string> files;
        for (const std::string& d : o.graphs) {
            if (!fs::is_directory(d)) {
                std::cout << "no graph folder " << d << "\n";
                allEqual = false;
                continue;
            }
            for (const auto& e : fs::recursive_directory_iterator(d)) {
                const std::string n = e.path().filename().string();
                const bool sidecar =
                    n.ends_with(".meta.json") || n.ends_with(".params.json") || n.ends_with(".states.json");
                if (n.ends_with(".py") || (n.ends_with(".json") && !sidecar)) files.push_back(e.path().string());
            }
        }
        std::sort(files.begin(), files.end());
        std::map<std::string, double> times;  // graph -> device seconds, for torch_eager.py
        if (!o.outputs.empty()) fs::create_directories(o.outputs);
        std::printf("\n%-34s %7s %7s %-8s %11s %11s %9s %9s\n", "graph", "nodes", "outputs", "bitwise", "device peak",
                    "estimate", "cpu s", "device s");
        for (const std::string& f : files) {
            gpucheck::GraphResult r;
            try {
                const std::string name = fs::path(f).filename().string();
                r = gpucheck::compareGraph(f, makeDevice, o.threads,
                                           o.outputs.empty() ? std::string()
                                                             : o.outputs + "/" + name + ".outputs.safetensors");
            } catch (const std::exception& e) {
                r.name = fs::path(f).filename().string();
                r.ran = true;
                r.detail = std::string("failed: ") + e.what();
            }
            if (!r.ran) {
                std::printf("%-34s %7zu skipped: %s\n", r.name.c_str(), r.nodes, r.detail.c_str());
                continue;
            }
            if (!o.outputs.empty()) times[r.name] = r.deviceSeconds;
            std::printf("%-34s %7zu %7zu %-8s %11s %11s %9.3f %9.3f\n", r.name.c_str(), r.nodes, r.outputs,
                        r.equal ? "yes" : "NO", mib(r.devicePeak).c_str(), mib(r.estimatePeak).c_str(), r.cpuSeconds,
                        r.deviceSeconds);
            if (!r.equal) {
                std::cout << "  " << r.detail << "\n";
                allEqual = false;
            }
        }
        if (!o.outputs.empty()) {
            std::ofstream t(o.outputs + "/device_seconds.json");
            t << nlohmann::json(times).dump(1) << "\n";
        }
    }

    // ---- the float functions over all their inputs
    const char* fns[] = {"aten.exp.default",     "aten.log.default",   "aten.tanh.default", "aten.erf.default",
                         "aten.sigmoid.default", "aten.rsqrt.default", "aten.sin.default",  "aten.cos.default",
                         "aten.log1p.default",   "aten.expm1.default", "aten.gelu.default", "aten.silu.default"};
    std::printf("\n%-26s %12s %16s %16s %s\n", "function", "inputs", "cpu hash", "device hash", "equal");
    for (const char* fn : fns) {
        for (DType dt : {DType::F32, DType::BF16, DType::F16}) {
            const int bits = dt == DType::F32 ? o.sweepBits : 16;
            if (bits == 0) continue;
            const auto t0 = std::chrono::steady_clock::now();
            const gpucheck::SweepResult s = gpucheck::sweepFunction(*cpu, *dev, fn, dt, bits);
            const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            const bool eq = s.cpuHash == s.deviceHash;
            std::printf("%-26s %12llu %016llx %016llx %s", s.name.c_str(), static_cast<unsigned long long>(s.inputs),
                        static_cast<unsigned long long>(s.cpuHash), static_cast<unsigned long long>(s.deviceHash),
                        eq ? "yes" : "NO");
            if (!eq) std::printf(" (first at input 0x%llx)", static_cast<unsigned long long>(s.firstDiffering));
            std::printf("  %.1f s\n", secs);
            allEqual = allEqual && eq;
        }
    }

    allEqual = gemmSpeed(o.device) && allEqual;

    std::cout << (allEqual ? "everything that ran is bitwise equal to the CPU\n" : "SOMETHING DIFFERS (above)\n");
    return allEqual ? 0 : 1;
}

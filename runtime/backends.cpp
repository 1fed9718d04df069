#include "runtime/backends.hpp"

#include <charconv>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "runtime/base/kernel.hpp"
#include "runtime/composite/sdpa_kernels.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/cpu/cpu_kernels.hpp"
#include "runtime/cpu/gemm.hpp"
#include "runtime/cuda/cuda_backend.hpp"
#if defined(FXLENS_HAVE_CUDA)
#include "runtime/cuda/cuda_device.hpp"
#endif

namespace fxl {

KernelRegistry& KernelRegistry::instance()
{
    static KernelRegistry reg;
    static std::once_flag once;
    std::call_once(once, [] {
        registerCpuKernels(reg);
        registerCudaKernels(reg);
        for (DeviceKind d : builtDevices()) {
            exec::registerSdpaKernels(reg, d);
            registerInplaceVariants(reg, d);
        }
    });
    return reg;
}

std::vector<DeviceKind> builtDevices() { return {DeviceKind::Cpu, DeviceKind::Cuda}; }

const char* const kCudaUnverified =
    "yes, checked once on one GPU (an H200: the corpus graphs bitwise equal to the CPU; NaN bit patterns of "
    "matrix products with NaN or infinite inputs may differ) and tested through emulation (--device cuda-emu:N "
    "runs the kernels' code on the CPU); compare a GPU run with the CPU's bits: fxlens check G G --device-a cpu "
    "--device-b cuda:0";

std::unique_ptr<Backend> makeCudaBackend(int index, std::string* why, bool fast)
{
#if defined(FXLENS_HAVE_CUDA)
    // the driver first, through dlopen: the CUDA runtime is not touched where there is none
    const cuda::CudaProbe probe = cuda::probeCudaDriver();
    if (probe.devices.empty()) {
        if (why) *why = "no CUDA device: " + probe.why;
        return nullptr;
    }
    std::string reason;
    auto device = cuda::makeRuntimeDevice(index, &reason);
    if (!device) {
        if (why) *why = reason;
        return nullptr;
    }
    if (fast) {
        std::string noCublas;
        if (!cuda::loadCublas(&noCublas)) {
            if (why) *why = "--fast needs cuBLAS, which was not found (" + noCublas + ")";
            return nullptr;
        }
    }
    return cuda::makeCudaBackend(std::move(device), index, fast);
#else
    (void)index;
    (void)fast;
    if (why) *why = "this fxlens was built without CUDA (the CUDA Toolkit was not found at configure time)";
    return nullptr;
#endif
}

namespace {

std::string cudaGraphsStatus(const cuda::CudaProbe& probe)
{
#if defined(FXLENS_HAVE_CUDA)
    if (probe.devices.empty()) return "no CUDA device (" + probe.why + ")";
    return {};
#else
    (void)probe;
    return "this fxlens was built without CUDA (the CUDA Toolkit was not found at configure time)";
#endif
}

}  // namespace

DevicesReport probeDevices()
{
    DevicesReport r;
    r.cpuCores = std::thread::hardware_concurrency();
    r.gemmIsa = cpu::gemmIsaName(cpu::gemmIsa());
    for (cpu::GemmIsa isa : {cpu::GemmIsa::Avx2, cpu::GemmIsa::Avx512})
        if (cpu::gemmIsaSupported(isa)) r.isaSupported.push_back(cpu::gemmIsaName(isa));
#if defined(FXLENS_HAVE_CUDA)
    r.builtWithCuda = true;
#if defined(FXLENS_CUDA_TOOLKIT_VERSION)
    r.cudaToolkitVersion = FXLENS_CUDA_TOOLKIT_VERSION;
#endif
#endif
    r.cuda = cuda::probeCuda();
    const std::string why = cudaGraphsStatus(r.cuda);
    r.cudaBackend = why.empty() ? kCudaUnverified : why;
    r.fastMode = why.empty() && r.cuda.cublas.found;
    r.fastModeText = r.fastMode ? "available: matrix products on tensor cores through cuBLAS (TF32 for f32), "
                                  "labelled not comparable bitwise; checked by tolerance"
        : !why.empty()          ? "not available: " + why
                                : "not available: it needs cuBLAS (" + r.cuda.cublas.why + ")";
    return r;
}

std::string whyNoCudaGraphs() { return cudaGraphsStatus(cuda::probeCudaDriver()); }

std::unique_ptr<Backend> makeBackend(const std::string& name, const BackendOptions& opts, std::string* why)
{
    if (name == "cpu") {
        if (opts.fast) {
            if (why) *why = "--fast is a mode of the CUDA backend; the CPU is the bitwise reference";
            return nullptr;
        }
        return makeCpuBackend(CpuBackendOptions{std::max(1, opts.threads)});
    }
    if (name == "cuda") return makeCudaBackend(0, why, opts.fast);
    // the emulated CUDA device: the CUDA kernels' code run by the CPU (tests, and checking a
    // kernel without a GPU; slow)
    if (name == "cuda-emu") return cuda::makeCudaBackend(cuda::makeEmulatedDevice(0), 0, opts.fast);
    if (name.starts_with("cuda-emu:")) {
        int index = -1;
        const char* b = name.data() + 9;
        const char* e = name.data() + name.size();
        const auto [end, ec] = std::from_chars(b, e, index);
        if (ec == std::errc() && end == e && index >= 0)
            return cuda::makeCudaBackend(cuda::makeEmulatedDevice(index), index, opts.fast);
    }
    if (name.starts_with("cuda:")) {
        int index = -1;
        const char* b = name.data() + 5;
        const char* e = name.data() + name.size();
        const auto [end, ec] = std::from_chars(b, e, index);
        if (ec == std::errc() && end == e && index >= 0) return makeCudaBackend(index, why, opts.fast);
    }
    if (why) *why = "unknown backend '" + name + "' (cpu, cuda, cuda:N, cuda-emu, cuda-emu:N)";
    return nullptr;
}

}  // namespace fxl

// The one file that knows every backend: makes one by name ("cpu", "cuda:N") and fills the
// kernel registry with each backend's kernels and the device-independent ones
// (runtime/composite/). The executor, the checks and the front ends make their backends here;
// a new backend is a folder beside cpu/ and a few lines in backends.cpp.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/base/backend.hpp"
#include "runtime/cuda/cuda_probe.hpp"

namespace fxl {

struct BackendOptions
{
    int threads = 1;  // the CPU backend's worker threads (results never depend on it)
    // The labelled fast mode of a CUDA backend (Backend::fastMath): matrix products on tensor
    // cores through cuBLAS (on cuda-emu, a stand-in that rounds as differently); the CPU
    // refuses it (it is the bitwise reference), a GPU without cuBLAS too.
    bool fast = false;
};

// The backend `name` names: "cpu", "cuda" (= "cuda:0"), "cuda:N", and "cuda-emu" / "cuda-emu:N"
// (the CUDA backend on an emulated device: the CUDA kernels' code run by the CPU, for tests
// without a GPU; it has only the kernels registered for CUDA so far). nullptr with `why` set when
// the name is unknown or the device is not available (no CUDA in this build, no such device).
std::unique_ptr<Backend> makeBackend(const std::string& name, const BackendOptions& opts, std::string* why);

// nullptr with `why` set when the build has no CUDA or no device is present.
std::unique_ptr<Backend> makeCudaBackend(int deviceIndex, std::string* why, bool fast = false);

// The devices whose kernels the registry holds in this build.
std::vector<DeviceKind> builtDevices();

// What `fxlens devices` reports: the CPU and the path its kernels take, how this fxlens was
// built, and what the machine offers CUDA (probed at run time).
struct DevicesReport
{
    unsigned cpuCores = 0;
    std::string gemmIsa;  // the CPU GEMM's path in use: "avx512", "avx2", "scalar"
    std::vector<std::string> isaSupported;  // of "avx2", "avx512"
    bool builtWithCuda = false;  // the CUDA Toolkit was found at configure time
    std::string cudaToolkitVersion;  // of the build, when builtWithCuda
    cuda::CudaProbe cuda;
    std::string cudaBackend;  // whether fxlens can run graphs on the devices found, and why not
    bool fastMode = false;  // --fast can run here (a device and cuBLAS)
    std::string fastModeText;  // what --fast does, or why it cannot run here
};
DevicesReport probeDevices();

// Why graphs cannot run on CUDA on this machine and build (empty when they can): the run
// panel's and `fxlens devices`' reason.
std::string whyNoCudaGraphs();

// The label of the CUDA backend where it can run: what it has been checked by so far.
extern const char* const kCudaUnverified;

}  // namespace fxl

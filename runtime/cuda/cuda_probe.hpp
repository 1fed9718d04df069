// What this machine offers the CUDA backend, found at run time: the NVIDIA driver and its
// devices (through the driver library, loaded with dlopen, so that fxlens runs where there is
// none), NCCL and cuBLAS (loaded the same way). Nothing here needs the CUDA Toolkit to build.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fxl::cuda {

struct CudaDeviceInfo
{
    int index = 0;
    std::string name;
    uint64_t memoryBytes = 0;
    int ccMajor = 0, ccMinor = 0;  // compute capability
    int multiprocessors = 0;
};

// A library loaded at run time: where it was found (or why not) and its version.
struct LibraryProbe
{
    bool found = false;
    std::string path;  // the file loaded (as the loader resolved the name)
    std::string version;  // "2.28.7"; empty when the library has no version call
    std::string why;  // when not found: what was tried and what failed
};

struct CudaProbe
{
    LibraryProbe driver;  // libcuda.so.1
    int driverVersion = 0;  // 13000 = 13.0
    std::vector<CudaDeviceInfo> devices;
    std::string why;  // when devices is empty: the reason (no driver, no device, the driver's error)
    LibraryProbe nccl, cublas;
};

// Library names, each overridable by an environment variable naming the file (the tests use
// it to make a library absent or to point at one): FXLENS_CUDA_DRIVER (libcuda.so.1),
// FXLENS_NCCL_LIBRARY (libnccl.so.2), FXLENS_CUBLAS_LIBRARY (libcublas.so.13). NCCL and cuBLAS
// are also looked for in $CUDA_HOME/lib64 and /usr/local/cuda/lib64.
CudaProbe probeCuda();
// The driver and its devices only (NCCL and cuBLAS left unprobed).
CudaProbe probeCudaDriver();

// cuBLAS's dlopen handle (kept for the process), searched as probeCuda searches it; nullptr
// with `why` set when it is not found.
void* loadCublas(std::string* why);
// dlsym: nullptr when the library has no such symbol.
void* librarySymbol(void* handle, const char* name);

// "13.0" for 13000
std::string cudaVersionText(int version);

}  // namespace fxl::cuda

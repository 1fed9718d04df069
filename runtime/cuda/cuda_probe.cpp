#include "runtime/cuda/cuda_probe.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>

namespace fxl::cuda {
namespace {

// A dlopen handle kept for the process: the libraries stay loaded once probed (unloading NCCL
// or the driver at exit is known to crash in their destructors).
void* openFirst(const std::vector<std::string>& candidates, LibraryProbe& probe)
{
    std::string tried;
    for (const std::string& c : candidates) {
        if (c.empty()) continue;
        if (void* h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL)) {
            probe.found = true;
            probe.path = c;
            // the file the loader chose, for a name it looked up in its search path
            struct link_map* lm = nullptr;
            if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && *lm->l_name) probe.path = lm->l_name;
            return h;
        }
        const char* e = dlerror();
        tried += (tried.empty() ? "" : "; ") + (e ? std::string(e) : c + ": not loadable");
    }
    probe.why = tried.empty() ? "no candidate file" : tried;
    return nullptr;
}

std::string envOr(const char* name, const std::string& fallback)
{
    const char* v = std::getenv(name);
    return v && *v ? std::string(v) : fallback;
}

// The candidates for a toolkit library: the override alone when set, else the loader's search
// path and the toolkit's usual folders.
std::vector<std::string> toolkitCandidates(const char* envName, const std::string& file)
{
    if (const char* v = std::getenv(envName); v && *v) return {v};
    std::vector<std::string> c = {file};
    if (const char* home = std::getenv("CUDA_HOME"); home && *home) c.push_back(std::string(home) + "/lib64/" + file);
    c.push_back("/usr/local/cuda/lib64/" + file);
    return c;
}

template<class F>
F symbol(void* h, const char* name)
{
    return reinterpret_cast<F>(dlsym(h, name));
}

void probeDriver(CudaProbe& p)
{
    void* h = openFirst({envOr("FXLENS_CUDA_DRIVER", "libcuda.so.1")}, p.driver);
    if (!h) {
        p.why = "no NVIDIA driver: " + p.driver.why;
        return;
    }
    // the driver API's C signatures (CUresult is an int, CUdevice an int)
    using InitFn = int (*)(unsigned);
    using VersionFn = int (*)(int*);
    using CountFn = int (*)(int*);
    using GetFn = int (*)(int*, int);
    using NameFn = int (*)(char*, int, int);
    using MemFn = int (*)(size_t*, int);
    using AttrFn = int (*)(int*, int, int);
    using ErrFn = int (*)(int, const char**);
    const auto init = symbol<InitFn>(h, "cuInit");
    const auto version = symbol<VersionFn>(h, "cuDriverGetVersion");
    const auto count = symbol<CountFn>(h, "cuDeviceGetCount");
    const auto get = symbol<GetFn>(h, "cuDeviceGet");
    const auto name = symbol<NameFn>(h, "cuDeviceGetName");
    const auto mem = symbol<MemFn>(h, "cuDeviceTotalMem_v2");
    const auto attr = symbol<AttrFn>(h, "cuDeviceGetAttribute");
    const auto err = symbol<ErrFn>(h, "cuGetErrorString");
    if (!init || !version || !count || !get || !name || !mem || !attr) {
        p.why = p.driver.path + " lacks the driver API's device calls (not an NVIDIA driver library?)";
        return;
    }
    auto errorText = [&](int code) {
        const char* s = nullptr;
        if (err && err(code, &s) == 0 && s) return std::string(s);
        return "CUDA driver error " + std::to_string(code);
    };
    if (version(&p.driverVersion) == 0) p.driver.version = cudaVersionText(p.driverVersion);
    if (const int r = init(0); r != 0) {
        p.why = "the NVIDIA driver did not start: " + errorText(r);
        return;
    }
    int n = 0;
    if (const int r = count(&n); r != 0) {
        p.why = "the NVIDIA driver cannot count devices: " + errorText(r);
        return;
    }
    if (n == 0) {
        p.why = "the NVIDIA driver found no CUDA device";
        return;
    }
    constexpr int kAttrMultiprocessors = 16, kAttrCcMajor = 75, kAttrCcMinor = 76;
    for (int i = 0; i < n; ++i) {
        int dev = 0;
        if (get(&dev, i) != 0) continue;
        CudaDeviceInfo d;
        d.index = i;
        char buf[256] = {};
        if (name(buf, sizeof buf - 1, dev) == 0) d.name = buf;
        size_t bytes = 0;
        if (mem(&bytes, dev) == 0) d.memoryBytes = bytes;
        attr(&d.ccMajor, kAttrCcMajor, dev);
        attr(&d.ccMinor, kAttrCcMinor, dev);
        attr(&d.multiprocessors, kAttrMultiprocessors, dev);
        p.devices.push_back(d);
    }
}

void probeNccl(LibraryProbe& p)
{
    void* h = openFirst(toolkitCandidates("FXLENS_NCCL_LIBRARY", "libnccl.so.2"), p);
    if (!h) return;
    using VersionFn = int (*)(int*);
    int v = 0;
    if (const auto f = symbol<VersionFn>(h, "ncclGetVersion"); f && f(&v) == 0) {
        // NCCL_VERSION_CODE: major * 10000 + minor * 100 + patch since 2.9 (major * 1000 + ... before)
        const int major = v >= 10000 ? v / 10000 : v / 1000;
        const int minor = v >= 10000 ? (v / 100) % 100 : (v / 100) % 10;
        p.version = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(v % 100);
    } else {
        p.found = false;
        p.why = p.path + " has no ncclGetVersion (not NCCL?)";
    }
}

void probeCublas(LibraryProbe& p)
{
    void* h = openFirst(toolkitCandidates("FXLENS_CUBLAS_LIBRARY", "libcublas.so.13"), p);
    if (!h) return;
    // cublasGetProperty(libraryPropertyType, int*): MAJOR_VERSION 0, MINOR_VERSION 1, PATCH_LEVEL 2
    using PropFn = int (*)(int, int*);
    const auto f = symbol<PropFn>(h, "cublasGetProperty");
    int major = 0, minor = 0, patch = 0;
    if (f && f(0, &major) == 0 && f(1, &minor) == 0 && f(2, &patch) == 0) {
        p.version = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
    } else {
        p.found = false;
        p.why = p.path + " has no cublasGetProperty (not cuBLAS?)";
    }
}

}  // namespace

std::string cudaVersionText(int version)
{
    return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

void* loadCublas(std::string* why)
{
    LibraryProbe p;
    void* h = openFirst(toolkitCandidates("FXLENS_CUBLAS_LIBRARY", "libcublas.so.13"), p);
    if (!h && why) *why = p.why;
    return h;
}

void* librarySymbol(void* handle, const char* name) { return dlsym(handle, name); }

CudaProbe probeCudaDriver()
{
    CudaProbe p;
    probeDriver(p);
    return p;
}

CudaProbe probeCuda()
{
    CudaProbe p;
    probeDriver(p);
    probeNccl(p.nccl);
    probeCublas(p.cublas);
    return p;
}

}  // namespace fxl::cuda

// The comparisons of the GPU check (tests/gpu/): a kernel test case, a corpus graph and a
// function over all its inputs, each run on the CPU reference and on a device, bit for bit.
// No Qt: the check binary built from them runs on a bare GPU machine; the QtTest of the CUDA
// kernels (tests/runtime/test_cuda_kernels.cpp) runs the same comparisons through the
// emulated device.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernel_case_util.hpp"
#include "runtime/base/backend.hpp"

namespace gpucheck {

using fxl::Backend;
using kerneltest::RefFile;

// A case file of the kernel tests: its family name, folder under tests/data and file stem.
struct Family
{
    const char* name;
    const char* dir;
    const char* file;
};
const std::vector<Family>& families();

// One case (an operator call of a case file) on `ref` and on `dev`.
struct CaseResult
{
    enum class Status
    {
        Equal,  // every output: dtype, sizes, strides and bytes
        SameError,  // both refused, with the same text
        Differs
    };
    Status status = Status::Equal;
    int outputs = 0;  // outputs compared
    std::string detail;  // what differs (Differs)
};
// Throws what the device throws that is not a KernelError (a launch failure, a missing kernel).
CaseResult compareCase(Backend& ref, Backend& dev, const RefFile& refs, const nlohmann::json& c);

// One corpus graph (any file fxlens opens, with its sidecars) on the CPU and on the device:
// every output and state compared bitwise (runtime/check/graph_check.hpp), the device's
// measured peak beside the memory timeline's estimate.
struct GraphResult
{
    std::string name;
    bool ran = false;  // false: `detail` says why it did not (no kernel on the device, ...)
    bool equal = false;
    std::string detail;
    size_t nodes = 0, outputs = 0;
    int64_t devicePeak = 0, estimatePeak = 0;
    double cpuSeconds = 0, deviceSeconds = 0;
};
// outputsPath (when not empty): the device run's outputs written there as `fxlens run --out`
// writes them (out_K), for the comparison with PyTorch's eager run (tests/gpu/torch_eager.py).
GraphResult compareGraph(const std::string& path, const std::function<std::unique_ptr<Backend>()>& makeDevice,
                         int cpuThreads, const std::string& outputsPath = {});

// A unary float function over 2^bits inputs: every bit pattern of the dtype when bits is its
// width (32 for f32, 16 for bf16 / f16), else 2^bits patterns evenly spaced over all of them;
// the hash of its outputs on each side.
struct SweepResult
{
    std::string name;  // "exp f32"
    uint64_t inputs = 0;
    uint64_t cpuHash = 0, deviceHash = 0;
    uint64_t firstDiffering = 0;  // an input whose output differs (when the hashes do)
};
SweepResult sweepFunction(Backend& ref, Backend& dev, const std::string& target, fxl::DType dtype, int bits);

}  // namespace gpucheck

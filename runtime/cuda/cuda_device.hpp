// The CUDA runtime's device (cuda_device.cu, built when the CUDA Toolkit is found): device
// memory from the stream-ordered pool (cudaMallocAsync / cudaFreeAsync), one stream, transfers
// on it, and the __global__ wrappers of cuda_kernels.cu. Not yet run on a GPU: no GPU machine
// was lent to the sessions that wrote it (the emulated device runs the same kernel bodies in
// the tests).
#pragma once

#include <memory>
#include <string>

#include "runtime/cuda/device_api.hpp"

namespace fxl::cuda {

// Device `index` through the CUDA runtime; nullptr with `why` set when this build has no CUDA
// or the runtime refuses (no driver, no such device, out of memory).
std::unique_ptr<DeviceApi> makeRuntimeDevice(int index, std::string* why);

}  // namespace fxl::cuda

// The CUDA backend: tensors in a device's memory, copies between layouts and devices by the
// strided-copy kernel, operators by the kernels registered for DeviceKind::Cuda. The device is
// a DeviceApi (device_api.hpp): the emulated one today (the CUDA kernels' code run by the CPU,
// for the tests), the CUDA runtime's in a later step. Which operators have CUDA kernels is the
// registry's; a graph with others fails at planning, naming them (exec/support_check).
#pragma once

#include <memory>

#include "runtime/base/backend.hpp"
#include "runtime/cuda/device_api.hpp"

namespace fxl::cuda {

// fast: the labelled fast mode (Backend::fastMath), matrix products by DeviceApi::fastGemm.
std::unique_ptr<Backend> makeCudaBackend(std::unique_ptr<DeviceApi> device, int index, bool fast = false);

}  // namespace fxl::cuda

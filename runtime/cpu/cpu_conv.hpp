// CPU kernels of aten.convolution and aten.convolution_backward (1-d/2-d/3-d, groups,
// stride, padding, dilation, transposed).
#pragma once

#include "runtime/base/kernel.hpp"
#include "runtime/base/tensor.hpp"

namespace fxl::cpu {

// Registered for the CPU and for CUDA: the same host logic; on a device the cores run as the
// backend's loop (Backend::conv).
void registerConvKernels(KernelRegistry& reg, DeviceKind d);

// PyTorch's suggest_memory_format() is channels_last (4-d) / channels_last_3d (5-d) for t (the
// rule of the meta functions, core/ops/op_meta_layout.cpp isChannelsLastStrides).
bool suggestsChannelsLast(const Tensor& t);
// t's values in a new tensor with channels-last (4-d) / channels-last-3d (5-d) strides.
Tensor toChannelsLast(const KernelCall& call, const Tensor& t);

}  // namespace fxl::cpu

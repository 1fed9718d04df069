#include "runtime/cpu/cpu_kernels.hpp"

#include "runtime/cpu/cpu_conv.hpp"
#include "runtime/cpu/cpu_elementwise.hpp"
#include "runtime/cpu/cpu_index.hpp"
#include "runtime/cpu/cpu_loss.hpp"
#include "runtime/cpu/cpu_matmul.hpp"
#include "runtime/cpu/cpu_norm.hpp"
#include "runtime/cpu/cpu_norm_batch.hpp"
#include "runtime/cpu/cpu_pad.hpp"
#include "runtime/cpu/cpu_pool.hpp"
#include "runtime/cpu/cpu_random.hpp"
#include "runtime/cpu/cpu_reduction.hpp"
#include "runtime/cpu/cpu_shape.hpp"

namespace fxl {

void registerCpuKernels(KernelRegistry& reg)
{
    cpu::registerMatmulKernels(reg, DeviceKind::Cpu);
    cpu::registerElementwiseKernels(reg, DeviceKind::Cpu);
    cpu::registerReductionKernels(reg);
    cpu::registerShapeKernels(reg);
    cpu::registerRandomKernels(reg);
    cpu::registerConvKernels(reg, DeviceKind::Cpu);
    cpu::registerPoolKernels(reg, DeviceKind::Cpu);
    cpu::registerPadKernels(reg);
}

void registerCudaKernels(KernelRegistry& reg)
{
    // the families whose host logic is device-independent: their loops go through the
    // backend (Backend::pointwise, Backend::gemm)
    cpu::registerMatmulKernels(reg, DeviceKind::Cuda);
    cpu::registerElementwiseKernels(reg, DeviceKind::Cuda);
    cpu::registerDeviceShapeKernels(reg, DeviceKind::Cuda);
    cpu::registerSumKernels(reg, DeviceKind::Cuda);
    cpu::red::registerSoftmaxKernels(reg, DeviceKind::Cuda);
    cpu::red::registerDeviceLossKernels(reg, DeviceKind::Cuda);
    cpu::shape::registerGatherKernels(reg, DeviceKind::Cuda);
    cpu::registerConvKernels(reg, DeviceKind::Cuda);
    cpu::red::registerBatchNormKernels(reg, DeviceKind::Cuda);
    cpu::registerPoolKernels(reg, DeviceKind::Cuda);
}

}  // namespace fxl

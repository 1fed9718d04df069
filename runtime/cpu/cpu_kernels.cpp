#include "runtime/cpu/cpu_kernels.hpp"

#include "runtime/cpu/cpu_conv.hpp"
#include "runtime/cpu/cpu_elementwise.hpp"
#include "runtime/cpu/cpu_matmul.hpp"
#include "runtime/cpu/cpu_pad.hpp"
#include "runtime/cpu/cpu_pool.hpp"
#include "runtime/cpu/cpu_random.hpp"
#include "runtime/cpu/cpu_reduction.hpp"
#include "runtime/cpu/cpu_shape.hpp"

namespace fxl {

void registerCpuKernels(KernelRegistry& reg)
{
    cpu::registerMatmulKernels(reg);
    cpu::registerElementwiseKernels(reg);
    cpu::registerReductionKernels(reg);
    cpu::registerShapeKernels(reg);
    cpu::registerRandomKernels(reg);
    cpu::registerConvKernels(reg);
    cpu::registerPoolKernels(reg);
    cpu::registerPadKernels(reg);
}

}  // namespace fxl

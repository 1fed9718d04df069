#include "runtime/cpu/cpu_common.hpp"

namespace fxl {

void registerCpuKernels(KernelRegistry& reg) {
    cpu::registerMatmulKernels(reg);
    cpu::registerElementwiseKernels(reg);
    cpu::registerReductionKernels(reg);
    cpu::registerShapeKernels(reg);
}

}  // namespace fxl

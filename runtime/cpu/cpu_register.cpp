#include "runtime/cpu/cpu_common.hpp"
#include "runtime/cpu/cpu_random.hpp"

namespace fxl {

void registerCpuKernels(KernelRegistry& reg) {
    cpu::registerMatmulKernels(reg);
    cpu::registerElementwiseKernels(reg);
    cpu::registerReductionKernels(reg);
    cpu::registerShapeKernels(reg);
    cpu::registerRandomKernels(reg);
}

}  // namespace fxl

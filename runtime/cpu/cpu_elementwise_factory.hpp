// Factories and fills.
#pragma once

#include "runtime/base/kernel.hpp"

namespace fxl::cpu::ew {

void registerFactories(KernelRegistry& reg);

}  // namespace fxl::cpu::ew

// CPU kernel of _embedding_bag (the sum / mean / max of the embedding rows of each bag).
#pragma once

#include "runtime/base/kernel.hpp"

namespace fxl::cpu::red {

void registerEmbeddingBagKernels(KernelRegistry& reg);

}  // namespace fxl::cpu::red

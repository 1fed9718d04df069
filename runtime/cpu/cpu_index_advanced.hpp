// Advanced indexing (index.Tensor, index_put): PyTorch's make_info. Masks become nonzero()
// coordinates, the index tensors broadcast together, the indexed dims go to the front when
// they are not adjacent, and the indexed dims of the base are replaced by the broadcast index
// shape.
#pragma once

#include <vector>

#include "runtime/cpu/cpu_index_plan.hpp"

namespace fxl::cpu::shape {

struct AdvancedIndex
{
    IndexPlan plan;
    Tensor src;  // the (possibly permuted) base as a view
    std::vector<Tensor> reshaped;  // index tensors as [1]*before + shape + [1]*after (for layout)
    std::vector<Tensor> owned;  // nonzero() coordinates of masks (kept alive)
};

// `given` has one entry per leading dim of self (undefined: the whole dim); int64 / int32
// index tensors or bool / uint8 masks. Negative indices wrap.
AdvancedIndex makeAdvancedIndex(const KernelCall& call, const Tensor& self, const std::vector<Tensor>& given,
                                const char* op);

}  // namespace fxl::cpu::shape

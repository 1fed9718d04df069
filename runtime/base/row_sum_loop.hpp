// One row reduction of the sum family as a backend receives it: for each row of `src` (its
// dims not in colDims, in order, row-major), the sum of the row's elements (the dims in
// colDims, in that order, row-major) in runtime/math/sum_order.hpp's order, in the
// accumulation type of src's dtype (float for f32 / bf16 / f16, double for f64, wrapping
// 64-bit integers for integers and bool); a float sum that is not finite is the same order in
// double; `mean` divides by the count (math::sum::meanOf). Written to `out`, contiguous, one
// element per row: src's dtype for floats (rounded once), int64 for integers. The sum kernels'
// host logic (dims, dtypes, casts) is the same on every device; this loop is the backend's
// (Backend::rowSum).
#pragma once

#include <cstdint>
#include <vector>

namespace fxl {

class Tensor;

struct RowSumLoop
{
    const Tensor* src = nullptr;
    std::vector<int64_t> colDims;
    const Tensor* out = nullptr;
    bool mean = false;
};

}  // namespace fxl

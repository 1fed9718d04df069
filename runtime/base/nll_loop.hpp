// nll_loss forward or backward as a backend receives it, after the host logic (shapes,
// reduction, every target checked in [0, C) or ignored) that the CPU and device kernels share:
// input [N, C] or [C], the targets (one class per row, checked), the class weights or none.
// Forward: the row losses and weights, then (sum, mean) their sums in math/sum_order.hpp's
// order; backward: zeros, and each row's target entry (math/loss.hpp formulas). Values in the
// accumulation type of the input's dtype, rounded once to it (Backend::nll).
#pragma once

#include <cstdint>
#include <vector>

namespace fxl {

class Tensor;

struct NllLoop
{
    bool backward = false;
    const Tensor* input = nullptr;
    const Tensor* weight = nullptr;  // [C] or null
    std::vector<int64_t> targets;  // one per row, each ignoreIndex or in [0, C)
    int64_t rows = 1, classes = 0, ignoreIndex = 0, reduction = 0;  // math::loss::kNone / kMean / kSum
    bool batched = false;
    // forward: out (perRow: [N], else []) and total ([]); backward: gradOutput ([N] when
    // reduction none and batched, else one element), totalWeight (mean), out (input's sizes,
    // contiguous)
    const Tensor* out = nullptr;
    const Tensor* total = nullptr;
    const Tensor* gradOutput = nullptr;
    const Tensor* totalWeight = nullptr;
};

}  // namespace fxl

// nll_loss on CUDA (runtime/base/nll_loop.hpp): the forward's rows in parallel (each row's
// loss and weight, math/loss.hpp), then one thread folds them in math/sum_order.hpp's order and
// stores the reduced loss and the total weight; the backward writes each row (zeros and the
// target entry) in parallel. The CPU kernel's formulas and order. Kernel bodies for the GPU and
// the emulator (launch.hpp).
#pragma once

#include <cstdint>

#include "runtime/cuda/launch.hpp"
#include "runtime/cuda/rows_kernel.hpp"
#include "runtime/math/loss.hpp"
#include "runtime/math/sum_order.hpp"

namespace fxl::cuda {

struct NllParams
{
    int elem = kFloatF32;  // the input's (and the outputs') float type
    int weightElem = kFloatF32, gradElem = kFloatF32;
    const void* x = nullptr;
    int64_t xOffset = 0, rowStride = 0, classStride = 0;
    const void* weight = nullptr;  // null: none
    int64_t weightOffset = 0, weightStride = 0;
    const int64_t* targets = nullptr;  // device copy, one per row
    int64_t rows = 1, classes = 0, ignoreIndex = 0, reduction = 0;
    bool batched = false, perRow = false;
    void* out = nullptr;  // forward: [N] or one element; backward: [rows * classes], contiguous
    void* total = nullptr;  // forward: one element
    void* scratch = nullptr;  // forward: losses then weights, rows values each
    // backward
    const void* grad = nullptr;
    int64_t gradOffset = 0, gradStride = 0;
    const void* totalWeight = nullptr;
    int totalWeightElem = kFloatF32;
    int64_t totalWeightOffset = 0;
};

// Row i's loss and weight: 0 and 0 for an ignored row.
template<class A>
FXL_HD inline A nllRow(const NllParams& p, int64_t i, A& rowWeight)
{
    const int64_t t = p.targets[i];
    if (t == p.ignoreIndex) {
        rowWeight = A(0);
        return A(0);
    }
    const A v = rowsLoad<A>(p.elem, p.x, p.xOffset + i * p.rowStride + t * p.classStride);
    rowWeight = p.weight ? rowsLoad<A>(p.weightElem, p.weight, p.weightOffset + t * p.weightStride) : A(1);
    return math::loss::nllRowLoss(v, p.weight != nullptr, rowWeight);
}

// Forward, first launch: one thread per row.
template<class A>
FXL_HD inline void nllForwardRowsBodyIn(const Coord& c, const NllParams& p)
{
    A* losses = static_cast<A*>(p.scratch);
    A* weights = losses + p.rows;
    for (int64_t i = c.globalX(); i < p.rows; i += c.strideX()) {
        A w;
        const A l = nllRow<A>(p, i, w);
        losses[i] = l;
        weights[i] = w;
        if (p.perRow) rowsStore<A>(p.elem, p.out, i, l);
    }
}

// Forward, second launch (one thread): the reduced loss and the total weight.
template<class A>
FXL_HD inline void nllForwardFoldBodyIn(const Coord& c, const NllParams& p)
{
    if (c.globalX() != 0) return;
    const A* losses = static_cast<const A*>(p.scratch);
    const A* weights = losses + p.rows;
    if (p.perRow) {
        rowsStore<A>(p.elem, p.total, 0, A(0));
    } else if (p.reduction == math::loss::kNone) {  // a 1-d input: one row
        rowsStore<A>(p.elem, p.out, 0, losses[0]);
        rowsStore<A>(p.elem, p.total, 0, weights[0]);
    } else {
        const A lossSum = math::sum::sumOrdered<A>(p.rows, [&](int64_t i) { return losses[i]; });
        const A weightSum = math::sum::sumOrdered<A>(p.rows, [&](int64_t i) { return weights[i]; });
        rowsStore<A>(p.elem, p.out, 0, math::loss::nllReduced(lossSum, weightSum, p.reduction));
        rowsStore<A>(p.elem, p.total, 0, weightSum);
    }
}

// Backward: one thread per row.
template<class A>
FXL_HD inline void nllBackwardBodyIn(const Coord& c, const NllParams& p)
{
    A reducedGrad = A(0);
    if (!p.perRow) {
        const A g0 = rowsLoad<A>(p.gradElem, p.grad, p.gradOffset);
        const A tw = p.reduction == math::loss::kMean
            ? rowsLoad<A>(p.totalWeightElem, p.totalWeight, p.totalWeightOffset)
            : A(1);
        reducedGrad = math::loss::nllReducedGrad(g0, tw, p.reduction);
    }
    for (int64_t i = c.globalX(); i < p.rows; i += c.strideX()) {
        for (int64_t j = 0; j < p.classes; ++j) rowsStore<A>(p.elem, p.out, i * p.classes + j, A(0));
        const int64_t t = p.targets[i];
        if (t == p.ignoreIndex) continue;
        const A w = p.weight ? rowsLoad<A>(p.weightElem, p.weight, p.weightOffset + t * p.weightStride) : A(1);
        const A rowGrad =
            p.reduction == math::loss::kNone ? rowsLoad<A>(p.gradElem, p.grad, p.gradOffset + i * p.gradStride) : A(0);
        rowsStore<A>(p.elem, p.out, i * p.classes + t,
                     math::loss::nllGrad(p.reduction, rowGrad, reducedGrad, p.weight != nullptr, w));
    }
}

FXL_HD inline void nllForwardRowsBody(const Coord& c, const NllParams& p)
{
    if (p.elem == kFloatF64)
        nllForwardRowsBodyIn<double>(c, p);
    else
        nllForwardRowsBodyIn<float>(c, p);
}
FXL_HD inline void nllForwardFoldBody(const Coord& c, const NllParams& p)
{
    if (p.elem == kFloatF64)
        nllForwardFoldBodyIn<double>(c, p);
    else
        nllForwardFoldBodyIn<float>(c, p);
}
FXL_HD inline void nllBackwardBody(const Coord& c, const NllParams& p)
{
    if (p.elem == kFloatF64)
        nllBackwardBodyIn<double>(c, p);
    else
        nllBackwardBodyIn<float>(c, p);
}

}  // namespace fxl::cuda

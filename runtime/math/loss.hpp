#pragma once
// The per-element and reduction formulas of the losses (nll_loss / nll_loss2d, mse_loss, and
// their backward) and of embedding_dense_backward's per-token term, one source for every
// device. A is the accumulation type (float for f32 / bf16 / f16, double for f64); sums over
// rows or elements are sum_order.hpp's, in row (element) order.
#include <cstdint>

#include "runtime/math/hostdev.hpp"

namespace fxl::math::loss {

// PyTorch's Reduction enum: 0 none, 1 mean, 2 sum.
inline constexpr int64_t kNone = 0;
inline constexpr int64_t kMean = 1;
inline constexpr int64_t kSum = 2;

// nll: the loss of a row whose target's log-probability is v (w: the class weight when given).
template<class A>
FXL_HD inline A nllRowLoss(A v, bool weighted, A w)
{
    return weighted ? -(v * w) : -v;
}

// nll, reduced: the sum of the row losses, divided by the sum of the row weights for mean.
template<class A>
FXL_HD inline A nllReduced(A lossSum, A weightSum, int64_t reduction)
{
    return reduction == kMean ? lossSum / weightSum : lossSum;
}

// nll backward, mean and sum: the gradient every row's target entry gets before its weight
// (-(g / total_weight) for mean, -g for sum).
template<class A>
FXL_HD inline A nllReducedGrad(A g, A totalWeight, int64_t reduction)
{
    return reduction == kMean ? -(g / totalWeight) : reduction == kSum ? -g : A(0);
}

// nll backward: the gradient of a row's target entry. none: -w * g_i (-g_i without weight);
// mean / sum: w * reducedGrad (reducedGrad without weight).
template<class A>
FXL_HD inline A nllGrad(int64_t reduction, A rowGrad, A reducedGrad, bool weighted, A w)
{
    if (reduction == kNone) return weighted ? -w * rowGrad : -rowGrad;
    return weighted ? w * reducedGrad : reducedGrad;
}

// mse: (x - t)^2 per element; reduced: the sum, divided by the count for mean.
template<class A>
FXL_HD inline A mseTerm(A x, A t)
{
    const A d = x - t;
    return d * d;
}
template<class A>
FXL_HD inline A mseReduced(A sum, int64_t count, int64_t reduction)
{
    return reduction == kMean ? sum / static_cast<A>(count) : sum;
}

// mse backward: (norm * (x - t)) * g with norm = 2 / numel (mean) or 2, rounded to A.
FXL_HD inline double mseGradNorm(int64_t reduction, int64_t numel)
{
    return reduction == kMean ? 2.0 / static_cast<double>(numel) : 2.0;
}
template<class A>
FXL_HD inline A mseGrad(A norm, A x, A t, A g)
{
    return (norm * (x - t)) * g;
}

// embedding_dense_backward with scale_grad_by_freq: each of a row's `count` tokens adds
// scale * grad, scale = 1 / count rounded once to A.
template<class A>
FXL_HD inline A embeddingFreqScale(int64_t count)
{
    return static_cast<A>(count > 0 ? 1.0 / static_cast<double>(count) : 1.0);
}

}  // namespace fxl::math::loss

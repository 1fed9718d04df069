#pragma once
// The row formulas of softmax, log_softmax and the layer norm (forward and backward), one
// source for every device. A kernel widens one row into a buffer of the accumulation type A
// (float for f32 / bf16 / f16, double for f64), calls one of these, and rounds each result once
// into the output; every sum is sum_order.hpp's. The per-element pieces are separate functions
// so that a device may split a row between threads and still compute each element's bits.
#include <cstdint>

#include "runtime/math/bits.hpp"
#include "runtime/math/functions.hpp"
#include "runtime/math/hostdev.hpp"
#include "runtime/math/sum_order.hpp"

namespace fxl::math::rows {

template<class A>
FXL_HD inline A negInfinity()
{
    if constexpr (sizeof(A) == 4)
        return floatFromBits(0xff800000u);
    else
        return doubleFromBits(0xfff0000000000000ull);
}

template<class A>
FXL_HD inline bool isFinite(A x)
{
    return !isNan(x) && !isInf(x);
}

// Max of a row with NaN propagation (the first NaN is the result); -inf for an empty row.
template<class A>
FXL_HD inline A rowMax(const A* v, int64_t n)
{
    A m = negInfinity<A>();
    for (int64_t j = 0; j < n; ++j) {
        if (isNan(v[j])) return v[j];
        if (v[j] > m) m = v[j];
    }
    return m;
}

// ---- softmax / log_softmax
// softmax:     y_j = e_j / S(e),            e_j = exp(x_j - max)
// log_softmax: y_j = (x_j - max) - log(S(e))
// safe (_safe_softmax): a row whose inputs are all -inf gives zeros instead of NaN.
template<class A>
FXL_HD inline void softmaxRow(A* v, int64_t n, bool log, bool safe)
{
    const A mx = rowMax(v, n);
    if (safe && mx == negInfinity<A>()) {
        for (int64_t j = 0; j < n; ++j) v[j] = A(0);
    } else if (!log) {
        for (int64_t j = 0; j < n; ++j) v[j] = math::exp(v[j] - mx);
        const A s = sum::sumOrdered<A>(n, [&](int64_t i) { return v[i]; });
        for (int64_t j = 0; j < n; ++j) v[j] = v[j] / s;
    } else {
        const A s = sum::sumOrdered<A>(n, [&](int64_t i) { return static_cast<A>(math::exp(v[i] - mx)); });
        const A ls = math::log(s);
        for (int64_t j = 0; j < n; ++j) v[j] = (v[j] - mx) - ls;
    }
}

// Backward, g the incoming gradient (overwritten by the result), y the forward's output:
// softmax:     dx_j = y_j (g_j - S(g * y))
// log_softmax: dx_j = g_j - exp(y_j) S(g)
template<class A>
FXL_HD inline void softmaxBackwardRow(A* g, const A* y, int64_t n, bool log)
{
    if (!log) {
        const A s = sum::sumOrdered<A>(n, [&](int64_t i) { return g[i] * y[i]; });
        for (int64_t j = 0; j < n; ++j) g[j] = y[j] * (g[j] - s);
    } else {
        const A s = sum::sumOrdered<A>(n, [&](int64_t i) { return g[i]; });
        for (int64_t j = 0; j < n; ++j) g[j] = g[j] - math::exp(y[j]) * s;
    }
}

// ---- layer norm
// The moments of a row: m0 = S(x)/n, mean = m0 + S(x - m0)/n (the mean refined once, removing
// the rounding error of S(x) when |mean| >> std), m2 = S((x - mean)^2); var = m2 / n. An empty
// row gives NaN (0 / 0): the callers decide what an empty row means.
template<class A>
struct Moments
{
    A mean, m2;
};
template<class A, class Load>
FXL_HD inline Moments<A> moments(int64_t n, Load&& load)
{
    const A nA = static_cast<A>(n);
    const A m0 = sum::sumOrdered<A>(n, load) / nA;
    const A mean = m0 + sum::sumOrdered<A>(n, [&](int64_t i) { return load(i) - m0; }) / nA;
    const A m2 = sum::sumOrdered<A>(n, [&](int64_t i) {
        const A d = load(i) - mean;
        return d * d;
    });
    return {mean, m2};
}

// rstd = 1 / sqrt(var + eps)
template<class A>
FXL_HD inline A rstdOf(A var, A eps)
{
    return A(1) / math::sqrt(var + eps);
}

// xhat = (x - mean) * rstd
template<class A>
FXL_HD inline A normalized(A x, A mean, A rstd)
{
    return (x - mean) * rstd;
}

// The norms' input gradient of one element: scale * ((N * g - S(g)) - xhat * S(g * xhat)), with
// scale = rstd / N (times the channel's weight for batch norm).
template<class A>
FXL_HD inline A normInputGrad(A scale, A nA, A g, A sg, A xhat, A sgx)
{
    return scale * ((nA * g - sg) - xhat * sgx);
}

// batch norm's input gradient with fixed statistics (eval): dy * rstd * w
template<class A>
FXL_HD inline A fixedStatsGrad(A dy, A rstd, A w)
{
    return dy * rstd * w;
}

// A running statistic updated with a batch statistic s: (1 - momentum) * r + momentum * s.
template<class A>
FXL_HD inline A runningUpdate(A r, A s, A momentum)
{
    return (A(1) - momentum) * r + momentum * s;
}

// The unbiased variance of m elements from the biased one (the biased one when m <= 1).
template<class A>
FXL_HD inline A unbiasedVariance(A var, int64_t m)
{
    return m > 1 ? var * static_cast<A>(m) / static_cast<A>(m - 1) : var;
}

// y = xhat [* w] [+ b] for one element (hasW, hasB: the parameters given)
template<class A>
FXL_HD inline A affine(A xhat, bool hasW, A w, bool hasB, A b)
{
    A v = xhat;
    if (hasW) v = v * w;
    if (hasB) v = v + b;
    return v;
}

// y_j = xhat_j [* w_j] [+ b_j] (w, b: null when absent)
template<class A>
FXL_HD inline void layerNormRow(A* v, int64_t n, A mean, A rstd, const A* w, const A* b)
{
    for (int64_t j = 0; j < n; ++j) v[j] = normalized(v[j], mean, rstd);
    if (w)
        for (int64_t j = 0; j < n; ++j) v[j] = v[j] * w[j];
    if (b)
        for (int64_t j = 0; j < n; ++j) v[j] = v[j] + b[j];
}

// The input gradient of one row, g = dy [* w] (overwritten by dx), xh = the row of x
// (overwritten by xhat):
//   dx_j = (rstd / N) * ((N * g_j - S(g)) - xhat_j * S(g * xhat)).
// Returns false when a sum or a result is not finite (N * g_j or a product overflowed float):
// the caller then takes layerNormInputGradWide.
template<class A>
FXL_HD inline bool layerNormInputGradRow(A* g, A* xh, int64_t n, A mean, A rstd, const A* w)
{
    const A nA = static_cast<A>(n);
    for (int64_t j = 0; j < n; ++j) xh[j] = normalized(xh[j], mean, rstd);
    if (w)
        for (int64_t j = 0; j < n; ++j) g[j] = g[j] * w[j];
    const A sg = sum::sumOrdered<A>(n, [&](int64_t i) { return g[i]; });
    const A sgx = sum::sumOrdered<A>(n, [&](int64_t i) { return g[i] * xh[i]; });
    bool finite = isFinite(sg) && isFinite(sgx);
    if (finite) {
        const A scale = rstd / nA;
        for (int64_t j = 0; j < n; ++j) {
            g[j] = normInputGrad(scale, nA, g[j], sg, xh[j], sgx);
            finite = finite && isFinite(g[j]);
        }
    }
    return finite;
}

// The same gradient in double from x and dy widened to double (g already multiplied by w in
// double), written as dx_j = a g_j + b x_j + c with a = rstd, b = (S(g) mean - S(g x)) a^3 / N,
// c = -b mean - S(g) a / N.
FXL_HD inline void layerNormInputGradWide(const double* g, const double* x, int64_t n, double mean, double rstd,
                                          double* out)
{
    const double db = sum::sumOrdered<double>(n, [&](int64_t i) { return g[i]; });
    const double ds = sum::sumOrdered<double>(n, [&](int64_t i) { return g[i] * x[i]; });
    const double a = rstd, mu = mean, scale = 1.0 / static_cast<double>(n);
    const double b = (db * mu - ds) * a * a * a * scale;
    const double c = -b * mu - db * a * scale;
    for (int64_t j = 0; j < n; ++j) out[j] = a * g[j] + b * x[j] + c;
}

}  // namespace fxl::math::rows

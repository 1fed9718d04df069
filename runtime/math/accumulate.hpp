#pragma once
// The per-element formulas of the indexed accumulations (scatter_reduce, index_add with alpha,
// embedding_bag and its backward), the p-distances of cdist, and the sort order, one source
// for every device. Accumulations visit their sources in index order (a device sorts by
// destination first: no atomics on values); these formulas combine one source into one
// destination. C is the compute type as in arith.hpp; integers wrap on uint64.
#include <cstdint>
#include <type_traits>

#include "runtime/math/arith.hpp"
#include "runtime/math/bits.hpp"
#include "runtime/math/functions.hpp"
#include "runtime/math/hostdev.hpp"
#include "runtime/math/sum_order.hpp"

namespace fxl::math::acc {

// ---- scatter_reduce / index_reduce: combine source b into destination a.
enum class Reduce : uint8_t
{
    Sum,
    Prod,
    Mean,
    Amax,
    Amin
};

template<class C>
FXL_HD inline C combine(C a, C b, Reduce red)
{
    if constexpr (std::is_integral_v<C>) {
        switch (red) {
        case Reduce::Prod: return arith::wrapMul<C>(a, b);
        case Reduce::Amax: return a < b ? b : a;  // std::max(a, b)
        case Reduce::Amin: return b < a ? b : a;  // std::min(a, b)
        default: return arith::wrapAdd<C>(a, b);  // sum; mean sums first
        }
    } else {
        switch (red) {
        case Reduce::Prod: return a * b;
        case Reduce::Amax: return isNan(b) ? b : (a < b ? b : a);  // a NaN source propagates
        case Reduce::Amin: return isNan(b) ? b : (b < a ? b : a);
        default: return a + b;
        }
    }
}

// mean: the sum divided by the count (0 counts as 1); integers floor-divide (div_(count, "floor")).
template<class C>
FXL_HD inline C meanOf(C sum, int64_t count)
{
    const C c = static_cast<C>(count == 0 ? 1 : count);
    if constexpr (std::is_integral_v<C>) {
        C q = static_cast<C>(sum / c);
        if (sum % c != 0 && ((sum < 0) != (c < 0))) q = static_cast<C>(q - 1);
        return q;
    } else {
        return sum / c;
    }
}

// index_add with alpha != 1: x + alpha * y (one fma for floats, wrapping for integers).
template<class C>
FXL_HD inline C addScaled(C x, C y, C alpha)
{
    if constexpr (std::is_floating_point_v<C>)
        return math::fma(alpha, y, x);
    else
        return static_cast<C>(static_cast<uint64_t>(x) + static_cast<uint64_t>(alpha) * static_cast<uint64_t>(y));
}

// ---- embedding_bag
// sum / mean: the bag's term of one weight element (w the per-sample weight when given).
template<class A>
FXL_HD inline A bagTerm(A v, bool weighted, A w)
{
    return weighted ? w * v : v;
}
// max: the element replaces the bag's maximum when it is the bag's first or larger (the first
// maximum wins).
template<class A>
FXL_HD inline bool bagMaxTakes(A v, A best, bool first)
{
    return first || v > best;
}
template<class A>
FXL_HD inline A bagMean(A sum, int64_t count)
{
    return sum / static_cast<A>(count);
}
// backward (sum / mean): g [* w] [/ bag size] [* 1 / count of the row], in that order.
template<class A>
FXL_HD inline A bagGrad(A g, bool weighted, A w, bool mean, int64_t bagSize, bool byFreq, A freqScale)
{
    A v = g;
    if (weighted) v = v * w;
    if (mean) v = v / static_cast<A>(bagSize);
    if (byFreq) v = v * freqScale;
    return v;
}
// scale_grad_by_freq's factor of a row met `count` times.
template<class A>
FXL_HD inline A freqScale(int64_t count)
{
    return A(1) / static_cast<A>(count);
}

// ---- convolution: each output is S(x_i * w_i) over its taps in sum_order.hpp's order (a padded
// tap's x is 0), then + bias; the gradients are such sums of products too.
template<class A>
FXL_HD inline A tapProduct(A x, A w)
{
    return x * w;
}
template<class A, class LoadX, class LoadW>
FXL_HD inline A tapSum(int64_t taps, LoadX&& x, LoadW&& w)
{
    return sum::sumOrdered<A>(taps, [&](int64_t i) { return tapProduct(x(i), w(i)); });
}
template<class A>
FXL_HD inline A withBias(A acc, bool hasBias, A bias)
{
    return hasBias ? acc + bias : acc;
}

// ---- cdist: the p-distance of two rows of m elements (load(k) gives (x_k, y_k) widened).
// p = 0: the count of differing elements; p = inf: the largest |d| (a NaN wins); p = 1: S(|d|);
// p = 2: sqrt(S(d^2)); otherwise S(|d|^p)^(1/p). Sums in sum_order.hpp's order.
template<class A, class LoadX, class LoadY>
FXL_HD inline A pDistance(int64_t m, LoadX&& x, LoadY&& y, double p)
{
    if (p == 0.0) return sum::sumOrdered<A>(m, [&](int64_t k) { return x(k) != y(k) ? A(1) : A(0); });
    if (isInf(p)) {
        A mx = A(0);
        for (int64_t k = 0; k < m; ++k) {
            const A d = math::fabs(x(k) - y(k));
            if (isNan(d)) return d;
            if (d > mx) mx = d;
        }
        return mx;
    }
    if (p == 1.0) return sum::sumOrdered<A>(m, [&](int64_t k) { return math::fabs(x(k) - y(k)); });
    if (p == 2.0)
        return math::sqrt(sum::sumOrdered<A>(m, [&](int64_t k) {
            const A d = x(k) - y(k);
            return d * d;
        }));
    const A pa = static_cast<A>(p);
    return math::pow(sum::sumOrdered<A>(m, [&](int64_t k) { return math::pow(math::fabs(x(k) - y(k)), pa); }),
                     A(1) / pa);
}

// ---- sort order: "the element at position a goes before the one at b", ascending or
// descending, ties by position (a stable sort); NaN counts as larger than every number (last
// ascending, first descending), NaNs in position order.
template<class K>
FXL_HD inline bool sortsBefore(K x, K y, int64_t a, int64_t b, bool descending)
{
    if constexpr (std::is_floating_point_v<K>) {
        const bool nx = isNan(x), ny = isNan(y);
        if (nx || ny) {
            if (nx && ny) return a < b;
            return descending ? nx : ny;
        }
    }
    if (x != y) return descending ? x > y : x < y;
    return a < b;
}

}  // namespace fxl::math::acc

#pragma once
// The one summation order of every reducing kernel (sum, mean, var, softmax denominators, the
// norms' moments and backward dot products, loss reductions, parameter gradients), written as
// a per-block value and a fixed fold of the blocks, so that a device may compute the blocks in
// parallel and fold them afterwards without changing a bit. The order depends on n only:
//   1. The sequence v_0 .. v_{n-1} is cut into blocks of kBlock = 128 consecutive elements (the
//      last block may be shorter).
//   2. Within a block, 8 lane accumulators start at +0; element i goes to lane (i mod 8) and
//      the lanes add their elements in increasing i. The block's value is the fixed tree
//      ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)).
//   3. Block values are combined by a binary-counter cascade: they are pushed in order onto a
//      stack of (level, value); a pushed value starts at level 0 and, while the entry below it
//      has the same level, the two are replaced by (below + pushed) one level higher. At the
//      end the remaining entries are folded from the top of the stack down: v = top; v = entry
//      + v for each lower entry. An empty sequence sums to +0. (Equivalently: complete pairwise
//      trees over the binary decomposition of the block count, largest first, folded right to
//      left; e.g. 7 blocks = T4 + (T2 + b6).)
// A is the accumulation type (float for f32 / bf16 / f16 data, double for f64, uint64_t for
// integers: wrapping). Only IEEE additions, no FMA.
#include <cstdint>

#include "runtime/math/hostdev.hpp"

namespace fxl::math::sum {

inline constexpr int kLanes = 8;
inline constexpr int64_t kBlock = 128;
inline constexpr int kMaxLevels = 64;

// The block's value from its 8 lane sums.
template<class A>
FXL_HD inline A laneTree(const A* l)
{
    return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
}

// Number of blocks of a sequence of n elements.
FXL_HD inline int64_t blockCount(int64_t n) { return (n + kBlock - 1) / kBlock; }

// The value of the block that starts at element b0 (load(i) gives v_i; the block ends at
// min(n, b0 + kBlock)).
template<class A, class Load>
FXL_HD inline A blockValue(int64_t b0, int64_t n, Load&& load)
{
    const int64_t e = n < b0 + kBlock ? n : b0 + kBlock;
    A l[kLanes] = {};
    int64_t i = b0;
    for (; i + kLanes <= e; i += kLanes)
        for (int k = 0; k < kLanes; ++k) l[k] += load(i + k);
    for (int k = 0; i < e; ++i, ++k) l[k] += load(i);
    return laneTree(l);
}

// The fold of the block values, pushed in block order.
template<class A>
struct Cascade
{
    A val[kMaxLevels];
    int lvl[kMaxLevels];
    int top = 0;
    FXL_HD void push(A v)
    {
        int level = 0;
        while (top > 0 && lvl[top - 1] == level) {
            v = val[top - 1] + v;
            --top;
            ++level;
        }
        val[top] = v;
        lvl[top] = level;
        ++top;
    }
    FXL_HD A finish() const
    {
        if (top == 0) return A(0);
        A v = val[top - 1];
        for (int k = top - 2; k >= 0; --k) v = val[k] + v;
        return v;
    }
};

// The fold of `count` block values computed elsewhere (a device's parallel blocks).
template<class A>
FXL_HD inline A foldBlocks(const A* blocks, int64_t count)
{
    Cascade<A> c;
    for (int64_t b = 0; b < count; ++b) c.push(blocks[b]);
    return c.finish();
}

// S(load(0) .. load(n-1)): the blocks in order, folded.
template<class A, class Load>
FXL_HD inline A sumOrdered(int64_t n, Load&& load)
{
    Cascade<A> c;
    for (int64_t b0 = 0; b0 < n; b0 += kBlock) c.push(blockValue<A>(b0, n, load));
    return c.finish();
}

// ---- the family's other orders and formulas
// mean = S / n (n in A)
template<class A>
FXL_HD inline A meanOf(A sum, int64_t n)
{
    return sum / static_cast<A>(n);
}

// prod: x_0 * x_1 * ... * x_{n-1} from 1, sequential in the logical order.
template<class A, class Load>
FXL_HD inline A prodOrdered(int64_t n, Load&& load)
{
    A acc = A(1);
    for (int64_t j = 0; j < n; ++j) acc = acc * load(j);
    return acc;
}

// cumsum: acc_j = acc_{j-1} + x_j from 0, sequential in index order (one step).
template<class A>
FXL_HD inline A scanStep(A acc, A x)
{
    return acc + x;
}

// argmax / argmin (and max / min with indices): the first NaN, else the first extremum; the
// row's position of it (n > 0). key(j) gives the element widened (floats) or as int64.
template<bool Min, class Key>
FXL_HD inline int64_t argExtreme(int64_t n, Key&& key)
{
    auto best = key(0);
    int64_t bi = 0;
    if (best != best) return 0;
    for (int64_t j = 1; j < n; ++j) {
        const auto k = key(j);
        if (k != k) return j;
        if (Min ? k < best : k > best) {
            best = k;
            bi = j;
        }
    }
    return bi;
}

}  // namespace fxl::math::sum

#pragma once
// Double-double arithmetic's exact building blocks, shared by the function families of
// runtime/math/: a value hi + lo with |lo| <= ulp(hi)/2. Each is an error-free transformation
// (the pair is the exact result), so it gives the same bits on every device.
#include "runtime/math/bits.hpp"
#include "runtime/math/hostdev.hpp"

namespace fxl::math::dd {

struct DD
{
    double hi, lo;
};

// a + b exactly (Knuth's TwoSum: no condition on a and b)
FXL_HD inline DD twoSum(double a, double b)
{
    const double s = a + b;
    const double bb = s - a;
    return {s, (a - (s - bb)) + (b - bb)};
}
// a + b exactly when |a| >= |b| or a == 0 (Dekker's FastTwoSum)
FXL_HD inline DD fastTwoSum(double a, double b)
{
    const double s = a + b;
    return {s, b - (s - a)};
}
// a * b exactly (barring underflow), with one fma
FXL_HD inline DD twoProd(double a, double b)
{
    const double p = a * b;
    return {p, math::fma(a, b, -p)};
}

}  // namespace fxl::math::dd

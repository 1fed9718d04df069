#pragma once
// fxlens' own transcendental functions, for every kernel on every device: float versions
// correctly rounded to nearest for every input (so their bits are unique), double versions
// faithful (error below 1 ulp) with one IEEE-only algorithm; every NaN result is the canonical
// NaN. Checked against MPFR: tests/runtime/math (a slice on every test run) and
// tests/bench/bench_math_exhaustive (all 2^32 float inputs); docs/numerics.md section 6.
#include "runtime/math/fn_erf.hpp"
#include "runtime/math/fn_exp.hpp"
#include "runtime/math/fn_invtrig.hpp"
#include "runtime/math/fn_log.hpp"
#include "runtime/math/fn_pow.hpp"
#include "runtime/math/fn_trig.hpp"

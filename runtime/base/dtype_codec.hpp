// Element access as double or float for every dtype the runtime holds: the generic (slow but
// exact) paths of kernels and the executor, the comparison of results, generated inputs.
// Floats narrow rounding once (bf16 / f16 by runtime/math/storage.hpp's rule) and store every
// NaN as the canonical NaN (runtime/math/bits.hpp); integers truncate toward zero, saturating;
// bool is v != 0.
#pragma once

#include <cstdint>

#include "core/ir/dtype.hpp"

namespace fxl {

double loadAsDouble(const void* p, DType t);
void storeFromDouble(void* p, DType t, double v);
// float widening: f32 value of an element of a float tensor (bf16/f16 widened exactly)
float loadAsFloat(const void* p, DType t);
void storeFromFloat(void* p, DType t, float v);

// Replaces every NaN among the n elements at p (a floating dtype; other dtypes are left alone)
// by the canonical NaN of its dtype; returns how many elements changed. The executor applies it
// to the inputs and constants it reads from files, so that every NaN in a run is canonical.
int64_t canonicalizeNans(void* p, DType t, int64_t n);
// True when one of the n elements at p is a NaN other than the canonical one.
bool hasOtherNans(const void* p, DType t, int64_t n);

}  // namespace fxl

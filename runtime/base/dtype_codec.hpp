// Element access as double or float for every dtype the runtime holds: the generic (slow but
// exact) paths of kernels and the executor, the comparison of results, generated inputs.
// Floats narrow rounding once (bf16 / f16 by runtime/math/storage.hpp's rule); integers
// truncate toward zero, saturating; bool is v != 0.
#pragma once

#include <cstdint>

#include "core/ir/dtype.hpp"

namespace fxl {

double loadAsDouble(const void* p, DType t);
void storeFromDouble(void* p, DType t, double v);
// float widening: f32 value of an element of a float tensor (bf16/f16 widened exactly)
float loadAsFloat(const void* p, DType t);
void storeFromFloat(void* p, DType t, float v);

}  // namespace fxl

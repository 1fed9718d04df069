// One indexed gather as a backend receives it (PyTorch's AdvancedIndex): over an iteration
// shape, out[p] = base[baseOffset(p) + sum_k index_k(p) * stride_k], element bytes copied. An
// index outside its dim (after wrapping negatives where allowed) stops the gather: the backend
// reports the first one it met (`failed`, which index operand, the value) and the caller
// gives the CPU kernel's error text. Operands as element pointers and per-dim strides (in
// elements) of the iteration shape (Backend::gather).
#pragma once

#include <cstdint>
#include <vector>

#include "core/ir/dtype.hpp"

namespace fxl {

struct GatherOperand
{
    const void* data = nullptr;  // element [0, ...]
    std::vector<int64_t> strides;  // per iteration dim
    DType dtype = DType::Undefined;
};

struct GatherIndex
{
    GatherOperand op;  // an integer tensor over the iteration shape
    int64_t size = 0, stride = 0;  // the indexed dim of the base
};

struct GatherLoop
{
    std::vector<int64_t> shape;
    GatherOperand base, out;  // the same dtype; out written
    std::vector<GatherIndex> idx;
    bool wrapNegative = false;
    // set by the backend when an index was out of range
    mutable bool failed = false;
    mutable int failedIndex = 0;
    mutable int64_t failedValue = 0;
};

}  // namespace fxl

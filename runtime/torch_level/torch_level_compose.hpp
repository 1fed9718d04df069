// The Python-level operations a lowering composes from aten ops, with the overloads PyTorch's
// Python bindings pick: binary operators on tensors and Python numbers (and on numbers alone,
// as SymInt arithmetic), their in-place forms, matmul / linear, getitem on a tensor, to(dtype).
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/torch_level/torch_level_call.hpp"

namespace fxl::torch_level {

enum class BinOp
{
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Pow,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge
};

// The aten name of the op ("add", "floor_divide", "remainder", ...).
const char* binName(BinOp op);
bool hasAlpha(BinOp op);  // add and sub take alpha

// a OP b for tensors and Python scalars, with the overload PyTorch's Python binding picks.
Value binary(const Call& c, BinOp op, const Value& a, const Value& b, const Value& alpha);
// self OP= other, in place (returns self): X_.Tensor where a kernel exists; with a Python
// number the out-of-place X.Scalar then copy_ into self (the wrapped-number computation).
Value inplace(const Call& c, BinOp op, const Value& self, const Value& other, const Value& alpha);

Tensor view(const Call& c, const Tensor& t, const std::vector<int64_t>& sizes);
Tensor reshape(const Call& c, const Tensor& t, const std::vector<int64_t>& sizes);
Tensor unsqueeze(const Call& c, const Tensor& t, int64_t d);
// at::matmul's cases (mm, folded batch, broadcast bmm); at::linear's addmm paths.
Tensor matmul(const Call& c, const Tensor& a, const Tensor& b);
Value linear(const Call& c, const Tensor& input, const Tensor& weight, const Value& bias);

// getitem on a tensor: ints select, slices slice, None unsqueezes, ... skips dims; one tensor
// index (alone) runs index.Tensor.
Value tensorIndex(const Call& c, const Tensor& self, const Arg& idx);

// to(): dtype from a dtype, a tensor, or nothing (Undefined: self's dtype; device moves are
// no-ops here).
Value toDtype(const Call& c, const Tensor& self, DType dt, bool copy);

}  // namespace fxl::torch_level

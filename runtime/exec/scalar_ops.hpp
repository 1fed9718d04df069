// Python operators on numbers: what Dynamo and export graphs compute on symbolic sizes and
// item() results (operator.neg on a SymInt, `u0 // 3`, `s0 * 2 > 8`, math.ceil, sym_max).
// Python's semantics: ints stay ints (floor division and modulo round toward -inf), true
// division and float operands give floats, comparisons give bools.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "runtime/base/value.hpp"

namespace fxl {

// The result of operator `target` ("operator.add", "_operator.neg", "math.floor",
// "torch.sym_max", ...) on `args` when every argument is a number (Int, Float or Bool) and the
// operator is one of those above; nullopt otherwise (a tensor operand: the caller lowers it).
// Throws KernelError for a division or modulo by zero.
std::optional<Value> applyScalarOperator(std::string_view target, const std::vector<Value>& args);

// Whether `target` names a Python-level scalar operator (operator.*, _operator.*, builtins.*,
// math.*, torch.sym_*): the executor tries applyScalarOperator before anything else.
bool isScalarOperatorTarget(std::string_view target);

}  // namespace fxl

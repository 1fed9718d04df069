// Printing symbolic expressions as sympy's StrPrinter does, with PyTorch's FloorDiv printer
// ("((s0//2))"), so that annotations written by fxlens read like PyTorch's own (internal to
// core/ir/symexpr*.cpp).
#pragma once

#include <string>

#include "core/ir/symexpr.hpp"

namespace fxl::symbolic {

// Appends the text of `p` to `out`.
void print(const SymNodePtr& p, std::string& out);

}  // namespace fxl::symbolic

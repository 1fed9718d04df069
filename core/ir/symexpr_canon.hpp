// The canonicalising builders of symbolic expressions (internal to core/ir/symexpr*.cpp):
// every tree a SymExpr holds is built here, so equal expressions have identical trees. They
// fold constants, flatten sums and products, merge like terms and sort operands in sympy's
// order, so that printing gives what sympy prints ("2*s0 + 1", "Max(1, s0)").
#pragma once

#include <string>
#include <vector>

#include "core/ir/symexpr.hpp"

namespace fxl::symbolic {

SymNodePtr buildAdd(std::vector<SymNodePtr> terms);
SymNodePtr buildMul(std::vector<SymNodePtr> factors);
SymNodePtr buildPow(const SymNodePtr& base, const SymNodePtr& exp);
SymNodePtr buildNeg(const SymNodePtr& a);  // -1 * a
SymNodePtr buildFloorDiv(const SymNodePtr& a, const SymNodePtr& b);
SymNodePtr buildCeilDiv(const SymNodePtr& a, const SymNodePtr& b);
SymNodePtr buildMod(const SymNodePtr& a, const SymNodePtr& b);
SymNodePtr buildMinMax(SymOp op, std::vector<SymNodePtr> args);  // op: Max or Min
SymNodePtr buildBool(SymOp op, std::vector<SymNodePtr> args);  // op: And or Or
// "a/b": true division only appears inside floor()/ceiling() in practice; kept as a call
// named "/" printed infix.
SymNodePtr buildTrueDiv(const SymNodePtr& a, const SymNodePtr& b);
// Function application by name, as printed by sympy / PyTorch ("FloorDiv", "ceiling", "Max").
SymNodePtr buildCall(const std::string& name, std::vector<SymNodePtr> args);
// Rebuilds any tree (e.g. one assembled by hand) through the builders. Throws
// std::length_error for trees nested too deeply.
SymNodePtr canon(const SymNodePtr& p, int depth = 0);

}  // namespace fxl::symbolic

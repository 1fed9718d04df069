// Size arithmetic of the meta functions: symbolic integers with concrete fast paths, whose
// symbolic results carry a hint, and the equality PyTorch guards sizes with.
#pragma once

#include <cstdint>
#include <vector>

#include "core/ir/symexpr.hpp"

namespace fxl::meta {

using Sizes = std::vector<SymInt>;

SymInt add(const SymInt& a, const SymInt& b);
SymInt sub(const SymInt& a, const SymInt& b);
SymInt mul(const SymInt& a, const SymInt& b);
SymInt floorDiv(const SymInt& a, const SymInt& b);
SymInt ceilDiv(const SymInt& a, const SymInt& b);
// a / b where b is known to divide a: cancels common factors ("16*u0*64 / 64" -> "16*u0").
SymInt exactDiv(const SymInt& a, const SymInt& b);
SymInt minS(const SymInt& a, const SymInt& b);
SymInt maxS(const SymInt& a, const SymInt& b);
// Turns an expression that folds to a constant into a concrete SymInt.
SymInt normalize(SymInt s);
// Value or hint; throws MetaError naming `what` when a symbolic value has no hint.
int64_t hintOf(const SymInt& s, const char* what = "size");
bool hasUnbacked(const SymInt& s);  // mentions an unbacked symbol (u0, u1, ...)
// Equality the way PyTorch guards it: structural, else by hints (backed symbols guard on
// their hint). Unbacked expressions compare equal only structurally or when both hints
// agree (the tracer asserts equality there).
bool guardEq(const SymInt& a, const SymInt& b);
bool guardEq(const SymInt& a, int64_t b);
// size == 1, size-oblivious for unbacked sizes (an unbacked size is never 1).
bool isOne(const SymInt& s);
// Comparison by hint (a < b).
bool hintLt(const SymInt& a, const SymInt& b);
SymInt product(const Sizes& s, size_t from = 0, size_t to = SIZE_MAX);

}  // namespace fxl::meta

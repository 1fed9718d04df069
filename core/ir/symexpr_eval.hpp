// Evaluating symbolic expressions with Python integer semantics (internal to
// core/ir/symexpr*.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "core/ir/symexpr.hpp"

namespace fxl::symbolic {

using Env = std::map<std::string, int64_t>;

// The value of `p` with the symbols of `env`; nullopt when a symbol is missing, on overflow,
// division by zero, or a float anywhere.
std::optional<int64_t> eval(const SymNodePtr& p, const Env& env);

// Adds the names of the symbols of `p` to `out`.
void collectSymbols(const SymNodePtr& p, std::set<std::string>& out);

}  // namespace fxl::symbolic

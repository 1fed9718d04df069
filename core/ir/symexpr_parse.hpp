// Parsing sympy-printed symbolic expressions (internal to core/ir/symexpr*.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/ir/symexpr.hpp"

namespace fxl::symbolic {

// The canonical tree of `text`. Throws InputError (file "<expr>", column = 1-based offset in
// text) when malformed.
SymNodePtr parseExpression(std::string_view text);

// The value of a plain integer literal ("8", "-3"), nullopt for anything else: the common
// case, parsed without building a tree.
std::optional<int64_t> parsePlainInt(std::string_view t);

}  // namespace fxl::symbolic

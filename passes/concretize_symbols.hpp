// concretize_symbols: replaces symbolic sizes (s0, u0, ...) by their values everywhere: value
// meta of every node (tensor sizes, strides, offsets; symbolic scalars), the arguments that
// read a symbolic scalar node (which becomes a literal), and nested graphs. A runtime assert
// that is false for those values is an error; the scalar plumbing left unused (sym_size,
// integer arithmetic, comparisons, asserts) is erased. The values come from the hints the
// graph carries (placeholder sizes, scalar meta) and the `hints` option (u0=4), which wins.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "core/ir/symbol_hints.hpp"  // symbolHints: the values a graph carries
#include "passes/pass.hpp"

namespace fxl {

std::unique_ptr<Pass> makeConcretizeSymbolsPass();

}  // namespace fxl

// Values of a graph's size symbols (s0, u0, ...): the hints the graph carries, and binding
// values the file does not give (`fxlens run --symbols s0=8,u0=3`), so that a dynamic graph
// whose symbols have no hint can run and be measured.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "core/ir/graph.hpp"

namespace fxl {

using SymbolValues = std::map<std::string, int64_t>;

// The hints of the graph's bare symbols (a size printed "s0" with hint 8 gives s0=8), nested
// graphs included. A symbol seen with two hints keeps the first.
SymbolValues symbolHints(const Graph& g);

// Every symbol the graph's meta mentions (sizes, strides, offsets, scalars), nested graphs
// included.
std::set<std::string> graphSymbols(const Graph& g);

// Sets the hint of every symbolic size, stride, offset and SymInt value of `g` and its nested
// graphs whose expression `values` (over the graph's own hints, `values` winning) evaluates:
// "s0 + 1" gets 9 from s0=8. Returns how many hints were set or changed.
size_t bindSymbols(Graph& g, const SymbolValues& values);

// The value a size symbol of a generated input takes when neither the graph nor the user gives
// one (fxlens run / check with generated inputs), as Inductor gives unbacked sizes a fallback
// hint when it autotunes (its unbacked_symint_fallback is 8192; a small value keeps a CPU run
// quick). Said in the output of the run that takes it.
constexpr int64_t kSymbolFallback = 8;

// The symbols of placeholder sizes that have no value (no hint, and not evaluable from the
// graph's hints), for the placeholders `generated` accepts (those the run will generate).
std::set<std::string> unhintedInputSymbols(const Graph& g, const std::function<bool(const Node&)>& generated);

// "s0=8,u0=3" (',' or ';' between bindings, spaces allowed). On a malformed text returns false
// and sets `error` to what was expected and `column` (1-based) to where.
bool parseSymbolValues(std::string_view text, SymbolValues& out, std::string& error, size_t& column);

}  // namespace fxl

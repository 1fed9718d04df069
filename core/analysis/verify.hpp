// Graph verifier: structural rules (definition before use, unique names, one output at the
// end), arguments against operator schemas, nested graphs, and meta consistency. Reports
// every problem it finds rather than stopping at the first, so a pass author sees the
// whole damage a rewrite did.
#pragma once

#include <string>
#include <vector>

#include "core/ir/diagnostics.hpp"
#include "core/ir/graph.hpp"
#include "core/ops/op_registry.hpp"

namespace fxl {

struct Problem
{
    Severity severity = Severity::Error;
    std::string graph;  // nested graph path: "" = the graph given, "subgraph_0", "a/b" deeper
    std::string node;  // node name; "" for a problem of the whole graph
    std::string message;

    // "error: subgraph_0: 'add_1': uses 'mm' before it is defined"
    std::string format() const;
};

// Checks `g` and its nested graphs. Errors break an invariant the rest of fxlens relies on;
// warnings are suspicious but legal (a placeholder after other nodes); notes are
// informational (an operator not in the registry, whose arguments cannot be checked).
std::vector<Problem> verifyGraph(const Graph& g, const OpRegistry& reg);
inline std::vector<Problem> verifyGraph(const Graph& g) { return verifyGraph(g, OpRegistry::instance()); }

// True when any problem is an Error.
bool hasErrors(const std::vector<Problem>& problems);

// call_function targets (as the nodes carry them) that the registry does not know, and
// operators passed as values to them (auto_functionalized's op), distinct and sorted,
// including those of nested graphs.
std::vector<std::string> unknownOperators(const Graph& g, const OpRegistry& reg);
inline std::vector<std::string> unknownOperators(const Graph& g) { return unknownOperators(g, OpRegistry::instance()); }

}  // namespace fxl

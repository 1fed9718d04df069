// How diffGraphs pairs the nodes of two graphs and classifies each pair (internal to
// core/analysis/graph_diff*.cpp): matches by provenance, then by name, then by a structural
// hash of the unmatched nodes (so renamed copies pair up), then compares every pair field by
// field and finds the rewired edges.
#pragma once

#include "core/analysis/graph_diff.hpp"

namespace fxl {

// Fills `d` with the diff of `b` against `a`: matches, node diffs in output order, counts,
// rewired edges and the diffs of nested graphs.
void matchGraphs(const Graph& a, const Graph& b, const DiffOptions& opts, GraphDiff& d);

}  // namespace fxl

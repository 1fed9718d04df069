// The stack-summary comment FX prints above the nodes it describes ("# File: x.py:8 in
// forward, code: ...") and the node meta it carries: read by the FX text reader, written by
// the FX text writer, so that the two stay each other's inverse.
#pragma once

#include <string>
#include <string_view>

#include "core/ir/graph.hpp"

namespace fxl {

// Reads one stack-summary comment line ("# File: x.py:8 in forward, code: ...", "# No stacktrace
// found for following nodes", "# Annotation: {...} recompute: PREFER_RECOMPUTE File: ...",
// "# ac_graph_id: 6 - MUST_SAVE File: ...", "# autograd_backward: True # ...") into the source,
// recompute, acGraphId, custom and autogradBackward fields of `m`; fxlens' own tag
// ("# fxlens: {'module': 'layers.0', 'phase': 'backward', 'provenance': 'mm', 'chunk': {...}} #
// ...", first) into modulePath, phase, provenance and chunk. Returns false (m partly written)
// when the comment is not such a summary.
bool parseSummaryComment(std::string_view comment, NodeMeta& m);

// The summary comment FX prints for the fields parseSummaryComment reads ("# No stacktrace found for following nodes"
// when all are empty), newest format: "# Annotation: {...} # ac_graph_id: 6 - MUST_SAVE File: ...", after
// fxlens' own tag when the node has a module path, a phase, a provenance other than `nodeName`, or
// chunk meta.
std::string formatSummaryComment(const NodeMeta& m, std::string_view nodeName = {});

}  // namespace fxl

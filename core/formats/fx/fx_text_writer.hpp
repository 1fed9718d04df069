// Writer of FX graph text in print_readable() form, and the Python spellings of values that
// other writers of FX text share.
#pragma once

#include <string>

#include "core/ir/graph.hpp"

namespace fxl {

struct PrintOptions
{
    bool annotations = true;  // "f32[8, 4][4, 1]cpu" annotations (verbose print_readable)
    bool comments = true;  // "# File:", "# Annotation:", recompute / ac_graph_id comment lines
    bool deletions = true;  // ";  a = b = None" suffixes
};

// print_readable() form: "class X(torch.nn.Module):" + forward + nested classes.
// parseFxText(printReadable(g)) is structurally equal to g.
std::string printReadable(const Graph& g, const PrintOptions& opts = {});

// --- pieces shared with other writers of FX text

// Text of a call_function target as FX prints it: op overloads under torch.ops ("torch.ops.aten.mm.default"),
// Python paths as they are, builtin functions by their bare name ("getattr").
std::string calleeText(const std::string& target);
// Python source text of an argument value as FX prints it (node refs by name from `g`).
std::string formatArgPython(const Arg& a, const Graph& g);

}  // namespace fxl

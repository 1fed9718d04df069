// Reader of FX graph text: print_readable() in all its versions and gm.code.
#pragma once

#include <string>
#include <string_view>

#include "core/ir/diagnostics.hpp"
#include "core/ir/graph.hpp"

namespace fxl {

// Parses print_readable() output (any PyTorch 2.x version, quoted or unquoted annotations,
// flat / expanded / pytree / boxed signatures, nested classes for subgraphs, comment lines)
// or gm.code (no annotations, possibly with leading blank lines and "def forward" at
// column 0). Also accepts "ExportedProgram:" text (the module part is parsed, the
// signature section is skipped with a note). `file` and `firstLine` are used for error
// locations (a TORCH_TRACE payload passes its file and the line of its first payload line,
// and `columnOffset` 1 for the tab). Throws InputError on malformed text; lossy or
// unusual input adds to `diags` when given.
Graph parseFxText(std::string_view text, const std::string& file, int firstLine = 1, DiagnosticList* diags = nullptr,
                  int columnOffset = 0);

}  // namespace fxl

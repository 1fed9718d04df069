// print(gm.graph): the FX IR listing ("graph():" then "%x : [num_users=1] = placeholder[target=x]"
// lines), read into a Graph.
//
// The listing is lossy: strings print without quotes ('0' and 0 look the same), devices print
// as "cpu", dict keys print unquoted, and it carries no node meta. Values are typed from the
// operator schema where one exists; every loss is reported in `diags` (one line per kind of
// loss, with a count and the first place it happened), never hidden.
#pragma once

#include <string>
#include <string_view>

#include "core/ir/diagnostics.hpp"
#include "core/ir/graph.hpp"

namespace fxl {

// Parses the listing of one graph (PyTorch 1.x "[#users=N]" and 2.x "[num_users=N]" forms,
// optional type prefixes such as 'Tensor "f32[8][1]cuda:0"', placeholder "(default=...)").
// Throws InputError (1-based line and column) for text that is not a listing.
Graph parseGraphListing(std::string_view text, const std::string& file, DiagnosticList& diags);

// True when the text starts like print(gm.graph) output: "graph(...):" or a "%name : ..." line.
bool looksLikeGraphListing(std::string_view firstBytes);

}  // namespace fxl

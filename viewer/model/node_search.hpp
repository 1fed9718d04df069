// Finding nodes: the search box's query language, the walks the inspector offers (a node's
// producers and consumers, its upstream and downstream cones), and the line of a node's
// definition in the text the graph was read from. Plain C++ over core (no Qt): the widgets and
// the tests use the same code.
//
// Rules:
//  S1 A query is whitespace-separated terms; a node matches when every term matches (AND). A
//     query without terms matches every node. Double quotes keep spaces in a value
//     (name:"a b", "a b"); a term that starts with a quote is bare text.
//  S2 A term is field:value (field names are lower case) or bare text:
//       name:V     the node's name is V; '*' in V matches any run of characters (name:mm_*)
//       op:V       the target's op name ("mm" for aten.mm.default, "getitem" for
//                  operator.getitem, the method of a call_method), "namespace.op"
//                  (aten.mm) or the full target (aten.mm.default), exactly
//       target:V   the target contains V (case-insensitive)
//       module:V   the module path (core/analysis/phases.hpp nodeModulePath) is V or starts with
//                  V then a dot: module:blocks.0 takes blocks.0 and blocks.0.attn, not blocks.01
//       phase:V    GroupTree::phaseOf as phaseClassName names it (input, forward, loss,
//                  backward, recomputed, output)
//       tag:V      the recompute tag (core/ir/graph.hpp recomputeName, any case: must_save,
//                  prefer_save, must_recompute, prefer_recompute); tag:recompute is any tag
//       meta:K     NodeMeta::custom holds key K (a dotted K also walks nested objects)
//       meta:K=V   ... and its value prints as V (a string without its quotes, else JSON;
//                  a boolean also as True / False)
//       kind:V     the node op (nodeOpName: placeholder, call_function, get_attr, output, ...)
//     Bare text: the name, the target or the module path contains it (case-insensitive).
//     A colon followed by another one ("aten::mm") does not start a field.
//  S3 An unknown field, an empty value, a phase / tag / kind value outside its list or an
//     unterminated quote sets SearchQuery::error (naming the field and the accepted ones);
//     such a query matches nothing.
//  W1 producersOf: the distinct nodes the node's args and then kwargs refer to, in argument
//     order. consumersOf: its users, in graph order. So p is a producer of c exactly when c is
//     a consumer of p.
//  W2 upstreamCone / downstreamCone: every node reached by following producers / consumers
//     again and again, the node itself excluded, in graph order. Iterative, O(nodes + edges).
//  L1 findNodeLine: the 1-based line where the node is defined in the text PyTorch printed, the
//     first of:
//       a listing line "%name : ..." (print(gm.graph), any type prefix after the colon);
//       a code line whose first statement assigns or declares it: "name = ...",
//         "name: "f32[2]" = ...", "name: "f32[2]"" (pytree inputs), or lists it in a tuple
//         target "a, name, = ..."; statements after a ';' count only as declarations
//         ("; name: "i64[4]"", never the "; name = None" that frees a value);
//       a parameter of a "def" signature, on whichever line of a signature spread over
//         several lines it stands (annotation strings and comments are skipped).
//     The name matches as a whole word only (mm is not mm_1); 0 when it is nowhere defined.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/graph.hpp"
#include "viewer/model/view_graph.hpp"

namespace fxl::viewer {

enum class SearchField : uint8_t
{
    Text,  // bare text
    Name,
    Op,
    Target,
    Module,
    Phase,
    Tag,
    Meta,
    Kind
};
const char* searchFieldName(SearchField f);  // "text", "name", "op", ...

struct SearchTerm
{
    SearchField field = SearchField::Text;
    std::string value;  // quotes removed; for meta: the key
    std::string metaValue;  // meta:key=value: the value
    bool hasMetaValue = false;
};

struct SearchQuery
{
    std::vector<SearchTerm> terms;
    std::string error;  // S3: "" when the query is good
    bool ok() const { return error.empty(); }
};

// S1-S3.
SearchQuery parseSearchQuery(const std::string& text);

// Whether one node matches every term of a good query.
bool matchesQuery(const GroupTree& tree, NodeId id, const SearchQuery& q);

// The matching nodes in graph order, at most `limit` (the first ones); none for a bad query.
std::vector<NodeId> searchNodes(const GroupTree& tree, const SearchQuery& q, size_t limit = SIZE_MAX);

// The op name of a target (S2 op:): "mm" for call_function aten.mm.default, "getitem" for
// operator.getitem, the method for call_method; "" for placeholders, get_attr, output and modules.
std::string opNameOf(const Node& n);

// W1.
std::vector<NodeId> producersOf(const Graph& g, NodeId id);
std::vector<NodeId> consumersOf(const Graph& g, NodeId id);

// W2.
std::vector<NodeId> upstreamCone(const Graph& g, NodeId id);
std::vector<NodeId> downstreamCone(const Graph& g, NodeId id);

// L1.
int findNodeLine(const std::string& text, const std::string& nodeName);

}  // namespace fxl::viewer

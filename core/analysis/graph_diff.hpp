// Diff of two graphs (typically the same graph before and after a pass): which nodes were
// added, removed, changed (and in which fields) or left alone, and which edges were rewired.
//
// Matching, in this order (each stage only pairs nodes still unmatched):
//   1. provenance: a node of b whose meta.provenance names a node of a is that node's
//      successor. When several nodes of b claim the same node of a, the one that carries the
//      same name wins if there is one (a pass that copies a node and keeps the original), else
//      the first in b's order; the other claimants are "added" (copies).
//   2. name: same name, same node kind and same target.
//   3. structure: a 64-bit hash of (node kind, target, args and kwargs with every node
//      reference replaced by its match, or by the referenced node's own hash when it has none,
//      val meta; placeholders hash their position among the placeholders instead of the
//      target), computed in topological order, so renamed-but-identical nodes and whole
//      renamed chains pair up. Equal hashes pair in order of appearance.
//   4. name only: same name and node kind, different target (shows up as "changed: target");
//      when it pairs anything, stage 3 runs once more so that the users of those nodes pair too.
// Everything is linear in the number of nodes (hash maps), so a 100k-node graph diffs in
// well under a second.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/graph.hpp"

namespace fxl {

enum class DiffClass : uint8_t
{
    Unchanged,
    Changed,
    Added,
    Removed
};
std::string_view diffClassName(DiffClass c);  // "unchanged", "changed", "added", "removed"

enum class MatchKind : uint8_t
{
    None,
    Provenance,
    Name,
    Structure,
    NameOnly
};
std::string_view matchKindName(MatchKind m);  // "", "provenance", "name", "structure", "name_only"

// The fields compared for a matched pair, in the order they are listed. Node references are
// compared through the matching: a reference that now points at a different producer is an
// "inputs" change (and a RewiredEdge); "args" / "kwargs" mean the rest of the argument tree
// (constants, list lengths, keys) differs.
//   "op" (node kind), "target", "args", "kwargs", "inputs", "val", "device", "val_known",
//   "module_path", "source", "recompute", "ac_graph_id", "custom", "phase",
//   "autograd_backward", "desc", "chunk", "default" (placeholder default), "subgraph" (a
//   get_attr whose nested graph differs).
// "val" is a difference of the value meta other than its devices, named field by field when
// the printed annotations are equal (a storage offset, strides); "device" is a difference of
// devices alone (rank logs: cuda:0 against cuda:1); "val_known" is a val known on one side only
// ("?" on the other: shape propagation filled it in), which is not a change unless
// DiffOptions::metaGainedIsChange.
// meta.provenance is never compared (a pass sets it on every copy by design), and a name
// difference alone is a rename, not a change (NodeDiff::renamed, DiffCounts::renamed).
struct DiffOptions
{
    std::set<std::string> ignoreFields;  // field names above to leave out of the comparison
    bool useProvenance = true;
    bool useStructure = true;
    bool recurseSubgraphs = true;  // diff nested graphs present on both sides by attribute
    // A val present on one side only ("val_known") makes a node changed; otherwise it is
    // counted in DiffCounts::metaGained and the node stays unchanged.
    bool metaGainedIsChange = false;
};

struct NodeDiff
{
    DiffClass cls = DiffClass::Unchanged;
    MatchKind match = MatchKind::None;
    NodeId a = kNoNode;  // kNoNode for added nodes
    NodeId b = kNoNode;  // kNoNode for removed nodes
    std::string aName, bName;  // empty on the missing side
    bool renamed = false;  // matched under a different name
    std::vector<std::string> fields;  // changed fields (see DiffOptions), in the order above
    std::vector<std::string> details;  // one human-readable line per field ("target aten.gelu.default ->
                                       // aten.relu.default"); for added copies "copy of <a node>"
    const std::string& name() const { return bName.empty() ? aName : bName; }
};

// An input of a matched consumer that now comes from a different producer.
struct RewiredEdge
{
    std::string consumer;  // b's name of the consumer (a's name is in its NodeDiff)
    std::string where;  // "arg 1", "arg 0[2]", "kwarg other"
    std::string fromProducer;  // a's producer (a name in a)
    std::string toProducer;  // b's producer (a name in b)
};

struct DiffCounts
{
    size_t added = 0, removed = 0, changed = 0, unchanged = 0;
    size_t renamed = 0;  // matched pairs with different names (changed or not)
    size_t rewired = 0;  // rewired edges
    size_t metaGained = 0;  // unchanged pairs whose val is known on one side only (not changes by default)
    size_t byProvenance = 0, byName = 0, byStructure = 0, byNameOnly = 0;
    DiffCounts& operator+=(const DiffCounts& o);
    bool operator==(const DiffCounts& o) const = default;
};

struct GraphDiff
{
    // Merged order: b's order, with each removed node placed just before the first node of b
    // whose match comes after it in a.
    std::vector<NodeDiff> nodes;
    std::vector<RewiredEdge> rewired;
    DiffCounts counts;
    // matchA[id of a] = id of b (kNoNode: removed); matchB the other way. Indexed by id.
    std::vector<NodeId> matchA, matchB;
    // Nested graphs by attribute name: diffed when both sides have one.
    std::map<std::string, std::shared_ptr<GraphDiff>> subgraphs;
    std::vector<std::string> addedSubgraphs, removedSubgraphs;

    bool identical() const;  // no added/removed/changed node here or in nested graphs
    DiffCounts totalCounts() const;  // counts including nested graphs
    NodeId matchOfA(NodeId a) const;
    NodeId matchOfB(NodeId b) const;
};

GraphDiff diffGraphs(const Graph& a, const Graph& b, const DiffOptions& opts = {});

struct DiffTextOptions
{
    std::string aLabel = "a", bLabel = "b";  // "--- a" / "+++ b"
    int context = 3;  // unchanged lines shown around each change; < 0: all
    bool annotations = true;  // "f32[8, 4]" annotations in node lines
};

// Unified text form:
//   --- a
//   +++ b
//   # nodes: 2 added, 1 removed, 3 changed, 120 unchanged (1 renamed); 2 rewired edges
//   @@ a 5 b 5 @@                       (1-based positions of the hunk's first line)
//     mm: "f32[2, 8]" = torch.ops.aten.mm.default(x, w)
//   - gelu = torch.ops.aten.gelu.default(mm)
//   + relu = torch.ops.aten.relu.default(mm)
//   ~ mm_1 = torch.ops.aten.mm.default(relu, w2)  # inputs: arg 0: gelu -> relu
// ' ' unchanged (a rename adds "# renamed from x"), '-' removed, '+' added, '~' changed (b's
// line, then "# " and the details). Nested graph diffs follow as "=== subgraph NAME ===".
std::string diffToText(const GraphDiff& d, const Graph& a, const Graph& b, const DiffTextOptions& opts = {});

// {"counts": {...}, "nodes": [{"class", "a", "b", "match", "renamed", "fields", "details"}],
//  "rewired": [{"consumer", "where", "from", "to"}], "subgraphs": {attr: {...}},
//  "added_subgraphs": [...], "removed_subgraphs": [...]}. Unchanged nodes are listed only
// when includeUnchanged (they are always counted).
nlohmann::json diffToJson(const GraphDiff& d, bool includeUnchanged = false);

// One print_readable-like line for a node ("mm: \"f32[2, 8]\" = torch.ops.aten.mm.default(x, w)",
// "return (a, b)", "x: \"f32[2]\"" for a placeholder, "sub = self.sub" for get_attr).
std::string formatNodeLine(const Graph& g, const Node& n, bool annotations = true);

}  // namespace fxl

// What the graph view shows of a graph: the group tree (phase first, then the module path
// hierarchy, levels with too many siblings split into ranges, sibling groups of the same
// structure recognised) and, for a set of expanded groups, the visible items and edges, with
// every edge that leaves its container, spans more than a few layers, or goes from the forward
// to the backward cut into stubs that name the other end. Plain C++ (no Qt): the widgets, the
// tests and `fxlens render` use the same code, so they show the same thing.
//
// Rules:
//  G1 Top level (the root): the groups "inputs" (placeholders and get_attr), "forward", "loss"
//     (the loss and its epilogue; only in a graph with a backward, or nodes whose meta says
//     loss), "backward" (recomputed nodes included), in that order, and the output node; empty
//     groups are left out. Phases are core/analysis/phases.hpp's.
//  G2 Inside a phase: the module path hierarchy ("blocks.0.attn" -> "blocks.0" -> "attn": a
//     numeric component joins the one before it). Nodes without a module path are direct
//     members of their phase group.
//  G3 A group with more than maxSiblings children (groups and direct nodes) puts them, in
//     graph order, into range groups of maxSiblings ("blocks.0 … blocks.199").
//  G4 Structure: a group's hash covers its nodes in graph order (op kind, target, value meta,
//     and each argument as a position inside the group or "outside"). Siblings (under the same
//     parent, before G3) whose labels differ only in a trailing index ("blocks.0", "blocks.1")
//     are a family; identicalSiblings counts the family members of the same structure; in a
//     family of three or more, a member whose structure is not the most common one differs.
//  V1 Visible items: a node is shown when every group above it is expanded, else the highest
//     collapsed group above it is shown in its place. The root is always expanded. An item
//     sits in a container: the expanded group it is a direct child of.
//  V2 An edge between two items of the same container is drawn when it spans at most maxSpan
//     layers (longest-path layers of the container's items) and does not go from a forward
//     item to a backward one. Every other edge becomes stubs: an out-stub beside the producer
//     (in the producer's container, one per producer and container, naming its far consumers)
//     and an in-stub beside the consumer (one per producer and consumer, naming the producer).
//     So no drawn edge crosses a group boundary.
//  V3 Folding (ViewOptions::foldIdentical): in a container, a collapsed group and the collapsed
//     siblings right after it of the same family and structure (none of them differing) are
//     one item, "blocks.0 … blocks.195", that stands for all of them (their nodes are shown
//     by it); opening it opens its first member. A block that differs breaks the run, so it
//     stands alone.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/ir/graph.hpp"

namespace fxl::viewer {

enum class PhaseClass : uint8_t
{
    Input,
    Forward,
    Loss,
    Backward,
    Recomputed,
    Output
};
const char* phaseClassName(PhaseClass p);  // "input", "forward", ...

enum class OpClass : uint8_t
{
    Matmul,
    Pointwise,
    View,
    Reduction,
    Collective,
    Random,
    Opaque,
    Input,
    Output
};
const char* opClassName(OpClass c);  // "matmul", "pointwise", ...

OpClass classifyOp(const Node& n);

struct GroupOptions
{
    size_t maxSiblings = 200;  // G3
};

struct GroupInfo
{
    std::string key;  // unique: "forward/blocks.0/attn", "forward/#0-199"
    std::string label;  // "blocks.0", "attn", "blocks.0 … blocks.199"
    int parent = -1;
    std::vector<int> childGroups;  // in graph order
    std::vector<NodeId> nodes;  // direct members, in graph order
    size_t totalNodes = 0;  // in the whole subtree
    size_t firstPosition = 0;  // position of its first node in g.order()
    PhaseClass phase = PhaseClass::Forward;
    bool range = false;  // made by G3
    uint64_t structure = 0;  // G4
    std::string family;  // label without its trailing index ("blocks")
    size_t familySize = 1;  // members of its family (itself included)
    size_t identicalSiblings = 1;  // members of its family with its structure (itself included)
    bool differs = false;  // G4
};

class GroupTree
{
public:
    explicit GroupTree(const Graph& g, const GroupOptions& opts = {});

    const Graph& graph() const { return *g_; }
    const std::vector<GroupInfo>& groups() const { return groups_; }  // [0] is the root
    const GroupInfo& group(int k) const { return groups_.at(static_cast<size_t>(k)); }
    int groupOf(NodeId id) const;  // the group the node is a direct member of
    int find(const std::string& key) const;  // -1 when none
    // The child group of `parent` with this label, -1 when none.
    int child(int parent, const std::string& label) const;
    PhaseClass phaseOf(NodeId id) const;
    // The groups from the root down to k (root first).
    std::vector<int> chain(int k) const;
    // Children items of a group, in graph order: (group index, kNoNode) or (-1, node id).
    std::vector<std::pair<int, NodeId>> children(int k) const;

private:
    const Graph* g_;
    std::vector<GroupInfo> groups_;
    std::vector<int> groupOfNode_;  // by NodeId
    std::vector<PhaseClass> phaseOfNode_;  // by NodeId
    std::map<std::string, int> byKey_;

    int addGroup(int parent, const std::string& label, PhaseClass phase);
    void splitRanges(int k, size_t maxSiblings);
    void computeStructure();
    void markFamilies();
};

enum class ItemKind : uint8_t
{
    Node,
    Group,
    Stub
};

struct ViewItem
{
    ItemKind kind = ItemKind::Node;
    NodeId node = kNoNode;  // Node: the node; Stub: the producer (in-stub) or the producer (out-stub)
    int group = -1;  // Group: the group; Stub: the collapsed group at the producer end, -1 for a node
    int container = 0;  // the expanded group the item sits in
    bool incoming = false;  // Stub: true = in-stub (names the producer), false = out-stub
    std::vector<NodeId> peers;  // Stub: the far consumers (out-stub) or the producers (in-stub), to jump to
    std::string title;  // "mm_3" / "blocks.0" / "from mm_3"
    std::string subtitle;  // "aten.mm  f32[32, 64]" / "145 nodes, 640 identical" / "forward -> backward"
    PhaseClass phase = PhaseClass::Forward;
    OpClass opClass = OpClass::Pointwise;  // nodes only
    size_t folded = 1;  // Group: the identical siblings it stands for (V3), itself included
};

struct ViewEdge
{
    int from = 0, to = 0;  // item indices, in the same container
};

struct ViewOptions
{
    int maxSpan = 3;  // V2
    bool foldIdentical = false;  // V3
};

struct ViewGraph
{
    std::vector<ViewItem> items;
    std::vector<ViewEdge> edges;
    std::vector<int> containers;  // expanded visible groups, root first, parents before children
    size_t nodeItems = 0, groupItems = 0, stubItems = 0;
    int itemOfNode(NodeId id) const;  // the item showing a node itself, -1 when it is inside a collapsed group
    int itemOfGroup(int group) const;  // the box showing a group (or its fold, V3); -1 when none
    std::vector<int> groupItem;  // by group index: itemOfGroup
};

// `expanded` holds group indices; the root is always expanded, and a group is shown expanded
// only when its parent is.
ViewGraph buildViewGraph(const GroupTree& tree, const std::set<int>& expanded, const ViewOptions& opts = {});

// The groups to expand so that node `id` is shown (its chain), added to `expanded`.
void expandTo(const GroupTree& tree, NodeId id, std::set<int>& expanded);

}  // namespace fxl::viewer

#include "viewer/model/view_graph.hpp"

#include <algorithm>
#include <cctype>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "core/analysis/graph_stats.hpp"
#include "core/analysis/phases.hpp"
#include "core/ops/op_registry.hpp"

namespace fxl::viewer {

const char* phaseClassName(PhaseClass p)
{
    switch (p) {
    case PhaseClass::Input: return "input";
    case PhaseClass::Forward: return "forward";
    case PhaseClass::Loss: return "loss";
    case PhaseClass::Backward: return "backward";
    case PhaseClass::Recomputed: return "recomputed";
    case PhaseClass::Output: return "output";
    }
    return "";
}

const char* opClassName(OpClass c)
{
    switch (c) {
    case OpClass::Matmul: return "matmul";
    case OpClass::Pointwise: return "pointwise";
    case OpClass::View: return "view";
    case OpClass::Reduction: return "reduction";
    case OpClass::Collective: return "collective";
    case OpClass::Random: return "random";
    case OpClass::Opaque: return "opaque";
    case OpClass::Input: return "input";
    case OpClass::Output: return "output";
    }
    return "";
}

OpClass classifyOp(const Node& n)
{
    if (n.op == NodeOp::Placeholder || n.op == NodeOp::GetAttr) return OpClass::Input;
    if (n.op == NodeOp::Output) return OpClass::Output;
    if (n.isGetitem()) return OpClass::View;
    if (n.op != NodeOp::CallFunction) return OpClass::Opaque;  // call_method / call_module
    const OpInfo* op = OpRegistry::instance().find(n.target);
    if (!op) return OpClass::Opaque;
    if (op->has(kTraitCommunication) || op->has(kTraitCollective) || op->has(kTraitWait)) return OpClass::Collective;
    if (op->has(kTraitRandom)) return OpClass::Random;
    if (op->has(kTraitMatmul)) return OpClass::Matmul;
    if (op->has(kTraitView) || op->has(kTraitViewList) || op->has(kTraitAliasNoAnnot)) return OpClass::View;
    if (op->has(kTraitReduction)) return OpClass::Reduction;
    if (op->has(kTraitHigherOrder)) return OpClass::Opaque;
    return OpClass::Pointwise;
}

namespace {

// "blocks.0.attn" -> {"blocks.0", "attn"} (G2: a numeric component joins the one before it)
std::vector<std::string> moduleLevels(const std::string& path)
{
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= path.size()) {
        size_t dot = path.find('.', start);
        if (dot == std::string::npos) dot = path.size();
        std::string part = path.substr(start, dot - start);
        const bool numeric = !part.empty() && std::all_of(part.begin(), part.end(), [](char c) {
            return std::isdigit(static_cast<unsigned char>(c)) != 0;
        });
        if (!part.empty()) {
            if (numeric && !out.empty())
                out.back() += "." + part;
            else
                out.push_back(std::move(part));
        }
        start = dot + 1;
    }
    return out;
}

// The group levels of a node: its module levels, and for a chunk copy made by a chunk pass
// (meta.chunk with a chunk_id) a level "chunk K" right below its region's root, so that each
// chunk's duplicated body is one group: blocks.0 > chunk 1 > attn > c_attn.
std::vector<std::string> groupLevels(const Node& n)
{
    std::vector<std::string> levels = moduleLevels(nodeModulePath(n));
    const nlohmann::json& c = n.meta.chunk;
    if (!c.is_object()) return levels;
    auto id = c.find("chunk_id");
    if (id == c.end() || !id->is_number_integer()) return levels;
    size_t at = 0;
    if (auto r = c.find("region"); r != c.end() && r->is_string()) {
        const std::vector<std::string> root = moduleLevels(r->get<std::string>());
        if (root.size() <= levels.size() && std::equal(root.begin(), root.end(), levels.begin())) at = root.size();
    }
    levels.insert(levels.begin() + static_cast<std::ptrdiff_t>(at), "chunk " + std::to_string(id->get<int64_t>()));
    return levels;
}

// "blocks.12" -> "blocks", "layer3" -> "layer", "attn" -> "attn"
std::string familyOf(const std::string& label)
{
    size_t end = label.size();
    while (end > 0 && std::isdigit(static_cast<unsigned char>(label[end - 1]))) --end;
    if (end == label.size()) return label;
    if (end > 0 && (label[end - 1] == '.' || label[end - 1] == '_')) --end;
    return label.substr(0, end);
}

uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h;
}

uint64_t hashText(std::string_view s)
{
    uint64_t h = 1469598103934665603ULL;
    for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    return h;
}

std::string valText(const ValueMeta& v)
{
    if (v.isTensor()) {
        std::string s = std::string(dtypeAbbr(v.tensor.dtype)) + "[";
        for (size_t k = 0; k < v.tensor.sizes.size(); ++k) s += (k ? ", " : "") + v.tensor.sizes[k].str();
        return s + "]";
    }
    if (v.kind == ValueMeta::Kind::Tuple) return "tuple(" + std::to_string(v.elems.size()) + ")";
    return "";
}

}  // namespace

GroupTree::GroupTree(const Graph& g, const GroupOptions& opts)
    : g_(&g)
{
    const auto& order = g.order();
    size_t cap = 0;
    for (NodeId id : order) cap = std::max(cap, static_cast<size_t>(id) + 1);
    groupOfNode_.assign(cap, 0);
    phaseOfNode_.assign(cap, PhaseClass::Forward);

    const PhaseInfo ph = classifyPhases(g);
    const bool training = !ph.seeds.empty() || ph.firstBackward != kNoNode;
    addGroup(-1, "", PhaseClass::Forward);  // root
    const int inputs = addGroup(0, "inputs", PhaseClass::Input);
    const int forward = addGroup(0, "forward", PhaseClass::Forward);
    const int loss = addGroup(0, "loss", PhaseClass::Loss);
    const int backward = addGroup(0, "backward", PhaseClass::Backward);

    // the child of a group by its label ("PARENT\x1fLABEL"), and the last node's group
    std::unordered_map<std::string, int> childByLabel;
    struct
    {
        int top = -1;
        std::string path;
        int group = 0;
    } last;
    for (size_t pos = 0; pos < order.size(); ++pos) {
        const NodeId id = order[pos];
        const Node& n = g.node(id);
        PhaseClass pc;
        int top;
        switch (ph.of(id)) {
        case NodePhase::Input:
            pc = PhaseClass::Input;
            top = inputs;
            break;
        case NodePhase::Output:
            pc = PhaseClass::Output;
            top = 0;
            break;
        case NodePhase::Backward:
            pc = n.name.find("_recomputed") != std::string::npos ? PhaseClass::Recomputed : PhaseClass::Backward;
            top = backward;
            break;
        default:
            // a loss only where there is a backward (or the graph says so): a forward-only graph
            // (inference, Dynamo, an AOT forward) is all forward
            pc =
                (training && ph.isEpilogue(id)) || n.meta.phase == Phase::Loss ? PhaseClass::Loss : PhaseClass::Forward;
            top = pc == PhaseClass::Loss ? loss : forward;
            break;
        }
        phaseOfNode_[static_cast<size_t>(id)] = pc;
        int at = top;
        if (top != 0 && top != inputs) {
            // most nodes sit in the group of the node before them: the same module path (and no
            // chunk) is the same group, found without walking the levels again
            std::string path = nodeModulePath(n);
            const bool chunked = n.meta.chunk.is_object();
            if (!chunked && top == last.top && path == last.path) {
                at = last.group;
            } else {
                for (const std::string& level : groupLevels(n)) {
                    std::string key = std::to_string(at);
                    key += '\x1f';
                    key += level;
                    auto [it, added] = childByLabel.try_emplace(std::move(key), -1);
                    if (added) it->second = addGroup(at, level, groups_[static_cast<size_t>(top)].phase);
                    at = it->second;
                }
                if (!chunked) last = {top, std::move(path), at};
            }
        }
        groups_[static_cast<size_t>(at)].nodes.push_back(id);
        groupOfNode_[static_cast<size_t>(id)] = at;
        for (int k = at; k >= 0; k = groups_[static_cast<size_t>(k)].parent) {
            GroupInfo& gi = groups_[static_cast<size_t>(k)];
            if (gi.totalNodes++ == 0) gi.firstPosition = pos;
        }
    }
    // empty phase groups go
    auto& rootChildren = groups_[0].childGroups;
    rootChildren.erase(std::remove_if(rootChildren.begin(), rootChildren.end(),
                                      [&](int k) { return groups_[static_cast<size_t>(k)].totalNodes == 0; }),
                       rootChildren.end());
    // children in graph order
    for (auto& gi : groups_)
        std::stable_sort(gi.childGroups.begin(), gi.childGroups.end(), [&](int a, int b) {
            return groups_[static_cast<size_t>(a)].firstPosition < groups_[static_cast<size_t>(b)].firstPosition;
        });
    computeStructure();
    markFamilies();
    const size_t before = groups_.size();
    for (size_t k = 0; k < before; ++k) splitRanges(static_cast<int>(k), std::max<size_t>(opts.maxSiblings, 2));
}

int GroupTree::addGroup(int parent, const std::string& label, PhaseClass phase)
{
    GroupInfo gi;
    gi.parent = parent;
    gi.label = label;
    gi.phase = phase;
    gi.family = familyOf(label);
    gi.key = parent <= 0 ? label : groups_[static_cast<size_t>(parent)].key + "/" + label;
    const int k = static_cast<int>(groups_.size());
    groups_.push_back(std::move(gi));
    byKey_[groups_.back().key] = k;
    if (parent >= 0) groups_[static_cast<size_t>(parent)].childGroups.push_back(k);
    return k;
}

int GroupTree::groupOf(NodeId id) const
{
    return id >= 0 && static_cast<size_t>(id) < groupOfNode_.size() ? groupOfNode_[static_cast<size_t>(id)] : 0;
}

PhaseClass GroupTree::phaseOf(NodeId id) const
{
    return id >= 0 && static_cast<size_t>(id) < phaseOfNode_.size() ? phaseOfNode_[static_cast<size_t>(id)]
                                                                    : PhaseClass::Forward;
}

int GroupTree::find(const std::string& key) const
{
    auto it = byKey_.find(key);
    return it == byKey_.end() ? -1 : it->second;
}

int GroupTree::child(int parent, const std::string& label) const
{
    for (int c : groups_.at(static_cast<size_t>(parent)).childGroups)
        if (groups_[static_cast<size_t>(c)].label == label) return c;
    return -1;
}

std::vector<int> GroupTree::chain(int k) const
{
    std::vector<int> out;
    for (; k >= 0; k = groups_[static_cast<size_t>(k)].parent) out.push_back(k);
    std::reverse(out.begin(), out.end());
    return out;
}

std::vector<std::pair<int, NodeId>> GroupTree::children(int k) const
{
    const GroupInfo& gi = group(k);
    std::vector<std::pair<size_t, std::pair<int, NodeId>>> keyed;
    for (int c : gi.childGroups) keyed.push_back({group(c).firstPosition, {c, kNoNode}});
    for (NodeId id : gi.nodes) keyed.push_back({g_->positionOf(id), {-1, id}});
    std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::pair<int, NodeId>> out;
    for (auto& e : keyed) out.push_back(e.second);
    return out;
}

void GroupTree::splitRanges(int k, size_t maxSiblings)
{
    const std::vector<std::pair<int, NodeId>> items = children(k);
    if (items.size() <= maxSiblings) return;
    std::vector<int> ranges;
    for (size_t start = 0; start < items.size(); start += maxSiblings) {
        const size_t end = std::min(items.size(), start + maxSiblings);
        auto name = [&](const std::pair<int, NodeId>& it) {
            return it.first >= 0 ? groups_[static_cast<size_t>(it.first)].label : g_->node(it.second).name;
        };
        GroupInfo r;
        r.parent = k;
        r.range = true;
        r.phase = groups_[static_cast<size_t>(k)].phase;
        r.label = name(items[start]) + " … " + name(items[end - 1]) + " (" + std::to_string(end - start) + ")";
        r.key = (k == 0 ? std::string() : groups_[static_cast<size_t>(k)].key + "/") + "#" + std::to_string(start) + "-"
            + std::to_string(end - 1);
        r.family = "#range";
        const int rk = static_cast<int>(groups_.size());
        for (size_t i = start; i < end; ++i) {
            const auto& [cg, nid] = items[i];
            if (cg >= 0) {
                groups_[static_cast<size_t>(cg)].parent = rk;
                r.childGroups.push_back(cg);
                r.totalNodes += groups_[static_cast<size_t>(cg)].totalNodes;
            } else {
                r.nodes.push_back(nid);
                groupOfNode_[static_cast<size_t>(nid)] = rk;
                r.totalNodes += 1;
            }
        }
        r.firstPosition = r.childGroups.empty()
            ? g_->positionOf(r.nodes.front())
            : std::min(groups_[static_cast<size_t>(r.childGroups.front())].firstPosition,
                       r.nodes.empty() ? SIZE_MAX : g_->positionOf(r.nodes.front()));
        groups_.push_back(std::move(r));
        byKey_[groups_.back().key] = rk;
        ranges.push_back(rk);
    }
    GroupInfo& gi = groups_[static_cast<size_t>(k)];
    gi.childGroups = ranges;
    gi.nodes.clear();
    // keys below a range keep their names: the range is a display level only
}

void GroupTree::computeStructure()
{
    // G4, children before parents: the hash of a group's subtree nodes in graph order
    std::vector<std::vector<NodeId>> members(groups_.size());
    for (NodeId id : g_->order()) {
        for (int k = groupOf(id); k > 0; k = groups_[static_cast<size_t>(k)].parent)
            members[static_cast<size_t>(k)].push_back(id);
    }
    // position of a node inside the group being hashed: localPos, valid where localOf == k
    std::vector<size_t> localPos(groupOfNode_.size(), 0);
    std::vector<size_t> localOf(groupOfNode_.size(), 0);
    // the hashes of each node's target and value text, computed once (a node is hashed in
    // each group above it)
    std::vector<std::pair<uint64_t, uint64_t>> textHashes(groupOfNode_.size());
    for (NodeId id : g_->order()) {
        const Node& n = g_->node(id);
        textHashes[static_cast<size_t>(id)] = {hashText(n.target), hashText(valText(n.val))};
    }
    for (size_t k = 1; k < groups_.size(); ++k) {
        uint64_t h = 0;
        for (size_t i = 0; i < members[k].size(); ++i) {
            const Node& n = g_->node(members[k][i]);
            localPos[static_cast<size_t>(n.id)] = i;
            localOf[static_cast<size_t>(n.id)] = k;
            h = mix(h, static_cast<uint64_t>(n.op));
            h = mix(h, textHashes[static_cast<size_t>(n.id)].first);
            h = mix(h, textHashes[static_cast<size_t>(n.id)].second);
            auto arg = [&](NodeId in) {
                const size_t at = static_cast<size_t>(in);
                h = mix(h, at < localOf.size() && localOf[at] == k ? i - localPos[at] : 0xFFFFFFFFULL);
            };
            for (const Arg& a : n.args) a.forEachNode(arg);
            for (const auto& kv : n.kwargs) {
                h = mix(h, hashText(kv.first));
                kv.second.forEachNode(arg);
            }
        }
        groups_[k].structure = mix(h, members[k].size());
    }
}

void GroupTree::markFamilies()
{
    for (auto& parent : groups_) {
        std::map<std::string, std::vector<int>> families;
        for (int c : parent.childGroups) families[groups_[static_cast<size_t>(c)].family].push_back(c);
        for (auto& [name, members] : families) {
            std::map<uint64_t, size_t> counts;
            for (int m : members) counts[groups_[static_cast<size_t>(m)].structure]++;
            uint64_t common = 0;
            size_t best = 0;
            for (auto& [h, c] : counts)
                if (c > best) {
                    best = c;
                    common = h;
                }
            for (int m : members) {
                GroupInfo& gi = groups_[static_cast<size_t>(m)];
                gi.familySize = members.size();
                gi.identicalSiblings = counts[gi.structure];
                gi.differs = members.size() >= 3 && gi.structure != common;
            }
        }
    }
}

// ------------------------------------------------------------------ the visible graph

int ViewGraph::itemOfNode(NodeId id) const
{
    for (size_t k = 0; k < items.size(); ++k)
        if (items[k].kind == ItemKind::Node && items[k].node == id) return static_cast<int>(k);
    return -1;
}

int ViewGraph::itemOfGroup(int group) const
{
    return group >= 0 && static_cast<size_t>(group) < groupItem.size() ? groupItem[static_cast<size_t>(group)] : -1;
}

void expandTo(const GroupTree& tree, NodeId id, std::set<int>& expanded)
{
    for (int k : tree.chain(tree.groupOf(id))) expanded.insert(k);
}

namespace {

std::string nodeSubtitle(const Node& n)
{
    std::string t = n.op == NodeOp::CallFunction ? n.target : std::string(nodeOpName(n.op));
    if (t.rfind("aten.", 0) == 0) {
        t = t.substr(5);
        const size_t dot = t.find('.');
        if (dot != std::string::npos && t.substr(dot + 1) == "default") t = t.substr(0, dot);
    }
    const std::string v = valText(n.val);
    return v.empty() ? t : t + "  " + v;
}

std::string groupSubtitle(const GroupInfo& g)
{
    std::string s = std::to_string(g.totalNodes) + (g.totalNodes == 1 ? " node" : " nodes");
    if (g.familySize > 1 && g.identicalSiblings > 1) s += ", " + std::to_string(g.identicalSiblings) + " identical";
    if (g.differs) s += ", differs";
    return s;
}

}  // namespace

ViewGraph buildViewGraph(const GroupTree& tree, const std::set<int>& expandedIn, const ViewOptions& opts)
{
    const Graph& g = tree.graph();
    ViewGraph v;
    // V1: a group is shown expanded when it and every group above it is in `expanded`
    std::vector<char> open(tree.groups().size(), 0);
    open[0] = 1;
    for (size_t k = 1; k < tree.groups().size(); ++k) {
        bool all = true;
        for (int c : tree.chain(static_cast<int>(k))) all = all && (c == 0 || expandedIn.count(c));
        open[k] = all ? 1 : 0;
    }
    std::vector<int> itemOfGroup(tree.groups().size(), -1);
    size_t ids = 0;
    for (NodeId id : g.order()) ids = std::max(ids, static_cast<size_t>(id) + 1);
    std::vector<int> rep(ids, -1);  // node -> item showing it (itself or a collapsed group), -1 none
    // V3: a collapsed group folds the collapsed siblings of its family and structure after it
    auto foldable = [&](int a, int b) {
        const GroupInfo &ga = tree.group(a), &gb = tree.group(b);
        return !open[static_cast<size_t>(b)] && !ga.range && !gb.range && ga.familySize > 1 && !ga.family.empty()
            && ga.family == gb.family && ga.structure == gb.structure && !gb.differs && !ga.differs;
    };
    std::function<void(int)> visit = [&](int k) {
        v.containers.push_back(k);
        const std::vector<std::pair<int, NodeId>> kids = tree.children(k);
        for (size_t c = 0; c < kids.size(); ++c) {
            const auto [cg, nid] = kids[c];
            ViewItem it;
            it.container = k;
            if (cg >= 0) {
                if (open[static_cast<size_t>(cg)]) {
                    visit(cg);
                    continue;
                }
                const GroupInfo& gi = tree.group(cg);
                it.kind = ItemKind::Group;
                it.group = cg;
                it.title = gi.label;
                it.subtitle = groupSubtitle(gi);
                it.phase = gi.phase;
                itemOfGroup[static_cast<size_t>(cg)] = static_cast<int>(v.items.size());
                if (opts.foldIdentical) {
                    size_t last = c;
                    while (last + 1 < kids.size() && kids[last + 1].first >= 0 && foldable(cg, kids[last + 1].first)) {
                        ++last;
                        itemOfGroup[static_cast<size_t>(kids[last].first)] = static_cast<int>(v.items.size());
                    }
                    if (last > c) {
                        it.folded = last - c + 1;
                        it.title = gi.label + " … " + tree.group(kids[last].first).label;
                        it.subtitle =
                            std::to_string(it.folded) + " identical, " + std::to_string(gi.totalNodes) + " nodes each";
                        c = last;
                    }
                }
                ++v.groupItems;
            } else {
                const Node& n = g.node(nid);
                it.kind = ItemKind::Node;
                it.node = nid;
                it.title = n.name;
                it.subtitle = nodeSubtitle(n);
                it.phase = tree.phaseOf(nid);
                it.opClass = classifyOp(n);
                rep[static_cast<size_t>(nid)] = static_cast<int>(v.items.size());
                ++v.nodeItems;
            }
            v.items.push_back(std::move(it));
        }
    };
    visit(0);
    // nodes inside collapsed groups: the highest collapsed group above them
    for (NodeId id : g.order()) {
        if (rep[static_cast<size_t>(id)] >= 0) continue;
        // the collapsed group whose parent is open (V1: open means every group above is open)
        for (int k = tree.groupOf(id); k > 0; k = tree.group(k).parent)
            if (!open[static_cast<size_t>(k)] && open[static_cast<size_t>(tree.group(k).parent)]) {
                rep[static_cast<size_t>(id)] = itemOfGroup[static_cast<size_t>(k)];
                break;
            }
    }

    // candidate edges between representatives
    struct Cand
    {
        int from, to;
        NodeId producer, consumer;
    };
    std::vector<Cand> cands;
    auto key = [](int a, int b) {
        return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
    };
    std::unordered_set<uint64_t> seen;
    for (NodeId c : g.order()) {
        const Node& n = g.node(c);
        const int rc = rep[static_cast<size_t>(c)];
        auto see = [&](NodeId p) {
            const int rp = static_cast<size_t>(p) < rep.size() ? rep[static_cast<size_t>(p)] : -1;
            if (rp < 0 || rc < 0) return;
            if (rp == rc) return;
            cands.push_back({rp, rc, p, c});
        };
        for (const Arg& a : n.args) a.forEachNode(see);
        for (const auto& kv : n.kwargs) kv.second.forEachNode(see);
    }
    // layers per container (longest path over same-container edges in graph order)
    std::vector<int> layer(v.items.size(), 0);
    for (const Cand& e : cands) {
        const ViewItem &a = v.items[static_cast<size_t>(e.from)], &b = v.items[static_cast<size_t>(e.to)];
        if (a.container == b.container && e.from < e.to)
            layer[static_cast<size_t>(e.to)] =
                std::max(layer[static_cast<size_t>(e.to)], layer[static_cast<size_t>(e.from)] + 1);
    }
    auto isForward = [](PhaseClass p) { return p == PhaseClass::Forward || p == PhaseClass::Loss; };
    auto isBackward = [](PhaseClass p) { return p == PhaseClass::Backward || p == PhaseClass::Recomputed; };
    // stubs are keyed by the items at both ends: a collapsed group's many values make one stub
    std::unordered_map<uint64_t, int> outStub;  // (producer item, container) -> stub item
    std::unordered_map<uint64_t, int> inStub;  // (producer item, consumer item) -> stub item
    std::unordered_set<uint64_t> peerSeen;  // (stub item, node)
    auto addPeer = [&](int stub, NodeId id) {
        if (peerSeen.insert(key(stub, id)).second) v.items[static_cast<size_t>(stub)].peers.push_back(id);
    };
    struct End
    {
        ItemKind kind;
        NodeId node;
        int group, container;
        PhaseClass phase;
    };
    auto end = [&](int item) {
        const ViewItem& it = v.items[static_cast<size_t>(item)];
        return End{it.kind, it.node, it.group, it.container, it.phase};
    };
    // a stub beside the item `at` (its container and phase) naming `node` / `group`
    auto addStub = [&](bool incoming, NodeId node, int group, const End& at, const std::string& why) {
        ViewItem s;
        s.kind = ItemKind::Stub;
        s.incoming = incoming;
        s.node = node;
        s.group = group;
        s.container = at.container;
        s.phase = at.phase;
        s.subtitle = why;
        v.items.push_back(std::move(s));
        ++v.stubItems;
        return static_cast<int>(v.items.size()) - 1;
    };
    for (const Cand& e : cands) {
        const End a = end(e.from), b = end(e.to);
        const bool sameContainer = a.container == b.container && e.from < e.to;
        const bool span =
            std::abs(layer[static_cast<size_t>(e.to)] - layer[static_cast<size_t>(e.from)]) > opts.maxSpan;
        const bool crossPhase = isForward(a.phase) && isBackward(b.phase);
        if (sameContainer && !span && !crossPhase) {
            if (seen.insert(key(e.from, e.to)).second) v.edges.push_back({e.from, e.to});
            continue;
        }
        const std::string why = crossPhase ? "forward -> backward" : !sameContainer ? "other group" : "long edge";
        const int producerGroup = a.kind == ItemKind::Group ? a.group : -1;
        auto ok = outStub.find(key(e.from, a.container));
        if (ok == outStub.end()) {
            const int si = addStub(false, a.kind == ItemKind::Node ? a.node : e.producer, producerGroup, a, why);
            ok = outStub.emplace(key(e.from, a.container), si).first;
            v.edges.push_back({e.from, si});
        }
        addPeer(ok->second, e.consumer);
        auto ik = inStub.find(key(e.from, e.to));
        if (ik == inStub.end()) {
            const int si = addStub(true, e.producer, producerGroup, b, why);
            ik = inStub.emplace(key(e.from, e.to), si).first;
            v.edges.push_back({si, e.to});
        }
        addPeer(ik->second, e.producer);
    }
    v.groupItem = itemOfGroup;
    // titles name the far end: a node by its name (a parameter by its own: "from wte.weight"), a
    // group's values by the group and their count, or by the parameters they are (up to three)
    auto shownName = [&g](NodeId id) {
        std::string p = parameterTarget(g.node(id));
        return p.empty() ? g.node(id).name : p;
    };
    for (auto& it : v.items) {
        if (it.kind != ItemKind::Stub) continue;
        const size_t n = it.peers.size();
        if (it.incoming) {
            const bool params = n <= 3 && std::all_of(it.peers.begin(), it.peers.end(), [&g](NodeId id) {
                                    return !parameterTarget(g.node(id)).empty();
                                });
            if (it.group < 0 || params) {
                it.title = "from ";
                if (it.group < 0) {
                    it.title += shownName(it.node);
                } else {
                    for (size_t k = 0; k < n; ++k) it.title += (k ? ", " : "") + shownName(it.peers[k]);
                }
            } else {
                it.title = "from " + v.items[static_cast<size_t>(itemOfGroup[static_cast<size_t>(it.group)])].title
                    + " (" + std::to_string(n) + ")";
            }
        } else {
            it.title = "to " + g.node(it.peers.front()).name + (n > 1 ? " +" + std::to_string(n - 1) : "");
        }
    }
    return v;
}

}  // namespace fxl::viewer

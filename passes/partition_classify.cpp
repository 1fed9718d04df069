#include "passes/partition_classify.hpp"

#include <algorithm>

#include "core/ops/op_writes.hpp"

namespace fxl {

using partitioning::outputItems;
using partitioning::slotOf;

namespace {

size_t slotCountOf(const Graph& g)
{
    size_t slots = 0;
    for (NodeId id : g.order()) slots = std::max(slots, slotOf(id) + 1);
    return slots;
}

// Sorts the placeholders into primals and tangents. An AOT joint graph has its seeds as
// placeholders; only a graph without tangent placeholders gets its ones_like(loss) seeds
// as tangents. Returns which nodes are seeds or tangents.
std::vector<char> findPrimalsAndTangents(const Graph& g, NodeClassification& c)
{
    std::vector<char> seedOrTangent(c.requiredBw.size(), 0);
    bool aot = false;
    for (NodeId id : g.placeholders())
        if (partitioning::isTangentName(g.node(id).name)) aot = true;
    for (NodeId id : g.order()) {
        const Node& n = g.node(id);
        if (n.op == NodeOp::Placeholder) {
            if (partitioning::isTangentName(n.name)) {
                c.tangents.push_back(id);
                seedOrTangent[slotOf(id)] = 1;
            } else {
                c.primals.push_back(id);
            }
        } else if (!aot && isLossSeed(g, n)) {
            c.tangents.push_back(id);
            seedOrTangent[slotOf(id)] = 1;
            c.notes.push_back("loss seed '" + n.name + "' (ones_like of '" + g.node(n.args[0].node).name
                              + "') becomes a backward placeholder");
        }
    }
    return seedOrTangent;
}

// required_bw: seeds and their transitive users, in graph order.
void markRequiredBackward(const Graph& g, const std::vector<char>& seedOrTangent, NodeClassification& c)
{
    for (NodeId id : g.order()) {
        const Node& n = g.node(id);
        if (n.op == NodeOp::Output) continue;
        bool backward = seedOrTangent[slotOf(id)] != 0;
        if (!backward && n.op != NodeOp::Placeholder)
            forEachInput(n, [&](NodeId in) {
                if (c.isRequiredBw(in)) backward = true;
            });
        c.requiredBw[slotOf(id)] = backward ? 1 : 0;
    }
}

// Forward outputs: the first numFwdOutputs output items, or (-1) the items before the first
// gradient. The non-null gradient outputs are backward.
void splitOutputs(const Graph& g, int numFwdOutputs, NodeClassification& c)
{
    const std::vector<Arg> items = outputItems(g);
    size_t forwardCount = items.size();
    if (numFwdOutputs >= 0) {
        forwardCount = std::min(items.size(), static_cast<size_t>(numFwdOutputs));
    } else {
        for (size_t i = 0; i < items.size(); ++i) {
            const Arg& a = items[i];
            const bool gradient =
                a.isNone() || (a.isNode() && (c.isRequiredBw(a.node) || g.node(a.node).meta.phase == Phase::Backward));
            if (gradient) {
                forwardCount = i;
                break;
            }
        }
    }
    for (size_t i = 0; i < items.size(); ++i) {
        const NodeId id = items[i].isNode() ? items[i].node : kNoNode;
        (i < forwardCount ? c.fwdOutputs : c.bwdOutputs).push_back(id);
    }
    for (NodeId id : c.bwdOutputs)
        if (id != kNoNode) c.requiredBw[slotOf(id)] = 1;
}

// required_fw: what the forward outputs need from the primals (all primals count).
void markRequiredForward(const Graph& g, NodeClassification& c)
{
    std::vector<NodeId> stack;
    for (NodeId id : c.primals) c.requiredFw[slotOf(id)] = 1;
    for (NodeId id : c.fwdOutputs)
        if (id != kNoNode && !c.requiredFw[slotOf(id)]) {
            c.requiredFw[slotOf(id)] = 1;
            stack.push_back(id);
        }
    while (!stack.empty()) {
        const NodeId id = stack.back();
        stack.pop_back();
        forEachInput(g.node(id), [&](NodeId in) {
            if (in < 0 || slotOf(in) >= c.requiredFw.size() || c.requiredFw[slotOf(in)]) return;
            c.requiredFw[slotOf(in)] = 1;
            stack.push_back(in);
        });
    }
}

// A node that reads (an alias of) a value a later forward node writes in place must run
// before that write, so in the forward (with its inputs): placed in the backward it would read
// the written values (an LSTM cell's clone(h - n) before mul_(h - n, z)). A backward writer
// runs after it in the backward too. To a fixed point (a node pulled in makes its inputs
// forward, whose writes then count).
void keepReadsBeforeWritesForward(const Graph& g, NodeClassification& c)
{
    bool changed = true;
    while (changed) {
        changed = false;
        const std::vector<char> early = readsBeforeLaterWrite(g, OpRegistry::instance(), [&](NodeId w) {
            return slotOf(w) < c.requiredFw.size() && c.requiredFw[slotOf(w)];
        });
        for (NodeId id : g.order()) {
            const size_t slot = slotOf(id);
            if (slot >= early.size() || !early[slot] || c.requiredFw[slot] || c.requiredBw[slot]) continue;
            c.requiredFw[slot] = 1;
            std::vector<NodeId> stack{id};
            while (!stack.empty()) {
                const NodeId at = stack.back();
                stack.pop_back();
                forEachInput(g.node(at), [&](NodeId in) {
                    if (in < 0 || slotOf(in) >= c.requiredFw.size() || c.requiredFw[slotOf(in)]) return;
                    c.requiredFw[slotOf(in)] = 1;
                    stack.push_back(in);
                });
            }
            changed = true;
        }
    }
}

// The order of the required_fw nodes; what is neither required_fw nor required_bw is unclaimed.
void numberForwardAndMarkUnclaimed(const Graph& g, NodeClassification& c)
{
    int forwardIndex = 0;
    for (NodeId id : g.order()) {
        const Node& n = g.node(id);
        const size_t slot = slotOf(id);
        if (c.requiredFw[slot])
            c.fwOrder[slot] = forwardIndex++;
        else if (!c.requiredBw[slot] && n.op != NodeOp::Output)
            c.unclaimed[slot] = 1;
    }
}

}  // namespace

// ------------------------------------------------------------------ seeds and classification

bool isLossSeed(const Graph& g, const Node& n)
{
    if (!n.isOp("aten.ones_like.default") || n.args.empty() || !n.args[0].isNode()) return false;
    const NodeId in = n.args[0].node;
    for (const Arg& it : outputItems(g))
        if (it.isNode() && it.node == in) return true;
    if (n.meta.phase != Phase::Backward) return false;
    const ValueMeta& v = g.node(in).val;
    return v.kind == ValueMeta::Kind::Unknown || (v.isTensor() && v.tensor.sizes.empty());
}

NodeClassification classifyNodes(const Graph& g, int numFwdOutputs)
{
    NodeClassification c;
    const size_t slots = slotCountOf(g);
    c.requiredFw.assign(slots, 0);
    c.requiredBw.assign(slots, 0);
    c.unclaimed.assign(slots, 0);
    c.fwOrder.assign(slots, -1);

    const std::vector<char> seedOrTangent = findPrimalsAndTangents(g, c);
    markRequiredBackward(g, seedOrTangent, c);
    splitOutputs(g, numFwdOutputs, c);
    markRequiredForward(g, c);
    keepReadsBeforeWritesForward(g, c);
    numberForwardAndMarkUnclaimed(g, c);
    return c;
}

// ------------------------------------------------------------------ tag normalisation (6.3)

std::vector<std::string> cleanupRecomputeTags(Graph& g, bool defaultPartitionMode, PassContext* ctx)
{
    using partitioning::mustRecompute;
    g.rebuildUsers();
    std::vector<std::string> tagged;
    auto tagMustSave = [&](Node& n) {
        if (n.meta.recompute == Recompute::MustSave) return;
        if (ctx) ctx->tagSet(n.name, "recompute", std::string(recomputeName(n.meta.recompute)), "MUST_SAVE");
        n.meta.recompute = Recompute::MustSave;
        tagged.push_back(n.name);
    };
    for (NodeId id : g.order()) {
        Node& n = g.node(id);
        if (mustRecompute(n)) {
            bool boundary = false, anyRecomputableUser = false;
            for (NodeId u : n.users) {
                const Node& user = g.node(u);
                if (!mustRecompute(user)) continue;
                anyRecomputableUser = true;
                if (user.meta.acGraphId && n.meta.acGraphId && *user.meta.acGraphId > *n.meta.acGraphId)
                    boundary = true;
            }
            if (boundary)
                tagMustSave(n);  // (a) the boundary between two AC regions
            else if (partitioning::hasCustomFlag(n, "has_backward_hook") && !anyRecomputableUser)
                tagMustSave(n);  // (b) FSDP2 + AC
        } else if (defaultPartitionMode && !n.meta.acGraphId && n.op != NodeOp::Output) {
            bool feedsRegion = false;
            for (NodeId u : n.users)
                if (mustRecompute(g.node(u))) feedsRegion = true;
            if (!feedsRegion) continue;
            // a getitem whose parent belongs to a region is part of that region
            const bool exempt =
                n.isGetitem() && !n.args.empty() && n.args[0].isNode() && g.node(n.args[0].node).meta.acGraphId;
            if (!exempt) tagMustSave(n);  // (c) a region input
        }
    }
    return tagged;
}

}  // namespace fxl

namespace fxl::partitioning {

bool mustRecompute(const Node& n)
{
    return n.meta.recompute == Recompute::MustRecompute || n.meta.recompute == Recompute::PreferRecompute;
}

bool hasCustomFlag(const Node& n, const char* key)
{
    if (!n.meta.custom.is_object()) return false;
    auto it = n.meta.custom.find(key);
    return it != n.meta.custom.end() && it->is_boolean() && it->get<bool>();
}

bool isSymbolic(const ValueMeta& v)
{
    return v.kind == ValueMeta::Kind::SymInt || v.kind == ValueMeta::Kind::SymFloat
        || v.kind == ValueMeta::Kind::SymBool;
}

bool isTangentName(const std::string& name) { return name.find("tangent") != std::string::npos; }

bool isMultiOutput(const Graph& g, const Node& n)
{
    if (n.op != NodeOp::CallFunction) return false;
    if (n.val.kind == ValueMeta::Kind::Tuple) return true;
    if (n.val.kind != ValueMeta::Kind::Unknown || n.users.empty()) return false;
    for (NodeId u : n.users)
        if (!g.node(u).isGetitem()) return false;
    return true;
}

std::vector<Arg> outputItems(const Graph& g)
{
    const NodeId out = g.outputNode();
    if (out == kNoNode) return {};
    const Node& o = g.node(out);
    if (o.args.empty()) return {};
    const Arg& a = o.args[0];
    if (a.isSequence()) return a.items;
    if (a.isNone()) return {};
    return {a};
}

ClassifiedJoint classifyJoint(const Graph& g, int numFwdOutputs)
{
    ClassifiedJoint joint;
    joint.graph = &g;
    joint.slotCount = slotCountOf(g);
    joint.classes = classifyNodes(g, numFwdOutputs);
    joint.isTangent.assign(joint.slotCount, 0);
    for (NodeId t : joint.classes.tangents) joint.isTangent[slotOf(t)] = 1;
    joint.usersWithoutSeeds.assign(joint.slotCount, {});
    for (NodeId id : g.order())
        for (NodeId u : g.node(id).users)
            if (!joint.isTangent[slotOf(u)]) joint.usersWithoutSeeds[slotOf(id)].push_back(u);
    return joint;
}

}  // namespace fxl::partitioning

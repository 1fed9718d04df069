#include "passes/partitioner.hpp"

#include "core/analysis/memory_timeline.hpp"

#include <algorithm>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "passes/node_kinds.hpp"
#include "passes/partition_min_cut.hpp"
#include "passes/partition_save_modes.hpp"

namespace fxl::partitioning {

namespace {

std::string joinNames(const std::vector<std::string>& names, size_t max = 8)
{
    std::string s;
    for (size_t i = 0; i < names.size() && i < max; ++i) s += (i ? ", " : "") + names[i];
    if (names.size() > max) s += ", ... (" + std::to_string(names.size()) + ")";
    return s;
}

const char* modeName(PartitionMode m)
{
    switch (m) {
    case PartitionMode::SaveAll: return "save_all";
    case PartitionMode::Tagged: return "tagged";
    case PartitionMode::MinCut: return "mincut";
    }
    return "?";
}

void appendAll(std::vector<NodeId>& to, const std::vector<NodeId>& from)
{
    to.insert(to.end(), from.begin(), from.end());
}

// An output node returning `items` as a tuple.
Node outputNodeOf(Graph& part, std::vector<Arg> items)
{
    Node o;
    o.op = NodeOp::Output;
    o.name = part.uniqueName("output");
    o.target = "output";
    o.args.push_back(Arg::ofTuple(std::move(items)));
    return o;
}

}  // namespace

// Tagged and min-cut modes: cleanup_recompute_tags, then untagged collectives -> MUST_SAVE.
void Partitioner::prepareTags()
{
    bool anyTags = false;
    joint_.forEachNode([&](const Node& n) {
        if (n.meta.recompute != Recompute::None) anyTags = true;
    });
    if (anyTags && options_.cleanupTags) {
        const auto tagged = cleanupRecomputeTags(joint_, false, context_);
        if (!tagged.empty()) notes_.push_back("cleanup_recompute_tags: MUST_SAVE on " + joinNames(tagged));
    }
    // Collectives (force_save_collectives) and, in tagged mode, side effects and unknown ops are
    // saved unless tagged MUST_RECOMPUTE on purpose (an FSDP all-gather): a PREFER_RECOMPUTE or no
    // tag would make the backward run them again (node_kinds.hpp).
    std::vector<std::string> forced, kept;
    for (NodeId id : joint_.order()) {
        Node& n = joint_.node(id);
        if (n.meta.recompute == Recompute::MustRecompute || n.meta.recompute == Recompute::MustSave) continue;
        const bool collective = ops_.isCollective(n);
        const Unreplayable kind = collective ? Unreplayable::Collective : unreplayableKind(n, ops_.registry());
        if (collective ? !options_.forceSaveCollectives
                       : kind == Unreplayable::None || options_.mode != PartitionMode::Tagged)
            continue;
        if (context_) context_->tagSet(n.name, "recompute", std::string(recomputeName(n.meta.recompute)), "MUST_SAVE");
        n.meta.recompute = Recompute::MustSave;
        (collective ? forced : kept).push_back(n.name);
    }
    if (!forced.empty()) notes_.push_back("force_save_collectives: MUST_SAVE on " + joinNames(forced));
    if (!kept.empty())
        notes_.push_back("side effects and unknown ops are not recomputed: MUST_SAVE on " + joinNames(kept));
    joint_.rebuildUsers();
}

void Partitioner::classify()
{
    classified_ = classifyJoint(joint_, options_.numFwdOutputs);
    for (const auto& s : classes().notes) notes_.push_back(s);
}

// The mode's saves, deduplicated, in graph order. A graph without a backward gets save_all.
void Partitioner::chooseSaves()
{
    if (classes().tangents.empty()) {
        notes_.push_back(
            "no backward: the graph has no tangent placeholder and no ones_like(loss) seed; default partition "
            "(everything in the forward, empty backward)");
        options_.mode = PartitionMode::SaveAll;
    }
    // a forward output that depends on the backward seed makes every mode fail; say which
    // before a mode looks for saves (min-cut would only find "no finite cut")
    (void)forwardNeeds(std::vector<char>(classified_.slotCount, 0));
    SavedValues saves;
    switch (options_.mode) {
    case PartitionMode::SaveAll: saves = chooseSaveAll(classified_); break;
    case PartitionMode::Tagged: saves = chooseTagged(classified_); break;
    case PartitionMode::MinCut: {
        MinCutChoice choice = chooseMinCut(classified_, ops_, options_);
        saves = std::move(choice.saved);
        banned_ = std::move(choice.banned);
        for (auto& note : choice.notes) notes_.push_back(std::move(note));
        break;
    }
    }
    appendAll(saved_, saves.values);
    appendAll(savedSymbols_, saves.symbols);
    keepInGraphOrder(saved_);
    keepInGraphOrder(savedSymbols_);
}

// Deduplicates and sorts by graph order.
void Partitioner::keepInGraphOrder(std::vector<NodeId>& ids) const
{
    std::vector<char> present(classified_.slotCount, 0);
    for (NodeId id : ids) present[slotOf(id)] = 1;
    ids.clear();
    for (NodeId id : joint_.order())
        if (present[slotOf(id)]) ids.push_back(id);
}

// The backward may need placeholders (primals are always available) or RNG values nobody
// saved: save them and look again. Returns the backward's needs with the final saves.
std::vector<char> Partitioner::addMissingSaves()
{
    std::vector<char> backwardNeed;
    std::vector<std::string> added;
    for (int round = 0;; ++round) {
        std::vector<NodeId> missing;
        backwardNeed = backwardNeeds(&missing);
        if (missing.empty()) break;
        std::sort(missing.begin(), missing.end());
        missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
        for (NodeId id : missing) {
            (isSymbolic(node(id).val) ? savedSymbols_ : saved_).push_back(id);
            if (node(id).op != NodeOp::Placeholder) added.push_back(node(id).name);
        }
        keepInGraphOrder(saved_);
        keepInGraphOrder(savedSymbols_);
        if (round > static_cast<int>(classified_.slotCount))
            throw PassError("partition: internal error: saves do not converge");
    }
    if (!added.empty()) notes_.push_back("saved because RNG ops are not replayed in the backward: " + joinNames(added));
    return backwardNeed;
}

void Partitioner::dropSavesNotRead(const std::vector<char>& backwardNeed)
{
    std::vector<char> read(classified_.slotCount, 0);
    for (NodeId id : joint_.order())
        if (backwardNeed[slotOf(id)])
            forEachInput(node(id), [&](NodeId in) {
                if (hasSlot(in)) read[slotOf(in)] = 1;
            });
    for (NodeId id : classes().bwdOutputs)
        if (id != kNoNode) read[slotOf(id)] = 1;
    auto keepRead = [&](std::vector<NodeId>& ids) {
        ids.erase(std::remove_if(ids.begin(), ids.end(), [&](NodeId id) { return !read[slotOf(id)]; }), ids.end());
    };
    keepRead(saved_);
    keepRead(savedSymbols_);
}

std::vector<char> Partitioner::backwardNeeds(std::vector<NodeId>* missing) const
{
    std::vector<char> stop(classified_.slotCount, 0), need(classified_.slotCount, 0);
    for (NodeId id : saved_) stop[slotOf(id)] = 1;
    for (NodeId id : savedSymbols_) stop[slotOf(id)] = 1;
    for (NodeId id : classes().tangents) stop[slotOf(id)] = 1;
    std::vector<NodeId> stack;
    auto visit = [&](NodeId id) {
        if (!hasSlot(id) || stop[slotOf(id)] || need[slotOf(id)]) return;
        if (node(id).op == NodeOp::Placeholder) {  // a primal the saves do not provide
            if (missing) missing->push_back(id);
            return;
        }
        if (missing && ops_.isRandom(node(id)) && !classes().isRequiredBw(id)) {  // RNG is not replayed: save it
            missing->push_back(id);
            return;
        }
        need[slotOf(id)] = 1;
        stack.push_back(id);
    };
    for (NodeId id : classes().bwdOutputs) visit(id);
    for (NodeId id : joint_.order())
        if (classes().isRequiredBw(id) && ops_.isSideEffect(node(id))) visit(id);
    while (!stack.empty()) {
        const NodeId id = stack.back();
        stack.pop_back();
        forEachInput(node(id), visit);
    }
    return need;
}

std::vector<char> Partitioner::forwardNeeds(const std::vector<char>& backwardNeed) const
{
    std::vector<char> need(classified_.slotCount, 0);
    std::vector<NodeId> stack;
    auto visit = [&](NodeId id) {
        if (!hasSlot(id) || need[slotOf(id)]) return;
        if (classified_.isTangent[slotOf(id)] || classes().isRequiredBw(id))
            throw PassError("partition: the forward needs '" + node(id).name + "', which depends on the backward seed");
        need[slotOf(id)] = 1;
        stack.push_back(id);
    };
    for (NodeId id : classes().fwdOutputs) visit(id);
    for (NodeId id : saved_) visit(id);
    for (NodeId id : savedSymbols_) visit(id);
    // a side effect nobody reads stays in the forward (one the backward reads runs there)
    for (NodeId id : joint_.order())
        if (!classes().isRequiredBw(id) && !backwardNeed[slotOf(id)] && node(id).op != NodeOp::Output
            && ops_.isSideEffect(node(id)))
            visit(id);
    while (!stack.empty()) {
        const NodeId id = stack.back();
        stack.pop_back();
        forEachInput(node(id), visit);
    }
    return need;
}

// reordering_to_mimic_autograd_engine: from the first user of a tangent on, each node is
// preceded by just the not yet emitted (recomputed) nodes it needs.
std::vector<NodeId> Partitioner::reorderBackward(const std::vector<NodeId>& sequence) const
{
    std::unordered_map<NodeId, size_t> position;
    for (size_t i = 0; i < sequence.size(); ++i) position[sequence[i]] = i;
    size_t firstTangentUser = sequence.size();
    for (size_t i = 0; i < sequence.size() && firstTangentUser == sequence.size(); ++i)
        forEachInput(node(sequence[i]), [&](NodeId in) {
            if (hasSlot(in) && classified_.isTangent[slotOf(in)]) firstTangentUser = std::min(firstTangentUser, i);
        });
    if (firstTangentUser == sequence.size()) return sequence;
    std::vector<char> emitted(sequence.size(), 0);
    std::vector<NodeId> out;
    out.reserve(sequence.size());
    // Emits sequence[start] after the not yet emitted nodes it reads, in sequence order.
    auto emitWithInputs = [&](size_t start) {
        if (emitted[start]) return;
        std::vector<size_t> pending{start}, take;
        std::unordered_set<size_t> seen{start};
        while (!pending.empty()) {
            const size_t i = pending.back();
            pending.pop_back();
            take.push_back(i);
            forEachInput(node(sequence[i]), [&](NodeId in) {
                auto it = position.find(in);
                if (it == position.end() || emitted[it->second] || !seen.insert(it->second).second) return;
                pending.push_back(it->second);
            });
        }
        std::sort(take.begin(), take.end());
        for (size_t i : take) {
            emitted[i] = 1;
            out.push_back(sequence[i]);
        }
    };
    for (size_t i = 0; i < firstTangentUser; ++i)
        if (ops_.isSideEffect(node(sequence[i]))) emitWithInputs(i);
    for (size_t i = firstTangentUser; i < sequence.size(); ++i) emitWithInputs(i);
    for (size_t i = 0; i < firstTangentUser; ++i) emitWithInputs(i);  // anything left (not reached from later nodes)
    return out;
}

// A copy of a joint node for the forward or backward graph: inputs renamed through `copies`
// (joint slot -> id in that graph), meta kept, provenance the joint node's name.
Node Partitioner::copyOf(const Node& src, const std::vector<NodeId>& copies) const
{
    Node n = src;
    n.users.clear();
    auto remap = [&](NodeId& ref) {
        const NodeId to = ref >= 0 && slotOf(ref) < copies.size() ? copies[slotOf(ref)] : kNoNode;
        if (to == kNoNode)
            throw PassError("partition: internal error: '" + src.name + "' reads '" + node(ref).name
                            + "', which is not in its graph");
        ref = to;
    };
    for (auto& a : n.args) a.forEachNodeMut(remap);
    for (auto& kv : n.kwargs) kv.second.forEachNodeMut(remap);
    n.meta.provenance = src.name;
    return n;
}

// The primals and the nodes the forward needs -> forward outputs + saved values + saved symbols.
void Partitioner::buildForward(const std::vector<char>& forwardNeed, Graph& forward) const
{
    std::vector<NodeId> copies(classified_.slotCount, kNoNode);
    for (NodeId id : joint_.order()) {
        const Node& n = node(id);
        if (n.op == NodeOp::Output) continue;
        if (n.op == NodeOp::Placeholder ? !classified_.isTangent[slotOf(id)] : forwardNeed[slotOf(id)] != 0)
            copies[slotOf(id)] = forward.addNode(copyOf(n, copies));
    }
    const std::vector<Arg> items = outputItems(joint_);
    std::vector<Arg> outputs;
    for (size_t i = 0; i < classes().fwdOutputs.size(); ++i) {
        Arg a = items[i];
        a.forEachNodeMut([&](NodeId& x) { x = copies.at(slotOf(x)); });
        outputs.push_back(std::move(a));
    }
    for (NodeId id : saved_) outputs.push_back(Arg::ofNode(copies.at(slotOf(id))));
    for (NodeId id : savedSymbols_) outputs.push_back(Arg::ofNode(copies.at(slotOf(id))));
    // The descriptors PyTorch prints on a forward graph's outputs: they record where the saved
    // values start, so that every verb reading the written forward finds its boundary.
    forward.outputDescs.clear();
    for (size_t i = 0; i < outputs.size(); ++i) {
        const size_t user = classes().fwdOutputs.size();
        if (i < user)
            forward.outputDescs.push_back(i < joint_.outputDescs.size() && !joint_.outputDescs[i].empty()
                                              ? joint_.outputDescs[i]
                                              : "PlainAOTOutput(idx=" + std::to_string(i) + ")");
        else
            forward.outputDescs.push_back("SavedForBackwardsAOTOutput(idx=" + std::to_string(i - user) + ")");
    }
    forward.addNode(outputNodeOf(forward, std::move(outputs)));
}

// Saved symbols + saved values + tangents (loss seeds become tangents_N placeholders) and the
// nodes the backward needs -> gradients.
Partitioner::SeedRenames Partitioner::buildBackward(const std::vector<char>& backwardNeed, Graph& backward) const
{
    std::vector<NodeId> copies(classified_.slotCount, kNoNode);
    auto placeholderFor = [&](const Node& src, const std::string& name) {
        Node p;
        p.op = NodeOp::Placeholder;
        p.name = name;
        p.target = name;
        p.val = src.val;
        p.meta = src.meta;
        p.meta.provenance = src.name;
        return backward.addNode(std::move(p));
    };
    for (NodeId id : savedSymbols_) copies[slotOf(id)] = placeholderFor(node(id), node(id).name);
    for (NodeId id : saved_) copies[slotOf(id)] = placeholderFor(node(id), node(id).name);
    int tangentNumber = 0;
    SeedRenames seedRenames;
    for (NodeId id : classes().tangents) {
        const Node& t = node(id);
        if (t.op == NodeOp::Placeholder) {
            copies[slotOf(id)] = backward.addNode(copyOf(t, copies));
            continue;
        }
        std::string name;
        do name = "tangents_" + std::to_string(++tangentNumber);
        while (joint_.findByName(name) != kNoNode || backward.findByName(name) != kNoNode);
        copies[slotOf(id)] = placeholderFor(t, name);
        seedRenames.emplace_back(t.name, name);
    }
    std::vector<NodeId> sequence;
    for (NodeId id : joint_.order())
        if (backwardNeed[slotOf(id)]) sequence.push_back(id);
    if (options_.reorderBackward) sequence = reorderBackward(sequence);
    for (NodeId id : sequence) copies[slotOf(id)] = backward.addNode(copyOf(node(id), copies));
    const std::vector<Arg> items = outputItems(joint_);
    std::vector<Arg> outputs;
    for (size_t i = classes().fwdOutputs.size(); i < items.size(); ++i) {
        Arg a = items[i];
        a.forEachNodeMut([&](NodeId& x) { x = copies.at(slotOf(x)); });
        outputs.push_back(std::move(a));
    }
    backward.addNode(outputNodeOf(backward, std::move(outputs)));
    return seedRenames;
}

// The nested graphs the part's get_attr nodes reference.
void Partitioner::copyNestedGraphs(Graph& part) const
{
    part.forEachNode([&](const Node& n) {
        if (n.op != NodeOp::GetAttr) return;
        auto it = joint_.subgraphs.find(n.target);
        if (it != joint_.subgraphs.end()) part.subgraphs[n.target] = std::make_shared<Graph>(it->second->clone());
    });
    part.rebuildUsers();
}

void Partitioner::summarise(const std::vector<char>& forwardNeed, const std::vector<char>& backwardNeed,
                            PartitionMode requested, PartitionResult& result) const
{
    for (NodeId id : saved_) {
        result.saved.push_back(node(id).name);
        result.savedBytes += valueBytes(node(id).val).value_or(0);  // unknown sizes count 0
    }
    for (NodeId id : savedSymbols_) result.savedSymbols.push_back(node(id).name);
    for (NodeId id : joint_.order())
        if (forwardNeed[slotOf(id)] && backwardNeed[slotOf(id)]) result.recomputed.push_back(node(id).name);
    result.banned = banned_;
    if (requested != options_.mode) result.notes.push_back(std::string("mode ") + modeName(requested) + " -> save_all");
    for (const auto& s : notes_) result.notes.push_back(s);
    // the saved set as every verb counts it: the memory timeline of the forward (R9)
    MemoryOptions mo;
    mo.forwardOutputs = result.numFwdOutputs;
    mo.registry = options_.registry;
    const MemoryTimeline forwardTimeline = computeMemoryTimeline(result.forward, mo);
    result.savedActivations = forwardTimeline.savedActivations();
    result.savedInputs = forwardTimeline.savedInputs();
    result.savedActivationBytes = forwardTimeline.savedBytes;
    std::ostringstream os;
    os << modeName(options_.mode) << ": " << savedSummary(forwardTimeline);
    if (!result.savedSymbols.empty()) os << " + " << result.savedSymbols.size() << " symbol(s)";
    os << ", " << result.recomputed.size() << " recomputed; forward " << result.forward.size() << " nodes, backward "
       << result.backward.size() << " nodes";
    result.notes.insert(result.notes.begin(), os.str());
}

// The pass log: backward placeholders and recomputed nodes as added, joint nodes in neither
// graph as removed, the notes and the stats.
void Partitioner::logToContext(const std::vector<char>& forwardNeed, const std::vector<char>& backwardNeed,
                               const SeedRenames& seedRenames, const PartitionResult& result) const
{
    if (!context_) return;
    const std::string role = context_->graphRole;
    context_->graphRole = "backward";
    for (NodeId id : savedSymbols_) context_->added(node(id).name, node(id).name);
    for (NodeId id : saved_) context_->added(node(id).name, node(id).name);
    for (auto& [from, to] : seedRenames) context_->added(to, from);
    for (const auto& name : result.recomputed) context_->added(name, name);
    context_->graphRole = role;
    for (NodeId id : joint_.order()) {
        const Node& n = node(id);
        if (n.op == NodeOp::Output || n.op == NodeOp::Placeholder) continue;
        if (!forwardNeed[slotOf(id)] && !backwardNeed[slotOf(id)]) context_->removed(n.name);
    }
    for (const auto& s : result.notes) context_->note(s);
    context_->log.stats = result.stats();
    context_->log.stats["mode"] = modeName(options_.mode);
}

PartitionResult Partitioner::run()
{
    joint_.rebuildUsers();
    const PartitionMode requested = options_.mode;
    if (options_.mode != PartitionMode::SaveAll) prepareTags();
    classify();

    PartitionResult result;
    result.numFwdOutputs = classes().fwdOutputs.size();
    chooseSaves();
    const std::vector<char> backwardNeed = addMissingSaves();
    dropSavesNotRead(backwardNeed);
    const std::vector<char> forwardNeed = forwardNeeds(backwardNeed);

    for (Graph* part : {&result.forward, &result.backward}) {
        part->reserveNodes(joint_.size() + 16);  // each holds at most the joint's nodes (+ seeds): no regrowth
        part->className = "GraphModule";
        part->signature = SignatureStyle::Flat;
        part->outputIsList = joint_.outputIsList;
    }
    buildForward(forwardNeed, result.forward);
    const SeedRenames seedRenames = buildBackward(backwardNeed, result.backward);
    copyNestedGraphs(result.forward);
    copyNestedGraphs(result.backward);

    summarise(forwardNeed, backwardNeed, requested, result);
    logToContext(forwardNeed, backwardNeed, seedRenames, result);
    return result;
}

}  // namespace fxl::partitioning

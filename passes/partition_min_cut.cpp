#include "passes/partition_min_cut.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_set>

#include "passes/max_flow.hpp"

namespace fxl::partitioning {

namespace {

using Flow = MaxFlow<int64_t>;
constexpr int64_t kInfinite = Flow::kInfinite;
// The distance of nodes the backward never reads (and of the output).
constexpr int64_t kFarFromBackward = 1000000000;

// _size_of: bytes of the value (0 when unknown); symbolic scalars count 1.
int64_t sizeForCut(const Node& n) { return isSymbolic(n.val) ? 1 : valueBytes(n.val).value_or(0); }

class MinCutChooser
{
public:
    MinCutChooser(const ClassifiedJoint& joint, const PartitionOpSets& ops, const PartitionOptions& options)
        : joint_(joint)
        , classes_(joint.classes)
        , ops_(ops)
        , options_(options)
        , banUsedFarApart_(options.banUsedFarApart && !options.aggressive)
        , banLongFusibleChains_(options.banLongFusibleChains && !options.aggressive)
        , banMaterializedBackward_(options.banMaterializedBackward && !options.aggressive)
        , banNotInAllowlist_(options.banNotInAllowlist && !options.aggressive)
    { }

    MinCutChoice choose();

private:
    const ClassifiedJoint& joint_;
    const NodeClassification& classes_;
    const PartitionOpSets& ops_;
    const PartitionOptions& options_;
    const bool banUsedFarApart_, banLongFusibleChains_, banMaterializedBackward_, banNotInAllowlist_;

    std::vector<int64_t> distanceToBackward_;  // by slot
    // The flow network: node k (in graph order) is vertex 2k (in) and 2k+1 (out).
    Flow flow_;
    std::vector<int> orderIndex_;  // by slot: k
    int source_ = -1, sink_ = -1;
    std::vector<char> banned_;  // by slot
    std::vector<int> weightEdge_;  // by slot: the in -> out edge, -1 when none
    int nodesWithoutMeta_ = 0;
    std::vector<std::string> notes_;

    const Node& node(NodeId id) const { return joint_.node(id); }
    const std::vector<NodeId>& usersOf(NodeId id) const { return joint_.usersWithoutSeeds[slotOf(id)]; }
    int inVertex(NodeId id) const { return 2 * orderIndex_[slotOf(id)]; }
    int outVertex(NodeId id) const { return 2 * orderIndex_[slotOf(id)] + 1; }

    void computeDistanceToBackward();
    void createNetwork();
    bool isFusible(const Node& producer, const Node& user) const;
    bool isMaterializedInBackward(NodeId id) const;
    bool isMaterialized(NodeId id) const;
    bool shouldBan(NodeId id) const;
    bool ban(NodeId id);
    int64_t cutWeight(NodeId id);
    void addNodeEdges(NodeId id);
    int firstUnfusibleUse(const std::vector<NodeId>& start, int maxRange) const;
    void banUsedFarApart();
    void banLongFusibleChains();
    [[noreturn]] void throwNoFiniteCut() const;
    MinCutChoice readCut(int64_t cutValue);
};

// Distance (in users, reverse graph order) from each required_fw node to the backward.
void MinCutChooser::computeDistanceToBackward()
{
    distanceToBackward_.assign(joint_.slotCount, 0);
    const auto& order = joint_.graph->order();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const NodeId id = *it;
        int64_t& distance = distanceToBackward_[slotOf(id)];
        if (node(id).op == NodeOp::Output)
            distance = kFarFromBackward;
        else if (!classes_.isRequiredFw(id))
            distance = 0;
        else {
            distance = kFarFromBackward;
            for (NodeId u : usersOf(id)) distance = std::min(distance, distanceToBackward_[slotOf(u)] + 1);
        }
    }
}

// Vertices: node k -> 2k (in), 2k+1 (out); then the source and the sink.
void MinCutChooser::createNetwork()
{
    orderIndex_.assign(joint_.slotCount, -1);
    int nodeCount = 0;
    for (NodeId id : joint_.graph->order()) orderIndex_[slotOf(id)] = nodeCount++;
    source_ = 2 * nodeCount;
    sink_ = 2 * nodeCount + 1;
    flow_ = Flow(2 * nodeCount + 2);
    banned_.assign(joint_.slotCount, 0);
    weightEdge_.assign(joint_.slotCount, -1);
}

bool MinCutChooser::isFusible(const Node& producer, const Node& user) const
{
    return ops_.isCat(user) || (ops_.isFusible(producer) && ops_.isFusible(user));
}

// The backward would materialize the value anyway: a backward user (through views) cannot fuse it.
bool MinCutChooser::isMaterializedInBackward(NodeId id) const
{
    if (ops_.isView(node(id))) return false;
    std::vector<NodeId> pending{id};
    std::unordered_set<NodeId> seen{id};
    while (!pending.empty()) {
        const NodeId x = pending.back();
        pending.pop_back();
        for (NodeId u : usersOf(x)) {
            if (!classes_.isRequiredFw(u) && !isFusible(node(x), node(u))) return true;
            if (ops_.isView(node(u)) && seen.insert(u).second) pending.push_back(u);
        }
    }
    return false;
}

bool MinCutChooser::isMaterialized(NodeId id) const
{
    if (node(id).op == NodeOp::Placeholder) return true;
    for (NodeId u : usersOf(id))
        if (!isFusible(node(id), node(u))) return true;
    return false;
}

bool MinCutChooser::shouldBan(NodeId id) const
{
    const Node& n = node(id);
    if (n.op != NodeOp::CallFunction) return false;
    if (n.isGetitem()) return false;
    if (n.meta.recompute == Recompute::MustSave) return true;
    if (options_.recomputeViews && ops_.isView(n)) return false;
    const std::string_view base = PartitionOpSets::baseName(n);
    if (base == "lift_fresh_copy" || base == "lift_fresh") return false;
    if (banNotInAllowlist_) {
        if (!ops_.isRecomputable(n)) return true;
    } else if (ops_.isRandom(n) || ops_.isComputeIntensive(n)) {
        return true;
    }
    if (banMaterializedBackward_ && isMaterializedInBackward(id)) return true;
    if (options_.banReduction) {
        int64_t inputBytes = 0;
        for (const Arg& a : n.args)
            if (a.isNode()) inputBytes += sizeForCut(node(a.node));
        if (sizeForCut(n) * 4 < inputBytes) return true;
    }
    return false;
}

// Joins the node to the source (it cannot be recomputed). Views, nodes tagged for
// recomputation and SymFloats cannot be banned (false).
bool MinCutChooser::ban(NodeId id)
{
    const Node& n = node(id);
    if (ops_.isView(n) || mustRecompute(n) || n.val.kind == ValueMeta::Kind::SymFloat) return false;
    if (banned_[slotOf(id)]) return true;
    banned_[slotOf(id)] = 1;
    flow_.addEdge(source_, inVertex(id), kInfinite);
    return true;
}

// The capacity of the node's in -> out edge: what saving it costs.
int64_t MinCutChooser::cutWeight(NodeId id)
{
    const Node& n = node(id);
    if (isSymbolic(n.val)) return n.val.kind == ValueMeta::Kind::SymFloat ? 4 : 1;
    if (isMultiOutput(*joint_.graph, n) || n.val.kind == ValueMeta::Kind::Opaque || n.val.kind == ValueMeta::Kind::None)
        return kInfinite;  // tuples are saved through their getitems
    if (options_.recomputeViews && ops_.isView(n)) return kInfinite;
    if (n.val.kind == ValueMeta::Kind::Unknown) ++nodesWithoutMeta_;
    const double bytes = static_cast<double>(sizeForCut(n));
    const int64_t distance = std::clamp<int64_t>(distanceToBackward_[slotOf(id)], 1, 100);
    double weight = std::floor(bytes * std::pow(1.1, static_cast<double>(distance)));
    if (!isMaterialized(id)) weight *= 2;
    return weight >= 9.0e18 ? kInfinite - 1 : static_cast<int64_t>(weight);
}

void MinCutChooser::addNodeEdges(NodeId id)
{
    const Node& n = node(id);
    if (n.op == NodeOp::Output) return;
    if (classes_.isRequiredBw(id)) {
        if (!joint_.isPrimal(id)) {
            flow_.addEdge(inVertex(id), sink_, kInfinite);
            return;
        }
        // a primal returned as a gradient: it must be saved as is
        flow_.addEdge(source_, inVertex(id), kInfinite);
        flow_.addEdge(outVertex(id), sink_, kInfinite);
    }
    if (mustRecompute(n)) {
        flow_.addEdge(inVertex(id), sink_, kInfinite);
        return;
    }
    if (joint_.isPrimal(id)) ban(id);
    if (classes_.isRequiredFw(id) && shouldBan(id)) ban(id);
    const int64_t weight = cutWeight(id);
    weightEdge_[slotOf(id)] = flow_.addEdge(inVertex(id), outVertex(id), weight);
    for (NodeId u : usersOf(id)) flow_.addEdge(outVertex(id), inVertex(u), kInfinite);
}

// The forward index of the first node, from `start` on through forward users up to
// maxRange, that its producer cannot fuse (maxRange when there is none).
int MinCutChooser::firstUnfusibleUse(const std::vector<NodeId>& start, int maxRange) const
{
    using Item = std::tuple<int, NodeId, bool>;  // forward index, node, fusible with its producer
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
    std::set<Item> pushed;
    for (NodeId s : start) {
        Item item{classes_.fwOrder[slotOf(s)], s, true};
        if (pushed.insert(item).second) heap.push(item);
    }
    while (!heap.empty()) {
        auto [forwardIndex, x, fusible] = heap.top();
        heap.pop();
        if (!fusible) return forwardIndex;
        for (NodeId u : usersOf(x)) {
            if (!classes_.isRequiredFw(u) || classes_.fwOrder[slotOf(u)] > maxRange) continue;
            Item item{classes_.fwOrder[slotOf(u)], u, isFusible(node(x), node(u))};
            if (pushed.insert(item).second) heap.push(item);
        }
    }
    return maxRange;
}

// ban_recomputation_if_used_far_apart: a fusible user after the first unfusible use.
void MinCutChooser::banUsedFarApart()
{
    for (NodeId id : joint_.graph->order()) {
        if (!classes_.isRequiredFw(id)) continue;
        std::vector<NodeId> forwardUsers;
        int lastUse = -1;
        for (NodeId u : usersOf(id))
            if (classes_.isRequiredFw(u)) {
                forwardUsers.push_back(u);
                lastUse = std::max(lastUse, classes_.fwOrder[slotOf(u)]);
            }
        if (forwardUsers.empty()) continue;
        const int firstUnfusible = firstUnfusibleUse(forwardUsers, lastUse);
        for (NodeId u : forwardUsers)
            if (classes_.fwOrder[slotOf(u)] > firstUnfusible && isFusible(node(id), node(u)) && !banned_[slotOf(u)])
                ban(u);
    }
}

// ban_recomputation_if_long_fusible_chains: the end of a fusible chain over 100 nodes long.
void MinCutChooser::banLongFusibleChains()
{
    std::vector<char> visited(joint_.slotCount, 0);
    for (NodeId start : joint_.graph->order()) {
        if (!classes_.isRequiredFw(start)) continue;
        using Item = std::pair<int, NodeId>;  // forward index, node
        std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
        const int startIndex = classes_.fwOrder[slotOf(start)];
        heap.push({startIndex, start});
        while (!heap.empty()) {
            const NodeId current = heap.top().second;
            heap.pop();
            if (visited[slotOf(current)]) continue;
            visited[slotOf(current)] = 1;
            if (classes_.fwOrder[slotOf(current)] > startIndex + 100 && heap.empty()) {
                ban(current);
                break;
            }
            for (NodeId u : usersOf(current))
                if (classes_.isRequiredFw(u) && isFusible(node(current), node(u)) && !banned_[slotOf(u)])
                    heap.push({classes_.fwOrder[slotOf(u)], u});
        }
    }
}

void MinCutChooser::throwNoFiniteCut() const
{
    std::string example;
    for (NodeId id : joint_.graph->order())
        if (banned_[slotOf(id)] && (classes_.isRequiredBw(id) || mustRecompute(node(id)))
            && flow_.onSourceSide(outVertex(id))) {
            example = node(id).name;
            break;
        }
    throw PassError("partition(mincut): no finite cut: a value that can be neither saved nor recomputed is needed "
                    "by the backward"
                    + (example.empty() ? std::string() : " (e.g. '" + example + "')"));
}

// The saves are the nodes whose in -> out edge crosses the cut.
MinCutChoice MinCutChooser::readCut(int64_t cutValue)
{
    MinCutChoice choice;
    for (NodeId id : joint_.graph->order()) {
        if (banned_[slotOf(id)]) choice.banned.push_back(node(id).name);
        const int e = weightEdge_[slotOf(id)];
        if (e < 0) continue;
        if (flow_.onSourceSide(flow_.edgeFrom(e)) && !flow_.onSourceSide(flow_.edgeTo(e))) {
            if (isSymbolic(node(id).val))
                choice.saved.symbols.push_back(id);
            else
                choice.saved.values.push_back(id);
        }
    }
    std::ostringstream os;
    os << "min cut: " << choice.saved.values.size() + choice.saved.symbols.size() << " value(s) cross, cut value "
       << cutValue << ", " << choice.banned.size() << " banned";
    choice.notes = std::move(notes_);
    choice.notes.push_back(os.str());
    return choice;
}

MinCutChoice MinCutChooser::choose()
{
    computeDistanceToBackward();
    createNetwork();
    for (NodeId id : joint_.graph->order()) addNodeEdges(id);
    if (nodesWithoutMeta_)
        notes_.push_back(std::to_string(nodesWithoutMeta_) + " node(s) without tensor meta count 0 bytes in the cut");
    if (banUsedFarApart_) banUsedFarApart();
    if (banLongFusibleChains_) banLongFusibleChains();
    const int64_t cutValue = flow_.solve(source_, sink_);
    if (cutValue == kInfinite) throwNoFiniteCut();
    return readCut(cutValue);
}

}  // namespace

MinCutChoice chooseMinCut(const ClassifiedJoint& joint, const PartitionOpSets& ops, const PartitionOptions& options)
{
    return MinCutChooser(joint, ops, options).choose();
}

}  // namespace fxl::partitioning

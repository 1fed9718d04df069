#include "runtime/check/localize.hpp"

#include <algorithm>
#include <limits>
#include <set>
#include <sstream>
#include <unordered_map>

#include "core/analysis/graph_diff.hpp"
#include "runtime/backends.hpp"

namespace fxl {

namespace {

// What became of a node of B.
enum class BStatus : uint8_t
{
    NotSeen,
    Unmatched,
    NonTensor,
    OverBudget,
    Equal,
    Differing
};

const char* reasonOf(BStatus s)
{
    switch (s) {
    case BStatus::Unmatched: return "unmatched";
    case BStatus::NonTensor: return "non-tensor";
    case BStatus::OverBudget: return "over budget";
    case BStatus::NotSeen: return "not computed";
    default: return "";
    }
}

void collectTensors(const Value& v, std::vector<const Tensor*>& out)
{
    if (v.isTensor() && v.tensor.defined()) out.push_back(&v.tensor);
    for (const auto& it : v.items) collectTensors(it, out);
}

SafeTensor hostCopy(const Tensor& t, const std::string& name, Backend& backend)
{
    SafeTensor st;
    st.name = name;
    st.dtype = t.dtype();
    st.shape = t.sizes();
    st.data.resize(static_cast<size_t>(t.nbytes()));
    backend.download(st.data.data(), t, t.nbytes());
    return st;
}

std::string itemName(const std::string& node, size_t k, size_t count)
{
    return count == 1 ? node : node + "[" + std::to_string(k) + "]";
}

constexpr uint64_t kMismatchUlp = std::numeric_limits<uint64_t>::max();

}  // namespace

struct Localizer::State
{
    const Graph& a;
    const Graph& b;
    LocalizeOptions opts;
    std::vector<NodeId> counterpart;  // by B id: the node of A compared with it
    std::vector<std::string> matchKind;  // by B id
    std::vector<size_t> position;  // by B id: index in B's order
    std::vector<BStatus> status;  // by B id
    std::vector<int> pending;  // by A id: B nodes still to compare with it
    struct Kept
    {
        std::vector<SafeTensor> tensors;
        bool nonTensor = false;
        bool overBudget = false;
        int64_t bytes = 0;
    };
    std::unordered_map<NodeId, Kept> kept;  // by A id
    int64_t keptBytes = 0;
    LocalizeReport report;

    State(const Graph& ga, const Graph& gb, LocalizeOptions o)
        : a(ga)
        , b(gb)
        , opts(o)
    {
        const GraphDiff d = diffGraphs(a, b);
        size_t maxB = 0, maxA = 0;
        for (NodeId id : b.order()) maxB = std::max(maxB, static_cast<size_t>(id) + 1);
        for (NodeId id : a.order()) maxA = std::max(maxA, static_cast<size_t>(id) + 1);
        counterpart.assign(maxB, kNoNode);
        matchKind.assign(maxB, "");
        position.assign(maxB, 0);
        status.assign(maxB, BStatus::NotSeen);
        pending.assign(maxA, 0);
        for (const NodeDiff& nd : d.nodes) {
            if (nd.a == kNoNode || nd.b == kNoNode) continue;
            counterpart[static_cast<size_t>(nd.b)] = nd.a;
            matchKind[static_cast<size_t>(nd.b)] = std::string(matchKindName(nd.match));
        }
        const auto& order = b.order();
        for (size_t k = 0; k < order.size(); ++k) {
            const size_t id = static_cast<size_t>(order[k]);
            position[id] = k;
            const Node& n = b.node(order[k]);
            if (counterpart[id] == kNoNode && !n.meta.provenance.empty()) {
                // a copy the diff counts as added (a recomputation): compared with its original
                const NodeId orig = a.findByName(n.meta.provenance);
                if (orig != kNoNode && a.node(orig).op == n.op && a.node(orig).target == n.target) {
                    counterpart[id] = orig;
                    matchKind[id] = "provenance_copy";
                }
            }
            if (n.op == NodeOp::Output) counterpart[id] = kNoNode;  // never computed as a value
            if (counterpart[id] != kNoNode) ++pending[static_cast<size_t>(counterpart[id])];
        }
        report.byteBudget = opts.byteBudget;
    }

    void record(const Node& n, const Value& v, Backend& backend)
    {
        const size_t id = static_cast<size_t>(n.id);
        if (id >= pending.size() || pending[id] == 0) return;
        Kept k;
        std::vector<const Tensor*> ts;
        collectTensors(v, ts);
        if (ts.empty()) {
            k.nonTensor = true;
        } else {
            for (const Tensor* t : ts) k.bytes += t->nbytes();
            if (keptBytes + k.bytes > opts.byteBudget) {
                k.overBudget = true;
                k.bytes = 0;
                report.overBudget.push_back(n.name);
            } else {
                for (size_t i = 0; i < ts.size(); ++i)
                    k.tensors.push_back(hostCopy(*ts[i], itemName(n.name, i, ts.size()), backend));
                keptBytes += k.bytes;
                report.peakKeptBytes = std::max(report.peakKeptBytes, keptBytes);
            }
        }
        kept[n.id] = std::move(k);
    }

    void release(NodeId aId)
    {
        if (--pending[static_cast<size_t>(aId)] > 0) return;
        auto it = kept.find(aId);
        if (it == kept.end()) return;
        keptBytes -= it->second.bytes;
        kept.erase(it);
    }

    void compare(const Node& n, const Value& v, Backend& backend)
    {
        const size_t id = static_cast<size_t>(n.id);
        if (id >= counterpart.size()) return;
        const NodeId aId = counterpart[id];
        if (aId == kNoNode) {
            status[id] = BStatus::Unmatched;
            ++report.counts.unmatched;
            return;
        }
        auto it = kept.find(aId);
        std::vector<const Tensor*> ts;
        collectTensors(v, ts);
        if (it == kept.end()) {  // A's node was not computed (a cancelled run)
            status[id] = BStatus::NotSeen;
            release(aId);
            return;
        }
        if (it->second.overBudget) {
            status[id] = BStatus::OverBudget;
            ++report.counts.overBudget;
            release(aId);
            return;
        }
        if (it->second.nonTensor || ts.empty()) {
            status[id] = BStatus::NonTensor;
            ++report.counts.nonTensor;
            release(aId);
            return;
        }
        const Node& an = a.node(aId);
        NodeValueDiff d;
        d.aName = an.name;
        d.bName = n.name;
        d.target = n.target;
        d.bIndex = position[id];
        d.match = matchKind[id];
        const std::vector<SafeTensor>& as = it->second.tensors;
        d.tensors = std::min(as.size(), ts.size());
        d.bitwiseEqual = as.size() == ts.size();
        d.shapeMismatch = as.size() != ts.size();
        for (size_t i = 0; i < d.tensors; ++i) {
            const SafeTensor bt = hostCopy(*ts[i], itemName(n.name, i, ts.size()), backend);
            TensorDiff td = compareTensors(as[i].name, as[i], bt);
            d.numel += td.numel;
            d.differing += td.differing;
            d.maxUlp = std::max(d.maxUlp, td.maxUlp);
            d.maxAbs = std::max(d.maxAbs, td.maxAbs);
            d.shapeMismatch = d.shapeMismatch || td.shapeMismatch;
            d.dtypeMismatch = d.dtypeMismatch || td.dtypeMismatch;
            if (!td.bitwiseEqual) {
                d.bitwiseEqual = false;
                if (!d.first) d.first = std::move(td);
            }
        }
        release(aId);
        ++report.counts.compared;
        const uint64_t ulp = d.shapeMismatch || d.dtypeMismatch ? kMismatchUlp : d.maxUlp;
        report.ulpByNameA[d.aName] = std::max(report.ulpByNameA[d.aName], ulp);
        report.ulpByNameB[d.bName] = ulp;
        if (d.bitwiseEqual) {
            status[id] = BStatus::Equal;
            ++report.counts.equal;
        } else {
            status[id] = BStatus::Differing;
            ++report.counts.differing;
            if (!report.firstDivergence) {
                report.firstDivergence = report.nodes.size();
                noteUncomparedInputs(n);
            }
        }
        report.nodes.push_back(std::move(d));
    }

    void noteUncomparedInputs(const Node& n)
    {
        std::set<NodeId> seen;
        auto visit = [&](NodeId in) {
            if (!seen.insert(in).second) return;
            const BStatus s = status[static_cast<size_t>(in)];
            if (s != BStatus::Equal && s != BStatus::Differing)
                report.firstUncomparedInputs.push_back({b.node(in).name, reasonOf(s)});
        };
        for (const Arg& arg : n.args) arg.forEachNode(visit);
        for (const auto& kv : n.kwargs) kv.second.forEachNode(visit);
    }
};

Localizer::Localizer(const Graph& a, const Graph& b, LocalizeOptions opts)
    : s_(std::make_unique<State>(a, b, opts))
{ }

Localizer::~Localizer() = default;

std::function<void(const Node&, const Value&)> Localizer::recordA(Backend& backend)
{
    return [s = s_.get(), &backend](const Node& n, const Value& v) { s->record(n, v, backend); };
}

std::function<void(const Node&, const Value&)> Localizer::compareB(Backend& backend)
{
    return [s = s_.get(), &backend](const Node& n, const Value& v) { s->compare(n, v, backend); };
}

LocalizeReport Localizer::finish()
{
    s_->kept.clear();
    s_->keptBytes = 0;
    return std::move(s_->report);
}

LocalizeReport localizeRuns(const Graph& a, const Graph& b, const ExecOptions& exec, const SafeTensorsFile* constantsB,
                            const LocalizeOptions& opts)
{
    std::unique_ptr<Backend> ownA, ownB;
    ExecOptions oa = exec;
    if (!oa.backend) {
        ownA = makeBackend("cpu", BackendOptions{exec.threads}, nullptr);
        oa.backend = ownA.get();
    }
    const SafeTensorsFile resolved = resolveInputs(a, oa);
    oa.inputs = &resolved;
    Localizer loc(a, b, opts);
    auto chain = [&](std::function<void(const Node&, const Value&)> hook) {
        if (!exec.onValue) return hook;
        return std::function<void(const Node&, const Value&)>(
            [hook, user = exec.onValue](const Node& n, const Value& v) {
                hook(n, v);
                user(n, v);
            });
    };
    oa.onValue = chain(loc.recordA(*oa.backend));
    (void)executeGraph(a, oa);
    ExecOptions ob = oa;
    if (!exec.backend) {
        ownB = makeBackend("cpu", BackendOptions{exec.threads}, nullptr);
        ob.backend = ownB.get();
    }
    ob.constants = constantsB;
    ob.onValue = chain(loc.compareB(*ob.backend));
    (void)executeGraph(b, ob);
    return loc.finish();
}

namespace {

std::string num(double v)
{
    std::ostringstream o;
    o.precision(6);
    o << v;
    return o.str();
}

std::string ulpText(const NodeValueDiff& d)
{
    if (d.dtypeMismatch) return "dtype differs";
    if (d.shapeMismatch) return "shape differs";
    if (d.bitwiseEqual) return "bitwise equal";
    return std::to_string(d.differing) + " of " + std::to_string(d.numel) + " elements differ, max ulp "
        + std::to_string(d.maxUlp) + ", max abs " + num(d.maxAbs);
}

std::string pairName(const NodeValueDiff& d) { return d.bName + (d.aName == d.bName ? "" : " (A: " + d.aName + ")"); }

}  // namespace

std::string localizeToText(const LocalizeReport& r, size_t top, const std::string& indent)
{
    std::ostringstream o;
    const LocalizeCounts& c = r.counts;
    o << indent << "compared: " << c.compared << " node values paired with A's, " << c.equal << " bitwise equal, "
      << c.differing << " differ\n";
    o << indent << "not compared: " << c.unmatched << " unmatched in B, " << c.nonTensor << " non-tensor, "
      << c.overBudget << " over the byte budget\n";
    if (!r.overBudget.empty()) {
        o << indent << "values of A not kept (budget " << r.byteBudget << " bytes): ";
        for (size_t k = 0; k < r.overBudget.size() && k < 8; ++k) o << (k ? ", " : "") << r.overBudget[k];
        if (r.overBudget.size() > 8) o << ", ... (" << r.overBudget.size() << " in all)";
        o << "\n";
    }
    const NodeValueDiff* f = r.first();
    if (!f) {
        o << indent << "first divergence: none (every compared value is bitwise equal)\n";
        return o.str();
    }
    o << indent << "first divergence: " << f->bName << " (B #" << f->bIndex << ", " << f->target << ")";
    o << ", in A: " << f->aName << " (matched by " << f->match << ")\n";
    o << indent << "  " << ulpText(*f) << "\n";
    if (f->first && f->first->firstIndex >= 0) {
        const TensorDiff& t = *f->first;
        std::ostringstream v;
        v.precision(9);
        v << t.firstA << " (" << t.firstAHex << ") in A vs " << t.firstB << " (" << t.firstBHex << ") in B";
        o << indent << "  first at " << t.name << "[";
        for (size_t k = 0; k < t.firstIndexNd.size(); ++k) o << (k ? ", " : "") << t.firstIndexNd[k];
        o << "]: " << v.str() << "\n";
    }
    if (r.firstUncomparedInputs.empty()) {
        o << indent << "  inputs: all equal (the difference starts at this node)\n";
    } else {
        o << indent << "  inputs: some not compared (the difference may come in through them):";
        for (const auto& in : r.firstUncomparedInputs) o << " " << in.bName << " (" << in.reason << ")";
        o << "\n";
    }
    std::vector<const NodeValueDiff*> diffs;
    for (const auto& d : r.nodes)
        if (!d.bitwiseEqual) diffs.push_back(&d);
    std::stable_sort(diffs.begin(), diffs.end(), [](const NodeValueDiff* x, const NodeValueDiff* y) {
        const bool mx = x->shapeMismatch || x->dtypeMismatch, my = y->shapeMismatch || y->dtypeMismatch;
        if (mx != my) return mx;
        return x->maxUlp > y->maxUlp;
    });
    o << indent << "largest differences (" << std::min(top, diffs.size()) << " of " << diffs.size() << "):\n";
    for (size_t k = 0; k < diffs.size() && k < top; ++k)
        o << indent << "  #" << diffs[k]->bIndex << " " << pairName(*diffs[k]) << ": " << ulpText(*diffs[k]) << "\n";
    return o.str();
}

namespace {

nlohmann::json nodeJson(const NodeValueDiff& d)
{
    nlohmann::json j = {{"a", d.aName},
                        {"b", d.bName},
                        {"target", d.target},
                        {"b_index", d.bIndex},
                        {"match", d.match},
                        {"bitwise_equal", d.bitwiseEqual},
                        {"shape_mismatch", d.shapeMismatch},
                        {"dtype_mismatch", d.dtypeMismatch},
                        {"tensors", d.tensors},
                        {"numel", d.numel},
                        {"differing", d.differing},
                        {"max_ulp", d.maxUlp},
                        {"max_abs", d.maxAbs}};
    if (d.first && d.first->firstIndex >= 0)
        j["first"] = {{"tensor", d.first->name}, {"index", d.first->firstIndexNd}, {"a", d.first->firstA},
                      {"b", d.first->firstB},    {"a_hex", d.first->firstAHex},    {"b_hex", d.first->firstBHex}};
    return j;
}

}  // namespace

nlohmann::json localizeToJson(const LocalizeReport& r)
{
    nlohmann::json j;
    j["counts"] = {{"compared", r.counts.compared},    {"equal", r.counts.equal},
                   {"differing", r.counts.differing},  {"unmatched", r.counts.unmatched},
                   {"non_tensor", r.counts.nonTensor}, {"over_budget", r.counts.overBudget}};
    if (const NodeValueDiff* f = r.first()) {
        nlohmann::json fd = nodeJson(*f);
        fd["inputs"] = r.firstUncomparedInputs.empty() ? "all equal" : "some not compared";
        fd["uncompared_inputs"] = nlohmann::json::array();
        for (const auto& in : r.firstUncomparedInputs)
            fd["uncompared_inputs"].push_back({{"b", in.bName}, {"reason", in.reason}});
        j["first_divergence"] = std::move(fd);
    } else {
        j["first_divergence"] = nullptr;
    }
    j["nodes"] = nlohmann::json::array();
    for (const auto& d : r.nodes) j["nodes"].push_back(nodeJson(d));
    j["over_budget"] = r.overBudget;
    j["byte_budget"] = r.byteBudget;
    j["peak_kept_bytes"] = r.peakKeptBytes;
    return j;
}

}  // namespace fxl

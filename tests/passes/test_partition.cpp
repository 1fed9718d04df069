// partition: docs/passes.md section 9.10 scenarios P1-P6 on hand-written joint graphs, the tag-driven
// partitioner's cases of 5.4, and the corpus: our partitions of PyTorch's traced train steps
// against PyTorch's own default and min-cut partitions of the same steps.
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "core/analysis/memory_timeline.hpp"
#include "core/analysis/verify.hpp"
#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/fx/fx_text_writer.hpp"
#include "core/formats/source.hpp"
#include "core/ir/graph.hpp"
#include "core/ops/op_registry.hpp"
#include "passes/partition.hpp"
#include "passes/pass.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_partition {

using namespace fxl;
namespace fs = std::filesystem;

namespace {

const fs::path kPytorch = fxltest::corpusPath("pytorch");

std::string module(const std::string& sig, const std::string& body)
{
    return "class GraphModule(torch.nn.Module):\n    def forward(self, " + sig + "):\n" + body;
}

Graph parse(const std::string& text)
{
    Graph g = parseFxText(text, "<test>");
    g.rebuildUsers();
    return g;
}

Node& nodeOf(Graph& g, const std::string& name)
{
    const NodeId id = g.findByName(name);
    if (id == kNoNode) throw std::runtime_error("no node " + name);
    return g.node(id);
}

ValueMeta tensor(std::vector<int64_t> sizes, DType dt = DType::F32)
{
    TensorMeta t;
    t.dtype = dt;
    for (int64_t s : sizes) t.sizes.emplace_back(s);
    t.strides = contiguousStrides(t.sizes);
    return ValueMeta::ofTensor(t);
}

PartitionOptions modeOpts(PartitionMode m)
{
    PartitionOptions o;
    o.mode = m;
    return o;
}

std::vector<Arg> outputItems(const Graph& g)
{
    const Node& o = g.node(g.outputNode());
    return o.args.empty() ? std::vector<Arg>{} : o.args[0].items;
}

// Names (provenance when set) of a graph's output items; "None" for None.
std::vector<std::string> outputNames(const Graph& g)
{
    std::vector<std::string> v;
    for (const Arg& a : outputItems(g)) {
        if (!a.isNode()) {
            v.push_back("None");
            continue;
        }
        const Node& n = g.node(a.node);
        v.push_back(n.meta.provenance.empty() ? n.name : n.meta.provenance);
    }
    return v;
}

std::vector<std::string> placeholderNames(const Graph& g)
{
    std::vector<std::string> v;
    for (NodeId id : g.placeholders()) v.push_back(g.node(id).name);
    return v;
}

bool hasNodeFrom(const Graph& g, const std::string& provenance, NodeOp op = NodeOp::CallFunction)
{
    bool found = false;
    g.forEachNode([&](const Node& n) {
        if (n.op == op && (n.meta.provenance == provenance || (n.meta.provenance.empty() && n.name == provenance)))
            found = true;
    });
    return found;
}

std::string problemsText(const std::vector<Problem>& ps)
{
    std::string s;
    for (const auto& p : ps)
        if (p.severity == Severity::Error) s += p.format() + "\n";
    return s;
}

// An argument with node references written as the joint-graph names they stand for.
std::string argText(const Arg& a, const Graph& g, bool byProvenance)
{
    if (a.isNode()) {
        const Node& n = g.node(a.node);
        return "%" + (byProvenance && !n.meta.provenance.empty() ? n.meta.provenance : n.name);
    }
    if (a.isSequence()) {
        std::string s = a.kind == Arg::Kind::List ? "[" : "(";
        for (const auto& it : a.items) s += argText(it, g, byProvenance) + ",";
        return s + (a.kind == Arg::Kind::List ? "]" : ")");
    }
    return formatArgPython(a, g);
}

std::string callText(const Node& n, const Graph& g, bool byProvenance)
{
    std::string s = n.target + "(";
    for (const auto& a : n.args) s += argText(a, g, byProvenance) + ", ";
    for (const auto& [k, v] : n.kwargs) s += k + "=" + argText(v, g, byProvenance) + ", ";
    return s + ")";
}

// Every node of a partition graph computes what its joint node computes, from the values its
// joint node reads (placeholders stand for the saved joint values / the loss seed): so the
// forward then the backward compute the joint's outputs.
void checkProvenance(const Graph& joint, const Graph& part)
{
    part.forEachNode([&](const Node& n) {
        if (n.op == NodeOp::Output) return;
        const std::string p = n.meta.provenance.empty() ? n.name : n.meta.provenance;
        const NodeId j = joint.findByName(p);
        QVERIFY2(j != kNoNode, ("no joint node for " + n.name).c_str());
        if (n.op == NodeOp::Placeholder) return;
        QCOMPARE(QString::fromStdString(callText(n, part, true)),
                 QString::fromStdString(callText(joint.node(j), joint, false)));
    });
}

// Both graphs verifier-clean, the forward returns the joint's forward outputs first and the
// saved values after, the backward returns the gradients in order.
void checkShape(const Graph& joint, const PartitionResult& r)
{
    const auto fp = verifyGraph(r.forward), bp = verifyGraph(r.backward);
    QVERIFY2(!hasErrors(fp), problemsText(fp).c_str());
    QVERIFY2(!hasErrors(bp), problemsText(bp).c_str());
    const std::vector<std::string> jo = outputNames(joint), fo = outputNames(r.forward), bo = outputNames(r.backward);
    QVERIFY(r.numFwdOutputs <= jo.size());
    QCOMPARE(fo.size(), r.numFwdOutputs + r.saved.size() + r.savedSymbols.size());
    for (size_t i = 0; i < r.numFwdOutputs; ++i) QCOMPARE(fo[i], jo[i]);
    for (size_t i = 0; i < r.saved.size(); ++i) QCOMPARE(fo[r.numFwdOutputs + i], r.saved[i]);
    QCOMPARE(bo, std::vector<std::string>(jo.begin() + static_cast<std::ptrdiff_t>(r.numFwdOutputs), jo.end()));
    // the backward's inputs: saved symbols, saved values, then tangents
    const std::vector<std::string> bp_ = placeholderNames(r.backward);
    QVERIFY(bp_.size() >= r.saved.size() + r.savedSymbols.size());
    for (size_t i = 0; i < r.savedSymbols.size(); ++i) QCOMPARE(bp_[i], r.savedSymbols[i]);
    for (size_t i = 0; i < r.saved.size(); ++i) QCOMPARE(bp_[r.savedSymbols.size() + i], r.saved[i]);
    for (size_t i = r.saved.size() + r.savedSymbols.size(); i < bp_.size(); ++i)
        QVERIFY2(bp_[i].find("tangent") != std::string::npos, bp_[i].c_str());
    checkProvenance(joint, r.forward);
    checkProvenance(joint, r.backward);
}

// ---- docs/passes.md section 9.10
const std::string kP1 = module("primals_1: \"f32[8]\", tangents_1: \"f32[8]\"",
                               "        sin: \"f32[8]\" = torch.ops.aten.sin.default(primals_1)\n"
                               "        cos: \"f32[8]\" = torch.ops.aten.cos.default(sin)\n"
                               "        sin_1: \"f32[8]\" = torch.ops.aten.sin.default(sin)\n"
                               "        neg: \"f32[8]\" = torch.ops.aten.neg.default(sin_1)\n"
                               "        mul: \"f32[8]\" = torch.ops.aten.mul.Tensor(tangents_1, neg)\n"
                               "        cos_1: \"f32[8]\" = torch.ops.aten.cos.default(primals_1)\n"
                               "        mul_1: \"f32[8]\" = torch.ops.aten.mul.Tensor(mul, cos_1)\n"
                               "        return (cos, mul_1)\n");

// sum(relu(x @ w)) with its backward
const std::string kP2 =
    module("primals_1: \"f32[4, 8]\", primals_2: \"f32[8, 16]\", tangents_1: \"f32[]\"",
           "        mm: \"f32[4, 16]\" = torch.ops.aten.mm.default(primals_1, primals_2)\n"
           "        relu: \"f32[4, 16]\" = torch.ops.aten.relu.default(mm)\n"
           "        sum_1: \"f32[]\" = torch.ops.aten.sum.default(relu)\n"
           "        expand: \"f32[4, 16]\" = torch.ops.aten.expand.default(tangents_1, [4, 16])\n"
           "        threshold_backward: \"f32[4, 16]\" = torch.ops.aten.threshold_backward.default(expand, relu, 0)\n"
           "        t: \"f32[8, 4]\" = torch.ops.aten.t.default(primals_1)\n"
           "        mm_1: \"f32[8, 16]\" = torch.ops.aten.mm.default(t, threshold_backward)\n"
           "        t_1: \"f32[16, 8]\" = torch.ops.aten.t.default(primals_2)\n"
           "        mm_2: \"f32[4, 8]\" = torch.ops.aten.mm.default(threshold_backward, t_1)\n"
           "        return (sum_1, mm_2, mm_1)\n");

// The same step traced the fwd+loss+bwd way: no tangent, the backward is seeded by ones_like(loss).
const std::string kP2Seeded =
    module("arg0_1: \"f32[4, 8]\", arg1_1: \"f32[8, 16]\"",
           "        mm: \"f32[4, 16]\" = torch.ops.aten.mm.default(arg0_1, arg1_1)\n"
           "        relu: \"f32[4, 16]\" = torch.ops.aten.relu.default(mm)\n"
           "        sum_1: \"f32[]\" = torch.ops.aten.sum.default(relu)\n"
           "        ones_like: \"f32[]\" = torch.ops.aten.ones_like.default(sum_1, pin_memory = False, memory_format = "
           "torch.preserve_format)\n"
           "        expand: \"f32[4, 16]\" = torch.ops.aten.expand.default(ones_like, [4, 16])\n"
           "        threshold_backward: \"f32[4, 16]\" = torch.ops.aten.threshold_backward.default(expand, relu, 0)\n"
           "        t: \"f32[8, 4]\" = torch.ops.aten.t.default(arg0_1)\n"
           "        mm_1: \"f32[8, 16]\" = torch.ops.aten.mm.default(t, threshold_backward)\n"
           "        t_1: \"f32[16, 8]\" = torch.ops.aten.t.default(arg1_1)\n"
           "        mm_2: \"f32[4, 8]\" = torch.ops.aten.mm.default(threshold_backward, t_1)\n"
           "        return (sum_1, mm_2, mm_1)\n");

// Two AC regions: sin (region 1) feeds cos (region 2).
const std::string kP5 = module("primals_1: \"f32[8]\", tangents_1: \"f32[8]\"",
                               "        sin: \"f32[8]\" = torch.ops.aten.sin.default(primals_1)\n"
                               "        cos: \"f32[8]\" = torch.ops.aten.cos.default(sin)\n"
                               "        mul: \"f32[8]\" = torch.ops.aten.mul.Tensor(cos, 2.0)\n"
                               "        mul_1: \"f32[8]\" = torch.ops.aten.mul.Tensor(tangents_1, 2.0)\n"
                               "        sin_1: \"f32[8]\" = torch.ops.aten.sin.default(sin)\n"
                               "        neg: \"f32[8]\" = torch.ops.aten.neg.default(sin_1)\n"
                               "        mul_2: \"f32[8]\" = torch.ops.aten.mul.Tensor(mul_1, neg)\n"
                               "        cos_1: \"f32[8]\" = torch.ops.aten.cos.default(primals_1)\n"
                               "        mul_3: \"f32[8]\" = torch.ops.aten.mul.Tensor(mul_2, cos_1)\n"
                               "        return (mul, mul_3)\n");

const std::string kP6 = module("x: \"f32[8]\", w: \"f32[8]\"",
                               "        mul: \"f32[8]\" = torch.ops.aten.mul.Tensor(x, w)\n"
                               "        sin: \"f32[8]\" = torch.ops.aten.sin.default(mul)\n"
                               "        sum_1: \"f32[]\" = torch.ops.aten.sum.default(sin)\n"
                               "        return (sum_1, mul)\n");

// ---- 5.4: a multi-output node (split) whose getitems both sides read
const std::string kSplit = module("primals_1: \"f32[6, 4]\", tangents_1: \"f32[]\"",
                                  "        split = torch.ops.aten.split.Tensor(primals_1, 2)\n"
                                  "        getitem: \"f32[2, 4]\" = split[0]\n"
                                  "        getitem_1: \"f32[2, 4]\" = split[1]\n"
                                  "        getitem_2: \"f32[2, 4]\" = split[2]\n"
                                  "        sin: \"f32[2, 4]\" = torch.ops.aten.sin.default(getitem)\n"
                                  "        sin_1: \"f32[2, 4]\" = torch.ops.aten.sin.default(getitem_1)\n"
                                  "        sin_2: \"f32[2, 4]\" = torch.ops.aten.sin.default(getitem_2)\n"
                                  "        cat: \"f32[6, 4]\" = torch.ops.aten.cat.default([sin, sin_1, sin_2])\n"
                                  "        sum_1: \"f32[]\" = torch.ops.aten.sum.default(cat)\n"
                                  "        expand: \"f32[2, 4]\" = torch.ops.aten.expand.default(tangents_1, [2, 4])\n"
                                  "        cos: \"f32[2, 4]\" = torch.ops.aten.cos.default(getitem)\n"
                                  "        mul: \"f32[2, 4]\" = torch.ops.aten.mul.Tensor(expand, cos)\n"
                                  "        cos_1: \"f32[2, 4]\" = torch.ops.aten.cos.default(getitem_1)\n"
                                  "        mul_1: \"f32[2, 4]\" = torch.ops.aten.mul.Tensor(expand, cos_1)\n"
                                  "        cos_2: \"f32[2, 4]\" = torch.ops.aten.cos.default(getitem_2)\n"
                                  "        mul_2: \"f32[2, 4]\" = torch.ops.aten.mul.Tensor(expand, cos_2)\n"
                                  "        cat_1: \"f32[6, 4]\" = torch.ops.aten.cat.default([mul, mul_1, mul_2])\n"
                                  "        return (sum_1, cat_1)\n");

Graph splitGraph()
{
    Graph g = parse(kSplit);
    nodeOf(g, "split").val = ValueMeta::ofTuple({tensor({2, 4}), tensor({2, 4}), tensor({2, 4})});
    return g;
}

// ---- 5.4: an FSDP-style all-gathered weight and a plain collective
const std::string kFsdp = module(
    "primals_1: \"f32[4, 8]\", primals_2: \"f32[2, 16]\", tangents_1: \"f32[]\"",
    "        all_gather_into_tensor: \"f32[8, 16]\" = "
    "torch.ops._c10d_functional.all_gather_into_tensor.default(primals_2, 4, '0')\n"
    "        wait_tensor: \"f32[8, 16]\" = torch.ops._c10d_functional.wait_tensor.default(all_gather_into_tensor)\n"
    "        mm: \"f32[4, 16]\" = torch.ops.aten.mm.default(primals_1, wait_tensor)\n"
    "        all_reduce: \"f32[4, 16]\" = torch.ops._c10d_functional.all_reduce.default(mm, 'sum', '0')\n"
    "        wait_tensor_1: \"f32[4, 16]\" = torch.ops._c10d_functional.wait_tensor.default(all_reduce)\n"
    "        sum_1: \"f32[]\" = torch.ops.aten.sum.default(wait_tensor_1)\n"
    "        expand: \"f32[4, 16]\" = torch.ops.aten.expand.default(tangents_1, [4, 16])\n"
    "        mul: \"f32[4, 16]\" = torch.ops.aten.mul.Tensor(expand, wait_tensor_1)\n"
    "        t: \"f32[16, 8]\" = torch.ops.aten.t.default(wait_tensor)\n"
    "        mm_1: \"f32[4, 8]\" = torch.ops.aten.mm.default(mul, t)\n"
    "        return (sum_1, mm_1, None)\n");

// ---- corpus helpers
struct Loaded
{
    std::unique_ptr<Source> src;
    std::shared_ptr<Graph> g;
};

Loaded load(const fs::path& p)
{
    Loaded l;
    l.src = openSource(p.string());
    l.g = l.src->graph(l.src->artifacts.at(0).id);
    l.g->rebuildUsers();
    return l;
}

std::string shapeKey(const Node& n)
{
    std::ostringstream os;
    os << (n.op == NodeOp::Placeholder ? std::string("placeholder") : n.target) << " ";
    if (n.val.isTensor()) {
        os << dtypeAbbr(n.val.tensor.dtype) << "[";
        for (size_t i = 0; i < n.val.tensor.sizes.size(); ++i)
            os << (i ? ", " : "") << n.val.tensor.sizes[i].maybeValue().value_or(-1);
        os << "]";
    } else {
        os << "?";
    }
    return os.str();
}

int64_t bytesOf(const Node& n) { return n.val.isTensor() ? n.val.tensor.bytesHint() : 0; }

// A placeholder, or a view chain (view ops by the registry) ending at one: a parameter / input
// the caller keeps alive anyway.
bool isInputOrViewOfInput(const Graph& g, NodeId id)
{
    const OpRegistry& reg = OpRegistry::instance();
    for (int guard = 0; guard < 1000; ++guard) {
        const Node& n = g.node(id);
        if (n.op == NodeOp::Placeholder) return true;
        if (n.op != NodeOp::CallFunction || n.args.empty() || !n.args[0].isNode()) return false;
        const OpInfo* oi = reg.find(OpRegistry::normalizeTarget(n.target));
        if (!oi || !(oi->has(kTraitView) || oi->has(kTraitAliasNoAnnot))) return false;
        id = n.args[0].node;
    }
    return false;
}

struct SavedSummary
{
    std::multiset<std::string> keys;
    int64_t bytes = 0;  // every saved tensor, numel * itemsize
    int64_t activationBytes = 0;  // without inputs and views of inputs
    size_t count = 0;
};

// The values a forward graph saves: its output items after the first `numFwd`.
SavedSummary savedOfForward(const Graph& fw, size_t numFwd)
{
    SavedSummary s;
    const auto items = outputItems(fw);
    for (size_t i = numFwd; i < items.size(); ++i) {
        if (!items[i].isNode()) continue;
        const Node& n = fw.node(items[i].node);
        s.keys.insert(shapeKey(n));
        s.bytes += bytesOf(n);
        if (!isInputOrViewOfInput(fw, n.id)) s.activationBytes += bytesOf(n);
        ++s.count;
    }
    return s;
}

std::string diffKeys(const std::multiset<std::string>& a, const std::multiset<std::string>& b)
{
    std::string s;
    std::multiset<std::string> onlyA, onlyB;
    std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::inserter(onlyA, onlyA.begin()));
    std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::inserter(onlyB, onlyB.begin()));
    for (const auto& k : onlyA) s += "  only ours:    " + k + "\n";
    for (const auto& k : onlyB) s += "  only PyTorch: " + k + "\n";
    return s;
}

}  // namespace

class TestPartition : public QObject
{
    Q_OBJECT
private slots:
    // ------------------------------------------------------------ 6.7
    void p1SinCosSavesOnlyTheInput()
    {
        const Graph g = parse(kP1);
        const PartitionResult r = partitionJointGraph(g, modeOpts(PartitionMode::MinCut));
        QCOMPARE(r.saved, std::vector<std::string>{"primals_1"});
        QCOMPARE(r.savedBytes, int64_t(32));
        QCOMPARE(r.recomputed, std::vector<std::string>{"sin"});  // the backward recomputes sin(x)
        QVERIFY(hasNodeFrom(r.backward, "sin"));
        QVERIFY(!hasNodeFrom(r.backward, "cos"));  // forward only
        checkShape(g, r);
        // the default partition saves sin instead of recomputing it
        const PartitionResult d = partitionJointGraph(g, modeOpts(PartitionMode::SaveAll));
        QCOMPARE(d.saved, (std::vector<std::string>{"primals_1", "sin"}));
        QVERIFY(d.recomputed.empty());
        checkShape(g, d);
    }

    void p2MatmulReluSavesMm()
    {
        const Graph g = parse(kP2);
        const PartitionResult r = partitionJointGraph(g, modeOpts(PartitionMode::MinCut));
        QCOMPARE(r.saved, (std::vector<std::string>{"primals_1", "primals_2", "mm"}));
        QCOMPARE(r.recomputed, std::vector<std::string>{"relu"});
        QVERIFY(std::find(r.banned.begin(), r.banned.end(), "mm") != r.banned.end());
        QVERIFY(std::find(r.banned.begin(), r.banned.end(), "relu") == r.banned.end());
        checkShape(g, r);
        // recomputation sits right before its first use (threshold_backward), after the tangent's expand
        std::vector<std::string> order;
        r.backward.forEachNode([&](const Node& n) { order.push_back(n.name); });
        const auto at = [&](const char* s) { return std::find(order.begin(), order.end(), s) - order.begin(); };
        QVERIFY(at("expand") < at("relu"));
        QCOMPARE(at("relu") + 1, at("threshold_backward"));
        // save_all saves relu too (PyTorch's default partition)
        const PartitionResult d = partitionJointGraph(g, modeOpts(PartitionMode::SaveAll));
        QCOMPARE(d.saved, (std::vector<std::string>{"primals_1", "primals_2", "relu"}));
        checkShape(g, d);
        QVERIFY(r.savedBytes > d.savedBytes - 1);  // mm and relu have the same size
    }

    void p3MustSaveRelu()
    {
        Graph g = parse(kP2);
        nodeOf(g, "relu").meta.recompute = Recompute::MustSave;
        const PartitionResult r = partitionJointGraph(g, modeOpts(PartitionMode::MinCut));
        QCOMPARE(r.saved, (std::vector<std::string>{"primals_1", "primals_2", "relu"}));
        QVERIFY(r.recomputed.empty());
        checkShape(g, r);
    }

    void p4MustRecomputeMm()
    {
        Graph g = parse(kP2);
        nodeOf(g, "mm").meta.recompute = Recompute::MustRecompute;
        const PartitionResult r = partitionJointGraph(g, modeOpts(PartitionMode::MinCut));
        QCOMPARE(r.saved, (std::vector<std::string>{"primals_1", "primals_2"}));
        QCOMPARE(r.recomputed, (std::vector<std::string>{"mm", "relu"}));
        checkShape(g, r);
    }

    void p5AcRegionBoundaryIsSaved()
    {
        Graph g = parse(kP5);
        for (auto [name, id] : {std::pair{"sin", 1}, std::pair{"cos", 2}}) {
            nodeOf(g, name).meta.recompute = Recompute::PreferRecompute;
            nodeOf(g, name).meta.acGraphId = id;
        }
        Graph c = g.clone();
        QCOMPARE(cleanupRecomputeTags(c, false), std::vector<std::string>{"sin"});
        QCOMPARE(nodeOf(c, "sin").meta.recompute, Recompute::MustSave);
        QCOMPARE(nodeOf(c, "cos").meta.recompute, Recompute::PreferRecompute);
        // inside the partitioner (and logged)
        for (PartitionMode m : {PartitionMode::MinCut, PartitionMode::Tagged}) {
            PassContext ctx;
            const PartitionResult r = partitionJointGraph(g, modeOpts(m), &ctx);
            QCOMPARE(r.saved, (std::vector<std::string>{"primals_1", "sin"}));
            bool logged = false;
            for (const auto& t : ctx.log.tags)
                if (t.node == "sin" && t.field == "recompute" && t.after == "MUST_SAVE") logged = true;
            QVERIFY(logged);
            checkShape(g, r);
            // the joint given to the partitioner is untouched
            QCOMPARE(nodeOf(g, "sin").meta.recompute, Recompute::PreferRecompute);
        }
    }

    void p6NoBackwardIsTheDefaultPartition()
    {
        const Graph g = parse(kP6);
        for (PartitionMode m : {PartitionMode::SaveAll, PartitionMode::Tagged, PartitionMode::MinCut}) {
            PassContext ctx;
            const PartitionResult r = partitionJointGraph(g, modeOpts(m), &ctx);
            QVERIFY(r.saved.empty());
            QCOMPARE(r.numFwdOutputs, size_t(2));
            QCOMPARE(outputNames(r.forward), (std::vector<std::string>{"sum_1", "mul"}));
            QCOMPARE(r.backward.size(), size_t(1));  // just `return ()`
            QVERIFY(outputItems(r.backward).empty());
            bool noted = false;
            for (const auto& n : ctx.log.notes)
                if (n.find("no backward") != std::string::npos) noted = true;
            QVERIFY(noted);
            checkShape(g, r);
        }
    }

    // The ones_like(loss) seed becomes the backward placeholder tangents_1 with its meta; the
    // loss itself is not saved for it.
    void seedBecomesTangentPlaceholder()
    {
        Graph g = parse(kP2Seeded);
        nodeOf(g, "ones_like").meta.modulePath = "loss_fn";
        for (PartitionMode m : {PartitionMode::SaveAll, PartitionMode::MinCut}) {
            const PartitionResult r = partitionJointGraph(g, modeOpts(m));
            checkShape(g, r);
            QCOMPARE(r.numFwdOutputs, size_t(1));
            QVERIFY(std::find(r.saved.begin(), r.saved.end(), "sum_1") == r.saved.end());
            const NodeId t = r.backward.findByName("tangents_1");
            QVERIFY(t != kNoNode);
            const Node& tn = r.backward.node(t);
            QCOMPARE(tn.op, NodeOp::Placeholder);
            QCOMPARE(tn.val, nodeOf(g, "ones_like").val);
            QCOMPARE(tn.meta.modulePath, std::string("loss_fn"));
            QCOMPARE(tn.meta.provenance, std::string("ones_like"));
            QVERIFY(!hasNodeFrom(r.backward, "ones_like"));
            QCOMPARE(placeholderNames(r.backward).back(), std::string("tangents_1"));
            // the same saves as the AOT form of the step
            const PartitionResult aot = partitionJointGraph(parse(kP2), modeOpts(m));
            QCOMPARE(r.saved.size(), aot.saved.size());
            QCOMPARE(r.savedBytes, aot.savedBytes);
        }
        // the forward keeps all inputs, provenance points at the joint
        const PartitionResult r = partitionJointGraph(g, modeOpts(PartitionMode::MinCut));
        QCOMPARE(placeholderNames(r.forward), (std::vector<std::string>{"arg0_1", "arg1_1"}));
        QCOMPARE(r.forward.node(r.forward.findByName("mm")).meta.provenance, std::string("mm"));
    }

    void statsAndLog()
    {
        const Graph g = parse(kP2);
        PassContext ctx;
        const PartitionResult r = partitionJointGraph(g, modeOpts(PartitionMode::MinCut), &ctx);
        const nlohmann::json s = ctx.log.stats;
        QCOMPARE(s["saved"].get<std::vector<std::string>>(), r.saved);
        QCOMPARE(s["saved_bytes"].get<int64_t>(), int64_t(4 * 8 * 4 + 8 * 16 * 4 + 4 * 16 * 4));
        QVERIFY(s["saved_symbols"].is_array() && s["saved_symbols"].empty());
        QCOMPARE(s["forward_nodes"].get<size_t>(), r.forward.size());
        QCOMPARE(s["backward_nodes"].get<size_t>(), r.backward.size());
        QCOMPARE(s["recomputed"].get<std::vector<std::string>>(), std::vector<std::string>{"relu"});
        QCOMPARE(s["mode"].get<std::string>(), std::string("mincut"));
        bool recomputeLogged = false, placeholderLogged = false;
        for (const auto& a : ctx.log.added) {
            if (a.node == "relu" && a.graph == "backward" && a.copiedFrom == "relu") recomputeLogged = true;
            if (a.node == "mm" && a.graph == "backward") placeholderLogged = true;
        }
        QVERIFY(recomputeLogged);
        QVERIFY(placeholderLogged);
        QVERIFY(!ctx.log.notes.empty());
    }

    // through the framework: one graph in, "forward" and "backward" out
    void pipelineRun()
    {
        const Graph g = parse(kP2Seeded);
        const PipelineRun run = runPipeline(g, "partition(mode=mincut)");
        QVERIFY2(run.ok, run.error.c_str());
        QCOMPARE(run.steps.size(), size_t(2));
        const Step& s = run.steps[1];
        QCOMPARE(s.graphs.size(), size_t(2));
        QCOMPARE(s.graphs[0]->role, std::string("forward"));
        QCOMPARE(s.graphs[1]->role, std::string("backward"));
        QVERIFY(s.verifierClean());
        QCOMPARE(s.log.stats["saved"].get<std::vector<std::string>>(),
                 (std::vector<std::string>{"arg0_1", "arg1_1", "mm"}));
        // a second partition has nothing to split
        std::vector<RoleGraph> two;
        for (const auto& rg : s.graphs) two.push_back(*rg);
        const PipelineRun again = runPipeline(two, parsePipelineSpec("partition"));
        QVERIFY(!again.ok);
        QVERIFY(again.error.find("exactly one joint graph") != std::string::npos);
        // a bad mode is rejected before anything runs
        bool threw = false;
        try {
            runPipeline(g, "partition(mode=greedy)");
        } catch (const InputError&) {
            threw = true;
        }
        QVERIFY(threw);
    }

    void aggressiveOptionChangesBans()
    {
        // with the allowlist off (aggressive), nothing in P2 but the primals is banned except
        // what is compute-intensive: mm is still banned in denylist mode
        const Graph g = parse(kP2);
        PartitionOptions o = modeOpts(PartitionMode::MinCut);
        o.aggressive = true;
        const PartitionResult r = partitionJointGraph(g, o);
        QVERIFY(std::find(r.banned.begin(), r.banned.end(), "mm") != r.banned.end());
        QCOMPARE(r.saved, (std::vector<std::string>{"primals_1", "primals_2", "mm"}));
        // sum_1 (a forward output, read by nothing fusible) is banned by the materialized-backward
        // rule, which aggressive turns off; the reduction rule (kept) is off here
        o.banReduction = false;
        const PartitionResult a = partitionJointGraph(g, o);
        QVERIFY(std::find(a.banned.begin(), a.banned.end(), "sum_1") == a.banned.end());
        o.aggressive = false;
        const PartitionResult d = partitionJointGraph(g, o);
        QVERIFY(std::find(d.banned.begin(), d.banned.end(), "sum_1") != d.banned.end());
    }

    // ------------------------------------------------------------ 5.4 tagged
    void taggedSavesOnlyPlaceholdersByDefault()
    {
        const Graph g = parse(kP2);
        const PartitionResult r = partitionJointGraph(g, modeOpts(PartitionMode::Tagged));
        QCOMPARE(r.saved, (std::vector<std::string>{"primals_1", "primals_2"}));
        QCOMPARE(r.recomputed, (std::vector<std::string>{"mm", "relu"}));
        checkShape(g, r);
    }

    void taggedApMustSaveBeatsPreferRecompute()
    {
        Graph g = parse(kP2);
        Node& relu = nodeOf(g, "relu");
        relu.meta.recompute = Recompute::PreferRecompute;
        relu.meta.custom = {{"ap_must_save", true}};
        const PartitionResult r = partitionJointGraph(g, modeOpts(PartitionMode::Tagged));
        QCOMPARE(r.saved, (std::vector<std::string>{"primals_1", "primals_2", "relu"}));
        QVERIFY(r.recomputed.empty());
        QVERIFY(outputNames(r.forward).back() == "relu");  // a forward output
        QVERIFY(hasNodeFrom(r.backward, "relu", NodeOp::Placeholder));  // and a backward input
        checkShape(g, r);
    }

    void taggedMustSaveHonoured()
    {
        Graph g = parse(kP2);
        nodeOf(g, "mm").meta.recompute = Recompute::MustSave;
        const PartitionResult r = partitionJointGraph(g, modeOpts(PartitionMode::Tagged));
        QCOMPARE(r.saved, (std::vector<std::string>{"primals_1", "primals_2", "mm"}));
        QCOMPARE(r.recomputed, std::vector<std::string>{"relu"});
        checkShape(g, r);
    }

    void taggedMustRecomputeNeverSaved()
    {
        Graph g = parse(kP2);
        Node& relu = nodeOf(g, "relu");
        relu.meta.recompute = Recompute::MustRecompute;
        relu.meta.custom = {{"ap_must_save", true}};
        PartitionResult r = partitionJointGraph(g, modeOpts(PartitionMode::Tagged));
        QCOMPARE(r.saved, (std::vector<std::string>{"primals_1", "primals_2"}));
        checkShape(g, r);
        // also blocks a multi-output save
        Graph s = splitGraph();
        Node& split = nodeOf(s, "split");
        split.meta.recompute = Recompute::MustRecompute;
        split.meta.custom = {{"ap_must_save", true}};
        r = partitionJointGraph(s, modeOpts(PartitionMode::Tagged));
        QCOMPARE(r.saved, std::vector<std::string>{"primals_1"});
        QVERIFY(std::find(r.recomputed.begin(), r.recomputed.end(), "split") != r.recomputed.end());
        checkShape(s, r);
    }

    void taggedMultiOutputRecordedIndices()
    {
        Graph s = splitGraph();
        nodeOf(s, "split").meta.custom = {{"ap_must_save", true}, {"ap_must_save_getitem_indices", {0, 2}}};
        PartitionResult r = partitionJointGraph(s, modeOpts(PartitionMode::Tagged));
        // getitem 1 is recomputed from the input, so the input is saved too
        QCOMPARE(r.saved, (std::vector<std::string>{"primals_1", "getitem", "getitem_2"}));
        QCOMPARE(r.recomputed, (std::vector<std::string>{"split", "getitem_1"}));
        checkShape(s, r);
        // MUST_SAVE saves every getitem whatever the indices say
        nodeOf(s, "split").meta.recompute = Recompute::MustSave;
        r = partitionJointGraph(s, modeOpts(PartitionMode::Tagged));
        QCOMPARE(r.saved, (std::vector<std::string>{"getitem", "getitem_1", "getitem_2"}));
        QVERIFY(r.recomputed.empty());
        checkShape(s, r);
        // the tuple itself is never a saved value in any mode
        for (PartitionMode m : {PartitionMode::SaveAll, PartitionMode::MinCut}) {
            r = partitionJointGraph(splitGraph(), modeOpts(m));
            QVERIFY(std::find(r.saved.begin(), r.saved.end(), "split") == r.saved.end());
            checkShape(s, r);
        }
    }

    void taggedCollectives()
    {
        Graph g = parse(kFsdp);
        // force_recompute_fsdp_all_gather's tags (5.2)
        for (const char* n : {"all_gather_into_tensor", "wait_tensor"}) {
            nodeOf(g, n).meta.recompute = Recompute::MustRecompute;
            nodeOf(g, n).meta.acGraphId = 100000;
        }
        for (PartitionMode m : {PartitionMode::Tagged, PartitionMode::MinCut}) {
            PassContext ctx;
            const PartitionResult r = partitionJointGraph(g, modeOpts(m), &ctx);
            // the FSDP wait is never saved (the backward all-gathers again); the untagged
            // all_reduce's wait is force-saved
            QVERIFY(std::find(r.saved.begin(), r.saved.end(), "wait_tensor") == r.saved.end());
            QVERIFY(std::find(r.saved.begin(), r.saved.end(), "wait_tensor_1") != r.saved.end());
            QVERIFY(std::find(r.saved.begin(), r.saved.end(), "primals_2") != r.saved.end());
            QVERIFY(hasNodeFrom(r.backward, "all_gather_into_tensor"));
            QVERIFY(!hasNodeFrom(r.backward, "all_reduce"));
            bool forced = false;
            for (const auto& t : ctx.log.tags)
                if (t.node == "all_reduce" && t.after == "MUST_SAVE") forced = true;
            QVERIFY(forced);
            checkShape(g, r);
            QCOMPARE(outputNames(r.backward), (std::vector<std::string>{"mm_1", "None"}));
        }
    }

    // ------------------------------------------------------------ the corpus vs PyTorch
    void corpus_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* n : {"mlp_gelu", "linear_ce", "gpt2_tiny", "llama_tiny"}) QTest::newRow(n) << QString(n);
    }
    void corpus()
    {
        QFETCH(QString, name);
        const std::string n = name.toStdString();
        const fs::path joint = kPytorch / (n + ".joint.code.py");
        FXL_REQUIRE_CORPUS(joint);
        const Loaded j = load(joint);
        const Loaded fwDefault = load(kPytorch / (n + ".fw.default.code.py"));
        const Loaded fwMincut = load(kPytorch / (n + ".fw.mincut.code.py"));

        const PartitionResult all = partitionJointGraph(*j.g, modeOpts(PartitionMode::SaveAll));
        const PartitionResult cut = partitionJointGraph(*j.g, modeOpts(PartitionMode::MinCut));
        // The corpus was partitioned by torch 1.13, whose min-cut had neither the
        // materialized-backward ban nor the used-far-apart / long-chain heuristics: the same
        // cut with those three off is the like-for-like comparison.
        PartitionOptions o113 = modeOpts(PartitionMode::MinCut);
        o113.banMaterializedBackward = o113.banUsedFarApart = o113.banLongFusibleChains = false;
        const PartitionResult cut113 = partitionJointGraph(*j.g, o113);
        checkShape(*j.g, all);
        checkShape(*j.g, cut);
        checkShape(*j.g, cut113);
        QCOMPARE(all.numFwdOutputs, size_t(1));  // (loss, *grads)
        QVERIFY(all.recomputed.empty());

        const SavedSummary oursAll = savedOfForward(all.forward, all.numFwdOutputs);
        const SavedSummary oursCut = savedOfForward(cut.forward, cut.numFwdOutputs);
        const SavedSummary oursCut113 = savedOfForward(cut113.forward, cut113.numFwdOutputs);
        QCOMPARE(oursAll.bytes, all.savedBytes);
        QCOMPARE(oursCut.bytes, cut.savedBytes);
        const SavedSummary ptAll = savedOfForward(*fwDefault.g, all.numFwdOutputs);
        const SavedSummary ptCut = savedOfForward(*fwMincut.g, cut.numFwdOutputs);

        auto cell = [](const SavedSummary& s) {
            return QString("%1 / %2 B (act %3 B)").arg(s.count).arg(s.bytes).arg(s.activationBytes);
        };
        qInfo("| %s | %s | %s | %s, %zu recomputed | %s, %zu recomputed | %s |", n.c_str(), qPrintable(cell(oursAll)),
              qPrintable(cell(ptAll)), qPrintable(cell(oursCut)), cut.recomputed.size(), qPrintable(cell(oursCut113)),
              cut113.recomputed.size(), qPrintable(cell(ptCut)));

        // save_all saves what PyTorch's default partition saves
        QVERIFY2(oursAll.keys == ptAll.keys,
                 ("save_all differs from PyTorch's default partition:\n" + diffKeys(oursAll.keys, ptAll.keys)).c_str());
        QCOMPARE(oursAll.bytes, ptAll.bytes);
        // min-cut with torch 1.13's bans saves no more than PyTorch's min-cut
        QVERIFY2(oursCut113.bytes <= ptCut.bytes,
                 qPrintable(QString("mincut (1.13 bans) saves %1 B, PyTorch's min-cut %2 B")
                                .arg(oursCut113.bytes)
                                .arg(ptCut.bytes)));
        QVERIFY2(oursCut113.activationBytes <= ptCut.activationBytes,
                 qPrintable(QString("mincut (1.13 bans) activations %1 B, PyTorch's %2 B")
                                .arg(oursCut113.activationBytes)
                                .arg(ptCut.activationBytes)));
        // the default bans can only save more than that, never more than saving everything
        QVERIFY(oursCut113.bytes <= oursCut.bytes);
        QVERIFY(oursCut.bytes <= oursAll.bytes);
    }

    // every traced step of the corpus, every mode: verifier-clean graphs computing the joint
    void corpusAllModes_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* n :
             {"mlp_gelu", "linear_ce", "gpt2_tiny", "llama_tiny", "moe_tiny", "moe_dispatch", "checkpoint_mlp"})
            QTest::newRow(n) << QString(n);
    }
    void corpusAllModes()
    {
        QFETCH(QString, name);
        const fs::path joint = kPytorch / (name.toStdString() + ".joint.code.py");
        FXL_REQUIRE_CORPUS(joint);
        const Loaded j = load(joint);
        // moe_tiny returns (loss, tokens_per_expert, *grads)
        const size_t expectFwd = name == "moe_tiny" ? 2 : 1;
        int64_t bytes[3] = {0, 0, 0};
        int k = 0;
        for (PartitionMode m : {PartitionMode::SaveAll, PartitionMode::Tagged, PartitionMode::MinCut}) {
            const PartitionResult r = partitionJointGraph(*j.g, modeOpts(m));
            QCOMPARE(r.numFwdOutputs, expectFwd);
            QVERIFY(r.backward.findByName("tangents_1") != kNoNode);
            checkShape(*j.g, r);
            bytes[k++] = r.savedBytes;
        }
        QVERIFY(bytes[2] <= bytes[0]);  // min-cut never saves more than saving everything
    }

    void gpt2Memory()
    {
        const fs::path joint = kPytorch / "gpt2_tiny.joint.code.py";
        FXL_REQUIRE_CORPUS(joint);
        const Loaded j = load(joint);
        const PartitionResult all = partitionJointGraph(*j.g, modeOpts(PartitionMode::SaveAll));
        const PartitionResult cut = partitionJointGraph(*j.g, modeOpts(PartitionMode::MinCut));
        auto timeline = [](const PartitionResult& r) {
            MemoryOptions mo;
            mo.forwardOutputs = r.numFwdOutputs;
            return computeMemoryTimeline(r.forward, mo);
        };
        const MemoryTimeline ta = timeline(all), tc = timeline(cut);
        qInfo("gpt2_tiny forward: save_all peak %lld B at %s, saved %lld B (distinct non-input storages %lld B); "
              "mincut peak %lld B at %s, saved %lld B (distinct non-input storages %lld B)",
              (long long)ta.peakBytes, ta.peakNode().c_str(), (long long)all.savedBytes, (long long)ta.savedBytes,
              (long long)tc.peakBytes, tc.peakNode().c_str(), (long long)cut.savedBytes, (long long)tc.savedBytes);
        QVERIFY(cut.savedBytes < all.savedBytes);
        QVERIFY(tc.savedBytes < ta.savedBytes);
        QVERIFY(tc.peakBytes <= ta.peakBytes);
    }
};

FXL_TEST_APPLESS_MAIN(TestPartition)
}  // namespace test_partition
#include "test_partition.moc"

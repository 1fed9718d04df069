// Memory timeline: hand-checked byte counts on small graphs (views share storage, outputs stay
// live, in-place ops, tuple outputs, resident inputs, the forward/backward boundary and saved
// activations), the renderings, and the corpus: joint graphs with their meta.json, and the
// default vs min-cut forward partitions.
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "core/analysis/memory_timeline.hpp"
#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/sidecar.hpp"
#include "core/ir/graph.hpp"
#include "core/ops/op_registry.hpp"
#include "core/ops/shape_prop.hpp"
#include "core/util/format.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_memory_timeline {

using namespace fxl;
namespace fs = std::filesystem;

namespace {

const fs::path kPytorch = fxltest::corpusPath("pytorch");
using fxltest::readFile;

std::string module(const std::string& sig, const std::string& body)
{
    return "class GraphModule(torch.nn.Module):\n    def forward(self, " + sig + "):\n" + body;
}

ValueMeta tensor(DType dt, std::vector<int64_t> sizes)
{
    TensorMeta t;
    t.dtype = dt;
    for (int64_t s : sizes) t.sizes.emplace_back(s);
    t.strides = contiguousStrides(t.sizes);
    t.device = "cpu";
    return ValueMeta::ofTensor(t);
}

std::vector<int64_t> live(const MemoryTimeline& t)
{
    std::vector<int64_t> v;
    for (const auto& s : t.steps) v.push_back(s.liveBytes);
    return v;
}

std::vector<int64_t> liveAfter(const MemoryTimeline& t)
{
    std::vector<int64_t> v;
    for (const auto& s : t.steps) v.push_back(s.liveAfterBytes);
    return v;
}

std::vector<std::string> storageNames(const MemoryTimeline& t, const std::vector<int>& idx)
{
    std::vector<std::string> v;
    for (int s : idx) v.push_back(t.storageName(s));
    return v;
}

std::vector<std::string> savedNames(const MemoryTimeline& t, const Graph& g)
{
    std::vector<std::string> v;
    for (const auto& s : t.saved) v.push_back(g.node(s.node).name);
    return v;
}

int storageOf(const MemoryTimeline& t, const std::string& name)
{
    for (size_t k = 0; k < t.storages.size(); ++k)
        if (t.storageName(static_cast<int>(k)) == name) return static_cast<int>(k);
    return -1;
}

// --- views, outputs, resident inputs
const std::string kViews = module("x: \"f32[4, 8]\", w: \"f32[8, 8]\"",
                                  "        mm: \"f32[4, 8]\" = torch.ops.aten.mm.default(x, w)\n"
                                  "        view: \"f32[32]\" = torch.ops.aten.view.default(mm, [32])\n"
                                  "        relu: \"f32[32]\" = torch.ops.aten.relu.default(view)\n"
                                  "        view_1: \"f32[4, 8]\" = torch.ops.aten.view.default(relu, [4, 8])\n"
                                  "        sum_1: \"f32[]\" = torch.ops.aten.sum.default(relu)\n"
                                  "        t: \"f32[8, 8]\" = torch.ops.aten.t.default(w)\n"
                                  "        return (sum_1, view_1, t)\n");

// --- a tensor passed by keyword only (add's `other`)
const std::string kKeyword = module("x: \"f32[4, 8]\", y: \"f32[4, 8]\"",
                                    "        a: \"f32[4, 8]\" = torch.ops.aten.relu.default(x)\n"
                                    "        b: \"f32[4, 8]\" = torch.ops.aten.neg.default(y)\n"
                                    "        add: \"f32[4, 8]\" = torch.ops.aten.add.Tensor(a, other = b)\n"
                                    "        exp: \"f32[4, 8]\" = torch.ops.aten.exp.default(add)\n"
                                    "        sum_1: \"f32[]\" = torch.ops.aten.sum.default(exp)\n"
                                    "        return (sum_1,)\n");

// --- a tuple output, getitem, an in-place op
const std::string kTupleInplace =
    module("x: \"f32[2, 8]\", w: \"f32[8]\", b: \"f32[8]\"",
           "        native_layer_norm = torch.ops.aten.native_layer_norm.default(x, [8], w, b, 1e-05)\n"
           "        getitem: \"f32[2, 8]\" = native_layer_norm[0]\n"
           "        getitem_1: \"f32[2, 1]\" = native_layer_norm[1]\n"
           "        add_: \"f32[2, 8]\" = torch.ops.aten.add_.Tensor(getitem, 1.0)\n"
           "        mul: \"f32[2, 8]\" = torch.ops.aten.mul.Tensor(add_, getitem_1)\n"
           "        return (mul,)\n");

// --- a view list, and reshape as a view (contiguous input) or a copy (transposed input)
const std::string kSplitReshape = module("x: \"f32[4, 6]\"",
                                         "        relu: \"f32[4, 6]\" = torch.ops.aten.relu.default(x)\n"
                                         "        split = torch.ops.aten.split.Tensor(relu, 2, 1)\n"
                                         "        getitem: \"f32[4, 2]\" = split[0]\n"
                                         "        getitem_1: \"f32[4, 2]\" = split[1]\n"
                                         "        getitem_2: \"f32[4, 2]\" = split[2]\n"
                                         "        clone: \"f32[4, 2]\" = torch.ops.aten.clone.default(getitem_1)\n"
                                         "        t: \"f32[6, 4][1, 6]\" = torch.ops.aten.t.default(x)\n"
                                         "        reshape: \"f32[24]\" = torch.ops.aten.reshape.default(t, [24])\n"
                                         "        reshape_1: \"f32[24]\" = torch.ops.aten.reshape.default(relu, [24])\n"
                                         "        sum_1: \"f32[]\" = torch.ops.aten.sum.default(reshape_1)\n"
                                         "        return (clone, reshape, sum_1)\n");

// --- an AOT joint graph in miniature: backward found from the tangent
const std::string kJointTangent = module(
    "x: \"f32[2, 4]\", w1: \"f32[4, 8]\", tangents_1: \"f32[2, 8]\"",
    "        mm: \"f32[2, 8]\" = torch.ops.aten.mm.default(x, w1)\n"
    "        relu: \"f32[2, 8]\" = torch.ops.aten.relu.default(mm)\n"
    "        detach: \"f32[2, 8]\" = torch.ops.aten.detach.default(relu)\n"
    "        t: \"f32[4, 2]\" = torch.ops.aten.t.default(x)\n"
    "        threshold_backward: \"f32[2, 8]\" = torch.ops.aten.threshold_backward.default(tangents_1, detach, 0)\n"
    "        mm_1: \"f32[4, 8]\" = torch.ops.aten.mm.default(t, threshold_backward)\n"
    "        return (mm_1,)\n");

// --- a make_fx train step in miniature: backward found from the ones_like seed of the loss
const std::string kJointLoss =
    module("x: \"f32[2, 4]\", w: \"f32[4, 4]\"",
           "        mm: \"f32[2, 4]\" = torch.ops.aten.mm.default(x, w)\n"
           "        sum_1: \"f32[]\" = torch.ops.aten.sum.default(mm)\n"
           "        ones_like: \"f32[]\" = torch.ops.aten.ones_like.default(sum_1, pin_memory = False, memory_format = "
           "torch.preserve_format)\n"
           "        expand: \"f32[2, 4]\" = torch.ops.aten.expand.default(ones_like, [2, 4])\n"
           "        t: \"f32[4, 2]\" = torch.ops.aten.t.default(x)\n"
           "        mm_1: \"f32[4, 4]\" = torch.ops.aten.mm.default(t, expand)\n"
           "        return (sum_1, mm_1)\n");

// --- the forward graph of a partition: [user output, saved...]
std::string forwardPartition(const std::string& savedActivation)
{
    return module("primals_1: \"f32[2, 4]\", primals_2: \"f32[4, 8]\"",
                  "        mm: \"f32[2, 8]\" = torch.ops.aten.mm.default(primals_1, primals_2)\n"
                  "        relu: \"f32[2, 8]\" = torch.ops.aten.relu.default(mm)\n"
                  "        sum_1: \"f32[]\" = torch.ops.aten.sum.default(relu)\n"
                  "        t: \"f32[8, 4]\" = torch.ops.aten.t.default(primals_2)\n"
                  "        return [sum_1, "
                      + savedActivation + ", t, primals_1]\n");
}

// Bytes of the largest tensor a node allocates (placeholders and non-alias ops), from its val.
int64_t largestAllocation(const Graph& g)
{
    const auto& reg = OpRegistry::instance();
    int64_t best = 0;
    std::function<void(const ValueMeta&)> visit = [&](const ValueMeta& v) {
        if (v.isTensor()) best = std::max(best, v.tensor.bytesHint());
        for (const auto& e : v.elems) visit(e);
    };
    g.forEachNode([&](const Node& n) {
        if (n.op == NodeOp::Output) return;
        if (n.op == NodeOp::CallFunction) {
            if (n.target == "operator.getitem") return;
            const OpInfo* op = reg.find(n.target);
            if (op
                && (op->has(kTraitView) || op->has(kTraitViewList) || op->has(kTraitAliasNoAnnot)
                    || op->has(kTraitInplace) || op->has(kTraitWait)))
                return;
        }
        visit(n.val);
    });
    return best;
}

int64_t placeholderBytes(const Graph& g)
{
    int64_t sum = 0;
    g.forEachNode([&](const Node& n) {
        if ((n.op == NodeOp::Placeholder || n.op == NodeOp::GetAttr) && n.val.isTensor())
            sum += n.val.tensor.bytesHint();
    });
    return sum;
}

}  // namespace

class TestMemoryTimeline : public QObject
{
    Q_OBJECT

private slots:
    void viewsOutputsInputs()
    {
        Graph g = parseFxText(kViews, "views.py");
        MemoryTimeline t = computeMemoryTimeline(g);
        QCOMPARE(t.steps.size(), g.size());
        // x 128, w 256 resident; mm 128 allocated; view shares mm; relu 128 allocated while mm is
        // still held (view is its input), then mm is freed; view_1 shares relu; sum_1 4; t shares w.
        QCOMPARE(live(t), (std::vector<int64_t>{128, 384, 512, 512, 640, 512, 516, 516, 516}));
        QCOMPARE(liveAfter(t), (std::vector<int64_t>{128, 384, 512, 512, 512, 512, 516, 516, 516}));
        QCOMPARE(t.peakBytes, int64_t(640));
        QCOMPARE(t.peakStep, 4);
        QCOMPARE(t.peakNode(), std::string("relu"));
        QCOMPARE(storageNames(t, t.liveAtPeak), (std::vector<std::string>{"w", "x", "mm", "relu"}));
        QCOMPARE(t.inputBytes, int64_t(384));
        QCOMPARE(t.outputBytes, int64_t(132));  // relu (through view_1) + sum_1; t is w's storage
        QCOMPARE(t.finalBytes, t.inputBytes + t.outputBytes);
        QCOMPARE(t.storages.size(), size_t(5));
        const StorageInfo& mm = t.storages[static_cast<size_t>(storageOf(t, "mm"))];
        QCOMPARE(mm.allocStep, 2);
        QCOMPARE(mm.freeStep, 4);
        QCOMPARE(mm.bytes, int64_t(128));
        const StorageInfo& relu = t.storages[static_cast<size_t>(storageOf(t, "relu"))];
        QVERIFY(relu.output && relu.freeStep == -1);
        QVERIFY(t.storages[static_cast<size_t>(storageOf(t, "w"))].input);
        QCOMPARE(t.boundaryStep, -1);
        QVERIFY(t.saved.empty());
        QCOMPARE(timelineSummary(t), std::string("peak 640 B at relu (node 5/9), no fw/bw boundary"));
        QVERIFY(t.unknownSizes.empty());

        // without the inputs
        MemoryOptions o;
        o.countInputs = false;
        MemoryTimeline n = computeMemoryTimeline(g, o);
        QCOMPARE(live(n), (std::vector<int64_t>{0, 0, 128, 128, 256, 128, 132, 132, 132}));
        QCOMPARE(n.peakBytes, int64_t(256));
        QCOMPARE(n.peakNode(), std::string("relu"));
        QCOMPARE(n.inputBytes, int64_t(0));
        QCOMPARE(n.finalBytes, int64_t(132));

        // CSV
        std::string csv = timelineToCsv(t, g);
        std::istringstream in(csv);
        std::vector<std::string> rows;
        for (std::string line; std::getline(in, line);) rows.push_back(line);
        QCOMPARE(rows.size(), g.size() + 1);
        QCOMPARE(rows[0],
                 std::string(
                     "execution_index,node,op,target,phase,allocated_bytes,freed_bytes,live_bytes,live_after_bytes"));
        QCOMPARE(rows[1], std::string("0,x,placeholder,x,input,128,0,128,128"));
        QCOMPARE(rows[5], std::string("4,relu,call_function,aten.relu.default,forward,128,128,640,512"));
        QCOMPARE(rows[9], std::string("8,output,output,output,output,0,0,516,516"));
    }

    // A tensor read only through a keyword argument (`other = b`) lives until that read: the
    // free rule follows every use, positional or keyword.
    void keywordTensorLivesToItsUse()
    {
        const Graph g = parseFxText(kKeyword, "keyword.py");
        const MemoryTimeline t = computeMemoryTimeline(g);
        // x, y 128 each; a, b 128 each; add (reads a, and b by keyword) 128, then a and b freed;
        // exp 128, then add freed; sum 4, then exp freed
        QCOMPARE(live(t), (std::vector<int64_t>{128, 256, 384, 512, 640, 512, 388, 260}));
        QCOMPARE(liveAfter(t), (std::vector<int64_t>{128, 256, 384, 512, 384, 384, 260, 260}));
        QCOMPARE(t.peakNode(), std::string("add"));
        const StorageInfo& b = t.storages[static_cast<size_t>(storageOf(t, "b"))];
        QCOMPARE(b.freeStep, 4);
    }

    void tupleAndInplace()
    {
        Graph g = parseFxText(kTupleInplace, "tuple.py");
        // print_readable has no annotation for tuples: the meta the tracer records
        g.node(g.findByName("native_layer_norm")).val =
            ValueMeta::ofTuple({tensor(DType::F32, {2, 8}), tensor(DType::F32, {2, 1}), tensor(DType::F32, {2, 1})});
        MemoryTimeline t = computeMemoryTimeline(g);
        // x 64, w 32, b 32; the tuple allocates 64 + 8 + 8; element 2 (never extracted) dies with
        // the tuple after its last getitem; add_ writes getitem in place; mul 64; then elements 0, 1 die.
        QCOMPARE(live(t), (std::vector<int64_t>{64, 96, 128, 208, 208, 208, 200, 264, 192}));
        QCOMPARE(liveAfter(t), (std::vector<int64_t>{64, 96, 128, 208, 208, 200, 200, 192, 192}));
        QCOMPARE(t.steps[6].allocatedBytes, int64_t(0));  // add_
        QCOMPARE(t.peakBytes, int64_t(264));
        QCOMPARE(t.peakNode(), std::string("mul"));
        QCOMPARE(t.finalBytes, int64_t(192));
        QCOMPARE(t.outputBytes, int64_t(64));
        int e2 = storageOf(t, "native_layer_norm[2]");
        QVERIFY(e2 >= 0);
        QCOMPARE(t.storages[static_cast<size_t>(e2)].freeStep, 5);
        QCOMPARE(t.storages[static_cast<size_t>(storageOf(t, "native_layer_norm[0]"))].freeStep, 7);
        QCOMPARE(t.storages[static_cast<size_t>(storageOf(t, "native_layer_norm[1]"))].freeStep, 7);
        QCOMPARE(storageNames(t, t.liveAtPeak),
                 (std::vector<std::string>{"x", "native_layer_norm[0]", "mul", "w", "b", "native_layer_norm[1]"}));
        // JSON
        nlohmann::json j = timelineToJson(t);
        QCOMPARE(j["peak"]["bytes"].get<int64_t>(), int64_t(264));
        QCOMPARE(j["peak"]["node"].get<std::string>(), std::string("mul"));
        QCOMPARE(j["peak"]["live"][0]["bytes"].get<int64_t>(), int64_t(64));
        QCOMPARE(j["storages"].size(), size_t(7));
        QCOMPARE(j["storages"][5]["name"].get<std::string>(), std::string("native_layer_norm[2]"));
        QCOMPARE(j["storages"][5]["free_step"].get<int>(), 5);
        QVERIFY(j["storages"][6]["free_step"].is_null());  // mul is returned
        QVERIFY(j["boundary"].is_null());
        QCOMPARE(j["steps"].size(), g.size());
        QCOMPARE(j["steps"][7]["live"].get<int64_t>(), int64_t(264));
        QCOMPARE(j["final_bytes"].get<int64_t>(), int64_t(192));
        QCOMPARE(j["summary"].get<std::string>(), timelineSummary(t));
    }

    // A higher-order op whose body returns one of its operands: that output element shares
    // the operand's storage (R3); while the body runs its own temporaries count (R10).
    void hopPassThrough()
    {
        const char* text = "class GraphModule(torch.nn.Module):\n"
                           "    def forward(self, x: \"f32[4, 8]\", w: \"f32[8, 8]\"):\n"
                           "        body = self.body\n"
                           "        invoke_subgraph = torch.ops.higher_order.invoke_subgraph(body, 'subgraph_0', x, "
                           "w);  body = x = None\n"
                           "        getitem: \"f32[4, 8]\" = invoke_subgraph[0]\n"
                           "        getitem_1: \"f32[8, 8]\" = invoke_subgraph[1];  invoke_subgraph = None\n"
                           "        mul: \"f32[4, 8]\" = torch.ops.aten.mul.Tensor(getitem, 2);  getitem = None\n"
                           "        return (mul, getitem_1)\n"
                           "\n"
                           "    class body(torch.nn.Module):\n"
                           "        def forward(self, arg0_1: \"f32[4, 8]\", arg1_1: \"f32[8, 8]\"):\n"
                           "            mm: \"f32[4, 8]\" = torch.ops.aten.mm.default(arg0_1, arg1_1);  arg0_1 = None\n"
                           "            tanh: \"f32[4, 8]\" = torch.ops.aten.tanh.default(mm);  mm = None\n"
                           "            return (tanh, arg1_1)\n";
        Graph g = parseFxText(text, "hop.py");
        QVERIFY(g.subgraph("body"));
        MemoryTimeline t = computeMemoryTimeline(g);
        // x 128, w 256; the HOP allocates only element 0 (tanh, 128): element 1 is w itself;
        // getitem_1 shares w; mul 128; element 0 dies after mul. While the body runs it holds
        // mm and tanh (256 bytes, R10): the HOP's step is 384 + 256, its live after 512.
        // steps: x, w, body, invoke_subgraph, getitem, getitem_1, mul, output
        QCOMPARE(live(t), (std::vector<int64_t>{128, 384, 384, 640, 512, 512, 640, 512}));
        QCOMPARE(t.steps[3].bodyPeakBytes, int64_t(256));
        QCOMPARE(t.steps[3].liveAfterBytes, int64_t(512));
        QCOMPARE(t.peakBytes, int64_t(640));
        int hopStorages = 0;
        for (const auto& s : t.storages)
            if (g.node(s.node).name == "invoke_subgraph") {
                ++hopStorages;
                QCOMPARE(s.element, 0);
                QCOMPARE(s.bytes, int64_t(128));
            }
        QCOMPARE(hopStorages, 1);
        // the returned getitem_1 keeps w's storage (an input: resident anyway)
        QCOMPARE(t.outputBytes, int64_t(128));
    }

    // Dynamo-level nodes: tensor methods, augmented assignment and torch.X views alias as
    // their aten ops (R3); other methods allocate.
    void torchLevelAliases()
    {
        const char* text = "class GraphModule(torch.nn.Module):\n"
                           "    def forward(self, L_x_: \"f32[4, 8]\", L_y_: \"f32[4, 8]\"):\n"
                           "        v: \"f32[32]\" = L_x_.view(32)\n"
                           "        tr: \"f32[8, 4][1, 8]\" = torch.transpose(L_x_, 0, 1)\n"
                           "        c: \"f32[8, 4]\" = tr.contiguous()\n"
                           "        f: \"f32[32]\" = L_y_.flatten()\n"
                           "        s: \"f32[4, 8]\" = L_x_.sin()\n"
                           "        a: \"f32[4, 8]\" = s.add_(1)\n"
                           "        i: \"f32[4, 8]\" = operator.iadd(s, L_y_)\n"
                           "        return (v, c, f, a, i)\n";
        Graph g = parseFxText(text, "dyn.py");
        MemoryTimeline t = computeMemoryTimeline(g);
        // inputs 128 + 128; view, transpose, flatten (contiguous input), add_, iadd: 0;
        // contiguous of the transposed view copies (128); sin allocates (128)
        std::map<std::string, int64_t> allocated;
        for (size_t k = 0; k < t.steps.size(); ++k) allocated[t.names[k]] = t.steps[k].allocatedBytes;
        QCOMPARE(allocated["v"], int64_t(0));
        QCOMPARE(allocated["tr"], int64_t(0));
        QCOMPARE(allocated["c"], int64_t(128));
        QCOMPARE(allocated["f"], int64_t(0));
        QCOMPARE(allocated["s"], int64_t(128));
        QCOMPARE(allocated["a"], int64_t(0));
        QCOMPARE(allocated["i"], int64_t(0));
        QCOMPARE(t.peakBytes, int64_t(512));
    }

    void viewListAndReshape()
    {
        Graph g = parseFxText(kSplitReshape, "split.py");
        g.node(g.findByName("split")).val =
            ValueMeta::ofTuple({tensor(DType::F32, {4, 2}), tensor(DType::F32, {4, 2}), tensor(DType::F32, {4, 2})});
        MemoryTimeline t = computeMemoryTimeline(g);
        // split and its getitems share relu; clone 32; reshape of the transposed t copies (96);
        // reshape of contiguous relu is a view, so relu lives until sum_1.
        QCOMPARE(live(t), (std::vector<int64_t>{96, 192, 192, 192, 192, 192, 224, 224, 320, 320, 324, 228}));
        QCOMPARE(t.steps[10].freedBytes, int64_t(96));
        QCOMPARE(t.peakBytes, int64_t(324));
        QCOMPARE(t.peakNode(), std::string("sum_1"));
        QCOMPARE(t.finalBytes, int64_t(228));
        QCOMPARE(t.storages.size(), size_t(5));  // x, relu, clone, reshape, sum_1
        QVERIFY(storageOf(t, "reshape") >= 0);
        QCOMPARE(storageOf(t, "reshape_1"), -1);
        // without the tuple meta getitem falls back to the whole value: same numbers here
        Graph u = parseFxText(kSplitReshape, "split.py");
        QCOMPARE(live(computeMemoryTimeline(u)), live(t));
    }

    void jointFromTangents()
    {
        Graph g = parseFxText(kJointTangent, "joint.py");
        MemoryTimeline t = computeMemoryTimeline(g);
        QCOMPARE(live(t), (std::vector<int64_t>{32, 160, 224, 288, 352, 288, 288, 352, 416, 352}));
        QCOMPARE(t.peakBytes, int64_t(416));
        QCOMPARE(t.peakNode(), std::string("mm_1"));
        QCOMPARE(t.boundaryStep, 7);
        QCOMPARE(t.liveAtBoundaryBytes, int64_t(288));
        std::vector<StepPhase> phases;
        for (const auto& s : t.steps) phases.push_back(s.phase);
        QCOMPARE(phases,
                 (std::vector<StepPhase>{StepPhase::Input, StepPhase::Input, StepPhase::Input, StepPhase::Forward,
                                         StepPhase::Forward, StepPhase::Forward, StepPhase::Forward,
                                         StepPhase::Backward, StepPhase::Backward, StepPhase::Output}));
        // saved: detach (relu's 64 bytes) and t (a view of the input x: no activation bytes)
        QCOMPARE(savedNames(t, g), (std::vector<std::string>{"detach", "t"}));
        QCOMPARE(t.saved[0].bytes, int64_t(64));
        QVERIFY(!t.saved[0].inputBacked);
        QCOMPARE(t.saved[1].bytes, int64_t(0));
        QVERIFY(t.saved[1].inputBacked);
        QCOMPARE(t.savedBytes, int64_t(64));
        QCOMPARE(timelineSummary(t), std::string("peak 416 B at mm_1 (node 9/10), saved 64 B across fw/bw"));
        nlohmann::json j = timelineToJson(t);
        QCOMPARE(j["boundary"]["node"].get<std::string>(), std::string("threshold_backward"));
        QCOMPARE(j["saved"]["bytes"].get<int64_t>(), int64_t(64));
        QCOMPARE(j["saved"]["values"][0]["node"].get<std::string>(), std::string("detach"));

        // meta.phase wins over dataflow
        g.node(g.findByName("t")).meta.phase = Phase::Backward;
        MemoryTimeline m = computeMemoryTimeline(g);
        QCOMPARE(m.boundaryStep, 6);
        // t now runs in the backward: it reads the input x, saved apart (resident)
        QCOMPARE(savedNames(m, g), (std::vector<std::string>{"x", "detach"}));
        QCOMPARE(m.savedInputs(), size_t(1));
        QCOMPARE(m.savedBytes, int64_t(64));
        MemoryOptions o;
        o.usePhaseMeta = false;
        QCOMPARE(computeMemoryTimeline(g, o).boundaryStep, 7);
    }

    void jointFromLossSeed()
    {
        Graph g = parseFxText(kJointLoss, "loss.py");
        MemoryTimeline t = computeMemoryTimeline(g);
        QCOMPARE(live(t), (std::vector<int64_t>{32, 96, 128, 132, 104, 104, 104, 168, 164}));
        QCOMPARE(liveAfter(t), (std::vector<int64_t>{32, 96, 128, 100, 104, 104, 104, 164, 164}));
        QCOMPARE(t.peakBytes, int64_t(168));
        QCOMPARE(t.boundaryStep, 4);  // ones_like
        QCOMPARE(t.liveAtBoundaryBytes, int64_t(100));
        // what a partition saves: x, from which the backward recomputes t (work only the
        // backward uses); sum_1 is read only by the seed, which needs its shape alone
        QCOMPARE(savedNames(t, g), (std::vector<std::string>{"x"}));
        QCOMPARE(t.savedBytes, int64_t(0));
        QCOMPARE(t.savedInputs(), size_t(1));
        QCOMPARE(t.savedActivations(), size_t(0));
        QCOMPARE(t.finalBytes, int64_t(164));
        QCOMPARE(t.outputBytes, int64_t(68));
    }

    void forwardPartitionAndCompare()
    {
        Graph a = parseFxText(forwardPartition("relu"), "fw_a.py");
        Graph b = parseFxText(forwardPartition("mm"), "fw_b.py");
        MemoryTimeline plain = computeMemoryTimeline(a);
        QCOMPARE(plain.boundaryStep, -1);
        QVERIFY(plain.saved.empty());
        MemoryOptions o;
        o.forwardOutputs = 1;
        MemoryTimeline ta = computeMemoryTimeline(a, o);
        MemoryTimeline tb = computeMemoryTimeline(b, o);
        QCOMPARE(live(ta), (std::vector<int64_t>{32, 160, 224, 288, 228, 228, 228}));
        QCOMPARE(live(tb), (std::vector<int64_t>{32, 160, 224, 288, 292, 228, 228}));
        QCOMPARE(ta.boundaryStep, 6);  // the output step
        // primals_1 is an input, saved apart (resident)
        QCOMPARE(savedNames(ta, a), (std::vector<std::string>{"primals_1", "relu", "t"}));
        QCOMPARE(ta.savedActivations(), size_t(1));
        QCOMPARE(ta.savedInputs(), size_t(2));
        QCOMPARE(ta.boundaryRule, std::string("forward outputs given"));
        QCOMPARE(savedSummary(ta),
                 std::string("1 saved activation (64 B), 2 parameters / inputs or views of them "
                             "(resident, not counted)"));
        QCOMPARE(ta.savedBytes, int64_t(64));
        QCOMPARE(tb.savedBytes, int64_t(64));
        QCOMPARE(live(plain), live(ta));
        TimelineComparison c = compareTimelines(ta, tb);
        QCOMPARE(c.peakDelta, int64_t(4));
        QCOMPARE(c.peakNodeA, std::string("relu"));
        QCOMPARE(c.peakNodeB, std::string("sum_1"));
        QCOMPARE(c.savedDelta, int64_t(0));
        QCOMPARE(c.summary, std::string("peak 288 B -> 292 B (+4 B) at relu -> sum_1; saved 64 B -> 64 B (0 B)"));
    }

    void byteFormat()
    {
        QCOMPARE(formatByteSize(0), std::string("0 B"));
        QCOMPARE(formatByteSize(1023), std::string("1023 B"));
        QCOMPARE(formatByteSize(1024), std::string("1 KiB"));
        QCOMPARE(formatByteSize(456 * 1024), std::string("456 KiB"));
        QCOMPARE(formatByteSize(1289748), std::string("1.23 MiB"));
        QCOMPARE(formatByteSize(int64_t(12.3 * 1024 * 1024 * 1024)), std::string("12.3 GiB"));
        QCOMPARE(formatByteSize(-2048), std::string("-2 KiB"));
    }

    void symbolicSizes()
    {
        Graph g = parseFxText(module("x: \"f32[s0, 4]\"",
                                     "        relu: \"f32[s0, 4]\" = torch.ops.aten.relu.default(x)\n"
                                     "        return (relu,)\n"),
                              "sym.py");
        // no hint: the size is unknown (0 bytes, listed)
        MemoryTimeline none = computeMemoryTimeline(g);
        QCOMPARE(none.peakBytes, int64_t(0));
        QCOMPARE(none.unknownSizes, (std::vector<std::string>{"x", "relu"}));
        // with the hint s0 = 8: 8 * 4 * 4 bytes each
        for (const char* n : {"x", "relu"}) {
            Node& node = g.node(g.findByName(n));
            QVERIFY(!node.val.tensor.sizes[0].isConcrete());
            node.val.tensor.sizes[0].setHint(8);
        }
        MemoryTimeline t = computeMemoryTimeline(g);
        QVERIFY(t.unknownSizes.empty());
        QCOMPARE(live(t), (std::vector<int64_t>{128, 256, 256}));
    }

    void unknownSizes()
    {
        // gm.code without annotations: sizes unknown, counted 0, listed
        Graph g = parseFxText("def forward(self, x):\n"
                              "    relu = torch.ops.aten.relu.default(x)\n"
                              "    view = torch.ops.aten.view.default(relu, [4])\n"
                              "    return (view,)\n",
                              "plain.py");
        MemoryTimeline t = computeMemoryTimeline(g);
        QCOMPARE(t.peakBytes, int64_t(0));
        QCOMPARE(t.unknownSizes, (std::vector<std::string>{"x", "relu"}));
        // an unknown operator is an allocation, and said so
        Graph u = parseFxText(
            module("x: \"f32[4]\"", "        y: \"f32[4]\" = torch.ops.mylib.frob.default(x)\n        return (y,)\n"),
            "unknown.py");
        MemoryTimeline tu = computeMemoryTimeline(u);
        QCOMPARE(tu.peakBytes, int64_t(32));
        QCOMPARE(tu.notes.size(), size_t(1));
        QVERIFY(tu.notes[0].find("mylib.frob.default") != std::string::npos);
    }

    void corpusJoint_data()
    {
        QTest::addColumn<QString>("path");
        std::vector<fs::path> files;
        for (const char* dir : {"pytorch", "pytorch/large"})
            for (const fs::path& f : fxltest::corpusFiles(dir, {".joint.code.py"})) files.push_back(f);
        std::sort(files.begin(), files.end());
        for (const auto& f : files) QTest::newRow(f.filename().string().c_str()) << QString::fromStdString(f.string());
    }

    void corpusJoint()
    {
        QFETCH(QString, path);
        FXL_REQUIRE_CORPUS(path);
        const std::string file = path.toStdString();
        Graph g = parseFxText(readFile(file), file);
        SidecarFiles sc = findSidecars(file);
        QVERIFY2(!sc.meta.empty(), "meta.json beside the joint graph");
        DiagnosticList diags;
        attachSidecarMeta(g, sc.meta, diags);
        // meta.json records no tuples: multi-output nodes are sized from their getitems
        MemoryTimeline raw = computeMemoryTimeline(g);
        // fill what meta.json leaves out (tuples, get_attr constants) by shape propagation
        ShapePropOptions so;
        so.overwrite = false;
        if (!sc.constants.empty()) so.constants = inputMetasFromSafetensors(sc.constants);
        ShapePropResult prop = propagateShapes(g, so);
        QElapsedTimer timer;
        timer.start();
        MemoryTimeline t = computeMemoryTimeline(g);
        const qint64 ms = timer.elapsed();
        if (prop.problems.empty())
            QVERIFY2(t.unknownSizes.empty(), t.unknownSizes.empty() ? "" : t.unknownSizes[0].c_str());
        QVERIFY(raw.peakBytes <= t.peakBytes);  // only unextracted tuple elements and constants were missing
        QCOMPARE(raw.boundaryStep, t.boundaryStep);
        QCOMPARE(t.steps.size(), g.size());
        const int64_t largest = largestAllocation(g);
        QVERIFY(largest > 0);
        QVERIFY2(t.peakBytes >= largest,
                 qPrintable(QString("peak %1 < largest tensor %2").arg(t.peakBytes).arg(largest)));
        QCOMPARE(t.inputBytes, placeholderBytes(g));
        QCOMPARE(t.finalBytes, t.inputBytes + t.outputBytes);
        QCOMPARE(t.steps.back().liveAfterBytes, t.finalBytes);
        // the returned values cannot hold more than their own sizes
        int64_t returned = 0;
        g.node(g.outputNode()).args[0].forEachNode([&](NodeId id) {
            const Node& n = g.node(id);
            if (n.op != NodeOp::Placeholder && n.val.isTensor()) returned += n.val.tensor.bytesHint();
        });
        QVERIFY2(t.outputBytes <= returned, qPrintable(QString("%1 > %2").arg(t.outputBytes).arg(returned)));
        // a train step has a backward, and saves values for it (a checkpointed model saves
        // only its inputs: checkpoint_mlp)
        QVERIFY(t.boundaryStep > 0);
        QVERIFY(!t.saved.empty());
        QVERIFY(t.savedBytes <= t.peakBytes);
        QVERIFY(file.ends_with("checkpoint_mlp.joint.code.py") ? t.savedBytes == 0 : t.savedBytes > 0);
        QVERIFY(t.liveAtBoundaryBytes <= t.peakBytes);
        // dataflow alone (ones_like seed) finds a boundary too
        MemoryOptions df;
        df.usePhaseMeta = false;
        MemoryTimeline d = computeMemoryTimeline(g, df);
        QVERIFY(d.boundaryStep > 0 && !d.saved.empty());
        QCOMPARE(d.peakBytes, t.peakBytes);  // phases do not change the frees
        // renderings
        std::string csv = timelineToCsv(t, g);
        QCOMPARE(size_t(std::count(csv.begin(), csv.end(), '\n')), g.size() + 1);
        nlohmann::json j = nlohmann::json::parse(timelineToJson(t).dump());
        QCOMPARE(j["peak"]["bytes"].get<int64_t>(), t.peakBytes);
        qDebug("%s: %s; dataflow: boundary at %s, saved %s; meta.json alone: %s (%zu tensors of unknown size); "
               "%zu shape problems; %lld ms",
               fs::path(file).filename().c_str(), timelineSummary(t).c_str(),
               d.names[static_cast<size_t>(d.boundaryStep)].c_str(), formatByteSize(d.savedBytes).c_str(),
               timelineSummary(raw).c_str(), raw.unknownSizes.size(), prop.problems.size(), static_cast<long long>(ms));
    }

    void partitionsSaved_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* n : {"mlp_gelu", "linear_ce", "gpt2_tiny", "llama_tiny"}) QTest::newRow(n) << n;
    }

    // The forward graphs of AOT's default and min-cut partitioners: min-cut saves no more.
    void partitionsSaved()
    {
        QFETCH(QString, name);
        const std::string base = (kPytorch / name.toStdString()).string();
        FXL_REQUIRE_CORPUS(base + ".joint.code.py");
        Graph joint = parseFxText(readFile(base + ".joint.code.py"), base + ".joint.code.py");
        DiagnosticList diags;
        attachSidecarMeta(joint, findSidecars(base + ".joint.code.py").meta, diags);
        const auto jointPh = joint.placeholders();
        MemoryTimeline tl[2];
        const char* parts[2] = {"default", "mincut"};
        for (int k = 0; k < 2; ++k) {
            const std::string fw = base + ".fw." + parts[k] + ".code.py";
            const std::string bw = base + ".bw." + parts[k] + ".code.py";
            Graph g = parseFxText(readFile(fw), fw);
            Graph b = parseFxText(readFile(bw), bw);
            // primals_i is the joint graph's i-th input
            ShapePropOptions so;
            for (NodeId id : g.placeholders()) {
                const Node& p = g.node(id);
                QVERIFY(p.name.rfind("primals_", 0) == 0);
                size_t i = std::stoul(p.name.substr(8));
                QVERIFY(i >= 1 && i <= jointPh.size());
                so.inputs[p.name] = joint.node(jointPh[i - 1]).val.tensor;
            }
            SidecarFiles sc = findSidecars(fw);
            if (!sc.constants.empty()) so.constants = inputMetasFromSafetensors(sc.constants);
            ShapePropResult r = propagateShapes(g, so);
            QVERIFY2(r.problems.empty(), r.problems.empty() ? "" : r.problems[0].c_str());
            // the forward returns [user outputs..., saved...]; the backward takes [saved..., tangents...]
            size_t tangents = 0;
            for (NodeId id : b.placeholders()) tangents += b.node(id).name.rfind("tangents", 0) == 0;
            const Node& out = g.node(g.outputNode());
            const size_t outputs = out.args[0].items.size();
            const size_t savedCount = b.placeholders().size() - tangents;
            QVERIFY(outputs > savedCount);
            MemoryOptions o;
            o.forwardOutputs = outputs - savedCount;
            tl[k] = computeMemoryTimeline(g, o);
            QVERIFY(tl[k].unknownSizes.empty());
            QCOMPARE(tl[k].boundaryStep, int(g.size()) - 1);
            QCOMPARE(tl[k].finalBytes, tl[k].inputBytes + tl[k].outputBytes);
            qDebug("%s fw.%s: %s (%zu saved values, %zu user outputs)", qPrintable(name), parts[k],
                   timelineSummary(tl[k]).c_str(), tl[k].saved.size(), *o.forwardOutputs);
        }
        TimelineComparison c = compareTimelines(tl[0], tl[1]);
        qDebug("%s default -> mincut: %s", qPrintable(name), c.summary.c_str());
        QVERIFY(tl[0].savedBytes > 0);
        QVERIFY2(tl[1].savedBytes <= tl[0].savedBytes, c.summary.c_str());
    }
};

FXL_TEST_APPLESS_MAIN(TestMemoryTimeline)
}  // namespace test_memory_timeline
#include "test_memory_timeline.moc"

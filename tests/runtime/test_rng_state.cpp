// The executor on run_and_save_rng_state / run_with_rng_state (torch/_prims/rng_prims.py, what
// AOT's functionalize_rng_ops puts around a recomputed random op of an activation-checkpointed
// region): the replay gives bitwise the values the saved run drew (rand, native_dropout's output
// and mask), the run's generator is as if the replay had not happened, a recomputed dropout
// equals the reused one, a forward/backward split through a saved-state input replays too, bad
// states and bad op arguments are KernelErrors naming the node, and the measured live bytes
// follow the memory timeline (the state is a 16-byte storage of its own).
#include <QtTest>

#include <cstring>
#include <string>
#include <vector>

#include "core/analysis/memory_timeline.hpp"
#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/safetensors.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/exec/executor.hpp"
#include "runtime/math/philox.hpp"
#include "test_registry.hpp"

namespace test_rng_state {

using namespace fxl;

namespace {

std::vector<uint8_t> bytesOf(Backend& b, const Tensor& t)
{
    Tensor c = t;
    if (!t.isContiguous()) {
        c = b.empty(t.sizes(), t.dtype());
        b.copy(c, t);
    }
    std::vector<uint8_t> out(static_cast<size_t>(c.nbytes()));
    b.download(out.data(), c, c.nbytes());
    return out;
}

std::vector<int64_t> int64sOf(Backend& b, const Tensor& t)
{
    const auto bytes = bytesOf(b, t);
    std::vector<int64_t> v(bytes.size() / 8);
    std::memcpy(v.data(), bytes.data(), v.size() * 8);
    return v;
}

NodeId nodeNamed(const Graph& g, const std::string& name)
{
    for (NodeId id : g.order())
        if (g.node(id).name == name) return id;
    throw std::runtime_error("no node " + name);
}

Graph parse(const std::string& body, const std::string& signature = "x: \"f32[8, 16][16, 1]cpu\"")
{
    Graph g = parseFxText("class GraphModule(torch.nn.Module):\n    def forward(self, " + signature + "):\n" + body,
                          "<test>");
    g.rebuildUsers();
    return g;
}

ExecResult run(const Graph& g, Backend& be, uint64_t rngSeed, const SafeTensorsFile* inputs = nullptr)
{
    ExecOptions o;
    o.backend = &be;
    o.rngSeed = rngSeed;
    o.inputSeed = 5;
    o.inputs = inputs;
    return executeGraph(g, o);
}

const std::string kRandArgs = "[4, 5], device = device(type='cpu'), pin_memory = False";

// (a) + (c): a saved rand replays; the generator after the replay is the one a graph
// without the replay has.
const std::string kRandGraph =
    "        run_and_save_rng_state = torch.ops.higher_order.run_and_save_rng_state(torch.ops.aten.rand.default, "
    + kRandArgs
    + ")\n"
      "        getitem: \"i64[2][1]cpu\" = run_and_save_rng_state[0]\n"
      "        getitem_1: \"f32[4, 5][5, 1]cpu\" = run_and_save_rng_state[1];  run_and_save_rng_state = None\n"
      "        rand_1: \"f32[4, 5][5, 1]cpu\" = torch.ops.aten.rand.default("
    + kRandArgs
    + ")\n"
      "        run_with_rng_state: \"f32[4, 5][5, 1]cpu\" = torch.ops.higher_order.run_with_rng_state(getitem, "
      "torch.ops.aten.rand.default, "
    + kRandArgs
    + ")\n"
      "        rand_2: \"f32[4, 5][5, 1]cpu\" = torch.ops.aten.rand.default("
    + kRandArgs
    + ")\n"
      "        return (getitem, getitem_1, rand_1, run_with_rng_state, rand_2)\n";
// The same draws without the HOPs.
const std::string kRandPlain = "        rand_0: \"f32[4, 5][5, 1]cpu\" = torch.ops.aten.rand.default(" + kRandArgs
    + ")\n"
      "        rand_1: \"f32[4, 5][5, 1]cpu\" = torch.ops.aten.rand.default("
    + kRandArgs
    + ")\n"
      "        rand_2: \"f32[4, 5][5, 1]cpu\" = torch.ops.aten.rand.default("
    + kRandArgs
    + ")\n"
      "        return (rand_0, rand_1, rand_2)\n";

// (b): native_dropout (a tuple inside the HOP's tuple), replayed after another dropout.
const std::string kDropoutGraph =
    "        run_and_save_rng_state = "
    "torch.ops.higher_order.run_and_save_rng_state(torch.ops.aten.native_dropout.default, x, 0.5, True)\n"
    "        getitem: \"i64[2][1]cpu\" = run_and_save_rng_state[0]\n"
    "        getitem_1 = run_and_save_rng_state[1];  run_and_save_rng_state = None\n"
    "        getitem_2: \"f32[8, 16][16, 1]cpu\" = getitem_1[0]\n"
    "        getitem_3: \"b8[8, 16][16, 1]cpu\" = getitem_1[1];  getitem_1 = None\n"
    "        native_dropout = torch.ops.aten.native_dropout.default(x, 0.5, True)\n"
    "        getitem_4: \"f32[8, 16][16, 1]cpu\" = native_dropout[0];  native_dropout = None\n"
    "        run_with_rng_state = torch.ops.higher_order.run_with_rng_state(getitem, "
    "torch.ops.aten.native_dropout.default, x, 0.5, True);  getitem = None\n"
    "        getitem_5: \"f32[8, 16][16, 1]cpu\" = run_with_rng_state[0]\n"
    "        getitem_6: \"b8[8, 16][16, 1]cpu\" = run_with_rng_state[1];  run_with_rng_state = None\n"
    "        return (getitem_2, getitem_3, getitem_4, getitem_5, getitem_6)\n";

// (d): the checkpointed dropout recomputed through the HOPs (the partitioner's rewrite), with
// random ops before and after the recomputation...
const std::string kRecomputed =
    "        run_and_save_rng_state = "
    "torch.ops.higher_order.run_and_save_rng_state(torch.ops.aten.native_dropout.default, x, 0.25, True)\n"
    "        getitem: \"i64[2][1]cpu\" = run_and_save_rng_state[0]\n"
    "        getitem_1 = run_and_save_rng_state[1];  run_and_save_rng_state = None\n"
    "        getitem_2: \"f32[8, 16][16, 1]cpu\" = getitem_1[0];  getitem_1 = None\n"
    "        relu: \"f32[8, 16][16, 1]cpu\" = torch.ops.aten.relu.default(getitem_2);  getitem_2 = None\n"
    "        randn: \"f32[3][1]cpu\" = torch.ops.aten.randn.default([3], device = device(type='cpu'), pin_memory = "
    "False)\n"
    "        run_with_rng_state = torch.ops.higher_order.run_with_rng_state(getitem, "
    "torch.ops.aten.native_dropout.default, x, 0.25, True);  getitem = None\n"
    "        getitem_3: \"b8[8, 16][16, 1]cpu\" = run_with_rng_state[1];  run_with_rng_state = None\n"
    "        mul: \"f32[8, 16][16, 1]cpu\" = torch.ops.aten.mul.Tensor(t, getitem_3);  getitem_3 = None\n"
    "        mul_1: \"f32[8, 16][16, 1]cpu\" = torch.ops.aten.mul.Tensor(mul, 1.3333333333333333);  mul = None\n"
    "        randn_1: \"f32[3][1]cpu\" = torch.ops.aten.randn.default([3], device = device(type='cpu'), pin_memory = "
    "False)\n"
    "        return (relu, mul_1, randn, randn_1)\n";
// ...and the same graph with the dropout's mask kept instead.
const std::string kReused =
    "        native_dropout = torch.ops.aten.native_dropout.default(x, 0.25, True)\n"
    "        getitem_2: \"f32[8, 16][16, 1]cpu\" = native_dropout[0]\n"
    "        getitem_3: \"b8[8, 16][16, 1]cpu\" = native_dropout[1];  native_dropout = None\n"
    "        relu: \"f32[8, 16][16, 1]cpu\" = torch.ops.aten.relu.default(getitem_2);  getitem_2 = None\n"
    "        randn: \"f32[3][1]cpu\" = torch.ops.aten.randn.default([3], device = device(type='cpu'), pin_memory = "
    "False)\n"
    "        mul: \"f32[8, 16][16, 1]cpu\" = torch.ops.aten.mul.Tensor(t, getitem_3);  getitem_3 = None\n"
    "        mul_1: \"f32[8, 16][16, 1]cpu\" = torch.ops.aten.mul.Tensor(mul, 1.3333333333333333);  mul = None\n"
    "        randn_1: \"f32[3][1]cpu\" = torch.ops.aten.randn.default([3], device = device(type='cpu'), pin_memory = "
    "False)\n"
    "        return (relu, mul_1, randn, randn_1)\n";
const std::string kXT = "x: \"f32[8, 16][16, 1]cpu\", t: \"f32[8, 16][16, 1]cpu\"";

QString stepMismatch(const Graph& g, const MemoryTimeline& t, size_t k, int64_t measured);

// FX text has no tuple annotations: give a multi-output node the tuple meta a trace's
// meta["val"] has (element metas taken from the named nodes), so the timeline sizes every
// element, also those no getitem extracts.
void fillTupleMeta(Graph& g, const std::string& name, const std::vector<std::string>& items)
{
    std::vector<ValueMeta> elems;
    for (const auto& it : items) elems.push_back(g.node(nodeNamed(g, it)).val);
    g.node(nodeNamed(g, name)).val = ValueMeta::ofTuple(std::move(elems));
}

void checkSteps(const Graph& g, const MemoryTimeline& t, const ExecResult& r, const std::vector<int64_t>& expectedGap)
{
    QCOMPARE(r.liveBytesPerStep.size(), t.steps.size());
    for (size_t k = 0; k < t.steps.size(); ++k)
        if (r.liveBytesPerStep[k] != t.steps[k].liveBytes - expectedGap[k])
            QFAIL(qPrintable(stepMismatch(g, t, k, r.liveBytesPerStep[k])
                             + QStringLiteral(" (expected gap %1)").arg(expectedGap[k])));
}

QString stepMismatch(const Graph& g, const MemoryTimeline& t, size_t k, int64_t measured)
{
    const Node& n = g.node(t.steps[k].node);
    return QStringLiteral("step %1 (%2, %3): executor %4 bytes, timeline %5")
        .arg(k)
        .arg(QString::fromStdString(n.name), QString::fromStdString(n.target))
        .arg(measured)
        .arg(t.steps[k].liveBytes);
}

}  // namespace

class TestRngState : public QObject
{
    Q_OBJECT

private slots:
    void parsesOpArgument()
    {
        const Graph g = parse(kRandGraph);
        const Node& n = g.node(nodeNamed(g, "run_and_save_rng_state"));
        QCOMPARE(n.target, std::string("higher_order.run_and_save_rng_state"));
        QVERIFY(!n.args.empty());
        QVERIFY(n.args[0].kind == Arg::Kind::Op);
        QCOMPARE(n.args[0].s, std::string("aten.rand.default"));
    }

    // (a) + (c)
    void randReplays_data()
    {
        QTest::addColumn<quint64>("seed");
        QTest::newRow("seed 0") << quint64(0);
        QTest::newRow("seed 1234567890123") << quint64(1234567890123ull);
    }
    void randReplays()
    {
        QFETCH(quint64, seed);
        const Graph g = parse(kRandGraph), plain = parse(kRandPlain);
        auto be = makeCpuBackend();
        const ExecResult r = run(g, *be, seed), p = run(plain, *be, seed);
        QCOMPARE(r.outputs.size(), size_t(5));
        // the state: int64 [2] {seed, offset before the op}
        const Tensor& st = r.outputs[0].tensor;
        QCOMPARE(st.dtype(), DType::I64);
        QCOMPARE(st.sizes(), std::vector<int64_t>({2}));
        QCOMPARE(int64sOf(*be, st), std::vector<int64_t>({static_cast<int64_t>(seed), 0}));
        const auto r0 = bytesOf(*be, r.outputs[1].tensor), r1 = bytesOf(*be, r.outputs[2].tensor),
                   replay = bytesOf(*be, r.outputs[3].tensor), r2 = bytesOf(*be, r.outputs[4].tensor);
        QVERIFY(replay == r0);  // (a)
        QVERIFY(r1 != r0);
        // run_and_save_rng_state advances as the op does; (c) the replay does not advance
        QVERIFY(r0 == bytesOf(*be, p.outputs[0].tensor));
        QVERIFY(r1 == bytesOf(*be, p.outputs[1].tensor));
        QVERIFY(r2 == bytesOf(*be, p.outputs[2].tensor));
        QVERIFY(r2 != r1);
    }

    // A saved state from later in the stream (offset != 0) replays too, and a hand-made state
    // draws what the op draws at that (seed, offset).
    void laterStateReplays()
    {
        const Graph g = parse(
            "        rand_0: \"f32[4, 5][5, 1]cpu\" = torch.ops.aten.rand.default(" + kRandArgs
                + ")\n"
                  "        run_and_save_rng_state = "
                  "torch.ops.higher_order.run_and_save_rng_state(torch.ops.aten.randn.default, [3, 3], device = "
                  "device(type='cpu'), pin_memory = False)\n"
                  "        getitem: \"i64[2][1]cpu\" = run_and_save_rng_state[0]\n"
                  "        getitem_1: \"f32[3, 3][3, 1]cpu\" = run_and_save_rng_state[1]\n"
                  "        run_with_rng_state: \"f32[3, 3][3, 1]cpu\" = "
                  "torch.ops.higher_order.run_with_rng_state(getitem, torch.ops.aten.randn.default, [3, 3], device = "
                  "device(type='cpu'), pin_memory = False)\n"
                  "        run_with_rng_state_1: \"f32[3, 3][3, 1]cpu\" = torch.ops.higher_order.run_with_rng_state(s, "
                  "torch.ops.aten.randn.default, [3, 3], device = device(type='cpu'), pin_memory = False)\n"
                  "        return (getitem, getitem_1, run_with_rng_state, run_with_rng_state_1)\n",
            "x: \"f32[8, 16][16, 1]cpu\", s: \"i64[2][1]cpu\"");
        auto be = makeCpuBackend();
        // s = {seed 9, offset 20}: what the run saves at the randn (rand drew 20, rounded to 20)
        SafeTensorsFile in;
        SafeTensor s;
        s.name = "s";
        s.dtype = DType::I64;
        s.shape = {2};
        const int64_t v[2] = {9, static_cast<int64_t>(philoxRoundUp4(20))};
        s.data.resize(16);
        std::memcpy(s.data.data(), v, 16);
        in.tensors.push_back(s);
        const ExecResult r = run(g, *be, 9, &in);
        QCOMPARE(int64sOf(*be, r.outputs[0].tensor), std::vector<int64_t>({9, 20}));
        const auto saved = bytesOf(*be, r.outputs[1].tensor);
        QVERIFY(saved == bytesOf(*be, r.outputs[2].tensor));
        QVERIFY(saved == bytesOf(*be, r.outputs[3].tensor));
        // another seed in the state gives other values
        const int64_t other[2] = {10, 20};
        std::memcpy(in.tensors[0].data.data(), other, 16);
        const ExecResult r2 = run(g, *be, 9, &in);
        QVERIFY(saved != bytesOf(*be, r2.outputs[3].tensor));
    }

    // (b)
    void dropoutReplays()
    {
        const Graph g = parse(kDropoutGraph);
        auto be = makeCpuBackend();
        const ExecResult r = run(g, *be, 31);
        QCOMPARE(r.outputs.size(), size_t(5));
        const auto out = bytesOf(*be, r.outputs[0].tensor), mask = bytesOf(*be, r.outputs[1].tensor);
        QVERIFY(out == bytesOf(*be, r.outputs[3].tensor));
        QVERIFY(mask == bytesOf(*be, r.outputs[4].tensor));
        QVERIFY(out != bytesOf(*be, r.outputs[2].tensor));  // the dropout in between drew other bits
        int kept = 0;
        for (uint8_t m : mask) kept += m;
        QVERIFY(kept > 8 * 16 / 4 && kept < 8 * 16 * 3 / 4);  // a real mask, not all/none
    }

    // (d)
    void recomputedDropoutEqualsReused_data()
    {
        QTest::addColumn<quint64>("seed");
        QTest::newRow("seed 3") << quint64(3);
        QTest::newRow("seed 77") << quint64(77);
    }
    void recomputedDropoutEqualsReused()
    {
        QFETCH(quint64, seed);
        const Graph a = parse(kRecomputed, kXT), b = parse(kReused, kXT);
        auto be = makeCpuBackend();
        const ExecResult ra = run(a, *be, seed), rb = run(b, *be, seed);
        QCOMPARE(ra.outputs.size(), size_t(4));
        for (size_t k = 0; k < 4; ++k)
            QVERIFY2(bytesOf(*be, ra.outputs[k].tensor) == bytesOf(*be, rb.outputs[k].tensor),
                     qPrintable(QString::number(k)));
    }

    // (d) as the partitioner emits it: the forward returns the state, the backward takes it as
    // its rng_state_output_0 input and recomputes the dropout (its generator elsewhere).
    void forwardBackwardSplit()
    {
        const Graph fwd = parse(
            "        run_and_save_rng_state = "
            "torch.ops.higher_order.run_and_save_rng_state(torch.ops.aten.native_dropout.default, x, 0.25, True)\n"
            "        getitem: \"i64[2][1]cpu\" = run_and_save_rng_state[0]\n"
            "        getitem_1 = run_and_save_rng_state[1];  run_and_save_rng_state = None\n"
            "        getitem_2: \"f32[8, 16][16, 1]cpu\" = getitem_1[0];  getitem_1 = None\n"
            "        relu: \"f32[8, 16][16, 1]cpu\" = torch.ops.aten.relu.default(getitem_2);  getitem_2 = None\n"
            "        return (relu, x, getitem)\n");
        const Graph bwd = parse(
            "        run_with_rng_state = torch.ops.higher_order.run_with_rng_state(rng_state_output_0, "
            "torch.ops.aten.native_dropout.default, x, 0.25, True);  rng_state_output_0 = None\n"
            "        getitem_3: \"b8[8, 16][16, 1]cpu\" = run_with_rng_state[1];  run_with_rng_state = None\n"
            "        mul: \"f32[8, 16][16, 1]cpu\" = torch.ops.aten.mul.Tensor(tangents_1, getitem_3);  tangents_1 = "
            "getitem_3 = None\n"
            "        mul_1: \"f32[8, 16][16, 1]cpu\" = torch.ops.aten.mul.Tensor(mul, 1.3333333333333333);  mul = "
            "None\n"
            "        return (mul_1,)\n",
            "x: \"f32[8, 16][16, 1]cpu\", rng_state_output_0: \"i64[2][1]cpu\", tangents_1: \"f32[8, 16][16, 1]cpu\"");
        const Graph reused = parse(kReused, kXT);
        auto be = makeCpuBackend();
        const uint64_t seed = 4242;
        const ExecResult f = run(fwd, *be, seed);
        const ExecResult ref = run(reused, *be, seed);
        // backward inputs: x and the state from the forward, the tangent as the reused graph's t
        ExecOptions gen;
        gen.inputSeed = 5;
        const SafeTensorsFile refIn = resolveInputs(reused, gen);
        SafeTensorsFile in;
        auto add = [&](const std::string& name, const Tensor& t) {
            SafeTensor st;
            st.name = name;
            st.dtype = t.dtype();
            st.shape = t.sizes();
            st.data = bytesOf(*be, t);
            in.tensors.push_back(std::move(st));
        };
        add("x", f.outputs[1].tensor);
        add("rng_state_output_0", f.outputs[2].tensor);
        SafeTensor t = *refIn.find("t");
        t.name = "tangents_1";
        in.tensors.push_back(t);
        const ExecResult b = run(bwd, *be, seed + 1, &in);  // another generator: must not matter
        QVERIFY(bytesOf(*be, f.outputs[0].tensor) == bytesOf(*be, ref.outputs[0].tensor));
        QVERIFY(bytesOf(*be, b.outputs[0].tensor) == bytesOf(*be, ref.outputs[1].tensor));
    }

    // A CUDA-layout state (uint8 [16]: seed then offset, little-endian) is the same state.
    void cudaLayoutState()
    {
        const Graph g = parse("        run_with_rng_state: \"f32[4, 5][5, 1]cpu\" = "
                              "torch.ops.higher_order.run_with_rng_state(s, torch.ops.aten.rand.default, "
                                  + kRandArgs
                                  + ")\n"
                                    "        rand: \"f32[4, 5][5, 1]cpu\" = torch.ops.aten.rand.default("
                                  + kRandArgs
                                  + ")\n"
                                    "        return (run_with_rng_state, rand)\n",
                              "s: \"u8[16][1]cpu\"");
        SafeTensorsFile in;
        SafeTensor s;
        s.name = "s";
        s.dtype = DType::U8;
        s.shape = {16};
        const uint64_t v[2] = {123, 0};
        s.data.resize(16);
        std::memcpy(s.data.data(), v, 16);
        in.tensors.push_back(s);
        auto be = makeCpuBackend();
        const ExecResult r = run(g, *be, 123, &in);
        // state {123, 0} is where the run's generator starts: both draw the same
        QVERIFY(bytesOf(*be, r.outputs[0].tensor) == bytesOf(*be, r.outputs[1].tensor));
    }

    // (e) a state that is not an int64 [2] (or CUDA's uint8 [16]) is a KernelError naming the node
    void badState_data()
    {
        QTest::addColumn<QString>("type");
        QTest::newRow("i64[3]") << "i64[3][1]cpu";
        QTest::newRow("f32[2]") << "f32[2][1]cpu";
        QTest::newRow("i64[1, 2]") << "i64[1, 2][2, 1]cpu";
        QTest::newRow("u8[5056] (CPU mt19937 state)") << "u8[5056][1]cpu";
        QTest::newRow("i64[]") << "i64[][]cpu";
    }
    void badState()
    {
        QFETCH(QString, type);
        const Graph g = parse("        run_with_rng_state: \"f32[4, 5][5, 1]cpu\" = "
                              "torch.ops.higher_order.run_with_rng_state(s, torch.ops.aten.rand.default, "
                                  + kRandArgs
                                  + ")\n"
                                    "        return (run_with_rng_state,)\n",
                              "s: \"" + type.toStdString() + "\"");
        auto be = makeCpuBackend();
        try {
            run(g, *be, 0);
            QFAIL("no KernelError");
        } catch (const KernelError& e) {
            const std::string m = e.what();
            QVERIFY2(m.find("node 'run_with_rng_state'") != std::string::npos, m.c_str());
            QVERIFY2(m.find("rng_state") != std::string::npos && m.find("int64") != std::string::npos, m.c_str());
        }
    }

    // (e) a non-tensor state, a missing op, a non-op, a nested graph as the op: KernelErrors
    // naming the node
    void badArguments_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("expect");
        QTest::newRow("int state") << "torch.ops.higher_order.run_with_rng_state(3, torch.ops.aten.rand.default, [2])"
                                   << "must be a tensor";
        QTest::newRow("no op") << "torch.ops.higher_order.run_and_save_rng_state()"
                               << "expects (op";
        QTest::newRow("not an op") << "torch.ops.higher_order.run_and_save_rng_state(x, [2])"
                                   << "must be an op overload";
        QTest::newRow("unknown op")
            << "torch.ops.higher_order.run_and_save_rng_state(torch.ops.aten.no_such_op.default, [2])"
            << "unknown operator";
        QTest::newRow("args unfit")
            << "torch.ops.higher_order.run_and_save_rng_state(torch.ops.aten.rand.default, [2], bogus = 1)"
            << "run_and_save_rng_state";
    }
    void badArguments()
    {
        QFETCH(QString, line);
        QFETCH(QString, expect);
        const Graph g = parse("        hop = " + line.toStdString() + "\n        return (hop,)\n");
        auto be = makeCpuBackend();
        try {
            run(g, *be, 0);
            QFAIL("no KernelError");
        } catch (const KernelError& e) {
            const std::string m = e.what();
            QVERIFY2(m.find("node 'hop'") != std::string::npos, m.c_str());
            QVERIFY2(m.find(expect.toStdString()) != std::string::npos, m.c_str());
        }
    }
    void nestedGraphAsOp()
    {
        const Graph g =
            parseFxText("class GraphModule(torch.nn.Module):\n"
                        "    def forward(self, x: \"f32[4][1]cpu\"):\n"
                        "        body_0 = self.body_0\n"
                        "        hop = torch.ops.higher_order.run_and_save_rng_state(body_0, x);  body_0 = x = None\n"
                        "        getitem: \"f32[4][1]cpu\" = hop[1]\n"
                        "        return (getitem,)\n"
                        "\n"
                        "    class body_0(torch.nn.Module):\n"
                        "        def forward(self, x: \"f32[4][1]cpu\"):\n"
                        "            neg: \"f32[4][1]cpu\" = torch.ops.aten.neg.default(x);  x = None\n"
                        "            return (neg,)\n",
                        "<test>");
        QVERIFY(g.subgraph("body_0") != nullptr);
        auto be = makeCpuBackend();
        try {
            run(g, *be, 0);
            QFAIL("no KernelError");
        } catch (const KernelError& e) {
            const std::string m = e.what();
            QVERIFY2(m.find("node 'hop'") != std::string::npos
                         && m.find("nested graph ('body_0')") != std::string::npos,
                     m.c_str());
        }
    }

    // (e) a wrapped op that is not random just runs (and leaves the generator alone).
    void nonRandomOp()
    {
        const Graph g = parse(
            "        run_and_save_rng_state = torch.ops.higher_order.run_and_save_rng_state(torch.ops.aten.mul.Tensor, "
            "x, x)\n"
            "        getitem: \"i64[2][1]cpu\" = run_and_save_rng_state[0]\n"
            "        getitem_1: \"f32[8, 16][16, 1]cpu\" = run_and_save_rng_state[1]\n"
            "        run_with_rng_state: \"f32[8, 16][16, 1]cpu\" = torch.ops.higher_order.run_with_rng_state(getitem, "
            "torch.ops.aten.add.Tensor, x, getitem_1, alpha = 2)\n"
            "        mul: \"f32[8, 16][16, 1]cpu\" = torch.ops.aten.mul.Tensor(x, x)\n"
            "        add: \"f32[8, 16][16, 1]cpu\" = torch.ops.aten.add.Tensor(x, mul, alpha = 2)\n"
            "        rand: \"f32[4, 5][5, 1]cpu\" = torch.ops.aten.rand.default("
            + kRandArgs
            + ")\n"
              "        return (getitem_1, mul, run_with_rng_state, add, rand, getitem)\n");
        const Graph plain = parse("        rand: \"f32[4, 5][5, 1]cpu\" = torch.ops.aten.rand.default(" + kRandArgs
                                  + ")\n        return (rand,)\n");
        auto be = makeCpuBackend();
        const ExecResult r = run(g, *be, 8), p = run(plain, *be, 8);
        QVERIFY(bytesOf(*be, r.outputs[0].tensor) == bytesOf(*be, r.outputs[1].tensor));
        QVERIFY(bytesOf(*be, r.outputs[2].tensor) == bytesOf(*be, r.outputs[3].tensor));
        QVERIFY(bytesOf(*be, r.outputs[4].tensor) == bytesOf(*be, p.outputs[0].tensor));
        QCOMPARE(int64sOf(*be, r.outputs[5].tensor), std::vector<int64_t>({8, 0}));
    }

    // Inside a nested graph (a checkpointed body) the HOPs use the run's one generator.
    void insideCheckpointBody()
    {
        const Graph g = parseFxText(
            "class GraphModule(torch.nn.Module):\n"
            "    def forward(self, x: \"f32[8, 16][16, 1]cpu\"):\n"
            "        wrap_body_0 = self.wrap_body_0\n"
            "        tag_activation_checkpoint = torch.ops.higher_order.tag_activation_checkpoint(wrap_body_0, x, "
            "use_reentrant = False);  wrap_body_0 = None\n"
            "        getitem: \"i64[2][1]cpu\" = tag_activation_checkpoint[0]\n"
            "        getitem_1: \"f32[8, 16][16, 1]cpu\" = tag_activation_checkpoint[1];  tag_activation_checkpoint = "
            "None\n"
            "        run_with_rng_state = torch.ops.higher_order.run_with_rng_state(getitem, "
            "torch.ops.aten.native_dropout.default, x, 0.5, True)\n"
            "        getitem_2: \"f32[8, 16][16, 1]cpu\" = run_with_rng_state[0]\n"
            "        return (getitem, getitem_1, getitem_2)\n"
            "\n"
            "    class wrap_body_0(torch.nn.Module):\n"
            "        def forward(self, x: \"f32[8, 16][16, 1]cpu\"):\n"
            "            rand: \"f32[4, 5][5, 1]cpu\" = torch.ops.aten.rand.default("
                + kRandArgs
                + ")\n"
                  "            run_and_save_rng_state = "
                  "torch.ops.higher_order.run_and_save_rng_state(torch.ops.aten.native_dropout.default, x, 0.5, True); "
                  " x = None\n"
                  "            getitem: \"i64[2][1]cpu\" = run_and_save_rng_state[0]\n"
                  "            getitem_1 = run_and_save_rng_state[1]\n"
                  "            getitem_2: \"f32[8, 16][16, 1]cpu\" = getitem_1[0]\n"
                  "            return (getitem, getitem_2)\n",
            "<test>");
        auto be = makeCpuBackend();
        const ExecResult r = run(g, *be, 17);
        QCOMPARE(int64sOf(*be, r.outputs.at(0).tensor), std::vector<int64_t>({17, 20}));  // after rand's 20 draws
        QVERIFY(bytesOf(*be, r.outputs.at(0).tensor).size() == 16);
        QVERIFY(bytesOf(*be, r.outputs.at(1).tensor) == bytesOf(*be, r.outputs.at(2).tensor));
    }

    // The measured live bytes equal the memory timeline's at every step (R2: the HOP's tuple
    // is the state's 16-byte storage plus the op's outputs), and nothing leaks.
    void liveBytesFollowTimeline_data()
    {
        QTest::addColumn<int>("which");
        QTest::newRow("rand") << 0;
        QTest::newRow("dropout") << 1;
    }
    void liveBytesFollowTimeline()
    {
        QFETCH(int, which);
        Graph g = which == 0 ? parse(kRandGraph) : parse(kDropoutGraph);
        if (which == 1) {
            fillTupleMeta(g, "getitem_1", {"getitem_2", "getitem_3"});
            fillTupleMeta(g, "native_dropout", {"getitem_2", "getitem_3"});  // its mask is extracted by nothing
        }
        const MemoryTimeline t = computeMemoryTimeline(g);
        QVERIFY2(t.unknownSizes.empty(), t.unknownSizes.empty() ? "" : t.unknownSizes[0].c_str());
        auto be = makeCpuBackend();
        {
            ExecResult r = run(g, *be, 5);
            checkSteps(g, t, r, std::vector<int64_t>(t.steps.size(), 0));
            QCOMPARE(r.peakBytes, t.peakBytes);
            // the state is one 16-byte storage of its own
            int states = 0;
            for (const auto& s : t.storages)
                if (g.node(s.node).isOp("higher_order.run_and_save_rng_state") && s.bytes == 16) ++states;
            QCOMPARE(states, 1);
        }
        QCOMPARE(be->liveBytes(), int64_t(0));
    }

    // The recomputation pattern: the forward extracts only the dropout's output from the
    // HOP's nested (out, mask) tuple. The executor frees the mask once the nested tuple dies
    // (after getitem_2); the timeline follows getitem into the nested tuple's elements (R3),
    // so getitem_2 shares only the output's storage and the two agree at every step.
    void liveBytesNestedTuple()
    {
        Graph g = parse(kRecomputed, kXT);
        fillTupleMeta(g, "getitem_1", {"getitem_2", "getitem_3"});
        fillTupleMeta(g, "run_with_rng_state", {"getitem_2", "getitem_3"});  // its output is extracted by nothing
        const MemoryTimeline t = computeMemoryTimeline(g);
        QVERIFY2(t.unknownSizes.empty(), t.unknownSizes.empty() ? "" : t.unknownSizes[0].c_str());
        // the mask (b8[8, 16]) dies right after getitem_2, not at relu
        int maskFree = -1;
        for (const auto& st : t.storages)
            if (st.bytes == 8 * 16 && g.node(st.node).isOp("higher_order.run_and_save_rng_state"))
                maskFree = st.freeStep;
        int getitem2 = -1;
        for (size_t k = 0; k < t.steps.size(); ++k)
            if (g.node(t.steps[k].node).name == "getitem_2") getitem2 = static_cast<int>(k);
        QVERIFY(getitem2 >= 0);
        QCOMPARE(maskFree, getitem2);
        auto be = makeCpuBackend();
        {
            ExecResult r = run(g, *be, 5);
            checkSteps(g, t, r, std::vector<int64_t>(t.steps.size(), 0));
            QCOMPARE(r.peakBytes, t.peakBytes);
        }
        QCOMPARE(be->liveBytes(), int64_t(0));
    }
};

FXL_TEST_APPLESS_MAIN(TestRngState)
}  // namespace test_rng_state
#include "test_rng_state.moc"

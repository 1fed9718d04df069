// auto_chunk's numbers (passes + runtime). On corpus/pytorch/linear_ce (logits 64 x 512) with
// its real inputs and 2, 4 and 8 chunks (thresholds lowered: the graph is small):
//  - every output within a few ULP of the unchunked graph (the max ULP per output is printed);
//  - row-wise values bitwise equal. How: the chunked graph is run with ExecOptions::onValue
//    capturing every top-level value; for each invoke_subgraph call, its sub-graph is run alone
//    on exactly the operands the parent passed that call (the captured values, bound to the
//    body's placeholders in order, as the executor binds them), capturing every body value. The
//    body's outputs are first checked bitwise equal to what the call returned in the parent run
//    (the standalone run is the same computation), then every body value that has the chunk
//    dim (the logits rows, log_softmax rows, their gradient rows and their views) is compared
//    with the matching rows of the unchunked graph's value of the node it copies (meta.chunk
//    "original"), captured the same way;
//  - the chunked graph gives the same bits at 1 and 2 threads.
// T1 and T4 of the scenarios (tests/passes/test_auto_chunk.cpp checks their structure at the
// real sizes) run here at small sizes against their unchunked graphs.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>

#include "../passes/auto_chunk_test_graphs.hpp"
#include "core/formats/safetensors.hpp"
#include "core/formats/source.hpp"
#include "passes/pass.hpp"
#include "runtime/check/equivalence.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/exec/executor.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_auto_chunk_numerics {

using namespace fxl;
using namespace autochunktest;
namespace fs = std::filesystem;

namespace {

const fs::path kLinearCe = fxltest::corpusPath("pytorch/linear_ce.joint.code.py");
const fs::path kLinearCeInputs = fxltest::corpusPath("pytorch/linear_ce.inputs.safetensors");

// A row-major host copy of a (possibly strided) runtime tensor.
SafeTensor hostCopy(Backend& backend, const Tensor& t, const std::string& name)
{
    SafeTensor st;
    st.name = name;
    st.dtype = t.dtype();
    st.shape = t.sizes();
    const int64_t item = dtypeItemSize(t.dtype());
    int64_t numel = 1, span = 1;
    for (size_t d = 0; d < t.sizes().size(); ++d) {
        numel *= t.sizes()[d];
        if (t.sizes()[d] > 0) span += (t.sizes()[d] - 1) * std::abs(t.strides()[d]);
    }
    st.data.resize(static_cast<size_t>(numel * item));
    if (numel == 0) return st;
    std::vector<uint8_t> raw(static_cast<size_t>(span * item));
    // the elements the view spans, as one contiguous 1-D view of its storage
    backend.download(raw.data(), t.asStrided({span}, {1}, t.offset()), span * item);
    std::vector<int64_t> idx(t.sizes().size(), 0);
    for (int64_t e = 0; e < numel; ++e) {
        int64_t off = 0;
        for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * t.strides()[d];
        std::memcpy(st.data.data() + e * item, raw.data() + off * item, static_cast<size_t>(item));
        for (size_t d = idx.size(); d-- > 0;) {
            if (++idx[d] < t.sizes()[d]) break;
            idx[d] = 0;
        }
    }
    return st;
}

double elementAt(const SafeTensor& t, int64_t i)
{
    if (t.dtype == DType::F32) {
        float f;
        std::memcpy(&f, t.data.data() + i * 4, 4);
        return f;
    }
    if (t.dtype == DType::BF16) {
        uint16_t h;
        std::memcpy(&h, t.data.data() + i * 2, 2);
        const uint32_t bits = uint32_t(h) << 16;
        float f;
        std::memcpy(&f, &bits, 4);
        return f;
    }
    qFatal("elementAt: f32 or bf16 only");
}

// The largest difference in units of the last place of the reference's largest element: the
// error of a reduction-order change, measured against the scale of the result (elements near
// zero after cancellation have a tiny ULP of their own, so their raw ULP distance says little).
double ulpsOfLargest(const SafeTensor& got, const SafeTensor& want)
{
    double maxRef = 0, maxDiff = 0;
    for (int64_t i = 0; i < want.numel(); ++i) {
        maxRef = std::max(maxRef, std::abs(elementAt(want, i)));
        maxDiff = std::max(maxDiff, std::abs(elementAt(got, i) - elementAt(want, i)));
    }
    if (maxRef == 0) return maxDiff == 0 ? 0 : 1e30;
    const int mantissa = want.dtype == DType::BF16 ? 7 : 23;
    return maxDiff / std::ldexp(1.0, std::ilogb(maxRef) - mantissa);
}

struct Run
{
    std::vector<SafeTensor> outputs;
    std::map<std::string, SafeTensor> values;  // every tensor value by node name ("x[1]" for tuple items)
};

Run run(const Graph& g, const SafeTensorsFile* inputs, int threads = 1, bool capture = true)
{
    auto backend = makeCpuBackend(CpuBackendOptions{threads});
    ExecOptions o;
    o.backend = backend.get();
    o.inputs = inputs;
    o.inputSeed = 7;
    Run r;
    if (capture)
        o.onValue = [&](const Node& n, const Value& v) {
            if (v.isTensor() && v.tensor.defined()) r.values[n.name] = hostCopy(*backend, v.tensor, n.name);
            for (size_t k = 0; k < v.items.size(); ++k)
                if (v.items[k].isTensor() && v.items[k].tensor.defined()) {
                    const std::string nm = n.name + "[" + std::to_string(k) + "]";
                    r.values[nm] = hostCopy(*backend, v.items[k].tensor, nm);
                }
        };
    ExecResult res = executeGraph(g, o);
    for (size_t k = 0; k < res.outputs.size(); ++k)
        r.outputs.push_back(hostCopy(*backend, res.outputs[k].tensor, "out_" + std::to_string(k)));
    return r;
}

// The inputs a graph's placeholders had in a run (by the generated-input seed or a file): the
// captured placeholder values.
SafeTensorsFile inputsOf(const Graph& g, const Run& r)
{
    SafeTensorsFile f;
    for (NodeId p : g.placeholders()) f.tensors.push_back(r.values.at(g.node(p).name));
    return f;
}

// Rows [off, off + size) of `full` along dim d, row-major.
SafeTensor slice(const SafeTensor& full, size_t d, int64_t off, int64_t size)
{
    SafeTensor s = full;
    s.shape[d] = size;
    const int64_t item = dtypeItemSize(full.dtype);
    int64_t outer = 1, inner = item;
    for (size_t k = 0; k < d; ++k) outer *= full.shape[k];
    for (size_t k = d + 1; k < full.shape.size(); ++k) inner *= full.shape[k];
    s.data.resize(static_cast<size_t>(outer * size * inner));
    for (int64_t o = 0; o < outer; ++o)
        std::memcpy(s.data.data() + o * size * inner, full.data.data() + (o * full.shape[d] + off) * inner,
                    static_cast<size_t>(size * inner));
    return s;
}

Graph chunked(const Graph& in, const std::map<std::string, std::string>& opts)
{
    PipelineRun pr = runPipeline(in, specOf(opts));
    if (!pr.ok) qFatal("auto_chunk failed: %s", pr.error.c_str());
    return pr.steps.back().graph().clone();
}

struct RowCheck
{
    int compared = 0;  // body values compared with unchunked rows
    int callsChecked = 0;
    QString failure;
};

// Runs each invoke_subgraph call's body alone on the operands the parent passed it and compares
// the row-wise body values with the unchunked graph's (see the file comment).
RowCheck checkRows(const Graph& g, const Run& chunkedRun, const Run& plain)
{
    RowCheck rc;
    std::map<std::string, int64_t> offsetOf;  // running row offset per sub-graph call order
    int64_t offset = 0;
    for (NodeId id : g.order()) {
        const Node& call = g.node(id);
        if (!call.isOp("higher_order.invoke_subgraph")) continue;
        const Graph& sub = *g.subgraph(g.node(call.args[0].node).target);
        SafeTensorsFile ins;
        const auto phs = sub.placeholders();
        for (size_t k = 0; k < phs.size(); ++k) {
            SafeTensor t = chunkedRun.values.at(g.node(call.args[k + 2].node).name);
            t.name = sub.node(phs[k]).name;
            ins.tensors.push_back(t);
        }
        Run body = run(sub, &ins);
        // the standalone body returns what the call returned
        for (size_t k = 0; k < body.outputs.size(); ++k) {
            const SafeTensor& want = chunkedRun.values.at(call.name + "[" + std::to_string(k) + "]");
            if (want.data != body.outputs[k].data) {
                rc.failure = QStringLiteral("%1 output %2 differs from the call's").arg(call.name.c_str()).arg(k);
                return rc;
            }
        }
        int64_t rows = -1;
        sub.forEachNode([&](const Node& n) {
            if (n.op != NodeOp::CallFunction || !n.meta.chunk.contains("original") || !body.values.count(n.name))
                return;
            const std::string orig = n.meta.chunk["original"];
            if (!plain.values.count(orig)) return;
            const SafeTensor& full = plain.values.at(orig);
            const SafeTensor& part = body.values.at(n.name);
            if (full.shape.size() != part.shape.size()) return;
            int diffDim = -1, nd = 0;
            for (size_t d = 0; d < full.shape.size(); ++d)
                if (full.shape[d] != part.shape[d]) {
                    diffDim = static_cast<int>(d);
                    ++nd;
                }
            if (nd != 1) return;
            rows = part.shape[static_cast<size_t>(diffDim)];
            const SafeTensor want = slice(full, static_cast<size_t>(diffDim), offset, rows);
            ++rc.compared;
            if (want.data != part.data && rc.failure.isEmpty())
                rc.failure = QStringLiteral("%1 (rows %2..%3 of %4) differs from the unchunked value")
                                 .arg(n.name.c_str())
                                 .arg(offset)
                                 .arg(offset + rows)
                                 .arg(orig.c_str());
        });
        if (rows > 0) offset += rows;
        ++rc.callsChecked;
    }
    return rc;
}

}  // namespace

class TestAutoChunkNumerics : public QObject
{
    Q_OBJECT

private slots:
    void linearCe_data()
    {
        QTest::addColumn<int>("chunks");
        QTest::addColumn<int>("rowValuesPerChunk");
        for (int c : {2, 4, 8}) QTest::newRow(("chunks=" + std::to_string(c)).c_str()) << c << 7;
    }
    void linearCe()
    {
        QFETCH(int, chunks);
        QFETCH(int, rowValuesPerChunk);
        FXL_REQUIRE_CORPUS(kLinearCe);
        FXL_REQUIRE_CORPUS(kLinearCeInputs);
        auto src = openSource(kLinearCe.string());
        const Graph in = src->graph(src->artifacts.at(0).id)->clone();
        const SafeTensorsFile inputs = readSafetensors(kLinearCeInputs.string());
        const Graph g = chunked(in, smallOptions(chunks));
        QCOMPARE(int(g.subgraphs.size()), 1);

        const Run plain = run(in, &inputs);
        const Run got = run(g, &inputs);
        QCOMPARE(got.outputs.size(), plain.outputs.size());
        const char* names[] = {"loss", "grad W"};
        double ulps[2] = {0, 0};
        for (size_t k = 0; k < got.outputs.size(); ++k) {
            TensorDiff d = compareTensors(names[k], got.outputs[k], plain.outputs[k]);
            QVERIFY(!d.shapeMismatch && !d.dtypeMismatch);
            ulps[k] = ulpsOfLargest(got.outputs[k], plain.outputs[k]);
            qInfo("linear_ce chunks=%d: %s vs unchunked: max error %.2f ULP of its largest element, max elementwise "
                  "ULP distance %llu (%lld of %lld elements differ)%s",
                  chunks, names[k], ulps[k], static_cast<unsigned long long>(d.maxUlp),
                  static_cast<long long>(d.differing), static_cast<long long>(d.numel),
                  d.bitwiseEqual ? ", bitwise equal" : "");
        }
        QVERIFY2(ulps[0] <= 2, "the loss is more than 2 ULP from the unchunked loss");
        QVERIFY2(ulps[1] <= 8, "grad W is more than 8 ULP (of its largest element) from the unchunked one");

        const RowCheck rc = checkRows(g, got, plain);
        QVERIFY2(rc.failure.isEmpty(), qPrintable(rc.failure));
        QCOMPARE(rc.callsChecked, chunks);
        QCOMPARE(rc.compared, chunks * rowValuesPerChunk);

        // the same bits at 1 and 2 threads
        const Run two = run(g, &inputs, 2, false);
        for (size_t k = 0; k < got.outputs.size(); ++k) QVERIFY(two.outputs[k].data == got.outputs[k].data);
    }

    // T1 at 64 rows (x [64, 8], w [8, 64], 4 chunks), generated x and w. With the tangent 1 (a
    // loss seed) the activation gradient and every row-wise body value are the unchunked bits;
    // with 0.5 (a power of two: the chunks' ones and the final multiply scale exactly) the
    // activation gradient still is; the loss and the weight gradient within a few ULP.
    void t1Small_data()
    {
        QTest::addColumn<float>("tangent");
        QTest::newRow("tangent 1") << 1.0f;
        QTest::newRow("tangent 0.5") << 0.5f;
    }
    void t1Small()
    {
        QFETCH(float, tangent);
        const Graph in = parseGraph(t1Text(64, 8, 64));
        const Graph g = chunked(in, smallOptions(4));
        SafeTensorsFile ins = inputsOf(in, run(in, nullptr));
        for (SafeTensor& t : ins.tensors)
            if (t.name == "tangents_1") std::memcpy(t.data.data(), &tangent, sizeof tangent);
        const Run plain = run(in, &ins);
        const Run got = run(g, &ins);
        const TensorDiff loss = compareTensors("loss", got.outputs[0], plain.outputs[0]);
        const TensorDiff gx = compareTensors("grad x", got.outputs[1], plain.outputs[1]);
        const TensorDiff gw = compareTensors("grad w", got.outputs[2], plain.outputs[2]);
        qInfo("T1 64 rows, 4 chunks, tangent %g: loss %llu ULP, grad x %llu ULP, grad w %llu ULP", double(tangent),
              static_cast<unsigned long long>(loss.maxUlp), static_cast<unsigned long long>(gx.maxUlp),
              static_cast<unsigned long long>(gw.maxUlp));
        QVERIFY(gx.bitwiseEqual);
        QVERIFY(loss.maxUlp <= 4);
        QVERIFY(ulpsOfLargest(got.outputs[2], plain.outputs[2]) <= 8);
        if (tangent == 1.0f) {
            const RowCheck rc = checkRows(g, got, plain);
            QVERIFY2(rc.failure.isEmpty(), qPrintable(rc.failure));
            QCOMPARE(rc.callsChecked, 4);
            QCOMPARE(rc.compared, 4 * 6);  // mm, _softmax, expand, _softmax_backward_data, t, mm_2
        }
    }

    // T4 at 64 rows (C 16, V 512), f32 and bf16, with and without the / 2, 16 chunks of 4 rows.
    void t4Small_data()
    {
        QTest::addColumn<QString>("dtype");
        QTest::addColumn<bool>("div2");
        for (const char* dt : {"f32", "bf16"})
            for (bool d : {false, true})
                QTest::newRow((std::string(dt) + (d ? " loss/2" : " loss")).c_str()) << QString(dt) << d;
    }
    void t4Small()
    {
        QFETCH(QString, dtype);
        QFETCH(bool, div2);
        const Graph in = parseGraph(t4Text(64, 16, 512, dtype.toStdString(), div2));
        const Graph g = chunked(in, smallOptions(16));
        const Run plain = run(in, nullptr);
        const SafeTensorsFile ins = inputsOf(in, plain);
        const Run got = run(g, &ins);
        const TensorDiff loss = compareTensors("loss", got.outputs[0], plain.outputs[0]);
        const TensorDiff gx = compareTensors("grad x", got.outputs[1], plain.outputs[1]);
        const TensorDiff gw = compareTensors("grad W", got.outputs[2], plain.outputs[2], Tolerance{1e-3, 1e-2});
        qInfo("T4 %s%s 64 rows, 16 chunks: loss %llu ULP, grad x %llu ULP, grad W %llu ULP (max abs %g)",
              qPrintable(dtype), div2 ? " /2" : "", static_cast<unsigned long long>(loss.maxUlp),
              static_cast<unsigned long long>(gx.maxUlp), static_cast<unsigned long long>(gw.maxUlp), gw.maxAbs);
        QVERIFY(gx.bitwiseEqual);
        QVERIFY(loss.maxUlp <= 4);
        qInfo("  grad W: %.2f ULP of its largest element", ulpsOfLargest(got.outputs[2], plain.outputs[2]));
        QVERIFY(ulpsOfLargest(got.outputs[2], plain.outputs[2]) <= (dtype == "f32" ? 8 : 16));
        const RowCheck rc = checkRows(g, got, plain);
        QVERIFY2(rc.failure.isEmpty(), qPrintable(rc.failure));
        QCOMPARE(rc.callsChecked, 16);
    }
};

FXL_TEST_GUILESS_MAIN(TestAutoChunkNumerics)
}  // namespace test_auto_chunk_numerics
#include "test_auto_chunk_numerics.moc"

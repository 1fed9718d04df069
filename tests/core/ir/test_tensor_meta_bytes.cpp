// valueBytes: the one rule for the bytes of a value's meta (concrete sizes, symbolic sizes by
// their hint, tuples summed, unknown sizes nullopt), on annotations, hand-made symbolic
// metas and the unbacked symbols shape propagation makes on a corpus graph.
#include <QtTest>

#include <filesystem>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/sidecar.hpp"
#include "core/ir/diagnostics.hpp"
#include "core/ir/tensor_meta.hpp"
#include "core/ops/shape_prop.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_tensor_meta_bytes {

using namespace fxl;
namespace fs = std::filesystem;

}  // namespace test_tensor_meta_bytes
Q_DECLARE_METATYPE(fxl::ValueMeta)
namespace test_tensor_meta_bytes {

namespace {

const fs::path kCorpus = fxltest::corpusPath("pytorch");
using fxltest::readFile;

constexpr int64_t kUnknown = -1;  // expected nullopt in the rows

TensorMeta tensorOf(DType dtype, std::vector<SymInt> sizes)
{
    TensorMeta t;
    t.dtype = dtype;
    t.sizes = std::move(sizes);
    return t;
}

SymInt symbol(const char* name, std::optional<int64_t> hint) { return SymInt(SymExpr::symbol(name), hint); }

// A None, a symbolic scalar (the expression s0) or an opaque value.
ValueMeta metaOfKind(ValueMeta::Kind kind)
{
    ValueMeta m;
    m.kind = kind;
    if (kind == ValueMeta::Kind::SymInt || kind == ValueMeta::Kind::SymFloat || kind == ValueMeta::Kind::SymBool)
        m.sym = SymExpr::symbol("s0");
    if (kind == ValueMeta::Kind::Opaque) m.opaqueText = "SomeOpaqueThing<3>";
    return m;
}

// moe_dispatch with shapes propagated from its inputs: bincount and repeat_interleave get the
// unbacked sizes u0 and u1 (hints 4 and 48); `recorded` has the sizes the tracer saw.
struct PropagatedGraph
{
    Graph graph, recorded;
};

const PropagatedGraph& moeDispatch()
{
    static const PropagatedGraph pg = [] {
        PropagatedGraph r;
        const fs::path code = kCorpus / "moe_dispatch.joint.code.py";
        const SidecarFiles sc = findSidecars(code.string());
        r.graph = parseFxText(readFile(code), code.string());
        r.recorded = r.graph.clone();
        DiagnosticList diags;
        attachSidecarMeta(r.recorded, sc.meta, diags);
        ShapePropOptions opts;
        opts.inputs = inputMetasFromSafetensors(sc.inputs);
        opts.recorded = &r.recorded;
        propagateShapes(r.graph, opts);
        return r;
    }();
    return pg;
}

bool hasSymbolicSize(const ValueMeta& v)
{
    if (v.kind == ValueMeta::Kind::Tuple) {
        for (const ValueMeta& e : v.elems)
            if (hasSymbolicSize(e)) return true;
        return false;
    }
    if (!v.isTensor()) return false;
    for (const SymInt& s : v.tensor.sizes)
        if (!s.isConcrete()) return true;
    return false;
}

}  // namespace

class TestTensorMetaBytes : public QObject
{
    Q_OBJECT

private slots:
    void handMade_data()
    {
        QTest::addColumn<ValueMeta>("meta");
        QTest::addColumn<qint64>("expected");
        // concrete
        QTest::newRow("f32[8, 4]") << ValueMeta::ofTensor(tensorOf(DType::F32, {8, 4})) << qint64(128);
        QTest::newRow("f16[3]") << ValueMeta::ofTensor(tensorOf(DType::F16, {3})) << qint64(6);
        QTest::newRow("f64[] scalar") << ValueMeta::ofTensor(tensorOf(DType::F64, {})) << qint64(8);
        QTest::newRow("b8[0, 5] empty") << ValueMeta::ofTensor(tensorOf(DType::Bool, {0, 5})) << qint64(0);
        // symbolic: by the hint; without one (or with a negative one) unknown
        QTest::newRow("f32[s0=6, 4]") << ValueMeta::ofTensor(tensorOf(DType::F32, {symbol("s0", 6), 4})) << qint64(96);
        QTest::newRow("i64[u0=5, u1=3]") << ValueMeta::ofTensor(
            tensorOf(DType::I64, {symbol("u0", 5), symbol("u1", 3)}))
                                         << qint64(120);
        QTest::newRow("f32[s0 no hint]") << ValueMeta::ofTensor(tensorOf(DType::F32, {symbol("s0", std::nullopt), 4}))
                                         << qint64(kUnknown);
        QTest::newRow("f32[u0=-1]") << ValueMeta::ofTensor(tensorOf(DType::F32, {symbol("u0", -1)}))
                                    << qint64(kUnknown);
        QTest::newRow("overflow") << ValueMeta::ofTensor(tensorOf(DType::F64, {int64_t(1) << 40, int64_t(1) << 30}))
                                  << qint64(kUnknown);
        // tuples: summed, None elements 0, any unknown element makes the whole unknown
        QTest::newRow("(f32[2], None, i32[3])")
            << ValueMeta::ofTuple({ValueMeta::ofTensor(tensorOf(DType::F32, {2})), metaOfKind(ValueMeta::Kind::None),
                                   ValueMeta::ofTensor(tensorOf(DType::I32, {3}))})
            << qint64(20);
        QTest::newRow("(f32[s0=2], (bf16[4],))")
            << ValueMeta::ofTuple({ValueMeta::ofTensor(tensorOf(DType::F32, {symbol("s0", 2)})),
                                   ValueMeta::ofTuple({ValueMeta::ofTensor(tensorOf(DType::BF16, {4}))})})
            << qint64(16);
        QTest::newRow("(f32[2], unknown)")
            << ValueMeta::ofTuple({ValueMeta::ofTensor(tensorOf(DType::F32, {2})), ValueMeta::unknown()})
            << qint64(kUnknown);
        QTest::newRow("() empty tuple") << ValueMeta::ofTuple({}) << qint64(0);
        // no tensor storage / nothing known
        QTest::newRow("None") << metaOfKind(ValueMeta::Kind::None) << qint64(0);
        QTest::newRow("SymInt") << metaOfKind(ValueMeta::Kind::SymInt) << qint64(0);
        QTest::newRow("SymFloat") << metaOfKind(ValueMeta::Kind::SymFloat) << qint64(0);
        QTest::newRow("SymBool") << metaOfKind(ValueMeta::Kind::SymBool) << qint64(0);
        QTest::newRow("Unknown") << ValueMeta::unknown() << qint64(kUnknown);
        QTest::newRow("Opaque") << metaOfKind(ValueMeta::Kind::Opaque) << qint64(kUnknown);
    }
    void handMade()
    {
        QFETCH(ValueMeta, meta);
        QFETCH(qint64, expected);
        const std::optional<int64_t> got = valueBytes(meta);
        QCOMPARE(qint64(got.value_or(kUnknown)), expected);
    }

    // Parsed annotations; a view counts its own extent (strides do not matter).
    void annotations_data()
    {
        QTest::addColumn<QString>("annotation");
        QTest::addColumn<qint64>("expected");
        QTest::newRow("contiguous") << "f32[8, 4][4, 1]cpu" << qint64(128);
        QTest::newRow("transposed view") << "f32[4, 8][1, 4]cpu" << qint64(128);
        QTest::newRow("expanded view, stride 0") << "f32[8, 4][0, 1]" << qint64(128);
        QTest::newRow("view with a padded row stride") << "bf16[2, 3][6, 1]" << qint64(12);
        QTest::newRow("symbolic, no hint") << "f32[s0, 3]" << qint64(kUnknown);
        QTest::newRow("wrapper subclass") << "TwoTensor(f32[3, 4])" << qint64(48);
        QTest::newRow("Sym(s0)") << "Sym(s0)" << qint64(0);
    }
    void annotations()
    {
        QFETCH(QString, annotation);
        QFETCH(qint64, expected);
        const ValueMeta m = parseAnnotation(annotation.toStdString());
        QCOMPARE(qint64(valueBytes(m).value_or(kUnknown)), expected);
    }

    // Shape propagation on moe_dispatch: values with unbacked sizes count by their hints.
    void unbackedSymbols_data()
    {
        QTest::addColumn<QString>("node");
        QTest::addColumn<bool>("symbolic");
        QTest::addColumn<qint64>("expected");
        QTest::newRow("bincount i64[u0=4]") << "bincount" << true << qint64(4 * 8);
        QTest::newRow("repeat_interleave i64[u1=48]") << "repeat_interleave" << true << qint64(48 * 8);
        QTest::newRow("index_select i64[u1=48]") << "index_select" << true << qint64(48 * 8);
        QTest::newRow("expand view i64[24]") << "expand" << false << qint64(24 * 8);
        QTest::newRow("topk (f32[24, 2], i64[24, 2])") << "topk" << false << qint64(24 * 2 * 4 + 24 * 2 * 8);
    }
    void unbackedSymbols()
    {
        QFETCH(QString, node);
        FXL_REQUIRE_CORPUS(kCorpus / "moe_dispatch.joint.code.py");
        QFETCH(bool, symbolic);
        QFETCH(qint64, expected);
        const Graph& g = moeDispatch().graph;
        const NodeId id = g.findByName(node.toStdString());
        QVERIFY(id != kNoNode);
        const ValueMeta& v = g.node(id).val;
        QCOMPARE(hasSymbolicSize(v), symbolic);
        QCOMPARE(qint64(valueBytes(v).value_or(kUnknown)), expected);
    }

    // Every propagated value has the bytes of the recorded (concrete) value, symbolic or not.
    void propagatedMatchesRecorded()
    {
        FXL_REQUIRE_CORPUS(kCorpus / "moe_dispatch.joint.code.py");
        const PropagatedGraph& pg = moeDispatch();
        int compared = 0, symbolic = 0;
        for (NodeId id : pg.graph.order()) {
            const Node& n = pg.graph.node(id);
            const NodeId rid = pg.recorded.findByName(n.name);
            if (rid == kNoNode) continue;
            const ValueMeta& want = pg.recorded.node(rid).val;
            if (want.kind != ValueMeta::Kind::Tensor && want.kind != ValueMeta::Kind::Tuple) continue;
            const std::optional<int64_t> wantBytes = valueBytes(want);
            QVERIFY2(wantBytes.has_value(), n.name.c_str());
            QVERIFY2(valueBytes(n.val) == wantBytes, n.name.c_str());
            ++compared;
            if (hasSymbolicSize(n.val)) ++symbolic;
        }
        QVERIFY(compared > 50);
        QVERIFY(symbolic >= 2);  // at least bincount and repeat_interleave
    }
};

FXL_TEST_GUILESS_MAIN(TestTensorMetaBytes)
}  // namespace test_tensor_meta_bytes
#include "test_tensor_meta_bytes.moc"

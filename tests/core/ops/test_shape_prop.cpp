// Shape propagation against PyTorch's recorded metas: every node of every traced joint
// graph in corpus/pytorch (and the 100k-node large/ graph) must get the dtype, sizes and
// strides the tracer recorded; data-dependent sizes must be unbacked symbols whose hint
// is the recorded size. The partition graphs must propagate without problems.
#include <QtTest>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <sstream>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/sidecar.hpp"
#include "core/ops/op_registry.hpp"
#include "core/ops/shape_prop.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_shape_prop {

using namespace fxl;
namespace fs = std::filesystem;

namespace {

const fs::path kCorpus = fxltest::corpusPath("pytorch");
using fxltest::readFile;

// Ops whose output size depends on the data.
bool isDataDependent(const Node& n)
{
    static const std::set<std::string> kOps{"aten.bincount.default", "aten.repeat_interleave.Tensor",
                                            "aten.nonzero.default", "aten.masked_select.default"};
    return n.op == NodeOp::CallFunction && kOps.count(n.target) > 0;
}

bool sameInt(const SymInt& got, const SymInt& want)
{
    auto g = got.maybeValue(), w = want.maybeValue();
    return g && w && *g == *w;
}

// Empty when equal; else what differs.
std::string compareTensor(const TensorMeta& got, const TensorMeta& want)
{
    std::string why;
    if (got.dtype != want.dtype)
        why += "dtype " + std::string(dtypeAbbr(got.dtype)) + " vs " + std::string(dtypeAbbr(want.dtype)) + "; ";
    bool sizesOk = got.sizes.size() == want.sizes.size();
    for (size_t i = 0; sizesOk && i < got.sizes.size(); ++i) sizesOk = sameInt(got.sizes[i], want.sizes[i]);
    bool stridesOk = got.strides.size() == want.strides.size();
    for (size_t i = 0; stridesOk && i < got.strides.size(); ++i) stridesOk = sameInt(got.strides[i], want.strides[i]);
    if (!sizesOk || !stridesOk)
        why += "got " + formatAnnotation(ValueMeta::ofTensor(got)) + " want "
            + formatAnnotation(ValueMeta::ofTensor(want));
    return why;
}

std::string compareValue(const ValueMeta& got, const ValueMeta& want)
{
    if (want.kind == ValueMeta::Kind::Tensor) {
        if (!got.isTensor()) return "not a tensor (kind " + std::to_string(static_cast<int>(got.kind)) + ")";
        return compareTensor(got.tensor, want.tensor);
    }
    if (want.kind == ValueMeta::Kind::Tuple) {
        if (got.kind != ValueMeta::Kind::Tuple || got.elems.size() < want.elems.size()) return "not a matching tuple";
        for (size_t i = 0; i < want.elems.size(); ++i) {
            std::string w = compareValue(got.elems[i], want.elems[i]);
            if (!w.empty()) return "[" + std::to_string(i) + "] " + w;
        }
    }
    return {};
}

bool hasSymbolicSize(const ValueMeta& v)
{
    if (!v.isTensor()) return false;
    for (const auto& s : v.tensor.sizes)
        if (!s.isConcrete()) return true;
    return false;
}

struct CaseResult
{
    int compared = 0, matched = 0, symbolic = 0;
    std::vector<std::string> mismatches;
    ShapePropResult prop;
    double ms = 0;
};

CaseResult runJoint(const fs::path& code, Graph& g)
{
    SidecarFiles sc = findSidecars(code.string());
    g = parseFxText(readFile(code), code.string());
    ShapePropOptions opts;
    opts.inputs = inputMetasFromSafetensors(sc.inputs);
    if (!sc.constants.empty()) opts.constants = inputMetasFromSafetensors(sc.constants);
    Graph recorded = g.clone();
    DiagnosticList diags;
    attachSidecarMeta(recorded, sc.meta, diags);
    opts.recorded = &recorded;
    CaseResult r;
    auto t0 = std::chrono::steady_clock::now();
    r.prop = propagateShapes(g, opts);
    r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    for (NodeId id : g.order()) {
        const Node& n = g.node(id);
        NodeId rid = recorded.findByName(n.name);
        if (rid == kNoNode) continue;
        const ValueMeta& want = recorded.node(rid).val;
        if (want.kind != ValueMeta::Kind::Tensor && want.kind != ValueMeta::Kind::Tuple) continue;
        ++r.compared;
        std::string why = compareValue(n.val, want);
        if (why.empty() && isDataDependent(n)) {
            // the data-dependent size must stay a symbol (its hint matched above)
            if (!hasSymbolicSize(n.val))
                why = "data-dependent size is not symbolic";
            else
                ++r.symbolic;
        }
        if (why.empty())
            ++r.matched;
        else
            r.mismatches.push_back(n.name + " (" + n.target + "): " + why);
    }
    return r;
}

QString firstFew(const std::vector<std::string>& v, size_t k = 12)
{
    QString s;
    for (size_t i = 0; i < v.size() && i < k; ++i) s += QString::fromStdString(v[i]) + "\n";
    if (v.size() > k) s += QString("... and %1 more").arg(v.size() - k);
    return s;
}

// Same target and, recursively, the same arguments: the partitioners rename some nodes
// (detach_N), so a name alone does not identify a joint node.
bool sameNode(const Node& a, const Graph& ga, const Node& b, const Graph& gb, int depth = 0)
{
    // inputs of a partition graph are named primals_k / after forward outputs
    if (a.op == NodeOp::Placeholder)
        return a.name == b.name || (b.op == NodeOp::Placeholder && a.name.rfind("primals_", 0) == 0);
    if (a.name != b.name || a.target != b.target || a.args.size() != b.args.size()) return false;
    if (a.op != NodeOp::CallFunction || depth > 8) return true;
    for (size_t i = 0; i < a.args.size(); ++i) {
        std::vector<NodeId> na, nb;
        a.args[i].forEachNode([&](NodeId id) { na.push_back(id); });
        b.args[i].forEachNode([&](NodeId id) { nb.push_back(id); });
        if (na.size() != nb.size()) return false;
        for (size_t k = 0; k < na.size(); ++k)
            if (!sameNode(ga.node(na[k]), ga, gb.node(nb[k]), gb, depth + 1)) return false;
    }
    return true;
}

// Input metas of a partition graph: primals_k is the joint's k-th placeholder; other
// placeholders are forward outputs / joint nodes of the same name; tangents_k follow the
// forward graph's k-th output.
std::map<std::string, TensorMeta> partitionInputs(const Graph& part, const Graph& joint, const Graph* fw)
{
    std::map<std::string, TensorMeta> in;
    auto jointPh = joint.placeholders();
    std::vector<ValueMeta> fwOuts;
    if (fw && fw->outputNode() != kNoNode) {
        const Node& o = fw->node(fw->outputNode());
        if (!o.args.empty() && o.args[0].isSequence())
            for (const auto& a : o.args[0].items) fwOuts.push_back(a.isNode() ? fw->node(a.node).val : ValueMeta{});
    }
    for (NodeId id : part.placeholders()) {
        const Node& p = part.node(id);
        const ValueMeta* v = nullptr;
        if (p.name.rfind("primals_", 0) == 0) {
            size_t k = std::stoul(p.name.substr(8));
            if (k >= 1 && k <= jointPh.size()) v = &joint.node(jointPh[k - 1]).val;
        } else if (p.name.rfind("tangents_", 0) == 0) {
            size_t k = std::stoul(p.name.substr(9));
            if (k >= 1 && k <= fwOuts.size()) v = &fwOuts[k - 1];
        } else {
            NodeId f = fw ? fw->findByName(p.name) : kNoNode;
            if (f != kNoNode)
                v = &fw->node(f).val;
            else if ((f = joint.findByName(p.name)) != kNoNode)
                v = &joint.node(f).val;
        }
        if (v && v->isTensor()) in[p.name] = v->tensor;
    }
    return in;
}

}  // namespace

class TestShapeProp : public QObject
{
    Q_OBJECT

private slots:
    void jointGraphs_data()
    {
        QTest::addColumn<QString>("code");
        std::vector<fs::path> files = fxltest::corpusFiles("pytorch", {".joint.code.py"});
        files.push_back(kCorpus / "large" / "gpt2_deep640.joint.code.py");
        for (const auto& p : files) QTest::newRow(p.filename().string().c_str()) << QString::fromStdString(p.string());
    }

    void jointGraphs()
    {
        QFETCH(QString, code);
        FXL_REQUIRE_CORPUS(code);
        Graph g;
        CaseResult r = runJoint(code.toStdString(), g);
        qInfo("%s: %d/%d nodes matched (%d data-dependent symbolic), %d computed, %zu unbacked, %.1f ms",
              qPrintable(fs::path(code.toStdString()).filename().string().c_str()), r.matched, r.compared, r.symbolic,
              r.prop.nodesComputed, r.prop.unbacked.size(), r.ms);
        QVERIFY2(r.prop.problems.empty(), qPrintable(firstFew(r.prop.problems)));
        QVERIFY2(r.mismatches.empty(), qPrintable(firstFew(r.mismatches)));
        QVERIFY(r.compared > 0);
        QCOMPARE(r.matched, r.compared);
    }

    // moe graphs: the data-dependent sizes are new unbacked symbols with the recorded hint
    void unbackedSymbols_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("expected");
        QTest::newRow("moe_tiny") << "moe_tiny" << 1;  // bincount
        QTest::newRow("moe_dispatch") << "moe_dispatch" << 2;  // bincount, repeat_interleave
    }
    void unbackedSymbols()
    {
        QFETCH(QString, name);
        QFETCH(int, expected);
        const fs::path code = kCorpus / (name.toStdString() + ".joint.code.py");
        FXL_REQUIRE_CORPUS(code);
        Graph g;
        CaseResult r = runJoint(code, g);
        QCOMPARE(static_cast<int>(r.prop.unbacked.size()), expected);
        QCOMPARE(r.symbolic, expected);
        NodeId b = g.findByName("bincount");
        QVERIFY(b != kNoNode);
        const ValueMeta& v = g.node(b).val;
        QVERIFY(v.isTensor());
        QCOMPARE(QString::fromStdString(v.tensor.sizes[0].str()), QString("u0"));
        QCOMPARE(v.tensor.sizes[0].hint().value_or(-1), int64_t(4));
        // downstream of repeat_interleave the size stays symbolic
        if (name == "moe_dispatch") {
            NodeId is = g.findByName("index_select");
            QVERIFY(is != kNoNode);
            QCOMPARE(QString::fromStdString(g.node(is).val.tensor.sizes[0].str()), QString("u1"));
            QCOMPARE(g.node(is).val.tensor.sizes[0].hint().value_or(-1), int64_t(48));
        }
    }

    // The data inputs' batch dim made an unbacked symbol (hint = the real size), as the
    // chunking passes trace them: everything must still propagate, and every size and
    // stride hint must equal the recorded value.
    void symbolicBatch_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* n : {"gpt2_tiny", "llama_tiny", "moe_tiny", "moe_dispatch"}) QTest::newRow(n) << n;
    }
    void symbolicBatch()
    {
        QFETCH(QString, name);
        fs::path code = kCorpus / (name.toStdString() + ".joint.code.py");
        FXL_REQUIRE_CORPUS(code);
        SidecarFiles sc = findSidecars(code.string());
        Graph g = parseFxText(readFile(code), code.string());
        ShapePropOptions opts;
        opts.inputs = inputMetasFromSafetensors(sc.inputs);
        if (!sc.constants.empty()) opts.constants = inputMetasFromSafetensors(sc.constants);
        ParamsInfo params = readParamsJson(sc.params);
        auto ph = g.placeholders();
        QVERIFY(params.numDataInputs > 0);
        for (int i = 0; i < params.numDataInputs; ++i) {
            TensorMeta& t = opts.inputs.at(g.node(ph[static_cast<size_t>(i)]).name);
            QVERIFY(!t.sizes.empty());
            int64_t b = *t.sizes[0].maybeValue();
            t.sizes[0] = SymInt(SymExpr::symbol("u0"), b);
            t.strides.clear();  // contiguous strides are derived from the symbolic sizes
        }
        Graph recorded = g.clone();
        DiagnosticList diags;
        attachSidecarMeta(recorded, sc.meta, diags);
        opts.recorded = &recorded;
        ShapePropResult r = propagateShapes(g, opts);
        QVERIFY2(r.problems.empty(), qPrintable(firstFew(r.problems)));
        int symbolic = 0;
        std::vector<std::string> mismatches;
        for (NodeId id : g.order()) {
            const Node& n = g.node(id);
            const ValueMeta& want = recorded.node(id).val;
            if (want.kind != ValueMeta::Kind::Tensor && want.kind != ValueMeta::Kind::Tuple) continue;
            std::string why = compareValue(n.val, want);
            if (!why.empty()) mismatches.push_back(n.name + " (" + n.target + "): " + why);
            if (n.val.isTensor())
                for (const auto& sz : n.val.tensor.sizes)
                    if (!sz.isConcrete() && sz.str().find("u0") != std::string::npos) {
                        ++symbolic;
                        break;
                    }
        }
        qInfo("%s: %d nodes carry the symbolic batch", qPrintable(name), symbolic);
        QVERIFY2(mismatches.empty(), qPrintable(firstFew(mismatches)));
        QVERIFY(symbolic >= params.numDataInputs);
    }

    void partitionGraphs_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("partitioner");
        for (const char* n : {"mlp_gelu", "linear_ce", "gpt2_tiny", "llama_tiny"})
            for (const char* p : {"mincut", "default"}) QTest::newRow((std::string(n) + "." + p).c_str()) << n << p;
    }
    void partitionGraphs()
    {
        QFETCH(QString, name);
        QFETCH(QString, partitioner);
        FXL_REQUIRE_CORPUS(kCorpus / (name.toStdString() + ".joint.code.py"));
        for (const char* kind : {"fw", "bw"})
            FXL_REQUIRE_CORPUS(kCorpus
                               / (name.toStdString() + "." + kind + "." + partitioner.toStdString() + ".code.py"));
        Graph joint;
        CaseResult jr = runJoint(kCorpus / (name.toStdString() + ".joint.code.py"), joint);
        QVERIFY(jr.prop.problems.empty());
        Graph fw;
        for (const char* kind : {"fw", "bw"}) {
            fs::path code = kCorpus / (name.toStdString() + "." + kind + "." + partitioner.toStdString() + ".code.py");
            Graph g = parseFxText(readFile(code), code.string());
            ShapePropOptions opts;
            opts.inputs = partitionInputs(g, joint, std::string(kind) == "bw" ? &fw : nullptr);
            SidecarFiles sc = findSidecars(code.string());
            if (!sc.constants.empty()) opts.constants = inputMetasFromSafetensors(sc.constants);
            ShapePropResult r = propagateShapes(g, opts);
            QVERIFY2(r.problems.empty(), qPrintable(QString(kind) + ": " + firstFew(r.problems)));
            // nodes that exist in the joint graph under the same name have the same meta
            int same = 0, compared = 0;
            std::vector<std::string> diffs;
            for (NodeId id : g.order()) {
                const Node& n = g.node(id);
                if (n.op != NodeOp::CallFunction) continue;
                NodeId j = joint.findByName(n.name);
                if (j == kNoNode || !sameNode(n, g, joint.node(j), joint)) continue;
                ++compared;
                std::string why = compareValue(n.val, joint.node(j).val);
                if (why.empty())
                    ++same;
                else
                    diffs.push_back(n.name + ": " + why);
            }
            qInfo("%s.%s.%s: %d nodes computed, %d/%d agree with the joint graph", qPrintable(name), kind,
                  qPrintable(partitioner), r.nodesComputed, same, compared);
            QVERIFY2(diffs.empty(), qPrintable(firstFew(diffs)));
            if (std::string(kind) == "fw") fw = std::move(g);
        }
    }

    // Graph dumps printed by PyTorch 2.x with annotations: recompute every call_function
    // node from the placeholders' annotations and compare with the printed annotation.
    void annotatedDumps_data()
    {
        QTest::addColumn<QString>("path");
        for (const auto& p : fxltest::corpusFiles("fx", {".txt"}))
            QTest::newRow(p.filename().string().c_str()) << QString::fromStdString(p.string());
    }
    void annotatedDumps()
    {
        QFETCH(QString, path);
        FXL_REQUIRE_CORPUS(path);
        fs::path p = path.toStdString();
        Graph recorded = parseFxText(readFile(p), p.string());
        Graph g = recorded.clone();
        int annotated = 0;
        std::function<void(Graph&)> clear = [&](Graph& gr) {
            for (NodeId id : gr.order()) {
                Node& n = gr.node(id);
                // custom ops without a schema keep their annotation so their users go on
                const OpInfo* op = OpRegistry::instance().find(n.target);
                bool computable = (op && op->meta) || n.target.rfind("higher_order.", 0) == 0;
                if (n.target == "operator.getitem" && !n.args.empty() && n.args[0].isNode()) {
                    const Node& src = gr.node(n.args[0].node);
                    const OpInfo* sop = OpRegistry::instance().find(src.target);
                    computable = src.op != NodeOp::CallFunction || (sop && sop->meta)
                        || src.target.rfind("higher_order.", 0) == 0;
                }
                if (n.op == NodeOp::CallFunction && computable && n.val.kind != ValueMeta::Kind::Unknown) {
                    ++annotated;
                    n.val = ValueMeta{};
                }
            }
        };
        clear(g);
        ShapePropOptions opts;
        opts.recorded = &recorded;
        ShapePropResult r = propagateShapes(g, opts);
        int compared = 0, matched = 0;
        std::vector<std::string> diffs;
        for (NodeId id : g.order()) {
            const Node& n = g.node(id);
            const ValueMeta& want = recorded.node(id).val;
            if (n.op != NodeOp::CallFunction || !want.isTensor()) continue;
            ++compared;
            std::string got = formatAnnotation(n.val), exp = formatAnnotation(want);
            ValueMeta cmp = n.val;
            if (cmp.isTensor()) {
                if (want.tensor.strides.empty()) cmp.tensor.strides.clear();
                if (want.tensor.device.empty()) cmp.tensor.device.clear();
                got = formatAnnotation(cmp);
            }
            // our unbacked symbols are numbered from u0; the dump's may start elsewhere
            static const std::regex kUnbacked("u[0-9]+");
            got = std::regex_replace(got, kUnbacked, "u#");
            exp = std::regex_replace(exp, kUnbacked, "u#");
            if (got == exp)
                ++matched;
            else
                diffs.push_back(n.name + " (" + n.target + "): got " + got + " want " + exp);
        }
        qInfo("%s: %d/%d annotated nodes match, %d computed, %zu problems", p.filename().string().c_str(), matched,
              compared, r.nodesComputed, r.problems.size());
        QVERIFY2(diffs.empty(), qPrintable(firstFew(diffs)));
        // the only acceptable problems: custom ops without a schema, and their users
        for (const auto& pr : r.problems)
            QVERIFY2(pr.find("unknown operator (no schema)") != std::string::npos
                         || pr.find("not computed because an input") != std::string::npos,
                     pr.c_str());
        QVERIFY(compared > 0);
    }

    // A graph with a broken node reports it and keeps going; nothing throws.
    void badGraphsReportProblems()
    {
        const char* text = "def forward(self, x, y):\n"
                           "    mm = torch.ops.aten.mm.default(x, y)\n"
                           "    relu = torch.ops.aten.relu.default(mm)\n"
                           "    foo = torch.ops.aten.no_such_op.default(x)\n"
                           "    neg = torch.ops.aten.neg.default(foo)\n"
                           "    return (relu, neg)\n";
        Graph g = parseFxText(text, "<test>");
        ShapePropOptions opts;
        TensorMeta x;
        x.dtype = DType::F32;
        x.sizes = {SymInt(4), SymInt(3)};
        opts.inputs["x"] = x;
        opts.inputs["y"] = x;  // 4x3 @ 4x3: mm fails
        ShapePropResult r = propagateShapes(g, opts);
        QCOMPARE(r.nodesComputed, 0);
        QString all = firstFew(r.problems);
        QVERIFY2(all.contains("node 'mm' (aten.mm.default)"), qPrintable(all));
        QVERIFY2(all.contains("node 'foo' (aten.no_such_op.default)"), qPrintable(all));
        QVERIFY2(all.contains("2 node(s) not computed"), qPrintable(all));  // relu, neg
        opts.inputs["y"].sizes = {SymInt(3), SymInt(5)};
        r = propagateShapes(g, opts);
        QCOMPARE(r.nodesComputed, 2);
        QCOMPARE(QString::fromStdString(formatAnnotation(g.node(g.findByName("relu")).val)),
                 QString("f32[4, 5][5, 1]"));
    }
};

FXL_TEST_APPLESS_MAIN(TestShapeProp)
}  // namespace test_shape_prop
#include "test_shape_prop.moc"

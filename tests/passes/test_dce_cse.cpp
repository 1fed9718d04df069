// dce, cse and remove_detach on small hand-written graphs (one behaviour per row), the graph
// utilities they share, and the real checkpoint_mlp trace.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/source.hpp"
#include "passes/graph_edit.hpp"
#include "passes/pass.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_dce_cse {

using namespace fxl;
namespace fs = std::filesystem;

namespace {

// Graph text: a forward(self, x, y) header (print_readable form when annotated) and a body.
Graph parseBody(const QString& body, bool annotated = false)
{
    std::string text = annotated
        ? "class G(torch.nn.Module):\n    def forward(self, x: \"f32[2, 4][4, 1]cpu\", y: \"f32[4, 4][4, 1]cpu\"):\n"
        : "def forward(self, x, y):\n";
    const std::string ind = annotated ? "        " : "    ";
    for (const QString& line : body.split('\n', Qt::SkipEmptyParts)) text += ind + line.trimmed().toStdString() + "\n";
    Graph g = parseFxText(text, "<test>");
    g.rebuildUsers();
    return g;
}

// "name=TAG" / "name@phase" / "name#3" edits applied after parsing (recompute, phase, ac_graph_id).
void applyTags(Graph& g, const QString& tags)
{
    for (const QString& t : tags.split(' ', Qt::SkipEmptyParts)) {
        if (t.contains('=')) {
            NodeId id = g.findByName(t.section('=', 0, 0).toStdString());
            QVERIFY2(id != kNoNode, qPrintable(t));
            g.node(id).meta.recompute = *recomputeFromName(t.section('=', 1).toStdString());
        } else if (t.contains('@')) {
            NodeId id = g.findByName(t.section('@', 0, 0).toStdString());
            QVERIFY2(id != kNoNode, qPrintable(t));
            g.node(id).meta.phase = *phaseFromName(t.section('@', 1).toStdString());
        } else if (t.contains('#')) {
            NodeId id = g.findByName(t.section('#', 0, 0).toStdString());
            QVERIFY2(id != kNoNode, qPrintable(t));
            g.node(id).meta.acGraphId = t.section('#', 1).toInt();
        }
    }
}

QStringList names(const std::vector<std::string>& v)
{
    QStringList out;
    for (const auto& s : v) out << QString::fromStdString(s);
    return out;
}

QStringList nodeNames(const Graph& g)
{
    QStringList out;
    g.forEachNode([&](const Node& n) { out << QString::fromStdString(n.name); });
    return out;
}

QString rewiredText(const ChangeLog& log)
{
    QStringList out;
    for (const auto& r : log.rewired)
        out << QString::fromStdString(r.consumer + " " + r.where + " " + r.from + "->" + r.to);
    return out.join("; ");
}

using fxltest::readFile;

}  // namespace

class TestDceCse : public QObject
{
    Q_OBJECT
private:
    // Shared by the three data-driven pass tests.
    void addColumns()
    {
        QTest::addColumn<QString>("body");
        QTest::addColumn<bool>("annotated");
        QTest::addColumn<QString>("tags");
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QStringList>("removed");  // in log order
        QTest::addColumn<QString>("rewired");  // "" = don't check
    }
    void runRow()
    {
        QFETCH(QString, body);
        QFETCH(bool, annotated);
        QFETCH(QString, tags);
        QFETCH(QString, spec);
        QFETCH(QStringList, removed);
        QFETCH(QString, rewired);
        Graph g = parseBody(body, annotated);
        applyTags(g, tags);
        const QStringList before = nodeNames(g);
        PipelineRun run = runPipeline(g, spec.toStdString());
        QVERIFY2(run.ok, run.error.c_str());
        const Step& s = run.steps.back();
        QCOMPARE(names(s.log.removed), removed);
        if (!rewired.isEmpty()) QCOMPARE(rewiredText(s.log), rewired);
        QStringList expect = before;
        for (const QString& r : removed) expect.removeAll(r);
        QCOMPARE(nodeNames(s.graph()), expect);
        for (const auto& p : s.problems) QVERIFY2(p.severity != Severity::Error, p.format().c_str());
        std::string why;
        QVERIFY2(isTopologicallyOrdered(s.graph(), &why), why.c_str());
    }

private slots:
    void dce_data()
    {
        addColumns();
        QTest::newRow("dead chain")
            << "relu = torch.ops.aten.relu.default(x)\nneg = torch.ops.aten.neg.default(relu)\nreturn (x,)" << false
            << ""
            << "dce" << QStringList{"relu", "neg"} << "";
        QTest::newRow("used kept")
            << "relu = torch.ops.aten.relu.default(x)\nneg = torch.ops.aten.neg.default(relu)\nreturn (neg,)" << false
            << ""
            << "dce" << QStringList{} << "";
        QTest::newRow("in-place kept")
            << "add_ = torch.ops.aten.add_.Tensor(x, y)\nrelu = torch.ops.aten.relu.default(y)\nreturn (x,)" << false
            << ""
            << "dce" << QStringList{"relu"} << "";
        // a batch norm in training writes its running stats (y here): kept with its outputs unused;
        // in eval it writes nothing and goes
        QTest::newRow("batch norm in training kept")
            << "bn = torch.ops.aten.native_batch_norm.default(x, None, None, y, y, True, 0.1, 1e-05)\n"
               "ev = torch.ops.aten.native_batch_norm.default(x, None, None, y, y, False, 0.1, 1e-05)\nreturn (x,)"
            << false << ""
            << "dce" << QStringList{"ev"} << "";
        QTest::newRow("copy_ kept") << "copy_ = torch.ops.aten.copy_.default(x, y)\nreturn (y,)" << false << ""
                                    << "dce(random_pure=true,collectives_pure=true)" << QStringList{} << "";
        QTest::newRow("random kept") << "rand = torch.ops.aten.rand.default([2, 2], device = device(type='cpu'), "
                                        "pin_memory = False)\nreturn (x,)"
                                     << false << ""
                                     << "dce" << QStringList{} << "";
        QTest::newRow("random_pure") << "rand = torch.ops.aten.rand.default([2, 2], device = device(type='cpu'), "
                                        "pin_memory = False)\nreturn (x,)"
                                     << false << ""
                                     << "dce(random_pure=true)" << QStringList{"rand"} << "";
        QTest::newRow("dropout kept") << "native_dropout = torch.ops.aten.native_dropout.default(x, 0.5, "
                                         "True)\ngetitem = native_dropout[0]\nreturn (y,)"
                                      << false << ""
                                      << "dce" << QStringList{"getitem"} << "";
        QTest::newRow("collective kept")
            << "all_gather_into_tensor = torch.ops._c10d_functional.all_gather_into_tensor.default(x, 2, '0')\n"
               "wait_tensor = torch.ops._c10d_functional.wait_tensor.default(all_gather_into_tensor)\nreturn (x,)"
            << false << ""
            << "dce" << QStringList{} << "";
        QTest::newRow("collectives_pure")
            << "all_gather_into_tensor = torch.ops._c10d_functional.all_gather_into_tensor.default(x, 2, '0')\n"
               "wait_tensor = torch.ops._c10d_functional.wait_tensor.default(all_gather_into_tensor)\nreturn (x,)"
            << false << ""
            << "dce(collectives_pure=1)" << QStringList{"all_gather_into_tensor", "wait_tensor"} << "";
        QTest::newRow("side effect kept")
            << "_assert_scalar = torch.ops.aten._assert_scalar.default(True, 'x')\nreturn (x,)" << false << ""
            << "dce" << QStringList{} << "";
        QTest::newRow("unknown op kept") << "baz = torch.ops.test.baz.default(x)\nreturn (x,)" << false << ""
                                         << "dce" << QStringList{} << "";
        QTest::newRow("unused input kept") << "relu = torch.ops.aten.relu.default(x)\nreturn (relu,)" << false << ""
                                           << "dce" << QStringList{} << "";
        QTest::newRow("remove_unused_inputs") << "relu = torch.ops.aten.relu.default(x)\nreturn (relu,)" << false << ""
                                              << "dce(remove_unused_inputs=true)" << QStringList{"y"} << "";
        QTest::newRow("dead getitems of used tuple")
            << "split = torch.ops.aten.split.Tensor(x, 1)\ngetitem = split[0]\ngetitem_1 = split[1]\nreturn (getitem,)"
            << false << ""
            << "dce" << QStringList{"getitem_1"} << "";
    }
    void dce() { runRow(); }

    void dceNotes()
    {
        Graph g =
            parseBody("rand = torch.ops.aten.rand.default([2])\nrand_1 = torch.ops.aten.rand.default([3])\n"
                      "add_ = torch.ops.aten.add_.Tensor(x, y)\nrelu = torch.ops.aten.relu.default(y)\nreturn (x,)");
        PipelineRun run = runPipeline(g, "dce");
        QVERIFY2(run.ok, run.error.c_str());
        QCOMPARE(run.steps.size(), size_t(2));
        const ChangeLog& log = run.steps[1].log;
        QCOMPARE(names(log.removed), QStringList{"relu"});
        QCOMPARE(names(log.notes),
                 (QStringList{"removed 1 dead node", "kept 1 unused node: in-place", "kept 2 unused nodes: random"}));
        QCOMPARE(log.stats["kept_random"].get<int>(), 2);
        QCOMPARE(log.stats["kept_in-place"].get<int>(), 1);
        QCOMPARE(log.stats["removed"].get<int>(), 1);
        // The same through the utility with a caller-chosen predicate set.
        Graph h = g.clone();
        PassContext ctx;
        QCOMPARE(eliminateDeadCode(h, DceOptions{false, true, false}, &ctx), size_t(3));
        QCOMPARE(names(ctx.log.removed), (QStringList{"rand", "rand_1", "relu"}));
    }

    void impurity()
    {
        Graph g = parseBody("add_ = torch.ops.aten.add_.Tensor(x, y)\nrand = torch.ops.aten.rand.default([2])\n"
                            "all_reduce = torch.ops._c10d_functional.all_reduce.default(x, 'sum', '0')\n"
                            "wait_tensor = torch.ops._c10d_functional.wait_tensor.default(all_reduce)\n"
                            "relu = torch.ops.aten.relu.default(y)\nreturn (x,)");
        const OpRegistry& reg = OpRegistry::instance();
        auto reason = [&](const char* n, DceOptions o = {}) { return impureReason(g.node(g.findByName(n)), reg, o); };
        QCOMPARE(reason("add_"), ImpureReason::Inplace);
        QCOMPARE(reason("add_", DceOptions{true, true, true}), ImpureReason::Inplace);
        QCOMPARE(reason("rand"), ImpureReason::Random);
        QCOMPARE(reason("rand", DceOptions{false, true, false}), ImpureReason::None);
        QCOMPARE(reason("all_reduce"), ImpureReason::Collective);
        QCOMPARE(reason("wait_tensor"), ImpureReason::Collective);
        QCOMPARE(reason("wait_tensor", DceOptions{true, false, false}), ImpureReason::None);
        QCOMPARE(reason("relu"), ImpureReason::None);
        QCOMPARE(reason("x"), ImpureReason::Placeholder);
        QCOMPARE(reason("x", DceOptions{false, false, true}), ImpureReason::None);
        QCOMPARE(reason("output"), ImpureReason::Output);
        QVERIFY(isImpure(g.node(g.findByName("rand")), reg, {}));
        QVERIFY(!isImpure(g.node(g.findByName("relu")), reg, {}));
    }

    void graphEdit()
    {
        Graph g = parseBody("relu = torch.ops.aten.relu.default(x)\nmm = torch.ops.aten.mm.default(relu, y)\n"
                            "add = torch.ops.aten.add.Tensor(mm, relu)\nreturn (add, relu)");
        PassContext ctx;
        // Copy mm before add, reading x instead of relu.
        const NodeId relu = g.findByName("relu"), x = g.findByName("x");
        const NodeId add = g.findByName("add");
        const NodeId copy = copyNodeBefore(
            g, g.node(g.findByName("mm")), [&](NodeId id) { return id == relu ? x : id; }, add, "", &ctx);
        g.rebuildUsers();
        QCOMPARE(g.node(copy).name, std::string("mm_1"));
        QCOMPARE(g.node(copy).meta.provenance, std::string("mm"));
        QCOMPARE(g.node(copy).args[0].node, x);
        QCOMPARE(g.positionOf(copy) + 1, g.positionOf(add));
        QCOMPARE(ctx.log.added.size(), size_t(1));
        QCOMPARE(ctx.log.added[0].copiedFrom, std::string("mm"));
        QVERIFY(isTopologicallyOrdered(g));
        // Rewire every use of relu (add arg 1, output arg 0[1]) to the copy's input... x.
        QCOMPARE(replaceAllUsesLogged(g, relu, x, &ctx), size_t(3));
        QCOMPARE(rewiredText(ctx.log), QString("mm arg 0 relu->x; add arg 1 relu->x; output arg 0[1] relu->x"));
        g.rebuildUsers();
        QCOMPARE(eraseNodes(g, {relu}, &ctx), size_t(1));
        QCOMPARE(names(ctx.log.removed), QStringList{"relu"});
        QCOMPARE(g.findByName("relu"), kNoNode);
        // A copy placed after the node it reads breaks the order, and the check says where.
        const NodeId bad = copyNodeBefore(
            g, g.node(g.findByName("add")), [](NodeId id) { return id; }, g.findByName("mm"), "early", nullptr);
        std::string why;
        QVERIFY(!isTopologicallyOrdered(g, &why));
        QVERIFY2(why.find("'early' uses") != std::string::npos, why.c_str());
        QCOMPARE(g.node(bad).name, std::string("early"));
    }

    void cse_data()
    {
        addColumns();
        QTest::newRow("duplicate mm") << "mm = torch.ops.aten.mm.default(x, y)\nmm_1 = torch.ops.aten.mm.default(x, "
                                         "y)\nadd = torch.ops.aten.add.Tensor(mm, mm_1)\nreturn (add,)"
                                      << false << ""
                                      << "cse" << QStringList{"mm_1"} << "add arg 1 mm_1->mm";
        QTest::newRow("chain of duplicates")
            << "mm = torch.ops.aten.mm.default(x, y)\nrelu = torch.ops.aten.relu.default(mm)\nmm_1 = "
               "torch.ops.aten.mm.default(x, y)\n"
               "relu_1 = torch.ops.aten.relu.default(mm_1)\nadd = torch.ops.aten.add.Tensor(relu, relu_1)\nreturn "
               "(add, mm_1)"
            << false << ""
            << "cse" << QStringList{"mm_1", "relu_1"} << "output arg 0[1] mm_1->mm; add arg 1 relu_1->relu";
        QTest::newRow("different args")
            << "mm = torch.ops.aten.mm.default(x, y)\nmm_1 = torch.ops.aten.mm.default(y, y)\nreturn (mm, mm_1)"
            << false << ""
            << "cse" << QStringList{} << "";
        QTest::newRow("different kwargs")
            << "sum_1 = torch.ops.aten.sum.dim_IntList(x, [0], keepdim = True)\nsum_2 = "
               "torch.ops.aten.sum.dim_IntList(x, [0], keepdim = False)\nreturn (sum_1, sum_2)"
            << false << ""
            << "cse" << QStringList{} << "";
        QTest::newRow("kwarg order irrelevant")
            << "sum_1 = torch.ops.aten.sum.dim_IntList(x, [0], keepdim = True, dtype = torch.float32)\n"
               "sum_2 = torch.ops.aten.sum.dim_IntList(x, [0], dtype = torch.float32, keepdim = True)\nreturn (sum_1, "
               "sum_2)"
            << false << ""
            << "cse" << QStringList{"sum_2"} << "output arg 0[1] sum_2->sum_1";
        QTest::newRow("signed zero differs") << "mul = torch.ops.aten.mul.Tensor(x, 0.0)\nmul_1 = "
                                                "torch.ops.aten.mul.Tensor(x, -0.0)\nreturn (mul, mul_1)"
                                             << false << ""
                                             << "cse" << QStringList{} << "";
        QTest::newRow("different recompute tags")
            << "mm = torch.ops.aten.mm.default(x, y)\nmm_1 = torch.ops.aten.mm.default(x, y)\nreturn (mm, mm_1)"
            << false << "mm=MUST_SAVE mm_1=PREFER_RECOMPUTE"
            << "cse" << QStringList{} << "";
        QTest::newRow("different tags, ignore_tags")
            << "mm = torch.ops.aten.mm.default(x, y)\nmm_1 = torch.ops.aten.mm.default(x, y)\nreturn (mm, mm_1)"
            << false << "mm=MUST_SAVE mm_1=PREFER_RECOMPUTE"
            << "cse(ignore_tags=true)" << QStringList{"mm_1"} << "output arg 0[1] mm_1->mm";
        QTest::newRow("same tags merge")
            << "mm = torch.ops.aten.mm.default(x, y)\nmm_1 = torch.ops.aten.mm.default(x, y)\nreturn (mm, mm_1)"
            << false << "mm=MUST_SAVE mm_1=MUST_SAVE"
            << "cse" << QStringList{"mm_1"} << "";
        QTest::newRow("different ac_graph_id")
            << "mm = torch.ops.aten.mm.default(x, y)\nmm_1 = torch.ops.aten.mm.default(x, y)\nreturn (mm, mm_1)"
            << false << "mm#1 mm_1#2"
            << "cse" << QStringList{} << "";
        QTest::newRow("different phases")
            << "mm = torch.ops.aten.mm.default(x, y)\nmm_1 = torch.ops.aten.mm.default(x, y)\nreturn (mm, mm_1)"
            << false << "mm@forward mm_1@backward"
            << "cse" << QStringList{} << "";
        // tags ignored, the phases still keep a backward copy apart from the forward value (a
        // checkpoint's recomputation), unless across_phases
        QTest::newRow("different phases, ignore_tags")
            << "mm = torch.ops.aten.mm.default(x, y)\nmm_1 = torch.ops.aten.mm.default(x, y)\nreturn (mm, mm_1)"
            << false << "mm@forward mm_1@backward"
            << "cse(ignore_tags=true)" << QStringList{} << "";
        QTest::newRow("different phases, across_phases")
            << "mm = torch.ops.aten.mm.default(x, y)\nmm_1 = torch.ops.aten.mm.default(x, y)\nreturn (mm, mm_1)"
            << false << "mm@forward mm_1@backward"
            << "cse(ignore_tags=true,across_phases=true)" << QStringList{"mm_1"} << "output arg 0[1] mm_1->mm";
        QTest::newRow("random not merged") << "rand = torch.ops.aten.rand.default([2])\nrand_1 = "
                                              "torch.ops.aten.rand.default([2])\nreturn (rand, rand_1)"
                                           << false << ""
                                           << "cse" << QStringList{} << "";
        QTest::newRow("empty not merged") << "empty = torch.ops.aten.empty.memory_format([2])\nempty_1 = "
                                             "torch.ops.aten.empty.memory_format([2])\nreturn (empty, empty_1)"
                                          << false << ""
                                          << "cse" << QStringList{} << "";
        QTest::newRow("read around a mutation")
            << "relu = torch.ops.aten.relu.default(x)\nadd_ = torch.ops.aten.add_.Tensor(x, y)\nrelu_1 = "
               "torch.ops.aten.relu.default(x)\nreturn (relu, relu_1)"
            << false << ""
            << "cse" << QStringList{} << "";
        QTest::newRow("mutation through a view")
            << "view = torch.ops.aten.view.default(x, [8])\nneg = torch.ops.aten.neg.default(x)\nadd_ = "
               "torch.ops.aten.add_.Tensor(view, 1)\n"
               "neg_1 = torch.ops.aten.neg.default(x)\nmm = torch.ops.aten.mm.default(y, y)\nmm_1 = "
               "torch.ops.aten.mm.default(y, y)\nreturn (neg, neg_1, mm, mm_1)"
            << false << ""
            << "cse" << QStringList{"mm_1"} << "";
        QTest::newRow("all_gather chain deduplicated")
            << "all_gather_into_tensor = torch.ops._c10d_functional.all_gather_into_tensor.default(x, 2, '0')\n"
               "wait_tensor = torch.ops._c10d_functional.wait_tensor.default(all_gather_into_tensor)\n"
               "all_gather_into_tensor_1 = torch.ops._c10d_functional.all_gather_into_tensor.default(x, 2, '0')\n"
               "wait_tensor_1 = torch.ops._c10d_functional.wait_tensor.default(all_gather_into_tensor_1)\n"
               "mm = torch.ops.aten.mm.default(wait_tensor, y)\nmm_1 = torch.ops.aten.mm.default(wait_tensor_1, "
               "y)\nreturn (mm, mm_1)"
            << false << ""
            << "cse(collectives=true)" << QStringList{"all_gather_into_tensor_1", "wait_tensor_1", "mm_1"}
            << "output arg 0[1] mm_1->mm";
        QTest::newRow("collective chains kept by default")
            << "all_gather_into_tensor = torch.ops._c10d_functional.all_gather_into_tensor.default(x, 2, '0')\n"
               "wait_tensor = torch.ops._c10d_functional.wait_tensor.default(all_gather_into_tensor)\n"
               "all_gather_into_tensor_1 = torch.ops._c10d_functional.all_gather_into_tensor.default(x, 2, '0')\n"
               "wait_tensor_1 = torch.ops._c10d_functional.wait_tensor.default(all_gather_into_tensor_1)\n"
               "mm = torch.ops.aten.mm.default(wait_tensor, y)\nmm_1 = torch.ops.aten.mm.default(wait_tensor_1, "
               "y)\nreturn (mm, mm_1)"
            << false << ""
            << "cse" << QStringList{} << "";
        QTest::newRow("reduce_scatter chain, interleaved waits")
            << "reduce_scatter_tensor = torch.ops._c10d_functional.reduce_scatter_tensor.default(y, 'sum', 2, '0')\n"
               "reduce_scatter_tensor_1 = torch.ops._c10d_functional.reduce_scatter_tensor.default(y, 'sum', 2, '0')\n"
               "wait_tensor = torch.ops._c10d_functional.wait_tensor.default(reduce_scatter_tensor)\n"
               "wait_tensor_1 = torch.ops._c10d_functional.wait_tensor.default(reduce_scatter_tensor_1)\nreturn "
               "(wait_tensor, wait_tensor_1)"
            << false << ""
            << "cse(collectives=true)" << QStringList{"reduce_scatter_tensor_1", "wait_tensor_1"}
            << "output arg 0[1] wait_tensor_1->wait_tensor";
        QTest::newRow("chain whose wait comes first not merged")
            << "all_reduce = torch.ops._c10d_functional.all_reduce.default(x, 'sum', '0')\n"
               "all_reduce_1 = torch.ops._c10d_functional.all_reduce.default(x, 'sum', '0')\n"
               "wait_tensor_1 = torch.ops._c10d_functional.wait_tensor.default(all_reduce_1)\n"
               "wait_tensor = torch.ops._c10d_functional.wait_tensor.default(all_reduce)\nreturn (wait_tensor, "
               "wait_tensor_1)"
            << false << ""
            << "cse(collectives=true)" << QStringList{} << "";
        QTest::newRow("different groups not merged")
            << "all_gather_into_tensor = torch.ops._c10d_functional.all_gather_into_tensor.default(x, 2, '0')\n"
               "wait_tensor = torch.ops._c10d_functional.wait_tensor.default(all_gather_into_tensor)\n"
               "all_gather_into_tensor_1 = torch.ops._c10d_functional.all_gather_into_tensor.default(x, 2, '1')\n"
               "wait_tensor_1 = torch.ops._c10d_functional.wait_tensor.default(all_gather_into_tensor_1)\nreturn "
               "(wait_tensor, wait_tensor_1)"
            << false << ""
            << "cse(collectives=true)" << QStringList{} << "";
        QTest::newRow("collective with extra user not merged")
            << "all_gather_into_tensor = torch.ops._c10d_functional.all_gather_into_tensor.default(x, 2, '0')\n"
               "wait_tensor = torch.ops._c10d_functional.wait_tensor.default(all_gather_into_tensor)\n"
               "all_gather_into_tensor_1 = torch.ops._c10d_functional.all_gather_into_tensor.default(x, 2, '0')\n"
               "wait_tensor_1 = torch.ops._c10d_functional.wait_tensor.default(all_gather_into_tensor_1)\n"
               "relu = torch.ops.aten.relu.default(all_gather_into_tensor_1)\nreturn (wait_tensor, wait_tensor_1, relu)"
            << false << ""
            << "cse(collectives=true)" << QStringList{} << "";
        QTest::newRow("chain with different tags not merged")
            << "all_gather_into_tensor = torch.ops._c10d_functional.all_gather_into_tensor.default(x, 2, '0')\n"
               "wait_tensor = torch.ops._c10d_functional.wait_tensor.default(all_gather_into_tensor)\n"
               "all_gather_into_tensor_1 = torch.ops._c10d_functional.all_gather_into_tensor.default(x, 2, '0')\n"
               "wait_tensor_1 = torch.ops._c10d_functional.wait_tensor.default(all_gather_into_tensor_1)\nreturn "
               "(wait_tensor, wait_tensor_1)"
            << false << "all_gather_into_tensor=MUST_RECOMPUTE wait_tensor=MUST_RECOMPUTE"
            << "cse(collectives=true)" << QStringList{} << "";
        QTest::newRow("chain with different tags, ignore_tags")
            << "all_gather_into_tensor = torch.ops._c10d_functional.all_gather_into_tensor.default(x, 2, '0')\n"
               "wait_tensor = torch.ops._c10d_functional.wait_tensor.default(all_gather_into_tensor)\n"
               "all_gather_into_tensor_1 = torch.ops._c10d_functional.all_gather_into_tensor.default(x, 2, '0')\n"
               "wait_tensor_1 = torch.ops._c10d_functional.wait_tensor.default(all_gather_into_tensor_1)\nreturn "
               "(wait_tensor, wait_tensor_1)"
            << false
            << "all_gather_into_tensor=MUST_RECOMPUTE wait_tensor=MUST_RECOMPUTE all_gather_into_tensor_1@backward "
               "wait_tensor_1@backward"
            << "cse(ignore_tags=true,collectives=true,across_phases=true)"
            << QStringList{"all_gather_into_tensor_1", "wait_tensor_1"} << "";
        QTest::newRow("chain across phases kept")  // the backward re-all-gather of an FSDP / TP graph
            << "all_gather_into_tensor = torch.ops._c10d_functional.all_gather_into_tensor.default(x, 2, '0')\n"
               "wait_tensor = torch.ops._c10d_functional.wait_tensor.default(all_gather_into_tensor)\n"
               "all_gather_into_tensor_1 = torch.ops._c10d_functional.all_gather_into_tensor.default(x, 2, '0')\n"
               "wait_tensor_1 = torch.ops._c10d_functional.wait_tensor.default(all_gather_into_tensor_1)\nreturn "
               "(wait_tensor, wait_tensor_1)"
            << false
            << "all_gather_into_tensor=MUST_RECOMPUTE wait_tensor=MUST_RECOMPUTE all_gather_into_tensor_1@backward "
               "wait_tensor_1@backward"
            << "cse(ignore_tags=true,collectives=true)" << QStringList{} << "";
        // attention with dropout draws a mask: two calls are two draws (without dropout, one value)
        QTest::newRow("attention with dropout not merged")
            << "a = torch.ops.aten.scaled_dot_product_attention.default(x, x, x, None, 0.1)\n"
               "b = torch.ops.aten.scaled_dot_product_attention.default(x, x, x, None, 0.1)\nreturn (a, b)"
            << false << ""
            << "cse" << QStringList{} << "";
        QTest::newRow("attention without dropout merged")
            << "a = torch.ops.aten.scaled_dot_product_attention.default(x, x, x, None, 0.0)\n"
               "b = torch.ops.aten.scaled_dot_product_attention.default(x, x, x, None, 0.0)\nreturn (a, b)"
            << false << ""
            << "cse" << QStringList{"b"} << "";
        QTest::newRow("getitem duplicates") << "split = torch.ops.aten.split.Tensor(x, 1)\ngetitem = "
                                               "split[0]\ngetitem_1 = split[0]\nreturn (getitem, getitem_1)"
                                            << false << ""
                                            << "cse" << QStringList{"getitem_1"} << "";
    }
    void cse() { runRow(); }

    void removeDetach_data()
    {
        addColumns();
        QTest::newRow("chain")
            << "detach = torch.ops.aten.detach.default(x)\ndetach_1 = torch.ops.aten.detach.default(detach)\n"
               "relu = torch.ops.aten.relu.default(detach_1)\nreturn (relu,)"
            << false << ""
            << "remove_detach" << QStringList{"detach", "detach_1"} << "relu arg 0 detach_1->x";
        QTest::newRow("graph output") << "relu = torch.ops.aten.relu.default(x)\ndetach = "
                                         "torch.ops.aten.detach.default(relu)\nreturn (detach, relu)"
                                      << false << ""
                                      << "remove_detach" << QStringList{"detach"} << "output arg 0[0] detach->relu";
        QTest::newRow("alias kept by default")
            << "alias = torch.ops.aten.alias.default(x)\ndetach = torch.ops.aten.detach.default(alias)\nreturn "
               "(detach,)"
            << false << ""
            << "remove_detach" << QStringList{"detach"} << "output arg 0[0] detach->alias";
        QTest::newRow("include_alias") << "alias = torch.ops.aten.alias.default(x)\ndetach = "
                                          "torch.ops.aten.detach.default(alias)\nreturn (detach,)"
                                       << false << ""
                                       << "remove_detach(include_alias=true)" << QStringList{"alias", "detach"}
                                       << "output arg 0[0] detach->x";
        QTest::newRow("identity view")
            << "view: \"f32[2, 4][4, 1]cpu\" = torch.ops.aten.view.default(x, [2, 4])\n"
               "view_1: \"f32[8][1]cpu\" = torch.ops.aten.view.default(view, [8])\nreturn (view_1,)"
            << true << ""
            << "remove_detach" << QStringList{"view"} << "view_1 arg 0 view->x";
        QTest::newRow("identity views off")
            << "view: \"f32[2, 4][4, 1]cpu\" = torch.ops.aten.view.default(x, [2, 4])\nreturn (view,)" << true << ""
            << "remove_detach(identity_views=false)" << QStringList{} << "";
        QTest::newRow("identity reshape without meta")
            << "reshape = torch.ops.aten.reshape.default(x, [2, 4])\nreshape_1 = torch.ops.aten.reshape.default(x, [4, "
               "2])\nreturn (reshape, reshape_1)"
            << true << ""
            << "remove_detach" << QStringList{"reshape"} << "output arg 0[0] reshape->x";
        QTest::newRow("full slice")
            << "slice_1: \"f32[2, 4][4, 1]cpu\" = torch.ops.aten.slice.Tensor(x, 0, 0, 9223372036854775807)\n"
               "slice_2: \"f32[2, 2][4, 1]cpu\" = torch.ops.aten.slice.Tensor(x, 1, 0, 2)\n"
               "slice_3 = torch.ops.aten.slice.Tensor(x, 1, 0, 4)\nslice_4 = torch.ops.aten.slice.Tensor(x, 1, 0, 4, "
               "2)\n"
               "return (slice_1, slice_2, slice_3, slice_4)"
            << true << ""
            << "remove_detach" << QStringList{"slice_1", "slice_3"} << "";
        QTest::newRow("tag moves to untagged producer")
            << "relu = torch.ops.aten.relu.default(x)\ndetach = torch.ops.aten.detach.default(relu)\nreturn (detach,)"
            << false << "detach=MUST_SAVE"
            << "remove_detach" << QStringList{"detach"} << "";
    }
    void removeDetach() { runRow(); }

    void removeDetachTags()
    {
        Graph g = parseBody("relu = torch.ops.aten.relu.default(x)\ndetach = torch.ops.aten.detach.default(relu)\n"
                            "neg = torch.ops.aten.neg.default(y)\ndetach_1 = torch.ops.aten.detach.default(neg)\n"
                            "detach_2 = torch.ops.aten.detach.default(y)\nreturn (detach, detach_1, detach_2)");
        applyTags(g, "detach=MUST_SAVE neg=PREFER_RECOMPUTE detach_1=MUST_SAVE detach_2=MUST_SAVE");
        g.node(g.findByName("detach")).meta.acGraphId = 4;
        PipelineRun run = runPipeline(g, "remove_detach");
        QVERIFY2(run.ok, run.error.c_str());
        QCOMPARE(run.steps.size(), size_t(2));
        const Graph& out = run.steps[1].graph();
        QCOMPARE(out.node(out.findByName("relu")).meta.recompute, Recompute::MustSave);
        QCOMPARE(out.node(out.findByName("relu")).meta.acGraphId, std::optional<int>(4));
        QCOMPARE(out.node(out.findByName("neg")).meta.recompute, Recompute::PreferRecompute);  // had its own
        QCOMPARE(out.node(out.findByName("y")).meta.recompute, Recompute::None);  // inputs take none
        const auto& tags = run.steps[1].log.tags;
        QCOMPARE(tags.size(), size_t(2));
        QCOMPARE(tags[0].node, std::string("relu"));
        QCOMPARE(tags[0].field, std::string("recompute"));
        QCOMPARE(tags[0].after, std::string("MUST_SAVE"));
        QCOMPARE(tags[1].field, std::string("ac_graph_id"));
        QCOMPARE(run.steps[1].log.stats["detach"].get<int>(), 3);
    }

    // The real activation-checkpointed trace: 12 detach nodes and a dead recomputed mm.
    void checkpointMlp()
    {
        const std::string path = fxltest::corpusPath("pytorch/checkpoint_mlp.joint.code.py").string();
        FXL_REQUIRE_CORPUS(path);
        const std::string text = readFile(path);
        // Count detach calls and find never-read values straight from the text.
        const std::regex assign(R"(^\s+(\w+) = torch\.ops\.aten\.(\w+)\.\w+\(([^;]*)\))");
        const std::regex ident(R"([A-Za-z_]\w*)");
        int detaches = 0;
        std::vector<std::string> defined;
        std::set<std::string> read;
        std::string returned;
        std::istringstream lines(text);
        for (std::string line; std::getline(lines, line);) {
            std::smatch m;
            if (std::regex_search(line, m, assign)) {
                defined.push_back(m[1]);
                if (m[2] == "detach") ++detaches;
                const std::string args = m[3];
                for (auto it = std::sregex_iterator(args.begin(), args.end(), ident); it != std::sregex_iterator();
                     ++it)
                    read.insert(it->str());
            } else if (line.find("return") != std::string::npos) {
                returned = line;
                for (auto it = std::sregex_iterator(line.begin(), line.end(), ident); it != std::sregex_iterator();
                     ++it)
                    read.insert(it->str());
            }
        }
        QCOMPARE(detaches, 12);
        QStringList deadInText;
        for (const auto& d : defined)
            if (!read.count(d)) deadInText << QString::fromStdString(d);
        QCOMPARE(deadInText, QStringList{"mm_3"});  // the checkpoint's recomputed second mm, never read

        auto src = openSource(path);
        const Graph& g = *src->graph(src->artifacts[0].id);
        PipelineRun run = runPipeline(g, "remove_detach,dce,cse");
        QVERIFY2(run.ok, run.error.c_str());
        QCOMPARE(run.steps.size(), size_t(4));
        const Step& rd = run.steps[1];
        QCOMPARE(int(rd.log.removed.size()), detaches);
        QCOMPARE(rd.log.stats["detach"].get<int>(), detaches);
        rd.graph().forEachNode([](const Node& n) { QVERIFY(n.target != "aten.detach.default"); });
        QCOMPARE(int(rd.graph().size()), int(g.size()) - detaches);
        // t = t(detach_8) read gelu_1 through detach_4/5/8: now directly.
        const Node& t = rd.graph().node(rd.graph().findByName("t"));
        QCOMPARE(rd.graph().node(t.args[0].node).name, std::string("gelu_1"));
        const Step& dce = run.steps[2];
        QCOMPARE(names(dce.log.removed), deadInText);
        // cse keeps the checkpoint's recomputation in the backward (mm_2, gelu_1) apart from the
        // forward values (mm, gelu) they equal, and says so; across_phases=true merges them.
        const Step& cse = run.steps[3];
        QCOMPARE(names(cse.log.removed), QStringList{});
        QCOMPARE(cse.log.stats["refused"].get<int>(), 2);
        QCOMPARE(cse.log.stats["refused_merges"][0]["node"].get<std::string>(), std::string("mm_2"));
        QCOMPARE(cse.log.stats["refused_merges"][0]["into"].get<std::string>(), std::string("mm"));
        QCOMPARE(cse.log.stats["refused_merges"][1]["node"].get<std::string>(), std::string("gelu_1"));
        QCOMPARE(cse.log.stats["refused_merges"][1]["into"].get<std::string>(), std::string("gelu"));
        for (const auto& s : run.steps) QVERIFY(s.verifierClean());
        PipelineRun merged = runPipeline(g, "remove_detach,dce,cse(across_phases=true)");
        QVERIFY2(merged.ok, merged.error.c_str());
        const Step& cseAcross = merged.steps[3];
        QCOMPARE(names(cseAcross.log.removed), (QStringList{"mm_2", "gelu_1"}));
        QCOMPARE(cseAcross.log.stats["refused"].get<int>(), 0);
        for (const auto& s : merged.steps) QVERIFY(s.verifierClean());
        std::string why;
        QVERIFY2(isTopologicallyOrdered(cseAcross.graph(), &why), why.c_str());
    }
};

FXL_TEST_APPLESS_MAIN(TestDceCse)
}  // namespace test_dce_cse
#include "test_dce_cse.moc"

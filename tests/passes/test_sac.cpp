// The phase classification, annotate_regions and sac: scenarios S0 and S5
// on small graphs with meta set in code, the policies, and the issue #178935 and alternate_mm
// expectations on the real mlp_gelu trace (remat: test_remat).
#include <QtTest>

#include <filesystem>
#include <set>

#include "core/analysis/graph_diff.hpp"
#include "core/analysis/memory_timeline.hpp"
#include "core/analysis/phases.hpp"
#include "core/analysis/verify.hpp"
#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/source.hpp"
#include "passes/pass.hpp"
#include "passes/sac.hpp"
#include "sac_remat_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_sac {

using namespace fxl;
using namespace sacremattest;
namespace fs = std::filesystem;

class TestSac : public QObject
{
    Q_OBJECT

private slots:
    // ------------------------------------------------------------ phases
    void phasesPlainTrace()
    {
        FXL_REQUIRE_CORPUS(kPytorch / "mlp_gelu.joint.code.py");
        auto g = loadCorpus("mlp_gelu.joint.code.py");
        PhaseInfo ph = classifyPhases(*g);
        QCOMPARE(QString::fromStdString(ph.method()), QString("dataflow"));
        QStringList fw, bw;
        g->forEachNode([&](const Node& n) {
            if (ph.isForward(n.id)) fw << QString::fromStdString(n.name);
            if (ph.isBackward(n.id)) bw << QString::fromStdString(n.name);
        });
        QCOMPARE(fw, (QStringList{"mm", "gelu", "mm_1", "sum_1"}));
        // t(gelu), t(w2), t(x) feed gradient mms only: after the seed, so backward too
        QCOMPARE(bw, (QStringList{"ones_like", "expand", "t", "mm_2", "t_1", "mm_3", "gelu_backward", "t_2", "mm_4"}));
        QCOMPARE(g->node(ph.loss).name, std::string("sum_1"));
        QCOMPARE(ph.seeds.size(), size_t(1));
        QCOMPARE(g->node(ph.seeds[0]).name, std::string("ones_like"));
        QVERIFY(ph.isEpilogue(ph.loss));
        QVERIFY(!ph.isEpilogue(g->findByName("mm_1")));
        QCOMPARE(backwardRegions(*g, ph).size(), size_t(1));
    }

    void phasesCorpus_data()
    {
        QTest::addColumn<QString>("file");
        for (const char* f : {"mlp_gelu", "checkpoint_mlp", "linear_ce", "gpt2_tiny", "llama_tiny", "moe_tiny"})
            QTest::newRow(f) << QString(f) + ".joint.code.py";
    }

    void phasesCorpus()
    {
        QFETCH(QString, file);
        FXL_REQUIRE_CORPUS(kPytorch / file.toStdString());
        auto g = loadCorpus(file.toStdString());
        PhaseInfo ph = classifyPhases(*g);
        // one contiguous backward run; the loss is the first output and a forward node
        QCOMPARE(backwardRegions(*g, ph).size(), size_t(1));
        QVERIFY(ph.loss != kNoNode);
        const Node& out = g->node(g->outputNode());
        QCOMPARE(out.args[0].items[0].node, ph.loss);
        // the dataflow rule alone agrees with the recorded phase of every call node that has one
        PhaseOptions df;
        df.useMeta = false;
        PhaseInfo flow = classifyPhases(*g, df);
        int withMeta = 0;
        g->forEachNode([&](const Node& n) {
            if (n.meta.phase == Phase::Unknown || n.op != NodeOp::CallFunction) return;
            ++withMeta;
            bool metaBw = n.meta.phase == Phase::Backward;
            QVERIFY2(flow.isBackward(n.id) == metaBw, n.name.c_str());
        });
        if (file.startsWith("gpt2") || file.startsWith("llama") || file.startsWith("moe")) {
            QVERIFY(withMeta > 50);
            // gpt2_tiny's tied-embedding gradient add at the end has no recorded phase: dataflow decides it
            QCOMPARE(QString::fromStdString(ph.method()),
                     file.startsWith("gpt2") ? QString("meta+dataflow") : QString("meta"));
        } else {
            QCOMPARE(QString::fromStdString(ph.method()), QString("dataflow"));
        }
    }

    void phasesUserAnnotation()
    {
        // custom.phase == "backward" on some node: exactly those are backward
        Graph g = parseG("x: \"f32[64]\"", kChain);
        for (const char* n : {"g1"}) {
            Node& nd = g.node(g.findByName(n));
            nd.meta.custom = nlohmann::json{{"phase", "backward"}};
        }
        PhaseInfo ph = classifyPhases(g);
        QVERIFY(ph.userAnnotated);
        QVERIFY(ph.isBackward(g.findByName("g1")));
        QVERIFY(ph.isForward(g.findByName("ones")));  // not annotated: forward under rule 1
    }

    // ------------------------------------------------------------ annotate_regions (S0)
    void annotateRegionsS0()
    {
        Graph g = parseG("idx: \"i64[4]\", wte: \"f32[8, 4]\", w0: \"f32[4, 4]\", w1: \"f32[4, 4]\"",
                         {
                             "emb: \"f32[4, 4]\" = torch.ops.aten.embedding.default(wte, idx)",
                             "mm: \"f32[4, 4]\" = torch.ops.aten.mm.default(emb, w0)",
                             "relu: \"f32[4, 4]\" = torch.ops.aten.relu.default(mm)",
                             "mm_1: \"f32[4, 4]\" = torch.ops.aten.mm.default(relu, w1)",
                             "relu_1: \"f32[4, 4]\" = torch.ops.aten.relu.default(mm_1)",
                             "loss: \"f32[]\" = torch.ops.aten.sum.default(relu_1)",
                             "ones: \"f32[]\" = torch.ops.aten.ones_like.default(loss)",
                             "gexp: \"f32[4, 4]\" = torch.ops.aten.expand.default(ones, [4, 4])",
                             "tb: \"f32[4, 4]\" = torch.ops.aten.threshold_backward.default(gexp, relu_1, 0)",
                             "t: \"f32[4, 4]\" = torch.ops.aten.t.default(relu)",
                             "gw1: \"f32[4, 4]\" = torch.ops.aten.mm.default(t, tb)",
                             "return (loss, gw1)",
                         });
        setMeta(g,
                "emb:emb mm:layers.0.attn relu:layers.0.mlp mm_1:layers.1.attn relu_1:layers.1 loss:loss "
                "ones:loss gexp:loss tb:layers.1 t:layers.1.attn gw1:layers.1.attn");
        ChangeLog log = runPass(g, "annotate_regions");
        auto region = [&](const char* n) { return acRegionId(g.node(g.findByName(n))); };
        QCOMPARE(region("mm"), std::optional<int>(0));
        QCOMPARE(region("relu"), std::optional<int>(0));
        QCOMPARE(region("mm_1"), std::optional<int>(1));
        QCOMPARE(region("relu_1"), std::optional<int>(1));
        QCOMPARE(region("tb"), std::optional<int>(1));  // backward: from its own module path
        QCOMPARE(region("gw1"), std::optional<int>(1));
        QCOMPARE(region("emb"), std::nullopt);
        QCOMPARE(region("loss"), std::nullopt);
        QCOMPARE(log.stats["regions"]["0"].get<int>(), 2);
        QCOMPARE(log.stats["regions"]["1"].get<int>(), 5);
        QCOMPARE(log.tags.size(), size_t(7));
        QCOMPARE(log.tags[0].field, std::string("custom.ac_region_id"));

        runPass(g, "sac", {{"policy", "alternate_mm"}});
        auto gid = [&](const char* n) { return g.node(g.findByName(n)).meta.acGraphId; };
        QCOMPARE(gid("mm"), std::optional<int>(0));
        QCOMPARE(gid("relu"), std::optional<int>(0));
        QCOMPARE(gid("mm_1"), std::optional<int>(1));
        QCOMPARE(gid("relu_1"), std::optional<int>(1));
        QCOMPARE(gid("emb"), std::optional<int>(0));  // outside any block
        QCOMPARE(gid("loss"), std::optional<int>(0));
        QCOMPARE(tagOf(g, "loss"), std::string("MUST_SAVE"));  // the loss is never recomputed
        for (const char* b : {"ones", "gexp", "tb", "t", "gw1"}) {
            QCOMPARE(gid(b), std::nullopt);
            QCOMPARE(tagOf(g, b), std::string(""));
        }
        // reset_per_layer (default): the first mm of each block is saved
        QCOMPARE(tagOf(g, "mm"), std::string("MUST_SAVE"));
        QCOMPARE(tagOf(g, "mm_1"), std::string("MUST_SAVE"));
    }

    void annotateRegionsSourceAndName()
    {
        Graph g = parseG("x: \"f32[4]\"",
                         {
                             "a: \"f32[4]\" = torch.ops.aten.relu.default(x)",
                             "l__self___layers_2_lin: \"f32[4]\" = torch.ops.aten.sin.default(a)",
                             "c: \"f32[4]\" = torch.ops.aten.cos.default(l__self___layers_2_lin)",
                             "return (c,)",
                         });
        g.node(g.findByName("a")).meta.source = {"model.py", 10, "forward", "x = self.layers[3](x)"};
        runPass(g, "annotate_regions", {{"name_pattern", "layers_(\\d+)_"}});
        QCOMPARE(acRegionId(g.node(g.findByName("a"))), std::optional<int>(3));
        QCOMPARE(acRegionId(g.node(g.findByName("l__self___layers_2_lin"))), std::optional<int>(2));
        QCOMPARE(acRegionId(g.node(g.findByName("c"))), std::nullopt);  // the loss (first output)
        Graph h = parseG("x: \"f32[4]\"", {"a: \"f32[4]\" = torch.ops.aten.relu.default(x)", "return (a,)"});
        QVERIFY_THROWS_EXCEPTION(PassError, runPass(h, "annotate_regions", {{"name_pattern", "(("}}));
    }

    void annotateRegionsGpt2()
    {
        FXL_REQUIRE_CORPUS(kPytorch / "gpt2_tiny.joint.code.py");
        auto g0 = loadCorpus("gpt2_tiny.joint.code.py");
        Graph g = g0->clone();
        ChangeLog log = runPass(g, "annotate_regions");
        std::map<int, int> fw, bw;
        PhaseInfo ph = classifyPhases(g);
        g.forEachNode([&](const Node& n) {
            auto r = acRegionId(n);
            if (n.op != NodeOp::CallFunction)
                QVERIFY2(!r.has_value(), n.name.c_str());  // inputs, get_attr
            else if (n.meta.modulePath.rfind("blocks.", 0) == 0)
                QVERIFY2(r.has_value(), n.name.c_str());
            else
                QVERIFY2(!r.has_value(), n.name.c_str());
            if (r) ++(ph.isBackward(n.id) ? bw : fw)[*r];
        });
        QCOMPARE(fw.size(), size_t(2));
        QCOMPARE(bw.size(), size_t(2));
        QVERIFY(fw[0] > 10 && fw[1] > 10 && bw[0] > 10 && bw[1] > 10);
        QVERIFY(log.stats["epilogue"].get<int>() > 5);  // root-level lm_head + cross entropy after lnf
        QVERIFY(ph.isEpilogue(g.findByName("nll_loss_forward")));
        QVERIFY(!ph.isEpilogue(g.findByName("arange")));
    }

    // ------------------------------------------------------------ sac policies (S5 and the rest)
    void sacAlternateS5()
    {
        Graph g = parseG("x: \"f32[4, 4]\", w: \"f32[4, 4]\", q: \"f32[1, 1, 4, 4]\"",
                         {
                             "mm: \"f32[4, 4]\" = torch.ops.aten.mm.default(x, w)",
                             "mm_1: \"f32[4, 4]\" = torch.ops.aten.mm.default(mm, w)",
                             "relu: \"f32[4, 4]\" = torch.ops.aten.relu.default(mm_1)",
                             "mm_2: \"f32[4, 4]\" = torch.ops.aten.mm.default(relu, w)",
                             "mm_3: \"f32[4, 4]\" = torch.ops.aten.mm.default(mm_2, w)",
                             "attn = torch.ops.aten._scaled_dot_product_efficient_attention.default(q, q, q, None, "
                             "True)",
                             "getitem: \"f32[1, 1, 4, 4]\" = attn[0]",
                             "getitem_1: \"f32[1, 1, 4]\" = attn[1]",
                             "s0: \"f32[]\" = torch.ops.aten.sum.default(mm_3)",
                             "s1: \"f32[]\" = torch.ops.aten.sum.default(getitem)",
                             "loss: \"f32[]\" = torch.ops.aten.add.Tensor(s0, s1)",
                             "ones: \"f32[]\" = torch.ops.aten.ones_like.default(loss)",
                             "gexp: \"f32[4, 4]\" = torch.ops.aten.expand.default(ones, [4, 4])",
                             "t: \"f32[4, 4]\" = torch.ops.aten.t.default(mm_2)",
                             "gw: \"f32[4, 4]\" = torch.ops.aten.mm.default(t, gexp)",
                             "return (loss, gw)",
                         });
        ChangeLog log = runPass(g, "sac", {{"policy", "alternate_mm"}});
        QCOMPARE(tagOf(g, "mm"), std::string("MUST_SAVE"));
        QCOMPARE(tagOf(g, "mm_1"), std::string("PREFER_RECOMPUTE"));
        QCOMPARE(tagOf(g, "mm_2"), std::string("MUST_SAVE"));
        QCOMPARE(tagOf(g, "mm_3"), std::string("PREFER_RECOMPUTE"));
        QCOMPARE(tagOf(g, "relu"), std::string("PREFER_RECOMPUTE"));
        QCOMPARE(tagOf(g, "attn"), std::string("MUST_SAVE"));  // SAVE_OPS
        QCOMPARE(tagOf(g, "getitem"), std::string("MUST_SAVE"));  // inherits
        QCOMPARE(tagOf(g, "getitem_1"), std::string("MUST_SAVE"));
        QCOMPARE(tagOf(g, "loss"), std::string("MUST_SAVE"));
        for (const char* b : {"ones", "gexp", "t", "gw"}) {
            QCOMPARE(tagOf(g, b), std::string(""));
            QVERIFY(!g.node(g.findByName(b)).meta.acGraphId);
        }
        QCOMPARE(tagOf(g, "x"), std::string(""));  // placeholders never tagged
        QVERIFY(!g.node(g.findByName("x")).meta.acGraphId);
        // stats: per region and per op
        QCOMPARE(log.stats["regions"]["0"]["recompute"].get<int>(), 5);  // mm_1, relu, mm_3, s0, s1
        QCOMPARE(log.stats["regions"]["0"]["save"].get<int>(), 6);  // mm, mm_2, attn, 2 getitems, loss
        QCOMPARE(log.stats["ops"]["aten.mm.default"]["save"].get<int>(), 2);
        QCOMPARE(log.stats["ops"]["aten.mm.default"]["recompute"].get<int>(), 2);
        QVERIFY(!log.notes.empty());
        // reset_per_layer makes no difference without regions (global counting of #2766); the graph
        // has a backward (sac refuses a graph without one)
        Graph h = parseG("x: \"f32[4, 4]\", w: \"f32[4, 4]\"",
                         {"mm: \"f32[4, 4]\" = torch.ops.aten.mm.default(x, w)",
                          "relu: \"f32[4, 4]\" = torch.ops.aten.relu.default(mm)",
                          "loss: \"f32[]\" = torch.ops.aten.sum.default(relu)",
                          "ones: \"f32[]\" = torch.ops.aten.ones_like.default(loss)",
                          "gexp: \"f32[4, 4]\" = torch.ops.aten.expand.default(ones, [4, 4])",
                          "gw: \"f32[4, 4]\" = torch.ops.aten.mm.default(mm, gexp)", "return (loss, gw)"});
        runPass(h, "sac", {{"reset_per_layer", "false"}});
        QCOMPARE(tagOf(h, "mm"), std::string("MUST_SAVE"));
    }

    void sacResetPerLayer_data()
    {
        QTest::addColumn<QString>("reset");
        QTest::addColumn<QString>("expected");
        QTest::newRow("per layer (#3397)") << "true"
                                           << "S R S S R S";
        QTest::newRow("global (#2766)") << "false"
                                        << "S R S R S R";
    }

    void sacResetPerLayer()
    {
        QFETCH(QString, reset);
        QFETCH(QString, expected);
        std::vector<std::string> lines;
        std::string prev = "x";
        for (int k = 0; k < 6; ++k) {
            std::string n = "mm_" + std::to_string(k);
            lines.push_back(n + ": \"f32[4, 4]\" = torch.ops.aten.mm.default(" + prev + ", w)");
            prev = n;
        }
        lines.push_back("gw: \"f32[4, 4]\" = torch.ops.aten.mm.default(" + prev + ", w)");  // the backward
        lines.push_back("return (" + prev + ", gw)");
        Graph g = parseG("x: \"f32[4, 4]\", w: \"f32[4, 4]\"", lines);
        setMeta(g, "mm_0%0 mm_1%0 mm_2%0 mm_3%1 mm_4%1 mm_5%1 gw@backward");
        runPass(g, "sac", {{"policy", "alternate_mm"}, {"reset_per_layer", reset.toStdString()}});
        QStringList got;
        PhaseInfo ph = classifyPhases(g);
        for (int k = 0; k < 6; ++k) {
            std::string n = "mm_" + std::to_string(k);
            got << (tagOf(g, n) == "MUST_SAVE" ? "S" : "R");
        }
        // mm_5 is the loss: saved by the epilogue rule; compare the rest
        QStringList exp = expected.split(' ');
        exp[5] = "S";
        QCOMPARE(got, exp);
        QCOMPARE(g.node(g.findByName("mm_4")).meta.acGraphId, std::optional<int>(1));
        QVERIFY(ph.isEpilogue(g.findByName("mm_5")));
    }

    void sacPolicies_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("expected");  // tags of mm bmm gelu view addmm sym
        QTest::newRow("save_list") << "policy=save_list"
                                   << "S S R R S S";
        QTest::newRow("issue178935") << "policy=issue178935"
                                     << "R S S S S S";
        QTest::newRow("recompute_all") << "policy=recompute_all"
                                       << "R R R R R S";
        QTest::newRow("user") << "policy=user,save=gelu;aten.addmm.default"
                              << "R R S R S S";
        QTest::newRow("alternate_mm") << "policy=alternate_mm"
                                      << "S S R R S S";
    }

    void sacPolicies()
    {
        QFETCH(QString, spec);
        QFETCH(QString, expected);
        Graph g = parseG("x: \"f32[s0, 4]\", w: \"f32[4, 4]\", b3: \"f32[1, 4, 4]\", bias: \"f32[4]\"",
                         {
                             "mm: \"f32[s0, 4]\" = torch.ops.aten.mm.default(x, w)",
                             "bmm: \"f32[1, 4, 4]\" = torch.ops.aten.bmm.default(b3, b3)",
                             "gelu: \"f32[s0, 4]\" = torch.ops.aten.gelu.default(mm)",
                             "view: \"f32[4, 4]\" = torch.ops.aten.view.default(bmm, [4, 4])",
                             "addmm: \"f32[4, 4]\" = torch.ops.aten.addmm.default(bias, view, w)",
                             "sym_size_int: \"Sym(s0)\" = torch.ops.aten.sym_size.int(gelu, 0)",
                             "s: \"f32[]\" = torch.ops.aten.sum.default(addmm)",
                             "ones: \"f32[]\" = torch.ops.aten.ones_like.default(s)",  // the backward's seed
                             "return (s, gelu, sym_size_int)",
                         });
        std::map<std::string, std::string> raw;
        for (const QString& kv : spec.split(','))
            raw[kv.section('=', 0, 0).toStdString()] = kv.section('=', 1).toStdString();
        ChangeLog log = runPass(g, "sac", raw);
        QStringList got;
        for (const char* n : {"mm", "bmm", "gelu", "view", "addmm", "sym_size_int"})
            got << (tagOf(g, n) == "MUST_SAVE" ? "S" : tagOf(g, n) == "PREFER_RECOMPUTE" ? "R" : "-");
        QCOMPARE(got.join(' '), expected);
        QCOMPARE(tagOf(g, "s"), std::string("MUST_SAVE"));
        QCOMPARE(log.stats["reasons"]["symbolic"].get<int>(), 1);
    }

    void sacCollectivesInherit()
    {
        // Collectives are saved whatever the policy (running one again in the backward is a
        // communication the other ranks do not make), and wait_tensor inherits its collective's
        // tag; `recompute` names one on purpose (an FSDP all-gather) and tags it MUST_RECOMPUTE.
        Graph g =
            parseG("x: \"f32[8, 4]\"",
                   {
                       "rs: \"f32[4, 4]\" = torch.ops._c10d_functional.reduce_scatter_tensor.default(x, 'sum', 2, '0')",
                       "w0: \"f32[4, 4]\" = torch.ops._c10d_functional.wait_tensor.default(rs)",
                       "ag: \"f32[8, 4]\" = torch.ops._c10d_functional.all_gather_into_tensor.default(w0, 2, '0')",
                       "w1: \"f32[8, 4]\" = torch.ops._c10d_functional.wait_tensor.default(ag)",
                       "r: \"f32[8, 4]\" = torch.ops.aten.relu.default(w1)",
                       "s: \"f32[]\" = torch.ops.aten.sum.default(r)",
                       "ones: \"f32[]\" = torch.ops.aten.ones_like.default(s)",
                       "return (s,)",
                   });
        ChangeLog log = runPass(g, "sac", {{"policy", "recompute_all"}});
        for (const char* n : {"rs", "w0", "ag", "w1"}) QCOMPARE(tagOf(g, n), std::string("MUST_SAVE"));
        QCOMPARE(tagOf(g, "r"), std::string("PREFER_RECOMPUTE"));
        QCOMPARE(log.stats["reasons"]["collective"].get<int>(), 2);
        QCOMPARE(log.stats["kept_saved"]["collective"].get<int>(), 2);
        bool noted = false;
        for (const auto& n : log.notes) noted = noted || n.find("2 collective (rs, ag)") != std::string::npos;
        QVERIFY(noted);
        runPass(g, "sac", {{"policy", "save_list"}, {"recompute", "all_gather_into_tensor"}});
        QCOMPARE(tagOf(g, "rs"), std::string("MUST_SAVE"));
        QCOMPARE(tagOf(g, "w0"), std::string("MUST_SAVE"));
        QCOMPARE(tagOf(g, "ag"), std::string("MUST_RECOMPUTE"));
        QCOMPARE(tagOf(g, "w1"), std::string("MUST_RECOMPUTE"));
    }

    // Side effects, mutating wrappers and unknown ops are saved like collectives.
    void sacSideEffectsSaved()
    {
        Graph g =
            parseG("x: \"f32[4]\", b: \"f32[4]\"",
                   {
                       "lg: \"f32[4]\" = torch.ops.tg.log_tensor.default(x, 'x')",
                       "af = torch.ops.higher_order.auto_functionalized_v2(torch.ops.tg.inplace_log_tensor.default, "
                       "s = 'b', _t_base_index = 0, _all_bases = [b])",
                       "getitem: \"f32[4]\" = af[1]",
                       "ln = torch.ops.apex.fused_layer_norm_affine_fwd.default(lg, [4], b, b, 1e-05)",
                       "getitem_1: \"f32[4]\" = ln[0]",
                       "add_: \"f32[4]\" = torch.ops.aten.add_.Tensor(getitem_1, 1)",
                       "r: \"f32[4]\" = torch.ops.aten.relu.default(add_)",
                       "s: \"f32[]\" = torch.ops.aten.sum.default(r)",
                       "ones: \"f32[]\" = torch.ops.aten.ones_like.default(s)",
                       "return (s, getitem)",
                   });
        ChangeLog log = runPass(g, "sac", {{"policy", "recompute_all"}});
        for (const char* n : {"lg", "af", "getitem", "ln", "getitem_1", "add_"})
            QCOMPARE(tagOf(g, n), std::string("MUST_SAVE"));
        QCOMPARE(tagOf(g, "r"), std::string("PREFER_RECOMPUTE"));
        QCOMPARE(log.stats["kept_saved"]["side_effect"].get<int>(), 3);  // lg, af, add_
        QCOMPARE(log.stats["kept_saved"]["unknown_op"].get<int>(), 1);  // ln
        runPass(g, "sac", {{"policy", "recompute_all"}, {"recompute", "tg.log_tensor"}});
        QCOMPARE(tagOf(g, "lg"), std::string("MUST_RECOMPUTE"));
        QCOMPARE(tagOf(g, "af"), std::string("MUST_SAVE"));
    }

    // A batch norm in training writes its running stats (core/ops/op_writes): saved under every
    // policy, and even when named in recompute=... (recomputing it applies the momentum twice);
    // the same op in eval writes nothing and follows the policy.
    void sacWritersNeverRecomputed()
    {
        auto graph = [] {
            return parseG("x: \"f32[2, 3]\", w: \"f32[3]\", b: \"f32[3]\", rm: \"f32[3]\", rv: \"f32[3]\"",
                          {
                              "bn = torch.ops.aten.native_batch_norm.default(x, w, b, rm, rv, True, 0.1, 1e-05)",
                              "getitem: \"f32[2, 3]\" = bn[0]",
                              "ev = torch.ops.aten.native_batch_norm.default(getitem, w, b, rm, rv, False, 0.1, 1e-05)",
                              "getitem_1: \"f32[2, 3]\" = ev[0]",
                              "r: \"f32[2, 3]\" = torch.ops.aten.relu.default(getitem_1)",
                              "s: \"f32[]\" = torch.ops.aten.sum.default(r)",
                              "ones: \"f32[]\" = torch.ops.aten.ones_like.default(s)",
                              "return (s,)",
                          });
        };
        Graph g = graph();
        ChangeLog log = runPass(g, "sac", {{"policy", "recompute_all"}});
        QCOMPARE(tagOf(g, "bn"), std::string("MUST_SAVE"));
        QCOMPARE(tagOf(g, "ev"), std::string("PREFER_RECOMPUTE"));
        QCOMPARE(log.stats["kept_saved"]["side_effect"].get<int>(), 1);
        Graph named = graph();
        log = runPass(named, "sac", {{"policy", "recompute_all"}, {"recompute", "native_batch_norm"}});
        QCOMPARE(tagOf(named, "bn"), std::string("MUST_SAVE"));
        QCOMPARE(tagOf(named, "ev"), std::string("MUST_RECOMPUTE"));
        bool noted = false;
        for (const std::string& note : log.notes)
            noted = noted
                || note
                    == "sac: not recomputing 1 node(s) named in recompute=... that write their inputs in place "
                       "(running them again would write twice), saved: bn";
        QVERIFY2(noted, log.toJson().dump().c_str());
    }

    // ------------------------------------------------------------ issue #178935 on the real trace
    void issue178935Policy()
    {
        FXL_REQUIRE_CORPUS(kPytorch / "mlp_gelu.joint.code.py");
        auto g = loadCorpus("mlp_gelu.joint.code.py");
        PipelineRun run = runPipeline(*g, "remove_detach,sac(policy=issue178935),remat");
        QVERIFY2(run.ok, run.error.c_str());
        const Graph& r = run.steps.back().graph();
        QCOMPARE(countTarget(r, "aten.mm.default"), 6);
        QCOMPARE(countTarget(r, "aten.gelu.default"), 1);
        QCOMPARE(countTarget(r, "aten.gelu_backward.default"), 1);
        QCOMPARE(pos(r, "mm_recomputed") + 1, pos(r, "gelu_backward"));
        QCOMPARE(argName(r, "gelu_backward", 1), std::string("mm_recomputed"));
        QCOMPARE(argName(r, "mm_recomputed", 0), std::string("arg0_1"));
        QCOMPARE(argName(r, "mm_recomputed", 1), std::string("arg1_1"));
        QVERIFY(r.findByName("mm_1_recomputed") == kNoNode);
        const Node& mm = r.node(r.findByName("mm"));  // kept: its forward user gelu
        QCOMPARE(mm.users.size(), size_t(1));
        QCOMPARE(r.node(mm.users[0]).name, std::string("gelu"));
        QVERIFY(run.steps.back().verifierClean());
    }

    void alternateMmPolicy()
    {
        FXL_REQUIRE_CORPUS(kPytorch / "mlp_gelu.joint.code.py");
        auto g = loadCorpus("mlp_gelu.joint.code.py");
        PipelineRun run = runPipeline(*g, "remove_detach,sac(policy=alternate_mm),remat");
        QVERIFY2(run.ok, run.error.c_str());
        const Graph& r = run.steps.back().graph();
        QCOMPARE(countTarget(r, "aten.mm.default"), 5);
        QCOMPARE(countTarget(r, "aten.gelu.default"), 2);
        QCOMPARE(pos(r, "gelu_recomputed") + 1, pos(r, "t"));
        QCOMPARE(argName(r, "t", 0), std::string("gelu_recomputed"));
        QCOMPARE(argName(r, "gelu_recomputed", 0), std::string("mm"));
        const Node& gelu = r.node(r.findByName("gelu"));
        QCOMPARE(gelu.users.size(), size_t(1));
        QCOMPARE(r.node(gelu.users[0]).name, std::string("mm_1"));
        // the loss is saved, so ones_like(sum_1) drags nothing back
        QVERIFY(r.findByName("sum_1_recomputed") == kNoNode);
        QVERIFY(r.findByName("mm_1_recomputed") == kNoNode);
        QVERIFY(run.steps.back().verifierClean());
    }
};

FXL_TEST_APPLESS_MAIN(TestSac)
}  // namespace test_sac
#include "test_sac.moc"

// The pass framework: pipeline spec parsing (good specs and every error with its column),
// option typing, PassError handling, change logs, snapshots and determinism.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/fx/fx_text_writer.hpp"
#include "core/formats/source.hpp"
#include "core/ir/diagnostics.hpp"
#include "passes/cse.hpp"
#include "passes/dce.hpp"
#include "passes/graph_edit.hpp"
#include "passes/pass.hpp"
#include "passes/remove_detach.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_pipeline {

using namespace fxl;
namespace fs = std::filesystem;

namespace {

// A pass with one option of every type, for parsing and typing tests.
class TypedPass : public Pass
{
public:
    std::string name() const override { return "t"; }
    std::string summary() const override { return "test pass with typed options"; }
    std::vector<PassOption> options() const override
    {
        return {
            {"flag", OptionType::Bool, "false", {}, "a bool"},
            {"n", OptionType::Int, "7", {}, "an int"},
            {"ratio", OptionType::Float, "0.25", {}, "a float"},
            {"label", OptionType::String, "", {}, "a string"},
            {"mode", OptionType::Enum, "fast", {"fast", "exact"}, "an enum"},
            {"names", OptionType::StringList, "", {}, "a list"},
        };
    }
    void run(Graph&, const PassOptions&, PassContext&) const override { }
};

// Edits its copy, then fails: the pipeline must drop the copy.
class BoomPass : public Pass
{
public:
    std::string name() const override { return "boom"; }
    std::string summary() const override { return "always fails"; }
    void run(Graph& g, const PassOptions&, PassContext& ctx) const override
    {
        for (NodeId id : g.order()) g.node(id).meta.recompute = Recompute::MustSave;
        ctx.note("about to fail");
        throw PassError("guardrail fired at 'mm'");
    }
};

// Puts a node at the front that reads the last call node: a verifier error.
class BreakPass : public Pass
{
public:
    std::string name() const override { return "break"; }
    std::string summary() const override { return "makes the graph invalid"; }
    void run(Graph& g, const PassOptions&, PassContext& ctx) const override
    {
        NodeId last = kNoNode;
        for (NodeId id : g.order())
            if (g.node(id).op == NodeOp::CallFunction) last = id;
        if (last == kNoNode) throw PassError("no call node");
        Node n;
        n.name = g.uniqueName("early");
        n.op = NodeOp::CallFunction;
        n.target = "aten.relu.default";
        n.args = {Arg::ofNode(last)};
        g.insertNode(std::move(n), g.order().front());
        ctx.added("early");
    }
};

// Replaces the graph's result by a copy of the node producing it (provenance set).
class DupPass : public Pass
{
public:
    std::string name() const override { return "dup"; }
    std::string summary() const override { return "copies the returned node"; }
    void run(Graph& g, const PassOptions&, PassContext& ctx) const override
    {
        const NodeId out = g.outputNode();
        NodeId src = kNoNode;
        g.node(out).args[0].forEachNode([&](NodeId id) { src = src == kNoNode ? id : src; });
        const NodeId copy = copyNodeBefore(
            g, g.node(src), [](NodeId id) { return id; }, out, "", &ctx);
        replaceAllUsesLogged(g, src, copy, &ctx);
    }
};

PassRegistry testRegistry()
{
    PassRegistry r;
    r.add(std::make_unique<TypedPass>());
    r.add(makeDcePass());
    r.add(makeCsePass());
    r.add(makeRemoveDetachPass());
    r.add(std::make_unique<BoomPass>());
    r.add(std::make_unique<BreakPass>());
    r.add(std::make_unique<DupPass>());
    return r;
}

Graph smallGraph()
{
    Graph g = parseFxText("def forward(self, x, y):\n"
                          "    mm = torch.ops.aten.mm.default(x, y)\n"
                          "    mm_1 = torch.ops.aten.mm.default(x, y)\n"
                          "    detach = torch.ops.aten.detach.default(mm_1)\n"
                          "    relu = torch.ops.aten.relu.default(y)\n"
                          "    add = torch.ops.aten.add.Tensor(mm, detach)\n"
                          "    return (add,)\n",
                          "<test>");
    g.rebuildUsers();
    return g;
}

std::string rewiredTextOf(const ChangeLog& log)
{
    std::string out;
    for (const auto& r : log.rewired)
        out += (out.empty() ? "" : "; ") + r.consumer + " " + r.where + " " + r.from + "->" + r.to;
    return out;
}

std::string stepText(const Step& s)
{
    std::string out;
    for (const auto& g : s.graphs) out += "== " + g->role + "\n" + printReadable(g->graph);
    return out;
}

}  // namespace

class TestPipeline : public QObject
{
    Q_OBJECT
private slots:
    void builtinsRegistered()
    {
        const PassRegistry& reg = PassRegistry::instance();
        for (const char* n : {"dce", "cse", "remove_detach"}) {
            const Pass* p = reg.find(n);
            QVERIFY2(p, n);
            QCOMPARE(QString::fromStdString(p->name()), QString(n));
            QVERIFY(!p->summary().empty());
            // Every default value must pass its own validation.
            PassOptions o = resolveOptions(p->options(), {});
            QCOMPARE(o.values.size(), p->options().size());
            QVERIFY(o.given.empty());
        }
        QVERIFY(reg.find("no_such_pass") == nullptr);
    }

    void parseGood_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QStringList>("passes");  // per stage
        QTest::addColumn<QList<int>>("columns");
        QTest::addColumn<QStringList>("raw");  // per stage: "k=v;k=v" in name order
        QTest::addColumn<QStringList>("texts");
        QTest::newRow("one") << "dce" << QStringList{"dce"} << QList<int>{1} << QStringList{""} << QStringList{"dce"};
        QTest::newRow("three") << "remove_detach,dce,cse" << QStringList{"remove_detach", "dce", "cse"}
                               << QList<int>{1, 15, 19} << QStringList{"", "", ""}
                               << QStringList{"remove_detach", "dce", "cse"};
        QTest::newRow("spaces") << "  dce ,  cse  " << QStringList{"dce", "cse"} << QList<int>{3, 10}
                                << QStringList{"", ""} << QStringList{"dce", "cse"};
        QTest::newRow("empty parens") << "cse()" << QStringList{"cse"} << QList<int>{1} << QStringList{""}
                                      << QStringList{"cse()"};
        QTest::newRow("options") << "dce(random_pure=1, collectives_pure = true),cse(ignore_tags=false)"
                                 << QStringList{"dce", "cse"} << QList<int>{1, 45}
                                 << QStringList{"collectives_pure=true;random_pure=1", "ignore_tags=false"}
                                 << QStringList{"dce(random_pure=1, collectives_pure = true)",
                                                "cse(ignore_tags=false)"};
        QTest::newRow("typed") << "t(n=-3,ratio=1e-3,mode=exact,names=a;b; c,label=x y),dce" << QStringList{"t", "dce"}
                               << QList<int>{1, 54}
                               << QStringList{"label=x y;mode=exact;n=-3;names=a;b; c;ratio=1e-3", ""}
                               << QStringList{"t(n=-3,ratio=1e-3,mode=exact,names=a;b; c,label=x y)", "dce"};
    }
    void parseGood()
    {
        QFETCH(QString, spec);
        QFETCH(QStringList, passes);
        QFETCH(QList<int>, columns);
        QFETCH(QStringList, raw);
        QFETCH(QStringList, texts);
        const PassRegistry reg = testRegistry();
        const auto stages = parsePipelineSpec(spec.toStdString(), reg);
        QCOMPARE(int(stages.size()), passes.size());
        for (int i = 0; i < passes.size(); ++i) {
            QCOMPARE(QString::fromStdString(stages[size_t(i)].pass), passes[i]);
            QCOMPARE(stages[size_t(i)].column, columns[i]);
            QString r;
            for (const auto& [k, v] : stages[size_t(i)].raw)
                r += (r.isEmpty() ? "" : ";") + QString::fromStdString(k + "=" + v);
            QCOMPARE(r, raw[i]);
            QCOMPARE(QString::fromStdString(stages[size_t(i)].text), texts[i]);
        }
    }

    void parseErrors_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<int>("column");
        QTest::addColumn<QStringList>("fragments");
        QTest::newRow("empty") << "" << 1 << QStringList{"empty pipeline", "dce"};
        QTest::newRow("blank") << "   " << 1 << QStringList{"empty pipeline"};
        QTest::newRow("unknown pass") << "dce,nope" << 5
                                      << QStringList{"unknown pass 'nope'", "known:", "remove_detach", "cse"};
        QTest::newRow("unknown first") << "nope(x=1)" << 1 << QStringList{"unknown pass 'nope'"};
        QTest::newRow("double comma") << "dce,,cse" << 5 << QStringList{"expected a pass name, got ','"};
        QTest::newRow("trailing comma") << "dce," << 5 << QStringList{"expected a pass name after ','"};
        QTest::newRow("unclosed") << "t(n=3" << 6 << QStringList{"expected ')'"};
        QTest::newRow("no equals") << "t(n)" << 4 << QStringList{"expected '=' after option 'n'"};
        QTest::newRow("no name") << "t(=1)" << 3 << QStringList{"expected an option name"};
        QTest::newRow("unknown option") << "t(n=1, zz=1)" << 8 << QStringList{"unknown option 'zz'", "flag", "names"};
        QTest::newRow("option on optionless pass")
            << "boom(a=1)" << 6 << QStringList{"unknown option 'a'", "no options"};
        QTest::newRow("bad int") << "t(n=abc)" << 3 << QStringList{"option 'n'", "expected an int", "'abc'"};
        QTest::newRow("int overflow") << "t(n=99999999999999999999)" << 3 << QStringList{"expected an int"};
        QTest::newRow("bad float") << "t(ratio=1.5x)" << 3 << QStringList{"option 'ratio'", "expected a float"};
        QTest::newRow("bad bool") << "t(flag=yes)" << 3 << QStringList{"option 'flag'", "true/false/1/0"};
        QTest::newRow("bad enum") << "dce,t(mode=slow)" << 7 << QStringList{"option 'mode'", "fast, exact", "'slow'"};
        QTest::newRow("twice") << "t(n=1,n=2)" << 7 << QStringList{"option 'n' given twice"};
        QTest::newRow("junk after stage") << "dce cse" << 5 << QStringList{"expected ',' or end of pipeline, got 'c'"};
        QTest::newRow("junk after parens") << "t(n=1)x" << 7 << QStringList{"expected ',' or end"};
        QTest::newRow("bad char") << "dce,$" << 5 << QStringList{"expected a pass name, got '$'"};
        QTest::newRow("bad builtin option")
            << "remove_detach,dce(random_pure=2)" << 19 << QStringList{"dce:", "random_pure"};
    }
    void parseErrors()
    {
        QFETCH(QString, spec);
        QFETCH(int, column);
        QFETCH(QStringList, fragments);
        const PassRegistry reg = testRegistry();
        try {
            parsePipelineSpec(spec.toStdString(), reg);
            QFAIL("no error");
        } catch (const InputError& e) {
            const Diagnostic& d = e.diagnostic();
            QCOMPARE(QString::fromStdString(d.file), QString("<pipeline>"));
            QCOMPARE(d.line, 1);
            QCOMPARE(d.column, column);
            for (const QString& f : fragments)
                QVERIFY2(QString::fromStdString(d.message).contains(f), qPrintable(QString::fromStdString(d.message)));
        }
    }

    void optionTyping()
    {
        TypedPass p;
        PassOptions o = resolveOptions(p.options(), {{"flag", "1"}, {"n", " +12 "}, {"names", " a ; b;;c "}});
        QCOMPARE(o.getBool("flag"), true);
        QCOMPARE(o.getString("flag"), std::string("true"));  // normalised
        QCOMPARE(o.getInt("n"), int64_t(12));
        QCOMPARE(o.getFloat("ratio"), 0.25);  // default
        QCOMPARE(o.getString("mode"), std::string("fast"));
        QCOMPARE(o.getString("label"), std::string(""));
        QCOMPARE(o.getList("names"), (std::vector<std::string>{"a", "b", "c"}));
        QVERIFY(o.isGiven("flag") && o.isGiven("n") && o.isGiven("names"));
        QVERIFY(!o.isGiven("ratio") && o.has("ratio") && !o.has("zz"));
        QCOMPARE(o.toString(), std::string("flag=true,n=12,names=a;b;c"));
        QCOMPARE(resolveOptions(p.options(), {}).toString(), std::string(""));
        QCOMPARE(resolveOptions(p.options(), {{"flag", "FALSE"}}).getBool("flag"), false);
        QCOMPARE(resolveOptions(p.options(), {{"flag", "0"}}).getBool("flag"), false);
        QCOMPARE(resolveOptions(p.options(), {{"ratio", "-2.5e1"}}).getFloat("ratio"), -25.0);
        QVERIFY(resolveOptions(p.options(), {{"names", ""}}).getList("names").empty());
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, o.getString("zz"));
        for (auto bad : std::vector<std::pair<std::string, std::string>>{{"flag", "2"},
                                                                         {"flag", ""},
                                                                         {"n", "1.5"},
                                                                         {"n", ""},
                                                                         {"ratio", "nan"},
                                                                         {"ratio", "inf"},
                                                                         {"mode", "FAST"},
                                                                         {"nope", "1"}}) {
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resolveOptions(p.options(), {{bad.first, bad.second}}));
        }
        QCOMPARE(optionTypeName(OptionType::StringList), std::string_view("list"));
        QCOMPARE(optionTypeName(OptionType::Enum), std::string_view("enum"));
    }

    void passErrorKeepsSteps()
    {
        const PassRegistry reg = testRegistry();
        const Graph input = smallGraph();
        const std::string before = printReadable(input);
        PipelineOptions po;
        po.registry = &reg;
        PipelineRun run = runPipeline(input, "remove_detach,boom,dce", po);
        QVERIFY(!run.ok);
        QCOMPARE(run.failedStage, 1);
        QCOMPARE(QString::fromStdString(run.error), QString("stage 2 (boom): guardrail fired at 'mm'"));
        QCOMPARE(int(run.steps.size()), 2);  // input + remove_detach
        QCOMPARE(run.steps[1].pass, std::string("remove_detach"));
        QCOMPARE(printReadable(input), before);
        // The failed pass's edits are nowhere.
        for (const auto& s : run.steps)
            s.graph().forEachNode([&](const Node& n) { QCOMPARE(n.meta.recompute, Recompute::None); });
        // Failing first: only the input step.
        run = runPipeline(input, "boom", po);
        QVERIFY(!run.ok);
        QCOMPARE(run.failedStage, 0);
        QCOMPARE(int(run.steps.size()), 1);
        QVERIFY(run.steps[0].pass.empty());
        QCOMPARE(printReadable(run.steps[0].graph()), before);
    }

    void badSpecThrowsBeforeRunning()
    {
        const PassRegistry reg = testRegistry();
        PipelineOptions po;
        po.registry = &reg;
        QVERIFY_THROWS_EXCEPTION(InputError, runPipeline(smallGraph(), "dce,nope", po));
    }

    void stepsAndSnapshots()
    {
        const Graph input = smallGraph();
        PipelineRun run = runPipeline(input, "remove_detach,dce,dce,cse(ignore_tags=1)");
        QVERIFY2(run.ok, run.error.c_str());
        QCOMPARE(int(run.steps.size()), 5);
        for (int i = 0; i < 5; ++i) {
            QCOMPARE(run.steps[size_t(i)].index, i);
            QVERIFY(run.steps[size_t(i)].wallSeconds >= 0.0);
            QVERIFY2(run.steps[size_t(i)].verifierClean(), qPrintable(QString::number(i)));
        }
        QCOMPARE(run.steps[0].graph().size(), input.size());
        QCOMPARE(run.steps[1].spec, std::string("remove_detach"));
        QCOMPARE(run.steps[4].spec, std::string("cse(ignore_tags=1)"));
        QVERIFY(run.steps[4].options.getBool("ignore_tags"));
        QCOMPARE(run.steps[4].options.toString(), std::string("ignore_tags=true"));
        QCOMPARE(run.steps[1].log.removed, std::vector<std::string>{"detach"});
        QCOMPARE(run.steps[2].log.removed, std::vector<std::string>{"relu"});
        // The second dce changes nothing: it shares the snapshot.
        QVERIFY(run.steps[3].log.empty());
        QCOMPARE(run.steps[3].graphs[0].get(), run.steps[2].graphs[0].get());
        QVERIFY(run.steps[2].graphs[0].get() != run.steps[1].graphs[0].get());
        QCOMPARE(run.steps[4].log.removed, std::vector<std::string>{"mm_1"});
        const Graph& last = run.steps[4].graph();
        QCOMPARE(last.findByName("mm_1"), kNoNode);
        const Node& add = last.node(last.findByName("add"));
        QVERIFY(add.args[0].isNode() && add.args[1].isNode() && add.args[0].node == add.args[1].node);
        // Users are rebuilt after every pass.
        QCOMPARE(last.node(last.findByName("mm")).users.size(), size_t(1));
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, run.steps[1].graph("backward"));
        QVERIFY(isTopologicallyOrdered(last));
    }

    // Provenance names a node of the previous step only: later steps drop it.
    void provenancePerStep()
    {
        const PassRegistry reg = testRegistry();
        PipelineOptions po;
        po.registry = &reg;
        PipelineRun run = runPipeline(smallGraph(), "dup,dce,remove_detach", po);
        QVERIFY2(run.ok, run.error.c_str());
        QCOMPARE(run.steps.size(), size_t(4));
        const Graph& s1 = run.steps[1].graph();
        QCOMPARE(s1.node(s1.findByName("add_1")).meta.provenance, std::string("add"));
        QCOMPARE(run.steps[1].log.added.size(), size_t(1));
        QCOMPARE(run.steps[1].log.added[0].copiedFrom, std::string("add"));
        QCOMPARE(rewiredTextOf(run.steps[1].log), std::string("output arg 0[0] add->add_1"));
        const Graph& s2 = run.steps[2].graph();  // dce removed the original add (and relu)
        QCOMPARE(s2.findByName("add"), kNoNode);
        QCOMPARE(s2.node(s2.findByName("add_1")).meta.provenance, std::string(""));
        const Graph& s3 = run.steps[3].graph();
        QCOMPARE(s3.node(s3.findByName("add_1")).meta.provenance, std::string(""));
    }

    void multiGraphVerification()
    {
        const PassRegistry reg = testRegistry();
        std::vector<RoleGraph> in;
        in.push_back({"forward", smallGraph()});
        in.push_back({"backward", smallGraph()});
        PipelineOptions po;
        po.registry = &reg;
        const auto stages = parsePipelineSpec("dce,break", reg);
        PipelineRun run = runPipeline(std::move(in), stages, po);
        QVERIFY2(run.ok, run.error.c_str());
        QCOMPARE(int(run.steps.size()), 3);
        QCOMPARE(int(run.steps[1].graphs.size()), 2);
        QCOMPARE(run.steps[1].graphs[1]->role, std::string("backward"));
        QCOMPARE(run.steps[1].graph("backward").findByName("relu"), kNoNode);
        QVERIFY(run.steps[1].verifierClean());
        // Both dce logs carry their graph role in the notes and the removal list has both.
        QCOMPARE(run.steps[1].log.removed.size(), size_t(2));
        QCOMPARE(run.steps[1].log.stats.value("removed_forward", 0), 1);
        QCOMPARE(run.steps[1].log.stats.value("removed_backward", 0), 1);
        const Step& broken = run.steps[2];
        QVERIFY(!broken.verifierClean());
        QStringList graphsWithErrors;
        for (const auto& p : broken.problems)
            if (p.severity == Severity::Error) graphsWithErrors << QString::fromStdString(p.graph);
        QVERIFY2(graphsWithErrors.contains("forward") && graphsWithErrors.contains("backward"),
                 qPrintable(graphsWithErrors.join(",")));
        QCOMPARE(broken.log.added.size(), size_t(2));
        QCOMPARE(broken.log.added[0].graph, std::string("forward"));
        QCOMPARE(broken.log.added[1].graph, std::string("backward"));
        // verify=false skips the verifier.
        po.verify = false;
        std::vector<RoleGraph> in2;
        in2.push_back({"", smallGraph()});
        run = runPipeline(std::move(in2), parsePipelineSpec("break", reg), po);
        QVERIFY2(run.ok, run.error.c_str());
        QCOMPARE(int(run.steps.size()), 2);
        QVERIFY(run.steps[1].problems.empty());
    }

    // The graph a step's graph is compared with (the Steps table's counts, `fxlens passes`, the
    // window's Diff tab): that role's in the step before, else its first; none when it has none.
    void previousGraphByRole()
    {
        Step joint;
        joint.graphs.push_back(std::make_shared<const RoleGraph>(RoleGraph{"", smallGraph()}));
        Step split;
        split.graphs.push_back(std::make_shared<const RoleGraph>(RoleGraph{"forward", smallGraph()}));
        split.graphs.push_back(std::make_shared<const RoleGraph>(RoleGraph{"backward", smallGraph()}));
        QCOMPARE(previousGraph(split, "backward"), split.graphs[1].get());
        QCOMPARE(previousGraph(split, "forward"), split.graphs[0].get());
        QCOMPARE(previousGraph(split, "other"), split.graphs[0].get());
        QCOMPARE(previousGraph(joint, "backward"), joint.graphs[0].get());
        QCOMPARE(previousGraph(Step{}, ""), static_cast<const RoleGraph*>(nullptr));
        // the same rule over another list (the window's prepared steps)
        const std::vector<std::string> roles{"forward", "backward"};
        auto self = [](const std::string& r) -> const std::string& { return r; };
        QCOMPARE(graphOfRole(roles, "backward", self), &roles[1]);
        QCOMPARE(graphOfRole(roles, "joint", self), &roles[0]);
        QCOMPARE(graphOfRole(std::vector<std::string>{}, "joint", self), static_cast<const std::string*>(nullptr));
    }

    void changeLogFormats()
    {
        ChangeLog log;
        QVERIFY(log.empty());
        log.added.push_back({"mm_1", "mm", ""});
        log.added.push_back({"relu_2", "", "backward"});
        log.removed = {"detach", "detach_1"};
        log.rewired.push_back({"add", "arg 1", "detach_1", "mm", ""});
        log.tags.push_back({"mm", "recompute", "", "MUST_SAVE", "forward"});
        log.notes = {"layers.0: 1 saved"};
        log.stats["removed"] = 2;
        QVERIFY(!log.empty());
        const nlohmann::json j = log.toJson();
        QCOMPARE(j["added"].size(), size_t(2));
        QCOMPARE(j["added"][0]["node"].get<std::string>(), std::string("mm_1"));
        QCOMPARE(j["added"][0]["copied_from"].get<std::string>(), std::string("mm"));
        QVERIFY(!j["added"][0].contains("graph"));
        QCOMPARE(j["added"][1]["graph"].get<std::string>(), std::string("backward"));
        QCOMPARE(j["removed"], nlohmann::json({"detach", "detach_1"}));
        QCOMPARE(j["rewired"][0]["where"].get<std::string>(), std::string("arg 1"));
        QCOMPARE(j["rewired"][0]["from"].get<std::string>(), std::string("detach_1"));
        QCOMPARE(j["rewired"][0]["to"].get<std::string>(), std::string("mm"));
        QCOMPARE(j["tags"][0]["field"].get<std::string>(), std::string("recompute"));
        QCOMPARE(j["tags"][0]["after"].get<std::string>(), std::string("MUST_SAVE"));
        QCOMPARE(j["notes"][0].get<std::string>(), std::string("layers.0: 1 saved"));
        QCOMPARE(j["stats"]["removed"].get<int>(), 2);

        const std::string text = log.toText();
        QVERIFY2(text.rfind("+2 added, -2 removed, 1 rewired, 1 tags set\n", 0) == 0, text.c_str());
        for (const char* frag : {"layers.0: 1 saved", "+ mm_1 (copy of mm)", "+ relu_2 [backward]", "- detach_1",
                                 "~ add arg 1: detach_1 -> mm", "# mm.recompute: (unset) -> MUST_SAVE [forward]"})
            QVERIFY2(text.find(frag) != std::string::npos, frag);
        const std::string shortText = log.toText(2);
        QVERIFY2(shortText.find("... 4 more") != std::string::npos, shortText.c_str());
        QVERIFY(shortText.find("detach_1") == std::string::npos);

        ChangeLog other;
        other.removed = {"x"};
        other.stats["removed"] = 3;
        other.stats["kind"] = "b";
        log.append(other);
        QCOMPARE(log.removed.size(), size_t(3));
        QCOMPARE(log.stats["removed"].get<int>(), 5);
        QCOMPARE(log.stats["kind"].get<std::string>(), std::string("b"));

        PassContext ctx;
        ctx.graphRole = "forward";
        ctx.added("a", "b");
        ctx.removed("c");
        ctx.rewired("d", "kwarg other", "e", "f");
        ctx.tagSet("g", "phase", "", "backward");
        ctx.note("n");
        QCOMPARE(ctx.log.added[0].graph, std::string("forward"));
        QCOMPARE(ctx.log.rewired[0].graph, std::string("forward"));
        QCOMPARE(ctx.log.tags[0].graph, std::string("forward"));
        QCOMPARE(ctx.log.removed, std::vector<std::string>{"c"});
        QCOMPARE(ctx.log.notes, std::vector<std::string>{"n"});
    }

    void determinism_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("spec");
        QTest::newRow("checkpoint_mlp all") << "pytorch/checkpoint_mlp.joint.code.py"
                                            << "remove_detach,dce,cse";
        QTest::newRow("gpt2_tiny cse") << "pytorch/gpt2_tiny.joint.code.py"
                                       << "cse,remove_detach,dce";
        QTest::newRow("llama_tiny") << "pytorch/llama_tiny.joint.code.py"
                                    << "remove_detach(include_alias=true),cse,dce";
    }
    void determinism()
    {
        QFETCH(QString, file);
        QFETCH(QString, spec);
        const std::string path = fxltest::corpusPath(file.toStdString()).string();
        FXL_REQUIRE_CORPUS(path);
        auto src = openSource(path);
        QVERIFY(src && !src->artifacts.empty());
        const Graph& g = *src->graph(src->artifacts[0].id);
        const PipelineRun a = runPipeline(g, spec.toStdString());
        const PipelineRun b = runPipeline(g, spec.toStdString());
        QVERIFY2(a.ok && b.ok, a.error.c_str());
        QCOMPARE(a.steps.size(), b.steps.size());
        for (size_t i = 0; i < a.steps.size(); ++i) {
            QCOMPARE(stepText(a.steps[i]), stepText(b.steps[i]));
            QCOMPARE(a.steps[i].log.toJson().dump(), b.steps[i].log.toJson().dump());
            QCOMPARE(a.steps[i].log.toText(), b.steps[i].log.toText());
        }
        // Something happened, so the comparison is not vacuous.
        size_t changes = 0;
        for (const auto& s : a.steps) changes += s.log.removed.size();
        QVERIFY(changes > 0);
    }
};

FXL_TEST_APPLESS_MAIN(TestPipeline)
}  // namespace test_pipeline
#include "test_pipeline.moc"

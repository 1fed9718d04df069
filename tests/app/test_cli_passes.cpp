// fxlens passes / diff / mem end to end: runs the built binary on corpus graphs and checks its
// output against the files it wrote and against the core analyses called directly.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

#include "core/analysis/graph_diff.hpp"
#include "core/analysis/memory_timeline.hpp"
#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/source.hpp"

#include "cli_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_cli_passes {

using namespace clitest;

namespace {

const QString kBinary = clitest::kFxlensBinary;
const QString kPytorch = QString::fromStdString(fxltest::corpusPath("pytorch").string());

std::shared_ptr<fxl::Graph> loadCorpusGraph(const QString& path)
{
    auto src = fxl::openSource(path.toStdString());
    return src->graph(src->graphs().front()->id);
}

QSet<QString> nodeNames(const fxl::Graph& g)
{
    QSet<QString> s;
    g.forEachNode([&](const fxl::Node& n) { s.insert(QString::fromStdString(n.name)); });
    return s;
}

// What print_readable text can hold of a corpus graph: no storage offsets, no annotation for
// tuple-valued nodes (as test_cli); module paths and phases travel in fxlens' comments.
fxl::Graph printableForm(const fxl::Graph& g)
{
    fxl::Graph e = g.clone();
    e.forEachNodeMut([](fxl::Node& n) {
        if (n.val.kind == fxl::ValueMeta::Kind::Tuple) n.val = fxl::ValueMeta::unknown();
        if (n.val.isTensor()) n.val.tensor.storageOffset = 0;
    });
    return e;
}

}  // namespace

class TestCliPasses : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo(kBinary).isExecutable(), qPrintable("fxlens binary missing: " + kBinary));
    }

    // The text and JSON listings agree, every listed pass is accepted by the spec parser,
    // and the option declarations are coherent (enum defaults among the choices).
    void passesList()
    {
        const Run text = fxlens({QStringLiteral("passes"), QStringLiteral("list")});
        QVERIFY(!text.crashed);
        QCOMPARE(text.exitCode, 0);
        const Run js = fxlens({QStringLiteral("passes"), QStringLiteral("list"), QStringLiteral("--json")});
        QCOMPARE(js.exitCode, 0);
        const QJsonObject doc = parseJsonDoc(js.out);
        const QJsonArray passes = doc[QStringLiteral("passes")].toArray();
        QVERIFY2(!passes.isEmpty(), js.out.constData());
        QSet<QString> names;
        static const QSet<QString> types = {QStringLiteral("bool"),   QStringLiteral("int"),  QStringLiteral("float"),
                                            QStringLiteral("string"), QStringLiteral("enum"), QStringLiteral("list")};
        for (const auto& pv : passes) {
            const QJsonObject p = pv.toObject();
            const QString name = p[QStringLiteral("name")].toString();
            QVERIFY2(!name.isEmpty(), "a pass without a name");
            QVERIFY2(!names.contains(name), qPrintable("listed twice: " + name));
            names.insert(name);
            QVERIFY2(!p[QStringLiteral("summary")].toString().isEmpty(), qPrintable(name + " has no summary"));
            QVERIFY2(text.out.contains(name.toUtf8()), qPrintable(name + " missing from the text listing"));
            QVERIFY2(text.out.contains(p[QStringLiteral("summary")].toString().toUtf8()), qPrintable(name));
            for (const auto& ov : p[QStringLiteral("options")].toArray()) {
                const QJsonObject o = ov.toObject();
                const QString type = o[QStringLiteral("type")].toString();
                QVERIFY2(types.contains(type), qPrintable(name + ": option type " + type));
                if (type == QLatin1String("enum")) {
                    QStringList choices;
                    for (const auto& c : o[QStringLiteral("choices")].toArray()) choices << c.toString();
                    QVERIFY2(choices.contains(o[QStringLiteral("default")].toString()),
                             qPrintable(name + "." + o[QStringLiteral("name")].toString() + ": default not a choice"));
                }
            }
        }
        for (const char* builtin : {"remove_detach", "dce", "cse"})
            QVERIFY2(names.contains(QLatin1String(builtin)), builtin);
        // Every listed name is a pipeline stage the parser accepts: a run may fail (exit 1,
        // e.g. a pass whose preconditions this graph does not meet) but never as a bad spec.
        const QString file = kPytorch + QStringLiteral("/mlp_gelu.joint.code.py");
        FXL_REQUIRE_CORPUS(file);
        for (const QString& name : names) {
            const Run r =
                fxlens({QStringLiteral("passes"), QStringLiteral("run"), file, QStringLiteral("--pipeline"), name});
            QVERIFY(!r.crashed);
            QVERIFY2(r.exitCode == 0 || r.exitCode == 1, qPrintable(name + ": " + QString::fromUtf8(r.err)));
        }
    }

    void passesRun_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("pipeline");
        QTest::newRow("mlp_gelu remove_detach,dce") << "mlp_gelu"
                                                    << "remove_detach,dce";
        QTest::newRow("checkpoint_mlp remove_detach,dce") << "checkpoint_mlp"
                                                          << "remove_detach,dce";
        QTest::newRow("gpt2_tiny remove_detach,cse,dce") << "gpt2_tiny"
                                                         << "remove_detach,cse,dce";
        QTest::newRow("llama_tiny remove_detach,cse,dce") << "llama_tiny"
                                                          << "remove_detach,cse,dce";
    }
    // --out writes one readable file per step; each reparses to a graph whose node count is
    // the one reported, whose names follow from the change log, and summary.json is the
    // --json document.
    void passesRun()
    {
        QFETCH(QString, name);
        QFETCH(QString, pipeline);
        const QString file = kPytorch + "/" + name + ".joint.code.py";
        FXL_REQUIRE_CORPUS(file);
        QTemporaryDir tmp;
        const QString out = tmp.filePath(QStringLiteral("steps"));
        const Run r = fxlens({QStringLiteral("passes"), QStringLiteral("run"), file, QStringLiteral("--pipeline"),
                              pipeline, QStringLiteral("--out"), out, QStringLiteral("--json")});
        QVERIFY(!r.crashed);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject doc = parseJsonDoc(r.out);
        QCOMPARE(doc[QStringLiteral("ok")].toBool(), true);
        QCOMPARE(doc[QStringLiteral("pipeline")].toString(), pipeline);
        QCOMPARE(parseJsonDoc(readFile(out + QStringLiteral("/summary.json"))), doc);
        QVERIFY(readFile(out + QStringLiteral("/summary.txt")).contains(pipeline.toUtf8()));
        // the peak of the input against the last step's, and their ratio
        const QJsonArray steps = doc[QStringLiteral("steps")].toArray();
        auto largestPeak = [](const QJsonValue& step) {
            qint64 p = 0;
            for (const auto& g : step.toObject()[QStringLiteral("graphs")].toArray())
                p = std::max(p, g.toObject()[QStringLiteral("peak_bytes")].toInteger());
            return p;
        };
        const qint64 before = largestPeak(steps.first()), after = largestPeak(steps.last());
        QVERIFY(before > 0 && after > 0);
        QCOMPARE(doc[QStringLiteral("peak_before_bytes")].toInteger(), before);
        QCOMPARE(doc[QStringLiteral("peak_after_bytes")].toInteger(), after);
        QCOMPARE(doc[QStringLiteral("peak_ratio")].toDouble(), double(after) / double(before));

        const QStringList passes = pipeline.split(',');
        QCOMPARE(steps.size(), passes.size() + 1);

        // every graph that reads get_attr tensors gets its constants beside it
        const bool constants = QFileInfo::exists(kPytorch + "/" + name + ".joint.constants.safetensors");
        QStringList expectedFiles = {QStringLiteral("00_input.py"), QStringLiteral("summary.json"),
                                     QStringLiteral("summary.txt")};
        if (constants) expectedFiles << QStringLiteral("00_input.constants.safetensors");
        for (int i = 0; i < passes.size(); ++i) {
            const QString prefix = QStringLiteral("%1_%2").arg(i + 1, 2, 10, QLatin1Char('0')).arg(passes[i]);
            expectedFiles << prefix + ".py" << prefix + ".changes.json";
            if (constants) expectedFiles << prefix + ".constants.safetensors";
        }
        QStringList written = QDir(out).entryList(QDir::Files);
        written.sort();
        expectedFiles.sort();
        QCOMPARE(written, expectedFiles);

        // The input file is the loaded graph, printed and reparsed.
        const auto original = loadCorpusGraph(file);
        fxl::Graph prev = fxl::parseFxText(readFile(out + QStringLiteral("/00_input.py")).toStdString(), "00_input.py");
        std::string why;
        QVERIFY2(printableForm(*original).structurallyEqual(prev, &why), why.c_str());
        QCOMPARE(steps[0][QStringLiteral("nodes")].toInt(), int(original->size()));
        QVERIFY(steps[0][QStringLiteral("pass")].isNull());

        for (int i = 1; i < steps.size(); ++i) {
            const QJsonObject s = steps[i].toObject();
            QCOMPARE(s[QStringLiteral("index")].toInt(), i);
            QCOMPARE(s[QStringLiteral("pass")].toString(), passes[i - 1]);
            QVERIFY(s[QStringLiteral("wall_seconds")].toDouble() >= 0.0);
            QCOMPARE(s[QStringLiteral("verifier")][QStringLiteral("clean")].toBool(), true);
            const QString prefix = QStringLiteral("%1_%2").arg(i, 2, 10, QLatin1Char('0')).arg(passes[i - 1]);
            QCOMPARE(s[QStringLiteral("files")].toArray().size(), constants ? 3 : 2);
            const fxl::Graph g =
                fxl::parseFxText(readFile(out + "/" + prefix + ".py").toStdString(), prefix.toStdString());
            QCOMPARE(int(g.size()), s[QStringLiteral("nodes")].toInt());

            // The change log: removed names were in the previous step and are gone, added
            // names are new, and the node count follows.
            const QJsonObject log = parseJsonDoc(readFile(out + "/" + prefix + ".changes.json"));
            const QJsonObject changes = s[QStringLiteral("changes")].toObject();
            const QJsonArray removed = log[QStringLiteral("removed")].toArray();
            const QJsonArray added = log[QStringLiteral("added")].toArray();
            QCOMPARE(changes[QStringLiteral("removed")].toInt(), int(removed.size()));
            QCOMPARE(changes[QStringLiteral("added")].toInt(), int(added.size()));
            QCOMPARE(changes[QStringLiteral("rewired")].toInt(), int(log[QStringLiteral("rewired")].toArray().size()));
            QCOMPARE(int(g.size()), int(prev.size()) + int(added.size()) - int(removed.size()));
            const QSet<QString> before = nodeNames(prev), after = nodeNames(g);
            for (const auto& n : removed) {
                QVERIFY2(before.contains(n.toString()), qPrintable(n.toString()));
                QVERIFY2(!after.contains(n.toString()), qPrintable(n.toString()));
            }
            for (const auto& a : added) QVERIFY(after.contains(a[QStringLiteral("node")].toString()));
            if (added.isEmpty()) {
                // diffGraphs on the two written files finds exactly the removed nodes
                QSet<QString> logged, diffed;
                for (const auto& n : removed) logged.insert(n.toString());
                for (const fxl::NodeDiff& nd : fxl::diffGraphs(prev, g).nodes)
                    if (nd.cls == fxl::DiffClass::Removed) diffed.insert(QString::fromStdString(nd.aName));
                QCOMPARE(diffed, logged);
            }
            prev = g.clone();
        }
        // remove_detach leaves no detach behind.
        bool anyDetach = false;
        prev.forEachNode([&](const fxl::Node& n) { anyDetach = anyDetach || n.isOp("aten.detach.default"); });
        QVERIFY(!anyDetach);

        // The text form reports the same steps.
        const Run t = fxlens({QStringLiteral("passes"), QStringLiteral("run"), file, QStringLiteral("-p"), pipeline});
        QCOMPARE(t.exitCode, 0);
        for (const QString& p : passes) QVERIFY2(t.out.contains(p.toUtf8()), t.out.constData());
        QVERIFY2(t.out.contains("(input)"), t.out.constData());
    }

    void badSpec_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<int>("column");
        QTest::newRow("unknown pass") << "remove_detach,nosuch" << 15;
        QTest::newRow("unknown option") << "dce(frobnicate=1)" << 5;
        QTest::newRow("unclosed") << "dce(" << 5;
        QTest::newRow("trailing comma") << "dce," << 5;
    }
    void badSpec()
    {
        QFETCH(QString, spec);
        QFETCH(int, column);
        const QString file = kPytorch + QStringLiteral("/mlp_gelu.joint.code.py");
        FXL_REQUIRE_CORPUS(file);
        QTemporaryDir tmp;
        const QString out = tmp.filePath(QStringLiteral("never"));
        Run r = fxlens({QStringLiteral("passes"), QStringLiteral("run"), file, QStringLiteral("--pipeline"), spec,
                        QStringLiteral("--out"), out});
        QVERIFY(!r.crashed);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("<pipeline>:1:%1").arg(column).toUtf8()), r.err.constData());
        QVERIFY2(!QFileInfo::exists(out), "nothing written for a bad spec");
        r = fxlens({QStringLiteral("passes"), QStringLiteral("run"), file, QStringLiteral("--pipeline"), spec,
                    QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 2);
        const QJsonObject doc = parseJsonDoc(r.out);
        QCOMPARE(doc[QStringLiteral("ok")].toBool(true), false);
        QCOMPARE(doc[QStringLiteral("error")][QStringLiteral("column")].toInt(), column);
    }

    void usage_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("no subcommand") << QStringList{QStringLiteral("passes")} << "missing subcommand";
        QTest::newRow("bad subcommand") << QStringList{QStringLiteral("passes"), QStringLiteral("frob")}
                                        << "unknown subcommand 'frob'";
        QTest::newRow("run without file")
            << QStringList{QStringLiteral("passes"), QStringLiteral("run")} << "missing FILE";
        QTest::newRow("run without pipeline")
            << QStringList{QStringLiteral("passes"), QStringLiteral("run"), QStringLiteral("x.py")}
            << "missing --pipeline";
        QTest::newRow("list with file") << QStringList{QStringLiteral("passes"), QStringLiteral("list"),
                                                       QStringLiteral("x.py")}
                                        << "takes no arguments";
        QTest::newRow("diff one file") << QStringList{QStringLiteral("diff"), QStringLiteral("x.py")} << "missing FILE";
        QTest::newRow("diff bad context")
            << QStringList{QStringLiteral("diff"), QStringLiteral("a.py"), QStringLiteral("b.py"), QStringLiteral("-C"),
                           QStringLiteral("x")}
            << "--context expects a non-negative integer";
        QTest::newRow("mem csv and json to stdout")
            << QStringList{QStringLiteral("mem"), QStringLiteral("x.py"), QStringLiteral("--csv"), QStringLiteral("-"),
                           QStringLiteral("--json")}
            << "pick one";
    }
    void usage()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const Run r = fxlens(args);
        QVERIFY(!r.crashed);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
    }

    // A non-empty --out is refused (nothing touched); --force writes beside the user's file.
    void outNeverOverwrites()
    {
        const QString file = kPytorch + QStringLiteral("/mlp_gelu.joint.code.py");
        FXL_REQUIRE_CORPUS(file);
        QTemporaryDir tmp;
        const QString keep = tmp.filePath(QStringLiteral("00_input.py"));
        QVERIFY(writeFile(keep, "mine\n"));
        Run r = fxlens({QStringLiteral("passes"), QStringLiteral("run"), file, QStringLiteral("--pipeline"),
                        QStringLiteral("dce"), QStringLiteral("--out"), tmp.path()});
        QVERIFY(!r.crashed);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("not empty"), r.err.constData());
        QCOMPARE(QDir(tmp.path()).entryList(QDir::Files | QDir::Hidden), QStringList{QStringLiteral("00_input.py")});
        QCOMPARE(readFile(keep), QByteArray("mine\n"));

        // --out naming a file is refused too
        r = fxlens({QStringLiteral("passes"), QStringLiteral("run"), file, QStringLiteral("--pipeline"),
                    QStringLiteral("dce"), QStringLiteral("--out"), keep});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(readFile(keep), QByteArray("mine\n"));

        // --force: the step files are written (replacing same-named ones), others are kept
        QVERIFY(writeFile(tmp.filePath(QStringLiteral("notes.txt")), "keep me\n"));
        r = fxlens({QStringLiteral("passes"), QStringLiteral("run"), file, QStringLiteral("--pipeline"),
                    QStringLiteral("dce"), QStringLiteral("--out"), tmp.path(), QStringLiteral("--force")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(readFile(tmp.filePath(QStringLiteral("notes.txt"))), QByteArray("keep me\n"));
        QVERIFY(readFile(keep).startsWith("class "));
        QVERIFY(QFileInfo::exists(tmp.filePath(QStringLiteral("01_dce.py"))));
        // no temporary files left behind
        for (const QString& f : QDir(tmp.path()).entryList(QDir::Files | QDir::Hidden))
            QVERIFY2(!f.contains(QLatin1String("fxlens-")), qPrintable(f));
    }

    // A pass that fails stops the run: exit 1, the stage named, the steps before it written.
    void passFailure()
    {
        FXL_REQUIRE_CORPUS(kPytorch + QStringLiteral("/mlp_gelu.joint.code.py"));
        const Run list = fxlens({QStringLiteral("passes"), QStringLiteral("list"), QStringLiteral("--json")});
        bool havePartition = false;
        for (const auto& p : parseJsonDoc(list.out)[QStringLiteral("passes")].toArray())
            havePartition = havePartition || p[QStringLiteral("name")].toString() == QLatin1String("partition");
        QVERIFY2(havePartition, "'fxlens passes list' lacks the partition pass");
        // partition needs one joint graph: the second one finds forward + backward
        const QString file = kPytorch + QStringLiteral("/mlp_gelu.joint.code.py");
        QTemporaryDir tmp;
        const QString out = tmp.filePath(QStringLiteral("steps"));
        const Run r =
            fxlens({QStringLiteral("passes"), QStringLiteral("run"), file, QStringLiteral("--pipeline"),
                    QStringLiteral("partition,partition"), QStringLiteral("--out"), out, QStringLiteral("--json")});
        QVERIFY(!r.crashed);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("stage 2 (partition)"), r.err.constData());
        const QJsonObject doc = parseJsonDoc(r.out);
        QCOMPARE(doc[QStringLiteral("ok")].toBool(true), false);
        QCOMPARE(doc[QStringLiteral("failed_stage")].toInt(), 1);
        const QJsonArray steps = doc[QStringLiteral("steps")].toArray();
        QCOMPARE(steps.size(), 2);
        // the step with two graphs writes one file per role, each a graph of that size
        const QJsonArray files = steps[1][QStringLiteral("files")].toArray();
        QStringList names;
        for (const auto& f : files) names << f.toString();
        QCOMPARE(names,
                 (QStringList{QStringLiteral("01_partition.forward.py"), QStringLiteral("01_partition.backward.py"),
                              QStringLiteral("01_partition.changes.json")}));
        const QJsonArray graphs = steps[1][QStringLiteral("graphs")].toArray();
        QCOMPARE(graphs.size(), 2);
        for (int i = 0; i < 2; ++i) {
            const fxl::Graph g = fxl::parseFxText(readFile(out + "/" + names[i]).toStdString(), names[i].toStdString());
            QCOMPARE(int(g.size()), graphs[i][QStringLiteral("nodes")].toInt());
        }
        QVERIFY(!QFileInfo::exists(out + QStringLiteral("/02_partition.changes.json")));
    }

    // The verifier's errors make the run fail even when every pass succeeds.
    void verifierErrors()
    {
        QTemporaryDir tmp;
        const QString f = tmp.filePath(QStringLiteral("bad.py"));
        QVERIFY(writeFile(f,
                          "class GraphModule(torch.nn.Module):\n"
                          "    def forward(self, x: \"f32[2, 2][2, 1]cpu\"):\n"
                          "        mm: \"f32[2, 2][2, 1]cpu\" = torch.ops.aten.mm.default(x)\n"
                          "        return (mm,)\n"));
        const Run r = fxlens({QStringLiteral("passes"), QStringLiteral("run"), f, QStringLiteral("-p"),
                              QStringLiteral("dce"), QStringLiteral("--json")});
        QVERIFY(!r.crashed);
        QCOMPARE(r.exitCode, 1);
        const QJsonObject doc = parseJsonDoc(r.out);
        QCOMPARE(doc[QStringLiteral("ok")].toBool(false), true);  // the pass itself ran
        QCOMPARE(doc[QStringLiteral("verifier_clean")].toBool(true), false);
        const QJsonObject v = doc[QStringLiteral("steps")][1][QStringLiteral("verifier")].toObject();
        QCOMPARE(v[QStringLiteral("errors")].toInt(), 1);
        QVERIFY2(v[QStringLiteral("problems")][0].toString().contains(QLatin1String("mat2")), r.out.constData());
    }

    // diff's numbers are diffGraphs' numbers, its text is diffToText's.
    void diffCorpus()
    {
        const QString a = kPytorch + QStringLiteral("/mlp_gelu.joint.code.py");
        const QString b = kPytorch + QStringLiteral("/checkpoint_mlp.joint.code.py");
        FXL_REQUIRE_CORPUS(a);
        FXL_REQUIRE_CORPUS(b);
        const auto ga = loadCorpusGraph(a), gb = loadCorpusGraph(b);
        const fxl::GraphDiff d = fxl::diffGraphs(*ga, *gb);
        QVERIFY2(!d.identical(), "the two corpus graphs differ (checkpointing recomputes)");

        const Run js = fxlens({QStringLiteral("diff"), a, b, QStringLiteral("--json")});
        QVERIFY(!js.crashed);
        QVERIFY2(js.exitCode == 0, js.err.constData());
        const QJsonObject doc = parseJsonDoc(js.out);
        const QJsonObject counts = doc[QStringLiteral("diff")][QStringLiteral("counts")].toObject();
        QCOMPARE(counts[QStringLiteral("added")].toInt(), int(d.counts.added));
        QCOMPARE(counts[QStringLiteral("removed")].toInt(), int(d.counts.removed));
        QCOMPARE(counts[QStringLiteral("changed")].toInt(), int(d.counts.changed));
        QCOMPARE(counts[QStringLiteral("unchanged")].toInt(), int(d.counts.unchanged));
        QCOMPARE(counts[QStringLiteral("rewired")].toInt(), int(d.counts.rewired));
        QCOMPARE(doc[QStringLiteral("identical")].toBool(true), false);
        QCOMPARE(doc[QStringLiteral("a")][QStringLiteral("nodes")].toInt(), int(ga->size()));
        QCOMPARE(doc[QStringLiteral("b")][QStringLiteral("nodes")].toInt(), int(gb->size()));
        const QJsonDocument direct = QJsonDocument::fromJson(QByteArray::fromStdString(fxl::diffToJson(d).dump()));
        QCOMPARE(doc[QStringLiteral("diff")].toObject(), direct.object());

        fxl::DiffTextOptions t;
        t.aLabel = a.toStdString();
        t.bLabel = b.toStdString();
        t.context = 1;
        const Run text = fxlens({QStringLiteral("diff"), a, b, QStringLiteral("--context"), QStringLiteral("1")});
        QCOMPARE(text.exitCode, 0);
        QCOMPARE(text.out.toStdString(), fxl::diffToText(d, *ga, *gb, t));

        // A graph against itself: identical, still exit 0.
        const Run same = fxlens({QStringLiteral("diff"), a, a, QStringLiteral("--json")});
        QCOMPARE(same.exitCode, 0);
        QCOMPARE(parseJsonDoc(same.out)[QStringLiteral("identical")].toBool(false), true);
        // --ignore checks its field names
        const Run bad = fxlens({QStringLiteral("diff"), a, b, QStringLiteral("--ignore"), QStringLiteral("vals")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("unknown field 'vals'"), bad.err.constData());
        const Run missing = fxlens({QStringLiteral("diff"), a, QStringLiteral("/nonexistent/b.py")});
        QCOMPARE(missing.exitCode, 1);
    }

    void memCorpus_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* n : {"mlp_gelu", "checkpoint_mlp", "gpt2_tiny", "llama_tiny", "moe_tiny"})
            QTest::newRow(n) << QString::fromLatin1(n);
    }
    // mem's numbers are computeMemoryTimeline's.
    void memCorpus()
    {
        FXL_SANITIZER_ROWS(4);
        QFETCH(QString, name);
        const QString file = kPytorch + "/" + name + ".joint.code.py";
        FXL_REQUIRE_CORPUS(file);
        const auto g = loadCorpusGraph(file);
        for (const bool inputs : {true, false}) {
            fxl::MemoryOptions mo;
            mo.countInputs = inputs;
            const fxl::MemoryTimeline t = fxl::computeMemoryTimeline(*g, mo);
            QVERIFY(t.peakBytes > 0);
            QStringList extra;
            if (!inputs) extra << QStringLiteral("--no-inputs");

            const Run text = fxlens(QStringList{QStringLiteral("mem"), file} + extra);
            QVERIFY(!text.crashed);
            QVERIFY2(text.exitCode == 0, text.err.constData());
            QCOMPARE(text.out.left(text.out.indexOf('\n')).toStdString(), fxl::timelineSummary(t));

            const Run js = fxlens(QStringList{QStringLiteral("mem"), file, QStringLiteral("--json")} + extra);
            QCOMPARE(js.exitCode, 0);
            const QJsonObject doc = parseJsonDoc(js.out);
            const QJsonObject tl = doc[QStringLiteral("timeline")].toObject();
            QCOMPARE(qint64(tl[QStringLiteral("peak")][QStringLiteral("bytes")].toDouble()), qint64(t.peakBytes));
            QCOMPARE(tl[QStringLiteral("peak")][QStringLiteral("node")].toString().toStdString(), t.peakNode());
            QCOMPARE(qint64(tl[QStringLiteral("saved")][QStringLiteral("bytes")].toDouble()), qint64(t.savedBytes));
            QCOMPARE(qint64(tl[QStringLiteral("input_bytes")].toDouble()), qint64(t.inputBytes));
            QCOMPARE(tl[QStringLiteral("steps")].toArray().size(), qsizetype(t.steps.size()));

            const Run csv =
                fxlens(QStringList{QStringLiteral("mem"), file, QStringLiteral("--csv"), QStringLiteral("-")} + extra);
            QCOMPARE(csv.exitCode, 0);
            QCOMPARE(csv.out.toStdString(), fxl::timelineToCsv(t, *g));
            QVERIFY2(csv.err.contains(QByteArray::fromStdString(fxl::timelineSummary(t))), csv.err.constData());
        }
        // --csv OUT writes the file once, then refuses to replace it without --force.
        QTemporaryDir tmp;
        const QString out = tmp.filePath(QStringLiteral("t.csv"));
        Run r = fxlens({QStringLiteral("mem"), file, QStringLiteral("--csv"), out});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(readFile(out).toStdString(), fxl::timelineToCsv(fxl::computeMemoryTimeline(*g), *g));
        r = fxlens({QStringLiteral("mem"), file, QStringLiteral("--csv"), out});
        QCOMPARE(r.exitCode, 1);
        r = fxlens({QStringLiteral("mem"), file, QStringLiteral("--csv"), out, QStringLiteral("--force")});
        QCOMPARE(r.exitCode, 0);
    }
};

FXL_TEST_APPLESS_MAIN(TestCliPasses)
}  // namespace test_cli_passes
#include "test_cli_passes.moc"

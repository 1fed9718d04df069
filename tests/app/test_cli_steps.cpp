// The files fxlens writes run on their own, as a user runs them (issue 9, section 5): every
// step graph `fxlens passes run --out` writes, and every graph `fxlens convert` writes (JSON and
// Python text), gives the input graph's bits under `fxlens check` and `fxlens run`, through the
// CLI, for every graph of the corpus (pytorch/: real traced graphs with their real inputs and
// get_attr constants). And where the constants are missing, the error says where fxlens looked
// and how to give them.
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_cli_steps {

using namespace clitest;

namespace {

const QString kPytorch = QString::fromStdString(fxltest::corpusPath("pytorch").string());

// Pipelines over every pass that keeps a single graph, and one that ends in a partition. sac and
// remat refuse a graph without a backward (a .fw. graph): there the single-graph pipeline is
// checked to be refused, and its other passes run.
const QString kSingleGraphPipeline = QStringLiteral("remove_detach,cse,sac(policy=alternate_mm),remat,dce");
const QString kForwardGraphPipeline = QStringLiteral("remove_detach,cse,dce");
const QString kPartitionPipeline = QStringLiteral("remove_detach,sac(policy=save_list),partition(mode=tagged)");

using clitest::describe;

// The graph files of the corpus: NAME.<part>.code.py and NAME.<part>.graph.txt (the directory
// itself when it is absent: that row then skips or, under CI=true, fails).
// The traced graphs of the corpus (code and listings, joints and partitions). The sanitizer
// stage (every fxlens run 5-10x slower there) takes the mlp_gelu files and gpt2_tiny's joint,
// which cover joints, partitions, listings and constants; the release stage takes them all.
QStringList corpusGraphs()
{
    QStringList names;
    for (const auto& p : fxltest::corpusFiles("pytorch", {".code.py", ".graph.txt"})) {
        const QString name = QString::fromStdString(p.filename().string());
        // the sanitizer stage: a joint in each text form and two forwards (the backwards of the
        // corpus cannot run alone: their tangents have no meta)
        static const QStringList kSanitized{"gpt2_tiny.joint.code.py", "mlp_gelu.joint.graph.txt",
                                            "mlp_gelu.fw.mincut.code.py", "mlp_gelu.fw.default.code.py"};
        if (fxltest::kSanitizedBuild && std::filesystem::exists(p) && !kSanitized.contains(name)) continue;
        names << name;
    }
    return names;
}

bool isJoint(const QString& file) { return file.contains(QStringLiteral(".joint.")); }

// `fxlens check A B` compares bit for bit: exit 0 only when every output is equal.
void expectSameBits(const QString& a, const QString& b, const QStringList& extra = {})
{
    const Run r = fxlens(QStringList{"check", a, b} + extra);
    QVERIFY2(!r.crashed && r.exitCode == 0,
             qPrintable(QStringLiteral("check %1 %2:\n").arg(a, QFileInfo(b).fileName()) + describe(r)));
    QVERIFY2(resultLine(r.out) == QLatin1String("result: bitwise equal"), r.out.constData());
}

// QVERIFY in a helper returns from the helper only: stop the test function too.
#define FXL_EXPECT_SAME_BITS(...)                                                                                      \
    do {                                                                                                               \
        expectSameBits(__VA_ARGS__);                                                                                   \
        if (QTest::currentTestFailed()) return;                                                                        \
    } while (false)

// A corpus graph that cannot run on its own (a backward graph printed without annotations has
// no meta for its tangents, and the corpus has no values for them) has no bits to compare: the
// row is skipped, saying so.
#define FXL_SKIP_UNLESS_RUNNABLE(input)                                                                                \
    do {                                                                                                               \
        const Run original_ = fxlens({"run", input});                                                                  \
        if (original_.exitCode == 1 && original_.err.contains("has no tensor meta to generate it from"))               \
            QSKIP(qPrintable("the original graph cannot run on its own: "                                              \
                             + QString::fromUtf8(original_.err.trimmed().split('\n').last())));                        \
        FXL_EXPECT_EXIT(original_, 0);                                                                                 \
    } while (false)

}  // namespace

class TestCliSteps : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY2(QFileInfo::exists(kFxlensBinary), qPrintable(kFxlensBinary)); }

    // Every step of a pipeline, checked against the input graph through the CLI.
    void stepsRunOnTheirOwn_data()
    {
        QTest::addColumn<QString>("graph");
        QTest::addColumn<QString>("pipeline");
        const QStringList graphs = corpusGraphs();
        for (const QString& g : graphs) {
            QTest::newRow(qPrintable(g + " single")) << g << kSingleGraphPipeline;
            if (isJoint(g)) QTest::newRow(qPrintable(g + " partition")) << g << kPartitionPipeline;
        }
    }
    void stepsRunOnTheirOwn()
    {
        FXL_SANITIZER_ROWS(4);
        QFETCH(QString, graph);
        QFETCH(QString, pipeline);
        const QString input = kPytorch + "/" + graph;
        FXL_REQUIRE_CORPUS(input);
        FXL_SKIP_UNLESS_RUNNABLE(input);
        QTemporaryDir tmp;
        const QString out = tmp.filePath("steps");
        if (graph.contains(QStringLiteral(".fw.")) && pipeline == kSingleGraphPipeline) {
            const Run refused = fxlens({"passes", "run", input, "--pipeline", pipeline, "--out", tmp.filePath("no")});
            FXL_EXPECT_EXIT(refused, 1);
            const QByteArray said = refused.out + refused.err;
            QVERIFY2(said.contains("stage 3 (sac): sac works on a forward+loss+backward graph")
                         && said.contains("this graph has no backward"),
                     qPrintable(describe(refused)));
            pipeline = kForwardGraphPipeline;
        }
        const Run passes = fxlens({"passes", "run", input, "--pipeline", pipeline, "--out", out, "--json"});
        FXL_EXPECT_EXIT(passes, 0);
        const QJsonObject doc = parseJsonDoc(passes.out);
        QVERIFY2(doc.value("constants_missing").toArray().isEmpty(), passes.out.constData());

        const QJsonArray steps = doc.value("steps").toArray();
        QVERIFY(steps.size() >= 4);
        int checked = 0, ran = 0, constantsFiles = 0;
        for (const QJsonValue& step : steps) {
            QStringList graphFiles;
            for (const QJsonValue& f : step.toObject().value("files").toArray()) {
                const QString name = f.toString();
                if (name.endsWith(".constants.safetensors")) ++constantsFiles;
                if (name.endsWith(".py")) graphFiles << out + "/" + name;
            }
            QVERIFY2(!graphFiles.isEmpty(), "a step wrote no graph file");
            if (graphFiles.size() == 1) {
                // one graph: the same function as the input, so the same bits
                FXL_EXPECT_SAME_BITS(input, graphFiles.front());
                ++checked;
                continue;
            }
            // A partition: the forward runs on the joint's inputs with its constants beside it.
            // The backward runs only on what the forward saved, which the CLI cannot chain: its
            // constants must be found (a run on generated values may fail in a kernel, e.g. an
            // index out of range, never for want of constants). Forward then backward against
            // the joint, bit for bit, is test_pass_equivalence's partition test.
            const QString inputs = kPytorch + "/" + graph.section('.', 0, 0) + ".inputs.safetensors";
            for (const QString& g : graphFiles) {
                const bool forward = g.endsWith(".forward.py");
                const Run r = forward ? fxlens({"run", g, "--inputs", inputs}) : fxlens({"run", g});
                if (forward || r.exitCode != 1)
                    QVERIFY2(!r.crashed && r.exitCode == 0, qPrintable(g + ":\n" + describe(r)));
                else
                    QVERIFY2(!r.err.contains("constant"), qPrintable(g + ":\n" + describe(r)));
                ++ran;
            }
            QCOMPARE(ran, 2);
        }
        QCOMPARE(checked + (ran > 0 ? 1 : 0), int(steps.size()));

        // The input's constants went beside every step graph that reads them.
        const QString constants = QDir(kPytorch).filePath(
            QString(graph).replace(QRegularExpression("\\.(code\\.py|graph\\.txt)$"), ".constants.safetensors"));
        if (QFileInfo::exists(constants)) QVERIFY2(constantsFiles >= checked, passes.out.constData());
    }

    // convert --to json and --to py keep what the graph needs to run: the converted graph
    // gives the original's bits under check, and under run (+ check against its outputs).
    void convertedGraphsRun_data()
    {
        QTest::addColumn<QString>("graph");
        const QStringList graphs = corpusGraphs();
        for (const QString& g : graphs) QTest::newRow(qPrintable(g)) << g;
    }
    void convertedGraphsRun()
    {
        FXL_SANITIZER_ROWS(4);
        QFETCH(QString, graph);
        const QString input = kPytorch + "/" + graph;
        FXL_REQUIRE_CORPUS(input);
        FXL_SKIP_UNLESS_RUNNABLE(input);
        QTemporaryDir tmp;
        const QString json = tmp.filePath("converted.json"), py = tmp.filePath("converted.py"),
                      pyFromJson = tmp.filePath("again.py");
        FXL_EXPECT_EXIT(fxlens({"convert", input, "--to", "json", "-o", json}), 0);
        FXL_EXPECT_EXIT(fxlens({"convert", input, "--to", "py", "-o", py}), 0);
        // the JSON alone: moved away from the corpus, it still carries its constants
        FXL_EXPECT_EXIT(fxlens({"convert", json, "--to", "py", "-o", pyFromJson}), 0);
        FXL_EXPECT_SAME_BITS(input, json);
        FXL_EXPECT_SAME_BITS(input, py);
        FXL_EXPECT_SAME_BITS(input, pyFromJson);

        // run the JSON on the original's inputs, then compare its outputs with the original's.
        // The corpus inputs file holds the joint graph's placeholders (arg0_1, ...); a forward
        // or backward graph of the same case reads others (primals_1, ...), and its original
        // ran on generated inputs, as the JSON does without the file.
        const QString inputsFile = QDir(kPytorch).filePath(graph.section('.', 0, 0) + ".inputs.safetensors");
        QStringList runArgs{"run", json, "--out", tmp.filePath("outs.safetensors")};
        if (QFileInfo::exists(inputsFile) && graph.contains(".joint.")) runArgs << "--inputs" << inputsFile;
        FXL_EXPECT_EXIT(fxlens(runArgs), 0);
        FXL_EXPECT_SAME_BITS(input, tmp.filePath("outs.safetensors"));
    }

    // Without its constants a graph that reads get_attr tensors is refused before it runs,
    // saying where fxlens looked and how to give them (check: one option per side).
    void missingConstantsSayWhereAndHow()
    {
        const QString input = kPytorch + "/gpt2_tiny.joint.code.py";
        FXL_REQUIRE_CORPUS(input);
        QTemporaryDir tmp;
        const QString lone = tmp.filePath("lone.py");
        FXL_EXPECT_EXIT(fxlens({"convert", input, "--to", "py", "-o", lone}), 0);
        const QString beside = tmp.filePath("lone.constants.safetensors");
        QVERIFY2(QFileInfo::exists(beside), "convert --to py wrote no constants beside the graph");
        QVERIFY(QFile::rename(beside, tmp.filePath("elsewhere.safetensors")));

        const Run run = fxlens({"run", lone});
        FXL_EXPECT_EXIT(run, 1);
        QVERIFY2(run.err.contains("fxlens looked for " + beside.toUtf8()), run.err.constData());
        QVERIFY2(run.err.contains("--constants FILE"), run.err.constData());
        QVERIFY2(run.err.contains("_tensor_constant0"), run.err.constData());

        const Run check = fxlens({"check", input, lone});
        FXL_EXPECT_EXIT(check, 1);
        QVERIFY2(check.err.contains("--constants-b FILE"), check.err.constData());

        // given on the command line, the same file makes both work
        const QString given = tmp.filePath("elsewhere.safetensors");
        FXL_EXPECT_EXIT(fxlens({"run", lone, "--constants", given}), 0);
        FXL_EXPECT_SAME_BITS(input, lone, {"--constants-b", given});

        // a constants file without the tensor: named as such
        const Run wrong = fxlens({"run", lone, "--constants", kPytorch + "/gpt2_tiny.inputs.safetensors"});
        FXL_EXPECT_EXIT(wrong, 1);
        QVERIFY2(wrong.err.contains("lack") && wrong.err.contains("_tensor_constant0"), wrong.err.constData());
    }

    // A step directory whose input had no constants says so and still writes the steps.
    void stepsWithoutConstantsWarn()
    {
        const QString input = kPytorch + "/gpt2_tiny.joint.code.py";
        FXL_REQUIRE_CORPUS(input);
        QTemporaryDir tmp;
        const QString copy = tmp.filePath("model.py");
        QVERIFY(QFile::copy(input, copy));
        const Run r = fxlens({"passes", "run", copy, "--pipeline", "dce", "--out", tmp.filePath("steps")});
        FXL_EXPECT_EXIT(r, 0);
        QVERIFY2(r.out.contains("were not written beside them") && r.out.contains("--constants FILE"),
                 r.out.constData());
        QVERIFY(QFileInfo::exists(tmp.filePath("steps/01_dce.py")));
        QVERIFY(!QFileInfo::exists(tmp.filePath("steps/01_dce.constants.safetensors")));
    }
};

FXL_TEST_GUILESS_MAIN(TestCliSteps)
}  // namespace test_cli_steps
#include "test_cli_steps.moc"

// The numbers every verb prints for the same graph agree, and the flows between verbs keep
// them (issue 10): one saved set (activations saved for backward, parameters and their views
// apart) in `passes`, `mem`, `info` and `run --json`; the saved set after remat is what the
// partitioner saves when it splits that step, and never larger than before; a partition's
// forward file says where its saved values start; a partition step checks against its joint
// (forward, then backward on the saved values and tangents); and a written .py keeps what the
// passes read, so any pipeline on a converted file gives what it gives on the original. Each
// row runs the fxlens binary on a real corpus graph, as a user would.
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_cli_numbers {

using namespace clitest;

namespace {

const QStringList kPolicies = {QStringLiteral("save_list"), QStringLiteral("alternate_mm"),
                               QStringLiteral("issue178935"), QStringLiteral("recompute_all"),
                               QStringLiteral("user,save=mm;addmm;bmm")};

// The traced joint graphs of the corpus (fwd+loss+bwd), the 100k-node one included. The
// sanitizer build (test.sh's second stage, 5-10x slower) runs two of them and not the large
// one: the release stage runs every row, and the code paths are the same.
std::vector<std::filesystem::path> joints(bool withLarge = true)
{
    std::vector<std::filesystem::path> out;
    for (const auto& p : fxltest::corpusFiles("pytorch", {".joint.code.py"})) {
        const std::string name = p.filename().string();
        if (!fxltest::kSanitizedBuild || name.starts_with("gpt2_tiny.") || name.starts_with("checkpoint_mlp.")
            || !name.ends_with(".joint.code.py"))
            out.push_back(p);
    }
    if (withLarge && !fxltest::kSanitizedBuild)
        for (const auto& p : fxltest::corpusFiles("pytorch/large", {".joint.code.py"})) out.push_back(p);
    return out;
}

// The sanitizer stage runs the step checks on gpt2_tiny alone (checkpoint_mlp, its second
// traced joint, takes the same paths there).
bool sanitizerSkipsSecondJoint(const std::filesystem::path& j)
{
    return fxltest::kSanitizedBuild && j.filename().string().starts_with("checkpoint_mlp.");
}

// The joint graphs among the fx dumps: Megatron tensor-parallel steps with collectives and
// custom ops, and an AOT joint with tangent inputs.
constexpr const char* kFxJoints[] = {"fx/entangle_megatron_gpt_tp1_fwd_bwd_both.g0.r0.txt",
                                     "fx/entangle_megatron_gpt_tp2_fwd_bwd_both.g0.r0.txt",
                                     "fx/tlparse_v2.9dev_mlp_aot_joint_graph_expanded.txt"};

QString q(const std::filesystem::path& p) { return QString::fromStdString(p.string()); }

// Runs fxlens and returns its JSON document; fails the test (returns {}) on a nonzero exit.
QJsonObject jsonOf(const QStringList& args, int expectedExit = 0)
{
    const Run r = fxlens(args);
    if (r.crashed || r.exitCode != expectedExit) {
        qWarning("fxlens %s: exit %d\n%s", qPrintable(args.join(' ')), r.exitCode, r.err.constData());
        return {};
    }
    return parseJsonDoc(r.out);
}

// mem --json's saved values: activations and resident inputs, by name.
struct SavedSet
{
    QSet<QString> activations, inputs;
    qint64 bytes = -1, peak = -1;
    bool boundary = false;
};

SavedSet memSaved(const QString& graph)
{
    SavedSet s;
    const QJsonObject t = jsonOf({QStringLiteral("mem"), QStringLiteral("--json"), graph})["timeline"].toObject();
    if (t.isEmpty()) return s;
    s.bytes = t["saved"]["bytes"].toInteger();
    s.peak = t["peak"]["bytes"].toInteger();
    s.boundary = !t["boundary"].isNull();
    for (const auto& v : t["saved"]["values"].toArray()) {
        const QJsonObject o = v.toObject();
        (o["input_backed"].toBool() ? s.inputs : s.activations).insert(o["node"].toString());
    }
    return s;
}

QString listed(const QSet<QString>& s)
{
    QStringList l(s.begin(), s.end());
    l.sort();
    return l.join(QStringLiteral(", "));
}

}  // namespace

class TestCliNumbers : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo(kFxlensBinary).isExecutable(), qPrintable("fxlens binary missing: " + kFxlensBinary));
    }

    // Items 1 and 2: after remat, mem's saved set is what partition(save_all) saves when it
    // splits that step (read back from the forward file, whose output descriptors mark the
    // saved values), and the saved bytes never grow.
    void savedAfterRemat_data()
    {
        QTest::addColumn<QString>("joint");
        QTest::addColumn<QString>("policy");
        std::vector<std::filesystem::path> graphs = joints();
        for (const char* f : kFxJoints) graphs.push_back(fxltest::corpusPath(f));
        for (const auto& j : graphs)
            for (const QString& p : kPolicies) {
                // the 100k-node graph with one policy: the others cost a minute and add no path
                if (j.parent_path().filename() == "large" && p != kPolicies.front()) continue;
                // the sanitizer stage: the fx dumps with one policy (the others run on the traced joints)
                if (fxltest::kSanitizedBuild && j.parent_path().filename() == "fx" && p != kPolicies.front()) continue;
                QTest::newRow(qPrintable(QString::fromStdString(fxltest::corpusRowName(j)) + " "
                                         + QString(p).replace(QLatin1Char(';'), QLatin1Char('+'))))
                    << q(j) << p;
            }
    }

    void savedAfterRemat()
    {
        FXL_SANITIZER_ROWS(4);
        QFETCH(QString, joint);
        QFETCH(QString, policy);
        FXL_REQUIRE_CORPUS(joint);
        QTemporaryDir dir;
        const QString steps = dir.filePath(QStringLiteral("steps")), split = dir.filePath(QStringLiteral("split"));
        const QJsonObject r =
            jsonOf({QStringLiteral("passes"), QStringLiteral("run"), joint, QStringLiteral("--pipeline"),
                    "sac(policy=" + policy + "),remat", QStringLiteral("--out"), steps, QStringLiteral("--json")});
        QVERIFY(!r.isEmpty());
        const SavedSet before = memSaved(steps + QStringLiteral("/00_input.py"));
        const SavedSet after = memSaved(steps + QStringLiteral("/02_remat.py"));
        // passes prints, per step, what mem prints for the step's file
        for (const auto& [k, m] : {std::pair{0, &before}, std::pair{2, &after}}) {
            const QJsonObject g = r["steps"][k]["graphs"][0].toObject();
            QCOMPARE(g["peak_bytes"].toInteger(), m->peak);
            QCOMPARE(g["saved_bytes"].toInteger(), m->bytes);
            QCOMPARE(g["saved_activations"].toInteger(), qint64(m->activations.size()));
            QCOMPARE(g["saved_inputs"].toInteger(), qint64(m->inputs.size()));
        }
        QVERIFY(before.boundary && after.boundary);
        QVERIFY2(after.bytes <= before.bytes,
                 qPrintable(QStringLiteral("saved bytes grew: %1 -> %2").arg(before.bytes).arg(after.bytes)));
        // no recomputed node is a forward value
        for (const QString& n : after.activations)
            QVERIFY2(!n.contains(QStringLiteral("_recomputed")), qPrintable("saved: " + n));

        const QJsonObject p =
            jsonOf({QStringLiteral("passes"), QStringLiteral("run"), steps + QStringLiteral("/02_remat.py"),
                    QStringLiteral("--pipeline"), QStringLiteral("partition(mode=save_all)"), QStringLiteral("--out"),
                    split, QStringLiteral("--json")});
        QVERIFY(!p.isEmpty());
        const QJsonObject stats = p["steps"][1]["stats"].toObject();
        const SavedSet fw = memSaved(split + QStringLiteral("/01_partition.forward.py"));
        QVERIFY2(fw.boundary, "mem found no boundary in the partition's forward file");
        QVERIFY2(fw.activations == after.activations,
                 qPrintable("mem on the remat step: " + listed(after.activations)
                            + "\npartition saves: " + listed(fw.activations)));
        QVERIFY2(
            fw.inputs == after.inputs,
            qPrintable("mem on the remat step: " + listed(after.inputs) + "\npartition saves: " + listed(fw.inputs)));
        QCOMPARE(fw.bytes, after.bytes);
        // the pass prints the same numbers
        QCOMPARE(stats["saved_activations"].toInteger(), qint64(fw.activations.size()));
        QCOMPARE(stats["saved_activation_bytes"].toInteger(), fw.bytes);
        QCOMPARE(stats["saved_inputs"].toInteger(), qint64(fw.inputs.size()));
        const QJsonObject fwStep = p["steps"][1]["graphs"][0].toObject();
        QCOMPARE(fwStep["role"].toString(), QStringLiteral("forward"));
        QCOMPARE(fwStep["peak_bytes"].toInteger(), fw.peak);
        QCOMPARE(fwStep["saved_bytes"].toInteger(), fw.bytes);
    }

    // Items 2 and 3: info, mem and run --json print the same peak and saved numbers, and
    // info's activations are the storages mem allocates (Dynamo graphs included).
    void sameNumbersEverywhere_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("graph");
        for (const auto& j : fxltest::corpusFiles("pytorch", {".joint.code.py", ".fw.mincut.code.py"})) {
            // the sanitizer stage: gpt2_tiny's two files (the release stage: all)
            if (fxltest::kSanitizedBuild && j.filename().string().rfind("gpt2_tiny.", 0) != 0
                && j.filename().string().find(".code.py") != std::string::npos)
                continue;
            QTest::newRow(fxltest::corpusRowName(j).c_str()) << q(j) << QString();
        }
        for (const char* f :
             {"fx/tlparse_v2.9dev_mlp_dynamo_output_graph.txt", "fx/tlparse_v2.9dev_mlp_aot_forward_graph_expanded.txt",
              "fx/tlparse_v2.9dev_mlp_aot_joint_graph_expanded.txt"})
            QTest::newRow(f) << q(fxltest::corpusPath(f)) << QString();
        QTest::newRow("tlparse/simple.log graph 12")
            << q(fxltest::corpusPath("tlparse/simple.log")) << QStringLiteral("12");
    }

    void sameNumbersEverywhere()
    {
        QFETCH(QString, file);
        QFETCH(QString, graph);
        FXL_REQUIRE_CORPUS(file);
        QStringList sel;
        if (!graph.isEmpty()) sel << QStringLiteral("--graph") << graph;
        const QJsonObject mem = jsonOf(QStringList{QStringLiteral("mem"), QStringLiteral("--json"), file} + sel);
        QVERIFY(!mem.isEmpty());
        const QJsonObject t = mem["timeline"].toObject();
        qint64 allocatedStorages = 0, allocatedBytes = 0;
        for (const auto& s : t["storages"].toArray())
            if (!s.toObject()["input"].toBool()) {
                ++allocatedStorages;
                allocatedBytes += s.toObject()["bytes"].toInteger();
            }
        const QJsonObject saved = t["saved"].toObject();

        const QJsonObject info = jsonOf(QStringList{QStringLiteral("info"), QStringLiteral("--json"), file} + sel);
        QVERIFY(!info.isEmpty());
        const QJsonObject gi = [&] {
            for (const auto& g : info["sources"][0]["graph_info"].toArray())
                if (graph.isEmpty() || g.toObject()["id"].toString() == graph) return g.toObject();
            return QJsonObject();
        }();
        QVERIFY(!gi.isEmpty());
        QCOMPARE(gi["activations"]["tensors"].toInteger(), allocatedStorages);
        QCOMPARE(gi["activations"]["bytes"].toInteger(), allocatedBytes);
        QCOMPARE(gi["memory"]["peak_bytes"].toInteger(), t["peak"]["bytes"].toInteger());
        QCOMPARE(gi["memory"]["boundary"].isNull(), t["boundary"].isNull());
        QCOMPARE(gi["memory"]["saved_bytes"].toInteger(), saved["bytes"].toInteger());
        QCOMPARE(gi["memory"]["saved_activations"].toInteger(), saved["activations"].toInteger());
        QCOMPARE(gi["memory"]["saved_inputs"].toInteger(), saved["inputs"].toInteger());

        const Run r = fxlens(QStringList{QStringLiteral("run"), QStringLiteral("--json"), file,
                                         QStringLiteral("--seed"), QStringLiteral("1")}
                             + sel);
        if (r.exitCode != 0) {
            // graphs the CPU runtime cannot run (info says why): the estimate is not printed
            QVERIFY2(!gi["runs_on_cpu"].toBool(), r.err.constData());
            return;
        }
        const QJsonObject est = parseJsonDoc(r.out)["estimate"].toObject();
        QCOMPARE(est["peak_bytes"].toInteger(), t["peak"]["bytes"].toInteger());
        QCOMPARE(est["saved_bytes"].toInteger(), saved["bytes"].toInteger());
        QCOMPARE(est["saved_activations"].toInteger(), saved["activations"].toInteger());
        QCOMPARE(est["saved_inputs"].toInteger(), saved["inputs"].toInteger());
    }

    // Item 2: mem on fxlens' own forward file finds the boundary without --forward-outputs,
    // with the numbers --forward-outputs N gives.
    void forwardFileRecordsItsBoundary()
    {
        const QString joint = q(fxltest::corpusPath("pytorch/gpt2_tiny.joint.code.py"));
        FXL_REQUIRE_CORPUS(joint);
        QTemporaryDir dir;
        const QJsonObject p = jsonOf({QStringLiteral("passes"), QStringLiteral("run"), joint,
                                      QStringLiteral("--pipeline"), QStringLiteral("partition(mode=save_all)"),
                                      QStringLiteral("--out"), dir.path(), QStringLiteral("--json")});
        QVERIFY(!p.isEmpty());
        const QString fw = dir.filePath(QStringLiteral("01_partition.forward.py"));
        const QByteArray text = readFile(fw);
        QVERIFY(text.contains("# SavedForBackwardsAOTOutput(idx=0)"));
        QVERIFY(text.contains("# PlainAOTOutput(idx=0)"));
        const Run own = fxlens({QStringLiteral("mem"), fw});
        QVERIFY2(own.exitCode == 0, own.err.constData());
        QVERIFY2(!own.out.contains("no fw/bw boundary"), own.out.constData());
        QVERIFY(own.out.contains("boundary: output descriptors"));
        const Run given = fxlens({QStringLiteral("mem"), fw, QStringLiteral("--forward-outputs"), QStringLiteral("1")});
        QVERIFY2(given.exitCode == 0, given.err.constData());
        QCOMPARE(own.out.split('\n').at(0), given.out.split('\n').at(0));
        // the pass's own summary line counts as mem does
        const QJsonObject stats = p["steps"][1]["stats"].toObject();
        const SavedSet s = memSaved(fw);
        QCOMPARE(stats["saved_activation_bytes"].toInteger(), s.bytes);
        QCOMPARE(stats["saved_activations"].toInteger(), qint64(s.activations.size()));
    }

    // Item 4: a partition step checks against its joint, bitwise, in every mode; given the
    // forward file, the backward file, or --backward.
    void checkPartitionStep_data()
    {
        QTest::addColumn<QString>("joint");
        QTest::addColumn<QString>("pipeline");
        std::vector<std::filesystem::path> graphs = joints(false);
        graphs.push_back(fxltest::corpusPath(kFxJoints[2]));  // tangents fed from A's inputs
        for (const auto& j : graphs)
            for (const char* p : {"partition(mode=save_all)", "sac,partition(mode=tagged)", "partition(mode=mincut)"}) {
                if (sanitizerSkipsSecondJoint(j)) continue;
                QTest::newRow(qPrintable(QString::fromStdString(fxltest::corpusRowName(j)) + " "
                                         + QString(p).replace(QLatin1Char(';'), QLatin1Char('+'))))
                    << q(j) << p;
            }
    }

    void checkPartitionStep()
    {
        FXL_SANITIZER_ROWS(4);
        QFETCH(QString, joint);
        QFETCH(QString, pipeline);
        FXL_REQUIRE_CORPUS(joint);
        QTemporaryDir dir;
        const Run r = fxlens({QStringLiteral("passes"), QStringLiteral("run"), joint, QStringLiteral("--pipeline"),
                              pipeline, QStringLiteral("--out"), dir.path()});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QString stem = dir.filePath(pipeline.startsWith(QStringLiteral("sac")) ? QStringLiteral("02_partition")
                                                                                     : QStringLiteral("01_partition"));
        const QString fw = stem + QStringLiteral(".forward.py"), bw = stem + QStringLiteral(".backward.py");
        for (const QStringList& b :
             {QStringList{fw}, QStringList{bw}, QStringList{fw, QStringLiteral("--backward"), bw}}) {
            const QJsonObject c = jsonOf(QStringList{QStringLiteral("check"), QStringLiteral("--json"), joint} + b);
            QVERIFY(!c.isEmpty());
            QCOMPARE(c["mapped_by"].toString(), QStringLiteral("partition"));
            QCOMPARE(c["result"].toString(), QStringLiteral("bitwise_equal"));
            QVERIFY(c["report"]["outputs"].toArray().size() > 1);  // the loss and the gradients
            QVERIFY(c["report"]["only_in_a"].toArray().isEmpty());
            QVERIFY(c["report"]["only_in_b"].toArray().isEmpty());
            QVERIFY(c["b"]["saved_fed"].toInteger() > 0);
            QCOMPARE(c["b"]["backward"]["generated_inputs"].toArray().size(), 0);
        }
        // outputs paired by position no longer: a forward alone against the joint was the mistake
        const Run text = fxlens({QStringLiteral("check"), joint, fw});
        QVERIFY2(text.exitCode == 0, text.out.constData());
        QVERIFY(text.out.contains("then the backward's"));
        QVERIFY(!text.out.contains("dtype differs") && !text.out.contains("shape differs"));
    }

    // Item 5: a converted file (and every written step) keeps module paths, phases and
    // provenance, so a pipeline on it gives what it gives on the original.
    void convertedFileGivesTheSameResult_data()
    {
        QTest::addColumn<QString>("joint");
        QTest::addColumn<QString>("pipeline");
        for (const auto& j : joints(false))
            for (const char* p : {"annotate_regions,sac,remat", "sac(policy=recompute_all),remat", "cse,dce",
                                  "partition(mode=mincut)"}) {
                if (sanitizerSkipsSecondJoint(j)) continue;
                QTest::newRow(qPrintable(QString::fromStdString(fxltest::corpusRowName(j)) + " "
                                         + QString(p).replace(QLatin1Char(';'), QLatin1Char('+'))))
                    << q(j) << p;
            }
    }

    void convertedFileGivesTheSameResult()
    {
        FXL_SANITIZER_ROWS(4);
        QFETCH(QString, joint);
        QFETCH(QString, pipeline);
        FXL_REQUIRE_CORPUS(joint);
        QTemporaryDir dir;
        const QString converted = dir.filePath(QStringLiteral("converted.py"));
        Run r = fxlens({QStringLiteral("convert"), joint, QStringLiteral("--to"), QStringLiteral("py"),
                        QStringLiteral("-o"), converted});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        // nothing the diff sees changed
        const QJsonObject d = jsonOf({QStringLiteral("diff"), QStringLiteral("--json"), joint, converted});
        QVERIFY(!d.isEmpty());
        QCOMPARE(d["diff"]["counts"]["changed"].toInt(), 0);
        QCOMPARE(d["diff"]["counts"]["added"].toInt(), 0);
        QCOMPARE(d["diff"]["counts"]["removed"].toInt(), 0);

        auto summary = [&](const QString& in, const QString& out) {
            return jsonOf({QStringLiteral("passes"), QStringLiteral("run"), in, QStringLiteral("--pipeline"), pipeline,
                           QStringLiteral("--out"), out, QStringLiteral("--json")});
        };
        const QJsonObject a = summary(joint, dir.filePath(QStringLiteral("a")));
        const QJsonObject b = summary(converted, dir.filePath(QStringLiteral("b")));
        QVERIFY(!a.isEmpty() && !b.isEmpty());
        const QJsonArray sa = a["steps"].toArray(), sb = b["steps"].toArray();
        QCOMPARE(sb.size(), sa.size());
        for (qsizetype k = 0; k < sa.size(); ++k) {
            const QJsonObject x = sa[k].toObject(), y = sb[k].toObject();
            QCOMPARE(y["nodes"].toInteger(), x["nodes"].toInteger());
            QCOMPARE(y["changes"].toObject(), x["changes"].toObject());
            QCOMPARE(y["stats"].toObject(), x["stats"].toObject());
        }
        // the final step files are the same graph
        const QJsonArray files = sa.last().toObject()["files"].toArray();
        const QString last = files.first().toString();
        const QJsonObject dd =
            jsonOf({QStringLiteral("diff"), QStringLiteral("--json"), dir.filePath(QStringLiteral("a/") + last),
                    dir.filePath(QStringLiteral("b/") + last)});
        QVERIFY(!dd.isEmpty());
        QCOMPARE(dd["diff"]["counts"]["changed"].toInt(), 0);
        QCOMPARE(dd["diff"]["counts"]["added"].toInt(), 0);
        QCOMPARE(dd["diff"]["counts"]["removed"].toInt(), 0);
    }

    // Item 14: without --threads a run of small kernels uses one thread (a second thread only
    // adds hand-offs: tests/bench/RESULTS.md, "The default thread count"), and says why;
    // --threads still decides when given.
    void defaultThreads_data()
    {
        QTest::addColumn<QString>("graph");
        for (const auto& j : joints()) QTest::newRow(fxltest::corpusRowName(j).c_str()) << q(j);
    }

    void defaultThreads()
    {
        QFETCH(QString, graph);
        FXL_REQUIRE_CORPUS(graph);
        const QJsonObject d = jsonOf({QStringLiteral("run"), QStringLiteral("--json"), graph});
        QVERIFY(!d.isEmpty());
        QCOMPARE(d["threads"].toInt(), 1);
        QVERIFY2(d["threads_rule"].toString().startsWith(QStringLiteral("auto: 0 of ")),
                 qPrintable(d["threads_rule"].toString()));
        const QJsonObject given = jsonOf(
            {QStringLiteral("run"), QStringLiteral("--json"), graph, QStringLiteral("--threads"), QStringLiteral("2")});
        QCOMPARE(given["threads"].toInt(), 2);
        QCOMPARE(given["threads_rule"].toString(), QStringLiteral("given"));
        const Run text = fxlens({QStringLiteral("run"), graph});
        QVERIFY(text.out.contains("1 thread (auto: 0 of "));
        const QJsonObject check = jsonOf({QStringLiteral("check"), QStringLiteral("--json"), graph, graph});
        QCOMPARE(check["threads"].toInt(), 1);
    }

    // Item 5: running remat again on a written remat step finds nothing to do, as a second
    // remat does inside one pipeline.
    void rematOnItsOwnStepIsNoOp()
    {
        const QString joint = q(fxltest::corpusPath("pytorch/gpt2_tiny.joint.code.py"));
        FXL_REQUIRE_CORPUS(joint);
        QTemporaryDir dir;
        const QString first = dir.filePath(QStringLiteral("first")), second = dir.filePath(QStringLiteral("second"));
        const QString pipeline = QStringLiteral("sac(policy=recompute_all),remat");
        Run r = fxlens({QStringLiteral("passes"), QStringLiteral("run"), joint, QStringLiteral("--pipeline"), pipeline,
                        QStringLiteral("--out"), first});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject again =
            jsonOf({QStringLiteral("passes"), QStringLiteral("run"), first + QStringLiteral("/02_remat.py"),
                    QStringLiteral("--pipeline"), pipeline, QStringLiteral("--out"), second, QStringLiteral("--json")});
        QVERIFY(!again.isEmpty());
        QCOMPARE(again["steps"][2]["changes"]["added"].toInt(), 0);
        QVERIFY(!readFile(second + QStringLiteral("/02_remat.py")).contains("_recomputed_1"));
        // the written file names phases and module paths in fxlens' comment
        const QByteArray text = readFile(first + QStringLiteral("/02_remat.py"));
        QVERIFY(text.contains("# fxlens: {'module': 'h.0.attn'") || text.contains("'phase': 'backward'"));
        QVERIFY(text.contains("'provenance': '"));
    }
};

FXL_TEST_GUILESS_MAIN(TestCliNumbers)
}  // namespace test_cli_numbers
#include "test_cli_numbers.moc"

// What the memory passes may touch and which graphs they apply to (issue 10, items 10-12),
// through the fxlens binary over the real graphs of the corpus (fx dumps, pytorch traces and
// every graph of the TORCH_TRACE logs):
//  - sac + remat and partition(mode=tagged) never run a side effect (logging, mutating wrappers,
//    in-place ops), a collective or an op fxlens does not know a second time in the backward,
//    unless a policy names it on purpose (sac's recompute=...); remat saves such nodes tagged
//    PREFER_RECOMPUTE by hand, saying so;
//  - cse never merges a backward node into a forward value nor collectives unless asked
//    (across_phases=true, collectives=true), and notes what it refused;
//  - sac and remat refuse a graph without a backward (forward-only, inference, post-grad, Dynamo)
//    or one that is all backward, saying what the graph is, with exit code 1.
// The expectations come from the files (names, artifact kinds, `fxlens info`'s unknown
// operators, `fxlens mem`'s node order), not from the passes' own predicates.
#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

#include "core/formats/fx/fx_text_parser.hpp"

#include "cli_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_cli_pass_scope {

using namespace clitest;

namespace {

const QString kTp1 = QStringLiteral("fx/entangle_megatron_gpt_tp1_fwd_bwd_both.g0.r0.txt");
const QString kTp2 = QStringLiteral("fx/entangle_megatron_gpt_tp2_fwd_bwd_both.g0.r0.txt");
const QString kCheckpointMlp = QStringLiteral("pytorch/checkpoint_mlp.joint.code.py");

QString corpus(const QString& relative)
{
    return QString::fromStdString(fxltest::corpusPath(relative.toStdString()).string());
}

using clitest::describe;

// What a graph is, by its file name or its artifact kind in a log.
enum class Shape
{
    Joint,  // forward + loss + backward (or an AOT joint)
    NoBackward,  // forward-only, inference, post-grad, Dynamo
    BackwardOnly,  // an AOT backward graph
};

Shape shapeOf(const QString& file, const QString& kind)
{
    if (kind == QLatin1String("aot_joint_graph")) return Shape::Joint;
    if (kind == QLatin1String("aot_backward_graph")) return Shape::BackwardOnly;
    if (kind != QLatin1String("graph")) return Shape::NoBackward;  // a log's other artifacts
    const QString name = QFileInfo(file).fileName();
    if (name.contains(QLatin1String(".joint.")) || name.contains(QLatin1String("joint_graph"))
        || name.contains(QLatin1String("fwd_bwd")))
        return Shape::Joint;
    if (name.contains(QLatin1String(".bw.")) || name.contains(QLatin1String("backward_graph")))
        return Shape::BackwardOnly;
    return Shape::NoBackward;
}

struct CorpusGraph
{
    QString file, id, kind;  // id "" for a file with one graph
    QStringList unknownOps;  // normalized targets fxlens does not know ("tg.log_tensor.default")
    QString row() const
    {
        const QString rel = QString::fromStdString(fxltest::corpusRowName(file.toStdString()));
        return id.isEmpty() ? rel : rel + QStringLiteral(" #") + id + QStringLiteral(" ") + kind;
    }
    QStringList graphArgs() const { return id.isEmpty() ? QStringList{} : QStringList{QStringLiteral("--graph"), id}; }
};

// Every graph of the corpus: fx/ dumps and logs, pytorch/ traces (code and listings; not the
// 100k-node large/ graphs, which test_cli_mistakes runs), and each graph of the tlparse/ logs,
// as `fxlens info --json` lists them. An absent corpus gives one row naming it (it skips).
QList<CorpusGraph> listCorpusGraphs()
{
    QStringList files;
    for (const auto& p : fxltest::corpusFiles("fx", {".txt", ".log"})) files << QString::fromStdString(p.string());
    for (const auto& p : fxltest::corpusFiles("pytorch", {".code.py", ".graph.txt"}))
        files << QString::fromStdString(p.string());
    const QString tlparse = corpus(QStringLiteral("tlparse"));
    if (QFileInfo(tlparse).isDir()) {
        QDirIterator it(tlparse, {QStringLiteral("*.log"), QStringLiteral("*.txt")}, QDir::Files,
                        QDirIterator::Subdirectories);
        QStringList logs;
        while (it.hasNext()) logs << it.next();
        logs.sort();
        files << logs;
    } else {
        files << tlparse;
    }
    QList<CorpusGraph> out;
    for (const QString& f : files) {
        if (!QFileInfo::exists(f)) {
            out.append({f, QString(), QStringLiteral("graph"), {}});
            continue;
        }
        const Run info = fxlens({QStringLiteral("info"), f, QStringLiteral("--json")});
        const QJsonObject doc = parseJsonDoc(info.out);
        for (const QJsonValue& s : doc.value(QStringLiteral("sources")).toArray()) {
            const QJsonArray graphs = s.toObject().value(QStringLiteral("graph_info")).toArray();
            for (const QJsonValue& gv : graphs) {
                const QJsonObject g = gv.toObject();
                CorpusGraph cg{f,
                               graphs.size() > 1
                                       || s.toObject().value(QStringLiteral("format")).toString()
                                           == QLatin1String("torch-trace")
                                   ? g.value(QStringLiteral("id")).toString()
                                   : QString(),
                               g.value(QStringLiteral("kind")).toString(),
                               {}};
                for (const QJsonValue& u : g.value(QStringLiteral("unknown_operators")).toArray())
                    cg.unknownOps << u.toString();
                out.append(cg);
            }
        }
    }
    return out;
}

// The list once per run (three data functions read it).
const QList<CorpusGraph>& corpusGraphs()
{
    static const QList<CorpusGraph> graphs = listCorpusGraphs();
    return graphs;
}

QString normalizedTarget(std::string t)
{
    if (t.rfind("torch.ops.", 0) == 0) t.erase(0, 10);
    return QString::fromStdString(t);
}

// A call that must not run twice, by its target: logging, mutating wrappers, in-place and out=
// overloads, collectives and their waits, and what fxlens does not know.
bool mustNotRunTwice(const QString& target, const QStringList& unknownOps)
{
    static const QRegularExpression collective(
        QStringLiteral("^(_c10d_functional|c10d_functional|_c10d_functional_autograd|c10d|_c10d)\\.|wait_tensor|"
                       "torch\\.distributed\\."));
    static const QRegularExpression effect(QStringLiteral("log_tensor|auto_functionalized|with_effects"));
    static const QRegularExpression inplace(QStringLiteral("^[A-Za-z_0-9]+\\.[A-Za-z_0-9]*[a-z0-9]_\\.|\\.out$"));
    return collective.match(target).hasMatch() || effect.match(target).hasMatch() || inplace.match(target).hasMatch()
        || unknownOps.contains(target) || unknownOps.contains(target + QStringLiteral(".default"));
}

QHash<QString, QString> targetsOf(const QString& pyFile)
{
    QHash<QString, QString> out;
    const fxl::Graph g = fxl::parseFxText(readFile(pyFile).toStdString(), pyFile.toStdString());
    g.forEachNode([&](const fxl::Node& n) {
        if (n.op == fxl::NodeOp::CallFunction) out.insert(QString::fromStdString(n.name), normalizedTarget(n.target));
    });
    return out;
}

// `passes run` with --out and --json; the parsed document ({} when it failed).
QJsonObject runPasses(const CorpusGraph& g, const QString& pipeline, const QString& out, Run* run = nullptr)
{
    const Run r = fxlens(
        QStringList{QStringLiteral("passes"), QStringLiteral("run"), g.file} + g.graphArgs()
        + QStringList{QStringLiteral("--pipeline"), pipeline, QStringLiteral("--out"), out, QStringLiteral("--json")});
    if (run) *run = r;
    if (r.crashed || r.exitCode != 0) return {};
    return parseJsonDoc(r.out);
}

QJsonObject stepNamed(const QJsonObject& doc, const QString& pass)
{
    for (const QJsonValue& s : doc.value(QStringLiteral("steps")).toArray())
        if (s.toObject().value(QStringLiteral("pass")).toString() == pass) return s.toObject();
    return {};
}

QString stepFile(const QJsonObject& step, const QString& suffix)
{
    for (const QJsonValue& f : step.value(QStringLiteral("files")).toArray())
        if (f.toString().endsWith(suffix)) return f.toString();
    return {};
}

QString notesOf(const QJsonObject& step)
{
    QStringList out;
    for (const QJsonValue& n : step.value(QStringLiteral("notes")).toArray()) out << n.toString();
    return out.join('\n');
}

// The forward nodes recomputed in the backward by the last remat or partition step of `doc`,
// as "name (target)" for those that must not run twice.
QStringList recomputedThatMustNotRunTwice(const QJsonObject& doc, const QString& out, const QStringList& unknownOps,
                                          int* recomputed = nullptr)
{
    QStringList bad;
    int count = 0;
    const QJsonObject remat = stepNamed(doc, QStringLiteral("remat"));
    const QJsonObject partition = stepNamed(doc, QStringLiteral("partition"));
    if (!remat.isEmpty()) {
        const QString py = out + '/' + stepFile(remat, QStringLiteral(".py"));
        const QHash<QString, QString> targets = targetsOf(py);
        const QJsonObject log = parseJsonDoc(readFile(out + '/' + stepFile(remat, QStringLiteral(".changes.json"))));
        for (const QJsonValue& a : log.value(QStringLiteral("added")).toArray()) {
            const QString name = a.toObject().value(QStringLiteral("node")).toString();
            ++count;
            if (mustNotRunTwice(targets.value(name), unknownOps)) bad << name + " (" + targets.value(name) + ")";
        }
    }
    if (!partition.isEmpty()) {
        const QHash<QString, QString> targets = targetsOf(out + QStringLiteral("/00_input.py"));
        for (const QJsonValue& v : partition.value(QStringLiteral("stats")).toObject().value("recomputed").toArray()) {
            const QString name = v.toString();
            ++count;
            if (mustNotRunTwice(targets.value(name), unknownOps)) bad << name + " (" + targets.value(name) + ")";
        }
    }
    if (recomputed) *recomputed = count;
    return bad;
}

CorpusGraph single(const QString& relative)
{
    CorpusGraph g{corpus(relative), QString(), QStringLiteral("graph"), {}};
    const Run info = fxlens({QStringLiteral("info"), g.file, QStringLiteral("--json")});
    for (const QJsonValue& s : parseJsonDoc(info.out).value(QStringLiteral("sources")).toArray())
        for (const QJsonValue& gi : s.toObject().value(QStringLiteral("graph_info")).toArray())
            for (const QJsonValue& u : gi.toObject().value(QStringLiteral("unknown_operators")).toArray())
                g.unknownOps << u.toString();
    return g;
}

// Node name -> phase and position from `fxlens mem --csv` (core's memory timeline, its own
// forward/backward rule), and the position of its first backward node.
struct Timeline
{
    QHash<QString, int> position;
    int firstBackward = -1;
};

Timeline timelineOf(const CorpusGraph& g)
{
    Timeline t;
    const Run r = fxlens(QStringList{QStringLiteral("mem"), g.file} + g.graphArgs()
                         + QStringList{QStringLiteral("--csv"), QStringLiteral("-")});
    const QList<QByteArray> lines = r.out.split('\n');
    for (int i = 1; i < lines.size(); ++i) {
        const QList<QByteArray> cols = lines[i].split(',');
        if (cols.size() < 5) continue;
        t.position.insert(QString::fromUtf8(cols[1]), i - 1);
        if (t.firstBackward < 0 && cols[4] == "backward") t.firstBackward = i - 1;
    }
    return t;
}

qint64 boundaryBytes(const QString& file)
{
    const Run r = fxlens({QStringLiteral("mem"), file, QStringLiteral("--json")});
    return qint64(parseJsonDoc(r.out)
                      .value(QStringLiteral("timeline"))
                      .toObject()
                      .value(QStringLiteral("boundary"))
                      .toObject()
                      .value(QStringLiteral("live_bytes"))
                      .toDouble(-1));
}

qint64 peakBytes(const QString& file)
{
    const Run r = fxlens({QStringLiteral("mem"), file, QStringLiteral("--json")});
    return qint64(parseJsonDoc(r.out)
                      .value(QStringLiteral("timeline"))
                      .toObject()
                      .value(QStringLiteral("peak"))
                      .toObject()
                      .value(QStringLiteral("bytes"))
                      .toDouble(-1));
}

}  // namespace

}  // namespace test_cli_pass_scope
Q_DECLARE_METATYPE(test_cli_pass_scope::CorpusGraph)
namespace test_cli_pass_scope {

class TestCliPassScope : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo(kFxlensBinary).isExecutable(), qPrintable("fxlens binary missing: " + kFxlensBinary));
    }

    // ------------------------------------------------------------------ item 10

    // No policy recomputes a side effect, a collective or an unknown op, on any graph with a
    // backward: sac + remat, and partition(mode=tagged) with and without sac's tags.
    void noRecomputedSideEffects_data()
    {
        QTest::addColumn<CorpusGraph>("graph");
        QTest::addColumn<QString>("pipeline");
        const QStringList pipelines{QStringLiteral("sac(policy=recompute_all),remat"),
                                    QStringLiteral("sac(policy=save_list),remat"),
                                    QStringLiteral("sac(policy=alternate_mm),remat"),
                                    QStringLiteral("sac(policy=user,save=mm),remat"),
                                    QStringLiteral("sac(policy=recompute_all),partition(mode=tagged)"),
                                    QStringLiteral("partition(mode=tagged)")};
        for (const CorpusGraph& g : corpusGraphs()) {
            if (QFileInfo::exists(g.file) && shapeOf(g.file, g.kind) != Shape::Joint) continue;
            // the sanitizer stage (5-10x slower) runs the graph with side effects and
            // collectives (Megatron at tp2); the release stage runs every joint
            if (fxltest::kSanitizedBuild && QFileInfo::exists(g.file)
                && !g.file.contains(QLatin1String("megatron_gpt_tp2")))
                continue;
            for (const QString& p : pipelines) QTest::newRow(qPrintable(g.row() + " | " + p)) << g << p;
        }
    }
    void noRecomputedSideEffects()
    {
        FXL_SANITIZER_ROWS(2);
        QFETCH(CorpusGraph, graph);
        QFETCH(QString, pipeline);
        FXL_REQUIRE_CORPUS(graph.file);
        QTemporaryDir tmp;
        const QString out = tmp.filePath(QStringLiteral("steps"));
        Run run;
        const QJsonObject doc = runPasses(graph, pipeline, out, &run);
        QVERIFY2(!doc.isEmpty(), qPrintable(describe(run)));
        const QStringList bad = recomputedThatMustNotRunTwice(doc, out, graph.unknownOps);
        QVERIFY2(bad.isEmpty(),
                 qPrintable(QStringLiteral("%1 recomputed in the backward: %2")
                                .arg(bad.size())
                                .arg(bad.mid(0, 12).join(QStringLiteral(", ")))));
    }

    // The Megatron graphs of the issue: what sac saves whatever the policy, and that remat and
    // the tagged partition still recompute the rest (the check above is not vacuous there).
    void megatronKeepsSideEffectsSaved_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("collectives");  // forward collectives sac saves
        QTest::newRow("tp1") << kTp1 << 10;
        QTest::newRow("tp2") << kTp2 << 16;
    }
    void megatronKeepsSideEffectsSaved()
    {
        QFETCH(QString, file);
        QFETCH(int, collectives);
        const CorpusGraph g = single(file);
        FXL_REQUIRE_CORPUS(g.file);
        for (const char* spec :
             {"sac(policy=recompute_all),remat", "sac(policy=recompute_all),partition(mode=tagged)"}) {
            QTemporaryDir tmp;
            const QString out = tmp.filePath(QStringLiteral("steps"));
            Run run;
            const QJsonObject doc = runPasses(g, QLatin1String(spec), out, &run);
            QVERIFY2(!doc.isEmpty(), qPrintable(describe(run)));
            const QJsonObject sac = stepNamed(doc, QStringLiteral("sac"));
            const QJsonObject kept = sac.value(QStringLiteral("stats")).toObject().value("kept_saved").toObject();
            // 5 tg.log_tensor and 20 auto_functionalized_v2(tg.inplace_log_tensor); the broadcasts,
            // all_reduces (and on tp2 the all_gathers and reduce_scatters); 4 apex layer norms
            QCOMPARE(kept.value(QStringLiteral("side_effect")).toInt(), 25);
            QCOMPARE(kept.value(QStringLiteral("collective")).toInt(), collectives);
            QCOMPARE(kept.value(QStringLiteral("unknown_op")).toInt(), 4);
            const QString notes = notesOf(sac);
            QVERIFY2(notes.contains(QStringLiteral("25 side effect (log_tensor")), qPrintable(notes));
            QVERIFY2(notes.contains(QStringLiteral("%1 collective (broadcast").arg(collectives)), qPrintable(notes));
            int recomputed = 0;
            const QStringList bad = recomputedThatMustNotRunTwice(doc, out, g.unknownOps, &recomputed);
            QVERIFY2(bad.isEmpty(), qPrintable(bad.join(QStringLiteral(", "))));
            QVERIFY2(recomputed > 50, qPrintable(QStringLiteral("%1 recomputed").arg(recomputed)));
        }
    }

    // A policy that names one on purpose recomputes it (the FSDP all-gather case): here the
    // broadcasts of tp1, with their waits; the logging op they read stays saved.
    void recomputeOnPurpose()
    {
        const CorpusGraph g = single(kTp1);
        FXL_REQUIRE_CORPUS(g.file);
        QTemporaryDir tmp;
        const QString out = tmp.filePath(QStringLiteral("steps"));
        Run run;
        const QJsonObject doc =
            runPasses(g, QStringLiteral("sac(policy=recompute_all,recompute=broadcast),remat"), out, &run);
        QVERIFY2(!doc.isEmpty(), qPrintable(describe(run)));
        QVERIFY2(notesOf(stepNamed(doc, QStringLiteral("sac"))).contains(QStringLiteral("5 collective (broadcast")),
                 run.out.constData());
        const QStringList bad = recomputedThatMustNotRunTwice(doc, out, g.unknownOps);
        QStringList broadcasts, waits;
        for (const QString& b : bad) {
            if (b.contains(QStringLiteral("_c10d_functional.broadcast.")))
                broadcasts << b;
            else if (b.contains(QStringLiteral("wait_tensor")))
                waits << b;
            else
                QFAIL(qPrintable("recomputed though not named: " + b));
        }
        QCOMPARE(broadcasts.size(), 5);
        QCOMPARE(waits.size(), 5);
        // a name that is no operator is refused at once, with the nearest one
        const Run typo = fxlens({QStringLiteral("passes"), QStringLiteral("run"), g.file, QStringLiteral("--pipeline"),
                                 QStringLiteral("sac(recompute=brodcast)")});
        QCOMPARE(typo.exitCode, 2);
        QVERIFY2(typo.err.contains("option 'recompute': 'brodcast' names no operator (did you mean 'broadcast'?)"),
                 typo.err.constData());
    }

    // Tags set by hand (every forward node PREFER_RECOMPUTE): remat saves the side effects,
    // collectives and unknown ops instead of recomputing them, and says so.
    void rematKeepsHandTaggedSideEffects()
    {
        const CorpusGraph g = single(kTp1);
        FXL_REQUIRE_CORPUS(g.file);
        QTemporaryDir tmp;
        Run run;
        const QJsonObject tagged = runPasses(g, QStringLiteral("sac(policy=recompute_all)"), tmp.filePath("sac"), &run);
        QVERIFY2(!tagged.isEmpty(), qPrintable(describe(run)));
        QByteArray text = readFile(tmp.filePath(QStringLiteral("sac/01_sac.py")));
        QVERIFY(text.contains("- MUST_SAVE"));
        text.replace("- MUST_SAVE", "- PREFER_RECOMPUTE");
        const QString byHand = tmp.filePath(QStringLiteral("by_hand.py"));
        QVERIFY(writeFile(byHand, text));
        const CorpusGraph hand{byHand, QString(), QStringLiteral("graph"), g.unknownOps};
        const QString out = tmp.filePath(QStringLiteral("remat"));
        const QJsonObject doc = runPasses(hand, QStringLiteral("remat"), out, &run);
        QVERIFY2(!doc.isEmpty(), qPrintable(describe(run)));
        const QJsonObject remat = stepNamed(doc, QStringLiteral("remat"));
        const QString notes = notesOf(remat);
        QVERIFY2(notes.contains(QStringLiteral("tagged PREFER_RECOMPUTE that must not run twice, saved instead: 25 "
                                               "side effect (log_tensor")),
                 qPrintable(notes));
        QVERIFY2(notes.contains(QStringLiteral("tag them MUST_RECOMPUTE")), qPrintable(notes));
        int recomputed = 0;
        const QStringList bad = recomputedThatMustNotRunTwice(doc, out, g.unknownOps, &recomputed);
        QVERIFY2(bad.isEmpty(), qPrintable(bad.join(QStringLiteral(", "))));
        QVERIFY(recomputed > 100);
    }

    // ------------------------------------------------------------------ item 11

    // cse over every graph with a backward: no node after the backward seed is merged into one
    // before it, and no collective is merged; with both options the merges come back.
    void cseKeepsPhasesApart_data()
    {
        QTest::addColumn<CorpusGraph>("graph");
        for (const CorpusGraph& g : corpusGraphs()) {
            // the sanitizer stage: of pytorch/, gpt2_tiny and moe_dispatch (both forms)
            if (fxltest::kSanitizedBuild && QFileInfo(g.file).dir().dirName() == QLatin1String("pytorch")
                && !g.file.contains(QLatin1String("gpt2_tiny.")) && !g.file.contains(QLatin1String("moe_dispatch.")))
                continue;
            if (!QFileInfo::exists(g.file) || shapeOf(g.file, g.kind) == Shape::Joint)
                QTest::newRow(qPrintable(g.row())) << g;
        }
    }
    void cseKeepsPhasesApart()
    {
        FXL_SANITIZER_ROWS(2);
        QFETCH(CorpusGraph, graph);
        FXL_REQUIRE_CORPUS(graph.file);
        const Timeline t = timelineOf(graph);
        QVERIFY2(t.firstBackward > 0, "the memory timeline finds the backward");
        QTemporaryDir tmp;
        const QString out = tmp.filePath(QStringLiteral("steps"));
        Run run;
        const QJsonObject doc = runPasses(graph, QStringLiteral("cse"), out, &run);
        QVERIFY2(!doc.isEmpty(), qPrintable(describe(run)));
        const QJsonObject cse = stepNamed(doc, QStringLiteral("cse"));
        const QJsonObject log = parseJsonDoc(readFile(out + '/' + stepFile(cse, QStringLiteral(".changes.json"))));
        const QHash<QString, QString> targets = targetsOf(out + QStringLiteral("/00_input.py"));
        QHash<QString, QString> into;  // removed -> what its users read now
        for (const QJsonValue& e : log.value(QStringLiteral("rewired")).toArray())
            if (!into.contains(e.toObject().value("from").toString()))
                into.insert(e.toObject().value("from").toString(), e.toObject().value("to").toString());
        for (const QJsonValue& v : log.value(QStringLiteral("removed")).toArray()) {
            const QString r = v.toString();
            QVERIFY2(!mustNotRunTwice(targets.value(r), {}), qPrintable("collective merged: " + r));
            if (!into.contains(r)) continue;
            QVERIFY2(!(t.position.value(r) > t.firstBackward && t.position.value(into.value(r)) < t.firstBackward),
                     qPrintable(QStringLiteral("backward %1 merged into forward %2").arg(r, into.value(r))));
        }
        // what was refused is said, and the options merge it
        const int refused = cse.value(QStringLiteral("stats")).toObject().value(QStringLiteral("refused")).toInt();
        if (refused > 0) {
            QVERIFY2(notesOf(cse).contains(QStringLiteral("refused %1 merge").arg(refused)), qPrintable(notesOf(cse)));
            const QJsonObject all = runPasses(graph, QStringLiteral("cse(collectives=true,across_phases=true)"),
                                              tmp.filePath(QStringLiteral("all")), &run);
            QVERIFY2(!all.isEmpty(), qPrintable(describe(run)));
            const QJsonObject cseAll = stepNamed(all, QStringLiteral("cse"));
            QCOMPARE(cseAll.value(QStringLiteral("stats")).toObject().value(QStringLiteral("refused")).toInt(), 0);
            QVERIFY(cseAll.value(QStringLiteral("changes")).toObject().value(QStringLiteral("removed")).toInt()
                    > cse.value(QStringLiteral("changes")).toObject().value(QStringLiteral("removed")).toInt());
        }
    }

    // The checkpoint of checkpoint_mlp stays: mm_2 and gelu_1 (the tracer's recomputation after
    // ones_like) are not merged back into mm and gelu, so the live bytes at the boundary stay
    // 292 B (420 B with the merge).
    void cseKeepsTheCheckpoint()
    {
        const CorpusGraph g = single(kCheckpointMlp);
        FXL_REQUIRE_CORPUS(g.file);
        QTemporaryDir tmp;
        Run run;
        const QJsonObject doc = runPasses(g, QStringLiteral("remove_detach,dce,cse"), tmp.filePath("keep"), &run);
        QVERIFY2(!doc.isEmpty(), qPrintable(describe(run)));
        const QJsonObject cse = stepNamed(doc, QStringLiteral("cse"));
        QCOMPARE(cse.value(QStringLiteral("changes")).toObject().value(QStringLiteral("removed")).toInt(), 0);
        const QString notes = notesOf(cse);
        QVERIFY2(notes.contains(QStringLiteral("refused 2 merges")), qPrintable(notes));
        QVERIFY2(notes.contains(QStringLiteral("mm_2 -> mm (backward into forward)")), qPrintable(notes));
        QVERIFY2(notes.contains(QStringLiteral("gelu_1 -> gelu (backward into forward)")), qPrintable(notes));
        QVERIFY2(notes.contains(QStringLiteral("across_phases=true")), qPrintable(notes));
        QCOMPARE(boundaryBytes(tmp.filePath(QStringLiteral("keep/03_cse.py"))), qint64(292));

        const QJsonObject merged =
            runPasses(g, QStringLiteral("remove_detach,dce,cse(across_phases=true)"), tmp.filePath("merge"), &run);
        QVERIFY2(!merged.isEmpty(), qPrintable(describe(run)));
        QCOMPARE(stepNamed(merged, QStringLiteral("cse")).value("changes").toObject().value("removed").toInt(), 2);
        QCOMPARE(boundaryBytes(tmp.filePath(QStringLiteral("merge/03_cse.py"))), qint64(420));
    }

    // Megatron tp2: the backward re-all-gather is not merged into the forward one (it would hold
    // the gathered activation through the backward: +50.5 MB at the peak).
    void cseKeepsTheBackwardAllGather()
    {
        const CorpusGraph g = single(kTp2);
        FXL_REQUIRE_CORPUS(g.file);
        QTemporaryDir tmp;
        Run run;
        const QJsonObject doc = runPasses(g, QStringLiteral("cse"), tmp.filePath("keep"), &run);
        QVERIFY2(!doc.isEmpty(), qPrintable(describe(run)));
        QString notes = notesOf(stepNamed(doc, QStringLiteral("cse")));
        QVERIFY2(notes.contains(QStringLiteral("all_gather_into_tensor_3 -> all_gather_into_tensor_2 (collective)")),
                 qPrintable(notes));
        QCOMPARE(peakBytes(tmp.filePath(QStringLiteral("keep/01_cse.py"))), peakBytes(g.file));
        // collectives=true alone still keeps the backward one
        const QJsonObject coll = runPasses(g, QStringLiteral("cse(collectives=true)"), tmp.filePath("coll"), &run);
        QVERIFY2(!coll.isEmpty(), qPrintable(describe(run)));
        notes = notesOf(stepNamed(coll, QStringLiteral("cse")));
        QVERIFY2(notes.contains(QStringLiteral("all_gather_into_tensor_3 -> all_gather_into_tensor_2 (backward into "
                                               "forward)")),
                 qPrintable(notes));
        const QJsonObject all =
            runPasses(g, QStringLiteral("cse(collectives=true,across_phases=true)"), tmp.filePath("all"), &run);
        QVERIFY2(!all.isEmpty(), qPrintable(describe(run)));
        QCOMPARE(peakBytes(tmp.filePath(QStringLiteral("all/01_cse.py"))) - peakBytes(g.file), qint64(50495476));
    }

    // ------------------------------------------------------------------ item 12

    // sac and remat apply to graphs with a forward and a backward; every other graph of the
    // corpus is refused with exit code 1, saying what it is, and nothing is written.
    void refusesGraphsWithoutBackward_data()
    {
        QTest::addColumn<CorpusGraph>("graph");
        // the sanitizer stage runs one log graph per artifact kind and one pytorch/ file per
        // kind of file (.joint.code.py, .fw.mincut.code.py, ...): the same code paths
        QSet<QString> seen;
        for (const CorpusGraph& g : corpusGraphs()) {
            if (fxltest::kSanitizedBuild && QFileInfo::exists(g.file)) {
                const QString name = QFileInfo(g.file).fileName();
                QString key;
                if (!g.kind.isEmpty())
                    key = QStringLiteral("kind|") + g.kind;
                else if (QFileInfo(g.file).dir().dirName() == QLatin1String("pytorch"))
                    key = QStringLiteral("pytorch|") + name.mid(name.indexOf(QLatin1Char('.')));
                if (!key.isEmpty() && seen.contains(key)) continue;
                seen.insert(key);
            }
            QTest::newRow(qPrintable(g.row())) << g;
        }
    }
    void refusesGraphsWithoutBackward()
    {
        FXL_SANITIZER_ROWS(2);
        QFETCH(CorpusGraph, graph);
        FXL_REQUIRE_CORPUS(graph.file);
        const Shape shape = shapeOf(graph.file, graph.kind);
        // the sanitizer stage runs one spec per pass; the release stage all four
        QStringList specs{QStringLiteral("sac"), QStringLiteral("remat")};
        if (!fxltest::kSanitizedBuild)
            specs << QStringLiteral("sac(policy=recompute_all)") << QStringLiteral("remove_detach,sac,remat,dce");
        for (const QString& spec : specs) {
            QTemporaryDir tmp;
            const QString out = tmp.filePath(QStringLiteral("steps"));
            const Run r =
                fxlens(QStringList{QStringLiteral("passes"), QStringLiteral("run"), graph.file} + graph.graphArgs()
                       + QStringList{QStringLiteral("--pipeline"), spec, QStringLiteral("--out"), out});
            const QString what = spec + ":\n" + describe(r);
            QVERIFY2(!r.crashed, qPrintable(what));
            if (shape == Shape::Joint) {
                QVERIFY2(r.exitCode == 0, qPrintable(what));
                continue;
            }
            QVERIFY2(r.exitCode == 1, qPrintable(what));
            const QString pass = spec.contains(QLatin1String("sac")) ? QStringLiteral("sac") : QStringLiteral("remat");
            const QByteArray all = r.out + r.err;
            QVERIFY2(all.contains((pass + QStringLiteral(" works on ")).toUtf8()), qPrintable(what));
            if (shape == Shape::NoBackward) {
                QVERIFY2(all.contains("this graph has no backward"), qPrintable(what));
                QVERIFY2(all.contains("forward-only, inference, post-grad or Dynamo graph")
                             || all.contains("an AOT forward graph") || all.contains("a Dynamo graph"),
                         qPrintable(what));
            } else {
                QVERIFY2(all.contains("every output of this graph is computed in the backward"), qPrintable(what));
            }
            QVERIFY2(!QFileInfo::exists(out + QStringLiteral("/01_sac.py"))
                         && !QFileInfo::exists(out + QStringLiteral("/01_remat.py")),
                     "no step written for a refused pass");
        }
    }
};

FXL_TEST_GUILESS_MAIN(TestCliPassScope)
}  // namespace test_cli_pass_scope
#include "test_cli_pass_scope.moc"

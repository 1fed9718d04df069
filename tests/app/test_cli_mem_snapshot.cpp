// `fxlens mem SNAPSHOT.pickle` as a user runs it: the snapshot of tests/data/snapshots from every
// writer gives the same peak, the allocations live there with their FX node and frames, the
// largest ones; --json and --csv carry the same; --device and --segments pick the view; a
// graph's options on a snapshot, a device the snapshot lacks, a broken pickle and a pickle that
// would run code are refused with the file and the reason.
#include <QDir>
#include <QJsonArray>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_test_util.hpp"
#include "core/formats/memory_snapshot.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_cli_mem_snapshot {

using namespace clitest;

namespace {

QString snap(const char* file)
{
    return QString::fromStdString(fxltest::testDataPath(std::string("snapshots/") + file).string());
}

QJsonObject jsonOf(const Run& r) { return QJsonDocument::fromJson(r.out).object(); }

}  // namespace

class TestCliMemSnapshot : public QObject
{
    Q_OBJECT

private slots:
    void writers_data()
    {
        QTest::addColumn<QString>("file");
        for (const char* f :
             {"step.p2.pickle", "step.p4.pickle", "step.p5.pickle", "step.cpp.pickle", "step.history.pickle"})
            QTest::newRow(f) << snap(f);
    }
    void writers()
    {
        QFETCH(QString, file);
        const bool history = file.contains("history");
        const Run r = fxlens({"mem", file});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QVERIFY2(
            r.out.contains("device 0: 1 segment, 4 MiB reserved, 768 KiB allocated at the snapshot; 9 trace events\n"),
            r.out.constData());
        QVERIFY2(r.out.contains("  peak 3.25 MiB (3407872) at step 1; live there: 3\n"), r.out.constData());
        QVERIFY2(r.out.contains(history
                                    ? "    2 MiB at 0x7f0000100000: relu torch/nn/functional.py:1500"
                                    : "    2 MiB at 0x7f0000100000: [fx node relu] relu torch/nn/functional.py:1500"),
                 r.out.constData());
        QVERIFY2(
            r.out.contains("    256 KiB at 0x7f0000300000, allocated before the trace (from the snapshot's blocks)"),
            r.out.constData());
        QVERIFY2(r.out.contains("    4 KiB at 0x8000000000001000: __init__ model.py:10"), r.out.constData());
        // JSON: the same numbers
        const Run j = fxlens({"mem", file, "--json"});
        QVERIFY2(j.exitCode == 0, qPrintable(describe(j)));
        const QJsonObject d = jsonOf(j);
        QCOMPARE(d.value("fx_frames").toBool(), !history);
        QCOMPARE(d.value("history_form").toBool(), history);
        const QJsonArray devs = d.value("devices").toArray();
        QCOMPARE(devs.size(), 2);
        const QJsonObject t0 = devs[0].toObject().value("timeline").toObject();
        QCOMPARE(t0.value("peak_bytes").toInteger(), qint64(3407872));
        QCOMPARE(t0.value("memory_viz_max_size").toInteger(), qint64(3407872));
        QCOMPARE(t0.value("steps").toInt(), 11);
        const QJsonArray live = t0.value("live_at_peak").toArray();
        QCOMPARE(live.size(), 3);
        QCOMPARE(live[0].toObject().value("fx_node").toString(), history ? QString() : QStringLiteral("relu"));
        QCOMPARE(live[0].toObject().value("frames").toArray()[0].toObject().value("line").toInt(), 1500);
        QCOMPARE(devs[1]
                     .toObject()
                     .value("timeline")
                     .toObject()
                     .value("largest")
                     .toArray()[0]
                     .toObject()
                     .value("addr")
                     .toDouble(),
                 9223372036854779904.0);
        // CSV: one row per allocation, written atomically, refused over an existing file
        QTemporaryDir dir;
        const QString csv = dir.filePath("a.csv");
        const Run c = fxlens({"mem", file, "--csv", csv});
        QVERIFY2(c.exitCode == 0 && c.out.contains("allocations written to "), qPrintable(describe(c)));
        const QList<QByteArray> rows =
            QByteArray::fromStdString(fxltest::readFile(csv.toStdString())).trimmed().split('\n');
        QCOMPARE(rows.size(), 1 + 4 + 1);
        QVERIFY2(rows[2].startsWith(history ? "0,1,139637977776128,2097152,0,1,11,2,0,,relu "
                                            : "0,1,139637977776128,2097152,0,1,11,2,0,relu,relu "),
                 rows[2].constData());
        const Run again = fxlens({"mem", file, "--csv", csv});
        FXL_EXPECT_EXIT(again, 1);
    }

    // `fxlens run --memory-snapshot`: the run's allocations in the snapshot format, read back by
    // `fxlens mem` (the same peak as the run measured, every allocation named by its FX node)
    // and by Python's pickle where python3 is installed
    void runWritesASnapshot_data()
    {
        QTest::addColumn<QString>("graph");
        QTest::addColumn<QString>("device");
        QTest::addColumn<int>("deviceIndex");
        const auto data = [](const char* rel) { return QString::fromStdString(fxltest::testDataPath(rel).string()); };
        QTest::newRow("mlp_gelu cpu") << data("pytorch/mlp_gelu.joint.code.py") << "cpu" << 0;
        QTest::newRow("t5_bias cpu") << data("models/t5_bias.joint.code.py") << "cpu" << 0;
        QTest::newRow("lstm_lm cuda-emu:1") << data("models/lstm_lm.joint.code.py") << "cuda-emu:1" << 1;
        QTest::newRow("gn_resnet cuda-emu") << data("models/gn_resnet.joint.code.py") << "cuda-emu" << 0;
    }
    void runWritesASnapshot()
    {
        QFETCH(QString, graph);
        QFETCH(QString, device);
        QFETCH(int, deviceIndex);
        QTemporaryDir dir;
        const QString path = dir.filePath("run.pickle");
        const Run r = fxlens({"run", graph, "--device", device, "--memory-snapshot", path, "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        const qint64 peak = jsonOf(r).value("peak_bytes").toInteger();
        QVERIFY(peak > 0);
        QCOMPARE(jsonOf(r).value("memory_snapshot").toString(), path);
        const Run m = fxlens({"mem", path, "--json", "--top", "1000"});
        QVERIFY2(m.exitCode == 0, qPrintable(describe(m)));
        const QJsonArray devs = jsonOf(m).value("devices").toArray();
        QCOMPARE(devs.size(), 1);
        QCOMPARE(devs[0].toObject().value("device").toInt(), deviceIndex);
        const QJsonObject t = devs[0].toObject().value("timeline").toObject();
        QCOMPARE(t.value("peak_bytes").toInteger(), peak);
        QCOMPARE(t.value("allocated_before_trace").toInt(), 0);
        for (const QJsonValue& a : t.value("largest").toArray())
            QVERIFY2(!a.toObject().value("fx_node").toString().isEmpty(),
                     qPrintable(QJsonDocument(a.toObject()).toJson()));
        // again over it: refused without --force, replaced with it
        const Run again = fxlens({"run", graph, "--device", device, "--memory-snapshot", path});
        FXL_EXPECT_EXIT(again, 1);
        QVERIFY2(again.err.contains("output file exists (use --force to replace it)"), again.err.constData());
        const Run forced = fxlens({"run", graph, "--device", device, "--memory-snapshot", path, "--force"});
        QVERIFY2(forced.exitCode == 0
                     && forced.out.contains("memory snapshot (torch.cuda.memory._dump_snapshot's format"),
                 qPrintable(describe(forced)));
        // Python's own pickle reads it: the same number of trace entries per device
        if (QStandardPaths::findExecutable("python3").isEmpty())
            QSKIP("no python3 here: the pickle was read by fxlens only");
        const Run py = runProcess("python3",
                                  {"-c",
                                   "import pickle,sys; d=pickle.load(open(sys.argv[1],'rb')); "
                                   "print(len(d['device_traces']), len(d['device_traces'][-1]), "
                                   "d['device_traces'][-1][0]['frames'][0]['fx_node_name'])",
                                   path});
        QVERIFY2(py.exitCode == 0, qPrintable(describe(py)));
        const QList<QByteArray> words = py.out.trimmed().split(' ');
        QCOMPARE(words[0].toInt(), deviceIndex + 1);
        QCOMPARE(words[1].toInt(), devs[0].toObject().value("trace_events").toInt());
        QVERIFY(!words[2].isEmpty());
    }

    // `fxlens mem GRAPH --snapshot SNAP`: a run's snapshot over the graph's estimate, matched by
    // fx_node_name (all of them), and with the names stripped, by allocation order (all of them
    // again); both peaks equal, every node's bytes equal
    void overlay_data()
    {
        QTest::addColumn<QString>("graph");
        QTest::addColumn<QString>("device");
        const auto data = [](const char* rel) { return QString::fromStdString(fxltest::testDataPath(rel).string()); };
        QTest::newRow("mlp_gelu cpu") << data("pytorch/mlp_gelu.joint.code.py") << "cpu";
        QTest::newRow("t5_bias cpu") << data("models/t5_bias.joint.code.py") << "cpu";
        QTest::newRow("gn_resnet cuda-emu") << data("models/gn_resnet.joint.code.py") << "cuda-emu";
    }
    void overlay()
    {
        QFETCH(QString, graph);
        QFETCH(QString, device);
        QTemporaryDir dir;
        const QString path = dir.filePath("run.pickle");
        const Run r = fxlens({"run", graph, "--device", device, "--memory-snapshot", path});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        // the same snapshot without FX node names (as PyTorch writes one without
        // augment_with_fx_traces): matched by allocation order
        fxl::MemorySnapshot s = fxl::readMemorySnapshot(path.toStdString());
        for (fxl::SnapshotFrame& f : s.frames) f.fxNodeName.clear();
        const QString bare = dir.filePath("bare.pickle");
        QFile out(bare);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QByteArray::fromStdString(fxl::serializeMemorySnapshot(s)));
        out.close();
        for (const QString& snapshot : {path, bare}) {
            const bool named = snapshot == path;
            const Run m = fxlens({"mem", graph, "--snapshot", snapshot, "--json"});
            QVERIFY2(m.exitCode == 0, qPrintable(describe(m)));
            const QJsonObject o = jsonOf(m);
            const int all = o.value("allocations").toInt();
            QVERIFY(all > 0);
            QCOMPARE(o.value("matched_by_fx_node_name").toInt(), named ? all : 0);
            QCOMPARE(o.value("matched_by_order").toInt(), named ? 0 : all);
            QCOMPARE(o.value("match_rate").toDouble(), 1.0);
            QCOMPARE(o.value("measured_peak_bytes").toInteger(), o.value("estimated_peak_bytes").toInteger());
            QCOMPARE(o.value("measured_peak_node").toString(), o.value("estimated_peak_node").toString());
            for (const QJsonValue& n : o.value("nodes").toArray())
                QVERIFY2(n.toObject().value("estimated_bytes").toInteger()
                             == n.toObject().value("measured_bytes").toInteger(),
                         qPrintable(QJsonDocument(n.toObject()).toJson()));
        }
        const Run text = fxlens({"mem", graph, "--snapshot", path});
        QVERIFY2(text.out.contains("allocations matched to nodes (100.0%): "), text.out.constData());
        QVERIFY2(text.out.contains("  every node allocated the bytes the estimate says ("), text.out.constData());
    }

    // another graph's snapshot: the peaks apart, the differences listed
    void overlayOfAnotherRun()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("mlp.pickle");
        const QString mlp = QString::fromStdString(fxltest::testDataPath("pytorch/mlp_gelu.joint.code.py").string());
        const QString t5 = QString::fromStdString(fxltest::testDataPath("models/t5_bias.joint.code.py").string());
        QVERIFY(fxlens({"run", mlp, "--memory-snapshot", path}).exitCode == 0);
        const Run m = fxlens({"mem", t5, "--snapshot", path});
        QVERIFY2(m.exitCode == 0, qPrintable(describe(m)));
        // the names the two graphs share (arg1_1, mm, ...) match by name, the rest by order
        QVERIFY2(m.out.contains("  12 of 12 allocations matched to nodes (100.0%): 10 by fx_node_name, 2 by allocation "
                                "order; 0 unmatched\n"),
                 m.out.constData());
        QVERIFY2(m.out.contains("; measured 612 B (612) at step 22"), m.out.constData());
        QVERIFY2(m.out.contains("  nodes whose measured bytes differ from the estimate ("), m.out.constData());
        const Run two = fxlens({"mem", t5, "--snapshot", snap("step.p4.pickle")});
        FXL_EXPECT_EXIT(two, 1);
        QVERIFY2(two.err.contains("the snapshot traces devices 0, 1: pick one with --device N"), two.err.constData());
    }

    // `fxlens mem A --compare B`: a step before and after a pass, each run with
    // --memory-snapshot: B's peak lower, aligned by FX node, the chunked step's own nodes only in B
    // and the chunked one allocated once per chunk;
    // a run against itself: nothing differs
    void compareTwoRuns()
    {
        FXL_REQUIRE_CORPUS(fxltest::corpusPath("pytorch/linear_ce.joint.code.py"));  // with its meta.json
        QTemporaryDir dir;
        const QString original =
            QString::fromStdString(fxltest::corpusPath("pytorch/linear_ce.joint.code.py").string());
        const Run passes =
            fxlens({"passes", "run", original, "--pipeline", "auto_chunk(chunks=4,amplify_ratio=1,min_output_bytes=0)",
                    "--out", dir.filePath("steps")});
        QVERIFY2(passes.exitCode == 0, qPrintable(describe(passes)));
        QStringList steps = QDir(dir.filePath("steps")).entryList({"0*.py"}, QDir::Files, QDir::Name);
        QVERIFY(!steps.isEmpty());
        const QString chunked = dir.filePath("steps/" + steps.last());
        const QString a = dir.filePath("a.pickle"), b = dir.filePath("b.pickle"), a2 = dir.filePath("a2.pickle");
        QVERIFY(fxlens({"run", original, "--memory-snapshot", a}).exitCode == 0);
        QVERIFY(fxlens({"run", original, "--memory-snapshot", a2}).exitCode == 0);
        QVERIFY(fxlens({"run", chunked, "--memory-snapshot", b}).exitCode == 0);
        const Run same = fxlens({"mem", a, "--compare", a2});
        QVERIFY2(same.exitCode == 0, qPrintable(describe(same)));
        QVERIFY2(same.out.contains(": the same\n"), same.out.constData());
        QVERIFY2(same.out.contains("every site allocated the same bytes in both"), same.out.constData());
        const Run c = fxlens({"mem", a, "--compare", b, "--json"});
        QVERIFY2(c.exitCode == 0, qPrintable(describe(c)));
        const QJsonObject j = jsonOf(c);
        QVERIFY2(j.value("peak_b").toInteger() < j.value("peak_a").toInteger(), c.out.constData());
        QCOMPARE(j.value("aligned_by").toString(), QStringLiteral("fx node"));
        QVERIFY(j.value("sites_in_both").toInt() > 0);
        QVERIFY(j.value("sites_only_b").toInt() > 0);
        // the chunked node: allocated once in A, once per chunk in B
        bool chunkedNode = false;
        for (const QJsonValue& v : j.value("sites").toArray()) {
            const QJsonObject o = v.toObject();
            chunkedNode = chunkedNode || (o.value("count_a").toInt() == 1 && o.value("count_b").toInt() == 4);
        }
        QVERIFY2(chunkedNode, c.out.constData());
        const Run text = fxlens({"mem", a, "--compare", b});
        QVERIFY2(text.out.contains("aligned by FX node: ") && text.out.contains("sites that differ"),
                 text.out.constData());
    }

    void views()
    {
        const Run one = fxlens({"mem", snap("step.p4.pickle"), "--device", "1", "--json"});
        QVERIFY2(one.exitCode == 0, qPrintable(describe(one)));
        QCOMPARE(jsonOf(one).value("devices").toArray().size(), 1);
        const Run seg = fxlens({"mem", snap("step.p4.pickle"), "--segments", "--device", "0"});
        QVERIFY2(seg.exitCode == 0, qPrintable(describe(seg)));
        QVERIFY2(
            seg.out.contains("  cached segment timeline (memory_viz's rules): 1 segments (0 from before the trace)"),
            seg.out.constData());
        QVERIFY2(seg.out.contains("  peak 4 MiB (4194304)"), seg.out.constData());
    }

    // a snapshot given to a verb that reads graphs: said for what it is, pointing at fxlens mem
    void snapshotIsNoGraph_data()
    {
        QTest::addColumn<QStringList>("args");
        const QString s = snap("step.cpp.pickle");
        QTest::newRow("info") << QStringList{"info", s};
        QTest::newRow("run") << QStringList{"run", s};
        QTest::newRow("check") << QStringList{"check", s, s};
        QTest::newRow("diff") << QStringList{"diff", s, s};
        QTest::newRow("passes run") << QStringList{"passes", "run", s, "--pipeline", "dce"};
        QTest::newRow("convert") << QStringList{"convert", s, "--to", "json"};
    }
    void snapshotIsNoGraph()
    {
        QFETCH(QStringList, args);
        const Run r = fxlens(args);
        FXL_EXPECT_EXIT(r, 1);
        QVERIFY2(r.err.contains("step.cpp.pickle: error: a Python pickle, not a graph: a CUDA memory snapshot "),
                 r.err.constData());
        QVERIFY2(r.err.contains("is read by fxlens mem"), r.err.constData());
    }

    void refusals()
    {
        const QString mlp = QString::fromStdString(fxltest::testDataPath("pytorch/mlp_gelu.joint.code.py").string());
        const Run rep = fxlens({"run", mlp, "--memory-snapshot", "/tmp/fxlens-never.pickle", "--repeat", "3"});
        FXL_EXPECT_EXIT(rep, 2);
        QVERIFY2(rep.err.contains("--memory-snapshot records one run: not with --repeat"), rep.err.constData());
        const Run g = fxlens({"mem", snap("step.p4.pickle"), "--no-phase"});
        FXL_EXPECT_EXIT(g, 2);
        QVERIFY2(g.err.contains("--no-phase applies to a graph; "), g.err.constData());
        const Run t =
            fxlens({"mem", QString::fromStdString(fxltest::testDataPath("pytorch/mlp_gelu.joint.code.py").string()),
                    "--segments"});
        FXL_EXPECT_EXIT(t, 2);
        QVERIFY2(t.err.contains("--segments applies to a CUDA memory snapshot"), t.err.constData());
        const Run dev = fxlens({"mem", snap("step.p4.pickle"), "--device", "7"});
        FXL_EXPECT_EXIT(dev, 1);
        QVERIFY2(dev.err.contains("step.p4.pickle: error: no device 7 in the snapshot (devices: 0, 1)"),
                 dev.err.constData());
        QTemporaryDir dir;
        // a cut pickle, and one that would call os.system
        const QByteArray all = QByteArray::fromStdString(fxltest::readFile(snap("step.p4.pickle").toStdString()));
        const QString cut = dir.filePath("cut.pickle");
        QFile f(cut);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(all.left(700));
        f.close();
        const Run c = fxlens({"mem", cut});
        FXL_EXPECT_EXIT(c, 1);
        QVERIFY2(c.err.contains("cut.pickle: error: at byte "), c.err.constData());
        const QString evil = dir.filePath("evil.pickle");
        QFile e(evil);
        QVERIFY(e.open(QIODevice::WriteOnly));
        e.write(QByteArray("\x80\x02"
                           "cposix\nsystem\nq\x00X\x02\x00\x00\x00idq\x01\x85q\x02Rq\x03.",
                           34));
        e.close();
        const Run ev = fxlens({"mem", evil, "--json"});
        FXL_EXPECT_EXIT(ev, 1);
        QVERIFY2(ev.err.contains("evil.pickle: error: at byte 2: opcode GLOBAL refused"), ev.err.constData());
    }

    // memory_viz's view incl. private pools: a pool's envelope is its reserved bytes (8 MiB of
    // segment_map), so the peak is 9 MiB where the default view says 7 MiB (make_snapshots.py)
    void privatePools()
    {
        const Run plain = fxlens({"mem", snap("pools.p4.pickle")});
        QVERIFY2(plain.exitCode == 0, qPrintable(describe(plain)));
        QVERIFY2(plain.out.contains("  peak 7 MiB (7340032) at step 6"), plain.out.constData());
        QVERIFY(!plain.out.contains("private pool"));
        const Run pools = fxlens({"mem", snap("pools.p4.pickle"), "--private-pools"});
        QVERIFY2(pools.exitCode == 0, qPrintable(describe(pools)));
        QVERIFY2(pools.out.contains("  private pool 1,7,s0: envelope 8 MiB"), pools.out.constData());
        QVERIFY2(pools.out.contains("  peak 9 MiB (9437184)"), pools.out.constData());
        const Run j = fxlens({"mem", snap("pools.p4.pickle"), "--private-pools", "--json"});
        QVERIFY2(j.exitCode == 0, qPrintable(describe(j)));
        const QJsonObject d = jsonOf(j)["devices"].toArray()[0].toObject();
        const QJsonArray p = d["timeline"].toObject()["private_pools"].toArray();
        QCOMPARE(p.size(), 1);
        QCOMPARE(p[0].toObject()["pool"].toString(), QString("1,7,s0"));
        QCOMPARE(p[0].toObject()["envelope_bytes"].toInteger(), qint64(8 << 20));
        QCOMPARE(p[0].toObject()["allocations"].toInt(), 2);
        QCOMPARE(jsonOf(j)["view"].toString(), QString("active_incl_private_pools"));
        const Run bad = fxlens({"mem", snap("pools.p4.pickle"), "--private-pools", "--segments"});
        QCOMPARE(bad.exitCode, 2);
    }
};

FXL_TEST_APPLESS_MAIN(TestCliMemSnapshot)
}  // namespace test_cli_mem_snapshot
#include "test_cli_mem_snapshot.moc"

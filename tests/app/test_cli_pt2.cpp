// torch.export archives (.pt2) through every verb, as a user runs them on the archives of
// tests/data/pt2 (every layout and schema generation): info describes the archive and its
// programs; check runs a program on PyTorch's inputs against PyTorch's outputs; run takes the
// archive's weights and made-up or given inputs; convert writes JSON and Python that run to the
// same bits; passes run writes steps that run on their own; render groups by module; an
// AOTInductor package says it holds no graph; a damaged archive is refused by every verb with
// the entry, the JSON path or the version at fault and a nonzero exit code.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_cli_pt2 {

using namespace clitest;

namespace {

QString data(const char* file)
{
    return QString::fromStdString(fxltest::testDataPath(std::string("pt2/") + file).string());
}
QString data(const QString& file) { return data(file.toUtf8().constData()); }

QJsonObject jsonOf(const Run& r) { return QJsonDocument::fromJson(r.out).object(); }

}  // namespace

class TestCliPt2 : public QObject
{
    Q_OBJECT

private slots:
    void infoEveryLayout_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("layout");
        QTest::addColumn<int>("graphs");
        QTest::addColumn<QString>("text");
        QTest::newRow("2.1") << "flat21_mlp.pt2"
                             << "flat (PyTorch 2.1)" << 1 << "    outputs: 4 gradient_to_parameter, 1 loss_output\n";
        QTest::newRow("2.2-2.7 joint") << "flat25_mlp.pt2"
                                       << "flat (PyTorch 2.2 to 2.7)" << 1 << "  program model: schema 5.0";
        QTest::newRow("2.7 cond") << "flat27_cond.pt2"
                                  << "flat (PyTorch 2.2 to 2.7)" << 1 << "    range: 2 <= s0 <= Infinity\n";
        QTest::newRow("2.8") << "rooted28_mlp.pt2"
                             << "rooted (PyTorch 2.8 and later)" << 2
                             << "    weights: 4 tensors (pickled), 3 read by the graph as constants\n";
        QTest::newRow("2.9 raw") << "rooted29_raw.pt2"
                                 << "rooted (PyTorch 2.8 and later)" << 1
                                 << "    weights: 4 tensors (raw), 3 read by the graph as constants\n";
        QTest::newRow("AOTInductor") << "aoti_package.pt2"
                                     << "AOTInductor package" << 0 << "so it holds no graph";
    }
    void infoEveryLayout()
    {
        QFETCH(QString, file);
        QFETCH(QString, layout);
        QFETCH(int, graphs);
        QFETCH(QString, text);
        const Run t = fxlens({"info", data(file)});
        QVERIFY2(t.exitCode == 0, qPrintable(describe(t)));
        QVERIFY2(t.out.contains(text.toUtf8()), t.out.constData());
        const Run r = fxlens({"info", data(file), "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        const QJsonObject s = jsonOf(r)["sources"].toArray()[0].toObject();
        QCOMPARE(s["format"].toString(), QString("pt2"));
        QCOMPARE(s["about"].toObject()["layout"].toString(), layout);
        QCOMPARE(s["graphs"].toInt(), graphs);
        for (const auto& g : s["graph_info"].toArray()) {
            QVERIFY(!g.toObject().contains("error"));
            QVERIFY(g.toObject()["runs_on_cpu"].toBool());
            QVERIFY(g.toObject()["parameters"].toObject()["count"].toInt() >= 3);
        }
    }

    // the program on PyTorch's inputs against PyTorch's outputs (PyTorch 1.13's kernels: within
    // 1e-5, not bitwise)
    void checkAgainstPyTorch_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("graph");
        QTest::addColumn<QString>("stem");
        for (const char* f : {"flat21_mlp.pt2", "flat25_mlp.pt2", "rooted28_mlp.pt2", "crc_zero.pt2"})
            QTest::newRow(f) << f << "model"
                             << "mlp";
        QTest::newRow("rooted28 tied") << "rooted28_mlp.pt2"
                                       << "tied"
                                       << "tied";
        QTest::newRow("rooted29 tied, raw") << "rooted29_raw.pt2"
                                            << "tied"
                                            << "tied";
        // layer norm's three results, a split's list, a cond's sub-graphs, a symbolic batch
        QTest::newRow("flat27 cond") << "flat27_cond.pt2"
                                     << "model"
                                     << "cond";
    }
    void checkAgainstPyTorch()
    {
        QFETCH(QString, file);
        QFETCH(QString, graph);
        QFETCH(QString, stem);
        const QStringList common = {"check", data(file), data(stem + ".outputs.safetensors"), "--graph-a",
                                    graph,   "--inputs", data(stem + ".inputs.safetensors")};
        const Run r = fxlens(common + QStringList{"--tolerance", "1e-6,1e-5"});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QVERIFY2(r.out.contains("result: within tolerance"), r.out.constData());
        QVERIFY2(r.out.contains((stem + ".inputs.safetensors: 1 of 1 placeholders").toUtf8()), r.out.constData());
        // and not by chance: a tolerance far tighter than the differences fails
        const Run tight = fxlens(common + QStringList{"--tolerance", "0,1e-9"});
        QVERIFY2(tight.exitCode == 1, qPrintable(describe(tight)));
    }

    // run: the archive's weights and --seed inputs, the same bits twice; --inputs by name
    void runWithSeedAndInputs()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("o.safetensors");
        const Run r = fxlens({"run", data("flat27_cond.pt2"), "--seed", "4", "--out", out});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QVERIFY2(r.out.contains("out_0 (cond_out)  f32[6, 4]"), r.out.constData());
        const Run again = fxlens({"check", data("flat27_cond.pt2"), out, "--seed", "4"});
        QVERIFY2(again.exitCode == 0, qPrintable(describe(again)));
        QVERIFY2(again.out.contains("result: bitwise equal"), again.out.constData());
        const Run other = fxlens({"check", data("flat27_cond.pt2"), out, "--seed", "5"});
        QCOMPARE(other.exitCode, 1);
        const Run j = fxlens({"run", data("rooted28_mlp.pt2"), "--graph", "model", "--inputs",
                              data("mlp.inputs.safetensors"), "--json"});
        QVERIFY2(j.exitCode == 0, qPrintable(describe(j)));
        QCOMPARE(jsonOf(j)["constants"].toObject()["origin"].toString(), QString("embedded"));
        QCOMPARE(jsonOf(j)["inputs"].toObject()["generated"].toArray().size(), 0);
    }

    // convert --to json | py: files that run on their own to the archive's bits
    void convertThenCheck_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("graph");
        QTest::addColumn<QString>("to");
        for (const char* to : {"json", "py"}) {
            QTest::addRow("mlp 2.8 to %s", to) << "rooted28_mlp.pt2"
                                               << "model" << to;
            QTest::addRow("cond 2.7 to %s", to) << "flat27_cond.pt2"
                                                << "model" << to;
            QTest::addRow("tied raw to %s", to) << "rooted29_raw.pt2"
                                                << "tied" << to;
            QTest::addRow("mlp 2.1 to %s", to) << "flat21_mlp.pt2"
                                               << "model" << to;
        }
    }
    void convertThenCheck()
    {
        QFETCH(QString, file);
        QFETCH(QString, graph);
        QFETCH(QString, to);
        QTemporaryDir dir;
        const QString out = dir.filePath("g." + to);
        const Run c = fxlens({"convert", data(file), "--graph", graph, "--to", to, "-o", out});
        QVERIFY2(c.exitCode == 0, qPrintable(describe(c)));
        QVERIFY(QFile::exists(out));
        if (to == "py") QVERIFY(QFile::exists(dir.filePath("g.constants.safetensors")));
        const Run k = fxlens({"check", data(file), out, "--graph-a", graph, "--seed", "7"});
        QVERIFY2(k.exitCode == 0, qPrintable(describe(k)));
        QVERIFY2(k.out.contains("result: bitwise equal"), k.out.constData());
        // the converted file alone: info reads it, with its weights as constants
        const Run i = fxlens({"info", out, "--json"});
        QVERIFY2(i.exitCode == 0, qPrintable(describe(i)));
    }

    // passes run on an archive, then each written step checked against the archive
    void passesRunThenCheck()
    {
        QTemporaryDir dir;
        const QString steps = dir.filePath("steps");
        const Run p = fxlens(
            {"passes", "run", data("rooted28_mlp.pt2"), "--graph", "model", "--pipeline", "cse,dce", "--out", steps});
        QVERIFY2(p.exitCode == 0, qPrintable(describe(p)));
        const QStringList written = QDir(steps).entryList({"*_dce.py"});
        QCOMPARE(written.size(), 1);
        const Run k = fxlens({"check", data("rooted28_mlp.pt2"), QDir(steps).filePath(written[0]), "--graph-a", "model",
                              "--inputs", data("mlp.inputs.safetensors")});
        QVERIFY2(k.exitCode == 0, qPrintable(describe(k)));
        QVERIFY2(k.out.contains("result: bitwise equal"), k.out.constData());
    }

    // diff: the same program from two layouts is the same graph
    void diffAcrossLayouts()
    {
        const Run r = fxlens({"diff", data("flat21_mlp.pt2"), data("rooted28_mlp.pt2"), "--graph-b", "model"});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QVERIFY2(r.out.contains("# nodes: 0 added, 0 removed, 0 changed, 34 unchanged"), r.out.constData());
        const Run t = fxlens({"diff", data("rooted28_mlp.pt2"), data("rooted29_raw.pt2"), "--graph-a", "model"});
        QVERIFY2(t.out.contains("added") && !t.out.contains(" 0 added, 0 removed, 0 changed"), t.out.constData());
    }

    // render: grouped by phase and by the module paths of nn_module_stack
    void renderGroupsByModule()
    {
        QTemporaryDir dir;
        const QString svg = dir.filePath("m.svg");
        const Run r = fxlens({"render", data("flat25_mlp.pt2"), "--out", svg, "--expand", "all"});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QFile f(svg);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        for (const char* group : {">fc1<", ">fc2<", ">forward<", ">backward<", ">loss<"})
            QVERIFY2(text.contains(group), group);
    }

    void aotiPackageHoldsNoGraph()
    {
        for (const QString verb : {"run", "render", "convert"}) {
            QStringList args = {verb, data("aoti_package.pt2")};
            if (verb == "render") args << "--out" << QDir::temp().filePath("aoti.svg");
            if (verb == "convert")
                args << "--to"
                     << "json";
            const Run r = fxlens(args);
            QVERIFY2(r.exitCode != 0, qPrintable(describe(r)));
            QVERIFY2(r.err.contains("an AOTInductor package: compiled code (3 files) and no exported program"),
                     qPrintable(describe(r)));
        }
    }

    void malformed_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("message");
        QTest::newRow("truncated") << "bad_truncated.pt2"
                                   << "not a ZIP archive";
        QTest::newRow("wrong root") << "bad_root.pt2"
                                    << "no ROOT/archive_format under the first entry's folder 'notes'";
        QTest::newRow("CRC mismatch") << "bad_crc.pt2"
                                      << "entry 'serialized_state_dict.pt': CRC-32";
        QTest::newRow("unknown union member") << "bad_union.pt2"
                                              << "bad_union.pt2:serialized_exported_program.json:152:19: error: at "
                                                 "/graph_module/graph/nodes/3/inputs/0/arg/as_foo: unknown Argument "
                                                 "member 'as_foo'";
        QTest::newRow("newer major") << "bad_newer_major.pt2"
                                     << "schema version 9.0 is newer than this fxlens reads";
        QTest::newRow("code in the weights") << "bad_global.pt2"
                                             << "global posix.system refused";
    }
    void malformed()
    {
        QFETCH(QString, file);
        QFETCH(QString, message);
        for (const QStringList& args : {QStringList{"info", data(file)}, QStringList{"run", data(file)},
                                        QStringList{"convert", data(file), "--to", "json"}}) {
            const Run r = fxlens(args);
            QVERIFY2(r.exitCode != 0, qPrintable(describe(r)));
            QVERIFY2(r.err.contains(message.toUtf8()), qPrintable(describe(r)));
        }
    }
};

FXL_TEST_GUILESS_MAIN(TestCliPt2)
}  // namespace test_cli_pt2
#include "test_cli_pt2.moc"

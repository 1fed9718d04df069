// fxlens run / fxlens check see every state a graph changes, not only its outputs: on a conv net
// with BatchNorm in training mode (tests/data/models/bn_convnet, traced by PyTorch 1.13 with
// tests/python/make_models.py; its running statistics and num_batches_tracked are placeholders
// the graph writes in place), run lists the written states and writes them beside the outputs,
// check compares them after both runs by name, and a step whose only difference is a buffer
// update fails check, through the CLI as a user runs it.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "core/formats/safetensors.hpp"

#include "cli_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_cli_states {

using namespace clitest;

namespace {

QString model(const QString& file)
{
    return QString::fromStdString(fxltest::testDataPath(("models/" + file).toStdString()).string());
}

const QString kGraph = model(QStringLiteral("bn_convnet.joint.code.py"));
const QString kInputs = model(QStringLiteral("bn_convnet.inputs.safetensors"));
const QString kPytorch = model(QStringLiteral("bn_convnet.outputs.safetensors"));

// The six states the step writes (tests/data/models/bn_convnet.states.json), as check names them.
const QStringList kStates = {QStringLiteral("input arg10_1"), QStringLiteral("input arg11_1"),
                             QStringLiteral("input arg12_1"), QStringLiteral("input arg13_1"),
                             QStringLiteral("input arg14_1"), QStringLiteral("input arg15_1")};

// The report's state rows by name.
QMap<QString, QJsonObject> statesOf(const QJsonObject& doc)
{
    QMap<QString, QJsonObject> m;
    for (const auto& s : doc[QStringLiteral("report")].toObject()[QStringLiteral("states")].toArray())
        m.insert(s.toObject()[QStringLiteral("name")].toString(), s.toObject());
    return m;
}

// The graph text with `from` replaced by `to` once, written to `path`.
bool writeEdited(const QString& path, const QString& from, const QString& to)
{
    QString text = QString::fromStdString(fxltest::readFile(kGraph.toStdString()));
    const qsizetype at = text.indexOf(from);
    if (at < 0) return false;
    text.replace(at, from.size(), to);
    return writeFile(path, text.toUtf8());
}

}  // namespace

class TestCliStates : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo(kFxlensBinary).isExecutable(), qPrintable("fxlens binary missing: " + kFxlensBinary));
        QVERIFY2(QFileInfo::exists(kGraph), qPrintable(kGraph));
    }

    // run names every state it wrote, with its write count, and --out writes each after the run
    // as state.NAME; that file is then the expected values of `fxlens check` (and equal to them).
    void runWritesStatesBesideOutputs()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("out.safetensors"));
        const Run r = fxlens({QStringLiteral("run"), kGraph, QStringLiteral("--out"), out, QStringLiteral("--json")});
        FXL_EXPECT_EXIT(r, 0);
        const QJsonArray states = parseJsonDoc(r.out)[QStringLiteral("written_states")].toArray();
        QCOMPARE(states.size(), 6);
        QStringList names;
        for (const auto& s : states) {
            names << s.toObject()[QStringLiteral("state")].toString();
            QCOMPARE(s.toObject()[QStringLiteral("writes")].toInt(), 1);
        }
        names.sort();
        QCOMPARE(names, kStates);
        const fxl::SafeTensorsFile f = fxl::readSafetensors(out.toStdString());
        for (const char* key : {"state.arg10_1", "state.arg11_1", "state.arg12_1", "state.arg15_1"})
            QVERIFY2(f.find(key), key);
        const Run again = fxlens({QStringLiteral("check"), kGraph, out});
        FXL_EXPECT_EXIT(again, 0);
        QCOMPARE(resultLine(again.out), QStringLiteral("result: bitwise equal"));
        QVERIFY2(again.out.contains("state input arg11_1 (written 1 time in A): bitwise equal"), again.out.constData());
    }

    // Against PyTorch's own run of the graph: the states PyTorch recorded (state.NAME) are
    // compared like the outputs, within the float32 allclose bound.
    void statesMatchPytorch()
    {
        const Run r = fxlens({QStringLiteral("check"), kGraph, kPytorch, QStringLiteral("--tolerance"),
                              QStringLiteral("1e-6,1e-5"), QStringLiteral("--json")});
        FXL_EXPECT_EXIT(r, 0);
        const QJsonObject doc = parseJsonDoc(r.out);
        QCOMPARE(doc[QStringLiteral("result")].toString(), QStringLiteral("within_tolerance"));
        const auto states = statesOf(doc);
        QCOMPARE(QStringList(states.keys()), kStates);
        for (const auto& s : states) {
            QVERIFY(s[QStringLiteral("writes_b")].isNull());
            QVERIFY(s[QStringLiteral("within_tolerance")].toBool() || s[QStringLiteral("bitwise_equal")].toBool());
        }
        // the integer counters exactly
        QVERIFY(states[QStringLiteral("input arg12_1")][QStringLiteral("bitwise_equal")].toBool());
        QVERIFY(states[QStringLiteral("input arg15_1")][QStringLiteral("bitwise_equal")].toBool());
    }

    // A step whose outputs are bitwise equal but whose buffer update differs fails check: a
    // momentum changed (the values differ) or a batch norm run twice (the state is written
    // twice: not equal even when the values were within any tolerance).
    void bufferOnlyDifferenceFailsCheck_data()
    {
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<QString>("tolerance");
        QTest::addColumn<QString>("row");  // the text row of the state that differs
        QTest::newRow("momentum") << QStringLiteral("arg10_1, arg11_1, True, 0.1, 1e-05")
                                  << QStringLiteral("arg10_1, arg11_1, True, 0.2, 1e-05") << QString()
                                  << QStringLiteral("state input arg10_1 (written 1 time in each): 4 of 4 elements "
                                                    "differ");
        const QString bn = QStringLiteral(
            "native_batch_norm = torch.ops.aten.native_batch_norm.default(convolution, arg3_1, arg4_1, arg10_1, "
            "arg11_1, True, 0.1, 1e-05)");
        QTest::newRow("written twice") << bn
                                       << bn
                + QStringLiteral("\n    native_batch_norm_again = torch.ops.aten.native_batch_norm.default("
                                 "convolution, arg3_1, arg4_1, arg10_1, arg11_1, True, 0.1, 1e-05)")
                                       << QStringLiteral("1,1")
                                       << QStringLiteral(
                                              "state input arg10_1 (written 1 time in A, 2 times in B: not equal): ");
    }

    void bufferOnlyDifferenceFailsCheck()
    {
        QFETCH(QString, from);
        QFETCH(QString, to);
        QFETCH(QString, tolerance);
        QFETCH(QString, row);
        QTemporaryDir dir;
        const QString edited = dir.filePath(QStringLiteral("edited.py"));
        QVERIFY(writeEdited(edited, from, to));
        QStringList args = {QStringLiteral("check"), kGraph, edited, QStringLiteral("--inputs"), kInputs};
        if (!tolerance.isEmpty()) args << QStringLiteral("--tolerance") << tolerance;
        const Run r = fxlens(args);
        FXL_EXPECT_EXIT(r, 1);
        QCOMPARE(resultLine(r.out),
                 tolerance.isEmpty() ? QStringLiteral("result: not bitwise equal (no --tolerance given)")
                                     : QStringLiteral("result: outside the tolerance"));
        QVERIFY2(r.out.contains(row.toUtf8()), r.out.constData());
        const Run j = fxlens(args << QStringLiteral("--json"));
        FXL_EXPECT_EXIT(j, 1);
        const QJsonObject doc = parseJsonDoc(j.out);
        QCOMPARE(doc[QStringLiteral("result")].toString(), QStringLiteral("different"));
        // every output is bitwise equal: only the state tells
        const QJsonArray outputs = doc[QStringLiteral("report")].toObject()[QStringLiteral("outputs")].toArray();
        QCOMPARE(outputs.size(), 9);
        for (const auto& o : outputs) QVERIFY(o.toObject()[QStringLiteral("bitwise_equal")].toBool());
        const auto states = statesOf(doc);
        QVERIFY(!states[QStringLiteral("input arg10_1")][QStringLiteral("bitwise_equal")].toBool());
        QVERIFY(states[QStringLiteral("input arg13_1")][QStringLiteral("bitwise_equal")].toBool());
    }

    // A partition's saved values reach the backward as the forward left them, strides included:
    // a backward that re-views a saved transposed value with literal strides (_reshape_alias)
    // reads the right elements (tests/data/partition_strides).
    void partitionKeepsSavedStrides()
    {
        const auto dir = fxltest::testDataPath("partition_strides");
        const Run r = fxlens({QStringLiteral("check"), QString::fromStdString((dir / "joint.py").string()),
                              QString::fromStdString((dir / "strided.forward.py").string()), QStringLiteral("--seed"),
                              QStringLiteral("1"), QStringLiteral("--json")});
        FXL_EXPECT_EXIT(r, 0);
        const QJsonObject doc = parseJsonDoc(r.out);
        QCOMPARE(doc[QStringLiteral("result")].toString(), QStringLiteral("bitwise_equal"));
        QCOMPARE(doc[QStringLiteral("b")].toObject()[QStringLiteral("saved_fed")].toInt(), 1);
        QCOMPARE(doc[QStringLiteral("report")].toObject()[QStringLiteral("outputs")].toArray().size(), 2);
    }

    // sac + remat on the BatchNorm model in training mode, and both partitions: every output
    // and every buffer bitwise equal after the step (the batch norm, which writes its running
    // statistics, is saved, never recomputed), as a user checks the steps the passes wrote.
    void passesKeepEveryBuffer_data()
    {
        QTest::addColumn<QString>("pipeline");
        QTest::addColumn<QString>("stepFile");
        QTest::newRow("sac,remat,dce") << QStringLiteral("sac(policy=alternate_mm),remat,dce")
                                       << QStringLiteral("03_dce.py");
        QTest::newRow("partition mincut")
            << QStringLiteral("partition(mode=mincut)") << QStringLiteral("01_partition.forward.py");
        QTest::newRow("partition save_all")
            << QStringLiteral("partition(mode=save_all)") << QStringLiteral("01_partition.forward.py");
    }

    void passesKeepEveryBuffer()
    {
        QFETCH(QString, pipeline);
        QFETCH(QString, stepFile);
        QTemporaryDir dir;
        const QString steps = dir.filePath(QStringLiteral("steps"));
        FXL_EXPECT_EXIT(fxlens({QStringLiteral("passes"), QStringLiteral("run"), kGraph, QStringLiteral("--pipeline"),
                                pipeline, QStringLiteral("--out"), steps}),
                        0);
        const Run r = fxlens({QStringLiteral("check"), kGraph, steps + QLatin1Char('/') + stepFile,
                              QStringLiteral("--inputs"), kInputs, QStringLiteral("--json")});
        FXL_EXPECT_EXIT(r, 0);
        const QJsonObject doc = parseJsonDoc(r.out);
        QCOMPARE(doc[QStringLiteral("result")].toString(), QStringLiteral("bitwise_equal"));
        const auto states = statesOf(doc);
        QCOMPARE(QStringList(states.keys()), kStates);
        for (const auto& s : states) {
            QCOMPARE(s[QStringLiteral("writes_a")].toInt(), 1);
            QCOMPARE(s[QStringLiteral("writes_b")].toInt(), 1);
            QVERIFY(s[QStringLiteral("bitwise_equal")].toBool());
        }
    }
};

FXL_TEST_APPLESS_MAIN(TestCliStates)

}  // namespace test_cli_states

#include "test_cli_states.moc"

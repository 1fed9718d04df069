// Graphs on a device as a user runs them, through the built binary, on the emulated CUDA
// device (cuda-emu: the CUDA kernels' own code run by the CPU; no GPU needed): `run --device`
// (outputs, measured peak against the estimate, --out read back by `check` on the CPU),
// `check --device-a cpu --device-b cuda-emu --localize` (every output and node value bitwise
// equal), eager chunking with every run on the device, and the refusals: an operator with no
// CUDA kernel (named), a device name no backend has (exit 2) and a CUDA device that is not
// there (exit 1, the reason); and the labelled fast mode (--fast).
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <filesystem>

#include "cli_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_cli_device_runs {

using namespace clitest;

namespace {

QString dataPath(const std::string& rel) { return QString::fromStdString(fxltest::testDataPath(rel).string()); }

QString mlp() { return dataPath("pytorch/mlp_gelu.joint.code.py"); }

QJsonObject jsonOf(const Run& r)
{
    QJsonParseError e;
    const QJsonDocument d = QJsonDocument::fromJson(r.out, &e);
    return e.error == QJsonParseError::NoError ? d.object() : QJsonObject();
}

// output name -> sha256 of its bytes
QMap<QString, QString> outputHashes(const QJsonObject& run)
{
    QMap<QString, QString> m;
    for (const QJsonValue& v : run.value("outputs").toArray())
        m[v.toObject().value("name").toString()] = v.toObject().value("sha256").toString();
    return m;
}

}  // namespace

class TestCliDeviceRuns : public QObject
{
    Q_OBJECT

private slots:
    // run --device cuda-emu: the CPU's output bytes, the device named and marked emulated, the
    // measured peak equal to the memory timeline's estimate; --out read back by check (A on the
    // CPU against the file): bitwise equal.
    void runOnTheDevice()
    {
        const Run cpu = fxlens({"run", mlp(), "--json"});
        QVERIFY2(!cpu.crashed && cpu.exitCode == 0, qPrintable(describe(cpu)));
        QTemporaryDir dir;
        const QString out = dir.filePath("emu.safetensors");
        const Run emu = fxlens({"run", mlp(), "--device", "cuda-emu", "--out", out, "--json"});
        QVERIFY2(!emu.crashed && emu.exitCode == 0, qPrintable(describe(emu)));
        const QJsonObject a = jsonOf(cpu), b = jsonOf(emu);
        QCOMPARE(a.value("device").toString(), QStringLiteral("cpu"));
        QCOMPARE(b.value("device").toString(), QStringLiteral("cuda-emu:0"));
        QVERIFY(b.value("emulated").toBool());
        QCOMPARE(outputHashes(b).size(), 3);
        QCOMPARE(outputHashes(b), outputHashes(a));
        QCOMPARE(b.value("peak_bytes").toInteger(), b.value("estimate").toObject().value("peak_bytes").toInteger());
        QCOMPARE(b.value("allocator_peak_bytes").toInteger(), a.value("allocator_peak_bytes").toInteger());
        const Run text = fxlens({"run", mlp(), "--device", "cuda-emu:1"});
        QVERIFY2(text.exitCode == 0, qPrintable(describe(text)));
        QVERIFY2(text.out.contains("device: cuda-emu:1 (the CUDA kernels' code run by the CPU: emulation, not a GPU)"),
                 text.out.constData());
        const Run back = fxlens({"check", mlp(), out});
        QVERIFY2(back.exitCode == 0 && back.out.contains("result: bitwise equal"), qPrintable(describe(back)));
    }

    // check A A with A on the CPU and B on the device: every output and, with --localize,
    // every node's value bitwise equal; the JSON names each side's device.
    void checkAcrossDevices()
    {
        const Run r =
            fxlens({"check", mlp(), mlp(), "--device-a", "cpu", "--device-b", "cuda-emu", "--localize", "--json"});
        QVERIFY2(!r.crashed && r.exitCode == 0, qPrintable(describe(r)));
        const QJsonObject d = jsonOf(r);
        QCOMPARE(d.value("result").toString(), QStringLiteral("bitwise_equal"));
        QCOMPARE(d.value("a").toObject().value("device").toString(), QStringLiteral("cpu"));
        QCOMPARE(d.value("b").toObject().value("device").toString(), QStringLiteral("cuda-emu:0"));
        const QJsonObject counts = d.value("localize").toObject().value("counts").toObject();
        QCOMPARE(counts.value("compared").toInt(), 16);
        QCOMPARE(counts.value("equal").toInt(), 16);
        QVERIFY(d.value("localize").toObject().value("first_divergence").isNull());
        // both on the device with --device
        const Run both = fxlens({"check", mlp(), mlp(), "--device", "cuda-emu"});
        QVERIFY2(both.exitCode == 0, qPrintable(describe(both)));
        QVERIFY2(both.out.contains("devices: A on cuda-emu:0"), both.out.constData());
    }

    // check CHUNKED ORIGINAL --against eager-chunking --device cuda-emu: every run (the chunked
    // graph, the reference, the original) on the device, bitwise equal to eager chunking.
    void eagerChunkingOnTheDevice()
    {
        const QString fw = dataPath("pytorch/mlp_gelu.fw.default.code.py");
        const Run r = fxlens({"check", fw, fw, "--against", "eager-chunking", "--chunks",
                              "dim=batch,chunks=2,inputs=primals_1", "--device", "cuda-emu", "--json"});
        QVERIFY2(!r.crashed && r.exitCode == 0, qPrintable(describe(r)));
        const QJsonObject d = jsonOf(r);
        QCOMPARE(d.value("device").toString(), QStringLiteral("cuda-emu"));
        QCOMPARE(d.value("result").toString(), QStringLiteral("bitwise_equal"));
        QCOMPARE(d.value("outputs").toArray().size(), 5);
        const Run text = fxlens({"check", fw, fw, "--against", "eager-chunking", "--chunks",
                                 "dim=batch,chunks=2,inputs=primals_1", "--device", "cuda-emu"});
        QVERIFY2(text.out.contains("device: cuda-emu:0 (the CUDA kernels' code run by the CPU"), text.out.constData());
    }

    // Every traced graph of the corpus (joint and forward graphs, with their recorded inputs) and
    // of tests/data/models whose operators all have CUDA kernels: `check G G --device-a cpu
    // --device-b cuda-emu --localize` gives every output and every node value bitwise equal; a
    // graph with an operator not yet on CUDA is skipped, naming it.
    void corpusGraphsAcrossDevices_data()
    {
        QTest::addColumn<QString>("path");
        std::vector<std::filesystem::path> files = fxltest::corpusFiles("pytorch", {".code.py"});
        for (const auto& f : std::filesystem::directory_iterator(fxltest::testDataPath("models")))
            if (f.path().string().ends_with(".joint.code.py")) files.push_back(f.path());
        std::sort(files.begin(), files.end());
        for (const auto& f : files) {
            const std::string name = f.filename().string();
            if (name.find(".bw.") != std::string::npos) continue;  // a backward alone has no recorded inputs
            QTest::newRow(name.c_str()) << QString::fromStdString(f.string());
        }
    }
    void corpusGraphsAcrossDevices()
    {
        QFETCH(QString, path);
        FXL_REQUIRE_CORPUS(path.toStdString());
        const Run r =
            fxlens({"check", path, path, "--device-a", "cpu", "--device-b", "cuda-emu", "--localize", "--json"});
        QVERIFY(!r.crashed);
        const QString err = QString::fromUtf8(r.err);
        const qsizetype at = err.indexOf(QLatin1String("no CUDA kernel for "));
        if (r.exitCode == 1 && at >= 0)
            QSKIP(qPrintable("not on CUDA yet: " + err.mid(at, err.indexOf(QLatin1Char(' '), at + 19) - at)));
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        const QJsonObject d = jsonOf(r);
        QCOMPARE(d.value("result").toString(), QStringLiteral("bitwise_equal"));
        const QJsonObject counts = d.value("localize").toObject().value("counts").toObject();
        QVERIFY(counts.value("compared").toInt() > 0);
        QCOMPARE(counts.value("equal").toInt(), counts.value("compared").toInt());
        // the same bytes live at the peak on both devices
        QCOMPARE(d.value("b").toObject().value("peak_bytes").toInteger(),
                 d.value("a").toObject().value("peak_bytes").toInteger());
        qInfo("%s: %d node values bitwise equal on cuda-emu", qPrintable(path.section('/', -1)),
              counts.value("compared").toInt());
    }

    // --fast as a user meets it, per model with matrix products: `run --fast` says in its device
    // line and its JSON that the run is not comparable bitwise, and its products do differ (the
    // emulated stand-in for tensor cores rounds operands to TF32); its --out, read back by
    // `check` on the CPU, is not bitwise equal and is within a TF32 tolerance; `check
    // --device-b cuda-emu --fast` needs --tolerance, says which side ran fast, passes within
    // 1e-2 and fails at 0.
    void fastModeIsLabelled_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("mlp_gelu") << mlp();
        for (const char* m : {"t5_bias", "lstm_lm"})
            QTest::newRow(m) << dataPath(std::string("models/") + m + ".joint.code.py");
    }
    void fastModeIsLabelled()
    {
        QFETCH(QString, path);
        QTemporaryDir dir;
        const QString out = dir.filePath("fast.safetensors");
        const Run cpu = fxlens({"run", path, "--json"});
        QVERIFY2(cpu.exitCode == 0, qPrintable(describe(cpu)));
        const Run fast = fxlens({"run", path, "--device", "cuda-emu", "--fast", "--out", out, "--json"});
        QVERIFY2(fast.exitCode == 0, qPrintable(describe(fast)));
        const QJsonObject f = jsonOf(fast);
        QVERIFY(f.value("fast").toBool());
        QVERIFY(!f.value("comparable_bitwise").toBool(true));
        QVERIFY(!jsonOf(cpu).value("fast").toBool(true));
        QVERIFY(jsonOf(cpu).value("comparable_bitwise").toBool());
        QVERIFY(outputHashes(f) != outputHashes(jsonOf(cpu)));  // the products did change
        const Run text = fxlens({"run", path, "--device", "cuda-emu:0", "--fast"});
        QVERIFY2(text.exitCode == 0, qPrintable(describe(text)));
        QVERIFY2(text.out.contains("device: cuda-emu:0 (fast mode: matrix products on tensor cores (cuBLAS, TF32 for "
                                   "f32), not comparable bitwise; emulated: "),
                 text.out.constData());
        // the fast run's file against the CPU: not bitwise, within a TF32 tolerance
        const Run bitwise = fxlens({"check", path, out});
        FXL_EXPECT_EXIT(bitwise, 1);
        QVERIFY2(bitwise.out.contains("result: not bitwise equal"), bitwise.out.constData());
        const Run within = fxlens({"check", path, out, "--tolerance", "1e-2,1e-2"});
        QVERIFY2(within.exitCode == 0, qPrintable(describe(within)));
        // check with a fast side: --tolerance required, the side named, the verdict by tolerance
        const Run noTol = fxlens({"check", path, path, "--device-b", "cuda-emu", "--fast"});
        FXL_EXPECT_EXIT(noTol, 2);
        QVERIFY2(noTol.err.contains("--fast runs are not comparable bitwise: give --tolerance ATOL,RTOL"),
                 noTol.err.constData());
        const Run ok = fxlens({"check", path, path, "--device-b", "cuda-emu", "--fast", "--tolerance", "1e-2,1e-2"});
        QVERIFY2(ok.exitCode == 0, qPrintable(describe(ok)));
        QVERIFY2(ok.out.contains("B in fast mode: matrix products on tensor cores (cuBLAS, TF32 for f32), not "
                                 "comparable bitwise: judged within the tolerance\n"),
                 ok.out.constData());
        QVERIFY2(ok.out.contains("result: within tolerance (atol 0.01, rtol 0.01), not bitwise equal"),
                 ok.out.constData());
        const Run exact =
            fxlens({"check", path, path, "--device-b", "cuda-emu", "--fast", "--tolerance", "0,0", "--json"});
        FXL_EXPECT_EXIT(exact, 1);
        const QJsonObject e = jsonOf(exact);
        QVERIFY(!e.value("comparable_bitwise").toBool(true));
        QVERIFY(e.value("fast").toObject().value("b").toBool());
        QVERIFY(!e.value("fast").toObject().value("a").toBool(true));
        QCOMPARE(e.value("result").toString(), QStringLiteral("different"));
    }

    // --fast where it does not apply: the CPU (the reference), eager chunking (bitwise), the
    // report (bitwise steps), a GPU that is not there.
    void fastModeRefusals()
    {
        const Run cpu = fxlens({"run", mlp(), "--fast"});
        FXL_EXPECT_EXIT(cpu, 2);
        QVERIFY2(cpu.err.contains("--fast is a mode of the CUDA backend"), cpu.err.constData());
        const Run both = fxlens({"check", mlp(), mlp(), "--fast", "--tolerance", "1e-2,1e-2"});
        FXL_EXPECT_EXIT(both, 2);
        QVERIFY2(both.err.contains("--fast is a mode of the CUDA backend"), both.err.constData());
        const Run chunks = fxlens({"check", mlp(), mlp(), "--against", "eager-chunking", "--chunks",
                                   "regions=*,dim=batch,chunks=2", "--device", "cuda-emu", "--fast"});
        FXL_EXPECT_EXIT(chunks, 2);
        QVERIFY2(chunks.err.contains("--fast does not apply to --against eager-chunking (bitwise)"),
                 chunks.err.constData());
        const Run report = fxlens({"report", mlp(), "--pipeline", "dce", "--check", "--device", "cuda-emu", "--fast"});
        FXL_EXPECT_EXIT(report, 2);
        const QMap<QString, QString> noDriver{{"FXLENS_CUDA_DRIVER", "/nonexistent/fxlens-test/libcuda.so.1"}};
        const Run gone = runProcess(kFxlensBinary, {"run", mlp(), "--device", "cuda:0", "--fast"}, 60000, noDriver);
        FXL_EXPECT_EXIT(gone, 1);
        QVERIFY2(gone.err.contains("fxlens run: error: --device cuda:0: "), gone.err.constData());
        const Run devices = runProcess(kFxlensBinary, {"devices"}, 60000, noDriver);
        QVERIFY2(devices.exitCode == 0, qPrintable(describe(devices)));
#if defined(FXLENS_HAVE_CUDA)
        QVERIFY2(devices.out.contains("  fast mode (--fast): not available: no CUDA device ("),
                 devices.out.constData());
#else
        QVERIFY2(devices.out.contains("  fast mode (--fast): not available: this fxlens was built without CUDA"),
                 devices.out.constData());
#endif
        const Run devicesJson = runProcess(kFxlensBinary, {"devices", "--json"}, 60000, noDriver);
        const QJsonObject fm = jsonOf(devicesJson).value("cuda").toObject().value("fast_mode").toObject();
        QVERIFY(!fm.value("available").toBool(true));
        QVERIFY(fm.value("text").toString().startsWith("not available: "));
    }

    // The refusals.
    void refusals()
    {
        // an operator with no CUDA kernel yet: named before anything runs
        const Run ce = fxlens({"run", dataPath("models/moe_bag.joint.code.py"), "--device", "cuda-emu"});
        FXL_EXPECT_EXIT(ce, 1);
        QVERIFY2(ce.err.contains("(aten._embedding_bag.default): no CUDA kernel for aten._embedding_bag.default yet"),
                 ce.err.constData());
        QVERIFY2(ce.err.contains("docs/coverage.md"), ce.err.constData());
        // a name no backend has
        const Run bad = fxlens({"run", mlp(), "--device", "tpu:0"});
        FXL_EXPECT_EXIT(bad, 2);
        QVERIFY2(bad.err.contains("--device expects cpu, cuda:N or cuda-emu:N, got 'tpu:0'"), bad.err.constData());
        const Run badB = fxlens({"check", mlp(), mlp(), "--device-b", "gpu"});
        FXL_EXPECT_EXIT(badB, 2);
        // a CUDA device that is not there (no driver): the reason, exit 1, for run and check
        const QMap<QString, QString> noDriver{{"FXLENS_CUDA_DRIVER", "/nonexistent/fxlens-test/libcuda.so.1"}};
        const Run gone = runProcess(kFxlensBinary, {"run", mlp(), "--device", "cuda:0"}, 60000, noDriver);
        FXL_EXPECT_EXIT(gone, 1);
        QVERIFY2(gone.err.contains("fxlens run: error: --device cuda:0: "), gone.err.constData());
        QVERIFY2(gone.err.contains("CUDA"), gone.err.constData());
        const Run goneB =
            runProcess(kFxlensBinary, {"check", mlp(), mlp(), "--device-b", "cuda:0", "--json"}, 60000, noDriver);
        FXL_EXPECT_EXIT(goneB, 1);
        QVERIFY2(jsonOf(goneB).value("error").toString().startsWith("--device cuda:0: "), goneB.out.constData());
    }
};

FXL_TEST_APPLESS_MAIN(TestCliDeviceRuns)
}  // namespace test_cli_device_runs
#include "test_cli_device_runs.moc"

// The prepared GPU check (tests/gpu/README.md) is complete: tests/gpu/prepare.sh puts the check
// binary, the corpus graphs and the chunked graphs into a folder, and tests/gpu/run.sh, given
// only that folder and the working tree (what the device tool carries to a GPU machine), runs
// the binary and prints its table. Here the binary runs with the CPU backend as its device (and
// with the emulated CUDA device on the kernel cases), so every row must be bitwise equal, and
// every carried graph must have run.
#include <QDir>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_gpu_check {

using namespace clitest;

namespace {

QString repoRoot() { return QString::fromStdString(fxltest::testDataPath().parent_path().parent_path().string()); }
QString buildPath(const char* rel) { return QString::fromStdString((fxltest::buildDir() / rel).string()); }

}  // namespace

class TestGpuCheck : public QObject
{
    Q_OBJECT

private slots:
    void preparedCheckRuns()
    {
        FXL_REQUIRE_CORPUS(fxltest::corpusPath("pytorch/gpt2_tiny.joint.code.py"));
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString dir = tmp.filePath(QStringLiteral("carry"));
        const QMap<QString, QString> corpusEnv{
            {QStringLiteral("FXLENS_CORPUS_DIR"), QString::fromStdString(fxltest::corpusDir().string())}};
        QStringList prepArgs{repoRoot() + QStringLiteral("/tests/gpu/prepare.sh"),
                             QStringLiteral("--bin"),
                             buildPath("tests/gpu/fxlens_gpu_check"),
                             QStringLiteral("--fxlens"),
                             buildPath("app/fxlens"),
                             QStringLiteral("--out"),
                             dir};
        // a sanitizer build's binary is several times the release one's and is never carried:
        // the size limit is checked in the release build
        // under the sanitizers the 100k-node graph's run alone takes a minute: the release
        // build's test carries it
        if (fxltest::kSanitizedBuild) prepArgs << QStringLiteral("--no-limit") << QStringLiteral("--no-large");
        const Run prep = runProcess(QStringLiteral("bash"), prepArgs, 300000, corpusEnv);
        QVERIFY2(prep.exitCode == 0 && !prep.crashed, qPrintable(describe(prep)));
        // under the device tool's limit, the tracked files included
        const QRegularExpression size(QStringLiteral("(\\d+) KiB with the tracked files \\(limit 65536 KiB\\)"));
        const auto m = size.match(QString::fromUtf8(prep.out));
        QVERIFY2(m.hasMatch(), qPrintable(describe(prep)));
        if (!fxltest::kSanitizedBuild) QVERIFY(m.captured(1).toLongLong() < 65536);
        // every carried graph, and those of tests/data/models, gets a row
        QStringList graphs;
        for (const QString& d : {dir + QStringLiteral("/graphs"), dir + QStringLiteral("/graphs/chunked"),
                                 repoRoot() + QStringLiteral("/tests/data/models")})
            for (const QString& f : QDir(d).entryList({QStringLiteral("*.py")}, QDir::Files)) graphs << f;
        QVERIFY2(graphs.size() >= 20, qPrintable(graphs.join(' ')));
        QCOMPARE(graphs.contains(QStringLiteral("gpt2_deep640.joint.code.py")),  // the 100k-node graph
                 !fxltest::kSanitizedBuild);
        QVERIFY(graphs.contains(QStringLiteral("gpt2_tiny_chunk_region.py")));
        QVERIFY(graphs.contains(QStringLiteral("linear_ce_auto_chunk.py")));

        const QString out = tmp.filePath(QStringLiteral("out"));
        QVERIFY(QDir().mkpath(out));
        const Run r = runProcess(QStringLiteral("bash"), {repoRoot() + QStringLiteral("/tests/gpu/run.sh")}, 600000,
                                 {{QStringLiteral("FXLENS_GPU_CHECK_DIR"), dir},
                                  {QStringLiteral("FXLENS_GPU_CHECK_DEVICE"), QStringLiteral("cpu")},
                                  {QStringLiteral("FXLENS_GPU_CHECK_BITS"), QStringLiteral("16")},
                                  {QStringLiteral("FXLENS_GPU_CHECK_PYTHON"), QStringLiteral("/usr/bin/python3")},
                                  {QStringLiteral("FXLENS_GPU_CHECK_EAGER_DEVICE"), QStringLiteral("cpu")},
                                  {QStringLiteral("FXLENS_GPU_CHECK_EAGER_REPS"), QStringLiteral("1")},
                                  {QStringLiteral("OUT"), out}});
        const QString text = QString::fromUtf8(r.out);
        QVERIFY2(r.exitCode == 0 && !r.crashed, qPrintable(describe(r)));
        QVERIFY2(text.contains(QStringLiteral("\neverything that ran is bitwise equal to the CPU\n")),
                 qPrintable(text));
        QCOMPARE(QString::fromUtf8(fxltest::readFile(out + QStringLiteral("/gpu_check.txt"))), text);
        // the kernel families: every case ran (the CPU has every kernel), none differs
        for (const char* family : {"elementwise", "reduction", "matmul", "shape", "conv_pool", "differential"}) {
            const QRegularExpression row(QStringLiteral("\n%1 +(\\d+) +(\\d+) +(\\d+) +0 +0\n").arg(family));
            const auto fm = row.match(text);
            QVERIFY2(fm.hasMatch(), qPrintable(QString::fromUtf8(family) + QStringLiteral(":\n") + text));
            QVERIFY(fm.captured(1).toInt() > 0);
        }
        for (const QString& g : graphs)
            QVERIFY2(text.contains(QRegularExpression(
                         QStringLiteral("\n%1 +\\d+ +\\d+ yes ").arg(QRegularExpression::escape(g)))),
                     qPrintable(g + QStringLiteral(" did not run bitwise equal:\n") + text));
        // the GEMM's speed against cuBLAS: a GPU's table only
        QVERIFY2(text.contains(QStringLiteral("\nmatmul speed (f32, best of 5; target: at least 0.8 of cuBLAS FP32)\n"
                                              "  skipped: cpu is not a GPU of this build\n")),
                 qPrintable(text));
        // the train steps in PyTorch's eager mode (here on the CPU, where Debian's PyTorch is
        // installed) against fxlens' device outputs, which the check binary wrote: a row per
        // model with recorded inputs, close to fxlens' numbers; skipped, saying so, without PyTorch
        const Run torch =
            runProcess(QStringLiteral("/usr/bin/python3"), {QStringLiteral("-c"), QStringLiteral("import torch")});
        if (torch.exitCode == 0 && !torch.crashed) {
            QVERIFY2(text.contains(QStringLiteral("\ntrain step against PyTorch ")), qPrintable(text));
            const QRegularExpression eager(
                QStringLiteral("\n(\\S+) +(\\d+\\.\\d+) +(\\d+\\.\\d+) +(\\d+) +(\\d+) +([0-9.e+-]+)(?=\n)"));
            QStringList rows;
            for (auto it = eager.globalMatch(text); it.hasNext();) {
                const auto m = it.next();
                rows << m.captured(1);
                QVERIFY2(m.captured(4).toInt() > 0, qPrintable(m.captured(0)));
                QVERIFY2(m.captured(6).toDouble() < 1e-4, qPrintable(m.captured(0)));  // float32 steps, other orders
            }
            for (const char* g : {"gpt2_tiny.joint.code.py", "llama_tiny.joint.code.py", "linear_ce.joint.code.py",
                                  "t5_bias.joint.code.py", "lstm_lm.joint.code.py"})
                QVERIFY2(rows.contains(QString::fromUtf8(g)),
                         qPrintable(QString::fromUtf8(g) + QStringLiteral(":\n") + text));
        } else {
            QVERIFY2(
                text.contains(QStringLiteral("\ntrain step against PyTorch eager: skipped (/usr/bin/python3 has no "
                                             "PyTorch with cpu)\n")),
                qPrintable(text));
        }
        // the functions: f32 over 2^16 evenly spaced inputs, bf16 and f16 over all 2^16
        QCOMPARE(text.count(QRegularExpression(
                     QStringLiteral("\naten\\.\\w+\\.default (f32|bf16|f16) +65536 [0-9a-f]{16} [0-9a-f]{16} yes "))),
                 36);
    }

    // run.sh without what prepare.sh makes says so and exits 2; the binary refuses a device that
    // is not there with exit 1.
    void missingPiecesAreNamed()
    {
        QTemporaryDir tmp;
        const Run r = runProcess(QStringLiteral("bash"), {repoRoot() + QStringLiteral("/tests/gpu/run.sh")}, 60000,
                                 {{QStringLiteral("FXLENS_GPU_CHECK_DIR"), tmp.path()}});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(QString::fromUtf8(r.out).contains(QStringLiteral("run tests/gpu/prepare.sh and carry .gpu_check")),
                 qPrintable(describe(r)));
        const Run d =
            runProcess(buildPath("tests/gpu/fxlens_gpu_check"),
                       {QStringLiteral("--device"), QStringLiteral("cuda:7"), QStringLiteral("--data"),
                        repoRoot() + QStringLiteral("/tests/data")},
                       60000, {{QStringLiteral("FXLENS_CUDA_DRIVER"), QStringLiteral("/nonexistent/libcuda.so.1")}});
        QCOMPARE(d.exitCode, 1);
        QVERIFY2(QString::fromUtf8(d.out).startsWith(QStringLiteral("fxlens GPU check: no device: cuda:7: ")),
                 qPrintable(describe(d)));
        const Run u = runProcess(buildPath("tests/gpu/fxlens_gpu_check"), {QStringLiteral("--sweep-bits")});
        QCOMPARE(u.exitCode, 2);
    }
};

FXL_TEST_GUILESS_MAIN(TestGpuCheck)
}  // namespace test_gpu_check
#include "test_gpu_check.moc"

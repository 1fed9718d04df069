// `fxlens devices` as a user runs it: the CPU line (its core count and GEMM path), the CUDA
// section with every device the driver reports or the reason there is none, whether graphs can
// run on CUDA, and NCCL / cuBLAS found or not, in text and --json. The NVIDIA driver is a
// stand-in library (fake_cuda_driver.c, two devices) or a missing file; NCCL and cuBLAS are
// the toolkit's where installed, a missing file, or a library that is not them.
#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <QThread>
#include <QtTest>

#include <filesystem>

#include "cli_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_cli_devices {

using namespace clitest;

namespace {

// fxlens devices [--json] with these environment variables set (an empty value removes one)
Run devices(const QMap<QString, QString>& env, bool json)
{
    return runProcess(kFxlensBinary, json ? QStringList{"devices", "--json"} : QStringList{"devices"}, 60000, env);
}

QString fakeDriver()
{
    return QString::fromStdString((fxltest::buildDir() / "tests" / "libfake_cuda_driver.so").string());
}

const QString kMissing = QStringLiteral("/nonexistent/fxlens-test/libmissing.so.1");

}  // namespace

class TestCliDevices : public QObject
{
    Q_OBJECT

private slots:
    // The CPU line: the machine's core count and the GEMM path in use; the CUDA section and the
    // libraries always present in the text.
    void cpuLine()
    {
        const Run r = devices({{"FXLENS_CUDA_DRIVER", kMissing}}, false);
        QVERIFY2(!r.crashed && r.exitCode == 0, qPrintable(describe(r)));
        const QString out = QString::fromUtf8(r.out);
        const QRegularExpression cpu(QStringLiteral("^cpu: (\\d+) cores, GEMM path (avx512|avx2|scalar)"),
                                     QRegularExpression::MultilineOption);
        const auto m = cpu.match(out);
        QVERIFY2(m.hasMatch(), qPrintable(out));
        QCOMPARE(m.captured(1).toInt(), QThread::idealThreadCount());
        for (const char* line : {"\ncuda: ", "\n  graphs on CUDA: ", "\nnccl: ", "\ncublas: "})
            QVERIFY2(out.contains(QLatin1String(line)), qPrintable(out));
    }

    // No driver: no device, the reason names the file that could not be loaded; the JSON says
    // the same, and why graphs cannot run on CUDA.
    void noDriver()
    {
        const Run r = devices({{"FXLENS_CUDA_DRIVER", kMissing}}, false);
        QVERIFY2(!r.crashed && r.exitCode == 0, qPrintable(describe(r)));
        const QString out = QString::fromUtf8(r.out);
        QVERIFY2(out.contains("no CUDA device: no NVIDIA driver: " + kMissing), qPrintable(out));
        QVERIFY2(out.contains("driver none"), qPrintable(out));
        const Run j = devices({{"FXLENS_CUDA_DRIVER", kMissing}}, true);
        QCOMPARE(j.exitCode, 0);
        const QJsonObject doc = parseJsonDoc(j.out);
        QCOMPARE(doc["fxlens"].toString(), QStringLiteral("devices"));
        const QJsonObject cuda = doc["cuda"].toObject();
        QCOMPARE(cuda["devices"].toArray().size(), 0);
        QVERIFY(cuda["why_none"].toString().startsWith("no NVIDIA driver: " + kMissing));
        QCOMPARE(cuda["driver"].toObject()["found"].toBool(), false);
        QVERIFY(!cuda["backend"].toString().isEmpty());
        QCOMPARE(doc["cpu"].toObject()["cores"].toInt(), QThread::idealThreadCount());
    }

    // A driver with two devices: each listed with its name, memory, compute capability and
    // multiprocessors, in text and JSON, with the driver's version.
    void devicesListed()
    {
        QVERIFY2(std::filesystem::exists(fakeDriver().toStdString()), qPrintable(fakeDriver()));
        const Run r = devices({{"FXLENS_CUDA_DRIVER", fakeDriver()}}, false);
        QVERIFY2(!r.crashed && r.exitCode == 0, qPrintable(describe(r)));
        const QString out = QString::fromUtf8(r.out);
        QVERIFY2(out.contains("driver 13.0 (" + fakeDriver() + ")"), qPrintable(out));
        QVERIFY2(out.contains("  cuda:0  Fake H200, 150.0 GiB, compute capability 9.0, 132 multiprocessors\n"),
                 qPrintable(out));
        QVERIFY2(out.contains("  cuda:1  Fake L4, 24.0 GiB, compute capability 8.9, 58 multiprocessors\n"),
                 qPrintable(out));
        QVERIFY2(!out.contains("no CUDA device"), qPrintable(out));
#if defined(FXLENS_HAVE_CUDA)
        // devices found: graphs can run there, labelled with what the backend was checked by
        QVERIFY2(out.contains("\n  graphs on CUDA: yes, checked once on one GPU (an H200: the corpus graphs bitwise "
                              "equal to the CPU;"),
                 qPrintable(out));
#else
        QVERIFY2(out.contains("\n  graphs on CUDA: this fxlens was built without CUDA"), qPrintable(out));
#endif
        const QJsonObject cuda =
            parseJsonDoc(devices({{"FXLENS_CUDA_DRIVER", fakeDriver()}}, true).out)["cuda"].toObject();
        const QJsonArray list = cuda["devices"].toArray();
        QCOMPARE(list.size(), 2);
        QCOMPARE(list[1].toObject()["name"].toString(), QStringLiteral("Fake L4"));
        QCOMPARE(list[1].toObject()["compute_capability"].toString(), QStringLiteral("8.9"));
        QCOMPARE(list[0].toObject()["memory_bytes"].toDouble(), double(150ull << 30));
        QCOMPARE(cuda["driver_version"].toString(), QStringLiteral("13.0"));
        QVERIFY(!cuda.contains("why_none"));
    }

    // A driver that loads but finds no device, or whose start fails: the driver's own words.
    void driverErrors()
    {
        Run r = devices({{"FXLENS_CUDA_DRIVER", fakeDriver()}, {"FAKE_CUDA_DEVICES", "0"}}, false);
        QVERIFY2(QString::fromUtf8(r.out).contains("no CUDA device: the NVIDIA driver found no CUDA device"),
                 qPrintable(describe(r)));
        r = devices({{"FXLENS_CUDA_DRIVER", fakeDriver()}, {"FAKE_CUDA_INIT_ERROR", "100"}}, false);
        QVERIFY2(QString::fromUtf8(r.out).contains(
                     "no CUDA device: the NVIDIA driver did not start: no CUDA-capable device is detected"),
                 qPrintable(describe(r)));
        QCOMPARE(r.exitCode, 0);
    }

    // NCCL and cuBLAS: absent (the file named), a library that is not them, and, where the
    // toolkit is installed, found with a version.
    void libraries()
    {
        Run r = devices(
            {{"FXLENS_CUDA_DRIVER", kMissing}, {"FXLENS_NCCL_LIBRARY", kMissing}, {"FXLENS_CUBLAS_LIBRARY", kMissing}},
            true);
        QJsonObject doc = parseJsonDoc(r.out);
        for (const char* lib : {"nccl", "cublas"}) {
            QCOMPARE(doc[lib].toObject()["found"].toBool(), false);
            QVERIFY2(doc[lib].toObject()["why"].toString().contains(kMissing), lib);
        }
        // libm is a loadable library that is neither
        r = devices({{"FXLENS_CUDA_DRIVER", "libm.so.6"},
                     {"FXLENS_NCCL_LIBRARY", "libm.so.6"},
                     {"FXLENS_CUBLAS_LIBRARY", "libm.so.6"}},
                    false);
        const QString out = QString::fromUtf8(r.out);
        // (the file as the loader resolved the name)
        QVERIFY2(QRegularExpression(R"(\nnccl: not found \(\S*libm\.so\.6 has no ncclGetVersion \(not NCCL\?\)\)\n)")
                     .match(out)
                     .hasMatch(),
                 qPrintable(out));
        QVERIFY2(
            QRegularExpression(R"(\ncublas: not found \(\S*libm\.so\.6 has no cublasGetProperty \(not cuBLAS\?\)\)\n)")
                .match(out)
                .hasMatch(),
            qPrintable(out));
        QVERIFY2(QRegularExpression(R"(no CUDA device: \S*libm\.so\.6 lacks the driver API's device calls)")
                     .match(out)
                     .hasMatch(),
                 qPrintable(out));
        QVERIFY2(out.contains("driver of unknown version ("), qPrintable(out));
        const QString nccl = QStringLiteral("/usr/local/cuda/lib64/libnccl.so.2");
        if (!QFile::exists(nccl)) QSKIP("no NCCL at /usr/local/cuda/lib64 on this machine: the found case is not run");
        doc = parseJsonDoc(devices({{"FXLENS_CUDA_DRIVER", kMissing}, {"FXLENS_NCCL_LIBRARY", nccl}}, true).out);
        QCOMPARE(doc["nccl"].toObject()["found"].toBool(), true);
        QVERIFY2(QRegularExpression("^2\\.\\d+\\.\\d+$").match(doc["nccl"].toObject()["version"].toString()).hasMatch(),
                 qPrintable(doc["nccl"].toObject()["version"].toString()));
    }
};

FXL_TEST_GUILESS_MAIN(TestCliDevices)
}  // namespace test_cli_devices
#include "test_cli_devices.moc"

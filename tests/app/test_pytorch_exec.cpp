// The graphs fxlens writes run in PyTorch: `fxlens passes run --out` writes every step as
// print_readable text; tests/python/run_fx_graph.py execs that text in PyTorch on the corpus
// inputs. The input graph must reproduce the corpus outputs bitwise (same PyTorch, same
// graph, one thread) and the last step must reproduce the input's outputs bitwise (the passes
// only drop, merge or recompute: the same kernels on the same values).
#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <memory>

#include "core/formats/safetensors.hpp"
#include "core/ir/diagnostics.hpp"

#include "cli_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_pytorch_exec {

using namespace clitest;

namespace {

const QString kBinary = clitest::kFxlensBinary;
const QString kPytorch = QString::fromStdString(fxltest::corpusPath("pytorch").string());
// the model kinds traced here (tests/python/make_models.py), committed
const QString kModels = QString::fromStdString(fxltest::testDataPath("models").string());
const QString kHarness =
    QString::fromStdString((fxltest::testDataPath() / ".." / "python" / "run_fx_graph.py").string());

// A Python that can import torch: $FXLENS_PYTHON, python3 on PATH, then the system one
// (Debian's python3-torch lives there; a pyenv python3 on PATH may lack it).
QString findTorchPython()
{
    QStringList candidates;
    const QString env = qEnvironmentVariable("FXLENS_PYTHON");
    if (!env.isEmpty()) candidates << env;
    candidates << QStringLiteral("python3") << QStringLiteral("/usr/bin/python3");
    for (const QString& py : candidates) {
        const Run r = runProcess(py, {QStringLiteral("-c"), QStringLiteral("import torch")}, 120000);
        if (!r.crashed && r.exitCode == 0) return py;
    }
    return {};
}

// Tensor-by-tensor bitwise comparison; "" when equal, else what differs first.
// `closeEnough`: float32 outputs may differ within |x - y| <= 1e-5 + 1e-4 |x| (the outputs a
// PyTorch on another CPU recorded: its kernels pick their vector path by the CPU, AVX2 or
// AVX-512, and so their bits); otherwise every byte must be equal.
QString compareBitwise(const QString& expectedPath, const QString& actualPath, bool closeEnough = false)
{
    fxl::SafeTensorsFile e, a;
    try {
        e = fxl::readSafetensors(expectedPath.toStdString());
        a = fxl::readSafetensors(actualPath.toStdString());
    } catch (const fxl::InputError& err) {
        return QString::fromStdString(err.diagnostic().format());
    }
    // the written states (state.NAME) of tests/data/models' files are not outputs of the harness
    std::erase_if(e.tensors, [](const fxl::SafeTensor& t) { return t.name.rfind("state.", 0) == 0; });
    if (e.tensors.size() != a.tensors.size())
        return QStringLiteral("%1 tensors expected, %2 written").arg(e.tensors.size()).arg(a.tensors.size());
    for (const fxl::SafeTensor& t : e.tensors) {
        const fxl::SafeTensor* u = a.find(t.name);
        const QString name = QString::fromStdString(t.name);
        if (!u) return name + QStringLiteral(" missing");
        if (u->dtype != t.dtype) return name + QStringLiteral(": dtype differs");
        if (u->shape != t.shape) return name + QStringLiteral(": shape differs");
        if (u->data == t.data) continue;
        QString msg = name + QStringLiteral(": bytes differ");
        if (t.dtype == fxl::DType::F32 && t.data.size() == u->data.size()) {
            double worst = 0;
            size_t count = 0, far = 0;
            for (size_t i = 0; i + 4 <= t.data.size(); i += 4) {
                float x, y;
                std::memcpy(&x, t.data.data() + i, 4);
                std::memcpy(&y, u->data.data() + i, 4);
                if (std::memcmp(&x, &y, 4) != 0) ++count;
                const double d = std::fabs(double(x) - double(y));
                worst = std::max(worst, d);
                if (!(d <= 1e-5 + 1e-4 * std::fabs(double(x)))) ++far;
            }
            if (closeEnough && far == 0) continue;
            msg += QStringLiteral(" (%1 of %2 floats, max |diff| %3)").arg(count).arg(t.data.size() / 4).arg(worst);
        }
        return msg;
    }
    return {};
}

}  // namespace

class TestPytorchExec : public QObject
{
    Q_OBJECT

    QString python_;
    // run_fx_graph.py --serve: PyTorch imported once (3 s) for every graph of the test
    std::unique_ptr<QProcess> server_;
    QStringList passes_;
    QTemporaryDir cache_;  // outputs of input graphs already run
    QMap<QByteArray, QString> inputOutputs_;  // md5 of 00_input.py -> its outputs file

    // Runs the harness on one graph file; returns "" on success, else the error text. `dir`
    // holds NAME's inputs and constants (the corpus' pytorch/, or tests/data/models).
    QString execGraph(const QString& graph, const QString& name, const QString& out, const QString& dir = kPytorch)
    {
        // the constants fxlens wrote beside the step graph (NN_<pass>.constants.safetensors), so
        // PyTorch checks them too; the joint's must then exist as well
        QString constants = graph;
        constants.replace(QRegularExpression(QStringLiteral("\\.py$")), QStringLiteral(".constants.safetensors"));
        const bool jointHasConstants = QFileInfo::exists(dir + "/" + name + ".joint.constants.safetensors");
        if (jointHasConstants != QFileInfo::exists(constants))
            return graph
                + (jointHasConstants ? ": no constants file beside it" : ": a constants file it should not have");
        QJsonObject req{{QStringLiteral("graph"), graph},
                        {QStringLiteral("inputs"), dir + "/" + name + ".inputs.safetensors"},
                        {QStringLiteral("out"), out}};
        if (jointHasConstants) req.insert(QStringLiteral("constants"), constants);
        if (!server_ || server_->state() != QProcess::Running) {
            server_ = std::make_unique<QProcess>();
            server_->setProcessChannelMode(QProcess::SeparateChannels);
            server_->start(python_, {QStringLiteral("-u"), kHarness, QStringLiteral("--serve")});
            if (!server_->waitForStarted(10000)) return QStringLiteral("could not start ") + python_ + " " + kHarness;
        }
        server_->write(QJsonDocument(req).toJson(QJsonDocument::Compact) + "\n");
        QByteArray line;
        while (!line.endsWith('\n')) {
            if (!server_->canReadLine() && !server_->waitForReadyRead(300000))
                return graph + ": the harness did not answer: " + QString::fromUtf8(server_->readAllStandardError());
            line += server_->readLine();
        }
        const QJsonObject answer = QJsonDocument::fromJson(line).object();
        const int rc = answer.value(QStringLiteral("rc")).toInt(-1);
        if (rc != 0)
            return QStringLiteral("%1 failed (exit %2): %3")
                .arg(graph)
                .arg(rc)
                .arg(answer.value(QStringLiteral("err")).toString());
        return {};
    }

private slots:
    void cleanupTestCase()
    {
        if (!server_) return;
        server_->closeWriteChannel();
        if (!server_->waitForFinished(10000)) server_->kill();
    }

    void initTestCase()
    {
        if (fxltest::kSanitizedBuild)
            QSKIP("PyTorch's numbers on the written steps are checked in the release stage; under ASan the fxlens "
                  "code this runs (passes run --out) is that of test_cli_steps");
        QVERIFY2(QFileInfo(kBinary).isExecutable(), qPrintable("fxlens binary missing: " + kBinary));
        QVERIFY2(QFileInfo::exists(kHarness), qPrintable("harness missing: " + kHarness));
        python_ = findTorchPython();
        const Run r = runProcess(kBinary, {QStringLiteral("passes"), QStringLiteral("list"), QStringLiteral("--json")});
        for (const auto& p : parseJsonDoc(r.out)[QStringLiteral("passes")].toArray())
            passes_ << p[QStringLiteral("name")].toString();
    }

    void execSteps_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("pipeline");
        QTest::addColumn<bool>("mustChange");  // the pipeline is expected to rewrite this graph
        QTest::addColumn<QString>("dir");
        for (const char* n : {"gpt2_tiny", "llama_tiny"}) {
            for (const char* policy : {"save_list", "alternate_mm"}) {
                const QString p = QStringLiteral("remove_detach,sac(policy=%1),remat,dce").arg(QLatin1String(policy));
                QTest::newRow(qPrintable(QStringLiteral("%1 %2").arg(QLatin1String(n), p)))
                    << QString::fromLatin1(n) << p << true << kPytorch;
            }
        }
        // every corpus case through the cleanup passes: the printed text of each runs
        for (const char* n :
             {"mlp_gelu", "linear_ce", "gpt2_tiny", "llama_tiny", "moe_tiny", "moe_dispatch", "checkpoint_mlp"})
            QTest::newRow(qPrintable(QStringLiteral("%1 remove_detach,cse,dce").arg(QLatin1String(n))))
                << QString::fromLatin1(n) << QStringLiteral("remove_detach,cse,dce") << false << kPytorch;
        // the model kinds the corpus lacks through the remat pipeline
        for (const char* n :
             {"bn_convnet", "gn_resnet", "unet", "vit_cls", "lstm_lm", "gru_steps", "t5_bias", "moe_bag"})
            QTest::newRow(qPrintable(QStringLiteral("models/%1 remat").arg(QLatin1String(n))))
                << QString::fromLatin1(n) << QStringLiteral("remove_detach,sac(policy=alternate_mm),remat,dce") << false
                << kModels;
    }
    void execSteps()
    {
        QFETCH(QString, name);
        QFETCH(QString, pipeline);
        QFETCH(bool, mustChange);
        QFETCH(QString, dir);
        // the models need no corpus; where it is absent this is the corpus rule's twin of the
        // test (tests/tools/corpus_rule_check.cmake), which checks the corpus rows: the model
        // rows, each a minute of PyTorch, run in the test itself
        std::error_code ec;
        if (dir == kModels && !std::filesystem::exists(fxltest::corpusDir(), ec))
            QSKIP("no corpus: the model rows run where the corpus is (test_pytorch_exec); this run checks the "
                  "corpus rows");
        if (python_.isEmpty())
            QSKIP("no Python with PyTorch ('import torch' fails for $FXLENS_PYTHON, python3 and /usr/bin/python3)");
        const QString file = dir + "/" + name + ".joint.code.py";
        FXL_REQUIRE_CORPUS(file);
        for (QString stage : pipeline.split(',')) {
            stage = stage.left(stage.indexOf('('));
            QVERIFY2(passes_.contains(stage), qPrintable("'fxlens passes list' lacks the pass '" + stage + "'"));
        }

        QTemporaryDir tmp;
        const QString out = tmp.filePath(QStringLiteral("steps"));
        const Run r = runProcess(kBinary,
                                 {QStringLiteral("passes"), QStringLiteral("run"), file, QStringLiteral("--pipeline"),
                                  pipeline, QStringLiteral("--out"), out, QStringLiteral("--json")});
        QVERIFY(!r.crashed);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonArray steps = parseJsonDoc(r.out)[QStringLiteral("steps")].toArray();
        QCOMPARE(steps.size(), pipeline.count(',') + 2);
        QStringList lastGraphs;
        for (const auto& f : steps.last()[QStringLiteral("files")].toArray())
            if (f.toString().endsWith(QLatin1String(".py"))) lastGraphs << f.toString();
        QVERIFY2(lastGraphs.size() == 1, "the last step holds one graph");
        const QString last = out + "/" + lastGraphs.front();
        QVERIFY(last.endsWith(QLatin1String(".py")));
        if (mustChange) {
            int changes = 0;
            for (const auto& s : steps) {
                const QJsonObject c = s[QStringLiteral("changes")].toObject();
                changes += c[QStringLiteral("added")].toInt() + c[QStringLiteral("removed")].toInt()
                    + c[QStringLiteral("rewired")].toInt();
            }
            QVERIFY2(changes > 0, "the pipeline changed nothing: the comparison would prove little");
        }

        // Every pipeline on a case writes the same 00_input.py: run each distinct text once.
        const QString input = out + QStringLiteral("/00_input.py");
        QVERIFY2(QFileInfo::exists(input), qPrintable(input));
        const QByteArray key = QCryptographicHash::hash(readFile(input), QCryptographicHash::Md5);
        QString inOut = inputOutputs_.value(key);
        QString err;
        if (inOut.isEmpty()) {
            inOut = cache_.filePath(QStringLiteral("input%1.out.safetensors").arg(inputOutputs_.size()));
            err = execGraph(input, name, inOut, dir);
            QVERIFY2(err.isEmpty(), qPrintable(err));
            // recorded by PyTorch on another machine: within a tolerance (compareBitwise)
            err = compareBitwise(dir + "/" + name + ".outputs.safetensors", inOut, true);
            QVERIFY2(err.isEmpty(), qPrintable("00_input.py vs the corpus outputs: " + err));
            inputOutputs_.insert(key, inOut);
        }

        const QString lastOut = tmp.filePath(QStringLiteral("last.out.safetensors"));
        err = execGraph(last, name, lastOut, dir);
        QVERIFY2(err.isEmpty(), qPrintable(err));
        err = compareBitwise(inOut, lastOut);
        QVERIFY2(err.isEmpty(), qPrintable(lastGraphs.front() + " vs 00_input.py: " + err));
    }
};

FXL_TEST_APPLESS_MAIN(TestPytorchExec)
}  // namespace test_pytorch_exec
#include "test_pytorch_exec.moc"

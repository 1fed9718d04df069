// The capture module (python/fxlens_capture.py) used as a user uses it, then fxlens on what it
// wrote: tests/capture/capture_models.py captures the corpus' mlp_gelu from its own inputs (the
// graph text, inputs, PyTorch's outputs and float64 outputs must come out as the corpus has
// them) and a conv + batch norm model the corpus lacks (buffers as get_attr constants, the
// model's own running statistics untouched); then `fxlens check` against the captured outputs,
// `fxlens run` on the captured sidecars, `fxlens mem`. Skips, saying so, where python3 has no
// PyTorch (the test command installs Debian's python3-torch, so CI runs it).
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_test_util.hpp"
#include "core/formats/safetensors.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_capture {

using namespace clitest;

namespace {

QString repo(const char* rel) { return QString::fromStdString((fxltest::testDataPath() / ".." / ".." / rel).string()); }

// the same tensors (names, dtypes, shapes, bytes), whatever the header's order and metadata
void sameTensors(const std::string& a, const std::string& b)
{
    const fxl::SafeTensorsFile x = fxl::readSafetensors(a), y = fxl::readSafetensors(b);
    QCOMPARE(x.tensors.size(), y.tensors.size());
    for (const fxl::SafeTensor& t : x.tensors) {
        const fxl::SafeTensor* u = y.find(t.name);
        QVERIFY2(u, t.name.c_str());
        QVERIFY2(u->dtype == t.dtype && u->shape == t.shape && u->data == t.data, (a + ": " + t.name).c_str());
    }
}

}  // namespace

class TestCapture : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir dir_;
    bool captured_ = false;

private slots:
    void initTestCase()
    {
        const Run torch = runProcess("/usr/bin/python3", {"-c", "import torch"});
        if (torch.exitCode != 0 || torch.crashed) QSKIP("/usr/bin/python3 has no PyTorch (Debian: python3-torch)");
        const Run cap = runProcess("/usr/bin/python3", {repo("tests/capture/capture_models.py"), dir_.path()}, 300000);
        QVERIFY2(cap.exitCode == 0 && !cap.crashed, qPrintable(describe(cap)));
        QVERIFY2(cap.out.contains("captured mlp_gelu bn_conv bn_conv_with into "), cap.out.constData());
        captured_ = true;
    }

    // the corpus' model from the corpus' inputs: the corpus' files again
    void corpusModelAgain()
    {
        const std::string got = dir_.filePath("mlp_gelu").toStdString();
        const std::string want = fxltest::testDataPath("pytorch/mlp_gelu").string();
        QCOMPARE(fxltest::readFile(got + ".joint.code.py"), fxltest::readFile(want + ".joint.code.py"));
        sameTensors(got + ".inputs.safetensors", want + ".inputs.safetensors");
        sameTensors(got + ".outputs.safetensors", want + ".outputs.safetensors");
        sameTensors(got + ".outputs_f64.safetensors", want + ".outputs_f64.safetensors");
        const std::string params = fxltest::readFile(got + ".params.json");
        QVERIFY2(params.find("\"data_inputs\": 1") != std::string::npos, params.c_str());
        QVERIFY2(params.find("\"w1\"") != std::string::npos && params.find("\"w2\"") != std::string::npos,
                 params.c_str());
    }

    // the `with` form around the user's own step (forward, backward, an optimizer step) gives
    // what the function form gives for the same model, inputs and seed
    void withFormAsTheFunctionForm()
    {
        const std::string a = dir_.filePath("bn_conv").toStdString();
        const std::string b = dir_.filePath("bn_conv_with").toStdString();
        QCOMPARE(fxltest::readFile(b + ".joint.code.py"), fxltest::readFile(a + ".joint.code.py"));
        for (const char* f : {".inputs.safetensors", ".outputs.safetensors", ".outputs_f64.safetensors",
                              ".joint.constants.safetensors"})
            QVERIFY2(fxltest::readFile(b + f) == fxltest::readFile(a + f), f);
        // its parameters are named from the model it saw (a wrapper that returns the loss)
        QVERIFY(fxltest::readFile(b + ".params.json").find("\"inner.conv.weight\"") != std::string::npos);
    }

    // a model that does not return its loss is refused with the way out
    void withFormNeedsTheLoss()
    {
        const QString script = QStringLiteral("import sys, torch; sys.path.insert(0, '%1'); import fxlens_capture\n"
                                              "m = torch.nn.Linear(3, 2)\n"
                                              "with fxlens_capture.step('%2'):\n"
                                              "    m(torch.ones(4, 3)).sum().backward()\n")
                                   .arg(repo("python"), dir_.filePath("refused"));
        const Run r = runProcess("/usr/bin/python3", {"-c", script});
        QVERIFY2(r.exitCode != 0, qPrintable(describe(r)));
        QVERIFY2(r.err.contains("Linear returned a tensor of shape [4, 2], not its loss (a scalar tensor): use "
                                "fxlens_capture.capture(step, model, inputs, out_dir)"),
                 qPrintable(describe(r)));
    }

    // fxlens on the captured files, as a user goes on from the capture
    void fxlensOnTheCapture_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("states");  // buffers the step writes (batch norm's running statistics)
        QTest::newRow("mlp_gelu") << "mlp_gelu" << 0;
        QTest::newRow("bn_conv") << "bn_conv" << 3;
        QTest::newRow("bn_conv, with form") << "bn_conv_with" << 3;
    }
    void fxlensOnTheCapture()
    {
        QFETCH(QString, name);
        QFETCH(int, states);
        const QString graph = dir_.filePath(name + ".joint.code.py");
        const QString outputs = dir_.filePath(name + ".outputs.safetensors");
        // the user's PyTorch against fxlens: within PyTorch's float32 tolerance, states too
        const Run c = fxlens({"check", graph, outputs, "--tolerance", "1e-6,1e-5", "--json"});
        QVERIFY2(c.exitCode == 0, qPrintable(describe(c)));
        const QJsonObject cj = QJsonDocument::fromJson(c.out).object();
        QVERIFY(cj.value("result").toString() == "within_tolerance"
                || cj.value("result").toString() == "bitwise_equal");
        // the float64 reference: one float64 tensor per output
        const fxl::SafeTensorsFile f32 = fxl::readSafetensors(outputs.toStdString());
        const fxl::SafeTensorsFile f64 =
            fxl::readSafetensors(dir_.filePath(name + ".outputs_f64.safetensors").toStdString());
        QCOMPARE(f64.tensors.size(), f32.tensors.size());
        for (const fxl::SafeTensor& t : f64.tensors) QCOMPARE(t.dtype, fxl::DType::F64);
        // run finds the sidecars by itself; the written states are reported
        const Run r = fxlens({"run", graph, "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        const QJsonObject rj = QJsonDocument::fromJson(r.out).object();
        QVERIFY2(rj.value("inputs").toObject().value("from").toString().contains("sidecar")
                     || QJsonDocument(rj.value("inputs").toObject()).toJson().contains("inputs.safetensors"),
                 r.out.constData());
        QCOMPARE(rj.value("written_states").toArray().size(), states);
        const Run m = fxlens({"mem", graph});
        QVERIFY2(m.exitCode == 0, qPrintable(describe(m)));
    }
};

FXL_TEST_APPLESS_MAIN(TestCapture)
}  // namespace test_capture
#include "test_capture.moc"

// fxlens run / fxlens check end to end: runs the built binary on corpus graphs and checks
// what it wrote against PyTorch's outputs (corpus NAME.outputs.safetensors), its exit codes
// against the comparison it printed, and its refusals (bad inputs, existing output files).
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstring>

#include "core/formats/safetensors.hpp"
#include "core/formats/source.hpp"
#include "core/ir/diagnostics.hpp"
#include "core/ir/graph.hpp"

#include "cli_test_util.hpp"
#include "corpus_runs.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_cli_run {

using namespace clitest;

namespace {

const QString kBinary = clitest::kFxlensBinary;
// A corpus/pytorch file.
QString corpus(const QString& file)
{
    return QString::fromStdString(fxltest::corpusPath("pytorch/" + file.toStdString()).string());
}

using clitest::describe;

uint64_t fnv1a(const std::vector<uint8_t>& bytes)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint8_t b : bytes) {
        h ^= b;
        h *= 0x100000001b3ull;
    }
    return h;
}

// |a - e| <= 1e-6 + 1e-5 |e| for every element of two float32 tensors; the worst ratio of
// the bound goes to `worst`.
bool allcloseF32(const fxl::SafeTensor& a, const fxl::SafeTensor& e, double& worst)
{
    if (a.dtype != fxl::DType::F32 || e.dtype != fxl::DType::F32 || a.shape != e.shape
        || a.data.size() != e.data.size())
        return false;
    const size_t n = a.data.size() / 4;
    bool ok = true;
    for (size_t k = 0; k < n; ++k) {
        float x = 0, y = 0;
        std::memcpy(&x, a.data.data() + 4 * k, 4);
        std::memcpy(&y, e.data.data() + 4 * k, 4);
        const double bound = 1e-6 + 1e-5 * std::fabs(static_cast<double>(y));
        const double diff = std::fabs(static_cast<double>(x) - static_cast<double>(y));
        worst = std::max(worst, diff / bound);
        if (!(diff <= bound)) ok = false;
    }
    return ok;
}

}  // namespace

QStringList checksumsOf(const QByteArray& json)
{
    QStringList sums;
    for (const auto& o : parseJsonDoc(json)[QStringLiteral("outputs")].toArray())
        sums << o.toObject()[QStringLiteral("checksum")].toString();
    return sums;
}

class TestCliRun : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo(kBinary).isExecutable(), qPrintable("fxlens binary missing: " + kBinary));
    }

    // run on mlp_gelu picks the corpus inputs by itself, writes outputs equal to PyTorch's
    // within the float32 allclose bound, and its JSON (checksums, peak) agrees with the file
    // it wrote and with the memory timeline the peak is defined by.
    void runMatchesPytorch()
    {
        FXL_REQUIRE_CORPUS(corpus(QStringLiteral("mlp_gelu.joint.code.py")));
        QTemporaryDir tmp;
        const QString out = tmp.filePath(QStringLiteral("out.safetensors"));
        const Run r = fxlens({QStringLiteral("run"), corpus(QStringLiteral("mlp_gelu.joint.code.py")),
                              QStringLiteral("--out"), out, QStringLiteral("--json")});
        QVERIFY2(!r.crashed && r.exitCode == 0, qPrintable(describe(r)));
        const QJsonObject doc = parseJsonDoc(r.out);
        const QJsonObject in = doc[QStringLiteral("inputs")].toObject();
        QVERIFY2(in[QStringLiteral("from_sidecar")].toBool(), r.out.constData());
        QVERIFY(in[QStringLiteral("file")].toString().endsWith(QStringLiteral("mlp_gelu.inputs.safetensors")));
        QVERIFY(in[QStringLiteral("generated")].toArray().isEmpty());

        const fxl::SafeTensorsFile got = fxl::readSafetensors(out.toStdString());
        const fxl::SafeTensorsFile want =
            fxl::readSafetensors(corpus(QStringLiteral("mlp_gelu.outputs.safetensors")).toStdString());
        QCOMPARE(got.tensors.size(), want.tensors.size());
        double worst = 0;
        for (const auto& e : want.tensors) {
            const fxl::SafeTensor* a = got.find(e.name);
            QVERIFY2(a, e.name.c_str());
            QVERIFY2(allcloseF32(*a, e, worst), e.name.c_str());
        }
        qInfo("mlp_gelu vs PyTorch: worst %.3f of the 1e-6 + 1e-5|e| bound", worst);

        const QJsonArray outs = doc[QStringLiteral("outputs")].toArray();
        QCOMPARE(static_cast<size_t>(outs.size()), got.tensors.size());
        for (const auto& v : outs) {
            const QJsonObject o = v.toObject();
            const fxl::SafeTensor* t = got.find(o[QStringLiteral("name")].toString().toStdString());
            QVERIFY(t);
            QCOMPARE(o[QStringLiteral("checksum")].toString(),
                     QStringLiteral("%1").arg(fnv1a(t->data), 16, 16, QLatin1Char('0')));
            QVERIFY(!o[QStringLiteral("node")].toString().isEmpty());
        }
        QCOMPARE(outs[0].toObject()[QStringLiteral("node")].toString(), QStringLiteral("sum_1"));
        // the executor frees by the memory timeline's rules: measured peak == estimate
        const QJsonObject est = doc[QStringLiteral("estimate")].toObject();
        QVERIFY(doc[QStringLiteral("peak_bytes")].toInteger() > 0);
        QCOMPARE(doc[QStringLiteral("peak_bytes")].toInteger(), est[QStringLiteral("peak_bytes")].toInteger());

        // the text form says where the inputs came from
        const Run text = fxlens({QStringLiteral("run"), corpus(QStringLiteral("mlp_gelu.joint.code.py"))});
        QVERIFY2(text.exitCode == 0, qPrintable(describe(text)));
        QVERIFY2(text.out.contains("sidecar"), text.out.constData());
        QVERIFY2(text.out.contains("out_0 (sum_1)"), text.out.constData());
    }

    // Every corpus train step against PyTorch's outputs, within the float32 allclose bound
    // (the verb's own comparison; the exit code and the JSON verdict must agree).
    void checkCorpusAgainstPytorch_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* n :
             {"mlp_gelu", "linear_ce", "gpt2_tiny", "llama_tiny", "moe_tiny", "moe_dispatch", "checkpoint_mlp"})
            QTest::newRow(n) << QString::fromLatin1(n);
    }
    void checkCorpusAgainstPytorch()
    {
        QFETCH(QString, name);
        FXL_REQUIRE_CORPUS(corpus(name + QStringLiteral(".joint.code.py")));
        const Run r = fxlens({QStringLiteral("check"), corpus(name + QStringLiteral(".joint.code.py")),
                              corpus(name + QStringLiteral(".outputs.safetensors")), QStringLiteral("--tolerance"),
                              QStringLiteral("1e-6,1e-5"), QStringLiteral("--json")});
        QVERIFY2(!r.crashed && r.exitCode == 0, qPrintable(describe(r)));
        const QJsonObject doc = parseJsonDoc(r.out);
        QVERIFY(doc[QStringLiteral("result")].toString() != QStringLiteral("different"));
        const QJsonObject rep = doc[QStringLiteral("report")].toObject();
        QVERIFY(rep[QStringLiteral("only_in_a")].toArray().isEmpty());
        QVERIFY(rep[QStringLiteral("only_in_b")].toArray().isEmpty());
        double worst = 0;
        int bitwise = 0;
        const QJsonArray outs = rep[QStringLiteral("outputs")].toArray();
        QVERIFY(!outs.isEmpty());
        for (const auto& v : outs) {
            const QJsonObject o = v.toObject();
            worst = std::max(worst, o[QStringLiteral("worst_tolerance_ratio")].toDouble());
            bitwise += o[QStringLiteral("bitwise_equal")].toBool() ? 1 : 0;
        }
        qInfo("%s: %d of %d outputs bitwise equal to PyTorch's, worst %.3f of the bound", qPrintable(name), bitwise,
              static_cast<int>(outs.size()), worst);
    }

    // A partition's forward + backward, each run by `fxlens run` and chained through files
    // the way AOT autograd chains them (forward outputs = user outputs, then the saved values
    // the backward takes first; tangents = ones for the scalar loss), gives bitwise the
    // joint graph's outputs: the same kernels on the same values. Checked with `fxlens check`.
    void partitionMatchesJoint_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("partitioner");
        for (const char* n : {"mlp_gelu", "linear_ce", "gpt2_tiny", "llama_tiny"})
            for (const char* p : {"mincut", "default"})
                QTest::newRow(qPrintable(QStringLiteral("%1/%2").arg(QLatin1String(n), QLatin1String(p))))
                    << QString::fromLatin1(n) << QString::fromLatin1(p);
    }
    void partitionMatchesJoint()
    {
        FXL_SANITIZER_ROWS(4);
        QFETCH(QString, name);
        QFETCH(QString, partitioner);
        FXL_REQUIRE_CORPUS(corpus(name + QStringLiteral(".joint.code.py")));
        QTemporaryDir tmp;
        const QString joint = corpus(name + QStringLiteral(".joint.code.py"));
        const QString fw = corpus(name + QStringLiteral(".fw.") + partitioner + QStringLiteral(".code.py"));
        const QString bw = corpus(name + QStringLiteral(".bw.") + partitioner + QStringLiteral(".code.py"));
        auto placeholders = [](const QString& path) {
            auto src = fxl::openSource(path.toStdString());
            auto g = src->graph(src->graphs().front()->id);
            std::vector<std::string> names;
            for (fxl::NodeId id : g->placeholders()) names.push_back(g->node(id).name);
            return names;
        };
        const std::vector<std::string> jointIn = placeholders(joint), fwIn = placeholders(fw), bwIn = placeholders(bw);
        QCOMPARE(fwIn.size(), jointIn.size());

        // forward: the joint's inputs by position (arg0_1 -> primals_1, ...)
        const fxl::SafeTensorsFile in =
            fxl::readSafetensors(corpus(name + QStringLiteral(".inputs.safetensors")).toStdString());
        fxl::SafeTensorsFile fwInputs;
        for (size_t k = 0; k < jointIn.size(); ++k) {
            const fxl::SafeTensor* t = in.find(jointIn[k]);
            QVERIFY2(t, jointIn[k].c_str());
            fxl::SafeTensor c = *t;
            c.name = fwIn[k];
            fwInputs.tensors.push_back(std::move(c));
        }
        const QString fwInPath = tmp.filePath(QStringLiteral("fw_in.safetensors"));
        const QString fwOutPath = tmp.filePath(QStringLiteral("fw_out.safetensors"));
        fxl::writeSafetensors(fwInPath.toStdString(), fwInputs);
        const Run f = fxlens(
            {QStringLiteral("run"), fw, QStringLiteral("--inputs"), fwInPath, QStringLiteral("--out"), fwOutPath});
        QVERIFY2(f.exitCode == 0, qPrintable(describe(f)));
        const fxl::SafeTensorsFile fwOut = fxl::readSafetensors(fwOutPath.toStdString());

        // backward: saved values (forward outputs after the user outputs), then tangents
        size_t tangents = 0;
        for (const auto& n : bwIn) tangents += n.rfind("tangents_", 0) == 0 ? 1 : 0;
        QCOMPARE(tangents, size_t{1});  // the loss
        fxl::SafeTensorsFile bwInputs;
        for (size_t k = 0; k < bwIn.size(); ++k) {
            const bool tangent = bwIn[k].rfind("tangents_", 0) == 0;
            const fxl::SafeTensor* src = fwOut.find("out_" + std::to_string(tangent ? 0 : tangents + k));
            QVERIFY2(src, bwIn[k].c_str());
            fxl::SafeTensor c = *src;
            c.name = bwIn[k];
            if (tangent) {
                QCOMPARE(c.dtype, fxl::DType::F32);
                for (size_t b = 0; b < c.data.size(); b += 4) {
                    const float one = 1.0f;
                    std::memcpy(c.data.data() + b, &one, 4);
                }
            }
            bwInputs.tensors.push_back(std::move(c));
        }
        const QString bwInPath = tmp.filePath(QStringLiteral("bw_in.safetensors"));
        const QString bwOutPath = tmp.filePath(QStringLiteral("bw_out.safetensors"));
        fxl::writeSafetensors(bwInPath.toStdString(), bwInputs);
        const Run b = fxlens(
            {QStringLiteral("run"), bw, QStringLiteral("--inputs"), bwInPath, QStringLiteral("--out"), bwOutPath});
        QVERIFY2(b.exitCode == 0, qPrintable(describe(b)));
        const fxl::SafeTensorsFile bwOut = fxl::readSafetensors(bwOutPath.toStdString());

        // the joint's outputs: loss from the forward, then the backward's gradients (its None
        // outputs, for the data inputs, are not in the file) in order
        fxl::SafeTensorsFile chained;
        fxl::SafeTensor loss = *fwOut.find("out_0");
        chained.tensors.push_back(loss);
        for (const auto& t : bwOut.tensors) {
            fxl::SafeTensor c = t;
            c.name = "out_" + std::to_string(chained.tensors.size());
            chained.tensors.push_back(std::move(c));
        }
        const QString chainedPath = tmp.filePath(QStringLiteral("chained.safetensors"));
        fxl::writeSafetensors(chainedPath.toStdString(), chained);
        const Run c = fxlens({QStringLiteral("check"), joint, chainedPath});
        QVERIFY2(c.exitCode == 0, qPrintable(describe(c)));
        QCOMPARE(resultLine(c.out), QStringLiteral("result: bitwise equal"));
    }

    // Same graph twice: bitwise equal, exit 0 (also with different thread counts: results
    // never depend on them).
    void checkSameGraphBitwise()
    {
        FXL_REQUIRE_CORPUS(corpus(QStringLiteral("mlp_gelu.joint.code.py")));
        const QString g = corpus(QStringLiteral("mlp_gelu.joint.code.py"));
        const Run r = fxlens({QStringLiteral("check"), g, g, QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        const QJsonObject doc = parseJsonDoc(r.out);
        QCOMPARE(doc[QStringLiteral("result")].toString(), QStringLiteral("bitwise_equal"));
        QCOMPARE(doc[QStringLiteral("report")].toObject()[QStringLiteral("outputs")].toArray().size(), 3);
        const Run text = fxlens({QStringLiteral("check"), g, g, QStringLiteral("--threads"), QStringLiteral("1")});
        QVERIFY2(text.exitCode == 0, qPrintable(describe(text)));
        QCOMPARE(resultLine(text.out), QStringLiteral("result: bitwise equal"));
    }

    // Against PyTorch's outputs file: without --tolerance only bitwise equality passes (the
    // exit code follows the per-output report); with the float32 allclose tolerance it passes.
    void checkAgainstOutputsFile()
    {
        FXL_REQUIRE_CORPUS(corpus(QStringLiteral("mlp_gelu.joint.code.py")));
        const QString g = corpus(QStringLiteral("mlp_gelu.joint.code.py"));
        const QString e = corpus(QStringLiteral("mlp_gelu.outputs.safetensors"));
        const Run strict = fxlens({QStringLiteral("check"), g, e, QStringLiteral("--json")});
        QVERIFY2(!strict.crashed, qPrintable(describe(strict)));
        const QJsonObject doc = parseJsonDoc(strict.out);
        const QJsonArray outs = doc[QStringLiteral("report")].toObject()[QStringLiteral("outputs")].toArray();
        QCOMPARE(outs.size(), 3);
        bool allBitwise = true;
        for (const auto& o : outs) allBitwise = allBitwise && o.toObject()[QStringLiteral("bitwise_equal")].toBool();
        qInfo("mlp_gelu vs PyTorch's outputs: %s", allBitwise ? "bitwise equal" : "not bitwise equal");
        QCOMPARE(strict.exitCode, allBitwise ? 0 : 1);
        QCOMPARE(doc[QStringLiteral("result")].toString(),
                 allBitwise ? QStringLiteral("bitwise_equal") : QStringLiteral("different"));

        const Run tol =
            fxlens({QStringLiteral("check"), g, e, QStringLiteral("--tolerance"), QStringLiteral("1e-6,1e-5")});
        QVERIFY2(tol.exitCode == 0, qPrintable(describe(tol)));
        QCOMPARE(resultLine(tol.out),
                 allBitwise ? QStringLiteral("result: bitwise equal")
                            : QStringLiteral("result: within tolerance (atol 1e-06, rtol 1e-05), "
                                             "not bitwise equal"));

        // a tolerance of zero is a tolerance: passes only on equal values
        const Run zero = fxlens({QStringLiteral("check"), g, e, QStringLiteral("--tolerance"), QStringLiteral("0,0")});
        QCOMPARE(zero.exitCode, allBitwise ? 0 : 1);
        QCOMPARE(resultLine(zero.out),
                 allBitwise ? QStringLiteral("result: bitwise equal")
                            : QStringLiteral("result: outside the tolerance"));
        const Run none = fxlens({QStringLiteral("check"), g, e});
        QCOMPARE(resultLine(none.out),
                 allBitwise ? QStringLiteral("result: bitwise equal")
                            : QStringLiteral("result: not bitwise equal (no --tolerance given)"));
    }

    // A Dynamo-level graph (torch functions, methods, Python operators) against PyTorch's own
    // outputs, as a user checks one: fxlens check GRAPH.py OUTPUTS --inputs INPUTS --tolerance
    // (tests/runtime/gen_dynamo_refs.py wrote both files with PyTorch 1.13).
    void checkDynamoGraphAgainstPytorch()
    {
        const QString dir = QString::fromStdString(fxltest::testDataPath("dynamo").string()) + '/';
        const Run r = fxlens({QStringLiteral("check"), dir + "matmul.py", dir + "matmul.outputs.safetensors",
                              QStringLiteral("--inputs"), dir + "matmul.inputs.safetensors",
                              QStringLiteral("--tolerance"), QStringLiteral("1e-6,1e-5"), QStringLiteral("--json")});
        QVERIFY2(!r.crashed && r.exitCode == 0, qPrintable(describe(r)));
        const QJsonObject doc = parseJsonDoc(r.out);
        QCOMPARE(doc[QStringLiteral("report")].toObject()[QStringLiteral("outputs")].toArray().size(), 9);
        // the inputs file is the graph's sidecar (found without --inputs); the matmuls differ
        // from PyTorch's in the last bits, so a zero tolerance fails
        const Run zero = fxlens({QStringLiteral("check"), dir + "matmul.py", dir + "matmul.outputs.safetensors",
                                 QStringLiteral("--tolerance"), QStringLiteral("0,0")});
        QVERIFY2(!zero.crashed && zero.exitCode == 1, qPrintable(describe(zero)));
        QVERIFY2(zero.out.contains("matmul.inputs.safetensors (the graph file's sidecar)"), zero.out.constData());
        QCOMPARE(resultLine(zero.out), QStringLiteral("result: outside the tolerance"));
        // the verdict, whole: outputs that differ within the tolerance are never "bitwise equal"
        QCOMPARE(doc[QStringLiteral("result")].toString(), QStringLiteral("within_tolerance"));
        const Run text = fxlens({QStringLiteral("check"), dir + "matmul.py", dir + "matmul.outputs.safetensors",
                                 QStringLiteral("--tolerance"), QStringLiteral("1e-6,1e-5")});
        QVERIFY2(!text.crashed && text.exitCode == 0, qPrintable(describe(text)));
        QCOMPARE(resultLine(text.out),
                 QStringLiteral("result: within tolerance (atol 1e-06, rtol 1e-05), not bitwise equal"));
    }

    // mlp_gelu vs checkpoint_mlp: the same math in a different graph (recomputed gelu,
    // detaches). Outputs paired by position, one report line per output; the deterministic
    // kernels make the recomputation bit-identical.
    void checkMlpVsCheckpoint()
    {
        FXL_REQUIRE_CORPUS(corpus(QStringLiteral("mlp_gelu.joint.code.py")));
        const Run r = fxlens({QStringLiteral("check"), corpus(QStringLiteral("mlp_gelu.joint.code.py")),
                              corpus(QStringLiteral("checkpoint_mlp.joint.code.py")), QStringLiteral("--json")});
        QVERIFY2(!r.crashed, qPrintable(describe(r)));
        const QJsonObject doc = parseJsonDoc(r.out);
        QCOMPARE(doc[QStringLiteral("mapped_by")].toString(), QStringLiteral("position"));
        const QJsonObject rep = doc[QStringLiteral("report")].toObject();
        const QJsonArray outs = rep[QStringLiteral("outputs")].toArray();
        QCOMPARE(outs.size(), 3);
        QStringList names;
        for (const auto& o : outs) names << o.toObject()[QStringLiteral("name")].toString();
        QCOMPARE(names,
                 QStringList({QStringLiteral("out_0 (sum_1)"), QStringLiteral("out_1 (mm_4)"),
                              QStringLiteral("out_2 (mm_2)")}));
        QVERIFY(rep[QStringLiteral("only_in_a")].toArray().isEmpty());
        QVERIFY(rep[QStringLiteral("only_in_b")].toArray().isEmpty());
        QVERIFY2(rep[QStringLiteral("bitwise_equal")].toBool(), r.out.constData());
        QCOMPARE(r.exitCode, 0);
        // text: one line per output
        const Run text = fxlens({QStringLiteral("check"), corpus(QStringLiteral("mlp_gelu.joint.code.py")),
                                 corpus(QStringLiteral("checkpoint_mlp.joint.code.py"))});
        for (const char* n : {"out_0 (sum_1): ", "out_1 (mm_4): ", "out_2 (mm_2): "})
            QVERIFY2(text.out.contains(n), text.out.constData());
    }

    // A reordered subset of the outputs is paired by output node name.
    void checkMapsOutputsByName()
    {
        FXL_REQUIRE_CORPUS(corpus(QStringLiteral("mlp_gelu.joint.code.py")));
        QTemporaryDir tmp;
        const QByteArray code = readFile(corpus(QStringLiteral("mlp_gelu.joint.code.py")));
        QVERIFY(code.contains("return (sum_1, mm_4, mm_2)"));
        QByteArray reordered = code;
        reordered.replace("return (sum_1, mm_4, mm_2)", "return (mm_2, sum_1)");
        // the same directory layout is not needed: inputs come from A
        const QString b = tmp.filePath(QStringLiteral("reordered.code.py"));
        QVERIFY(writeFile(b, reordered));
        const Run r = fxlens(
            {QStringLiteral("check"), corpus(QStringLiteral("mlp_gelu.joint.code.py")), b, QStringLiteral("--json")});
        QVERIFY2(!r.crashed, qPrintable(describe(r)));
        const QJsonObject doc = parseJsonDoc(r.out);
        QCOMPARE(doc[QStringLiteral("mapped_by")].toString(), QStringLiteral("output node name"));
        const QJsonObject rep = doc[QStringLiteral("report")].toObject();
        QCOMPARE(rep[QStringLiteral("outputs")].toArray().size(), 2);
        for (const auto& o : rep[QStringLiteral("outputs")].toArray())
            QVERIFY(o.toObject()[QStringLiteral("bitwise_equal")].toBool());
        QCOMPARE(rep[QStringLiteral("only_in_a")].toArray().size(), 1);
        QCOMPARE(rep[QStringLiteral("only_in_a")].toArray()[0].toString(), QStringLiteral("out_1 (mm_4)"));
        QCOMPARE(rep[QStringLiteral("mapping")].toArray().size(), 2);  // out_0 -> out_1, out_2 -> out_0
        QCOMPARE(r.exitCode, 1);  // an output of A has no partner
    }

    // Bad inputs: an unreadable file and a file with a wrong shape fail with exit 1 and a
    // message naming the file or the placeholder; an unknown operator names its node.
    void badInputs()
    {
        FXL_REQUIRE_CORPUS(corpus(QStringLiteral("mlp_gelu.joint.code.py")));
        QTemporaryDir tmp;
        const QString g = corpus(QStringLiteral("mlp_gelu.joint.code.py"));
        const QString junk = tmp.filePath(QStringLiteral("junk.safetensors"));
        QVERIFY(writeFile(junk, QByteArray("\x10\x00\x00\x00\x00\x00\x00\x00{not json}      ", 24)));
        const Run r = fxlens({QStringLiteral("run"), g, QStringLiteral("--inputs"), junk});
        QVERIFY2(!r.crashed && r.exitCode == 1, qPrintable(describe(r)));
        QVERIFY2(r.err.contains("junk.safetensors"), r.err.constData());

        fxl::SafeTensorsFile in =
            fxl::readSafetensors(corpus(QStringLiteral("mlp_gelu.inputs.safetensors")).toStdString());
        QVERIFY(!in.tensors.empty());
        fxl::SafeTensor& t = in.tensors.front();
        const std::string name = t.name;
        t.shape = {static_cast<int64_t>(t.data.size() / 4)};  // same bytes, flattened
        const QString flat = tmp.filePath(QStringLiteral("flat.safetensors"));
        fxl::writeSafetensors(flat.toStdString(), in);
        const Run s = fxlens({QStringLiteral("run"), g, QStringLiteral("--inputs"), flat});
        QVERIFY2(!s.crashed && s.exitCode == 1, qPrintable(describe(s)));
        QVERIFY2(s.err.contains(("'" + name + "'").c_str()) && s.err.contains("shape"), s.err.constData());
        const Run c = fxlens({QStringLiteral("check"), g, g, QStringLiteral("--inputs"), flat});
        QVERIFY2(!c.crashed && c.exitCode == 1, qPrintable(describe(c)));

        const QString bad = tmp.filePath(QStringLiteral("bad.code.py"));
        QVERIFY(writeFile(
            bad, "def forward(self, x):\n    y = torch.ops.aten.no_such_op_here.default(x)\n    return (y,)\n"));
        fxl::SafeTensorsFile x;
        x.tensors.push_back({"x", fxl::DType::F32, {2}, std::vector<uint8_t>(8, 0), 0});
        const QString xin = tmp.filePath(QStringLiteral("x.safetensors"));
        fxl::writeSafetensors(xin.toStdString(), x);
        const Run k = fxlens({QStringLiteral("run"), bad, QStringLiteral("--inputs"), xin});
        QVERIFY2(!k.crashed && k.exitCode == 1, qPrintable(describe(k)));
        QVERIFY2(k.err.contains("node 'y'"), k.err.constData());
    }

    // Custom operators (--ops, docs/custom_ops.md). test.baz returns a clone in PyTorch: the
    // corpus graph with its identity declaration gives bitwise the outputs of the same graph with
    // aten.clone in its place (same generated inputs, same dropout stream).
    void customOpsMatchClone_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("call");  // the test.baz call in the file
        QTest::addColumn<QString>("clone");  // what replaces it
        if (!fxltest::kSanitizedBuild)  // 2 x 5M-element runs each: one row under ASan
            QTest::newRow("dynamo output graph")
                << QStringLiteral("fx/tlparse_v2.6dev_gelu_dropout_dynamo_output_graph.txt")
                << QStringLiteral("torch.ops.test.baz(input_1)")
                << QStringLiteral("torch.ops.aten.clone.default(input_1)");
        QTest::newRow("inductor post-grad graph")
            << QStringLiteral("fx/tlparse_v2.6dev_gelu_dropout_inductor_post_grad_graph.txt")
            << QStringLiteral("torch.ops.test.baz.default(mul_4)")
            << QStringLiteral("torch.ops.aten.clone.default(mul_4)");
    }
    void customOpsMatchClone()
    {
        QFETCH(QString, file);
        QFETCH(QString, call);
        QFETCH(QString, clone);
        const QString path = QString::fromStdString(fxltest::corpusPath(file.toStdString()).string());
        FXL_REQUIRE_CORPUS(path);
        if (fxltest::kSanitizedBuild)  // 5M-element graphs: over a minute at -O0 with ASan
            QSKIP("the release stage runs it; custom ops run under ASan in test_custom_ops");
        const QString ops = QString::fromStdString(fxltest::testDataPath("ops/logging.ops").string());
        QTemporaryDir tmp;
        QByteArray text = readFile(path);
        QCOMPARE(text.count(call.toUtf8()), 1);
        text.replace(call.toUtf8(), clone.toUtf8());
        const QString cloned = tmp.filePath(QStringLiteral("cloned.txt"));
        QVERIFY(writeFile(cloned, text));
        // without a declaration: the node, the operator and how to declare it
        const Run plain = fxlens({QStringLiteral("run"), path, QStringLiteral("--seed"), QStringLiteral("1")});
        QVERIFY2(!plain.crashed && plain.exitCode == 1, qPrintable(describe(plain)));
        QVERIFY2(plain.err.contains(") in an ops file and pass it with --ops FILE (docs/custom_ops.md)")
                     && plain.err.contains("unknown operator test.baz"),
                 plain.err.constData());
        const Run r = fxlens({QStringLiteral("check"), path, cloned, QStringLiteral("--ops"), ops,
                              QStringLiteral("--seed"), QStringLiteral("1"), QStringLiteral("--json")});
        QVERIFY2(!r.crashed && r.exitCode == 0, qPrintable(describe(r)));
        const QJsonObject doc = parseJsonDoc(r.out);
        QCOMPARE(doc[QStringLiteral("result")].toString(), QStringLiteral("bitwise_equal"));
        const QJsonArray outs = doc[QStringLiteral("report")].toObject()[QStringLiteral("outputs")].toArray();
        QCOMPARE(outs.size(), 1);
    }

    // The logs' graphs with test.baz (tlparse simple.log 12: Dynamo level, 28: post-grad) run
    // with --ops; the post-grad graph gives the bits of the same graph dumped as an FX file.
    void customOpsRunLog()
    {
        const QString log = QString::fromStdString(fxltest::corpusPath("tlparse/simple.log").string());
        const QString fx = QString::fromStdString(
            fxltest::corpusPath("fx/tlparse_v2.6dev_gelu_dropout_inductor_post_grad_graph.txt").string());
        FXL_REQUIRE_CORPUS(log);
        FXL_REQUIRE_CORPUS(fx);
        if (fxltest::kSanitizedBuild)  // 5M-element graphs: two minutes at -O0 with ASan
            QSKIP("the release stage runs it; custom ops run under ASan in test_custom_ops");
        const QString ops = QString::fromStdString(fxltest::testDataPath("ops/logging.ops").string());
        auto run = [&](const QStringList& where) {
            const Run r = fxlens(QStringList{QStringLiteral("run")} + where
                                 + QStringList{QStringLiteral("--ops"), ops, QStringLiteral("--seed"),
                                               QStringLiteral("1"), QStringLiteral("--json")});
            if (r.exitCode != 0) qWarning("%s", qPrintable(describe(r)));
            const QJsonArray outs = parseJsonDoc(r.out)[QStringLiteral("outputs")].toArray();
            return outs.size() == 1 ? outs[0].toObject() : QJsonObject();
        };
        const QJsonObject dyn = run({log, QStringLiteral("--graph"), QStringLiteral("12")});
        const QJsonObject post = run({log, QStringLiteral("--graph"), QStringLiteral("28")});
        const QJsonObject file = run({fx});
        const QJsonArray shape{1, 320, 128, 128};
        QCOMPARE(dyn[QStringLiteral("shape")].toArray(), shape);
        QCOMPARE(post[QStringLiteral("shape")].toArray(), shape);
        QCOMPARE(post[QStringLiteral("dtype")].toString(), QStringLiteral("f32"));
        QVERIFY(!post[QStringLiteral("checksum")].toString().isEmpty());
        QCOMPARE(post[QStringLiteral("checksum")].toString(), file[QStringLiteral("checksum")].toString());
    }

    // Megatron graphs (apex layer norm, tg.log_tensor, auto_functionalized_v2 of
    // tg.inplace_log_tensor): with the declarations, info's cannot_run lists none of them;
    // without, each with its nodes and how to declare it.
    void customOpsMegatronInfo_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("tp1") << QStringLiteral("fx/entangle_megatron_gpt_tp1_fwd_bwd_both.g0.r0.txt");
        QTest::newRow("tp2") << QStringLiteral("fx/entangle_megatron_gpt_tp2_fwd_bwd_both.g0.r0.txt");
    }
    void customOpsMegatronInfo()
    {
        QFETCH(QString, file);
        const QString path = QString::fromStdString(fxltest::corpusPath(file.toStdString()).string());
        FXL_REQUIRE_CORPUS(path);
        const QString apex = QString::fromStdString(fxltest::testDataPath("ops/apex_layer_norm.ops").string());
        const QString logging = QString::fromStdString(fxltest::testDataPath("ops/logging.ops").string());
        auto reasons = [&](const QStringList& extra) {
            const Run r = fxlens(QStringList{QStringLiteral("info"), path, QStringLiteral("--json")} + extra);
            if (r.exitCode != 0) qWarning("%s", qPrintable(describe(r)));
            const QJsonObject gi = parseJsonDoc(r.out)[QStringLiteral("sources")]
                                       .toArray()[0]
                                       .toObject()[QStringLiteral("graph_info")]
                                       .toArray()[0]
                                       .toObject();
            QMap<QString, int> out;
            for (const auto& m : gi[QStringLiteral("cannot_run")].toArray())
                out[m.toObject()[QStringLiteral("reason")].toString()] = m.toObject()[QStringLiteral("count")].toInt();
            return out;
        };
        const QString hint = QStringLiteral(": declare it (its schema, and identity of an argument or a decomposition "
                                            "over aten ops) in an ops file and pass it with --ops FILE "
                                            "(docs/custom_ops.md)");
        const QMap<QString, int> before = reasons({});
        QCOMPARE(before.value(QStringLiteral("unknown operator apex.fused_layer_norm_affine_fwd.default") + hint), 4);
        QCOMPARE(before.value(QStringLiteral("unknown operator apex.fused_layer_norm_affine_bwd.default") + hint), 4);
        QCOMPARE(before.value(QStringLiteral("unknown operator tg.log_tensor.default") + hint), 5);
        QCOMPARE(before.value(QStringLiteral("auto_functionalized_v2: unknown operator tg.inplace_log_tensor.default")
                              + hint),
                 20);
        const QMap<QString, int> after = reasons({QStringLiteral("--ops"), apex, QStringLiteral("--ops"), logging});
        QVERIFY(!after.isEmpty());
        for (auto it = after.begin(); it != after.end(); ++it) {
            QVERIFY2(!it.key().contains(QStringLiteral("apex")) && !it.key().contains(QStringLiteral("log_tensor"))
                         && !it.key().contains(QStringLiteral("auto_functionalized")),
                     qPrintable(it.key()));
            QCOMPARE(before.value(it.key()), it.value());  // what is left was there before
        }
        QCOMPARE(after.size(), before.size() - 4);
    }

    // A mistake in an ops file stops every verb: FILE:LINE:COLUMN and what was expected.
    void badOpsFile()
    {
        QTemporaryDir tmp;
        const QString ops = tmp.filePath(QStringLiteral("bad.ops"));
        QVERIFY(writeFile(ops, "op my.twice(Tensor x) -> Tensor\nidentity y\n"));
        const QString g = tmp.filePath(QStringLiteral("g.code.py"));
        QVERIFY(writeFile(g, "def forward(self, x):\n    y = torch.ops.my.twice.default(x)\n    return (y,)\n"));
        for (const char* verb : {"run", "info", "mem"}) {
            const Run r = fxlens({QString::fromLatin1(verb), g, QStringLiteral("--ops"), ops});
            QVERIFY2(!r.crashed && r.exitCode == 1, qPrintable(describe(r)));
            QCOMPARE(QString::fromUtf8(r.err),
                     ops + QStringLiteral(":2:10: error: expected one of the schema's arguments (x), found 'y'\n"));
        }
        const Run missing = fxlens({QStringLiteral("run"), g, QStringLiteral("--ops"), tmp.filePath("none.ops")});
        QVERIFY2(!missing.crashed && missing.exitCode == 1, qPrintable(describe(missing)));
        QVERIFY2(missing.err.contains("none.ops: error: cannot read the ops file"), missing.err.constData());
    }

    // --out never replaces an existing file unless --force.
    void existingOutRefused()
    {
        FXL_REQUIRE_CORPUS(corpus(QStringLiteral("mlp_gelu.joint.code.py")));
        QTemporaryDir tmp;
        const QString out = tmp.filePath(QStringLiteral("out.safetensors"));
        QVERIFY(writeFile(out, "keep me"));
        const QString g = corpus(QStringLiteral("mlp_gelu.joint.code.py"));
        const Run r = fxlens({QStringLiteral("run"), g, QStringLiteral("--out"), out});
        QVERIFY2(!r.crashed && r.exitCode == 1, qPrintable(describe(r)));
        QVERIFY2(r.err.contains("exists"), r.err.constData());
        QCOMPARE(readFile(out), QByteArray("keep me"));
        QCOMPARE(QDir(tmp.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);  // no temporary left
        const Run f = fxlens({QStringLiteral("run"), g, QStringLiteral("--out"), out, QStringLiteral("--force")});
        QVERIFY2(f.exitCode == 0, qPrintable(describe(f)));
        QCOMPARE(fxl::readSafetensors(out.toStdString()).tensors.size(), size_t{3});
    }

    // Generated inputs (no sidecar): a seed gives the same bits every time, another seed
    // other bits; usage errors exit 2.
    void generatedInputsAndUsage()
    {
        FXL_REQUIRE_CORPUS(corpus(QStringLiteral("mlp_gelu.joint.code.py")));
        QTemporaryDir tmp;
        const QString copy = tmp.filePath(QStringLiteral("graph.code.py"));  // no sidecars here
        QVERIFY(QFile::copy(corpus(QStringLiteral("mlp_gelu.joint.code.py")), copy));
        // without meta.json the placeholders have no shapes: nothing to generate from
        const Run noMeta = fxlens({QStringLiteral("run"), copy});
        QVERIFY2(!noMeta.crashed && noMeta.exitCode == 1, qPrintable(describe(noMeta)));
        QVERIFY2(noMeta.err.contains("arg0_1"), noMeta.err.constData());
        // with meta.json: generated from the recorded shapes
        QVERIFY(
            QFile::copy(corpus(QStringLiteral("mlp_gelu.meta.json")), tmp.filePath(QStringLiteral("graph.meta.json"))));
        auto checksums = [&](const QString& seed) {
            const Run r =
                fxlens({QStringLiteral("run"), copy, QStringLiteral("--seed"), seed, QStringLiteral("--json")});
            QStringList sums;
            if (r.exitCode != 0) qWarning("%s", qPrintable(describe(r)));
            const QJsonObject doc = parseJsonDoc(r.out);
            if (doc[QStringLiteral("inputs")].toObject()[QStringLiteral("generated")].toArray().size() != 3)
                return QStringList();
            for (const auto& o : doc[QStringLiteral("outputs")].toArray())
                sums << o.toObject()[QStringLiteral("checksum")].toString();
            return sums;
        };
        const QStringList a = checksums(QStringLiteral("7")), b = checksums(QStringLiteral("7")),
                          c = checksums(QStringLiteral("8"));
        QCOMPARE(a.size(), 3);
        QCOMPARE(a, b);
        QVERIFY(a != c);

        const QString g = corpus(QStringLiteral("mlp_gelu.joint.code.py"));
        QCOMPARE(
            fxlens({QStringLiteral("check"), g, g, QStringLiteral("--tolerance"), QStringLiteral("1e-6;x")}).exitCode,
            2);
        QCOMPARE(fxlens({QStringLiteral("check"), corpus(QStringLiteral("mlp_gelu.outputs.safetensors")), g}).exitCode,
                 2);
        QCOMPARE(fxlens({QStringLiteral("run"), g, QStringLiteral("--threads"), QStringLiteral("0")}).exitCode, 2);
        QCOMPARE(fxlens({QStringLiteral("run"), g, g}).exitCode, 2);
        QCOMPARE(fxlens({QStringLiteral("check"), g}).exitCode, 2);
        const Run help = fxlens({QStringLiteral("run"), QStringLiteral("--help")});
        QCOMPARE(help.exitCode, 0);
        QVERIFY(help.out.contains("--inputs"));
    }

    // run --repeat N: one plan, N runs, each checked equal to the first; the outputs and the
    // written states (BatchNorm's running stats) are those of a plain run, later runs give views
    // from the plan, and a bad count is a usage error.
    void repeatRunsGiveTheFirstRunsBytes()
    {
        const QString g = QString::fromStdString(fxltest::testDataPath("models/bn_convnet.joint.code.py").string());
        const Run plain = fxlens({QStringLiteral("run"), g, QStringLiteral("--json")});
        QVERIFY2(!plain.crashed && plain.exitCode == 0, qPrintable(describe(plain)));
        const Run rep = fxlens(
            {QStringLiteral("run"), g, QStringLiteral("--repeat"), QStringLiteral("4"), QStringLiteral("--json")});
        QVERIFY2(!rep.crashed && rep.exitCode == 0, qPrintable(describe(rep)));
        const QJsonObject a = parseJsonDoc(plain.out), b = parseJsonDoc(rep.out);
        QVERIFY(a[QStringLiteral("repeat")].isUndefined());
        const QJsonObject r = b[QStringLiteral("repeat")].toObject();
        QCOMPARE(r[QStringLiteral("runs")].toInt(), 4);
        QVERIFY2(r[QStringLiteral("identical")].toBool(), rep.out.constData());
        QVERIFY(r[QStringLiteral("difference")].isNull());
        QVERIFY2(r[QStringLiteral("views_from_plan")].toInteger() > 0, rep.out.constData());
        QVERIFY(r[QStringLiteral("best_seconds")].toDouble() > 0);
        QVERIFY(r[QStringLiteral("median_seconds")].toDouble() >= r[QStringLiteral("best_seconds")].toDouble());
        QCOMPARE(checksumsOf(rep.out), checksumsOf(plain.out));
        QVERIFY(!checksumsOf(plain.out).isEmpty());
        QCOMPARE(b[QStringLiteral("written_states")], a[QStringLiteral("written_states")]);
        QVERIFY(!a[QStringLiteral("written_states")].toArray().isEmpty());
        QCOMPARE(b[QStringLiteral("peak_bytes")], a[QStringLiteral("peak_bytes")]);

        const Run text = fxlens({QStringLiteral("run"), g, QStringLiteral("--repeat"), QStringLiteral("3")});
        QVERIFY2(text.exitCode == 0, qPrintable(describe(text)));
        QVERIFY2(text.out.contains("repeat: 3 runs") && text.out.contains("every run gave the first run's bytes"),
                 text.out.constData());
        for (const char* bad : {"0", "x", "100001", ""}) {
            const Run u = fxlens({QStringLiteral("run"), g, QStringLiteral("--repeat"), QString::fromLatin1(bad)});
            QVERIFY2(u.exitCode == 2 && u.err.contains("--repeat"), qPrintable(describe(u)));
        }
    }

    // What the file does not supply: get_attr constants are generated with --seed (listed,
    // never silently; the same values for the same name in every graph), and size symbols
    // without a hint are bound with --symbols.
    void constantsAndSymbolsNotInTheFile()
    {
        QTemporaryDir tmp;
        auto write = [&](const QString& name, const QByteArray& text) {
            QFile f(tmp.filePath(name));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(text);
        };
        write(QStringLiteral("a.py"),
              "class GraphModule(torch.nn.Module):\n"
              "    def forward(self, x: \"f32[4, 8]\"):\n"
              "        c: \"f32[8]\" = self._tensor_constant0\n"
              "        r: \"f32[4, 8]\" = torch.ops.aten.add.Tensor(x, c)\n"
              "        return (r,)\n");
        // the same constant read by a graph that computes the same thing another way
        write(QStringLiteral("b.py"),
              "class GraphModule(torch.nn.Module):\n"
              "    def forward(self, x: \"f32[4, 8]\"):\n"
              "        k: \"i64[3]\" = self.other\n"
              "        c: \"f32[8]\" = self._tensor_constant0\n"
              "        r: \"f32[4, 8]\" = torch.ops.aten.add.Tensor(c, x)\n"
              "        return (r,)\n");
        const QString a = tmp.filePath(QStringLiteral("a.py")), b = tmp.filePath(QStringLiteral("b.py"));
        const Run none = fxlens({QStringLiteral("run"), a});
        QCOMPARE(none.exitCode, 1);
        QVERIFY2(none.err.contains("_tensor_constant0") && none.err.contains("--seed N"), none.err.constData());
        const Run gen =
            fxlens({QStringLiteral("run"), a, QStringLiteral("--seed"), QStringLiteral("4"), QStringLiteral("--json")});
        QVERIFY2(gen.exitCode == 0, qPrintable(describe(gen)));
        const QJsonObject c = parseJsonDoc(gen.out)[QStringLiteral("constants")].toObject();
        QCOMPARE(c[QStringLiteral("origin")].toString(), QStringLiteral("generated"));
        QCOMPARE(c[QStringLiteral("generated")].toArray(), QJsonArray{QStringLiteral("_tensor_constant0")});
        QCOMPARE(c[QStringLiteral("seed")].toInt(), 4);
        const Run text = fxlens({QStringLiteral("run"), a, QStringLiteral("--seed"), QStringLiteral("4")});
        QVERIFY2(text.out.contains("constants: generated from their meta (no file has them; seed 4): "
                                   "_tensor_constant0"),
                 text.out.constData());
        // check: both sides get the same values for _tensor_constant0 (b's other constant too)
        const Run same = fxlens({QStringLiteral("check"), a, b, QStringLiteral("--seed"), QStringLiteral("4")});
        QVERIFY2(same.exitCode == 0, qPrintable(describe(same)));
        // a constant without meta cannot be generated
        write(QStringLiteral("c.py"),
              "class GraphModule(torch.nn.Module):\n"
              "    def forward(self, x: \"f32[4, 8]\"):\n"
              "        c = self._tensor_constant0\n"
              "        r = torch.ops.aten.add.Tensor(x, c)\n"
              "        return (r,)\n");
        const Run noMeta = fxlens({QStringLiteral("run"), tmp.filePath(QStringLiteral("c.py")),
                                   QStringLiteral("--seed"), QStringLiteral("1")});
        QCOMPARE(noMeta.exitCode, 1);
        QVERIFY2(noMeta.err.contains("constant '_tensor_constant0' has no tensor meta"), noMeta.err.constData());

        write(QStringLiteral("s.py"),
              "class GraphModule(torch.nn.Module):\n"
              "    def forward(self, x: \"f32[s0, 4]\"):\n"
              "        r: \"f32[2*s0, 4]\" = torch.ops.aten.cat.default([x, x])\n"
              "        return (r,)\n");
        const QString sg = tmp.filePath(QStringLiteral("s.py"));
        // no hint and no --symbols: the generated input takes the documented fallback, said so
        const Run unbound = fxlens({QStringLiteral("run"), sg});
        QVERIFY2(unbound.exitCode == 0, qPrintable(describe(unbound)));
        QVERIFY2(unbound.out.contains("\n  size symbols without a value took the fallback 8: s0=8 (give --symbols "
                                      "s0=8 or other values)\n"),
                 unbound.out.constData());
        const Run unboundJson = fxlens({QStringLiteral("run"), sg, QStringLiteral("--json")});
        QVERIFY2(unboundJson.exitCode == 0, qPrintable(describe(unboundJson)));
        const QJsonObject fallbackDoc = parseJsonDoc(unboundJson.out);
        QCOMPARE(fallbackDoc[QStringLiteral("inputs")].toObject()[QStringLiteral("symbol_fallbacks")].toObject(),
                 (QJsonObject{{QStringLiteral("s0"), 8}}));
        QCOMPARE(fallbackDoc[QStringLiteral("outputs")].toArray().at(0).toObject()[QStringLiteral("shape")].toArray(),
                 (QJsonArray{16, 4}));
        const Run unboundCheck = fxlens({QStringLiteral("check"), sg, sg});
        QVERIFY2(unboundCheck.exitCode == 0, qPrintable(describe(unboundCheck)));
        QVERIFY2(unboundCheck.out.contains("size symbols without a value took the fallback 8: s0=8"),
                 unboundCheck.out.constData());
        QVERIFY2(unboundCheck.out.contains("\nresult: bitwise equal\n"), unboundCheck.out.constData());
        const Run bound = fxlens(
            {QStringLiteral("run"), sg, QStringLiteral("--symbols"), QStringLiteral("s0=3"), QStringLiteral("--json")});
        QVERIFY2(bound.exitCode == 0, qPrintable(describe(bound)));
        const QJsonObject out = parseJsonDoc(bound.out)[QStringLiteral("outputs")].toArray().at(0).toObject();
        QCOMPARE(out[QStringLiteral("shape")].toArray(), (QJsonArray{6, 4}));
        QCOMPARE(parseJsonDoc(bound.out)[QStringLiteral("peak_bytes")].toInteger(), qint64((3 * 4 + 6 * 4) * 4));
        const Run unknown = fxlens({QStringLiteral("run"), sg, QStringLiteral("--symbols"), QStringLiteral("s9=2")});
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY2(unknown.err.contains("s9 is not a size symbol of the graph (its symbols: s0)"),
                 unknown.err.constData());
        const Run bad = fxlens({QStringLiteral("run"), sg, QStringLiteral("--symbols"), QStringLiteral("s0=x")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("--symbols 's0=x': expected an integer value for s0 at column 4"),
                 bad.err.constData());
    }

    // Issue 14's acceptance: every corpus graph runs with --seed (and --symbols / --ops where
    // it needs them) except those with collectives; 1 and 2 threads give the same bits, and a
    // second run the same bits again.
    void everyCorpusGraphRuns_data()
    {
        QTest::addColumn<int>("row");
        int total = 0, ran = 0;
        for (size_t k = 0; k < std::size(kCorpusRuns); ++k) {
            QTest::newRow(kCorpusRuns[k].file) << int(k);
            total += kCorpusRuns[k].graphs;
            ran += kCorpusRuns[k].ran;
        }
        qInfo("corpus graphs: %d, expected to run: %d", total, ran);
    }
    void everyCorpusGraphRuns()
    {
        FXL_SANITIZER_ROWS(2);
        QFETCH(int, row);
        const CorpusRunRow& r = kCorpusRuns[row];
        const QString file = QString::fromStdString(fxltest::corpusPath(r.file).string());
        FXL_REQUIRE_CORPUS(file);
        // the sanitizer stage (-O0: a log takes seconds to index per run) walks the fx dumps;
        // the logs' loaders and kernels have sanitizer runs of their own (test_torch_trace,
        // test_flex_attention, the fuzzers)
        if (fxltest::kSanitizedBuild && std::string_view(r.file).starts_with("tlparse/"))
            QSKIP("the release stage walks the logs");
        // gelu + dropout over 4M elements: ~35 s at -O0 with ASan
        if (fxltest::kSanitizedBuild && std::string_view(r.file).find("gelu_dropout") != std::string_view::npos)
            QSKIP("the release stage runs this graph (its custom op runs under ASan in test_custom_ops)");
        QStringList ops, extra;
        if (*r.ops)
            for (const QString& o : QString::fromLatin1(r.ops).split(QLatin1Char(';')))
                ops << QStringLiteral("--ops")
                    << QString::fromStdString(fxltest::testDataPath("ops/" + o.toStdString()).string());
        extra = ops;
        if (*r.symbols) extra << QStringLiteral("--symbols") << QString::fromLatin1(r.symbols);
        const Run info = fxlens(QStringList{QStringLiteral("info"), file, QStringLiteral("--json")} + ops);
        QVERIFY2(info.exitCode == 0, qPrintable(describe(info)));
        QStringList ids;
        for (const auto& src : parseJsonDoc(info.out)[QStringLiteral("sources")].toArray())
            for (const auto& g : src.toObject()[QStringLiteral("graph_info")].toArray())
                ids << g.toObject()[QStringLiteral("id")].toString();
        QCOMPARE(int(ids.size()), r.graphs);
        // the sanitizer stage (-O0) runs each file's first graph; the release stage all of them
        if (fxltest::kSanitizedBuild) ids = ids.mid(0, 1);
        int ran = 0, collectives = 0;
        QStringList failures;
        for (const QString& id : ids) {
            const QStringList args = QStringList{QStringLiteral("run"),     file,
                                                 QStringLiteral("--graph"), id,
                                                 QStringLiteral("--seed"),  QStringLiteral("1"),
                                                 QStringLiteral("--json")}
                + extra;
            const Run one = fxlens(args + QStringList{QStringLiteral("--threads"), QStringLiteral("1")});
            if (one.exitCode != 0) {
                const QByteArray err = one.err;
                if (err.contains("_c10d_functional") || err.contains("c10d.") || err.contains("wait_tensor"))
                    ++collectives;
                else
                    failures << id + ": " + QString::fromUtf8(err.trimmed().right(300));
                continue;
            }
            ++ran;
            // the bits at 1 and 2 threads, against the committed list: test_output_hashes
            const QStringList a = checksumsOf(one.out);
            QVERIFY2(!a.isEmpty() || parseJsonDoc(one.out)[QStringLiteral("outputs")].toArray().isEmpty(),
                     qPrintable(id));
        }
        QVERIFY2(failures.isEmpty(), qPrintable(failures.join(QLatin1Char('\n'))));
        if (fxltest::kSanitizedBuild) {
            QVERIFY2(r.ran > 0 || ran == 0, "a graph ran that the table says cannot");
            QVERIFY2(r.collectives > 0 || collectives == 0, "a collective graph the table does not count");
            return;
        }
        QCOMPARE(ran, r.ran);
        QCOMPARE(collectives, r.collectives);
    }

    // Generated integer inputs take values their consumers accept: embedding indices below the
    // table's rows (through a view), nll_loss targets below the class count, index_select
    // indices below the indexed dim; other ints stay in [0, 16).
    void generatedIndicesStayInRange()
    {
        QTemporaryDir tmp;
        const QString g = tmp.filePath(QStringLiteral("idx.py"));
        QFile f(g);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("class GraphModule(torch.nn.Module):\n"
                "    def forward(self, w: \"f32[5, 4]\", ids: \"i64[64]\", x: \"f32[64, 3]\", t: \"i64[64]\", "
                "k: \"i64[64]\", free: \"i64[64]\"):\n"
                "        v: \"i64[8, 8]\" = torch.ops.aten.view.default(ids, [8, 8])\n"
                "        e: \"f32[8, 8, 4]\" = torch.ops.aten.embedding.default(w, v)\n"
                "        l: \"f32[64, 3]\" = torch.ops.aten._log_softmax.default(x, 1, False)\n"
                "        n = torch.ops.aten.nll_loss_forward.default(l, t, None, 1, -100)\n"
                "        loss: \"f32[]\" = n[0]\n"
                "        s: \"f32[64, 4]\" = torch.ops.aten.index_select.default(w, 0, k)\n"
                "        c1: \"i64[64]\" = torch.ops.aten.clone.default(ids)\n"
                "        c2: \"i64[64]\" = torch.ops.aten.clone.default(t)\n"
                "        c3: \"i64[64]\" = torch.ops.aten.clone.default(k)\n"
                "        c4: \"i64[64]\" = torch.ops.aten.clone.default(free)\n"
                "        return (e, loss, s, c1, c2, c3, c4)\n");
        f.close();
        const Run r =
            fxlens({QStringLiteral("run"), g, QStringLiteral("--seed"), QStringLiteral("3"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        const QJsonArray outs = parseJsonDoc(r.out)[QStringLiteral("outputs")].toArray();
        QCOMPARE(outs.size(), 7);
        auto maxOf = [&](int k) { return outs.at(k).toObject()[QStringLiteral("max")].toDouble(); };
        QCOMPARE(maxOf(3), 4.0);  // ids < 5 (64 draws reach the top)
        QCOMPARE(maxOf(4), 2.0);  // targets < 3
        QCOMPARE(maxOf(5), 4.0);  // k < 5
        QVERIFY2(maxOf(6) > 5.0 && maxOf(6) < 16.0, qPrintable(QString::number(maxOf(6))));  // [0, 16)
    }
};

FXL_TEST_APPLESS_MAIN(TestCliRun)
}  // namespace test_cli_run
#include "test_cli_run.moc"

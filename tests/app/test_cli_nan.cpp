// NaN bits end to end, as a user meets them: inputs written by PyTorch hold NaNs with other
// bits than fxlens' canonical one (0x7fc00000 for float('nan'), payloads, signalling NaNs);
// `fxlens run` reads them, and every NaN it writes is the canonical 0xffc00000, also through a
// sign flip (neg, abs); `fxlens check` against a file of expected values that differs only in
// NaN bits says so apart ("equal except NaN payloads", result "nan_payloads_only", exit 1 as
// it is not bitwise equal, exit 0 with a tolerance), and a real difference beside it is still
// "different".
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>

#include "cli_test_util.hpp"
#include "core/formats/safetensors.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_cli_nan {

using namespace clitest;

namespace {

const char* kGraph = "class GraphModule(torch.nn.Module):\n"
                     "    def forward(self, x: \"f32[6]\", h: \"bf16[3]\"):\n"
                     "        n: \"f32[6]\" = torch.ops.aten.neg.default(x)\n"
                     "        a: \"f32[6]\" = torch.ops.aten.abs.default(x)\n"
                     "        s: \"f32[6]\" = torch.ops.aten.add.Tensor(x, 1)\n"
                     "        m: \"f32[]\" = torch.ops.aten.sum.default(x)\n"
                     "        c: \"f32[6]\" = torch.ops.aten.clone.default(x)\n"
                     "        hn: \"bf16[3]\" = torch.ops.aten.neg.default(h)\n"
                     "        return (n, a, s, m, c, hn)\n";

fxl::SafeTensor f32(const std::string& name, const std::vector<uint32_t>& bits)
{
    fxl::SafeTensor t;
    t.name = name;
    t.dtype = fxl::DType::F32;
    t.shape = {static_cast<int64_t>(bits.size())};
    t.data.resize(bits.size() * 4);
    std::memcpy(t.data.data(), bits.data(), t.data.size());
    return t;
}

// Every NaN element's bits that are not the canonical NaN of its dtype, as "name[i]=0x...".
QStringList otherNans(const fxl::SafeTensorsFile& f)
{
    QStringList bad;
    for (const auto& t : f.tensors) {
        if (t.dtype == fxl::DType::F32) {
            for (int64_t k = 0; k < t.numel(); ++k) {
                uint32_t u;
                std::memcpy(&u, t.data.data() + k * 4, 4);
                if ((u & 0x7fffffffu) > 0x7f800000u && u != 0xffc00000u)
                    bad << QStringLiteral("%1[%2]=0x%3").arg(QString::fromStdString(t.name)).arg(k).arg(u, 8, 16);
            }
        } else if (t.dtype == fxl::DType::BF16) {
            for (int64_t k = 0; k < t.numel(); ++k) {
                uint16_t u;
                std::memcpy(&u, t.data.data() + k * 2, 2);
                if ((u & 0x7fffu) > 0x7f80u && u != 0xffc0u)
                    bad << QStringLiteral("%1[%2]=0x%3").arg(QString::fromStdString(t.name)).arg(k).arg(u, 4, 16);
            }
        }
    }
    return bad;
}

int nanCount(const fxl::SafeTensorsFile& f)
{
    int n = 0;
    for (const auto& t : f.tensors)
        for (int64_t k = 0; k < t.numel(); ++k)
            if (t.dtype == fxl::DType::F32) {
                float v;
                std::memcpy(&v, t.data.data() + k * 4, 4);
                n += v != v;
            }
    return n;
}

}  // namespace

class TestCliNan : public QObject
{
    Q_OBJECT

    QTemporaryDir tmp_;
    QString graph_, inputs_;

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo(kFxlensBinary).isExecutable(), qPrintable("fxlens binary missing: " + kFxlensBinary));
        graph_ = tmp_.filePath(QStringLiteral("nan.py"));
        QFile g(graph_);
        QVERIFY(g.open(QIODevice::WriteOnly));
        g.write(kGraph);
        g.close();
        // x: PyTorch's NaN, a payload, a signalling NaN, the canonical NaN, numbers
        fxl::SafeTensorsFile in;
        in.tensors.push_back(f32("x", {0x3f800000u, 0x7fc00000u, 0xc0000000u, 0x7fc01234u, 0x7f800001u, 0xffc00000u}));
        fxl::SafeTensor h;
        h.name = "h";
        h.dtype = fxl::DType::BF16;
        h.shape = {3};
        const uint16_t hb[3] = {0x3f80u, 0x7fc1u, 0xffc0u};
        h.data.resize(6);
        std::memcpy(h.data.data(), hb, 6);
        in.tensors.push_back(h);
        inputs_ = tmp_.filePath(QStringLiteral("in.safetensors"));
        fxl::writeSafetensors(inputs_.toStdString(), in);
    }

    // run: every NaN written is the canonical one, whatever the input NaN's bits
    void runWritesTheCanonicalNan()
    {
        const QString out = tmp_.filePath(QStringLiteral("out.safetensors"));
        const Run r = fxlens({QStringLiteral("run"), graph_, QStringLiteral("--inputs"), inputs_,
                              QStringLiteral("--out"), out, QStringLiteral("--force")});
        QVERIFY2(!r.crashed && r.exitCode == 0, qPrintable(describe(r)));
        const fxl::SafeTensorsFile got = fxl::readSafetensors(out.toStdString());
        QCOMPARE(int(got.tensors.size()), 6);
        QVERIFY2(nanCount(got) >= 4 * 4 + 1, qPrintable(QString::number(nanCount(got))));
        const QStringList bad = otherNans(got);
        QVERIFY2(bad.isEmpty(), qPrintable(bad.join(QLatin1Char(' '))));
    }

    // check against expected values that differ only in NaN bits: reported apart
    void checkReportsNanPayloadsApart()
    {
        const QString out = tmp_.filePath(QStringLiteral("ours.safetensors"));
        Run r = fxlens({QStringLiteral("run"), graph_, QStringLiteral("--inputs"), inputs_, QStringLiteral("--out"),
                        out, QStringLiteral("--force")});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        // the same values as PyTorch writes them: its NaN is 0x7fc00000 (0x7fc0 in bf16)
        fxl::SafeTensorsFile torch = fxl::readSafetensors(out.toStdString());
        for (auto& t : torch.tensors) {
            if (t.dtype == fxl::DType::F32)
                for (int64_t k = 0; k < t.numel(); ++k) {
                    uint32_t u;
                    std::memcpy(&u, t.data.data() + k * 4, 4);
                    if (u == 0xffc00000u) u = 0x7fc00000u;
                    std::memcpy(t.data.data() + k * 4, &u, 4);
                }
        }
        const QString expected = tmp_.filePath(QStringLiteral("torch.safetensors"));
        fxl::writeSafetensors(expected.toStdString(), torch);

        r = fxlens({QStringLiteral("check"), graph_, expected, QStringLiteral("--inputs"), inputs_});
        QVERIFY2(!r.crashed && r.exitCode == 1, qPrintable(describe(r)));
        QVERIFY2(r.out.contains("equal except NaN payloads (the same elements are NaN, with other NaN bits)"),
                 qPrintable(describe(r)));
        QVERIFY2(r.out.contains("0xffc00000 vs 0x7fc00000"), qPrintable(describe(r)));
        QVERIFY2(!r.out.contains("result: bitwise equal"), qPrintable(describe(r)));

        r = fxlens(
            {QStringLiteral("check"), graph_, expected, QStringLiteral("--inputs"), inputs_, QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 1);
        const QJsonObject doc = parseJsonDoc(r.out);
        QCOMPARE(doc[QStringLiteral("result")].toString(), QStringLiteral("nan_payloads_only"));
        QVERIFY(doc[QStringLiteral("report")].toObject()[QStringLiteral("equal_except_nan_payloads")].toBool());

        // with a tolerance the values are within it (NaN against NaN): exit 0, still said apart
        r = fxlens({QStringLiteral("check"), graph_, expected, QStringLiteral("--inputs"), inputs_,
                    QStringLiteral("--tolerance"), QStringLiteral("0,0")});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QVERIFY2(r.out.contains("equal except NaN payloads"), qPrintable(describe(r)));

        // a real difference beside the NaN bits: different
        for (auto& t : torch.tensors)
            if (t.name == torch.tensors.front().name) {
                const float v = 7.0f;
                std::memcpy(t.data.data(), &v, 4);
            }
        fxl::writeSafetensors(expected.toStdString(), torch);
        r = fxlens(
            {QStringLiteral("check"), graph_, expected, QStringLiteral("--inputs"), inputs_, QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(parseJsonDoc(r.out)[QStringLiteral("result")].toString(), QStringLiteral("different"));

        // fxlens against itself: canonical on both sides, bitwise equal
        r = fxlens({QStringLiteral("check"), graph_, graph_, QStringLiteral("--inputs"), inputs_});
        QVERIFY2(r.exitCode == 0 && r.out.contains("bitwise equal"), qPrintable(describe(r)));
    }
};

FXL_TEST_GUILESS_MAIN(TestCliNan)
}  // namespace test_cli_nan
#include "test_cli_nan.moc"

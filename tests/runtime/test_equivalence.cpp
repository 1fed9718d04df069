// runtime/equivalence compareTensors on its own: every field of a TensorDiff on tensors made to
// differ in one known way (the last element only, a few ULP, a sign, the sign of zero, a NaN,
// shape and dtype, integers, bf16, a tolerance met and missed, an infinity). `check`, the run
// panel and the report print these fields; a comparison that skips an element, miscounts ULP or
// calls -0 and +0 equal fails a row here. The float64 proof behind "reduction order"
// (runtime/check/float64_proof.hpp): its bound on made differences, and what widening does to a
// graph and a file.
#include <QtTest>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/formats/fx/fx_text_parser.hpp"
#include "runtime/check/equivalence.hpp"
#include "runtime/check/float64_proof.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_equivalence {

using namespace fxl;

namespace {

// Values as text ("1", "0x1.000002p+2", "-0", "nan", "inf"), stored exactly in `dtype` (f32,
// bf16 by truncation of an exactly representable f32, i64).
SafeTensor tensorOf(const QString& dtype, const QList<int>& shape, const QString& values)
{
    SafeTensor t;
    t.name = "t";
    for (int s : shape) t.shape.push_back(s);
    for (const QString& v : values.split(',', Qt::SkipEmptyParts)) {
        const std::string text = v.trimmed().toStdString();
        const double d = std::strtod(text.c_str(), nullptr);
        if (dtype == QLatin1String("f64")) {
            t.dtype = DType::F64;
            const auto* p = reinterpret_cast<const uint8_t*>(&d);
            t.data.insert(t.data.end(), p, p + 8);
            continue;
        }
        if (dtype == QLatin1String("i64")) {
            t.dtype = DType::I64;
            const int64_t i = static_cast<int64_t>(d);
            const auto* p = reinterpret_cast<const uint8_t*>(&i);
            t.data.insert(t.data.end(), p, p + 8);
            continue;
        }
        const float f = static_cast<float>(d);
        uint32_t bits = 0;
        std::memcpy(&bits, &f, 4);
        if (dtype == QLatin1String("bf16")) {
            t.dtype = DType::BF16;
            const uint16_t b = static_cast<uint16_t>(bits >> 16);
            t.data.push_back(static_cast<uint8_t>(b & 0xff));
            t.data.push_back(static_cast<uint8_t>(b >> 8));
            continue;
        }
        t.dtype = DType::F32;
        for (int k = 0; k < 4; ++k) t.data.push_back(static_cast<uint8_t>(bits >> (8 * k)));
    }
    return t;
}

}  // namespace

class TestEquivalence : public QObject
{
    Q_OBJECT

private slots:
    void fields_data()
    {
        QTest::addColumn<QString>("dtype");
        QTest::addColumn<QList<int>>("shape");
        QTest::addColumn<QString>("a");  // actual
        QTest::addColumn<QString>("b");  // expected
        QTest::addColumn<double>("rtol");  // < 0: no tolerance (atol 0 with one)
        // expected: "bitwise differing first maxUlp signFlips nan zeroSign within" (bitwise equal
        // counts as within any tolerance, and without one)
        QTest::addColumn<QString>("expected");
        auto row = [](const char* name, const char* dtype, QList<int> shape, const char* a, const char* b, double rtol,
                      const char* expected) {
            QTest::newRow(name) << QString(dtype) << shape << QString(a) << QString(b) << rtol << QString(expected);
        };
        row("equal", "f32", {3}, "1, 2, 3", "1, 2, 3", -1, "1 0 -1 0 0 0 0 1");
        row("the last element only", "f32", {4}, "1, 2, 3, 0x1.000002p+2", "1, 2, 3, 4", -1, "0 1 3 1 0 0 0 0");
        row("three ulp at the first", "f32", {2}, "0x1.000006p+0, 5", "1, 5", -1, "0 1 0 3 0 0 0 0");
        row("a sign", "f32", {1}, "2", "-2", -1, "0 1 0 2147483648 1 0 0 0");
        row("the sign of zero only", "f32", {2}, "-0, 1", "0, 1", -1, "0 1 0 0 0 0 1 0");
        row("nan against a number", "f32", {2}, "1, nan", "1, 1", -1, "0 1 1 0 0 1 0 0");
        row("the same nan", "f32", {1}, "nan", "nan", -1, "1 0 -1 0 0 0 0 1");
        row("integers exactly, whatever the tolerance", "i64", {2}, "1, 2", "1, 3", 0.5, "0 1 1 0 0 0 0 0");
        row("bf16, one ulp", "bf16", {1}, "1.0078125", "1", -1, "0 1 0 1 0 0 0 0");
        row("within the tolerance", "f32", {2}, "1, 2", "1.0009765625, 2", 0.001, "0 1 0 8192 0 0 0 1");
        row("outside the tolerance", "f32", {2}, "1, 2", "1.125, 2", 0.001, "0 1 0 1048576 0 0 0 0");
        row("an infinity against a number", "f32", {1}, "inf", "3e38", 0.5, "0 1 0 1986074 0 0 0 0");
        row("many elements, several differ", "f32", {2, 3}, "0, 1, 2, 3, 5, 6", "0, 1, 2, 3, 4, 5", -1,
            "0 2 4 2097152 0 0 0 0");
    }
    void fields()
    {
        QFETCH(QString, dtype);
        QFETCH(QList<int>, shape);
        QFETCH(QString, a);
        QFETCH(QString, b);
        QFETCH(double, rtol);
        QFETCH(QString, expected);
        std::optional<Tolerance> tol;
        if (rtol >= 0) tol = Tolerance{0, rtol};
        const TensorDiff d = compareTensors("x", tensorOf(dtype, shape, a), tensorOf(dtype, shape, b), tol);
        QVERIFY(!d.shapeMismatch && !d.dtypeMismatch);
        const QString got = QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8")
                                .arg(int(d.bitwiseEqual))
                                .arg(d.differing)
                                .arg(d.firstIndex)
                                .arg(d.maxUlp)
                                .arg(d.signFlips)
                                .arg(d.nanMismatch)
                                .arg(d.zeroSignOnly)
                                .arg(int(d.withinTolerance));
        QCOMPARE(got, expected);
        QCOMPARE(d.numel, static_cast<int64_t>(tensorOf(dtype, shape, a).numel()));
    }

    // NaN against NaN with other bits (PyTorch's 0x7fc00000 against fxlens' canonical
    // 0xffc00000) is reported apart: not bitwise equal, its own verdict, its own count, in the
    // text and the JSON; a real difference beside it still makes the comparison "different".
    void nanPayloadsApart()
    {
        auto nanF32 = [](uint32_t bits) {
            SafeTensor t = tensorOf("f32", {3}, "1, 0, 2");
            std::memcpy(t.data.data() + 4, &bits, 4);
            return t;
        };
        const SafeTensor ours = nanF32(0xffc00000u), torch = nanF32(0x7fc00000u);
        TensorDiff d = compareTensors("y", ours, torch);
        QVERIFY(!d.bitwiseEqual);
        QVERIFY(d.onlyNanPayloads());
        QCOMPARE(d.differing, int64_t(1));
        QCOMPARE(d.nanPayloadOnly, int64_t(1));
        QCOMPARE(d.nanMismatch, int64_t(0));
        const std::string text = diffToText(d);
        QVERIFY2(text.find("equal except NaN payloads: 1 of 3 elements") != std::string::npos, text.c_str());
        QVERIFY2(text.find("0xffc00000 vs 0x7fc00000") != std::string::npos, text.c_str());
        EquivalenceReport r;
        r.outputs.push_back(d);
        QCOMPARE(verdictOf(r, std::nullopt), Verdict::NanPayloadsOnly);
        QCOMPARE(verdictOf(r, Tolerance{1e-6, 1e-5}), Verdict::NanPayloadsOnly);
        QCOMPARE(std::string(verdictKey(Verdict::NanPayloadsOnly)), std::string("nan_payloads_only"));
        const nlohmann::json j = reportToJson(r);
        QVERIFY(!j["bitwise_equal"].get<bool>());
        QVERIFY(j["equal_except_nan_payloads"].get<bool>());
        QCOMPARE(j["outputs"][0]["nan_payload_only"].get<int64_t>(), int64_t(1));
        // with a real difference beside it: different, and both counts said
        SafeTensor other = torch;
        const float three = 3.0f;
        std::memcpy(other.data.data() + 8, &three, 4);
        d = compareTensors("y", ours, other);
        QVERIFY(!d.onlyNanPayloads());
        QCOMPARE(d.differing, int64_t(2));
        r.outputs = {d};
        QCOMPARE(verdictOf(r, std::nullopt), Verdict::Different);
        const std::string mixed = diffToText(d);
        QVERIFY2(mixed.find("2 of 3 elements differ") != std::string::npos
                     && mixed.find("1 NaN in both with other bits") != std::string::npos,
                 mixed.c_str());
        // NaN against a number is no payload difference
        d = compareTensors("y", ours, tensorOf("f32", {3}, "1, 5, 2"));
        QCOMPARE(d.nanMismatch, int64_t(1));
        QCOMPARE(d.nanPayloadOnly, int64_t(0));
        QVERIFY(!d.onlyNanPayloads());
    }

    // Where the first difference is, in the logical shape, with both values and bit patterns.
    void firstDifference()
    {
        const TensorDiff d = compareTensors("x", tensorOf("f32", {2, 3}, "0, 1, 2, 3, 5, 6"),
                                            tensorOf("f32", {2, 3}, "0, 1, 2, 3, 4, 5"));
        QCOMPARE(d.firstIndexNd, (std::vector<int64_t>{1, 1}));
        QCOMPARE(d.firstA, 5.0);
        QCOMPARE(d.firstB, 4.0);
        QCOMPARE(d.firstAHex, std::string("0x40a00000"));
        QCOMPARE(d.firstBHex, std::string("0x40800000"));
        QCOMPARE(d.maxAbs, 1.0);
        QCOMPARE(d.maxRel, 0.25);
    }

    // The ULP distance between float64 values of opposite signs exceeds 2^63: counted in
    // unsigned arithmetic (a signed difference overflows; the sanitizer build fails on it).
    void ulpAcrossZeroInFloat64()
    {
        const TensorDiff d = compareTensors("x", tensorOf("f64", {2}, "1e300, 1"), tensorOf("f64", {2}, "-1e300, 1"));
        const double big = 1e300;
        uint64_t bits = 0;
        std::memcpy(&bits, &big, 8);
        QCOMPARE(d.maxUlp, 2 * bits);
        QCOMPARE(d.signFlips, int64_t(1));
    }

    // Different shapes or dtypes are not compared element by element.
    void mismatches()
    {
        TensorDiff d = compareTensors("x", tensorOf("f32", {2}, "1, 2"), tensorOf("f32", {1, 2}, "1, 2"));
        QVERIFY(d.shapeMismatch && !d.bitwiseEqual);
        d = compareTensors("x", tensorOf("f32", {1}, "1"), tensorOf("bf16", {1}, "1"));
        QVERIFY(d.dtypeMismatch && !d.bitwiseEqual);
    }

    // The bound: max |a64 - b64| <= 2^-16 max |a32 - b32|. Rounding shrinks by about 2^29 from
    // float32 to float64; a difference of function does not, nor one that shrinks only 100-fold.
    void orderProof_data()
    {
        QTest::addColumn<QString>("a32");
        QTest::addColumn<QString>("b32");
        QTest::addColumn<QString>("a64");
        QTest::addColumn<QString>("b64");
        QTest::addColumn<bool>("proven");
        QTest::newRow("rounding: shrinks 2^29") << "1.0000001, 2"
                                                << "1, 2"
                                                << "1.000000000000001, 2"
                                                << "1, 2" << true;
        QTest::newRow("float64 equal") << "3, 0.5"
                                       << "3.0000002, 0.5"
                                       << "3, 0.5"
                                       << "3, 0.5" << true;
        QTest::newRow("shrinks 100-fold only") << "1.001, 2"
                                               << "1, 2"
                                               << "1.00001, 2"
                                               << "1, 2" << false;
        QTest::newRow("another function") << "1.5, 2"
                                          << "1, 2"
                                          << "1.5, 2"
                                          << "1, 2" << false;
        QTest::newRow("zero sign only, float64 equal") << "-0, 1"
                                                       << "0, 1"
                                                       << "0, 1"
                                                       << "0, 1" << true;
        QTest::newRow("zero sign only, float64 differs") << "-0, 1"
                                                         << "0, 1"
                                                         << "1e-300, 1"
                                                         << "0, 1" << false;
        QTest::newRow("a NaN in float64") << "1.0000001"
                                          << "1"
                                          << "nan"
                                          << "1" << false;
    }
    void orderProof()
    {
        QFETCH(QString, a32);
        QFETCH(QString, b32);
        QFETCH(QString, a64);
        QFETCH(QString, b64);
        QFETCH(bool, proven);
        const int n = static_cast<int>(a32.split(',').size());
        const OrderProof p = proveOrderOnly(tensorOf("f32", {n}, a32), tensorOf("f32", {n}, b32),
                                            tensorOf("f64", {n}, a64), tensorOf("f64", {n}, b64));
        QCOMPARE(p.proven, proven);
        QVERIFY2(p.text().find(proven ? " <= 2^-16 x float32 difference " : " > 2^-16 x float32 difference ")
                     != std::string::npos,
                 p.text().c_str());
    }

    // Widening: dtype arguments, metas and the default dtype of factories become float64; a
    // file's float tensors are widened exactly; integers stay.
    void widenToFloat64()
    {
        const Graph g =
            parseFxText("class G(torch.nn.Module):\n"
                        "    def forward(self, x: \"f32[2]\", i: \"i64[2]\"):\n"
                        "        z: \"f32[2]\" = torch.ops.aten.zeros.default([2], device = device(type='cpu'), "
                        "pin_memory = False)\n"
                        "        h: \"bf16[2]\" = torch.ops.aten._to_copy.default(x, dtype = torch.bfloat16)\n"
                        "        k: \"i64[2]\" = torch.ops.aten.zeros.default([2], dtype = torch.int64)\n"
                        "        return (z, h, k, i)\n",
                        "g.py");
        const Graph w = fxl::widenToFloat64(g);
        auto node = [&](const char* name) -> const Node& { return w.node(w.findByName(name)); };
        QCOMPARE(node("x").val.tensor.dtype, DType::F64);
        QCOMPARE(node("i").val.tensor.dtype, DType::I64);
        QCOMPARE(node("z").val.tensor.dtype, DType::F64);
        QVERIFY(node("z").kwarg("dtype") && node("z").kwarg("dtype")->dtype == DType::F64);
        QCOMPARE(node("h").kwarg("dtype")->dtype, DType::F64);
        QCOMPARE(node("k").kwarg("dtype")->dtype, DType::I64);
        QCOMPARE(g.node(g.findByName("x")).val.tensor.dtype, DType::F32);  // the original is untouched

        SafeTensorsFile f;
        f.tensors = {tensorOf("f32", {2}, "0.1, -3"), tensorOf("bf16", {1}, "1.5"), tensorOf("i64", {1}, "7")};
        const SafeTensorsFile wf = fxl::widenToFloat64(f);
        QCOMPARE(wf.tensors.at(0).dtype, DType::F64);
        double v[2];
        std::memcpy(v, wf.tensors.at(0).data.data(), 16);
        QCOMPARE(v[0], static_cast<double>(0.1f));
        QCOMPARE(v[1], -3.0);
        QCOMPARE(wf.tensors.at(1).dtype, DType::F64);
        QCOMPARE(wf.tensors.at(2).dtype, DType::I64);
        QCOMPARE(wf.tensors.at(2).data, f.tensors.at(2).data);
    }
};

FXL_TEST_GUILESS_MAIN(TestEquivalence)
}  // namespace test_equivalence
#include "test_equivalence.moc"

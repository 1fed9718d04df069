// FX type annotations: every distinct annotation in the corpus parses and prints back
// unchanged; hand cases check the parsed fields; malformed text reports a column.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <map>

#include "core/ir/diagnostics.hpp"
#include "core/ir/tensor_meta.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_annotation {

using namespace fxl;

namespace {

// The `name: "text"` pairs of a line (FX annotations are printed that way).
std::vector<std::string> quotedAnnotations(const std::string& line)
{
    std::vector<std::string> out;
    for (size_t at = line.find(": \""); at != std::string::npos; at = line.find(": \"", at + 1)) {
        if (at == 0) continue;
        char prev = line[at - 1];
        if (!(std::isalnum(static_cast<unsigned char>(prev)) || prev == '_')) continue;
        size_t end = line.find('"', at + 3);
        if (end == std::string::npos) break;
        out.push_back(line.substr(at + 3, end - at - 3));
    }
    return out;
}

// dtype[...], Sym(...) or ClassName(...): other quoted strings in logs are not annotations.
bool looksLikeAnnotation(const std::string& a)
{
    if (a.empty()) return false;
    size_t i = 0;
    while (i < a.size() && (std::isalnum(static_cast<unsigned char>(a[i])) || a[i] == '_')) ++i;
    if (i == 0 || i == a.size()) return false;
    if (a[0] >= 'a' && a[0] <= 'z') return a[i] == '[';
    if (a[0] >= 'A' && a[0] <= 'Z') return a[i] == '(' && a.back() == ')';
    return false;
}

// Distinct annotation texts in the graph dumps and TORCH_TRACE logs, with the first file
// each one was seen in.
std::map<std::string, std::string> corpusAnnotations(const std::filesystem::path& root)
{
    std::map<std::string, std::string> out;
    for (const char* sub : {"fx", "tlparse", "pytorch"}) {
        std::filesystem::path dir = root / sub;
        if (!std::filesystem::exists(dir)) continue;
        for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
            if (!entry.is_regular_file()) continue;
            auto ext = entry.path().extension().string();
            if (ext != ".txt" && ext != ".log" && ext != ".py") continue;
            std::ifstream in(entry.path());
            std::string line;
            while (std::getline(in, line)) {
                for (const std::string& a : quotedAnnotations(line))
                    if (looksLikeAnnotation(a)) out.emplace(a, std::filesystem::relative(entry.path(), root).string());
            }
        }
    }
    return out;
}

QString q(const std::string& s) { return QString::fromStdString(s); }

std::string dims(const std::vector<SymInt>& v)
{
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + v[i].str();
    return s;
}

}  // namespace

class TestAnnotation : public QObject
{
    Q_OBJECT

private slots:
    void corpusRoundTrip_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("file");
        const auto annotations = corpusAnnotations(fxltest::corpusDir());
        if (annotations.empty())  // no corpus: a row that skips or fails by the corpus rule
            QTest::newRow("fx") << QString() << q(fxltest::corpusPath("fx").string());
        for (const auto& [text, file] : annotations) QTest::newRow(text.c_str()) << q(text) << q(file);
    }
    void corpusRoundTrip()
    {
        QFETCH(QString, text);
        QFETCH(QString, file);
        FXL_REQUIRE_CORPUS(fxltest::corpusPath("fx"));
        if (text.isEmpty()) QFAIL("no annotations found in the corpus");
        ValueMeta m;
        try {
            m = parseAnnotation(text.toStdString());
        } catch (const InputError& e) {
            QFAIL(qPrintable(file + ": " + QString::fromUtf8(e.what())));
        }
        QCOMPARE(q(formatAnnotation(m)), text);
        QVERIFY2(m.kind != ValueMeta::Kind::Opaque, qPrintable(file));
        if (m.kind == ValueMeta::Kind::Tensor) {
            const TensorMeta& t = m.tensor;
            QVERIFY(t.strides.empty() || t.strides.size() == t.sizes.size());
            QVERIFY(t.hasStrides() == (!t.strides.empty() || t.sizes.empty()));
            bool concrete = std::all_of(t.sizes.begin(), t.sizes.end(), [](const SymInt& s) { return s.isConcrete(); });
            if (concrete) {
                int64_t n = 1;
                for (const auto& s : t.sizes) n *= *s.maybeValue();
                QCOMPARE(t.numelHint(), n);
                QCOMPARE(t.bytesHint(), n * dtypeItemSize(t.dtype));
            } else {
                QCOMPARE(t.numelHint(), int64_t(-1));  // symbolic sizes without hints
            }
        }
        // formatting is a fixed point
        QVERIFY(parseAnnotation(formatAnnotation(m)) == m);
    }

    void corpusCoverage()
    {
        FXL_REQUIRE_CORPUS(fxltest::corpusPath("fx"));
        auto all = corpusAnnotations(fxltest::corpusDir());
        // the corpus has 0-d tensors, strided + device forms, symbolic shapes and Sym scalars
        QVERIFY(all.count("f32[]"));
        QVERIFY(all.count("f32[][]cuda:0"));
        QVERIFY(all.count("Sym(s0)"));
        QVERIFY(all.count("f32[(((-u1)//3)) + 5]"));
        QVERIFY(all.size() > 50);
    }

    void handCases_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("dtype");
        QTest::addColumn<QString>("sizes");
        QTest::addColumn<QString>("strides");
        QTest::addColumn<QString>("device");
        using K = ValueMeta::Kind;
        QTest::newRow("plain") << "f32[8, 4]" << int(K::Tensor) << "f32"
                               << "8,4"
                               << ""
                               << "";
        QTest::newRow("strided") << "f32[8, 4][4, 1]cuda:0" << int(K::Tensor) << "f32"
                                 << "8,4"
                                 << "4,1"
                                 << "cuda:0";
        QTest::newRow("0-d") << "f32[]" << int(K::Tensor) << "f32"
                             << ""
                             << ""
                             << "";
        QTest::newRow("0-d device") << "f32[][]cuda:0" << int(K::Tensor) << "f32"
                                    << ""
                                    << ""
                                    << "cuda:0";
        QTest::newRow("bool sym") << "b8[s0, 3]" << int(K::Tensor) << "b8"
                                  << "s0,3"
                                  << ""
                                  << "";
        QTest::newRow("cpu") << "i64[2][1]cpu" << int(K::Tensor) << "i64"
                             << "2"
                             << "1"
                             << "cpu";
        QTest::newRow("cuda no index") << "bf16[2, 3][3, 1]cuda" << int(K::Tensor) << "bf16"
                                       << "2,3"
                                       << "3,1"
                                       << "cuda";
        QTest::newRow("meta") << "f16[4][1]meta" << int(K::Tensor) << "f16"
                              << "4"
                              << "1"
                              << "meta";
        QTest::newRow("xpu") << "f32[4][1]xpu:0" << int(K::Tensor) << "f32"
                             << "4"
                             << "1"
                             << "xpu:0";
        QTest::newRow("f8") << "f8e4m3fn[16, 16][16, 1]cuda:0" << int(K::Tensor) << "f8e4m3fn"
                            << "16,16"
                            << "16,1"
                            << "cuda:0";
        QTest::newRow("channels last") << "f32[1, 320, 128, 128][5242880, 1, 40960, 320]cuda:0" << int(K::Tensor)
                                       << "f32"
                                       << "1,320,128,128"
                                       << "5242880,1,40960,320"
                                       << "cuda:0";
        QTest::newRow("symbolic strides") << "f32[s0, s1][s1, 1]cuda:0" << int(K::Tensor) << "f32"
                                          << "s0,s1"
                                          << "s1,1"
                                          << "cuda:0";
        QTest::newRow("expr with commas") << "f32[Max(1, s0), 2*s0 + 1]" << int(K::Tensor) << "f32"
                                          << "Max(1, s0),2*s0 + 1"
                                          << ""
                                          << "";
        QTest::newRow("unbacked") << "f32[(((-u1)//3)) + 5]" << int(K::Tensor) << "f32"
                                  << "(((-u1)//3)) + 5"
                                  << ""
                                  << "";
        QTest::newRow("zero size") << "f32[0, 4][4, 1]cpu" << int(K::Tensor) << "f32"
                                   << "0,4"
                                   << "4,1"
                                   << "cpu";
        QTest::newRow("subclass") << "TwoTensor(f32[3, 4])" << int(K::Tensor) << "f32"
                                  << "3,4"
                                  << ""
                                  << "";
        QTest::newRow("dtensor") << "DTensor(f32[8, 4][4, 1]cuda:0, (Shard(dim=0), Replicate()))" << int(K::Tensor)
                                 << "f32"
                                 << "8,4"
                                 << "4,1"
                                 << "cuda:0";
        QTest::newRow("nested subclass") << "A(B(i32[2]))" << int(K::Tensor) << "i32"
                                         << "2"
                                         << ""
                                         << "";
        QTest::newRow("sym int") << "Sym(s0)" << int(K::SymInt) << ""
                                 << ""
                                 << ""
                                 << "";
        QTest::newRow("sym floordiv") << "Sym(((-u1)//3))" << int(K::SymInt) << ""
                                      << ""
                                      << ""
                                      << "";
        QTest::newRow("sym float") << "Sym(s1 - 1.0)" << int(K::SymFloat) << ""
                                   << ""
                                   << ""
                                   << "";
        QTest::newRow("sym bool") << "Sym(u0 >= 0)" << int(K::SymBool) << ""
                                  << ""
                                  << ""
                                  << "";
        QTest::newRow("sym eq") << "Sym(Eq(s0, 3))" << int(K::SymBool) << ""
                                << ""
                                << ""
                                << "";
        QTest::newRow("sym true") << "Sym(True)" << int(K::SymBool) << ""
                                  << ""
                                  << ""
                                  << "";
        QTest::newRow("opaque type") << "torch.Tensor" << int(K::Opaque) << ""
                                     << ""
                                     << ""
                                     << "";
        QTest::newRow("opaque wrapper") << "Foo(bar baz)" << int(K::Opaque) << ""
                                        << ""
                                        << ""
                                        << "";
        QTest::newRow("wrapper of sym") << "Wrap(Sym(s0))" << int(K::Opaque) << ""
                                        << ""
                                        << ""
                                        << "";
    }
    void handCases()
    {
        QFETCH(QString, text);
        QFETCH(int, kind);
        QFETCH(QString, dtype);
        QFETCH(QString, sizes);
        QFETCH(QString, strides);
        QFETCH(QString, device);
        ValueMeta m = parseAnnotation(text.toStdString());
        QCOMPARE(int(m.kind), kind);
        QCOMPARE(q(formatAnnotation(m)), text);
        if (m.kind == ValueMeta::Kind::Tensor) {
            QCOMPARE(q(std::string(dtypeAbbr(m.tensor.dtype))), dtype);
            QCOMPARE(q(dims(m.tensor.sizes)), sizes);
            QCOMPARE(q(dims(m.tensor.strides)), strides);
            QCOMPARE(q(m.tensor.device), device);
        }
        if (m.kind == ValueMeta::Kind::Opaque) QCOMPARE(q(m.opaqueText), text);
    }

    void fields()
    {
        ValueMeta m = parseAnnotation("TwoTensor(f32[3, 4])");
        QCOMPARE(m.wrapperPrefix, std::string("TwoTensor("));
        QCOMPARE(m.wrapperSuffix, std::string(")"));
        m = parseAnnotation("DTensor(f32[8, 4], S(0))");
        QCOMPARE(m.wrapperPrefix, std::string("DTensor("));
        QCOMPARE(m.wrapperSuffix, std::string(", S(0))"));
        m = parseAnnotation("Sym(2*s0 + 1)");
        QCOMPARE(*m.sym.evaluate({{"s0", 3}}), int64_t(7));
        m = parseAnnotation("f32[8, 4][4, 1]cuda:0");
        QCOMPARE(m.tensor.numelHint(), int64_t(32));
        QCOMPARE(m.tensor.bytesHint(), int64_t(128));
        QVERIFY(m.tensor.hasStrides());
        QVERIFY(!parseAnnotation("f32[8, 4]").tensor.hasStrides());
        QVERIFY(parseAnnotation("f32[]").tensor.hasStrides());  // 0-d: strides are trivially known
        QCOMPARE(parseAnnotation("f32[]").tensor.numelHint(), int64_t(1));
        // spacing is normalised to PyTorch's
        QCOMPARE(formatAnnotation(parseAnnotation("f32[8,4][4,1]cpu")), std::string("f32[8, 4][4, 1]cpu"));
        QCOMPARE(formatAnnotation(parseAnnotation("f32[s0*2]")), std::string("f32[2*s0]"));
    }

    void equality()
    {
        ValueMeta a = parseAnnotation("f32[s0, 4]");
        ValueMeta b = parseAnnotation("f32[s0, 4]");
        b.tensor.sizes[0].setHint(16);  // hints are ignored
        QVERIFY(a == b);
        QVERIFY(parseAnnotation("f32[8]") != parseAnnotation("f32[8][1]"));
        QVERIFY(parseAnnotation("f32[8]") != parseAnnotation("f16[8]"));
        QVERIFY(parseAnnotation("f32[8][1]cpu") != parseAnnotation("f32[8][1]cuda:0"));
        QVERIFY(parseAnnotation("Sym(s0*2)") == parseAnnotation("Sym(2*s0)"));
        QVERIFY(parseAnnotation("TwoTensor(f32[3])") != parseAnnotation("f32[3]"));
        QVERIFY(ValueMeta::ofTuple({a, b}) == ValueMeta::ofTuple({b, a}));
        QVERIFY(ValueMeta::ofTuple({a}) != ValueMeta::ofTuple({a, a}));
        QVERIFY(ValueMeta::unknown() == ValueMeta());
        QCOMPARE(formatAnnotation(ValueMeta::unknown()), std::string());
        QCOMPARE(formatAnnotation(ValueMeta::ofTuple({a})), std::string());
    }

    void strides()
    {
        std::vector<SymInt> s = {2, 3, 4};
        QCOMPARE(contiguousStrides(s), (std::vector<SymInt>{12, 4, 1}));
        QCOMPARE(contiguousStrides({5, 0, 3}), (std::vector<SymInt>{3, 3, 1}));  // max(size, 1)
        QVERIFY(contiguousStrides({}).empty());
        auto sym = parseAnnotation("f32[s0, s1, 4]").tensor.sizes;
        auto st = contiguousStrides(sym);
        QCOMPARE(st[0].str(), std::string("4*s1"));
        QCOMPARE(st[1].str(), std::string("4"));
        QCOMPARE(st[2].str(), std::string("1"));
        // the strides PyTorch printed for a contiguous tensor match
        ValueMeta m = parseAnnotation("f32[1, 4, 512, 64][131072, 32768, 64, 1]cuda:0");
        QCOMPARE(contiguousStrides(m.tensor.sizes), m.tensor.strides);
    }

    void malformed_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("column");
        QTest::newRow("empty") << "" << 1;
        QTest::newRow("unknown dtype") << "f33[8, 4]" << 1;
        QTest::newRow("missing dtype") << "[8, 4]" << 1;
        QTest::newRow("unclosed sizes") << "f32[8, 4" << 4;
        QTest::newRow("unclosed strides") << "f32[8, 4][4, 1cuda:0" << 10;
        QTest::newRow("bad device") << "f32[8]cuda:x" << 7;
        QTest::newRow("space device") << "f32[8] cuda:0" << 7;
        QTest::newRow("bad size expr") << "f32[8, s0 +]" << 12;
        QTest::newRow("empty size") << "f32[8, , 4]" << 8;
        QTest::newRow("stride count") << "f32[8, 4][1]cpu" << 10;
        QTest::newRow("bad sym") << "Sym(s0 +)" << 9;
        QTest::newRow("sym trailing") << "Sym(s0)x" << 8;
        QTest::newRow("unbalanced wrapper") << "TwoTensor(f32[3, 4]" << 10;
        QTest::newRow("unbalanced close") << "Foo(a))" << 7;
        QTest::newRow("stray paren in size") << "f32[8)]" << 6;
        QTest::newRow("bad inner dtype") << "TwoTensor(q32[3])" << 11;
        QTest::newRow("huge size") << "f32[99999999999999999999]" << 5;
    }
    void malformed()
    {
        QFETCH(QString, text);
        QFETCH(int, column);
        try {
            parseAnnotation(text.toStdString());
            QFAIL("expected InputError");
        } catch (const InputError& e) {
            QCOMPARE(e.diagnostic().line, 1);
            QCOMPARE(e.diagnostic().column, column);
            QVERIFY(!e.diagnostic().message.empty());
        }
    }
};

FXL_TEST_APPLESS_MAIN(TestAnnotation)
}  // namespace test_annotation
#include "test_annotation.moc"

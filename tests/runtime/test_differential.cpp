// Differential edge cases: every case of tests/data/differential/edge.cases.json (written by
// tests/runtime/gen_differential.py with PyTorch 1.13: shapes, layouts, special values and
// dtypes drawn with fixed seeds) runs on the CPU kernels and is judged against PyTorch, with
// float64 as the judge:
// - PyTorch raises an input error (index out of range) -> fxlens raises a KernelError, and
//   the other way round;
// - outputs have PyTorch's dtypes and sizes; integer and bool outputs are PyTorch's exactly
//   (index outputs may differ on ties only: both indices point at equal values);
// - a floating element may not be farther from float64 (rounded to the output dtype) than
//   PyTorch's element, beyond the dtype's tolerance; a non-finite element where the judge is
//   finite must be PyTorch's own (the same infinity, or nan);
// - 1 and 2 threads give the same bytes (and the GEMM cases the same bytes on every ISA path).
// One row per kernel family, and one row per case issue 14 listed.
#include <QtTest>

#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kernel_test_util.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/cpu/gemm.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_differential {

using namespace fxl;
using namespace kerneltest;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

const RefFile& caseFile()
{
    static RefFile refs = [] {
        RefFile r;
        r.load(fxltest::testDataPath("differential"), "edge");
        return r;
    }();
    return refs;
}

// A case argument: caseArg's forms, and {"float": "inf"} for the non-finite scalars JSON lacks.
Value argValue(Backend& be, const nlohmann::json& j)
{
    if (j.is_object() && j.contains("float")) {
        const std::string s = j.at("float").get<std::string>();
        return Value::ofFloat(s == "nan" ? std::nan("") : (s[0] == '-' ? -kInf : kInf));
    }
    return caseArg(be, caseFile(), j);
}

// Tolerance of a dtype: |fxlens - judge| within rtol * |judge| + atol never counts as farther.
// For float64 outputs the judge is PyTorch's own float64 result, with its own rounding (its
// layer-norm backward leaves 4.7e-10 where the exact gradient is 0): a looser atol there, and
// at least 1e-12 of the largest float64 input (judgeCase).
std::pair<double, double> tolerance(DType t)
{
    switch (t) {
    case DType::F64: return {1e-10, 1e-8};
    case DType::BF16: return {1.0 / 128, 1e-6};
    case DType::F16: return {1.0 / 512, 1e-7};
    default: return {1e-5, 1e-6};
    }
}

std::vector<double> asDoubles(Backend& be, const Tensor& t)
{
    const std::vector<uint8_t> bytes = bytesOf(be, t);
    std::vector<double> out(static_cast<size_t>(t.numel()));
    for (size_t k = 0; k < out.size(); ++k) out[k] = cpu::loadAsDouble(bytes.data() + k * t.itemSize(), t.dtype());
    return out;
}

double roundTo(DType t, double v)
{
    alignas(8) unsigned char buf[8];
    cpu::storeFromDouble(buf, t, v);
    return cpu::loadAsDouble(buf, t);
}

bool isFloat(DType t) { return t == DType::F32 || t == DType::F64 || t == DType::BF16 || t == DType::F16; }

std::string fmt(double v) { return QString::number(v, 'g', 10).toStdString(); }

struct Outcome
{
    std::vector<Tensor> outs;
    std::optional<std::string> error;  // a KernelError's message
};

Outcome runCase(Backend& be, const nlohmann::json& c)
{
    Outcome o;
    NamedArgs named;
    for (const auto& [name, j] : c.at("args").items()) named[name] = argValue(be, j);
    KernelCall call = makeCall(c.at("op").get<std::string>(), named);
    try {
        be.run(call);
    } catch (const KernelError& e) {
        o.error = e.what();
        return o;
    }
    o.outs = resultTensors(call.result);
    return o;
}

// Element index of self along `dim` for output element `e` of an output shaped like self with
// dim replaced (topk, max.dim keepdim or not): the flat position of self[..., idx, ...].
int64_t selfPosition(const std::vector<int64_t>& selfSizes, const std::vector<int64_t>& outSizes, int dim, int64_t e,
                     int64_t idx)
{
    const int nd = static_cast<int>(selfSizes.size());
    if (nd == 0) return 0;
    const bool keep = static_cast<int>(outSizes.size()) == nd;
    std::vector<int64_t> coord(static_cast<size_t>(nd), 0);
    int64_t rest = e;
    for (int d = nd - 1; d >= 0; --d) {
        if (d == dim) {
            if (keep) {
                const int64_t s = outSizes[static_cast<size_t>(d)];
                rest /= std::max<int64_t>(s, 1);
            }
            continue;
        }
        const int od = keep ? d : (d > dim ? d - 1 : d);
        const int64_t s = outSizes[static_cast<size_t>(od)];
        coord[static_cast<size_t>(d)] = rest % std::max<int64_t>(s, 1);
        rest /= std::max<int64_t>(s, 1);
    }
    coord[static_cast<size_t>(dim)] = idx;
    int64_t pos = 0;
    for (int d = 0; d < nd; ++d) pos = pos * selfSizes[static_cast<size_t>(d)] + coord[static_cast<size_t>(d)];
    return pos;
}

bool sameValue(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

// The first way `got` (fxlens) fails the case, or "".
std::string judgeCase(Backend& be, const nlohmann::json& c, const Outcome& got)
{
    const RefFile& refs = caseFile();
    const auto& terr = c.at("torch_error");
    if (!terr.is_null())
        return got.error ? "" : "PyTorch rejects it (" + terr.get<std::string>() + ") but fxlens computed a result";
    if (got.error) return "fxlens raised: " + *got.error;
    const nlohmann::json& outs = c.at("outputs");
    const nlohmann::json& judge = c.at("judge");
    const size_t n = !outs.is_null() ? outs.size() : judge.size();
    if (got.outs.size() != n) return std::to_string(got.outs.size()) + " outputs, PyTorch has " + std::to_string(n);
    for (size_t k = 0; k < n; ++k) {
        const std::string where = "output " + std::to_string(k);
        const Tensor& f = got.outs[k];
        const SafeTensor* pt = !outs.is_null() && !outs[k].is_null() ? refs.byKey.at(outs[k].at("key")) : nullptr;
        const SafeTensor* jt = !judge.is_null() && !judge[k].is_null() ? refs.byKey.at(judge[k]) : nullptr;
        if (!pt && !jt) continue;  // not a tensor in PyTorch either
        if (!f.defined()) return where + " is None";
        const std::vector<int64_t> wantSizes = pt ? pt->shape : jt->shape;
        if (f.sizes() != wantSizes) return where + " is " + describe(f) + ", PyTorch's sizes differ";
        if (pt && f.dtype() != pt->dtype) return where + " is " + describe(f) + ", PyTorch's dtype differs";
        const std::vector<double> fv = asDoubles(be, f);
        std::vector<double> pv, jv;
        if (pt) pv = asDoubles(be, fromSafe(be, *pt));
        if (jt) jv = asDoubles(be, fromSafe(be, *jt));
        if (!isFloat(f.dtype())) {
            if (!pt) continue;
            const bool tieOk = c.contains("ties") && c.at("ties").at("output").get<size_t>() == k;
            std::vector<double> self;
            std::vector<int64_t> selfSizes;
            int dim = 0;
            if (tieOk) {
                const Value sv = argValue(be, c.at("args").at(c.at("ties").at("self").get<std::string>()));
                self = asDoubles(be, sv.tensor);
                selfSizes = sv.tensor.sizes();
                dim = c.at("ties").at("dim").get<int>();
                if (dim < 0) dim += std::max<int>(1, static_cast<int>(selfSizes.size()));
            }
            for (size_t e = 0; e < fv.size(); ++e) {
                if (fv[e] == pv[e]) continue;
                if (tieOk && !selfSizes.empty()) {
                    const int64_t a =
                        selfPosition(selfSizes, f.sizes(), dim, static_cast<int64_t>(e), static_cast<int64_t>(fv[e]));
                    const int64_t b =
                        selfPosition(selfSizes, f.sizes(), dim, static_cast<int64_t>(e), static_cast<int64_t>(pv[e]));
                    if (a >= 0 && a < static_cast<int64_t>(self.size()) && sameValue(self[a], self[b])) continue;
                }
                return where + " element " + std::to_string(e) + " is " + fmt(fv[e]) + ", PyTorch " + fmt(pv[e]);
            }
            continue;
        }
        auto [rtol, atol] = tolerance(f.dtype());
        if (f.dtype() == DType::F64) {
            // float64 outputs are judged by PyTorch's own float64, no more exact than fxlens:
            // differences at the rounding level of the inputs' magnitude (cancellation of 1e30
            // terms) are not errors of either
            double scale = 0;
            for (const auto& [name, j] : c.at("args").items()) {
                const Value v = argValue(be, j);
                if (!v.isTensor() || v.tensor.dtype() != DType::F64) continue;
                for (double x : asDoubles(be, v.tensor))
                    if (std::isfinite(x)) scale = std::max(scale, std::abs(x));
            }
            atol = std::max(atol, 1e-12 * scale);
        }
        for (size_t e = 0; e < fv.size(); ++e) {
            const double x = fv[e];
            if (pt && (sameValue(x, pv[e]) || (x == 0 && pv[e] == 0))) continue;
            if (!jt) {  // no float64 judge: PyTorch's element within tolerance
                if (std::abs(x - pv[e]) <= rtol * std::abs(pv[e]) + atol) continue;
                return where + " element " + std::to_string(e) + " is " + fmt(x) + ", PyTorch " + fmt(pv[e]);
            }
            const double j = jv[e];
            const double jr = roundTo(f.dtype(), j);
            auto err = [&](double v) {
                if (std::isnan(jr)) return std::isnan(v) ? 0.0 : kInf;
                if (std::isinf(jr)) return v == jr ? 0.0 : kInf;
                return std::isfinite(v) ? std::abs(v - j) : kInf;
            };
            const double ef = err(x);
            const double ep = pt ? err(pv[e]) : 0.0;
            const double tol = rtol * std::abs(j) + atol;
            bool bad = ef > std::max(2 * ep, tol);
            // non-finite where the judge is finite: only PyTorch's own non-finite value
            if (!bad && std::isfinite(jr) && !std::isfinite(x) && !(pt && sameValue(x, pv[e]))) bad = true;
            if (bad)
                return where + " element " + std::to_string(e) + " is " + fmt(x) + ", PyTorch "
                    + (pt ? fmt(pv[e]) : std::string("(no such kernel)")) + ", float64 " + fmt(j);
        }
    }
    return "";
}

bool isGemm(const std::string& op)
{
    return op == "aten.mm.default" || op == "aten.bmm.default" || op == "aten.addmm.default";
}

}  // namespace

class TestDifferential : public QObject
{
    Q_OBJECT

    std::unique_ptr<Backend> be1_, be2_;

private slots:
    void initTestCase()
    {
        be1_ = makeCpuBackend({1});
        be2_ = makeCpuBackend({2});
        QVERIFY2(!caseFile().doc.is_null(), "tests/data/differential/edge.cases.json is missing");
    }

    // Rows: every kernel family of the cases file, and every case issue 14 listed on its own.
    void cases_data()
    {
        QTest::addColumn<QString>("family");
        QTest::addColumn<QString>("caseId");
        std::set<std::string> families;
        if (caseFile().doc.is_null()) return;
        for (const auto& c : caseFile().doc.at("cases")) {
            const std::string id = c.at("id").get<std::string>();
            if (c.contains("listed")) {
                QTest::newRow(
                    qPrintable(QString::fromStdString("listed " + id + ": " + c.at("listed").get<std::string>())))
                    << QString() << QString::fromStdString(id);
                continue;
            }
            families.insert(id.substr(0, id.find('/')));
        }
        for (const std::string& f : families)
            QTest::newRow(qPrintable(QString::fromStdString(f))) << QString::fromStdString(f) << QString();
    }

    void cases()
    {
        QFETCH(QString, family);
        QFETCH(QString, caseId);
        int ran = 0, rejected = 0;
        for (const auto& c : caseFile().doc.at("cases")) {
            const std::string id = c.at("id").get<std::string>();
            if (!caseId.isEmpty() ? id != caseId.toStdString()
                                  : (c.contains("listed") || id.substr(0, id.find('/')) != family.toStdString()))
                continue;
            const std::string what =
                id + " (" + c.at("op").get<std::string>() + ", " + c.at("note").get<std::string>() + ")";
            Outcome one, two;
            try {
                one = runCase(*be1_, c);
                two = runCase(*be2_, c);
            } catch (const std::exception& e) {
                QFAIL(qPrintable(QString::fromStdString(what + ": " + e.what())));
            }
            const std::string verdict = judgeCase(*be2_, c, two);
            QVERIFY2(verdict.empty(), qPrintable(QString::fromStdString(what + ": " + verdict)));
            QCOMPARE(one.error.has_value(), two.error.has_value());
            QCOMPARE(one.outs.size(), two.outs.size());
            for (size_t k = 0; k < one.outs.size(); ++k)
                QVERIFY2(sameBits(*be1_, one.outs[k], two.outs[k]),
                         qPrintable(QString::fromStdString(what + ": 1 and 2 threads differ")));
            if (isGemm(c.at("op").get<std::string>()) && !two.error) {
                for (cpu::GemmIsa isa : {cpu::GemmIsa::Scalar, cpu::GemmIsa::Avx2, cpu::GemmIsa::Avx512}) {
                    if (!cpu::gemmIsaSupported(isa)) continue;
                    cpu::setGemmIsaOverride(isa);
                    const Outcome path = runCase(*be2_, c);
                    cpu::setGemmIsaOverride(std::nullopt);
                    for (size_t k = 0; k < two.outs.size(); ++k)
                        QVERIFY2(sameBits(*be2_, two.outs[k], path.outs.at(k)),
                                 qPrintable(QString::fromStdString(what + ": the " + cpu::gemmIsaName(isa)
                                                                   + " path differs")));
                }
            }
            ++ran;
            rejected += two.error ? 1 : 0;
        }
        QVERIFY2(ran > 0, "no case ran");
        if (!caseId.isEmpty()) QCOMPARE(ran, 1);
        qInfo("%d cases (%d rejected, as PyTorch rejects them)", ran, rejected);
    }

    void coverageTable();
};

namespace {

// The tensor keys a case's arguments name ("tensor": key, or "key": key in an input list).
void inputKeys(const nlohmann::json& j, const RefFile& refs, std::vector<std::string>& out)
{
    if (j.is_object()) {
        for (const auto& [k, v] : j.items()) {
            if ((k == "tensor" || k == "key") && v.is_string() && refs.byKey.count(v.get<std::string>()))
                out.push_back(v.get<std::string>());
            else
                inputKeys(v, refs, out);
        }
    } else if (j.is_array()) {
        for (const auto& v : j) inputKeys(v, refs, out);
    }
}

std::vector<std::string> splitWords(const std::string& s)
{
    std::vector<std::string> out;
    for (const QString& w : QString::fromStdString(s).split(QRegularExpression("[ ,]+"), Qt::SkipEmptyParts))
        if (w != "-") out.push_back(w.toStdString());
    return out;
}

}  // namespace

// docs/coverage.md (tests/runtime/gen_coverage.py) agrees with the code and the cases: a row
// per kernel and per Core ATen operator, "runs" exactly for the registered kernels, and each
// row's dtypes are those of the operator's cases in the reference files it names.
void TestDifferential::coverageTable()
{
    const std::filesystem::path root = fxltest::testDataPath().parent_path().parent_path();
    const QString doc = QString::fromStdString(fxltest::readFile(root / "docs" / "coverage.md"));
    QVERIFY2(!doc.isEmpty(), "docs/coverage.md is missing");
    std::set<std::string> core;
    for (const QString& line :
         QString::fromStdString(fxltest::readFile(fxltest::testDataPath("core_aten_ops.txt"))).split('\n'))
        if (!line.trimmed().isEmpty() && !line.startsWith('#')) core.insert(line.trimmed().toStdString());
    QVERIFY(core.size() > 150);
    // the in-place variants the registry makes of pointwise ops (OpInfo::inplaceOf) are one
    // paragraph of the file, not rows: each needs its functional operator's row
    std::set<std::string> kernels, variants;
    for (const std::string& k : KernelRegistry::instance().targets(DeviceKind::Cpu)) {
        const OpInfo* op = OpRegistry::instance().find(k);
        (op && !op->inplaceOf.empty() ? variants : kernels).insert(k);
    }
    QVERIFY2(variants.count("aten.sigmoid_.default") && variants.count("aten.tanh_.default"),
             "the in-place variants of sigmoid and tanh have no kernel");
    QVERIFY(doc.contains(QStringLiteral("also runs **in place**")));
    std::map<std::string, RefFile> refFiles;
    const std::map<std::string, std::string> refPaths = {{"elementwise", "kernels"}, {"reduction", "kernels"},
                                                         {"matmul", "kernels"},      {"shape", "kernels"},
                                                         {"conv_pool", "kernels"},   {"differential", "differential"}};
    // op -> reference -> input dtypes
    std::map<std::string, std::map<std::string, std::set<std::string>>> caseDTypes;
    for (const auto& [name, dir] : refPaths) {
        RefFile& r = refFiles[name];
        r.load(fxltest::testDataPath(dir), name == "differential" ? "edge" : name);
        QVERIFY2(!r.doc.is_null(), name.c_str());
        for (const auto& c : r.doc.at("cases")) {
            std::vector<std::string> keys;
            if (c.contains("args")) inputKeys(c.at("args"), r, keys);
            if (c.contains("inputs")) inputKeys(c.at("inputs"), r, keys);
            auto& set = caseDTypes[c.at("op").get<std::string>()][name];
            for (const std::string& k : keys) set.insert(std::string(dtypeAbbr(r.byKey.at(k)->dtype)));
        }
    }
    const QRegularExpression row("^\\| `([^`]+)` \\| (core)? *\\| ([^|]*)\\| ([^|]*)\\| (runs|missing) \\|$");
    std::set<std::string> rows, coreRows;
    int runs = 0;
    for (const QString& line : doc.split('\n')) {
        const QRegularExpressionMatch m = row.match(line);
        if (!line.startsWith("| `")) continue;
        QVERIFY2(m.hasMatch(), qPrintable("malformed row: " + line));
        const std::string op = m.captured(1).toStdString();
        QVERIFY2(rows.insert(op).second, qPrintable("two rows for " + m.captured(1)));
        if (!m.captured(2).isEmpty()) coreRows.insert(op);
        const bool saysRuns = m.captured(5) == "runs";
        QVERIFY2(
            saysRuns == (kernels.count(op) > 0),
            qPrintable(m.captured(1) + (saysRuns ? " says runs but has no kernel" : " has a kernel but says missing")));
        runs += saysRuns ? 1 : 0;
        std::set<std::string> claimed;
        for (const std::string& d : splitWords(m.captured(3).toStdString())) claimed.insert(d);
        std::set<std::string> found;
        const std::vector<std::string> named = splitWords(m.captured(4).toStdString());
        for (const std::string& ref : named) {
            if (ref.rfind("test_", 0) == 0) {  // a runtime test file that names the operator
                QVERIFY2(fxltest::readFile(root / "tests" / "runtime" / (ref + ".cpp")).find(op) != std::string::npos,
                         qPrintable(m.captured(1) + ": " + QString::fromStdString(ref) + ".cpp does not name it"));
                continue;
            }
            QVERIFY2(refPaths.count(ref),
                     qPrintable(m.captured(1) + ": unknown reference " + QString::fromStdString(ref)));
            const auto it = caseDTypes[op].find(ref);
            QVERIFY2(it != caseDTypes[op].end(),
                     qPrintable(m.captured(1) + ": no case in " + QString::fromStdString(ref)));
            found.insert(it->second.begin(), it->second.end());
        }
        QVERIFY2(claimed == found, qPrintable(m.captured(1) + ": the dtypes column differs from its cases'"));
        // every reference file that has cases of the op is named
        for (const auto& [ref, dts] : caseDTypes[op])
            QVERIFY2(std::find(named.begin(), named.end(), ref) != named.end(),
                     qPrintable(m.captured(1) + ": cases in " + QString::fromStdString(ref) + " are not named"));
    }
    for (const std::string& k : kernels)
        QVERIFY2(rows.count(k), qPrintable(QString::fromStdString("no row for the kernel " + k)));
    for (const std::string& k : variants) {
        const std::string& of = OpRegistry::instance().find(k)->inplaceOf;
        QVERIFY2(rows.count(of), qPrintable(QString::fromStdString(k + ": no row for " + of)));
    }
    QCOMPARE(coreRows, core);
    QVERIFY2(doc.contains(QString("**%1** operators have a CPU kernel").arg(kernels.size())),
             "the kernel count is stale");
    qInfo("%zu rows, %d run, %zu core", rows.size(), runs, core.size());
}

FXL_TEST_GUILESS_MAIN(TestDifferential)
}  // namespace test_differential
#include "test_differential.moc"

// Every NaN a kernel writes is the canonical NaN (runtime/math/bits.hpp: 0xffc00000 in float32,
// 0xfff8000000000000 in float64, 0xffc0 in bf16, 0xfe00 in f16), so that two devices' results
// compare bitwise (docs/numerics.md section 6). The executor makes every NaN it reads from a
// file canonical (uploadSafeTensor); from there every computing kernel must keep it so, also
// where an operand's NaN propagates through a sign flip (neg, abs, a loss's minus sign).
// Checked on every PyTorch reference case of the kernel families and every differential case,
// with about one float input element in seven replaced by a NaN: each NaN in each output must
// carry the canonical bits (view(dtype), a reinterpretation of bytes, is the one exception). Shown failing once: with Num<float>::store not canonicalising,
// `aten.neg.default` and `aten.abs.default` wrote 0x7fc00000.
#include <QtTest>

#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernel_test_util.hpp"
#include "runtime/base/backend.hpp"
#include "runtime/base/dtype_codec.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/math/bits.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_nan_bits {

using namespace fxl;
using namespace kerneltest;

namespace {

const std::filesystem::path kKernels = fxltest::testDataPath("kernels");
const std::filesystem::path kDifferential = fxltest::testDataPath("differential");

// The family's reference file with NaN in every float tensor at elements 3, 10, 17, ... (the
// NaN of PyTorch's float('nan'), 0x7fc00000, as a file holds it), then every NaN made canonical
// as the executor does when it reads a file.
RefFile withNans(const std::filesystem::path& dir, const std::string& family, int64_t* poked)
{
    RefFile f;
    f.load(dir, family);
    for (auto& t : f.st.tensors) {
        if (!isFloatingPoint(t.dtype)) continue;
        const int isz = dtypeItemSize(t.dtype);
        for (int64_t k = 3; k < t.numel(); k += 7) {
            const int64_t at = k * isz;
            if (t.dtype == DType::F64) {
                const uint64_t bits = 0x7ff8000000000000ull;
                std::memcpy(t.data.data() + at, &bits, 8);
            } else if (t.dtype == DType::F32) {
                const uint32_t bits = 0x7fc00000u;
                std::memcpy(t.data.data() + at, &bits, 4);
            } else {
                const uint16_t bits = t.dtype == DType::BF16 ? 0x7fc0u : 0x7e00u;
                std::memcpy(t.data.data() + at, &bits, 2);
            }
            ++*poked;
        }
        // as the executor uploads a file's tensors (exec::uploadSafeTensor): NaNs made canonical
        canonicalizeNans(t.data.data(), t.dtype, t.numel());
    }
    f.byKey.clear();
    for (const auto& t : f.st.tensors) f.byKey[t.name] = &t;
    return f;
}

bool isCanonicalNan(const uint8_t* p, DType t)
{
    switch (t) {
    case DType::F32: {
        uint32_t u;
        std::memcpy(&u, p, 4);
        return u == math::kCanonicalNanBits;
    }
    case DType::F64: {
        uint64_t u;
        std::memcpy(&u, p, 8);
        return u == math::kCanonicalNanBits64;
    }
    case DType::BF16:
    case DType::F16: {
        uint16_t u;
        std::memcpy(&u, p, 2);
        return u == (t == DType::BF16 ? math::kCanonicalNanBf16 : math::kCanonicalNanF16);
    }
    default: return true;
    }
}

std::string hexOf(const uint8_t* p, int n)
{
    std::string s = "0x";
    char buf[4];
    for (int k = n; k-- > 0;) {
        std::snprintf(buf, sizeof buf, "%02x", p[k]);
        s += buf;
    }
    return s;
}

// A case argument in any of the reference files' encodings: plain JSON values and
// {"tensor": key, sizes, strides, offset} (kerneltest::caseArg), or the elementwise and
// differential files' tagged scalars ({"int": 3}, {"float": "nan"}, {"none": true}, ...).
Value argOf(Backend& be, const RefFile& refs, const nlohmann::json& j)
{
    if (j.is_object() && !j.contains("tensor") && !j.contains("dtype")) {
        if (j.contains("none")) return Value::none();
        if (j.contains("int")) return Value::ofInt(j.at("int").get<int64_t>());
        if (j.contains("bool")) return Value::ofBool(j.at("bool").get<bool>());
        if (j.contains("float")) {
            const nlohmann::json& f = j.at("float");
            if (!f.is_string()) return Value::ofFloat(f.get<double>());
            const std::string s = f.get<std::string>();
            const double inf = std::numeric_limits<double>::infinity();
            return Value::ofFloat(s == "nan" ? std::numeric_limits<double>::quiet_NaN() : s[0] == '-' ? -inf : inf);
        }
        if (j.contains("str")) return strValue(j.at("str").get<std::string>());
        if (j.contains("ints")) return sizesValue(j.at("ints").get<std::vector<int64_t>>());
        if (j.contains("memory_format")) {
            Value v;
            v.kind = Value::Kind::MemoryFormat;
            v.s = j.at("memory_format").get<std::string>();
            return v;
        }
        throw std::runtime_error("unknown argument encoding " + j.dump());
    }
    if (j.is_array()) {
        std::vector<Value> items;
        for (const auto& x : j) items.push_back(argOf(be, refs, x));
        return Value::ofList(std::move(items));
    }
    return caseArg(be, refs, j);
}

struct Tally
{
    int cases = 0, ran = 0, threw = 0;
    int64_t nanOutputs = 0;  // NaN elements seen in outputs
    std::map<std::string, std::string> bad;  // op -> first offending case and bits
};

// The tensors of a result (a tensor, or a list / tuple of them).
void outputsOf(const Value& r, std::vector<Tensor>& out)
{
    if (r.isTensor()) out.push_back(r.tensor);
    if (r.kind == Value::Kind::List)
        for (const Value& v : r.items) outputsOf(v, out);
}

void inspect(Backend& be, const std::string& op, const std::string& id, const Value& result, Tally& t)
{
    std::vector<Tensor> outs;
    outputsOf(result, outs);
    for (const Tensor& o : outs) {
        if (!o.defined() || !isFloatingPoint(o.dtype())) continue;
        const std::vector<uint8_t> bytes = bytesOf(be, o);
        const int isz = dtypeItemSize(o.dtype());
        for (int64_t k = 0; k < o.numel(); ++k) {
            const uint8_t* p = bytes.data() + k * isz;
            const double v = loadAsDouble(p, o.dtype());
            if (v == v) continue;
            ++t.nanOutputs;
            if (!isCanonicalNan(p, o.dtype()) && !t.bad.count(op))
                t.bad[op] = id + ": element " + std::to_string(k) + " is " + hexOf(p, isz);
        }
    }
}

// A case's run on the CPU backend: named arguments (elementwise) or positional ones.
void runCase(Backend& be, const RefFile& refs, const nlohmann::json& c, Tally& t)
{
    const std::string op = c.at("op").get<std::string>();
    const std::string id = c.at("id").get<std::string>();
    ++t.cases;
    // view(dtype) reinterprets its input's bytes, writing nothing: an int's bits seen as a float
    // are whatever NaN they spell (PyTorch's semantics, and the point of the op)
    if (op == "aten.view.dtype") return;
    if (c.contains("torch_error") && !c.at("torch_error").is_null()) return;  // PyTorch refused it too
    try {
        const nlohmann::json& a = c.at("args");
        Value result;
        if (a.is_object()) {
            NamedArgs args;
            for (const auto& [name, j] : a.items()) args[name] = argOf(be, refs, j);
            KernelCall call = makeCall(op, args);
            // an in-place case writes its self: the executor's inputs are canonical, so is self
            be.run(call);
            result = call.result;
        } else {
            const OpInfo* info = OpRegistry::instance().find(op);
            if (!info) return;
            std::vector<Value> args;
            for (const auto& j : a) args.push_back(argOf(be, refs, j));
            KernelCall call;
            call.op = info;
            for (size_t k = args.size(); k < info->schema.args.size(); ++k)
                args.push_back(argToValue(parseDefaultValue(info->schema.args[k])));
            call.args = std::move(args);
            be.run(call);
            result = call.result;
        }
        ++t.ran;
        inspect(be, op, id, result, t);
    } catch (const std::exception&) {
        ++t.threw;  // NaN where an op needs numbers (a NaN probability, ...): its error, not a NaN
    }
}

}  // namespace

class TestNanBits : public QObject
{
    Q_OBJECT

private slots:
    void canonicalHelpers()
    {
        // the helpers the kernels store through
        const float payload = math::floatFromBits(0x7fc01234u), negPayload = math::floatFromBits(0xffc00001u);
        QCOMPARE(math::bitsOf(math::canonical(payload)), math::kCanonicalNanBits);
        QCOMPARE(math::bitsOf(math::canonical(negPayload)), math::kCanonicalNanBits);
        QCOMPARE(math::bitsOf(math::canonical(-math::canonicalNanF())), math::kCanonicalNanBits);
        QCOMPARE(math::bitsOf(math::canonical(1.5f)), math::bitsOf(1.5f));
        QCOMPARE(math::bitsOf(math::canonical(math::doubleFromBits(0x7ff8000000000001ull))), math::kCanonicalNanBits64);
        QCOMPARE(math::f32ToBf16(payload), math::kCanonicalNanBf16);
        QCOMPARE(math::f32ToF16(negPayload), math::kCanonicalNanF16);
        // the narrow canonical NaNs widen to the float32 one
        QCOMPARE(math::bitsOf(math::bf16ToF32(math::kCanonicalNanBf16)), math::kCanonicalNanBits);
        QCOMPARE(math::bitsOf(math::f16ToF32(math::kCanonicalNanF16)), math::kCanonicalNanBits);
        // a file's NaNs, as the executor reads them
        std::vector<float> v{1.0f, payload, negPayload, math::canonicalNanF(), -2.0f};
        QVERIFY(hasOtherNans(v.data(), DType::F32, 5));
        QCOMPARE(canonicalizeNans(v.data(), DType::F32, 5), int64_t(2));
        QVERIFY(!hasOtherNans(v.data(), DType::F32, 5));
        for (int k : {1, 2, 3}) QCOMPARE(math::bitsOf(v[static_cast<size_t>(k)]), math::kCanonicalNanBits);
        QCOMPARE(v[0], 1.0f);
        QCOMPARE(v[4], -2.0f);
    }

    void everyKernelWritesTheCanonicalNan_data()
    {
        QTest::addColumn<QString>("dir");
        QTest::addColumn<QString>("family");
        for (const char* f : {"elementwise", "reduction", "shape", "conv_pool"})
            QTest::newRow(f) << QString::fromStdString(kKernels.string()) << QString::fromLatin1(f);
        QTest::newRow("differential") << QString::fromStdString(kDifferential.string()) << QStringLiteral("edge");
    }
    void everyKernelWritesTheCanonicalNan()
    {
        QFETCH(QString, dir);
        QFETCH(QString, family);
        int64_t poked = 0;
        const RefFile refs = withNans(dir.toStdString(), family.toStdString(), &poked);
        QVERIFY2(refs.doc.is_object(), qPrintable(dir + "/" + family + ".cases.json is missing"));
        QVERIFY(poked > 0);
        auto be = makeCpuBackend();
        Tally t;
        for (const auto& c : refs.doc.at("cases")) runCase(*be, refs, c, t);
        qInfo("%s: %d cases, %d ran, %d raised an error with NaN inputs, %lld NaN elements written", qPrintable(family),
              t.cases, t.ran, t.threw, static_cast<long long>(t.nanOutputs));
        // the check has something to look at: most cases run, and NaN reaches many outputs
        QVERIFY2(t.ran * 2 > t.cases, qPrintable(QStringLiteral("%1 of %2 cases ran").arg(t.ran).arg(t.cases)));
        QVERIFY2(t.nanOutputs > 100, qPrintable(QStringLiteral("only %1 NaN outputs").arg(t.nanOutputs)));
        std::string bad;
        for (const auto& [op, what] : t.bad) bad += "\n  " + op + " (" + what + ")";
        QVERIFY2(t.bad.empty(), ("kernels writing a NaN that is not the canonical one:" + bad).c_str());
    }
};

FXL_TEST_GUILESS_MAIN(TestNanBits)
}  // namespace test_nan_bits
#include "test_nan_bits.moc"

// The matmul kernel family (aten.mm / addmm / bmm / baddbmm) and the fixed-order GEMM engine:
// - PyTorch 1.13 CPU references (tests/data/kernels/matmul.*, made by gen_matmul_refs.py):
//   allclose for f32/f64, 1 ulp for bf16, exact for integers;
// - the definition itself: every element equals the sequential-k std::fma chain from +0
//   computed here by a naive loop (bitwise), bf16/f16 round that chain once;
// - batch invariance: any chunk of rows at any offset, strided vs contiguous inputs, 1 vs 2
//   vs 3 threads, scalar vs AVX2 vs AVX-512 paths, bmm batch chunks: all bitwise equal.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include <nlohmann/json.hpp>

#include "core/formats/safetensors.hpp"
#include "core/ops/op_registry.hpp"
#include "kernel_test_util.hpp"
#include "runtime/base/backend.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/cpu/cpu_common.hpp"
#include "runtime/cpu/gemm.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_matmul {

using namespace fxl;
using kerneltest::bytesOf;
using kerneltest::fromSafe;
using kerneltest::makeCall;
using kerneltest::NamedArgs;
using kerneltest::ordered16;
namespace fs = std::filesystem;

namespace {

const fs::path kData = fxltest::testDataPath("kernels");

// ---- running one op by hand (no executor)

Tensor runOp(Backend& be, const std::string& target, const NamedArgs& given)
{
    KernelCall call = makeCall(target, given);
    be.run(call);
    if (!call.result.isTensor()) throw std::runtime_error(target + " returned no tensor");
    return call.result.tensor;
}

Tensor mm(Backend& be, const Tensor& a, const Tensor& b)
{
    return runOp(be, "aten.mm.default", {{"self", Value::ofTensor(a)}, {"mat2", Value::ofTensor(b)}});
}
Tensor bmm(Backend& be, const Tensor& a, const Tensor& b)
{
    return runOp(be, "aten.bmm.default", {{"self", Value::ofTensor(a)}, {"mat2", Value::ofTensor(b)}});
}
Tensor addmm(Backend& be, const Tensor& bias, const Tensor& a, const Tensor& b)
{
    return runOp(be, "aten.addmm.default",
                 {{"self", Value::ofTensor(bias)}, {"mat1", Value::ofTensor(a)}, {"mat2", Value::ofTensor(b)}});
}

// ---- tensors

// normal(0, 1) drawn in float (kerneltest::randomTensor draws in double): the inputs these
// tests were written against.
Tensor randomTensor(Backend& be, const std::vector<int64_t>& sizes, DType dt, uint32_t seed)
{
    Tensor t = be.empty(sizes, dt);
    std::mt19937 rng(seed);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    char* p = static_cast<char*>(t.rawData());
    for (int64_t k = 0; k < t.numel(); ++k) cpu::storeFromFloat(p + k * t.itemSize(), dt, nd(rng));
    return t;
}

// Rows [r0, r0+n) of a 2-d (or dim -2 of a 3-d) tensor as a view.
Tensor rowsView(const Tensor& t, int64_t r0, int64_t n)
{
    std::vector<int64_t> sz = t.sizes();
    sz[sz.size() - 2] = n;
    return t.asStrided(sz, t.strides(), t.offset() + r0 * t.strides()[t.strides().size() - 2]);
}

// The transpose of the last two dims, stored that way: a contiguous [.., C, R] tensor holding
// the values of t, viewed back as [.., R, C] (strides swapped). Same values, other strides.
Tensor transposedCopy(Backend& be, const Tensor& t)
{
    std::vector<int64_t> sz = t.sizes();
    std::swap(sz[sz.size() - 1], sz[sz.size() - 2]);
    Tensor store = be.empty(sz, t.dtype());
    std::vector<int64_t> st = store.strides();
    std::swap(st[st.size() - 1], st[st.size() - 2]);
    Tensor view = store.asStrided(t.sizes(), st, 0);
    be.copy(view, t);
    return view;
}

// Same values in a buffer with a row pitch of cols+pad and a base offset: strided rows.
Tensor paddedCopy(Backend& be, const Tensor& t, int64_t pad, int64_t offset)
{
    const int64_t R = t.size(0), C = t.size(1);
    Tensor store = be.empty({R * (C + pad) + offset}, t.dtype());
    Tensor view = store.asStrided({R, C}, {C + pad, 1}, offset);
    be.copy(view, t);
    return view;
}

int64_t differingBytes(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b)
{
    if (a.size() != b.size()) return -1;
    int64_t n = 0;
    for (size_t k = 0; k < a.size(); ++k) n += a[k] != b[k];
    return n;
}

// ---- the definition: acc = 0; for k ascending: acc = fma(a, b, acc)
template<class T>
std::vector<T> naiveChain(const std::vector<T>& A, const std::vector<T>& B, int64_t M, int64_t K, int64_t N)
{
    std::vector<T> C(static_cast<size_t>(M * N));
    for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
            T acc = 0;
            for (int64_t k = 0; k < K; ++k) acc = std::fma(A[i * K + k], B[k * N + j], acc);
            C[i * N + j] = acc;
        }
    return C;
}

std::vector<float> asFloats(Backend& be, const Tensor& t)
{
    std::vector<uint8_t> b = bytesOf(be, t);
    std::vector<float> out(static_cast<size_t>(t.numel()));
    for (size_t k = 0; k < out.size(); ++k) out[k] = cpu::loadAsFloat(b.data() + k * t.itemSize(), t.dtype());
    return out;
}

struct RefCase
{
    std::string id, op, note;
    nlohmann::json j;
};

std::vector<RefCase> loadCases()
{
    std::vector<RefCase> out;
    const nlohmann::json doc = nlohmann::json::parse(fxltest::readFile(kData / "matmul.cases.json"));
    for (const auto& c : doc.at("cases"))
        out.push_back(
            {c.at("id").get<std::string>(), c.at("op").get<std::string>(), c.at("note").get<std::string>(), c});
    return out;
}

const std::vector<cpu::GemmIsa> kAllIsas = {cpu::GemmIsa::Scalar, cpu::GemmIsa::Avx2, cpu::GemmIsa::Avx512};

struct IsaGuard
{
    ~IsaGuard() { cpu::setGemmIsaOverride(std::nullopt); }
};

}  // namespace

class TestMatmul : public QObject
{
    Q_OBJECT

    SafeTensorsFile refs_;
    std::unique_ptr<Backend> be1_, be2_, be3_;

private slots:
    void initTestCase()
    {
        be1_ = makeCpuBackend({1});
        be2_ = makeCpuBackend({2});
        be3_ = makeCpuBackend({3});
        qInfo("default GEMM path: %s (FXLENS_CPU_ISA=%s)", cpu::gemmIsaName(cpu::gemmIsa()),
              std::getenv("FXLENS_CPU_ISA") ? std::getenv("FXLENS_CPU_ISA") : "unset");
        for (auto isa : kAllIsas) qInfo("  %s supported: %d", cpu::gemmIsaName(isa), cpu::gemmIsaSupported(isa));
    }

    // ---------------- PyTorch references
    void matchesPyTorch_data()
    {
        QTest::addColumn<std::string>("id");
        const auto cases = loadCases();
        for (const auto& c : cases) QTest::newRow((c.id + " " + c.note).c_str()) << c.id;
    }
    void matchesPyTorch()
    {
        QFETCH(std::string, id);
        if (refs_.tensors.empty()) refs_ = readSafetensors((kData / "matmul.safetensors").string());
        static const auto cases = loadCases();
        const RefCase* rc = nullptr;
        for (const auto& c : cases)
            if (c.id == id) rc = &c;
        QVERIFY(rc);
        Backend& be = *be2_;
        NamedArgs args;
        for (const auto& in : rc->j.at("inputs")) {
            const SafeTensor* st = refs_.find(in.at("key").get<std::string>());
            QVERIFY2(st, in.at("key").get<std::string>().c_str());
            Tensor t = fromSafe(be, *st);
            if (!in.at("view").is_null()) {
                const auto& v = in.at("view");
                t = t.asStrided(v.at("sizes").get<std::vector<int64_t>>(), v.at("strides").get<std::vector<int64_t>>(),
                                v.at("offset").get<int64_t>());
            }
            args[in.at("arg").get<std::string>()] = Value::ofTensor(t);
        }
        for (const auto& [name, v] : rc->j.at("scalars").items())
            args[name] = v.is_number_integer() ? Value::ofInt(v.get<int64_t>()) : Value::ofFloat(v.get<double>());
        const SafeTensor* exp = refs_.find(rc->j.at("out").get<std::string>());
        QVERIFY(exp);

        // every path must agree with PyTorch, and (bitwise) with each other
        IsaGuard guard;
        std::vector<uint8_t> first;
        for (auto isa : kAllIsas) {
            if (!cpu::gemmIsaSupported(isa)) continue;
            cpu::setGemmIsaOverride(isa);
            Tensor out = runOp(be, rc->op, args);
            QCOMPARE(out.sizes(), exp->shape);
            QCOMPARE(out.dtype(), exp->dtype);
            std::vector<uint8_t> got = bytesOf(be, out);
            QCOMPARE(got.size(), exp->data.size());
            if (first.empty())
                first = got;
            else
                QVERIFY2(got == first,
                         (std::string("path ") + cpu::gemmIsaName(isa) + " differs from the first path").c_str());
        }
        const DType dt = exp->dtype;
        const int64_t n = static_cast<int64_t>(exp->numel());
        const int64_t isz = dtypeItemSize(dt);
        if (isIntegral(dt, false)) {
            QVERIFY2(first == exp->data, "integer result differs");
            return;
        }
        double worst = 0;
        int64_t worstAt = -1;
        for (int64_t k = 0; k < n; ++k) {
            const uint8_t* g = first.data() + k * isz;
            const uint8_t* e = exp->data.data() + k * isz;
            if (dt == DType::BF16 || dt == DType::F16) {
                uint16_t gh, eh;
                std::memcpy(&gh, g, 2);
                std::memcpy(&eh, e, 2);
                const float gf = cpu::loadAsFloat(g, dt), ef = cpu::loadAsFloat(e, dt);
                if (std::isnan(ef) || std::isnan(gf)) {
                    QVERIFY2(std::isnan(ef) && std::isnan(gf), qPrintable(QString("element %1: NaN mismatch").arg(k)));
                    continue;
                }
                const int32_t d = std::abs(ordered16(gh) - ordered16(eh));
                if (d > worst) worst = d, worstAt = k;
                QVERIFY2(d <= 1, qPrintable(QString("element %1: %2 vs %3 (%4 ulp)").arg(k).arg(gf).arg(ef).arg(d)));
                continue;
            }
            const double gv = cpu::loadAsDouble(g, dt), ev = cpu::loadAsDouble(e, dt);
            if (std::isnan(ev) || std::isnan(gv)) {
                QVERIFY2(std::isnan(ev) && std::isnan(gv),
                         qPrintable(QString("element %1: %2 vs %3").arg(k).arg(gv).arg(ev)));
                continue;
            }
            if (std::isinf(ev) || std::isinf(gv)) {
                QVERIFY2(ev == gv, qPrintable(QString("element %1: %2 vs %3").arg(k).arg(gv).arg(ev)));
                continue;
            }
            const double tol = dt == DType::F64 ? 1e-12 + 1e-10 * std::fabs(ev) : 1e-6 + 1e-5 * std::fabs(ev);
            const double ratio = std::fabs(gv - ev) / tol;
            if (ratio > worst) worst = ratio, worstAt = k;
            QVERIFY2(ratio <= 1.0,
                     qPrintable(QString("element %1: %2 vs %3").arg(k).arg(gv, 0, 'g', 17).arg(ev, 0, 'g', 17)));
        }
        if (rc->j.contains("out_native")) {  // PyTorch's own (not round-once) bf16 result, for information
            const SafeTensor* nat = refs_.find(rc->j.at("out_native").get<std::string>());
            QVERIFY(nat && nat->data.size() == first.size());
            int32_t natWorst = 0;
            for (int64_t k = 0; k < n; ++k) {
                uint16_t gh, nh;
                std::memcpy(&gh, first.data() + 2 * k, 2);
                std::memcpy(&nh, nat->data.data() + 2 * k, 2);
                natWorst = std::max(natWorst, std::abs(ordered16(gh) - ordered16(nh)));
            }
            qInfo("%s: PyTorch's native bf16 output is up to %d ulp away", id.c_str(), natWorst);
        }
        qInfo("%s %s: worst %s %.3g (element %lld)", id.c_str(), std::string(dtypeAbbr(dt)).c_str(),
              (dt == DType::BF16 || dt == DType::F16) ? "ulp" : "|a-e|/tol", worst, static_cast<long long>(worstAt));
    }

    // ---------------- the definition (bitwise)
    void equalsNaiveChain_data()
    {
        QTest::addColumn<int>("M");
        QTest::addColumn<int>("K");
        QTest::addColumn<int>("N");
        QTest::newRow("1x1x1") << 1 << 1 << 1;
        QTest::newRow("13x37x29") << 13 << 37 << 29;
        QTest::newRow("K crosses blocks 25x700x45") << 25 << 700 << 45;
        QTest::newRow("150x64x70") << 150 << 64 << 70;
        QTest::newRow("3x1000x1") << 3 << 1000 << 1;
    }
    void equalsNaiveChain()
    {
        QFETCH(int, M);
        QFETCH(int, K);
        QFETCH(int, N);
        Backend& be = *be2_;
        IsaGuard guard;
        for (DType dt : {DType::F32, DType::F64}) {
            Tensor a = randomTensor(be, {M, K}, dt, 11), b = randomTensor(be, {K, N}, dt, 12);
            for (auto isa : kAllIsas) {
                if (!cpu::gemmIsaSupported(isa)) continue;
                cpu::setGemmIsaOverride(isa);
                Tensor c = mm(be, a, b);
                if (dt == DType::F32) {
                    std::vector<float> A = asFloats(be, a), B = asFloats(be, b);
                    std::vector<float> ref = naiveChain(A, B, M, K, N);
                    QVERIFY2(std::memcmp(ref.data(), c.rawData(), ref.size() * 4) == 0, cpu::gemmIsaName(isa));
                } else {
                    std::vector<double> A(static_cast<size_t>(M * K)), B(static_cast<size_t>(K * N));
                    std::memcpy(A.data(), a.rawData(), A.size() * 8);
                    std::memcpy(B.data(), b.rawData(), B.size() * 8);
                    std::vector<double> ref = naiveChain(A, B, M, K, N);
                    QVERIFY2(std::memcmp(ref.data(), c.rawData(), ref.size() * 8) == 0, cpu::gemmIsaName(isa));
                }
            }
        }
    }

    // f32 elements whose chain ends inf or NaN are the same chain in double, rounded once
    // (docs/numerics.md §4); the others keep the f32 chain. Big values placed so that some
    // products overflow and cancel (an exact, finite result), one chain passes +FLT_MAX in the
    // middle of K and comes back, and one operand is inf: on every path, with partial panels,
    // K over several blocks, B read in place (few rows) and packed, at 1 and 2 threads.
    void overflowRedoneInDouble_data()
    {
        QTest::addColumn<int>("M");
        QTest::addColumn<int>("K");
        QTest::addColumn<int>("N");
        QTest::newRow("few rows, B in place 3x9x37") << 3 << 9 << 37;
        QTest::newRow("K crosses blocks 25x1100x45") << 25 << 1100 << 45;
        QTest::newRow("packed B 160x80x90") << 160 << 80 << 90;
    }
    void overflowRedoneInDouble()
    {
        QFETCH(int, M);
        QFETCH(int, K);
        QFETCH(int, N);
        IsaGuard guard;
        Backend& be1 = *be1_;
        Tensor a = randomTensor(be1, {M, K}, DType::F32, 31), b = randomTensor(be1, {K, N}, DType::F32, 32);
        float* A = static_cast<float*>(a.rawData());
        float* B = static_cast<float*>(b.rawData());
        // row 0 x column 1: 1e30*1e30 - 1e30*1e30 = 0 plus the small rest
        A[0] = 1e30f, A[1] = 1e30f, B[0 * N + 1] = 1e30f, B[1 * N + 1] = -1e30f;
        // row M-1 x column N-1: +3e38 at k = 0 and k = K/2 (past FLT_MAX), -3e38 at the end
        A[(M - 1) * K + 0] = 3e38f, A[(M - 1) * K + K / 2] = 3e38f, A[(M - 1) * K + K - 1] = -3e38f;
        B[0 * N + N - 1] = 1.0f, B[(K / 2) * N + N - 1] = 1.0f, B[(K - 1) * N + N - 1] = 1.0f;
        // row M/2: an inf operand, so the whole row is inf or NaN as IEEE says
        A[(M / 2) * K + K / 3] = std::numeric_limits<float>::infinity();
        const std::vector<float> Af(A, A + M * K), Bf(B, B + K * N);
        std::vector<float> ref = naiveChain(Af, Bf, M, K, N);
        int redone = 0;
        for (int64_t i = 0; i < M; ++i)
            for (int64_t j = 0; j < N; ++j) {
                if (std::isfinite(ref[i * N + j])) continue;
                double acc = 0;
                for (int64_t k = 0; k < K; ++k) acc = std::fma(double(Af[i * K + k]), double(Bf[k * N + j]), acc);
                ref[i * N + j] = static_cast<float>(acc);
                ++redone;
            }
        QVERIFY(std::isfinite(ref[(M - 1) * N + N - 1]));  // the chain that passed FLT_MAX
        QVERIFY(redone > N);
        for (int threads : {1, 2})
            for (auto isa : kAllIsas) {
                Backend* be = threads == 1 ? be1_.get() : be2_.get();
                if (!cpu::gemmIsaSupported(isa)) continue;
                cpu::setGemmIsaOverride(isa);
                Tensor c = mm(*be, a, b);
                QVERIFY2(std::memcmp(ref.data(), c.rawData(), ref.size() * 4) == 0,
                         qPrintable(QString("%1, %2 threads: %3 bytes differ")
                                        .arg(cpu::gemmIsaName(isa))
                                        .arg(threads)
                                        .arg(differingBytes(bytesOf(*be, c),
                                                            std::vector<uint8_t>(reinterpret_cast<uint8_t*>(ref.data()),
                                                                                 reinterpret_cast<uint8_t*>(ref.data())
                                                                                     + ref.size() * 4)))));
            }
    }

    // bf16/f16: widen exactly, the f32 chain, round once (f16 has no PyTorch CPU reference).
    void halfRoundsOnce_data()
    {
        QTest::addColumn<int>("dtype");
        QTest::newRow("bf16") << static_cast<int>(DType::BF16);
        QTest::newRow("f16") << static_cast<int>(DType::F16);
    }
    void halfRoundsOnce()
    {
        QFETCH(int, dtype);
        const DType dt = static_cast<DType>(dtype);
        Backend& be = *be2_;
        const int64_t M = 37, K = 300, N = 41;
        Tensor a = randomTensor(be, {M, K}, dt, 21), b = randomTensor(be, {K, N}, dt, 22),
               bias = randomTensor(be, {N}, dt, 23);
        std::vector<float> A = asFloats(be, a), B = asFloats(be, b), Bias = asFloats(be, bias);
        std::vector<float> ref = naiveChain(A, B, M, K, N);
        Tensor c = mm(be, a, b);
        Tensor c2 = addmm(be, bias, a, transposedCopy(be, b));
        for (int64_t k = 0; k < M * N; ++k) {
            uint16_t want = dt == DType::BF16 ? cpu::f32ToBf16(ref[k]) : cpu::f32ToF16(ref[k]);
            uint16_t got;
            std::memcpy(&got, static_cast<const char*>(c.rawData()) + 2 * k, 2);
            QCOMPARE(got, want);
            want = dt == DType::BF16 ? cpu::f32ToBf16(ref[k] + Bias[k % N]) : cpu::f32ToF16(ref[k] + Bias[k % N]);
            std::memcpy(&got, static_cast<const char*>(c2.rawData()) + 2 * k, 2);
            QCOMPARE(got, want);
        }
    }

    // addmm = dot rounded to f32, then + bias (one rounding each), for every bias broadcast.
    void addmmAddsBiasAfterDot()
    {
        Backend& be = *be2_;
        const int64_t M = 19, K = 77, N = 33;
        Tensor a = randomTensor(be, {M, K}, DType::F32, 31), b = randomTensor(be, {K, N}, DType::F32, 32);
        std::vector<float> dot = asFloats(be, mm(be, a, b));
        for (const std::vector<int64_t>& bs : std::vector<std::vector<int64_t>>{{N}, {M, N}, {1, N}, {M, 1}, {}}) {
            Tensor bias = randomTensor(be, bs, DType::F32, 33);
            Tensor out = addmm(be, bias, a, b);
            Tensor bx = cpu::expandTo(bias, {M, N});
            const float* o = out.data<float>();
            for (int64_t i = 0; i < M; ++i)
                for (int64_t j = 0; j < N; ++j) {
                    const float bv = bx.data<float>()[i * bx.strides()[0] + j * bx.strides()[1]];
                    const float want = dot[i * N + j] + bv;
                    QVERIFY2(std::memcmp(&want, &o[i * N + j], 4) == 0,
                             qPrintable(QString("bias rank %1 at %2,%3").arg(bs.size()).arg(i).arg(j)));
                }
        }
    }

    // ---------------- batch invariance
    void rowChunksBitwise_data()
    {
        QTest::addColumn<int>("K");
        QTest::addColumn<int>("dtype");
        for (int k : {64, 300, 777}) {
            QTest::newRow(qPrintable(QString("f32 K=%1").arg(k))) << k << static_cast<int>(DType::F32);
        }
        QTest::newRow("bf16 K=300") << 300 << static_cast<int>(DType::BF16);
        QTest::newRow("f64 K=300") << 300 << static_cast<int>(DType::F64);
    }
    void rowChunksBitwise()
    {
        QFETCH(int, K);
        QFETCH(int, dtype);
        const DType dt = static_cast<DType>(dtype);
        Backend& be = *be2_;
        const int64_t M = 230, N = 101;
        Tensor a = randomTensor(be, {M, K}, dt, 41), b = randomTensor(be, {K, N}, dt, 42);
        Tensor bT = transposedCopy(be, b);  // the linear-layer pattern: W stored [N, K]
        Tensor bias = randomTensor(be, {N}, dt, 43);
        const std::vector<uint8_t> whole = bytesOf(be, mm(be, a, b));
        const std::vector<uint8_t> wholeAdd = bytesOf(be, addmm(be, bias, a, bT));
        QCOMPARE(bytesOf(be, mm(be, a, bT)), whole);  // strided vs contiguous B
        const int64_t rowBytes = N * dtypeItemSize(dt);
        int checked = 0;
        for (int64_t c : {1, 2, 3, 7, 8, 16, 64, 100}) {
            for (int64_t off : {int64_t{0}, int64_t{1}, int64_t{37}, M - c}) {
                const std::vector<uint8_t> part = bytesOf(be, mm(be, rowsView(a, off, c), b));
                QVERIFY2(std::memcmp(part.data(), whole.data() + off * rowBytes, part.size()) == 0,
                         qPrintable(QString("mm chunk %1 at row %2").arg(c).arg(off)));
                const std::vector<uint8_t> partAdd = bytesOf(be, addmm(be, bias, rowsView(a, off, c), bT));
                QVERIFY2(std::memcmp(partAdd.data(), wholeAdd.data() + off * rowBytes, partAdd.size()) == 0,
                         qPrintable(QString("addmm chunk %1 at row %2").arg(c).arg(off)));
                ++checked;
            }
        }
        // every chunk size tiling the whole matrix, on 1 and 3 threads
        for (int64_t c : {1, 3, 7, 16, 100}) {
            for (Backend* bk : {be1_.get(), be3_.get()}) {
                std::vector<uint8_t> tiled;
                for (int64_t r = 0; r < M; r += c) {
                    const std::vector<uint8_t> part = bytesOf(*bk, mm(*bk, rowsView(a, r, std::min(c, M - r)), bT));
                    tiled.insert(tiled.end(), part.begin(), part.end());
                }
                QVERIFY2(tiled == whole, qPrintable(QString("tiling by %1 rows").arg(c)));
            }
        }
        qInfo("%d chunk placements bitwise equal", checked);
    }

    void stridedEqualsContiguous()
    {
        Backend& be = *be2_;
        const int64_t M = 70, K = 290, N = 53;
        Tensor a = randomTensor(be, {M, K}, DType::F32, 51), b = randomTensor(be, {K, N}, DType::F32, 52);
        const std::vector<uint8_t> want = bytesOf(be, mm(be, a, b));
        const std::vector<std::pair<Tensor, Tensor>> variants = {
            {transposedCopy(be, a), b},
            {a, transposedCopy(be, b)},
            {transposedCopy(be, a), transposedCopy(be, b)},
            {paddedCopy(be, a, 5, 3), paddedCopy(be, b, 1, 7)},
            {paddedCopy(be, a, 0, 1), paddedCopy(be, b, 0, 1)},  // misaligned base
        };
        for (size_t v = 0; v < variants.size(); ++v)
            QVERIFY2(bytesOf(be, mm(be, variants[v].first, variants[v].second)) == want,
                     qPrintable(QString("variant %1").arg(v)));
    }

    void threadsBitwise_data()
    {
        QTest::addColumn<int>("M");
        QTest::addColumn<int>("K");
        QTest::addColumn<int>("N");
        QTest::newRow("256^3") << 256 << 256 << 256;
        QTest::newRow("300x500x333") << 300 << 500 << 333;
        QTest::newRow("4x3000x700 (few rows)") << 4 << 3000 << 700;
        QTest::newRow("1000x64x40 (narrow)") << 1000 << 64 << 40;
    }
    void threadsBitwise()
    {
        QFETCH(int, M);
        QFETCH(int, K);
        QFETCH(int, N);
        Tensor a = randomTensor(*be1_, {M, K}, DType::F32, 61), b = randomTensor(*be1_, {K, N}, DType::F32, 62);
        const std::vector<uint8_t> one = bytesOf(*be1_, mm(*be1_, a, b));
        QCOMPARE(bytesOf(*be2_, mm(*be2_, a, b)), one);
        QCOMPARE(bytesOf(*be3_, mm(*be3_, a, b)), one);
        // and the engine directly with a pool of 2
        ThreadPool pool(2);
        std::vector<float> C(static_cast<size_t>(M * N));
        cpu::GemmOperand A{a.rawData(), DType::F32, K, 1, 0}, B{b.rawData(), DType::F32, N, 1, 0};
        cpu::gemmF32(1, M, N, K, A, B, C.data(), N, 0, &pool);
        QVERIFY(std::memcmp(C.data(), one.data(), one.size()) == 0);
    }

    void isaPathsBitwise()
    {
        Backend& be = *be2_;
        IsaGuard guard;
        const int64_t M = 97, K = 515, N = 83;
        for (DType dt : {DType::F32, DType::BF16, DType::F16, DType::F64}) {
            Tensor a = randomTensor(be, {M, K}, dt, 71), b = randomTensor(be, {K, N}, dt, 72);
            Tensor bT = transposedCopy(be, b);
            std::vector<uint8_t> first;
            int paths = 0;
            for (auto isa : kAllIsas) {
                if (!cpu::gemmIsaSupported(isa)) continue;
                cpu::setGemmIsaOverride(isa);
                QCOMPARE(cpu::gemmIsa(), isa);
                const std::vector<uint8_t> got = bytesOf(be, mm(be, a, bT));
                if (first.empty()) first = got;
                QVERIFY2(
                    got == first,
                    qPrintable(
                        QString("%1 differs (%2 bytes)").arg(cpu::gemmIsaName(isa)).arg(differingBytes(got, first))));
                ++paths;
            }
            qInfo("%s: %d paths bitwise equal", std::string(dtypeAbbr(dt)).c_str(), paths);
        }
        for (auto isa : kAllIsas)
            if (!cpu::gemmIsaSupported(isa))
                QVERIFY_THROWS_EXCEPTION(std::invalid_argument, cpu::setGemmIsaOverride(isa));
    }

    void bmmChunksBitwise()
    {
        Backend& be = *be2_;
        const int64_t Bn = 10, M = 33, K = 70, N = 45;
        Tensor a = randomTensor(be, {Bn, M, K}, DType::F32, 81), b = randomTensor(be, {Bn, K, N}, DType::F32, 82);
        const std::vector<uint8_t> whole = bytesOf(be, bmm(be, a, b));
        const int64_t entry = M * N * 4;
        // batch chunks at any offset
        for (int64_t c : {1, 2, 3, 7}) {
            for (int64_t off : {int64_t{0}, int64_t{1}, Bn - c}) {
                Tensor ac = a.asStrided({c, M, K}, a.strides(), off * M * K);
                Tensor bc = b.asStrided({c, K, N}, b.strides(), off * K * N);
                const std::vector<uint8_t> part = bytesOf(be, bmm(be, ac, bc));
                QVERIFY2(std::memcmp(part.data(), whole.data() + off * entry, part.size()) == 0,
                         qPrintable(QString("batch chunk %1 at %2").arg(c).arg(off)));
            }
        }
        // row chunks inside every entry, and each entry == mm of that entry
        for (int64_t c : {1, 7, 16}) {
            for (int64_t off : {int64_t{0}, int64_t{5}}) {
                const std::vector<uint8_t> part = bytesOf(be, bmm(be, rowsView(a, off, c), b));
                for (int64_t e = 0; e < Bn; ++e)
                    QVERIFY(std::memcmp(part.data() + e * c * N * 4, whole.data() + e * entry + off * N * 4, c * N * 4)
                            == 0);
            }
        }
        for (int64_t e = 0; e < Bn; ++e) {
            Tensor ae = a.asStrided({M, K}, {K, 1}, e * M * K), bE = b.asStrided({K, N}, {N, 1}, e * K * N);
            const std::vector<uint8_t> one = bytesOf(be, mm(be, ae, bE));
            QVERIFY(std::memcmp(one.data(), whole.data() + e * entry, entry) == 0);
        }
        // threads and a big batch entry (parallel inside the entry)
        Tensor a2 = randomTensor(be, {2, 200, 300}, DType::F32, 83),
               b2 = randomTensor(be, {2, 300, 150}, DType::F32, 84);
        QCOMPARE(bytesOf(*be1_, bmm(*be1_, a2, b2)), bytesOf(*be2_, bmm(*be2_, a2, b2)));
        QCOMPARE(bytesOf(*be1_, bmm(*be1_, a, b)), whole);
    }

    // ---------------- errors
    void badInputsThrow()
    {
        Backend& be = *be1_;
        Tensor a = randomTensor(be, {3, 4}, DType::F32, 1), b = randomTensor(be, {5, 6}, DType::F32, 2);
        QVERIFY_THROWS_EXCEPTION(KernelError, mm(be, a, b));
        Tensor bd = randomTensor(be, {4, 6}, DType::F64, 3);
        QVERIFY_THROWS_EXCEPTION(KernelError, mm(be, a, bd));
        Tensor a3 = randomTensor(be, {2, 3, 4}, DType::F32, 4);
        QVERIFY_THROWS_EXCEPTION(KernelError, mm(be, a3, bd));
        QVERIFY_THROWS_EXCEPTION(KernelError, bmm(be, a3, randomTensor(be, {3, 4, 5}, DType::F32, 5)));
        Tensor ok = randomTensor(be, {4, 6}, DType::F32, 6);
        QVERIFY_THROWS_EXCEPTION(KernelError,
                                 addmm(be, randomTensor(be, {5}, DType::F32, 7), a, ok));  // bias does not broadcast
        Tensor ia = be.empty({2, 2}, DType::I64), ib = be.empty({2, 2}, DType::I64);
        std::memset(ia.rawData(), 0, 32);
        std::memset(ib.rawData(), 0, 32);
        QVERIFY_THROWS_EXCEPTION(KernelError,
                                 runOp(be, "aten.addmm.default",
                                       {{"self", Value::ofTensor(ia)},
                                        {"mat1", Value::ofTensor(ia)},
                                        {"mat2", Value::ofTensor(ib)},
                                        {"alpha", Value::ofFloat(0.5)}}));
        Tensor bo = be.empty({2, 2}, DType::Bool);
        QVERIFY_THROWS_EXCEPTION(KernelError, mm(be, bo, bo));
    }
};

FXL_TEST_APPLESS_MAIN(TestMatmul)
}  // namespace test_matmul
#include "test_matmul.moc"

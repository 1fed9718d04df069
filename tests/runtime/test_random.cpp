// Random ops (runtime/cpu/cpu_random.hpp, runtime/math/philox.hpp): Philox4x32-10 known answers,
// element k depending only on (seed, offset, k) (windows, threads, layouts), statistics that
// can fail, dropout's exact arithmetic and edge cases as PyTorch 1.13 CPU, and the executor
// (same seed -> same bits, functional (seed, offset) inputs replay bitwise).
//
// There are no PyTorch reference outputs for these streams: CPU PyTorch draws from mt19937
// and CUDA orders elements by its launch grid, so the checks are the Random123 known-answer
// vectors plus the properties above.
#include <QtTest>

#include <algorithm>

#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/ops/op_registry.hpp"
#include "kernel_test_util.hpp"
#include "runtime/base/backend.hpp"
#include "runtime/math/bits.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/cpu/cpu_common.hpp"
#include "runtime/exec/executor.hpp"
#include "runtime/math/philox.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_random {

using namespace fxl;
using kerneltest::bytesOf;
using kerneltest::dtypeValue;
using kerneltest::makeCall;
using kerneltest::sizesValue;
using kerneltest::strValue;
using kerneltest::upload;

namespace {

// Draws of the statistics tests: fewer in the sanitizer stage (-O0, 5-10x slower); the bounds
// are 5 sigma of whatever count is drawn.
constexpr int64_t kDraws = fxltest::kSanitizedBuild ? 250000 : 1000000;

// Runs one op with the given arguments (by schema name; the rest from the defaults).
Value runOp(Backend& be, const std::string& target, const std::map<std::string, Value>& given, RngState* rng)
{
    KernelCall call = makeCall(target, given);
    call.rng = rng;
    be.run(call);
    return call.result;
}

Tensor scalarI64(Backend& be, int64_t v) { return upload(be, DType::I64, {}, &v); }

std::vector<double> valuesOf(Backend& be, const Tensor& t)
{
    const auto b = bytesOf(be, t);
    std::vector<double> v(static_cast<size_t>(t.numel()));
    for (size_t k = 0; k < v.size(); ++k)
        v[k] = cpu::loadAsDouble(b.data() + k * static_cast<size_t>(t.itemSize()), t.dtype());
    return v;
}

std::vector<float> normalInput(int64_t n, uint64_t seed)
{
    std::vector<float> x(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) x[static_cast<size_t>(k)] = philoxNormal(seed, 3, static_cast<uint64_t>(k));
    return x;
}

// One random op with its element count n drawn at the generator's current state.
struct Case
{
    std::string target;
    DType dtype = DType::F32;
    uint64_t drawsPerElement = 1;
};

Case caseNamed(const std::string& name)
{
    static const std::map<std::string, Case> cases = {
        {"rand_f32", {"aten.rand.default", DType::F32, 1}},
        {"rand_f64", {"aten.rand.default", DType::F64, 2}},
        {"rand_bf16", {"aten.rand.default", DType::BF16, 1}},
        {"rand_f16", {"aten.rand.default", DType::F16, 1}},
        {"randn_f32", {"aten.randn.default", DType::F32, 1}},
        {"randn_f64", {"aten.randn.default", DType::F64, 2}},
        {"randn_bf16", {"aten.randn.default", DType::BF16, 1}},
        {"rand_like", {"aten.rand_like.default", DType::F32, 1}},
        {"randn_like", {"aten.randn_like.default", DType::F32, 1}},
        {"uniform", {"aten.uniform.default", DType::F32, 1}},
        {"normal_functional", {"aten.normal_functional.default", DType::F64, 2}},
        {"bernoulli_p", {"aten.bernoulli.p", DType::F32, 1}},
        {"bernoulli_tensor", {"aten.bernoulli.default", DType::F32, 1}},
        {"native_dropout", {"aten.native_dropout.default", DType::F32, 1}},
        {"native_dropout_bf16", {"aten.native_dropout.default", DType::BF16, 1}},
        {"native_dropout_f64", {"aten.native_dropout.default", DType::F64, 2}},
        {"functional_dropout", {"torch.nn.functional.dropout", DType::F32, 1}},
    };
    return cases.at(name);
}

// Input tensor for ops that take `self`/`input`: elements [first, first + n) of a fixed
// sequence (so a window sees the tail of the full input).
Tensor inputFor(Backend& be, const Case& c, int64_t first, int64_t n)
{
    std::vector<double> v(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) {
        const uint64_t i = static_cast<uint64_t>(first + k);
        v[static_cast<size_t>(k)] =
            c.target == "aten.bernoulli.default" ? philoxUniform(9, 1, i) : philoxNormal(9, 2, i);
    }
    Tensor t = be.empty({n}, c.dtype);
    std::vector<uint8_t> bytes(static_cast<size_t>(t.nbytes()));
    for (int64_t k = 0; k < n; ++k)
        cpu::storeFromDouble(bytes.data() + k * t.itemSize(), c.dtype, v[static_cast<size_t>(k)]);
    be.upload(t, bytes.data(), t.nbytes());
    return t;
}

// Runs case c on elements [first, first + n) of the full input; returns all outputs' bytes.
std::vector<std::vector<uint8_t>> runCase(Backend& be, const Case& c, RngState& rng, int64_t first, int64_t n)
{
    std::map<std::string, Value> args;
    const std::string& t = c.target;
    if (t == "aten.rand.default" || t == "aten.randn.default") {
        args["size"] = sizesValue({n});
        args["dtype"] = dtypeValue(c.dtype);
    } else if (t == "aten.native_dropout.default" || t == "torch.nn.functional.dropout") {
        args["input"] = Value::ofTensor(inputFor(be, c, first, n));
        args["p"] = Value::ofFloat(0.3);
        if (t == "aten.native_dropout.default") args["train"] = Value::ofBool(true);
    } else {
        args["self"] = Value::ofTensor(inputFor(be, c, first, n));
        if (t == "aten.uniform.default") {
            args["from"] = Value::ofFloat(-2.0);
            args["to"] = Value::ofFloat(3.0);
        }
        if (t == "aten.normal_functional.default") {
            args["mean"] = Value::ofFloat(1.5);
            args["std"] = Value::ofFloat(0.25);
        }
        if (t == "aten.bernoulli.p") args["p"] = Value::ofFloat(0.4);
    }
    const Value r = runOp(be, t, args, &rng);
    std::vector<std::vector<uint8_t>> out;
    if (r.isTensor()) out.push_back(bytesOf(be, r.tensor));
    for (const Value& it : r.items) out.push_back(bytesOf(be, it.tensor));
    return out;
}

double mean(const std::vector<double>& v)
{
    double s = 0;
    for (double x : v) s += x;
    return s / static_cast<double>(v.size());
}
double variance(const std::vector<double>& v, double m)
{
    double s = 0;
    for (double x : v) s += (x - m) * (x - m);
    return s / static_cast<double>(v.size());
}

}  // namespace

class TestRandom : public QObject
{
    Q_OBJECT

private slots:
    // Random123 tests/kat_vectors ("philox4x32 10" lines), DEShawResearch/random123 v1.14.0:
    // counter words, key words, expected output words.
    void philoxKnownAnswers_data()
    {
        QTest::addColumn<QString>("line");
        QTest::newRow("zeros")
            << "00000000 00000000 00000000 00000000 00000000 00000000 6627e8d5 e169c58d bc57ac4c 9b00dbd8";
        QTest::newRow("ones")
            << "ffffffff ffffffff ffffffff ffffffff ffffffff ffffffff 408f276d 41c83b0e a20bc7c6 6d5451fd";
        QTest::newRow("pi")
            << "243f6a88 85a308d3 13198a2e 03707344 a4093822 299f31d0 d16cfe09 94fdcceb 5001e420 24126ea1";
    }
    void philoxKnownAnswers()
    {
        QFETCH(QString, line);
        const QStringList w = line.split(' ');
        QCOMPARE(w.size(), 10);
        auto word = [&](int i) { return static_cast<uint32_t>(w[i].toUInt(nullptr, 16)); };
        const auto r = philox4x32({word(0), word(1), word(2), word(3)}, {word(4), word(5)});
        for (int i = 0; i < 4; ++i) QCOMPARE(r[static_cast<size_t>(i)], word(6 + i));
    }

    // The stream's layout end to end: rand([6]) at seed 0, offset 0 takes the KAT block
    // (counter 0, key 0) lanes 0..3 then block 1, each mapped by curand_uniform.
    void randUsesTheDocumentedStream()
    {
        auto be = makeCpuBackend();
        RngState rng{0, 0};
        const Value r = runOp(*be, "aten.rand.default", {{"size", sizesValue({6})}}, &rng);
        QCOMPARE(rng.offset, uint64_t(8));
        const auto v = valuesOf(*be, r.tensor);
        const uint32_t kat[4] = {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u};
        for (int k = 0; k < 4; ++k)
            QCOMPARE(v[static_cast<size_t>(k)], double(static_cast<float>(kat[k]) * 0x1p-32f + 0x1p-33f));
        const auto b1 = philox4x32({1, 0, 0, 0}, {0, 0});
        QCOMPARE(v[4], double(static_cast<float>(b1[0]) * 0x1p-32f + 0x1p-33f));
        // the seed is the key: seed 0x0000000100000002 -> key {2, 1}
        RngState rng2{0x0000000100000002ull, 4};
        const auto w = valuesOf(*be, runOp(*be, "aten.rand.default", {{"size", sizesValue({1})}}, &rng2).tensor);
        QCOMPARE(w[0], double(static_cast<float>(philox4x32({1, 0, 0, 0}, {2, 1})[0]) * 0x1p-32f + 0x1p-33f));
    }

    // Element k of an op depends only on (seed, offset, k): the op drawn for elements
    // [k, n) at offset + D*k gives the tail of the op drawn for [0, n) at offset; the
    // generator advances by the draws rounded up to 4; 1 vs 2 threads bitwise.
    void windowsAndThreads_data()
    {
        QTest::addColumn<std::string>("name");
        for (const char* n :
             {"rand_f32", "rand_f64", "rand_bf16", "rand_f16", "randn_f32", "randn_f64", "randn_bf16", "rand_like",
              "randn_like", "uniform", "normal_functional", "bernoulli_p", "bernoulli_tensor", "native_dropout",
              "native_dropout_bf16", "native_dropout_f64", "functional_dropout"}) {
            // the sanitizer stage (-O0) runs one case per kernel family; the release stage all
            static const std::set<std::string_view> kSanitized{
                "rand_f32", "randn_bf16", "uniform", "normal_functional", "bernoulli_tensor", "native_dropout_f64"};
            if (fxltest::kSanitizedBuild && !kSanitized.contains(n)) continue;
            QTest::newRow(n) << std::string(n);
        }
    }
    void windowsAndThreads()
    {
        FXL_SANITIZER_ROWS(2);
        QFETCH(std::string, name);
        const Case c = caseNamed(name);
        auto be = makeCpuBackend(CpuBackendOptions{1});
        const int64_t n = 1001;
        const uint64_t off0 = 12;
        RngState rng{0xdeadbeef12345ull, off0};
        const auto full = runCase(*be, c, rng, 0, n);
        QCOMPARE(rng.offset, off0 + philoxRoundUp4(static_cast<uint64_t>(n) * c.drawsPerElement));
        for (int64_t k : {int64_t(1), int64_t(2), int64_t(3), int64_t(7), int64_t(500), int64_t(1000)}) {
            RngState w{rng.seed, off0 + static_cast<uint64_t>(k) * c.drawsPerElement};
            const auto tail = runCase(*be, c, w, k, n - k);
            QCOMPARE(tail.size(), full.size());
            for (size_t o = 0; o < full.size(); ++o) {
                const size_t isz = full[o].size() / static_cast<size_t>(n);
                QVERIFY2(std::equal(tail[o].begin(), tail[o].end(), full[o].begin() + static_cast<int64_t>(isz) * k),
                         qPrintable(QString("output %1 differs for the window starting at %2").arg(o).arg(k)));
            }
        }
        // a different offset gives different values
        RngState other{rng.seed, off0 + 4};
        QVERIFY(runCase(*be, c, other, 0, n)[0] != full[0]);
        // threads: large enough to be split
        const int64_t big = 200000;
        auto two = makeCpuBackend(CpuBackendOptions{2});
        RngState r1{77, 0}, r2{77, 0};
        QVERIFY(runCase(*be, c, r1, 0, big) == runCase(*two, c, r2, 0, big));
    }

    // rand_like / randn_like of a transposed tensor: element k is the k-th in the logical
    // (row-major) order, whatever the output's strides.
    void layoutIndependent()
    {
        auto be = makeCpuBackend();
        const std::vector<float> x = normalInput(6 * 5, 1);
        const Tensor base = upload(*be, DType::F32, {6, 5}, x.data());
        const Tensor xt = base.asStrided({5, 6}, {1, 5}, 0);  // transposed view
        for (const char* op : {"aten.rand_like.default", "aten.randn_like.default"}) {
            RngState a{5, 8}, b{5, 8};
            const Value r = runOp(*be, op, {{"self", Value::ofTensor(xt)}}, &a);
            QCOMPARE(r.tensor.strides(), (std::vector<int64_t>{1, 5}));  // preserve_format
            const bool normal = std::string(op) == "aten.randn_like.default";
            const Value ref =
                runOp(*be, normal ? "aten.randn.default" : "aten.rand.default", {{"size", sizesValue({5, 6})}}, &b);
            QVERIFY(bytesOf(*be, r.tensor) == bytesOf(*be, ref.tensor));
            QCOMPARE(a.offset, b.offset);
        }
    }

    // ---- statistics (kDraws draws, 5 sigma)
    void uniformStatistics_data()
    {
        QTest::addColumn<int>("dtype");
        QTest::newRow("f32") << int(DType::F32);
        QTest::newRow("f64") << int(DType::F64);
        QTest::newRow("bf16") << int(DType::BF16);
    }
    void uniformStatistics()
    {
        QFETCH(int, dtype);
        auto be = makeCpuBackend();
        const int64_t n = kDraws;
        RngState rng{2024, 0};
        const auto v = valuesOf(
            *be,
            runOp(*be, "aten.rand.default", {{"size", sizesValue({n})}, {"dtype", dtypeValue(DType(dtype))}}, &rng)
                .tensor);
        double lo = 1, hi = 0;
        for (double x : v) {
            lo = std::min(lo, x);
            hi = std::max(hi, x);
        }
        QVERIFY(lo >= 0.0);
        QVERIFY(hi < 1.0);
        const double m = mean(v), var = variance(v, m), nn = double(n);
        // bf16 rounds to 8 bits: its mean/variance shift by at most ~2^-9, well inside the bounds below
        const double slack = DType(dtype) == DType::BF16 ? 0x1p-8 : 0.0;
        QVERIFY2(std::fabs(m - 0.5) < 5 * std::sqrt(1.0 / 12.0 / nn) + slack, qPrintable(QString::number(m)));
        QVERIFY2(std::fabs(var - 1.0 / 12.0) < 5 * std::sqrt((1.0 / 80.0 - 1.0 / 144.0) / nn) + slack,
                 qPrintable(QString::number(var)));
        // deciles: each holds 10% within 5 sigma
        std::vector<int64_t> bins(10, 0);
        for (double x : v) ++bins[static_cast<size_t>(std::min(9.0, std::floor(x * 10)))];
        if (DType(dtype) != DType::BF16)
            for (int64_t b : bins)
                QVERIFY2(std::fabs(double(b) - nn / 10) < 5 * std::sqrt(nn * 0.09), qPrintable(QString::number(b)));
    }

    void normalStatistics_data()
    {
        QTest::addColumn<QString>("op");
        QTest::addColumn<int>("dtype");
        QTest::newRow("randn f32") << "aten.randn.default" << int(DType::F32);
        QTest::newRow("randn f64") << "aten.randn.default" << int(DType::F64);
        QTest::newRow("inductor randn") << "prims.inductor_random.default" << int(DType::F32);
    }
    void normalStatistics()
    {
        QFETCH(QString, op);
        QFETCH(int, dtype);
        auto be = makeCpuBackend();
        const int64_t n = kDraws;
        RngState rng{99, 0};
        std::map<std::string, Value> args{{"size", sizesValue({n})}};
        if (op == "aten.randn.default")
            args["dtype"] = dtypeValue(DType(dtype));
        else {
            args["seed"] = Value::ofTensor(scalarI64(*be, 123456789));
            args["mode"] = strValue("randn");
        }
        const auto v = valuesOf(*be, runOp(*be, op.toStdString(), args, &rng).tensor);
        const double m = mean(v), var = variance(v, m), nn = double(n);
        QVERIFY2(std::fabs(m) < 5 / std::sqrt(nn), qPrintable(QString::number(m)));
        QVERIFY2(std::fabs(var - 1) < 5 * std::sqrt(2 / nn), qPrintable(QString::number(var)));
        int64_t within1 = 0;
        for (double x : v) within1 += std::fabs(x) < 1.0;
        const double p1 = 0.6826894921370859;
        QVERIFY2(std::fabs(double(within1) - nn * p1) < 5 * std::sqrt(nn * p1 * (1 - p1)),
                 qPrintable(QString::number(within1)));
    }

    void inductorRandStatistics()
    {
        auto be = makeCpuBackend();
        const int64_t n = kDraws;
        RngState rng{1, 0};
        const auto v = valuesOf(
            *be,
            runOp(
                *be, "prims.inductor_random.default",
                {{"size", sizesValue({n})}, {"seed", Value::ofTensor(scalarI64(*be, 42))}, {"mode", strValue("rand")}},
                &rng)
                .tensor);
        QCOMPARE(rng.offset, uint64_t(0));  // functional: the generator is untouched
        const double m = mean(v), nn = double(n);
        QVERIFY(std::fabs(m - 0.5) < 5 * std::sqrt(1.0 / 12.0 / nn));
        for (double x : v) QVERIFY(x >= 0.0 && x < 1.0);
        // element k is tl.rand(seed, k)
        QCOMPARE(v[12345], double(tritonRand(42, 12345)));
        QCOMPARE(float(v[0]), tritonBitsToUniform(philox4x32({0, 0, 0, 0}, {42, 0})[0]));
    }

    void inductorSeedsAndRandint()
    {
        auto be = makeCpuBackend();
        RngState rng{7, 0};
        const Value seeds = runOp(*be, "prims.inductor_seeds.default", {{"count", Value::ofInt(3)}}, &rng);
        QCOMPARE(seeds.tensor.dtype(), DType::I64);
        QCOMPARE(rng.offset, uint64_t(8));
        const Value s1 =
            runOp(*be, "prims.inductor_lookup_seed.default", {{"seeds", seeds}, {"index", Value::ofInt(1)}}, &rng);
        QCOMPARE(s1.tensor.dim(), int64_t(0));
        QCOMPARE(*s1.tensor.data<int64_t>(), seeds.tensor.data<int64_t>()[1]);
        QVERIFY(seeds.tensor.data<int64_t>()[0] != seeds.tensor.data<int64_t>()[1]);
        QVERIFY_THROWS_EXCEPTION(
            KernelError,
            runOp(*be, "prims.inductor_lookup_seed.default", {{"seeds", seeds}, {"index", Value::ofInt(3)}}, &rng));
        const Value ri = runOp(
            *be, "prims.inductor_randint.default",
            {{"low", Value::ofInt(-5)}, {"high", Value::ofInt(7)}, {"size", sizesValue({100000})}, {"seed", s1}}, &rng);
        std::vector<int64_t> counts(12, 0);
        for (int64_t k = 0; k < 100000; ++k) {
            const int64_t x = ri.tensor.data<int64_t>()[k];
            QVERIFY(x >= -5 && x < 7);
            ++counts[static_cast<size_t>(x + 5)];
        }
        for (int64_t c : counts)
            QVERIFY2(std::fabs(double(c) - 100000.0 / 12) < 5 * std::sqrt(100000.0 / 12 * 11 / 12),
                     qPrintable(QString::number(c)));
    }

    // randperm: a permutation of [0, n) that depends only on (seed, offset, n), takes n draws
    // (rounded up to 4), and is uniform: each value lands on each position equally often.
    void randpermIsAUniformPermutation()
    {
        auto be = makeCpuBackend();
        auto perm = [&](int64_t n, RngState& rng, std::optional<DType> dt = std::nullopt) {
            std::map<std::string, Value> args{{"n", Value::ofInt(n)}};
            if (dt) args["dtype"] = kerneltest::dtypeValue(*dt);
            const Value v = runOp(*be, "aten.randperm.default", args, &rng);
            std::vector<int64_t> out;
            for (double x : valuesOf(*be, v.tensor)) out.push_back(static_cast<int64_t>(x));
            return std::make_pair(v.tensor.dtype(), out);
        };
        RngState rng{11, 4};
        const auto [dt, p] = perm(1000, rng);
        QCOMPARE(dt, DType::I64);
        QCOMPARE(rng.offset, uint64_t(4 + 1000));
        std::vector<int64_t> sorted = p;
        std::sort(sorted.begin(), sorted.end());
        for (int64_t k = 0; k < 1000; ++k) QCOMPARE(sorted[static_cast<size_t>(k)], k);
        RngState same{11, 4}, other{12, 4};
        QCOMPARE(perm(1000, same).second, p);
        QVERIFY(perm(1000, other).second != p);
        RngState r3{11, 4};
        QCOMPARE(perm(1000, r3, DType::I32).second, p);  // the dtype changes the storage, not the order
        // uniform: value 0's position over 6000 permutations of 6 (each position ~1000 times)
        std::vector<int> at(6, 0);
        RngState many{99, 0};
        for (int t = 0; t < 6000; ++t) {
            const std::vector<int64_t> q = perm(6, many).second;
            ++at[static_cast<size_t>(std::find(q.begin(), q.end(), 0) - q.begin())];
        }
        for (int c : at) QVERIFY2(std::abs(c - 1000) < 5 * std::sqrt(1000.0 * 5 / 6), qPrintable(QString::number(c)));
        RngState r0{1, 0};
        QCOMPARE(perm(0, r0).second.size(), size_t(0));
        QVERIFY_THROWS_EXCEPTION(KernelError, perm(300, r0, DType::U8));
        QVERIFY_THROWS_EXCEPTION(KernelError, perm(-1, r0));
    }

    // ---- dropout: PyTorch 1.13 CPU arithmetic, output = (x * mask) * float(1 / (1 - p))
    void dropoutStatisticsAndScale()
    {
        auto be = makeCpuBackend();
        const int64_t n = kDraws;
        const double p = 0.3;
        const std::vector<float> x = normalInput(n, 4);
        RngState rng{31337, 0};
        const Value r = runOp(*be, "aten.native_dropout.default",
                              {{"input", Value::ofTensor(upload(*be, DType::F32, {n}, x.data()))},
                               {"p", Value::ofFloat(p)},
                               {"train", Value::ofBool(true)}},
                              &rng);
        QCOMPARE(r.items.size(), size_t(2));
        const Tensor& out = r.items[0].tensor;
        const Tensor& mask = r.items[1].tensor;
        QCOMPARE(mask.dtype(), DType::Bool);
        QCOMPARE(out.dtype(), DType::F32);
        const float scale = static_cast<float>(1.0 / (1.0 - p));
        const bool* m = mask.data<bool>();
        const float* o = out.data<float>();
        int64_t kept = 0;
        for (int64_t k = 0; k < n; ++k) {
            kept += m[k];
            const float expect = (x[static_cast<size_t>(k)] * (m[k] ? 1.0f : 0.0f)) * scale;
            if (std::memcmp(&expect, &o[k], 4) != 0)
                QFAIL(qPrintable(QString("element %1: %2 vs %3").arg(k).arg(o[k]).arg(expect)));
        }
        const double nn = double(n);
        QVERIFY2(std::fabs(double(kept) - nn * (1 - p)) < 5 * std::sqrt(nn * p * (1 - p)),
                 qPrintable(QString::number(kept)));
        // the mask is the decomposition's rand_like(x) > p at the same state
        RngState again{31337, 0};
        const auto u = valuesOf(*be, runOp(*be, "aten.rand.default", {{"size", sizesValue({n})}}, &again).tensor);
        for (int64_t k = 0; k < n; ++k)
            if (m[k] != (u[static_cast<size_t>(k)] > double(float(p))))
                QFAIL(qPrintable(QString("mask %1 differs from rand > p").arg(k)));
    }

    void dropoutEdgeCases()
    {
        auto be = makeCpuBackend();
        // the canonical NaN, as every NaN of a run is (docs/numerics.md section 6)
        const float inf = std::numeric_limits<float>::infinity(), nan = math::canonicalNanF();
        const float x[5] = {inf, -1.0f, 2.0f, nan, -0.0f};
        const Tensor xt = upload(*be, DType::F32, {5}, x);
        auto run = [&](double p, Value train, RngState& rng) {
            return runOp(*be, "aten.native_dropout.default",
                         {{"input", Value::ofTensor(xt)}, {"p", Value::ofFloat(p)}, {"train", train}}, &rng);
        };
        // p = 1 (PyTorch 1.13 CPU: scale 0, mask all false, x*0*0): [nan, -0, 0, nan, -0]
        RngState rng{1, 0};
        Value r = run(1.0, Value::ofBool(true), rng);
        QCOMPARE(rng.offset, uint64_t(8));  // draws are taken whatever p is
        for (int k = 0; k < 5; ++k) QCOMPARE(r.items[1].tensor.data<bool>()[k], false);
        const float* o = r.items[0].tensor.data<float>();
        QVERIFY(std::isnan(o[0]) && std::isnan(o[3]));
        QVERIFY(o[1] == 0.0f && std::signbit(o[1]));
        QVERIFY(o[2] == 0.0f && !std::signbit(o[2]));
        QVERIFY(o[4] == 0.0f && std::signbit(o[4]));
        // p = 0: everything kept, output bitwise the input
        r = run(0.0, Value::ofBool(true), rng);
        for (int k = 0; k < 5; ++k) QCOMPARE(r.items[1].tensor.data<bool>()[k], true);
        QVERIFY(std::memcmp(r.items[0].tensor.rawData(), x, sizeof x) == 0);
        // train=False: copy + all-true mask, no draws; train=None trains (eager)
        const uint64_t before = rng.offset;
        r = run(0.5, Value::ofBool(false), rng);
        QCOMPARE(rng.offset, before);
        QVERIFY(r.items[0].tensor.storage() != xt.storage());
        QVERIFY(std::memcmp(r.items[0].tensor.rawData(), x, sizeof x) == 0);
        for (int k = 0; k < 5; ++k) QCOMPARE(r.items[1].tensor.data<bool>()[k], true);
        r = run(0.5, Value::none(), rng);
        QCOMPARE(rng.offset, before + 8);
        // out of range p and integer input are errors
        QVERIFY_THROWS_EXCEPTION(KernelError, run(1.5, Value::ofBool(true), rng));
        const int64_t ix[2] = {1, 2};
        QVERIFY_THROWS_EXCEPTION(
            KernelError,
            runOp(*be, "aten.native_dropout.default",
                  {{"input", Value::ofTensor(upload(*be, DType::I64, {2}, ix))}, {"p", Value::ofFloat(0.5)}}, &rng));
        // no RNG state: a clear error, not a crash
        QVERIFY_THROWS_EXCEPTION(KernelError, runOp(*be, "aten.rand.default", {{"size", sizesValue({2})}}, nullptr));
    }

    void bernoulliStatistics()
    {
        auto be = makeCpuBackend();
        const int64_t n = kDraws;
        std::vector<float> z(static_cast<size_t>(n), 0.0f);
        const Tensor t = upload(*be, DType::F32, {n}, z.data());
        for (double p : {0.0, 0.25, 1.0}) {
            RngState rng{5, 0};
            const auto v = valuesOf(
                *be,
                runOp(*be, "aten.bernoulli.p", {{"self", Value::ofTensor(t)}, {"p", Value::ofFloat(p)}}, &rng).tensor);
            const double m = mean(v);
            if (p == 0.0 || p == 1.0)
                QCOMPARE(m, p);
            else
                QVERIFY2(std::fabs(m - p) < 5 * std::sqrt(p * (1 - p) / double(n)), qPrintable(QString::number(m)));
        }
    }

    // rngprims.philox_rand: the values of aten.rand at (seed, offset), the offset advanced.
    void philoxRandFunctional()
    {
        auto be = makeCpuBackend();
        RngState untouched{3, 0};
        const Value r = runOp(*be, "rngprims.philox_rand.default",
                              {{"size", sizesValue({3, 7})},
                               {"seed", Value::ofTensor(scalarI64(*be, 1234))},
                               {"offset", Value::ofTensor(scalarI64(*be, 40))}},
                              &untouched);
        QCOMPARE(untouched.offset, uint64_t(0));
        QCOMPARE(r.items.size(), size_t(2));
        QCOMPARE(*r.items[1].tensor.data<int64_t>(), int64_t(40 + 24));
        RngState state{1234, 40};
        const Value ref = runOp(*be, "aten.rand.default", {{"size", sizesValue({3, 7})}}, &state);
        QVERIFY(bytesOf(*be, r.items[0].tensor) == bytesOf(*be, ref.tensor));
        QCOMPARE(static_cast<int64_t>(state.offset), *r.items[1].tensor.data<int64_t>());
    }

    // ---- the executor
    void executorSeeds()
    {
        const std::string text = "class G(torch.nn.Module):\n"
                                 "    def forward(self, x: \"f32[64, 33][33, 1]cpu\"):\n"
                                 "        nd = torch.ops.aten.native_dropout.default(x, 0.5, True)\n"
                                 "        out = operator.getitem(nd, 0)\n"
                                 "        mask = operator.getitem(nd, 1)\n"
                                 "        r = torch.ops.aten.randn.default([5, 4], dtype = torch.float32, device = "
                                 "device(type='cpu'), pin_memory = False)\n"
                                 "        return (out, mask, r)\n";
        Graph g = parseFxText(text, "<test>");
        g.rebuildUsers();
        auto be = makeCpuBackend();
        auto run = [&](uint64_t seed) {
            ExecOptions o;
            o.backend = be.get();
            o.rngSeed = seed;
            o.inputSeed = 11;
            ExecResult r = executeGraph(g, o);
            std::vector<std::vector<uint8_t>> b;
            for (const Value& v : r.outputs) b.push_back(bytesOf(*be, v.tensor));
            return b;
        };
        const auto a = run(7), b = run(7), c = run(8);
        QCOMPARE(a.size(), size_t(3));
        QVERIFY(a == b);
        QVERIFY(a[1] != c[1]);
        QVERIFY(a[2] != c[2]);
        // execution order: randn draws after dropout's 64*33 draws (rounded up to 4)
        RngState st{7, philoxRoundUp4(64 * 33)};
        const Value r = runOp(*be, "aten.randn.default", {{"size", sizesValue({5, 4})}}, &st);
        QVERIFY(bytesOf(*be, r.tensor) == a[2]);
    }

    // The AOT decomposition (rand_like > p, mask * x, * 1/(1-p)) and native_dropout give the
    // same bits at the same seed.
    void executorDecompositionMatches()
    {
        const std::string header = "class G(torch.nn.Module):\n    def forward(self, x: \"f32[16, 40][40, 1]cpu\"):\n";
        Graph fused = parseFxText(header
                                      + "        nd = torch.ops.aten.native_dropout.default(x, 0.1, True)\n"
                                        "        out = operator.getitem(nd, 0)\n"
                                        "        return (out,)\n",
                                  "<fused>");
        Graph decomposed = parseFxText(header
                                           + "        rand = torch.ops.aten.rand_like.default(x)\n"
                                             "        gt = torch.ops.aten.gt.Scalar(rand, 0.1)\n"
                                             "        mul_3 = torch.ops.aten.mul.Tensor(gt, x)\n"
                                             "        mul_4 = torch.ops.aten.mul.Tensor(mul_3, 1.1111111111111112)\n"
                                             "        return (mul_4,)\n",
                                       "<decomposed>");
        fused.rebuildUsers();
        decomposed.rebuildUsers();
        auto be = makeCpuBackend();
        ExecOptions o;
        o.backend = be.get();
        o.rngSeed = 2718;
        const ExecResult a = executeGraph(fused, o), b = executeGraph(decomposed, o);
        QVERIFY(bytesOf(*be, a.outputs[0].tensor) == bytesOf(*be, b.outputs[0].tensor));
        // and a fraction of the elements were really dropped
        const auto v = valuesOf(*be, a.outputs[0].tensor);
        int64_t zeros = 0;
        for (double x : v) zeros += x == 0.0;
        QVERIFY(zeros > 16 * 40 / 20 && zeros < 16 * 40 / 5);
    }

    // Functional form: recomputing philox_rand with the same (seed, offset) inputs replays
    // bitwise (what activation-checkpointing recomputation relies on), a later offset differs.
    void executorFunctionalReplay()
    {
        const std::string text = "class G(torch.nn.Module):\n"
                                 "    def forward(self, seed: \"i64[][]cpu\", offset: \"i64[][]cpu\"):\n"
                                 "        pr = torch.ops.rngprims.philox_rand.default([4, 9], seed, offset, None, "
                                 "device(type='cpu'), torch.float32)\n"
                                 "        a = operator.getitem(pr, 0)\n"
                                 "        off2 = operator.getitem(pr, 1)\n"
                                 "        pr2 = torch.ops.rngprims.philox_rand.default([4, 9], seed, offset, None, "
                                 "device(type='cpu'), torch.float32)\n"
                                 "        b = operator.getitem(pr2, 0)\n"
                                 "        pr3 = torch.ops.rngprims.philox_rand.default([4, 9], seed, off2, None, "
                                 "device(type='cpu'), torch.float32)\n"
                                 "        c = operator.getitem(pr3, 0)\n"
                                 "        return (a, b, c, off2, offset)\n";
        Graph g = parseFxText(text, "<test>");
        g.rebuildUsers();
        auto be = makeCpuBackend();
        for (uint64_t rngSeed : {uint64_t(0), uint64_t(5)}) {
            ExecOptions o;
            o.backend = be.get();
            o.rngSeed = rngSeed;  // must not matter: everything comes from the inputs
            o.inputSeed = 3;
            const ExecResult r = executeGraph(g, o);
            QCOMPARE(r.outputs.size(), size_t(5));
            QVERIFY(bytesOf(*be, r.outputs[0].tensor) == bytesOf(*be, r.outputs[1].tensor));
            QVERIFY(bytesOf(*be, r.outputs[0].tensor) != bytesOf(*be, r.outputs[2].tensor));
            QCOMPARE(*r.outputs[3].tensor.data<int64_t>(), *r.outputs[4].tensor.data<int64_t>() + 36);
            static std::vector<uint8_t> first;
            if (rngSeed == 0)
                first = bytesOf(*be, r.outputs[0].tensor);
            else
                QVERIFY(first == bytesOf(*be, r.outputs[0].tensor));
        }
    }
};

FXL_TEST_APPLESS_MAIN(TestRandom)
}  // namespace test_random
#include "test_random.moc"

// CPU elementwise and factory kernels against PyTorch 1.13 (tests/data/kernels/elementwise.*,
// made by tests/runtime/gen_elementwise_refs.py): values (bit-exact where PyTorch's result is
// correctly rounded, else allclose for f32/f64 and 1 ulp for bf16/f16), output dtype, sizes
// and strides. Self-tests: 1 vs 2 threads, contiguous vs strided vs offset inputs, and every
// prefix / offset of a vector (body vs tail) give the same bits; on the corpus graphs every
// node of this family gets the dtype, sizes and strides PyTorch recorded.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/safetensors.hpp"
#include "core/formats/source.hpp"
#include "core/ops/op_registry.hpp"
#include "graph_test_util.hpp"
#include "kernel_test_util.hpp"
#include "runtime/base/backend.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/cpu/cpu_common.hpp"
#include "runtime/exec/support_check.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_elementwise {

using namespace fxl;
using kerneltest::argToValue;
using kerneltest::bytesOf;
using kerneltest::corpusCodeFiles;
using kerneltest::corpusRunFloor;
using kerneltest::CorpusRunOptions;
using kerneltest::CorpusRunResult;
using kerneltest::dtypeValue;
using kerneltest::makeCall;
using kerneltest::runCorpusFamily;
using kerneltest::sizesValue;
using kerneltest::strValue;
using kerneltest::upload;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

const fs::path kData = fxltest::testDataPath("kernels");

// corpusLayouts: at least this many distinct calls run per corpus graph (the count when this was
// written, lowered by a tenth from 10 on), so a row cannot pass having run nothing. 0 where no
// family node runs: the bw partitions' inputs carry no recorded meta (meta.json describes the
// joint graph), and some partitions have no node of the family.
const std::map<std::string, int> kCorpusFloors = {
    {"checkpoint_mlp.joint.code.py", 3},  // 3 counted
    {"gpt2_deep640.joint.code.py", 14},  // 15 counted
    {"gpt2_tiny.bw.default.code.py", 0},  // 0 counted
    {"gpt2_tiny.bw.mincut.code.py", 1},  // 1 counted
    {"gpt2_tiny.fw.default.code.py", 9},  // 10 counted
    {"gpt2_tiny.fw.mincut.code.py", 9},  // 10 counted
    {"gpt2_tiny.joint.code.py", 14},  // 15 counted
    {"linear_ce.bw.default.code.py", 0},  // 0 counted
    {"linear_ce.bw.mincut.code.py", 0},  // 0 counted
    {"linear_ce.fw.default.code.py", 0},  // 0 counted
    {"linear_ce.fw.mincut.code.py", 0},  // 0 counted
    {"linear_ce.joint.code.py", 1},  // 1 counted
    {"llama_tiny.bw.default.code.py", 9},  // 9 counted
    {"llama_tiny.bw.mincut.code.py", 11},  // 12 counted
    {"llama_tiny.fw.default.code.py", 17},  // 18 counted
    {"llama_tiny.fw.mincut.code.py", 17},  // 18 counted
    {"llama_tiny.joint.code.py", 36},  // 40 counted
    {"mlp_gelu.bw.default.code.py", 0},  // 0 counted
    {"mlp_gelu.bw.mincut.code.py", 1},  // 1 counted
    {"mlp_gelu.fw.default.code.py", 1},  // 1 counted
    {"mlp_gelu.fw.mincut.code.py", 1},  // 1 counted
    {"mlp_gelu.joint.code.py", 3},  // 3 counted
    {"moe_dispatch.joint.code.py", 36},  // 39 counted
    {"moe_tiny.joint.code.py", 13},  // 14 counted
};

// Runs one op: `given` by schema name, the rest from the schema's defaults.
Value runOp(Backend& be, const std::string& target, const std::map<std::string, Value>& given)
{
    KernelCall call = makeCall(target, given);
    be.run(call);
    return call.result;
}

bool isNanBits(const uint8_t* p, DType t)
{
    if (!isFloatingPoint(t)) return false;
    return std::isnan(cpu::loadAsDouble(p, t));
}

// Position of a float's bits on a line where adjacent floats differ by 1.
int64_t ordered(const uint8_t* p, DType t)
{
    int64_t bits = 0, sign = 0;
    switch (dtypeItemSize(t)) {
    case 2: {
        uint16_t u;
        std::memcpy(&u, p, 2);
        sign = u >> 15;
        bits = u & 0x7fff;
        break;
    }
    case 4: {
        uint32_t u;
        std::memcpy(&u, p, 4);
        sign = u >> 31;
        bits = u & 0x7fffffff;
        break;
    }
    default: {
        uint64_t u;
        std::memcpy(&u, p, 8);
        sign = static_cast<int64_t>(u >> 63);
        bits = static_cast<int64_t>(u & 0x7fffffffffffffffull);
    }
    }
    return sign ? -bits : bits;
}

struct Compare
{
    int64_t mismatches = 0;
    int64_t viaF64 = 0;  // elements outside tolerance of PyTorch's f32 but within it of the f64 result
    int64_t first = -1;
    double worstRatio = 0;  // f32/f64 allclose ratio |a-e| / (1e-6 + 1e-5|e|)
    int64_t worstUlp = 0;  // bf16/f16
    std::string firstText;
};

// got / want: contiguous bytes of the same dtype and count. want64 (optional, f64): the op on
// f64 copies of the inputs; an f32 element outside tolerance of PyTorch's f32 result passes
// when it is within tolerance of this one (PyTorch's vector erf/tanh/exp can be off by an ulp
// where 1 + tanh cancels; glibc's are not the same ulp).
Compare compareValues(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want, DType t, bool exact,
                      const SafeTensor* want64 = nullptr)
{
    Compare c;
    const int64_t isz = dtypeItemSize(t);
    const int64_t n = static_cast<int64_t>(want.size()) / isz;
    for (int64_t i = 0; i < n; ++i) {
        const uint8_t* a = got.data() + i * isz;
        const uint8_t* e = want.data() + i * isz;
        bool ok;
        if (isNanBits(a, t) || isNanBits(e, t)) {
            ok = isNanBits(a, t) && isNanBits(e, t);  // any NaN payload
        } else if (exact || !isFloatingPoint(t)) {
            ok = t == DType::Bool ? ((*a != 0) == (*e != 0)) : std::memcmp(a, e, static_cast<size_t>(isz)) == 0;
        } else if (t == DType::BF16 || t == DType::F16) {
            // 1 ulp of the output format; near 0 (cancellation in 1 + erf / 1 + tanh, where
            // libm and PyTorch's vector erf/tanh differ by an f32 ulp) the f32 tolerance
            const int64_t d = std::llabs(ordered(a, t) - ordered(e, t));
            const double x = cpu::loadAsDouble(a, t), y = cpu::loadAsDouble(e, t);
            ok = d <= 1 || std::fabs(x - y) <= 1e-6 + 1e-5 * std::fabs(y);
            if (!ok && want64) {
                double z;
                std::memcpy(&z, want64->data.data() + i * 8, 8);
                uint8_t zb[2];
                cpu::storeFromDouble(zb, t, z);
                if (std::llabs(ordered(a, t) - ordered(zb, t)) <= 1 || std::fabs(x - z) <= 1e-6 + 1e-5 * std::fabs(z)) {
                    ok = true;
                    ++c.viaF64;
                }
            }
            if (d <= 1) c.worstUlp = std::max(c.worstUlp, d);
        } else {
            const double x = cpu::loadAsDouble(a, t), y = cpu::loadAsDouble(e, t);
            auto close = [x](double want) {
                if (std::isinf(x) || std::isinf(want)) return x == want;
                return std::fabs(x - want) <= 1e-6 + 1e-5 * std::fabs(want);
            };
            ok = close(y);
            if (!std::isinf(x) && !std::isinf(y))
                c.worstRatio = std::max(c.worstRatio, std::fabs(x - y) / (1e-6 + 1e-5 * std::fabs(y)));
            if (!ok && want64) {
                double z;
                std::memcpy(&z, want64->data.data() + i * 8, 8);
                if (t == DType::F32)
                    z = static_cast<float>(z);  // the correctly rounded f32 value (may overflow to inf)
                if (close(z)) {
                    ok = true;
                    ++c.viaF64;
                }
            }
        }
        if (!ok) {
            if (c.first < 0) {
                c.first = i;
                char buf[160];
                std::snprintf(buf, sizeof buf, "element %lld: got %.9g want %.9g", static_cast<long long>(i),
                              cpu::loadAsDouble(a, t), cpu::loadAsDouble(e, t));
                c.firstText = buf;
            }
            ++c.mismatches;
        }
    }
    return c;
}

struct RefData
{
    json cases;
    SafeTensorsFile st;
};

const RefData& refs()
{
    static RefData r = [] {
        RefData d;
        std::ifstream f(kData / "elementwise.cases.json");
        if (!f) throw std::runtime_error("missing " + (kData / "elementwise.cases.json").string());
        d.cases = json::parse(f)["cases"];
        d.st = readSafetensors((kData / "elementwise.safetensors").string());
        return d;
    }();
    return r;
}

Value caseArg(Backend& be, const json& a)
{
    if (a.contains("tensor")) {
        const SafeTensor* s = refs().st.find(a["tensor"].get<std::string>());
        if (!s) throw std::runtime_error("missing tensor " + a["tensor"].get<std::string>());
        Tensor storage = upload(be, s->dtype, {s->numel()}, s->data.data());
        return Value::ofTensor(storage.asStrided(a["sizes"].get<std::vector<int64_t>>(),
                                                 a["strides"].get<std::vector<int64_t>>(), a["offset"].get<int64_t>()));
    }
    if (a.contains("none")) return Value::none();
    if (a.contains("int")) return Value::ofInt(a["int"].get<int64_t>());
    if (a.contains("bool")) return Value::ofBool(a["bool"].get<bool>());
    if (a.contains("float")) {
        if (a["float"].is_string()) {
            const std::string s = a["float"];
            return Value::ofFloat(s == "nan" ? NAN : s == "inf" ? INFINITY : -INFINITY);
        }
        return Value::ofFloat(a["float"].get<double>());
    }
    if (a.contains("str")) return strValue(a["str"].get<std::string>());
    if (a.contains("dtype")) return dtypeValue(*dtypeFromTorchName(a["dtype"].get<std::string>()));
    if (a.contains("memory_format")) {
        Value v;
        v.kind = Value::Kind::MemoryFormat;
        v.s = a["memory_format"];
        return v;
    }
    if (a.contains("ints")) return sizesValue(a["ints"].get<std::vector<int64_t>>());
    throw std::runtime_error("unknown argument encoding " + a.dump());
}

std::vector<float> randomFloats(size_t n, uint32_t seed, float scale = 3.0f)
{
    std::mt19937 g(seed);
    std::normal_distribution<float> d(0.0f, scale);
    std::vector<float> v(n);
    for (auto& x : v) x = d(g);
    return v;
}

Tensor f32Tensor(Backend& be, const std::vector<int64_t>& sizes, const std::vector<float>& v)
{
    return upload(be, DType::F32, sizes, v.data());
}

// Same logical values as a row-major [r, c] array, stored transposed (column-major).
Tensor f32Transposed(Backend& be, int64_t r, int64_t c, const std::vector<float>& v)
{
    std::vector<float> t(v.size());
    for (int64_t i = 0; i < r; ++i)
        for (int64_t j = 0; j < c; ++j) t[static_cast<size_t>(j * r + i)] = v[static_cast<size_t>(i * c + j)];
    return upload(be, DType::F32, {c, r}, t.data()).asStrided({r, c}, {1, r}, 0);
}

// Same values after `pad` leading elements (a view at an odd offset).
Tensor f32Offset(Backend& be, const std::vector<int64_t>& sizes, const std::vector<float>& v, int64_t pad)
{
    std::vector<float> t(static_cast<size_t>(pad), 123.0f);
    t.insert(t.end(), v.begin(), v.end());
    Tensor base = upload(be, DType::F32, {static_cast<int64_t>(t.size())}, t.data());
    return base.asStrided(sizes, Tensor::contiguousStrides(sizes), pad);
}

// Ops of the family run in the self-tests: a name and a function of up to two f32 inputs.
struct SelfOp
{
    std::string name;
    std::function<Value(Backend&, const Tensor&, const Tensor&)> run;
};

std::vector<SelfOp> selfOps()
{
    auto s = [](const char* v) {
        Value x;
        x.kind = Value::Kind::Str;
        x.s = v;
        return x;
    };
    auto T = [](const Tensor& t) { return Value::ofTensor(t); };
    std::vector<SelfOp> ops = {
        {"add",
         [=](Backend& b, const Tensor& x, const Tensor& y) {
             return runOp(b, "aten.add.Tensor", {{"self", T(x)}, {"other", T(y)}});
         }},
        {"add alpha",
         [=](Backend& b, const Tensor& x, const Tensor& y) {
             return runOp(b, "aten.add.Tensor", {{"self", T(x)}, {"other", T(y)}, {"alpha", Value::ofFloat(-0.37)}});
         }},
        {"sub",
         [=](Backend& b, const Tensor& x, const Tensor& y) {
             return runOp(b, "aten.sub.Tensor", {{"self", T(x)}, {"other", T(y)}});
         }},
        {"mul",
         [=](Backend& b, const Tensor& x, const Tensor& y) {
             return runOp(b, "aten.mul.Tensor", {{"self", T(x)}, {"other", T(y)}});
         }},
        {"div",
         [=](Backend& b, const Tensor& x, const Tensor& y) {
             return runOp(b, "aten.div.Tensor", {{"self", T(x)}, {"other", T(y)}});
         }},
        {"mul scalar",
         [=](Backend& b, const Tensor& x, const Tensor&) {
             return runOp(b, "aten.mul.Tensor", {{"self", T(x)}, {"other", Value::ofFloat(0.1)}});
         }},
        {"div.Scalar",
         [=](Backend& b, const Tensor& x, const Tensor&) {
             return runOp(b, "aten.div.Scalar", {{"self", T(x)}, {"other", Value::ofInt(64)}});
         }},
        {"neg",
         [=](Backend& b, const Tensor& x, const Tensor&) {
             return runOp(b, "aten.neg.default", {{"self", T(x)}});
         }},
        {"rsqrt",
         [=](Backend& b, const Tensor& x, const Tensor&) {
             return runOp(b, "aten.rsqrt.default", {{"self", T(x)}});
         }},
        {"pow 1.7",
         [=](Backend& b, const Tensor& x, const Tensor&) {
             return runOp(b, "aten.pow.Tensor_Scalar", {{"self", T(x)}, {"exponent", Value::ofFloat(1.7)}});
         }},
        {"pow 3",
         [=](Backend& b, const Tensor& x, const Tensor&) {
             return runOp(b, "aten.pow.Tensor_Scalar", {{"self", T(x)}, {"exponent", Value::ofInt(3)}});
         }},
        {"sigmoid",
         [=](Backend& b, const Tensor& x, const Tensor&) {
             return runOp(b, "aten.sigmoid.default", {{"self", T(x)}});
         }},
        {"silu",
         [=](Backend& b, const Tensor& x, const Tensor&) {
             return runOp(b, "aten.silu.default", {{"self", T(x)}});
         }},
        {"gelu",
         [=](Backend& b, const Tensor& x, const Tensor&) {
             return runOp(b, "aten.gelu.default", {{"self", T(x)}});
         }},
        {"gelu tanh",
         [=](Backend& b, const Tensor& x, const Tensor&) {
             return runOp(b, "aten.gelu.default", {{"self", T(x)}, {"approximate", s("tanh")}});
         }},
        {"gelu_backward",
         [=](Backend& b, const Tensor& x, const Tensor& y) {
             return runOp(b, "aten.gelu_backward.default", {{"grad_output", T(y)}, {"self", T(x)}});
         }},
        {"gelu_backward tanh",
         [=](Backend& b, const Tensor& x, const Tensor& y) {
             return runOp(b, "aten.gelu_backward.default",
                          {{"grad_output", T(y)}, {"self", T(x)}, {"approximate", s("tanh")}});
         }},
        {"to bf16",
         [=](Backend& b, const Tensor& x, const Tensor&) {
             return runOp(b, "aten._to_copy.default", {{"self", T(x)}, {"dtype", dtypeValue(DType::BF16)}});
         }},
        {"to f16",
         [=](Backend& b, const Tensor& x, const Tensor&) {
             return runOp(b, "aten._to_copy.default", {{"self", T(x)}, {"dtype", dtypeValue(DType::F16)}});
         }},
        {"to i32",
         [=](Backend& b, const Tensor& x, const Tensor&) {
             return runOp(b, "aten._to_copy.default", {{"self", T(x)}, {"dtype", dtypeValue(DType::I32)}});
         }},
        {"clone",
         [=](Backend& b, const Tensor& x, const Tensor&) {
             return runOp(b, "aten.clone.default", {{"self", T(x)}});
         }},
        {"where",
         [=](Backend& b, const Tensor& x, const Tensor& y) {
             Value mask = runOp(b, "aten._to_copy.default", {{"self", T(x)}, {"dtype", dtypeValue(DType::Bool)}});
             return runOp(b, "aten.where.self", {{"condition", mask}, {"self", T(x)}, {"other", T(y)}});
         }},
        {"masked_fill",
         [=](Backend& b, const Tensor& x, const Tensor& y) {
             Value mask = runOp(b, "aten._to_copy.default", {{"self", T(y)}, {"dtype", dtypeValue(DType::Bool)}});
             return runOp(b, "aten.masked_fill.Scalar",
                          {{"self", T(x)}, {"mask", mask}, {"value", Value::ofFloat(-INFINITY)}});
         }},
        {"bf16 add",
         [=](Backend& b, const Tensor& x, const Tensor& y) {
             Value xb = runOp(b, "aten._to_copy.default", {{"self", T(x)}, {"dtype", dtypeValue(DType::BF16)}});
             Value yb = runOp(b, "aten._to_copy.default", {{"self", T(y)}, {"dtype", dtypeValue(DType::BF16)}});
             return runOp(b, "aten.add.Tensor", {{"self", xb}, {"other", yb}, {"alpha", Value::ofFloat(0.5)}});
         }},
        {"exp",
         [=](Backend& b, const Tensor& x, const Tensor&) {
             return runOp(b, "aten.exp.default", {{"self", T(x)}});
         }},
        {"tanh",
         [=](Backend& b, const Tensor& x, const Tensor&) {
             return runOp(b, "aten.tanh.default", {{"self", T(x)}});
         }},
        {"silu_backward",
         [=](Backend& b, const Tensor& x, const Tensor& y) {
             return runOp(b, "aten.silu_backward.default", {{"grad_output", T(y)}, {"self", T(x)}});
         }},
        {"maximum",
         [=](Backend& b, const Tensor& x, const Tensor& y) {
             return runOp(b, "aten.maximum.default", {{"self", T(x)}, {"other", T(y)}});
         }},
        {"clamp",
         [=](Backend& b, const Tensor& x, const Tensor&) {
             return runOp(b, "aten.clamp.default",
                          {{"self", T(x)}, {"min", Value::ofFloat(-1)}, {"max", Value::ofFloat(1)}});
         }},
        {"ge",
         [=](Backend& b, const Tensor& x, const Tensor& y) {
             return runOp(b, "aten.ge.Tensor", {{"self", T(x)}, {"other", T(y)}});
         }},
        {"div floor",
         [=](Backend& b, const Tensor& x, const Tensor& y) {
             return runOp(b, "aten.div.Tensor_mode", {{"self", T(x)}, {"other", T(y)}, {"rounding_mode", s("floor")}});
         }},
        {"bf16 gelu",
         [=](Backend& b, const Tensor& x, const Tensor&) {
             Value xb = runOp(b, "aten._to_copy.default", {{"self", T(x)}, {"dtype", dtypeValue(DType::BF16)}});
             return runOp(b, "aten.gelu.default", {{"self", xb}});
         }},
        {"atan2",
         [=](Backend& b, const Tensor& x, const Tensor& y) {
             return runOp(b, "aten.atan2.default", {{"self", T(x)}, {"other", T(y)}});
         }},
        {"clamp.Tensor",
         [=](Backend& b, const Tensor& x, const Tensor& y) {
             return runOp(b, "aten.clamp.Tensor", {{"self", T(x)}, {"min", T(y)}, {"max", T(x)}});
         }},
    };
    return ops;
}

// Logical values (row-major) of a result as bytes.
std::vector<uint8_t> logicalBytes(Backend& be, const Value& v)
{
    if (!v.isTensor()) throw std::runtime_error("result is not a tensor");
    return bytesOf(be, v.tensor);
}

const std::set<std::string>& familyTargets()
{
    static const std::set<std::string> s = {"aten.add.Tensor",
                                            "aten.add.Scalar",
                                            "aten.sub.Tensor",
                                            "aten.sub_.Tensor",
                                            "aten.mul.Tensor",
                                            "aten.mul.Scalar",
                                            "aten.div.Tensor",
                                            "aten.div.Scalar",
                                            "aten.neg.default",
                                            "aten.pow.Tensor_Scalar",
                                            "aten.rsqrt.default",
                                            "aten.gelu.default",
                                            "aten.gelu_backward.default",
                                            "aten.silu.default",
                                            "aten.sigmoid.default",
                                            "aten.bitwise_not.default",
                                            "aten.masked_fill.Scalar",
                                            "aten.where.self",
                                            "aten.fill.Scalar",
                                            "aten.fill_.Scalar",
                                            "aten.clone.default",
                                            "aten._to_copy.default",
                                            "aten.triu.default",
                                            "aten.ones_like.default",
                                            "aten.zeros_like.default",
                                            "aten.empty_like.default",
                                            "aten.full.default",
                                            "aten.zeros.default",
                                            "aten.ones.default",
                                            "aten.empty.memory_format",
                                            "aten.new_zeros.default",
                                            "aten.arange.default",
                                            "aten.arange.start",
                                            "aten.arange.start_step",
                                            "aten.scalar_tensor.default"};
    return s;
}

std::vector<int64_t> concrete(const std::vector<SymInt>& v)
{
    std::vector<int64_t> out;
    for (const SymInt& s : v) out.push_back(s.valueOrHint());
    return out;
}

// A tensor with a node's recorded meta (random values; bools every other element).
Tensor tensorFromMeta(Backend& be, const TensorMeta& m, uint32_t seed)
{
    const auto sizes = concrete(m.sizes);
    const auto strides = m.hasStrides() ? concrete(m.strides) : Tensor::contiguousStrides(sizes);
    int64_t extent = 1;
    bool empty = false;
    for (size_t d = 0; d < sizes.size(); ++d) {
        if (sizes[d] == 0) empty = true;
        extent += (sizes[d] - 1) * strides[d];
    }
    const int64_t offset = m.storageOffset.valueOrHint();
    Tensor storage = be.empty({empty ? 1 : extent + offset}, m.dtype);
    std::vector<uint8_t> bytes(static_cast<size_t>(storage.nbytes()));
    std::mt19937 g(seed);
    std::normal_distribution<double> d(0.0, 1.0);
    const int64_t isz = dtypeItemSize(m.dtype);
    for (int64_t i = 0; i < storage.numel(); ++i) {
        const double v = m.dtype == DType::Bool ? (i % 2)
            : isFloatingPoint(m.dtype)          ? d(g)
                                                : static_cast<double>(i % 7);
        cpu::storeFromDouble(bytes.data() + i * isz, m.dtype, v);
    }
    be.upload(storage, bytes.data(), storage.nbytes());
    return storage.asStrided(sizes, strides, offset);
}

}  // namespace

class TestElementwise : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(fs::exists(kData / "elementwise.cases.json"),
                 "tests/data/kernels/elementwise.cases.json is missing (run tests/runtime/gen_elementwise_refs.py)");
        QVERIFY(refs().cases.size() > 100);
    }

    // Every case of one op against PyTorch; reports the worst f32 allclose ratio per op.
    void matchesPyTorch_data()
    {
        QTest::addColumn<std::string>("op");
        std::set<std::string> ops;
        for (const auto& c : refs().cases) ops.insert(c["op"].get<std::string>());
        for (const auto& op : ops) QTest::newRow(op.c_str()) << op;
    }
    void matchesPyTorch()
    {
        QFETCH(std::string, op);
        auto be = makeCpuBackend();
        double worstF32 = 0, worstF64 = 0;
        int64_t worstUlp = 0;
        std::string worstCase;
        int n = 0, exactCases = 0;
        int64_t viaF64 = 0;
        for (const auto& c : refs().cases) {
            if (c["op"] != op) continue;
            ++n;
            const std::string id = c["id"].get<std::string>() + " (" + c["group"].get<std::string>() + ")";
            std::map<std::string, Value> args;
            for (const auto& [name, a] : c["args"].items()) args[name] = caseArg(*be, a);
            Value r;
            try {
                r = runOp(*be, op, args);
            } catch (const std::exception& e) {
                QFAIL((id + ": threw " + e.what()).c_str());
            }
            QVERIFY2(r.isTensor(), (id + ": result is not a tensor").c_str());
            const Tensor& out = r.tensor;
            const DType want = *dtypeFromTorchName(c["out_dtype"].get<std::string>());
            QVERIFY2(out.dtype() == want,
                     (id + ": dtype " + std::string(dtypeAbbr(out.dtype())) + " want " + std::string(dtypeAbbr(want)))
                         .c_str());
            QVERIFY2(out.sizes() == c["out_sizes"].get<std::vector<int64_t>>(),
                     (id + ": sizes " + describe(out)).c_str());
            if (out.numel() > 0)
                QVERIFY2(out.strides() == c["out_strides"].get<std::vector<int64_t>>(),
                         (id + ": strides " + describe(out) + " want " + c["out_strides"].dump()).c_str());
            if (c["inplace"].get<bool>())
                QVERIFY2(out.storage() == args["self"].tensor.storage() && out.offset() == args["self"].tensor.offset(),
                         (id + ": an in-place op must return self").c_str());
            if (!c["check_values"].get<bool>()) continue;
            const SafeTensor* e = refs().st.find(c["out"].get<std::string>());
            QVERIFY(e);
            const bool exact = c["exact"].get<bool>();
            exactCases += exact ? 1 : 0;
            const SafeTensor* e64 =
                c["out_f64"].is_string() ? refs().st.find(c["out_f64"].get<std::string>()) : nullptr;
            const Compare cmp = compareValues(bytesOf(*be, out), e->data, want, exact, e64);
            viaF64 += cmp.viaF64;
            QVERIFY2(cmp.mismatches == 0,
                     (id + (exact ? ": not bit-identical to PyTorch, " : ": outside tolerance, ")
                      + std::to_string(cmp.mismatches) + " elements; first " + cmp.firstText)
                         .c_str());
            if (want == DType::F32 && cmp.worstRatio > worstF32) {
                worstF32 = cmp.worstRatio;
                worstCase = id;
            }
            worstF64 = std::max(worstF64, want == DType::F64 ? cmp.worstRatio : 0.0);
            worstUlp = std::max(worstUlp, cmp.worstUlp);
        }
        qInfo("%s: %d cases (%d bit-exact), worst f32 ratio %.4g%s%s, worst f64 ratio %.4g, worst bf16/f16 %lld ulp%s",
              op.c_str(), n, exactCases, worstF32, worstCase.empty() ? "" : " in ", worstCase.c_str(), worstF64,
              static_cast<long long>(worstUlp),
              viaF64 ? (", " + std::to_string(viaF64) + " elements within tolerance of the f64 result only").c_str()
                     : "");
    }

    // 1 vs 2 threads on inputs big enough to be split (> 2 * the largest grain).
    void threadsBitwise_data()
    {
        QTest::addColumn<int>("index");
        const auto ops = selfOps();
        for (size_t k = 0; k < ops.size(); ++k) QTest::newRow(ops[k].name.c_str()) << static_cast<int>(k);
    }
    void threadsBitwise()
    {
        FXL_SANITIZER_ROWS(4);
        QFETCH(int, index);
        const SelfOp op = selfOps()[static_cast<size_t>(index)];
        auto one = makeCpuBackend(CpuBackendOptions{1});
        auto two = makeCpuBackend(CpuBackendOptions{2});
        const int64_t r = 3, c = 40001;  // 120003 elements, odd
        const auto x = randomFloats(static_cast<size_t>(r * c), 11);
        const auto y = randomFloats(static_cast<size_t>(r * c), 12);
        const auto a = logicalBytes(*one, op.run(*one, f32Tensor(*one, {r, c}, x), f32Tensor(*one, {r, c}, y)));
        const auto b = logicalBytes(*two, op.run(*two, f32Tensor(*two, {r, c}, x), f32Tensor(*two, {r, c}, y)));
        QVERIFY2(a == b, (op.name + ": 1 and 2 threads differ").c_str());
        // and with a broadcast (stride 0) second operand and a transposed first one
        const auto row = randomFloats(static_cast<size_t>(c), 13);
        std::vector<float> yb(static_cast<size_t>(r * c));
        for (int64_t i = 0; i < r * c; ++i) yb[static_cast<size_t>(i)] = row[static_cast<size_t>(i % c)];
        const auto a2 = logicalBytes(
            *one, op.run(*one, f32Transposed(*one, r, c, x), cpu::expandTo(f32Tensor(*one, {c}, row), {r, c})));
        const auto b2 = logicalBytes(
            *two, op.run(*two, f32Transposed(*two, r, c, x), cpu::expandTo(f32Tensor(*two, {c}, row), {r, c})));
        QVERIFY2(a2 == b2, (op.name + ": 1 and 2 threads differ (transposed / broadcast inputs)").c_str());
        // the strided walk gives what the contiguous one gives
        const auto a3 = logicalBytes(*two, op.run(*two, f32Tensor(*two, {r, c}, x), f32Tensor(*two, {r, c}, yb)));
        QVERIFY2(a2 == a3, (op.name + ": transposed / broadcast inputs differ from contiguous ones").c_str());
    }

    // Same values as contiguous, transposed and offset (misaligned) views: same bits.
    void stridedPathBitwise_data() { threadsBitwise_data(); }
    void stridedPathBitwise()
    {
        QFETCH(int, index);
        const SelfOp op = selfOps()[static_cast<size_t>(index)];
        auto be = makeCpuBackend();
        const int64_t r = 37, c = 53;
        auto x = randomFloats(static_cast<size_t>(r * c), 21);
        const auto y = randomFloats(static_cast<size_t>(r * c), 22);
        const float edge[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-40f, -1e-42f, 3e38f, 88.7f, -88.7f, 1e-7f};
        for (size_t k = 0; k < std::size(edge); ++k) x[k * 17] = edge[k];
        const auto base = logicalBytes(*be, op.run(*be, f32Tensor(*be, {r, c}, x), f32Tensor(*be, {r, c}, y)));
        const auto tr = logicalBytes(*be, op.run(*be, f32Transposed(*be, r, c, x), f32Transposed(*be, r, c, y)));
        const auto mixed = logicalBytes(*be, op.run(*be, f32Transposed(*be, r, c, x), f32Tensor(*be, {r, c}, y)));
        const auto off = logicalBytes(*be, op.run(*be, f32Offset(*be, {r, c}, x, 1), f32Offset(*be, {r, c}, y, 3)));
        QVERIFY2(base == tr, (op.name + ": transposed inputs give other bits").c_str());
        QVERIFY2(base == mixed, (op.name + ": mixed layouts give other bits").c_str());
        QVERIFY2(base == off, (op.name + ": offset inputs give other bits").c_str());
    }

    // Every window [offset, offset + n) of a vector gives the bits of the same elements of the
    // whole: no body / tail / alignment dependence.
    void bodyTailBitwise_data() { threadsBitwise_data(); }
    void bodyTailBitwise()
    {
        QFETCH(int, index);
        const SelfOp op = selfOps()[static_cast<size_t>(index)];
        auto be = makeCpuBackend();
        const int64_t total = 80;
        const auto x = randomFloats(static_cast<size_t>(total), 31);
        const auto y = randomFloats(static_cast<size_t>(total), 32);
        const Tensor xt = f32Tensor(*be, {total}, x), yt = f32Tensor(*be, {total}, y);
        const Value whole = op.run(*be, xt, yt);
        const auto wb = logicalBytes(*be, whole);
        const int64_t isz = whole.tensor.itemSize();
        for (int64_t off = 0; off < 4; ++off)
            for (int64_t n = 1; off + n <= total; n += (n < 20 ? 1 : 7)) {
                const Value part = op.run(*be, xt.asStrided({n}, {1}, off), yt.asStrided({n}, {1}, off));
                const auto pb = logicalBytes(*be, part);
                QVERIFY2(std::memcmp(pb.data(), wb.data() + off * isz, static_cast<size_t>(n * isz)) == 0,
                         (op.name + ": window offset " + std::to_string(off) + " length " + std::to_string(n)
                          + " differs from the whole")
                             .c_str());
            }
    }

    // Each corpus node of this family: the kernel runs on inputs with the recorded meta and
    // gives the dtype, sizes and strides PyTorch recorded.
    void corpusLayouts_data()
    {
        QTest::addColumn<std::string>("file");
        for (const auto& f : corpusCodeFiles())
            QTest::newRow(fs::relative(f, fxltest::corpusPath("pytorch")).string().c_str()) << f;
    }
    void corpusLayouts()
    {
        QFETCH(std::string, file);
        FXL_REQUIRE_CORPUS(file);
        auto src = openSource(file);
        QVERIFY(src && !src->artifacts.empty());
        auto g = src->graph(src->artifacts.at(0).id);
        QVERIFY(g);
        auto be = makeCpuBackend();
        CorpusRunOptions o;
        o.family = familyTargets();
        o.makeInput = tensorFromMeta;
        o.onlyStridedTensorNodes = true;
        o.passRecordedMeta = true;
        o.checkStrides = true;
        const CorpusRunResult r = runCorpusFamily(*g, *be, o);
        QVERIFY2(r.failure.empty(), r.failure.c_str());
        std::string summary;
        for (const auto& [k, v] : r.perOp) summary += " " + k.substr(5) + "=" + std::to_string(v);
        const std::string name = fs::path(file).filename().string();
        qInfo("%s: %d distinct nodes checked:%s", name.c_str(), r.ran, summary.c_str());
        const int floor = corpusRunFloor(kCorpusFloors, file);
        QVERIFY2(floor >= 0, (name + ": no expected count in kCorpusFloors (a new corpus file?)").c_str());
        QVERIFY2(r.ran >= floor,
                 (name + ": " + std::to_string(r.ran) + " nodes checked, expected at least " + std::to_string(floor))
                     .c_str());
    }

    // A graph of every Core ATen op added for issue 14 (elementwise, reductions, padding):
    // `fxlens info` finds nothing it cannot run (support_check sees the registry), and the
    // executor runs it on CPU with PyTorch 1.13's output dtypes and sizes (from running the
    // same calls in PyTorch; any.dims as two any.dim calls there).
    void coreAtenAdditionsRunInAGraph()
    {
        const std::string text = "def forward(self, x):\n"
                                 "    asin = torch.ops.aten.asin.default(x)\n"
                                 "    acosh = torch.ops.aten.acosh.default(x)\n"
                                 "    asinh = torch.ops.aten.asinh.default(x)\n"
                                 "    atan = torch.ops.aten.atan.default(x)\n"
                                 "    atanh = torch.ops.aten.atanh.default(x)\n"
                                 "    cosh = torch.ops.aten.cosh.default(x)\n"
                                 "    sinh = torch.ops.aten.sinh.default(x)\n"
                                 "    tan = torch.ops.aten.tan.default(x)\n"
                                 "    log10 = torch.ops.aten.log10.default(x)\n"
                                 "    log2 = torch.ops.aten.log2.default(x)\n"
                                 "    atan2 = torch.ops.aten.atan2.default(x, asin)\n"
                                 "    gt = torch.ops.aten.gt.Scalar(x, 0)\n"
                                 "    lxor = torch.ops.aten.logical_xor.default(gt, x)\n"
                                 "    xi = torch.ops.aten._to_copy.default(x, dtype = torch.int64)\n"
                                 "    band = torch.ops.aten.bitwise_and.Scalar(xi, 3)\n"
                                 "    bor = torch.ops.aten.bitwise_or.Scalar(xi, 3)\n"
                                 "    bxor = torch.ops.aten.bitwise_xor.Scalar(xi, 3)\n"
                                 "    bxort = torch.ops.aten.bitwise_xor.Tensor(xi, band)\n"
                                 "    clampt = torch.ops.aten.clamp.Tensor(x, asin, cosh)\n"
                                 "    divm = torch.ops.aten.div.Scalar_mode(x, 2, rounding_mode = 'floor')\n"
                                 "    zi = torch.ops.aten.zeros_like.default(xi)\n"
                                 "    scat = torch.ops.aten.scatter.value(x, 1, zi, 1.5)\n"
                                 "    amin = torch.ops.aten.amin.default(x, [1])\n"
                                 "    argmin = torch.ops.aten.argmin.default(x, 1)\n"
                                 "    mind = torch.ops.aten.min.dim(x, 1)\n"
                                 "    minv = mind[0]\n"
                                 "    mini = mind[1]\n"
                                 "    anya = torch.ops.aten.any.default(x)\n"
                                 "    anyd = torch.ops.aten.any.dim(x, 1)\n"
                                 "    anyds = torch.ops.aten.any.dims(x, [1, 2])\n"
                                 "    prod = torch.ops.aten.prod.default(x)\n"
                                 "    prodd = torch.ops.aten.prod.dim_int(x, 2)\n"
                                 "    varc = torch.ops.aten.var.correction(x, [1], correction = 1)\n"
                                 "    vard = torch.ops.aten.var.dim(x, [1])\n"
                                 "    cpad = torch.ops.aten.constant_pad_nd.default(x, [1, 1, -1, 0])\n"
                                 "    v3 = torch.ops.aten.view.default(x, [6, 4, 5])\n"
                                 "    rp1 = torch.ops.aten.reflection_pad1d.default(v3, [1, 2])\n"
                                 "    rp2 = torch.ops.aten.reflection_pad2d.default(x, [1, 1, 2, 0])\n"
                                 "    v5 = torch.ops.aten.view.default(x, [1, 2, 3, 4, 5])\n"
                                 "    rp3 = torch.ops.aten.reflection_pad3d.default(v5, [1, 1, 1, 1, 1, 1])\n"
                                 "    pp2 = torch.ops.aten.replication_pad2d.default(x, [2, 0, 1, 3])\n"
                                 "    pp3 = torch.ops.aten.replication_pad3d.default(v5, [0, 1, 2, 0, 1, 1])\n"
                                 "    return (asin, acosh, asinh, atan, atanh, cosh, sinh, tan, log10, log2, atan2, "
                                 "lxor, band, bor, bxor, bxort, clampt, divm, scat, amin, argmin, minv, mini, anya, "
                                 "anyd, anyds, prod, prodd, varc, vard, cpad, rp1, rp2, rp3, pp2, pp3)\n";
        const Graph g = parseFxText(text, "additions.py");
        const auto missing = missingSupport(g);
        std::string why;
        for (const auto& m : missing) why += m.reason + "; ";
        QVERIFY2(missing.empty(), why.c_str());
        SafeTensorsFile in;
        SafeTensor x;
        x.name = "x";
        x.dtype = DType::F32;
        x.shape = {2, 3, 4, 5};
        const auto v = randomFloats(120, 51);
        x.data.resize(v.size() * sizeof(float));
        std::memcpy(x.data.data(), v.data(), x.data.size());
        in.tensors.push_back(x);
        auto be = makeCpuBackend(CpuBackendOptions{2});
        const graphtest::Run r = graphtest::runGraph(g, in, *be);
        const std::vector<std::string> want = {
            "f32[2, 3, 4, 5]", "f32[2, 3, 4, 5]",    "f32[2, 3, 4, 5]", "f32[2, 3, 4, 5]",
            "f32[2, 3, 4, 5]", "f32[2, 3, 4, 5]",    "f32[2, 3, 4, 5]", "f32[2, 3, 4, 5]",
            "f32[2, 3, 4, 5]", "f32[2, 3, 4, 5]",    "f32[2, 3, 4, 5]", "b8[2, 3, 4, 5]",
            "i64[2, 3, 4, 5]", "i64[2, 3, 4, 5]",    "i64[2, 3, 4, 5]", "i64[2, 3, 4, 5]",
            "f32[2, 3, 4, 5]", "f32[2, 3, 4, 5]",    "f32[2, 3, 4, 5]", "f32[2, 4, 5]",
            "i64[2, 4, 5]",    "f32[2, 4, 5]",       "i64[2, 4, 5]",    "b8[]",
            "b8[2, 4, 5]",     "b8[2, 5]",           "f32[]",           "f32[2, 3, 5]",
            "f32[2, 4, 5]",    "f32[2, 4, 5]",       "f32[2, 3, 3, 7]", "f32[6, 4, 8]",
            "f32[2, 3, 6, 7]", "f32[1, 2, 5, 6, 7]", "f32[2, 3, 8, 7]", "f32[1, 2, 5, 6, 6]"};
        QCOMPARE(r.outputs.tensors.size(), want.size());
        for (size_t k = 0; k < want.size(); ++k) {
            const SafeTensor& o = r.outputs.tensors[k];
            std::string got = std::string(dtypeAbbr(o.dtype)) + "[";
            for (size_t d = 0; d < o.shape.size(); ++d) got += (d ? ", " : "") + std::to_string(o.shape[d]);
            got += "]";
            QVERIFY2(got == want[k], ("output " + std::to_string(k) + ": " + got + ", want " + want[k]).c_str());
        }
        // any over 120 random normals is true
        QCOMPARE(int(r.outputs.tensors[23].data.at(0)), 1);
    }

    // Inputs PyTorch rejects are rejected with a KernelError, never a crash.
    void rejectsBadInputs()
    {
        auto be = makeCpuBackend();
        const auto v = randomFloats(6, 41);
        const Tensor f = f32Tensor(*be, {2, 3}, v);
        const Value b =
            runOp(*be, "aten._to_copy.default", {{"self", Value::ofTensor(f)}, {"dtype", dtypeValue(DType::Bool)}});
        const Value i =
            runOp(*be, "aten._to_copy.default", {{"self", Value::ofTensor(f)}, {"dtype", dtypeValue(DType::I64)}});
        const Tensor f3 = f32Tensor(*be, {3}, {1, 2, 3});
        auto T = [](const Tensor& t) { return Value::ofTensor(t); };
        QVERIFY_THROWS_EXCEPTION(KernelError, runOp(*be, "aten.sub.Tensor", {{"self", b}, {"other", b}}));
        QVERIFY_THROWS_EXCEPTION(KernelError,
                                 runOp(*be, "aten.sub.Tensor", {{"self", T(f)}, {"other", Value::ofBool(true)}}));
        QVERIFY_THROWS_EXCEPTION(KernelError, runOp(*be, "aten.neg.default", {{"self", b}}));
        QVERIFY_THROWS_EXCEPTION(KernelError,
                                 runOp(*be, "aten.pow.Tensor_Scalar", {{"self", i}, {"exponent", Value::ofInt(-1)}}));
        QVERIFY_THROWS_EXCEPTION(KernelError, runOp(*be, "aten.gelu.default", {{"self", i}}));
        QVERIFY_THROWS_EXCEPTION(KernelError, runOp(*be, "aten.bitwise_not.default", {{"self", T(f)}}));
        QVERIFY_THROWS_EXCEPTION(
            KernelError,
            runOp(*be, "aten.masked_fill.Scalar", {{"self", T(f)}, {"mask", T(f)}, {"value", Value::ofInt(0)}}));
        QVERIFY_THROWS_EXCEPTION(
            KernelError, runOp(*be, "aten.add.Tensor", {{"self", T(f)}, {"other", T(f32Tensor(*be, {2}, {1, 2}))}}));
        QVERIFY_THROWS_EXCEPTION(
            KernelError, runOp(*be, "aten.add.Tensor", {{"self", i}, {"other", i}, {"alpha", Value::ofFloat(0.5)}}));
        QVERIFY_THROWS_EXCEPTION(KernelError, runOp(*be, "aten.sub_.Tensor", {{"self", i}, {"other", T(f)}}));
        QVERIFY_THROWS_EXCEPTION(KernelError, runOp(*be, "aten.sub_.Tensor", {{"self", T(f3)}, {"other", T(f)}}));
        QVERIFY_THROWS_EXCEPTION(KernelError, runOp(*be, "aten.triu.default", {{"self", T(f3)}}));
        QVERIFY_THROWS_EXCEPTION(KernelError,
                                 runOp(*be, "aten.fill.Scalar", {{"self", i}, {"value", Value::ofFloat(1e30)}}));
        QVERIFY_THROWS_EXCEPTION(
            KernelError,
            runOp(*be, "aten.arange.start_step",
                  {{"start", Value::ofInt(0)}, {"end", Value::ofInt(5)}, {"step", Value::ofInt(0)}}));
        QVERIFY_THROWS_EXCEPTION(
            KernelError,
            runOp(*be, "aten.arange.start_step",
                  {{"start", Value::ofInt(5)}, {"end", Value::ofInt(0)}, {"step", Value::ofInt(1)}}));
        QVERIFY_THROWS_EXCEPTION(KernelError,
                                 runOp(*be, "aten.full.default",
                                       {{"size", Value::ofList({Value::ofInt(-1)})}, {"fill_value", Value::ofInt(0)}}));
        // the issue 14 additions
        QVERIFY_THROWS_EXCEPTION(KernelError,
                                 runOp(*be, "aten.bitwise_xor.Scalar", {{"self", T(f)}, {"other", Value::ofInt(1)}}));
        QVERIFY_THROWS_EXCEPTION(KernelError,
                                 runOp(*be, "aten.bitwise_and.Scalar", {{"self", i}, {"other", Value::ofFloat(1.5)}}));
        QVERIFY_THROWS_EXCEPTION(KernelError, runOp(*be, "aten.clamp.Tensor", {{"self", T(f)}}));
        QVERIFY_THROWS_EXCEPTION(KernelError, runOp(*be, "aten.clamp.Tensor", {{"self", b}, {"min", b}, {"max", b}}));
        QVERIFY_THROWS_EXCEPTION(
            KernelError,
            runOp(*be, "aten.div.Scalar_mode", {{"self", i}, {"other", Value::ofInt(0)}, {"rounding_mode", [] {
                                                                                              Value s;
                                                                                              s.kind = Value::Kind::Str;
                                                                                              s.s = "floor";
                                                                                              return s;
                                                                                          }()}}));
        {
            const Value h =
                runOp(*be, "aten._to_copy.default", {{"self", Value::ofTensor(f)}, {"dtype", dtypeValue(DType::F16)}});
            const Tensor idx = be->empty({1, 3}, DType::I64);
            std::memset(idx.rawData(), 0, 24);  // index 0 everywhere
            QVERIFY_THROWS_EXCEPTION(KernelError,
                                     runOp(*be, "aten.scatter.value",
                                           {{"self", h},
                                            {"dim", Value::ofInt(0)},
                                            {"index", Value::ofTensor(idx)},
                                            {"value", Value::ofFloat(1e5)}}));
        }
        QVERIFY_THROWS_EXCEPTION(
            KernelError, runOp(*be, "aten.atan2.default", {{"self", T(f)}, {"other", T(f32Tensor(*be, {2}, {1, 2}))}}));
        QVERIFY_THROWS_EXCEPTION(KernelError,
                                 runOp(*be, "aten.gelu.default", {{"self", T(f)}, {"approximate", [] {
                                                                                       Value s;
                                                                                       s.kind = Value::Kind::Str;
                                                                                       s.s = "fast";
                                                                                       return s;
                                                                                   }()}}));
    }
};

FXL_TEST_APPLESS_MAIN(TestElementwise)
}  // namespace test_elementwise
#include "test_elementwise.moc"

// The executor's flex_attention / flex_attention_backward (runtime/composite/flex_attention.hpp)
// against float64 references of PyTorch's dense math definition
// (tests/runtime/gen_flex_attention_refs.py -> tests/data/flex/): each case's graph is built
// here from its score_mod / mask_mod names (aten-level sub-graphs as make_fx traces them);
// f32 within rtol 1e-5 / atol 1e-6, f64 within 1e-12, bf16 within 2^-7 relative + 2^-7
// absolute, f16 within 2^-9 + 2^-9 (their logsumexp, computed in f32: f32 bounds); fully
// masked rows give out 0 and logsumexp -inf. A batch alone gives the bits it has inside a
// bigger batch; 1 and 2 threads give the same bits; shape propagation gives the outputs'
// shapes and dtypes; the corpus graphs with flex_attention (tlparse/cache_hit_miss.log) run
// with seed 1, repeatably, with the shapes their meta records and the memory timeline's peak.
// The scaled_dot_product_attention kernels (runtime/composite/sdpa_kernels.hpp: the pre-dispatch op, the
// flash (CPU and CUDA) and efficient forms with their backward) against float64 references of
// PyTorch's math definition (tests/runtime/gen_sdpa_refs.py -> tests/data/sdpa/), with the same
// bounds, batch invariance, thread and meta checks, their errors and the Dynamo-level function.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/analysis/memory_timeline.hpp"
#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/safetensors.hpp"
#include "core/formats/source.hpp"
#include "core/ops/shape_prop.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/cpu/cpu_common.hpp"
#include "runtime/exec/executor.hpp"
#include "runtime/exec/support_check.hpp"

#include "graph_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_flex_attention {

using namespace fxl;
using namespace graphtest;
namespace fs = std::filesystem;

namespace {

const fs::path kData = fxltest::testDataPath("flex");

// A reference folder of tests/data: DIR/cases.json (its "cases") and DIR/REFS.safetensors.
struct Refs
{
    nlohmann::json cases;
    SafeTensorsFile tensors;
    Refs(const fs::path& dir, const std::string& refsFile)
    {
        std::ifstream f(dir / "cases.json");
        if (!f) throw std::runtime_error("missing " + (dir / "cases.json").string());
        cases = nlohmann::json::parse(f)["cases"];
        tensors = readSafetensors((dir / refsFile).string());
    }
    const nlohmann::json& c(const std::string& id) const
    {
        for (const auto& j : cases)
            if (j["id"] == id) return j;
        throw std::runtime_error("no case " + id);
    }
    const SafeTensor& t(const std::string& key) const
    {
        const SafeTensor* st = tensors.find(key);
        if (!st) throw std::runtime_error("no reference tensor " + key);
        return *st;
    }
};
const Refs& refs()
{
    static const Refs r(kData, "flex_refs.safetensors");
    return r;
}

std::string ann(const std::string& dt, const std::vector<int64_t>& s)
{
    std::string a = "\"" + dt + "[";
    for (size_t k = 0; k < s.size(); ++k) a += (k ? ", " : "") + std::to_string(s[k]);
    return a + "]\"";
}

std::string scoreModBody(const std::string& name, const std::string& wp, bool buffer)
{
    std::string sig =
        "arg0_1: \"" + wp + "[]\", arg1_1: \"i32[]\", arg2_1: \"i32[]\", arg3_1: \"i32[]\", arg4_1: \"i32[]\"";
    if (buffer) sig += ", arg5_1: \"f32[4]\"";
    std::string body;
    const std::string f = "\"" + wp + "[]\"";
    if (name == "identity")
        body = "            return arg0_1\n";
    else if (name == "relpos")
        body = "            sub: \"i32[]\" = torch.ops.aten.sub.Tensor(arg3_1, arg4_1)\n"
               "            add: "
            + f + " = torch.ops.aten.add.Tensor(arg0_1, sub)\n            return add\n";
    else if (name == "scaled_relpos")
        body = "            mul: " + f + " = torch.ops.aten.mul.Tensor(arg0_1, 0.5)\n"
            + "            sub: \"i32[]\" = torch.ops.aten.sub.Tensor(arg3_1, arg4_1)\n" + "            add: " + f
            + " = torch.ops.aten.add.Tensor(mul, sub)\n            return add\n";
    else if (name == "head_batch")
        body = "            sub: \"i32[]\" = torch.ops.aten.sub.Tensor(arg2_1, arg1_1)\n"
               "            add: "
            + f + " = torch.ops.aten.add.Tensor(arg0_1, sub)\n            return add\n";
    else if (name == "head_bias")
        body = "            index: \"f32[]\" = torch.ops.aten.index.Tensor(arg5_1, [arg2_1])\n"
               "            add: "
            + f + " = torch.ops.aten.add.Tensor(arg0_1, index)\n            return add\n";
    else
        throw std::runtime_error("no score_mod " + name);
    return "        def forward(self, " + sig + "):\n" + body;
}

std::string jointBody(const std::string& name, const std::string& wp)
{
    const std::string f = "\"" + wp + "[]\"";
    std::string body = "        def forward(self, arg0_1: " + f
        + ", arg1_1: \"i32[]\", arg2_1: \"i32[]\", arg3_1: \"i32[]\", arg4_1: \"i32[]\", arg5_1: " + f + "):\n";
    if (name == "scaled_relpos")
        return body + "            mul: " + f
            + " = torch.ops.aten.mul.Tensor(arg5_1, 0.5)\n            return [mul, None, None, None, None]\n";
    return body + "            return [arg5_1, None, None, None, None]\n";
}

std::string maskModBody(const std::string& name)
{
    std::string body;
    if (name == "none")
        body = "            new_ones: \"b8[]\" = torch.ops.aten.new_ones.default(arg0_1, [], dtype = torch.bool)\n"
               "            return new_ones\n";
    else if (name == "causal")
        body = "            ge: \"b8[]\" = torch.ops.aten.ge.Tensor(arg2_1, arg3_1)\n            return ge\n";
    else if (name == "strict_causal")
        body = "            lt: \"b8[]\" = torch.ops.aten.lt.Tensor(arg3_1, arg2_1)\n            return lt\n";
    else if (name == "sliding")
        body = "            ge: \"b8[]\" = torch.ops.aten.ge.Tensor(arg2_1, arg3_1)\n"
               "            sub: \"i32[]\" = torch.ops.aten.sub.Tensor(arg2_1, arg3_1)\n"
               "            lt: \"b8[]\" = torch.ops.aten.lt.Scalar(sub, 4)\n"
               "            and_1: \"b8[]\" = torch.ops.aten.bitwise_and.Tensor(ge, lt)\n"
               "            return and_1\n";
    else
        throw std::runtime_error("no mask_mod " + name);
    return "        def forward(self, arg0_1: \"i32[]\", arg1_1: \"i32[]\", arg2_1: \"i32[]\", arg3_1: \"i32[]\"):\n"
        + body;
}

std::string dtypeAbbrOf(const std::string& torchName)
{
    if (torchName == "float32") return "f32";
    if (torchName == "float64") return "f64";
    if (torchName == "bfloat16") return "bf16";
    if (torchName == "float16") return "f16";
    throw std::runtime_error("dtype " + torchName);
}

// The graph of a case (its batch size replaced by `batch` when given): flex_attention with the
// case's score_mod / mask_mod, then flex_attention_backward on its outputs when the case has a
// backward. Outputs: out, lse[, dq, dk, dv].
std::string caseGraph(const nlohmann::json& c, int64_t batch = -1)
{
    auto i = [&](const char* k) { return c[k].get<int64_t>(); };
    const int64_t B = batch > 0 ? batch : i("B"), Hq = i("Hq"), Hkv = i("Hkv"), L = i("L"), S = i("S"), E = i("E"),
                  Ev = i("Ev");
    const int64_t Bkv = i("Bkv") == 1 ? 1 : B;
    const std::string dt = dtypeAbbrOf(c["dtype"].get<std::string>()), wp = dt == "f64" ? "f64" : "f32";
    const std::string scoreMod = c["score_mod"].get<std::string>();
    const bool buffer = scoreMod == "head_bias", backward = c["backward"].get<bool>();
    char scale[64];
    std::snprintf(scale, sizeof scale, "%.17g", c["scale"].get<double>());
    std::ostringstream g;
    g << "class GraphModule(torch.nn.Module):\n    def forward(self, q: " << ann(dt, {B, Hq, L, E})
      << ", k: " << ann(dt, {Bkv, Hkv, S, E}) << ", v: " << ann(dt, {Bkv, Hkv, S, Ev})
      << ", kv_num_blocks: \"i32[1, 1, 1]\", kv_indices: \"i32[1, 1, 1, 1]\"";
    if (buffer) g << ", bias: \"f32[" << Hq << "]\"";
    if (backward) g << ", grad_out: " << ann(dt, {B, Hq, L, Ev}) << ", grad_lse: " << ann("f32", {B, Hq, L});
    g << "):\n";
    const std::string blockMask =
        "(kv_num_blocks, kv_indices, None, None, None, None, None, None, 128, 128, sdpa_mask0)";
    g << "        sdpa_score0 = self.sdpa_score0\n        sdpa_mask0 = self.sdpa_mask0\n";
    g << "        flex_attention = torch.ops.higher_order.flex_attention(q, k, v, sdpa_score0, " << blockMask << ", "
      << scale << ", {'PRESCALE_QK': False, 'OUTPUT_LOGSUMEXP': True}, (" << (buffer ? "bias," : "") << "), ())\n";
    g << "        out: " << ann(dt, {B, Hq, L, Ev}) << " = flex_attention[0]\n";
    g << "        lse: " << ann(wp, {B, Hq, L}) << " = flex_attention[1]\n";
    if (backward) {
        g << "        fw_graph0 = self.fw_graph0\n        joint_graph0 = self.joint_graph0\n";
        g << "        flex_attention_backward = torch.ops.higher_order.flex_attention_backward(q, k, v, out, lse, "
             "grad_out, grad_lse, fw_graph0, joint_graph0, "
          << blockMask << ", " << scale << ", {}, (), ())\n";
        g << "        dq: " << ann(dt, {B, Hq, L, E}) << " = flex_attention_backward[0]\n";
        g << "        dk: " << ann(dt, {Bkv, Hkv, S, E}) << " = flex_attention_backward[1]\n";
        g << "        dv: " << ann(dt, {Bkv, Hkv, S, Ev}) << " = flex_attention_backward[2]\n";
        g << "        return (out, lse, dq, dk, dv)\n";
    } else {
        g << "        return (out, lse)\n";
    }
    g << "\n    class sdpa_score0(torch.nn.Module):\n" << scoreModBody(scoreMod, wp, buffer);
    g << "\n    class sdpa_mask0(torch.nn.Module):\n" << maskModBody(c["mask_mod"].get<std::string>());
    if (backward) {
        g << "\n    class fw_graph0(torch.nn.Module):\n" << scoreModBody(scoreMod, wp, false);
        g << "\n    class joint_graph0(torch.nn.Module):\n" << jointBody(scoreMod, wp);
    }
    return g.str();
}

// The case's inputs from the reference file (block-mask tensors: zeros).
SafeTensorsFile caseInputs(const nlohmann::json& c)
{
    const std::string id = c["id"].get<std::string>();
    SafeTensorsFile in;
    auto add = [&](const std::string& name, const std::string& key) {
        SafeTensor st = refs().t(id + "/" + key);
        st.name = name;
        in.tensors.push_back(std::move(st));
    };
    add("q", "q");
    add("k", "k");
    add("v", "v");
    SafeTensor nb{"kv_num_blocks", DType::I32, {1, 1, 1}, std::vector<uint8_t>(4, 0)};
    SafeTensor ni{"kv_indices", DType::I32, {1, 1, 1, 1}, std::vector<uint8_t>(4, 0)};
    in.tensors.push_back(nb);
    in.tensors.push_back(ni);
    if (c["score_mod"].get<std::string>() == "head_bias") add("bias", "bias");
    if (c["backward"].get<bool>()) {
        add("grad_out", "grad_out");
        add("grad_lse", "grad_lse");
    }
    return in;
}

// Elements [from, from + count) of dim 0 of st.
SafeTensor sliceDim0(const SafeTensor& st, int64_t from, int64_t count)
{
    SafeTensor r = st;
    const size_t row = st.data.size() / static_cast<size_t>(st.shape.at(0));
    r.shape[0] = count;
    r.data.assign(st.data.begin() + static_cast<std::ptrdiff_t>(row * static_cast<size_t>(from)),
                  st.data.begin() + static_cast<std::ptrdiff_t>(row * static_cast<size_t>(from + count)));
    return r;
}

std::vector<double> asDoubles(const SafeTensor& st)
{
    const size_t item = static_cast<size_t>(dtypeItemSize(st.dtype));
    std::vector<double> v(st.data.size() / item);
    for (size_t i = 0; i < v.size(); ++i) v[i] = cpu::loadAsDouble(st.data.data() + i * item, st.dtype);
    return v;
}

// Max |got - ref| / (atol + rtol |ref|) (<= 1 passes); infinities must match exactly.
double worstRatio(const SafeTensor& got, const SafeTensor& ref, double rtol, double atol, std::string& where)
{
    const std::vector<double> g = asDoubles(got), r = asDoubles(ref);
    if (g.size() != r.size()) {
        where = "size " + std::to_string(g.size()) + " vs " + std::to_string(r.size());
        return std::numeric_limits<double>::infinity();
    }
    double worst = 0;
    for (size_t i = 0; i < g.size(); ++i) {
        double ratio;
        if (std::isinf(r[i]) || std::isinf(g[i]) || std::isnan(g[i]))
            ratio = g[i] == r[i] ? 0.0 : std::numeric_limits<double>::infinity();
        else
            ratio = std::abs(g[i] - r[i]) / (atol + rtol * std::abs(r[i]));
        if (ratio > worst) {
            worst = ratio;
            where = "element " + std::to_string(i) + ": " + std::to_string(g[i]) + " vs " + std::to_string(r[i]);
        }
    }
    return worst;
}

// A run on a CPU backend of `threads` threads made for it (the result holds it).
Run runCase(const Graph& g, const SafeTensorsFile& in, int threads = 2)
{
    ExecOptions opts;
    opts.threads = threads;
    opts.inputs = &in;
    opts.requireAllInputs = true;
    Run r;
    r.result = executeGraph(g, opts);
    r.outputs = outputsToSafetensors(r.result, *r.result.ownedBackend);
    return r;
}

const fs::path kCorpusLog = fxltest::corpusPath("tlparse/cache_hit_miss.log");

// ---- scaled_dot_product_attention (runtime/composite/sdpa_kernels.hpp) against
// tests/runtime/gen_sdpa_refs.py -> tests/data/sdpa/

const fs::path kSdpaData = fxltest::testDataPath("sdpa");

const Refs& sdpaRefs()
{
    static const Refs r(kSdpaData, "sdpa_refs.safetensors");
    return r;
}

// The names of a case's outputs, in the graph's return order.
std::vector<std::string> sdpaOutputNames(const nlohmann::json& c)
{
    const std::string op = c["op"].get<std::string>();
    if (op == "sdpa") return {"out"};
    if (!c["backward"].get<bool>()) return {"out", "lse"};
    std::vector<std::string> n{"out", "lse", "dq", "dk", "dv"};
    if (c["mask"].get<std::string>() == "bias") n.push_back("dbias");
    return n;
}

// The graph of a case (batch replaced by `batch` when given): the op, its backward on its
// outputs when the case has one. `dropout` replaces dropout_p (the error rows).
std::string sdpaGraph(const nlohmann::json& c, int64_t batch = -1, const std::string& dropout = "0.0")
{
    auto i = [&](const char* k) { return c[k].get<int64_t>(); };
    const int64_t B = batch > 0 ? batch : i("B"), Hq = i("Hq"), Hkv = i("Hkv"), L = i("L"), S = i("S"), E = i("E"),
                  Ev = i("Ev");
    const std::string dt = dtypeAbbrOf(c["dtype"].get<std::string>()), op = c["op"].get<std::string>(),
                      mask = c["mask"].get<std::string>();
    const bool causal = c["causal"].get<bool>(), backward = c["backward"].get<bool>();
    const std::string isCausal = causal ? "True" : "False";
    std::string scale;
    if (!c["scale"].is_null()) {
        char buf[64];
        std::snprintf(buf, sizeof buf, ", scale = %.17g", c["scale"].get<double>());
        scale = buf;
    }
    std::ostringstream g;
    g << "class GraphModule(torch.nn.Module):\n    def forward(self, q: " << ann(dt, {B, Hq, L, E})
      << ", k: " << ann(dt, {B, Hkv, S, E}) << ", v: " << ann(dt, {B, Hkv, S, Ev});
    if (mask == "bool") g << ", mask: " << ann("b8", {L, S});
    if (mask == "float") g << ", mask: " << ann(dt, {L, S});
    if (mask == "bias") g << ", mask: " << ann(dt, {B, Hq, L, S});
    if (backward) g << ", grad_out: " << ann(dt, {B, Hq, L, Ev});
    g << "):\n";
    const std::string m = mask == "none" ? "None" : "mask", outAnn = ann(dt, {B, Hq, L, Ev});
    std::string lseAnn = ann("f32", {B, Hq, L}), bw;
    if (op == "sdpa") {
        g << "        out: " << outAnn << " = torch.ops.aten.scaled_dot_product_attention.default(q, k, v, " << m
          << ", " << dropout << ", " << isCausal << scale << (Hq != Hkv ? ", enable_gqa = True" : "") << ")\n";
        g << "        return (out,)\n";
        return g.str();
    }
    if (op == "flash_cpu") {
        g << "        r = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default(q, k, v, " << dropout
          << ", " << isCausal << ", attn_mask = " << m << scale << ")\n";
        bw = "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward.default(grad_out, q, k, v, out, lse, "
            + dropout + ", " + isCausal + ", attn_mask = " + m + scale + ")";
    } else if (op == "flash") {
        g << "        r = torch.ops.aten._scaled_dot_product_flash_attention.default(q, k, v, " << dropout << ", "
          << isCausal << ", False" << scale << ")\n";
        g << "        seed: \"i64[]\" = r[6]\n        offset: \"i64[]\" = r[7]\n";
        bw = "torch.ops.aten._scaled_dot_product_flash_attention_backward.default(grad_out, q, k, v, out, lse, None, "
             "None, "
            + std::to_string(L) + ", " + std::to_string(S) + ", " + dropout + ", " + isCausal + ", seed, offset" + scale
            + ")";
    } else {
        g << "        r = torch.ops.aten._scaled_dot_product_efficient_attention.default(q, k, v, " << m << ", True, "
          << dropout << ", " << isCausal << scale << ")\n";
        g << "        seed: \"i64[]\" = r[2]\n        offset: \"i64[]\" = r[3]\n";
        lseAnn = ann("f32", {B, Hq, (L + 31) / 32 * 32});
        bw = "torch.ops.aten._scaled_dot_product_efficient_attention_backward.default(grad_out, q, k, v, " + m
            + ", out, lse, seed, offset, " + dropout + ", [True, True, True, " + (mask == "bias" ? "True" : "False")
            + "], " + isCausal + scale + ")";
    }
    g << "        out: " << outAnn << " = r[0]\n        lse: " << lseAnn << " = r[1]\n";
    if (!backward) {
        g << "        return (out, lse)\n";
        return g.str();
    }
    g << "        b = " << bw << "\n";
    g << "        dq: " << ann(dt, {B, Hq, L, E}) << " = b[0]\n";
    g << "        dk: " << ann(dt, {B, Hkv, S, E}) << " = b[1]\n";
    g << "        dv: " << ann(dt, {B, Hkv, S, Ev}) << " = b[2]\n";
    if (mask == "bias") {
        g << "        dbias: " << ann(dt, {B, Hq, L, S}) << " = b[3]\n";
        g << "        return (out, lse, dq, dk, dv, dbias)\n";
    } else {
        g << "        return (out, lse, dq, dk, dv)\n";
    }
    return g.str();
}

SafeTensorsFile sdpaInputs(const nlohmann::json& c)
{
    const std::string id = c["id"].get<std::string>();
    SafeTensorsFile in;
    for (const char* name : {"q", "k", "v", "mask", "grad_out"}) {
        if (std::string(name) == "mask" && c["mask"].get<std::string>() == "none") continue;
        if (std::string(name) == "grad_out" && !c["backward"].get<bool>()) continue;
        SafeTensor st = sdpaRefs().t(id + "/" + name);
        st.name = name;
        in.tensors.push_back(std::move(st));
    }
    return in;
}

// The efficient form's logsumexp [B, H, pad32(L)]: the first L of each row (the rest must be
// +inf, as its CUDA kernel pads it).
SafeTensor unpadLse(const SafeTensor& lse, int64_t L, bool& padOk)
{
    const int64_t rows = lse.shape[0] * lse.shape[1], P = lse.shape[2];
    SafeTensor r = lse;
    r.shape[2] = L;
    r.data.clear();
    padOk = true;
    for (int64_t k = 0; k < rows; ++k) {
        const uint8_t* row = lse.data.data() + k * P * 4;
        r.data.insert(r.data.end(), row, row + L * 4);
        for (int64_t j = L; j < P; ++j) {
            float f;
            std::memcpy(&f, row + j * 4, 4);
            padOk = padOk && std::isinf(f) && f > 0;
        }
    }
    return r;
}

}  // namespace

class TestFlexAttention : public QObject
{
    Q_OBJECT

private slots:
    void matchesReference_data()
    {
        QTest::addColumn<std::string>("id");
        for (const auto& c : refs().cases) {
            const std::string id = c["id"].get<std::string>();
            QTest::newRow(id.c_str()) << id;
        }
    }
    void matchesReference()
    {
        QFETCH(std::string, id);
        const nlohmann::json& c = refs().c(id);
        const Graph g = parseFxText(caseGraph(c), id);
        Run r;
        try {
            r = runCase(g, caseInputs(c));
        } catch (const std::exception& e) {
            QFAIL(e.what());
        }
        const bool backward = c["backward"].get<bool>();
        QCOMPARE(r.outputs.tensors.size(), size_t(backward ? 5 : 2));
        // the HOPs' outputs allocated as the memory timeline counts them
        const MemoryTimeline t = computeMemoryTimeline(g);
        QVERIFY(t.unknownSizes.empty());
        QCOMPARE(r.result.peakBytes, t.peakBytes);
        QCOMPARE(r.result.liveBytesPerStep.size(), t.steps.size());
        for (size_t k = 0; k < t.steps.size(); ++k) QCOMPARE(r.result.liveBytesPerStep[k], t.steps[k].liveBytes);
        const std::string dt = c["dtype"].get<std::string>();
        double rtol = 1e-5, atol = 1e-6;
        if (dt == "float64") rtol = atol = 1e-12;
        if (dt == "bfloat16") rtol = atol = 1.0 / 128;
        if (dt == "float16") rtol = atol = 1.0 / 512;
        const char* names[] = {"out", "lse", "dq", "dk", "dv"};
        DType expected = DType::F32;
        if (dt == "float64") expected = DType::F64;
        if (dt == "bfloat16") expected = DType::BF16;
        if (dt == "float16") expected = DType::F16;
        QCOMPARE(r.outputs.tensors[0].dtype, expected);
        QCOMPARE(r.outputs.tensors[1].dtype, dt == "float64" ? DType::F64 : DType::F32);
        for (size_t k = 0; k < r.outputs.tensors.size(); ++k) {
            const SafeTensor& ref = refs().t(id + "/ref_" + names[k]);
            QCOMPARE(r.outputs.tensors[k].shape, ref.shape);
            std::string where;
            // the logsumexp is computed in f32 for bf16 / f16 inputs: f32 bounds
            const bool f32Lse = k == 1 && (dt == "bfloat16" || dt == "float16");
            const double ratio =
                worstRatio(r.outputs.tensors[k], ref, f32Lse ? 1e-5 : rtol, f32Lse ? 1e-6 : atol, where);
            qDebug("%s %s: worst error / bound %.3g (%s)", id.c_str(), names[k], ratio, where.c_str());
            QVERIFY2(ratio <= 1.0, (std::string(names[k]) + " " + where).c_str());
        }
        if (id == "masked_row") {
            // strict causal: query row 0 sees no key; out 0, logsumexp -inf (per head)
            const std::vector<double> out = asDoubles(r.outputs.tensors[0]), lse = asDoubles(r.outputs.tensors[1]);
            const int64_t L = c["L"].get<int64_t>(), Ev = c["Ev"].get<int64_t>(), H = c["Hq"].get<int64_t>();
            for (int64_t h = 0; h < H; ++h) {
                QCOMPARE(lse[static_cast<size_t>(h * L)], -std::numeric_limits<double>::infinity());
                QVERIFY(std::isfinite(lse[static_cast<size_t>(h * L + 1)]));
                for (int64_t e = 0; e < Ev; ++e) QCOMPARE(out[static_cast<size_t>(h * L * Ev + e)], 0.0);
            }
        }
    }

    // One batch element computed alone gives the bits it has inside the batch.
    void batchInvariant_data()
    {
        QTest::addColumn<std::string>("id");
        QTest::addColumn<int>("batch");
        QTest::newRow("causal/b1") << std::string("causal") << 1;
        QTest::newRow("gqa/b0") << std::string("gqa") << 0;  // score + (h - b): only b 0 alone sees the same b
        QTest::newRow("identity/b1") << std::string("identity") << 1;
    }
    void batchInvariant()
    {
        QFETCH(std::string, id);
        QFETCH(int, batch);
        const nlohmann::json& c = refs().c(id);
        const SafeTensorsFile all = caseInputs(c);
        SafeTensorsFile one = all;
        for (auto& st : one.tensors)
            if (st.name != "kv_num_blocks" && st.name != "kv_indices") st = sliceDim0(st, batch, 1);
        const Graph gAll = parseFxText(caseGraph(c), id), gOne = parseFxText(caseGraph(c, 1), id + "_1");
        const Run ra = runCase(gAll, all), ro = runCase(gOne, one);
        QCOMPARE(ro.outputs.tensors.size(), ra.outputs.tensors.size());
        for (size_t k = 0; k < ra.outputs.tensors.size(); ++k) {
            const SafeTensor part = sliceDim0(ra.outputs.tensors[k], batch, 1);
            QCOMPARE(ro.outputs.tensors[k].shape, part.shape);
            QVERIFY2(ro.outputs.tensors[k].data == part.data, ("output " + std::to_string(k)).c_str());
        }
    }

    void sameBitsAtOneAndTwoThreads_data()
    {
        QTest::addColumn<std::string>("id");
        for (const char* id : {"relpos_causal", "gqa_bcast", "bf16_relpos", "buffer"})
            QTest::newRow(id) << std::string(id);
    }
    void sameBitsAtOneAndTwoThreads()
    {
        QFETCH(std::string, id);
        const nlohmann::json& c = refs().c(id);
        const Graph g = parseFxText(caseGraph(c), id);
        const SafeTensorsFile in = caseInputs(c);
        const Run r1 = runCase(g, in, 1), r2 = runCase(g, in, 2);
        QCOMPARE(r1.outputs.tensors.size(), r2.outputs.tensors.size());
        for (size_t k = 0; k < r1.outputs.tensors.size(); ++k)
            QVERIFY(r1.outputs.tensors[k].data == r2.outputs.tensors[k].data);
    }

    // A graph that reads a third output (PyTorch 2.9+'s max_scores) gets each row's largest
    // post-mod score / ln 2, -inf for a fully masked row.
    void maxScores_data()
    {
        QTest::addColumn<std::string>("id");
        for (const char* id : {"masked_row", "gqa", "f64_relpos"}) QTest::newRow(id) << std::string(id);
    }
    void maxScores()
    {
        QFETCH(std::string, id);
        const nlohmann::json& c = refs().c(id);
        std::string text = caseGraph(c);
        const std::string ret =
            c["backward"].get<bool>() ? "        return (out, lse, dq, dk, dv)\n" : "        return (out, lse)\n";
        const size_t at = text.find(ret);
        QVERIFY(at != std::string::npos);
        text.replace(at, ret.size(), "        mx = flex_attention[2]\n        return (out, lse, mx)\n");
        Graph g = parseFxText(text, id);
        const Run r = runCase(g, caseInputs(c));
        QCOMPARE(r.outputs.tensors.size(), size_t(3));
        std::string where;
        const double ratio = worstRatio(r.outputs.tensors[2], refs().t(id + "/ref_max"), 1e-6, 1e-6, where);
        QVERIFY2(ratio <= 1.0, where.c_str());
        QCOMPARE(r.outputs.tensors[2].dtype, r.outputs.tensors[1].dtype);
        // the timeline allocates the three outputs as the executor does
        const MemoryTimeline t = computeMemoryTimeline(g);
        QCOMPARE(r.result.peakBytes, t.peakBytes);
        // shape propagation: a three-item value
        ShapePropOptions o;
        o.overwrite = true;
        QVERIFY(propagateShapes(g, o).problems.empty());
        QCOMPARE(g.node(g.findByName("flex_attention")).val.elems.size(), size_t(3));
    }

    // Wrong shapes and sub-graphs give a KernelError naming the node and the rule.
    void errors_data()
    {
        QTest::addColumn<std::string>("from");
        QTest::addColumn<std::string>("to");
        QTest::addColumn<std::string>("message");
        QTest::newRow("heads") << std::string("q: \"f32[2, 2, 8, 16]\"") << std::string("q: \"f32[2, 3, 8, 16]\"")
                               << std::string("must be a multiple of the key/value heads");
        QTest::newRow("mask dtype") << std::string("dtype = torch.bool") << std::string("dtype = torch.int32")
                                    << std::string("must return a bool tensor");
    }
    void errors()
    {
        QFETCH(std::string, from);
        QFETCH(std::string, to);
        QFETCH(std::string, message);
        const nlohmann::json& c = refs().c("identity");
        std::string text = caseGraph(c);
        const size_t at = text.find(from);
        QVERIFY(at != std::string::npos);
        text.replace(at, from.size(), to);
        const Graph g = parseFxText(text, "errors");
        ExecOptions o;
        o.inputSeed = 1;
        try {
            executeGraph(g, o);
            QFAIL("no error");
        } catch (const KernelError& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("node 'flex_attention'") != std::string::npos, what.c_str());
            QVERIFY2(what.find(message) != std::string::npos, what.c_str());
        }
    }

    // Shape propagation gives the HOPs' values: (out, logsumexp) and (dq, dk, dv, ()), with
    // the shapes and dtypes the runtime produces.
    void meta_data()
    {
        QTest::addColumn<std::string>("id");
        for (const char* id : {"gqa_bcast", "f64_relpos", "bf16_relpos"}) QTest::newRow(id) << std::string(id);
    }
    void meta()
    {
        QFETCH(std::string, id);
        const nlohmann::json& c = refs().c(id);
        Graph g = parseFxText(caseGraph(c), id);
        ShapePropOptions o;
        o.overwrite = true;
        const ShapePropResult pr = propagateShapes(g, o);
        QVERIFY2(pr.problems.empty(), pr.problems.empty() ? "" : pr.problems[0].c_str());
        const Run r = runCase(g, caseInputs(c));
        const Node& fw = g.node(g.findByName("flex_attention"));
        QCOMPARE(fw.val.kind, ValueMeta::Kind::Tuple);
        QCOMPARE(fw.val.elems.size(), size_t(2));
        const Node& bw = g.node(g.findByName("flex_attention_backward"));
        QCOMPARE(bw.val.kind, ValueMeta::Kind::Tuple);
        QCOMPARE(bw.val.elems.size(), size_t(4));
        QCOMPARE(bw.val.elems[3].kind, ValueMeta::Kind::Tuple);
        const ValueMeta* metas[] = {&fw.val.elems[0], &fw.val.elems[1], &bw.val.elems[0], &bw.val.elems[1],
                                    &bw.val.elems[2]};
        QCOMPARE(r.outputs.tensors.size(), size_t(5));
        for (size_t k = 0; k < 5; ++k) {
            QVERIFY(metas[k]->isTensor());
            std::vector<int64_t> sizes;
            for (const auto& s : metas[k]->tensor.sizes) sizes.push_back(s.valueOrHint());
            QCOMPARE(sizes, r.outputs.tensors[k].shape);
            QCOMPARE(metas[k]->tensor.dtype, r.outputs.tensors[k].dtype);
        }
    }

    // ---- scaled_dot_product_attention in its aten forms (runtime/composite/sdpa_kernels.hpp):
    // f32 within rtol 1e-5 / atol 1e-6, f64 within 1e-12, bf16 within 2^-7, f16 within 2^-9
    // (the logsumexp is f32 in every form: f32 bounds, also for the f64 gradients computed
    // from it); a fully masked row gives out 0 and
    // logsumexp -inf; the graphs have nothing the runtime lacks.
    void sdpaMatchesReference_data()
    {
        QTest::addColumn<std::string>("id");
        for (const auto& c : sdpaRefs().cases) {
            const std::string id = c["id"].get<std::string>();
            QTest::newRow(id.c_str()) << id;
        }
    }
    void sdpaMatchesReference()
    {
        QFETCH(std::string, id);
        const nlohmann::json& c = sdpaRefs().c(id);
        const Graph g = parseFxText(sdpaGraph(c), id);
        QVERIFY(missingSupport(g, DeviceKind::Cpu).empty());
        Run r;
        try {
            r = runCase(g, sdpaInputs(c));
        } catch (const std::exception& e) {
            QFAIL(e.what());
        }
        const std::vector<std::string> names = sdpaOutputNames(c);
        QCOMPARE(r.outputs.tensors.size(), names.size());
        const std::string dt = c["dtype"].get<std::string>();
        double rtol = 1e-5, atol = 1e-6;
        DType expected = DType::F32;
        if (dt == "float64") rtol = atol = 1e-12, expected = DType::F64;
        if (dt == "bfloat16") rtol = atol = 1.0 / 128, expected = DType::BF16;
        if (dt == "float16") rtol = atol = 1.0 / 512, expected = DType::F16;
        const int64_t L = c["L"].get<int64_t>();
        for (size_t k = 0; k < names.size(); ++k) {
            SafeTensor got = r.outputs.tensors[k];
            const bool lse = names[k] == "lse";
            // f64 gradients read the f32 logsumexp (P = exp(scores - lse)): f32 bounds
            const bool viaF32Lse = lse || (dt == "float64" && names[k] != "out");
            QCOMPARE(got.dtype, lse ? DType::F32 : expected);
            if (lse && c["op"] == "efficient") {
                bool padOk = false;
                got = unpadLse(got, L, padOk);
                QVERIFY2(padOk, "the padded logsumexp rows must be +inf");
            }
            const SafeTensor& ref = sdpaRefs().t(id + "/ref_" + names[k]);
            QCOMPARE(got.shape, ref.shape);
            std::string where;
            const double ratio = worstRatio(got, ref, viaF32Lse ? 1e-5 : rtol, viaF32Lse ? 1e-6 : atol, where);
            qDebug("%s %s: worst error / bound %.3g (%s)", id.c_str(), names[k].c_str(), ratio, where.c_str());
            QVERIFY2(ratio <= 1.0, (names[k] + " " + where).c_str());
        }
        if (c["mask"] == "bool") {
            // query row 1 sees no key: out 0 (and logsumexp -inf) in every batch and head
            const std::vector<double> out = asDoubles(r.outputs.tensors[0]);
            const int64_t BH = c["B"].get<int64_t>() * c["Hq"].get<int64_t>(), Ev = c["Ev"].get<int64_t>();
            for (int64_t h = 0; h < BH; ++h)
                for (int64_t e = 0; e < Ev; ++e) QCOMPARE(out[static_cast<size_t>((h * L + 1) * Ev + e)], 0.0);
            if (names.size() > 1) {
                const std::vector<double> lse = asDoubles(r.outputs.tensors[1]);
                for (int64_t h = 0; h < BH; ++h)
                    QCOMPARE(lse[static_cast<size_t>(h * L + 1)], -std::numeric_limits<double>::infinity());
            }
        }
    }

    // One batch element computed alone gives the bits it has inside the batch.
    void sdpaBatchInvariant_data()
    {
        QTest::addColumn<std::string>("id");
        QTest::addColumn<int>("batch");
        QTest::newRow("sdpa_gqa_causal/b1") << std::string("sdpa_gqa_causal") << 1;
        QTest::newRow("cpu_floatmask_gqa/b1") << std::string("cpu_floatmask_gqa") << 1;
        QTest::newRow("cpu_f16/b0") << std::string("cpu_f16") << 0;
        QTest::newRow("flash_causal/b1") << std::string("flash_causal") << 1;
        QTest::newRow("eff_bias/b0") << std::string("eff_bias") << 0;
    }
    void sdpaBatchInvariant()
    {
        QFETCH(std::string, id);
        QFETCH(int, batch);
        const nlohmann::json& c = sdpaRefs().c(id);
        const SafeTensorsFile all = sdpaInputs(c);
        SafeTensorsFile one = all;
        for (auto& st : one.tensors)
            if (st.shape.size() == 4) st = sliceDim0(st, batch, 1);
        const Graph gAll = parseFxText(sdpaGraph(c), id), gOne = parseFxText(sdpaGraph(c, 1), id + "_1");
        const Run ra = runCase(gAll, all), ro = runCase(gOne, one);
        QCOMPARE(ro.outputs.tensors.size(), ra.outputs.tensors.size());
        for (size_t k = 0; k < ra.outputs.tensors.size(); ++k) {
            const SafeTensor part = sliceDim0(ra.outputs.tensors[k], batch, 1);
            QCOMPARE(ro.outputs.tensors[k].shape, part.shape);
            QVERIFY2(ro.outputs.tensors[k].data == part.data, ("output " + std::to_string(k)).c_str());
        }
    }

    void sdpaSameBitsAtOneAndTwoThreads_data()
    {
        QTest::addColumn<std::string>("id");
        for (const char* id : {"sdpa_boolmask", "cpu_floatmask_gqa", "cpu_bf16", "flash_bf16", "eff_bias"})
            QTest::newRow(id) << std::string(id);
    }
    void sdpaSameBitsAtOneAndTwoThreads()
    {
        QFETCH(std::string, id);
        const nlohmann::json& c = sdpaRefs().c(id);
        const Graph g = parseFxText(sdpaGraph(c), id);
        const SafeTensorsFile in = sdpaInputs(c);
        const Run r1 = runCase(g, in, 1), r2 = runCase(g, in, 2);
        QCOMPARE(r1.outputs.tensors.size(), r2.outputs.tensors.size());
        for (size_t k = 0; k < r1.outputs.tensors.size(); ++k)
            QVERIFY(r1.outputs.tensors[k].data == r2.outputs.tensors[k].data);
    }

    // Shape propagation (the ops' meta functions) gives the shapes and dtypes the kernels return.
    void sdpaMeta_data()
    {
        QTest::addColumn<std::string>("id");
        for (const char* id :
             {"sdpa_gqa_causal", "cpu_floatmask_gqa", "cpu_bf16", "flash_causal", "eff_bias", "eff_f16_causal"})
            QTest::newRow(id) << std::string(id);
    }
    void sdpaMeta()
    {
        QFETCH(std::string, id);
        const nlohmann::json& c = sdpaRefs().c(id);
        Graph g = parseFxText(sdpaGraph(c), id);
        ShapePropOptions o;
        o.overwrite = true;
        const ShapePropResult pr = propagateShapes(g, o);
        QVERIFY2(pr.problems.empty(), pr.problems.empty() ? "" : pr.problems[0].c_str());
        const Run r = runCase(g, sdpaInputs(c));
        const Node& out = g.node(g.outputNode());
        const auto& items = out.args.at(0).items;
        QCOMPARE(items.size(), r.outputs.tensors.size());
        for (size_t k = 0; k < items.size(); ++k) {
            const ValueMeta& m = g.node(items[k].node).val;
            QVERIFY(m.isTensor());
            std::vector<int64_t> sizes;
            for (const auto& s : m.tensor.sizes) sizes.push_back(s.valueOrHint());
            QCOMPARE(sizes, r.outputs.tensors[k].shape);
            QCOMPARE(m.tensor.dtype, r.outputs.tensors[k].dtype);
        }
    }

    // Dropout on the attention weights (p = 0.3): the flash and efficient forms return the RNG
    // state they drew the mask at and their backwards replay it, so the gradients are those of
    // the forward that ran. Checked in f64 against central differences of sum(out * grad_out)
    // (each run starts at the same RNG state, so every forward draws the same mask); the
    // output differs from the one without dropout; the same bits at 1 and 2 threads.
    void sdpaDropout_data()
    {
        QTest::addColumn<std::string>("id");
        QTest::newRow("flash, causal") << std::string("flash_causal");
        QTest::newRow("efficient, bias") << std::string("eff_bias");
        QTest::newRow("sdpa, forward") << std::string("sdpa_plain");
    }
    void sdpaDropout()
    {
        QFETCH(std::string, id);
        nlohmann::json c = sdpaRefs().c(id);
        c["dtype"] = "float64";
        SafeTensorsFile in = sdpaInputs(c);
        for (SafeTensor& t : in.tensors) {
            if (t.dtype != DType::F32) continue;
            const std::vector<double> v = asDoubles(t);
            t.dtype = DType::F64;
            t.data.resize(v.size() * 8);
            std::memcpy(t.data.data(), v.data(), t.data.size());
        }
        const Graph g = parseFxText(sdpaGraph(c, -1, "0.3"), "dropout"), plain = parseFxText(sdpaGraph(c), "plain");
        const Run r = runCase(g, in), r1 = runCase(g, in, 1);
        QCOMPARE(r1.outputs.tensors.size(), r.outputs.tensors.size());
        for (size_t k = 0; k < r.outputs.tensors.size(); ++k)
            QVERIFY(r1.outputs.tensors[k].data == r.outputs.tensors[k].data);
        QVERIFY2(runCase(plain, in).outputs.tensors[0].data != r.outputs.tensors[0].data, "dropout changed nothing");
        if (!c["backward"].get<bool>()) return;

        auto input = [&](const char* name) -> SafeTensor& {
            for (SafeTensor& t : in.tensors)
                if (t.name == name) return t;
            throw std::runtime_error(std::string("no input ") + name);
        };
        const std::vector<double> gradOut = asDoubles(input("grad_out"));
        auto loss = [&]() {
            const std::vector<double> out = asDoubles(runCase(g, in).outputs.tensors[0]);
            double l = 0;
            for (size_t i = 0; i < out.size(); ++i) l += out[i] * gradOut[i];
            return l;
        };
        const char* names[3] = {"q", "k", "v"};
        double worst = 0;
        for (int w = 0; w < 3; ++w) {
            const std::vector<double> grad = asDoubles(r.outputs.tensors[static_cast<size_t>(2 + w)]);
            SafeTensor& x = input(names[w]);
            auto* xv = reinterpret_cast<double*>(x.data.data());
            const size_t n = x.data.size() / 8;
            for (size_t i = 1; i < n; i += n / 7) {
                const double keep = xv[i], h = 1e-6;
                xv[i] = keep + h;
                const double up = loss();
                xv[i] = keep - h;
                const double down = loss();
                xv[i] = keep;
                const double fd = (up - down) / (2 * h);
                const double err = std::fabs(fd - grad[i]) / (1e-6 + 1e-5 * std::fabs(fd));
                worst = std::max(worst, err);
                QVERIFY2(err <= 1.0,
                         qPrintable(QString("d%1[%2]: backward %3, central difference %4")
                                        .arg(names[w])
                                        .arg(i)
                                        .arg(grad[i], 0, 'g', 12)
                                        .arg(fd, 0, 'g', 12)));
            }
        }
        qInfo("%s: worst |backward - central difference| %.3g of the bound", id.c_str(), worst);
    }

    // dropout on the CPU flash form (no RNG state for its backward), a mask with is_causal,
    // head counts without enable_gqa: a KernelError naming the node and the op's rule.
    void sdpaErrors_data()
    {
        QTest::addColumn<std::string>("id");
        QTest::addColumn<std::string>("dropout");
        QTest::addColumn<std::string>("from");
        QTest::addColumn<std::string>("to");
        QTest::addColumn<std::string>("message");
        QTest::newRow("dropout flash_cpu")
            << std::string("cpu_causal") << std::string("0.1") << std::string() << std::string()
            << std::string("_scaled_dot_product_flash_attention_for_cpu.default: dropout_p > 0 is not supported");
        QTest::newRow("mask and causal") << std::string("sdpa_boolmask") << std::string("0.0")
                                         << std::string(", False, scale") << std::string(", True, scale")
                                         << std::string("cannot be combined with is_causal=True");
        QTest::newRow("heads without gqa")
            << std::string("sdpa_gqa_causal") << std::string("0.0") << std::string(", enable_gqa = True")
            << std::string() << std::string("different head counts need enable_gqa");
    }
    void sdpaErrors()
    {
        QFETCH(std::string, id);
        QFETCH(std::string, dropout);
        QFETCH(std::string, from);
        QFETCH(std::string, to);
        QFETCH(std::string, message);
        const nlohmann::json& c = sdpaRefs().c(id);
        std::string text = sdpaGraph(c, -1, dropout);
        if (!from.empty()) {
            const size_t at = text.find(from);
            QVERIFY(at != std::string::npos);
            text.replace(at, from.size(), to);
        }
        const Graph g = parseFxText(text, "errors");
        try {
            runCase(g, sdpaInputs(c));
            QFAIL("no error");
        } catch (const KernelError& e) {
            const std::string what = e.what();
            const std::string node = c["op"] == "sdpa" ? "node 'out'" : "node 'r'";
            QVERIFY2(what.find(node) != std::string::npos, what.c_str());
            QVERIFY2(what.find(message) != std::string::npos, what.c_str());
        }
    }

    // torch.nn.functional.scaled_dot_product_attention (a Dynamo-level node) runs the aten op:
    // the same bits as aten.scaled_dot_product_attention.default.
    void sdpaTorchLevel()
    {
        const nlohmann::json& c = sdpaRefs().c("sdpa_gqa_causal");
        const std::string text = sdpaGraph(c);
        std::string torchText = text;
        const std::string from = "torch.ops.aten.scaled_dot_product_attention.default(q, k, v, None, 0.0, True";
        const size_t at = torchText.find(from);
        QVERIFY(at != std::string::npos);
        torchText.replace(at, from.size(),
                          "torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal = True");
        const Graph ga = parseFxText(text, "aten"), gt = parseFxText(torchText, "torch");
        QVERIFY(missingSupport(gt, DeviceKind::Cpu).empty());
        const SafeTensorsFile in = sdpaInputs(c);
        const Run ra = runCase(ga, in), rt = runCase(gt, in);
        QCOMPARE(rt.outputs.tensors.size(), size_t(1));
        QVERIFY(ra.outputs.tensors[0].data == rt.outputs.tensors[0].data);
    }

    // The corpus graphs that call flex_attention: nothing the runtime lacks, they run with
    // generated inputs (seed 1), twice to the same bits, with the shapes their meta records.
    void corpus_data()
    {
        QTest::addColumn<std::string>("graph");
        // under ASan (-O0: ~7 s a graph) the aot inference graph; the kernels' own rows run there too
        for (const char* id : {"36", "79", "85", "95", "167", "210", "216", "276", "319", "325", "333"})
            if (!fxltest::kSanitizedBuild || std::string(id) == "85") QTest::newRow(id) << std::string(id);
    }
    void corpus()
    {
        QFETCH(std::string, graph);
        FXL_REQUIRE_CORPUS(kCorpusLog);
        static std::shared_ptr<Source> src;
        if (!src) src = openSource(kCorpusLog.string());
        std::shared_ptr<Graph> g = src->graph(graph);
        QVERIFY(g);
        QVERIFY(missingSupport(*g, DeviceKind::Cpu).empty());
        ExecOptions o;
        o.inputSeed = 1;
        ExecResult a, b;
        try {
            a = executeGraph(*g, o);
            b = executeGraph(*g, o);
        } catch (const std::exception& e) {
            QFAIL(e.what());
        }
        QVERIFY(!a.outputs.empty());
        // the memory timeline counts the HOP's two outputs (the logsumexp too when no getitem
        // reads it) and no tensor for the nested graphs: the measured peak is the estimate
        const MemoryTimeline t = computeMemoryTimeline(*g);
        QVERIFY2(t.unknownSizes.empty(), t.unknownSizes.empty() ? "" : t.unknownSizes[0].c_str());
        QCOMPARE(a.peakBytes, t.peakBytes);
        QCOMPARE(a.peakBytes,
                 int64_t(2109696));  // q, k, v 3 x 512 KiB, block mask 8 KiB + 1 KiB, out 512 KiB, lse 8 KiB
        const Node& out = g->node(g->outputNode());
        QVERIFY(a.outputs.size() == b.outputs.size());
        for (size_t k = 0; k < a.outputs.size(); ++k) {
            QVERIFY(a.outputs[k].isTensor());
            const Tensor& t = a.outputs[k].tensor;
            QCOMPARE(t.sizes(), b.outputs[k].tensor.sizes());
            std::vector<uint8_t> x(static_cast<size_t>(t.nbytes())), y(x.size());
            a.ownedBackend->download(x.data(), t, t.nbytes());
            b.ownedBackend->download(y.data(), b.outputs[k].tensor, t.nbytes());
            QVERIFY(x == y);
            // the recorded meta of the returned node
            const Arg& item = out.args.at(0).items.at(k);
            QVERIFY(item.isNode());
            const ValueMeta& m = g->node(item.node).val;
            QVERIFY(m.isTensor());
            std::vector<int64_t> sizes;
            for (const auto& s : m.tensor.sizes) sizes.push_back(s.valueOrHint());
            QCOMPARE(t.sizes(), sizes);
            QCOMPARE(t.dtype(), m.tensor.dtype);
            // causal masks: every row sees its diagonal, so everything is finite
            const std::vector<double> v = asDoubles(SafeTensor{"", t.dtype(), t.sizes(), x});
            for (double d : v)
                if (!std::isfinite(d)) QFAIL("non-finite output");
        }
    }
};

FXL_TEST_APPLESS_MAIN(TestFlexAttention)
}  // namespace test_flex_attention
#include "test_flex_attention.moc"

#include "runtime/composite/sdpa_kernels.hpp"

#include <limits>
#include <vector>

#include "runtime/base/backend.hpp"
#include "runtime/composite/flex_attention.hpp"
#include "runtime/torch_level/torch_level_call.hpp"

namespace fxl::exec {

namespace {

using torch_level::Call;
using torch_level::tensorValue;

// The kernel's nested aten calls run as the executor runs a lowering's (the outer node's name
// in messages, intermediates as temporaries).
// `rng`: the RNG state the nested random ops draw from (the call's own by default; a backward
// replaying its forward's dropout mask passes the state the forward returned).
struct KernelContext final : TorchLevelContext
{
    KernelCall& k;
    RngState* rng;
    explicit KernelContext(KernelCall& call, RngState* rngState = nullptr)
        : k(call)
        , rng(rngState ? rngState : call.rng)
    { }
    Value resolve(const Arg&) override { throw KernelError("attention kernels resolve no node arguments"); }
    Value callAten(const OpInfo& op, std::vector<Value> args) override
    {
        static const ValueMeta kUnknown;
        KernelCall kc;
        kc.node = k.node;
        kc.op = &op;
        kc.args = std::move(args);
        kc.outMeta = &kUnknown;
        kc.backend = k.backend;
        kc.rng = rng;
        k.backend->run(kc);
        return std::move(kc.result);
    }
    Backend& backend() override { return *k.backend; }
};

const Node& nodeOf(const KernelCall& k)
{
    static const Node kNone;
    return k.node ? *k.node : kNone;
}

std::string opName(const KernelCall& k) { return k.op ? k.op->qualifiedName : std::string("attention"); }

double dropoutOf(const KernelCall& k)
{
    const double p = k.arg("dropout_p").toDouble();
    if (!(p >= 0.0 && p <= 1.0))
        throw KernelError(opName(k) + ": dropout_p must be in [0, 1], got " + std::to_string(p));
    return p;
}

// The CPU flash kernels return no RNG state for their backward to replay a mask with (and
// PyTorch's CPU dispatch sends attention with dropout to the math path, never to them).
void refuseDropout(const KernelCall& k)
{
    if (dropoutOf(k) != 0.0)
        throw KernelError(opName(k) + ": dropout_p > 0 is not supported by this op (got " + std::to_string(dropoutOf(k))
                          + "; it returns no RNG state for its backward: the math path or the flash / efficient forms "
                            "carry dropout)");
}

RngState& rngOf(const KernelCall& k)
{
    if (!k.rng) throw KernelError(opName(k) + ": attention with dropout needs an RNG state (KernelCall::rng)");
    return *k.rng;
}

Tensor i64Scalar(Backend& b, int64_t v)
{
    Tensor t = b.empty({}, DType::I64);
    b.upload(t, &v, 8);
    return t;
}

// The RNG state a forward with dropout started from, as its philox_seed / philox_offset
// outputs (zeros without dropout).
std::pair<Tensor, Tensor> philoxOutputs(const KernelCall& k, double p)
{
    Backend& b = *k.backend;
    if (p == 0.0) return {i64Scalar(b, 0), i64Scalar(b, 0)};
    const RngState& r = rngOf(k);
    return {i64Scalar(b, static_cast<int64_t>(r.seed)), i64Scalar(b, static_cast<int64_t>(r.offset))};
}

// The forward's RNG state, from a backward's philox_seed / philox_offset arguments.
RngState philoxState(const KernelCall& k)
{
    auto value = [&](const char* name) {
        const Tensor& t = k.tensor(name);
        if (t.numel() != 1 || (t.dtype() != DType::I64 && t.dtype() != DType::I32))
            throw KernelError(opName(k) + ": " + name + " must hold one integer, got " + describe(t));
        int64_t v = 0;
        if (t.dtype() == DType::I64)
            k.backend->download(&v, t, 8);
        else {
            int32_t w = 0;
            k.backend->download(&w, t, 4);
            v = w;
        }
        return v;
    };
    RngState r;
    r.seed = static_cast<uint64_t>(value("philox_seed"));
    r.offset = static_cast<uint64_t>(value("philox_offset"));
    return r;
}

SdpaOperands operands(const KernelCall& k, const char* maskArg, bool gqa)
{
    SdpaOperands o;
    o.query = k.tensor("query");
    o.key = k.tensor("key");
    o.value = k.tensor("value");
    if (maskArg) o.mask = k.arg(maskArg);
    const int ci = k.argIndex("is_causal");
    o.causal = ci >= 0 && k.args[static_cast<size_t>(ci)].toInt() != 0;
    const Value& s = k.arg("scale");
    if (!s.isNone()) o.scale = s.toDouble();
    o.gqa = gqa;
    return o;
}

void checkSameHeadSize(const SdpaOperands& o, const std::string& name)
{
    if (o.query.dim() == 4 && o.key.dim() == 4 && o.value.dim() == 4
        && (o.query.size(3) != o.value.size(3) || o.key.size(3) != o.value.size(3)))
        throw KernelError(name + ": q, k, v should have the same head size, got " + describe(o.query) + ", "
                          + describe(o.key) + ", " + describe(o.value));
}

// logsumexp [B, H, L] (f32) padded along L to `padded` rows of +inf.
Tensor padLse(Backend& b, const Tensor& lse, int64_t padded)
{
    const int64_t B = lse.size(0), H = lse.size(1), L = lse.size(2);
    std::vector<float> src(static_cast<size_t>(B * H * L));
    b.download(src.data(), lse, lse.nbytes());
    std::vector<float> dst(static_cast<size_t>(B * H * padded), std::numeric_limits<float>::infinity());
    for (int64_t r = 0; r < B * H; ++r)
        for (int64_t i = 0; i < L; ++i) dst[static_cast<size_t>(r * padded + i)] = src[static_cast<size_t>(r * L + i)];
    Tensor t = b.empty({B, H, padded}, DType::F32);
    b.upload(t, dst.data(), t.nbytes());
    return t;
}

const Tensor& tensorOrThrow(const KernelCall& k, const char* name) { return k.tensor(name); }

// aten.scaled_dot_product_attention.default -> out
void sdpa(KernelCall& k)
{
    KernelContext ctx(k);
    const Call c{ctx, nodeOf(k), {}, {}};
    SdpaOperands o = operands(k, "attn_mask", k.arg("enable_gqa").toInt() != 0);
    o.dropoutP = dropoutOf(k);
    if (o.dropoutP != 0.0) rngOf(k);
    k.result = tensorValue(sdpaForward(c, o, "scaled_dot_product_attention").out);
}

// _scaled_dot_product_flash_attention_for_cpu -> (out, logsumexp); GQA when the head counts
// differ (as its decomposition passes enable_gqa)
void flashCpu(KernelCall& k)
{
    refuseDropout(k);
    KernelContext ctx(k);
    const Call c{ctx, nodeOf(k), {}, {}};
    const SdpaOperands o = operands(k, "attn_mask", true);
    checkSameHeadSize(o, opName(k));
    const SdpaForward f = sdpaForward(c, o, "_scaled_dot_product_flash_attention_for_cpu");
    k.result = Value::ofList({tensorValue(f.out), tensorValue(f.lse)});
}

Value gradsValue(const SdpaGrads& g)
{
    return Value::ofList({tensorValue(g.dq), tensorValue(g.dk), tensorValue(g.dv)});
}

void flashCpuBackward(KernelCall& k)
{
    refuseDropout(k);
    KernelContext ctx(k);
    const Call c{ctx, nodeOf(k), {}, {}};
    const SdpaOperands o = operands(k, "attn_mask", true);
    const SdpaGrads g =
        sdpaBackward(c, o, tensorOrThrow(k, "out"), tensorOrThrow(k, "logsumexp"), tensorOrThrow(k, "grad_out"),
                     "_scaled_dot_product_flash_attention_for_cpu_backward");
    k.result = gradsValue(g);
}

// _scaled_dot_product_flash_attention -> (out, logsumexp, cum_seq_q, cum_seq_k, max_q, max_k,
// philox_seed, philox_offset, debug_attn_mask)
void flash(KernelCall& k)
{
    if (k.arg("return_debug_mask").toInt() != 0)
        throw KernelError(opName(k) + ": return_debug_mask=True is not supported (the dropout mask of a fused kernel)");
    KernelContext ctx(k);
    const Call c{ctx, nodeOf(k), {}, {}};
    SdpaOperands o = operands(k, nullptr, false);
    o.dropoutP = dropoutOf(k);
    const auto [seed, offset] = philoxOutputs(k, o.dropoutP);
    const SdpaForward f = sdpaForward(c, o, "_scaled_dot_product_flash_attention");
    Backend& b = *k.backend;
    k.result = Value::ofList({tensorValue(f.out), tensorValue(f.lse), Value::none(), Value::none(),
                              Value::ofInt(o.query.size(2)), Value::ofInt(o.key.size(2)), tensorValue(seed),
                              tensorValue(offset), tensorValue(b.empty({0}, o.query.dtype()))});
}

void flashBackward(KernelCall& k)
{
    SdpaOperands o = operands(k, nullptr, false);
    o.dropoutP = dropoutOf(k);
    RngState replay = o.dropoutP != 0.0 ? philoxState(k) : RngState{};
    KernelContext ctx(k, o.dropoutP != 0.0 ? &replay : nullptr);
    const Call c{ctx, nodeOf(k), {}, {}};
    const SdpaGrads g = sdpaBackward(c, o, tensorOrThrow(k, "out"), tensorOrThrow(k, "logsumexp"),
                                     tensorOrThrow(k, "grad_out"), "_scaled_dot_product_flash_attention_backward");
    k.result = gradsValue(g);
}

// _scaled_dot_product_efficient_attention -> (out, log_sumexp, philox_seed, philox_offset)
void efficient(KernelCall& k)
{
    KernelContext ctx(k);
    const Call c{ctx, nodeOf(k), {}, {}};
    SdpaOperands o = operands(k, "attn_bias", false);
    o.dropoutP = dropoutOf(k);
    const auto [seed, offset] = philoxOutputs(k, o.dropoutP);
    const SdpaForward f = sdpaForward(c, o, "_scaled_dot_product_efficient_attention");
    Backend& b = *k.backend;
    const int64_t L = o.query.size(2);
    const int64_t padded = k.arg("compute_log_sumexp").toInt() != 0 ? (L + 31) / 32 * 32 : 0;
    k.result = Value::ofList(
        {tensorValue(f.out), tensorValue(padLse(b, f.lse, padded)), tensorValue(seed), tensorValue(offset)});
}

// The gradient of an additive bias: dS [B, H, L, S] summed over the dims the bias broadcasts
// along, in the bias's shape and dtype.
Tensor biasGrad(const Call& c, const Tensor& dS, const Tensor& bias)
{
    Tensor g = dS;
    const int64_t lead = dS.dim() - bias.dim();
    std::vector<int64_t> dims;
    for (int64_t k = 0; k < dS.dim(); ++k)
        if (k < lead || (bias.size(k - lead) == 1 && dS.size(k) != 1)) dims.push_back(k);
    if (!dims.empty())
        g = c.runTensor("aten.sum.dim_IntList", {tensorValue(g), torch_level::intList(dims), Value::ofBool(true)});
    g = c.runTensor("aten.reshape.default", {tensorValue(g), torch_level::intList(bias.sizes())});
    if (g.dtype() != bias.dtype())
        return c.runTensor("aten._to_copy.default", {tensorValue(g), torch_level::dtypeValue(bias.dtype())});
    return c.runTensor("aten.clone.default", {tensorValue(g)});
}

void efficientBackward(KernelCall& k)
{
    SdpaOperands o = operands(k, "attn_bias", false);
    o.dropoutP = dropoutOf(k);
    RngState replay = o.dropoutP != 0.0 ? philoxState(k) : RngState{};
    KernelContext ctx(k, o.dropoutP != 0.0 ? &replay : nullptr);
    const Call c{ctx, nodeOf(k), {}, {}};
    const Tensor& lse = tensorOrThrow(k, "logsumexp");
    const int64_t L = o.query.size(2);
    if (lse.dim() != 3 || lse.size(2) < L)
        throw KernelError(opName(k) + ": logsumexp must be [B, H, >= L], got " + describe(lse));
    const Tensor lseL =
        c.runTensor("aten.slice.Tensor", {tensorValue(lse), Value::ofInt(2), Value::ofInt(0), Value::ofInt(L)});
    const SdpaGrads g = sdpaBackward(c, o, tensorOrThrow(k, "out"), lseL, tensorOrThrow(k, "grad_out_"),
                                     "_scaled_dot_product_efficient_attention_backward");
    std::vector<int64_t> mask = k.arg("grad_input_mask").toIntList();
    mask.resize(4, 0);
    Value db = Value::none();
    if (mask[3] && o.mask.isTensor()) db = tensorValue(biasGrad(c, g.dscores, o.mask.tensor));
    auto maybe = [](bool want, const Tensor& t) { return want ? tensorValue(t) : Value::none(); };
    k.result = Value::ofList({maybe(mask[0], g.dq), maybe(mask[1], g.dk), maybe(mask[2], g.dv), db});
}

}  // namespace

void registerSdpaKernels(KernelRegistry& reg, DeviceKind cpu)
{
    reg.add("aten.scaled_dot_product_attention.default", cpu, sdpa);
    reg.add("aten._scaled_dot_product_flash_attention_for_cpu.default", cpu, flashCpu);
    reg.add("aten._scaled_dot_product_flash_attention_for_cpu_backward.default", cpu, flashCpuBackward);
    reg.add("aten._scaled_dot_product_flash_attention.default", cpu, flash);
    reg.add("aten._scaled_dot_product_flash_attention_backward.default", cpu, flashBackward);
    reg.add("aten._scaled_dot_product_efficient_attention.default", cpu, efficient);
    reg.add("aten._scaled_dot_product_efficient_attention_backward.default", cpu, efficientBackward);
}

}  // namespace fxl::exec

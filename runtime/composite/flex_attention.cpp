#include "runtime/composite/flex_attention.hpp"

#include <cmath>
#include <limits>

#include "runtime/base/kernel.hpp"

namespace fxl::exec {

using torch_level::Call;
using torch_level::dtypeValue;
using torch_level::intList;
using torch_level::intValue;
using torch_level::tensorValue;

namespace {

constexpr double kLn2 = 0.69314718055994530942;

Tensor op(const Call& c, const char* name, std::vector<Value> args) { return c.runTensor(name, std::move(args)); }

Tensor to(const Call& c, const Tensor& t, DType dt)
{
    if (t.dtype() == dt) return t;
    return op(c, "aten._to_copy.default", {tensorValue(t), dtypeValue(dt)});
}

std::string shapeText(const Tensor& t) { return describe(t); }

// The shapes of one call, checked as PyTorch checks them.
struct Dims
{
    int64_t B, Hq, L, E, Bkv, Hkv, S, Ev, G;
    DType dtype, wp;
};

Dims dimsOf(const FlexOperands& o, const char* hop)
{
    const std::string h(hop);
    for (const Tensor* t : {&o.query, &o.key, &o.value})
        if (!t->defined() || t->dim() != 4)
            throw KernelError(h + ": query, key and value must be 4-d tensors [B, H, L, D], got "
                              + (t->defined() ? shapeText(*t) : std::string("an undefined tensor")));
    Dims d{};
    d.B = o.query.size(0), d.Hq = o.query.size(1), d.L = o.query.size(2), d.E = o.query.size(3);
    d.Bkv = o.key.size(0), d.Hkv = o.key.size(1), d.S = o.key.size(2), d.Ev = o.value.size(3);
    d.dtype = o.query.dtype();
    if (!isFloatingPoint(d.dtype) || o.key.dtype() != d.dtype || o.value.dtype() != d.dtype)
        throw KernelError(h + ": query, key and value must share one floating-point dtype, got " + shapeText(o.query)
                          + ", " + shapeText(o.key) + ", " + shapeText(o.value));
    if (o.key.size(3) != d.E)
        throw KernelError(h + ": query and key head dims differ: " + shapeText(o.query) + " vs " + shapeText(o.key));
    if (o.value.size(0) != d.Bkv || o.value.size(1) != d.Hkv || o.value.size(2) != d.S)
        throw KernelError(h + ": key " + shapeText(o.key) + " and value " + shapeText(o.value)
                          + " differ in batch, heads or length");
    if (d.Hkv <= 0 || d.Hq % d.Hkv != 0)
        throw KernelError(h + ": the query heads (" + std::to_string(d.Hq)
                          + ") must be a multiple of the key/value heads (" + std::to_string(d.Hkv) + ")");
    if (!(d.Bkv == d.B || (d.B > 1 && d.Bkv == 1)))
        throw KernelError(h + ": Bq and Bkv must broadcast, got Bq=" + std::to_string(d.B)
                          + " and Bkv=" + std::to_string(d.Bkv));
    d.G = d.Hq / d.Hkv;
    d.wp = d.dtype == DType::F64 ? DType::F64 : DType::F32;
    return d;
}

// A key/value tensor [Bkv, Hkv, S, D] as [B * Hq, S, D]: each head repeated G times in a row
// (repeat_interleave: query head h reads head h / G), a batch of 1 broadcast.
Tensor perQueryHead(const Call& c, const Tensor& t, const Dims& d)
{
    Tensor e = op(c, "aten.unsqueeze.default", {tensorValue(t), intValue(2)});
    e = op(c, "aten.expand.default", {tensorValue(e), intList({d.B, d.Hkv, d.G, t.size(2), t.size(3)})});
    return op(c, "aten.reshape.default", {tensorValue(e), intList({d.B * d.Hq, t.size(2), t.size(3)})});
}

Tensor transposeLast(const Call& c, const Tensor& t)
{
    return op(c, "aten.transpose.int", {tensorValue(t), intValue(-2), intValue(-1)});
}

Tensor bmm(const Call& c, const Tensor& a, const Tensor& b)
{
    return op(c, "aten.bmm.default", {tensorValue(a), tensorValue(b)});
}

// An int32 index tensor 0..n-1 laid along `dim` of a 4-d shape of ones.
Tensor indexAlong(const Call& c, int dim, int64_t n)
{
    std::vector<int64_t> sizes{1, 1, 1, 1};
    sizes[static_cast<size_t>(dim)] = n;
    Tensor t = c.context.backend().empty(sizes, DType::I32);
    std::vector<int32_t> host(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) host[static_cast<size_t>(i)] = static_cast<int32_t>(i);
    c.context.backend().upload(t, host.data(), n * 4);
    return t;
}

struct Indices
{
    Tensor b, h, q, kv;
    std::vector<Value> values() const { return {tensorValue(b), tensorValue(h), tensorValue(q), tensorValue(kv)}; }
};

Indices indicesFor(const Call& c, const Dims& d)
{
    return {indexAlong(c, 0, d.B), indexAlong(c, 1, d.Hq), indexAlong(c, 2, d.L), indexAlong(c, 3, d.S)};
}

// The first tensor a nested graph returned (its only output, or item 0 of a tuple).
Tensor firstTensor(Value v, const FlexBody& body, const char* role)
{
    std::vector<Value> items = itemsOf(std::move(v));
    if (items.empty() || !items[0].isTensor())
        throw KernelError(std::string(role) + " '" + body.name + "' must return a tensor");
    return items[0].tensor;
}

// A sub-graph result broadcast to the scores' shape [B, Hq, L, S] (the sub-graphs are
// pointwise in the index tensors, so their result broadcasts).
Tensor toScoresShape(const Call& c, const Tensor& t, const Dims& d, const FlexBody& body, const char* role)
{
    const std::vector<int64_t> full{d.B, d.Hq, d.L, d.S};
    if (t.sizes() == full) return t;
    bool ok = t.dim() <= 4;
    for (int64_t k = 0; ok && k < t.dim(); ++k) {
        const int64_t s = t.size(t.dim() - 1 - k);
        ok = s == 1 || s == full[static_cast<size_t>(3 - k)];
    }
    if (!ok)
        throw KernelError(std::string(role) + " '" + body.name + "' returned " + describe(t)
                          + ", which does not broadcast to the scores [" + std::to_string(d.B) + ", "
                          + std::to_string(d.Hq) + ", " + std::to_string(d.L) + ", " + std::to_string(d.S)
                          + "] (only pointwise score_mod / mask_mod functions are supported)");
    return op(c, "aten.expand.default", {tensorValue(t), intList(full)});
}

Tensor maskOf(const Call& c, const FlexOperands& o, const Dims& d, const Indices& idx, const BodyRunner& run)
{
    if (!o.maskMod.graph) throw KernelError("flex_attention: the block mask has no mask_mod graph");
    std::vector<Value> args = idx.values();
    args.insert(args.end(), o.maskModBuffers.begin(), o.maskModBuffers.end());
    const Tensor m = firstTensor(run(*o.maskMod.graph, o.maskMod.name, std::move(args)), o.maskMod, "mask_mod");
    if (m.dtype() != DType::Bool)
        throw KernelError("mask_mod '" + o.maskMod.name + "' must return a bool tensor, got " + describe(m));
    return toScoresShape(c, m, d, o.maskMod, "mask_mod");
}

// PyTorch's _math_attention_inner: the scaled scores [B, Hq, L, S] (wp) and the scores after
// score_mod and mask_mod (-inf where masked).
struct Inner
{
    Tensor scores, post, mask;
    Tensor keyRep, valueRep;  // [B * Hq, S, E] / [B * Hq, S, Ev], in the input dtype
};

Inner mathInner(const Call& c, const FlexOperands& o, const Dims& d, const Indices& idx, const BodyRunner& run)
{
    Inner r;
    r.keyRep = perQueryHead(c, o.key, d);
    r.valueRep = perQueryHead(c, o.value, d);
    const Tensor q =
        op(c, "aten.reshape.default", {tensorValue(to(c, o.query, d.wp)), intList({d.B * d.Hq, d.L, d.E})});
    Tensor s = bmm(c, q, transposeLast(c, to(c, r.keyRep, d.wp)));
    s = op(c, "aten.view.default", {tensorValue(s), intList({d.B, d.Hq, d.L, d.S})});
    r.scores = to(c, op(c, "aten.mul.Scalar", {tensorValue(s), Value::ofFloat(o.scale)}), d.wp);

    if (!o.scoreMod.graph) throw KernelError("flex_attention: no score_mod graph");
    std::vector<Value> args{tensorValue(r.scores)};
    for (Value& v : idx.values()) args.push_back(std::move(v));
    args.insert(args.end(), o.scoreModBuffers.begin(), o.scoreModBuffers.end());
    Tensor modded = firstTensor(run(*o.scoreMod.graph, o.scoreMod.name, std::move(args)), o.scoreMod, "score_mod");
    if (!isFloatingPoint(modded.dtype()))
        throw KernelError("score_mod '" + o.scoreMod.name + "' must return a floating-point tensor, got "
                          + describe(modded));
    modded = toScoresShape(c, to(c, modded, d.wp), d, o.scoreMod, "score_mod");

    r.mask = maskOf(c, o, d, idx, run);
    const Tensor negInf = op(c, "aten.scalar_tensor.default",
                             {Value::ofFloat(-std::numeric_limits<double>::infinity()), dtypeValue(d.wp)});
    r.post = op(c, "aten.where.self", {tensorValue(r.mask), tensorValue(modded), tensorValue(negInf)});
    return r;
}

Tensor squeezeLast(const Call& c, const Tensor& t) { return op(c, "aten.squeeze.dim", {tensorValue(t), intValue(-1)}); }
Tensor unsqueezeLast(const Call& c, const Tensor& t)
{
    return op(c, "aten.unsqueeze.default", {tensorValue(t), intValue(-1)});
}

// Sums a [B, Hkv * G, ...] gradient over each group of G query heads: [B, Hkv, ...].
Tensor sumGroups(const Call& c, const Tensor& t, const Dims& d)
{
    if (d.G == 1) return t;
    std::vector<int64_t> sizes{d.B, d.Hkv, d.G};
    sizes.insert(sizes.end(), t.sizes().begin() + 2, t.sizes().end());
    const Tensor v = op(c, "aten.view.default", {tensorValue(t), intList(sizes)});
    return op(c, "aten.sum.dim_IntList", {tensorValue(v), intList({2}), Value::ofBool(false)});
}

// logsumexp(post, -1) as at::logsumexp computes it (the row maximum subtracted, an infinite
// maximum replaced by 0 where it is added back), then -inf for the fully masked rows; natural
// log, in post's dtype. rowMax: each row's maximum.
struct RowLse
{
    Tensor lse, rowMax;
};
RowLse rowLogsumexp(const Call& c, const Tensor& post)
{
    const Tensor mx = op(c, "aten.amax.default", {tensorValue(post), intList({-1}), Value::ofBool(true)});
    const Tensor ex =
        op(c, "aten.exp.default", {tensorValue(op(c, "aten.sub.Tensor", {tensorValue(post), tensorValue(mx)}))});
    const Tensor sum = op(c, "aten.sum.dim_IntList", {tensorValue(ex), intList({-1}), Value::ofBool(false)});
    const Tensor mxs = squeezeLast(c, mx);
    const Tensor mxFinite =
        op(c, "aten.masked_fill.Scalar",
           {tensorValue(mxs), tensorValue(op(c, "aten.isinf.default", {tensorValue(mxs)})), Value::ofFloat(0.0)});
    Tensor lse =
        op(c, "aten.add.Tensor", {tensorValue(op(c, "aten.log.default", {tensorValue(sum)})), tensorValue(mxFinite)});
    const Tensor maskedRows =
        op(c, "aten.eq.Scalar", {tensorValue(mxs), Value::ofFloat(-std::numeric_limits<double>::infinity())});
    lse = op(c, "aten.masked_fill.Scalar",
             {tensorValue(lse), tensorValue(maskedRows), Value::ofFloat(-std::numeric_limits<double>::infinity())});
    return {lse, mxs};
}
}  // namespace

Value flexAttention(const Call& c, const FlexOperands& o, const BodyRunner& run)
{
    const Dims d = dimsOf(o, "flex_attention");
    const Indices idx = indicesFor(c, d);
    const Inner in = mathInner(c, o, d, idx, run);

    const RowLse rl = rowLogsumexp(c, in.post);
    Tensor lse = rl.lse;
    lse = op(c, "aten.div.Scalar", {tensorValue(lse), Value::ofFloat(kLn2)});

    const Tensor p = op(c, "aten._safe_softmax.default", {tensorValue(in.post), intValue(-1)});
    const Tensor p3 = op(c, "aten.reshape.default", {tensorValue(to(c, p, d.dtype)), intList({d.B * d.Hq, d.L, d.S})});
    Tensor out = bmm(c, p3, in.valueRep);
    out = op(c, "aten.view.default", {tensorValue(out), intList({d.B, d.Hq, d.L, d.Ev})});
    std::vector<Value> outs{tensorValue(out), tensorValue(lse)};
    if (o.maxScores)
        outs.push_back(tensorValue(op(c, "aten.div.Scalar", {tensorValue(rl.rowMax), Value::ofFloat(kLn2)})));
    return Value::ofList(std::move(outs));
}

Value flexAttentionBackward(const Call& c, const FlexBackwardOperands& ob, const BodyRunner& run)
{
    const FlexOperands& o = ob.fw;
    const Dims d = dimsOf(o, "flex_attention_backward");
    const std::vector<int64_t> rows{d.B, d.Hq, d.L};
    if (!ob.logsumexp.defined() || ob.logsumexp.sizes() != rows)
        throw KernelError("flex_attention_backward: logsumexp must be [B, Hq, L], got "
                          + (ob.logsumexp.defined() ? describe(ob.logsumexp) : std::string("none")));
    const std::vector<int64_t> outShape{d.B, d.Hq, d.L, d.Ev};
    if (!ob.out.defined() || ob.out.sizes() != outShape)
        throw KernelError("flex_attention_backward: out must be [B, Hq, L, Ev]");
    const Indices idx = indicesFor(c, d);
    const Inner in = mathInner(c, o, d, idx, run);

    Tensor gradOut = ob.gradOut;
    if (!gradOut.defined()) gradOut = op(c, "aten.zeros_like.default", {tensorValue(ob.out)});
    if (gradOut.sizes() != outShape) throw KernelError("flex_attention_backward: grad_out must be [B, Hq, L, Ev]");

    // logsumexp comes in base 2 (as the forward returns it): back to natural log, and the
    // gradient of the change of base
    const Tensor lse = op(c, "aten.mul.Scalar", {tensorValue(to(c, ob.logsumexp, d.wp)), Value::ofFloat(kLn2)});
    const Tensor maskedRows =
        op(c, "aten.eq.Scalar", {tensorValue(lse), Value::ofFloat(-std::numeric_limits<double>::infinity())});
    Tensor sm = op(c, "aten.exp.default",
                   {tensorValue(op(c, "aten.sub.Tensor", {tensorValue(in.post), tensorValue(unsqueezeLast(c, lse))}))});
    sm = op(c, "aten.masked_fill.Scalar",
            {tensorValue(sm), tensorValue(unsqueezeLast(c, maskedRows)), Value::ofFloat(0.0)});

    const Tensor go3 = op(c, "aten.reshape.default", {tensorValue(gradOut), intList({d.B * d.Hq, d.L, d.Ev})});
    const Tensor sm3 = op(c, "aten.reshape.default", {tensorValue(sm), intList({d.B * d.Hq, d.L, d.S})});
    // dV (per query head) = P^T @ dO, in the input dtype
    const Tensor gradV = bmm(c, transposeLast(c, to(c, sm3, d.dtype)), to(c, go3, d.dtype));
    // dP = dO @ V^T, in the working precision
    Tensor gradP = bmm(c, to(c, go3, d.wp), transposeLast(c, to(c, in.valueRep, d.wp)));
    gradP = op(c, "aten.view.default", {tensorValue(gradP), intList({d.B, d.Hq, d.L, d.S})});
    const Tensor rowDot = op(
        c, "aten.sum.dim_IntList",
        {tensorValue(op(c, "aten.mul.Tensor", {tensorValue(to(c, ob.out, d.wp)), tensorValue(to(c, gradOut, d.wp))})),
         intList({-1}), Value::ofBool(true)});
    Tensor inner = op(c, "aten.sub.Tensor", {tensorValue(gradP), tensorValue(rowDot)});
    if (ob.gradLogsumexp.isTensor()) {
        if (ob.gradLogsumexp.tensor.sizes() != rows)
            throw KernelError("flex_attention_backward: grad_logsumexp must be [B, Hq, L]");
        const Tensor gl =
            op(c, "aten.div.Scalar", {tensorValue(to(c, ob.gradLogsumexp.tensor, d.wp)), Value::ofFloat(kLn2)});
        inner = op(c, "aten.add.Tensor", {tensorValue(inner), tensorValue(unsqueezeLast(c, gl))});
    }
    const Tensor gradScoreMod = op(c, "aten.mul.Tensor", {tensorValue(sm), tensorValue(inner)});

    // the joint graph: (score, b, h, q_idx, kv_idx, grad, *buffers) -> (grad_score, None x 4, *buffer grads)
    if (!ob.joint.graph) throw KernelError("flex_attention_backward: no joint graph");
    std::vector<Value> args{tensorValue(in.scores)};
    for (Value& v : idx.values()) args.push_back(std::move(v));
    args.push_back(tensorValue(gradScoreMod));
    args.insert(args.end(), o.scoreModBuffers.begin(), o.scoreModBuffers.end());
    std::vector<Value> grads = itemsOf(run(*ob.joint.graph, ob.joint.name, std::move(args)));
    if (grads.size() != 5 + o.scoreModBuffers.size() || !grads[0].isTensor())
        throw KernelError("flex_attention_backward: the joint graph '" + ob.joint.name + "' must return "
                          + std::to_string(5 + o.scoreModBuffers.size()) + " values (the score's gradient first), got "
                          + std::to_string(grads.size()));
    Tensor gradScores = toScoresShape(c, to(c, grads[0].tensor, d.wp), d, ob.joint, "joint graph");
    gradScores = to(c, op(c, "aten.mul.Scalar", {tensorValue(gradScores), Value::ofFloat(o.scale)}), d.dtype);
    const Tensor zero = op(c, "aten.scalar_tensor.default", {Value::ofFloat(0.0), dtypeValue(d.dtype)});
    gradScores = op(c, "aten.where.self", {tensorValue(in.mask), tensorValue(gradScores), tensorValue(zero)});

    const Tensor gs3 = op(c, "aten.reshape.default", {tensorValue(gradScores), intList({d.B * d.Hq, d.L, d.S})});
    const Tensor q3 = op(c, "aten.reshape.default", {tensorValue(o.query), intList({d.B * d.Hq, d.L, d.E})});
    Tensor gradQ = bmm(c, gs3, in.keyRep);
    Tensor gradK = bmm(c, transposeLast(c, gs3), q3);
    gradQ = op(c, "aten.view.default", {tensorValue(gradQ), intList({d.B, d.Hq, d.L, d.E})});
    gradK = op(c, "aten.view.default", {tensorValue(gradK), intList({d.B, d.Hq, d.S, d.E})});
    Tensor gradVv = op(c, "aten.view.default", {tensorValue(gradV), intList({d.B, d.Hq, d.S, d.Ev})});
    gradK = sumGroups(c, gradK, d);
    gradVv = sumGroups(c, gradVv, d);
    if (d.Bkv != d.B) {
        gradK = op(c, "aten.sum.dim_IntList", {tensorValue(gradK), intList({0}), Value::ofBool(true)});
        gradVv = op(c, "aten.sum.dim_IntList", {tensorValue(gradVv), intList({0}), Value::ofBool(true)});
    }

    std::vector<Value> bufferGrads;
    for (size_t k = 0; k < o.scoreModBuffers.size(); ++k) {
        Value& g = grads[5 + k];
        const Value& buf = o.scoreModBuffers[k];
        if (!g.isTensor()) {
            bufferGrads.push_back(Value::none());
            continue;
        }
        if (!buf.isTensor() || g.tensor.sizes() != buf.tensor.sizes())
            throw KernelError("flex_attention_backward: the joint graph's gradient of score_mod buffer "
                              + std::to_string(k) + " is " + describe(g.tensor)
                              + ", not the buffer's shape (gradients of buffers read per element are not supported)");
        bufferGrads.push_back(std::move(g));
    }
    // outputs never alias the operands (the joint graph may return its grad input as is)
    std::vector<Value> outs{tensorValue(gradQ), tensorValue(gradK), tensorValue(gradVv)};
    for (Value& v : outs)
        if (!v.tensor.isContiguous() || v.tensor.storage() == o.query.storage() || v.tensor.storage() == o.key.storage()
            || v.tensor.storage() == o.value.storage())
            v = tensorValue(op(c, "aten.clone.default", {v}));
    replaceTensorsWithCopies(c.context.backend(), bufferGrads);
    outs.push_back(Value::ofList(std::move(bufferGrads)));
    return Value::ofList(std::move(outs));
}

// ---- scaled_dot_product_attention

namespace {

Dims sdpaDims(const SdpaOperands& o, const char* name)
{
    FlexOperands f;
    f.query = o.query;
    f.key = o.key;
    f.value = o.value;
    const Dims d = dimsOf(f, name);
    if (!o.gqa && d.Hq != d.Hkv)
        throw KernelError(std::string(name) + ": query has " + std::to_string(d.Hq) + " heads, key/value "
                          + std::to_string(d.Hkv) + " (different head counts need enable_gqa)");
    return d;
}

// The additive mask of an attn_mask (bool: 0 where true, -inf where false; float: itself) in wp.
Tensor additiveMask(const Call& c, const Tensor& m, const Dims& d, const char* name)
{
    const std::vector<int64_t> full{d.B, d.Hq, d.L, d.S};
    bool ok = m.dim() <= 4;
    for (int64_t k = 0; ok && k < m.dim(); ++k) {
        const int64_t s = m.size(m.dim() - 1 - k);
        ok = s == 1 || s == full[static_cast<size_t>(3 - k)];
    }
    if (!ok)
        throw KernelError(std::string(name) + ": attn_mask " + describe(m) + " does not broadcast to the scores ["
                          + std::to_string(d.B) + ", " + std::to_string(d.Hq) + ", " + std::to_string(d.L) + ", "
                          + std::to_string(d.S) + "]");
    if (m.dtype() == DType::Bool) {
        const Tensor zero = op(c, "aten.scalar_tensor.default", {Value::ofFloat(0.0), dtypeValue(d.wp)});
        const Tensor negInf = op(c, "aten.scalar_tensor.default",
                                 {Value::ofFloat(-std::numeric_limits<double>::infinity()), dtypeValue(d.wp)});
        return op(c, "aten.where.self", {tensorValue(m), tensorValue(zero), tensorValue(negInf)});
    }
    if (!isFloatingPoint(m.dtype()))
        throw KernelError(std::string(name) + ": attn_mask must be a bool or floating-point tensor, got "
                          + describe(m));
    return to(c, m, d.wp);
}

double scaleOf(const SdpaOperands& o, const Dims& d)
{
    return o.scale ? *o.scale : 1.0 / std::sqrt(static_cast<double>(d.E));
}

// The scores after the mask and the causal mask, [B, Hq, L, S] in wp; keyRep / valueRep: key
// and value per query head ([B * Hq, S, D], the input dtype).
Tensor sdpaPost(const Call& c, const SdpaOperands& o, const Dims& d, const char* name, Tensor& keyRep, Tensor& valueRep)
{
    keyRep = perQueryHead(c, o.key, d);
    valueRep = perQueryHead(c, o.value, d);
    const Tensor q =
        op(c, "aten.reshape.default", {tensorValue(to(c, o.query, d.wp)), intList({d.B * d.Hq, d.L, d.E})});
    Tensor s = bmm(c, q, transposeLast(c, to(c, keyRep, d.wp)));
    s = op(c, "aten.view.default", {tensorValue(s), intList({d.B, d.Hq, d.L, d.S})});
    s = op(c, "aten.mul.Scalar", {tensorValue(s), Value::ofFloat(scaleOf(o, d))});
    if (o.mask.isTensor()) {
        if (o.causal)
            throw KernelError(std::string(name) + ": an explicit attn_mask cannot be combined with is_causal=True");
        s = op(c, "aten.add.Tensor", {tensorValue(s), tensorValue(additiveMask(c, o.mask.tensor, d, name))});
    } else if (!o.mask.isNone()) {
        throw KernelError(std::string(name) + ": attn_mask must be a tensor or None");
    }
    if (o.causal) {  // key j visible to query i when j <= i (the top-left aligned lower triangle)
        const Tensor keep =
            op(c, "aten.ge.Tensor", {tensorValue(indexAlong(c, 2, d.L)), tensorValue(indexAlong(c, 3, d.S))});
        const Tensor negInf = op(c, "aten.scalar_tensor.default",
                                 {Value::ofFloat(-std::numeric_limits<double>::infinity()), dtypeValue(d.wp)});
        s = op(c, "aten.where.self", {tensorValue(keep), tensorValue(s), tensorValue(negInf)});
    }
    return s;
}

// The dropout factors of the attention weights, [B, Hq, L, S] in wp: 0 or 1 / (1 - p), drawn
// by native_dropout on ones (so the mask is the one native_dropout gives at this RNG state).
Tensor dropoutKeep(const Call& c, const SdpaOperands& o, const Dims& d, const char* name)
{
    if (!(o.dropoutP > 0.0 && o.dropoutP <= 1.0))
        throw KernelError(std::string(name) + ": dropout_p must be in [0, 1], got " + std::to_string(o.dropoutP));
    const Tensor ones =
        op(c, "aten.full.default", {intList({d.B, d.Hq, d.L, d.S}), Value::ofFloat(1.0), dtypeValue(d.wp)});
    const Value r =
        c.run("aten.native_dropout.default", {tensorValue(ones), Value::ofFloat(o.dropoutP), Value::ofBool(true)});
    return r.items.at(0).tensor;
}

// A fresh contiguous tensor of `dt` (a copy when t aliases an operand or is not contiguous).
Tensor fresh(const Call& c, const Tensor& t, DType dt, const SdpaOperands& o)
{
    Tensor r = to(c, t, dt);
    if (!r.isContiguous() || r.storage() == o.query.storage() || r.storage() == o.key.storage()
        || r.storage() == o.value.storage())
        r = op(c, "aten.clone.default", {tensorValue(r)});
    return r;
}

}  // namespace

SdpaForward sdpaForward(const Call& c, const SdpaOperands& o, const char* name)
{
    const Dims d = sdpaDims(o, name);
    Tensor keyRep, valueRep;
    const Tensor post = sdpaPost(c, o, d, name, keyRep, valueRep);
    const RowLse rl = rowLogsumexp(c, post);
    Tensor p = op(c, "aten._safe_softmax.default", {tensorValue(post), intValue(-1)});
    if (o.dropoutP != 0.0) p = op(c, "aten.mul.Tensor", {tensorValue(p), tensorValue(dropoutKeep(c, o, d, name))});
    const Tensor p3 = op(c, "aten.reshape.default", {tensorValue(p), intList({d.B * d.Hq, d.L, d.S})});
    Tensor out = bmm(c, p3, to(c, valueRep, d.wp));
    out = op(c, "aten.view.default", {tensorValue(out), intList({d.B, d.Hq, d.L, d.Ev})});
    return {fresh(c, out, d.dtype, o), fresh(c, rl.lse, DType::F32, o)};
}

SdpaGrads sdpaBackward(const Call& c, const SdpaOperands& o, const Tensor& out, const Tensor& lse,
                       const Tensor& gradOut, const char* name)
{
    const Dims d = sdpaDims(o, name);
    const std::vector<int64_t> outShape{d.B, d.Hq, d.L, d.Ev}, rows{d.B, d.Hq, d.L};
    if (!out.defined() || out.sizes() != outShape)
        throw KernelError(std::string(name) + ": out must be [B, Hq, L, Ev], got "
                          + (out.defined() ? describe(out) : std::string("none")));
    if (!gradOut.defined() || gradOut.sizes() != outShape)
        throw KernelError(std::string(name) + ": grad_out must be [B, Hq, L, Ev], got "
                          + (gradOut.defined() ? describe(gradOut) : std::string("none")));
    if (!lse.defined() || lse.sizes() != rows)
        throw KernelError(std::string(name) + ": logsumexp must be [B, Hq, L], got "
                          + (lse.defined() ? describe(lse) : std::string("none")));
    Tensor keyRep, valueRep;
    const Tensor post = sdpaPost(c, o, d, name, keyRep, valueRep);
    const Tensor lw = to(c, lse, d.wp);
    const Tensor maskedRows =
        op(c, "aten.eq.Scalar", {tensorValue(lw), Value::ofFloat(-std::numeric_limits<double>::infinity())});
    Tensor sm = op(c, "aten.exp.default",
                   {tensorValue(op(c, "aten.sub.Tensor", {tensorValue(post), tensorValue(unsqueezeLast(c, lw))}))});
    sm = op(c, "aten.masked_fill.Scalar",
            {tensorValue(sm), tensorValue(unsqueezeLast(c, maskedRows)), Value::ofFloat(0.0)});

    const Tensor gow = to(c, gradOut, d.wp);
    const Tensor go3 = op(c, "aten.reshape.default", {tensorValue(gow), intList({d.B * d.Hq, d.L, d.Ev})});
    // with dropout: dV from the dropped weights, dP through the same factors; the row term
    // sum(out * dO) equals sum(P * dP) with or without them
    const Tensor keep = o.dropoutP != 0.0 ? dropoutKeep(c, o, d, name) : Tensor();
    const Tensor smd = keep.defined() ? op(c, "aten.mul.Tensor", {tensorValue(sm), tensorValue(keep)}) : sm;
    const Tensor sm3 = op(c, "aten.reshape.default", {tensorValue(smd), intList({d.B * d.Hq, d.L, d.S})});
    Tensor gradV = bmm(c, transposeLast(c, sm3), go3);
    Tensor gradP = bmm(c, go3, transposeLast(c, to(c, valueRep, d.wp)));
    gradP = op(c, "aten.view.default", {tensorValue(gradP), intList({d.B, d.Hq, d.L, d.S})});
    if (keep.defined()) gradP = op(c, "aten.mul.Tensor", {tensorValue(gradP), tensorValue(keep)});
    const Tensor rowDot = op(c, "aten.sum.dim_IntList",
                             {tensorValue(op(c, "aten.mul.Tensor", {tensorValue(to(c, out, d.wp)), tensorValue(gow)})),
                              intList({-1}), Value::ofBool(true)});
    const Tensor dS =
        op(c, "aten.mul.Tensor",
           {tensorValue(sm), tensorValue(op(c, "aten.sub.Tensor", {tensorValue(gradP), tensorValue(rowDot)}))});
    const Tensor dSs = op(c, "aten.mul.Scalar", {tensorValue(dS), Value::ofFloat(scaleOf(o, d))});
    const Tensor gs3 = op(c, "aten.reshape.default", {tensorValue(dSs), intList({d.B * d.Hq, d.L, d.S})});
    const Tensor q3 =
        op(c, "aten.reshape.default", {tensorValue(to(c, o.query, d.wp)), intList({d.B * d.Hq, d.L, d.E})});
    Tensor gradQ = bmm(c, gs3, to(c, keyRep, d.wp));
    Tensor gradK = bmm(c, transposeLast(c, gs3), q3);
    gradQ = op(c, "aten.view.default", {tensorValue(gradQ), intList({d.B, d.Hq, d.L, d.E})});
    gradK = op(c, "aten.view.default", {tensorValue(gradK), intList({d.B, d.Hq, d.S, d.E})});
    gradV = op(c, "aten.view.default", {tensorValue(gradV), intList({d.B, d.Hq, d.S, d.Ev})});
    gradK = sumGroups(c, gradK, d);
    gradV = sumGroups(c, gradV, d);
    if (d.Bkv != d.B) {
        gradK = op(c, "aten.sum.dim_IntList", {tensorValue(gradK), intList({0}), Value::ofBool(true)});
        gradV = op(c, "aten.sum.dim_IntList", {tensorValue(gradV), intList({0}), Value::ofBool(true)});
    }
    return {fresh(c, gradQ, d.dtype, o), fresh(c, gradK, d.dtype, o), fresh(c, gradV, d.dtype, o), dS};
}

}  // namespace fxl::exec

// Meta functions of matmuls, normalizations, softmax, losses, embedding, attention,
// dropout, convolution, pooling and upsampling.
#include "core/ops/op_meta_nn.hpp"

namespace fxl::meta {
namespace {

void checkDim(const TensorMeta& t, size_t n, const char* op, const char* what)
{
    if (t.sizes.size() != n)
        throw MetaError(std::string(op) + ": " + what + " must be a " + std::to_string(n) + "D tensor (got "
                        + std::to_string(t.sizes.size()) + "D)");
}

void checkSame(const SymInt& a, const SymInt& b, const char* op)
{
    if (!guardEq(a, b))
        throw MetaError(std::string(op) + ": shapes cannot be multiplied (" + a.str() + " vs " + b.str() + ")");
}

void checkDtypes(const TensorMeta& a, const TensorMeta& b, const char* op)
{
    if (a.dtype != b.dtype)
        throw MetaError(std::string(op) + ": expected both operands to have the same dtype, but got "
                        + std::string(dtypeTorchName(a.dtype)) + " != " + std::string(dtypeTorchName(b.dtype)));
}

ValueMeta mmImpl(const TensorMeta& a, const TensorMeta& b, const char* op, std::optional<DType> out = std::nullopt)
{
    checkDim(a, 2, op, "self");
    checkDim(b, 2, op, "mat2");
    checkSame(a.sizes[1], b.sizes[0], op);
    if (!out) checkDtypes(a, b, op);
    return tensorValue(makeContiguous(out ? *out : a.dtype, {a.sizes[0], b.sizes[1]}, a.device));
}

ValueMeta bmmImpl(const TensorMeta& a, const TensorMeta& b, const char* op)
{
    checkDim(a, 3, op, "batch1");
    checkDim(b, 3, op, "batch2");
    if (!guardEq(a.sizes[0], b.sizes[0])) throw MetaError(std::string(op) + ": batch sizes differ");
    checkSame(a.sizes[2], b.sizes[1], op);
    checkDtypes(a, b, op);
    return tensorValue(makeContiguous(a.dtype, {a.sizes[0], a.sizes[1], b.sizes[2]}, a.device));
}

// matmul: torch.matmul's shape rules (1-d promotion, batch broadcasting)
ValueMeta matmulImpl(const TensorMeta& a, const TensorMeta& b)
{
    size_t da = a.sizes.size(), db = b.sizes.size();
    if (da == 0 || db == 0) throw MetaError("matmul: both arguments need at least 1 dimension");
    if (da == 1 && db == 1) {
        checkSame(a.sizes[0], b.sizes[0], "matmul");
        return tensorValue(makeContiguous(a.dtype, {}, a.device));
    }
    Sizes sa = a.sizes, sb = b.sizes;
    bool va = da == 1, vb = db == 1;
    if (va) sa.insert(sa.begin(), SymInt(1));
    if (vb) sb.push_back(1);
    checkSame(sa.back(), sb[sb.size() - 2], "matmul");
    Sizes ba(sa.begin(), sa.end() - 2), bb(sb.begin(), sb.end() - 2);
    Sizes out = broadcastShapes({&ba, &bb});
    if (!va) out.push_back(sa[sa.size() - 2]);
    if (!vb) out.push_back(sb.back());
    return tensorValue(makeContiguous(a.dtype, std::move(out), a.device));
}

Sizes statShape(const TensorMeta& input, size_t normDims, bool keepOnes = true)
{
    Sizes s;
    size_t axis = input.sizes.size() - normDims;
    for (size_t i = 0; i < input.sizes.size(); ++i) {
        if (i < axis)
            s.push_back(input.sizes[i]);
        else if (keepOnes)
            s.push_back(1);
    }
    return s;
}

size_t checkNormalizedShape(const TensorMeta& input, const Sizes& ns, const char* op)
{
    if (ns.empty()) throw MetaError(std::string(op) + ": normalized_shape must have at least one element");
    if (ns.size() > input.sizes.size())
        throw MetaError(std::string(op) + ": input has fewer dims than normalized_shape");
    size_t off = input.sizes.size() - ns.size();
    for (size_t i = 0; i < ns.size(); ++i)
        if (!guardEq(input.sizes[off + i], ns[i]))
            throw MetaError(std::string(op) + ": normalized_shape does not match the input's trailing dims");
    return ns.size();
}

bool isLowPrecision(DType t) { return t == DType::F16 || t == DType::BF16; }
bool onCpu(const TensorMeta& t) { return t.device.empty() || t.device == "cpu"; }

ValueMeta noneOr(bool present, TensorMeta t)
{
    if (!present) {
        ValueMeta v;
        v.kind = ValueMeta::Kind::None;
        return v;
    }
    return tensorValue(std::move(t));
}

std::vector<bool> maskOf(const MetaCall& c, const char* name, size_t n)
{
    std::vector<bool> m(n, true);
    const Arg& a = c.arg(name);
    if (a.isSequence())
        for (size_t i = 0; i < n && i < a.items.size(); ++i) m[i] = toBool(a.items[i], name);
    return m;
}

ValueMeta softmaxImpl(const MetaCall& c)
{
    const TensorMeta& self = tensorOf(c, "self");
    wrapDim(intArg(c, "dim"), static_cast<int64_t>(self.sizes.size()));
    bool halfToFloat = toBool(c.arg("half_to_float"), "half_to_float");
    DType dt = halfToFloat ? DType::F32 : self.dtype;
    if (!isFloatingPoint(dt) && !isComplex(dt)) throw MetaError("softmax: expected a floating point input");
    return tensorValue(makeContiguous(dt, self.sizes, self.device));
}

ValueMeta softmaxBackwardImpl(const MetaCall& c)
{
    const TensorMeta& grad = tensorOf(c, "grad_output");
    const TensorMeta& out = tensorOf(c, "output");
    if (grad.sizes.size() != out.sizes.size()) throw MetaError("softmax backward: grad and output differ in rank");
    wrapDim(intArg(c, "dim"), static_cast<int64_t>(grad.sizes.size()));
    auto inDt = toOptDType(c.arg("input_dtype"));
    DType dt = grad.dtype;
    if (inDt && grad.dtype == DType::F32 && isLowPrecision(*inDt)) dt = *inDt;
    return tensorValue(makeContiguous(dt, grad.sizes, grad.device));
}

// Convolution output size per spatial dim.
Sizes convOutput(const TensorMeta& in, const TensorMeta& w, const std::vector<int64_t>& stride,
                 const std::vector<int64_t>& pad, const std::vector<int64_t>& dil, bool transposed,
                 const std::vector<int64_t>& outPad, int64_t groups)
{
    size_t nsp = in.sizes.size() - 2;
    auto at = [](const std::vector<int64_t>& v, size_t i, int64_t dflt) {
        return v.empty() ? dflt : v.size() == 1 ? v[0] : i < v.size() ? v[i] : dflt;
    };
    Sizes out{in.sizes[0], transposed ? mul(w.sizes[1], groups) : w.sizes[0]};
    for (size_t i = 0; i < nsp; ++i) {
        const SymInt& x = in.sizes[i + 2];
        const SymInt& k = w.sizes[i + 2];
        int64_t s = at(stride, i, 1), p = at(pad, i, 0), d = at(dil, i, 1), op = at(outPad, i, 0);
        if (transposed) {
            out.push_back(add(add(sub(mul(sub(x, 1), s), 2 * p), mul(d, sub(k, 1))), op + 1));
        } else {
            SymInt num = sub(sub(add(x, 2 * p), mul(d, sub(k, 1))), 1);
            out.push_back(add(floorDiv(num, s), 1));
        }
    }
    return out;
}

// mm, bmm, matmul, linear, scaled and grouped matrix products
void registerMatmul(MetaTable& t)
{
    t["aten.mm.default"] = [](const MetaCall& c) { return mmImpl(tensorOf(c, "self"), tensorOf(c, "mat2"), "mm"); };
    t["aten.mm.dtype"] = [](const MetaCall& c) {
        return mmImpl(tensorOf(c, "self"), tensorOf(c, "mat2"), "mm", toOptDType(c.arg("out_dtype")));
    };
    t["aten._int_mm.default"] = [](const MetaCall& c) {
        return mmImpl(tensorOf(c, "self"), tensorOf(c, "mat2"), "_int_mm", DType::I32);
    };
    t["aten.addmm.default"] = [](const MetaCall& c) {
        ValueMeta r = mmImpl(tensorOf(c, "mat1"), tensorOf(c, "mat2"), "addmm");
        const TensorMeta& self = tensorOf(c, "self");
        broadcastShapes({&self.sizes, &r.tensor.sizes});
        return r;
    };
    t["aten.bmm.default"] = [](const MetaCall& c) { return bmmImpl(tensorOf(c, "self"), tensorOf(c, "mat2"), "bmm"); };
    t["aten.baddbmm.default"] = [](const MetaCall& c) {
        ValueMeta r = bmmImpl(tensorOf(c, "batch1"), tensorOf(c, "batch2"), "baddbmm");
        const TensorMeta& self = tensorOf(c, "self");
        broadcastShapes({&self.sizes, &r.tensor.sizes});
        return r;
    };
    t["aten.matmul.default"] = [](const MetaCall& c) { return matmulImpl(tensorOf(c, "self"), tensorOf(c, "other")); };
    t["aten.linear.default"] = [](const MetaCall& c) {
        const TensorMeta& in = tensorOf(c, "input");
        const TensorMeta& w = tensorOf(c, "weight");
        if (in.sizes.empty() || w.sizes.empty() || w.sizes.size() > 2) throw MetaError("linear: bad ranks");
        checkSame(in.sizes.back(), w.sizes.back(), "linear");
        Sizes out(in.sizes.begin(), in.sizes.end() - 1);
        if (w.sizes.size() == 2) out.push_back(w.sizes[0]);
        return tensorValue(makeContiguous(in.dtype, std::move(out), in.device));
    };
    t["aten._scaled_mm.default"] = [](const MetaCall& c) {
        auto od = toOptDType(c.arg("out_dtype"));
        const TensorMeta& a = tensorOf(c, "self");
        return mmImpl(a, tensorOf(c, "mat2"), "_scaled_mm", od ? *od : a.dtype);
    };
    auto grouped = [](const MetaCall& c) {
        const TensorMeta& a = tensorOf(c, "self");
        const TensorMeta& b = tensorOf(c, "mat2");
        auto od = toOptDType(c.arg("out_dtype"));
        DType dt = od ? *od : a.dtype;
        bool a2 = a.sizes.size() == 2, b2 = b.sizes.size() == 2;
        Sizes out;
        if (a2 && b2) {
            const TensorMeta* offs = optTensorOf(c, "offs");
            if (!offs || offs->sizes.empty()) throw MetaError("_grouped_mm: 2d x 2d needs offs");
            out = {offs->sizes[0], a.sizes[0], b.sizes[1]};
        } else if (a2) {
            out = {a.sizes[0], b.sizes.back()};
        } else if (b2) {
            out = {a.sizes[1], b.sizes[1]};
        } else {
            out = {a.sizes[0], a.sizes[1], b.sizes.back()};
        }
        // rows padded to 16 bytes as the kernels allocate them
        int64_t align = std::max(1, 16 / std::max(1, dtypeItemSize(dt)));
        Sizes st(out.size());
        st.back() = 1;
        SymInt n = out.back();
        SymInt padded = n.isConcrete() ? SymInt(((*n.maybeValue() + align - 1) / align) * align) : n;
        st[out.size() - 2] = padded;
        if (out.size() == 3) st[0] = mul(padded, out[1]);
        return tensorValue(makeTensor(dt, std::move(out), std::move(st), a.device));
    };
    t["aten._grouped_mm.default"] = grouped;
    t["aten._scaled_grouped_mm.default"] = grouped;
}

// softmax and log_softmax, layer, RMS, group and batch norm
void registerSoftmaxAndNorms(MetaTable& t)
{
    t["aten._softmax.default"] = softmaxImpl;
    t["aten._log_softmax.default"] = softmaxImpl;
    t["aten._softmax_backward_data.default"] = softmaxBackwardImpl;
    t["aten._log_softmax_backward_data.default"] = softmaxBackwardImpl;
    t["aten._safe_softmax.default"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        auto dt = toOptDType(c.arg("dtype"));
        return tensorValue(makeContiguous(dt ? *dt : self.dtype, self.sizes, self.device));
    };

    t["aten.native_layer_norm.default"] = [](const MetaCall& c) {
        const TensorMeta& in = tensorOf(c, "input");
        Sizes ns = symListArg(c, "normalized_shape");
        size_t nd = checkNormalizedShape(in, ns, "native_layer_norm");
        // stats stay in the accumulation type on accelerators; CPU casts them back
        DType statDt = (!onCpu(in) && isLowPrecision(in.dtype)) ? DType::F32 : in.dtype;
        Sizes st = statShape(in, nd);
        return ValueMeta::ofTuple({tensorValue(makeContiguous(in.dtype, in.sizes, in.device)),
                                   tensorValue(makeContiguous(statDt, st, in.device)),
                                   tensorValue(makeContiguous(statDt, st, in.device))});
    };
    t["aten.native_layer_norm_backward.default"] = [](const MetaCall& c) {
        const TensorMeta& in = tensorOf(c, "input");
        tensorOf(c, "grad_out");
        checkNormalizedShape(in, symListArg(c, "normalized_shape"), "native_layer_norm_backward");
        auto m = maskOf(c, "output_mask", 3);
        const TensorMeta* w = optTensorOf(c, "weight");
        const TensorMeta* b = optTensorOf(c, "bias");
        return ValueMeta::ofTuple(
            {noneOr(m[0], makeContiguous(in.dtype, in.sizes, in.device)),
             noneOr(m[1] && w, w ? makeContiguous(w->dtype, w->sizes, w->device) : TensorMeta{}),
             noneOr(m[2] && b, b ? makeContiguous(b->dtype, b->sizes, b->device) : TensorMeta{})});
    };
    t["aten._fused_rms_norm.default"] = [](const MetaCall& c) {
        const TensorMeta& in = tensorOf(c, "input");
        size_t nd = checkNormalizedShape(in, symListArg(c, "normalized_shape"), "_fused_rms_norm");
        DType statDt = isLowPrecision(in.dtype) ? DType::F32 : in.dtype;
        return ValueMeta::ofTuple({tensorValue(makeContiguous(in.dtype, in.sizes, in.device)),
                                   tensorValue(makeContiguous(statDt, statShape(in, nd), in.device))});
    };
    t["aten._fused_rms_norm_backward.default"] = [](const MetaCall& c) {
        const TensorMeta& in = tensorOf(c, "input");
        auto m = maskOf(c, "output_mask", 2);
        const TensorMeta* w = optTensorOf(c, "weight");
        return ValueMeta::ofTuple(
            {noneOr(m[0], makeContiguous(in.dtype, in.sizes, in.device)),
             noneOr(m[1] && w, w ? makeContiguous(w->dtype, w->sizes, w->device) : TensorMeta{})});
    };
    t["aten.rms_norm.default"] = [](const MetaCall& c) {
        const TensorMeta& in = tensorOf(c, "input");
        checkNormalizedShape(in, symListArg(c, "normalized_shape"), "rms_norm");
        return tensorValue(makeContiguous(in.dtype, in.sizes, in.device));
    };
    t["aten.native_group_norm.default"] = [](const MetaCall& c) {
        const TensorMeta& in = tensorOf(c, "input");
        SymInt n = symArg(c, "N");
        SymInt g = intArg(c, "group");
        DType statDt = in.dtype;
        return ValueMeta::ofTuple({tensorValue(makeTensor(in.dtype, in.sizes, stridesLike(in, ""), in.device)),
                                   tensorValue(makeContiguous(statDt, {n, g}, in.device)),
                                   tensorValue(makeContiguous(statDt, {n, g}, in.device))});
    };
    t["aten.native_group_norm_backward.default"] = [](const MetaCall& c) {
        const TensorMeta& in = tensorOf(c, "input");
        tensorOf(c, "grad_out");
        auto m = maskOf(c, "output_mask", 3);
        const TensorMeta* w = optTensorOf(c, "weight");
        SymInt ch = symArg(c, "C");
        DType pdt = w ? w->dtype : in.dtype;
        return ValueMeta::ofTuple({noneOr(m[0], makeTensor(in.dtype, in.sizes, stridesLike(in, ""), in.device)),
                                   noneOr(m[1], makeContiguous(pdt, {ch}, in.device)),
                                   noneOr(m[2], makeContiguous(pdt, {ch}, in.device))});
    };
    // native_batch_norm, _native_batch_norm_legit (.default / .no_stats / _no_training):
    // (out, save_mean, save_invstd), the statistics [C] in training and [0] otherwise (f32 for
    // bf16 / f16 inputs)
    auto batchNorm = [](const MetaCall& c, bool training) {
        const TensorMeta& in = tensorOf(c, "input");
        if (in.sizes.size() < 2) throw MetaError("batch_norm: input must have at least 2 dims");
        DType statDt = isLowPrecision(in.dtype) ? DType::F32 : in.dtype;
        Sizes saveShape = training ? Sizes{in.sizes[1]} : Sizes{SymInt(0)};
        return ValueMeta::ofTuple({tensorValue(makeTensor(in.dtype, in.sizes, stridesLike(in, ""), in.device)),
                                   tensorValue(makeContiguous(statDt, saveShape, in.device)),
                                   tensorValue(makeContiguous(statDt, saveShape, in.device))});
    };
    t["aten.native_batch_norm.default"] = [batchNorm](const MetaCall& c) {
        return batchNorm(c, toBool(c.arg("training"), "training"));
    };
    t["aten._native_batch_norm_legit.default"] = t["aten.native_batch_norm.default"];
    t["aten._native_batch_norm_legit.no_stats"] = t["aten.native_batch_norm.default"];
    t["aten._native_batch_norm_legit_no_training.default"] = [batchNorm](const MetaCall& c) {
        return batchNorm(c, false);
    };
    t["aten.native_batch_norm_backward.default"] = [](const MetaCall& c) {
        const TensorMeta& in = tensorOf(c, "input");
        tensorOf(c, "grad_out");
        if (in.sizes.size() < 2) throw MetaError("native_batch_norm_backward: input must have at least 2 dims");
        auto m = maskOf(c, "output_mask", 3);
        const TensorMeta* w = optTensorOf(c, "weight");
        DType pdt = w ? w->dtype : in.dtype;
        return ValueMeta::ofTuple({noneOr(m[0], makeTensor(in.dtype, in.sizes, stridesLike(in, ""), in.device)),
                                   noneOr(m[1], makeContiguous(pdt, {in.sizes[1]}, in.device)),
                                   noneOr(m[2], makeContiguous(pdt, {in.sizes[1]}, in.device))});
    };
    t["aten._cdist_forward.default"] = [](const MetaCall& c) {
        const TensorMeta& a = tensorOf(c, "x1");
        const TensorMeta& b = tensorOf(c, "x2");
        if (a.sizes.size() < 2 || b.sizes.size() < 2) throw MetaError("_cdist_forward: x1 and x2 need at least 2 dims");
        Sizes ba(a.sizes.begin(), a.sizes.end() - 2), bb(b.sizes.begin(), b.sizes.end() - 2);
        Sizes out = broadcastShapes({&ba, &bb});
        out.push_back(a.sizes[a.sizes.size() - 2]);
        out.push_back(b.sizes[b.sizes.size() - 2]);
        return tensorValue(makeContiguous(a.dtype, std::move(out), a.device));
    };
    t["aten._pdist_forward.default"] = [](const MetaCall& c) {
        const TensorMeta& x = tensorOf(c, "self");
        checkDim(x, 2, "_pdist_forward", "self");
        const SymInt& n = x.sizes[0];
        const SymInt pairs = SymInt::floorDiv(n * (n - SymInt(1)), SymInt(2));  // 0 for n = 0 and 1
        return tensorValue(makeContiguous(x.dtype, {pairs}, x.device));
    };
    t["aten._native_batch_norm_legit_functional.default"] = [](const MetaCall& c) {
        const TensorMeta& in = tensorOf(c, "input");
        if (in.sizes.size() < 2) throw MetaError("batch_norm: input must have at least 2 dims");
        bool training = toBool(c.arg("training"), "training");
        SymInt ch = in.sizes[1];
        DType statDt = isLowPrecision(in.dtype) ? DType::F32 : in.dtype;
        Sizes saveShape = training ? Sizes{ch} : Sizes{SymInt(0)};
        const TensorMeta& rm = tensorOf(c, "running_mean");
        const TensorMeta& rv = tensorOf(c, "running_var");
        return ValueMeta::ofTuple({tensorValue(makeTensor(in.dtype, in.sizes, stridesLike(in, ""), in.device)),
                                   tensorValue(makeContiguous(statDt, saveShape, in.device)),
                                   tensorValue(makeContiguous(statDt, saveShape, in.device)),
                                   tensorValue(makeContiguous(rm.dtype, rm.sizes, rm.device)),
                                   tensorValue(makeContiguous(rv.dtype, rv.sizes, rv.device))});
    };
}

// embedding, nll_loss, mse_loss
void registerEmbeddingAndLosses(MetaTable& t)
{
    t["aten.embedding.default"] = [](const MetaCall& c) {
        const TensorMeta& w = tensorOf(c, "weight");
        const TensorMeta& idx = tensorOf(c, "indices");
        checkDim(w, 2, "embedding", "weight");
        if (!isIntegral(idx.dtype, false)) throw MetaError("embedding: indices must be an integer tensor");
        Sizes out = idx.sizes;
        out.push_back(w.sizes[1]);
        return tensorValue(makeContiguous(w.dtype, std::move(out), w.device));
    };
    // (output [B, D], offset2bag [n] ([0] for mode sum on PyTorch's fast path: f32 / f16 / bf16
    // weight, no padding_idx), bag_size [B], max_indices [B, D] for mode max else [B]); B the
    // offsets' count (minus one with include_last_offset); the three in the indices' dtype
    t["aten._embedding_bag.default"] = [](const MetaCall& c) {
        const TensorMeta& w = tensorOf(c, "weight");
        const TensorMeta& idx = tensorOf(c, "indices");
        const TensorMeta& offs = tensorOf(c, "offsets");
        checkDim(w, 2, "_embedding_bag", "weight");
        checkDim(idx, 1, "_embedding_bag", "indices");
        checkDim(offs, 1, "_embedding_bag", "offsets");
        const int64_t mode = intArg(c, "mode");
        const bool last = toBool(c.arg("include_last_offset"), "include_last_offset");
        const SymInt bags = last ? offs.sizes[0] - SymInt(1) : offs.sizes[0];
        const bool fastSum = mode == 0 && intArg(c, "padding_idx") < 0
            && (w.dtype == DType::F32 || w.dtype == DType::F16 || w.dtype == DType::BF16);
        return ValueMeta::ofTuple(
            {tensorValue(makeContiguous(w.dtype, {bags, w.sizes[1]}, w.device)),
             tensorValue(makeContiguous(idx.dtype, {fastSum ? SymInt(0) : idx.sizes[0]}, w.device)),
             tensorValue(makeContiguous(idx.dtype, {bags}, w.device)),
             tensorValue(makeContiguous(idx.dtype, mode == 2 ? Sizes{bags, w.sizes[1]} : Sizes{bags}, w.device))});
    };
    // the embedding bag's weight gradient: [num_weights, D] of grad's dtype
    for (const char* name : {"aten._embedding_bag_dense_backward.default", "aten._embedding_bag_backward.default"})
        t[name] = [](const MetaCall& c) {
            const TensorMeta& g = tensorOf(c, "grad");
            checkDim(g, 2, "_embedding_bag_backward", "grad");
            return tensorValue(makeContiguous(g.dtype, {symArg(c, "num_weights"), g.sizes[1]}, g.device));
        };
    t["aten.embedding_dense_backward.default"] = [](const MetaCall& c) {
        const TensorMeta& g = tensorOf(c, "grad_output");
        tensorOf(c, "indices");
        if (g.sizes.empty()) throw MetaError("embedding_dense_backward: grad must have at least 1 dim");
        return tensorValue(makeContiguous(g.dtype, {symArg(c, "num_weights"), g.sizes.back()}, g.device));
    };

    t["aten.nll_loss_forward.default"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        const TensorMeta& target = tensorOf(c, "target");
        if (self.sizes.empty() || self.sizes.size() > 2) throw MetaError("nll_loss: input tensor should be 1D or 2D");
        if (target.sizes.size() > 1)
            throw MetaError("nll_loss: 0D or 1D target tensor expected, multi-target not supported");
        bool batched = self.sizes.size() == 2;
        if (batched && (target.sizes.empty() || !guardEq(self.sizes[0], target.sizes[0])))
            throw MetaError("nll_loss: size mismatch between input and target batch");
        int64_t reduction = intArg(c, "reduction");
        Sizes outShape;
        if (reduction == 0 && batched) outShape = {self.sizes[0]};
        return ValueMeta::ofTuple({tensorValue(makeContiguous(self.dtype, outShape, self.device)),
                                   tensorValue(makeContiguous(self.dtype, {}, self.device))});
    };
    t["aten.nll_loss_backward.default"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        tensorOf(c, "grad_output");
        return tensorValue(makeContiguous(self.dtype, self.sizes, self.device));
    };
    t["aten.nll_loss2d_forward.default"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        const TensorMeta& target = tensorOf(c, "target");
        if (self.sizes.size() != 4) throw MetaError("nll_loss2d: input tensor should be 4D");
        if (target.sizes.size() != 3) throw MetaError("nll_loss2d: target tensor should be 3D");
        for (size_t d = 0; d < 3; ++d)
            if (!guardEq(self.sizes[d == 0 ? 0 : d + 1], target.sizes[d]))
                throw MetaError("nll_loss2d: size mismatch between input and target");
        Sizes outShape;
        if (intArg(c, "reduction") == 0) outShape = target.sizes;
        return ValueMeta::ofTuple({tensorValue(makeContiguous(self.dtype, outShape, self.device)),
                                   tensorValue(makeContiguous(self.dtype, {}, self.device))});
    };
    t["aten.nll_loss2d_backward.default"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        tensorOf(c, "grad_output");
        return tensorValue(makeContiguous(self.dtype, self.sizes, self.device));
    };
    t["aten.mse_loss.default"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        const TensorMeta& target = tensorOf(c, "target");
        Sizes shape = broadcastShapes({&self.sizes, &target.sizes});
        DType dt = promoteTypes(self.dtype, target.dtype);
        if (intArg(c, "reduction") == 0) {
            Sizes st = iteratorStrides(shape, {&self, &target});
            return tensorValue(makeTensor(dt, std::move(shape), std::move(st), self.device));
        }
        return tensorValue(makeContiguous(dt, {}, self.device));
    };
    t["aten.mse_loss_backward.default"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        tensorOf(c, "grad_output");
        tensorOf(c, "target");
        return tensorValue(makeContiguous(self.dtype, self.sizes, self.device));
    };
}

// scaled dot product attention, every backend and its backward
void registerAttention(MetaTable& t)
{
    auto flashLike = [](const MetaCall& c) {
        const TensorMeta& q = tensorOf(c, "query");
        const TensorMeta& k = tensorOf(c, "key");
        const TensorMeta& v = tensorOf(c, "value");
        checkDim(q, 4, "scaled_dot_product_attention", "query");
        Sizes outSize{q.sizes[0], q.sizes[1], q.sizes[2], v.sizes[3]};
        // empty_like(query.transpose(1, 2)).transpose(1, 2)
        TensorMeta qt = q;
        std::swap(qt.sizes[1], qt.sizes[2]);
        if (qt.strides.size() == 4) std::swap(qt.strides[1], qt.strides[2]);
        std::swap(outSize[1], outSize[2]);
        Sizes st = guardEq(q.sizes[3], v.sizes[3]) ? stridesLike(qt, "") : contiguous(outSize);
        std::swap(outSize[1], outSize[2]);
        std::swap(st[1], st[2]);
        TensorMeta out = makeTensor(q.dtype, outSize, st, q.device);
        TensorMeta lse = makeContiguous(DType::F32, {q.sizes[0], q.sizes[1], q.sizes[2]}, q.device);
        bool debug = hasArg(c, "return_debug_mask") && toBool(c.arg("return_debug_mask"), "return_debug_mask");
        TensorMeta dbg = debug ? makeContiguous(q.dtype, {q.sizes[0], q.sizes[1], q.sizes[2], k.sizes[2]}, q.device)
                               : makeContiguous(q.dtype, {SymInt(0)}, q.device);
        ValueMeta none;
        none.kind = ValueMeta::Kind::None;
        ValueMeta maxQ, maxK;
        maxQ.kind = maxK.kind = ValueMeta::Kind::SymInt;
        maxQ.sym = q.sizes[2].expr();
        maxQ.symHint = q.sizes[2].maybeValue();
        maxK.sym = k.sizes[2].expr();
        maxK.symHint = k.sizes[2].maybeValue();
        TensorMeta seed = makeContiguous(DType::I64, {}, q.device);
        std::vector<ValueMeta> r{tensorValue(out),  tensorValue(lse), none, none, maxQ, maxK, tensorValue(seed),
                                 tensorValue(seed), tensorValue(dbg)};
        return ValueMeta::ofTuple(std::move(r));
    };
    t["aten._scaled_dot_product_flash_attention.default"] = flashLike;
    t["aten._scaled_dot_product_cudnn_attention.default"] = flashLike;
    auto gradsLikeQkv = [](const MetaCall& c) {
        const TensorMeta& q = tensorOf(c, "query");
        const TensorMeta& k = tensorOf(c, "key");
        const TensorMeta& v = tensorOf(c, "value");
        return ValueMeta::ofTuple({tensorValue(makeTensor(q.dtype, q.sizes, stridesLike(q, ""), q.device)),
                                   tensorValue(makeTensor(k.dtype, k.sizes, stridesLike(k, ""), k.device)),
                                   tensorValue(makeTensor(v.dtype, v.sizes, stridesLike(v, ""), v.device))});
    };
    t["aten._scaled_dot_product_flash_attention_backward.default"] = gradsLikeQkv;
    t["aten._scaled_dot_product_cudnn_attention_backward.default"] = gradsLikeQkv;
    t["aten._scaled_dot_product_flash_attention_for_cpu_backward.default"] = gradsLikeQkv;
    t["aten._scaled_dot_product_flash_attention_for_cpu.default"] = [](const MetaCall& c) {
        const TensorMeta& q = tensorOf(c, "query");
        const TensorMeta& v = tensorOf(c, "value");
        checkDim(q, 4, "scaled_dot_product_attention", "query");
        // (B, L, H, E) contiguous, transposed to (B, H, L, E)
        Sizes blhe{q.sizes[0], q.sizes[2], q.sizes[1], v.sizes[3]};
        Sizes st = contiguous(blhe);
        TensorMeta out = makeTensor(q.dtype, {q.sizes[0], q.sizes[1], q.sizes[2], v.sizes[3]},
                                    {st[0], st[2], st[1], st[3]}, q.device);
        Sizes blh{q.sizes[0], q.sizes[2], q.sizes[1]};
        Sizes ls = contiguous(blh);
        TensorMeta lse = makeTensor(DType::F32, {q.sizes[0], q.sizes[1], q.sizes[2]}, {ls[0], ls[2], ls[1]}, q.device);
        return ValueMeta::ofTuple({tensorValue(std::move(out)), tensorValue(std::move(lse))});
    };
    t["aten._scaled_dot_product_efficient_attention.default"] = [](const MetaCall& c) {
        const TensorMeta& q = tensorOf(c, "query");
        const TensorMeta& v = tensorOf(c, "value");
        checkDim(q, 4, "scaled_dot_product_attention", "query");
        Sizes bmhk{q.sizes[0], q.sizes[2], q.sizes[1], v.sizes[3]};
        Sizes st = contiguous(bmhk);
        TensorMeta out = makeTensor(q.dtype, {q.sizes[0], q.sizes[1], q.sizes[2], v.sizes[3]},
                                    {st[0], st[2], st[1], st[3]}, q.device);
        bool lse = toBool(c.arg("compute_log_sumexp"), "compute_log_sumexp");
        SymInt lseLen = lse ? mul(ceilDiv(q.sizes[2], 32), 32) : SymInt(0);
        TensorMeta l = makeContiguous(DType::F32, {q.sizes[0], q.sizes[1], lseLen}, q.device);
        TensorMeta seed = makeContiguous(DType::I64, {}, q.device);
        return ValueMeta::ofTuple(
            {tensorValue(std::move(out)), tensorValue(std::move(l)), tensorValue(seed), tensorValue(seed)});
    };
    t["aten._scaled_dot_product_efficient_attention_backward.default"] = [](const MetaCall& c) {
        const TensorMeta& q = tensorOf(c, "query");
        const TensorMeta& k = tensorOf(c, "key");
        const TensorMeta& v = tensorOf(c, "value");
        auto m = maskOf(c, "grad_input_mask", 4);
        const TensorMeta* bias = optTensorOf(c, "attn_bias");
        return ValueMeta::ofTuple(
            {tensorValue(makeTensor(q.dtype, q.sizes, stridesLike(q, ""), q.device)),
             tensorValue(makeTensor(k.dtype, k.sizes, stridesLike(k, ""), k.device)),
             tensorValue(makeTensor(v.dtype, v.sizes, stridesLike(v, ""), v.device)),
             noneOr(m[3] && bias, bias ? makeContiguous(bias->dtype, bias->sizes, bias->device) : TensorMeta{})});
    };
    t["aten.scaled_dot_product_attention.default"] = [](const MetaCall& c) {
        const TensorMeta& q = tensorOf(c, "query");
        const TensorMeta& v = tensorOf(c, "value");
        if (q.sizes.empty() || v.sizes.empty()) throw MetaError("scaled_dot_product_attention: bad ranks");
        Sizes out = q.sizes;
        out.back() = v.sizes.back();
        return tensorValue(makeContiguous(q.dtype, std::move(out), q.device));
    };
}

// dropout, bernoulli, convolution
void registerDropoutAndConvolution(MetaTable& t)
{
    t["aten.native_dropout.default"] = [](const MetaCall& c) {
        const TensorMeta& in = tensorOf(c, "input");
        Sizes st = stridesLike(in, "");
        return ValueMeta::ofTuple({tensorValue(makeTensor(in.dtype, in.sizes, st, in.device)),
                                   tensorValue(makeTensor(DType::Bool, in.sizes, st, in.device))});
    };
    t["aten.bernoulli.p"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        return tensorValue(makeTensor(self.dtype, self.sizes, stridesLike(self, ""), self.device));
    };

    t["aten.convolution.default"] = [](const MetaCall& c) {
        const TensorMeta& in = tensorOf(c, "input");
        const TensorMeta& w = tensorOf(c, "weight");
        if (in.sizes.size() < 3 || w.sizes.size() != in.sizes.size()) throw MetaError("convolution: bad ranks");
        bool transposed = toBool(c.arg("transposed"), "transposed");
        Sizes out = convOutput(in, w, intListArg(c, "stride"), intListArg(c, "padding"), intListArg(c, "dilation"),
                               transposed, intListArg(c, "output_padding"), intArg(c, "groups"));
        bool cl = isChannelsLastStrides(in) || isChannelsLastStrides(w);
        Sizes st = cl ? stridesFor(out, out.size() == 4 ? "channels_last" : "channels_last_3d") : contiguous(out);
        return tensorValue(makeTensor(in.dtype, std::move(out), std::move(st), in.device));
    };
    t["aten.convolution_backward.default"] = [](const MetaCall& c) {
        const TensorMeta& in = tensorOf(c, "input");
        const TensorMeta& w = tensorOf(c, "weight");
        auto m = maskOf(c, "output_mask", 3);
        Sizes bias = symListArg(c, "bias_sizes");
        // channels-last input or weight: both gradients channels-last (PyTorch's CPU backward)
        const bool cl = isChannelsLastStrides(in) || isChannelsLastStrides(w);
        const char* clName = in.sizes.size() == 4 ? "channels_last" : "channels_last_3d";
        return ValueMeta::ofTuple(
            {noneOr(m[0],
                    makeTensor(in.dtype, in.sizes, cl ? stridesFor(in.sizes, clName) : stridesLike(in, ""), in.device)),
             noneOr(m[1],
                    makeTensor(w.dtype, w.sizes, cl ? stridesFor(w.sizes, clName) : stridesLike(w, ""), w.device)),
             noneOr(m[2], makeContiguous(w.dtype, bias.empty() ? Sizes{w.sizes[0]} : bias, w.device))});
    };
}

// ---- pooling and upsampling: [..., C, *spatial] with D spatial dims (one or two leading dims)

Sizes leadingDims(const TensorMeta& in, size_t D, const char* op)
{
    if (in.sizes.size() != D + 1 && in.sizes.size() != D + 2)
        throw MetaError(std::string(op) + ": input must be " + std::to_string(D + 1) + "-d or " + std::to_string(D + 2)
                        + "-d (got " + std::to_string(in.sizes.size()) + "-d)");
    return Sizes(in.sizes.begin(), in.sizes.end() - static_cast<std::ptrdiff_t>(D));
}

// One value per spatial dim from a list of 1 or D values (`fallback` when empty).
std::vector<int64_t> perDim(const std::vector<int64_t>& v, size_t D, const std::vector<int64_t>* fallback,
                            const char* op, const char* what)
{
    if (v.empty() && fallback) return *fallback;
    if (v.size() != 1 && v.size() != D) throw MetaError(std::string(op) + ": " + what + " must have 1 or D values");
    std::vector<int64_t> out(D);
    for (size_t j = 0; j < D; ++j) out[j] = v.size() == 1 ? v[0] : v[j];
    return out;
}

// Output sizes of a pool (PyTorch's pooling_output_shape).
Sizes pooledSizes(const MetaCall& c, const TensorMeta& in, size_t D, const char* op, bool hasDilation)
{
    Sizes out = leadingDims(in, D, op);
    const auto k = perDim(intListArg(c, "kernel_size"), D, nullptr, op, "kernel_size");
    const auto s = perDim(intListArg(c, "stride"), D, &k, op, "stride");
    const auto p = perDim(intListArg(c, "padding"), D, nullptr, op, "padding");
    const auto d =
        hasDilation ? perDim(intListArg(c, "dilation"), D, nullptr, op, "dilation") : std::vector<int64_t>(D, 1);
    const bool ceil = toBool(c.arg("ceil_mode"), "ceil_mode");
    for (size_t j = 0; j < D; ++j) {
        if (s[j] < 1 || k[j] < 1) throw MetaError(std::string(op) + ": kernel_size and stride must be positive");
        const SymInt& x = in.sizes[in.sizes.size() - D + j];
        const SymInt num = add(x, 2 * p[j] - d[j] * (k[j] - 1) - 1 + (ceil ? s[j] - 1 : 0));
        SymInt o = add(floorDiv(num, s[j]), 1);
        if (ceil && !hintLt(mul(sub(o, 1), s[j]), add(x, p[j]))) o = sub(o, 1);
        out.push_back(normalize(o));
    }
    return out;
}

Sizes adaptiveSizes(const TensorMeta& in, const Sizes& outSize, size_t D, const char* op)
{
    Sizes out = leadingDims(in, D, op);
    if (outSize.size() != D && outSize.size() != 1)
        throw MetaError(std::string(op) + ": output_size must have " + std::to_string(D) + " values");
    for (size_t j = 0; j < D; ++j) out.push_back(outSize.size() == 1 ? outSize[0] : outSize[j]);
    return out;
}

// A pool / upsampling output's meta: the input's suggested memory format (channels-last stays).
TensorMeta layoutLike(const TensorMeta& in, DType dt, const Sizes& sizes)
{
    if (isChannelsLastStrides(in) && sizes.size() == in.sizes.size())
        return makeTensor(dt, sizes, stridesFor(sizes, sizes.size() == 4 ? "channels_last" : "channels_last_3d"),
                          in.device);
    return makeContiguous(dt, sizes, in.device);
}

void registerPooling(MetaTable& t)
{
    auto maxPool = [](size_t D, const char* op) {
        return [D, op](const MetaCall& c) {
            const TensorMeta& in = tensorOf(c, "self");
            Sizes out = pooledSizes(c, in, D, op, true);
            return ValueMeta::ofTuple(
                {tensorValue(layoutLike(in, in.dtype, out)), tensorValue(layoutLike(in, DType::I64, out))});
        };
    };
    t["aten.max_pool2d_with_indices.default"] = maxPool(2, "max_pool2d_with_indices");
    t["aten.max_pool3d_with_indices.default"] = maxPool(3, "max_pool3d_with_indices");
    auto avgPool = [](size_t D, const char* op) {
        return [D, op](const MetaCall& c) {
            const TensorMeta& in = tensorOf(c, "self");
            return tensorValue(layoutLike(in, in.dtype, pooledSizes(c, in, D, op, false)));
        };
    };
    t["aten.avg_pool1d.default"] = avgPool(1, "avg_pool1d");
    t["aten.avg_pool2d.default"] = avgPool(2, "avg_pool2d");
    t["aten.avg_pool3d.default"] = avgPool(3, "avg_pool3d");
    auto adaptive = [](size_t D, const char* op) {
        return [D, op](const MetaCall& c) {
            const TensorMeta& in = tensorOf(c, "self");
            return tensorValue(layoutLike(in, in.dtype, adaptiveSizes(in, symListArg(c, "output_size"), D, op)));
        };
    };
    t["aten.adaptive_avg_pool1d.default"] = adaptive(1, "adaptive_avg_pool1d");
    t["aten._adaptive_avg_pool2d.default"] = adaptive(2, "_adaptive_avg_pool2d");
    t["aten._adaptive_avg_pool3d.default"] = adaptive(3, "_adaptive_avg_pool3d");
    // backwards: the gradient of self
    auto likeSelf = [](const MetaCall& c) {
        const TensorMeta& in = tensorOf(c, "self");
        return tensorValue(layoutLike(in, in.dtype, in.sizes));
    };
    t["aten.max_pool2d_with_indices_backward.default"] = likeSelf;
    t["aten.avg_pool2d_backward.default"] = likeSelf;
    t["aten._adaptive_avg_pool2d_backward.default"] = likeSelf;
    t["aten.max_pool3d_with_indices_backward.default"] = likeSelf;
    t["aten.avg_pool3d_backward.default"] = likeSelf;
    t["aten._adaptive_avg_pool3d_backward.default"] = likeSelf;

    auto upsample = [](const char* op) {
        return [op](const MetaCall& c) {
            const TensorMeta& in = tensorOf(c, "input");
            if (in.sizes.size() != 4) throw MetaError(std::string(op) + ": input must be 4-d");
            Sizes out{in.sizes[0], in.sizes[1]};
            if (hasArg(c, "output_size")) {
                Sizes os = symListArg(c, "output_size");
                if (os.size() != 2) throw MetaError(std::string(op) + ": output_size must have 2 values");
                out.insert(out.end(), os.begin(), os.end());
            } else if (hasArg(c, "scale_factors")) {
                const Arg& sf = c.arg("scale_factors");
                if (sf.items.size() != 2) throw MetaError(std::string(op) + ": scale_factors must have 2 values");
                for (size_t j = 0; j < 2; ++j)
                    out.push_back(SymInt(static_cast<int64_t>(static_cast<double>(hintOf(in.sizes[2 + j]))
                                                              * toDouble(sf.items[j], "scale_factors"))));
            } else {
                throw MetaError(std::string(op) + ": needs output_size or scale_factors");
            }
            return tensorValue(layoutLike(in, in.dtype, out));
        };
    };
    t["aten.upsample_nearest2d.vec"] = upsample("upsample_nearest2d");
    t["aten.upsample_bilinear2d.vec"] = upsample("upsample_bilinear2d");
    auto upsampleBackward = [](const char* op) {
        return [op](const MetaCall& c) {
            const TensorMeta& g = tensorOf(c, "grad_output");
            Sizes in = symListArg(c, "input_size");
            if (in.size() != 4) throw MetaError(std::string(op) + ": input_size must have 4 values");
            return tensorValue(makeContiguous(g.dtype, std::move(in), g.device));
        };
    };
    t["aten.upsample_nearest2d_backward.vec"] = upsampleBackward("upsample_nearest2d_backward");
    t["aten.upsample_bilinear2d_backward.vec"] = upsampleBackward("upsample_bilinear2d_backward");
    t["aten.grid_sampler_2d.default"] = [](const MetaCall& c) {
        const TensorMeta& in = tensorOf(c, "input");
        const TensorMeta& grid = tensorOf(c, "grid");
        if (in.sizes.size() != 4 || grid.sizes.size() != 4)
            throw MetaError("grid_sampler_2d: input and grid must be 4-d");
        return tensorValue(
            makeContiguous(in.dtype, {in.sizes[0], in.sizes[1], grid.sizes[1], grid.sizes[2]}, in.device));
    };
}

}  // namespace

void registerNn(MetaTable& t)
{
    registerMatmul(t);
    registerSoftmaxAndNorms(t);
    registerEmbeddingAndLosses(t);
    registerAttention(t);
    registerDropoutAndConvolution(t);
    registerPooling(t);
}

}  // namespace fxl::meta

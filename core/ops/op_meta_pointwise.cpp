// Meta functions of pointwise ops: broadcasting, type promotion with wrapped Python
// scalars, and TensorIterator's output strides.
#include "core/ops/op_meta_pointwise.hpp"

namespace fxl::meta {
namespace {

struct PointwiseSpec
{
    std::vector<std::string> dtypeArgs;  // operands that take part in type promotion
    std::vector<std::string> shapeArgs;  // operands that only broadcast (condition, mask)
    Promotion promotion = Promotion::Default;
    bool scalarsAreOperands = true;  // false where the scalar is an attribute (pow, clamp)
};

ValueMeta pointwise(const MetaCall& c, const PointwiseSpec& spec)
{
    std::vector<Operand> ops;
    std::vector<const TensorMeta*> tensors;
    std::vector<const Sizes*> shapes;
    ops.reserve(spec.dtypeArgs.size());
    for (const auto& n : spec.shapeArgs) {
        const Arg& a = c.arg(n);
        if (a.isNone()) continue;
        const TensorMeta& t = tensorOfArg(c, a, n);
        if (t.dtype != DType::Bool && t.dtype != DType::U8)
            throw MetaError("where expected condition to be a boolean tensor, but got a tensor with dtype "
                            + std::string(dtypeTorchName(t.dtype)));
        tensors.push_back(&t);
        shapes.push_back(&t.sizes);
    }
    for (const auto& n : spec.dtypeArgs) {
        const Arg& a = c.arg(n);
        if (a.isNone()) continue;
        Operand o = operandOf(c, a, n);
        ops.push_back(o);
        if (o.tensor) {
            tensors.push_back(o.tensor);
            shapes.push_back(&o.tensor->sizes);
        }
    }
    if (tensors.empty()) throw MetaError("pointwise op without a tensor operand");
    Sizes shape = broadcastShapes(shapes);
    DType dt;
    dt = applyPromotion(resultType(ops), spec.promotion);
    bool scalarOperand = false;
    if (spec.scalarsAreOperands)
        for (const auto& o : ops)
            if (!o.tensor) scalarOperand = true;
    // TensorIterator lists the inputs in argument order (condition first for where)
    Sizes strides = iteratorStrides(shape, tensors, scalarOperand);
    return tensorValue(makeTensor(dt, std::move(shape), std::move(strides), deviceOfInputs(tensors)));
}

void regPw(MetaTable& t, std::initializer_list<const char*> names, PointwiseSpec spec)
{
    MetaFn fn = [spec](const MetaCall& c) { return pointwise(c, spec); };
    for (const char* n : names) t[n] = fn;
}

// torch.can_cast: the result of an in-place op must fit self's dtype category.
bool canCast(DType from, DType to)
{
    if (isComplex(from) && !isComplex(to)) return false;
    if (isFloatingPoint(from) && isIntegral(to, true)) return false;
    if (from != DType::Bool && to == DType::Bool) return false;
    return true;
}

// In-place ops return self's meta (after checking the other operands broadcast to it
// and that the promoted result can be written back into self).
ValueMeta inplace(const MetaCall& c, std::initializer_list<const char*> others, bool promotes = false)
{
    const ValueMeta& self = c.tensorArg("self");
    if (!self.isTensor()) throw MetaError("argument 'self' has no tensor meta");
    std::vector<Operand> ops{Operand{&self.tensor, DType::Undefined}};
    for (const char* n : others) {
        const Arg& a = c.arg(n);
        if (promotes && !a.isNone()) ops.push_back(operandOf(c, a, n));
        if (!a.isNode()) continue;
        const ValueMeta& v = c.metaOf(a.node);
        if (!v.isTensor()) continue;
        std::vector<const Sizes*> shapes{&self.tensor.sizes, &v.tensor.sizes};
        Sizes b = broadcastShapes(shapes);
        if (b.size() != self.tensor.sizes.size())
            throw MetaError("output with shape " + formatAnnotation(self) + " doesn't match the broadcast shape");
    }
    if (promotes) {
        DType r = resultType(ops);
        if (!canCast(r, self.tensor.dtype))
            throw MetaError("result type " + std::string(dtypeTorchName(r))
                            + " can't be cast to the desired output type "
                            + std::string(dtypeTorchName(self.tensor.dtype)));
    }
    return self;
}

}  // namespace

void registerPointwise(MetaTable& t)
{
    using P = Promotion;
    const std::vector<std::string> selfOther{"self", "other"};
    regPw(t,
          {"aten.add.Tensor",           "aten.add.Scalar",         "aten.sub.Tensor",         "aten.sub.Scalar",
           "aten.rsub.Scalar",          "aten.rsub.Tensor",        "aten.mul.Tensor",         "aten.mul.Scalar",
           "aten.maximum.default",      "aten.minimum.default",    "aten.bitwise_and.Tensor", "aten.bitwise_or.Tensor",
           "aten.bitwise_xor.Tensor",   "aten.bitwise_and.Scalar", "aten.bitwise_or.Scalar",  "aten.remainder.Tensor",
           "aten.remainder.Scalar",     "aten.fmod.Tensor",        "aten.fmod.Scalar",        "aten.bitwise_xor.Scalar",
           "aten.floor_divide.default", "aten.copysign.Tensor"},
          {selfOther, {}, P::Default});
    regPw(t, {"aten.div.Tensor", "aten.div.Scalar", "aten.atan2.default", "aten.true_divide.Tensor"},
          {selfOther, {}, P::IntToFloat});
    // div with rounding_mode: None is true division (integers -> float), 'trunc' / 'floor' keep
    // the promoted dtype
    const PointwiseSpec trueDiv{selfOther, {}, P::IntToFloat}, roundingDiv{selfOther, {}, P::Default};
    t["aten.div.Tensor_mode"] = t["aten.div.Scalar_mode"] = [trueDiv, roundingDiv](const MetaCall& c) {
        return pointwise(c, hasArg(c, "rounding_mode") ? roundingDiv : trueDiv);
    };
    regPw(t,
          {"aten.eq.Scalar", "aten.ne.Scalar", "aten.lt.Scalar", "aten.le.Scalar", "aten.gt.Scalar", "aten.ge.Scalar",
           "aten.eq.Tensor", "aten.ne.Tensor", "aten.lt.Tensor", "aten.le.Tensor", "aten.gt.Tensor", "aten.ge.Tensor",
           "aten.logical_and.default", "aten.logical_or.default", "aten.logical_xor.default"},
          {selfOther, {}, P::AlwaysBool});
    regPw(t, {"aten.logical_not.default", "aten.isnan.default", "aten.isinf.default", "aten.isfinite.default"},
          {{"self"}, {}, P::AlwaysBool});
    regPw(t, {"aten.pow.Tensor_Scalar", "aten.pow.Tensor_Tensor", "aten.pow.Scalar"},
          {{"self", "exponent"}, {}, P::Default, false});
    regPw(t, {"aten.rsqrt.default",   "aten.sqrt.default",  "aten.reciprocal.default", "aten.exp.default",
              "aten.exp2.default",    "aten.expm1.default", "aten.log.default",        "aten.log2.default",
              "aten.log10.default",   "aten.log1p.default", "aten.erf.default",        "aten.erfc.default",
              "aten.erfinv.default",  "aten.tanh.default",  "aten.sin.default",        "aten.cos.default",
              "aten.tan.default",     "aten.asin.default",  "aten.acos.default",       "aten.atan.default",
              "aten.sinh.default",    "aten.cosh.default",  "aten.sigmoid.default",    "aten.lgamma.default",
              "aten.digamma.default", "aten.acosh.default", "aten.asinh.default",      "aten.atanh.default"},
          {{"self"}, {}, P::IntToFloat});
    regPw(t,
          {"aten.neg.default", "aten.relu.default", "aten.sign.default", "aten.bitwise_not.default",
           "aten.ceil.default", "aten.floor.default", "aten.round.default", "aten.trunc.default", "aten.gelu.default",
           "aten.silu.default", "aten.hardtanh.default", "aten.leaky_relu.default", "aten.elu.default",
           "aten.mish.default", "aten.softplus.default", "aten.frac.default", "aten.sgn.default",
           "aten.positive.default"},
          {{"self"}, {}, P::NoOpMath});
    regPw(t, {"aten.abs.default"}, {{"self"}, {}, P::ComplexToFloat});
    regPw(t,
          {"aten.gelu_backward.default", "aten.silu_backward.default", "aten.threshold_backward.default",
           "aten.mish_backward.default", "aten.hardtanh_backward.default", "aten.leaky_relu_backward.default"},
          {{"grad_output", "self"}, {}, P::Default});
    regPw(t, {"aten.sigmoid_backward.default", "aten.tanh_backward.default"},
          {{"grad_output", "output"}, {}, P::Default});
    regPw(t, {"aten.clamp.default", "aten.clamp.Tensor"}, {{"self", "min", "max"}, {}, P::Default, false});
    regPw(t, {"aten.clamp_min.default", "aten.clamp_min.Tensor"}, {{"self", "min"}, {}, P::Default, false});
    regPw(t, {"aten.clamp_max.default", "aten.clamp_max.Tensor"}, {{"self", "max"}, {}, P::Default, false});
    regPw(t, {"aten.where.self", "aten.where.ScalarOther", "aten.where.ScalarSelf", "aten.where.Scalar"},
          {{"self", "other"}, {"condition"}, P::Default});
    regPw(t, {"aten.lerp.Scalar", "aten.lerp.Tensor"}, {{"self", "end", "weight"}, {}, P::Default});
    regPw(t, {"aten.addcmul.default", "aten.addcdiv.default"}, {{"self", "tensor1", "tensor2"}, {}, P::Default});
    regPw(t, {"aten.native_dropout_backward.default"}, {{"grad_output"}, {"mask"}, P::NoOpMath});

    // masked_fill clones the broadcast self contiguously, then fills (CompositeExplicit)
    t["aten.masked_fill.Scalar"] = t["aten.masked_fill.Tensor"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        const TensorMeta& mask = tensorOf(c, "mask");
        if (mask.dtype != DType::Bool) throw MetaError("masked_fill only supports boolean masks");
        Sizes shape = broadcastShapes({&mask.sizes, &self.sizes});
        return tensorValue(makeContiguous(self.dtype, std::move(shape), self.device));
    };
    // masked_scatter: self broadcast with mask, contiguous; source gives the masked elements
    t["aten.masked_scatter.default"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        const TensorMeta& mask = tensorOf(c, "mask");
        const TensorMeta& source = tensorOf(c, "source");
        if (mask.dtype != DType::Bool) throw MetaError("masked_scatter only supports boolean masks");
        if (source.dtype != self.dtype)
            throw MetaError("masked_scatter: expected source and self to have the same dtype");
        Sizes shape = broadcastShapes({&mask.sizes, &self.sizes});
        return tensorValue(makeContiguous(self.dtype, std::move(shape), self.device));
    };

    // atan2.out: the broadcast result written into `out`, which takes its shape (resized when it
    // differs, contiguous then) and keeps its dtype; the float result must be castable to it
    t["aten.atan2.out"] = [](const MetaCall& c) {
        const TensorMeta& out = tensorOf(c, "out");
        ValueMeta r = pointwise(c, {{"self", "other"}, {}, Promotion::IntToFloat});
        if (!canCast(r.tensor.dtype, out.dtype))
            throw MetaError("result type " + std::string(dtypeTorchName(r.tensor.dtype))
                            + " can't be cast to the desired output type " + std::string(dtypeTorchName(out.dtype)));
        if (r.tensor.sizes == out.sizes) return tensorValue(out);
        return tensorValue(makeContiguous(out.dtype, r.tensor.sizes, out.device));
    };

    // in-place ops: result is self
    t["aten.sub_.Tensor"] = [](const MetaCall& c) { return inplace(c, {"other"}, true); };
    t["aten.add_.Tensor"] = [](const MetaCall& c) { return inplace(c, {"other"}, true); };
    t["aten.mul_.Tensor"] = [](const MetaCall& c) { return inplace(c, {"other"}, true); };
    t["aten.div_.Tensor"] = [](const MetaCall& c) { return inplace(c, {"other"}, true); };
    t["aten.copy_.default"] = [](const MetaCall& c) { return inplace(c, {"src"}); };
    t["aten.fill_.Scalar"] = [](const MetaCall& c) { return inplace(c, {}); };
    t["aten.fill_.Tensor"] = [](const MetaCall& c) { return inplace(c, {}); };
    t["aten.zero_.default"] = [](const MetaCall& c) { return inplace(c, {}); };
    t["aten.index_put_.default"] = [](const MetaCall& c) { return inplace(c, {}); };
    t["aten.scatter_add_.default"] = [](const MetaCall& c) { return inplace(c, {}); };
    t["aten.masked_fill_.Scalar"] = [](const MetaCall& c) { return inplace(c, {}); };
    t["aten.clamp_.default"] = [](const MetaCall& c) { return inplace(c, {}); };
}

}  // namespace fxl::meta

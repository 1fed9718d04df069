// Floating-point unary kernels and activation backward: rsqrt, sqrt, reciprocal, exp, log,
// log2, log10, tanh, erf, sin, cos, tan, asin, acos, atan, sinh, cosh, asinh, acosh, atanh,
// atan2, sigmoid, silu, gelu (erf and tanh forms) and gelu / silu / sigmoid / tanh backward.
// Each element's formula is in runtime/math/activations.hpp (PyTorch CPU's scalar ones, with
// fxlens' correctly rounded functions), evaluated in f32 for f32/bf16/f16 (rounded once) and in
// f64 for f64; this file holds the argument handling, the dtype dispatch and the loops. Also
// the piecewise-linear activations: relu, threshold_backward, hardtanh, leaky_relu and their
// backward.
#include "runtime/cpu/cpu_elementwise_act.hpp"
#include "runtime/math/activations.hpp"

#include <cmath>

#include "runtime/cpu/cpu_elementwise_binary.hpp"

namespace fxl::cpu::ew {
namespace {

using namespace math::act;  // the per-element formulas (runtime/math/activations.hpp)

// out = F(self) for floating dtypes. Integer/bool inputs are computed in f32 when
// `intToFloat` (PyTorch's unary float ops: rsqrt, sigmoid), rejected otherwise (gelu, silu).
template<template<class> class F>
void floatUnary(KernelCall& call, const char* name, bool intToFloat)
{
    const Tensor& self = call.tensor("self");
    DType compute = self.dtype();
    if (!isFloatingPoint(compute)) {
        if (!intToFloat)
            throw KernelError(std::string(name) + ": expects a floating point tensor, got "
                              + std::string(dtypeAbbr(compute)));
        compute = DType::F32;
    }
    Tensor out = allocStrided(call, self.sizes(), iteratorStrides(self.sizes(), {&self}, 0), compute);
    const Tensor in = castTo(call, self, compute);
    dispatch<Set::Float>(compute, name, [&](auto tag) {
        using S = typename decltype(tag)::type;
        pointwise<S, S>(call.pool, out, {in}, lifted<S, S>(F<typename Num<S>::C>{}), kGrainMath);
    });
    call.result = Value::ofTensor(out);
}

// out = F(a, b) for two floating tensors promoted together and broadcast.
template<template<class> class F>
void floatBinary(KernelCall& call, const char* name, const char* aName, const char* bName)
{
    const Value& av = call.arg(aName);
    const Value& bv = call.arg(bName);
    if (!av.isTensor() || !bv.isTensor()) throw KernelError(std::string(name) + ": expects two tensors");
    const DType common = resultType({&av, &bv});
    if (!isFloatingPoint(common)) throw KernelError(std::string(name) + ": expects floating point tensors");
    const std::vector<int64_t> shape = broadcastShapes(av.tensor.sizes(), bv.tensor.sizes());
    Tensor out = allocStrided(call, shape, iteratorStrides(shape, {&av.tensor, &bv.tensor}, 0), common);
    const Tensor a = expandTo(castTo(call, av.tensor, common), shape);
    const Tensor b = expandTo(castTo(call, bv.tensor, common), shape);
    dispatch<Set::Float>(common, name, [&](auto tag) {
        using S = typename decltype(tag)::type;
        pointwise<S, S, S>(call.pool, out, {a, b}, lifted<S, S, S>(F<typename Num<S>::C>{}), kGrainMath);
    });
    call.result = Value::ofTensor(out);
}

// atan2(self, other): both tensors, promoted together (integers and bool to f32), broadcast;
// one runtime/math atan2 per element (correctly rounded in float for f32 / bf16 / f16).
void atan2Kernel(KernelCall& call)
{
    const Value& av = call.arg("self");
    const Value& bv = call.arg("other");
    if (!av.isTensor() || !bv.isTensor()) throw KernelError("atan2: expects two tensors");
    DType common = resultType({&av, &bv});
    if (!isFloatingPoint(common)) common = DType::F32;
    Tensor out = binaryOutput(call, av, bv, common);
    dispatch<Set::Float>(common, "atan2", [&](auto tag) {
        using S = typename decltype(tag)::type;
        using C = typename Num<S>::C;
        runBinary<S>(call, out, av, bv, Atan2<C>{}, kGrainMath);
    });
    call.result = Value::ofTensor(out);
}

// atan2.out(self, other, out): atan2 computed as above (in the promoted float type), then cast
// into out, which is resized to the result's shape first when its shape differs.
void atan2OutKernel(KernelCall& call)
{
    atan2Kernel(call);
    const Tensor result = call.result.tensor;
    const Tensor& out = call.tensor("out");
    if (!canCast(result.dtype(), out.dtype()))
        throw KernelError("result type " + std::string(dtypeTorchName(result.dtype()))
                          + " can't be cast to the desired output type " + std::string(dtypeTorchName(out.dtype())));
    const Tensor dst = resizedTensor(call, out, result.sizes(), Value::none());
    castInto(call, dst, result);
    call.result = Value::ofTensor(dst);
}

// elu(self, alpha, scale, input_scale): x <= 0 ? (exp(x * input_scale) - 1) * alpha * scale
// : x * scale, the coefficients rounded to the tensor's precision first (as PyTorch).
void eluKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    if (!isFloatingPoint(self.dtype())) throw KernelError("elu: expects a floating point tensor");
    const Value alpha = call.arg("alpha"), scale = call.arg("scale"), inputScale = call.arg("input_scale");
    Tensor out = allocStrided(call, self.sizes(), iteratorStrides(self.sizes(), {&self}, 0), self.dtype());
    dispatch<Set::Float>(self.dtype(), "elu", [&](auto tag) {
        using S = typename decltype(tag)::type;
        using C = typename Num<S>::C;
        // bf16/f16: PyTorch computes the coefficients in f32
        auto coef = [](const Value& v) {
            return kIsReduced<S> ? static_cast<C>(v.toDouble()) : Num<S>::load(checkedScalarTo<S>(v, "elu"));
        };
        const C negcoef = coef(alpha) * coef(scale), poscoef = coef(scale), negiptcoef = coef(inputScale);
        pointwise<S, S>(call.pool, out, {self}, lifted<S, S>(Elu<C>{negcoef, poscoef, negiptcoef}), kGrainMath);
    });
    call.result = Value::ofTensor(out);
}

// softplus(self, beta, threshold): x * beta > threshold ? x : log1p(exp(x * beta)) / beta.
void softplusKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    if (!isFloatingPoint(self.dtype())) throw KernelError("softplus: expects a floating point tensor");
    const Value betaV = call.arg("beta"), thresholdV = call.arg("threshold");
    Tensor out = allocStrided(call, self.sizes(), iteratorStrides(self.sizes(), {&self}, 0), self.dtype());
    dispatch<Set::Float>(self.dtype(), "softplus", [&](auto tag) {
        using S = typename decltype(tag)::type;
        using C = typename Num<S>::C;
        auto coef = [](const Value& v) {
            return kIsReduced<S> ? static_cast<C>(v.toDouble()) : Num<S>::load(checkedScalarTo<S>(v, "softplus"));
        };
        const C beta = coef(betaV), threshold = coef(thresholdV);
        pointwise<S, S>(call.pool, out, {self}, lifted<S, S>(Softplus<C>{beta, threshold}), kGrainMath);
    });
    call.result = Value::ofTensor(out);
}

bool tanhApproximate(const KernelCall& call)
{
    const int k = call.argIndex("approximate");
    if (k < 0 || static_cast<size_t>(k) >= call.args.size() || call.args[static_cast<size_t>(k)].isNone()) return false;
    const std::string& s = call.args[static_cast<size_t>(k)].s;
    if (s == "tanh") return true;
    if (s == "none") return false;
    throw KernelError("gelu: approximate must be 'none' or 'tanh', got '" + s + "'");
}

void geluKernel(KernelCall& call)
{
    if (tanhApproximate(call))
        floatUnary<GeluTanh>(call, "gelu", false);
    else
        floatUnary<Gelu>(call, "gelu", false);
}

void geluBackwardKernel(KernelCall& call)
{
    if (tanhApproximate(call))
        floatBinary<GeluTanhBackward>(call, "gelu_backward", "grad_output", "self");
    else
        floatBinary<GeluBackward>(call, "gelu_backward", "grad_output", "self");
}

// ---- relu, threshold_backward, hardtanh, leaky_relu (and their backward): clamps and selections

// relu = clamp_min(self, 0): std::max(x, 0), so NaN and -0 pass through.
void reluKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    if (self.dtype() == DType::Bool) throw KernelError("relu: bool tensors are not supported");
    unaryKernel<Set::Numeric>(call, "relu", self.dtype(), [](auto tag) {
        using S = typename decltype(tag)::type;
        return Relu<typename Num<S>::C>{};
    });
}

// threshold_backward(grad_output, self, threshold) = self <= threshold ? 0 : grad_output.
void thresholdBackwardKernel(KernelCall& call)
{
    const Value& g = call.arg("grad_output");
    const Value& x = call.arg("self");
    const Value& th = call.arg("threshold");
    if (!g.isTensor() || !x.isTensor() || !isScalarValue(th))
        throw KernelError("threshold_backward: expects (Tensor, Tensor, Scalar)");
    const DType common = resultType({&g, &x});
    Tensor out = binaryOutput(call, x, g, common);
    dispatch<Set::Numeric>(common, "threshold_backward", [&](auto tag) {
        using S = typename decltype(tag)::type;
        using C = typename Num<S>::C;
        const C t = Num<S>::load(checkedScalarTo<S>(th, "threshold_backward"));
        runBinary<S>(call, out, x, g, ThresholdBackward<C>{t});
    });
    call.result = Value::ofTensor(out);
}

// hardtanh(self, min_val, max_val) = clamp(self, min_val, max_val) for floating tensors.
void hardtanhKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    if (!isFloatingPoint(self.dtype())) throw KernelError("hardtanh: expects a floating point tensor");
    const Value lo = call.arg("min_val"), hi = call.arg("max_val");
    unaryKernel<Set::Float>(call, "hardtanh", self.dtype(), [&](auto tag) {
        using S = typename decltype(tag)::type;
        using C = typename Num<S>::C;
        const C l = Num<S>::load(checkedScalarTo<S>(lo, "hardtanh")),
                h = Num<S>::load(checkedScalarTo<S>(hi, "hardtanh"));
        return Hardtanh<C>{l, h};
    });
}

// Binary (grad_output, self) float ops with scalar parameters, in the result type.
template<class Make>
void gradSelfKernel(KernelCall& call, const char* name, Make make)
{
    const Value& g = call.arg("grad_output");
    const Value& x = call.arg("self");
    if (!g.isTensor() || !x.isTensor()) throw KernelError(std::string(name) + ": expects two tensors");
    const DType common = resultType({&g, &x});
    if (!isFloatingPoint(common)) throw KernelError(std::string(name) + ": expects floating point tensors");
    Tensor out = binaryOutput(call, g, x, common);
    dispatch<Set::Float>(common, name,
                         [&](auto tag) { runBinary<typename decltype(tag)::type>(call, out, g, x, make(tag)); });
    call.result = Value::ofTensor(out);
}

void hardtanhBackwardKernel(KernelCall& call)
{
    const Value lo = call.arg("min_val"), hi = call.arg("max_val");
    gradSelfKernel(call, "hardtanh_backward", [&](auto tag) {
        using S = typename decltype(tag)::type;
        using C = typename Num<S>::C;
        const C l = Num<S>::load(checkedScalarTo<S>(lo, "hardtanh_backward"));
        const C h = Num<S>::load(checkedScalarTo<S>(hi, "hardtanh_backward"));
        return HardtanhBackward<C>{l, h};
    });
}

void leakyReluKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    if (!isFloatingPoint(self.dtype())) throw KernelError("leaky_relu: expects a floating point tensor");
    const Value slope = call.arg("negative_slope");
    unaryKernel<Set::Float>(call, "leaky_relu", self.dtype(), [&](auto tag) {
        using S = typename decltype(tag)::type;
        using C = typename Num<S>::C;
        // bf16/f16: the slope in f32 (PyTorch's reduced-precision path)
        const C k =
            kIsReduced<S> ? static_cast<C>(slope.toDouble()) : Num<S>::load(checkedScalarTo<S>(slope, "leaky_relu"));
        return LeakyRelu<C>{k};
    });
}

void leakyReluBackwardKernel(KernelCall& call)
{
    const Value slope = call.arg("negative_slope");
    gradSelfKernel(call, "leaky_relu_backward", [&](auto tag) {
        using S = typename decltype(tag)::type;
        using C = typename Num<S>::C;
        const C k = kIsReduced<S> ? static_cast<C>(slope.toDouble())
                                  : Num<S>::load(checkedScalarTo<S>(slope, "leaky_relu_backward"));
        return LeakyReluBackward<C>{k};
    });
}

}  // namespace

void registerActivations(KernelRegistry& reg, DeviceKind d)
{
    reg.add("aten.relu.default", d, reluKernel);
    reg.add("aten.threshold_backward.default", d, thresholdBackwardKernel);
    reg.add("aten.hardtanh.default", d, hardtanhKernel);
    reg.add("aten.hardtanh_backward.default", d, hardtanhBackwardKernel);
    reg.add("aten.leaky_relu.default", d, leakyReluKernel);
    reg.add("aten.leaky_relu_backward.default", d, leakyReluBackwardKernel);
    reg.add("aten.rsqrt.default", d, [](KernelCall& c) { floatUnary<Rsqrt>(c, "rsqrt", true); });
    reg.add("aten.sigmoid.default", d, [](KernelCall& c) { floatUnary<Sigmoid>(c, "sigmoid", true); });
    reg.add("aten.silu.default", d, [](KernelCall& c) { floatUnary<Silu>(c, "silu", false); });
    reg.add("aten.gelu.default", d, geluKernel);
    reg.add("aten.sqrt.default", d, [](KernelCall& c) { floatUnary<Sqrt>(c, "sqrt", true); });
    reg.add("aten.reciprocal.default", d, [](KernelCall& c) { floatUnary<Reciprocal>(c, "reciprocal", true); });
    reg.add("aten.exp.default", d, [](KernelCall& c) { floatUnary<Exp>(c, "exp", true); });
    reg.add("aten.log.default", d, [](KernelCall& c) { floatUnary<Log>(c, "log", true); });
    reg.add("aten.tanh.default", d, [](KernelCall& c) { floatUnary<Tanh>(c, "tanh", true); });
    reg.add("aten.erf.default", d, [](KernelCall& c) { floatUnary<Erf>(c, "erf", true); });
    reg.add("aten.acos.default", d, [](KernelCall& c) { floatUnary<Acos>(c, "acos", true); });
    reg.add("aten.expm1.default", d, [](KernelCall& c) { floatUnary<Expm1>(c, "expm1", true); });
    reg.add("aten.log1p.default", d, [](KernelCall& c) { floatUnary<Log1p>(c, "log1p", true); });
    reg.add("aten.elu.default", d, eluKernel);
    reg.add("aten.softplus.default", d, softplusKernel);
    reg.add("aten.sin.default", d, [](KernelCall& c) { floatUnary<Sin>(c, "sin", true); });
    reg.add("aten.cos.default", d, [](KernelCall& c) { floatUnary<Cos>(c, "cos", true); });
    reg.add("aten.asin.default", d, [](KernelCall& c) { floatUnary<Asin>(c, "asin", true); });
    reg.add("aten.acosh.default", d, [](KernelCall& c) { floatUnary<Acosh>(c, "acosh", true); });
    reg.add("aten.asinh.default", d, [](KernelCall& c) { floatUnary<Asinh>(c, "asinh", true); });
    reg.add("aten.atan.default", d, [](KernelCall& c) { floatUnary<Atan>(c, "atan", true); });
    reg.add("aten.atanh.default", d, [](KernelCall& c) { floatUnary<Atanh>(c, "atanh", true); });
    reg.add("aten.cosh.default", d, [](KernelCall& c) { floatUnary<Cosh>(c, "cosh", true); });
    reg.add("aten.sinh.default", d, [](KernelCall& c) { floatUnary<Sinh>(c, "sinh", true); });
    reg.add("aten.tan.default", d, [](KernelCall& c) { floatUnary<Tan>(c, "tan", true); });
    reg.add("aten.log10.default", d, [](KernelCall& c) { floatUnary<Log10>(c, "log10", true); });
    reg.add("aten.log2.default", d, [](KernelCall& c) { floatUnary<Log2>(c, "log2", true); });
    reg.add("aten.atan2.default", d, atan2Kernel);
    reg.add("aten.atan2.out", d, atan2OutKernel);
    reg.add("aten.sigmoid_backward.default", d,
            [](KernelCall& c) { floatBinary<SigmoidBackward>(c, "sigmoid_backward", "grad_output", "output"); });
    reg.add("aten.tanh_backward.default", d,
            [](KernelCall& c) { floatBinary<TanhBackward>(c, "tanh_backward", "grad_output", "output"); });
    reg.add("aten.silu_backward.default", d,
            [](KernelCall& c) { floatBinary<SiluBackward>(c, "silu_backward", "grad_output", "self"); });
    reg.add("aten.gelu_backward.default", d, geluBackwardKernel);
}

}  // namespace fxl::cpu::ew

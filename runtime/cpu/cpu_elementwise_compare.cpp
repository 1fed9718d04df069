// Comparison, min/max, clamp, logical and predicate kernels: eq/ne/lt/le/gt/ge, maximum /
// minimum, clamp (scalar and tensor bounds, in place), logical_not/and/or/xor, bitwise
// and/or/xor (tensor and scalar operands), isnan / isinf, in the dtype torch.result_type gives.
#include "runtime/cpu/cpu_elementwise_compare.hpp"

#include "runtime/cpu/cpu_elementwise_binary.hpp"
#include "runtime/math/compare.hpp"

namespace fxl::cpu::ew {
namespace {

using math::cmp::Cmp;
using math::cmp::Logic;

// self <op> other in their result type; a bool tensor.
void compareKernel(KernelCall& call, Cmp cmp, const char* name)
{
    const Value& a = call.arg("self");
    const Value& b = call.arg("other");
    needOperand(a, name, "self");
    needOperand(b, name, "other");
    const DType common = resultType({&a, &b});
    Tensor out = binaryOutput(call, a, b, DType::Bool);
    dispatch<Set::All>(common, name, [&](auto tag) {
        using S = typename decltype(tag)::type;
        using C = typename Num<S>::C;
        runBinary<S, B8>(call, out, a, b, pw::Compare<C>{cmp});
    });
    call.result = Value::ofTensor(out);
}

// maximum / minimum: NaN wins (PyTorch propagates it), else the larger / smaller.
void minMaxKernel(KernelCall& call, bool isMax)
{
    const Value& a = call.arg("self");
    const Value& b = call.arg("other");
    if (!a.isTensor() || !b.isTensor()) throw KernelError("maximum/minimum: expects two tensors");
    const DType common = resultType({&a, &b});
    Tensor out = binaryOutput(call, a, b, common);
    dispatch<Set::All>(common, isMax ? "maximum" : "minimum", [&](auto tag) {
        using S = typename decltype(tag)::type;
        using C = typename Num<S>::C;
        runBinary<S>(call, out, a, b, pw::MinMax<C>{isMax});
    });
    call.result = Value::ofTensor(out);
}

// clamp(self, min, max) = min(max(self, lo), hi) with std::max / std::min (NaN stays NaN);
// integer tensors promote with float bounds (torch 1.13 clamp's manual promotion).
void clampKernel(KernelCall& call, bool hasLo, bool hasHi, bool inplace = false)
{
    const Value& self = call.arg("self");
    static const Value kNone;
    const Value& lo = hasLo ? call.arg("min") : kNone;
    const Value& hi = hasHi ? call.arg("max") : kNone;
    if (!self.isTensor()) throw KernelError("clamp: self must be a tensor");
    if (lo.isNone() && hi.isNone()) throw KernelError("clamp: at least one of 'min' or 'max' must not be None");
    for (const Value* v : {&lo, &hi})
        if (!v->isNone() && !isScalarValue(*v)) throw KernelError("clamp: bounds must be numbers");
    const DType common =
        isFloatingPoint(self.tensor.dtype()) || inplace ? self.tensor.dtype() : resultType({&self, &lo, &hi});
    if (common == DType::Bool) throw KernelError("clamp: bool tensors are not supported");
    if (inplace && resultType({&self, &lo, &hi}) != common)
        throw KernelError("clamp_: the bounds would promote self's dtype (in-place clamp cannot)");
    unaryKernel<Set::Numeric>(
        call, "clamp", common,
        [&](auto tag) {
            using S = typename decltype(tag)::type;
            using C = typename Num<S>::C;
            const bool useLo = !lo.isNone(), useHi = !hi.isNone();
            const C l = useLo ? Num<S>::load(checkedScalarTo<S>(lo, "clamp")) : C(0);
            const C h = useHi ? Num<S>::load(checkedScalarTo<S>(hi, "clamp")) : C(0);
            // a NaN bound gives NaN everywhere for clamp_min / clamp_max and for clamp with both
            // bounds; clamp with one NaN bound and the other None leaves self as it is (PyTorch 1.13)
            bool nanOut = false;
            if constexpr (kIsFloat<S>)
                nanOut = ((useLo && l != l) || (useHi && h != h)) && (hasLo != hasHi || (useLo && useHi));
            const C nan = nanOut ? (useLo && l != l ? l : h) : C(0);
            return math::cmp::ClampScalar<C>{l, h, nan, useLo, useHi, nanOut};
        },
        kGrainCheap, inplace);
}

void logicalNotKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    Tensor out = allocStrided(call, self.sizes(), iteratorStrides(self.sizes(), {&self}, 0), DType::Bool);
    dispatch<Set::All>(self.dtype(), "logical_not", [&](auto tag) {
        using S = typename decltype(tag)::type;
        using C = typename Num<S>::C;
        pointwise<B8, S>(call.pool, out, {self}, lifted<B8, S>(pw::LogicalNot<C>{}));
    });
    call.result = Value::ofTensor(out);
}

// bitwise_and / or / xor (Tensor and Scalar overloads): integral and bool result types only.
void bitwiseBinaryKernel(KernelCall& call, Logic op, bool scalarOverload = false)
{
    const char* name = op == Logic::And ? "bitwise_and" : op == Logic::Or ? "bitwise_or" : "bitwise_xor";
    const Value& a = call.arg("self");
    Value b = call.arg("other");
    // a Python bool given as the Scalar operand is the int 0 / 1 (PyTorch 1.13's binding of a
    // Scalar argument reads a bool as an int: bool_tensor & True is int64)
    if (scalarOverload && b.kind == Value::Kind::Bool) b = Value::ofInt(b.b ? 1 : 0);
    needOperand(a, name, "self");
    needOperand(b, name, "other");
    const DType common = resultType({&a, &b});
    if (isFloatingPoint(common))
        throw KernelError(std::string(name) + ": only integral and bool tensors are supported");
    Tensor out = binaryOutput(call, a, b, common);
    dispatch<Set::All>(common, name, [&](auto tag) {
        using S = typename decltype(tag)::type;
        using C = typename Num<S>::C;
        if constexpr (!kIsFloat<S>) runBinary<S>(call, out, a, b, pw::Bitwise<C>{op});
    });
    call.result = Value::ofTensor(out);
}

void isKernel(KernelCall& call, bool nan)
{
    const Tensor& self = call.tensor("self");
    Tensor out = allocStrided(call, self.sizes(), iteratorStrides(self.sizes(), {&self}, 0), DType::Bool);
    dispatch<Set::All>(self.dtype(), nan ? "isnan" : "isinf", [&](auto tag) {
        using S = typename decltype(tag)::type;
        using C = typename Num<S>::C;
        pointwise<B8, S>(call.pool, out, {self}, lifted<B8, S>(pw::IsNanInf<C>{nan}));
    });
    call.result = Value::ofTensor(out);
}

void logicalBinaryKernel(KernelCall& call, Logic op)
{
    const char* name = op == Logic::And ? "logical_and" : op == Logic::Or ? "logical_or" : "logical_xor";
    const Value& a = call.arg("self");
    const Value& b = call.arg("other");
    if (!a.isTensor() || !b.isTensor()) throw KernelError(std::string(name) + ": expects two tensors");
    const DType common = resultType({&a, &b});
    Tensor out = binaryOutput(call, a, b, DType::Bool);
    dispatch<Set::All>(common, name, [&](auto tag) {
        using S = typename decltype(tag)::type;
        using C = typename Num<S>::C;
        runBinary<S, B8>(call, out, a, b, pw::Logical<C>{op});
    });
    call.result = Value::ofTensor(out);
}

// clamp_min.Tensor / clamp_max.Tensor: maximum / minimum with the bound tensor (NaN wins).
void clampTensorKernel(KernelCall& call, bool isMin)
{
    const Value& self = call.arg("self");
    const Value& bound = call.arg(isMin ? "min" : "max");
    if (!self.isTensor() || !bound.isTensor()) throw KernelError("clamp: expects tensors");
    const DType common = resultType({&self, &bound});
    Tensor out = binaryOutput(call, self, bound, common);
    dispatch<Set::Numeric>(common, "clamp", [&](auto tag) {
        using S = typename decltype(tag)::type;
        using C = typename Num<S>::C;
        runBinary<S>(call, out, self, bound, pw::MinMax<C>{isMin});
    });
    call.result = Value::ofTensor(out);
}

// clamp.Tensor(self, min, max): self, min and max promoted together and broadcast; with both
// bounds min(max(x, lo), hi), else maximum / minimum with the one bound. A NaN in any operand
// gives NaN (PyTorch's clamp_stub with tensor bounds, maximum_stub / minimum_stub).
void clampTensorBothKernel(KernelCall& call)
{
    const Value& self = call.arg("self");
    static const Value kNone;
    const Value& lo = argOr(call, "min", kNone);
    const Value& hi = argOr(call, "max", kNone);
    if (!self.isTensor()) throw KernelError("clamp: self must be a tensor");
    if (lo.isNone() && hi.isNone()) throw KernelError("clamp: at least one of 'min' or 'max' must not be None");
    for (const Value* v : {&lo, &hi})
        if (!v->isNone() && !v->isTensor()) throw KernelError("clamp.Tensor: bounds must be tensors or None");
    std::vector<const Value*> ops{&self};
    if (!lo.isNone()) ops.push_back(&lo);
    if (!hi.isNone()) ops.push_back(&hi);
    const DType common = resultType(ops);
    if (common == DType::Bool) throw KernelError("clamp: bool tensors are not supported");
    const std::vector<int64_t> shape = broadcastOf(ops);
    const std::vector<const Tensor*> ts = tensorsOf(ops);
    Tensor out = allocStrided(call, shape, iteratorStrides(shape, ts, 0), common);
    auto prep = [&](const Value& v) { return expandTo(castTo(call, v.tensor, common), shape); };
    dispatch<Set::Numeric>(common, "clamp", [&](auto tag) {
        using S = typename decltype(tag)::type;
        using C = typename Num<S>::C;
        if (!lo.isNone() && !hi.isNone())
            pointwise<S, S, S, S>(call.pool, out, {prep(self), prep(lo), prep(hi)},
                                  lifted<S, S, S, S>(pw::ClampBoth<C>{}));
        else if (!lo.isNone())
            pointwise<S, S, S>(call.pool, out, {prep(self), prep(lo)}, lifted<S, S, S>(pw::MinMax<C>{true}));
        else
            pointwise<S, S, S>(call.pool, out, {prep(self), prep(hi)}, lifted<S, S, S>(pw::MinMax<C>{false}));
    });
    call.result = Value::ofTensor(out);
}

}  // namespace

void registerComparisons(KernelRegistry& reg, DeviceKind d)
{
    reg.add("aten.eq.Scalar", d, [](KernelCall& c) { compareKernel(c, Cmp::Eq, "eq"); });
    reg.add("aten.ne.Scalar", d, [](KernelCall& c) { compareKernel(c, Cmp::Ne, "ne"); });
    reg.add("aten.lt.Scalar", d, [](KernelCall& c) { compareKernel(c, Cmp::Lt, "lt"); });
    reg.add("aten.le.Scalar", d, [](KernelCall& c) { compareKernel(c, Cmp::Le, "le"); });
    reg.add("aten.gt.Scalar", d, [](KernelCall& c) { compareKernel(c, Cmp::Gt, "gt"); });
    reg.add("aten.ge.Scalar", d, [](KernelCall& c) { compareKernel(c, Cmp::Ge, "ge"); });
    reg.add("aten.eq.Tensor", d, [](KernelCall& c) { compareKernel(c, Cmp::Eq, "eq"); });
    reg.add("aten.ne.Tensor", d, [](KernelCall& c) { compareKernel(c, Cmp::Ne, "ne"); });
    reg.add("aten.lt.Tensor", d, [](KernelCall& c) { compareKernel(c, Cmp::Lt, "lt"); });
    reg.add("aten.le.Tensor", d, [](KernelCall& c) { compareKernel(c, Cmp::Le, "le"); });
    reg.add("aten.gt.Tensor", d, [](KernelCall& c) { compareKernel(c, Cmp::Gt, "gt"); });
    reg.add("aten.ge.Tensor", d, [](KernelCall& c) { compareKernel(c, Cmp::Ge, "ge"); });
    reg.add("aten.maximum.default", d, [](KernelCall& c) { minMaxKernel(c, true); });
    reg.add("aten.minimum.default", d, [](KernelCall& c) { minMaxKernel(c, false); });
    reg.add("aten.clamp.default", d, [](KernelCall& c) { clampKernel(c, true, true); });
    reg.add("aten.clamp_min.default", d, [](KernelCall& c) { clampKernel(c, true, false); });
    reg.add("aten.clamp_max.default", d, [](KernelCall& c) { clampKernel(c, false, true); });
    reg.add("aten.logical_not.default", d, logicalNotKernel);
    reg.add("aten.bitwise_and.Tensor", d, [](KernelCall& c) { bitwiseBinaryKernel(c, Logic::And); });
    reg.add("aten.bitwise_or.Tensor", d, [](KernelCall& c) { bitwiseBinaryKernel(c, Logic::Or); });
    reg.add("aten.bitwise_xor.Tensor", d, [](KernelCall& c) { bitwiseBinaryKernel(c, Logic::Xor); });
    reg.add("aten.bitwise_and.Scalar", d, [](KernelCall& c) { bitwiseBinaryKernel(c, Logic::And, true); });
    reg.add("aten.bitwise_or.Scalar", d, [](KernelCall& c) { bitwiseBinaryKernel(c, Logic::Or, true); });
    reg.add("aten.bitwise_xor.Scalar", d, [](KernelCall& c) { bitwiseBinaryKernel(c, Logic::Xor, true); });
    reg.add("aten.clamp.Tensor", d, clampTensorBothKernel);
    reg.add("aten.clamp_.default", d, [](KernelCall& c) { clampKernel(c, true, true, true); });
    reg.add("aten.clamp_min.Tensor", d, [](KernelCall& c) { clampTensorKernel(c, true); });
    reg.add("aten.clamp_max.Tensor", d, [](KernelCall& c) { clampTensorKernel(c, false); });
    reg.add("aten.isnan.default", d, [](KernelCall& c) { isKernel(c, true); });
    reg.add("aten.isinf.default", d, [](KernelCall& c) { isKernel(c, false); });
    reg.add("aten.logical_and.default", d, [](KernelCall& c) { logicalBinaryKernel(c, Logic::And); });
    reg.add("aten.logical_or.default", d, [](KernelCall& c) { logicalBinaryKernel(c, Logic::Or); });
    reg.add("aten.logical_xor.default", d, [](KernelCall& c) { logicalBinaryKernel(c, Logic::Xor); });
}

}  // namespace fxl::cpu::ew

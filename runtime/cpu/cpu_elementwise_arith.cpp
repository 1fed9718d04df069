// Arithmetic and selection kernels: add/sub (alpha), mul, div (and rounding modes), neg, abs,
// sign, pow (three forms), bitwise_not, masked_fill, where, floor/ceil/trunc/round, fmod /
// remainder, addcmul / addcdiv, lerp, in the dtype torch.result_type gives (Python numbers are
// wrapped numbers: they do not raise a tensor's dtype within its category).
#include "runtime/cpu/cpu_elementwise_arith.hpp"
#include "runtime/math/arith.hpp"

#include "runtime/cpu/cpu_elementwise_binary.hpp"

namespace fxl::cpu::ew {
namespace {

enum class Bin
{
    Add,
    Sub,
    Mul,
    Div
};

const char* binName(Bin op)
{
    switch (op) {
    case Bin::Add: return "add";
    case Bin::Sub: return "sub";
    case Bin::Mul: return "mul";
    case Bin::Div: return "div";
    }
    return "?";
}

// add/sub/mul/div, functional (a new output laid out as TensorIterator would) or in place
// (writes self; the result type must cast to self's dtype).
void binaryKernel(KernelCall& call, Bin op, bool inplace, bool reversed = false)
{
    const char* name = binName(op);
    const Value* a = &call.arg("self");
    const Value* b = &call.arg("other");
    if (reversed) std::swap(a, b);  // rsub: other - alpha * self
    needOperand(*a, name, "self");
    needOperand(*b, name, "other");
    const bool hasAlpha = op == Bin::Add || op == Bin::Sub;
    const Value& alpha = hasAlpha ? argOr(call, "alpha", intOne()) : intOne();
    DType common = resultType({a, b});
    if (op == Bin::Div && !isFloatingPoint(common)) common = DType::F32;  // true division of integers
    auto isBool = [](const Value* v) {
        return v->kind == Value::Kind::Bool || (v->isTensor() && v->tensor.dtype() == DType::Bool);
    };
    if (op == Bin::Sub && (isBool(a) || isBool(b)))
        throw KernelError("sub: subtraction with a bool tensor is not supported (use logical_not / logical_xor)");
    if (hasAlpha && alpha.kind == Value::Kind::Float && !isFloatingPoint(common))
        throw KernelError(std::string(name)
                          + ": for integral input tensors, argument alpha must not be a floating point number");
    if (hasAlpha && alpha.kind == Value::Kind::Int && common == DType::Bool && alpha.i != 0 && alpha.i != 1)
        throw KernelError(std::string(name) + ": boolean alpha only supports True/False");

    Tensor out, self;
    const std::vector<const Value*> ops = {a, b};
    if (inplace) {
        self = call.tensor("self");
        if (broadcastOf(ops) != self.sizes())
            throw KernelError(std::string(name)
                              + "_: the result's shape differs from self's (in-place ops cannot broadcast self)");
        if (!canCast(common, self.dtype()))
            throw KernelError(std::string(name) + "_: result type " + std::string(dtypeAbbr(common))
                              + " can't be cast to the desired output type " + std::string(dtypeAbbr(self.dtype())));
        out = self.dtype() == common ? self : call.newTensor(self.sizes(), common);
    } else {
        const std::vector<int64_t> shape = broadcastOf(ops);
        out = allocStrided(call, shape, iteratorStrides(shape, tensorsOf(ops), scalarsOf(ops)), common);
    }

    auto run = [&](auto tag) {
        using S = typename decltype(tag)::type;
        using C = typename Num<S>::C;
        const C al = Num<S>::load(checkedScalarTo<S>(alpha, name));
        const bool unit = alpha.toDouble() == 1.0;
        switch (op) {
        case Bin::Add: runBinary<S>(call, out, *a, *b, math::arith::Add<C>{al, unit}); break;
        case Bin::Sub:
            if constexpr (!kIsBool<S>) runBinary<S>(call, out, *a, *b, math::arith::Sub<C>{al, unit});
            break;
        case Bin::Mul: runBinary<S>(call, out, *a, *b, math::arith::Mul<C>{}); break;
        case Bin::Div:
            if constexpr (kIsFloat<S>) runBinary<S>(call, out, *a, *b, math::arith::Div<C>{});
            break;
        }
    };
    if (op == Bin::Div)
        dispatch<Set::Float>(common, name, run);
    else if (op == Bin::Sub)
        dispatch<Set::Numeric>(common, name, run);
    else
        dispatch<Set::All>(common, name, run);

    if (inplace) {
        if (out.storage() != self.storage()) castInto(call, self, out);
        call.result = Value::ofTensor(self);
    } else {
        call.result = Value::ofTensor(out);
    }
}

void negKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    if (self.dtype() == DType::Bool)
        throw KernelError("neg: negation of a bool tensor is not supported (use logical_not)");
    unaryKernel<Set::Numeric>(call, "neg", self.dtype(), [](auto tag) {
        using S = typename decltype(tag)::type;
        using C = typename Num<S>::C;
        return pw::Neg<C>{};
    });
}

void bitwiseNotKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    if (isFloatingPoint(self.dtype())) throw KernelError("bitwise_not: only integral and bool tensors are supported");
    dispatch<Set::All>(self.dtype(), "bitwise_not", [&](auto tag) {
        using S = typename decltype(tag)::type;
        if constexpr (kIsFloat<S>) {
            return;
        } else {
            Tensor out = allocStrided(call, self.sizes(), iteratorStrides(self.sizes(), {&self}, 0), self.dtype());
            pointwise<S, S>(call.pool, out, {self}, pw::BitwiseNot<S>{});
            call.result = Value::ofTensor(out);
        }
    });
}

// pow(self, exponent) with PyTorch's special exponents: 1 a copy, 0.5 sqrt, -0.5 rsqrt, -1
// reciprocal, 2 x*x, 3 x*x*x, -2 1/(x*x); otherwise runtime/math's pow: correctly rounded in
// float for a float tensor and an exponent that is a float, else in double, rounded once.
void powTensorScalarKernel(KernelCall& call)
{
    const Value& selfV = call.arg("self");
    const Value& expV = call.arg("exponent");
    if (!selfV.isTensor() || !isScalarValue(expV)) throw KernelError("pow: expects (Tensor, Scalar)");
    const Tensor& self = selfV.tensor;
    if (isIntegral(self.dtype(), true) && expV.kind != Value::Kind::Float && expV.toInt() < 0)
        throw KernelError("pow: integers to negative integer powers are not allowed");
    const DType common = resultType({&selfV, &expV});
    const double e = expV.toDouble();
    unaryKernel<Set::Numeric>(
        call, "pow", common,
        [&](auto tag) {
            using S = typename decltype(tag)::type;
            using C = typename Num<S>::C;
            if constexpr (kIsInt<S>) {
                const C ex = checkedScalarTo<S>(expV, "pow");
                return pw::PowInt<C>{ex};
            } else {
                // the exponent in the tensor's precision (bf16/f16 round it, as Scalar::to<scalar_t>)
                const double ee =
                    kIsReduced<S> ? static_cast<double>(Num<S>::load(checkedScalarTo<S>(expV, "pow"))) : e;
                const math::arith::PowKind k = math::arith::powKindOf(ee);
                const bool inFloat = kIsReduced<S> || static_cast<double>(static_cast<float>(ee)) == ee;
                return math::arith::PowScalar<C>{k, ee, inFloat};
            }
        },
        kGrainMath);
}

// masked_fill(self, mask, value): self broadcast with mask, value where mask is true; a new
// contiguous tensor (PyTorch clones the expanded self with contiguous_format).
void maskedFillKernel(KernelCall& call, bool inplace)
{
    const Tensor& self = call.tensor("self");
    const Tensor& mask = call.tensor("mask");
    // a bool mask, or (as PyTorch 1.13 still accepts) an integer one: nonzero is true
    if (isFloatingPoint(mask.dtype()))
        throw KernelError("masked_fill: expected a bool mask, got " + std::string(dtypeAbbr(mask.dtype())));
    const Tensor maskBool =
        mask.dtype() == DType::Bool || mask.dtype() == DType::U8 ? mask : castTo(call, mask, DType::Bool);
    Value value = call.arg("value");
    if (value.isTensor()) {  // masked_fill.Tensor: a 0-dim value tensor, used as its item
        if (value.tensor.dim() != 0) throw KernelError("masked_fill: only supports a 0-dimensional value tensor");
        const std::vector<unsigned char> bytes = hostBytes(value.tensor);
        const double item = loadAsDouble(bytes.data(), value.tensor.dtype());
        int64_t i64 = 0;
        if (value.tensor.dtype() == DType::I64) std::memcpy(&i64, bytes.data(), sizeof i64);
        if (isFloatingPoint(value.tensor.dtype()))
            value = Value::ofFloat(item);
        else if (value.tensor.dtype() == DType::Bool)
            value = Value::ofBool(item != 0);
        else
            value = Value::ofInt(value.tensor.dtype() == DType::I64 ? i64 : static_cast<int64_t>(item));
    }
    if (!isScalarValue(value)) throw KernelError("masked_fill: value must be a number");
    const std::vector<int64_t> shape = inplace ? self.sizes() : broadcastShapes(self.sizes(), mask.sizes());
    if (inplace && broadcastShapes(self.sizes(), mask.sizes()) != self.sizes())
        throw KernelError("masked_fill_: the mask must broadcast to self's shape");
    Tensor out = inplace ? self : call.newTensor(shape, self.dtype());
    dispatch<Set::All>(self.dtype(), "masked_fill", [&](auto tag) {
        using S = typename decltype(tag)::type;
        using U = typename BitsOf<sizeof(S)>::type;
        const S v = checkedScalarTo<S>(value, "masked_fill");
        U vb;
        std::memcpy(&vb, &v, sizeof vb);
        pointwise<U, U, uint8_t>(call.pool, out, {expandTo(self, shape), expandTo(maskBool, shape)},
                                 pw::MaskedFill<U>{vb});
    });
    call.result = Value::ofTensor(out);
}

// where(condition, self, other): self/other promoted to their result type, broadcast.
void whereKernel(KernelCall& call)
{
    const Value& condV = call.arg("condition");
    const Value& a = call.arg("self");
    const Value& b = call.arg("other");
    if (!condV.isTensor()) throw KernelError("where: condition must be a tensor");
    needOperand(a, "where", "self");
    needOperand(b, "where", "other");
    const Tensor& cond = condV.tensor;
    if (cond.dtype() != DType::Bool && cond.dtype() != DType::U8)
        throw KernelError("where: expected a bool condition, got " + std::string(dtypeAbbr(cond.dtype())));
    const DType common = resultType({&a, &b});
    const std::vector<const Value*> ops = {&condV, &a, &b};
    const std::vector<int64_t> shape = broadcastOf(ops);
    Tensor out = allocStrided(call, shape, iteratorStrides(shape, tensorsOf(ops), scalarsOf(ops)), common);
    dispatch<Set::All>(common, "where", [&](auto tag) {
        using S = typename decltype(tag)::type;
        using U = typename BitsOf<sizeof(S)>::type;
        auto operand = [&](const Value& v) {
            if (v.isTensor()) return expandTo(castTo(call, v.tensor, common), shape);
            Tensor t = call.newTensor({}, common);
            fillWith(call, t, v);
            return expandTo(t, shape);
        };
        pointwise<U, uint8_t, U, U>(call.pool, out, {expandTo(cond, shape), operand(a), operand(b)}, pw::Where<U>{});
    });
    call.result = Value::ofTensor(out);
}

void absKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    if (self.dtype() == DType::Bool) throw KernelError("abs: bool tensors are not supported");
    unaryKernel<Set::Numeric>(call, "abs", self.dtype(), [](auto tag) {
        using S = typename decltype(tag)::type;
        using C = typename Num<S>::C;
        return pw::Abs<C>{};
    });
}

void signKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    unaryKernel<Set::All>(call, "sign", self.dtype(), [](auto tag) {
        using S = typename decltype(tag)::type;
        using C = typename Num<S>::C;
        return pw::Sign<C>{};
    });
}

void divRoundingKernel(KernelCall& call, bool floorMode);

// div(self, other, rounding_mode): None = true division; 'trunc' / 'floor' keep integer dtypes.
void divModeKernel(KernelCall& call)
{
    const Value& mode = call.arg("rounding_mode");
    if (mode.isNone()) {
        binaryKernel(call, Bin::Div, false);
        return;
    }
    const bool floorMode = mode.s == "floor";
    if (!floorMode && mode.s != "trunc")
        throw KernelError("div: rounding_mode must be None, 'trunc' or 'floor', got '" + mode.s + "'");
    divRoundingKernel(call, floorMode);
}

// div with rounding (also floor_divide): integer dtypes stay integral.
void divRoundingKernel(KernelCall& call, bool floorMode)
{
    const Value& a = call.arg("self");
    const Value& b = call.arg("other");
    needOperand(a, "div", "self");
    needOperand(b, "div", "other");
    const DType common = resultType({&a, &b});
    if (common == DType::Bool) throw KernelError("div: rounding division of bool tensors is not supported");
    Tensor out = binaryOutput(call, a, b, common);
    checkIntDivisor(call, b, common, out, "div: integer division by zero");
    dispatch<Set::Numeric>(common, "div", [&](auto tag) {
        using S = typename decltype(tag)::type;
        using C = typename Num<S>::C;
        // a float quotient rounded to bf16 / f16 first (PyTorch divides in the storage type)
        const math::Narrow narrow = std::is_same_v<S, BF16> ? math::Narrow::Bf16
            : std::is_same_v<S, F16>                        ? math::Narrow::F16
                                                            : math::Narrow::None;
        runBinary<S>(call, out, a, b, pw::DivRounding<C>{floorMode, narrow});
    });
    call.result = Value::ofTensor(out);
}

// pow(Tensor, Tensor) and pow(Scalar, Tensor): runtime/math's pow in the result type (correctly
// rounded in float for f32 and bf16/f16), integer power by squaring for integers.
void powBinaryKernel(KernelCall& call)
{
    const Value& a = call.arg("self");
    const Value& b = call.arg("exponent");
    needOperand(a, "pow", "self");
    needOperand(b, "pow", "exponent");
    DType common = resultType({&a, &b});
    if (common == DType::Bool) common = DType::I64;
    Tensor out = binaryOutput(call, a, b, common);
    dispatch<Set::Numeric>(common, "pow", [&](auto tag) {
        using S = typename decltype(tag)::type;
        using C = typename Num<S>::C;
        runBinary<S>(call, out, a, b, pw::PowBinary<C>{}, kGrainMath);
    });
    call.result = Value::ofTensor(out);
}

// ---- rounding, remainders, addcmul / addcdiv, lerp

using math::arith::Round;

// floor / ceil / trunc / round (half to even, std::nearbyint); integers are returned as copies.
void roundKernel(KernelCall& call, Round mode, const char* name)
{
    const Tensor& self = call.tensor("self");
    if (self.dtype() == DType::Bool) throw KernelError(std::string(name) + ": bool tensors are not supported");
    unaryKernel<Set::Numeric>(call, name, self.dtype(), [mode](auto tag) {
        using S = typename decltype(tag)::type;
        using C = typename Num<S>::C;
        return pw::RoundMode<C>{mode};
    });
}

// fmod (sign of the dividend) and remainder (sign of the divisor), in the result type.
void modKernel(KernelCall& call, bool remainder)
{
    const char* name = remainder ? "remainder" : "fmod";
    const Value& a = call.arg("self");
    const Value& b = call.arg("other");
    needOperand(a, name, "self");
    needOperand(b, name, "other");
    DType common = resultType({&a, &b});
    if (common == DType::Bool) throw KernelError(std::string(name) + ": bool tensors are not supported");
    Tensor out = binaryOutput(call, a, b, common);
    checkIntDivisor(call, b, common, out, "fmod/remainder: integer division by zero");
    dispatch<Set::Numeric>(common, name, [&](auto tag) {
        using S = typename decltype(tag)::type;
        using C = typename Num<S>::C;
        runBinary<S>(call, out, a, b, pw::Mod<C>{remainder});
    });
    call.result = Value::ofTensor(out);
}

// addcmul: self + value * t1 * t2; addcdiv: self + value * t1 / t2 (PyTorch's left-to-right
// order, no fusion), all in the result type of the three tensors.
void addcKernel(KernelCall& call, bool div)
{
    const char* name = div ? "addcdiv" : "addcmul";
    const Value& s = call.arg("self");
    const Value& t1 = call.arg("tensor1");
    const Value& t2 = call.arg("tensor2");
    const Value& value = call.arg("value");
    if (!s.isTensor() || !t1.isTensor() || !t2.isTensor())
        throw KernelError(std::string(name) + ": expects three tensors");
    const std::vector<const Value*> ops = {&s, &t1, &t2};
    const DType common = resultType(ops);
    if (div && !isFloatingPoint(common)) throw KernelError("addcdiv: integer division is not supported");
    if (common == DType::Bool) throw KernelError(std::string(name) + ": bool tensors are not supported");
    const std::vector<int64_t> shape = broadcastOf(ops);
    Tensor out = allocStrided(call, shape, iteratorStrides(shape, tensorsOf(ops), 0), common);
    dispatch<Set::Numeric>(common, name, [&](auto tag) {
        using S = typename decltype(tag)::type;
        using C = typename Num<S>::C;
        const C v = Num<S>::load(checkedScalarTo<S>(value, name));
        auto prep = [&](const Value& x) { return expandTo(castTo(call, x.tensor, common), shape); };
        pointwise<S, S, S, S>(call.pool, out, {prep(s), prep(t1), prep(t2)}, lifted<S, S, S, S>(pw::Addc<C>{v, div}));
    });
    call.result = Value::ofTensor(out);
}

// lerp(self, end, weight): PyTorch's two-sided formula (exact at both ends).
void lerpKernel(KernelCall& call, bool tensorWeight)
{
    const Value& s = call.arg("self");
    const Value& e = call.arg("end");
    const Value& w = call.arg("weight");
    if (!s.isTensor() || !e.isTensor()) throw KernelError("lerp: expects tensors");
    std::vector<const Value*> ops = {&s, &e};
    if (tensorWeight) ops.push_back(&w);
    const DType common = resultType({&s, &e});
    if (!isFloatingPoint(common)) throw KernelError("lerp: expects floating point tensors");
    const std::vector<int64_t> shape = broadcastOf(ops);
    Tensor out = allocStrided(call, shape, iteratorStrides(shape, tensorsOf(ops), 0), common);
    dispatch<Set::Float>(common, "lerp", [&](auto tag) {
        using S = typename decltype(tag)::type;
        using C = typename Num<S>::C;
        auto prep = [&](const Value& x) { return expandTo(castTo(call, x.tensor, common), shape); };
        if (tensorWeight) {
            pointwise<S, S, S, S>(call.pool, out, {prep(s), prep(e), prep(w)}, lifted<S, S, S, S>(pw::Lerp<C>{}));
        } else {
            const C wt = Num<S>::load(checkedScalarTo<S>(w, "lerp"));
            pointwise<S, S, S>(call.pool, out, {prep(s), prep(e)}, lifted<S, S, S>(pw::LerpScalar<C>{wt}));
        }
    });
    call.result = Value::ofTensor(out);
}

}  // namespace

void registerArithmetic(KernelRegistry& reg, DeviceKind d)
{
    reg.add("aten.add.Tensor", d, [](KernelCall& c) { binaryKernel(c, Bin::Add, false); });
    reg.add("aten.add.Scalar", d, [](KernelCall& c) { binaryKernel(c, Bin::Add, false); });
    reg.add("aten.add_.Tensor", d, [](KernelCall& c) { binaryKernel(c, Bin::Add, true); });
    reg.add("aten.sub.Tensor", d, [](KernelCall& c) { binaryKernel(c, Bin::Sub, false); });
    reg.add("aten.sub.Scalar", d, [](KernelCall& c) { binaryKernel(c, Bin::Sub, false); });
    reg.add("aten.sub_.Tensor", d, [](KernelCall& c) { binaryKernel(c, Bin::Sub, true); });
    reg.add("aten.rsub.Scalar", d, [](KernelCall& c) { binaryKernel(c, Bin::Sub, false, true); });
    reg.add("aten.rsub.Tensor", d, [](KernelCall& c) { binaryKernel(c, Bin::Sub, false, true); });
    reg.add("aten.mul.Tensor", d, [](KernelCall& c) { binaryKernel(c, Bin::Mul, false); });
    reg.add("aten.mul.Scalar", d, [](KernelCall& c) { binaryKernel(c, Bin::Mul, false); });
    reg.add("aten.mul_.Tensor", d, [](KernelCall& c) { binaryKernel(c, Bin::Mul, true); });
    reg.add("aten.div.Tensor", d, [](KernelCall& c) { binaryKernel(c, Bin::Div, false); });
    reg.add("aten.div.Scalar", d, [](KernelCall& c) { binaryKernel(c, Bin::Div, false); });
    reg.add("aten.neg.default", d, negKernel);
    reg.add("aten.pow.Tensor_Scalar", d, powTensorScalarKernel);
    reg.add("aten.bitwise_not.default", d, bitwiseNotKernel);
    reg.add("aten.masked_fill.Scalar", d, [](KernelCall& c) { maskedFillKernel(c, false); });
    reg.add("aten.masked_fill.Tensor", d, [](KernelCall& c) { maskedFillKernel(c, false); });
    reg.add("aten.masked_fill_.Scalar", d, [](KernelCall& c) { maskedFillKernel(c, true); });
    reg.add("aten.where.self", d, whereKernel);
    reg.add("aten.where.Scalar", d, whereKernel);
    reg.add("aten.where.ScalarOther", d, whereKernel);
    reg.add("aten.where.ScalarSelf", d, whereKernel);
    reg.add("aten.div.Tensor_mode", d, divModeKernel);
    reg.add("aten.div.Scalar_mode", d, divModeKernel);
    reg.add("aten.pow.Tensor_Tensor", d, powBinaryKernel);
    reg.add("aten.pow.Scalar", d, powBinaryKernel);
    reg.add("aten.abs.default", d, absKernel);
    reg.add("aten.sign.default", d, signKernel);
    reg.add("aten.div_.Tensor", d, [](KernelCall& c) { binaryKernel(c, Bin::Div, true); });
    reg.add("aten.floor.default", d, [](KernelCall& c) { roundKernel(c, Round::Floor, "floor"); });
    reg.add("aten.ceil.default", d, [](KernelCall& c) { roundKernel(c, Round::Ceil, "ceil"); });
    reg.add("aten.trunc.default", d, [](KernelCall& c) { roundKernel(c, Round::Trunc, "trunc"); });
    reg.add("aten.round.default", d, [](KernelCall& c) { roundKernel(c, Round::Nearest, "round"); });
    reg.add("aten.fmod.Tensor", d, [](KernelCall& c) { modKernel(c, false); });
    reg.add("aten.fmod.Scalar", d, [](KernelCall& c) { modKernel(c, false); });
    reg.add("aten.remainder.Tensor", d, [](KernelCall& c) { modKernel(c, true); });
    reg.add("aten.remainder.Scalar", d, [](KernelCall& c) { modKernel(c, true); });
    reg.add("aten.floor_divide.default", d, [](KernelCall& c) { divRoundingKernel(c, true); });
    reg.add("aten.sgn.default", d, signKernel);
    reg.add("aten.addcmul.default", d, [](KernelCall& c) { addcKernel(c, false); });
    reg.add("aten.addcdiv.default", d, [](KernelCall& c) { addcKernel(c, true); });
    reg.add("aten.lerp.Scalar", d, [](KernelCall& c) { lerpKernel(c, false); });
    reg.add("aten.lerp.Tensor", d, [](KernelCall& c) { lerpKernel(c, true); });
}

}  // namespace fxl::cpu::ew

#include "runtime/torch_level/torch_level_compose.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

namespace fxl::torch_level {

namespace {

// Python scalars (SymInt arithmetic and friends, when no operand is a tensor).
Value scalarBinary(BinOp op, const Value& a, const Value& b)
{
    const bool ints = a.kind != Value::Kind::Float && b.kind != Value::Kind::Float;
    if (ints) {
        const int64_t x = a.toInt(), y = b.toInt();
        switch (op) {
        case BinOp::Add: return intValue(x + y);
        case BinOp::Sub: return intValue(x - y);
        case BinOp::Mul: return intValue(x * y);
        case BinOp::Div:
            if (y == 0) throw KernelError("division by zero");
            return Value::ofFloat(static_cast<double>(x) / static_cast<double>(y));
        case BinOp::FloorDiv:
        case BinOp::Mod: {
            if (y == 0) throw KernelError("integer division or modulo by zero");
            int64_t q = x / y, r = x % y;
            if (r != 0 && ((r < 0) != (y < 0))) {
                --q;
                r += y;
            }
            return intValue(op == BinOp::FloorDiv ? q : r);
        }
        case BinOp::Pow: {
            if (y < 0) return Value::ofFloat(std::pow(static_cast<double>(x), static_cast<double>(y)));
            int64_t r = 1;
            for (int64_t k = 0; k < y; ++k) r *= x;
            return intValue(r);
        }
        case BinOp::Eq: return Value::ofBool(x == y);
        case BinOp::Ne: return Value::ofBool(x != y);
        case BinOp::Lt: return Value::ofBool(x < y);
        case BinOp::Le: return Value::ofBool(x <= y);
        case BinOp::Gt: return Value::ofBool(x > y);
        case BinOp::Ge: return Value::ofBool(x >= y);
        }
    }
    const double x = a.toDouble(), y = b.toDouble();
    switch (op) {
    case BinOp::Add: return Value::ofFloat(x + y);
    case BinOp::Sub: return Value::ofFloat(x - y);
    case BinOp::Mul: return Value::ofFloat(x * y);
    case BinOp::Div:
        if (y == 0) throw KernelError("float division by zero");
        return Value::ofFloat(x / y);
    case BinOp::FloorDiv: return Value::ofFloat(std::floor(x / y));
    case BinOp::Mod: {
        double r = std::fmod(x, y);
        if (r != 0 && ((r < 0) != (y < 0))) r += y;
        return Value::ofFloat(r);
    }
    case BinOp::Pow: return Value::ofFloat(std::pow(x, y));
    case BinOp::Eq: return Value::ofBool(x == y);
    case BinOp::Ne: return Value::ofBool(x != y);
    case BinOp::Lt: return Value::ofBool(x < y);
    case BinOp::Le: return Value::ofBool(x <= y);
    case BinOp::Gt: return Value::ofBool(x > y);
    case BinOp::Ge: return Value::ofBool(x >= y);
    }
    return Value::none();
}

}  // namespace

const char* binName(BinOp op)
{
    switch (op) {
    case BinOp::Add: return "add";
    case BinOp::Sub: return "sub";
    case BinOp::Mul: return "mul";
    case BinOp::Div: return "div";
    case BinOp::FloorDiv: return "floor_divide";
    case BinOp::Mod: return "remainder";
    case BinOp::Pow: return "pow";
    case BinOp::Eq: return "eq";
    case BinOp::Ne: return "ne";
    case BinOp::Lt: return "lt";
    case BinOp::Le: return "le";
    case BinOp::Gt: return "gt";
    case BinOp::Ge: return "ge";
    }
    return "";
}

bool hasAlpha(BinOp op) { return op == BinOp::Add || op == BinOp::Sub; }

Value binary(const Call& c, BinOp op, const Value& a, const Value& b, const Value& alpha)
{
    const bool alphaOne = alpha.isNone() || (alpha.kind == Value::Kind::Int && alpha.i == 1);
    if (!alphaOne && !hasAlpha(op)) throw KernelError(std::string(binName(op)) + " takes no alpha");
    if (!a.isTensor() && !b.isTensor()) {
        if (!isNumber(a) || !isNumber(b))
            throw KernelError(std::string(binName(op)) + ": operands must be tensors or numbers");
        if (!alphaOne) return scalarBinary(op, a, scalarBinary(BinOp::Mul, b, alpha));
        return scalarBinary(op, a, b);
    }
    const std::string n = binName(op);
    auto withAlpha = [&](std::vector<Value> args) {
        if (hasAlpha(op)) args.push_back(alphaOne ? intValue(1) : alpha);
        return args;
    };
    if (a.isTensor() && b.isTensor()) {
        if (op == BinOp::Pow) return c.run("aten.pow.Tensor_Tensor", {a, b});
        if (op == BinOp::FloorDiv) return c.run("aten.floor_divide.default", {a, b});
        return c.run("aten." + n + ".Tensor", withAlpha({a, b}));
    }
    if (a.isTensor()) {
        if (!isNumber(b)) throw KernelError(n + ": the other operand must be a tensor or a number");
        if (op == BinOp::Pow) return c.run("aten.pow.Tensor_Scalar", {a, b});
        if (op == BinOp::FloorDiv)
            throw KernelError("floordiv of a tensor by a Python number is not supported by the runtime");
        return c.run("aten." + n + ".Scalar", withAlpha({a, b}));
    }
    // number OP tensor: Tensor.__radd__ / __rsub__ / __rmul__ / __rdiv__ / __rpow__ / comparisons swapped
    if (!isNumber(a)) throw KernelError(n + ": the other operand must be a tensor or a number");
    switch (op) {
    case BinOp::Add:
    case BinOp::Mul:
    case BinOp::Eq:
    case BinOp::Ne: return c.run("aten." + n + ".Scalar", withAlpha({b, a}));
    case BinOp::Sub: return c.run("aten.rsub.Scalar", {b, a, intValue(1)});
    case BinOp::Div: return c.run("aten.mul.Scalar", {c.run("aten.reciprocal.default", {b}), a});
    case BinOp::Pow: return c.run("aten.pow.Scalar", {a, b});
    case BinOp::Lt: return c.run("aten.gt.Scalar", {b, a});
    case BinOp::Le: return c.run("aten.ge.Scalar", {b, a});
    case BinOp::Gt: return c.run("aten.lt.Scalar", {b, a});
    case BinOp::Ge: return c.run("aten.le.Scalar", {b, a});
    default: throw KernelError(n + " of a Python number by a tensor is not supported by the runtime");
    }
}

Value inplace(const Call& c, BinOp op, const Value& self, const Value& other, const Value& alpha)
{
    if (!self.isTensor()) return binary(c, op, self, other, alpha);  // operator.iadd on numbers
    const bool alphaOne = alpha.isNone() || (alpha.kind == Value::Kind::Int && alpha.i == 1);
    if (other.isTensor() && (op == BinOp::Add || op == BinOp::Sub || op == BinOp::Mul || op == BinOp::Div)) {
        std::vector<Value> args{self, other};
        if (hasAlpha(op)) args.push_back(alphaOne ? intValue(1) : alpha);
        c.run("aten." + std::string(binName(op)) + "_.Tensor", std::move(args));
        return self;
    }
    Value r = binary(c, op, self, other, alpha);
    if (!r.isTensor()) throw KernelError("in-place op did not produce a tensor");
    if (r.tensor.dtype() != self.tensor.dtype()) r = c.run("aten.to.dtype", {r, dtypeValue(self.tensor.dtype())});
    c.run("aten.copy_.default", {self, r});
    return self;
}

// ---- matmul / linear (at::matmul's cases; at::linear's addmm paths)

Tensor view(const Call& c, const Tensor& t, const std::vector<int64_t>& sizes)
{
    return c.runTensor("aten.view.default", {tensorValue(t), intList(sizes)});
}
Tensor reshape(const Call& c, const Tensor& t, const std::vector<int64_t>& sizes)
{
    return c.runTensor("aten.reshape.default", {tensorValue(t), intList(sizes)});
}
Tensor unsqueeze(const Call& c, const Tensor& t, int64_t d)
{
    return c.runTensor("aten.unsqueeze.default", {tensorValue(t), intValue(d)});
}

Tensor matmul(const Call& c, const Tensor& a, const Tensor& b)
{
    const int64_t d1 = a.dim(), d2 = b.dim();
    if (d1 == 0 || d2 == 0) throw KernelError("matmul: both arguments need at least 1 dimension");
    if (d1 == 1 && d2 == 1)
        return view(
            c, c.runTensor("aten.mm.default", {tensorValue(unsqueeze(c, a, 0)), tensorValue(unsqueeze(c, b, 1))}), {});
    if (d1 == 2 && d2 == 1)
        return view(c, c.runTensor("aten.mm.default", {tensorValue(a), tensorValue(unsqueeze(c, b, 1))}), {a.size(0)});
    if (d1 == 1 && d2 == 2)
        return view(c, c.runTensor("aten.mm.default", {tensorValue(unsqueeze(c, a, 0)), tensorValue(b)}), {b.size(1)});
    if (d1 == 2 && d2 == 2) return c.runTensor("aten.mm.default", {tensorValue(a), tensorValue(b)});
    if (d1 >= 3 && d2 <= 2) {
        // fold the batch into the rows
        std::vector<int64_t> out(a.sizes().begin(), a.sizes().end() - 1);
        const Tensor folded = reshape(c, a, {-1, a.size(-1)});
        const Tensor m = d2 == 1 ? unsqueeze(c, b, 1) : b;
        if (d2 == 2) out.push_back(b.size(1));
        return view(c, c.runTensor("aten.mm.default", {tensorValue(folded), tensorValue(m)}), out);
    }
    // batched: broadcast the batch dims, bmm
    const Tensor x = d1 == 1 ? unsqueeze(c, a, 0) : a;
    const Tensor y = d2 == 1 ? unsqueeze(c, b, 1) : b;
    const int64_t n = x.size(-2), k = x.size(-1), k2 = y.size(-2), p = y.size(-1);
    if (k != k2)
        throw KernelError("matmul: inner sizes differ (" + std::to_string(k) + " vs " + std::to_string(k2) + ")");
    std::vector<int64_t> b1(x.sizes().begin(), x.sizes().end() - 2), b2(y.sizes().begin(), y.sizes().end() - 2);
    const size_t rank = std::max(b1.size(), b2.size());
    std::vector<int64_t> batch(rank, 1);
    for (size_t i = 0; i < rank; ++i) {
        const int64_t s1 = i + b1.size() >= rank ? b1[i + b1.size() - rank] : 1;
        const int64_t s2 = i + b2.size() >= rank ? b2[i + b2.size() - rank] : 1;
        if (s1 != s2 && s1 != 1 && s2 != 1) throw KernelError("matmul: batch dims do not broadcast");
        batch[i] = s1 == 1 ? s2 : s1;
    }
    int64_t B = 1;
    for (int64_t s : batch) B *= s;
    auto expandTo = [&](const Tensor& t, int64_t r, int64_t cols) {
        std::vector<int64_t> full = batch;
        full.push_back(r);
        full.push_back(cols);
        return reshape(c, c.runTensor("aten.expand.default", {tensorValue(t), intList(full)}), {B, r, cols});
    };
    const Tensor out =
        c.runTensor("aten.bmm.default", {tensorValue(expandTo(x, n, k)), tensorValue(expandTo(y, k, p))});
    std::vector<int64_t> sizes = batch;
    if (d1 > 1) sizes.push_back(n);
    if (d2 > 1) sizes.push_back(p);
    return view(c, out, sizes);
}

Value linear(const Call& c, const Tensor& input, const Tensor& weight, const Value& bias)
{
    const Tensor wt = c.runTensor("aten.t.default", {tensorValue(weight)});
    if (bias.isTensor() && input.dim() == 2)
        return c.run("aten.addmm.default", {bias, tensorValue(input), tensorValue(wt)});
    if (bias.isTensor() && input.dim() == 3 && input.isContiguous()) {
        const Tensor flat = view(c, input, {-1, input.size(2)});
        const Tensor out = c.runTensor("aten.addmm.default", {bias, tensorValue(flat), tensorValue(wt)});
        return tensorValue(view(c, out, {input.size(0), input.size(1), weight.size(0)}));
    }
    const Tensor out = matmul(c, input, wt);
    if (bias.isTensor()) c.run("aten.add_.Tensor", {tensorValue(out), bias, intValue(1)});
    return tensorValue(out);
}

// ---- getitem on a tensor: ints select, slices slice, None unsqueezes, ... skips dims

Value tensorIndex(const Call& c, const Tensor& self, const Arg& idx)
{
    std::vector<const Arg*> items;
    if (idx.kind == Arg::Kind::Tuple)
        for (const auto& x : idx.items) items.push_back(&x);
    else
        items.push_back(&idx);
    // resolved values (nodes inside give ints or tensors)
    int64_t consumed = 0;
    for (const Arg* a : items)
        if (a->kind != Arg::Kind::None && a->kind != Arg::Kind::Ellipsis) ++consumed;
    Tensor cur = self;
    int64_t dim = 0;
    std::optional<Tensor> advanced;
    for (const Arg* a : items) {
        switch (a->kind) {
        case Arg::Kind::None: cur = unsqueeze(c, cur, dim++); break;
        case Arg::Kind::Ellipsis: dim += self.dim() - consumed; break;
        case Arg::Kind::Slice: {
            std::vector<Value> se;
            for (size_t k = 0; k < 3; ++k)
                se.push_back(k < a->items.size() ? c.context.resolve(a->items[k]) : Value::none());
            if (se[2].isNone()) se[2] = intValue(1);
            cur = c.runTensor("aten.slice.Tensor", {tensorValue(cur), intValue(dim), se[0], se[1], se[2]});
            ++dim;
            break;
        }
        default: {
            const Value v = c.context.resolve(*a);
            if (v.kind == Value::Kind::Int) {
                cur = c.runTensor("aten.select.int", {tensorValue(cur), intValue(dim), v});
            } else if (v.isTensor()) {
                if (items.size() != 1)
                    throw KernelError(
                        "getitem: a tensor index together with other indices is not supported by the runtime");
                advanced = v.tensor;
            } else {
                throw KernelError("getitem: index of an unsupported kind (ints, slices, None, ... and one tensor are)");
            }
        }
        }
    }
    if (advanced) return c.run("aten.index.Tensor", {tensorValue(cur), Value::ofList({tensorValue(*advanced)})});
    return tensorValue(cur);
}

// ---- to(): dtype from a dtype, a tensor, or nothing (device moves are no-ops here)

Value toDtype(const Call& c, const Tensor& self, DType dt, bool copy)
{
    return c.run("aten.to.dtype",
                 {tensorValue(self), dtypeValue(dt == DType::Undefined ? self.dtype() : dt), Value::ofBool(false),
                  Value::ofBool(copy)});
}

}  // namespace fxl::torch_level

#include "runtime/torch_level.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <mutex>
#include <optional>

#include "core/ops/op_registry.hpp"
#include "runtime/kernel.hpp"

namespace fxl {

namespace {

// ---- aten overloads with their defaults as values, resolved once per process

struct Aten
{
    const OpInfo* op = nullptr;
    std::vector<Value> defaults;  // by schema argument (None where none)
};

// A schema default as a value (None for a form without one).
Value defaultValue(const Arg& a)
{
    try {
        return Value::ofConstant(a);
    } catch (const std::invalid_argument&) {
        return Value::none();
    }
}

// Thread-safe: plans of different runs may be made concurrently. std::map keeps references.
const Aten* findAten(const std::string& name)
{
    static std::mutex mu;
    static std::map<std::string, Aten> cache;
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(name);
    if (it != cache.end()) return it->second.op ? &it->second : nullptr;
    Aten& a = cache[name];
    a.op = OpRegistry::instance().find(name);
    if (!a.op) return nullptr;
    for (const auto& sa : a.op->schema.args)
        a.defaults.push_back(sa.defaultText ? defaultValue(parseDefaultValue(sa)) : Value::none());
    return &a;
}

const Aten& aten(const std::string& name)
{
    const Aten* a = findAten(name);
    if (!a) throw KernelError("the op registry has no " + name);
    return *a;
}

// ---- signatures ("self, other, *, alpha=1"; "*size" collects the remaining positionals;
// "~idx" is passed as the node's Arg, unresolved)

struct Param
{
    std::string name;
    bool hasDefault = false;
    Value def;
    bool varargs = false;
    bool kwOnly = false;
    bool raw = false;
};

Value literal(const std::string& t)
{
    if (t == "None") return Value::none();
    if (t == "True") return Value::ofBool(true);
    if (t == "False") return Value::ofBool(false);
    if (t == "[]") return Value::ofList({});
    if (t.size() >= 2 && t.front() == '\'') {
        Value v;
        v.kind = Value::Kind::Str;
        v.s = t.substr(1, t.size() - 2);
        return v;
    }
    if (t == "contiguous_format") {
        Value v;
        v.kind = Value::Kind::MemoryFormat;
        v.s = t;
        return v;
    }
    if (t.find_first_of(".e") != std::string::npos) return Value::ofFloat(std::stod(t));
    return Value::ofInt(std::stoll(t));
}

std::vector<Param> parseSignature(const std::string& sig)
{
    std::vector<Param> out;
    bool kwOnly = false;
    size_t at = 0;
    while (at < sig.size()) {
        size_t end = sig.find(',', at);
        if (end == std::string::npos) end = sig.size();
        std::string p = sig.substr(at, end - at);
        at = end + 1;
        p.erase(0, p.find_first_not_of(' '));
        p.erase(p.find_last_not_of(' ') + 1);
        if (p.empty()) continue;
        if (p == "*") {
            kwOnly = true;
            continue;
        }
        Param q;
        q.kwOnly = kwOnly;
        if (p[0] == '*') {
            q.varargs = true;
            p.erase(0, 1);
            kwOnly = true;
        }
        if (p[0] == '~') {
            q.raw = true;
            p.erase(0, 1);
        }
        const size_t eq = p.find('=');
        if (eq != std::string::npos) {
            q.hasDefault = true;
            q.def = literal(p.substr(eq + 1));
            p = p.substr(0, eq);
        }
        q.name = p;
        out.push_back(std::move(q));
    }
    return out;
}

// ---- a call being lowered: the node's arguments bound to the signature

struct Call
{
    TorchLevelContext& c;
    const Node& n;
    std::vector<Value> v;  // by parameter
    std::vector<const Arg*> raw;  // by parameter: the Arg a "~" parameter came from

    const Value& at(size_t i) const { return v.at(i); }
    bool given(size_t i) const { return !v.at(i).isNone(); }
    const Tensor& tensor(size_t i, const char* what) const
    {
        if (!v.at(i).isTensor()) throw KernelError(std::string(what) + " must be a tensor");
        return v[i].tensor;
    }
    Value run(const Aten& a, std::vector<Value> args) const
    {
        for (size_t k = args.size(); k < a.defaults.size(); ++k) args.push_back(a.defaults[k]);
        return c.callAten(*a.op, std::move(args));
    }
    Value run(const std::string& name, std::vector<Value> args) const { return run(aten(name), std::move(args)); }
    Tensor runT(const std::string& name, std::vector<Value> args) const
    {
        Value r = run(name, std::move(args));
        if (!r.isTensor()) throw KernelError(name + " did not return a tensor");
        return r.tensor;
    }
};

using LowerFn = std::function<Value(const Call&)>;

struct Entry
{
    std::vector<Param> params;
    LowerFn fn;
    std::string atens;  // the aten ops it may run, for description() and the plan-time check
};

Value T(const Tensor& t) { return Value::ofTensor(t); }
Value I(int64_t i) { return Value::ofInt(i); }
Value ints(const std::vector<int64_t>& v)
{
    std::vector<Value> items;
    for (int64_t x : v) items.push_back(I(x));
    return Value::ofList(std::move(items));
}
bool isNum(const Value& v)
{
    return v.kind == Value::Kind::Int || v.kind == Value::Kind::Float || v.kind == Value::Kind::Bool;
}
Value dtypeValue(DType d)
{
    Value v;
    v.kind = Value::Kind::DType;
    v.dtype = d;
    return v;
}

// A varargs size list: view(2, 3) or view((2, 3)) / view([2, 3]).
Value sizeList(const Value& varargs)
{
    if (varargs.items.size() == 1 && varargs.items[0].kind == Value::Kind::List) return varargs.items[0];
    return varargs;
}

int64_t wrapDim(int64_t d, int64_t rank)
{
    const int64_t r = std::max<int64_t>(rank, 1);
    if (d < -r || d >= r)
        throw KernelError("dimension " + std::to_string(d) + " out of range for a " + std::to_string(rank)
                          + "-d tensor");
    return d < 0 ? d + r : d;
}

// ---- Python scalars (SymInt arithmetic and friends, when no operand is a tensor)

enum class BinOp
{
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Pow,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge
};

Value scalarBinary(BinOp op, const Value& a, const Value& b)
{
    const bool ints = a.kind != Value::Kind::Float && b.kind != Value::Kind::Float;
    if (ints) {
        const int64_t x = a.toInt(), y = b.toInt();
        switch (op) {
        case BinOp::Add: return I(x + y);
        case BinOp::Sub: return I(x - y);
        case BinOp::Mul: return I(x * y);
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
            return I(op == BinOp::FloorDiv ? q : r);
        }
        case BinOp::Pow: {
            if (y < 0) return Value::ofFloat(std::pow(static_cast<double>(x), static_cast<double>(y)));
            int64_t r = 1;
            for (int64_t k = 0; k < y; ++k) r *= x;
            return I(r);
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

// a OP b for tensors and Python scalars, with the overload PyTorch's Python binding picks.
Value binary(const Call& c, BinOp op, const Value& a, const Value& b, const Value& alpha)
{
    const bool alphaOne = alpha.isNone() || (alpha.kind == Value::Kind::Int && alpha.i == 1);
    if (!alphaOne && !hasAlpha(op)) throw KernelError(std::string(binName(op)) + " takes no alpha");
    if (!a.isTensor() && !b.isTensor()) {
        if (!isNum(a) || !isNum(b))
            throw KernelError(std::string(binName(op)) + ": operands must be tensors or numbers");
        if (!alphaOne) return scalarBinary(op, a, scalarBinary(BinOp::Mul, b, alpha));
        return scalarBinary(op, a, b);
    }
    const std::string n = binName(op);
    auto withAlpha = [&](std::vector<Value> args) {
        if (hasAlpha(op)) args.push_back(alphaOne ? I(1) : alpha);
        return args;
    };
    if (a.isTensor() && b.isTensor()) {
        if (op == BinOp::Pow) return c.run("aten.pow.Tensor_Tensor", {a, b});
        if (op == BinOp::FloorDiv) return c.run("aten.floor_divide.default", {a, b});
        return c.run("aten." + n + ".Tensor", withAlpha({a, b}));
    }
    if (a.isTensor()) {
        if (!isNum(b)) throw KernelError(n + ": the other operand must be a tensor or a number");
        if (op == BinOp::Pow) return c.run("aten.pow.Tensor_Scalar", {a, b});
        if (op == BinOp::FloorDiv)
            throw KernelError("floordiv of a tensor by a Python number is not supported by the runtime");
        return c.run("aten." + n + ".Scalar", withAlpha({a, b}));
    }
    // number OP tensor: Tensor.__radd__ / __rsub__ / __rmul__ / __rdiv__ / __rpow__ / comparisons swapped
    if (!isNum(a)) throw KernelError(n + ": the other operand must be a tensor or a number");
    switch (op) {
    case BinOp::Add:
    case BinOp::Mul:
    case BinOp::Eq:
    case BinOp::Ne: return c.run("aten." + n + ".Scalar", withAlpha({b, a}));
    case BinOp::Sub: return c.run("aten.rsub.Scalar", {b, a, I(1)});
    case BinOp::Div: return c.run("aten.mul.Scalar", {c.run("aten.reciprocal.default", {b}), a});
    case BinOp::Pow: return c.run("aten.pow.Scalar", {a, b});
    case BinOp::Lt: return c.run("aten.gt.Scalar", {b, a});
    case BinOp::Le: return c.run("aten.ge.Scalar", {b, a});
    case BinOp::Gt: return c.run("aten.lt.Scalar", {b, a});
    case BinOp::Ge: return c.run("aten.le.Scalar", {b, a});
    default: throw KernelError(n + " of a Python number by a tensor is not supported by the runtime");
    }
}

// self OP= other, in place (returns self): X_.Tensor where a kernel exists; with a Python
// number the out-of-place X.Scalar then copy_ into self (the wrapped-number computation).
Value inplace(const Call& c, BinOp op, const Value& self, const Value& other, const Value& alpha)
{
    if (!self.isTensor()) return binary(c, op, self, other, alpha);  // operator.iadd on numbers
    const bool alphaOne = alpha.isNone() || (alpha.kind == Value::Kind::Int && alpha.i == 1);
    if (other.isTensor() && (op == BinOp::Add || op == BinOp::Sub || op == BinOp::Mul || op == BinOp::Div)) {
        std::vector<Value> args{self, other};
        if (hasAlpha(op)) args.push_back(alphaOne ? I(1) : alpha);
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
    return c.runT("aten.view.default", {T(t), ints(sizes)});
}
Tensor reshape(const Call& c, const Tensor& t, const std::vector<int64_t>& sizes)
{
    return c.runT("aten.reshape.default", {T(t), ints(sizes)});
}
Tensor unsqueeze(const Call& c, const Tensor& t, int64_t d) { return c.runT("aten.unsqueeze.default", {T(t), I(d)}); }

Tensor matmul(const Call& c, const Tensor& a, const Tensor& b)
{
    const int64_t d1 = a.dim(), d2 = b.dim();
    if (d1 == 0 || d2 == 0) throw KernelError("matmul: both arguments need at least 1 dimension");
    if (d1 == 1 && d2 == 1)
        return view(c, c.runT("aten.mm.default", {T(unsqueeze(c, a, 0)), T(unsqueeze(c, b, 1))}), {});
    if (d1 == 2 && d2 == 1) return view(c, c.runT("aten.mm.default", {T(a), T(unsqueeze(c, b, 1))}), {a.size(0)});
    if (d1 == 1 && d2 == 2) return view(c, c.runT("aten.mm.default", {T(unsqueeze(c, a, 0)), T(b)}), {b.size(1)});
    if (d1 == 2 && d2 == 2) return c.runT("aten.mm.default", {T(a), T(b)});
    if (d1 >= 3 && d2 <= 2) {
        // fold the batch into the rows
        std::vector<int64_t> out(a.sizes().begin(), a.sizes().end() - 1);
        const Tensor folded = reshape(c, a, {-1, a.size(-1)});
        const Tensor m = d2 == 1 ? unsqueeze(c, b, 1) : b;
        if (d2 == 2) out.push_back(b.size(1));
        return view(c, c.runT("aten.mm.default", {T(folded), T(m)}), out);
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
        return reshape(c, c.runT("aten.expand.default", {T(t), ints(full)}), {B, r, cols});
    };
    const Tensor out = c.runT("aten.bmm.default", {T(expandTo(x, n, k)), T(expandTo(y, k, p))});
    std::vector<int64_t> sizes = batch;
    if (d1 > 1) sizes.push_back(n);
    if (d2 > 1) sizes.push_back(p);
    return view(c, out, sizes);
}

Value linear(const Call& c, const Tensor& input, const Tensor& weight, const Value& bias)
{
    const Tensor wt = c.runT("aten.t.default", {T(weight)});
    if (bias.isTensor() && input.dim() == 2) return c.run("aten.addmm.default", {bias, T(input), T(wt)});
    if (bias.isTensor() && input.dim() == 3 && input.isContiguous()) {
        const Tensor flat = view(c, input, {-1, input.size(2)});
        const Tensor out = c.runT("aten.addmm.default", {bias, T(flat), T(wt)});
        return T(view(c, out, {input.size(0), input.size(1), weight.size(0)}));
    }
    const Tensor out = matmul(c, input, wt);
    if (bias.isTensor()) c.run("aten.add_.Tensor", {T(out), bias, I(1)});
    return T(out);
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
            for (size_t k = 0; k < 3; ++k) se.push_back(k < a->items.size() ? c.c.resolve(a->items[k]) : Value::none());
            if (se[2].isNone()) se[2] = I(1);
            cur = c.runT("aten.slice.Tensor", {T(cur), I(dim), se[0], se[1], se[2]});
            ++dim;
            break;
        }
        default: {
            const Value v = c.c.resolve(*a);
            if (v.kind == Value::Kind::Int) {
                cur = c.runT("aten.select.int", {T(cur), I(dim), v});
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
    if (advanced) return c.run("aten.index.Tensor", {T(cur), Value::ofList({T(*advanced)})});
    return T(cur);
}

// ---- to(): dtype from a dtype, a tensor, or nothing (device moves are no-ops here)

Value toDtype(const Call& c, const Tensor& self, DType dt, bool copy)
{
    return c.run(
        "aten.to.dtype",
        {T(self), dtypeValue(dt == DType::Undefined ? self.dtype() : dt), Value::ofBool(false), Value::ofBool(copy)});
}

// ---- the table

using Table = std::map<std::string, Entry>;

void add(Table& t, const std::string& key, const std::string& sig, std::string atens, LowerFn fn)
{
    t[key] = Entry{parseSignature(sig), std::move(fn), std::move(atens)};
}

Table buildTable()
{
    Table t;
    // binary arithmetic / comparisons: operator.X(a, b), torch.X(input, other), x.X(other)
    const std::vector<std::tuple<BinOp, const char*, const char*>> bins = {
        {BinOp::Add, "add", "add"},
        {BinOp::Sub, "sub", "sub"},
        {BinOp::Mul, "mul", "mul"},
        {BinOp::Div, "truediv", "div"},
        {BinOp::FloorDiv, "floordiv", "floor_divide"},
        {BinOp::Mod, "mod", "remainder"},
        {BinOp::Pow, "pow", "pow"},
        {BinOp::Eq, "eq", "eq"},
        {BinOp::Ne, "ne", "ne"},
        {BinOp::Lt, "lt", "lt"},
        {BinOp::Le, "le", "le"},
        {BinOp::Gt, "gt", "gt"},
        {BinOp::Ge, "ge", "ge"}};
    for (const auto& [op, py, torch] : bins) {
        const BinOp o = op;
        const std::string at = std::string("aten.") + binName(o) + ".Tensor | .Scalar";
        add(t, std::string("operator.") + py, "a, b", at,
            [o](const Call& c) { return binary(c, o, c.at(0), c.at(1), Value::none()); });
        const std::string sig = hasAlpha(o) ? "input, other, *, alpha=1" : "input, other";
        add(t, std::string("torch.") + torch, sig, at,
            [o](const Call& c) { return binary(c, o, c.at(0), c.at(1), hasAlpha(o) ? c.at(2) : Value::none()); });
        add(t, std::string("method:") + torch, hasAlpha(o) ? "self, other, *, alpha=1" : "self, other", at,
            [o](const Call& c) { return binary(c, o, c.at(0), c.at(1), hasAlpha(o) ? c.at(2) : Value::none()); });
    }
    add(t, "torch.div", "input, other, *, rounding_mode=None", "aten.div.Tensor | .Scalar", [](const Call& c) {
        if (c.given(2)) throw KernelError("div with a rounding_mode is not supported by the runtime's lowering");
        return binary(c, BinOp::Div, c.at(0), c.at(1), Value::none());
    });
    t["torch.true_divide"] = t["torch.div"];
    t["method:div"] = t["torch.div"];
    t["method:div"].params[0].name = "self";
    add(t, "method:rsub", "self, other, *, alpha=1", "aten.rsub.Scalar", [](const Call& c) {
        if (c.at(1).isTensor()) return binary(c, BinOp::Sub, c.at(1), c.at(0), c.at(2));
        return c.run("aten.rsub.Scalar", {c.at(0), c.at(1), c.at(2)});
    });
    // in place
    const std::vector<std::tuple<BinOp, const char*, const char*>> inpl = {{BinOp::Add, "iadd", "add_"},
                                                                           {BinOp::Sub, "isub", "sub_"},
                                                                           {BinOp::Mul, "imul", "mul_"},
                                                                           {BinOp::Div, "itruediv", "div_"}};
    for (const auto& [op, py, m] : inpl) {
        const BinOp o = op;
        const std::string at = std::string("aten.") + m + ".Tensor | aten." + binName(o) + ".Scalar + copy_";
        add(t, std::string("operator.") + py, "a, b", at,
            [o](const Call& c) { return inplace(c, o, c.at(0), c.at(1), Value::none()); });
        add(t, std::string("method:") + m, hasAlpha(o) ? "self, other, *, alpha=1" : "self, other", at,
            [o](const Call& c) { return inplace(c, o, c.at(0), c.at(1), hasAlpha(o) ? c.at(2) : Value::none()); });
    }
    add(t, "method:copy_", "self, src, non_blocking=False", "aten.copy_.default", [](const Call& c) {
        c.run("aten.copy_.default", {T(c.tensor(0, "self")), T(c.tensor(1, "src")), c.at(2)});
        return c.at(0);
    });
    add(t, "method:zero_", "self", "aten.zero_.default", [](const Call& c) {
        c.run("aten.zero_.default", {T(c.tensor(0, "self"))});
        return c.at(0);
    });
    add(t, "method:fill_", "self, value", "aten.fill_.Scalar", [](const Call& c) {
        if (!isNum(c.at(1))) throw KernelError("fill_: only a Python number value is supported");
        c.run("aten.fill_.Scalar", {T(c.tensor(0, "self")), c.at(1)});
        return c.at(0);
    });
    // unary
    for (const char* u : {"abs",  "neg",     "sin",   "cos",  "exp",   "expm1",       "log",        "log1p",
                          "tanh", "sigmoid", "relu",  "sqrt", "rsqrt", "erf",         "reciprocal", "floor",
                          "ceil", "round",   "trunc", "sign", "sgn",   "logical_not", "isnan",      "isinf"}) {
        const std::string a = std::string("aten.") + u + ".default";
        LowerFn fn = [a](const Call& c) { return c.run(a, {T(c.tensor(0, "the operand"))}); };
        add(t, std::string("torch.") + u, "input", a, fn);
        add(t, std::string("method:") + u, "self", a, fn);
    }
    t["operator.neg"] = t["torch.neg"];
    t["operator.abs"] = t["torch.abs"];
    t["torch.negative"] = t["torch.neg"];
    t["method:negative"] = t["method:neg"];
    add(t, "operator.pos", "a", "(self)", [](const Call& c) { return c.at(0); });
    for (const char* f : {"torch.nn.functional.sigmoid", "torch.nn.functional.tanh"}) {
        const std::string a = std::string("aten.")
            + (std::string(f).find("sigmoid") != std::string::npos ? "sigmoid" : "tanh") + ".default";
        add(t, f, "input", a, [a](const Call& c) { return c.run(a, {T(c.tensor(0, "input"))}); });
    }
    for (const char* u : {"relu", "silu"}) {
        const std::string a = std::string("aten.") + u + ".default";
        add(t, std::string("torch.nn.functional.") + u, "input, inplace=False", a, [a](const Call& c) {
            if (c.at(1).kind == Value::Kind::Bool && c.at(1).b)
                throw KernelError("inplace=True is not supported by the runtime's lowering");
            return c.run(a, {T(c.tensor(0, "input"))});
        });
    }
    add(t, "method:silu", "self", "aten.silu.default",
        [](const Call& c) { return c.run("aten.silu.default", {T(c.tensor(0, "self"))}); });
    for (const char* g : {"torch.nn.functional.gelu", "torch._C._nn.gelu"}) {
        add(t, g,
            std::string(g).find("_nn") != std::string::npos ? "self, *, approximate='none'"
                                                            : "input, *, approximate='none'",
            "aten.gelu.default", [](const Call& c) {
                return c.run("aten.gelu.default", {T(c.tensor(0, "input")), c.at(1)});
            });
    }
    // matmul family
    LowerFn mm = [](const Call& c) { return T(matmul(c, c.tensor(0, "input"), c.tensor(1, "other"))); };
    add(t, "torch.matmul", "input, other", "aten.mm / aten.bmm (+ views)", mm);
    add(t, "operator.matmul", "a, b", "aten.mm / aten.bmm (+ views)", mm);
    add(t, "method:matmul", "self, other", "aten.mm / aten.bmm (+ views)", mm);
    LowerFn mmOnly = [](const Call& c) {
        return c.run("aten.mm.default", {T(c.tensor(0, "input")), T(c.tensor(1, "mat2"))});
    };
    add(t, "torch.mm", "input, mat2", "aten.mm.default", mmOnly);
    add(t, "method:mm", "self, mat2", "aten.mm.default", mmOnly);
    LowerFn bmm = [](const Call& c) {
        return c.run("aten.bmm.default", {T(c.tensor(0, "input")), T(c.tensor(1, "mat2"))});
    };
    add(t, "torch.bmm", "input, mat2", "aten.bmm.default", bmm);
    add(t, "method:bmm", "self, mat2", "aten.bmm.default", bmm);
    add(t, "torch.addmm", "input, mat1, mat2, *, beta=1, alpha=1", "aten.addmm.default", [](const Call& c) {
        return c.run("aten.addmm.default",
                     {T(c.tensor(0, "input")), T(c.tensor(1, "mat1")), T(c.tensor(2, "mat2")), c.at(3), c.at(4)});
    });
    add(t, "torch.baddbmm", "input, batch1, batch2, *, beta=1, alpha=1", "aten.baddbmm.default", [](const Call& c) {
        return c.run("aten.baddbmm.default",
                     {T(c.tensor(0, "input")), T(c.tensor(1, "batch1")), T(c.tensor(2, "batch2")), c.at(3), c.at(4)});
    });
    LowerFn lin = [](const Call& c) { return linear(c, c.tensor(0, "input"), c.tensor(1, "weight"), c.at(2)); };
    add(t, "torch._C._nn.linear", "input, weight, bias=None", "aten.addmm.default | matmul (+ add_)", lin);
    add(t, "torch.nn.functional.linear", "input, weight, bias=None", "aten.addmm.default | matmul (+ add_)", lin);
    // softmax / log_softmax / layer_norm
    for (const bool log : {false, true}) {
        const std::string a = log ? "aten._log_softmax.default" : "aten._softmax.default";
        LowerFn fn = [a](const Call& c) {
            Tensor x = c.tensor(0, "input");
            if (c.at(1).isNone()) throw KernelError("softmax without dim (implicit dim) is not supported; give dim");
            if (c.at(2).kind == Value::Kind::DType) x = c.runT("aten.to.dtype", {T(x), c.at(2)});
            return c.run(a, {T(x), I(c.at(1).toInt()), Value::ofBool(false)});
        };
        const std::string name = log ? "log_softmax" : "softmax";
        add(t, "torch.nn.functional." + name, "input, dim=None, _stacklevel=3, dtype=None", a, [fn](const Call& c) {
            Call d{c.c, c.n, {c.at(0), c.at(1), c.at(3)}, {}};
            return fn(d);
        });
        add(t, "torch." + name, "input, dim, dtype=None", a, fn);
        add(t, "method:" + name, "self, dim, dtype=None", a, fn);
    }
    add(t, "torch.nn.functional.layer_norm", "input, normalized_shape, weight=None, bias=None, eps=1e-05",
        "aten.native_layer_norm.default[0]", [](const Call& c) {
            Value r = c.run("aten.native_layer_norm.default",
                            {T(c.tensor(0, "input")), c.at(1), c.at(2), c.at(3), Value::ofFloat(c.at(4).toDouble())});
            if (r.kind != Value::Kind::List || r.items.empty())
                throw KernelError("native_layer_norm returned no tuple");
            return r.items[0];
        });
    // reductions
    for (const char* r : {"sum", "mean"}) {
        const std::string a = std::string("aten.") + r;
        LowerFn fn = [a](const Call& c) {
            const Tensor& x = c.tensor(0, "input");
            if (c.at(1).isNone()) {
                if (c.at(2).kind == Value::Kind::Bool && c.at(2).b)
                    throw KernelError("keepdim without dim is not supported");
                return c.run(a + ".default", {T(x), c.at(3)});
            }
            Value dims = c.at(1).kind == Value::Kind::Int ? ints({c.at(1).i}) : c.at(1);
            return c.run(a + ".dim" + (a == "aten.sum" ? "_IntList" : ""), {T(x), dims, c.at(2), c.at(3)});
        };
        add(t, std::string("torch.") + r, "input, dim=None, keepdim=False, *, dtype=None", a + ".default | .dim", fn);
        add(t, std::string("method:") + r, "self, dim=None, keepdim=False, *, dtype=None", a + ".default | .dim", fn);
    }
    LowerFn amax = [](const Call& c) {
        Value dims = c.at(1).kind == Value::Kind::Int ? ints({c.at(1).i}) : c.at(1);
        return c.run("aten.amax.default", {T(c.tensor(0, "input")), dims, c.at(2)});
    };
    add(t, "torch.amax", "input, dim=[], keepdim=False", "aten.amax.default", amax);
    add(t, "method:amax", "self, dim=[], keepdim=False", "aten.amax.default", amax);
    // views and shape methods
    add(t, "method:view", "self, *size", "aten.view.default | aten.view.dtype", [](const Call& c) {
        const Value s = sizeList(c.at(1));
        if (s.items.size() == 1 && s.items[0].kind == Value::Kind::DType)
            return c.run("aten.view.dtype", {c.at(0), s.items[0]});
        return c.run("aten.view.default", {T(c.tensor(0, "self")), s});
    });
    LowerFn resh = [](const Call& c) {
        return c.run("aten.reshape.default", {T(c.tensor(0, "self")), sizeList(c.at(1))});
    };
    add(t, "method:reshape", "self, *shape", "aten.reshape.default", resh);
    add(t, "torch.reshape", "input, shape", "aten.reshape.default", [](const Call& c) {
        return c.run("aten.reshape.default", {T(c.tensor(0, "input")), c.at(1)});
    });
    LowerFn tr = [](const Call& c) { return c.run("aten.transpose.int", {T(c.tensor(0, "input")), c.at(1), c.at(2)}); };
    add(t, "method:transpose", "self, dim0, dim1", "aten.transpose.int", tr);
    add(t, "torch.transpose", "input, dim0, dim1", "aten.transpose.int", tr);
    add(t, "method:permute", "self, *dims", "aten.permute.default", [](const Call& c) {
        return c.run("aten.permute.default", {T(c.tensor(0, "self")), sizeList(c.at(1))});
    });
    add(t, "torch.permute", "input, dims", "aten.permute.default", [](const Call& c) {
        return c.run("aten.permute.default", {T(c.tensor(0, "input")), c.at(1)});
    });
    LowerFn tt = [](const Call& c) { return c.run("aten.t.default", {T(c.tensor(0, "input"))}); };
    add(t, "method:t", "self", "aten.t.default", tt);
    add(t, "torch.t", "input", "aten.t.default", tt);
    LowerFn unsq = [](const Call& c) { return c.run("aten.unsqueeze.default", {T(c.tensor(0, "input")), c.at(1)}); };
    add(t, "method:unsqueeze", "self, dim", "aten.unsqueeze.default", unsq);
    add(t, "torch.unsqueeze", "input, dim", "aten.unsqueeze.default", unsq);
    LowerFn sq = [](const Call& c) {
        const Tensor& x = c.tensor(0, "input");
        if (c.at(1).isNone()) return c.run("aten.squeeze.default", {T(x)});
        if (c.at(1).kind == Value::Kind::List) return c.run("aten.squeeze.dims", {T(x), c.at(1)});
        return c.run("aten.squeeze.dim", {T(x), c.at(1)});
    };
    add(t, "method:squeeze", "self, dim=None", "aten.squeeze.default | .dim | .dims", sq);
    add(t, "torch.squeeze", "input, dim=None", "aten.squeeze.default | .dim | .dims", sq);
    LowerFn flat = [](const Call& c) {
        const Tensor& x = c.tensor(0, "input");
        if (x.dim() == 0) return T(reshape(c, x, {1}));
        const int64_t s = wrapDim(c.at(1).toInt(), x.dim()), e = wrapDim(c.at(2).toInt(), x.dim());
        if (s > e) throw KernelError("flatten: start_dim after end_dim");
        if (s == e) return T(x);
        std::vector<int64_t> shape(x.sizes().begin(), x.sizes().begin() + s);
        int64_t m = 1;
        for (int64_t k = s; k <= e; ++k) m *= x.size(k);
        shape.push_back(m);
        shape.insert(shape.end(), x.sizes().begin() + e + 1, x.sizes().end());
        return T(reshape(c, x, shape));
    };
    add(t, "method:flatten", "self, start_dim=0, end_dim=-1", "aten.reshape.default", flat);
    add(t, "torch.flatten", "input, start_dim=0, end_dim=-1", "aten.reshape.default", flat);
    add(t, "method:expand", "self, *size", "aten.expand.default", [](const Call& c) {
        return c.run("aten.expand.default", {T(c.tensor(0, "self")), sizeList(c.at(1))});
    });
    add(t, "method:expand_as", "self, other", "aten.expand.default", [](const Call& c) {
        return c.run("aten.expand.default", {T(c.tensor(0, "self")), ints(c.tensor(1, "other").sizes())});
    });
    add(t, "method:repeat", "self, *repeats", "aten.repeat.default", [](const Call& c) {
        return c.run("aten.repeat.default", {T(c.tensor(0, "self")), sizeList(c.at(1))});
    });
    add(t, "method:contiguous", "self, memory_format=contiguous_format", "(self) | aten.clone.default",
        [](const Call& c) {
            const Tensor& x = c.tensor(0, "self");
            if (c.at(1).kind == Value::Kind::MemoryFormat && c.at(1).s != "contiguous_format"
                && c.at(1).s != "torch.contiguous_format")
                throw KernelError("contiguous(memory_format=" + c.at(1).s
                                  + ") is not supported by the runtime's lowering");
            if (x.isContiguous()) return T(x);
            return c.run("aten.clone.default", {T(x), c.at(1)});
        });
    LowerFn clone = [](const Call& c) { return c.run("aten.clone.default", {T(c.tensor(0, "input")), c.at(1)}); };
    add(t, "method:clone", "self, *, memory_format=None", "aten.clone.default", clone);
    add(t, "torch.clone", "input, *, memory_format=None", "aten.clone.default", clone);
    add(t, "method:detach", "self", "aten.detach.default",
        [](const Call& c) { return c.run("aten.detach.default", {T(c.tensor(0, "self"))}); });
    add(t, "method:size", "self, dim=None", "(sizes)", [](const Call& c) {
        const Tensor& x = c.tensor(0, "self");
        if (c.at(1).isNone()) return ints(x.sizes());
        return I(x.size(wrapDim(c.at(1).toInt(), x.dim())));
    });
    add(t, "method:dim", "self", "(rank)", [](const Call& c) { return I(c.tensor(0, "self").dim()); });
    add(t, "method:numel", "self", "(numel)", [](const Call& c) { return I(c.tensor(0, "self").numel()); });
    add(t, "torch.cat", "tensors, dim=0", "aten.cat.default", [](const Call& c) {
        return c.run("aten.cat.default", {c.at(0), c.at(1)});
    });
    t["torch.concat"] = t["torch.cat"];
    add(t, "torch.stack", "tensors, dim=0", "aten.stack.default", [](const Call& c) {
        return c.run("aten.stack.default", {c.at(0), c.at(1)});
    });
    add(t, "operator.getitem", "obj, ~idx", "aten.select.int | slice.Tensor | unsqueeze | index.Tensor",
        [](const Call& c) {
            const Value& o = c.at(0);
            if (o.isTensor()) return tensorIndex(c, o.tensor, *c.raw.at(1));
            const Value i = c.c.resolve(*c.raw.at(1));
            if (o.kind != Value::Kind::List || i.kind != Value::Kind::Int)
                throw KernelError("getitem: only tensors, and tuples/lists by an int, are supported");
            const int64_t k = i.i < 0 ? i.i + static_cast<int64_t>(o.items.size()) : i.i;
            if (k < 0 || k >= static_cast<int64_t>(o.items.size())) throw KernelError("getitem: index out of range");
            return o.items[static_cast<size_t>(k)];
        });
    // dtype conversions
    add(t, "method:to", "self, *args, dtype=None, non_blocking=False, copy=False, memory_format=None, device=None",
        "aten.to.dtype (device moves are no-ops)", [](const Call& c) {
            const Tensor& x = c.tensor(0, "self");
            DType dt = c.at(2).kind == Value::Kind::DType ? c.at(2).dtype : DType::Undefined;
            bool copy = c.at(4).kind == Value::Kind::Bool && c.at(4).b;
            int bools = 0;
            for (const Value& a : c.at(1).items) {
                if (a.kind == Value::Kind::DType)
                    dt = a.dtype;
                else if (a.isTensor())
                    dt = a.tensor.dtype();
                else if (a.kind == Value::Kind::Bool) {
                    if (bools++ == 1) copy = a.b;
                }  // (non_blocking, copy)
                else if (a.kind != Value::Kind::Device && a.kind != Value::Kind::Str && !a.isNone())
                    throw KernelError("to(): unsupported argument");
            }
            if (c.at(5).kind == Value::Kind::MemoryFormat && c.at(5).s != "preserve_format"
                && c.at(5).s != "torch.preserve_format")
                throw KernelError("to(memory_format=...) is not supported by the runtime's lowering");
            return toDtype(c, x, dt, copy);
        });
    const std::vector<std::pair<const char*, DType>> casts = {
        {"float", DType::F32}, {"double", DType::F64}, {"half", DType::F16}, {"bfloat16", DType::BF16},
        {"int", DType::I32},   {"long", DType::I64},   {"bool", DType::Bool}};
    for (const auto& [m, d] : casts) {
        const DType dt = d;
        add(t, std::string("method:") + m, "self", "aten.to.dtype",
            [dt](const Call& c) { return toDtype(c, c.tensor(0, "self"), dt, false); });
    }
    add(t, "method:type_as", "self, other", "aten.to.dtype",
        [](const Call& c) { return toDtype(c, c.tensor(0, "self"), c.tensor(1, "other").dtype(), false); });
    // grad mode: nothing the runtime computes depends on it (no autograd)
    add(t, "torch._C._set_grad_enabled", "enabled", "(no-op)", [](const Call&) { return Value::none(); });
    return t;
}

const Table& table()
{
    static const Table t = buildTable();
    return t;
}

// How the node's arguments map onto the signature (worked out at plan time).
struct Source
{
    enum class From : uint8_t
    {
        Positional,
        Keyword,
        Default,
        VarPositional
    } from = From::Default;
    size_t index = 0, end = 0;  // Positional/Keyword: index; VarPositional: [index, end)
};

class Lowered final : public TorchLowering
{
public:
    Lowered(std::string key, const Entry& e, std::vector<Source> s)
        : key_(std::move(key))
        , e_(e)
        , sources_(std::move(s))
    { }

    Value run(TorchLevelContext& c, const Node& n) const override
    {
        Call call{c, n, {}, {}};
        call.v.reserve(sources_.size());
        call.raw.assign(sources_.size(), nullptr);
        for (size_t i = 0; i < sources_.size(); ++i) {
            const Source& s = sources_[i];
            const Param& p = e_.params[i];
            const Arg* a = nullptr;
            switch (s.from) {
            case Source::From::Positional: a = &n.args[s.index]; break;
            case Source::From::Keyword: a = &n.kwargs[s.index].second; break;
            case Source::From::Default: call.v.push_back(p.def); continue;
            case Source::From::VarPositional: {
                std::vector<Value> items;
                for (size_t k = s.index; k < s.end; ++k) items.push_back(c.resolve(n.args[k]));
                call.v.push_back(Value::ofList(std::move(items)));
                continue;
            }
            }
            if (p.raw) {
                call.raw[i] = a;
                call.v.push_back(Value::none());
            } else {
                call.v.push_back(c.resolve(*a));
            }
        }
        return e_.fn(call);
    }
    std::string description() const override { return key_ + " -> " + e_.atens; }

private:
    std::string key_;
    const Entry& e_;
    std::vector<Source> sources_;
};

}  // namespace

std::string torchLevelKey(const Node& n)
{
    if (n.op == NodeOp::CallMethod) return "method:" + n.target;
    if (n.op == NodeOp::CallFunction) return OpRegistry::normalizeTarget(n.target);
    return {};
}

bool hasTorchLevelLowering(const Node& n)
{
    const std::string k = torchLevelKey(n);
    return !k.empty() && table().count(k) != 0;
}

std::vector<std::string> torchLevelKeys()
{
    std::vector<std::string> out;
    for (const auto& kv : table()) out.push_back(kv.first);
    return out;
}

std::unique_ptr<TorchLowering> planTorchLevel(const Node& n, std::string& error)
{
    const std::string key = torchLevelKey(n);
    const std::string what =
        n.op == NodeOp::CallMethod ? "call_method '" + n.target + "'" : "call_function '" + n.target + "'";
    auto it = key.empty() ? table().end() : table().find(key);
    if (it == table().end()) {
        error = what + " has no lowering to aten kernels in the runtime (runtime/torch_level.cpp)";
        return nullptr;
    }
    const Entry& e = it->second;
    std::vector<Source> src(e.params.size());
    std::vector<uint8_t> given(e.params.size(), 0);
    size_t k = 0;
    for (size_t i = 0; i < e.params.size() && k < n.args.size(); ++i) {
        const Param& p = e.params[i];
        if (p.varargs) {
            src[i] = {Source::From::VarPositional, k, n.args.size()};
            given[i] = 1;
            k = n.args.size();
            break;
        }
        if (p.kwOnly) break;
        src[i] = {Source::From::Positional, k++, 0};
        given[i] = 1;
    }
    if (k < n.args.size()) {
        error = what + ": " + std::to_string(n.args.size()) + " positional arguments, the lowering's signature (" + key
            + ") takes fewer";
        return nullptr;
    }
    for (size_t j = 0; j < n.kwargs.size(); ++j) {
        size_t i = 0;
        while (i < e.params.size() && (e.params[i].name != n.kwargs[j].first || e.params[i].varargs)) ++i;
        if (i == e.params.size()) {
            error = what + ": unexpected keyword argument '" + n.kwargs[j].first + "'";
            return nullptr;
        }
        if (given[i]) {
            error = what + ": argument '" + n.kwargs[j].first + "' given twice";
            return nullptr;
        }
        src[i] = {Source::From::Keyword, j, 0};
        given[i] = 1;
    }
    for (size_t i = 0; i < e.params.size(); ++i) {
        if (given[i]) continue;
        if (e.params[i].varargs) {
            src[i] = {Source::From::VarPositional, n.args.size(), n.args.size()};
            continue;
        }
        if (!e.params[i].hasDefault) {
            error = what + ": missing argument '" + e.params[i].name + "'";
            return nullptr;
        }
        src[i] = {Source::From::Default, 0, 0};
    }
    return std::make_unique<Lowered>(key, e, std::move(src));
}

}  // namespace fxl

#include "runtime/exec/scalar_ops.hpp"

#include <cmath>
#include <string>

#include "runtime/base/kernel.hpp"

namespace fxl {
namespace {

bool isNumber(const Value& v)
{
    return v.kind == Value::Kind::Int || v.kind == Value::Kind::Float || v.kind == Value::Kind::Bool;
}

bool isFloat(const Value& v) { return v.kind == Value::Kind::Float; }

int64_t asInt(const Value& v) { return v.kind == Value::Kind::Bool ? int64_t(v.b) : v.i; }

double asDouble(const Value& v) { return v.kind == Value::Kind::Float ? v.f : double(asInt(v)); }

int64_t floorDiv(int64_t a, int64_t b)
{
    if (b == 0) throw KernelError("integer division or modulo by zero");
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
}

int64_t floorMod(int64_t a, int64_t b) { return a - floorDiv(a, b) * b; }

std::string_view stripModule(std::string_view t)
{
    for (std::string_view p : {"operator.", "_operator.", "builtins.", "math."})
        if (t.substr(0, p.size()) == p) return t.substr(p.size());
    if (t.substr(0, 10) == "torch.sym_") return t.substr(6);  // torch.sym_max, sym_float, ...
    return {};
}

std::optional<Value> unary(std::string_view op, const Value& a)
{
    if (op == "neg") return isFloat(a) ? Value::ofFloat(-a.f) : Value::ofInt(-asInt(a));
    if (op == "pos") return isFloat(a) ? a : Value::ofInt(asInt(a));
    if (op == "abs") return isFloat(a) ? Value::ofFloat(std::fabs(a.f)) : Value::ofInt(std::llabs(asInt(a)));
    if (op == "not_") return Value::ofBool(isFloat(a) ? a.f == 0.0 : asInt(a) == 0);
    if (op == "truth") return Value::ofBool(isFloat(a) ? a.f != 0.0 : asInt(a) != 0);
    if (op == "floor" || op == "ceil" || op == "trunc") {
        if (!isFloat(a)) return Value::ofInt(asInt(a));
        const double r = op == "floor" ? std::floor(a.f) : op == "ceil" ? std::ceil(a.f) : std::trunc(a.f);
        return Value::ofInt(static_cast<int64_t>(r));
    }
    if (op == "sym_float") return Value::ofFloat(asDouble(a));
    if (op == "sym_int") return Value::ofInt(isFloat(a) ? static_cast<int64_t>(std::trunc(a.f)) : asInt(a));
    if (op == "sym_not") return Value::ofBool(!a.b);
    return std::nullopt;
}

template<class Cmp>
Value compare(const Value& a, const Value& b, Cmp cmp)
{
    if (isFloat(a) || isFloat(b)) return Value::ofBool(cmp(asDouble(a), asDouble(b)));
    return Value::ofBool(cmp(asInt(a), asInt(b)));
}

std::optional<Value> binary(std::string_view op, const Value& a, const Value& b)
{
    const bool fl = isFloat(a) || isFloat(b);
    if (op == "add") return fl ? Value::ofFloat(asDouble(a) + asDouble(b)) : Value::ofInt(asInt(a) + asInt(b));
    if (op == "sub") return fl ? Value::ofFloat(asDouble(a) - asDouble(b)) : Value::ofInt(asInt(a) - asInt(b));
    if (op == "mul") return fl ? Value::ofFloat(asDouble(a) * asDouble(b)) : Value::ofInt(asInt(a) * asInt(b));
    if (op == "truediv") {
        if (asDouble(b) == 0.0) throw KernelError("division by zero");
        return Value::ofFloat(asDouble(a) / asDouble(b));
    }
    if (op == "floordiv") {
        if (!fl) return Value::ofInt(floorDiv(asInt(a), asInt(b)));
        if (asDouble(b) == 0.0) throw KernelError("float floor division by zero");
        return Value::ofFloat(std::floor(asDouble(a) / asDouble(b)));
    }
    if (op == "mod") {
        if (!fl) return Value::ofInt(floorMod(asInt(a), asInt(b)));
        const double y = asDouble(b);
        if (y == 0.0) throw KernelError("float modulo by zero");
        double r = std::fmod(asDouble(a), y);
        if (r != 0.0 && ((r < 0) != (y < 0))) r += y;
        return Value::ofFloat(r);
    }
    if (op == "pow") {
        if (!fl && asInt(b) >= 0) {
            int64_t r = 1, x = asInt(a);
            for (int64_t e = asInt(b); e > 0; --e) r *= x;
            return Value::ofInt(r);
        }
        return Value::ofFloat(std::pow(asDouble(a), asDouble(b)));
    }
    if (op == "eq") return compare(a, b, [](auto x, auto y) { return x == y; });
    if (op == "ne") return compare(a, b, [](auto x, auto y) { return x != y; });
    if (op == "lt") return compare(a, b, [](auto x, auto y) { return x < y; });
    if (op == "le") return compare(a, b, [](auto x, auto y) { return x <= y; });
    if (op == "gt") return compare(a, b, [](auto x, auto y) { return x > y; });
    if (op == "ge") return compare(a, b, [](auto x, auto y) { return x >= y; });
    if (op == "sym_max" || op == "max")
        return fl ? Value::ofFloat(std::max(asDouble(a), asDouble(b))) : Value::ofInt(std::max(asInt(a), asInt(b)));
    if (op == "sym_min" || op == "min")
        return fl ? Value::ofFloat(std::min(asDouble(a), asDouble(b))) : Value::ofInt(std::min(asInt(a), asInt(b)));
    if (a.kind == Value::Kind::Bool && b.kind == Value::Kind::Bool) {
        if (op == "and_") return Value::ofBool(a.b && b.b);
        if (op == "or_") return Value::ofBool(a.b || b.b);
        if (op == "xor") return Value::ofBool(a.b != b.b);
    }
    if (!fl && (op == "and_" || op == "or_" || op == "xor" || op == "lshift" || op == "rshift")) {
        const int64_t x = asInt(a), y = asInt(b);
        if (op == "and_") return Value::ofInt(x & y);
        if (op == "or_") return Value::ofInt(x | y);
        if (op == "xor") return Value::ofInt(x ^ y);
        if (y < 0 || y > 63) throw KernelError("shift count out of range");
        return Value::ofInt(op == "lshift" ? int64_t(uint64_t(x) << y) : x >> y);
    }
    return std::nullopt;
}

}  // namespace

bool isScalarOperatorTarget(std::string_view target) { return !stripModule(target).empty(); }

std::optional<Value> applyScalarOperator(std::string_view target, const std::vector<Value>& args)
{
    const std::string_view op = stripModule(target);
    if (op.empty() || args.empty() || args.size() > 2) return std::nullopt;
    for (const Value& v : args)
        if (!isNumber(v)) return std::nullopt;
    return args.size() == 1 ? unary(op, args[0]) : binary(op, args[0], args[1]);
}

}  // namespace fxl

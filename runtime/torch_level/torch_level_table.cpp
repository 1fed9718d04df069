#include "runtime/torch_level/torch_level_table.hpp"

#include <tuple>
#include <utility>
#include <vector>

#include "runtime/torch_level/torch_level_compose.hpp"

namespace fxl::torch_level {

namespace {

void add(Table& t, const std::string& key, const std::string& sig, std::string atens, LowerFn fn)
{
    t[key] = Entry{parseSignature(sig), std::move(fn), std::move(atens)};
}

// Binary arithmetic and comparisons: operator.X(a, b), torch.X(input, other), x.X(other); div, rsub.
void addBinaryOperators(Table& t)
{
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
}

// In place: operator.iX, x.X_(other), copy_, zero_, fill_.
void addInPlaceOperators(Table& t)
{
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
        c.run("aten.copy_.default", {tensorValue(c.tensor(0, "self")), tensorValue(c.tensor(1, "src")), c.at(2)});
        return c.at(0);
    });
    add(t, "method:zero_", "self", "aten.zero_.default", [](const Call& c) {
        c.run("aten.zero_.default", {tensorValue(c.tensor(0, "self"))});
        return c.at(0);
    });
    add(t, "method:fill_", "self, value", "aten.fill_.Scalar", [](const Call& c) {
        if (!isNumber(c.at(1))) throw KernelError("fill_: only a Python number value is supported");
        c.run("aten.fill_.Scalar", {tensorValue(c.tensor(0, "self")), c.at(1)});
        return c.at(0);
    });
}

// Unary math and activations (torch.X, x.X(), torch.nn.functional.X).
void addUnaryOps(Table& t)
{
    for (const char* u : {"abs",  "neg",     "sin",   "cos",  "exp",   "expm1",       "log",        "log1p",
                          "tanh", "sigmoid", "relu",  "sqrt", "rsqrt", "erf",         "reciprocal", "floor",
                          "ceil", "round",   "trunc", "sign", "sgn",   "logical_not", "isnan",      "isinf"}) {
        const std::string a = std::string("aten.") + u + ".default";
        LowerFn fn = [a](const Call& c) { return c.run(a, {tensorValue(c.tensor(0, "the operand"))}); };
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
        add(t, f, "input", a, [a](const Call& c) { return c.run(a, {tensorValue(c.tensor(0, "input"))}); });
    }
    for (const char* u : {"relu", "silu"}) {
        const std::string a = std::string("aten.") + u + ".default";
        add(t, std::string("torch.nn.functional.") + u, "input, inplace=False", a, [a](const Call& c) {
            if (c.at(1).kind == Value::Kind::Bool && c.at(1).b)
                throw KernelError("inplace=True is not supported by the runtime's lowering");
            return c.run(a, {tensorValue(c.tensor(0, "input"))});
        });
    }
    add(t, "method:silu", "self", "aten.silu.default",
        [](const Call& c) { return c.run("aten.silu.default", {tensorValue(c.tensor(0, "self"))}); });
    for (const char* g : {"torch.nn.functional.gelu", "torch._C._nn.gelu"}) {
        add(t, g,
            std::string(g).find("_nn") != std::string::npos ? "self, *, approximate='none'"
                                                            : "input, *, approximate='none'",
            "aten.gelu.default", [](const Call& c) {
                return c.run("aten.gelu.default", {tensorValue(c.tensor(0, "input")), c.at(1)});
            });
    }
}

// Matmul, mm, bmm, addmm, baddbmm, linear.
void addMatmulFamily(Table& t)
{
    LowerFn mm = [](const Call& c) { return tensorValue(matmul(c, c.tensor(0, "input"), c.tensor(1, "other"))); };
    add(t, "torch.matmul", "input, other", "aten.mm / aten.bmm (+ views)", mm);
    add(t, "operator.matmul", "a, b", "aten.mm / aten.bmm (+ views)", mm);
    add(t, "method:matmul", "self, other", "aten.mm / aten.bmm (+ views)", mm);
    LowerFn mmOnly = [](const Call& c) {
        return c.run("aten.mm.default", {tensorValue(c.tensor(0, "input")), tensorValue(c.tensor(1, "mat2"))});
    };
    add(t, "torch.mm", "input, mat2", "aten.mm.default", mmOnly);
    add(t, "method:mm", "self, mat2", "aten.mm.default", mmOnly);
    LowerFn bmm = [](const Call& c) {
        return c.run("aten.bmm.default", {tensorValue(c.tensor(0, "input")), tensorValue(c.tensor(1, "mat2"))});
    };
    add(t, "torch.bmm", "input, mat2", "aten.bmm.default", bmm);
    add(t, "method:bmm", "self, mat2", "aten.bmm.default", bmm);
    add(t, "torch.addmm", "input, mat1, mat2, *, beta=1, alpha=1", "aten.addmm.default", [](const Call& c) {
        return c.run("aten.addmm.default",
                     {tensorValue(c.tensor(0, "input")), tensorValue(c.tensor(1, "mat1")),
                      tensorValue(c.tensor(2, "mat2")), c.at(3), c.at(4)});
    });
    add(t, "torch.baddbmm", "input, batch1, batch2, *, beta=1, alpha=1", "aten.baddbmm.default", [](const Call& c) {
        return c.run("aten.baddbmm.default",
                     {tensorValue(c.tensor(0, "input")), tensorValue(c.tensor(1, "batch1")),
                      tensorValue(c.tensor(2, "batch2")), c.at(3), c.at(4)});
    });
    LowerFn lin = [](const Call& c) { return linear(c, c.tensor(0, "input"), c.tensor(1, "weight"), c.at(2)); };
    add(t, "torch._C._nn.linear", "input, weight, bias=None", "aten.addmm.default | matmul (+ add_)", lin);
    add(t, "torch.nn.functional.linear", "input, weight, bias=None", "aten.addmm.default | matmul (+ add_)", lin);
    // the CompositeImplicitAutograd aten ops of pre-dispatch graphs (Inductor's pre-grad
    // graphs): the same decompositions as at::linear / at::matmul
    add(t, "aten.linear.default", "input, weight, bias=None", "aten.addmm.default | matmul (+ add_)", lin);
    add(t, "aten.matmul.default", "self, other", "aten.mm / aten.bmm (+ views)",
        [](const Call& c) { return tensorValue(matmul(c, c.tensor(0, "self"), c.tensor(1, "other"))); });
}

// Softmax / log_softmax / layer_norm.
void addNormalizations(Table& t)
{
    for (const bool log : {false, true}) {
        const std::string a = log ? "aten._log_softmax.default" : "aten._softmax.default";
        LowerFn fn = [a](const Call& c) {
            Tensor x = c.tensor(0, "input");
            if (c.at(1).isNone()) throw KernelError("softmax without dim (implicit dim) is not supported; give dim");
            if (c.at(2).kind == Value::Kind::DType) x = c.runTensor("aten.to.dtype", {tensorValue(x), c.at(2)});
            return c.run(a, {tensorValue(x), intValue(c.at(1).toInt()), Value::ofBool(false)});
        };
        const std::string name = log ? "log_softmax" : "softmax";
        add(t, "torch.nn.functional." + name, "input, dim=None, _stacklevel=3, dtype=None", a, [fn](const Call& c) {
            Call d{c.context, c.node, {c.at(0), c.at(1), c.at(3)}, {}};
            return fn(d);
        });
        add(t, "torch." + name, "input, dim, dtype=None", a, fn);
        add(t, "method:" + name, "self, dim, dtype=None", a, fn);
    }
    add(t, "torch.nn.functional.layer_norm", "input, normalized_shape, weight=None, bias=None, eps=1e-05",
        "aten.native_layer_norm.default[0]", [](const Call& c) {
            Value r = c.run(
                "aten.native_layer_norm.default",
                {tensorValue(c.tensor(0, "input")), c.at(1), c.at(2), c.at(3), Value::ofFloat(c.at(4).toDouble())});
            if (r.kind != Value::Kind::List || r.items.empty())
                throw KernelError("native_layer_norm returned no tuple");
            return r.items[0];
        });
    add(t, "torch.nn.functional.scaled_dot_product_attention",
        "query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, *, scale=None, enable_gqa=False",
        "aten.scaled_dot_product_attention.default", [](const Call& c) {
            return c.run("aten.scaled_dot_product_attention.default",
                         {tensorValue(c.tensor(0, "query")), tensorValue(c.tensor(1, "key")),
                          tensorValue(c.tensor(2, "value")), c.at(3), Value::ofFloat(c.at(4).toDouble()), c.at(5),
                          c.at(6), c.at(7)});
        });
}

// Sum, mean, amax.
void addReductions(Table& t)
{
    for (const char* r : {"sum", "mean"}) {
        const std::string a = std::string("aten.") + r;
        LowerFn fn = [a](const Call& c) {
            const Tensor& x = c.tensor(0, "input");
            if (c.at(1).isNone()) {
                if (c.at(2).kind == Value::Kind::Bool && c.at(2).b)
                    throw KernelError("keepdim without dim is not supported");
                return c.run(a + ".default", {tensorValue(x), c.at(3)});
            }
            Value dims = c.at(1).kind == Value::Kind::Int ? intList({c.at(1).i}) : c.at(1);
            return c.run(a + ".dim" + (a == "aten.sum" ? "_IntList" : ""), {tensorValue(x), dims, c.at(2), c.at(3)});
        };
        add(t, std::string("torch.") + r, "input, dim=None, keepdim=False, *, dtype=None", a + ".default | .dim", fn);
        add(t, std::string("method:") + r, "self, dim=None, keepdim=False, *, dtype=None", a + ".default | .dim", fn);
    }
    LowerFn amax = [](const Call& c) {
        Value dims = c.at(1).kind == Value::Kind::Int ? intList({c.at(1).i}) : c.at(1);
        return c.run("aten.amax.default", {tensorValue(c.tensor(0, "input")), dims, c.at(2)});
    };
    add(t, "torch.amax", "input, dim=[], keepdim=False", "aten.amax.default", amax);
    add(t, "method:amax", "self, dim=[], keepdim=False", "aten.amax.default", amax);
}

// Views and shape methods: view, reshape, transpose, permute, t, (un)squeeze, flatten, expand, repeat.
void addViews(Table& t)
{
    add(t, "method:view", "self, *size", "aten.view.default | aten.view.dtype", [](const Call& c) {
        const Value s = sizeList(c.at(1));
        if (s.items.size() == 1 && s.items[0].kind == Value::Kind::DType)
            return c.run("aten.view.dtype", {c.at(0), s.items[0]});
        return c.run("aten.view.default", {tensorValue(c.tensor(0, "self")), s});
    });
    LowerFn resh = [](const Call& c) {
        return c.run("aten.reshape.default", {tensorValue(c.tensor(0, "self")), sizeList(c.at(1))});
    };
    add(t, "method:reshape", "self, *shape", "aten.reshape.default", resh);
    add(t, "torch.reshape", "input, shape", "aten.reshape.default", [](const Call& c) {
        return c.run("aten.reshape.default", {tensorValue(c.tensor(0, "input")), c.at(1)});
    });
    LowerFn tr = [](const Call& c) {
        return c.run("aten.transpose.int", {tensorValue(c.tensor(0, "input")), c.at(1), c.at(2)});
    };
    add(t, "method:transpose", "self, dim0, dim1", "aten.transpose.int", tr);
    add(t, "torch.transpose", "input, dim0, dim1", "aten.transpose.int", tr);
    add(t, "method:permute", "self, *dims", "aten.permute.default", [](const Call& c) {
        return c.run("aten.permute.default", {tensorValue(c.tensor(0, "self")), sizeList(c.at(1))});
    });
    add(t, "torch.permute", "input, dims", "aten.permute.default", [](const Call& c) {
        return c.run("aten.permute.default", {tensorValue(c.tensor(0, "input")), c.at(1)});
    });
    LowerFn tt = [](const Call& c) { return c.run("aten.t.default", {tensorValue(c.tensor(0, "input"))}); };
    add(t, "method:t", "self", "aten.t.default", tt);
    add(t, "torch.t", "input", "aten.t.default", tt);
    LowerFn unsq = [](const Call& c) {
        return c.run("aten.unsqueeze.default", {tensorValue(c.tensor(0, "input")), c.at(1)});
    };
    add(t, "method:unsqueeze", "self, dim", "aten.unsqueeze.default", unsq);
    add(t, "torch.unsqueeze", "input, dim", "aten.unsqueeze.default", unsq);
    LowerFn sq = [](const Call& c) {
        const Tensor& x = c.tensor(0, "input");
        if (c.at(1).isNone()) return c.run("aten.squeeze.default", {tensorValue(x)});
        if (c.at(1).kind == Value::Kind::List) return c.run("aten.squeeze.dims", {tensorValue(x), c.at(1)});
        return c.run("aten.squeeze.dim", {tensorValue(x), c.at(1)});
    };
    add(t, "method:squeeze", "self, dim=None", "aten.squeeze.default | .dim | .dims", sq);
    add(t, "torch.squeeze", "input, dim=None", "aten.squeeze.default | .dim | .dims", sq);
    LowerFn flat = [](const Call& c) {
        const Tensor& x = c.tensor(0, "input");
        if (x.dim() == 0) return tensorValue(reshape(c, x, {1}));
        const int64_t s = wrapDim(c.at(1).toInt(), x.dim()), e = wrapDim(c.at(2).toInt(), x.dim());
        if (s > e) throw KernelError("flatten: start_dim after end_dim");
        if (s == e) return tensorValue(x);
        std::vector<int64_t> shape(x.sizes().begin(), x.sizes().begin() + s);
        int64_t m = 1;
        for (int64_t k = s; k <= e; ++k) m *= x.size(k);
        shape.push_back(m);
        shape.insert(shape.end(), x.sizes().begin() + e + 1, x.sizes().end());
        return tensorValue(reshape(c, x, shape));
    };
    add(t, "method:flatten", "self, start_dim=0, end_dim=-1", "aten.reshape.default", flat);
    add(t, "torch.flatten", "input, start_dim=0, end_dim=-1", "aten.reshape.default", flat);
    add(t, "method:expand", "self, *size", "aten.expand.default", [](const Call& c) {
        return c.run("aten.expand.default", {tensorValue(c.tensor(0, "self")), sizeList(c.at(1))});
    });
    add(t, "method:expand_as", "self, other", "aten.expand.default", [](const Call& c) {
        return c.run("aten.expand.default", {tensorValue(c.tensor(0, "self")), intList(c.tensor(1, "other").sizes())});
    });
    add(t, "method:repeat", "self, *repeats", "aten.repeat.default", [](const Call& c) {
        return c.run("aten.repeat.default", {tensorValue(c.tensor(0, "self")), sizeList(c.at(1))});
    });
}

// Contiguous, clone, detach, size / dim / numel, cat, stack, getitem.
void addCopiesAndQueries(Table& t)
{
    add(t, "method:contiguous", "self, memory_format=contiguous_format", "(self) | aten.clone.default",
        [](const Call& c) {
            const Tensor& x = c.tensor(0, "self");
            if (c.at(1).kind == Value::Kind::MemoryFormat && c.at(1).s != "contiguous_format"
                && c.at(1).s != "torch.contiguous_format")
                throw KernelError("contiguous(memory_format=" + c.at(1).s
                                  + ") is not supported by the runtime's lowering");
            if (x.isContiguous()) return tensorValue(x);
            return c.run("aten.clone.default", {tensorValue(x), c.at(1)});
        });
    LowerFn clone = [](const Call& c) {
        return c.run("aten.clone.default", {tensorValue(c.tensor(0, "input")), c.at(1)});
    };
    add(t, "method:clone", "self, *, memory_format=None", "aten.clone.default", clone);
    add(t, "torch.clone", "input, *, memory_format=None", "aten.clone.default", clone);
    add(t, "method:detach", "self", "aten.detach.default",
        [](const Call& c) { return c.run("aten.detach.default", {tensorValue(c.tensor(0, "self"))}); });
    add(t, "method:size", "self, dim=None", "(sizes)", [](const Call& c) {
        const Tensor& x = c.tensor(0, "self");
        if (c.at(1).isNone()) return intList(x.sizes());
        return intValue(x.size(wrapDim(c.at(1).toInt(), x.dim())));
    });
    add(t, "method:dim", "self", "(rank)", [](const Call& c) { return intValue(c.tensor(0, "self").dim()); });
    add(t, "method:numel", "self", "(numel)", [](const Call& c) { return intValue(c.tensor(0, "self").numel()); });
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
            if (o.isTensor()) return tensorIndex(c, o.tensor, *c.rawArgs.at(1));
            const Value i = c.context.resolve(*c.rawArgs.at(1));
            if (o.kind != Value::Kind::List || i.kind != Value::Kind::Int)
                throw KernelError("getitem: only tensors, and tuples/lists by an int, are supported");
            const int64_t k = i.i < 0 ? i.i + static_cast<int64_t>(o.items.size()) : i.i;
            if (k < 0 || k >= static_cast<int64_t>(o.items.size())) throw KernelError("getitem: index out of range");
            return o.items[static_cast<size_t>(k)];
        });
}

// Dtype conversions (to, float(), ..., type_as) and grad mode.
void addConversions(Table& t)
{
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
}

Table buildTable()
{
    Table t;
    addBinaryOperators(t);
    addInPlaceOperators(t);
    addUnaryOps(t);
    addMatmulFamily(t);
    addNormalizations(t);
    addReductions(t);
    addViews(t);
    addCopiesAndQueries(t);
    addConversions(t);
    return t;
}

}  // namespace

const Table& table()
{
    static const Table t = buildTable();
    return t;
}

}  // namespace fxl::torch_level

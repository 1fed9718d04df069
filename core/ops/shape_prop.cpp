#include "core/ops/shape_prop.hpp"

#include <algorithm>
#include <cctype>
#include <exception>
#include <unordered_map>

#include "core/ops/op_meta_views.hpp"
#include "core/ops/op_registry.hpp"

namespace fxl {
namespace {

std::string describe(const Node& n, std::string_view why)
{
    std::string s = "node '" + n.name + "'";
    if (n.op == NodeOp::CallFunction) s += " (" + n.target + ")";
    s += ": ";
    s += why;
    return s;
}

// Highest index of a uN symbol mentioned in a meta, or -1.
int maxUnbackedIndex(const ValueMeta& v)
{
    int best = -1;
    auto scanSym = [&](const SymExpr& e) {
        for (const auto& s : e.symbols()) {
            if (s.size() < 2 || s[0] != 'u') continue;
            bool digits = std::all_of(s.begin() + 1, s.end(),
                                      [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); });
            if (digits && s.size() < 9) best = std::max(best, std::stoi(s.substr(1)));
        }
    };
    auto scanInt = [&](const SymInt& i) {
        if (!i.isConcrete()) scanSym(i.expr());
    };
    switch (v.kind) {
    case ValueMeta::Kind::Tensor:
        for (const auto& s : v.tensor.sizes) scanInt(s);
        for (const auto& s : v.tensor.strides) scanInt(s);
        break;
    case ValueMeta::Kind::Tuple:
        for (const auto& e : v.elems) best = std::max(best, maxUnbackedIndex(e));
        break;
    case ValueMeta::Kind::SymInt:
    case ValueMeta::Kind::SymBool:
    case ValueMeta::Kind::SymFloat: scanSym(v.sym); break;
    default: break;
    }
    return best;
}

bool isHop(std::string_view target) { return target.rfind("higher_order.", 0) == 0; }

// Torch-level calls in Dynamo graphs with the aten overload that has the same
// signature (positional arguments line up; keyword names match the aten schema).
const std::unordered_map<std::string_view, std::string_view>& torchAliases()
{
    static const std::unordered_map<std::string_view, std::string_view> k{
        {"torch._C._nn.linear", "aten.linear.default"},
        {"torch.nn.functional.linear", "aten.linear.default"},
        {"torch.nn.functional.relu", "aten.relu.default"},
        {"torch.relu", "aten.relu.default"},
        {"torch.nn.functional.silu", "aten.silu.default"},
        {"torch._C._nn.gelu", "aten.gelu.default"},
        {"torch.nn.functional.gelu", "aten.gelu.default"},
        {"torch.sigmoid", "aten.sigmoid.default"},
        {"torch.sin", "aten.sin.default"},
        {"torch.cos", "aten.cos.default"},
        {"torch.exp", "aten.exp.default"},
        {"torch.log", "aten.log.default"},
        {"torch.tanh", "aten.tanh.default"},
        {"torch.neg", "aten.neg.default"},
        {"torch.abs", "aten.abs.default"},
        {"torch.rsqrt", "aten.rsqrt.default"},
        {"torch.sqrt", "aten.sqrt.default"},
        {"torch.mm", "aten.mm.default"},
        {"torch.bmm", "aten.bmm.default"},
        {"torch.matmul", "aten.matmul.default"},
        {"torch.addmm", "aten.addmm.default"},
        {"torch.baddbmm", "aten.baddbmm.default"},
        {"torch.mul", "aten.mul.Tensor"},
        {"torch.add", "aten.add.Tensor"},
        {"torch.sub", "aten.sub.Tensor"},
        {"torch.div", "aten.div.Tensor"},
        {"torch.cat", "aten.cat.default"},
        {"torch.stack", "aten.stack.default"},
        {"torch.where", "aten.where.self"},
        {"torch.t", "aten.t.default"},
        {"torch.transpose", "aten.transpose.int"},
        {"torch.permute", "aten.permute.default"},
        {"torch.clone", "aten.clone.default"},
        {"torch.split", "aten.split.Tensor"},
        {"torch.embedding", "aten.embedding.default"},
        {"operator.add", "aten.add.Tensor"},
        {"operator.iadd", "aten.add.Tensor"},
        {"operator.sub", "aten.sub.Tensor"},
        {"operator.mul", "aten.mul.Tensor"},
        {"operator.imul", "aten.mul.Tensor"},
        {"operator.truediv", "aten.div.Tensor"},
        {"operator.matmul", "aten.matmul.default"},
        {"operator.neg", "aten.neg.default"},
        {"operator.invert", "aten.bitwise_not.default"},
        {"operator.and_", "aten.bitwise_and.Tensor"},
        {"operator.or_", "aten.bitwise_or.Tensor"},
        {"operator.gt", "aten.gt.Tensor"},
        {"operator.lt", "aten.lt.Tensor"},
        {"operator.ge", "aten.ge.Tensor"},
        {"operator.le", "aten.le.Tensor"},
        {"operator.eq", "aten.eq.Tensor"},
        {"operator.ne", "aten.ne.Tensor"},
    };
    return k;
}

// Tensor methods (call_method) with the aten overload taking self first.
const std::unordered_map<std::string_view, std::string_view>& methodAliases()
{
    static const std::unordered_map<std::string_view, std::string_view> k{
        {"sin", "aten.sin.default"},
        {"cos", "aten.cos.default"},
        {"exp", "aten.exp.default"},
        {"relu", "aten.relu.default"},
        {"sigmoid", "aten.sigmoid.default"},
        {"tanh", "aten.tanh.default"},
        {"neg", "aten.neg.default"},
        {"add", "aten.add.Tensor"},
        {"add_", "aten.add_.Tensor"},
        {"sub", "aten.sub.Tensor"},
        {"mul", "aten.mul.Tensor"},
        {"mul_", "aten.mul_.Tensor"},
        {"div", "aten.div.Tensor"},
        {"t", "aten.t.default"},
        {"transpose", "aten.transpose.int"},
        {"contiguous", "aten.contiguous.default"},
        {"clone", "aten.clone.default"},
        {"detach", "aten.detach.default"},
        {"unsqueeze", "aten.unsqueeze.default"},
        {"squeeze", "aten.squeeze.dim"},
        {"sum", "aten.sum.dim_IntList"},
        {"mean", "aten.mean.dim"},
        {"softmax", "aten._softmax.default"},
        {"fill_", "aten.fill_.Scalar"},
        {"zero_", "aten.zero_.default"},
        {"copy_", "aten.copy_.default"},
        // varargs sizes: x.view(2, 3) is packed into one list
        {"view", "aten.view.default"},
        {"reshape", "aten.reshape.default"},
        {"permute", "aten.permute.default"},
        {"expand", "aten.expand.default"},
        {"repeat", "aten.repeat.default"},
    };
    return k;
}

bool packsVarargs(std::string_view method)
{
    return method == "view" || method == "reshape" || method == "permute" || method == "expand" || method == "repeat";
}

// State shared by a graph and its nested graphs.
struct Shared
{
    const OpRegistry& registry;
    ShapePropResult result;
    int nextUnbacked = 0;
    int cascaded = 0;
    // target -> op, so each distinct target is normalised and looked up once
    std::unordered_map<std::string, const OpInfo*> ops;

    const OpInfo* find(const std::string& target)
    {
        auto it = ops.find(target);
        if (it != ops.end()) return it->second;
        const OpInfo* op = registry.find(target);
        ops.emplace(target, op);
        return op;
    }
};

class Propagator
{
public:
    Propagator(Graph& g, const ShapePropOptions& opts, Shared& shared)
        : g_(g)
        , opts_(opts)
        , sh_(shared)
    {
        NodeId maxId = -1;
        for (NodeId id : g_.order()) maxId = std::max(maxId, id);
        failed_.assign(static_cast<size_t>(maxId + 1), 0);
        call_.graph = &g_;
        call_.metaOf = [this](NodeId id) -> const ValueMeta& { return g_.node(id).val; };
        call_.newUnbacked = [this](std::optional<int64_t> hint) {
            std::string name = "u" + std::to_string(sh_.nextUnbacked++);
            std::string note = name;
            if (current_) note += " (" + current_->name;
            if (hint) note += ", hint " + std::to_string(*hint);
            if (current_) note += ")";
            sh_.result.unbacked.push_back(note);
            return SymInt(SymExpr::symbol(name), hint);
        };
        call_.recordedSize = [this](size_t out, size_t dim) -> std::optional<int64_t> {
            if (!opts_.recorded || !current_) return std::nullopt;
            NodeId r = opts_.recorded->findByName(current_->name);
            if (r == kNoNode) return std::nullopt;
            const ValueMeta* v = &opts_.recorded->node(r).val;
            if (v->kind == ValueMeta::Kind::Tuple) {
                if (out >= v->elems.size()) return std::nullopt;
                v = &v->elems[out];
            } else if (out != 0) {
                return std::nullopt;
            }
            if (!v->isTensor() || dim >= v->tensor.sizes.size()) return std::nullopt;
            return v->tensor.sizes[dim].maybeValue();
        };
    }

    // Placeholder metas given positionally (nested graphs).
    void setPositionalInputs(std::vector<ValueMeta> in) { positional_ = std::move(in); }

    void run()
    {
        size_t placeholderIndex = 0;
        for (NodeId id : g_.order()) {
            Node& n = g_.node(id);
            current_ = &n;
            try {
                switch (n.op) {
                case NodeOp::Placeholder: placeholder(n, placeholderIndex++); break;
                case NodeOp::GetAttr: getAttr(n); break;
                case NodeOp::CallFunction: callFunction(n); break;
                case NodeOp::Output: break;
                case NodeOp::CallMethod: callMethod(n); break;
                case NodeOp::CallModule: fail(n, "call_module nodes have no meta functions"); break;
                }
            } catch (const std::exception& e) {
                fail(n, e.what());
            }
        }
        current_ = nullptr;
    }

    // The output node's value as a meta (tuple for tuple/list outputs).
    ValueMeta outputMeta() const
    {
        NodeId out = g_.outputNode();
        if (out == kNoNode) return ValueMeta::unknown();
        const Node& o = g_.node(out);
        if (o.args.empty()) return ValueMeta::unknown();
        return argMeta(o.args[0]);
    }

private:
    Graph& g_;
    const ShapePropOptions& opts_;
    Shared& sh_;
    std::vector<char> failed_;
    size_t failedCount_ = 0;
    std::vector<ValueMeta> positional_;
    MetaCall call_;
    const Node* current_ = nullptr;

    ValueMeta argMeta(const Arg& a) const
    {
        if (a.isNode()) return g_.node(a.node).val;
        if (a.isSequence()) {
            std::vector<ValueMeta> e;
            for (const auto& it : a.items) e.push_back(argMeta(it));
            return ValueMeta::ofTuple(std::move(e));
        }
        ValueMeta v;
        if (a.isNone()) v.kind = ValueMeta::Kind::None;
        return v;
    }

    void fail(Node& n, std::string_view why)
    {
        sh_.result.problems.push_back(describe(n, why));
        // a node with an earlier val (annotation) keeps it so its users can go on
        markFailed(n);
    }

    void markFailed(const Node& n)
    {
        if (n.val.kind != ValueMeta::Kind::Unknown) return;
        failed_[static_cast<size_t>(n.id)] = 1;
        ++failedCount_;
    }

    // Not computable because an input failed; a val it already has (annotation) stays.
    void skip(Node& n)
    {
        markFailed(n);
        ++sh_.cascaded;
    }

    void placeholder(Node& n, size_t index)
    {
        auto it = opts_.inputs.find(n.name);
        if (it == opts_.inputs.end() && n.target != n.name) it = opts_.inputs.find(n.target);
        if (it != opts_.inputs.end()) {
            TensorMeta t = it->second;
            if (t.strides.size() != t.sizes.size()) t.strides = meta::contiguous(t.sizes);
            n.val = ValueMeta::ofTensor(std::move(t));
            return;
        }
        if (index < positional_.size()) {
            n.val = positional_[index];
            return;
        }
        if (n.val.kind != ValueMeta::Kind::Unknown) return;
        fail(n, "no input meta for this placeholder");
    }

    void getAttr(Node& n)
    {
        auto it = opts_.constants.find(n.target);
        if (it == opts_.constants.end()) it = opts_.constants.find(n.name);
        if (it != opts_.constants.end()) {
            TensorMeta t = it->second;
            if (t.strides.size() != t.sizes.size()) t.strides = meta::contiguous(t.sizes);
            n.val = ValueMeta::ofTensor(std::move(t));
            return;
        }
        if (g_.subgraph(n.target)) return;  // a nested module: no value meta
        if (n.val.kind != ValueMeta::Kind::Unknown) return;
        fail(n, "no meta for get_attr target '" + n.target + "'");
    }

    bool inputFailed(const Node& n) const
    {
        if (failedCount_ == 0) return false;  // the common case: nothing failed so far
        bool bad = false;
        auto check = [&](NodeId id) {
            if (id >= 0 && static_cast<size_t>(id) < failed_.size() && failed_[static_cast<size_t>(id)]) bad = true;
        };
        for (const auto& a : n.args) a.forEachNode(check);
        for (const auto& kv : n.kwargs) kv.second.forEachNode(check);
        return bad;
    }

    void setVal(Node& n, ValueMeta v)
    {
        n.val = std::move(v);
        ++sh_.result.nodesComputed;
    }

    void callFunction(Node& n)
    {
        if (!opts_.overwrite && n.val.kind != ValueMeta::Kind::Unknown) return;
        if (inputFailed(n)) {
            skip(n);
            return;
        }
        if (n.isGetitem()) return getitem(n);
        if (isHop(n.target)) return higherOrder(n);
        if ((n.target.rfind("operator.", 0) == 0 || n.target.rfind("torch.sym_", 0) == 0) && builtin(n)) return;
        const OpInfo* op = sh_.find(n.target);
        if (!op || !op->meta) {
            auto it = torchAliases().find(n.target);
            if (it != torchAliases().end())
                if (const OpInfo* alias = sh_.registry.find(it->second)) op = alias;
        }
        if (!op) {
            if (n.target.rfind("operator.", 0) == 0) return fail(n, "unsupported builtin operator on these operands");
            return fail(n, "unknown operator (no schema)");
        }
        runMeta(n, *op, n);
    }

    // Binds `call` (a node, or a stand-in with the same args) to `op` and runs its meta.
    void runMeta(Node& n, const OpInfo& op, const Node& call)
    {
        if (!op.meta) return fail(n, "no meta function for this operator");
        call_.node = &call;
        call_.op = &op;
        call_.bound.clear();
        if (auto err = sh_.registry.bind(op, call, call_.bound)) return fail(n, "cannot bind arguments: " + *err);
        try {
            setVal(n, op.meta(call_));
        } catch (const MetaError& e) {
            fail(n, e.what());
        } catch (const std::out_of_range& e) {
            fail(n, std::string("meta function read a missing argument: ") + e.what());
        }
    }

    void callMethod(Node& n)
    {
        if (!opts_.overwrite && n.val.kind != ValueMeta::Kind::Unknown) return;
        if (inputFailed(n)) {
            skip(n);
            return;
        }
        auto it = methodAliases().find(n.target);
        const OpInfo* op = it == methodAliases().end() ? nullptr : sh_.registry.find(it->second);
        if (!op) return fail(n, "no meta function for method '" + n.target + "'");
        Node call;
        call.name = n.name;
        call.target = std::string(it->second);
        call.kwargs = n.kwargs;
        call.args = n.args;
        if (packsVarargs(n.target) && n.args.size() >= 2 && !n.args[1].isSequence()) {
            std::vector<Arg> sizes(n.args.begin() + 1, n.args.end());
            call.args = {n.args[0], Arg::ofList(std::move(sizes))};
        }
        if (n.target == "softmax" && call.args.size() == 2) call.args.push_back(Arg::ofBool(false));
        runMeta(n, *op, call);
    }

    void getitem(Node& n)
    {
        if (n.args.size() != 2 || !n.args[0].isNode()) return fail(n, "getitem expects (value, index)");
        const ValueMeta& v = g_.node(n.args[0].node).val;
        const Arg& idx = n.args[1];
        if (v.kind == ValueMeta::Kind::Tuple) {
            if (idx.kind != Arg::Kind::Int) return fail(n, "getitem of a tuple needs an int index");
            int64_t i = idx.i, sz = static_cast<int64_t>(v.elems.size());
            if (i < 0) i += sz;
            if (i < 0 || i >= sz) return fail(n, "getitem index out of range");
            return setVal(n, v.elems[static_cast<size_t>(i)]);
        }
        if (v.isTensor()) {
            // Dynamo-level tensor indexing: x[i], x[a:b]
            if (idx.kind == Arg::Kind::Int) return setVal(n, ValueMeta::ofTensor(meta::selectMeta(v.tensor, 0, idx.i)));
            if (idx.kind == Arg::Kind::Slice && idx.items.size() == 3) {
                auto opt = [](const Arg& a) -> std::optional<SymInt> {
                    if (a.kind == Arg::Kind::Int) return SymInt(a.i);
                    return std::nullopt;
                };
                SymInt step = idx.items[2].kind == Arg::Kind::Int ? SymInt(idx.items[2].i) : SymInt(1);
                return setVal(
                    n, ValueMeta::ofTensor(meta::sliceMeta(v.tensor, 0, opt(idx.items[0]), opt(idx.items[1]), step)));
            }
            return fail(n, "unsupported tensor indexing in getitem");
        }
        fail(n, "getitem of a value without a tuple or tensor meta");
    }

    // operator.add / mul / ... on symbolic ints (Sym nodes in dynamic-shape graphs).
    // Returns false when the operands are not symbolic ints (tensors go to aten).
    bool builtin(Node& n)
    {
        auto symOf = [&](const Arg& a, SymInt& out) -> bool {
            if (a.kind == Arg::Kind::Int) {
                out = a.i;
                return true;
            }
            if (a.kind == Arg::Kind::Bool) {
                out = a.b ? 1 : 0;
                return true;
            }
            if (a.isNode()) {
                const ValueMeta& v = g_.node(a.node).val;
                if (v.kind == ValueMeta::Kind::SymInt) {
                    out = meta::normalize(SymInt(v.sym, v.symHint));
                    return true;
                }
            }
            return false;
        };
        std::string_view op = std::string_view(n.target).substr(std::string_view(n.target).rfind('.') + 1);
        SymInt a, b;
        bool okA = !n.args.empty() && symOf(n.args[0], a);
        bool okB = n.args.size() > 1 && symOf(n.args[1], b);
        ValueMeta r;
        r.kind = ValueMeta::Kind::SymInt;
        auto setSym = [&](const SymInt& s) {
            r.sym = s.expr();
            r.symHint = s.maybeValue();
            setVal(n, r);
            return true;
        };
        if (okA && n.args.size() == 1) {
            if (op == "neg") return setSym(meta::mul(a, -1));
            if (op == "pos" || op == "sym_int") return setSym(a);
            if (op == "sym_float") {
                r.kind = ValueMeta::Kind::SymFloat;
                r.sym = a.expr();
                r.symHint = a.maybeValue();
                setVal(n, r);
                return true;
            }
        }
        if (okA && okB) {
            if (op == "sym_max") return setSym(meta::maxS(a, b));
            if (op == "sym_min") return setSym(meta::minS(a, b));
        }
        if (okA && okB) {
            if (op == "add") return setSym(meta::add(a, b));
            if (op == "sub") return setSym(meta::sub(a, b));
            if (op == "mul") return setSym(meta::mul(a, b));
            if (op == "floordiv") return setSym(meta::floorDiv(a, b));
            if (op == "mod") {
                SymExpr e = SymExpr::mod(a.expr(), b.expr());
                std::optional<int64_t> h;
                if (a.maybeValue() && b.maybeValue() && *b.maybeValue() != 0) {
                    int64_t x = *a.maybeValue(), y = *b.maybeValue();
                    h = ((x % y) + y) % y;
                }
                return setSym(meta::normalize(SymInt(e, h)));
            }
            static const std::pair<const char*, int> kCmp[] = {{"eq", 0}, {"ne", 1}, {"lt", 2},
                                                               {"le", 3}, {"gt", 4}, {"ge", 5}};
            for (const auto& [name, k] : kCmp) {
                if (op != name) continue;
                r.kind = ValueMeta::Kind::SymBool;
                auto ha = a.maybeValue(), hb = b.maybeValue();
                if (ha && hb) {
                    bool v = k == 0 ? *ha == *hb
                        : k == 1    ? *ha != *hb
                        : k == 2    ? *ha < *hb
                        : k == 3    ? *ha <= *hb
                        : k == 4    ? *ha > *hb
                                    : *ha >= *hb;
                    r.symHint = v ? 1 : 0;
                }
                r.sym = SymExpr();
                setVal(n, r);
                return true;
            }
            if (op == "truediv") {
                r.kind = ValueMeta::Kind::SymFloat;
                setVal(n, r);
                return true;
            }
        }
        return false;
    }

    const Arg* kwarg(const Node& n, std::string_view key) const
    {
        for (const auto& kv : n.kwargs)
            if (kv.first == key) return &kv.second;
        return nullptr;
    }

    // The outputs of a functional op call inside a wrapper HOP, as a list of metas: the
    // op's returns (one None for an op returning nothing), Unknown when it cannot be run.
    std::vector<ValueMeta> opOutputs(Node& n, const std::string& target, std::vector<Arg> args,
                                     std::vector<std::pair<std::string, Arg>> kwargs)
    {
        const OpInfo* op = sh_.registry.find(target);
        ValueMeta none;
        none.kind = ValueMeta::Kind::None;
        if (!op) return {ValueMeta{}};
        if (op->schema.returns.empty()) return {none};
        Node call;
        call.name = n.name;
        call.target = target;
        call.args = std::move(args);
        call.kwargs = std::move(kwargs);
        ValueMeta saved = n.val;
        int computed = sh_.result.nodesComputed;
        size_t problems = sh_.result.problems.size();
        runMeta(n, *op, call);
        ValueMeta out = n.val;
        n.val = saved;
        sh_.result.nodesComputed = computed;
        if (sh_.result.problems.size() != problems) {
            sh_.result.problems.resize(problems);  // the wrapper reports nothing for its op: Unknown
            if (failed_[static_cast<size_t>(n.id)]) {
                failed_[static_cast<size_t>(n.id)] = 0;
                --failedCount_;
            }
            return {ValueMeta{}};
        }
        if (out.kind == ValueMeta::Kind::Tuple && op->schema.returns.size() > 1) return out.elems;
        return {out};
    }

    // auto_functionalized(op, **kwargs) -> (*op outputs, *mutated args in schema order);
    // v2 -> (*op outputs, *_all_bases), each base cloned with its strides.
    void autoFunctionalized(Node& n, bool v2)
    {
        if (n.args.empty() || n.args[0].kind != Arg::Kind::Op) return fail(n, "expects the functionalized op first");
        std::string target = OpRegistry::normalizeTarget(n.args[0].s);
        const OpInfo* op = sh_.registry.find(target);
        std::vector<ValueMeta> out;
        if (v2) {
            out.emplace_back();  // the op's outputs are not computed for v2 (None when it has none)
            if (op && op->schema.returns.empty()) out[0].kind = ValueMeta::Kind::None;
            const Arg* bases = kwarg(n, "_all_bases");
            if (!bases || !bases->isSequence()) return fail(n, "auto_functionalized_v2 without _all_bases");
            for (const auto& b : bases->items) out.push_back(argMeta(b));
        } else {
            std::vector<std::pair<std::string, Arg>> kw = n.kwargs;
            out = opOutputs(n, target, {}, kw);
            if (!op) return fail(n, "unknown functionalized op '" + target + "'");
            for (const auto& sa : op->schema.args) {
                if (!sa.alias || !sa.alias->isWrite) continue;
                const Arg* a = kwarg(n, sa.name);
                out.push_back(a ? argMeta(*a) : ValueMeta{});
            }
        }
        setVal(n, ValueMeta::ofTuple(std::move(out)));
    }

    // with_effects(token, op, *args, **kwargs) -> (new token, *op outputs)
    void withEffects(Node& n)
    {
        if (n.args.size() < 2 || n.args[1].kind != Arg::Kind::Op) return fail(n, "expects (token, op, ...)");
        std::string target = OpRegistry::normalizeTarget(n.args[1].s);
        std::vector<ValueMeta> out{argMeta(n.args[0])};
        std::vector<ValueMeta> res = opOutputs(n, target, std::vector<Arg>(n.args.begin() + 2, n.args.end()), n.kwargs);
        for (auto& r : res)
            if (r.kind != ValueMeta::Kind::None) out.push_back(std::move(r));
        setVal(n, ValueMeta::ofTuple(std::move(out)));
    }

    void flexAttention(Node& n)
    {
        std::optional<ValueMeta> m = flexAttentionMeta(g_, n);
        if (!m) return fail(n, "query, key and value must be 4-d tensors with known metas");
        setVal(n, std::move(*m));
    }

    void higherOrder(Node& n)
    {
        std::string_view t = n.target;
        size_t bodyIdx;
        std::vector<ValueMeta> operands;
        auto collect = [&](size_t from) {
            for (size_t i = from; i < n.args.size(); ++i) operands.push_back(argMeta(n.args[i]));
        };
        if (t == "higher_order.invoke_subgraph" || t == "higher_order.tag_activation_checkpoint") {
            bodyIdx = 0;
            collect(t == "higher_order.invoke_subgraph" ? 2 : 1);
        } else if (t == "higher_order.wrap_with_set_grad_enabled") {
            bodyIdx = 1;
            collect(2);
        } else if (t == "higher_order.wrap_with_autocast") {
            bodyIdx = 4;
            collect(5);
        } else if (t == "higher_order.cond") {
            bodyIdx = 1;
            if (n.args.size() > 3) {
                ValueMeta ops = argMeta(n.args[3]);
                if (ops.kind == ValueMeta::Kind::Tuple)
                    operands = ops.elems;
                else
                    operands.push_back(ops);
            }
        } else if (t == "higher_order.auto_functionalized" || t == "higher_order.auto_functionalized_v2") {
            return autoFunctionalized(n, t == "higher_order.auto_functionalized_v2");
        } else if (t == "higher_order.with_effects") {
            return withEffects(n);
        } else if (t == "higher_order.flex_attention") {
            return flexAttention(n);
        } else if (t == "higher_order.flex_attention_backward") {
            return flexAttention(n);
        } else {
            return fail(n, "no meta function for this higher-order op");
        }
        if (n.args.size() <= bodyIdx || !n.args[bodyIdx].isNode())
            return fail(n, "higher-order op without a subgraph argument");
        const Node& attr = g_.node(n.args[bodyIdx].node);
        auto it = g_.subgraphs.find(attr.target);
        if (it == g_.subgraphs.end() || !it->second) return fail(n, "subgraph '" + attr.target + "' not found");
        ShapePropOptions nestedOpts;
        nestedOpts.overwrite = opts_.overwrite;
        Propagator nested(*it->second, nestedOpts, sh_);
        nested.setPositionalInputs(std::move(operands));
        size_t before = sh_.result.problems.size();
        nested.run();
        if (sh_.result.problems.size() != before) {
            for (size_t i = before; i < sh_.result.problems.size(); ++i)
                sh_.result.problems[i] = "in subgraph '" + attr.target + "': " + sh_.result.problems[i];
        }
        ValueMeta out = nested.outputMeta();
        if (out.kind != ValueMeta::Kind::Tuple) out = ValueMeta::ofTuple({out});
        setVal(n, std::move(out));
    }
};

int maxUnbackedInOptions(const Graph& g, const ShapePropOptions& opts)
{
    int best = -1;
    for (const auto& kv : opts.inputs) best = std::max(best, maxUnbackedIndex(ValueMeta::ofTensor(kv.second)));
    for (const auto& kv : opts.constants) best = std::max(best, maxUnbackedIndex(ValueMeta::ofTensor(kv.second)));
    for (NodeId id : g.order()) {
        const Node& n = g.node(id);
        // kept vals may mention symbols already bound
        if (n.op == NodeOp::Placeholder || !opts.overwrite) best = std::max(best, maxUnbackedIndex(n.val));
    }
    return best;
}

}  // namespace

std::optional<ValueMeta> flexAttentionMeta(const Graph& g, const Node& n)
{
    const bool backward = n.target == "higher_order.flex_attention_backward";
    if (n.op != NodeOp::CallFunction || (!backward && n.target != "higher_order.flex_attention") || n.args.size() < 3)
        return std::nullopt;
    auto operand = [&](const Arg& a) -> std::optional<TensorMeta> {
        if (!a.isNode() || !g.alive(a.node)) return std::nullopt;
        const ValueMeta& m = g.node(a.node).val;
        if (!m.isTensor()) return std::nullopt;
        TensorMeta t = m.tensor;
        t.strides = contiguousStrides(t.sizes);
        t.storageOffset = 0;
        return t;
    };
    std::vector<ValueMeta> out;
    if (backward) {
        for (size_t k = 0; k < 3; ++k) {
            std::optional<TensorMeta> t = operand(n.args[k]);
            if (!t || t->sizes.size() != 4) return std::nullopt;
            out.push_back(ValueMeta::ofTensor(std::move(*t)));
        }
        std::vector<ValueMeta> bufferGrads;
        if (n.args.size() > 12 && n.args[12].isSequence())
            for (const auto& b : n.args[12].items) {
                std::optional<TensorMeta> t = operand(b);
                bufferGrads.push_back(t ? ValueMeta::ofTensor(std::move(*t)) : ValueMeta{});
            }
        out.push_back(ValueMeta::ofTuple(std::move(bufferGrads)));
        return ValueMeta::ofTuple(std::move(out));
    }
    std::optional<TensorMeta> q = operand(n.args[0]), v = operand(n.args[2]);
    if (!q || !v || q->sizes.size() != 4 || v->sizes.size() != 4) return std::nullopt;
    TensorMeta o = *q;
    o.sizes[3] = v->sizes[3];
    o.strides = contiguousStrides(o.sizes);
    TensorMeta lse = *q;
    lse.dtype = q->dtype == DType::F64 ? DType::F64 : DType::F32;
    lse.sizes.pop_back();
    lse.strides = contiguousStrides(lse.sizes);
    out.push_back(ValueMeta::ofTensor(std::move(o)));
    out.push_back(ValueMeta::ofTensor(lse));
    if (flexAttentionHasMaxScores(g, n)) out.push_back(ValueMeta::ofTensor(std::move(lse)));
    return ValueMeta::ofTuple(std::move(out));
}

bool flexAttentionHasMaxScores(const Graph& g, const Node& n)
{
    if (n.val.kind == ValueMeta::Kind::Tuple && n.val.elems.size() == 3) return true;
    for (NodeId id : g.order()) {
        const Node& u = g.node(id);
        if (u.isGetitem() && u.args.size() == 2 && u.args[0].isNode() && u.args[0].node == n.id
            && u.args[1].kind == Arg::Kind::Int && u.args[1].i == 2)
            return true;
    }
    return false;
}

ShapePropResult propagateShapes(Graph& g, const ShapePropOptions& opts)
{
    Shared shared{OpRegistry::instance(), {}, 0, 0, {}};
    try {
        shared.nextUnbacked = maxUnbackedInOptions(g, opts) + 1;
        Propagator p(g, opts, shared);
        p.run();
    } catch (const std::exception& e) {
        shared.result.problems.push_back(std::string("shape propagation stopped: ") + e.what());
    }
    if (shared.cascaded > 0)
        shared.result.problems.push_back(std::to_string(shared.cascaded)
                                         + " node(s) not computed because an input's meta is unknown");
    return std::move(shared.result);
}

}  // namespace fxl

// The operator registry: one OpInfo per row of ops.tsv (compiled into the library), with
// traits from the kind column and the schema's alias annotations, cost classes by name,
// and the meta functions of op_meta.cpp attached.
#include "core/ops/op_registry.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "core/ir/diagnostics.hpp"
#include "core/ir/graph.hpp"
#include "core/ir/tensor_meta.hpp"
#include "core/util/strings.hpp"

namespace fxl {

namespace {

bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

uint32_t kindTrait(std::string_view k, bool& known)
{
    known = true;
    if (k == "functional" || k == "view-or-copy") return 0;  // view-or-copy: the schema's Tensor(a) says view
    if (k == "view") return kTraitView;
    if (k == "view_list") return kTraitViewList;
    if (k == "view*") return kTraitAliasNoAnnot;
    if (k == "inplace") return kTraitInplace | kTraitSideEffect;
    if (k == "factory") return kTraitFactory;
    if (k == "random") return kTraitRandom;
    if (k == "dynamic_shape") return kTraitDynamicShape;
    if (k == "sym") return kTraitSym;
    if (k == "side_effect") return kTraitSideEffect;
    if (k == "collective_async") return kTraitCollective | kTraitCommunication;
    if (k == "collective_wait") return kTraitWait;
    if (k == "collective_sync") return kTraitCommunication;
    if (k == "hop") return kTraitHigherOrder;
    if (k == "builtin") return kTraitBuiltin;
    known = false;
    return 0;
}

// Cost classes by operator name (in-place variants share their functional name).
uint32_t costClass(const Schema& s)
{
    static const std::set<std::string_view> kMatmul = {
        "mm",      "addmm",  "bmm",    "baddbmm",     "_grouped_mm",          "_scaled_mm", "_scaled_grouped_mm",
        "_int_mm", "linear", "matmul", "convolution", "convolution_backward", "einsum",     "addmv",
        "mv",      "dot",    "addbmm"};
    static const std::set<std::string_view> kReduction = {"sum",
                                                          "mean",
                                                          "amax",
                                                          "amin",
                                                          "max",
                                                          "min",
                                                          "argmax",
                                                          "argmin",
                                                          "var_mean",
                                                          "var",
                                                          "std",
                                                          "prod",
                                                          "cumsum",
                                                          "logsumexp",
                                                          "norm",
                                                          "any",
                                                          "all",
                                                          "_softmax",
                                                          "_log_softmax",
                                                          "_safe_softmax",
                                                          "softmax",
                                                          "log_softmax",
                                                          "_softmax_backward_data",
                                                          "_log_softmax_backward_data",
                                                          "native_layer_norm",
                                                          "native_layer_norm_backward",
                                                          "layer_norm",
                                                          "_fused_rms_norm",
                                                          "_fused_rms_norm_backward",
                                                          "rms_norm",
                                                          "native_group_norm",
                                                          "_native_batch_norm_legit_functional",
                                                          "native_group_norm_backward",
                                                          "native_batch_norm",
                                                          "native_batch_norm_backward",
                                                          "_native_batch_norm_legit",
                                                          "_native_batch_norm_legit_no_training",
                                                          "_cdist_forward",
                                                          "_pdist_forward",
                                                          "nll_loss_forward",
                                                          "mse_loss",
                                                          "histc",
                                                          "cumprod"};
    static const std::set<std::string_view> kPointwise = {
        "add", "sub", "rsub", "mul", "div", "neg", "pow", "rsqrt", "sqrt", "reciprocal", "exp", "log", "abs", "sign",
        "erf", "tanh", "sin", "cos", "sigmoid", "relu", "gelu", "gelu_backward", "silu", "silu_backward",
        "sigmoid_backward", "tanh_backward", "threshold_backward", "clamp", "clamp_min", "clamp_max", "maximum",
        "minimum", "where", "masked_fill", "eq", "ne", "lt", "le", "gt", "ge", "logical_not", "logical_and",
        "logical_or", "bitwise_and", "bitwise_or", "bitwise_not", "bitwise_xor", "fill", "copy", "clone", "_to_copy",
        "convert_element_type", "native_dropout", "native_dropout_backward", "bernoulli", "dropout", "lift_fresh_copy",
        "mse_loss_backward", "floor", "ceil", "trunc", "round", "remainder", "fmod", "log1p", "expm1", "exp2", "log2",
        "log10", "acos", "asin", "atan", "atan2", "cosh", "sinh", "tan", "digamma", "erfc", "erfinv", "lgamma", "frac",
        "sgn", "isfinite", "isinf", "isnan", "copysign", "elu", "hardtanh", "hardtanh_backward", "leaky_relu",
        "leaky_relu_backward", "mish", "mish_backward", "softplus", "lerp", "addcdiv", "addcmul", "floor_divide",
        "true_divide", "logical_xor",
        // Python operators (tensor or scalar arithmetic in Dynamo graphs)
        "truediv", "floordiv", "mod", "and", "or", "xor", "invert", "not", "pos", "lshift", "rshift", "iadd", "isub",
        "imul", "itruediv"};
    std::string_view n = s.name;
    if (n.find("attention") != std::string_view::npos || kMatmul.count(n)) return kTraitMatmul;
    if (kReduction.count(n)) return kTraitReduction;
    if (n.substr(0, 9) == "_foreach_") return kTraitPointwise;
    if (n.size() > 1 && n.back() == '_') n.remove_suffix(1);
    if (kPointwise.count(n)) return kTraitPointwise;
    return 0;
}

uint32_t schemaTraits(const Schema& s)
{
    uint32_t t = 0;
    for (const auto& a : s.args)
        if (a.alias && a.alias->isWrite) t |= kTraitInplace | kTraitSideEffect;
    for (const auto& r : s.returns) {
        if (!r.alias || r.alias->isWrite) continue;
        t |= endsWith(r.type, "[]") ? kTraitViewList : kTraitView;
    }
    return t;
}

bool validTarget(std::string_view t)
{
    if (t.empty() || t.front() == '.' || t.back() == '.') return false;
    for (char c : t)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) return false;
    return t.find("..") == std::string_view::npos;
}

// For a row whose schema has no readable name: "aten.x.default" -> (aten, x, default),
// "torch._C._nn.linear" -> (torch._C._nn, linear, "").
void splitTarget(std::string_view target, std::string& ns, std::string& name, std::string& overload)
{
    static const std::set<std::string_view> kOpNamespaces = {
        "aten",     "prims", "_c10d_functional", "_c10d_functional_autograd",
        "_dtensor", "fsdp",  "inductor",         "c10d_functional"};
    auto d1 = target.find('.');
    auto d2 = d1 == std::string_view::npos ? d1 : target.find('.', d1 + 1);
    if (d2 != std::string_view::npos && kOpNamespaces.count(target.substr(0, d1))) {
        ns = std::string(target.substr(0, d1));
        name = std::string(target.substr(d1 + 1, d2 - d1 - 1));
        overload = std::string(target.substr(d2 + 1));
        return;
    }
    auto last = target.rfind('.');
    ns = last == std::string_view::npos ? "" : std::string(target.substr(0, last));
    name = std::string(last == std::string_view::npos ? target : target.substr(last + 1));
    overload.clear();
}

}  // namespace

std::string OpRegistry::normalizeTarget(std::string_view target)
{
    std::string t(trim(target));
    if (t.rfind("torch.ops.", 0) == 0) t.erase(0, 10);
    if (t.rfind("_operator.", 0) == 0) t.erase(0, 1);
    auto cc = t.find("::");
    if (cc != std::string::npos) t.replace(cc, 2, ".");
    return t;
}

OpRegistry OpRegistry::fromTsv(std::string_view tsv, const std::string& file)
{
    OpRegistry reg;
    int lineNo = 0;
    size_t pos = 0;
    while (pos <= tsv.size()) {
        size_t nl = tsv.find('\n', pos);
        if (nl == std::string_view::npos) nl = tsv.size();
        std::string_view line = tsv.substr(pos, nl - pos);
        pos = nl + 1;
        ++lineNo;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (trim(line).empty() || line.front() == '#') continue;

        std::vector<std::string_view> cols;
        std::vector<int> colStart;
        size_t c = 0;
        while (true) {
            size_t tab = line.find('\t', c);
            colStart.push_back(static_cast<int>(c) + 1);
            cols.push_back(line.substr(c, tab == std::string_view::npos ? std::string_view::npos : tab - c));
            if (tab == std::string_view::npos) break;
            c = tab + 1;
        }
        if (cols.size() < 3)
            throw InputError(file, lineNo, 1,
                             "expected tab-separated columns: target, schema, kind[, notes]; found "
                                 + std::to_string(cols.size()) + " column(s)");
        std::string target(trim(cols[0]));
        if (!validTarget(target))
            throw InputError(file, lineNo, 1,
                             "expected a dotted operator target like 'aten.mm.default', found '" + target + "'");
        if (reg.byName_.count(target)) throw InputError(file, lineNo, 1, "duplicate target '" + target + "'");

        OpInfo op;
        op.qualifiedName = target;
        op.tsvLine = lineNo;
        op.kind = std::string(trim(cols[2]));
        if (cols.size() > 3) op.notes = std::string(trim(cols[3]));

        std::string_view schemaText = trim(cols[1]);
        if (schemaText.empty()) throw InputError(file, lineNo, colStart[1], "expected a schema");
        op.schema = parseSchemaLenient(schemaText, "", &op.schemaIssue);
        Schema& s = op.schema;
        if (!s.name.empty()) {
            std::string full = "." + s.name + "." + s.overload;
            std::string bare = "." + s.name;
            if (endsWith(target, full) && target.size() > full.size()) {
                s.ns = target.substr(0, target.size() - full.size());
            } else if (s.overload == "default" && endsWith(target, bare) && target.size() > bare.size()) {
                s.ns = target.substr(0, target.size() - bare.size());
                s.overload.clear();  // HOPs and builtins have no overloads
            } else {
                throw InputError(file, lineNo, colStart[1],
                                 "schema name '" + s.name + (s.overload == "default" ? "" : "." + s.overload)
                                     + "' does not match target '" + target + "'");
            }
        } else {
            splitTarget(target, s.ns, s.name, s.overload);
        }

        if (op.kind.empty())
            throw InputError(file, lineNo, colStart[2], "expected a kind (functional, view, inplace, ...)");
        size_t kb = 0;
        std::string_view kind = op.kind;
        while (kb <= kind.size()) {
            size_t plus = kind.find('+', kb);
            std::string_view tok =
                trim(kind.substr(kb, plus == std::string_view::npos ? std::string_view::npos : plus - kb));
            bool known = false;
            op.traits |= kindTrait(tok, known);
            if (!known)
                throw InputError(
                    file, lineNo, colStart[2] + static_cast<int>(kb),
                    "unknown kind '" + std::string(tok)
                        + "' (expected functional, view, view_list, view*, view-or-copy, inplace, factory, "
                          "random, dynamic_shape, sym, side_effect, collective_async, collective_wait, "
                          "collective_sync, hop or builtin, joined by '+')");
            if (plus == std::string_view::npos) break;
            kb = plus + 1;
        }
        op.traits |= schemaTraits(s);
        op.traits |= costClass(s);

        reg.byName_.emplace(target, reg.ops_.size());
        reg.ops_.push_back(std::move(op));
    }
    return reg;
}

void OpRegistry::attachMeta(std::unordered_map<std::string, MetaFn>& table)
{
    orphanMeta_.clear();
    for (auto& [name, fn] : table) {
        auto it = byName_.find(normalizeTarget(name));
        if (it == byName_.end()) {
            orphanMeta_.push_back(name);
            continue;
        }
        ops_[it->second].meta = fn;
    }
    std::sort(orphanMeta_.begin(), orphanMeta_.end());
}

void OpRegistry::addInplaceVariants()
{
    const size_t n = ops_.size();
    for (size_t i = 0; i < n; ++i) {
        const OpInfo& f = ops_[i];
        const Schema& s = f.schema;
        if (f.kind != "functional" || !f.has(kTraitPointwise) || s.name.empty() || s.name.back() == '_'
            || s.name.front() == '_' || s.args.empty() || s.args[0].name != "self" || s.args[0].type != "Tensor"
            || s.args[0].alias || s.returns.size() != 1 || s.returns[0].type != "Tensor")
            continue;
        OpInfo op;
        op.schema = s;
        op.schema.name += "_";
        op.schema.args[0].alias = AliasInfo{"a", true, false};
        op.schema.returns[0].alias = AliasInfo{"a", true, false};
        op.schema.returns[0].name.clear();
        op.qualifiedName = s.ns + "." + op.schema.name + "." + (s.overload.empty() ? "default" : s.overload);
        if (byName_.count(op.qualifiedName)) continue;
        op.kind = "inplace";
        op.notes = "added by fxlens: the in-place variant of " + f.qualifiedName;
        op.inplaceOf = f.qualifiedName;
        op.traits = schemaTraits(op.schema) | costClass(op.schema);
        // the functional op's meta must accept the arguments; the value is self
        op.meta = [fn = f.meta](const MetaCall& c) -> ValueMeta {
            const ValueMeta& self = c.tensorArg("self");
            if (!self.isTensor()) throw MetaError("argument 'self' has no tensor meta");
            if (fn) {
                const ValueMeta out = fn(c);
                if (out.isTensor() && out.tensor.sizes.size() != self.tensor.sizes.size())
                    throw MetaError("output with shape " + formatAnnotation(self)
                                    + " doesn't match the broadcast shape " + formatAnnotation(out));
            }
            return self;
        };
        byName_.emplace(op.qualifiedName, ops_.size());
        ops_.push_back(std::move(op));
    }
}

OpRegistry& OpRegistry::mutableInstance()
{
    static OpRegistry reg = [] {
        OpRegistry r = fromTsv(embeddedOpsTsv(), "ops.tsv");
        std::unordered_map<std::string, MetaFn> table;
        registerMetaFunctions(table);
        r.attachMeta(table);
        r.addInplaceVariants();
        return r;
    }();
    return reg;
}

const OpRegistry& OpRegistry::instance() { return mutableInstance(); }

const OpInfo& OpRegistry::declareCustom(OpInfo op)
{
    OpRegistry& reg = mutableInstance();
    op.traits |= schemaTraits(op.schema) | costClass(op.schema);
    auto it = reg.byName_.find(op.qualifiedName);
    if (it != reg.byName_.end()) {
        OpInfo& old = reg.ops_[it->second];
        if (old.tsvLine > 0) {
            // a built-in operator: a declaration gives it a body, which runs where the runtime has
            // no kernel for it (runsDeclaration, runtime/base/kernel.hpp); the schema must be its own
            if (formatSchema(old.schema) != formatSchema(op.schema))
                throw std::invalid_argument("operator " + op.qualifiedName
                                            + " is a built-in operator of fxlens (ops.tsv line "
                                            + std::to_string(old.tsvLine) + ") whose schema is "
                                            + formatSchema(old.schema) + "; a declaration must repeat it");
            old.custom = std::move(op.custom);
            const std::string declared = op.notes;
            const size_t at = old.notes.find("; declared in ");
            old.notes = (at == std::string::npos ? old.notes : old.notes.substr(0, at)) + "; " + declared;
            if (!old.meta) old.meta = std::move(op.meta);
            return old;
        }
        if (formatSchema(old.schema) != formatSchema(op.schema))
            throw std::invalid_argument("operator " + op.qualifiedName + " was declared before with another schema ("
                                        + formatSchema(old.schema) + ", " + old.notes + ")");
        old = std::move(op);
        return old;
    }
    reg.byName_.emplace(op.qualifiedName, reg.ops_.size());
    reg.ops_.push_back(std::move(op));
    return reg.ops_.back();
}

const OpInfo* OpRegistry::find(std::string_view qualifiedName) const
{
    std::string key = normalizeTarget(qualifiedName);
    auto it = byName_.find(key);
    if (it != byName_.end()) return &ops_[it->second];
    it = byName_.find(key + ".default");  // "test.baz" printed without overload
    if (it != byName_.end()) return &ops_[it->second];
    return nullptr;
}

std::vector<const OpInfo*> OpRegistry::all() const
{
    std::vector<const OpInfo*> out;
    out.reserve(ops_.size());
    for (const auto& op : ops_) out.push_back(&op);
    return out;
}

std::optional<std::string> OpRegistry::bind(const OpInfo& op, const Node& n, std::vector<Arg>& bound) const
{
    const Schema& s = op.schema;
    const std::string who = op.qualifiedName + "()";
    bound.assign(s.args.size(), Arg::none());
    std::vector<uint8_t> given(s.args.size(), 0);

    std::vector<size_t> positional;
    for (size_t i = 0; i < s.args.size(); ++i)
        if (!s.args[i].kwargOnly) positional.push_back(i);
    if (n.args.size() > positional.size() && !s.varargs)
        return who + " takes " + std::to_string(positional.size()) + " positional argument"
            + (positional.size() == 1 ? "" : "s") + " but " + std::to_string(n.args.size())
            + (n.args.size() == 1 ? " was" : " were") + " given";
    for (size_t k = 0; k < n.args.size() && k < positional.size(); ++k) {
        bound[positional[k]] = n.args[k];
        given[positional[k]] = 1;
    }
    for (const auto& [key, value] : n.kwargs) {
        int idx = s.argIndex(key);
        if (idx < 0) {
            if (s.varargs) continue;  // **kwargs of a HOP
            return who + " got an unexpected keyword argument '" + key + "'";
        }
        if (given[static_cast<size_t>(idx)]) return who + " got multiple values for argument '" + key + "'";
        bound[static_cast<size_t>(idx)] = value;
        given[static_cast<size_t>(idx)] = 1;
    }
    std::vector<std::string> missing;
    for (size_t i = 0; i < s.args.size(); ++i) {
        if (given[i]) continue;
        if (s.args[i].defaultText)
            bound[i] = parseDefaultValue(s.args[i]);
        else
            missing.push_back("'" + s.args[i].name + "'");
    }
    // An informal variadic schema may list arguments that are really optional.
    if (!missing.empty() && !(s.informal && s.varargs)) {
        std::string list;
        for (size_t i = 0; i < missing.size(); ++i) list += (i ? ", " : "") + missing[i];
        return who + " is missing " + (missing.size() == 1 ? "a value for argument " : "values for arguments ") + list;
    }
    return std::nullopt;
}

}  // namespace fxl

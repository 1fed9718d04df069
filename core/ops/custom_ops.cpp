#include "core/ops/custom_ops.hpp"

#include <fstream>
#include <set>
#include <sstream>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/ir/diagnostics.hpp"
#include "core/ops/op_registry.hpp"
#include "core/ops/shape_prop.hpp"
#include "core/util/strings.hpp"

namespace fxl {

namespace {

struct Line
{
    std::string_view text;
    int number = 0;  // 1-based
};

std::vector<Line> splitLines(std::string_view text)
{
    std::vector<Line> out;
    size_t pos = 0;
    int n = 0;
    while (pos < text.size()) {
        size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos) nl = text.size();
        std::string_view l = text.substr(pos, nl - pos);
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        out.push_back({l, ++n});
        pos = nl + 1;
    }
    return out;
}

int column(std::string_view line, std::string_view part) { return static_cast<int>(part.data() - line.data()) + 1; }

bool isTensorType(std::string_view t) { return t == "Tensor" || t == "Tensor?"; }

bool isBuiltinTarget(std::string_view t)
{
    return t.rfind("operator.", 0) == 0 || t.rfind("_operator.", 0) == 0 || t.rfind("builtins.", 0) == 0;
}

// "apex.fused_layer_norm_affine_fwd(...) -> ..." or "apex::fused_layer_norm_affine_fwd(...)".
Schema parseQualifiedSchema(std::string_view text, const std::string& file, int lineNo, int col)
{
    const size_t paren = text.find('(');
    const std::string_view head = text.substr(0, paren);
    size_t split = head.find("::");
    size_t skip = 2;
    if (split == std::string_view::npos) {
        split = head.find('.');
        skip = 1;
    }
    if (split == std::string_view::npos || split == 0)
        throw InputError(file, lineNo, col,
                         "expected a schema with a namespace-qualified name, like "
                         "'apex.fused_layer_norm_affine_fwd(Tensor input, ...) -> Tensor'");
    const std::string ns(head.substr(0, split));
    const std::string_view rest = text.substr(split + skip);
    const int restCol = col + static_cast<int>(split + skip);
    try {
        Schema s = parseSchema(rest, ns);
        s.text = std::string(text);
        return s;
    } catch (const InputError& e) {
        const int c = e.diagnostic().column > 0 ? restCol + e.diagnostic().column - 1 : restCol;
        throw InputError(file, lineNo, c, "in the schema: " + e.diagnostic().message);
    }
}

// The items an output node returns: a tuple/list's items, None as no item, else the one value.
std::vector<Arg> returnedItems(const Graph& g)
{
    const NodeId out = g.outputNode();
    if (out == kNoNode || g.node(out).args.empty()) return {};
    const Arg& a = g.node(out).args[0];
    if (a.isSequence()) return a.items;
    if (a.isNone()) return {};
    return {a};
}

struct PendingDecl
{
    Schema schema;
    int line = 0;
    int column = 1;
    std::shared_ptr<CustomOp> body;
    bool complete = false;
};

class OpsFileParser
{
public:
    OpsFileParser(std::string_view text, const std::string& file)
        : lines_(splitLines(text))
        , file_(file)
    { }

    std::vector<CustomOpDecl> parse()
    {
        for (size_t k = 0; k < lines_.size(); ++k) {
            const Line& l = lines_[k];
            const std::string_view t = trim(l.text);
            if (t.empty() || t.front() == '#') continue;
            const std::string_view word = t.substr(0, t.find_first_of(" \t"));
            const std::string_view rest = trim(t.substr(word.size()));
            if (word == "op") {
                finish();
                if (rest.empty())
                    throw InputError(file_, l.number, column(l.text, word) + 3, "expected a schema after 'op'");
                opStatement(l, rest);
            } else if (word == "identity") {
                identityStatement(l, word, rest);
            } else if (word == "decomposition") {
                if (!rest.empty())
                    throw InputError(file_, l.number, column(l.text, rest),
                                     "expected the end of the line after 'decomposition' (the graph follows on the "
                                     "next lines, indented)");
                k = decompositionStatement(l, word, k);
            } else {
                throw InputError(file_, l.number, column(l.text, word),
                                 "expected 'op SCHEMA', 'identity ARGUMENT' or 'decomposition', found '"
                                     + std::string(word) + "'");
            }
        }
        finish();
        std::vector<CustomOpDecl> out;
        for (auto& d : decls_) out.push_back({std::move(d.schema), std::move(d.body)});
        return out;
    }

private:
    std::vector<Line> lines_;
    std::string file_;
    std::vector<PendingDecl> decls_;
    std::set<std::string> names_;

    PendingDecl& current(const Line& l, std::string_view word)
    {
        if (decls_.empty() || decls_.back().complete)
            throw InputError(file_, l.number, column(l.text, word),
                             "'" + std::string(word) + "' must follow an 'op SCHEMA' line");
        return decls_.back();
    }

    void finish()
    {
        if (decls_.empty() || decls_.back().complete) return;
        const PendingDecl& d = decls_.back();
        throw InputError(file_, d.line, d.column,
                         "expected 'identity ARGUMENT' or 'decomposition' after the schema of "
                             + d.schema.qualifiedName());
    }

    void opStatement(const Line& l, std::string_view rest)
    {
        PendingDecl d;
        d.line = l.number;
        d.column = column(l.text, rest);
        d.schema = parseQualifiedSchema(rest, file_, l.number, d.column);
        const std::string name = d.schema.qualifiedName();
        if (!names_.insert(name).second)
            throw InputError(file_, l.number, d.column, "operator " + name + " is declared twice in this file");
        d.body = std::make_shared<CustomOp>();
        d.body->file = file_;
        d.body->line = l.number;
        decls_.push_back(std::move(d));
    }

    void identityStatement(const Line& l, std::string_view word, std::string_view rest)
    {
        PendingDecl& d = current(l, word);
        const Schema& s = d.schema;
        if (rest.empty())
            throw InputError(file_, l.number, column(l.text, word) + 9,
                             "expected the name of the argument the op returns after 'identity'");
        const int idx = s.argIndex(rest);
        if (idx < 0) {
            std::string names;
            for (const auto& a : s.args) names += (names.empty() ? "" : ", ") + a.name;
            throw InputError(file_, l.number, column(l.text, rest),
                             "expected one of the schema's arguments (" + names + "), found '" + std::string(rest)
                                 + "'");
        }
        if (s.returns.size() != 1)
            throw InputError(file_, l.number, column(l.text, word),
                             "identity needs a schema with exactly one return; " + s.qualifiedName() + " returns "
                                 + std::to_string(s.returns.size()) + " values (declare a decomposition)");
        const std::string& at = s.args[static_cast<size_t>(idx)].type;
        const std::string& rt = s.returns[0].type;
        if (at != rt && !(isTensorType(at) && rt == "Tensor"))
            throw InputError(file_, l.number, column(l.text, rest),
                             "expected an argument of the return type " + rt + "; '" + std::string(rest) + "' is "
                                 + at);
        d.body->identityArg = idx;
        d.complete = true;
    }

    // Reads the indented lines after 'decomposition'; returns the index of the last one.
    size_t decompositionStatement(const Line& l, std::string_view word, size_t k)
    {
        PendingDecl& d = current(l, word);
        size_t end = k + 1;
        while (end < lines_.size()) {
            std::string_view t = lines_[end].text;
            if (!t.empty() && !isBlank(t.front()) && t.front() != '#') break;
            ++end;
        }
        // the body without its common indentation; blank lines kept so line numbers line up
        size_t indent = std::string_view::npos;
        for (size_t j = k + 1; j < end; ++j) {
            std::string_view t = lines_[j].text;
            if (trim(t).empty() || t.front() == '#') continue;
            indent = std::min(indent, t.size() - trimLeft(t).size());
        }
        if (indent == std::string_view::npos)
            throw InputError(file_, l.number, column(l.text, word),
                             "expected the decomposition's FX graph (print_readable or gm.code text, indented) on "
                             "the lines after 'decomposition'");
        std::string body;
        for (size_t j = k + 1; j < end; ++j) {
            std::string_view t = lines_[j].text;
            if (!trim(t).empty() && t.front() != '#') body += t.substr(indent);
            body += '\n';
        }
        DiagnosticList diags;
        auto g =
            std::make_shared<Graph>(parseFxText(body, file_, lines_[k + 1].number, &diags, static_cast<int>(indent)));
        checkDecomposition(d, *g, l);
        d.body->decomposition = std::move(g);
        d.complete = true;
        return end - 1;
    }

    void checkDecomposition(const PendingDecl& d, const Graph& g, const Line& l)
    {
        const Schema& s = d.schema;
        const std::string name = s.qualifiedName();
        const size_t ph = g.placeholders().size();
        if (ph != s.args.size())
            throw InputError(file_, l.number + 1, 1,
                             "expected " + std::to_string(s.args.size()) + " placeholder(s), the arguments of " + name
                                 + " in order; the decomposition has " + std::to_string(ph));
        if (g.outputNode() == kNoNode)
            throw InputError(file_, l.number + 1, 1, "expected the decomposition to return the op's outputs");
        const size_t rets = returnedItems(g).size();
        if (rets != s.returns.size())
            throw InputError(file_, l.number + 1, 1,
                             "expected the decomposition to return " + std::to_string(s.returns.size())
                                 + " value(s), the returns of " + name + "; it returns " + std::to_string(rets));
        const OpRegistry& reg = OpRegistry::instance();
        for (NodeId id : g.order()) {
            const Node& n = g.node(id);
            if (n.op == NodeOp::CallModule)
                throw InputError(file_, l.number + 1, 1,
                                 "expected calls of operators in the decomposition; node '" + n.name
                                     + "' is a call_module");
            if (n.op != NodeOp::CallFunction || n.isGetitem() || isBuiltinTarget(n.target)) continue;
            const std::string t = OpRegistry::normalizeTarget(n.target);
            if (t == name || t + ".default" == name)
                throw InputError(file_, l.number + 1, 1,
                                 "the decomposition of " + name + " calls " + name + " itself (node '" + n.name
                                     + "'); expected aten ops or ops declared earlier");
            if (reg.find(n.target) || names_.count(OpRegistry::normalizeTarget(n.target))
                || names_.count(OpRegistry::normalizeTarget(n.target) + ".default"))
                continue;
            throw InputError(file_, l.number + 1, 1,
                             "the decomposition of " + name + " calls " + n.target + " (node '" + n.name
                                 + "'), an operator fxlens does not know; expected aten ops or ops declared earlier");
        }
    }
};

void replaceNodeArg(Arg& a, NodeId id, const Arg& with)
{
    if (a.isNode() && a.node == id) {
        a = with;
        return;
    }
    for (auto& it : a.items) replaceNodeArg(it, id, with);
    for (auto& kv : a.dict) replaceNodeArg(kv.second, id, with);
}

bool mentionsNode(const Arg& a)
{
    bool any = false;
    a.forEachNode([&](NodeId) { any = true; });
    return any;
}

}  // namespace

std::vector<CustomOpDecl> parseOpsFile(std::string_view text, const std::string& file)
{
    return OpsFileParser(text, file).parse();
}

ValueMeta customOpMeta(const OpInfo& op, const CustomOp& body, const MetaCall& call)
{
    const Schema& s = op.schema;
    if (body.identityArg >= 0) {
        const Arg& a = call.bound.at(static_cast<size_t>(body.identityArg));
        if (!a.isNode())
            throw MetaError("identity of argument '" + s.args[static_cast<size_t>(body.identityArg)].name
                            + "', which is not a node");
        return call.metaOf(a.node);
    }
    const Graph g = instantiateDecomposition(op, body, call);
    std::vector<ValueMeta> outs;
    for (const Arg& a : returnedItems(g))
        outs.push_back(a.isNode() ? g.node(a.node).val : a.isNone() ? ValueMeta::none() : ValueMeta::unknown());
    if (s.returns.empty()) return ValueMeta::none();
    if (s.returns.size() == 1 && outs.size() == 1) return outs[0];
    return ValueMeta::ofTuple(std::move(outs));
}

Graph instantiateDecomposition(const OpInfo& op, const CustomOp& body, const MetaCall& call)
{
    const Schema& s = op.schema;
    if (!body.decomposition) throw MetaError("custom operator " + op.qualifiedName + " has no body");
    // decompositions calling declared ops nest; a cycle (redeclared ops) must not overflow the stack
    static thread_local int depth = 0;
    if (depth >= 32) throw MetaError("decompositions nested deeper than 32 levels (" + op.qualifiedName + ")");
    struct Enter
    {
        Enter() { ++depth; }
        ~Enter() { --depth; }
    } enter;
    Graph g = body.decomposition->clone();
    const std::vector<NodeId> ph = g.placeholders();
    if (ph.size() != call.bound.size())
        throw MetaError("the decomposition takes " + std::to_string(ph.size()) + " inputs, the call binds "
                        + std::to_string(call.bound.size()));
    for (size_t i = 0; i < ph.size(); ++i) {
        const Arg& a = call.bound[i];
        if (a.isNode()) {
            g.node(ph[i]).val = call.metaOf(a.node);
            continue;
        }
        if (mentionsNode(a))
            throw MetaError("argument '" + s.args[i].name
                            + "' is a list of nodes, which shape propagation through a decomposition does not take");
        // a constant: written into the graph where the placeholder is used
        for (NodeId id : g.order()) {
            Node& n = g.node(id);
            if (id == ph[i]) continue;
            for (auto& x : n.args) replaceNodeArg(x, ph[i], a);
            for (auto& kv : n.kwargs) replaceNodeArg(kv.second, ph[i], a);
        }
    }
    // the placeholders replaced by constants are read by no node now: gone, as if never inputs
    for (size_t i = 0; i < ph.size(); ++i)
        if (!call.bound[i].isNode()) g.removeNode(ph[i]);
    g.rebuildUsers();
    ShapePropResult r = propagateShapes(g, ShapePropOptions{});
    if (!r.problems.empty()) throw MetaError("in the decomposition of " + op.qualifiedName + ": " + r.problems[0]);
    return g;
}

void registerCustomOps(const std::vector<CustomOpDecl>& decls)
{
    for (const auto& d : decls) {
        OpInfo op;
        op.schema = d.schema;
        op.qualifiedName = d.schema.qualifiedName();
        op.kind = "custom";
        op.notes = "declared in " + d.body->file + ":" + std::to_string(d.body->line);
        op.custom = d.body;
        std::shared_ptr<const CustomOp> body = d.body;
        op.meta = [body](const MetaCall& c) { return customOpMeta(*c.op, *body, c); };
        try {
            OpRegistry::declareCustom(std::move(op));
        } catch (const std::invalid_argument& e) {
            throw InputError(d.body->file, d.body->line, 1, e.what());
        }
    }
}

std::vector<std::string> loadOpsFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, 0, 0, "cannot read the ops file");
    std::ostringstream ss;
    ss << in.rdbuf();
    const auto decls = parseOpsFile(ss.str(), path);
    registerCustomOps(decls);
    std::vector<std::string> names;
    for (const auto& d : decls) names.push_back(d.schema.qualifiedName());
    return names;
}

std::string undeclaredOperatorHint()
{
    return "declare it (its schema, and identity of an argument or a decomposition over aten ops) in an ops file "
           "and pass it with --ops FILE (docs/custom_ops.md)";
}

}  // namespace fxl

#include "core/formats/fx/fx_signature_parser.hpp"

namespace fxl {

FxSignatureParser::ForwardState* FxSignatureParser::enterForward(ForwardState& state)
{
    ForwardState* previous = forward_;
    forward_ = &state;
    nodeNames_ = &state.names;
    return previous;
}

void FxSignatureParser::leaveForward(ForwardState* previous)
{
    forward_ = previous;
    nodeNames_ = previous ? &previous->names : nullptr;
}

NodeId FxSignatureParser::addNode(Node&& n, uint32_t at, bool bind)
{
    ForwardState& state = *forward_;
    Graph& g = *state.graph;
    const NodeId newId = static_cast<NodeId>(g.size());  // ids are dense while parsing (no removals)
    if (bind) {
        // every graph name is a key of `names` (aliased placeholders keep their old key too)
        NodeId previous = kNoNode;
        if (!state.names.insert(at, static_cast<uint32_t>(n.name.size()), newId, &previous)) {
            std::string where;
            if (previous >= 0 && static_cast<size_t>(previous) < state.definedAt.size())
                where = " (first defined at line "
                    + std::to_string(fileLine(state.definedAt[static_cast<size_t>(previous)])) + ")";
            fail(at, "duplicate node name '" + n.name + "'" + where);
        }
    }
    NodeId id = g.addNode(std::move(n));
    if (bind && id != newId)
        state.names.assign(at, static_cast<uint32_t>(id == kNoNode ? 0 : g.node(id).name.size()), id);
    if (state.definedAt.size() <= static_cast<size_t>(id)) state.definedAt.resize(static_cast<size_t>(id) + 1, at);
    state.definedAt[static_cast<size_t>(id)] = at;
    return id;
}

bool FxSignatureParser::parseParams(ForwardState& state)
{
    Token open = expectOp("(", "after the function name");
    Token t = peek();
    const bool expanded = t.line > open.line && !isOp(t, ")");
    bool first = true;
    for (;;) {
        t = peek();
        if (isOp(t, ")")) {
            next();
            break;
        }
        Param param;
        Token nameTok = next();
        uint32_t targetBegin = nameTok.begin;
        if (isOp(nameTok, "*") || isOp(nameTok, "**")) nameTok = next();
        if (nameTok.kind != TokKind::Name) failAt(nameTok, "expected a parameter name");
        param.target = text_.substr(targetBegin, nameTok.end - targetBegin);
        param.offset = nameTok.begin;
        if (first && text(nameTok) == "self" && targetBegin == nameTok.begin) {
            state.selfParam = true;
            first = false;
        } else {
            first = false;
            if (isOp(peek(), ":")) {
                next();
                AnnotationText annotation = parseAnnotationAfterColon(true);
                applyAnnotation(annotation, &param.val, &param.typeExpr);
            }
            if (isOp(peek(), "=")) {
                next();
                param.defaultValue = parseValue();
            }
            if (!state.paramNames.insert(param.target).second)
                fail(param.offset, "duplicate parameter '" + std::string(param.target) + "'");
            state.params.push_back(std::move(param));
        }
        Token sep = next();
        if (isOp(sep, ")")) break;
        if (!isOp(sep, ",")) failAt(sep, "expected ',' or ')' in the parameter list");
        // "name: annot,  # desc" (expanded signature): a comment on the line of the comma
        std::string desc = trailingDesc(sep);
        if (!desc.empty() && !state.params.empty() && state.params.back().offset < sep.begin)
            state.params.back().desc = std::move(desc);
    }
    return expanded;
}

void FxSignatureParser::materialize()
{
    ForwardState& state = *forward_;
    if (state.materialized) return;
    state.materialized = true;
    if (state.boxed || state.pytree) return;
    for (Param& param : state.params) {
        Node n;
        std::string_view name = param.target;
        while (!name.empty() && name.front() == '*') name.remove_prefix(1);
        n.name = std::string(name);
        n.target = std::string(param.target);
        n.op = NodeOp::Placeholder;
        n.val = std::move(param.val);
        n.typeExpr = std::move(param.typeExpr);
        n.placeholderDefault = std::move(param.defaultValue);
        n.meta.desc = std::move(param.desc);
        addNode(std::move(n), param.offset);
    }
}

void FxSignatureParser::parseDeclarations(Token first, AnnotationText annotation)
{
    ForwardState& state = *forward_;
    Token nameTok = first;
    for (;;) {
        if (state.materialized)
            fail(nameTok.begin, "annotation without a value (declarations must come before the pytree flatten line)");
        Param param;
        param.target = text(nameTok);
        param.offset = nameTok.begin;
        applyAnnotation(annotation, &param.val, &param.typeExpr);
        if (state.declared.count(param.target))
            fail(param.offset, "duplicate declaration of '" + std::string(param.target) + "'");
        state.declaredOrder.push_back(param.target);
        Param& declared = state.declared[param.target];
        declared = std::move(param);
        Token t = nextAny();
        if (t.kind == TokKind::Comment) {
            // expanded form: "name: annot  # desc"
            declared.desc = std::string(commentBody(t));
            t = nextAny();
        }
        if (t.kind == TokKind::Newline || t.kind == TokKind::End) return;
        if (!isOp(t, ";")) failAt(t, "expected ';', '=' or end of line after an annotation");
        Token after = peekAny();
        if (after.kind == TokKind::Newline || after.kind == TokKind::End) {
            nextAny();
            return;
        }
        if (after.kind == TokKind::Comment) {
            expectEndOfLine();
            return;
        }
        nameTok = next();
        if (nameTok.kind != TokKind::Name) failAt(nameTok, "expected a name in the declaration list");
        expectOp(":");
        annotation = parseAnnotationAfterColon(false);
        Token assign = peekAny();
        if (isOp(assign, "=")) failAt(assign, "expected ';' or end of line after a declaration");
    }
}

void FxSignatureParser::parseFlatten(Token first)
{
    ForwardState& state = *forward_;
    if (state.materialized) fail(first.begin, "pytree flatten line after the first node");
    std::vector<Token> lhs{first};
    for (;;) {
        Token t = next();
        if (isOp(t, "=")) break;
        if (!isOp(t, ",")) failAt(t, "expected ',' or '=' in the pytree flatten line");
        if (isOp(peek(), "=")) {
            next();
            break;
        }
        lhs.push_back(expectName("a name"));
    }
    Token calleeFirst = expectName("'fx_pytree.tree_flatten_spec'");
    Token calleeLast;
    std::string callee = parseDottedName(calleeFirst, &calleeLast);
    if (callee != "fx_pytree.tree_flatten_spec")
        fail(calleeFirst.begin, "expected 'fx_pytree.tree_flatten_spec', found '" + callee + "'");
    Token open = expectOp("(");
    skipBalanced(open);
    expectEndOfLine();
    state.pytree = true;
    state.materialized = true;
    Graph& g = *state.graph;
    g.signature = SignatureStyle::Pytree;
    g.pytreeArgNames.clear();
    for (const Param& param : state.params) g.pytreeArgNames.emplace_back(param.target);
    for (const Token& nameTok : lhs) {
        Node n;
        n.name = std::string(text(nameTok));
        n.target = n.name;
        n.op = NodeOp::Placeholder;
        auto it = state.declared.find(text(nameTok));
        if (it != state.declared.end()) {
            n.val = std::move(it->second.val);
            n.typeExpr = std::move(it->second.typeExpr);
            n.meta.desc = std::move(it->second.desc);
            state.declared.erase(it);
        }
        addNode(std::move(n), nameTok.begin);
    }
    for (std::string_view name : state.declaredOrder)
        if (state.declared.count(name))
            warn(state.declared[name].offset,
                 "declared name '" + std::string(name) + "' is not bound by the flatten line");
}

void FxSignatureParser::parseBoxedIter(Token lhs)
{
    ForwardState& state = *forward_;
    next();  // 'iter'
    next();  // '('
    Token list = expectName("'args_list'");
    expectOp(")");
    if (text(lhs) != "args_iter" || text(list) != "args_list")
        fail(lhs.begin, "expected 'args_iter = iter(args_list)'");
    state.boxed = true;
    state.materialized = true;
    state.graph->signature = SignatureStyle::Boxed;
    expectEndOfLine();
}

void FxSignatureParser::parseBoxedPlaceholder(Token lhs, Node&& node)
{
    next();  // 'next'
    expectOp("(");
    Token iter = expectName("'args_iter'");
    if (text(iter) != "args_iter") failAt(iter, "expected 'args_iter'");
    expectOp(")");
    node.op = NodeOp::Placeholder;
    node.name = std::string(text(lhs));
    node.target = node.name;
    addNode(std::move(node), lhs.begin);
}

void FxSignatureParser::parseBoxedClear()
{
    next();  // 'args_list'
    next();  // '.'
    Token method = expectName("'clear'");
    if (text(method) != "clear") failAt(method, "expected 'clear'");
    expectOp("(");
    expectOp(")");
    expectEndOfLine();
}

}  // namespace fxl

#include "core/formats/fx/fx_statement_parser.hpp"

#include <functional>

#include "core/formats/fx/python_operators.hpp"

namespace fxl {

void FxStatementParser::parseStatement()
{
    Token t = peek();
    if (t.kind == TokKind::String) {
        // FX_GRAPH_SHOW_META blocks: """key: value ...""" before a node
        next();
        expectEndOfLine();
        return;
    }
    if (t.kind != TokKind::Name) failAt(t, "expected a statement");
    std::string_view word = text(t);
    if (word == "return") {
        parseReturn(next());
        return;
    }
    if (word == "pass") {
        next();
        expectEndOfLine();
        return;
    }
    if (word == "class" || word == "def") fail(t.begin, "'" + std::string(word) + "' inside the forward body");
    Token second = peek(1);
    if (isOp(second, ":")) {
        // "name: annot = rhs" or a pytree declaration "name: annot; ..." / "name: annot  # desc"
        parseAnnotatedStatement(next());
        return;
    }
    if (isOp(second, "=")) {
        parseAssignment(next());
        return;
    }
    if (isOp(second, ",")) {
        parseFlatten(next());
        return;
    }
    if (second.kind == TokKind::Op && inplaceOperatorTarget(text(second))) {
        parseInplace(next());
        return;
    }
    if (isOp(second, "[")) {
        parseSetitem(next());
        return;
    }
    if (word == "args_list" && isOp(second, ".")) {
        parseBoxedClear();
        return;
    }
    failAt(second, "expected '=' after '" + std::string(word) + "'");
}

// After the name: decided once the annotation is read.
void FxStatementParser::parseAnnotatedStatement(Token first)
{
    expectOp(":");
    AnnotationText annotation = parseAnnotationAfterColon(false);
    if (isOp(peekAny(), "=")) {
        parseAnnotatedAssignment(first, annotation);
        return;
    }
    parseDeclarations(first, std::move(annotation));
}

void FxStatementParser::parseAnnotatedAssignment(Token lhs, const AnnotationText& annotation)
{
    ForwardState& state = *forward_;
    Node n;
    applyAnnotation(annotation, &n.val, &n.typeExpr);
    next();  // '='
    if (state.boxed && isName(peek(), "next")) {
        // boxed: "x: annot = next(args_iter)"
        parseBoxedPlaceholder(lhs, std::move(n));
        parseTail();
        return;
    }
    materialize();
    parseRhs(n);
    n.name = std::string(text(lhs));
    if (n.op != NodeOp::Placeholder) n.meta = state.latestSummary;
    addNode(std::move(n), lhs.begin);
    parseTail();
}

void FxStatementParser::parseAssignment(Token lhs)
{
    ForwardState& state = *forward_;
    next();  // '='
    Token rhsFirst = peek();
    if (isName(rhsFirst, "iter") && isOp(peek(1), "(") && !state.materialized) {
        parseBoxedIter(lhs);
        return;
    }
    if (state.boxed && isName(rhsFirst, "next") && isOp(peek(1), "(")) {
        parseBoxedPlaceholder(lhs, Node{});
        parseTail();
        return;
    }
    materialize();
    if (rhsFirst.kind == TokKind::Name && atStatementEnd(peek(1))) {
        parseAlias(lhs, rhsFirst);
        return;
    }
    Node n;
    parseRhs(n);
    n.name = std::string(text(lhs));
    n.meta = state.latestSummary;
    addNode(std::move(n), lhs.begin);
    parseTail();
}

// Dynamo's alias line "l_x_ = L_x_" renames the placeholder.
void FxStatementParser::parseAlias(Token lhs, Token source)
{
    ForwardState& state = *forward_;
    NodeId id = lookup(source);
    if (id == kNoNode) fail(source.begin, "undefined name '" + std::string(text(source)) + "'");
    Node& placeholder = state.graph->node(id);
    if (placeholder.op != NodeOp::Placeholder || placeholder.name != text(source))
        fail(lhs.begin,
             "plain assignment '" + std::string(text(lhs)) + " = " + std::string(text(source))
                 + "' (only placeholder aliases like 'l_x_ = L_x_' are FX statements)");
    std::string newName(text(lhs));
    if (state.graph->findByName(newName) != kNoNode) fail(lhs.begin, "duplicate node name '" + newName + "'");
    state.graph->rename(id, newName);
    state.names.assign(lhs.begin, lhs.end - lhs.begin, id);
    state.definedAt[static_cast<size_t>(id)] = lhs.begin;
    next();
    parseTail();
}

void FxStatementParser::parseInplace(Token lhs)
{
    // "a += b;  iadd = a"
    materialize();
    Token op = next();
    Node n;
    n.op = NodeOp::CallFunction;
    n.target = inplaceOperatorTarget(text(op));
    n.args.push_back(Arg::ofNode(requireNode(lhs)));
    n.args.push_back(parseValue());
    parseMutationName(lhs, std::move(n), "after an in-place operator (FX prints 'a += b;  name = a')",
                      "the in-place target");
}

void FxStatementParser::parseSetitem(Token lhs)
{
    // "a[i] = v;  setitem = a"
    materialize();
    Node n;
    n.op = NodeOp::CallFunction;
    n.target = "operator.setitem";
    n.args.push_back(Arg::ofNode(requireNode(lhs)));
    Token open = next();  // '['
    n.args.push_back(parseSubscript(open));
    expectOp("=");
    n.args.push_back(parseValue());
    parseMutationName(lhs, std::move(n), "after an item assignment (FX prints 'a[i] = v;  setitem = a')",
                      "the item assignment target");
}

void FxStatementParser::parseMutationName(Token lhs, Node&& node, const char* semicolonContext, const char* targetWhat)
{
    expectOp(";", semicolonContext);
    Token name = expectName("the node name");
    AnnotationText annotation;
    if (isOp(peek(), ":")) {
        next();
        annotation = parseAnnotationAfterColon(false);
    }
    expectOp("=");
    Token same = expectName(targetWhat);
    if (text(same) != text(lhs)) failAt(same, "expected '" + std::string(text(lhs)) + "'");
    applyAnnotation(annotation, &node.val, &node.typeExpr);
    node.name = std::string(text(name));
    node.meta = forward_->latestSummary;
    addNode(std::move(node), name.begin);
    parseTail();
}

void FxStatementParser::parseTail()
{
    // ";  a = b = None" deletion lists carry no meaning: checked for syntax, then dropped
    for (;;) {
        Token t = nextAny();
        if (t.kind == TokKind::Comment) continue;
        if (t.kind == TokKind::Newline || t.kind == TokKind::End) return;
        if (!isOp(t, ";")) failAt(t, "expected end of line or ';'");
        Token after = peekAny();
        if (after.kind == TokKind::Newline || after.kind == TokKind::End || after.kind == TokKind::Comment) continue;
        Token first = next();
        if (first.kind != TokKind::Name) failAt(first, "expected a deletion list 'name = None'");
        for (;;) {
            expectOp("=", "in a deletion list");
            Token value = next();
            if (value.kind != TokKind::Name) failAt(value, "expected a name or 'None' in a deletion list");
            if (text(value) == "None") break;
        }
    }
}

void FxStatementParser::parseReturn(Token ret)
{
    ForwardState& state = *forward_;
    materialize();
    Graph& g = *state.graph;
    Node n;
    n.op = NodeOp::Output;
    n.target = "output";
    Token t = peek();
    std::vector<std::string> descs;
    if (t.kind == TokKind::Newline || t.kind == TokKind::End) {
        n.args.push_back(Arg::none());
    } else if (isName(t, "pytree") && isOp(peek(1), ".")) {
        Token last;
        std::string callee = parseDottedName(next(), &last);
        if (callee != "pytree.tree_unflatten")
            fail(t.begin, "expected 'pytree.tree_unflatten', found '" + callee + "'");
        expectOp("(");
        n.args.push_back(parseValue(&descs));
        expectOp(",", "before the output spec");
        Token spec = expectName("'self._out_spec'");
        if (parseDottedName(spec, &last) != "self._out_spec") fail(spec.begin, "expected 'self._out_spec'");
        expectOp(")");
        g.outputPytree = true;
    } else {
        n.args.push_back(parseValue(&descs));
    }
    g.outputIsList = n.args[0].kind == Arg::Kind::List;
    g.outputDescs = std::move(descs);
    n.name = g.uniqueName("output");
    addNode(std::move(n), ret.begin, false);
    expectEndOfLine();
    state.returned = true;
}

// ==================================================================== right-hand sides

void FxStatementParser::parseRhs(Node& n)
{
    n.op = NodeOp::CallFunction;
    Token first = peek();
    Arg left;
    if (first.kind == TokKind::Op && unaryOperatorTarget(text(first))) {
        if (startsUnaryOperator(first)) {
            next();
            n.target = unaryOperatorTarget(text(first));
            n.args.push_back(parseValue());
            return;
        }
        left = parseValue();  // a signed number
    } else if (first.kind == TokKind::Name) {
        std::optional<Arg> operand = parseNameRhs(n, first);
        if (!operand) return;
        left = std::move(*operand);
    } else {
        left = parseValue();
    }
    parseOperatorRhs(n, std::move(left));
}

bool FxStatementParser::startsUnaryOperator(const Token& op)
{
    if (text(op) == "~") return true;
    Token operand = peek(1);
    const bool numberLiteral = operand.kind == TokKind::Int || operand.kind == TokKind::Float || isName(operand, "inf")
        || isName(operand, "nan");
    return !numberLiteral;
}

std::optional<Arg> FxStatementParser::parseNameRhs(Node& n, const Token& first)
{
    std::string_view word = text(first);
    if (word == "self") {
        parseSelfPath(n);
        return std::nullopt;
    }
    if (word == "getattr" && isOp(peek(1), "(")) {
        size_t k = 0;
        while (isName(peek(k), "getattr") && isOp(peek(k + 1), "(")) k += 2;
        if (isName(peek(k), "self")) {
            parseSelfPath(n);
            return std::nullopt;
        }
    }
    NodeId id = lookup(first);
    Token second = peek(1);
    if (id != kNoNode && !isOp(second, "(")) {
        next();
        if (isOp(second, ".")) {
            next();
            parseMethodOrAttribute(n, Arg::ofNode(id));
            return std::nullopt;
        }
        return Arg::ofNode(id);
    }
    if (word == "None" || word == "True" || word == "False" || word == "inf" || word == "nan") return parseValue();
    if (isOp(second, "(") || isOp(second, ".")) {
        parseCall(n, first);
        return std::nullopt;
    }
    fail(first.begin, "undefined name '" + std::string(word) + "'");
}

void FxStatementParser::parseSelfPath(Node& n)
{
    // path := atom ('.' name)* ; atom := 'self' | 'getattr' '(' path ',' "str" ')'
    // (FX's _format_target: getattr(self.layers, "0").weight)
    std::string path;
    std::function<void()> pathExpr = [&]() {
        Token t = next();
        DepthGuard guard(valueDepth_, *this, t.begin);
        if (isName(t, "getattr")) {
            expectOp("(");
            pathExpr();
            expectOp(",", "in getattr()");
            Token attrString = next();
            if (attrString.kind != TokKind::String) failAt(attrString, "expected an attribute name string");
            std::string attr;
            try {
                attr = decodePyString(text(attrString));
            } catch (const LexError& e) {
                fail(attrString.begin + e.offset, e.message);
            }
            if (!path.empty()) path += '.';
            path += attr;
            expectOp(")");
        } else if (!isName(t, "self")) {
            failAt(t, "expected 'self'");
        }
        while (isOp(peek(), ".")) {
            next();
            Token attr = expectName("an attribute name");
            if (!path.empty()) path += '.';
            path += text(attr);
        }
    };
    const uint32_t start = peek().begin;
    pathExpr();
    if (path.empty()) fail(start, "expected an attribute of 'self'");
    n.target = std::move(path);
    if (isOp(peek(), "(")) {
        next();
        n.op = NodeOp::CallModule;
        parseCallArgs(n);
    } else {
        n.op = NodeOp::GetAttr;
    }
}

void FxStatementParser::parseMethodOrAttribute(Node& n, Arg object)
{
    Token attr = expectName("a method or attribute name");
    if (isOp(peek(), "(")) {
        next();
        n.op = NodeOp::CallMethod;
        n.target = std::string(text(attr));
        n.args.push_back(std::move(object));
        parseCallArgs(n);
    } else {
        n.target = "builtins.getattr";
        n.args.push_back(std::move(object));
        n.args.push_back(Arg::ofStr(std::string(text(attr))));
    }
}

void FxStatementParser::parseCall(Node& n, const Token& first)
{
    std::string_view word = text(first);
    next();
    Token last;
    std::string callee = parseDottedName(first, &last);
    Token open = peek();
    if (!isOp(open, "(")) {
        if (word == "torch" || word == "device") {
            // a torch value (dtype, op) as an operand is not an FX statement
            failAt(open, "expected '(' after '" + callee + "'");
        }
        if (lookup(first) == kNoNode) fail(first.begin, "undefined name '" + std::string(word) + "'");
        failAt(open, "expected '('");
    }
    next();
    // op overloads lose "torch.ops." unless their namespace looks like a Python root, which
    // the writer could not tell apart from a Python path ("operator.add")
    if (callee.starts_with("torch.ops.") && !isPythonPathTarget(std::string_view(callee).substr(10)))
        callee.erase(0, 10);
    else if (callee.find('.') == std::string::npos && isPythonBuiltinFunctionName(callee))
        callee = "builtins." + callee;
    n.target = std::move(callee);
    parseCallArgs(n);
}

void FxStatementParser::parseOperatorRhs(Node& n, Arg left)
{
    Token op = peek();
    if (isOp(op, "[")) {
        next();
        Arg index = parseSubscript(op);
        n.target = "operator.getitem";
        n.args.push_back(std::move(left));
        n.args.push_back(std::move(index));
        return;
    }
    const char* target = op.kind == TokKind::Op ? binaryOperatorTarget(text(op)) : nullptr;
    if (!target) failAt(op, "expected an operator, a call or a subscript");
    next();
    n.target = target;
    n.args.push_back(std::move(left));
    n.args.push_back(parseValue());
}

}  // namespace fxl

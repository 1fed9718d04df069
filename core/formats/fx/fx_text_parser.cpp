// Parser of FX graph text (print_readable / gm.code, PyTorch 1.13 to 2.11) into fxl::Graph.
//
// One pass over a token stream (core/py_lexer.hpp). Statement forms are the ones FX's
// CodeGen emits (docs/formats.md section 2); anything else is an InputError with the exact
// location. Internally every error is a LexError(byte offset) converted once at the end.
//
// The reader is built in layers, each in its own file: the token stream
// (fx_token_stream), annotations and values (fx_value_parser), the forward's placeholders
// (fx_signature_parser), the body's statements (fx_statement_parser), and here the module
// structure: classes, nested classes and the forward method.
#include "core/formats/fx/fx_text_parser.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/formats/fx/fx_statement_parser.hpp"
#include "core/formats/fx/summary_comment.hpp"

namespace fxl {

namespace {

class FxTextParser : public FxStatementParser
{
public:
    using FxStatementParser::FxStatementParser;

    Graph run();

private:
    using NestedClasses = std::vector<std::pair<uint32_t, std::shared_ptr<Graph>>>;  // offset, graph

    bool topLevel_ = true;
    int classDepth_ = 0;

    void parseModule(Graph& g);
    bool isModulePreamble(const Token& first);
    void parseClass(Graph& g, int classCol);
    void parseClassHeader(Graph& g);
    void attachSubgraphs(Graph& g, NestedClasses& nested);
    void parseForward(Graph& g, int defCol, bool inClass);
    void parseForwardHeader(Graph& g, ForwardState& state);
    void reserveForText(Graph& g, ForwardState& state);
    void parseForwardBody(ForwardState& state, int defCol, bool inClass);
    void handleComment(const Token& t);
};

Graph FxTextParser::run()
{
    checkTextSize();
    Graph g;
    try {
        checkEncoding();
        parseModule(g);
    } catch (const LexError& e) {
        throw inputError(e);
    }
    return g;
}

void FxTextParser::parseModule(Graph& g)
{
    bool haveGraph = false;
    for (;;) {
        Token t = peekAny();
        if (t.kind == TokKind::End) break;
        if (t.kind == TokKind::Comment || t.kind == TokKind::Newline) {
            nextAny();
            continue;
        }
        if (haveGraph) {
            // ExportedProgram's "Graph signature:" / "Range constraints:" and anything after the module
            note(t.begin, "text after the graph module was not read");
            break;
        }
        if (isName(t, "class")) {
            parseClass(g, t.col);
            haveGraph = true;
            continue;
        }
        if (isName(t, "def")) {
            parseForward(g, t.col, false);
            if (g.signature == SignatureStyle::Flat) g.signature = SignatureStyle::Plain;
            haveGraph = true;
            continue;
        }
        if (t.col != 0) fail(t.begin, "unexpected indent (expected 'class' or 'def' at the start of a line)");
        if (isName(t, "ExportedProgram") && isOp(peek(1), ":")) {
            next();
            next();
            note(t.begin, "ExportedProgram text: the graph module is read, the signature section is skipped");
            expectEndOfLine();
            continue;
        }
        if (isModulePreamble(t)) {
            skipLogicalLine();
            continue;
        }
        failAt(t, "expected 'class' or 'def'");
    }
    if (!haveGraph)
        fail(static_cast<uint32_t>(text_.size()),
             "no graph found: expected 'class <Name>(torch.nn.Module):' or 'def forward(self, ...):'");
}

// The module preamble of saved graph files: imports, "b8: type" declarations, wrap("fn").
bool FxTextParser::isModulePreamble(const Token& first)
{
    Token second = peek(1);
    return isName(first, "import") || isName(first, "from") || (first.kind == TokKind::Name && isOp(second, ":"))
        || (isName(first, "wrap") && isOp(second, "("))
        || (isName(first, "torch") && isOp(second, ".") && isName(peek(2), "fx") && isOp(peek(3), ".")
            && isName(peek(4), "wrap"));
}

void FxTextParser::parseClass(Graph& g, int classCol)
{
    Token keyword = peek();  // 'class'
    DepthGuard guard(classDepth_, *this, keyword.begin);  // nested classes recurse
    parseClassHeader(g);

    Token firstMember = peek();
    if (firstMember.kind == TokKind::End || firstMember.col <= classCol)
        fail(firstMember.begin, "expected an indented class body");
    const int memberCol = firstMember.col;
    bool haveForward = false;
    NestedClasses nested;
    for (;;) {
        Token member = peekAny();
        if (member.kind == TokKind::Comment || member.kind == TokKind::Newline) {
            nextAny();
            continue;
        }
        if (member.kind == TokKind::End || member.col <= classCol) break;
        if (member.col != memberCol)
            fail(member.begin,
                 member.col > memberCol ? "unexpected indent in class body"
                                        : "unindent does not match any outer indentation level");
        if (isName(member, "def")) {
            if (haveForward) fail(member.begin, "a second method in a graph module class (expected one 'def forward')");
            parseForward(g, memberCol, true);
            haveForward = true;
        } else if (isName(member, "class")) {
            auto subgraph = std::make_shared<Graph>();
            parseClass(*subgraph, memberCol);
            nested.emplace_back(member.begin, std::move(subgraph));
        } else {
            failAt(member, "expected 'def forward' or a nested 'class' in the class body");
        }
    }
    if (!haveForward) fail(keyword.begin, "class '" + g.className + "' has no forward method");
    attachSubgraphs(g, nested);
}

// "class <Name>(<bases>):" up to the end of its line.
void FxTextParser::parseClassHeader(Graph& g)
{
    next();  // 'class'
    Token first = next();
    if (first.kind == TokKind::Newline || first.kind == TokKind::End || isOp(first, "(") || isOp(first, ":"))
        failAt(first, "expected a class name");
    // class names are not always identifiers ("<lambda>"): take the text up to '(' or ':'
    Token last = first;
    for (;;) {
        Token t = peek();
        if (isOp(t, "(") || isOp(t, ":") || t.kind == TokKind::Newline || t.kind == TokKind::End) break;
        last = next();
    }
    g.className = std::string(text_.substr(first.begin, last.end - first.begin));
    Token t = next();
    if (isOp(t, "(")) {
        skipBalanced(t);
        t = next();
    }
    if (!isOp(t, ":")) failAt(t, "expected ':' after the class header");
    expectEndOfLine();
}

// get_attr targets in order of first use by a higher-order op, then the other get_attr
// targets without a value (FX prints nested classes in that order).
std::vector<std::string> subgraphAttributes(const Graph& g, std::unordered_set<std::string>& seen)
{
    std::vector<std::string> attrs;
    for (NodeId id : g.order()) {
        const Node& n = g.node(id);
        if (n.op != NodeOp::CallFunction || !n.target.starts_with("higher_order.")) continue;
        auto visit = [&](NodeId input) {
            const Node& attr = g.node(input);
            if (attr.op == NodeOp::GetAttr && seen.insert(attr.target).second) attrs.push_back(attr.target);
        };
        for (const auto& a : n.args) a.forEachNode(visit);
        for (const auto& kv : n.kwargs) kv.second.forEachNode(visit);
    }
    for (NodeId id : g.order()) {
        const Node& n = g.node(id);
        if (n.op == NodeOp::GetAttr && n.val.kind == ValueMeta::Kind::Unknown && seen.insert(n.target).second)
            attrs.push_back(n.target);
    }
    return attrs;
}

void FxTextParser::attachSubgraphs(Graph& g, NestedClasses& nested)
{
    if (nested.empty()) return;
    // Since 2.4 a nested class is named after its attribute ("repeated_subgraph0"); before, after
    // the child's own class ("<lambda>", possibly twice). Those are matched to the get_attr nodes
    // that feed higher-order ops, in order of first use (FX prints children in that order).
    std::unordered_set<std::string> seen;
    const std::vector<std::string> attrs = subgraphAttributes(g, seen);
    std::vector<std::string> keys(nested.size());
    std::unordered_set<std::string> used;
    std::unordered_set<std::string> classNames;
    for (const auto& [at, subgraph] : nested) classNames.insert(subgraph->className);
    for (size_t k = 0; k < nested.size(); ++k) {
        const std::string& className = nested[k].second->className;
        if (seen.count(className) && used.insert(className).second) keys[k] = className;
    }
    size_t nextAttr = 0;
    for (size_t k = 0; k < nested.size(); ++k) {
        if (!keys[k].empty()) continue;
        const std::string& className = nested[k].second->className;
        while (nextAttr < attrs.size() && (used.count(attrs[nextAttr]) || classNames.count(attrs[nextAttr])))
            ++nextAttr;
        if (nextAttr < attrs.size()) {
            keys[k] = attrs[nextAttr];
            used.insert(attrs[nextAttr]);
            note(nested[k].first, "nested class '" + className + "' read as attribute '" + keys[k] + "'");
            continue;
        }
        std::string key = className;
        for (int i = 1; used.count(key); ++i) key = className + "_" + std::to_string(i);
        used.insert(key);
        keys[k] = key;
        if (key != className)
            warn(nested[k].first, "nested class '" + className + "' has no attribute; kept as '" + key + "'");
    }
    for (size_t k = 0; k < nested.size(); ++k) g.subgraphs.emplace(keys[k], std::move(nested[k].second));
}

void FxTextParser::parseForward(Graph& g, int defCol, bool inClass)
{
    ForwardState state(g, text_);
    ForwardState* outer = enterForward(state);
    Token def = peek();  // 'def'
    parseForwardHeader(g, state);
    parseForwardBody(state, defCol, inClass);
    if (!state.returned) fail(def.begin, "forward has no 'return' statement");
    g.rebuildUsers();
    leaveForward(outer);
}

// "def forward(<params>) -> <annotation>:" up to the end of its line.
void FxTextParser::parseForwardHeader(Graph& g, ForwardState& state)
{
    next();  // 'def'
    Token name = expectName("a function name after 'def'");
    if (text(name) != "forward")
        note(name.begin, "graph function is named '" + std::string(text(name)) + "', read as forward");
    const bool expanded = parseParams(state);
    if (topLevel_) {
        topLevel_ = false;
        reserveForText(g, state);
    }
    g.signature = expanded ? SignatureStyle::Expanded : SignatureStyle::Flat;
    Token t = next();
    if (isOp(t, "->")) {
        // return annotation: skip to the ':' that ends the header
        for (;;) {
            t = next();
            if (isOp(t, ":") && lex_.bracketDepth() == 0) break;
            if (t.kind == TokKind::Newline || t.kind == TokKind::End)
                failAt(t, "expected ':' after the return annotation");
            if (isOp(t, "(") || isOp(t, "[") || isOp(t, "{")) skipBalanced(t);
        }
    }
    if (!isOp(t, ":")) failAt(t, "expected ':' after the forward signature");
    expectEndOfLine();
}

// Capacity from the line count: one node per line at most, roughly.
void FxTextParser::reserveForText(Graph& g, ForwardState& state)
{
    size_t lines = 16 + state.params.size();
    for (const char* p = text_.data();
         (p = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(text_.data() + text_.size() - p))));
         ++p)
        ++lines;
    lines = std::min<size_t>(lines, 50'000'000);
    g.reserveNodes(lines);
    state.names.reserve(lines);
    state.definedAt.reserve(lines);
}

void FxTextParser::parseForwardBody(ForwardState& state, int defCol, bool inClass)
{
    Token first = peek();
    if (first.kind == TokKind::End || first.col <= defCol) fail(first.begin, "expected an indented forward body");
    const int bodyCol = first.col;
    for (;;) {
        Token t = peekAny();
        if (t.kind == TokKind::Comment) {
            nextAny();
            if (t.lineStart) handleComment(t);
            continue;
        }
        if (t.kind == TokKind::Newline) {
            nextAny();
            continue;
        }
        if (t.kind == TokKind::End || t.col < bodyCol) {
            if (t.kind != TokKind::End && t.col > defCol)
                fail(t.begin, "unindent does not match any outer indentation level");
            break;
        }
        if (t.col > bodyCol) fail(t.begin, "unexpected indent");
        if (state.returned) {
            if (inClass && (isName(t, "class") || isName(t, "def")))
                fail(t.begin, "nested class must be indented like the forward method, not like its body");
            fail(t.begin, "statement after 'return' (the output must be the last node)");
        }
        parseStatement();
    }
}

// A summary comment line sets the meta of the nodes that follow it.
void FxTextParser::handleComment(const Token& t)
{
    NodeMeta m;
    if (parseSummaryComment(text(t), m)) {
        NodeMeta& summary = forward_->latestSummary;
        summary.source = std::move(m.source);
        summary.recompute = m.recompute;
        summary.acGraphId = m.acGraphId;
        summary.custom = std::move(m.custom);
        summary.autogradBackward = m.autogradBackward;
        summary.modulePath = std::move(m.modulePath);
        summary.phase = m.phase;
        summary.provenance = std::move(m.provenance);
        summary.chunk = std::move(m.chunk);
    }
}

}  // namespace

Graph parseFxText(std::string_view text, const std::string& file, int firstLine, DiagnosticList* diags,
                  int columnOffset)
{
    FxTextParser parser(text, file, firstLine, diags, columnOffset);
    return parser.run();
}

}  // namespace fxl

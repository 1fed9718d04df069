// Parser of FX graph text (print_readable / gm.code, PyTorch 1.13 to 2.11) into fxl::Graph.
//
// One pass over a token stream (core/py_lexer.hpp). Statement forms are the ones FX's
// CodeGen emits (docs/fx_text.md §2, §4); anything else is an InputError with the exact
// location. Internally every error is a LexError(byte offset) converted once at the end.
#include <cctype>
#include <charconv>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/fx/py_lexer.hpp"
#include "core/util/strings.hpp"

namespace fxl {

namespace {

constexpr int kMaxNesting = 200;

struct BinOp
{
    const char* text;
    const char* target;
};
// FX's magic_methods / reflectable_magic_methods ("div" prints like "truediv")
constexpr BinOp kBinOps[] = {
    {"+", "operator.add"},       {"-", "operator.sub"},  {"*", "operator.mul"},  {"/", "operator.truediv"},
    {"//", "operator.floordiv"}, {"%", "operator.mod"},  {"**", "operator.pow"}, {"<<", "operator.lshift"},
    {">>", "operator.rshift"},   {"&", "operator.and_"}, {"|", "operator.or_"},  {"^", "operator.xor"},
    {"@", "operator.matmul"},    {"==", "operator.eq"},  {"!=", "operator.ne"},  {"<", "operator.lt"},
    {">", "operator.gt"},        {"<=", "operator.le"},  {">=", "operator.ge"},
};
// FX's inplace_methods (setitem is handled separately)
constexpr BinOp kInplaceOps[] = {
    {"+=", "operator.iadd"},  {"&=", "operator.iand"},     {"//=", "operator.ifloordiv"}, {"<<=", "operator.ilshift"},
    {"%=", "operator.imod"},  {"*=", "operator.imul"},     {"@=", "operator.imatmul"},    {"|=", "operator.ior"},
    {"**=", "operator.ipow"}, {">>=", "operator.irshift"}, {"-=", "operator.isub"},       {"/=", "operator.itruediv"},
    {"^=", "operator.ixor"},
};

const char* binOpTarget(std::string_view op)
{
    for (const auto& b : kBinOps)
        if (op == b.text) return b.target;
    return nullptr;
}
const char* inplaceTarget(std::string_view op)
{
    for (const auto& b : kInplaceOps)
        if (op == b.text) return b.target;
    return nullptr;
}

// Node names of one forward: open addressing over (hash, text range) slots. Every name is
// spelled somewhere in the text, so keys are offsets into it (no string copies); this is the
// hottest lookup of the parser (every argument that is a node).
class NameTable
{
public:
    explicit NameTable(std::string_view text)
        : text_(text)
    { }
    void reserve(size_t n)
    {
        size_t cap = 16;
        while (cap < n * 2) cap <<= 1;
        if (cap > slots_.size()) rehash(cap);
    }
    NodeId find(std::string_view key) const
    {
        if (slots_.empty()) return kNoNode;
        const uint32_t h = hash(key);
        for (size_t i = h & mask_;; i = (i + 1) & mask_) {
            const Slot& s = slots_[i];
            if (s.id == kEmpty) return kNoNode;
            if (s.hash == h && s.len == key.size() && std::memcmp(text_.data() + s.off, key.data(), key.size()) == 0)
                return s.id;
        }
    }
    // Binds the name spelled at text offset `off` (length `len`); false when it is bound already
    // (then *existing is its node).
    bool insert(uint32_t off, uint32_t len, NodeId id, NodeId* existing)
    {
        if ((count_ + 1) * 2 > slots_.size()) rehash(slots_.empty() ? 16 : slots_.size() * 2);
        std::string_view key = text_.substr(off, len);
        const uint32_t h = hash(key);
        for (size_t i = h & mask_;; i = (i + 1) & mask_) {
            Slot& s = slots_[i];
            if (s.id == kEmpty) {
                s = Slot{h, off, len, id};
                ++count_;
                return true;
            }
            if (s.hash == h && s.len == len && std::memcmp(text_.data() + s.off, key.data(), len) == 0) {
                *existing = s.id;
                return false;
            }
        }
    }
    void assign(uint32_t off, uint32_t len, NodeId id)
    {
        NodeId existing;
        if (insert(off, len, id, &existing)) return;
        std::string_view key = text_.substr(off, len);
        const uint32_t h = hash(key);
        for (size_t i = h & mask_;; i = (i + 1) & mask_) {
            Slot& s = slots_[i];
            if (s.hash == h && s.len == len && std::memcmp(text_.data() + s.off, key.data(), len) == 0) {
                s.id = id;
                return;
            }
        }
    }

private:
    static constexpr NodeId kEmpty = -2;
    struct Slot
    {
        uint32_t hash = 0;
        uint32_t off = 0;
        uint32_t len = 0;
        NodeId id = kEmpty;
    };
    std::string_view text_;
    std::vector<Slot> slots_;
    size_t mask_ = 0;
    size_t count_ = 0;

    static uint32_t hash(std::string_view k)
    {
        uint32_t h = 2166136261u;  // FNV-1a
        for (char c : k) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
        return h ^ (h >> 15);
    }
    void rehash(size_t cap)
    {
        std::vector<Slot> old;
        old.swap(slots_);
        slots_.assign(cap, Slot{});
        mask_ = cap - 1;
        count_ = 0;
        for (const Slot& s : old)
            if (s.id != kEmpty) {
                for (size_t i = s.hash & mask_;; i = (i + 1) & mask_)
                    if (slots_[i].id == kEmpty) {
                        slots_[i] = s;
                        ++count_;
                        break;
                    }
            }
    }
};

// A parameter of the def line (or a pytree declaration) before it becomes a placeholder.
struct Param
{
    std::string_view target;  // as written, '*' included
    uint32_t at = 0;  // offset of the name
    ValueMeta val;
    std::string typeExpr;
    std::optional<Arg> def;
    std::string desc;
};

class FxTextParser
{
public:
    FxTextParser(std::string_view text, const std::string& file, int firstLine, DiagnosticList* diags, int columnOffset)
        : text_(text)
        , lex_(text)
        , file_(file)
        , firstLine_(firstLine)
        , diags_(diags)
        , columnOffset_(columnOffset)
    { }

    Graph run();

private:
    std::string_view text_;
    PyLexer lex_;
    const std::string& file_;
    int firstLine_;
    DiagnosticList* diags_;
    int columnOffset_;

    // token buffer: raw tokens (comments included) not yet consumed
    std::vector<Token> buf_;
    size_t head_ = 0;

    // --- per-forward state
    struct FwdState
    {
        Graph* g = nullptr;
        explicit FwdState(std::string_view text)
            : names(text)
        { }
        NameTable names;
        std::vector<uint32_t> defAt;  // node id -> offset of its definition (error messages)
        std::vector<Param> params;
        std::unordered_set<std::string_view> paramNames;
        bool selfParam = false;
        bool materialized = false;
        bool boxed = false;
        bool pytree = false;
        bool returned = false;
        std::unordered_map<std::string_view, Param> declared;  // pytree "name: annot" lines
        std::vector<std::string_view> declaredOrder;
        NodeMeta cur;  // meta from the latest summary comment
    };
    FwdState* fs_ = nullptr;

    // ---------------------------------------------------------------- tokens
    const Token& rawAt(size_t k)
    {
        while (buf_.size() - head_ <= k) {
            if (head_ > 0 && (head_ == buf_.size() || head_ >= 64)) {
                buf_.erase(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(head_));
                head_ = 0;
            }
            buf_.push_back(lex_.next());
        }
        return buf_[head_ + k];
    }
    Token peekAny() { return rawAt(0); }
    Token nextAny()
    {
        Token t = rawAt(0);
        ++head_;
        return t;
    }
    // k-th non-comment token ahead
    Token peek(size_t k = 0)
    {
        size_t i = 0;
        for (;;) {
            const Token& t = rawAt(i);
            if (t.kind != TokKind::Comment) {
                if (k == 0) return t;
                --k;
            }
            ++i;
        }
    }
    Token next()
    {
        for (;;) {
            Token t = nextAny();
            if (t.kind != TokKind::Comment) return t;
        }
    }
    // "item,  # desc": the comment right after a consumed ',' on the same line, else ""
    std::string trailingDesc(const Token& comma)
    {
        Token c = peekAny();
        if (c.kind != TokKind::Comment || c.line != comma.line) return {};
        std::string_view d = text(c).substr(1);
        while (!d.empty() && d.front() == ' ') d.remove_prefix(1);
        return std::string(d);
    }
    std::string_view text(const Token& t) const { return text_.substr(t.begin, t.end - t.begin); }
    // byte loops: these run a few times per token, a memcmp call per check was measurable
    bool sameText(const Token& t, std::string_view s) const
    {
        if (t.end - t.begin != s.size()) return false;
        const char* p = text_.data() + t.begin;
        for (size_t i = 0; i < s.size(); ++i)
            if (p[i] != s[i]) return false;
        return true;
    }
    bool isOp(const Token& t, std::string_view op) const { return t.kind == TokKind::Op && sameText(t, op); }
    bool isName(const Token& t, std::string_view n) const { return t.kind == TokKind::Name && sameText(t, n); }
    bool atStatementEnd(const Token& t) const
    {
        return t.kind == TokKind::Newline || t.kind == TokKind::End || isOp(t, ";");
    }

    [[noreturn]] void fail(uint32_t offset, std::string msg) const { throw LexError{offset, std::move(msg)}; }
    [[noreturn]] void failAt(const Token& t, const std::string& expected) const
    {
        // A statement found inside brackets, no deeper indented than the line that opened them:
        // the real error is the bracket that was never closed (what Python reports too).
        if (t.lineStart && lex_.bracketDepth() > 0 && t.kind != TokKind::End) {
            uint32_t open = lex_.innermostBracket();
            if (open < t.begin) {
                uint32_t ls = open;
                while (ls > 0 && text_[ls - 1] != '\n') --ls;
                int indent = 0;
                while (ls + static_cast<uint32_t>(indent) < text_.size()
                       && text_[ls + static_cast<uint32_t>(indent)] == ' ')
                    ++indent;
                if (t.col <= indent) fail(open, std::string("'") + text_[open] + "' was never closed");
            }
        }
        fail(t.begin, expected + ", found " + describe(t));
    }
    std::string describe(const Token& t) const
    {
        switch (t.kind) {
        case TokKind::End: return "end of text";
        case TokKind::Newline: return "end of line";
        case TokKind::Comment: return "a comment";
        case TokKind::String: return "a string";
        default: {
            std::string s(text(t).substr(0, 40));
            return "'" + s + "'";
        }
        }
    }
    Token expectOp(std::string_view op, const char* context = nullptr)
    {
        Token t = next();
        if (!isOp(t, op))
            failAt(t, std::string("expected '") + std::string(op) + "'" + (context ? std::string(" ") + context : ""));
        return t;
    }
    Token expectName(const char* what)
    {
        Token t = next();
        if (t.kind != TokKind::Name) failAt(t, std::string("expected ") + what);
        return t;
    }
    void expectEndOfLine()
    {
        for (;;) {
            Token t = nextAny();
            if (t.kind == TokKind::Comment) continue;
            if (t.kind == TokKind::Newline || t.kind == TokKind::End) return;
            failAt(t, "expected end of line");
        }
    }
    // Skips the rest of a logical line (brackets balanced by the lexer).
    void skipLogicalLine()
    {
        for (;;) {
            Token t = nextAny();
            if (t.kind == TokKind::Newline || t.kind == TokKind::End) return;
        }
    }
    void note(uint32_t offset, const std::string& msg)
    {
        if (!diags_) return;
        int l, c;
        lex_.locate(offset, &l, &c);
        diags_->note(file_, firstLine_ + l, c + 1 + columnOffset_, msg);
    }
    void warn(uint32_t offset, const std::string& msg)
    {
        if (!diags_) return;
        int l, c;
        lex_.locate(offset, &l, &c);
        diags_->warn(file_, firstLine_ + l, c + 1 + columnOffset_, msg);
    }

    // ---------------------------------------------------------------- structure
    void parseModule(Graph& g);
    void parseClass(Graph& g, int classCol);
    void attachSubgraphs(Graph& g, std::vector<std::pair<uint32_t, std::shared_ptr<Graph>>>& nested);
    void parseForward(Graph& g, int defCol, bool inClass);
    void parseParams(FwdState& st, bool* expanded);
    void parseStatement();
    void parseDeclarations(Token first);
    void parseFlatten(Token first);
    void parseAssignment(Token lhs);
    void parseInplace(Token lhs);
    void parseSetitem(Token lhs);
    void parseReturn(Token ret);
    void parseTail();
    void materialize();  // the def parameters become placeholders (unless pytree/boxed)
    void handleComment(const Token& t);

    // ---------------------------------------------------------------- values
    struct Annot
    {
        bool present = false;
        bool quoted = false;
        std::string_view text;  // annotation text (quotes removed)
        uint32_t at = 0;  // offset of the annotation text
        std::string decoded;  // when the quoted text had escapes
    };
    Annot parseAnnotationAfterColon(bool inParams);
    void applyAnnotation(const Annot& a, ValueMeta* val, std::string* typeExpr);

    Arg parseValue(std::vector<std::string>* descs = nullptr);
    Arg parseNumber(const Token& t, bool negative);
    Arg parseTorchPath(Token first);
    Arg parseRawPrimary(Token first);
    Arg parseDevice(Token nameTok);
    void parseCallArgs(Node& n);  // after '(' up to and including ')'
    void skipBalanced(const Token& open);  // after `open` up to and including its closer
    void parseRhs(Node& n);
    void parseSelfPath(Node& n);
    std::string parseDottedName(Token first, Token* last);
    NodeId lookup(const Token& t) const { return fs_->names.find(text(t)); }
    NodeId requireNode(const Token& t) const
    {
        NodeId id = lookup(t);
        if (id == kNoNode) fail(t.begin, "undefined name '" + std::string(text(t)) + "'");
        return id;
    }
    // Adds a node whose name is spelled at `at` in the text; binds the name for lookups.
    NodeId addNode(Node&& n, uint32_t at, bool bind = true);
    bool topLevel_ = true;

    struct DepthGuard
    {
        int& d;
        DepthGuard(int& depth, const FxTextParser& p, uint32_t at)
            : d(depth)
        {
            if (++d > kMaxNesting)
                p.fail(at, "nested too deeply (more than " + std::to_string(kMaxNesting) + " levels)");
        }
        ~DepthGuard() { --d; }
    };
    int valueDepth_ = 0;
    int classDepth_ = 0;
};

// ==================================================================== structure

Graph FxTextParser::run()
{
    if (text_.size() >= 0xFFFFFFF0u)
        throw InputError(file_, firstLine_, 1 + columnOffset_, "text too large (over 4 GiB)");
    Graph g;
    try {
        size_t bad = findInvalidUtf8(text_);
        if (bad != std::string_view::npos)
            fail(static_cast<uint32_t>(bad), text_[bad] == '\0' ? "NUL byte in text" : "invalid UTF-8 byte sequence");
        parseModule(g);
    } catch (const LexError& e) {
        int l, c;
        lex_.locate(e.offset, &l, &c);
        throw InputError(file_, firstLine_ + l, c + 1 + columnOffset_, e.message);
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
        Token t1 = peek(1);
        if (isName(t, "ExportedProgram") && isOp(t1, ":")) {
            next();
            next();
            note(t.begin, "ExportedProgram text: the graph module is read, the signature section is skipped");
            expectEndOfLine();
            continue;
        }
        // module preamble of saved graph files: imports, "b8: type" declarations, wrap("fn")
        const bool preamble = isName(t, "import") || isName(t, "from") || (t.kind == TokKind::Name && isOp(t1, ":"))
            || (isName(t, "wrap") && isOp(t1, "("))
            || (isName(t, "torch") && isOp(t1, ".") && isName(peek(2), "fx") && isOp(peek(3), ".")
                && isName(peek(4), "wrap"));
        if (preamble) {
            skipLogicalLine();
            continue;
        }
        failAt(t, "expected 'class' or 'def'");
    }
    if (!haveGraph)
        fail(static_cast<uint32_t>(text_.size()),
             "no graph found: expected 'class <Name>(torch.nn.Module):' or 'def forward(self, ...):'");
}

void FxTextParser::parseClass(Graph& g, int classCol)
{
    Token kw = next();  // 'class'
    DepthGuard guard(classDepth_, *this, kw.begin);  // nested classes recurse
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

    Token m = peek();
    if (m.kind == TokKind::End || m.col <= classCol)
        fail(m.kind == TokKind::End ? m.begin : m.begin, "expected an indented class body");
    const int memberCol = m.col;
    bool haveForward = false;
    std::vector<std::pair<uint32_t, std::shared_ptr<Graph>>> nested;
    for (;;) {
        Token s = peekAny();
        if (s.kind == TokKind::Comment || s.kind == TokKind::Newline) {
            nextAny();
            continue;
        }
        if (s.kind == TokKind::End || s.col <= classCol) break;
        if (s.col != memberCol)
            fail(s.begin,
                 s.col > memberCol ? "unexpected indent in class body"
                                   : "unindent does not match any outer indentation level");
        if (isName(s, "def")) {
            if (haveForward) fail(s.begin, "a second method in a graph module class (expected one 'def forward')");
            parseForward(g, memberCol, true);
            haveForward = true;
        } else if (isName(s, "class")) {
            auto sub = std::make_shared<Graph>();
            parseClass(*sub, memberCol);
            nested.emplace_back(s.begin, std::move(sub));
        } else {
            failAt(s, "expected 'def forward' or a nested 'class' in the class body");
        }
    }
    if (!haveForward) fail(kw.begin, "class '" + g.className + "' has no forward method");
    attachSubgraphs(g, nested);
}

void FxTextParser::attachSubgraphs(Graph& g, std::vector<std::pair<uint32_t, std::shared_ptr<Graph>>>& nested)
{
    if (nested.empty()) return;
    // Since 2.4 a nested class is named after its attribute ("repeated_subgraph0"); before, after
    // the child's own class ("<lambda>", possibly twice). Those are matched to the get_attr nodes
    // that feed higher-order ops, in order of first use (FX prints children in that order).
    std::vector<std::string> attrs;
    std::unordered_set<std::string> seen;
    for (NodeId id : g.order()) {
        const Node& n = g.node(id);
        if (n.op != NodeOp::CallFunction || n.target.rfind("higher_order.", 0) != 0) continue;
        auto visit = [&](NodeId in) {
            const Node& a = g.node(in);
            if (a.op == NodeOp::GetAttr && seen.insert(a.target).second) attrs.push_back(a.target);
        };
        for (const auto& a : n.args) a.forEachNode(visit);
        for (const auto& kv : n.kwargs) kv.second.forEachNode(visit);
    }
    for (NodeId id : g.order()) {
        const Node& n = g.node(id);
        if (n.op == NodeOp::GetAttr && n.val.kind == ValueMeta::Kind::Unknown && seen.insert(n.target).second)
            attrs.push_back(n.target);
    }
    std::vector<std::string> keys(nested.size());
    std::unordered_set<std::string> used;
    std::unordered_set<std::string> classNames;
    for (const auto& [at, sg] : nested) classNames.insert(sg->className);
    for (size_t k = 0; k < nested.size(); ++k) {
        const std::string& cn = nested[k].second->className;
        if (seen.count(cn) && used.insert(cn).second) keys[k] = cn;
    }
    size_t next = 0;
    for (size_t k = 0; k < nested.size(); ++k) {
        if (!keys[k].empty()) continue;
        while (next < attrs.size() && (used.count(attrs[next]) || classNames.count(attrs[next]))) ++next;
        if (next < attrs.size()) {
            keys[k] = attrs[next];
            used.insert(attrs[next]);
            note(nested[k].first,
                 "nested class '" + nested[k].second->className + "' read as attribute '" + keys[k] + "'");
            continue;
        }
        std::string key = nested[k].second->className;
        for (int i = 1; used.count(key); ++i) key = nested[k].second->className + "_" + std::to_string(i);
        used.insert(key);
        keys[k] = key;
        if (key != nested[k].second->className)
            warn(nested[k].first,
                 "nested class '" + nested[k].second->className + "' has no attribute; kept as '" + key + "'");
    }
    for (size_t k = 0; k < nested.size(); ++k) g.subgraphs.emplace(keys[k], std::move(nested[k].second));
}

void FxTextParser::parseParams(FwdState& st, bool* expanded)
{
    Token open = expectOp("(", "after the function name");
    Token t = peek();
    *expanded = t.line > open.line && !isOp(t, ")");
    bool first = true;
    for (;;) {
        t = peek();
        if (isOp(t, ")")) {
            next();
            break;
        }
        Param p;
        Token nameTok = next();
        uint32_t targetBegin = nameTok.begin;
        if (isOp(nameTok, "*") || isOp(nameTok, "**")) nameTok = next();
        if (nameTok.kind != TokKind::Name) failAt(nameTok, "expected a parameter name");
        p.target = text_.substr(targetBegin, nameTok.end - targetBegin);
        p.at = nameTok.begin;
        if (first && text(nameTok) == "self" && targetBegin == nameTok.begin) {
            st.selfParam = true;
            first = false;
        } else {
            first = false;
            if (isOp(peek(), ":")) {
                next();
                Annot a = parseAnnotationAfterColon(true);
                applyAnnotation(a, &p.val, &p.typeExpr);
            }
            if (isOp(peek(), "=")) {
                next();
                p.def = parseValue();
            }
            if (!st.paramNames.insert(p.target).second)
                fail(p.at, "duplicate parameter '" + std::string(p.target) + "'");
            st.params.push_back(std::move(p));
        }
        Token sep = next();
        if (isOp(sep, ")")) break;
        if (!isOp(sep, ",")) failAt(sep, "expected ',' or ')' in the parameter list");
        // "name: annot,  # desc" (expanded signature): a comment on the line of the comma
        std::string d = trailingDesc(sep);
        if (!d.empty() && !st.params.empty() && st.params.back().at < sep.begin) st.params.back().desc = std::move(d);
    }
}

void FxTextParser::parseForward(Graph& g, int defCol, bool inClass)
{
    FwdState st(text_);
    st.g = &g;
    FwdState* saved = fs_;
    fs_ = &st;
    Token def = next();  // 'def'
    Token name = expectName("a function name after 'def'");
    if (text(name) != "forward")
        note(name.begin, "graph function is named '" + std::string(text(name)) + "', read as forward");
    bool expanded = false;
    parseParams(st, &expanded);
    if (topLevel_) {
        // capacity from the line count: one node per line at most, roughly
        topLevel_ = false;
        size_t lines = 16 + st.params.size();
        for (const char* p = text_.data();
             (p = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(text_.data() + text_.size() - p))));
             ++p)
            ++lines;
        lines = std::min<size_t>(lines, 50'000'000);
        g.reserveNodes(lines);
        st.names.reserve(lines);  // NameTable::reserve
        st.defAt.reserve(lines);
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

    Token b = peek();
    if (b.kind == TokKind::End || b.col <= defCol) fail(b.begin, "expected an indented forward body");
    const int bodyCol = b.col;
    for (;;) {
        Token s = peekAny();
        if (s.kind == TokKind::Comment) {
            nextAny();
            if (s.lineStart) handleComment(s);
            continue;
        }
        if (s.kind == TokKind::Newline) {
            nextAny();
            continue;
        }
        if (s.kind == TokKind::End || s.col < bodyCol) {
            if (s.kind != TokKind::End && s.col > defCol)
                fail(s.begin, "unindent does not match any outer indentation level");
            break;
        }
        if (s.col > bodyCol) fail(s.begin, "unexpected indent");
        if (st.returned) {
            if (inClass && (isName(s, "class") || isName(s, "def")))
                fail(s.begin, "nested class must be indented like the forward method, not like its body");
            fail(s.begin, "statement after 'return' (the output must be the last node)");
        }
        parseStatement();
    }
    if (!st.returned) fail(def.begin, "forward has no 'return' statement");
    g.rebuildUsers();
    fs_ = saved;
}

void FxTextParser::materialize()
{
    FwdState& st = *fs_;
    if (st.materialized) return;
    st.materialized = true;
    if (st.boxed || st.pytree) return;
    for (Param& p : st.params) {
        Node n;
        std::string_view nm = p.target;
        while (!nm.empty() && nm.front() == '*') nm.remove_prefix(1);
        n.name = std::string(nm);
        n.target = std::string(p.target);
        n.op = NodeOp::Placeholder;
        n.val = std::move(p.val);
        n.typeExpr = std::move(p.typeExpr);
        n.placeholderDefault = std::move(p.def);
        n.meta.desc = std::move(p.desc);
        addNode(std::move(n), p.at);
    }
}

NodeId FxTextParser::addNode(Node&& n, uint32_t at, bool bind)
{
    FwdState& st = *fs_;
    Graph& g = *st.g;
    const NodeId newId = static_cast<NodeId>(g.size());  // ids are dense while parsing (no removals)
    if (bind) {
        // every graph name is a key of `names` (aliased placeholders keep their old key too)
        NodeId prev = kNoNode;
        if (!st.names.insert(at, static_cast<uint32_t>(n.name.size()), newId, &prev)) {
            std::string where;
            if (prev >= 0 && static_cast<size_t>(prev) < st.defAt.size()) {
                int l, c;
                lex_.locate(st.defAt[static_cast<size_t>(prev)], &l, &c);
                where = " (first defined at line " + std::to_string(firstLine_ + l) + ")";
            }
            fail(at, "duplicate node name '" + n.name + "'" + where);
        }
    }
    NodeId id = g.addNode(std::move(n));
    if (bind && id != newId)
        st.names.assign(at, static_cast<uint32_t>(id == kNoNode ? 0 : st.g->node(id).name.size()), id);
    if (st.defAt.size() <= static_cast<size_t>(id)) st.defAt.resize(static_cast<size_t>(id) + 1, at);
    st.defAt[static_cast<size_t>(id)] = at;
    return id;
}

void FxTextParser::handleComment(const Token& t)
{
    NodeMeta m;
    if (parseSummaryComment(text(t), m)) {
        FwdState& st = *fs_;
        st.cur.source = std::move(m.source);
        st.cur.recompute = m.recompute;
        st.cur.acGraphId = m.acGraphId;
        st.cur.custom = std::move(m.custom);
        st.cur.autogradBackward = m.autogradBackward;
    }
}

void FxTextParser::parseStatement()
{
    Token t = peek();
    if (t.kind == TokKind::String) {
        // FX_GRAPH_SHOW_META blocks: """key: value ...""" before a node
        next();
        expectEndOfLine();
        return;
    }
    if (t.kind != TokKind::Name) failAt(t, "expected a statement");
    std::string_view w = text(t);
    if (w == "return") {
        parseReturn(next());
        return;
    }
    if (w == "pass") {
        next();
        expectEndOfLine();
        return;
    }
    if (w == "class" || w == "def") fail(t.begin, "'" + std::string(w) + "' inside the forward body");
    Token t1 = peek(1);
    if (isOp(t1, ":")) {
        // "name: annot = rhs" or a pytree declaration "name: annot; ..." / "name: annot  # desc"
        // Look past the annotation: decide after reading it.
        parseDeclarations(next());
        return;
    }
    if (isOp(t1, "=")) {
        parseAssignment(next());
        return;
    }
    if (isOp(t1, ",")) {
        parseFlatten(next());
        return;
    }
    if (t1.kind == TokKind::Op && inplaceTarget(text(t1))) {
        parseInplace(next());
        return;
    }
    if (isOp(t1, "[")) {
        parseSetitem(next());
        return;
    }
    if (w == "args_list" && isOp(t1, ".")) {
        // boxed calling convention: "args_list.clear()"
        next();
        next();
        Token m = expectName("'clear'");
        if (text(m) != "clear") failAt(m, "expected 'clear'");
        expectOp("(");
        expectOp(")");
        expectEndOfLine();
        return;
    }
    failAt(t1, "expected '=' after '" + std::string(w) + "'");
}

FxTextParser::Annot FxTextParser::parseAnnotationAfterColon(bool inParams)
{
    Annot a;
    a.present = true;
    // Decide from the raw text whether a quoted annotation follows: the unquoted kind is read
    // by a raw scan from the lexer position, so nothing may have been lexed ahead.
    if (head_ != buf_.size()) fail(peekAny().begin, "internal: unexpected lookahead before an annotation");
    uint32_t q = lex_.position();
    while (q < text_.size() && (text_[q] == ' ' || text_[q] == '\t')) ++q;
    const bool quoted = q < text_.size() && (text_[q] == '"' || text_[q] == '\'');
    if (quoted) {
        Token t = next();
        std::string_view tok = text(t);
        a.quoted = true;
        std::string_view content = pyStringContent(tok);
        a.at = static_cast<uint32_t>(t.begin + (content.data() - tok.data()));
        if (pyStringIsPlain(tok)) {
            a.text = content;
        } else {
            try {
                a.decoded = decodePyString(tok);
            } catch (const LexError& e) {
                fail(t.begin + e.offset, e.message);
            }
            a.text = a.decoded;
        }
        return a;
    }
    uint32_t b = 0;
    a.text = lex_.scanRawAnnotation(inParams, &b);
    a.at = b;
    if (a.text.empty()) fail(b, "expected an annotation after ':'");
    return a;
}

void FxTextParser::applyAnnotation(const Annot& a, ValueMeta* val, std::string* typeExpr)
{
    if (!a.present) return;
    std::string_view s = a.text;
    bool looksLikeMeta = a.quoted;
    if (!a.quoted) {
        // old unquoted style: "f32[s0, 3]", "Sym(s0 > 4)"; anything else is a Python type ("torch.Tensor")
        size_t k = 0;
        while (k < s.size() && (std::isalnum(static_cast<unsigned char>(s[k])) || s[k] == '_')) ++k;
        std::string_view head = s.substr(0, k);
        if (k < s.size() && s[k] == '[' && dtypeFromAbbr(head)) looksLikeMeta = true;
        if (k < s.size() && s[k] == '(' && head == "Sym") looksLikeMeta = true;
        if (!looksLikeMeta) {
            *typeExpr = std::string(s);
            return;
        }
    }
    try {
        *val = parseAnnotation(s);
        return;
    } catch (const InputError& e) {
        int col = e.diagnostic().column;
        uint32_t off = a.at + static_cast<uint32_t>(col > 0 ? col - 1 : 0);
        if (!a.quoted || !a.decoded.empty()) off = a.at;
        if (!a.quoted)
            fail(std::min<uint32_t>(off, a.at + static_cast<uint32_t>(s.size())),
                 "malformed annotation: " + e.diagnostic().message);
        warn(std::min<uint32_t>(off, a.at + static_cast<uint32_t>(s.size())),
             "annotation not understood, kept verbatim: " + e.diagnostic().message);
    } catch (const std::exception& e) {
        if (!a.quoted) fail(a.at, std::string("malformed annotation: ") + e.what());
        warn(a.at, std::string("annotation not understood, kept verbatim: ") + e.what());
    }
    ValueMeta v;
    v.kind = ValueMeta::Kind::Opaque;
    v.opaqueText = std::string(s);
    *val = std::move(v);
}

void FxTextParser::parseDeclarations(Token first)
{
    FwdState& st = *fs_;
    Token nameTok = first;
    for (;;) {
        expectOp(":");
        Annot a = parseAnnotationAfterColon(false);
        Token t = peekAny();
        if (isOp(t, "=")) {
            if (nameTok.begin != first.begin) failAt(t, "expected ';' or end of line after a declaration");
            // annotated assignment
            Param ann;
            applyAnnotation(a, &ann.val, &ann.typeExpr);
            next();
            // hand over to the assignment parser with the annotation already read
            Node n;
            n.val = std::move(ann.val);
            n.typeExpr = std::move(ann.typeExpr);
            // boxed: "x: annot = next(args_iter)"
            Token r0 = peek();
            if (st.boxed && isName(r0, "next")) {
                next();
                expectOp("(");
                Token it = expectName("'args_iter'");
                if (text(it) != "args_iter") failAt(it, "expected 'args_iter'");
                expectOp(")");
                n.op = NodeOp::Placeholder;
                n.name = std::string(text(first));
                n.target = n.name;
                addNode(std::move(n), first.begin);
                parseTail();
                return;
            }
            materialize();
            parseRhs(n);
            n.name = std::string(text(first));
            if (n.op != NodeOp::Placeholder) n.meta = st.cur;
            addNode(std::move(n), first.begin);
            parseTail();
            return;
        }
        // a declaration (pytree prologue)
        if (st.materialized)
            fail(nameTok.begin, "annotation without a value (declarations must come before the pytree flatten line)");
        Param p;
        p.target = text(nameTok);
        p.at = nameTok.begin;
        applyAnnotation(a, &p.val, &p.typeExpr);
        if (st.declared.count(p.target)) fail(p.at, "duplicate declaration of '" + std::string(p.target) + "'");
        st.declaredOrder.push_back(p.target);
        auto& slot = st.declared[p.target];
        slot = std::move(p);
        t = nextAny();
        if (t.kind == TokKind::Comment) {
            // expanded form: "name: annot  # desc"
            std::string_view d = text(t).substr(1);
            while (!d.empty() && d.front() == ' ') d.remove_prefix(1);
            slot.desc = std::string(d);
            t = nextAny();
        }
        if (t.kind == TokKind::Newline || t.kind == TokKind::End) return;
        if (!isOp(t, ";")) failAt(t, "expected ';', '=' or end of line after an annotation");
        Token n = peekAny();
        if (n.kind == TokKind::Newline || n.kind == TokKind::End) {
            nextAny();
            return;
        }
        if (n.kind == TokKind::Comment) {
            expectEndOfLine();
            return;
        }
        nameTok = next();
        if (nameTok.kind != TokKind::Name) failAt(nameTok, "expected a name in the declaration list");
    }
}

void FxTextParser::parseFlatten(Token first)
{
    FwdState& st = *fs_;
    if (st.materialized) fail(first.begin, "pytree flatten line after the first node");
    std::vector<Token> lhs{first};
    for (;;) {
        Token t = next();
        if (isOp(t, "=")) break;
        if (!isOp(t, ",")) failAt(t, "expected ',' or '=' in the pytree flatten line");
        Token n = peek();
        if (isOp(n, "=")) {
            next();
            break;
        }
        lhs.push_back(expectName("a name"));
    }
    Token f0 = expectName("'fx_pytree.tree_flatten_spec'");
    Token last;
    std::string callee = parseDottedName(f0, &last);
    if (callee != "fx_pytree.tree_flatten_spec")
        fail(f0.begin, "expected 'fx_pytree.tree_flatten_spec', found '" + callee + "'");
    Token open = expectOp("(");
    skipBalanced(open);
    expectEndOfLine();
    st.pytree = true;
    st.materialized = true;
    Graph& g = *st.g;
    g.signature = SignatureStyle::Pytree;
    g.pytreeArgNames.clear();
    for (const Param& p : st.params) g.pytreeArgNames.emplace_back(p.target);
    for (const Token& nt : lhs) {
        Node n;
        n.name = std::string(text(nt));
        n.target = n.name;
        n.op = NodeOp::Placeholder;
        auto it = st.declared.find(text(nt));
        if (it != st.declared.end()) {
            n.val = std::move(it->second.val);
            n.typeExpr = std::move(it->second.typeExpr);
            n.meta.desc = std::move(it->second.desc);
            st.declared.erase(it);
        }
        addNode(std::move(n), nt.begin);
    }
    for (std::string_view d : st.declaredOrder)
        if (st.declared.count(d))
            warn(st.declared[d].at, "declared name '" + std::string(d) + "' is not bound by the flatten line");
}

void FxTextParser::parseAssignment(Token lhs)
{
    FwdState& st = *fs_;
    next();  // '='
    Token r0 = peek();
    // boxed calling convention
    if (isName(r0, "iter") && isOp(peek(1), "(") && !st.materialized) {
        next();
        next();
        Token a = expectName("'args_list'");
        expectOp(")");
        if (text(lhs) != "args_iter" || text(a) != "args_list")
            fail(lhs.begin, "expected 'args_iter = iter(args_list)'");
        st.boxed = true;
        st.materialized = true;
        st.g->signature = SignatureStyle::Boxed;
        expectEndOfLine();
        return;
    }
    if (st.boxed && isName(r0, "next") && isOp(peek(1), "(")) {
        next();
        next();
        Token it = expectName("'args_iter'");
        if (text(it) != "args_iter") failAt(it, "expected 'args_iter'");
        expectOp(")");
        Node n;
        n.op = NodeOp::Placeholder;
        n.name = std::string(text(lhs));
        n.target = n.name;
        addNode(std::move(n), lhs.begin);
        parseTail();
        return;
    }
    materialize();
    // Dynamo alias line: "l_x_ = L_x_" renames the placeholder
    if (r0.kind == TokKind::Name && atStatementEnd(peek(1))) {
        NodeId id = lookup(r0);
        if (id == kNoNode) fail(r0.begin, "undefined name '" + std::string(text(r0)) + "'");
        Node& ph = st.g->node(id);
        if (ph.op != NodeOp::Placeholder || ph.name != text(r0))
            fail(lhs.begin,
                 "plain assignment '" + std::string(text(lhs)) + " = " + std::string(text(r0))
                     + "' (only placeholder aliases like 'l_x_ = L_x_' are FX statements)");
        std::string newName(text(lhs));
        if (st.g->findByName(newName) != kNoNode) fail(lhs.begin, "duplicate node name '" + newName + "'");
        st.g->rename(id, newName);
        st.names.assign(lhs.begin, lhs.end - lhs.begin, id);
        st.defAt[static_cast<size_t>(id)] = lhs.begin;
        next();
        parseTail();
        return;
    }
    Node n;
    parseRhs(n);
    n.name = std::string(text(lhs));
    n.meta = st.cur;
    addNode(std::move(n), lhs.begin);
    parseTail();
}

void FxTextParser::parseInplace(Token lhs)
{
    // "a += b;  iadd = a"
    FwdState& st = *fs_;
    materialize();
    Token op = next();
    Node n;
    n.op = NodeOp::CallFunction;
    n.target = inplaceTarget(text(op));
    n.args.push_back(Arg::ofNode(requireNode(lhs)));
    n.args.push_back(parseValue());
    expectOp(";", "after an in-place operator (FX prints 'a += b;  name = a')");
    Token name = expectName("the node name");
    Annot a;
    if (isOp(peek(), ":")) {
        next();
        a = parseAnnotationAfterColon(false);
    }
    expectOp("=");
    Token same = expectName("the in-place target");
    if (text(same) != text(lhs)) failAt(same, "expected '" + std::string(text(lhs)) + "'");
    applyAnnotation(a, &n.val, &n.typeExpr);
    n.name = std::string(text(name));
    n.meta = st.cur;
    addNode(std::move(n), name.begin);
    parseTail();
}

void FxTextParser::parseSetitem(Token lhs)
{
    // "a[i] = v;  setitem = a"
    FwdState& st = *fs_;
    materialize();
    Node n;
    n.op = NodeOp::CallFunction;
    n.target = "operator.setitem";
    n.args.push_back(Arg::ofNode(requireNode(lhs)));
    Token open = next();  // '['
    std::vector<Arg> idx;
    bool comma = false;
    for (;;) {
        if (isOp(peek(), "]")) break;
        idx.push_back(parseValue());
        if (!isOp(peek(), ",")) break;
        next();
        comma = true;
    }
    expectOp("]");
    if (idx.empty()) fail(open.begin, "empty subscript");
    n.args.push_back(idx.size() == 1 && !comma ? std::move(idx[0]) : Arg::ofTuple(std::move(idx)));
    expectOp("=");
    n.args.push_back(parseValue());
    expectOp(";", "after an item assignment (FX prints 'a[i] = v;  setitem = a')");
    Token name = expectName("the node name");
    Annot a;
    if (isOp(peek(), ":")) {
        next();
        a = parseAnnotationAfterColon(false);
    }
    expectOp("=");
    Token same = expectName("the item assignment target");
    if (text(same) != text(lhs)) failAt(same, "expected '" + std::string(text(lhs)) + "'");
    applyAnnotation(a, &n.val, &n.typeExpr);
    n.name = std::string(text(name));
    n.meta = st.cur;
    addNode(std::move(n), name.begin);
    parseTail();
}

void FxTextParser::parseTail()
{
    // ";  a = b = None" deletion lists carry no meaning: checked for syntax, then dropped
    for (;;) {
        Token t = nextAny();
        if (t.kind == TokKind::Comment) continue;
        if (t.kind == TokKind::Newline || t.kind == TokKind::End) return;
        if (!isOp(t, ";")) failAt(t, "expected end of line or ';'");
        Token n = peekAny();
        if (n.kind == TokKind::Newline || n.kind == TokKind::End || n.kind == TokKind::Comment) continue;
        Token first = next();
        if (first.kind != TokKind::Name) failAt(first, "expected a deletion list 'name = None'");
        for (;;) {
            expectOp("=", "in a deletion list");
            Token v = next();
            if (v.kind != TokKind::Name) failAt(v, "expected a name or 'None' in a deletion list");
            if (text(v) == "None") break;
        }
    }
}

void FxTextParser::parseReturn(Token ret)
{
    FwdState& st = *fs_;
    materialize();
    Graph& g = *st.g;
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
        Token s = expectName("'self._out_spec'");
        std::string spec = parseDottedName(s, &last);
        if (spec != "self._out_spec") fail(s.begin, "expected 'self._out_spec'");
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
    st.returned = true;
}

// ==================================================================== values

std::string FxTextParser::parseDottedName(Token first, Token* last)
{
    *last = first;
    while (isOp(peek(), ".") && peek(1).kind == TokKind::Name) {
        next();
        *last = next();
    }
    return std::string(text_.substr(first.begin, last->end - first.begin));
}

void FxTextParser::skipBalanced(const Token& open)
{
    // `open` was consumed; count brackets up to its closer (the lexer already checked pairing)
    int d = 1;
    for (;;) {
        Token t = nextAny();
        if (t.kind == TokKind::End) fail(open.begin, "'" + std::string(text(open)) + "' was never closed");
        if (t.kind != TokKind::Op) continue;
        std::string_view s = text(t);
        if (s == "(" || s == "[" || s == "{")
            ++d;
        else if (s == ")" || s == "]" || s == "}") {
            if (--d == 0) return;
        }
    }
}

Arg FxTextParser::parseNumber(const Token& t, bool negative)
{
    std::string_view s = text(t);
    if (t.kind == TokKind::Int) {
        uint64_t u = 0;
        auto r = std::from_chars(s.data(), s.data() + s.size(), u, 10);
        if (r.ec == std::errc() && r.ptr == s.data() + s.size()) {
            if (!negative && u <= static_cast<uint64_t>(INT64_MAX)) return Arg::ofInt(static_cast<int64_t>(u));
            if (negative && u <= static_cast<uint64_t>(INT64_MAX) + 1) return Arg::ofInt(static_cast<int64_t>(0 - u));
        }
        // beyond int64, or written in another base: keep the text
        return Arg::ofRaw((negative ? "-" : "") + std::string(s));
    }
    if (!s.empty() && (s.back() == 'j' || s.back() == 'J')) return Arg::ofRaw((negative ? "-" : "") + std::string(s));
    double d = 0;
    if (s.find('_') == std::string_view::npos) {
        auto r = std::from_chars(s.data(), s.data() + s.size(), d);
        if (r.ec == std::errc() && r.ptr == s.data() + s.size()) return Arg::ofFloat(negative ? -d : d);
    }
    return Arg::ofRaw((negative ? "-" : "") + std::string(s));
}

Arg FxTextParser::parseDevice(Token nameTok)
{
    expectOp("(");
    std::string type;
    std::optional<int64_t> index;
    int pos = 0;
    for (;;) {
        Token t = peek();
        if (isOp(t, ")")) {
            next();
            break;
        }
        std::string_view key;
        if (t.kind == TokKind::Name && isOp(peek(1), "=")) {
            key = text(t);
            next();
            next();
        }
        Arg v = parseValue();
        if (key == "type" || (key.empty() && pos == 0)) {
            if (v.kind != Arg::Kind::Str) fail(t.begin, "expected a device type string");
            type = v.s;
        } else if (key == "index" || (key.empty() && pos == 1)) {
            if (v.kind == Arg::Kind::Int)
                index = v.i;
            else if (v.kind != Arg::Kind::None)
                fail(t.begin, "expected a device index");
        } else {
            fail(t.begin, "unexpected device() argument");
        }
        ++pos;
        Token sep = next();
        if (isOp(sep, ")")) break;
        if (!isOp(sep, ",")) failAt(sep, "expected ',' or ')' in device()");
    }
    if (type.empty()) fail(nameTok.begin, "device() without a type");
    if (index && type.find(':') == std::string::npos) type += ":" + std::to_string(*index);
    return Arg::ofDevice(std::move(type));
}

Arg FxTextParser::parseRawPrimary(Token first)
{
    // Name ('.' Name | '(' ... ')' | '[' ... ']')* kept verbatim (enums, named tuples, torch.Tensor(...))
    uint32_t end = first.end;
    for (;;) {
        Token t = peek();
        if (isOp(t, ".") && peek(1).kind == TokKind::Name) {
            next();
            end = next().end;
        } else if (isOp(t, "(") || isOp(t, "[")) {
            next();
            skipBalanced(t);
            // the closer is the last consumed token
            end = buf_[head_ - 1].end;
        } else {
            break;
        }
    }
    return Arg::ofRaw(std::string(text_.substr(first.begin, end - first.begin)));
}

Arg FxTextParser::parseTorchPath(Token first)
{
    Token last;
    std::string path = parseDottedName(first, &last);
    if (isOp(peek(), "(")) {
        // torch.Tensor(size=[2], dtype=float32) and other calls as values: verbatim
        Token open = next();
        skipBalanced(open);
        uint32_t end = buf_[head_ - 1].end;
        return Arg::ofRaw(std::string(text_.substr(first.begin, end - first.begin)));
    }
    std::string_view p = path;
    if (p.rfind("torch.ops.", 0) == 0 && p.size() > 10) return Arg::ofOp(std::string(p.substr(10)));
    if (p.rfind("torch.", 0) == 0) {
        std::string_view rest = p.substr(6);
        if (rest.find('.') == std::string_view::npos) {
            if (auto dt = dtypeFromTorchName(rest)) return Arg::ofDType(*dt);
            if (isLayoutName(rest)) return Arg::ofLayout(std::string(rest));
            if (isMemoryFormatName(rest)) return Arg::ofMemoryFormat(std::string(rest));
        }
    }
    return Arg::ofRaw(std::move(path));
}

Arg FxTextParser::parseValue(std::vector<std::string>* descs)
{
    Token t = next();
    DepthGuard guard(valueDepth_, *this, t.begin);
    switch (t.kind) {
    case TokKind::Int:
    case TokKind::Float: return parseNumber(t, false);
    case TokKind::String: {
        std::string s;
        for (;;) {
            try {
                s += decodePyString(text(t));
            } catch (const LexError& e) {
                fail(t.begin + e.offset, e.message);
            }
            if (peek().kind != TokKind::String) break;
            t = next();
        }
        return Arg::ofStr(std::move(s));
    }
    case TokKind::Name: {
        std::string_view w = text(t);
        if (w == "None") return Arg::none();
        if (w == "True") return Arg::ofBool(true);
        if (w == "False") return Arg::ofBool(false);
        if (w == "inf") return Arg::ofFloat(std::numeric_limits<double>::infinity());
        if (w == "nan") return Arg::ofFloat(std::numeric_limits<double>::quiet_NaN());
        if (w == "Ellipsis") {
            Arg a;
            a.kind = Arg::Kind::Ellipsis;
            return a;
        }
        Token n1 = peek();
        if (fs_) {
            NodeId id = lookup(t);
            if (id != kNoNode && !isOp(n1, "(")) {
                if (isOp(n1, ".") || isOp(n1, "["))
                    failAt(n1, "expected ',' or a closing bracket after the node name '" + std::string(w) + "'");
                return Arg::ofNode(id);
            }
        }
        if (w == "device" && isOp(n1, "(")) return parseDevice(t);
        if (w == "slice" && isOp(n1, "(")) {
            Token open = next();
            std::vector<Arg> items;
            while (!isOp(peek(), ")")) {
                items.push_back(parseValue());
                if (!isOp(peek(), ",")) break;
                next();
            }
            expectOp(")");
            if (items.empty() || items.size() > 3) fail(open.begin, "slice() takes 1 to 3 arguments");
            if (items.size() == 1) items.insert(items.begin(), Arg::none());
            while (items.size() < 3) items.push_back(Arg::none());
            Arg a;
            a.kind = Arg::Kind::Slice;
            a.items = std::move(items);
            return a;
        }
        if (w == "torch" && isOp(n1, ".")) return parseTorchPath(t);
        if (isOp(n1, ".") || isOp(n1, "(")) return parseRawPrimary(t);
        fail(t.begin, "undefined name '" + std::string(w) + "'");
    }
    case TokKind::Op: {
        std::string_view o = text(t);
        if (o == "-" || o == "+") {
            Token n = next();
            if (n.kind == TokKind::Int || n.kind == TokKind::Float) return parseNumber(n, o == "-");
            if (isName(n, "inf"))
                return Arg::ofFloat(o == "-" ? -std::numeric_limits<double>::infinity()
                                             : std::numeric_limits<double>::infinity());
            if (isName(n, "nan")) return Arg::ofFloat(std::numeric_limits<double>::quiet_NaN());
            failAt(n, std::string("expected a number after unary '") + std::string(o) + "'");
        }
        if (o == "...") {
            Arg a;
            a.kind = Arg::Kind::Ellipsis;
            return a;
        }
        if (o == "(" || o == "[") {
            const bool tuple = o == "(";
            const char* close = tuple ? ")" : "]";
            std::vector<Arg> items;
            bool comma = false;
            std::vector<std::string> localDescs;
            bool anyDesc = false;
            for (;;) {
                if (isOp(peek(), close)) break;
                items.push_back(parseValue());
                if (descs) localDescs.emplace_back();
                Token sep = peek();
                if (!isOp(sep, ",")) break;
                next();
                comma = true;
                if (descs) {
                    localDescs.back() = trailingDesc(sep);
                    anyDesc = anyDesc || !localDescs.back().empty();
                }
            }
            Token c = next();
            if (!isOp(c, close)) failAt(c, std::string("expected ',' or '") + close + "'");
            if (tuple && items.size() == 1 && !comma) return std::move(items[0]);  // parenthesized value
            if (descs && anyDesc) *descs = std::move(localDescs);
            return tuple ? Arg::ofTuple(std::move(items)) : Arg::ofList(std::move(items));
        }
        if (o == "{") {
            Arg a;
            a.kind = Arg::Kind::Dict;
            for (;;) {
                if (isOp(peek(), "}")) break;
                Arg k = parseValue();
                expectOp(":", "in a dict");
                Arg v = parseValue();
                a.dict.emplace_back(std::move(k), std::move(v));
                if (!isOp(peek(), ",")) break;
                next();
            }
            Token c = next();
            if (!isOp(c, "}")) failAt(c, "expected ',' or '}'");
            return a;
        }
        failAt(t, "expected a value");
    }
    default: failAt(t, "expected a value");
    }
}

void FxTextParser::parseCallArgs(Node& n)
{
    // after '(' up to and including ')'
    for (;;) {
        Token t = peek();
        if (isOp(t, ")")) {
            next();
            return;
        }
        if (t.kind == TokKind::Name && isOp(peek(1), "=")) {
            next();
            next();
            for (const auto& kv : n.kwargs)
                if (kv.first == text(t)) fail(t.begin, "keyword argument '" + std::string(text(t)) + "' repeated");
            n.kwargs.emplace_back(std::string(text(t)), parseValue());
        } else {
            if (!n.kwargs.empty()) fail(t.begin, "positional argument follows keyword argument");
            n.args.push_back(parseValue());
        }
        Token sep = next();
        if (isOp(sep, ")")) return;
        if (!isOp(sep, ",")) failAt(sep, "expected ',' or ')' in the argument list");
    }
}

void FxTextParser::parseSelfPath(Node& n)
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
            Token s = next();
            if (s.kind != TokKind::String) failAt(s, "expected an attribute name string");
            std::string attr;
            try {
                attr = decodePyString(text(s));
            } catch (const LexError& e) {
                fail(s.begin + e.offset, e.message);
            }
            if (!path.empty()) path += '.';
            path += attr;
            expectOp(")");
        } else if (!isName(t, "self")) {
            failAt(t, "expected 'self'");
        }
        while (isOp(peek(), ".")) {
            next();
            Token a = expectName("an attribute name");
            if (!path.empty()) path += '.';
            path += text(a);
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

void FxTextParser::parseRhs(Node& n)
{
    n.op = NodeOp::CallFunction;
    Token t = peek();
    Arg left;
    if (t.kind == TokKind::Op && (text(t) == "-" || text(t) == "+" || text(t) == "~")) {
        Token t1 = peek(1);
        bool literal = text(t) != "~"
            && (t1.kind == TokKind::Int || t1.kind == TokKind::Float || isName(t1, "inf") || isName(t1, "nan"));
        if (!literal) {
            next();
            n.target = text(t) == "-" ? "operator.neg" : text(t) == "+" ? "operator.pos" : "operator.invert";
            n.args.push_back(parseValue());
            return;
        }
        left = parseValue();
    } else if (t.kind == TokKind::Name) {
        std::string_view w = text(t);
        if (w == "self") {
            parseSelfPath(n);
            return;
        }
        if (w == "getattr" && isOp(peek(1), "(")) {
            size_t k = 0;
            while (isName(peek(k), "getattr") && isOp(peek(k + 1), "(")) k += 2;
            if (isName(peek(k), "self")) {
                parseSelfPath(n);
                return;
            }
        }
        NodeId id = lookup(t);
        Token t1 = peek(1);
        if (id != kNoNode && !isOp(t1, "(")) {
            next();
            left = Arg::ofNode(id);
            if (isOp(t1, ".")) {
                next();
                Token attr = expectName("a method or attribute name");
                if (isOp(peek(), "(")) {
                    next();
                    n.op = NodeOp::CallMethod;
                    n.target = std::string(text(attr));
                    n.args.push_back(std::move(left));
                    parseCallArgs(n);
                } else {
                    n.target = "builtins.getattr";
                    n.args.push_back(std::move(left));
                    n.args.push_back(Arg::ofStr(std::string(text(attr))));
                }
                return;
            }
        } else if (w == "None" || w == "True" || w == "False" || w == "inf" || w == "nan") {
            left = parseValue();
        } else if (isOp(t1, "(") || isOp(t1, ".")) {
            next();
            Token last;
            std::string callee = parseDottedName(t, &last);
            Token open = peek();
            if (!isOp(open, "(")) {
                if (w == "torch" || w == "device") {
                    // a torch value (dtype, op) as an operand is not an FX statement
                    failAt(open, "expected '(' after '" + callee + "'");
                }
                if (lookup(t) == kNoNode) fail(t.begin, "undefined name '" + std::string(w) + "'");
                failAt(open, "expected '('");
            }
            next();
            // op overloads lose "torch.ops." unless their namespace looks like a Python root, which
            // the writer could not tell apart from a Python path ("operator.add")
            if (callee.rfind("torch.ops.", 0) == 0 && !isPythonPathTarget(std::string_view(callee).substr(10)))
                callee.erase(0, 10);
            else if (callee.find('.') == std::string::npos && isPythonBuiltinFunctionName(callee))
                callee = "builtins." + callee;
            n.target = std::move(callee);
            parseCallArgs(n);
            return;
        } else {
            fail(t.begin, "undefined name '" + std::string(w) + "'");
        }
    } else {
        left = parseValue();
    }
    Token op = peek();
    if (isOp(op, "[")) {
        next();
        std::vector<Arg> idx;
        bool comma = false;
        for (;;) {
            if (isOp(peek(), "]")) break;
            idx.push_back(parseValue());
            if (!isOp(peek(), ",")) break;
            next();
            comma = true;
        }
        Token c = next();
        if (!isOp(c, "]")) failAt(c, "expected ']'");
        if (idx.empty()) fail(op.begin, "empty subscript");
        n.target = "operator.getitem";
        n.args.push_back(std::move(left));
        n.args.push_back(idx.size() == 1 && !comma ? std::move(idx[0]) : Arg::ofTuple(std::move(idx)));
        return;
    }
    const char* target = op.kind == TokKind::Op ? binOpTarget(text(op)) : nullptr;
    if (!target) failAt(op, "expected an operator, a call or a subscript");
    next();
    n.target = target;
    n.args.push_back(std::move(left));
    n.args.push_back(parseValue());
}

}  // namespace

// ==================================================================== summary comments

namespace {

// Python literal (repr of a dict of str/int/float/bool/None/list/tuple/dict) to JSON.
bool pyLiteralToJson(PyLexer& lx, Token t, nlohmann::json& out, int depth);

bool pyLiteralToJsonNext(PyLexer& lx, nlohmann::json& out, int depth)
{
    Token t = lx.next();
    while (t.kind == TokKind::Comment) t = lx.next();
    return pyLiteralToJson(lx, t, out, depth);
}

bool pyLiteralToJson(PyLexer& lx, Token t, nlohmann::json& out, int depth)
{
    if (depth > 64) return false;
    std::string_view s = lx.tokenText(t);
    switch (t.kind) {
    case TokKind::Int: {
        int64_t v = 0;
        auto r = std::from_chars(s.data(), s.data() + s.size(), v);
        if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return false;
        out = v;
        return true;
    }
    case TokKind::Float: {
        double d = 0;
        auto r = std::from_chars(s.data(), s.data() + s.size(), d);
        if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return false;
        out = d;
        return true;
    }
    case TokKind::String: out = decodePyString(s); return true;
    case TokKind::Name:
        if (s == "True") {
            out = true;
            return true;
        }
        if (s == "False") {
            out = false;
            return true;
        }
        if (s == "None") {
            out = nullptr;
            return true;
        }
        return false;
    case TokKind::Op: {
        if (s == "-") {
            Token n = lx.next();
            nlohmann::json v;
            if ((n.kind != TokKind::Int && n.kind != TokKind::Float) || !pyLiteralToJson(lx, n, v, depth + 1))
                return false;
            if (v.is_number_integer())
                out = -v.get<int64_t>();
            else
                out = -v.get<double>();
            return true;
        }
        if (s == "[" || s == "(") {
            const char* close = s == "[" ? "]" : ")";
            out = nlohmann::json::array();
            for (;;) {
                Token n = lx.next();
                if (n.kind == TokKind::Op && lx.tokenText(n) == close) return true;
                nlohmann::json v;
                if (!pyLiteralToJson(lx, n, v, depth + 1)) return false;
                out.push_back(std::move(v));
                Token sep = lx.next();
                if (sep.kind == TokKind::Op && lx.tokenText(sep) == close) return true;
                if (!(sep.kind == TokKind::Op && lx.tokenText(sep) == ",")) return false;
            }
        }
        if (s == "{") {
            out = nlohmann::json::object();
            for (;;) {
                Token n = lx.next();
                if (n.kind == TokKind::Op && lx.tokenText(n) == "}") return true;
                nlohmann::json k;
                if (!pyLiteralToJson(lx, n, k, depth + 1)) return false;
                Token colon = lx.next();
                if (!(colon.kind == TokKind::Op && lx.tokenText(colon) == ":")) return false;
                nlohmann::json v;
                if (!pyLiteralToJsonNext(lx, v, depth + 1)) return false;
                std::string key = k.is_string() ? k.get<std::string>() : k.dump();
                out[key] = std::move(v);
                Token sep = lx.next();
                if (sep.kind == TokKind::Op && lx.tokenText(sep) == "}") return true;
                if (!(sep.kind == TokKind::Op && lx.tokenText(sep) == ",")) return false;
            }
        }
        return false;
    }
    default: return false;
    }
}

// End of a balanced {...} starting at s[0] == '{', quotes respected; npos when unbalanced.
size_t balancedBraceEnd(std::string_view s)
{
    int d = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (c == '\'' || c == '"') {
            for (++i; i < s.size() && s[i] != c; ++i)
                if (s[i] == '\\') ++i;
            continue;
        }
        if (c == '{' || c == '[' || c == '(')
            ++d;
        else if (c == '}' || c == ']' || c == ')') {
            if (--d == 0) return i + 1;
        }
    }
    return std::string_view::npos;
}

void parseFileSummary(std::string_view s, SourceLocation& loc)
{
    // "{file}:{lineno} in {function}, code: {code}"  or (pre 2.4) "{file}:{lineno}, code: {code}"
    for (size_t p = s.find(':'); p != std::string_view::npos; p = s.find(':', p + 1)) {
        size_t q = p + 1;
        while (q < s.size() && s[q] >= '0' && s[q] <= '9') ++q;
        if (q == p + 1) continue;
        std::string_view rest = s.substr(q);
        std::string_view fn, code;
        if (rest.starts_with(" in ")) {
            size_t c = rest.find(", code: ");
            if (c == std::string_view::npos) continue;
            fn = rest.substr(4, c - 4);
            if (fn.empty() || fn.find(' ') != std::string_view::npos) continue;
            code = rest.substr(c + 8);
        } else if (rest.starts_with(", code: ")) {
            code = rest.substr(8);
        } else if (rest.starts_with(", code:") && rest.size() == 7) {
            code = {};
        } else {
            continue;
        }
        loc.file = std::string(s.substr(0, p));
        int line = 0;
        std::from_chars(s.data() + p + 1, s.data() + q, line);
        loc.line = line;
        loc.function = std::string(fn);
        loc.code = std::string(code);
        return;
    }
    loc.file = std::string(s);  // unknown shape: kept whole
    loc.line = 0;
    loc.function.clear();
    loc.code.clear();
}

}  // namespace

bool parseSummaryComment(std::string_view comment, NodeMeta& m)
{
    std::string_view s = comment;
    bool recognized = false;
    auto skipHashes = [&]() {
        for (;;) {
            s = trimLeft(s);
            if (!s.empty() && (s.front() == '#' || s.front() == '{' || s.front() == '}')) {
                s.remove_prefix(1);
                continue;
            }
            break;
        }
    };
    for (;;) {
        skipHashes();
        if (s.empty()) break;
        if (s.starts_with("File: ")) {
            parseFileSummary(trimRight(s.substr(6)), m.source);
            return true;
        }
        if (s.starts_with("No stacktrace found for following nodes")) {
            m.source = {};
            return true;
        }
        if (s.starts_with("autograd_backward:")) {
            std::string_view v = trimLeft(s.substr(18));
            if (v.starts_with("True"))
                m.autogradBackward = true, v.remove_prefix(4);
            else if (v.starts_with("False"))
                m.autogradBackward = false, v.remove_prefix(5);
            else
                return false;
            recognized = true;
            s = v;
            if (!s.empty() && s.front() == ',') s.remove_prefix(1);
            continue;
        }
        if (s.starts_with("Annotation:")) {
            std::string_view v = trimLeft(s.substr(11));
            if (v.empty() || v.front() != '{') return false;
            size_t e = balancedBraceEnd(v);
            if (e == std::string_view::npos) return false;
            std::string_view dict = v.substr(0, e);
            nlohmann::json j;
            bool ok = false;
            try {
                PyLexer lx(dict);
                ok = pyLiteralToJsonNext(lx, j, 0);
                if (ok) {
                    Token end = lx.next();
                    while (end.kind == TokKind::Newline) end = lx.next();
                    ok = end.kind == TokKind::End;
                }
            } catch (const LexError&) {
                ok = false;
            }
            m.custom = ok ? std::move(j) : nlohmann::json(std::string(dict));
            recognized = true;
            s = v.substr(e);
            continue;
        }
        if (s.starts_with("recompute:")) {
            std::string_view v = trimLeft(s.substr(10));
            size_t k = 0;
            while (k < v.size() && (std::isupper(static_cast<unsigned char>(v[k])) || v[k] == '_')) ++k;
            auto r = recomputeFromName(v.substr(0, k));
            if (!r) return false;
            m.recompute = *r;
            recognized = true;
            s = v.substr(k);
            continue;
        }
        if (s.starts_with("ac_graph_id:")) {
            std::string_view v = trimLeft(s.substr(12));
            int id = 0;
            auto r = std::from_chars(v.data(), v.data() + v.size(), id);
            if (r.ec != std::errc()) return false;
            m.acGraphId = id;
            recognized = true;
            v = trimLeft(v.substr(static_cast<size_t>(r.ptr - v.data())));
            if (v.starts_with("- ")) {
                v = trimLeft(v.substr(2));
                size_t k = 0;
                while (k < v.size() && (std::isupper(static_cast<unsigned char>(v[k])) || v[k] == '_')) ++k;
                if (auto rc = recomputeFromName(v.substr(0, k))) {
                    m.recompute = *rc;
                    v = v.substr(k);
                }
            }
            s = v;
            continue;
        }
        if (!recognized) return false;
        // unknown words between the tags and the stack summary ("Backward of forward node:"): skipped
        size_t sp = s.find(' ');
        if (sp == std::string_view::npos) break;
        s.remove_prefix(sp + 1);
    }
    return recognized;
}

Graph parseFxText(std::string_view text, const std::string& file, int firstLine, DiagnosticList* diags,
                  int columnOffset)
{
    FxTextParser p(text, file, firstLine, diags, columnOffset);
    return p.run();
}

}  // namespace fxl

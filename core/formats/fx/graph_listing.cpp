// print(gm.graph) reader. The listing prints argument values with str(), so strings lose
// their quotes: each value is first read as text (PVal), then typed from the operator
// schema of its position; whatever had to be guessed is counted and reported.
#include "core/formats/fx/graph_listing.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/formats/fx/py_lexer.hpp"
#include "core/ir/tensor_meta.hpp"
#include "core/ops/op_registry.hpp"
#include "core/util/strings.hpp"

namespace fxl {

namespace {

constexpr int kMaxDepth = 200;

bool isIdentChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// str(torch.device): "cpu", "cuda", "cuda:0", "meta", ...
bool looksLikeDevice(std::string_view s)
{
    static const char* const types[] = {"cpu", "cuda", "meta", "mps",    "xpu",           "npu", "hpu",   "xla",
                                        "ipu", "mtia", "lazy", "vulkan", "privateuseone", "hip", "mkldnn"};
    size_t colon = s.find(':');
    std::string_view type = s.substr(0, colon);
    bool known = false;
    for (const char* t : types) known = known || type == t;
    if (!known) return false;
    if (colon == std::string_view::npos) return true;
    std::string_view idx = s.substr(colon + 1);
    if (idx.empty()) return false;
    for (char c : idx)
        if (c < '0' || c > '9') return false;
    return true;
}

// "ns.name.overload" as str(OpOverload) prints it.
bool looksLikeOpOverload(std::string_view s)
{
    int dots = 0;
    for (char c : s) {
        if (c == '.')
            ++dots;
        else if (!isIdentChar(c))
            return false;
    }
    return dots == 2 && s.front() != '.' && s.back() != '.' && s.find("..") == std::string_view::npos;
}

std::optional<int64_t> parseIntText(std::string_view s)
{
    bool neg = !s.empty() && s[0] == '-';
    std::string_view d = neg ? s.substr(1) : s;
    if (d.empty()) return std::nullopt;
    for (char c : d)
        if (c < '0' || c > '9') return std::nullopt;
    uint64_t u = 0;
    auto r = std::from_chars(d.data(), d.data() + d.size(), u, 10);
    if (r.ec != std::errc() || r.ptr != d.data() + d.size()) return std::nullopt;
    if (!neg && u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return static_cast<int64_t>(u);
    if (neg && u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1) return static_cast<int64_t>(0 - u);
    return std::nullopt;
}

bool isIntSpelling(std::string_view s)
{
    bool neg = !s.empty() && s[0] == '-';
    std::string_view d = neg ? s.substr(1) : s;
    if (d.empty()) return false;
    for (char c : d)
        if (c < '0' || c > '9') return false;
    return true;
}

// Python's str(float): "1e-05", "0.5", "3.0", "inf", "-inf", "nan".
std::optional<double> parseFloatText(std::string_view s)
{
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s.empty()) return std::nullopt;
    bool sawDigit = false, sawDotOrExp = false;
    for (char c : s) {
        if (c >= '0' && c <= '9')
            sawDigit = true;
        else if (c == '.' || c == 'e' || c == 'E')
            sawDotOrExp = true;
        else if (c != '-' && c != '+')
            return std::nullopt;
    }
    if (!sawDigit || !sawDotOrExp) return std::nullopt;
    double d = 0;
    auto r = std::from_chars(s.data(), s.data() + s.size(), d);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
    return d;
}

// ------------------------------------------------------------------ value text

struct PValPair;  // a dict entry (std::pair<PVal, PVal> would need a complete PVal under clang)

// A value as printed, before typing.
struct PVal
{
    enum class Kind : uint8_t
    {
        NodeRef,
        List,
        Tuple,
        Dict,
        Quoted,
        Bare
    };
    Kind kind = Kind::Bare;
    std::string text;  // node name (NodeRef), decoded string (Quoted), raw text (Bare)
    std::vector<PVal> items;
    std::vector<PValPair> dict;  // keys are Bare (str mode) or any (repr mode)
    int line = 0, col = 0;
};

struct PValPair
{
    PVal first, second;
    PValPair(PVal k, PVal v)
        : first(std::move(k))
        , second(std::move(v))
    { }
};

// What a schema type says about a value.
enum class Cat : uint8_t
{
    Unknown,
    Str,
    Device,
    DType,
    Layout,
    MemoryFormat,
    OpOverload,
    Typed
};

struct TypeInfo
{
    Cat cat = Cat::Unknown;
    bool optional = false;
    bool list = false;  // "int[]", "Tensor?[]", "int[2]"
    Cat elem = Cat::Unknown;
    bool elemOptional = false;
    std::string text;  // as in the schema, for messages
};

Cat baseCat(std::string_view t)
{
    if (t == "str") return Cat::Str;
    if (t == "Device") return Cat::Device;
    if (t == "ScalarType") return Cat::DType;
    if (t == "Layout") return Cat::Layout;
    if (t == "MemoryFormat") return Cat::MemoryFormat;
    if (t == "OpOverload") return Cat::OpOverload;
    if (t == "Any" || t.empty()) return Cat::Unknown;
    static const char* const typed[] = {"int",     "SymInt",   "float",   "bool",      "Scalar",
                                        "Tensor",  "SymFloat", "SymBool", "Generator", "GraphModule",
                                        "Storage", "Stream",   "Dimname", "complex"};
    for (const char* k : typed)
        if (t == k) return Cat::Typed;
    return Cat::Unknown;
}

TypeInfo typeInfo(std::string_view t)
{
    TypeInfo ti;
    ti.text = std::string(t);
    if (!t.empty() && t.back() == '?') {
        ti.optional = true;
        t.remove_suffix(1);
    }
    if (!t.empty() && t.back() == ']') {
        size_t open = t.rfind('[');
        if (open != std::string_view::npos) {
            ti.list = true;
            std::string_view e = t.substr(0, open);
            if (!e.empty() && e.back() == '?') {
                ti.elemOptional = true;
                e.remove_suffix(1);
            }
            ti.elem = baseCat(e);
            ti.cat = Cat::Typed;
            return ti;
        }
    }
    ti.cat = baseCat(t);
    return ti;
}

TypeInfo elementType(const TypeInfo& t)
{
    TypeInfo e;
    e.cat = t.elem;
    e.optional = t.elemOptional;
    e.text = t.text;
    return e;
}

// ------------------------------------------------------------------ losses

enum Loss : int
{
    kStrBySchema,
    kDeviceBySchema,
    kOpValue,
    kDictKeys,
    kBySpelling,
    kGuessedString,
    kGuessedDevice,
    kTypeMismatch,
    kRawValue,
    kUnknownTarget,
    kBeyondSchema,
    kNestedGraphs,
    kNoMeta,
    kUsersMismatch,
    kLossCount
};

struct LossRecord
{
    int count = 0;
    int line = 0, col = 0;
    std::string example;
};

std::string clip(std::string_view s)
{
    if (s.size() <= 60) return std::string(s);
    return std::string(s.substr(0, 57)) + "...";
}

// ------------------------------------------------------------------ parser

struct NodeLine
{
    int line = 0;  // 1-based
    std::string_view text;  // the whole line (no newline)
    size_t indent = 0;  // bytes before '%'
};

class ListingParser
{
public:
    ListingParser(std::string_view text, const std::string& file, DiagnosticList& diags)
        : text_(text)
        , file_(file)
        , diags_(diags)
        , reg_(OpRegistry::instance())
    { }

    Graph parse();

private:
    std::string_view text_;
    const std::string& file_;
    DiagnosticList& diags_;
    const OpRegistry& reg_;
    Graph g_;
    std::unordered_map<std::string, NodeId> ids_;  // names of all node lines (pass 1)
    std::array<LossRecord, kLossCount> losses_{};
    int oldUsers_ = 0;  // line of the first "[#users=N]"
    int noMetaTotal_ = 0;
    std::string returnType_;  // "graph() -> T:"
    struct Printed
    {
        NodeId id;
        int64_t users;
        int line;
    };
    std::vector<Printed> printed_;
    std::vector<int> lineOf_;  // by NodeId

    // the line being parsed
    int line_ = 0;
    std::string_view cur_;
    size_t pos_ = 0;
    int depth_ = 0;

    [[noreturn]] void fail(size_t at, const std::string& msg) const
    {
        throw InputError(file_, line_, static_cast<int>(at) + 1, msg);
    }

    void loss(Loss k, int line, int col, std::string_view example)
    {
        LossRecord& r = losses_[k];
        if (r.count++ == 0) {
            r.line = line;
            r.col = col;
            r.example = clip(example);
        }
    }

    // --- text scanning on cur_

    void skipSpaces()
    {
        while (pos_ < cur_.size() && cur_[pos_] == ' ') ++pos_;
    }
    bool startsWith(std::string_view s) const { return cur_.substr(pos_, s.size()) == s; }
    void expect(std::string_view s, const char* what)
    {
        if (!startsWith(s))
            fail(pos_,
                 std::string("expected '") + std::string(s) + "' " + what + ", found '" + clip(cur_.substr(pos_, 20))
                     + "'");
        pos_ += s.size();
    }

    PVal parseValue(bool reprMode, bool dictKeyStr);
    std::string readQuoted();
    std::string readBare(bool stopAtColon);

    // --- typing

    Arg toArg(const PVal& v, const TypeInfo& t, bool reprMode);
    Arg bareToArg(const PVal& v, const TypeInfo& t, bool reprMode);
    Arg resolveRef(const PVal& v);

    void parseNodeLine(const NodeLine& nl);
    void parseReturn(const NodeLine& nl);
    void parseCallArgs(Node& n, const OpInfo* op);
    void report();
};

// Quoted Python string at pos_ (repr contexts: return line, slices, defaults in containers).
std::string ListingParser::readQuoted()
{
    const size_t start = pos_;
    const char q = cur_[pos_];
    size_t p = pos_ + 1;
    while (p < cur_.size() && cur_[p] != q) {
        if (cur_[p] == '\\') ++p;
        ++p;
    }
    if (p >= cur_.size()) fail(start, "string literal is not closed on this line");
    std::string_view tok = cur_.substr(start, p + 1 - start);
    pos_ = p + 1;
    try {
        return decodePyString(tok);
    } catch (const LexError& e) {
        fail(start + e.offset, e.message);
    }
}

// Bare text up to a ',' or an unmatched closing bracket (or ':' for dict keys), brackets
// and quotes inside balanced. Spaces inside are kept ("Runtime assertion failed for ...").
std::string ListingParser::readBare(bool stopAtColon)
{
    const size_t start = pos_;
    std::vector<char> stack;
    while (pos_ < cur_.size()) {
        char c = cur_[pos_];
        if (stack.empty() && (c == ',' || c == ')' || c == ']' || c == '}')) break;
        if (stack.empty() && stopAtColon && c == ':' && pos_ + 1 < cur_.size() && cur_[pos_ + 1] == ' ') break;
        if (c == '(' || c == '[' || c == '{') {
            if (stack.size() >= static_cast<size_t>(kMaxDepth)) fail(pos_, "brackets nested too deeply");
            stack.push_back(c == '(' ? ')' : c == '[' ? ']' : '}');
        } else if (c == ')' || c == ']' || c == '}') {
            if (stack.back() != c) fail(pos_, std::string("expected '") + stack.back() + "', found '" + c + "'");
            stack.pop_back();
        } else if ((c == '\'' || c == '"') && !stack.empty()) {
            // quotes only matter inside brackets (device(type='cuda')); a bare top-level
            // apostrophe is just text ("don't")
            size_t p = pos_ + 1;
            while (p < cur_.size() && cur_[p] != c) {
                if (cur_[p] == '\\') ++p;
                ++p;
            }
            if (p >= cur_.size()) fail(pos_, "string literal is not closed on this line");
            pos_ = p;
        }
        ++pos_;
    }
    if (!stack.empty())
        fail(start, std::string("'") + cur_[start] + "...' is not closed: expected '" + stack.back() + "'");
    return std::string(trim(cur_.substr(start, pos_ - start)));
}

// reprMode: the text is Python repr (strings quoted, nodes by bare name): the return line,
// placeholder defaults inside containers. Otherwise it is FX's _format_arg (nodes as %name,
// strings bare, dict keys bare).
PVal ListingParser::parseValue(bool reprMode, bool dictKeyStr)
{
    if (++depth_ > kMaxDepth) fail(pos_, "values nested deeper than " + std::to_string(kMaxDepth) + " levels");
    skipSpaces();
    PVal v;
    v.line = line_;
    v.col = static_cast<int>(pos_) + 1;
    if (pos_ >= cur_.size()) fail(pos_, "expected a value, found the end of the line");
    const char c = cur_[pos_];
    if (c == '%' && !reprMode) {
        size_t p = pos_ + 1;
        while (p < cur_.size() && isIdentChar(cur_[p])) ++p;
        if (p == pos_ + 1) fail(pos_, "expected a node name after '%'");
        v.kind = PVal::Kind::NodeRef;
        v.text = std::string(cur_.substr(pos_ + 1, p - pos_ - 1));
        pos_ = p;
    } else if (c == '[' || c == '(') {
        const char close = c == '[' ? ']' : ')';
        v.kind = c == '[' ? PVal::Kind::List : PVal::Kind::Tuple;
        ++pos_;
        skipSpaces();
        while (pos_ < cur_.size() && cur_[pos_] != close) {
            v.items.push_back(parseValue(reprMode, false));
            skipSpaces();
            if (pos_ < cur_.size() && cur_[pos_] == ',') {
                ++pos_;
                skipSpaces();
                continue;
            }
            break;
        }
        if (pos_ >= cur_.size() || cur_[pos_] != close)
            fail(pos_,
                 std::string("expected ',' or '") + close + "'"
                     + (pos_ < cur_.size() ? ", found '" + std::string(1, cur_[pos_]) + "'" : std::string()));
        ++pos_;
    } else if (c == '{') {
        v.kind = PVal::Kind::Dict;
        ++pos_;
        skipSpaces();
        while (pos_ < cur_.size() && cur_[pos_] != '}') {
            PVal key;
            if (reprMode) {
                key = parseValue(true, false);
            } else {
                key.line = line_;
                key.col = static_cast<int>(pos_) + 1;
                key.kind = PVal::Kind::Bare;
                key.text = readBare(true);
                if (key.text.empty()) fail(pos_, "expected a dict key");
            }
            skipSpaces();
            if (pos_ >= cur_.size() || cur_[pos_] != ':') fail(pos_, "expected ':' after a dict key");
            ++pos_;
            PVal val = parseValue(reprMode, false);
            v.dict.emplace_back(std::move(key), std::move(val));
            skipSpaces();
            if (pos_ < cur_.size() && cur_[pos_] == ',') {
                ++pos_;
                skipSpaces();
                continue;
            }
            break;
        }
        if (pos_ >= cur_.size() || cur_[pos_] != '}') fail(pos_, "expected ',' or '}'");
        ++pos_;
    } else if ((c == '\'' || c == '"') && reprMode) {
        v.kind = PVal::Kind::Quoted;
        v.text = readQuoted();
    } else {
        v.kind = PVal::Kind::Bare;
        v.text = readBare(false);
        if (v.text.empty()) fail(pos_, "expected a value");
    }
    (void)dictKeyStr;
    --depth_;
    return v;
}

Arg ListingParser::resolveRef(const PVal& v)
{
    auto it = ids_.find(v.text);
    if (it == ids_.end())
        throw InputError(file_, v.line, v.col, "undefined node '%" + v.text + "' (no line defines it)");
    return Arg::ofNode(it->second);
}

Arg ListingParser::toArg(const PVal& v, const TypeInfo& t, bool reprMode)
{
    switch (v.kind) {
    case PVal::Kind::NodeRef: return resolveRef(v);
    case PVal::Kind::Quoted: return Arg::ofStr(v.text);
    case PVal::Kind::List:
    case PVal::Kind::Tuple: {
        // a tuple/list in a slot that is not a list type: its items are untyped
        TypeInfo et = t.list ? elementType(t) : TypeInfo{};
        std::vector<Arg> items;
        items.reserve(v.items.size());
        for (const auto& x : v.items) items.push_back(toArg(x, et, reprMode));
        return v.kind == PVal::Kind::List ? Arg::ofList(std::move(items)) : Arg::ofTuple(std::move(items));
    }
    case PVal::Kind::Dict: {
        Arg d;
        d.kind = Arg::Kind::Dict;
        for (const auto& [k, x] : v.dict) {
            Arg key;
            if (k.kind == PVal::Kind::Bare && !reprMode) {
                key = Arg::ofStr(k.text);
                loss(kDictKeys, k.line, k.col, k.text);
            } else {
                key = toArg(k, TypeInfo{}, reprMode);
            }
            d.dict.emplace_back(std::move(key), toArg(x, TypeInfo{}, reprMode));
        }
        return d;
    }
    case PVal::Kind::Bare: return bareToArg(v, t, reprMode);
    }
    return Arg::none();
}

Arg ListingParser::bareToArg(const PVal& v, const TypeInfo& t, bool reprMode)
{
    const std::string& s = v.text;
    // a list-typed slot may hold a single value ("int[1] dim" given as 1)
    const Cat cat = t.list ? t.elem : t.cat;
    const bool optional = t.list ? t.elemOptional || t.optional : t.optional;

    if (cat == Cat::Str && !reprMode) {
        if (s == "None" && optional) return Arg::none();
        loss(kStrBySchema, v.line, v.col, s);
        return Arg::ofStr(s);
    }
    // spellings that are the same for every type
    std::optional<Arg> lit;
    if (s == "None")
        lit = Arg::none();
    else if (s == "True")
        lit = Arg::ofBool(true);
    else if (s == "False")
        lit = Arg::ofBool(false);
    else if (auto i = parseIntText(s))
        lit = Arg::ofInt(*i);
    else if (auto f = parseFloatText(s))
        lit = Arg::ofFloat(*f);
    if (lit) {
        if (cat == Cat::Unknown && !reprMode) loss(kBySpelling, v.line, v.col, s);
        return *lit;
    }
    if (isIntSpelling(s)) {  // beyond int64: Python ints are unbounded
        loss(kRawValue, v.line, v.col, s);
        return Arg::ofRaw(s);
    }
    if (s.rfind("torch.", 0) == 0) {
        std::string_view rest = std::string_view(s).substr(6);
        if (auto dt = dtypeFromTorchName(rest)) return Arg::ofDType(*dt);
        if (isLayoutName(rest)) return Arg::ofLayout(std::string(rest));
        if (isMemoryFormatName(rest)) return Arg::ofMemoryFormat(std::string(rest));
        if (rest.rfind("ops.", 0) == 0 && rest.size() > 4) return Arg::ofOp(std::string(rest.substr(4)));
    }
    if (s == "Ellipsis" || s == "...") {
        Arg e;
        e.kind = Arg::Kind::Ellipsis;
        return e;
    }
    // repr forms that print the same under str() (inside containers, slices)
    if (s.rfind("device(", 0) == 0 && s.back() == ')') {
        // device(type='cuda', index=0)
        std::string_view in = std::string_view(s).substr(7, s.size() - 8);
        size_t q1 = in.find('\'');
        size_t q2 = q1 == std::string_view::npos ? q1 : in.find('\'', q1 + 1);
        if (q2 != std::string_view::npos) {
            std::string dev(in.substr(q1 + 1, q2 - q1 - 1));
            size_t ix = in.find("index=");
            if (ix != std::string_view::npos) {
                std::string_view num = trim(in.substr(ix + 6));
                if (auto n = parseIntText(num)) dev += ":" + std::to_string(*n);
            }
            return Arg::ofDevice(dev);
        }
    }
    if (s.rfind("slice(", 0) == 0 && s.back() == ')') {
        // str(slice) is its repr: parse the inside in repr mode
        std::string_view saveCur = cur_;
        size_t savePos = pos_;
        cur_ = std::string_view(s);
        pos_ = 5;
        PVal inner = parseValue(true, false);
        cur_ = saveCur;
        pos_ = savePos;
        if (inner.kind == PVal::Kind::Tuple && inner.items.size() == 3) {
            Arg a;
            a.kind = Arg::Kind::Slice;
            for (auto& x : inner.items) {
                PVal y = x;
                y.line = v.line;
                y.col = v.col;
                a.items.push_back(toArg(y, TypeInfo{}, true));
            }
            return a;
        }
    }
    if (cat == Cat::Device) {
        if (!looksLikeDevice(s))
            loss(kTypeMismatch, v.line, v.col, s + " for " + t.text);
        else
            loss(kDeviceBySchema, v.line, v.col, s);
        return Arg::ofDevice(s);
    }
    if (cat == Cat::OpOverload) {
        return Arg::ofOp(s);
    }
    if (reprMode) {
        // strings are quoted here: a bare name that is a node is a node ref
        if (auto it = ids_.find(s); it != ids_.end()) return Arg::ofNode(it->second);
        loss(kRawValue, v.line, v.col, s);
        return Arg::ofRaw(s);
    }
    if (looksLikeOpOverload(s) && reg_.find(s)) {
        loss(kOpValue, v.line, v.col, s);
        return Arg::ofOp(s);
    }
    if (cat == Cat::Unknown) {
        if (looksLikeDevice(s)) {
            loss(kGuessedDevice, v.line, v.col, s);
            return Arg::ofDevice(s);
        }
        loss(kGuessedString, v.line, v.col, s);
        return Arg::ofStr(s);
    }
    // the schema wants something else (a number, a dtype, a tensor): keep the text
    loss(kTypeMismatch, v.line, v.col, s + " for " + t.text);
    return Arg::ofRaw(s);
}

// "(args = (...), kwargs = {...})" after the target.
void ListingParser::parseCallArgs(Node& n, const OpInfo* op)
{
    expect("(args = ", "after the target");
    skipSpaces();
    if (pos_ >= cur_.size() || cur_[pos_] != '(') fail(pos_, "expected '(' starting the args tuple");
    PVal args = parseValue(false, false);
    expect(", kwargs = ", "after the args tuple");
    skipSpaces();
    if (pos_ >= cur_.size() || cur_[pos_] != '{') fail(pos_, "expected '{' starting the kwargs dict");
    PVal kwargs = parseValue(false, false);
    expect(")", "closing the call");
    skipSpaces();
    if (pos_ != cur_.size()) fail(pos_, "unexpected text after the call: '" + clip(cur_.substr(pos_)) + "'");

    std::vector<const SchemaArg*> positional;
    if (op)
        for (const auto& a : op->schema.args)
            if (!a.kwargOnly) positional.push_back(&a);
    for (size_t i = 0; i < args.items.size(); ++i) {
        TypeInfo t;
        if (i < positional.size())
            t = typeInfo(positional[i]->type);
        else if (op && !op->schema.varargs)
            loss(kBeyondSchema, args.items[i].line, args.items[i].col, "%" + n.name + " argument " + std::to_string(i));
        n.args.push_back(toArg(args.items[i], t, false));
    }
    for (const auto& [k, x] : kwargs.dict) {
        TypeInfo t;
        if (op) {
            int idx = op->schema.argIndex(k.text);
            if (idx >= 0) {
                t = typeInfo(op->schema.args[static_cast<size_t>(idx)].type);
            } else if (!op->schema.varargs) {
                loss(kBeyondSchema, k.line, k.col, "%" + n.name + " keyword " + k.text);
            }
        }
        for (const auto& kv : n.kwargs)
            if (kv.first == k.text)
                throw InputError(file_, k.line, k.col, "keyword argument '" + k.text + "' repeated");
        n.kwargs.emplace_back(k.text, toArg(x, t, false));
    }
}

void ListingParser::parseNodeLine(const NodeLine& nl)
{
    line_ = nl.line;
    cur_ = nl.text;
    pos_ = nl.indent + 1;  // after '%'
    size_t nameEnd = pos_;
    while (nameEnd < cur_.size() && isIdentChar(cur_[nameEnd])) ++nameEnd;
    Node n;
    n.name = std::string(cur_.substr(pos_, nameEnd - pos_));
    pos_ = nameEnd;
    expect(" : ", "after the node name");

    // optional type, then [num_users=N] (PyTorch >= 2.1) or [#users=N]
    size_t users = cur_.find("[num_users=", pos_);
    size_t usersLen = 11;
    size_t old = cur_.find("[#users=", pos_);
    if (old != std::string_view::npos && (users == std::string_view::npos || old < users)) {
        users = old;
        usersLen = 8;
        if (!oldUsers_) oldUsers_ = line_;
    }
    if (users == std::string_view::npos) fail(pos_, "expected '[num_users=N]' after the node name");
    const size_t typeAt = pos_;
    std::string_view type = trim(cur_.substr(pos_, users - pos_));
    pos_ = users + usersLen;
    size_t digitsEnd = pos_;
    while (digitsEnd < cur_.size() && cur_[digitsEnd] >= '0' && cur_[digitsEnd] <= '9') ++digitsEnd;
    auto printedUsers = parseIntText(cur_.substr(pos_, digitsEnd - pos_));
    if (!printedUsers) fail(pos_, "expected the number of users");
    pos_ = digitsEnd;
    expect("] = ", "after the number of users");

    if (!type.empty()) {
        if (type.size() > 9 && type.substr(0, 8) == "Tensor \"" && type.back() == '"') {
            try {
                n.val = parseAnnotation(type.substr(8, type.size() - 9));
            } catch (const InputError& e) {
                diags_.warn(file_, line_, static_cast<int>(typeAt) + 9,
                            "cannot read the tensor annotation (" + e.diagnostic().message + "); kept as text");
                n.typeExpr = std::string(type);
            } catch (const std::exception& e) {
                diags_.warn(file_, line_, static_cast<int>(typeAt) + 9,
                            std::string("cannot read the tensor annotation (") + e.what() + "); kept as text");
                n.typeExpr = std::string(type);
            }
        } else {
            n.typeExpr = std::string(type);
        }
    }

    size_t opEnd = pos_;
    while (opEnd < cur_.size() && isIdentChar(cur_[opEnd])) ++opEnd;
    std::string_view opName = cur_.substr(pos_, opEnd - pos_);
    auto op = nodeOpFromName(opName);
    if (!op || *op == NodeOp::Output)
        fail(pos_,
             "expected a node op (placeholder, call_function, call_method, call_module, get_attr), found '"
                 + clip(opName) + "'");
    n.op = *op;
    pos_ = opEnd;
    expect("[target=", "after the node op");
    const size_t targetAt = pos_;

    if (n.op == NodeOp::Placeholder || n.op == NodeOp::GetAttr) {
        size_t end;
        size_t def = n.op == NodeOp::Placeholder ? cur_.find("](default=", pos_) : std::string_view::npos;
        if (def != std::string_view::npos) {
            end = def;
        } else {
            size_t last = cur_.find_last_not_of(" \t");
            if (last == std::string_view::npos || last < pos_ || cur_[last] != ']')
                fail(cur_.size(), "expected ']' closing the target");
            end = last;
        }
        n.target = std::string(cur_.substr(pos_, end - pos_));
        if (n.target.empty()) fail(targetAt, "empty target");
        pos_ = end + 1;
        if (def != std::string_view::npos) {
            expect("(default=", "");
            // str() of the default: containers print their repr (strings quoted); a top-level
            // value prints bare, commas and all, up to the closing ')' of the line
            std::string_view rest = trim(cur_.substr(pos_));
            if (rest.empty() || rest.back() != ')') fail(cur_.size(), "expected ')' closing the default value");
            const char c0 = rest.front();
            if (c0 == '(' || c0 == '[' || c0 == '{') {
                PVal dv = parseValue(true, false);
                skipSpaces();
                expect(")", "closing the default value");
                n.placeholderDefault = toArg(dv, TypeInfo{}, true);
            } else {
                PVal dv;
                dv.kind = PVal::Kind::Bare;
                dv.line = line_;
                dv.col = static_cast<int>(pos_) + 1;
                dv.text = std::string(rest.substr(0, rest.size() - 1));
                if (dv.text.empty()) fail(pos_, "expected a default value");
                pos_ = cur_.size();
                n.placeholderDefault = toArg(dv, TypeInfo{}, false);
            }
        }
        skipSpaces();
        if (pos_ != cur_.size()) fail(pos_, "unexpected text after the target: '" + clip(cur_.substr(pos_)) + "'");
    } else {
        size_t end = cur_.find("](args = ", pos_);
        if (end == std::string_view::npos) fail(pos_, "expected '](args = ...' after the target");
        std::string_view target = cur_.substr(pos_, end - pos_);
        if (target.empty()) fail(targetAt, "empty target");
        pos_ = end + 1;
        const OpInfo* info = nullptr;
        if (n.op == NodeOp::CallFunction) {
            if (target.rfind("torch.ops.", 0) == 0) target.remove_prefix(10);
            n.target = std::string(target);
            // very old FX printed builtins as "<built-in function add>"
            if (n.target.rfind("<built-in function ", 0) == 0 && n.target.back() == '>') {
                std::string fn = n.target.substr(19, n.target.size() - 20);
                n.target = (fn == "getattr" ? "builtins." : "operator.") + fn;
            }
            info = reg_.find(n.target);
            if (!info) loss(kUnknownTarget, line_, static_cast<int>(targetAt) + 1, n.target);
        } else {
            n.target = std::string(target);
        }
        parseCallArgs(n, info);
    }
    NodeId id = g_.addNode(std::move(n));
    printed_.push_back({id, *printedUsers, line_});
}

void ListingParser::parseReturn(const NodeLine& nl)
{
    line_ = nl.line;
    cur_ = nl.text;
    pos_ = nl.indent + 6;  // after "return"
    Node n;
    n.op = NodeOp::Output;
    n.target = "output";
    n.name = g_.uniqueName("output");
    skipSpaces();
    if (pos_ >= cur_.size()) {
        n.args.push_back(Arg::none());
    } else {
        // str(node.args[0]): a Python repr (nodes by bare name, strings quoted)
        PVal v = parseValue(true, false);
        skipSpaces();
        if (pos_ != cur_.size())
            fail(pos_, "unexpected text after the returned value: '" + clip(cur_.substr(pos_)) + "'");
        // a single returned node prints as its bare name
        n.args.push_back(toArg(v, TypeInfo{}, true));
    }
    g_.outputIsList = n.args[0].kind == Arg::Kind::List;
    if (!returnType_.empty()) n.typeExpr = returnType_;
    g_.addNode(std::move(n));
}

Graph ListingParser::parse()
{
    // split into lines
    std::vector<NodeLine> lines;
    {
        size_t p = 0;
        int lineNo = 0;
        while (p < text_.size()) {
            size_t nl = text_.find('\n', p);
            if (nl == std::string_view::npos) nl = text_.size();
            std::string_view l = text_.substr(p, nl - p);
            if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
            ++lineNo;
            size_t indent = 0;
            while (indent < l.size() && (l[indent] == ' ' || l[indent] == '\t')) ++indent;
            lines.push_back({lineNo, l, indent});
            p = nl + 1;
        }
    }

    std::vector<std::string> headerParams;
    std::vector<const NodeLine*> nodeLines;
    const NodeLine* ret = nullptr;
    bool sawHeader = false, sawAny = false;
    for (const auto& l : lines) {
        std::string_view body = trim(l.text);
        if (body.empty()) continue;
        line_ = l.line;
        if (ret) fail(l.indent, "unexpected text after the return line: '" + clip(body) + "'");
        if (!sawAny) {
            sawAny = true;
            if (body.rfind("graph(", 0) == 0) {
                sawHeader = true;
                // graph(<placeholder names>)[ -> <type>]:
                size_t close = body.find(')');
                if (close == std::string_view::npos || body.back() != ':')
                    fail(l.indent, "expected 'graph(...):' as the first line");
                std::string_view params = body.substr(6, close - 6);
                std::string_view after = trim(body.substr(close + 1, body.size() - close - 2));
                if (after.rfind("->", 0) == 0)
                    returnType_ = std::string(trim(after.substr(2)));
                else if (!after.empty())
                    fail(l.indent + close + 1, "expected ':' or ' -> type:' after 'graph(...)'");
                size_t b = 0;
                while (b < params.size()) {
                    size_t e = params.find(',', b);
                    if (e == std::string_view::npos) e = params.size();
                    std::string_view prm = trim(params.substr(b, e - b));
                    size_t k = 0;
                    while (k < prm.size() && isIdentChar(prm[k])) ++k;
                    if (k > 0) headerParams.emplace_back(prm.substr(0, k));
                    b = e + 1;
                }
                continue;
            }
        }
        if (body[0] == '%') {
            nodeLines.push_back(&l);
        } else if (body == "return" || body.rfind("return ", 0) == 0) {
            ret = &l;
        } else {
            fail(l.indent,
                 std::string(sawHeader ? "" : "expected 'graph():' (the first line of print(gm.graph)) or ")
                     + "expected a node line '%name : [num_users=N] = op[target=...]...' or 'return ...', "
                       "found '"
                     + clip(body) + "'");
        }
    }
    if (!sawAny) throw InputError(file_, 1, 1, "empty input: expected a graph listing ('graph():' then node lines)");
    if (!sawHeader) diags_.note(file_, 1, 1, "no 'graph():' header: read the node lines as a graph listing");

    // pass 1: every name, so that refs resolve wherever they point
    for (const auto& name : headerParams) {
        if (ids_.count(name)) throw InputError(file_, 1, 1, "duplicate placeholder '" + name + "' in the header");
        ids_.emplace(name, static_cast<NodeId>(ids_.size()));
    }
    std::unordered_map<std::string, int> definedAt;
    for (const NodeLine* nl : nodeLines) {
        size_t b = nl->indent + 1, e = b;
        while (e < nl->text.size() && isIdentChar(nl->text[e])) ++e;
        if (e == b) throw InputError(file_, nl->line, static_cast<int>(b) + 1, "expected a node name after '%'");
        std::string name(nl->text.substr(b, e - b));
        if (!ids_.emplace(name, static_cast<NodeId>(ids_.size())).second)
            throw InputError(file_, nl->line, static_cast<int>(b),
                             "duplicate node name '%" + name + "'"
                                 + (definedAt.count(name)
                                        ? " (first defined on line " + std::to_string(definedAt[name]) + ")"
                                        : std::string(" (a header placeholder)")));
        definedAt.emplace(name, nl->line);
    }

    // pass 2: the nodes
    for (const auto& name : headerParams) {
        Node n;
        n.name = name;
        n.op = NodeOp::Placeholder;
        n.target = name;
        g_.addNode(std::move(n));
        lineOf_.push_back(1);
    }
    if (!headerParams.empty())
        diags_.note(file_, 1, 1,
                    std::to_string(headerParams.size()) + " placeholder(s) read from the 'graph(...)' header");
    for (const NodeLine* nl : nodeLines) {
        parseNodeLine(*nl);
        lineOf_.push_back(nl->line);
    }
    if (ret) {
        parseReturn(*ret);
        lineOf_.push_back(ret->line);
    } else {
        diags_.warn(file_, 0, 0, "no 'return' line: the graph has no output node");
    }

    g_.signature = SignatureStyle::Plain;
    g_.rebuildUsers();

    // what the listing could not say
    int noMeta = 0, total = 0, firstNoMeta = 0;
    std::string firstNoMetaName;
    for (NodeId id : g_.order()) {
        const Node& n = g_.node(id);
        if (n.op == NodeOp::Output) continue;
        ++total;
        if (n.val.kind == ValueMeta::Kind::Unknown) {
            if (noMeta++ == 0) {
                firstNoMeta = lineOf_[static_cast<size_t>(id)];
                firstNoMetaName = n.name;
            }
        } else {
            g_.signature = SignatureStyle::Flat;
        }
        if (n.op == NodeOp::CallFunction && n.target.rfind("higher_order.", 0) == 0) {
            auto checkArg = [&](const Arg& a) {
                a.forEachNode([&](NodeId ref) {
                    if (g_.alive(ref) && g_.node(ref).op == NodeOp::GetAttr)
                        loss(kNestedGraphs, lineOf_[static_cast<size_t>(ref)], 1, g_.node(ref).target);
                });
            };
            for (const auto& a : n.args) checkArg(a);
            for (const auto& kv : n.kwargs) checkArg(kv.second);
        }
    }
    if (noMeta > 0) {
        LossRecord& r = losses_[kNoMeta];
        r.count = noMeta;
        r.line = firstNoMeta;
        r.col = 1;
        r.example = "%" + firstNoMetaName;
        noMetaTotal_ = total;
    }
    for (const auto& p : printed_) {
        const Node& n = g_.node(p.id);
        if (static_cast<int64_t>(n.users.size()) != p.users)
            loss(kUsersMismatch, p.line, 1,
                 "%" + n.name + " prints " + std::to_string(p.users) + ", used by " + std::to_string(n.users.size()));
    }
    report();
    return std::move(g_);
}

void ListingParser::report()
{
    if (oldUsers_) diags_.note(file_, oldUsers_, 0, "old listing format '[#users=N]' (PyTorch before 2.1)");
    struct Text
    {
        Loss kind;
        Severity severity;
        const char* what;
    };
    static const Text texts[] = {
        {kStrBySchema, Severity::Note,
         "value(s) printed without quotes were read as strings because the op schema types them 'str' "
         "(print(gm.graph) drops string quotes)"},
        {kDeviceBySchema, Severity::Note,
         "device value(s) printed as bare text were read as devices from the op schema"},
        {kOpValue, Severity::Note,
         "value(s) spelled like a registered operator overload were read as operator values (a string prints the "
         "same)"},
        {kDictKeys, Severity::Note,
         "dict key(s) printed without quotes were read as strings (an int key prints the same)"},
        {kBySpelling, Severity::Warning,
         "value(s) in positions with no schema type (call_method, call_module, unknown operators, 'Any' or untyped "
         "operands) were read by their spelling: the string '0' or 'None' prints the same as the number or constant"},
        {kGuessedString, Severity::Warning,
         "bare word(s) with no schema type were read as strings (print(gm.graph) drops string quotes, and other "
         "objects "
         "print bare too)"},
        {kGuessedDevice, Severity::Warning,
         "word(s) with no schema type that look like devices were read as devices (a string prints the same)"},
        {kTypeMismatch, Severity::Warning, "value(s) do not fit the schema type and were kept verbatim"},
        {kRawValue, Severity::Warning, "value(s) could not be typed and were kept verbatim"},
        {kUnknownTarget, Severity::Note,
         "call_function node(s) have targets that are not in the operator registry: their values were read by "
         "spelling"},
        {kBeyondSchema, Severity::Warning,
         "argument(s) do not match the operator schema (extra positional arguments or unknown keywords; a string with "
         "', ' in it splits into several) and were read by spelling"},
        {kNestedGraphs, Severity::Note,
         "get_attr node(s) name nested graphs of higher-order ops: print(gm.graph) does not print nested graphs, so "
         "they are missing"},
        {kNoMeta, Severity::Note,
         "node(s) carry no value meta: print(gm.graph) prints no shapes (unless printed with tensor metadata), stack "
         "traces or module paths"},
        {kUsersMismatch, Severity::Warning,
         "node(s) print a user count that differs from the nodes that use them in this listing"},
    };
    for (const auto& t : texts) {
        const LossRecord& r = losses_[t.kind];
        if (r.count == 0) continue;
        std::string msg = std::to_string(r.count) + " "
            + (t.kind == kNoMeta ? "of " + std::to_string(noMetaTotal_) + " " : std::string()) + t.what + ", e.g. "
            + r.example;
        diags_.items.push_back({t.severity, file_, r.line, r.col, std::move(msg)});
    }
}

}  // namespace

Graph parseGraphListing(std::string_view text, const std::string& file, DiagnosticList& diags)
{
    return ListingParser(text, file, diags).parse();
}

bool looksLikeGraphListing(std::string_view head)
{
    size_t p = 0;
    while (p < head.size()) {
        size_t nl = head.find('\n', p);
        if (nl == std::string_view::npos) nl = head.size();
        std::string_view l = trim(head.substr(p, nl - p));
        p = nl + 1;
        if (l.empty()) continue;
        if (l.rfind("graph(", 0) == 0) {
            size_t close = l.find(')');
            return close != std::string_view::npos && l.back() == ':'
                && (nl >= head.size() || head.find('%', nl) != std::string_view::npos
                    || head.find("return", nl) != std::string_view::npos);
        }
        return l[0] == '%' && l.find(" : ") != std::string_view::npos
            && (l.find("[num_users=") != std::string_view::npos || l.find("[#users=") != std::string_view::npos);
    }
    return false;
}

}  // namespace fxl

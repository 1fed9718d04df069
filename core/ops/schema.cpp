// The TorchScript function-schema grammar as ops.tsv uses it:
//   name[.overload](args) -> returns
// with alias annotations (Tensor(a), Tensor(a!), Tensor(a -> *)), optional / list suffixes,
// '*' for keyword-only, '*args' / '**kwargs' / '...' for variadic HOPs, and defaults.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "core/ir/diagnostics.hpp"
#include "core/ops/schema.hpp"
#include "core/util/strings.hpp"

namespace fxl {

namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Type names a lone token may be; any other lone token is an untyped argument name
// ("cond(pred, ...)", "getitem(obj, int idx)").
bool isKnownTypeName(std::string_view s)
{
    static const std::set<std::string_view> kTypes = {
        "Tensor",      "int",        "float",      "bool",   "str",      "complex",      "Scalar",    "SymInt",
        "SymFloat",    "SymBool",    "ScalarType", "Layout", "Device",   "MemoryFormat", "Generator", "Any",
        "GraphModule", "OpOverload", "tuple",      "dict",   "list",     "Storage",      "Stream",    "Dimname",
        "QScheme",     "number",     "dtype",      "None",   "NoneType", "AnyEnumType",  "PyObject",  "Capsule"};
    return kTypes.count(s) != 0;
}

bool isGenericTypeName(std::string_view s)
{
    return s == "Dict" || s == "Tuple" || s == "List" || s == "Optional" || s == "Future" || s == "Union"
        || s == "Await" || s == "RRef";
}

struct TypeRead
{
    std::string text;
    std::optional<AliasInfo> alias;
    bool lone = true;  // a bare identifier: no alias, suffix or parameters
};

class SchemaReader
{
public:
    explicit SchemaReader(std::string_view t)
        : t_(t)
    { }

    [[noreturn]] void fail(const std::string& msg) const { failAt(p_, msg); }
    [[noreturn]] void failAt(size_t at, const std::string& msg) const
    {
        throw InputError("<schema>", 1, static_cast<int>(std::min(at, t_.size())) + 1, msg);
    }

    bool atEnd()
    {
        skipWs();
        return p_ >= t_.size();
    }
    void skipWs()
    {
        while (p_ < t_.size() && isSpace(t_[p_])) ++p_;
    }
    char peek() const { return p_ < t_.size() ? t_[p_] : '\0'; }
    bool eat(char c)
    {
        skipWs();
        if (peek() != c) return false;
        ++p_;
        return true;
    }
    bool eatStr(std::string_view s)
    {
        skipWs();
        if (t_.substr(p_, s.size()) != s) return false;
        p_ += s.size();
        return true;
    }
    void expect(char c, const char* what)
    {
        if (!eat(c)) fail(std::string("expected '") + c + "' " + what + foundText());
    }
    std::string foundText() const
    {
        if (p_ >= t_.size()) return ", found the end of the schema";
        std::string s(t_.substr(p_, 12));
        return ", found '" + s + "'";
    }
    std::string ident(const char* what)
    {
        skipWs();
        if (!isIdentStart(peek())) fail(std::string("expected ") + what + foundText());
        size_t b = p_;
        while (p_ < t_.size() && isIdentChar(t_[p_])) ++p_;
        return std::string(t_.substr(b, p_ - b));
    }

    // name[.overload], with an optional "ns::" prefix
    void header(Schema& s)
    {
        s.name = ident("an operator name");
        if (t_.substr(p_, 2) == "::") {
            p_ += 2;
            s.ns = s.name;
            s.name = ident("an operator name after '::'");
        }
        if (peek() == '.') {
            ++p_;
            s.overload = ident("an overload name after '.'");
        } else {
            s.overload = "default";
        }
    }

    TypeRead type(int depth = 0)
    {
        TypeRead r;
        skipWs();
        if (depth > 32) fail("type parameters nested too deeply");
        if (!isIdentStart(peek())) fail("expected a type" + foundText());
        size_t b = p_;
        while (p_ < t_.size()
               && (isIdentChar(t_[p_]) || (t_[p_] == '.' && p_ + 1 < t_.size() && isIdentStart(t_[p_ + 1]))))
            ++p_;
        r.text = std::string(t_.substr(b, p_ - b));
        skipWs();
        if (isGenericTypeName(r.text) && peek() == '(') {
            ++p_;
            r.lone = false;
            r.text += "(";
            bool first = true;
            while (true) {
                if (eat(')')) break;
                if (!first) {
                    if (!eat(',')) fail("expected ',' or ')' in type parameters" + foundText());
                }
                TypeRead inner = type(depth + 1);
                if (!first) r.text += ", ";
                r.text += inner.text;
                first = false;
            }
            r.text += ")";
            skipWs();
        }
        if (peek() == '(') {
            ++p_;
            r.lone = false;
            AliasInfo a;
            skipWs();
            size_t sb = p_;
            while (p_ < t_.size() && (isIdentChar(t_[p_]) || t_[p_] == '|' || t_[p_] == '*')) ++p_;
            if (p_ == sb) fail("expected an alias set in the alias annotation" + foundText());
            a.set = std::string(t_.substr(sb, p_ - sb));
            if (eat('!')) a.isWrite = true;
            if (eatStr("->")) {
                if (!eat('*')) fail("expected '*' after '->' in the alias annotation" + foundText());
                a.toWildcard = true;
            }
            expect(')', "to close the alias annotation");
            r.alias = a;
        }
        while (true) {
            skipWs();
            if (peek() == '[') {
                ++p_;
                r.lone = false;
                skipWs();
                size_t db = p_;
                while (p_ < t_.size() && t_[p_] >= '0' && t_[p_] <= '9') ++p_;
                std::string digits(t_.substr(db, p_ - db));
                expect(']', "to close the list type");
                r.text += "[" + digits + "]";
            } else if (peek() == '?') {
                ++p_;
                r.lone = false;
                r.text += "?";
            } else {
                break;
            }
        }
        return r;
    }

    // Raw default text up to the next top-level ',' or ')'.
    std::string defaultText()
    {
        skipWs();
        size_t b = p_;
        std::vector<char> stack;
        while (p_ < t_.size()) {
            char c = t_[p_];
            if (c == '\'' || c == '"') {
                size_t q = p_++;
                while (p_ < t_.size() && t_[p_] != c) {
                    if (t_[p_] == '\\') ++p_;
                    ++p_;
                }
                if (p_ >= t_.size()) failAt(q, "unterminated string in default value");
                ++p_;
                continue;
            }
            if (c == '(' || c == '[' || c == '{') {
                stack.push_back(c == '(' ? ')' : c == '[' ? ']' : '}');
            } else if (c == ')' || c == ']' || c == '}') {
                if (stack.empty()) {
                    if (c == ')') break;
                    fail(std::string("unbalanced '") + c + "' in default value");
                }
                if (stack.back() != c) fail(std::string("unbalanced '") + c + "' in default value");
                stack.pop_back();
            } else if (c == ',' && stack.empty()) {
                break;
            }
            ++p_;
        }
        if (!stack.empty()) failAt(b, "unbalanced brackets in default value");
        size_t e = p_;
        while (e > b && isSpace(t_[e - 1])) --e;
        if (e == b) fail("expected a default value after '='" + foundText());
        return std::string(t_.substr(b, e - b));
    }

    struct ArgState
    {
        bool kwOnly = false;  // after '*' or '*args'
        bool sawStar = false;
        bool sawStarStar = false;
    };

    // One element of the argument list.
    void arg(Schema& s, ArgState& st)
    {
        skipWs();
        size_t at = p_;
        if (st.sawStarStar) fail("nothing may follow '**kwargs'" + foundText());
        if (eatStr("...")) {
            s.varargs = true;
            st.kwOnly = true;
            return;
        }
        if (eatStr("**")) {
            ident("a name after '**'");
            s.varargs = true;
            st.sawStarStar = true;
            return;
        }
        if (eat('*')) {
            if (st.sawStar) failAt(at, "a second '*' in the argument list");
            st.sawStar = true;
            st.kwOnly = true;
            skipWs();
            if (isIdentStart(peek())) {
                ident("a name after '*'");
                s.varargs = true;
            }
            return;
        }
        SchemaArg a;
        TypeRead tr = type();
        a.type = tr.text;
        a.alias = tr.alias;
        skipWs();
        if (isIdentStart(peek())) {
            a.name = ident("an argument name");
        } else if (tr.lone && !isKnownTypeName(tr.text)) {
            a.name = tr.text;  // untyped argument
            a.type = "Any";
        } else {
            fail("expected an argument name after type '" + tr.text + "'" + foundText());
        }
        if (eat('=')) a.defaultText = defaultText();
        a.kwargOnly = st.kwOnly;
        for (const auto& o : s.args)
            if (o.name == a.name) failAt(at, "duplicate argument name '" + a.name + "'");
        s.args.push_back(std::move(a));
    }

    // '(' args ')' ; `lenient` keeps what parsed and stops at the first bad argument.
    void args(Schema& s, bool lenient)
    {
        expect('(', "to open the argument list");
        ArgState st;
        if (eat(')')) return;
        while (true) {
            if (lenient) {
                try {
                    arg(s, st);
                } catch (const InputError&) {
                    s.varargs = true;
                    throw;
                }
            } else {
                arg(s, st);
            }
            if (eat(')')) return;
            if (!eat(',')) fail("expected ',' or ')' in the argument list" + foundText());
        }
    }

    SchemaArg ret()
    {
        skipWs();
        SchemaArg r;
        TypeRead tr = type();
        r.type = tr.text;
        r.alias = tr.alias;
        skipWs();
        if (isIdentStart(peek())) {
            r.name = ident("a return name");
        } else if (tr.lone && !isKnownTypeName(tr.text)) {
            r.name = tr.text;  // informal "(dq, dk, dv)"
            r.type = "Any";
        }
        return r;
    }

    void returns(Schema& s)
    {
        if (!eatStr("->")) fail("expected '->' before the returns" + foundText());
        skipWs();
        if (eat('(')) {
            if (!eat(')')) {
                while (true) {
                    s.returns.push_back(ret());
                    if (eat(')')) break;
                    if (!eat(',')) fail("expected ',' or ')' in the returns" + foundText());
                }
            }
        } else {
            s.returns.push_back(ret());
        }
        if (!atEnd()) fail("unexpected text after the returns" + foundText());
    }

private:
    std::string_view t_;
    size_t p_ = 0;
};

// ---- default values

class ValueReader
{
public:
    explicit ValueReader(std::string_view t)
        : t_(t)
    { }
    bool ok = true;

    void skipWs()
    {
        while (p_ < t_.size() && isSpace(t_[p_])) ++p_;
    }
    bool done()
    {
        skipWs();
        return p_ >= t_.size();
    }

    Arg value(std::string_view elemType, int depth = 0)
    {
        skipWs();
        if (p_ >= t_.size() || depth > 32) {
            ok = false;
            return {};
        }
        char c = t_[p_];
        if (c == '[' || c == '(') {
            char close = c == '[' ? ']' : ')';
            ++p_;
            std::vector<Arg> items;
            skipWs();
            if (p_ < t_.size() && t_[p_] == close) {
                ++p_;
            } else {
                while (ok) {
                    items.push_back(value(elemType, depth + 1));
                    skipWs();
                    if (p_ < t_.size() && t_[p_] == ',') {
                        ++p_;
                        skipWs();
                        if (p_ < t_.size() && t_[p_] == close) {  // trailing comma "(1,)"
                            ++p_;
                            break;
                        }
                        continue;
                    }
                    if (p_ < t_.size() && t_[p_] == close) {
                        ++p_;
                        break;
                    }
                    ok = false;
                }
            }
            return c == '[' ? Arg::ofList(std::move(items)) : Arg::ofTuple(std::move(items));
        }
        if (c == '\'' || c == '"') return str(elemType);
        if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.') return number(elemType);
        if (isIdentStart(c)) return word(elemType);
        ok = false;
        return {};
    }

private:
    Arg str(std::string_view elemType)
    {
        char q = t_[p_++];
        std::string s;
        while (p_ < t_.size() && t_[p_] != q) {
            char c = t_[p_++];
            if (c == '\\' && p_ < t_.size()) {
                char e = t_[p_++];
                switch (e) {
                case 'n': s += '\n'; break;
                case 't': s += '\t'; break;
                case 'r': s += '\r'; break;
                default: s += e; break;
                }
            } else {
                s += c;
            }
        }
        if (p_ >= t_.size()) {
            ok = false;
            return {};
        }
        ++p_;
        if (elemType == "Device") return Arg::ofDevice(s);
        return Arg::ofStr(s);
    }

    Arg number(std::string_view elemType)
    {
        size_t b = p_;
        if (t_[p_] == '-' || t_[p_] == '+') ++p_;
        while (p_ < t_.size()
               && (isIdentChar(t_[p_]) || t_[p_] == '.'
                   || ((t_[p_] == '-' || t_[p_] == '+') && (t_[p_ - 1] == 'e' || t_[p_ - 1] == 'E'))))
            ++p_;
        std::string_view s = t_.substr(b, p_ - b);
        if (s.size() > 1 && s[0] == '+') s.remove_prefix(1);
        if (s == "inf" || s == "-inf") return Arg::ofFloat(s[0] == '-' ? -HUGE_VAL : HUGE_VAL);
        bool isFloat = s.find_first_of(".eEn") != std::string_view::npos;
        if (!isFloat) {
            int64_t v = 0;
            auto res = std::from_chars(s.data(), s.data() + s.size(), v);
            if (res.ec == std::errc() && res.ptr == s.data() + s.size())
                return elemType == "float" ? Arg::ofFloat(static_cast<double>(v)) : Arg::ofInt(v);
        }
        double d = 0;
        auto res = std::from_chars(s.data(), s.data() + s.size(), d);
        if (res.ec != std::errc() || res.ptr != s.data() + s.size()) {
            ok = false;
            return {};
        }
        return Arg::ofFloat(d);
    }

    Arg word(std::string_view elemType)
    {
        size_t b = p_;
        while (p_ < t_.size() && (isIdentChar(t_[p_]) || t_[p_] == '.')) ++p_;
        std::string_view w = t_.substr(b, p_ - b);
        if (w.substr(0, 6) == "torch.") w.remove_prefix(6);
        if (w == "None") return Arg::none();
        if (w == "True") return Arg::ofBool(true);
        if (w == "False") return Arg::ofBool(false);
        if (w == "inf") return Arg::ofFloat(HUGE_VAL);
        if (w == "nan") return Arg::ofFloat(std::nan(""));
        // at::Reduction enum spelled in native_functions.yaml
        if (w == "Mean") return Arg::ofInt(1);
        if (w == "Sum") return Arg::ofInt(2);
        if (w == "contiguous_format" || w == "preserve_format" || w == "channels_last" || w == "channels_last_3d")
            return Arg::ofMemoryFormat(std::string(w));
        if (elemType == "Layout" || w == "strided" || w == "sparse_coo" || w == "sparse_csr")
            return Arg::ofLayout(std::string(w));
        if (elemType == "ScalarType" || elemType == "dtype")
            if (auto dt = dtypeFromTorchName(w)) return Arg::ofDType(*dt);
        if (elemType == "Device") return Arg::ofDevice(std::string(w));
        ok = false;
        return {};
    }

    std::string_view t_;
    size_t p_ = 0;
};

std::string formatType(const SchemaArg& a)
{
    if (!a.alias) return a.type;
    size_t e = 0;
    while (e < a.type.size() && (isIdentChar(a.type[e]) || a.type[e] == '.')) ++e;
    if (e < a.type.size() && a.type[e] == '(') {  // generic: alias goes after its parameters
        int depth = 0;
        for (; e < a.type.size(); ++e) {
            if (a.type[e] == '(') ++depth;
            if (a.type[e] == ')' && --depth == 0) {
                ++e;
                break;
            }
        }
    }
    std::string ann = a.alias->set;
    if (a.alias->isWrite) ann += "!";
    if (a.alias->toWildcard) ann += " -> *";
    return a.type.substr(0, e) + "(" + ann + ")" + a.type.substr(e);
}

}  // namespace

std::string Schema::qualifiedName() const
{
    std::string q = ns.empty() ? name : ns + "." + name;
    if (!overload.empty()) q += "." + overload;
    return q;
}

int Schema::argIndex(std::string_view argName) const
{
    for (size_t i = 0; i < args.size(); ++i)
        if (args[i].name == argName) return static_cast<int>(i);
    return -1;
}

Schema parseSchema(std::string_view text, std::string_view ns)
{
    Schema s;
    s.ns = std::string(ns);
    s.text = std::string(text);
    SchemaReader r(text);
    r.header(s);
    r.args(s, false);
    r.returns(s);
    return s;
}

Schema parseSchemaLenient(std::string_view text, std::string_view ns, std::string* why)
{
    try {
        return parseSchema(text, ns);
    } catch (const InputError& e) {
        if (why) *why = e.diagnostic().message + " (column " + std::to_string(e.diagnostic().column) + ")";
    }
    Schema s;
    s.ns = std::string(ns);
    s.text = std::string(text);
    s.informal = true;
    SchemaReader r(text);
    try {
        r.header(s);
    } catch (const InputError&) {
        s.name.clear();
        s.overload.clear();
        s.varargs = true;
        return s;
    }
    try {
        r.args(s, true);
    } catch (const InputError&) {
        s.varargs = true;  // arguments past this point are unknown
        return s;
    }
    try {
        r.returns(s);
    } catch (const InputError&) {
        s.returns.clear();  // return types unknown
    }
    return s;
}

std::string formatSchema(const Schema& s)
{
    std::string out = s.name;
    if (!s.overload.empty() && s.overload != "default") out += "." + s.overload;
    out += "(";
    bool first = true;
    auto sep = [&] {
        if (!first) out += ", ";
        first = false;
    };
    auto one = [&](const SchemaArg& a) {
        sep();
        out += formatType(a) + " " + a.name;
        if (a.defaultText) out += "=" + *a.defaultText;
    };
    for (const auto& a : s.args)
        if (!a.kwargOnly) one(a);
    bool anyKw = std::any_of(s.args.begin(), s.args.end(), [](const SchemaArg& a) { return a.kwargOnly; });
    if (s.varargs) {
        sep();
        out += "*args";
    } else if (anyKw) {
        sep();
        out += "*";
    }
    for (const auto& a : s.args)
        if (a.kwargOnly) one(a);
    out += ") -> ";
    bool named = std::any_of(s.returns.begin(), s.returns.end(), [](const SchemaArg& a) { return !a.name.empty(); });
    if (s.returns.size() == 1 && !named) return out + formatType(s.returns[0]);
    out += "(";
    for (size_t i = 0; i < s.returns.size(); ++i) {
        if (i) out += ", ";
        out += formatType(s.returns[i]);
        if (!s.returns[i].name.empty()) out += " " + s.returns[i].name;
    }
    return out + ")";
}

Arg parseDefaultValue(const SchemaArg& a)
{
    if (!a.defaultText) return Arg::none();
    const std::string& text = *a.defaultText;
    std::string type = a.type;
    while (!type.empty() && type.back() == '?') type.pop_back();
    bool isList = false;
    size_t listLen = 1;
    if (!type.empty() && type.back() == ']') {
        auto lb = type.rfind('[');
        if (lb != std::string::npos) {
            isList = true;
            std::string digits = type.substr(lb + 1, type.size() - lb - 2);
            size_t n = 0;
            if (!digits.empty() && digits.size() < 4) {
                std::from_chars(digits.data(), digits.data() + digits.size(), n);
            }
            listLen = n > 0 ? n : 1;
            type = type.substr(0, lb);
            while (!type.empty() && type.back() == '?') type.pop_back();
        }
    }
    ValueReader r(text);
    Arg v = r.value(type);
    if (!r.ok || !r.done()) return Arg::ofRaw(text);
    // "int[2] stride=1": a scalar default of a fixed-size list repeats
    if (isList && !v.isNone() && !v.isSequence()) return Arg::ofList(std::vector<Arg>(listLen, v));
    return v;
}

}  // namespace fxl

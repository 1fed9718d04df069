#include "core/formats/fx/py_lexer.hpp"
#include "core/util/strings.hpp"

#include <cstring>
#include <unordered_set>

namespace fxl {

namespace {

inline bool isDigit(unsigned char c) { return c >= '0' && c <= '9'; }

const char* closerFor(char open) { return open == '(' ? ")" : open == '[' ? "]" : "}"; }

// Length of the string prefix (r, b, u, f, rb, br, fr, rf in any case) before a quote, or
// -1 when the name at `p` is not a string prefix.
int stringPrefixLength(std::string_view t, uint32_t p)
{
    size_t n = 0;
    while (n < 2 && p + n < t.size()) {
        char c = static_cast<char>(t[p + n] | 0x20);
        if (c == 'r' || c == 'b' || c == 'u' || c == 'f')
            ++n;
        else
            break;
    }
    if (n == 0 || p + n >= t.size()) return -1;
    if (t[p + n] == '\'' || t[p + n] == '"') return static_cast<int>(n);
    return -1;
}

}  // namespace

PyLexer::PyLexer(std::string_view text)
    : text_(text)
{
    brackets_.reserve(16);
    if (text_.starts_with("\xEF\xBB\xBF")) pos_ = lineBegin_ = 3;  // UTF-8 byte order mark
}

void PyLexer::fail(uint32_t offset, std::string msg) const { throw LexError{offset, std::move(msg)}; }

void PyLexer::newline(uint32_t nlOffset)
{
    ++line_;
    lineBegin_ = nlOffset + 1;
    atPhysLineStart_ = true;
}

Token PyLexer::make(TokKind k, uint32_t b, uint32_t e, bool lineStart) const
{
    Token t;
    t.kind = k;
    t.begin = b;
    t.end = e;
    t.lineStart = lineStart;
    t.line = line_;
    t.col = static_cast<int32_t>(b - lineBegin_);
    return t;
}

void PyLexer::locate(uint32_t offset, int* line, int* col) const
{
    if (offset > text_.size()) offset = static_cast<uint32_t>(text_.size());
    int l = 0;
    uint32_t lb = 0;
    const char* base = text_.data();
    const char* p = base;
    const char* stop = base + offset;
    while (p < stop) {
        const void* nl = std::memchr(p, '\n', static_cast<size_t>(stop - p));
        if (!nl) break;
        p = static_cast<const char*>(nl) + 1;
        ++l;
        lb = static_cast<uint32_t>(p - base);
    }
    // column in characters: count bytes that are not UTF-8 continuation bytes
    int c = 0;
    for (uint32_t k = lb; k < offset; ++k)
        if ((static_cast<unsigned char>(text_[k]) & 0xC0) != 0x80) ++c;
    *line = l;
    *col = c;
}

uint32_t PyLexer::scanString(uint32_t b)
{
    uint32_t p = b;
    while (text_[p] != '\'' && text_[p] != '"') ++p;  // prefix
    const char q = text_[p];
    const uint32_t n = static_cast<uint32_t>(text_.size());
    const bool triple = p + 2 < n && text_[p + 1] == q && text_[p + 2] == q;
    if (triple) {
        p += 3;
        for (;;) {
            if (p >= n) fail(b, "unterminated triple-quoted string literal");
            char c = text_[p];
            if (c == '\\') {
                if (p + 1 < n && text_[p + 1] == '\n') newline(p + 1);
                p += 2;
                continue;
            }
            if (c == '\n')
                newline(p);
            else if (c == q && p + 2 < n && text_[p + 1] == q && text_[p + 2] == q)
                return p + 3;
            ++p;
        }
    }
    ++p;
    for (;;) {
        if (p >= n) fail(b, "unterminated string literal");
        char c = text_[p];
        if (c == '\\') {
            if (p + 1 >= n) fail(b, "unterminated string literal");
            if (text_[p + 1] == '\n')
                newline(p + 1);
            else if (text_[p + 1] == '\r' && p + 2 < n && text_[p + 2] == '\n') {
                newline(p + 2);
                ++p;
            }
            p += 2;
            continue;
        }
        if (c == '\n' || c == '\r')
            fail(b, "unterminated string literal (expected a closing " + std::string(1, q) + " on this line)");
        if (c == q) return p + 1;
        ++p;
    }
}

uint32_t PyLexer::scanNumber(uint32_t b, bool* isFloat)
{
    const uint32_t n = static_cast<uint32_t>(text_.size());
    uint32_t p = b;
    *isFloat = false;
    if (text_[p] == '0' && p + 1 < n && text_[p + 1] != '\0' && std::strchr("xXoObB", text_[p + 1])) {
        p += 2;
        while (p < n && (isPythonIdentifierChar(text_[p]))) ++p;
        return p;
    }
    while (p < n && (isDigit(static_cast<unsigned char>(text_[p])) || text_[p] == '_')) ++p;
    if (p < n && text_[p] == '.') {
        *isFloat = true;
        ++p;
        while (p < n && (isDigit(static_cast<unsigned char>(text_[p])) || text_[p] == '_')) ++p;
    }
    if (p < n && (text_[p] == 'e' || text_[p] == 'E')) {
        uint32_t q = p + 1;
        if (q < n && (text_[q] == '+' || text_[q] == '-')) ++q;
        if (q < n && isDigit(static_cast<unsigned char>(text_[q]))) {
            *isFloat = true;
            p = q;
            while (p < n && isDigit(static_cast<unsigned char>(text_[p]))) ++p;
        } else {
            fail(p, "invalid number literal: expected digits after the exponent");
        }
    }
    if (p < n && (text_[p] == 'j' || text_[p] == 'J')) {
        *isFloat = true;  // complex literal; the parser keeps it verbatim
        ++p;
    }
    if (p < n && isPythonIdentifierChar(text_[p])) fail(p, "invalid number literal");
    return p;
}

Token PyLexer::next()
{
    const uint32_t n = static_cast<uint32_t>(text_.size());
    bool sawTab = false;
    uint32_t tabAt = 0;
    for (;;) {
        if (pos_ >= n) return endOfText();
        const char c = text_[pos_];
        if (c == ' ' || c == '\f') {
            ++pos_;
            continue;
        }
        if (c == '\t') {
            if (atPhysLineStart_ && !sawTab) {
                sawTab = true;
                tabAt = pos_;
            }
            ++pos_;
            continue;
        }
        if (c == '\r') {
            ++pos_;
            continue;
        }
        if (c == '\n') {
            const uint32_t at = pos_;
            ++pos_;
            sawTab = false;
            if (brackets_.empty() && lineHasCode_) {
                lineHasCode_ = false;
                Token t = make(TokKind::Newline, at, at + 1, false);
                newline(at);
                return t;
            }
            newline(at);
            continue;
        }
        if (c == '\\' && pos_ + 1 < n
            && (text_[pos_ + 1] == '\n' || (text_[pos_ + 1] == '\r' && pos_ + 2 < n && text_[pos_ + 2] == '\n'))) {
            uint32_t nl = text_[pos_ + 1] == '\n' ? pos_ + 1 : pos_ + 2;
            pos_ = nl + 1;
            newline(nl);
            atPhysLineStart_ = false;  // a continuation line is not a new statement
            continue;
        }
        const bool lineStart = atPhysLineStart_;
        atPhysLineStart_ = false;
        const uint32_t b = pos_;
        if (c == '#') {
            uint32_t e = b;
            while (e < n && text_[e] != '\n') ++e;
            uint32_t te = e;
            while (te > b && text_[te - 1] == '\r') --te;
            pos_ = e;
            return make(TokKind::Comment, b, te, lineStart);
        }
        if (lineStart && sawTab && brackets_.empty())
            fail(tabAt,
                 "tab character in indentation (FX text is indented with spaces; strip the TAB of TORCH_TRACE payload "
                 "lines)");
        lineHasCode_ = true;
        const unsigned char uc = static_cast<unsigned char>(c);
        if (isPythonIdentifierStart(c)) {
            int pl = stringPrefixLength(text_, b);
            if (pl > 0) {
                Token t = make(TokKind::String, b, b, lineStart);
                pos_ = scanString(b);
                t.end = pos_;
                return t;
            }
            uint32_t e = b + 1;
            while (e < n && isPythonIdentifierChar(text_[e])) ++e;
            pos_ = e;
            return make(TokKind::Name, b, e, lineStart);
        }
        if (isDigit(uc) || (c == '.' && pos_ + 1 < n && isDigit(static_cast<unsigned char>(text_[pos_ + 1])))) {
            bool isFloat = false;
            uint32_t e = scanNumber(b, &isFloat);
            pos_ = e;
            return make(isFloat ? TokKind::Float : TokKind::Int, b, e, lineStart);
        }
        if (c == '\'' || c == '"') {
            // line/col of the token are those of its start: compute before scanning newlines
            Token t = make(TokKind::String, b, b, lineStart);
            pos_ = scanString(b);
            t.end = pos_;
            return t;
        }
        if (c == '(' || c == '[' || c == '{' || c == ')' || c == ']' || c == '}') return bracket(b, lineStart);
        if (uint32_t length = operatorLength(b)) {
            pos_ += length;
            return make(TokKind::Op, b, b + length, lineStart);
        }
        failUnexpectedCharacter(b);
    }
}

Token PyLexer::endOfText()
{
    const uint32_t n = static_cast<uint32_t>(text_.size());
    if (!brackets_.empty()) {
        char open = text_[brackets_.back()];
        fail(brackets_.back(), std::string("'") + open + "' was never closed (expected '" + closerFor(open) + "')");
    }
    if (lineHasCode_) {
        lineHasCode_ = false;
        return make(TokKind::Newline, n, n, false);
    }
    return make(TokKind::End, n, n, false);
}

Token PyLexer::bracket(uint32_t b, bool lineStart)
{
    const char c = text_[b];
    if (c == '(' || c == '[' || c == '{') {
        brackets_.push_back(b);
        ++pos_;
        return make(TokKind::Op, b, b + 1, lineStart);
    }
    if (brackets_.empty()) fail(b, std::string("unmatched '") + c + "'");
    char open = text_[brackets_.back()];
    if (*closerFor(open) != c) {
        int openLine, openColumn;
        locate(brackets_.back(), &openLine, &openColumn);
        std::string where = openLine == line_ ? "" : " opened " + std::to_string(line_ - openLine) + " line(s) above";
        fail(b,
             std::string("closing '") + c + "' does not match '" + open + "'" + where + " (expected '" + closerFor(open)
                 + "')");
    }
    brackets_.pop_back();
    ++pos_;
    return make(TokKind::Op, b, b + 1, lineStart);
}

uint32_t PyLexer::operatorLength(uint32_t b) const
{
    // longest match, decided on the first two or three bytes
    const uint32_t n = static_cast<uint32_t>(text_.size());
    const char c = text_[b];
    const char c1 = b + 1 < n ? text_[b + 1] : '\0';
    const char c2 = b + 2 < n ? text_[b + 2] : '\0';
    switch (c) {
    case '*':
    case '/':
    case '<':
    case '>':
        if (c1 == c) return c2 == '=' ? 3 : 2;
        return c1 == '=' ? 2 : 1;
    case '.': return (c1 == '.' && c2 == '.') ? 3 : 1;
    case '-': return (c1 == '>' || c1 == '=') ? 2 : 1;
    case '=':
    case ':':
    case '+':
    case '%':
    case '&':
    case '|':
    case '^':
    case '@': return c1 == '=' ? 2 : 1;
    case '!': return c1 == '=' ? 2 : 0;
    case '~':
    case ',':
    case ';': return 1;
    default: return 0;
    }
}

void PyLexer::failUnexpectedCharacter(uint32_t b) const
{
    const char c = text_[b];
    const unsigned char uc = static_cast<unsigned char>(c);
    if (uc >= 0x80) fail(b, "unexpected non-ASCII character outside a string or comment");
    if (uc < 0x20 || uc == 0x7f) fail(b, "unexpected control character");
    fail(b, std::string("unexpected character '") + c + "'");
}

std::string_view PyLexer::scanRawAnnotation(bool inParams, uint32_t* beginOut)
{
    const uint32_t n = static_cast<uint32_t>(text_.size());
    while (pos_ < n && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
    const uint32_t b = pos_;
    std::vector<uint32_t> local;
    uint32_t p = b;
    for (; p < n; ++p) {
        char c = text_[p];
        if (c == '\n' || c == '\r') break;
        if (c == '(' || c == '[' || c == '{') {
            local.push_back(p);
            continue;
        }
        if (c == ')' || c == ']' || c == '}') {
            if (local.empty()) {
                if (inParams && c == ')') break;
                fail(p, std::string("unmatched '") + c + "' in annotation");
            }
            if (*closerFor(text_[local.back()]) != c)
                fail(p, std::string("closing '") + c + "' does not match '" + text_[local.back()] + "' in annotation");
            local.pop_back();
            continue;
        }
        if (!local.empty()) continue;
        if (c == '#' || c == ';') break;
        if (inParams && c == ',') break;
        if (c == '=') {
            bool partOfOp = (p + 1 < n && text_[p + 1] == '=') || (p > b && std::strchr("<>!=", text_[p - 1]));
            if (!partOfOp) break;
            if (p + 1 < n && text_[p + 1] == '=') ++p;
        }
    }
    if (!local.empty()) fail(local.back(), std::string("'") + text_[local.back()] + "' in annotation was never closed");
    uint32_t e = p;
    while (e > b && (text_[e - 1] == ' ' || text_[e - 1] == '\t')) --e;
    pos_ = e;
    lineHasCode_ = true;
    atPhysLineStart_ = false;
    *beginOut = b;
    return text_.substr(b, e - b);
}

bool isPythonIdentifier(std::string_view s)
{
    if (s.empty() || !isPythonIdentifierStart(s[0])) return false;
    for (char c : s)
        if (!isPythonIdentifierChar(c)) return false;
    return true;
}

namespace {

int hexValue(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    c = static_cast<char>(c | 0x20);
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

struct StringParts
{
    size_t prefixLen;
    size_t quoteLen;
    bool raw;
};

StringParts stringParts(std::string_view tok)
{
    StringParts p{0, 1, false};
    while (p.prefixLen < tok.size() && tok[p.prefixLen] != '\'' && tok[p.prefixLen] != '"') {
        if ((tok[p.prefixLen] | 0x20) == 'r') p.raw = true;
        ++p.prefixLen;
    }
    if (tok.size() >= p.prefixLen + 6 && tok[p.prefixLen + 1] == tok[p.prefixLen]
        && tok[p.prefixLen + 2] == tok[p.prefixLen])
        p.quoteLen = 3;
    return p;
}

}  // namespace

bool isPythonBuiltinFunctionName(std::string_view n)
{
    static const std::unordered_set<std::string_view> names = {
        "getattr", "setattr", "hasattr",  "len",       "isinstance", "int",   "float", "bool",  "str",
        "abs",     "min",     "max",      "sum",       "range",      "tuple", "list",  "dict",  "round",
        "divmod",  "pow",     "all",      "any",       "print",      "type",  "iter",  "next",  "zip",
        "map",     "sorted",  "reversed", "enumerate", "id",         "hash",  "repr",  "slice", "set"};
    return names.count(n) != 0;
}

std::string_view pyStringContent(std::string_view tok)
{
    StringParts p = stringParts(tok);
    size_t b = p.prefixLen + p.quoteLen;
    if (tok.size() < b + p.quoteLen) return {};
    return tok.substr(b, tok.size() - b - p.quoteLen);
}

bool pyStringIsPlain(std::string_view tok)
{
    StringParts p = stringParts(tok);
    return p.raw || pyStringContent(tok).find('\\') == std::string_view::npos;
}

std::string decodePyString(std::string_view tok)
{
    StringParts parts = stringParts(tok);
    std::string_view body = pyStringContent(tok);
    const size_t base = parts.prefixLen + parts.quoteLen;
    if (parts.raw || body.find('\\') == std::string_view::npos) return std::string(body);
    std::string out;
    out.reserve(body.size());
    for (size_t i = 0; i < body.size(); ++i) {
        char c = body[i];
        if (c != '\\') {
            out += c;
            continue;
        }
        if (i + 1 >= body.size()) {
            out += c;
            break;
        }
        char e = body[++i];
        switch (e) {
        case '\n': break;
        case '\r':
            if (i + 1 < body.size() && body[i + 1] == '\n') ++i;
            break;
        case '\\': out += '\\'; break;
        case '\'': out += '\''; break;
        case '"': out += '"'; break;
        case 'a': out += '\a'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'v': out += '\v'; break;
        case 'x':
        case 'u':
        case 'U': {
            size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
            uint32_t cp = 0;
            for (size_t k = 0; k < digits; ++k) {
                int h = i + 1 + k < body.size() ? hexValue(body[i + 1 + k]) : -1;
                if (h < 0)
                    throw LexError{static_cast<uint32_t>(base + i - 1),
                                   std::string("truncated \\") + e + " escape: expected " + std::to_string(digits)
                                       + " hex digits"};
                cp = cp * 16 + static_cast<uint32_t>(h);
            }
            if (cp > 0x10FFFF)
                throw LexError{static_cast<uint32_t>(base + i - 1), "illegal Unicode character in \\U escape"};
            i += digits;
            appendUtf8(out, cp);
            break;
        }
        default:
            if (e >= '0' && e <= '7') {
                uint32_t cp = static_cast<uint32_t>(e - '0');
                for (int k = 0; k < 2 && i + 1 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '7'; ++k)
                    cp = cp * 8 + static_cast<uint32_t>(body[++i] - '0');
                appendUtf8(out, cp);
            } else {
                // unknown escapes (and \N{...}) stay as written, like Python does
                out += '\\';
                out += e;
            }
        }
    }
    return out;
}

}  // namespace fxl

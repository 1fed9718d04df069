#include "core/formats/fx/fx_value_parser.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>

#include "core/formats/fx/torch_names.hpp"
#include "core/ir/tensor_meta.hpp"

namespace fxl {

NodeId FxValueParser::requireNode(const Token& t) const
{
    NodeId id = lookup(t);
    if (id == kNoNode) fail(t.begin, "undefined name '" + std::string(text(t)) + "'");
    return id;
}

// ==================================================================== annotations

FxValueParser::AnnotationText FxValueParser::parseAnnotationAfterColon(bool inParams)
{
    AnnotationText annotation;
    annotation.present = true;
    // Decide from the raw text whether a quoted annotation follows: the unquoted kind is read
    // by a raw scan from the lexer position, so nothing may have been lexed ahead.
    if (hasLookahead()) fail(peekAny().begin, "internal: unexpected lookahead before an annotation");
    uint32_t start = lex_.position();
    while (start < text_.size() && (text_[start] == ' ' || text_[start] == '\t')) ++start;
    const bool quoted = start < text_.size() && (text_[start] == '"' || text_[start] == '\'');
    if (quoted) {
        Token t = next();
        std::string_view literal = text(t);
        annotation.quoted = true;
        std::string_view content = pyStringContent(literal);
        annotation.offset = static_cast<uint32_t>(t.begin + (content.data() - literal.data()));
        if (pyStringIsPlain(literal)) {
            annotation.text = content;
        } else {
            try {
                annotation.decoded = decodePyString(literal);
            } catch (const LexError& e) {
                fail(t.begin + e.offset, e.message);
            }
            annotation.text = annotation.decoded;
        }
        return annotation;
    }
    uint32_t begin = 0;
    annotation.text = lex_.scanRawAnnotation(inParams, &begin);
    annotation.offset = begin;
    if (annotation.text.empty()) fail(begin, "expected an annotation after ':'");
    return annotation;
}

void FxValueParser::applyAnnotation(const AnnotationText& annotation, ValueMeta* val, std::string* typeExpr)
{
    if (!annotation.present) return;
    std::string_view written = annotation.text;
    const uint32_t at = annotation.offset;
    bool looksLikeMeta = annotation.quoted;
    if (!annotation.quoted) {
        // old unquoted style: "f32[s0, 3]", "Sym(s0 > 4)"; anything else is a Python type ("torch.Tensor")
        size_t k = 0;
        while (k < written.size() && isPythonIdentifierChar(written[k])) ++k;
        std::string_view head = written.substr(0, k);
        if (k < written.size() && written[k] == '[' && dtypeFromAbbr(head)) looksLikeMeta = true;
        if (k < written.size() && written[k] == '(' && head == "Sym") looksLikeMeta = true;
        if (!looksLikeMeta) {
            *typeExpr = std::string(written);
            return;
        }
    }
    try {
        *val = parseAnnotation(written);
        return;
    } catch (const InputError& e) {
        int column = e.diagnostic().column;
        uint32_t offset = at + static_cast<uint32_t>(column > 0 ? column - 1 : 0);
        if (!annotation.quoted || !annotation.decoded.empty()) offset = at;
        const uint32_t where = std::min<uint32_t>(offset, at + static_cast<uint32_t>(written.size()));
        if (!annotation.quoted) fail(where, "malformed annotation: " + e.diagnostic().message);
        warn(where, "annotation not understood, kept verbatim: " + e.diagnostic().message);
    } catch (const std::exception& e) {
        if (!annotation.quoted) fail(at, std::string("malformed annotation: ") + e.what());
        warn(at, std::string("annotation not understood, kept verbatim: ") + e.what());
    }
    ValueMeta opaque;
    opaque.kind = ValueMeta::Kind::Opaque;
    opaque.opaqueText = std::string(written);
    *val = std::move(opaque);
}

// ==================================================================== values

Arg FxValueParser::parseValue(std::vector<std::string>* descs)
{
    Token t = next();
    DepthGuard guard(valueDepth_, *this, t.begin);
    switch (t.kind) {
    case TokKind::Int:
    case TokKind::Float: return parseNumber(t, false);
    case TokKind::String: return parseString(t);
    case TokKind::Name: return parseNameValue(t);
    case TokKind::Op: {
        std::string_view op = text(t);
        if (op == "-" || op == "+") return parseSignedNumber(t);
        if (op == "...") {
            Arg a;
            a.kind = Arg::Kind::Ellipsis;
            return a;
        }
        if (op == "(" || op == "[") return parseSequence(t, descs);
        if (op == "{") return parseDict();
        failAt(t, "expected a value");
    }
    default: failAt(t, "expected a value");
    }
}

Arg FxValueParser::parseNumber(const Token& t, bool negative)
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

// "-1", "+2.5", "-inf", "nan" after a unary sign (`sign` consumed).
Arg FxValueParser::parseSignedNumber(const Token& sign)
{
    const bool negative = text(sign) == "-";
    Token number = next();
    if (number.kind == TokKind::Int || number.kind == TokKind::Float) return parseNumber(number, negative);
    constexpr double kInf = std::numeric_limits<double>::infinity();
    if (isName(number, "inf")) return Arg::ofFloat(negative ? -kInf : kInf);
    if (isName(number, "nan")) return Arg::ofFloat(std::numeric_limits<double>::quiet_NaN());
    failAt(number, std::string("expected a number after unary '") + std::string(text(sign)) + "'");
}

// Adjacent string literals are one string, as in Python.
Arg FxValueParser::parseString(Token first)
{
    std::string s;
    Token t = first;
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

Arg FxValueParser::parseNameValue(const Token& name)
{
    std::string_view word = text(name);
    if (word == "None") return Arg::none();
    if (word == "True") return Arg::ofBool(true);
    if (word == "False") return Arg::ofBool(false);
    if (word == "inf") return Arg::ofFloat(std::numeric_limits<double>::infinity());
    if (word == "nan") return Arg::ofFloat(std::numeric_limits<double>::quiet_NaN());
    if (word == "Ellipsis") {
        Arg a;
        a.kind = Arg::Kind::Ellipsis;
        return a;
    }
    Token after = peek();
    if (nodeNames_) {
        NodeId id = lookup(name);
        if (id != kNoNode && !isOp(after, "(")) {
            if (isOp(after, ".") || isOp(after, "["))
                failAt(after, "expected ',' or a closing bracket after the node name '" + std::string(word) + "'");
            return Arg::ofNode(id);
        }
    }
    if (word == "device" && isOp(after, "(")) return parseDevice(name);
    if (word == "slice" && isOp(after, "(")) return parseSlice();
    if (word == "torch" && isOp(after, ".")) return parseTorchPath(name);
    if (isOp(after, ".") || isOp(after, "(")) return parseRawPrimary(name);
    fail(name.begin, "undefined name '" + std::string(word) + "'");
}

// After '(' or '[' (`open`): a tuple or a list, or a parenthesized value.
Arg FxValueParser::parseSequence(const Token& open, std::vector<std::string>* descs)
{
    const bool tuple = isOp(open, "(");
    const char* close = tuple ? ")" : "]";
    std::vector<Arg> items;
    bool comma = false;
    std::vector<std::string> itemDescs;
    bool anyDesc = false;
    for (;;) {
        if (isOp(peek(), close)) break;
        items.push_back(parseValue());
        if (descs) itemDescs.emplace_back();
        Token sep = peek();
        if (!isOp(sep, ",")) break;
        next();
        comma = true;
        if (descs) {
            itemDescs.back() = trailingDesc(sep);
            anyDesc = anyDesc || !itemDescs.back().empty();
        }
    }
    Token closer = next();
    if (!isOp(closer, close)) failAt(closer, std::string("expected ',' or '") + close + "'");
    if (tuple && items.size() == 1 && !comma) return std::move(items[0]);  // parenthesized value
    if (descs && anyDesc) *descs = std::move(itemDescs);
    return tuple ? Arg::ofTuple(std::move(items)) : Arg::ofList(std::move(items));
}

// After '{'.
Arg FxValueParser::parseDict()
{
    Arg dict;
    dict.kind = Arg::Kind::Dict;
    for (;;) {
        if (isOp(peek(), "}")) break;
        Arg key = parseValue();
        expectOp(":", "in a dict");
        Arg value = parseValue();
        dict.dict.emplace_back(std::move(key), std::move(value));
        if (!isOp(peek(), ",")) break;
        next();
    }
    Token closer = next();
    if (!isOp(closer, "}")) failAt(closer, "expected ',' or '}'");
    return dict;
}

// "slice(start, stop, step)" after 'slice'; one argument is the stop.
Arg FxValueParser::parseSlice()
{
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
    Arg slice;
    slice.kind = Arg::Kind::Slice;
    slice.items = std::move(items);
    return slice;
}

Arg FxValueParser::parseDevice(Token nameTok)
{
    expectOp("(");
    std::string type;
    std::optional<int64_t> index;
    int position = 0;
    for (;;) {
        Token argument = peek();
        if (isOp(argument, ")")) {
            next();
            break;
        }
        std::string_view key;
        if (argument.kind == TokKind::Name && isOp(peek(1), "=")) {
            key = text(argument);
            next();
            next();
        }
        Arg value = parseValue();
        if (key == "type" || (key.empty() && position == 0)) {
            if (value.kind != Arg::Kind::Str) fail(argument.begin, "expected a device type string");
            type = value.s;
        } else if (key == "index" || (key.empty() && position == 1)) {
            if (value.kind == Arg::Kind::Int)
                index = value.i;
            else if (value.kind != Arg::Kind::None)
                fail(argument.begin, "expected a device index");
        } else {
            fail(argument.begin, "unexpected device() argument");
        }
        ++position;
        Token sep = next();
        if (isOp(sep, ")")) break;
        if (!isOp(sep, ",")) failAt(sep, "expected ',' or ')' in device()");
    }
    if (type.empty()) fail(nameTok.begin, "device() without a type");
    if (index && type.find(':') == std::string::npos) type += ":" + std::to_string(*index);
    return Arg::ofDevice(std::move(type));
}

Arg FxValueParser::parseRawPrimary(Token first)
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
            end = lastConsumed().end;
        } else {
            break;
        }
    }
    return Arg::ofRaw(std::string(text_.substr(first.begin, end - first.begin)));
}

Arg FxValueParser::parseTorchPath(Token first)
{
    Token last;
    std::string path = parseDottedName(first, &last);
    if (isOp(peek(), "(")) {
        // torch.Tensor(size=[2], dtype=float32) and other calls as values: verbatim
        Token open = next();
        skipBalanced(open);
        uint32_t end = lastConsumed().end;
        return Arg::ofRaw(std::string(text_.substr(first.begin, end - first.begin)));
    }
    if (auto value = torchValueFromName(path)) return std::move(*value);
    return Arg::ofRaw(std::move(path));
}

void FxValueParser::parseCallArgs(Node& n)
{
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

Arg FxValueParser::parseSubscript(const Token& open)
{
    std::vector<Arg> indices;
    bool comma = false;
    for (;;) {
        if (isOp(peek(), "]")) break;
        indices.push_back(parseValue());
        if (!isOp(peek(), ",")) break;
        next();
        comma = true;
    }
    expectOp("]");
    if (indices.empty()) fail(open.begin, "empty subscript");
    return indices.size() == 1 && !comma ? std::move(indices[0]) : Arg::ofTuple(std::move(indices));
}

}  // namespace fxl

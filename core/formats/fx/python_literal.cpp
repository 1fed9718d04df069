#include "core/formats/fx/python_literal.hpp"

#include <charconv>

#include "core/formats/fx/py_lexer.hpp"
#include "core/ir/argument.hpp"

namespace fxl {

namespace {

constexpr int kMaxLiteralDepth = 64;

bool isOpToken(const PyLexer& lexer, const Token& t, std::string_view op)
{
    return t.kind == TokKind::Op && lexer.tokenText(t) == op;
}

bool readLiteral(PyLexer& lexer, Token t, nlohmann::json& out, int depth);

// The next token that is not a comment, read as a literal.
bool readNextLiteral(PyLexer& lexer, nlohmann::json& out, int depth)
{
    Token t = lexer.next();
    while (t.kind == TokKind::Comment) t = lexer.next();
    return readLiteral(lexer, t, out, depth);
}

// "[a, b]" / "(a, b)" after the opening bracket.
bool readSequence(PyLexer& lexer, std::string_view close, nlohmann::json& out, int depth)
{
    out = nlohmann::json::array();
    for (;;) {
        Token item = lexer.next();
        if (isOpToken(lexer, item, close)) return true;
        nlohmann::json value;
        if (!readLiteral(lexer, item, value, depth + 1)) return false;
        out.push_back(std::move(value));
        Token sep = lexer.next();
        if (isOpToken(lexer, sep, close)) return true;
        if (!isOpToken(lexer, sep, ",")) return false;
    }
}

// "{k: v, ...}" after '{'.
bool readDict(PyLexer& lexer, nlohmann::json& out, int depth)
{
    out = nlohmann::json::object();
    for (;;) {
        Token keyToken = lexer.next();
        if (isOpToken(lexer, keyToken, "}")) return true;
        nlohmann::json key;
        if (!readLiteral(lexer, keyToken, key, depth + 1)) return false;
        if (!isOpToken(lexer, lexer.next(), ":")) return false;
        nlohmann::json value;
        if (!readNextLiteral(lexer, value, depth + 1)) return false;
        out[key.is_string() ? key.get<std::string>() : key.dump()] = std::move(value);
        Token sep = lexer.next();
        if (isOpToken(lexer, sep, "}")) return true;
        if (!isOpToken(lexer, sep, ",")) return false;
    }
}

bool readLiteral(PyLexer& lexer, Token t, nlohmann::json& out, int depth)
{
    if (depth > kMaxLiteralDepth) return false;
    std::string_view s = lexer.tokenText(t);
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
            Token number = lexer.next();
            nlohmann::json v;
            if ((number.kind != TokKind::Int && number.kind != TokKind::Float)
                || !readLiteral(lexer, number, v, depth + 1))
                return false;
            if (v.is_number_integer())
                out = -v.get<int64_t>();
            else
                out = -v.get<double>();
            return true;
        }
        if (s == "[") return readSequence(lexer, "]", out, depth);
        if (s == "(") return readSequence(lexer, ")", out, depth);
        if (s == "{") return readDict(lexer, out, depth);
        return false;
    }
    default: return false;
    }
}

}  // namespace

std::optional<nlohmann::json> jsonFromPythonLiteral(std::string_view text)
{
    nlohmann::json out;
    try {
        PyLexer lexer(text);
        if (!readNextLiteral(lexer, out, 0)) return std::nullopt;
        Token end = lexer.next();
        while (end.kind == TokKind::Newline) end = lexer.next();
        if (end.kind != TokKind::End) return std::nullopt;
    } catch (const LexError&) {
        return std::nullopt;
    }
    return out;
}

std::string pythonReprOfJson(const nlohmann::json& j)
{
    switch (j.type()) {
    case nlohmann::json::value_t::null: return "None";
    case nlohmann::json::value_t::boolean: return j.get<bool>() ? "True" : "False";
    case nlohmann::json::value_t::number_integer: return std::to_string(j.get<int64_t>());
    case nlohmann::json::value_t::number_unsigned: return std::to_string(j.get<uint64_t>());
    case nlohmann::json::value_t::number_float: return pythonFloatRepr(j.get<double>());
    case nlohmann::json::value_t::string: return pythonStrRepr(j.get<std::string>());
    case nlohmann::json::value_t::array: {
        std::string s = "[";
        bool first = true;
        for (const auto& e : j) {
            if (!first) s += ", ";
            first = false;
            s += pythonReprOfJson(e);
        }
        return s + "]";
    }
    case nlohmann::json::value_t::object: {
        std::string s = "{";
        bool first = true;
        for (auto it = j.begin(); it != j.end(); ++it) {
            if (!first) s += ", ";
            first = false;
            s += pythonStrRepr(it.key()) + ": " + pythonReprOfJson(it.value());
        }
        return s + "}";
    }
    default: return "None";
    }
}

}  // namespace fxl

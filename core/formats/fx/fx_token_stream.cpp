#include "core/formats/fx/fx_token_stream.hpp"

#include "core/formats/utf8.hpp"

namespace fxl {

void FxTokenStream::checkTextSize() const
{
    if (text_.size() >= 0xFFFFFFF0u)
        throw InputError(file_, firstLine_, 1 + columnOffset_, "text too large (over 4 GiB)");
}

void FxTokenStream::checkEncoding() const
{
    size_t bad = firstInvalidUtf8(text_, NulByte::Invalid);
    if (bad != std::string_view::npos)
        fail(static_cast<uint32_t>(bad), text_[bad] == '\0' ? "NUL byte in text" : "invalid UTF-8 byte sequence");
}

InputError FxTokenStream::inputError(const LexError& e) const
{
    int line, column;
    lex_.locate(e.offset, &line, &column);
    return InputError(file_, firstLine_ + line, column + 1 + columnOffset_, e.message);
}

int FxTokenStream::fileLine(uint32_t offset) const
{
    int line, column;
    lex_.locate(offset, &line, &column);
    return firstLine_ + line;
}

void FxTokenStream::failAt(const Token& t, const std::string& expected) const
{
    // A statement found inside brackets, no deeper indented than the line that opened them:
    // the real error is the bracket that was never closed (what Python reports too).
    if (t.lineStart && lex_.bracketDepth() > 0 && t.kind != TokKind::End) {
        uint32_t open = lex_.innermostBracket();
        if (open < t.begin) {
            uint32_t lineStart = open;
            while (lineStart > 0 && text_[lineStart - 1] != '\n') --lineStart;
            int indent = 0;
            while (lineStart + static_cast<uint32_t>(indent) < text_.size()
                   && text_[lineStart + static_cast<uint32_t>(indent)] == ' ')
                ++indent;
            if (t.col <= indent) fail(open, std::string("'") + text_[open] + "' was never closed");
        }
    }
    fail(t.begin, expected + ", found " + describe(t));
}

std::string FxTokenStream::describe(const Token& t) const
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

void FxTokenStream::note(uint32_t offset, const std::string& msg)
{
    if (!diags_) return;
    int line, column;
    lex_.locate(offset, &line, &column);
    diags_->note(file_, firstLine_ + line, column + 1 + columnOffset_, msg);
}

void FxTokenStream::warn(uint32_t offset, const std::string& msg)
{
    if (!diags_) return;
    int line, column;
    lex_.locate(offset, &line, &column);
    diags_->warn(file_, firstLine_ + line, column + 1 + columnOffset_, msg);
}

FxTokenStream::DepthGuard::DepthGuard(int& depth, const FxTokenStream& stream, uint32_t at)
    : depth_(depth)
{
    if (++depth_ > kMaxFxNesting)
        stream.fail(at, "nested too deeply (more than " + std::to_string(kMaxFxNesting) + " levels)");
}

std::string_view FxTokenStream::commentBody(const Token& comment) const
{
    std::string_view body = text(comment).substr(1);
    while (!body.empty() && body.front() == ' ') body.remove_prefix(1);
    return body;
}

std::string FxTokenStream::trailingDesc(const Token& comma)
{
    Token c = peekAny();
    if (c.kind != TokKind::Comment || c.line != comma.line) return {};
    return std::string(commentBody(c));
}

Token FxTokenStream::expectOp(std::string_view op, const char* context)
{
    Token t = next();
    if (!isOp(t, op))
        failAt(t, std::string("expected '") + std::string(op) + "'" + (context ? std::string(" ") + context : ""));
    return t;
}

Token FxTokenStream::expectName(const char* what)
{
    Token t = next();
    if (t.kind != TokKind::Name) failAt(t, std::string("expected ") + what);
    return t;
}

void FxTokenStream::expectEndOfLine()
{
    for (;;) {
        Token t = nextAny();
        if (t.kind == TokKind::Comment) continue;
        if (t.kind == TokKind::Newline || t.kind == TokKind::End) return;
        failAt(t, "expected end of line");
    }
}

void FxTokenStream::skipLogicalLine()
{
    for (;;) {
        Token t = nextAny();
        if (t.kind == TokKind::Newline || t.kind == TokKind::End) return;
    }
}

void FxTokenStream::skipBalanced(const Token& open)
{
    // `open` was consumed; count brackets up to its closer (the lexer already checked pairing)
    int depth = 1;
    for (;;) {
        Token t = nextAny();
        if (t.kind == TokKind::End) fail(open.begin, "'" + std::string(text(open)) + "' was never closed");
        if (t.kind != TokKind::Op) continue;
        std::string_view s = text(t);
        if (s == "(" || s == "[" || s == "{")
            ++depth;
        else if (s == ")" || s == "]" || s == "}") {
            if (--depth == 0) return;
        }
    }
}

std::string FxTokenStream::parseDottedName(Token first, Token* last)
{
    *last = first;
    while (isOp(peek(), ".") && peek(1).kind == TokKind::Name) {
        next();
        *last = next();
    }
    return std::string(text_.substr(first.begin, last->end - first.begin));
}

}  // namespace fxl

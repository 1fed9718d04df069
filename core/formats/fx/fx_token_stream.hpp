// Internal to the FX text reader (core/formats/fx): the token stream its layers share
// (FxTokenStream <- FxValueParser <- FxSignatureParser <- FxStatementParser <- FxTextParser).
// Tokens are looked ahead in a small buffer; every error is a LexError at a byte offset,
// turned into an InputError with line and column once, at the top.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/formats/fx/py_lexer.hpp"
#include "core/ir/diagnostics.hpp"

namespace fxl {

// Values and nested classes recurse: bounded so that hostile input cannot exhaust the stack.
constexpr int kMaxFxNesting = 200;

class FxTokenStream
{
public:
    FxTokenStream(std::string_view text, const std::string& file, int firstLine, DiagnosticList* diags,
                  int columnOffset)
        : text_(text)
        , lex_(text)
        , file_(file)
        , firstLine_(firstLine)
        , diags_(diags)
        , columnOffset_(columnOffset)
    { }

protected:
    const std::string_view text_;  // the whole text; tokens are byte ranges into it
    PyLexer lex_;

    // --- errors and notes

    // Throws InputError when the text is too large for 32-bit token offsets.
    void checkTextSize() const;
    // Throws LexError at the first byte that is not UTF-8 or is NUL.
    void checkEncoding() const;
    // The InputError (file, line, column) of a LexError.
    InputError inputError(const LexError& e) const;
    // 1-based line number in the file of a byte offset.
    int fileLine(uint32_t offset) const;
    [[noreturn]] void fail(uint32_t offset, std::string msg) const { throw LexError{offset, std::move(msg)}; }
    // "<expected>, found <t>" at t, or the unclosed bracket when that is the real error.
    [[noreturn]] void failAt(const Token& t, const std::string& expected) const;
    void note(uint32_t offset, const std::string& msg);
    void warn(uint32_t offset, const std::string& msg);

    // Counts nesting for as long as it lives; fails past kMaxFxNesting.
    class DepthGuard
    {
    public:
        DepthGuard(int& depth, const FxTokenStream& stream, uint32_t at);
        ~DepthGuard() { --depth_; }
        DepthGuard(const DepthGuard&) = delete;
        DepthGuard& operator=(const DepthGuard&) = delete;

    private:
        int& depth_;
    };

    // --- reading tokens (comments are skipped by peek/next, returned by peekAny/nextAny)

    Token peekAny() { return rawAt(0); }
    Token nextAny()
    {
        Token t = rawAt(0);
        ++head_;
        return t;
    }
    // The k-th non-comment token ahead.
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
    // The token consumed last (after a skipBalanced: the closing bracket).
    const Token& lastConsumed() const { return buffer_[head_ - 1]; }
    // True when tokens were lexed ahead of the lexer position the caller is about to scan from.
    bool hasLookahead() const { return head_ != buffer_.size(); }

    // --- token text

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
    // A comment's text after '#' and the spaces that follow it.
    std::string_view commentBody(const Token& comment) const;
    // "item,  # desc": the comment right after a consumed ',' on the same line, else "".
    std::string trailingDesc(const Token& comma);

    // --- expecting and skipping

    Token expectOp(std::string_view op, const char* context = nullptr);
    Token expectName(const char* what);
    void expectEndOfLine();
    // Skips the rest of a logical line (brackets balanced by the lexer).
    void skipLogicalLine();
    // After `open` (consumed) up to and including its closer.
    void skipBalanced(const Token& open);
    // "a.b.c" from `first` on; `last` is its last name.
    std::string parseDottedName(Token first, Token* last);

private:
    const std::string& file_;
    int firstLine_;
    DiagnosticList* diags_;
    int columnOffset_;

    // raw tokens (comments included) lexed but not consumed yet start at head_
    std::vector<Token> buffer_;
    size_t head_ = 0;

    const Token& rawAt(size_t k)
    {
        while (buffer_.size() - head_ <= k) {
            if (head_ > 0 && (head_ == buffer_.size() || head_ >= 64)) {
                buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(head_));
                head_ = 0;
            }
            buffer_.push_back(lex_.next());
        }
        return buffer_[head_ + k];
    }
    std::string describe(const Token& t) const;
};

}  // namespace fxl

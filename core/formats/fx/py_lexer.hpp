// A small tokenizer for the Python subset FX prints (gm.code / print_readable): names,
// numbers, strings, operators, brackets and comments, with positions. No allocation per
// token: tokens are byte ranges into the text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fxl {

enum class TokKind : uint8_t
{
    End,  // end of text
    Newline,  // end of a logical line (only outside brackets, only after code)
    Name,  // identifier or keyword
    Int,  // decimal integer literal
    Float,  // float literal (digits with '.', or an exponent)
    String,  // string literal, quotes included (also triple-quoted)
    Op,  // operator or bracket: "(", "==", "**=", "...", ...
    Comment,  // '#' to the end of the line, '#' included
};

struct Token
{
    TokKind kind = TokKind::End;
    bool lineStart = false;  // first token on its physical line
    uint32_t begin = 0;  // byte range in the text
    uint32_t end = 0;
    int32_t line = 0;  // 0-based line index of `begin`
    int32_t col = 0;  // 0-based byte column of `begin`
};

// Thrown by the lexer (and by helpers below); the parser turns it into an InputError with
// file, line offset and column offset applied.
struct LexError
{
    uint32_t offset;  // byte offset of the problem
    std::string message;
};

class PyLexer
{
public:
    explicit PyLexer(std::string_view text);

    // Scans the next token. Newlines inside brackets are skipped (implicit line joining);
    // comments are always returned, own-line ones with lineStart set.
    Token next();

    std::string_view text() const { return text_; }
    std::string_view tokenText(const Token& t) const { return text_.substr(t.begin, t.end - t.begin); }
    int bracketDepth() const { return static_cast<int>(brackets_.size()); }
    // Offset of the innermost open bracket (only when bracketDepth() > 0).
    uint32_t innermostBracket() const { return brackets_.back(); }
    uint32_t position() const { return pos_; }

    // Raw scan used for unquoted annotations ("f32[s0, 3]", "Sym(u0 >= 0)", "torch.Tensor"):
    // from the current position (leading spaces skipped), up to (not including) the first
    // top-level '=' (not part of ==, <=, >=, !=), ';', '#', newline, or — when `inParams` —
    // top-level ',' or ')'. Returns the trimmed range; the lexer continues after it.
    std::string_view scanRawAnnotation(bool inParams, uint32_t* beginOut);

    // Line index and 0-based byte column of an offset (slow: only for error reporting).
    void locate(uint32_t offset, int* line, int* col) const;

private:
    std::string_view text_;
    uint32_t pos_ = 0;
    int32_t line_ = 0;
    uint32_t lineBegin_ = 0;
    bool lineHasCode_ = false;  // a non-comment token was returned on this logical line
    bool atPhysLineStart_ = true;
    std::vector<uint32_t> brackets_;  // offsets of open brackets

    [[noreturn]] void fail(uint32_t offset, std::string msg) const;
    void newline(uint32_t nlOffset);  // advance line bookkeeping past a '\n' at nlOffset
    Token make(TokKind k, uint32_t b, uint32_t e, bool lineStart) const;
    uint32_t scanString(uint32_t b);
    uint32_t scanNumber(uint32_t b, bool* isFloat);
    Token endOfText();  // a final Newline when the last line has code, then End
    Token bracket(uint32_t b, bool lineStart);  // '(' at b opens, ')' at b closes
    uint32_t operatorLength(uint32_t b) const;  // of the operator at b, 0 when there is none
    [[noreturn]] void failUnexpectedCharacter(uint32_t b) const;
};

// Decodes the body of a Python string literal token (quotes and prefix included in `tok`),
// processing escapes. Throws LexError (offset relative to the token) on bad escapes.
std::string decodePyString(std::string_view tok);

// ASCII identifier characters (FX names are ASCII): letters, digits and '_'.
inline bool isPythonIdentifierStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
inline bool isPythonIdentifierChar(char c) { return isPythonIdentifierStart(c) || (c >= '0' && c <= '9'); }
// A name that Python can write after a '.': identifier characters, not starting with a digit.
bool isPythonIdentifier(std::string_view s);

// Python builtin functions FX calls by their bare name ("getattr", "len", ...): the FX text
// reader keeps them as "builtins.<name>" targets and the writer prints them bare again.
bool isPythonBuiltinFunctionName(std::string_view name);

// True when a string literal token has no escapes (its content can be used as a view).
bool pyStringIsPlain(std::string_view tok);
// The content between the quotes of a literal token (no escape processing).
std::string_view pyStringContent(std::string_view tok);

}  // namespace fxl

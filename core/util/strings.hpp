// Small text helpers shared by the readers and writers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fxl {

// ASCII blanks: space, tab, CR, LF, form feed, vertical tab.
bool isBlank(char c);
// ASCII classes, whatever the locale: digits; the first and the other characters of an
// identifier (letters and '_'; and digits).
inline bool isDigit(char c) { return c >= '0' && c <= '9'; }
inline bool isIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
inline bool isIdentChar(char c) { return isIdentStart(c) || isDigit(c); }
std::string_view trimLeft(std::string_view s);
std::string_view trimRight(std::string_view s);
std::string_view trim(std::string_view s);

// Appends the UTF-8 encoding of `codePoint`. A lone surrogate (U+D800..U+DFFF) cannot be
// stored as UTF-8 and becomes U+FFFD, the replacement character.
void appendUtf8(std::string& out, uint32_t codePoint);

// The Levenshtein distance of two byte strings (insertions, deletions and substitutions).
size_t editDistance(std::string_view a, std::string_view b);

// Of `candidates`, the one closest to `word` by editDistance (the first of equally close ones),
// for "did you mean" hints; "" when none is within a third of the word's length (at least 2
// edits), so that a hint is never a wild guess.
std::string nearestSpelling(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace fxl

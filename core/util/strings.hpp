// Small text helpers shared by the readers and writers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace fxl {

// ASCII blanks: space, tab, CR, LF, form feed, vertical tab.
bool isBlank(char c);
std::string_view trimLeft(std::string_view s);
std::string_view trimRight(std::string_view s);
std::string_view trim(std::string_view s);

// Appends the UTF-8 encoding of `codePoint`. A lone surrogate (U+D800..U+DFFF) cannot be
// stored as UTF-8 and becomes U+FFFD, the replacement character.
void appendUtf8(std::string& out, uint32_t codePoint);

}  // namespace fxl

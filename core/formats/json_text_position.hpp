// Internal to core/formats: positions in JSON text. nlohmann's DOM has no positions, so an
// error found in the DOM is looked up again in the text to give it a line and a column.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace fxl {

struct TextPosition
{
    int line = 0, column = 0;  // 1-based
};

// The line and column of a byte offset (clamped to the text).
TextPosition textPositionAt(std::string_view text, size_t offset);

// Offset of the value a JSON pointer names in well-formed JSON text (as far as it exists).
size_t locateJsonPointer(std::string_view text, const std::string& pointer);

// Offset and decoded text of the first key repeated in an object of well-formed JSON text,
// if any (nlohmann keeps one of them silently).
std::optional<std::pair<size_t, std::string>> findDuplicateJsonKey(std::string_view text);

// "[json.exception.parse_error.101] parse error at line 1, column 2: syntax error ..." ->
// "syntax error ..." (the caller gives the position itself).
std::string jsonParseErrorText(const std::string& what);

}  // namespace fxl

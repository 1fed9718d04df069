// Python literals as JSON: the "# Annotation: {...}" summary comment holds the repr of a dict
// (node.meta["custom"]); it is read into JSON and written back as the same repr.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace fxl {

// The repr of a Python literal (dict / list / tuple of str, int, float, bool, None) as JSON:
// tuples become arrays, dict keys that are not strings their JSON text. nullopt when `text`
// is anything else, malformed, or nested deeper than 64 levels.
std::optional<nlohmann::json> jsonFromPythonLiteral(std::string_view text);

// Python repr of a JSON value (dict / list / str / int / float / bool / None).
std::string pythonReprOfJson(const nlohmann::json& j);

}  // namespace fxl

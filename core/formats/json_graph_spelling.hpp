// Internal to the fxlens JSON format (core/formats/json_io): how the format spells the
// graph's enums and its floats, shared by its writers and its reader.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/ir/graph.hpp"

namespace fxl {

// Readers recurse into args, values and nested graphs: bound the depth so that hostile
// input cannot exhaust the stack.
constexpr int kJsonMaxDepth = 200;

std::string signatureName(SignatureStyle s);
std::optional<SignatureStyle> signatureFromName(std::string_view s);
std::string valueKindName(ValueMeta::Kind k);
std::optional<ValueMeta::Kind> valueKindFromName(std::string_view s);

// Exact text for a double: Python's repr (shortest digits that round-trip), "inf", "-inf",
// "nan"; a NaN other than the canonical quiet NaN keeps its bits: "nan:0x7ff4000000000001".
std::string floatText(double v);
// The inverse of floatText; nullopt for any other text.
std::optional<double> floatFromText(std::string_view s);

// Compact JSON text of a value, invalid UTF-8 replaced.
std::string compactJson(const nlohmann::json& v);

}  // namespace fxl

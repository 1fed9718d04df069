// Internal to the graph listing reader (core/formats/fx/graph_listing): what a bare value of
// print(gm.graph) can be, from the schema type of its position and from its spelling.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fxl {

// What a schema type says about a value.
enum class TypeCategory : uint8_t
{
    Unknown,
    Str,
    Device,
    DType,
    Layout,
    MemoryFormat,
    OpOverload,
    Typed
};

struct SchemaType
{
    TypeCategory category = TypeCategory::Unknown;
    bool optional = false;
    bool list = false;  // "int[]", "Tensor?[]", "int[2]"
    TypeCategory element = TypeCategory::Unknown;
    bool elementOptional = false;
    std::string text;  // as in the schema, for messages
};

// "int[]", "str?", "Device": the schema type of an argument.
SchemaType schemaType(std::string_view type);
// The type of the items of a list type.
SchemaType elementType(const SchemaType& t);

// str(torch.device): "cpu", "cuda", "cuda:0", "meta", ...
bool looksLikeDevice(std::string_view s);
// "ns.name.overload" as str(OpOverload) prints it.
bool looksLikeOpOverload(std::string_view s);
// "-12": an int64 written in decimal; nullopt when not, or beyond int64.
std::optional<int64_t> parseIntText(std::string_view s);
// "-12" of any length (Python ints are unbounded).
bool isIntSpelling(std::string_view s);
// Python's str(float): "1e-05", "0.5", "3.0", "inf", "-inf", "nan".
std::optional<double> parseFloatText(std::string_view s);

}  // namespace fxl

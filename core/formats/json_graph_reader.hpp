// Internal to the fxlens JSON format (core/formats/json_io): its checking reader, from a
// parsed JSON document to a Graph.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/ir/graph.hpp"

namespace fxl {

// A content error before it gets a file position: the JSON pointer of the offending value
// ("/graph/nodes/3/args/0"; "" for the document) and what is wrong with it.
struct JsonContentError
{
    std::string pointer;
    std::string message;
};

// Checks everything (format and version, required fields, types, node refs, duplicate
// names) while reading; throws JsonContentError.
Graph readGraphDocument(const nlohmann::json& document);

}  // namespace fxl

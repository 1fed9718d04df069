// Internal to the fxlens JSON format (core/formats/json_io): its writers, one building the
// document as a nlohmann DOM, one writing the same document straight to text.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/ir/graph.hpp"

namespace fxl {

// The "graph" object of the document: class name, signature, nodes, nested graphs. Throws
// std::invalid_argument when an argument refers to a removed node.
nlohmann::json graphObjectToJson(const Graph& g);

// The whole document ({"format", "version", "graph"}) as text, one node per line; json::parse
// of it equals graphToJson(g).
void appendGraphJsonText(std::string& out, const Graph& g);

}  // namespace fxl

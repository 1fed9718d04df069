// fxlens' own graph file format: a versioned, lossless JSON serialisation of a Graph
// (every node, argument, value meta, node meta and nested graph) and of the constants its
// get_attr nodes read. docs/json_format.md describes it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/ir/graph.hpp"

namespace fxl {

inline constexpr const char* kJsonFormatName = "fxlens-graph";
inline constexpr int kJsonFormatVersion = 2;  // what the writers write
inline constexpr int kJsonFormatOldestVersion = 1;  // the oldest the reader reads

// {"format": "fxlens-graph", "version": 2, "graph": {...}, "constants": {...}} (constants only
// when the graph embeds them, Graph::embeddedConstants). Throws std::invalid_argument
// when the graph refers to a removed node (it cannot be named).
nlohmann::json graphToJson(const Graph& g);

// The inverse of graphToJson. Checks everything (format and version, required fields, types,
// node refs, duplicate names); throws InputError whose message starts with the JSON pointer
// of the offending value ("/graph/nodes/3/args/0: expected ..."). `file` is used for the
// error location (line 0: a json value has no text positions).
Graph graphFromJson(const nlohmann::json& j, const std::string& file);

// graphToJson text with one node per line (diff-friendly), written atomically: to a
// temporary file beside `path`, then renamed over it. Throws std::runtime_error on I/O errors.
void writeGraphJson(const std::string& path, const Graph& g);
// Text form of writeGraphJson (what it writes).
std::string formatGraphJson(const Graph& g);

// A hash of everything the JSON form holds (nodes, arguments, meta, constants): two graphs with
// the same value are the same graph to every verb. 0 when the graph cannot be written (it
// refers to a removed node).
uint64_t graphContentHash(const Graph& g);

// Reads a file written by writeGraphJson (or any JSON of the same shape). Syntax errors and
// content errors carry the 1-based line and column of the offending text.
Graph readGraphJson(const std::string& path);
// Same, from text already in memory.
Graph parseGraphJson(std::string_view text, const std::string& file);

// True when the text starts like an fxlens JSON file ('{' then a "format" key or similar);
// a cheap check for format detection.
bool looksLikeGraphJson(std::string_view firstBytes);

}  // namespace fxl

// Helpers shared by the verbs: diagnostics as JSON, graph selection and loading, atomic output
// files.
#pragma once

#include <initializer_list>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "app/cli.hpp"
#include "core/formats/source.hpp"
#include "core/ir/diagnostics.hpp"
#include "core/ir/symbol_hints.hpp"

namespace fxl::cli {

// {"severity", "file", "line", "column", "message", "text"} (text = the formatted line).
nlohmann::json diagnosticJson(const Diagnostic& d);
// Items of `list` from index `from` on.
nlohmann::json diagnosticsJson(const DiagnosticList& list, size_t from);

// Diagnostics of one kind (diagnosticKind in core/ir/diagnostics.hpp) printed before
// "... and N more like this", unless --verbose.
constexpr size_t kDiagnosticsShownPerKind = 3;

// Prints load diagnostics to io.err, one line each, repeated kinds folded unless io.verbose.
// Every verb prints its diagnostics through here; --json documents list them all
// (diagnosticsJson).
void printDiagnostics(std::span<const Diagnostic> items, Io& io);
// Items of `list` from index `from` on.
void printDiagnostics(const DiagnosticList& list, size_t from, Io& io);

// "FX code (print_readable / gm.code)", "TORCH_TRACE log", ...
std::string formatDescription(SourceFormat f);

// "FILE: error: no graph with id 'X' (graphs: 0, 3, 7)"
std::string noSuchGraphMessage(const Source& src, const std::string& id);

// The graph artifact a single-graph verb works on: `id` when given, else the only graph.
// Throws InputError when the id does not exist and UsageError when the file has several
// graphs and no id was given; that message names `option`, the verb's option for the id.
const Artifact& selectGraph(const Source& src, const std::string& id, const std::string& option = "--graph");

// Writes `content` to `path` atomically (temporary file beside it, then rename). Without
// `force` an existing file is never replaced, even one created while writing.
// Throws InputError(path, 0, 0, reason) on failure; leaves no temporary file behind.
void writeFileAtomic(const std::string& path, const std::string& content, bool force);

// A pipeline spec that does not parse (parsePipelineSpec's InputError): the message, the spec
// with a caret under the column, and where the passes are listed, on io.err.
void printPipelineSpecError(const Diagnostic& d, const std::string& spec, Io& io);

// One graph of a file, loaded for a verb that works on a single graph (diff, mem, passes).
struct LoadedGraph
{
    std::shared_ptr<Source> source;
    std::string id;  // artifact id
    std::shared_ptr<Graph> graph;
    size_t diagnosticsFrom = 0;  // source->diagnostics items from here on came with this graph
};
// Opens `path`, picks the graph `id` (selectGraph's rules: "" = the only graph), parses it
// and prints the load diagnostics to io.err. Throws InputError when the graph cannot be read
// or came with an error-level diagnostic (a broken meta.json: results would silently lack
// what the input meant to give), UsageError when the file has several graphs and no id.
// `option` is the verb's option for the id, named in that message.
LoadedGraph loadGraph(const std::string& path, const std::string& id, Io& io, const std::string& option = "--graph");

// --symbols S=N,...: binds size symbols without a hint (core/ir/symbol_hints.hpp) in the
// graphs given, so that they run and are measured. Returns the bindings ({} without the
// option). Throws UsageError for a malformed value (with its column) and for a symbol that
// none of the graphs has (naming the ones they have).
SymbolValues applySymbolsOption(const Args& args, std::initializer_list<Graph*> graphs);

// --ops FILE (repeatable): custom operator declarations (docs/custom_ops.md), loaded by runCli
// before any verb runs, so every verb knows the ops of the files given.
OptionSpec opsOption();
// Loads every --ops file of `args` (core/ops/custom_ops.hpp); throws InputError (file, line,
// column, what was expected) for a file that cannot be read or declares something wrong.
void loadOpsFiles(const Args& args);

}  // namespace fxl::cli

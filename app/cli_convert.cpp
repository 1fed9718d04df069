// fxlens convert: one graph to fxlens JSON or to print_readable() text, with its constants.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "app/cli_common.hpp"
#include "app/cli_constants.hpp"
#include "app/cli_convert.hpp"
#include "core/formats/fx/fx_text_writer.hpp"
#include "core/formats/graph_constants.hpp"
#include "core/formats/json_io.hpp"
#include "core/formats/sidecar.hpp"
#include "core/formats/source.hpp"

namespace fxl::cli {

int runConvert(const Args& args, Io& io)
{
    if (!args.has("to")) throw UsageError("missing --to json|py");
    const std::string to = args.value("to");
    if (to != "json" && to != "py") throw UsageError("--to expects json or py, got '" + to + "'");
    const std::string outPath = args.value("output");
    if (args.has("output") && outPath.empty()) throw UsageError("--output needs a file name");

    LoadedGraph lg;
    lg.source = openSource(args.positional.front());
    const Artifact& a = selectGraph(*lg.source, args.value("graph"));
    lg.id = a.id;
    lg.diagnosticsFrom = lg.source->diagnostics.items.size();
    lg.graph = lg.source->graph(a.id);
    printDiagnostics(lg.source->diagnostics, 0, io);
    if (!lg.graph) throw InputError(lg.source->path, 0, 0, "graph '" + a.id + "' could not be read");
    for (size_t i = lg.diagnosticsFrom; i < lg.source->diagnostics.items.size(); ++i) {
        // The graph came with an error-level problem (e.g. a broken meta.json): do not write
        // a graph that silently lacks what the input meant to give it.
        if (lg.source->diagnostics.items[i].severity == Severity::Error) {
            io.err << "fxlens convert: error: " << lg.source->path << ": not converted (errors above)\n";
            return kExitInputError;
        }
    }
    const GraphConstants constants = chooseConstants(lg, args.value("constants"));

    // The constants travel with the graph: embedded in JSON, beside the file for Python text.
    std::vector<std::string> missing;
    const SafeTensorsFile selected = selectConstants(*lg.graph, constants.file, &missing);
    std::optional<Graph> withConstants;  // a copy, so that the loaded graph stays as read
    if (to == "json" && (!selected.tensors.empty() || lg.graph->embeddedConstants)) {
        withConstants = *lg.graph;
        embedConstants(*withConstants, selected);
    }
    const Graph& g = withConstants ? *withConstants : *lg.graph;
    const std::string content = to == "json" ? formatGraphJson(g) : printReadable(g);
    nlohmann::json doc = {
        {"fxlens", "convert"}, {"source", lg.source->path}, {"graph", lg.id}, {"to", to}, {"nodes", g.size()}};
    doc["diagnostics"] = diagnosticsJson(lg.source->diagnostics, lg.diagnosticsFrom);
    doc["constants"] = constants.toJson();
    doc["constants_missing"] = missing;
    std::string constantsFile;
    if (!outPath.empty()) {
        const bool force = args.has("force");
        if (to == "py" && !selected.tensors.empty()) {
            // refuse before writing anything when either file exists
            const std::string beside = constantsSidecarPath(outPath);
            std::error_code ec;
            if (!force && std::filesystem::exists(std::filesystem::symlink_status(beside, ec)))
                throw InputError(beside, 0, 0, "output file exists (use --force to replace it)");
            writeFileAtomic(outPath, content, force);
            std::vector<std::string> unused;
            constantsFile = writeConstantsBeside(outPath, g, constants, force, unused);
        } else {
            writeFileAtomic(outPath, content, force);
        }
        doc["output"] = outPath;
        doc["bytes"] = content.size();
    }
    doc["constants_file"] = constantsFile.empty() ? nlohmann::json(nullptr) : nlohmann::json(constantsFile);
    if (!missing.empty()) {
        io.err << "fxlens convert: warning: " << lg.source->path << ": the graph reads " << missing.size()
               << " constant tensor" << (missing.size() == 1 ? "" : "s") << " with get_attr that "
               << (constants.present() ? "the constants " + constants.describe() + " lack"
                                       : std::string("were not found")
                           + (constants.lookedFor.empty() ? "" : " (fxlens looked for " + constants.lookedFor + ")"))
               << "; the converted graph runs only with --constants FILE\n";
    }
    if (to == "py" && outPath.empty() && !selected.tensors.empty())
        io.err << "fxlens convert: note: the graph reads constant tensors; with -o OUT they are written beside "
                  "OUT\n";
    if (!outPath.empty()) {
        if (args.has("json")) io.out << doc.dump(1) << "\n";
        return kExitOk;
    }
    if (args.has("json")) {
        doc["content"] = to == "json" ? nlohmann::json::parse(content) : nlohmann::json(content);
        io.out << doc.dump(1) << "\n";
    } else {
        io.out << content;
    }
    return kExitOk;
}

}  // namespace fxl::cli

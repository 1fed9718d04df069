// fxlens convert: one graph to fxlens JSON or to print_readable() text.
#include <nlohmann/json.hpp>
#include <ostream>

#include "app/cli_common.hpp"
#include "app/cli_convert.hpp"
#include "core/formats/fx/fx_text_writer.hpp"
#include "core/formats/json_io.hpp"
#include "core/formats/source.hpp"

namespace fxl::cli {

int runConvert(const Args& args, Io& io)
{
    if (!args.has("to")) throw UsageError("missing --to json|py");
    const std::string to = args.value("to");
    if (to != "json" && to != "py") throw UsageError("--to expects json or py, got '" + to + "'");
    const std::string outPath = args.value("output");
    if (args.has("output") && outPath.empty()) throw UsageError("--output needs a file name");

    std::unique_ptr<Source> src = openSource(args.positional.front());
    const Artifact& a = selectGraph(*src, args.value("graph"));
    const size_t diagsBefore = src->diagnostics.items.size();
    std::shared_ptr<Graph> g = src->graph(a.id);
    printDiagnostics(src->diagnostics, 0, io);
    if (!g) throw InputError(src->path, 0, 0, "graph '" + a.id + "' could not be read");
    for (size_t i = diagsBefore; i < src->diagnostics.items.size(); ++i) {
        // The graph came with an error-level problem (e.g. a broken meta.json): do not write
        // a graph that silently lacks what the input meant to give it.
        if (src->diagnostics.items[i].severity == Severity::Error) {
            io.err << "fxlens convert: error: " << src->path << ": not converted (errors above)\n";
            return kExitInputError;
        }
    }

    const std::string content = to == "json" ? formatGraphJson(*g) : printReadable(*g);
    nlohmann::json doc = {
        {"fxlens", "convert"}, {"source", src->path}, {"graph", a.id}, {"to", to}, {"nodes", g->size()}};
    doc["diagnostics"] = diagnosticsJson(src->diagnostics, diagsBefore);
    if (!outPath.empty()) {
        writeFileAtomic(outPath, content, args.has("force"));
        doc["output"] = outPath;
        doc["bytes"] = content.size();
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

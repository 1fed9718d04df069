#include "app/cli_constants.hpp"

#include "core/formats/graph_constants.hpp"
#include "core/formats/sidecar.hpp"

namespace fxl::cli {

namespace {

constexpr size_t kNamesShown = 5;

std::string nameList(const std::vector<std::string>& names)
{
    std::string s;
    for (size_t k = 0; k < names.size() && k < kNamesShown; ++k) s += (k ? ", " : "") + names[k];
    if (names.size() > kNamesShown) s += ", ... (" + std::to_string(names.size()) + " in all)";
    return s;
}

bool isSingleGraphFile(SourceFormat f)
{
    return f == SourceFormat::FxCode || f == SourceFormat::GraphListing || f == SourceFormat::Json;
}

}  // namespace

std::string GraphConstants::describe() const
{
    switch (origin) {
    case Origin::None: return "none";
    case Origin::Option: return path;
    case Origin::Embedded: return "embedded in " + path;
    case Origin::Sidecar: return path + " (the graph file's sidecar)";
    }
    return path;
}

nlohmann::json GraphConstants::toJson() const
{
    if (!present()) return nullptr;
    const char* o = origin == Origin::Option ? "option" : origin == Origin::Embedded ? "embedded" : "sidecar";
    return {{"file", path}, {"origin", o}, {"from_sidecar", origin == Origin::Sidecar}};
}

GraphConstants chooseConstants(const LoadedGraph& lg, const std::string& given)
{
    GraphConstants c;
    c.needed = constantTensorNames(*lg.graph);
    if (isSingleGraphFile(lg.source->format)) c.lookedFor = constantsSidecarPath(lg.source->path);
    const Artifact& art = *lg.source->find(lg.id);
    if (!given.empty()) {
        c.origin = GraphConstants::Origin::Option;
        c.path = given;
        c.file = readSafetensors(given);
    } else if (auto embedded = embeddedConstants(*lg.graph, lg.source->path)) {
        c.origin = GraphConstants::Origin::Embedded;
        c.path = lg.source->path;
        c.file = std::move(*embedded);
    } else if (!art.constantsPath.empty()) {
        c.origin = GraphConstants::Origin::Sidecar;
        c.path = art.constantsPath;
        c.file = readSafetensors(art.constantsPath);
    }
    return c;
}

void requireConstants(const GraphConstants& c, const LoadedGraph& lg, const std::string& how)
{
    std::vector<std::string> missing;
    for (const std::string& name : c.needed)
        if (!c.file.find(name)) missing.push_back(name);
    if (missing.empty()) return;
    const std::string reads = "the graph reads " + std::to_string(c.needed.size()) + " constant tensor"
        + (c.needed.size() == 1 ? "" : "s") + " with get_attr (" + nameList(c.needed) + ")";
    std::string msg;
    if (!c.present()) {
        msg = reads + " and no constants were found: ";
        msg += c.lookedFor.empty() ? "a graph of a " + std::string(sourceFormatName(lg.source->format))
                + " source has no constants file beside it"
                                   : "fxlens looked for " + c.lookedFor + " beside the graph file";
        msg += "; " + how;
    } else {
        msg = "the constants " + c.describe() + " lack " + std::to_string(missing.size()) + " of the tensors "
            + "the graph reads with get_attr (" + nameList(missing) + "); " + how;
    }
    throw InputError(lg.source->path, 0, 0, msg);
}

std::string writeConstantsBeside(const std::string& graphPath, const Graph& g, const GraphConstants& c, bool force,
                                 std::vector<std::string>& missing)
{
    if (constantTensorNames(g).empty()) return "";
    const SafeTensorsFile selected = selectConstants(g, c.file, &missing);
    if (selected.tensors.empty()) return "";
    const std::string path = constantsSidecarPath(graphPath);
    const std::vector<uint8_t> bytes = serializeSafetensors(selected, TensorOrder::AsGiven);
    writeFileAtomic(path, std::string(bytes.begin(), bytes.end()), force);
    return path;
}

}  // namespace fxl::cli

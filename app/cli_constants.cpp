#include "app/cli_constants.hpp"

#include "core/formats/graph_constants.hpp"
#include "core/formats/sidecar.hpp"
#include "core/util/content_hash.hpp"
#include "runtime/base/backend.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/exec/executor_inputs.hpp"

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
    std::string s;
    switch (origin) {
    case Origin::None: break;
    case Origin::Option: s = path; break;
    case Origin::Embedded: s = "embedded in " + path; break;
    case Origin::Sidecar: s = path + " (the graph file's sidecar)"; break;
    }
    if (!generated.empty())
        s += (s.empty() ? "" : "; ") + std::string("generated from their meta (no file has them; seed ")
            + std::to_string(seed) + "): " + nameList(generated);
    return s.empty() ? "none" : s;
}

nlohmann::json GraphConstants::toJson() const
{
    if (!present()) return nullptr;
    const char* o = origin == Origin::Option ? "option"
        : origin == Origin::Embedded         ? "embedded"
        : origin == Origin::Sidecar          ? "sidecar"
                                             : "generated";
    nlohmann::json j = {{"file", origin == Origin::None ? nlohmann::json(nullptr) : nlohmann::json(path)},
                        {"origin", o},
                        {"from_sidecar", origin == Origin::Sidecar}};
    if (!generated.empty()) {
        j["generated"] = generated;
        j["seed"] = seed;
    }
    return j;
}

void generateMissingConstants(GraphConstants& c, const LoadedGraph& lg, uint64_t seed)
{
    std::vector<std::string> missing;
    for (const std::string& name : c.needed)
        if (!c.file.find(name)) missing.push_back(name);
    if (missing.empty()) return;
    auto backend = makeCpuBackend(CpuBackendOptions{1});
    for (const std::string& name : missing) {
        const Node* node = nullptr;
        lg.graph->forEachNode([&](const Node& n) {
            if (!node && n.op == NodeOp::GetAttr && n.target == name) node = &n;
        });
        const std::string where = "constant '" + name + "'";
        if (!node || !node->val.isTensor())
            throw InputError(lg.source->path, 0, 0,
                             where
                                 + " has no tensor meta (dtype and sizes) to generate it from; give it with "
                                   "--constants FILE");
        try {
            // Philox stream by name: the same constant gets the same values in every graph
            const uint64_t index = (uint64_t(1) << 63) | (hashBytes(name) >> 1);
            const Value v = exec::generateInput(*node, seed, index, *backend);
            SafeTensor st;
            st.name = name;
            st.dtype = v.tensor.dtype();
            st.shape = v.tensor.sizes();
            st.data.resize(static_cast<size_t>(v.tensor.nbytes()));
            backend->download(st.data.data(), v.tensor, v.tensor.nbytes());
            c.file.tensors.push_back(std::move(st));
        } catch (const KernelError& e) {
            throw InputError(lg.source->path, 0, 0, where + ": " + e.what());
        }
        c.generated.push_back(name);
    }
    c.seed = seed;
}

GraphConstants resolveConstants(const LoadedGraph& lg, const std::string& given, const Args& args,
                                const std::string& how)
{
    GraphConstants c = chooseConstants(lg, given);
    if (args.has("seed")) generateMissingConstants(c, lg, static_cast<uint64_t>(args.intValue("seed", 0)));
    requireConstants(c, lg, how);
    return c;
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

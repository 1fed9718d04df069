#include "core/formats/graph_constants.hpp"

#include <unordered_set>

namespace fxl {

namespace {

void collectConstantNames(const Graph& g, std::vector<std::string>& names, std::unordered_set<std::string>& seen)
{
    g.forEachNode([&](const Node& n) {
        if (n.op != NodeOp::GetAttr || g.subgraph(n.target)) return;
        if (seen.insert(n.target).second) names.push_back(n.target);
    });
    for (const auto& [name, sub] : g.subgraphs)
        if (sub) collectConstantNames(*sub, names, seen);
}

}  // namespace

std::vector<std::string> constantTensorNames(const Graph& g)
{
    std::vector<std::string> names;
    std::unordered_set<std::string> seen;
    collectConstantNames(g, names, seen);
    return names;
}

SafeTensorsFile selectConstants(const Graph& g, const SafeTensorsFile& from, std::vector<std::string>* missing)
{
    SafeTensorsFile out;
    for (const std::string& name : constantTensorNames(g)) {
        if (const SafeTensor* t = from.find(name))
            out.tensors.push_back(*t);
        else if (missing)
            missing->push_back(name);
    }
    return out;
}

void embedConstants(Graph& g, const SafeTensorsFile& constants)
{
    if (constants.tensors.empty()) {
        g.embeddedConstants.reset();
        return;
    }
    g.embeddedConstants =
        std::make_shared<const std::vector<uint8_t>>(serializeSafetensors(constants, TensorOrder::AsGiven));
}

std::optional<SafeTensorsFile> embeddedConstants(const Graph& g, const std::string& file)
{
    if (!g.embeddedConstants) return std::nullopt;
    return parseSafetensors(g.embeddedConstants->data(), g.embeddedConstants->size(), file);
}

}  // namespace fxl

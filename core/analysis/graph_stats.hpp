// Summary numbers of one graph (what `fxlens info` prints): node counts, operator histogram,
// parameter bytes and activation bytes, with the rule that decided which inputs are parameters.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/formats/sidecar.hpp"
#include "core/ir/graph.hpp"

namespace fxl {

struct OpCount
{
    std::string target;  // "aten.mm.default"
    int64_t count = 0;
};

struct GraphStats
{
    size_t nodeCount = 0;  // nodes of the graph itself
    size_t totalNodeCount = 0;  // including every nested graph
    // Nested graphs by dotted attribute path ("repeated_subgraph0", "cond_true_0.inner").
    std::map<std::string, size_t> nestedNodeCounts;
    std::map<std::string, size_t> nodesByKind;  // "placeholder" -> 3, "call_function" -> 12, ...
    // call_function targets of the graph and its nested graphs, most frequent first
    // (ties by name).
    std::vector<OpCount> opHistogram;

    // Parameters: which placeholders count, how many bytes (valueBytes of their meta), and the rule.
    std::vector<std::string> parameterNames;
    int64_t parameterBytes = 0;
    size_t parametersWithoutMeta = 0;
    std::string parameterRule;

    // Activations: tensor outputs of call_function nodes of this graph (not nested graphs),
    // views, aliases, in-place results, waits and getitem excluded (they share storage with
    // a value already counted).
    int64_t activationBytes = 0;
    size_t activationTensors = 0;
    size_t activationsWithoutMeta = 0;  // call_function nodes whose bytes are unknown (valueBytes nullopt)
};

// `params` is the params.json of the traced step when known (readParamsJson in sidecar.hpp).
GraphStats computeGraphStats(const Graph& g, const ParamsInfo* params = nullptr);

// Index of a placeholder among the inputs of the traced joint step, from its name:
// "arg3_1" -> 3, "primals_4" -> 3 (primals are 1-based). nullopt for other names.
std::optional<int> jointInputIndex(const std::string& placeholderName);

}  // namespace fxl

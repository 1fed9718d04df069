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

    // Activations, as the memory timeline counts them (memory_timeline.hpp, R2/R3): the storages
    // the graph's nodes allocate (call_function, call_method, call_module; views, aliases,
    // in-place results, waits and getitems share a storage already counted; nested graphs' own
    // temporaries not counted).
    int64_t activationBytes = 0;
    size_t activationTensors = 0;
    size_t activationsWithoutMeta = 0;  // tensors of unknown size (counted as 0 bytes)

    // The memory timeline's peak and saved set (R7, R9), the numbers `mem` prints.
    int64_t peakBytes = 0;
    std::string peakNode;
    bool hasBoundary = false;
    std::string boundaryRule;
    size_t savedActivations = 0, savedInputs = 0;
    int64_t savedBytes = 0;
    std::string savedSummary;  // "" without a boundary
};

// `params` is the params.json of the traced step when known (readParamsJson in sidecar.hpp).
GraphStats computeGraphStats(const Graph& g, const ParamsInfo* params = nullptr);

// The parameter or buffer a placeholder stands for, from its AOT descriptor (PyTorch's comment,
// or params.json through the sidecar reader): "ParamAOTInput(target='wte.weight')" ->
// "wte.weight". "" for any other node.
std::string parameterTarget(const Node& n);

// Index of a placeholder among the inputs of the traced joint step, from its name:
// "arg3_1" -> 3, "primals_4" -> 3 (primals are 1-based). nullopt for other names.
std::optional<int> jointInputIndex(const std::string& placeholderName);

}  // namespace fxl

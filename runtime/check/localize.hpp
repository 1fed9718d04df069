// Where two runs diverge: the intermediate values of the nodes two graphs share, compared as
// they are produced, and the first node of B (in its execution order) whose value differs
// from its counterpart's in A.
//
// Nodes are paired by the graph diff (core/analysis/graph_diff.hpp: provenance, then name,
// structure, name only). A node of B the diff leaves unpaired whose meta.provenance names a
// node of A (a recomputed copy, which the diff counts as "added") is compared with that node
// too: a recomputation must give the original's bits. A is run first and the values of its
// paired nodes are kept on the host (up to a byte budget; what does not fit is named in the
// report and not compared); B is run next and each paired node's value is compared with A's
// (compareTensors of runtime/check/equivalence.hpp) the moment it is computed (ExecOptions::onValue
// of runtime/exec/executor.hpp), after which A's copy is dropped. Only the top-level graph's nodes
// are compared (a higher-order op's node is, by its value; its body's nodes are not).
//
// The first divergence is the origin of the difference when all of its tensor inputs were
// compared (they are then bitwise equal: an earlier differing node would have been first);
// when some of its inputs were not compared (unpaired, over the budget, not tensors) the
// difference may have come in through them, and the report names them.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/formats/safetensors.hpp"
#include "core/ir/graph.hpp"
#include "runtime/base/backend.hpp"
#include "runtime/base/value.hpp"
#include "runtime/check/equivalence.hpp"
#include "runtime/exec/executor.hpp"

namespace fxl {

struct LocalizeOptions
{
    // Host bytes of A's values kept for the comparison at any one time; a node whose value
    // does not fit is not kept (LocalizeReport::overBudget) and its counterpart not compared.
    int64_t byteBudget = int64_t{4} << 30;
};

// One paired node whose values were compared. A multi-output node (a tuple) is compared item
// by item; the fields sum (numel, differing) or take the maximum (maxUlp, maxAbs) over items.
struct NodeValueDiff
{
    std::string aName, bName;
    std::string target;  // B's node target
    size_t bIndex = 0;  // position in B's execution order (Graph::order())
    std::string match;  // "provenance", "name", "structure", "name_only", "provenance_copy"
    bool bitwiseEqual = false;
    bool shapeMismatch = false, dtypeMismatch = false;  // or a different number of tensors
    size_t tensors = 0;  // tensors compared (1, or the items of a tuple)
    int64_t numel = 0, differing = 0;
    uint64_t maxUlp = 0;
    double maxAbs = 0;
    // The first differing tensor (its first differing index and values), when not equal.
    std::optional<TensorDiff> first;
};

struct LocalizeCounts
{
    size_t compared = 0, equal = 0, differing = 0;
    size_t unmatched = 0;  // nodes of B with no counterpart in A
    size_t nonTensor = 0;  // paired nodes whose value holds no tensor (SymInts, None), on either side
    size_t overBudget = 0;  // paired nodes not compared: A's value did not fit the byte budget
};

// An input of the first divergence that was not compared, and why: "unmatched",
// "non-tensor", "over budget".
struct UncomparedInput
{
    std::string bName;
    std::string reason;
};

struct LocalizeReport
{
    std::vector<NodeValueDiff> nodes;  // compared nodes, in B's execution order
    LocalizeCounts counts;
    std::optional<size_t> firstDivergence;  // index into nodes
    // For the first divergence: its inputs that were not compared (empty: every tensor input
    // was compared and bitwise equal, so this node is where the difference starts).
    std::vector<UncomparedInput> firstUncomparedInputs;
    std::vector<std::string> overBudget;  // A's nodes whose values were not kept
    int64_t byteBudget = 0;
    int64_t peakKeptBytes = 0;  // most host bytes of A's values held at once
    // Max ULP distance per compared node (0 = bitwise equal), by node name, for colouring each
    // graph; a shape or dtype mismatch is UINT64_MAX. Nodes not compared are absent.
    std::map<std::string, uint64_t> ulpByNameA, ulpByNameB;

    bool diverged() const { return firstDivergence.has_value(); }
    const NodeValueDiff* first() const { return firstDivergence ? &nodes[*firstDivergence] : nullptr; }
};

// Localization of two runs the caller makes (fxlens check runs each graph once this way):
// set ExecOptions::onValue of A's run to recordA(A's backend), run A, set B's to
// compareB(B's backend), run B, then take the report. The graphs must outlive the Localizer.
class Localizer
{
public:
    Localizer(const Graph& a, const Graph& b, LocalizeOptions opts = {});
    ~Localizer();
    Localizer(const Localizer&) = delete;
    Localizer& operator=(const Localizer&) = delete;

    std::function<void(const Node&, const Value&)> recordA(Backend& backend);
    std::function<void(const Node&, const Value&)> compareB(Backend& backend);
    // The report; drops every value still kept.
    LocalizeReport finish();

private:
    struct State;
    std::unique_ptr<State> s_;
};

// Runs A, then B on A's inputs (resolveInputs of A with `exec`: B's placeholders read them by
// name, as fxlens check feeds them), each on its own CPU backend with `exec.threads` unless
// exec.backend is given; A with exec.constants, B with `constantsB`. Throws as executeGraph.
LocalizeReport localizeRuns(const Graph& a, const Graph& b, const ExecOptions& exec, const SafeTensorsFile* constantsB,
                            const LocalizeOptions& opts = {});

// Text: the counts, the first divergence (with its first differing element and its inputs
// not compared) and the `top` differing nodes with the largest ULP distance. Each line starts
// with `indent`.
std::string localizeToText(const LocalizeReport& r, size_t top = 5, const std::string& indent = "");
// {"counts", "first_divergence" (null or a node with "inputs": "all equal" / "some not
// compared" and "uncompared_inputs"), "nodes" (every compared node), "over_budget",
// "byte_budget", "peak_kept_bytes"}.
nlohmann::json localizeToJson(const LocalizeReport& r);

}  // namespace fxl

// partition: splits a joint training graph into a forward graph and a backward graph plus the
// list of values the forward saves for the backward (docs/passes.md section 9).
//
// Input: one graph, either an AOT joint graph (primals + tangents placeholders -> forward
// outputs + gradients) or a fwd+loss+bwd graph traced from `loss + autograd.grad` (no tangent
// placeholders; the backward is seeded by `ones_like(loss)`; outputs (loss, ..., *grads)).
// Output: "forward" = the joint's non-tangent placeholders -> forward outputs + saved values +
// saved symbolic scalars; "backward" = saved symbolic scalars + saved values + tangents ->
// gradients. The `ones_like(loss)` seed becomes a backward placeholder `tangents_1` with the
// seed's meta (so the backward is what PyTorch's AOT backward is: it gets the loss gradient
// as an input), and the loss is no longer read by the backward.
//
// Classification is dataflow-based (classify_nodes, 6.2): required_bw = tangents / seeds and
// all their transitive users; required_fw = what the forward outputs need from the primals;
// unclaimed = the rest. Node meta (phase) is only used to find the seed and the number of
// forward outputs when the dataflow does not say.
//
// Copies keep all node meta (module path, phase, recompute tags, custom) and get
// meta.provenance = the joint node's name; a value recomputed in the backward keeps its forward
// phase, as PyTorch's node_copy does. Backward placeholders of saved values carry the saved
// node's name, val and meta.
//
// Modes:
//  - save_all: PyTorch's default_partition: every forward value the backward reads is saved;
//    nothing is recomputed (unclaimed forward-side work runs in the backward only).
//  - tagged:   the tag-replay partitioner of 5.4 (_ReplaySavesPartitioner): saves only
//    MUST_SAVE / custom.ap_must_save nodes, placeholders and symbolic scalars; the backward
//    recomputes everything else it needs.
//  - mincut:   min_cut_rematerialization_partition with budget 1.0 (6.3-6.5).
//
// The parts: partition_classify (classification, seeds, tag clean-up), partition_op_sets (the
// op lists), partition_save_modes (save_all, tagged), partition_min_cut (mincut) and
// partitioner (completing the saves, building the two graphs).
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/ir/graph.hpp"
#include "core/ops/op_registry.hpp"
#include "passes/partition_classify.hpp"
#include "passes/pass.hpp"

namespace fxl {

enum class PartitionMode : uint8_t
{
    SaveAll,
    Tagged,
    MinCut
};

struct PartitionOptions
{
    PartitionMode mode = PartitionMode::SaveAll;
    int numFwdOutputs = -1;  // -1: the output items before the first gradient (dataflow / phase)
    // min-cut bans (6.4); `aggressive` turns off the first four, like aggressive_recomputation.
    bool aggressive = false;
    bool banUsedFarApart = true;
    bool banLongFusibleChains = true;
    bool banMaterializedBackward = true;
    bool banNotInAllowlist = true;  // false: denylist mode (ban only random / compute-intensive ops)
    bool banReduction = true;
    bool recomputeViews = false;  // views never saved (infinite cost) and never banned
    bool cleanupTags = true;  // cleanup_recompute_tags (6.3) before choosing saves
    bool forceSaveCollectives = true;  // collectives not MUST_RECOMPUTE -> MUST_SAVE (tagged, mincut)
    bool reorderBackward = true;  // recomputation right before first use (reordering_to_mimic_autograd_engine)
    const OpRegistry* registry = nullptr;  // nullptr: OpRegistry::instance()
};

struct PartitionResult
{
    Graph forward, backward;
    size_t numFwdOutputs = 0;
    std::vector<std::string> saved;  // joint names, in joint order (tensors / opaque values)
    std::vector<std::string> savedSymbols;  // joint names of saved symbolic scalars
    std::vector<std::string> recomputed;  // joint call nodes computed in both graphs
    std::vector<std::string> banned;  // mincut: nodes with SOURCE -> v_in
    int64_t savedBytes = 0;  // valueBytes of the saved values (sizes by their hints; unknown counts 0)
    // The saved set as every verb counts it (the forward's memory timeline, R9 of
    // memory_timeline.hpp): activations with storage of their own and their distinct bytes;
    // parameters / inputs and views of them, apart.
    size_t savedActivations = 0;
    int64_t savedActivationBytes = 0;
    size_t savedInputs = 0;
    std::vector<std::string> notes;
    // {"saved", "saved_bytes", "saved_activations", "saved_activation_bytes", "saved_inputs", "saved_symbols",
    //  "forward_nodes", "backward_nodes", "recomputed", "mode", ...}
    nlohmann::json stats() const;
};

// The whole partition. Throws PassError when the graph cannot be split (e.g. a value the
// backward needs depends on a tangent through the forward, or min-cut finds no finite cut).
PartitionResult partitionJointGraph(const Graph& joint, const PartitionOptions& opts, PassContext* ctx = nullptr);

// The registered pass ("partition", options: mode, num_fwd_outputs, aggressive, ...): joint
// graph -> forward + backward graphs.
std::unique_ptr<Pass> makePartitionPass();

}  // namespace fxl

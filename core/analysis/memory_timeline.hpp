// Memory timeline of a graph run in its node order: every storage's allocation and free,
// the live bytes at every step, the peak and who is live at it, and the forward/backward
// boundary with the activations saved across it.
//
// The rules (the runtime executor frees by the same rules, so its measured peak must equal
// this estimate; change them in both places or not at all):
//  R1 Steps. One step per node of g.order(), placeholders, get_attr and output included.
//  R2 Allocation. A node that is not an alias (R3) allocates one new storage per tensor in its
//     val: one for a tensor, one per tensor element of a tuple (nested tuples flattened).
//     Size = numel * itemsize of that tensor (symbolic sizes by their hints); a tensor whose
//     size is unknown (no val, no hint) counts 0 bytes and is listed in unknownSizes.
//     Scalars (Sym*, None) have no storage. Kernel workspace is not modelled. A node whose
//     val is unknown but whose getitem users have vals (meta recorded without tuples) allocates
//     one storage per extracted element, sized by that getitem's val.
//  R3 Aliases allocate nothing and share storages:
//     - view ops (registry kTraitView / kTraitViewList / kTraitAliasNoAnnot: view, t, permute,
//       expand, slice, select, alias, detach, _reshape_alias, _unsafe_view, split, ...) share
//       the storages of the input their schema says they alias (the argument with the
//       return's alias set; the first tensor argument when there is no annotation); every
//       element of a view list (split, unbind, chunk) shares the base's storages;
//     - "view-or-copy" ops (reshape, contiguous, to) alias their input when the output has
//       the input's dtype and the input is contiguous (for to.*: whenever the dtype is kept
//       and copy=False); otherwise they allocate (R2);
//     - in-place ops (kTraitInplace) share the storages of every argument they write
//       (Tensor(a!)), also out= arguments; wait_tensor shares its input's storages;
//     - operator.getitem(x, i) shares the storages of element i of x (all of x's storages
//       when x has no per-element storages); when element i is itself a tuple, its elements
//       are known too (a getitem of that getitem shares only its element's storages).
//     - tensor methods (call_method of Dynamo-level graphs) alias as the aten op they stand
//       for: view / transpose / permute / t / unsqueeze / squeeze / expand / detach / narrow /
//       select share self's storages; reshape / flatten / contiguous / to / float / half ...
//       as the view-or-copy ops above; in-place methods (name ending in '_') and the
//       augmented-assignment operators (operator.iadd, imul, ...) share self's; any other
//       method allocates (R2);
//     - a higher-order op with one body (invoke_subgraph, tag_activation_checkpoint,
//       wrap_with_set_grad_enabled, wrap_with_autocast) whose body returns one of its own
//       placeholders as output element k: element k shares the storages of the operand bound
//       to that placeholder; its other elements allocate (R2). Its body's temporaries count
//       while it runs (R10).
//  R4 Inputs. Placeholder and get_attr tensors are resident: allocated at their step, never
//     freed. MemoryOptions::countInputs = false counts them as 0 bytes everywhere.
//  R5 Frees. A storage is freed right after the last step that uses (reads as an argument,
//     anywhere in args or kwargs) any value referring to it, or right after the step that
//     defined the last such value when nothing uses it. A tuple value refers to all of its
//     elements' storages, so an element no getitem extracts lives as long as the tuple.
//  R6 Outputs. Storages referred to by the output node are kept to the end (never freed).
//  R7 Live bytes. At step k: liveBytes = live after step k-1 + bytes allocated at k (the
//     node runs with its inputs still held and its outputs allocated); liveAfterBytes =
//     liveBytes - bytes freed after k. The peak is the largest liveBytes (first such step).
//     So the final liveAfterBytes = counted input bytes + outputBytes.
//  R8 Phase: classifyPhases (core/analysis/phases.hpp): meta (phase, autograd_backward,
//     custom.phase) first, else dataflow from the seeds (tangent placeholders, the ones_like of
//     the loss); forward-computable work only the backward uses is backward when placed after
//     the first backward node. Placeholders and get_attr are inputs, the output node is neither.
//  R8 and R9 use the phases of core/analysis/phases.hpp, as the passes do.
//  R9 Boundary and saved values. The boundary is the first backward step. The saved values are
//     what a partition of the graph (passes/partition.hpp, save_all) hands from the forward to
//     the backward: the forward values the forward outputs need (required_fw) and the
//     placeholders (not tangents or loss seeds, not get_attr constants) that are read by the
//     other call nodes the outputs need (backward nodes, and forward work only the backward
//     uses, which the partition recomputes there; dead work is in neither graph), seeds
//     excepted (a seed reads only its input's shape). Saved activations are the saved values with a storage of their
//     own (not a resident input); the others, parameters and inputs and their views, are listed apart (inputBacked):
//     they cost no memory. savedBytes counts the distinct storages of the saved activations. The forward graph of a
//     partition (no backward nodes) says where its saved values start by its output descriptors
//     ("SavedForBackwardsAOTOutput(idx=0)", as PyTorch prints them and fxlens' partition writes them), or
//     MemoryOptions::forwardOutputs = N: the output items from index N on are the saved values and the boundary is the
//     output step.
//  R10 Bodies. A single-body HOP (above), and a custom op of an ops file that runs as a
//     decomposition (its body instantiated with the call's metas), holds, while its body runs, the body's own peak: the
//     peak of the body's timeline with its placeholders counted as 0 bytes (they are the
//     operands, live in the parent already). The step's liveBytes = live after the step before
//     + max(allocatedBytes, bodyPeakBytes); its liveAfterBytes is as in R7 (the body's
//     temporaries are gone, its outputs are the HOP's allocations). The bodies of cond,
//     while_loop and map_impl are not entered: their outputs are allocations (R2), their
//     temporaries are not counted (the executor does not count them either).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/ir/graph.hpp"

namespace fxl {

class OpRegistry;

struct MemoryOptions
{
    bool countInputs = true;  // R4
    std::optional<size_t> forwardOutputs;  // R9: forward partition graph with N user outputs
    bool usePhaseMeta = true;  // R8: false ignores meta.phase (dataflow only)
    const OpRegistry* registry = nullptr;  // nullptr: OpRegistry::instance()
};

enum class StepPhase : uint8_t
{
    Input,
    Forward,
    Backward,
    Output
};
std::string_view stepPhaseName(StepPhase p);  // "input", "forward", "backward", "output"

struct TimelineStep
{
    NodeId node = kNoNode;
    StepPhase phase = StepPhase::Forward;
    int64_t allocatedBytes = 0;  // allocated by this step (R2)
    int64_t freedBytes = 0;  // freed right after this step (R5)
    int64_t liveBytes = 0;  // while the step runs (R7)
    int64_t liveAfterBytes = 0;  // after its frees
    int64_t bodyPeakBytes = 0;  // R10: the peak inside a single-body HOP's body (0 for other nodes)
};

struct StorageInfo
{
    NodeId node = kNoNode;  // the node that allocated it
    int element = -1;  // tuple element index, -1 for a plain tensor
    int64_t bytes = 0;  // numel * itemsize (0 for inputs when !countInputs)
    int allocStep = 0;
    int freeStep = -1;  // freed after this step; -1: kept to the end
    bool input = false;  // placeholder / get_attr (R4)
    bool output = false;  // returned by the output node (R6)
};

struct SavedValue
{
    NodeId node = kNoNode;
    int step = -1;
    int64_t bytes = 0;  // bytes of its non-input storages
    bool inputBacked = false;  // a parameter / input or a view of one: all of its storages are resident inputs
};

struct MemoryTimeline
{
    std::vector<TimelineStep> steps;  // one per node, in order
    std::vector<StorageInfo> storages;  // in allocation order
    std::vector<std::string> names;  // node name per step (steps[i].node's name)

    int64_t peakBytes = 0;
    int peakStep = -1;
    std::vector<int> liveAtPeak;  // storage indices, largest first (then by step)

    int64_t inputBytes = 0;  // resident input storages (0 when !countInputs)
    int64_t outputBytes = 0;  // non-input storages kept because they are returned
    int64_t finalBytes = 0;  // liveAfterBytes of the last step

    int boundaryStep = -1;  // first backward step (R9); -1: none
    int64_t liveAtBoundaryBytes = 0;  // live after the step before the boundary
    std::string boundaryRule;  // "first backward node", "output descriptors", "forward outputs given"
    std::vector<SavedValue> saved;  // in producer order, activations and inputs
    int64_t savedBytes = 0;  // distinct storages of the saved activations
    size_t savedActivations() const;  // saved values that are not inputBacked
    size_t savedInputs() const;  // inputBacked saved values

    std::vector<std::string> unknownSizes;  // "name" or "name[i]" of tensors counted as 0 bytes
    std::vector<std::string> notes;  // e.g. unknown operators treated as allocations

    const std::string& peakNode() const;  // "" when there are no steps
    std::string storageName(int storage) const;  // "mm", "native_layer_norm[1]"
};

MemoryTimeline computeMemoryTimeline(const Graph& g, const MemoryOptions& opts = {});

// Index of the first output item whose descriptor says it is saved for the backward
// ("SavedForBackwardsAOTOutput(...)"): where a partition's forward graph starts its saved
// values. nullopt when no output carries one.
std::optional<size_t> savedOutputsStart(const Graph& g);

// "51 saved activations (643 KiB), 11 parameters / inputs or views of them": the one way every
// verb prints a saved set.
std::string savedSummary(const MemoryTimeline& t);
std::string savedSummary(size_t activations, int64_t activationBytes, size_t inputs);

struct TimelineComparison
{
    int64_t peakA = 0, peakB = 0, peakDelta = 0;  // delta = b - a
    std::string peakNodeA, peakNodeB;
    int peakStepA = -1, peakStepB = -1;
    int64_t savedA = 0, savedB = 0, savedDelta = 0;
    int64_t finalA = 0, finalB = 0;
    std::string summary;  // "peak 1.23 MiB -> 1.10 MiB (-133 KiB) at mm_4 -> mm_5; saved 456 KiB -> 300 KiB (-156 KiB)"
};

TimelineComparison compareTimelines(const MemoryTimeline& a, const MemoryTimeline& b);

// "peak 1.23 MiB at mm_4 (node 37/120), saved 456 KiB across fw/bw"
// (", no fw/bw boundary" when there is none).
std::string timelineSummary(const MemoryTimeline& t);

// One row per node in execution order: execution_index,node,op,target,phase,allocated_bytes,
// freed_bytes,live_bytes,live_after_bytes; with `before` (the step before's timeline) also
// live_bytes_step_before, its live bytes at the node of the same name (empty where it has none).
std::string timelineToCsv(const MemoryTimeline& t, const Graph& g, const MemoryTimeline* before = nullptr);

// {"summary", "peak": {"bytes", "step", "node", "live": [{"storage", "bytes"}]}, "input_bytes",
//  "output_bytes", "final_bytes", "boundary": {"step", "node", "live_bytes"} | null,
//  "saved": {"bytes", "values": [{"node", "bytes", "input_backed"}]},
//  "steps": [{"node", "phase", "allocated", "freed", "live", "live_after"}],
//  "storages": [{"name", "bytes", "alloc_step", "free_step" | null, "input", "output"}],
//  "unknown_sizes", "notes"}
nlohmann::json timelineToJson(const MemoryTimeline& t);

}  // namespace fxl

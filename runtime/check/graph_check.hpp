// The check of two runs, one API for every front end (fxlens check, the window's run panel,
// the HTML report): A and B run on the very same input tensors, each on fresh copies of its
// constants, and everything a graph changes is compared bit for bit (docs/numerics.md
// section 11):
//   - the outputs, paired by position, or by output node name when one graph's outputs are a
//     reordering or a subset of the other's;
//   - every state either run wrote in place (a placeholder or get_attr tensor written by an
//     op whose schema or arguments say so: ExecResult::writtenInputs), by name, after the
//     runs; a state one graph writes and the other does not, or writes a different number of
//     times, is not equal.
// B may be one graph, a partition of A (its forward, then its backward on the forward's saved
// values handed over in memory, so that their strides and storages are kept and a write the
// backward makes to a saved input reaches the forward's input), or a file of expected values
// (out_K for the outputs, "state.NAME" for the states, as tests/python/make_models.py writes
// them).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/formats/safetensors.hpp"
#include "core/ir/graph.hpp"
#include "runtime/base/backend.hpp"
#include "runtime/check/equivalence.hpp"
#include "runtime/check/localize.hpp"
#include "runtime/exec/executor.hpp"

namespace fxl {

// One graph of a check and the tensors its get_attr nodes read (null: none).
struct CheckGraph
{
    const Graph* graph = nullptr;
    const SafeTensorsFile* constants = nullptr;
};

struct CheckOptions
{
    // A backend for each run (each graph runs on its own); null: a CPU backend with `threads`.
    std::function<std::unique_ptr<Backend>()> makeBackend;
    // B's backend when B runs elsewhere (check --device-b): null: makeBackend's.
    std::function<std::unique_ptr<Backend>()> makeBackendB;
    int threads = 1;
    const SafeTensorsFile* inputs = nullptr;  // A's placeholders by name; the rest generated
    uint64_t seed = 0;  // generated inputs and random ops
    std::optional<Tolerance> tolerance;
    // Compare the values of the nodes A and B share as they are computed (runtime/check/localize.hpp):
    // single graphs only.
    bool localize = false;
    int64_t localizeBudget = int64_t{4} << 30;
    // The report compares B (first) with A (second) instead of A with B (checkGraphs,
    // checkPartition): the window reports its step against the graph before it, which runs
    // first and gives the inputs.
    bool reportBAgainstA = false;
    std::atomic<bool>* cancel = nullptr;
    std::function<void(size_t done, size_t total)> progress;  // nodes run, over all runs
};

// A run failed: `stage` says which graph ("A", "B", "B (forward)", "B (backward)").
class CheckRunError : public std::runtime_error
{
public:
    CheckRunError(std::string stage, const std::string& what)
        : std::runtime_error(what)
        , stage(std::move(stage))
    { }
    std::string stage;
};

// One run of a check.
struct CheckRun
{
    std::shared_ptr<Backend> backend;  // holds the run's values (declared first: destroyed last)
    ExecResult result;
    SafeTensorsFile outputs;  // out_K; Python numbers as 0-dim tensors; None skipped ("skipped" metadata)
    std::vector<std::string> outputNodes;  // the output node's items by position ("" for None / a constant)
    std::vector<std::string> generated;  // placeholders generated (not among the tensors handed over)
};

// How a partition's backward was fed.
struct PartitionFeed
{
    size_t userOutputs = 0;  // forward outputs before the saved values
    std::string userOutputsRule;  // how userOutputs was found
    std::vector<std::string> saved;  // backward placeholders fed from the forward's outputs
    std::vector<std::string> tangentsFromA;  // fed from A's inputs (an AOT joint's tangents)
    std::vector<std::string> seeds;  // fed ones: the loss seed d(loss)/d(loss)
    bool forwardByPosition = false;  // forward placeholders named otherwise than A's: fed by position
};

struct CheckOutcome
{
    SafeTensorsFile inputs;  // A's inputs as used (file and generated): B ran on them too
    std::vector<std::string> generatedInputs;  // A's placeholders generated
    CheckRun a, b;  // b: B's graph, a partition's forward; empty when B is a file
    std::optional<CheckRun> backward;  // a partition's backward
    PartitionFeed partition;
    EquivalenceReport report;
    std::string mappedBy;  // "position", "output node name", "name" (a file), "partition"
    std::optional<LocalizeReport> localize;
    Verdict verdict = Verdict::Different;
};

// A against B. Throws CheckRunError when a run fails (a kernel error names the node),
// InputError for bad inputs.
CheckOutcome checkGraphs(const CheckGraph& a, const CheckGraph& b, const CheckOptions& opts);

// A against expected values: out_K by name, "state.NAME" for each state A writes (a file with
// no state entries was written without them: A's states are then listed, not compared).
CheckOutcome checkAgainstValues(const CheckGraph& a, const SafeTensorsFile& expected, const CheckOptions& opts);

// A (a joint graph) against its partition: the forward on A's inputs (by name, or by position
// when none of its names is A's), then the backward on the forward's saved values, A's
// tangents and ones for a loss seed; A's outputs against the forward's user outputs followed
// by the backward's outputs, by position.
CheckOutcome checkPartition(const CheckGraph& a, const CheckGraph& forward, const CheckGraph& backward,
                            const CheckOptions& opts);

// Where a partition's forward graph starts its saved values: its output descriptors, else the
// first output from which every output is a placeholder of the backward. `rule` says which.
size_t partitionUserOutputs(const Graph& forward, const Graph& backward, std::string& rule);

// A run's outputs as a file of values, as tests/python/run_fx_graph.py writes PyTorch's: out_K
// per position, Python numbers as 0-dim tensors (int -> i64, float -> f32, bool -> bool), None
// skipped (listed in metadata "skipped"); then, with `withStates`, each written input's value
// after the run as stateKey (what checkAgainstValues compares).
SafeTensorsFile outputValuesFile(const ExecResult& r, Backend& backend, bool withStates = false);

// The output node's items by position: node names ("" for None or a constant).
std::vector<std::string> outputNodeNames(const Graph& g);

// "out_3" -> "out_3 (mm_4)" by the output node names; other names unchanged.
std::string outputLabel(const std::string& key, const std::vector<std::string>& outputNodes);

// Building blocks of the checks (runtime/check/chunk_check.hpp runs its own sequence):
// a backend for one run (opts.makeBackend, else a CPU backend with opts.threads; for B's runs
// opts.makeBackendB first);
std::unique_ptr<Backend> newCheckBackend(const CheckOptions& opts, bool sideB = false);
// the executor options of one run of `g` on `backend` (threads, seeds, cancel, g's constants);
ExecOptions checkExecOptions(const CheckOptions& opts, Backend& backend, const CheckGraph& g);
// runs `g` into `run` (run.backend set, e.backend = it), its outputs as a file; a kernel
// error becomes CheckRunError(stage), a cancel CancelledError.
void runCheckGraph(CheckRun& run, const Graph& g, ExecOptions e, const std::string& stage);

// "buffer bn1.running_var" / "input arg10_1": how a written state is named in reports.
std::string stateLabel(const WrittenInput& w);
// "state.bn1.running_var" / "state.arg10_1": its entry in a file of expected values.
std::string stateKey(const WrittenInput& w);

}  // namespace fxl

// Runs a graph (nested graphs of higher-order ops too) on a backend: inputs from a
// safetensors file or generated from the placeholders' meta with a seed, get_attr constants
// from the graph's constants file; frees every value after its last use by the rules of the
// memory timeline (core/analysis/memory_timeline.hpp R1-R10), so the measured peak can be compared
// with the estimate; writes outputs to safetensors; cancellable, with progress callbacks.
//
// Higher-order ops (invoke_subgraph, tag_activation_checkpoint, wrap_with_set_grad_enabled,
// wrap_with_autocast (no-op casts only), cond, while_loop, map_impl) run their nested graphs;
// flex_attention / flex_attention_backward run by PyTorch's dense math definition, their
// score_mod / mask_mod / joint graphs as unaccounted bodies (runtime/composite/flex_attention.hpp);
// run_and_save_rng_state / run_with_rng_state run the op they wrap with the run's Philox
// generator state (an i64[2] {seed, offset} tensor; PyTorch's CUDA uint8[16] layout is
// accepted; run_with_rng_state restores the generator afterwards, as PyTorch does). Bodies:
// a body's placeholders bind to the operands in order and the HOP's value is what the body's
// output node returns (a tuple). Accounting, as the timeline: a HOP node counts its outputs
// like a multi-output op (distinct storages, R2/R3); a body's temporaries are freed after their
// last use inside the body; while the body of a single-body HOP (invoke_subgraph,
// tag_activation_checkpoint, wrap_with_set_grad_enabled, wrap_with_autocast) runs, its values
// are accounted and the HOP's step in liveBytesPerStep is the larger of its bodies' peak and
// its outputs (timeline rule R10); the bodies of cond, while_loop and map_impl are not
// accounted (Backend::peakBytes sees them). A body that returns one of its operands
// passes that storage through (no new allocation), as timeline rule R3 says for single-body
// HOPs; getitem follows nested tuples (run_and_save_rng_state's (state, (out, mask))) on both
// sides.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/formats/safetensors.hpp"
#include "core/ir/graph.hpp"
#include "runtime/base/backend.hpp"
#include "runtime/base/value.hpp"

namespace fxl {

struct ExecOptions
{
    Backend* backend = nullptr;  // nullptr = a CPU backend made for the run
    int threads = 2;  // for the CPU backend made for the run
    // Inputs by placeholder name (safetensors keys). Missing ones are generated (below)
    // unless requireAllInputs.
    const SafeTensorsFile* inputs = nullptr;
    bool requireAllInputs = false;
    // Values of the top-level placeholders in placeholder order, already on the backend
    // (runtime/check/eager_chunking.hpp runs sub-graphs on values it holds). When set, `inputs`,
    // `requireAllInputs` and `inputSeed` are not used, and the count must match.
    const std::vector<Value>* inputValues = nullptr;
    uint64_t inputSeed = 0;  // generated inputs: Philox normal(0,1) floats, ints in [0, 16)
    // get_attr constants by attribute name ("_tensor_constant0").
    const SafeTensorsFile* constants = nullptr;
    uint64_t rngSeed = 0;  // for random ops in the graph
    std::atomic<bool>* cancel = nullptr;  // set to true to stop between nodes
    std::function<void(size_t done, size_t total, const Node&)> progress;
    // Called for each node of the top-level graph (placeholders and get_attr too, not the
    // output node) right after its value is computed and bound, before the values whose last
    // use it was are freed, so the node's own value and its operands are still alive. The
    // value is lent: copy what is kept (Backend::download), do not keep the Value. Observing
    // does not change the results, the measured live bytes or peak (the hook's copies live
    // outside the backend's accounting) or the order of execution. Nested graphs' nodes are
    // not reported (their HOP node is, with its value). Used by runtime/check/localize.hpp.
    std::function<void(const Node&, const Value&)> onValue;
    // Called when the accounting takes in a storage (alloc: a value's storage becomes live) or
    // lets it go (its last live value freed), with the node being run (the one whose output it
    // is, or whose step freed it; a body's node inside a higher-order op). The events sum to the
    // measured live bytes at every moment (what `fxlens run --memory-snapshot` records).
    // Storages of no bytes are not reported.
    struct StorageEvent
    {
        bool alloc = true;
        uint64_t address = 0;  // the storage's data pointer (device memory on a device)
        int64_t bytes = 0;
        const Node* node = nullptr;
        const Graph* graph = nullptr;  // the node's graph
    };
    std::function<void(const StorageEvent&)> onStorage;
    bool countInputs = true;  // as MemoryOptions::countInputs
    // A clock read per top-level step, for ExecResult::slowest (off: a step loop that does not
    // look at it saves about 0.02 us per node).
    bool timeSteps = true;
    // while_loop guard: a loop whose condition is still true after this many iterations
    // throws KernelError naming the node.
    int64_t maxLoopIterations = 1000000;
};

struct NodeTiming
{
    std::string node;
    double seconds = 0.0;
};

// A placeholder or get_attr tensor a run wrote in place: by an op whose schema or arguments
// say it writes (core/ops/op_writes.hpp), directly, through a view of it, or inside a
// higher-order op's body. What `fxlens check` compares besides the outputs.
struct WrittenInput
{
    std::string name;  // the placeholder's name; the get_attr node's target
    bool constant = false;  // a get_attr tensor
    std::vector<std::string> writers;  // the nodes that wrote it, one entry per write, in run order
    Value value;  // its value after the run (on the run's backend)
};

struct ExecResult
{
    // The backend made for the run when ExecOptions::backend was null: the outputs' storages
    // are released through it, so it must outlive them (declared first: destroyed last).
    std::shared_ptr<Backend> ownedBackend;
    std::vector<Value> outputs;  // the output node's items, flattened one level
    std::vector<std::string> outputNames;  // "out_0", "out_1", ...
    int64_t peakBytes = 0;  // measured live bytes high-water mark
    std::string peakNode;  // node during which the peak was reached
    std::vector<int64_t> liveBytesPerStep;  // after allocating each node's outputs (R7)
    double seconds = 0.0;
    std::vector<NodeTiming> slowest;  // top 20 nodes by time (none without ExecOptions::timeSteps)
    std::vector<WrittenInput> writtenInputs;  // in the order of their first write
    bool cancelled = false;
    // metadata-only views given from a layout an earlier run of the same GraphRunner learnt
    // (no kernel called); 0 for executeGraph and a GraphRunner's first run
    int64_t viewsFromPlan = 0;
};

// Throws KernelError (message names the node) or InputError (bad inputs file / shapes).
// A top-level node that cannot run (unknown operator, no kernel) fails the run before any
// node runs.
ExecResult executeGraph(const Graph& g, const ExecOptions& opts = {});

// A graph made ready for many runs on one backend (a training loop's steps, a benchmark's
// repetitions): the plans of the graph and of its nested graphs, the argument recipes, the
// kernels looked up, and the layouts of the metadata-only views (`view`, `t`, `transpose`,
// `expand`, `split`, ...) learnt on the first run are kept, so a later run plans nothing and
// gives each such view from its input's layout without calling a kernel. Every run is the run
// executeGraph makes (the same values, the same accounting and peak); one run at a time.
class GraphRunner
{
public:
    // Plans `g` (which must outlive this) for `backend`; throws, before anything runs, the
    // KernelError a run would throw for a top-level node that cannot run (as requireRunnable).
    GraphRunner(const Graph& g, Backend& backend);
    ~GraphRunner();
    GraphRunner(const GraphRunner&) = delete;
    GraphRunner& operator=(const GraphRunner&) = delete;
    // One run, as executeGraph(g, opts) with opts.backend the backend given above (opts.backend
    // must be null or that backend; opts.threads is not used). Throws as executeGraph does.
    ExecResult run(const ExecOptions& opts);

private:
    friend ExecResult executeGraph(const Graph& g, const ExecOptions& opts);
    struct State;
    std::unique_ptr<State> state_;
};

// Throws the KernelError executeGraph would throw, before running anything, for a top-level
// node that cannot run on `device` (unknown operator, unsupported higher-order operator, no
// kernel): a caller can refuse before it spends time making inputs.
void requireRunnable(const Graph& g, DeviceKind device = DeviceKind::Cpu);

// The placeholder tensors a run with `opts` uses (from opts.inputs, else generated exactly as
// executeGraph generates them), keyed by placeholder name, in placeholder order: feed the
// result to another graph's run for identical inputs. SymInt placeholders without a file
// entry are left out (both runs derive them from their hints). `generated` (optional)
// receives the names of the generated ones. Throws as executeGraph does for bad inputs.
SafeTensorsFile resolveInputs(const Graph& g, const ExecOptions& opts, std::vector<std::string>* generated = nullptr);

// Output tensors as a safetensors file (names out_0, ...; None and non-tensor outputs skipped
// and listed in metadata "skipped").
SafeTensorsFile outputsToSafetensors(const ExecResult& r, Backend& backend);
// One value as a tensor of a file, its bytes copied from the backend (empty data when it is not a tensor).
SafeTensor valueToSafeTensor(const std::string& name, const Value& v, Backend& backend);

}  // namespace fxl

// The eager-chunking reference (docs/numerics.md section 11.4): runs an unchunked graph the
// way eager module-level chunking would, so that a graph rewritten by a chunk pass can be
// compared with it bitwise. Written independently of the passes (it sees only core).
//
// Given the original graph, a ChunkSpec (core/analysis/chunk_spec.hpp) and inputs:
//  - every root a pattern of spec.regions selects (regionRoots) is a region with a forward
//    segment (its call nodes of phase forward/loss) and a backward segment (its backward call
//    nodes); with no patterns the whole graph is one region of one segment (all call nodes);
//  - nodes outside every region run once; a segment runs once per chunk (chunkSizes of the
//    length N of dim chunkAxisDim(spec.axis) of the data inputs), as a super-node of the
//    contracted graph in topological order (a segment that cannot be contracted is an error);
//  - a segment's live-ins: a value of the same root's forward segment -> that chunk's own
//    value; an activation (depends on a data input) -> piece k along the axis (a size-1 dim
//    there is passed whole); anything else (parameters, constants, their derivatives) whole;
//  - the size arguments of a chunk run follow the chunk: view / reshape / _reshape_alias /
//    _unsafe_view of a chunked value scale the output dim that holds the chunk axis (found
//    from the flat extent of the axis, so merged dims such as [B*T, C] work), expand of a
//    chunked value takes its chunk size, and factories (zeros, full, ...) and expands of
//    unchunked values whose size at the axis dim is N take n_k (as the module would compute
//    x.shape[axis]), and a mean's backward traced as div(expand(grad), count) divides a chunk
//    by the chunk's count;
//  - live-outs (used outside the segment, or graph outputs) are combined: a value that does not
//    depend on the data inputs is chunk 0's (every chunk computes it alike); a chunk value of the
//    full value's shape is summed in chunk order (acc = c0; acc = acc + c1; ...), a value with
//    one dim differing whose pieces add up is concatenated along it; anything else is an error;
//  - gradient accumulation: in whole-graph mode, when the loss (the first output) is a mean
//    (aten.mean.*, or a loss op whose reduction is mean: nll_loss_forward's getitem 0,
//    mse_loss, l1_loss, smooth_l1_loss, huber_loss, binary_cross_entropy(_with_logits),
//    kl_div, soft_margin_loss, nll_loss, cross_entropy_loss; reduction given as 1 or left
//    at its default, which is mean), chunk k's backward seed (ones_like(loss) of a make_fx
//    joint graph, or the first tangents_* placeholder of an AOT joint graph) is w_k = n_k / N
//    instead of one, and the loss is combined as sum_k loss_k * w_k in chunk order.
// The sums, products and cats run as aten kernels on the executor, so they round exactly as
// the same nodes in a chunked graph do; the result does not depend on the thread count.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/analysis/chunk_spec.hpp"
#include "core/ir/graph.hpp"
#include "runtime/base/backend.hpp"
#include "runtime/base/value.hpp"
#include "runtime/exec/executor.hpp"

namespace fxl {

enum class ChunkCombine : uint8_t
{
    Outside,  // computed once, outside every region
    Cat,  // cat of the chunk pieces along `dim`
    Sum,  // sum of the chunk values in chunk order
    WeightedSum,  // sum of loss_k * w_k in chunk order (gradient accumulation)
    PerChunk,  // a value used only by the same root's backward (never combined)
    Same,  // does not depend on the data (a parameter's view): every chunk computes it alike, chunk 0's
};
// "outside", "cat", "sum", "weighted_sum", "per_chunk", "same"
std::string_view chunkCombineName(ChunkCombine c);

struct EagerOutputInfo
{
    std::string name;  // out_0, out_1, ...
    std::string node;  // the output node's item (node name), "" when not a node
    ChunkCombine combine = ChunkCombine::Outside;
    int dim = -1;  // Cat
    int pieces = 0;  // Cat / Sum / WeightedSum: number of chunk values
    std::string region;  // root of the segment that produced it ("" outside, "<whole graph>")
    bool seedWeighted = false;  // a gradient of a backward seeded with w_k
    std::string how() const;  // "outside every region", "cat along dim 0 of 2 pieces", ...
};

struct EagerLiveIn
{
    std::string node;
    std::string how;  // "sliced", "whole", "per_chunk", "broadcast", "seed"
    int dim = -1;  // sliced
};

struct EagerLiveOut
{
    std::string node;
    ChunkCombine combine = ChunkCombine::Sum;
    int dim = -1;
};

struct EagerSegment
{
    bool backward = false;  // whole graph: false (one segment)
    int nodes = 0;  // call nodes in the segment
    std::vector<EagerLiveIn> liveIns;
    std::vector<EagerLiveOut> liveOuts;
    std::vector<std::string> rewrittenSizes;  // "view_3: [4, 16, 256] -> [4, 8, 256] (chunk 0)"
};

struct EagerRegionInfo
{
    std::string root;  // "blocks.0"; "<whole graph>" for the whole-graph region
    std::vector<EagerSegment> segments;  // forward first, then backward when present
};

// A region live-out as the reference combined it (kept with keepLiveOuts).
struct EagerLiveOutValue
{
    std::string node;
    std::string region;
    ChunkCombine combine = ChunkCombine::Sum;
    SafeTensor value;  // copied when combined (a later in-place write does not reach it); empty when not a tensor
};

struct EagerChunkResult
{
    // Owns the outputs' storages when the options named no backend (destroyed last).
    std::shared_ptr<Backend> ownedBackend;
    std::vector<Value> outputs;  // in the graph's output order
    std::vector<std::string> outputNames;  // out_0, out_1, ... as executeGraph names them
    std::vector<EagerOutputInfo> outputInfo;  // one per output
    std::vector<EagerRegionInfo> regions;
    ChunkSpec spec;
    int64_t axisLength = 0;  // N
    std::vector<int64_t> chunkSizes;  // n_k
    std::vector<std::string> dataInputs;
    int outsideNodes = 0;  // call nodes run once outside every region
    // Gradient accumulation (whole graph with a mean loss): why it applies or not.
    bool weighted = false;
    std::string weighting;  // "loss 'getitem' is nll_loss_forward with reduction mean; seed 'ones_like'"
    std::vector<double> weights;  // w_k when weighted
    int subgraphRuns = 0;  // executor runs the reference made
    std::vector<EagerLiveOutValue> liveOutValues;  // with keepLiveOuts, in the order they were combined
};

// Throws std::invalid_argument for a bad spec for this graph (a pattern with no roots, an
// unknown input, data inputs disagreeing on N, a live-in whose axis size is not N, a segment
// that cannot be contracted, a live-out that cannot be combined) and KernelError / InputError
// as executeGraph does. opts: backend, threads, inputs / inputSeed, constants, rngSeed as for
// executeGraph (the inputs are resolved once, as resolveInputs does, and shared by every run).
// keepLiveOuts: the combined live-outs of the segments are kept in liveOutValues.
EagerChunkResult runEagerChunking(const Graph& original, const ChunkSpec& spec, const ExecOptions& opts = {},
                                  bool keepLiveOuts = false);

// The outputs as a safetensors file (out_0, ...), as outputsToSafetensors writes a run's; `b` is
// the backend the reference ran on (the options' or r.ownedBackend).
SafeTensorsFile eagerOutputsToSafetensors(const EagerChunkResult& r, Backend& b);

// withOutputs: a line per output saying how it was obtained.
std::string eagerChunkingToText(const EagerChunkResult& r, bool withOutputs = true);
nlohmann::json eagerChunkingToJson(const EagerChunkResult& r);

}  // namespace fxl

// What to chunk: which module regions, along which axis of the data, into how many pieces.
// Shared by the chunk_region pass (passes/), the eager-chunking reference (runtime/), the CLI's
// `check --against eager-chunking --chunks SPEC` and the viewer's run panel. It only names
// and classifies; the passes and the reference each do their own chunking.
//
// Text form: comma-separated name=value items, lists separated by ';':
//   "regions=blocks.*;layers.*.mlp,dim=batch,chunks=2"
//   "dim=seq,chunks=4,split=chunk,inputs=arg0_1;arg1_1"
//   regions  module-path patterns; '*' matches exactly one path component. A pattern selects
//            every module path it matches as a prefix (the region roots: "blocks.*" gives
//            blocks.0 and blocks.1). Omitted or empty: the whole graph is one region.
//   dim      batch (dimension 0 of the data inputs) or seq (dimension 1). Default batch.
//   chunks   number of pieces, >= 1. Default 2.
//   split    tensor_split (default: sizes differ by at most one, the larger ones first,
//            10 in 4 -> 3,3,2,2) or chunk (torch.chunk: ceil(n/k) each, the last smaller,
//            10 in 4 -> 3,3,3,1, possibly fewer pieces than asked).
//   inputs   the data placeholders (whose axis is chunked). Default: dataInputs(graph).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/graph.hpp"

namespace fxl {

enum class ChunkAxis : uint8_t
{
    Batch,
    Seq
};
std::string_view chunkAxisName(ChunkAxis a);  // "batch", "seq"
inline int chunkAxisDim(ChunkAxis a) { return a == ChunkAxis::Batch ? 0 : 1; }

enum class ChunkSplit : uint8_t
{
    TensorSplit,
    Chunk
};

struct ChunkSpec
{
    std::vector<std::string> regions;  // empty: the whole graph
    ChunkAxis axis = ChunkAxis::Batch;
    int chunks = 2;
    ChunkSplit split = ChunkSplit::TensorSplit;
    std::vector<std::string> inputs;  // empty: dataInputs(graph)

    bool wholeGraph() const { return regions.empty(); }
    // The canonical text (parseChunkSpec(str()) == *this): every item, defaults included.
    std::string str() const;
    bool operator==(const ChunkSpec& o) const = default;
};

// Throws InputError (file "<chunks>", line 1, column of the offending item) naming what was
// expected: an unknown item (with the nearest spelling), a bad dim, chunks < 1 or not a number,
// an empty pattern component ("blocks..attn").
ChunkSpec parseChunkSpec(std::string_view text);

// The sizes of the pieces of a length-n axis: tensor_split or chunk semantics (above). Pieces
// are never empty: n < k gives n pieces of 1 with tensor_split semantics too.
std::vector<int64_t> chunkSizes(int64_t n, int k, ChunkSplit split = ChunkSplit::TensorSplit);

// Whether `path` is `root` or inside it ("blocks.0.attn" is inside "blocks.0", "blocks.01" is not).
bool insideModule(std::string_view path, std::string_view root);
// The root a pattern selects in `path`, when the pattern matches a prefix of it:
// ("blocks.*", "blocks.1.attn.c_attn") -> "blocks.1"; ("blocks.*.mlp", "blocks.0.attn") -> "".
std::string matchRoot(std::string_view pattern, std::string_view path);
// Every root a pattern selects among the graph's module paths, in order of first appearance.
std::vector<std::string> regionRoots(const Graph& g, std::string_view pattern);

// The data placeholders of a training step: the names in `named` when given (an unknown name
// throws std::invalid_argument naming it), else those described as PlainAOTInput (the loaders
// describe the placeholders of a graph with a params.json sidecar this way, and AOT graphs
// print the descriptions). Throws std::invalid_argument when no placeholder is described: data
// cannot be told from parameters then, and the message says to name them (inputs=a;b).
std::vector<NodeId> dataInputs(const Graph& g, const std::vector<std::string>& named = {});

}  // namespace fxl

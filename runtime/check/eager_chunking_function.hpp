// Whether a chunk run of an eager-chunking segment computes what eager chunking means
// (docs/numerics.md section 11.4): each chunk runs the segment on its own rows, and the chunks'
// live-outs are concatenated or added up. That is the module's function only when
//  - no node needs the whole chunk axis: batch statistics (BatchNorm in training mode), a
//    softmax, norm, cumulative op, sort or pooling window along the axis, a mean or max over it,
//    a slice, select or index along it;
//  - a sum over the axis (a parameter's gradient: sum, a matmul contracting the rows, the
//    weight gradients of convolution and the norms, embedding backward) is only added up and
//    scaled until it leaves the segment, where the chunks' values are summed: adding to it a
//    value every chunk has whole (a gradient another region summed already, a parameter) would
//    count that value once per chunk.
// The check reads where the chunk axis lies in each value from the chunk run's shapes (a dim
// whose size differs from the unchunked graph's), not from the passes' analysis.
#pragma once

#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/ir/graph.hpp"

namespace fxl {

// Where the chunk axis lies in a value of a chunk run: dim `dim` of the original value holds
// outer x N x inner elements of the axis (merged dims such as [B*T, C] have outer or inner > 1).
struct ChunkInfo
{
    int dim = -1;  // -1: not chunked; -2: in more than one dim
    int64_t outer = 1, inner = 1;
};

enum class ChunkKind : uint8_t
{
    Free,  // the same in every chunk (computed from values every chunk has whole)
    Axis,  // carries the chunk axis: the chunk's rows
    Partial,  // the chunk's part of a sum over the axis: the chunks' values add up to it
    Local,  // per chunk by design: the chunk's loss under gradient accumulation, its seed
};
std::string_view chunkKindName(ChunkKind k);  // "free", "axis", "partial", "local"

struct ChunkRunCheck
{
    const Graph* run = nullptr;  // the chunk run: placeholders are the live-ins, call nodes named as in the original
    const std::unordered_map<std::string, ChunkInfo>* info = nullptr;  // by node name
    std::unordered_map<std::string, ChunkKind> liveIns;  // by placeholder name; absent: Free, or Axis by info
    std::set<std::string> local;  // nodes whose value is per chunk by design (the weighted loss)
    std::string where;  // "blocks.0 (backward)"
    int64_t n = 0;  // the axis length N
};

// The chunk's rows meet a value made in the run by a factory (zeros, ones, full, empty) with
// the whole axis length N at one dim of its literal sizes: eager chunking makes it with the
// chunk's length there (nn.LSTM's zeros(1, x.size(0), d)), so the reference plans the run again
// with that dim following the chunk.
class WholeAxisFactory : public std::invalid_argument
{
public:
    WholeAxisFactory(const std::string& what, std::string factoryNode, int factoryDim)
        : std::invalid_argument(what)
        , factory(std::move(factoryNode))
        , dim(factoryDim)
    { }
    std::string factory;
    int dim = -1;
};

// The kind of every value of the run, by node name. Throws std::invalid_argument naming the first
// node that needs the whole axis, or that uses a partial sum other than by adding it up, and why.
std::unordered_map<std::string, ChunkKind> checkChunkRun(const ChunkRunCheck& c);

}  // namespace fxl

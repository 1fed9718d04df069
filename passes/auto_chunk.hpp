// auto_chunk: the AutoChunker (docs/passes.md, auto_chunk). Finds the amplifying matmul before
// the backward, propagates chunking metadata (passes/auto_chunk_rules.hpp) and runs the region
// that touches the amplified tensor in N chunks through invoke_subgraph calls of one extracted
// sub-graph per chunk size, accumulators threaded call to call, the tangent scale applied once
// at the end.
#pragma once

#include <memory>
#include <string_view>

#include "core/ir/graph.hpp"
#include "passes/pass.hpp"

namespace fxl {

std::unique_ptr<Pass> makeAutoChunkPass();

// The attribute names (and class names) of the sub-graphs auto_chunk makes: "chunking_subgraph_0",
// ...; a graph holding one was produced by the chunker and is never chunked again.
inline constexpr std::string_view kAutoChunkSubgraphPrefix = "chunking_subgraph_";

}  // namespace fxl

// How many threads a run uses when the user names none. Splitting a kernel between threads
// costs a hand-off (and, on a busy or virtual machine, sometimes a whole scheduler slice while
// one thread waits for the other), so small kernels lose by it: the corpus' tiny models and
// the 100k-node graph of small ops run faster on one thread (tests/bench/RESULTS.md). More
// than one thread only pays when large kernels carry a good part of the graph's work.
//
// The rule: each node's work is estimated from its output meta (a matmul-like op: 2*M*N*K
// flops; any other op that allocates: 8 flop-equivalents per output element; views and
// getitems nothing). A node is large when it is a matmul of at least kLargeMatmulFlops or
// another op of at least kLargeElements output elements. The run uses `maxThreads` when the
// large nodes carry at least a quarter of the estimated work, else 1.
#pragma once

#include <cstdint>
#include <string>

#include "core/ir/graph.hpp"

namespace fxl {

inline constexpr int64_t kLargeMatmulFlops = int64_t(1) << 26;  // ~67 MFLOP: a 256x512x512 product
inline constexpr int64_t kLargeElements = int64_t(1) << 20;  // 1M output elements

struct ThreadChoice
{
    int threads = 1;
    int64_t work = 0;  // estimated flop-equivalents of the whole graph
    int64_t largeWork = 0;  // of its large nodes
    size_t largeNodes = 0;
    std::string reason;  // "1 of 3 nodes large, 99% of the work: 2 threads"
};

ThreadChoice chooseThreads(const Graph& g, int maxThreads);

}  // namespace fxl

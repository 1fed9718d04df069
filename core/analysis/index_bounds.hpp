// The values integer tensors must stay below for the operators that read them as indices:
// embedding and index_select indices, gather / scatter / index indices, nll_loss targets,
// one_hot classes. A generated integer input (fxlens run --seed) takes values its consumers
// accept, so that a graph runs without a file of real indices: bounds flow backwards from each
// consumer through the ops that keep values (views, copies, casts) to the placeholder.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>

#include "core/ir/graph.hpp"

namespace fxl {

// Exclusive upper bound of each integer-valued node some consumer indexes with (the smallest
// over its consumers), by node id. Nodes no consumer bounds are absent. Sizes are the meta's
// concrete sizes or hints; a consumer whose bounding size is unknown adds no bound.
std::unordered_map<NodeId, int64_t> indexUpperBounds(const Graph& g);

}  // namespace fxl

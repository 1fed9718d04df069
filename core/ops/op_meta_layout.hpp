// Tensor layouts in the meta functions: contiguity and memory formats, the strides of new
// tensors (empty_like with preserve_format), broadcasting and PyTorch's output-stride rules
// (TensorIterator, torch/_prims_common).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/tensor_meta.hpp"
#include "core/ops/op_meta_symint.hpp"

namespace fxl::meta {

Sizes contiguous(const Sizes& sizes);
bool isContiguous(const TensorMeta& t);
bool isChannelsLastContiguous(const TensorMeta& t);  // 4-d and 5-d only
bool isNonOverlappingAndDense(const TensorMeta& t);
bool isChannelsLastStrides(const TensorMeta& t);  // suggest_memory_format() == channels_last
Sizes channelsLastStrides(const Sizes& sizes);  // 4-d / 5-d
// Strides of empty_like(t) for a memory_format ("preserve_format" when empty).
Sizes stridesLike(const TensorMeta& t, std::string_view memoryFormat);
// Strides of a new tensor of `sizes` in memory format (contiguous / channels_last ...).
Sizes stridesFor(const Sizes& sizes, std::string_view memoryFormat);

int64_t wrapDim(int64_t dim, int64_t ndim, bool allowScalar = true);

Sizes broadcastShapes(const std::vector<const Sizes*>& shapes);
// Strides of TensorIterator's output for inputs broadcast to `shape`.
// `scalarOperand`: a wrapped Python scalar is one of TensorIterator's operands (it
// defeats the same-shape fast setup).
Sizes iteratorStrides(const Sizes& shape, const std::vector<const TensorMeta*>& inputs, bool scalarOperand = false);
// compute_elementwise_output_strides from torch/_prims_common.
Sizes primsElementwiseStrides(const Sizes& shape, const std::vector<const TensorMeta*>& inputs);
std::string deviceOfInputs(const std::vector<const TensorMeta*>& inputs);

}  // namespace fxl::meta

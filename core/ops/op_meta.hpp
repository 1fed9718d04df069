// Building blocks shared by the meta (shape) functions in op_meta_<group>.cpp, one header
// for all of them: symbolic size arithmetic that keeps hints (op_meta_symint), argument
// readers (op_meta_args), layouts, broadcasting and PyTorch's output-stride rules
// (op_meta_layout), type promotion (op_meta_promotion).
// Internal to core: include only from op_meta*.cpp and shape_prop.cpp.
#pragma once

#include <string>
#include <unordered_map>

#include "core/ops/op_meta_args.hpp"
#include "core/ops/op_meta_layout.hpp"
#include "core/ops/op_meta_promotion.hpp"
#include "core/ops/op_meta_symint.hpp"
#include "core/ops/op_registry.hpp"

namespace fxl::meta {

// One table of meta functions per operator group (op_meta_<group>.cpp registers into it).
using MetaTable = std::unordered_map<std::string, MetaFn>;

// New tensor metas.
TensorMeta makeTensor(DType dt, Sizes sizes, Sizes strides, std::string device);
TensorMeta makeContiguous(DType dt, Sizes sizes, std::string device);
inline ValueMeta tensorValue(TensorMeta t) { return ValueMeta::ofTensor(std::move(t)); }

}  // namespace fxl::meta

// Meta functions of pointwise ops: broadcasting, type promotion with wrapped Python scalars
// and TensorIterator's output strides.
#pragma once

#include "core/ops/op_meta.hpp"

namespace fxl::meta {

void registerPointwise(MetaTable& t);

}  // namespace fxl::meta

// Meta functions of matmuls, normalizations, softmax, losses, embedding, attention, dropout
// and convolution.
#pragma once

#include "core/ops/op_meta.hpp"

namespace fxl::meta {

void registerNn(MetaTable& t);

}  // namespace fxl::meta

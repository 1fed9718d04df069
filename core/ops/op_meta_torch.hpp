// Meta functions of the torch-level calls of Dynamo graphs and of side-effect builtins.
#pragma once

#include "core/ops/op_meta.hpp"

namespace fxl::meta {

void registerTorchFunctions(MetaTable& t);

}  // namespace fxl::meta

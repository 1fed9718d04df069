// Meta functions of reductions and scans.
#pragma once

#include "core/ops/op_meta.hpp"

namespace fxl::meta {

void registerReductions(MetaTable& t);

}  // namespace fxl::meta

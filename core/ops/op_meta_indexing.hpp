// Meta functions of indexing, scatter/gather, sorting and the data-dependent ops.
#pragma once

#include "core/ops/op_meta.hpp"

namespace fxl::meta {

void registerIndexing(MetaTable& t);

}  // namespace fxl::meta

// Meta functions of factories and of copies / casts.
#pragma once

#include "core/ops/op_meta.hpp"

namespace fxl::meta {

void registerFactories(MetaTable& t);

}  // namespace fxl::meta

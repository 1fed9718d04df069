// Meta functions of shape-building ops, backward-of-view ops, scatters into views, functional
// collectives, symbolic-int ops, foreach ops and operator.getitem.
#pragma once

#include "core/ops/op_meta.hpp"

namespace fxl::meta {

void registerMisc(MetaTable& t);

}  // namespace fxl::meta

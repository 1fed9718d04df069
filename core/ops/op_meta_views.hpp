// Meta functions of view ops (sizes, strides and storage offset of the alias), and the view
// building blocks other groups share.
#pragma once

#include "core/ops/op_meta.hpp"

namespace fxl::meta {

void registerViews(MetaTable& t);

// View building blocks shared with other groups and with shape propagation.
TensorMeta sliceMeta(const TensorMeta& self, int64_t dim, std::optional<SymInt> start, std::optional<SymInt> end,
                     SymInt step);
TensorMeta selectMeta(const TensorMeta& self, int64_t dim, SymInt index);

}  // namespace fxl::meta

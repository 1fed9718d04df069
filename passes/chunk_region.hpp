// chunk_region: runs selected module regions (transformer blocks, an MoE block) once per chunk of
// their activation inputs along batch or sequence, the way eager module-level chunking would:
// activation live-ins are split (tensor_split sizes), the activation-dependent part of the
// region is duplicated per chunk, parameter-derived nodes stay shared, live-outs are
// concatenated along the axis (or summed in chunk order with a proof: parameter gradients,
// graph outputs such as a tokens-per-expert histogram), forward per-chunk values are handed
// to the same region's backward chunk by chunk, and buffer mutations are chained.
// Guardrails and the change log are described in docs/passes.md.
#pragma once

#include <memory>

#include "passes/pass.hpp"

namespace fxl {

std::unique_ptr<Pass> makeChunkRegionPass();

}  // namespace fxl

// How computeMemoryTimeline walks a graph (internal to core/analysis/memory_timeline*.cpp):
// the storages every node allocates or aliases, when each is freed, the live bytes per step,
// the forward/backward phases and the values saved across them, by the rules R1..R9 listed
// in memory_timeline.hpp.
#pragma once

#include "core/analysis/memory_timeline.hpp"

namespace fxl {

// Fills `t` (empty on entry) with the timeline of `g`.
void buildMemoryTimeline(const Graph& g, const MemoryOptions& opts, MemoryTimeline& t);

}  // namespace fxl

// `fxlens mem SNAPSHOT.pickle`: a CUDA memory snapshot (torch.cuda.memory._dump_snapshot) read
// without Python: per device its segments, the active-memory timeline by memory_viz's rules,
// its peak with what is live there and the stacks that allocated it, the largest allocations.
#pragma once

#include "app/cli.hpp"

namespace fxl::cli {

int runMemSnapshot(const Args& args, Io& io);

}  // namespace fxl::cli

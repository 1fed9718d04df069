// fxlens check CHUNKED ORIGINAL --against eager-chunking --chunks SPEC: a chunked graph against
// the eager-chunking reference (runtime/check/eager_chunking.hpp) run on the original graph, and
// against the original run unchunked, with the peaks of both (docs/numerics.md section 11.4).
#pragma once

#include "app/cli.hpp"

namespace fxl::cli {

// Called by runCheck when --against eager-chunking is given. Exit code 0 when every output is
// bitwise equal to the reference, 1 otherwise or on input errors; a bad --chunks is a
// UsageError (exit 2) naming the column of the bad item.
int runCheckChunks(const Args& args, Io& io);

}  // namespace fxl::cli

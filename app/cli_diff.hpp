// The `diff` verb of the command line.
#pragma once

#include "app/cli.hpp"

namespace fxl::cli {

// fxlens diff: what changed between two graphs.
int runDiff(const Args& args, Io& io);

}  // namespace fxl::cli

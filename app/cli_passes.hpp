// The `passes` verb of the command line.
#pragma once

#include "app/cli.hpp"

namespace fxl::cli {

// fxlens passes list | passes run.
int runPasses(const Args& args, Io& io);

}  // namespace fxl::cli

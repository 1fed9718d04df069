// The `mem` verb of the command line.
#pragma once

#include "app/cli.hpp"

namespace fxl::cli {

// fxlens mem: the memory timeline of a graph.
int runMem(const Args& args, Io& io);

}  // namespace fxl::cli

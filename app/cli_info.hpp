// The `info` verb of the command line.
#pragma once

#include "app/cli.hpp"

namespace fxl::cli {

// fxlens info: what a file holds (graphs, nodes, operators, parameters, activations).
int runInfo(const Args& args, Io& io);

}  // namespace fxl::cli

// The `convert` verb of the command line.
#pragma once

#include "app/cli.hpp"

namespace fxl::cli {

// fxlens convert: a graph written as fxlens JSON or print_readable Python.
int runConvert(const Args& args, Io& io);

}  // namespace fxl::cli

// The `run` verbs of the command line.
#pragma once

#include <string>

#include "app/cli.hpp"

namespace fxl::cli {

// fxlens run: executes a graph on the CPU.
int runExec(const Args& args, Io& io);
// fxlens check: two graphs (or a graph and expected outputs) on the same inputs.
int runCheck(const Args& args, Io& io);
// check's thread count: --threads, else chosen from the graph (`rule` says which and why).
int checkThreads(const Args& args, const Graph& g, std::string& rule);

}  // namespace fxl::cli

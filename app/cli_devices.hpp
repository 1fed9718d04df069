// The `devices` verb of the command line.
#pragma once

#include "app/cli.hpp"

namespace fxl::cli {

// fxlens devices: the CPU and the path its kernels take, every CUDA device found (or why none
// is), and whether NCCL and cuBLAS were found.
int runDevices(const Args& args, Io& io);

}  // namespace fxl::cli

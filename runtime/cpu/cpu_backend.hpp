// The CPU backend: 64-byte aligned host memory counted by the runtime's accounting, a thread
// pool, and the CPU kernels of the registry (runtime/cpu/cpu_kernels.hpp). The numerical
// reference every other backend must match bit for bit.
#pragma once

#include <memory>

#include "runtime/base/backend.hpp"

namespace fxl {

struct CpuBackendOptions
{
    int threads = 2;  // worker threads (results never depend on it)
};

std::unique_ptr<Backend> makeCpuBackend(const CpuBackendOptions& opts = {});

}  // namespace fxl

// One pointwise loop as a backend receives it: out = f(in0, in1, ...) element by element over
// the output's shape, the inputs already expanded to it. The elementwise kernels' host logic
// (argument checks, type promotion, output layouts: runtime/base/elementwise_rules.hpp) is the
// same on every device; only this loop is the backend's (Backend::pointwise). The functor comes
// twice: type-erased for the CPU (`run` walks a stretch of elements, vectorisable), and in
// its device form (`fn`), which a device kernel's thread applies.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/base/pointwise_fn.hpp"

namespace fxl {

class Tensor;
class ThreadPool;

struct PointwiseLoop
{
    static constexpr size_t kMaxOperands = 4;  // the output and up to three inputs
    // One stretch of n elements: ptr[0] the output's first element, ptr[1..] the inputs',
    // step[k] operand k's stride in elements.
    using RunFn = void (*)(char* const* ptr, const int64_t* step, int64_t n, const void* f);

    const Tensor* const* ops = nullptr;  // ops[0] the output
    const int64_t* itemBytes = nullptr;  // per operand
    size_t nOps = 0;
    int64_t grain = 0;  // elements per CPU thread at least
    RunFn run = nullptr;
    const void* functor = nullptr;
    pw::Fn fn;  // the functor's device form (runtime/base/pointwise_fn.hpp)
    ThreadPool* pool = nullptr;
};

}  // namespace fxl

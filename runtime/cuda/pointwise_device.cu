// The pointwise kernel's __global__ instances, one per functor of pw::Functors
// (runtime/base/pointwise_fn.hpp), and the launch that picks one by the loop's functor number.
// A file of its own: the longest of the CUDA sources to compile, built beside cuda_device.cu.
#include <cuda_runtime.h>

#include <array>

#include "runtime/cuda/launch.hpp"
#include "runtime/cuda/pointwise_kernel.hpp"

namespace fxl::cuda {

bool launchPointwise(const PointwiseParams& p, const pw::Fn& fn, cudaStream_t stream);

namespace {

template<class F>
__global__ void pointwiseKernel(PointwiseParams p, pw::Fn fn)
{
    pointwiseFnBody<F>(coordHere(), p, fn);
}

template<class F>
void launchOne(const PointwiseParams& p, const pw::Fn& fn, cudaStream_t stream)
{
    const Dim3 g = gridFor(p.numel);
    pointwiseKernel<F><<<dim3(g.x, g.y, g.z), dim3(kThreads, 1, 1), 0, stream>>>(p, fn);
}

// The launch of every listed functor, by its number (an array: no fold over 273 terms).
using Launch = void (*)(const PointwiseParams&, const pw::Fn&, cudaStream_t);
template<class... F>
constexpr std::array<Launch, sizeof...(F)> launches(pw::List<F...>)
{
    return {&launchOne<F>...};
}
constexpr auto kLaunches = launches(pw::Functors{});

}  // namespace

bool launchPointwise(const PointwiseParams& p, const pw::Fn& fn, cudaStream_t stream)
{
    if (fn.kind < 0 || static_cast<size_t>(fn.kind) >= kLaunches.size()) return false;
    kLaunches[static_cast<size_t>(fn.kind)](p, fn, stream);
    return true;
}

}  // namespace fxl::cuda

// The pointwise kernel's __global__ instances, one per functor of pw::Functors
// (runtime/base/pointwise_fn.hpp), and the launch that picks one by the loop's functor number.
// A file of its own: the longest of the CUDA sources to compile, built beside cuda_device.cu.
#include <cuda_runtime.h>

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
bool launchOne(const PointwiseParams& p, const pw::Fn& fn, cudaStream_t stream)
{
    const Dim3 g = gridFor(p.numel);
    pointwiseKernel<F><<<dim3(g.x, g.y, g.z), dim3(kThreads, 1, 1), 0, stream>>>(p, fn);
    return true;
}

template<class... F>
bool launchKind(const PointwiseParams& p, const pw::Fn& fn, cudaStream_t stream, pw::List<F...>)
{
    int i = 0;
    return ((i++ == fn.kind && launchOne<F>(p, fn, stream)) || ...);
}

}  // namespace

bool launchPointwise(const PointwiseParams& p, const pw::Fn& fn, cudaStream_t stream)
{
    return launchKind(p, fn, stream, pw::Functors{});
}

}  // namespace fxl::cuda

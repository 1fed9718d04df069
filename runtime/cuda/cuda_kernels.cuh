// The __global__ wrappers of the CUDA kernels: each reads its coordinates and calls the body
// that the CPU emulator runs in the tests (launch.hpp). Included by cuda_device.cu, the one
// translation unit that launches them (compiled by nvcc whenever the CUDA Toolkit is found).
#pragma once

#include "runtime/cuda/batch_norm_kernel.hpp"
#include "runtime/cuda/conv_kernel.hpp"
#include "runtime/cuda/copy_kernel.hpp"
#include "runtime/cuda/gather_kernel.hpp"
#include "runtime/cuda/gemm_kernel.hpp"
#include "runtime/cuda/group_norm_kernel.hpp"
#include "runtime/cuda/int_gemm_kernel.hpp"
#include "runtime/cuda/layer_norm_kernel.hpp"
#include "runtime/cuda/nll_kernel.hpp"
#include "runtime/cuda/plane_kernel.hpp"
#include "runtime/cuda/pointwise_kernel.hpp"
#include "runtime/cuda/row_sum_kernel.hpp"
#include "runtime/cuda/rows_kernel.hpp"
#include "runtime/cuda/segment_sum_kernel.hpp"

namespace fxl::cuda {

__global__ void stridedCopyKernel(StridedCopyParams p) { stridedCopyBody(coordHere(), p); }

// phases with a barrier between them; the thread's registers carried across
template<class T>
__global__ void gemmKernel(GemmParams p)
{
    __shared__ GemmShared<T> sh;
    GemmThread<T> th;
    const Coord c = coordHere();
    const int phases = gemmPhases(p);
    for (int phase = 0; phase < phases; ++phase) {
        gemmBody(c, phase, sh, th, p);
        __syncthreads();
    }
}

__global__ void intGemmKernel(IntGemmParams p) { intGemmBody(coordHere(), p); }

__global__ void rowSumKernel(RowSumParams p) { rowSumBody(coordHere(), p); }

__global__ void rowsKernel(RowsParams p) { rowsBody(coordHere(), p); }

__global__ void nllForwardRowsKernel(NllParams p) { nllForwardRowsBody(coordHere(), p); }
__global__ void nllForwardFoldKernel(NllParams p) { nllForwardFoldBody(coordHere(), p); }
__global__ void nllBackwardKernel(NllParams p) { nllBackwardBody(coordHere(), p); }

// the first error wins: a compare-and-swap on the record's flag (values never go through atomics)
struct ClaimError
{
    __device__ bool operator()(DeviceErrorRecord* r) const { return atomicCAS(&r->flag, 0ull, 1ull) == 0ull; }
};
__global__ void gatherKernel(GatherParams p) { gatherBody(coordHere(), p, ClaimError{}); }

__global__ void segmentSumKernel(SegmentSumParams p) { segmentSumBody(coordHere(), p); }

__global__ void convKernel(ConvParams p) { convBody(coordHere(), p); }

__global__ void batchNormKernel(BatchNormParams p) { batchNormBody(coordHere(), p); }

__global__ void planeKernel(PlaneParams p) { planeBody(coordHere(), p); }

__global__ void groupNormKernel(GroupNormParams p) { groupNormBody(coordHere(), p); }

__global__ void layerNormForwardKernel(LayerNormParams p) { layerNormForwardBody(coordHere(), p); }
__global__ void layerNormInputGradKernel(LayerNormParams p) { layerNormInputGradBody(coordHere(), p); }
__global__ void layerNormParamGradKernel(LayerNormParams p) { layerNormParamGradBody(coordHere(), p); }

// The pointwise kernel with the loop's functor (fn.kind): one instance per listed functor,
// compiled in pointwise_device.cu. False when fn.kind is no listed functor.
bool launchPointwise(const PointwiseParams& p, const pw::Fn& fn, cudaStream_t stream);

}  // namespace fxl::cuda

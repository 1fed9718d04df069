// What the CUDA backend asks of a device: memory, transfers and kernel launches. Two
// implementations: the emulated device (emulated_device.cpp: host memory, the kernels' bodies
// run by the CPU emulator, launch.hpp) that the tests use without a GPU, and, in a later
// step, the CUDA runtime's (a stream-ordered pool, one stream, the __global__ wrappers of
// cuda_kernels.cu). The backend (cuda_backend.hpp) holds everything else.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "runtime/base/pointwise_loop.hpp"
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

class DeviceApi
{
public:
    virtual ~DeviceApi() = default;
    virtual std::string name() const = 0;  // "cuda-emu:0"
    // nbytes of device memory (uninitialised); nullptr only for nbytes == 0
    virtual void* allocate(int64_t nbytes) = 0;
    virtual void deallocate(void* p, int64_t nbytes) = 0;
    virtual void toDevice(void* dst, const void* host, int64_t nbytes) = 0;
    virtual void toHost(void* host, const void* src, int64_t nbytes) = 0;
    virtual void synchronize() = 0;
    // kernels
    virtual void stridedCopy(const StridedCopyParams& p) = 0;
    // C = A B with the CPU's per-element chain (gemm_kernel.hpp); c float, or double for f64
    virtual void gemm(const GemmParams& p) = 0;
    // The labelled fast mode's product (--fast): not the CPU's bits. The CUDA runtime's device
    // calls cuBLAS with tensor cores (cublas_gemm.hpp); the emulated one a stand-in that rounds
    // differently (emulated_device.cpp), so that fast mode's labels and tolerance checks are
    // tested without a GPU.
    virtual void fastGemm(const GemmParams& p) = 0;
    // the integer product with its epilogue (int_gemm_kernel.hpp)
    virtual void intGemm(const IntGemmParams& p) = 0;
    // the sum family's row reduction (row_sum_kernel.hpp)
    virtual void rowSum(const RowSumParams& p) = 0;
    // the row-wise normalisations (rows_kernel.hpp)
    virtual void rows(const RowsParams& p) = 0;
    // nll_loss (nll_kernel.hpp): the forward's two launches, or the backward's one
    virtual void nll(const NllParams& p, bool backward) = 0;
    // the indexed gather (gather_kernel.hpp); p.error points at a zeroed record in device memory
    virtual void gather(const GatherParams& p) = 0;
    // segment sums in index order (segment_sum_kernel.hpp)
    virtual void segmentSum(const SegmentSumParams& p) = 0;
    // the layer norm (layer_norm_kernel.hpp): the forward, or the backward's input gradient
    // (p.dx set) and parameter gradients (p.dw / p.db set)
    virtual void layerNorm(const LayerNormParams& p, bool backward) = 0;
    // one convolution core (conv_kernel.hpp): a thread per output element
    virtual void conv(const ConvParams& p) = 0;
    // the batch norm (batch_norm_kernel.hpp): a thread per channel
    virtual void batchNorm(const BatchNormParams& p) = 0;
    // max pooling and nearest resampling (plane_kernel.hpp)
    virtual void plane(const PlaneParams& p) = 0;
    // the group norm (group_norm_kernel.hpp): the forward or the backward's phase p.phase
    virtual void groupNorm(const GroupNormParams& p) = 0;
    // The pointwise kernel (pointwise_kernel.hpp) with the loop's functor per element.
    virtual void pointwise(const PointwiseParams& p, const PointwiseLoop& loop) = 0;
};

// The emulated device `index`: host memory, kernels run by the CPU emulator.
std::unique_ptr<DeviceApi> makeEmulatedDevice(int index);

}  // namespace fxl::cuda

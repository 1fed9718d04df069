// A device that holds tensors and runs operators: allocate, free, copy, run one op. The CPU
// backend (runtime/cpu/cpu_backend.hpp) is the numerical reference; every backend implements
// this interface and is made by name in runtime/backends.hpp (the one file that knows them all).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/base/batch_norm_loop.hpp"
#include "runtime/base/conv_loop.hpp"
#include "runtime/base/gather_loop.hpp"
#include "runtime/base/gemm_loop.hpp"
#include "runtime/base/group_norm_loop.hpp"
#include "runtime/base/layer_norm_loop.hpp"
#include "runtime/base/nll_loop.hpp"
#include "runtime/base/plane_loop.hpp"
#include "runtime/base/pointwise_loop.hpp"
#include "runtime/base/row_sum_loop.hpp"
#include "runtime/base/rows_loop.hpp"
#include "runtime/base/segment_sum_loop.hpp"
#include "runtime/base/tensor.hpp"
#include "runtime/base/value.hpp"

namespace fxl {

struct KernelCall;

class Backend
{
public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;  // "cpu", "cuda:0"
    virtual DeviceKind device() const = 0;
    // The labelled fast mode (--fast, CUDA only): matrix products on tensor cores through cuBLAS,
    // not the CPU's bits, compared by tolerance only.
    virtual bool fastMath() const { return false; }

    // Allocates a contiguous tensor (uninitialised contents).
    virtual Tensor empty(const std::vector<int64_t>& sizes, DType t) = 0;
    // Called by Storage's destructor.
    virtual void release(void* data, int64_t nbytes) = 0;
    // dst and src have equal sizes; strides may differ; copies across devices when needed.
    virtual void copy(const Tensor& dst, const Tensor& src) = 0;
    // Host <-> device transfers of contiguous bytes.
    virtual void upload(const Tensor& dst, const void* host, int64_t nbytes) = 0;
    virtual void download(void* host, const Tensor& src, int64_t nbytes) = 0;
    // Runs one operator (kernel looked up by the call's target). Throws KernelError.
    virtual void run(KernelCall& call) = 0;
    virtual void synchronize() { }
    // One loop of the elementwise family on this backend's tensors (every operand on this
    // backend). The CPU kernels run their own walk and never call it for the CPU; a device
    // backend launches its pointwise kernel. Default: throws KernelError.
    virtual void pointwise(const PointwiseLoop& loop);
    // The matrix product's chains on this backend's memory (the CPU kernels call their own
    // GEMM engine). Default: throws KernelError.
    virtual void gemm(const GemmLoop& loop);
    // The sum family's row reduction (row_sum_loop.hpp; the CPU kernels run their own).
    // Default: throws KernelError.
    virtual void rowSum(const RowSumLoop& loop);
    // The row-wise normalisations (rows_loop.hpp; the CPU kernels run their own). Default:
    // throws KernelError.
    virtual void rows(const RowsLoop& loop);
    // nll_loss forward / backward (nll_loop.hpp; the CPU kernels run their own). Default:
    // throws KernelError.
    virtual void nll(const NllLoop& loop);
    // An indexed gather (gather_loop.hpp; the CPU kernels walk their own plans). Default:
    // throws KernelError.
    virtual void gather(const GatherLoop& loop);
    // Sums of rows by destination in index order (segment_sum_loop.hpp). Default: throws.
    virtual void segmentSum(const SegmentSumLoop& loop);
    // The layer norm, forward or backward (layer_norm_loop.hpp). Default: throws.
    virtual void layerNorm(const LayerNormLoop& loop);
    // One convolution core (conv_loop.hpp). Default: throws.
    virtual void conv(const ConvLoop& loop);
    // The batch norm, forward or backward (batch_norm_loop.hpp). Default: throws.
    virtual void batchNorm(const BatchNormLoop& loop);
    // Max pooling and nearest resampling, per plane (plane_loop.hpp). Default: throws.
    virtual void plane(const PlaneLoop& loop);
    // The group norm, forward or backward (group_norm_loop.hpp). Default: throws.
    virtual void groupNorm(const GroupNormLoop& loop);

    // Live bytes of this backend's allocations (all storages not yet released) and the
    // high-water mark since the last resetPeak().
    int64_t liveBytes() const { return live_.load(); }
    int64_t peakBytes() const { return peak_.load(); }
    void resetPeak() { peak_.store(live_.load()); }

protected:
    // The bytes of a new contiguous tensor of `sizes` and `t`; throws KernelError for a dtype
    // the runtime does not compute with or a negative size.
    int64_t newTensorBytes(const std::vector<int64_t>& sizes, DType t) const;
    void noteAlloc(int64_t n);
    void noteFree(int64_t n);

private:
    std::atomic<int64_t> live_{0}, peak_{0};
};

// Each tensor of `values` replaced by a contiguous copy of it on `backend`.
void replaceTensorsWithCopies(Backend& backend, std::vector<Value>& values);

}  // namespace fxl

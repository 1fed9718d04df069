// The CUDA runtime's device (cuda_device.hpp).
#include <cuda_runtime.h>

#include <stdexcept>

#include "runtime/cuda/cublas_gemm.hpp"
#include "runtime/cuda/cuda_device.hpp"
#include "runtime/cuda/cuda_kernels.cuh"

namespace fxl::cuda {
namespace {

void check(cudaError_t e, const char* what)
{
    if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

class RuntimeDevice final : public DeviceApi
{
public:
    RuntimeDevice(int index, cudaStream_t stream)
        : index_(index)
        , stream_(stream)
    { }
    ~RuntimeDevice() override
    {
        cudaSetDevice(index_);
        cudaStreamSynchronize(stream_);
        cudaStreamDestroy(stream_);
    }
    std::string name() const override { return "cuda:" + std::to_string(index_); }
    void* allocate(int64_t nbytes) override
    {
        if (nbytes == 0) return nullptr;
        select();
        void* p = nullptr;
        check(cudaMallocAsync(&p, static_cast<size_t>(nbytes), stream_), "cudaMallocAsync");
        return p;
    }
    void deallocate(void* p, int64_t) override
    {
        if (!p) return;
        select();
        cudaFreeAsync(p, stream_);  // stream-ordered: after every kernel queued before it
    }
    void toDevice(void* dst, const void* host, int64_t nbytes) override
    {
        if (nbytes == 0) return;
        select();
        check(cudaMemcpyAsync(dst, host, static_cast<size_t>(nbytes), cudaMemcpyHostToDevice, stream_), "upload");
        check(cudaStreamSynchronize(stream_), "upload");  // the host buffer may go away after the call
    }
    void toHost(void* host, const void* src, int64_t nbytes) override
    {
        if (nbytes == 0) return;
        select();
        check(cudaMemcpyAsync(host, src, static_cast<size_t>(nbytes), cudaMemcpyDeviceToHost, stream_), "download");
        check(cudaStreamSynchronize(stream_), "download");
    }
    void synchronize() override
    {
        select();
        check(cudaStreamSynchronize(stream_), "synchronize");
    }
    void stridedCopy(const StridedCopyParams& p) override
    {
        if (p.numel == 0) return;
        select();
        const Dim3 g = gridFor(p.numel);
        stridedCopyKernel<<<dim3(g.x, g.y, g.z), dim3(kThreads, 1, 1), 0, stream_>>>(p);
        check(cudaGetLastError(), "strided copy launch");
    }
    void gemm(const GemmParams& p) override
    {
        if (p.m == 0 || p.n == 0 || p.batch == 0) return;
        select();
        const Dim3 g = gemmGrid(p), b = gemmBlock();
        if (p.a.elem == kGemmF64)
            gemmKernel<double><<<dim3(g.x, g.y, g.z), dim3(b.x, b.y, b.z), 0, stream_>>>(p);
        else
            gemmKernel<float><<<dim3(g.x, g.y, g.z), dim3(b.x, b.y, b.z), 0, stream_>>>(p);
        check(cudaGetLastError(), "GEMM launch");
    }
    void fastGemm(const GemmParams& p) override
    {
        if (p.m == 0 || p.n == 0 || p.batch == 0) return;
        select();
        // an operand with no unit stride: the CUDA-core kernel (the CPU's bits, also a fast run's)
        if (cublasGemm(stream_, p, CublasMath::TensorCores) == CublasResult::Layout) gemm(p);
    }

    void intGemm(const IntGemmParams& p) override
    {
        const int64_t total = p.batch * p.m * p.n;
        if (total == 0) return;
        select();
        const Dim3 g = gridFor(total);
        intGemmKernel<<<dim3(g.x, g.y, g.z), dim3(kThreads, 1, 1), 0, stream_>>>(p);
        check(cudaGetLastError(), "integer GEMM launch");
    }
    void rowSum(const RowSumParams& p) override
    {
        if (p.rows == 0) return;
        select();
        const Dim3 g = gridFor(p.rows);
        rowSumKernel<<<dim3(g.x, g.y, g.z), dim3(kThreads, 1, 1), 0, stream_>>>(p);
        check(cudaGetLastError(), "row sum launch");
    }
    void rows(const RowsParams& p) override
    {
        if (p.rows == 0 || p.n == 0) return;
        select();
        const Dim3 g = gridFor(p.rows);
        rowsKernel<<<dim3(g.x, g.y, g.z), dim3(kThreads, 1, 1), 0, stream_>>>(p);
        check(cudaGetLastError(), "row normalisation launch");
    }
    void nll(const NllParams& p, bool backward) override
    {
        select();
        const Dim3 g = gridFor(p.rows);
        if (backward) {
            if (p.rows == 0) return;
            nllBackwardKernel<<<dim3(g.x, g.y, g.z), dim3(kThreads, 1, 1), 0, stream_>>>(p);
        } else {
            nllForwardRowsKernel<<<dim3(g.x, g.y, g.z), dim3(kThreads, 1, 1), 0, stream_>>>(p);
            nllForwardFoldKernel<<<1, 1, 0, stream_>>>(p);
        }
        check(cudaGetLastError(), "nll_loss launch");
    }
    void gather(const GatherParams& p) override
    {
        if (p.numel == 0) return;
        select();
        const Dim3 g = gridFor(p.numel);
        gatherKernel<<<dim3(g.x, g.y, g.z), dim3(kThreads, 1, 1), 0, stream_>>>(p);
        check(cudaGetLastError(), "gather launch");
    }
    void segmentSum(const SegmentSumParams& p) override
    {
        const int64_t total = p.segments * p.cols;
        if (total == 0) return;
        select();
        const Dim3 g = gridFor(total);
        segmentSumKernel<<<dim3(g.x, g.y, g.z), dim3(kThreads, 1, 1), 0, stream_>>>(p);
        check(cudaGetLastError(), "segment sum launch");
    }
    void layerNorm(const LayerNormParams& p, bool backward) override
    {
        select();
        const Dim3 gr = gridFor(p.rows), gn = gridFor(p.n);
        if (!backward) {
            if (p.rows > 0) layerNormForwardKernel<<<dim3(gr.x, gr.y, gr.z), dim3(kThreads, 1, 1), 0, stream_>>>(p);
        } else {
            if (p.dx && p.rows > 0)
                layerNormInputGradKernel<<<dim3(gr.x, gr.y, gr.z), dim3(kThreads, 1, 1), 0, stream_>>>(p);
            if ((p.dw || p.db) && p.n > 0)
                layerNormParamGradKernel<<<dim3(gn.x, gn.y, gn.z), dim3(kThreads, 1, 1), 0, stream_>>>(p);
        }
        check(cudaGetLastError(), "layer norm launch");
    }
    void groupNorm(const GroupNormParams& p) override
    {
        select();
        const Dim3 g = gridFor(groupNormThreads(p));
        groupNormKernel<<<dim3(g.x, g.y, g.z), dim3(kThreads, 1, 1), 0, stream_>>>(p);
        check(cudaGetLastError(), "group norm launch");
    }
    void plane(const PlaneParams& p) override
    {
        select();
        const Dim3 g = gridFor(planeThreads(p));
        planeKernel<<<dim3(g.x, g.y, g.z), dim3(kThreads, 1, 1), 0, stream_>>>(p);
        check(cudaGetLastError(), "pooling launch");
    }
    void batchNorm(const BatchNormParams& p) override
    {
        select();
        const Dim3 g = gridFor(p.C);
        batchNormKernel<<<dim3(g.x, g.y, g.z), dim3(kThreads, 1, 1), 0, stream_>>>(p);
        check(cudaGetLastError(), "batch norm launch");
    }
    void conv(const ConvParams& p) override
    {
        select();
        const Dim3 g = gridFor(p.count);
        convKernel<<<dim3(g.x, g.y, g.z), dim3(kThreads, 1, 1), 0, stream_>>>(p);
        check(cudaGetLastError(), "convolution launch");
    }
    void pointwise(const PointwiseParams& p, const PointwiseLoop& loop) override
    {
        if (p.numel == 0) return;
        select();
        if (!launchPointwise(p, loop.fn, stream_))
            throw std::runtime_error("internal: a pointwise loop without its functor's device form");
        check(cudaGetLastError(), "pointwise launch");
    }

private:
    void select() { check(cudaSetDevice(index_), "cudaSetDevice"); }
    int index_;
    cudaStream_t stream_;
};

}  // namespace

std::unique_ptr<DeviceApi> makeRuntimeDevice(int index, std::string* why)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        if (why) *why = std::string("the CUDA runtime found no device: ") + cudaGetErrorString(e);
        return nullptr;
    }
    if (index < 0 || index >= count) {
        if (why) *why = "no device cuda:" + std::to_string(index) + " (" + std::to_string(count) + " found)";
        return nullptr;
    }
    cudaStream_t stream = nullptr;
    e = cudaSetDevice(index);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    if (e != cudaSuccess) {
        if (why) *why = "cuda:" + std::to_string(index) + ": " + cudaGetErrorString(e);
        return nullptr;
    }
    return std::make_unique<RuntimeDevice>(index, stream);
}

}  // namespace fxl::cuda

#include "runtime/cuda/cuda_backend.hpp"

#include <cstring>
#include <vector>

#include "runtime/base/kernel.hpp"
#include "runtime/cuda/emulate.hpp"

namespace fxl::cuda {
namespace {

// The strided-copy parameters of dst <- src over their common shape (bases: the storages').
StridedCopyParams copyParams(const Tensor& dst, char* dstBase, const Tensor& src, const char* srcBase)
{
    if (dst.dim() > kMaxDims)
        throw KernelError("copy: tensors of more than " + std::to_string(kMaxDims) + " dims are not supported on CUDA");
    StridedCopyParams p;
    p.dst = dstBase;
    p.src = srcBase;
    p.itemSize = static_cast<int>(dst.itemSize());
    p.ndim = static_cast<int>(dst.dim());
    p.numel = dst.numel();
    for (int k = 0; k < p.ndim; ++k) {
        p.sizes[k] = dst.sizes()[static_cast<size_t>(k)];
        p.dstStrides[k] = dst.strides()[static_cast<size_t>(k)];
        p.srcStrides[k] = src.strides()[static_cast<size_t>(k)];
    }
    p.dstOffset = dst.offset();
    p.srcOffset = src.offset();
    return p;
}

// The pointwise kernel's parameters: size-1 dims dropped, adjacent dims merged where every
// operand allows it, strides in bytes.
PointwiseParams pointwiseParams(const PointwiseLoop& loop)
{
    const Tensor& out = *loop.ops[0];
    PointwiseParams p;
    p.nOps = static_cast<int>(loop.nOps);
    p.numel = out.numel();
    for (size_t k = 0; k < loop.nOps; ++k) p.base[k] = static_cast<char*>(loop.ops[k]->rawData());
    int nd = 0;
    for (size_t d = 0; d < out.sizes().size(); ++d) {
        const int64_t sz = out.sizes()[d];
        if (sz == 1) continue;
        bool merge = nd > 0;
        for (size_t k = 0; k < loop.nOps && merge; ++k)
            merge = p.strides[k][nd - 1] == loop.ops[k]->strides()[d] * sz * loop.itemBytes[k];
        if (merge) {
            p.sizes[nd - 1] *= sz;
            for (size_t k = 0; k < loop.nOps; ++k) p.strides[k][nd - 1] = loop.ops[k]->strides()[d] * loop.itemBytes[k];
            continue;
        }
        if (nd == kMaxDims)
            throw KernelError("pointwise: tensors of more than " + std::to_string(kMaxDims)
                              + " dims (after merging) are not supported on CUDA");
        p.sizes[nd] = sz;
        for (size_t k = 0; k < loop.nOps; ++k) p.strides[k][nd] = loop.ops[k]->strides()[d] * loop.itemBytes[k];
        ++nd;
    }
    if (nd == 0) p.sizes[nd++] = 1;
    p.ndim = nd;
    return p;
}

GemmOperandView operandView(const GemmOperand& o)
{
    GemmOperandView v;
    v.data = o.data;
    switch (o.dtype) {
    case DType::F32: v.elem = kGemmF32; break;
    case DType::BF16: v.elem = kGemmBf16; break;
    case DType::F16: v.elem = kGemmF16; break;
    case DType::F64: v.elem = kGemmF64; break;
    default: throw KernelError("gemm: unsupported dtype " + std::string(dtypeAbbr(o.dtype)));
    }
    v.rowStride = o.rowStride;
    v.colStride = o.colStride;
    v.batchStride = o.batchStride;
    return v;
}

int intElem(DType t)
{
    switch (t) {
    case DType::I64: return kIntI64;
    case DType::I32: return kIntI32;
    case DType::I16: return kIntI16;
    case DType::I8: return kIntI8;
    case DType::U8: return kIntU8;
    default: throw KernelError("gemm: unsupported dtype " + std::string(dtypeAbbr(t)));
    }
}

IntOperandView intView(const GemmOperand& o)
{
    IntOperandView v;
    v.data = o.data;
    v.rowStride = o.rowStride;
    v.colStride = o.colStride;
    v.batchStride = o.batchStride;
    return v;
}

char* baseOf(const Tensor& t) { return static_cast<char*>(t.storage()->data()); }

// A contiguous tensor's layout over `base` (a staging buffer).
Tensor contiguousOver(const Tensor& like, void* base, Backend* owner, DeviceKind d)
{
    auto s = std::make_shared<Storage>(owner, base, like.nbytes(), d);
    return Tensor::fromStorage(s, like.dtype(), like.sizes(), Tensor::contiguousStrides(like.sizes()), 0);
}

// dst <- src, both in host memory, with the kernel's own body run by the emulator.
void hostStridedCopy(const Tensor& dst, const Tensor& src)
{
    const StridedCopyParams p = copyParams(dst, baseOf(dst), src, baseOf(src));
    emulateLaunch(gridFor(p.numel), {kThreads, 1, 1}, [&](const Coord& c) { stridedCopyBody(c, p); });
}

class CudaBackend final : public Backend
{
public:
    CudaBackend(std::unique_ptr<DeviceApi> device, int index)
        : device_(std::move(device))
        , index_(index)
    { }
    ~CudaBackend() override { device_->synchronize(); }
    std::string name() const override { return device_->name(); }
    DeviceKind device() const override { return DeviceKind::Cuda; }

    Tensor empty(const std::vector<int64_t>& sizes, DType t) override
    {
        const int64_t nbytes = newTensorBytes(sizes, t);
        void* p = device_->allocate(nbytes);
        noteAlloc(nbytes);
        auto storage = std::make_shared<Storage>(this, p, nbytes, DeviceKind::Cuda, index_);
        return Tensor::fromStorage(storage, t, sizes, Tensor::contiguousStrides(sizes), 0);
    }
    void release(void* data, int64_t nbytes) override
    {
        device_->deallocate(data, nbytes);
        noteFree(nbytes);
    }
    void copy(const Tensor& dst, const Tensor& src) override
    {
        if (dst.sizes() != src.sizes()) throw KernelError("copy: sizes differ");
        if (dst.dtype() != src.dtype()) throw KernelError("copy: dtypes differ (use a cast kernel)");
        if (dst.numel() == 0) return;
        const bool dstHere = onThisDevice(dst), srcHere = onThisDevice(src);
        if (dstHere && srcHere) {
            device_->stridedCopy(copyParams(dst, baseOf(dst), src, baseOf(src)));
        } else if (dstHere) {  // from the host: gathered contiguous there, one transfer, scattered here
            std::vector<char> host(static_cast<size_t>(src.nbytes()));
            const Tensor packed = contiguousOver(src, host.data(), nullptr, DeviceKind::Cpu);
            hostStridedCopy(packed, src);
            upload(dst, host.data(), src.nbytes());
        } else if (srcHere) {  // to the host
            std::vector<char> host(static_cast<size_t>(src.nbytes()));
            download(host.data(), src, src.nbytes());
            hostStridedCopy(dst, contiguousOver(src, host.data(), nullptr, DeviceKind::Cpu));
        } else {
            throw KernelError("copy: neither tensor is on " + name());
        }
    }
    void upload(const Tensor& dst, const void* host, int64_t nbytes) override
    {
        if (nbytes != dst.nbytes()) throw KernelError("upload: size mismatch");
        if (nbytes == 0) return;
        if (dst.isContiguous()) {
            device_->toDevice(static_cast<char*>(dst.rawData()), host, nbytes);
            return;
        }
        // a strided destination: through a contiguous device buffer
        Staging tmp(*device_, nbytes);
        device_->toDevice(tmp.p, host, nbytes);
        const Tensor packed = contiguousOver(dst, tmp.p, nullptr, DeviceKind::Cuda);
        device_->stridedCopy(copyParams(dst, baseOf(dst), packed, static_cast<char*>(tmp.p)));
    }
    void download(void* host, const Tensor& src, int64_t nbytes) override
    {
        if (nbytes != src.nbytes()) throw KernelError("download: size mismatch");
        if (nbytes == 0) return;
        if (src.isContiguous()) {
            device_->toHost(host, src.rawData(), nbytes);
            return;
        }
        Staging tmp(*device_, nbytes);
        const Tensor packed = contiguousOver(src, tmp.p, nullptr, DeviceKind::Cuda);
        device_->stridedCopy(copyParams(packed, static_cast<char*>(tmp.p), src, baseOf(src)));
        device_->toHost(host, tmp.p, nbytes);
    }
    void run(KernelCall& call) override
    {
        const KernelFn* fn = call.kernel;
        if (!fn) {
            const std::string& target = call.op ? call.op->qualifiedName : call.node->target;
            fn = KernelRegistry::instance().find(target, DeviceKind::Cuda);
            if (!fn) throw KernelError("no CUDA kernel for " + target);
        }
        call.backend = this;
        call.pool = nullptr;
        (*fn)(call);
    }
    void synchronize() override { device_->synchronize(); }
    void gemm(const GemmLoop& g) override
    {
        if (isIntegral(g.a.dtype, false)) {
            if (g.b.dtype != g.a.dtype || (g.bias.data && g.bias.dtype != g.a.dtype))
                throw KernelError("gemm: integer operands of different types");
            IntGemmParams p;
            p.elem = intElem(g.a.dtype);
            p.a = intView(g.a);
            p.b = intView(g.b);
            p.bias = intView(g.bias);
            p.c = g.c;
            p.batch = g.batch;
            p.m = g.m;
            p.n = g.n;
            p.k = g.k;
            p.alpha = g.alpha;
            p.beta = g.beta;
            device_->intGemm(p);
            return;
        }
        const bool wide = g.a.dtype == DType::F64;
        if (wide != (g.b.dtype == DType::F64)) throw KernelError("gemm: operands of mixed precision");
        GemmParams p;
        p.a = operandView(g.a);
        p.b = operandView(g.b);
        p.c = g.c;
        p.batch = g.batch;
        p.m = g.m;
        p.n = g.n;
        p.k = g.k;
        p.ldc = g.ldc;
        p.cBatchStride = g.cBatchStride;
        device_->gemm(p);
    }
    void rowSum(const RowSumLoop& loop) override
    {
        const Tensor& src = *loop.src;
        const Tensor& out = *loop.out;
        if (src.numel() > 0 && !onThisDevice(src)) throw KernelError("expected all tensors to be on " + name());
        if (out.numel() > 0 && !onThisDevice(out)) throw KernelError("expected all tensors to be on " + name());
        if (!out.isContiguous()) throw KernelError("internal: a row sum's output must be contiguous");
        RowSumParams p;
        p.src = src.storage() ? src.storage()->data() : nullptr;
        p.offset = src.offset();
        p.out = out.rawData();
        p.mean = loop.mean;
        switch (src.dtype()) {
        case DType::F32: p.elem = kSumF32; break;
        case DType::F64: p.elem = kSumF64; break;
        case DType::BF16: p.elem = kSumBf16; break;
        case DType::F16: p.elem = kSumF16; break;
        case DType::I64: p.elem = kSumI64; break;
        case DType::I32: p.elem = kSumI32; break;
        case DType::I16: p.elem = kSumI16; break;
        case DType::I8: p.elem = kSumI8; break;
        case DType::U8:
        case DType::Bool: p.elem = kSumU8; break;
        default: throw KernelError("sum: unsupported dtype " + std::string(dtypeAbbr(src.dtype())));
        }
        std::vector<bool> isCol(src.sizes().size(), false);
        for (int64_t d : loop.colDims) isCol[static_cast<size_t>(d)] = true;
        p.rows = 1;
        p.cols = 1;
        for (size_t d = 0; d < src.sizes().size(); ++d)
            if (!isCol[d]) {
                if (p.nRowDims == kMaxDims) throw KernelError("sum: too many dims for CUDA");
                p.rowSizes[p.nRowDims] = src.sizes()[d];
                p.rowStrides[p.nRowDims++] = src.strides()[d];
                p.rows *= src.sizes()[d];
            }
        for (int64_t d : loop.colDims) {
            if (p.nColDims == kMaxDims) throw KernelError("sum: too many dims for CUDA");
            p.colSizes[p.nColDims] = src.sizes()[static_cast<size_t>(d)];
            p.colStrides[p.nColDims++] = src.strides()[static_cast<size_t>(d)];
            p.cols *= src.sizes()[static_cast<size_t>(d)];
        }
        if (p.rows != out.numel()) throw KernelError("internal: a row sum's output has the wrong size");
        device_->rowSum(p);
    }
    void pointwise(const PointwiseLoop& loop) override
    {
        if (loop.nOps > static_cast<size_t>(kPointwiseOperands)) throw KernelError("pointwise: too many operands");
        for (size_t k = 0; k < loop.nOps; ++k)
            if (loop.ops[k]->numel() > 0 && !onThisDevice(*loop.ops[k]))
                throw KernelError("expected all tensors to be on " + name());
        if (loop.ops[0]->numel() == 0) return;
        device_->pointwise(pointwiseParams(loop), loop);
    }

private:
    // A device buffer for one transfer (not counted as a tensor's memory).
    struct Staging
    {
        DeviceApi& d;
        int64_t n;
        void* p;
        Staging(DeviceApi& dev, int64_t nbytes)
            : d(dev)
            , n(nbytes)
            , p(dev.allocate(nbytes))
        { }
        ~Staging() { d.deallocate(p, n); }
        Staging(const Staging&) = delete;
        Staging& operator=(const Staging&) = delete;
    };
    bool onThisDevice(const Tensor& t) const
    {
        return t.storage() && t.storage()->device() == DeviceKind::Cuda && t.storage()->deviceIndex() == index_;
    }

    std::unique_ptr<DeviceApi> device_;
    int index_;
};

}  // namespace

std::unique_ptr<Backend> makeCudaBackend(std::unique_ptr<DeviceApi> device, int index)
{
    return std::make_unique<CudaBackend>(std::move(device), index);
}

}  // namespace fxl::cuda

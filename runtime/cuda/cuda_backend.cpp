#include "runtime/cuda/cuda_backend.hpp"

#include <algorithm>
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

int floatElem(DType t)
{
    switch (t) {
    case DType::F32: return kFloatF32;
    case DType::F64: return kFloatF64;
    case DType::BF16: return kFloatBf16;
    case DType::F16: return kFloatF16;
    default: throw KernelError("expected a floating dtype, got " + std::string(dtypeAbbr(t)));
    }
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
    CudaBackend(std::unique_ptr<DeviceApi> device, int index, bool fast)
        : device_(std::move(device))
        , index_(index)
        , fast_(fast)
    { }
    ~CudaBackend() override { device_->synchronize(); }
    std::string name() const override { return device_->name(); }
    DeviceKind device() const override { return DeviceKind::Cuda; }
    bool fastMath() const override { return fast_; }

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
        if (fast_)
            device_->fastGemm(p);
        else
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
    void rows(const RowsLoop& loop) override
    {
        const Tensor* ops[3] = {loop.in0, loop.in1 ? loop.in1 : loop.in0, loop.out};
        for (const Tensor* t : ops)
            if (t->numel() > 0 && !onThisDevice(*t)) throw KernelError("expected all tensors to be on " + name());
        RowsParams p;
        switch (loop.kind) {
        case RowsLoop::Kind::Softmax: p.kind = kRowsSoftmax; break;
        case RowsLoop::Kind::LogSoftmax: p.kind = kRowsLogSoftmax; break;
        case RowsLoop::Kind::SafeSoftmax: p.kind = kRowsSafeSoftmax; break;
        case RowsLoop::Kind::SoftmaxBackward: p.kind = kRowsSoftmaxBackward; break;
        case RowsLoop::Kind::LogSoftmaxBackward: p.kind = kRowsLogSoftmaxBackward; break;
        }
        p.inElem = floatElem(loop.in0->dtype());
        p.outElem = floatElem(loop.out->dtype());
        const Tensor& x = *loop.in0;
        p.n = x.dim() == 0 ? 1 : x.sizes()[static_cast<size_t>(loop.dim)];
        p.rows = p.n == 0 ? 0 : x.numel() / p.n;
        for (int o = 0; o < 3; ++o) {
            p.offset[o] = 0;
            p.colStride[o] = x.dim() == 0 ? 0 : ops[o]->strides()[static_cast<size_t>(loop.dim)];
        }
        p.in[0] = baseOf(*ops[0]);
        p.in[1] = baseOf(*ops[1]);
        p.out = baseOf(*ops[2]);
        for (int o = 0; o < 3; ++o) p.offset[o] = ops[o]->offset();
        for (int64_t d = 0; d < x.dim(); ++d) {
            if (d == loop.dim) continue;
            if (p.nRowDims == kMaxDims) throw KernelError("softmax: too many dims for CUDA");
            p.rowSizes[p.nRowDims] = x.sizes()[static_cast<size_t>(d)];
            for (int o = 0; o < 3; ++o) p.rowStrides[o][p.nRowDims] = ops[o]->strides()[static_cast<size_t>(d)];
            ++p.nRowDims;
        }
        if (p.rows == 0) return;
        const int64_t acc = p.inElem == kFloatF64 ? 8 : 4;
        Staging scratch(*device_, p.rows * p.n * 2 * acc);  // the rows' working copies (not a tensor)
        p.scratch = scratch.p;
        device_->rows(p);
    }
    void nll(const NllLoop& loop) override
    {
        for (const Tensor* t : {loop.input, loop.weight, loop.out, loop.total, loop.gradOutput, loop.totalWeight})
            if (t && t->numel() > 0 && !onThisDevice(*t)) throw KernelError("expected all tensors to be on " + name());
        NllParams p;
        const Tensor& x = *loop.input;
        p.elem = floatElem(x.dtype());
        p.x = baseOf(x);
        p.xOffset = x.offset();
        p.rowStride = loop.batched ? x.stride(0) : 0;
        p.classStride = x.stride(-1);
        if (loop.weight) {
            p.weight = baseOf(*loop.weight);
            p.weightElem = floatElem(loop.weight->dtype());
            p.weightOffset = loop.weight->offset();
            p.weightStride = loop.weight->dim() == 0 ? 0 : loop.weight->stride(-1);
        }
        p.rows = loop.rows;
        p.classes = loop.classes;
        p.ignoreIndex = loop.ignoreIndex;
        p.reduction = loop.reduction;
        p.batched = loop.batched;
        p.perRow = loop.reduction == math::loss::kNone && loop.batched;
        p.out = loop.out->rawData();
        const int64_t acc = p.elem == kFloatF64 ? 8 : 4;
        const int64_t targetBytes = static_cast<int64_t>(loop.targets.size() * sizeof(int64_t));
        Staging targets(*device_, targetBytes);
        if (targetBytes) device_->toDevice(targets.p, loop.targets.data(), targetBytes);
        p.targets = static_cast<const int64_t*>(targets.p);
        Staging scratch(*device_, loop.backward ? 0 : 2 * std::max<int64_t>(p.rows, 1) * acc);
        p.scratch = scratch.p;
        if (loop.backward) {
            const Tensor& g = *loop.gradOutput;
            p.grad = baseOf(g);
            p.gradElem = floatElem(g.dtype());
            p.gradOffset = g.offset();
            p.gradStride = g.dim() == 0 ? 0 : g.stride(-1);
            if (loop.totalWeight) {
                p.totalWeight = baseOf(*loop.totalWeight);
                p.totalWeightElem = floatElem(loop.totalWeight->dtype());
                p.totalWeightOffset = loop.totalWeight->offset();
            }
        } else {
            p.total = loop.total->rawData();
        }
        device_->nll(p, loop.backward);
    }
    void gather(const GatherLoop& loop) override
    {
        GatherParams p;
        p.ndim = static_cast<int>(loop.shape.size());
        p.nIdx = static_cast<int>(loop.idx.size());
        if (p.ndim > kMaxDims || p.nIdx > kMaxGatherIndices)
            throw KernelError("index: too many dims or index tensors for CUDA");
        p.numel = 1;
        for (int d = 0; d < p.ndim; ++d) {
            p.shape[d] = loop.shape[static_cast<size_t>(d)];
            p.numel *= p.shape[d];
            p.baseStrides[d] = loop.base.strides[static_cast<size_t>(d)];
            p.outStrides[d] = loop.out.strides[static_cast<size_t>(d)];
        }
        if (p.numel == 0) return;
        p.itemSize = static_cast<int>(dtypeItemSize(loop.base.dtype));
        p.base = static_cast<const char*>(loop.base.data);
        p.out = static_cast<char*>(const_cast<void*>(loop.out.data));
        for (int k = 0; k < p.nIdx; ++k) {
            const GatherIndex& ix = loop.idx[static_cast<size_t>(k)];
            p.idx[k] = static_cast<const char*>(ix.op.data);
            const DType t = ix.op.dtype;
            p.idxItem[k] = t == DType::U8 || t == DType::Bool ? -1 : static_cast<int>(dtypeItemSize(t));
            for (int d = 0; d < p.ndim; ++d) p.idxStrides[k][d] = ix.op.strides[static_cast<size_t>(d)];
            p.idxSize[k] = ix.size;
            p.idxStride[k] = ix.stride;
        }
        p.wrapNegative = loop.wrapNegative;
        DeviceErrorRecord record{0, 0, 0};
        Staging error(*device_, sizeof record);
        device_->toDevice(error.p, &record, sizeof record);
        p.error = static_cast<DeviceErrorRecord*>(error.p);
        device_->gather(p);
        device_->toHost(&record, error.p, sizeof record);  // waits for the launch
        if (record.flag != 0) {
            loop.failed = true;
            loop.failedIndex = static_cast<int>(record.which);
            loop.failedValue = record.value;
        }
    }
    void segmentSum(const SegmentSumLoop& loop) override
    {
        for (const Tensor* t : {loop.src, loop.out})
            if (t->numel() > 0 && !onThisDevice(*t)) throw KernelError("expected all tensors to be on " + name());
        SegmentSumParams p;
        p.elem = floatElem(loop.src->dtype());
        p.src = baseOf(*loop.src);
        p.srcOffset = loop.src->offset();
        p.segments = static_cast<int64_t>(loop.segStart.size()) - 1;
        p.cols = loop.cols;
        p.colStride = loop.colStride;
        p.byFreq = loop.byFreq;
        p.out = loop.out->rawData();
        if (p.segments <= 0 || p.cols == 0) return;
        // the host's sort (rows by destination, in index order) goes up once
        auto up = [this](const std::vector<int64_t>& v, Staging& s) {
            if (!v.empty()) device_->toDevice(s.p, v.data(), static_cast<int64_t>(v.size() * sizeof(int64_t)));
            return static_cast<const int64_t*>(s.p);
        };
        Staging offsets(*device_, static_cast<int64_t>(loop.rowOffsets.size() * sizeof(int64_t)));
        Staging starts(*device_, static_cast<int64_t>(loop.segStart.size() * sizeof(int64_t)));
        Staging members(*device_, static_cast<int64_t>(loop.members.size() * sizeof(int64_t)));
        p.rowOffsets = up(loop.rowOffsets, offsets);
        p.segStart = up(loop.segStart, starts);
        p.members = up(loop.members, members);
        device_->segmentSum(p);
    }
    void groupNorm(const GroupNormLoop& loop) override
    {
        for (const Tensor* t : {loop.x, loop.dy, loop.out, loop.weight, loop.bias, loop.meanOut, loop.rstdOut,
                                loop.mean, loop.rstd, loop.dw, loop.db})
            if (t && t->numel() > 0 && !onThisDevice(*t)) throw KernelError("expected all tensors to be on " + name());
        auto data = [](const Tensor* t) -> void* { return t && t->numel() > 0 ? t->rawData() : nullptr; };
        GroupNormParams p;
        p.backward = loop.backward;
        p.elem = floatElem(loop.x->dtype());
        p.N = loop.N;
        p.C = loop.C;
        p.HW = loop.HW;
        p.G = loop.G;
        p.eps = loop.eps;
        p.x = data(loop.x);
        p.dy = data(loop.dy);
        p.out = data(loop.out);
        p.weight = data(loop.weight);
        p.bias = data(loop.bias);
        p.meanOut = data(loop.meanOut);
        p.rstdOut = data(loop.rstdOut);
        p.mean = data(loop.mean);
        p.rstd = data(loop.rstd);
        p.dw = data(loop.dw);
        p.db = data(loop.db);
        if (loop.N * loop.C == 0) return;
        if (!p.backward || p.out) device_->groupNorm(p);  // forward; the input gradient (phase 0)
        if (p.backward && (p.dw || p.db)) {
            p.phase = 1;
            device_->groupNorm(p);
        }
    }
    void plane(const PlaneLoop& loop) override
    {
        for (const Tensor* t : {loop.src, loop.index, loop.out, loop.outIndex})
            if (t && t->numel() > 0 && !onThisDevice(*t)) throw KernelError("expected all tensors to be on " + name());
        auto data = [](const Tensor* t) -> void* { return t && t->numel() > 0 ? t->rawData() : nullptr; };
        PlaneParams p;
        p.op = loop.op;
        p.f64 = loop.out->dtype() == DType::F64;
        p.itemBytes = loop.out->itemSize();
        p.g = loop.g;
        p.src = data(loop.src);
        p.index = static_cast<const int64_t*>(data(loop.index));
        p.indexPerPlane = loop.indexPerPlane;
        p.out = data(loop.out);
        p.outIndex = static_cast<int64_t*>(data(loop.outIndex));
        if (loop.out->numel() > 0) device_->plane(p);
    }
    void batchNorm(const BatchNormLoop& loop) override
    {
        for (const Tensor* t : {loop.x, loop.dy, loop.out, loop.weight, loop.bias, loop.runningMean, loop.runningVar,
                                loop.mean, loop.rstd, loop.meanOut, loop.rstdOut, loop.dw, loop.db})
            if (t && t->numel() > 0 && !onThisDevice(*t)) throw KernelError("expected all tensors to be on " + name());
        auto data = [](const Tensor* t) -> void* { return t && t->numel() > 0 ? t->rawData() : nullptr; };
        BatchNormParams p;
        p.backward = loop.backward;
        p.training = loop.training;
        p.elem = floatElem(loop.x->dtype());
        p.N = loop.N;
        p.C = loop.C;
        p.HW = loop.HW;
        p.eps = loop.eps;
        p.momentum = loop.momentum;
        p.x = data(loop.x);
        p.dy = data(loop.dy);
        p.out = data(loop.out);
        p.weight = data(loop.weight);
        p.bias = data(loop.bias);
        p.runningMean = data(loop.runningMean);
        p.runningVar = data(loop.runningVar);
        p.mean = data(loop.mean);
        p.rstd = data(loop.rstd);
        p.meanOut = data(loop.meanOut);
        p.rstdOut = data(loop.rstdOut);
        p.dw = data(loop.dw);
        p.db = data(loop.db);
        if (p.C > 0) device_->batchNorm(p);
    }
    void conv(const ConvLoop& loop) override
    {
        for (const Tensor* t : {loop.a, loop.b, loop.bias, loop.out})
            if (t && t->numel() > 0 && !onThisDevice(*t)) throw KernelError("expected all tensors to be on " + name());
        if (loop.core == ConvCore::GradInput && loop.g.kSp > kConvMaxTaps)
            throw KernelError("convolution: a kernel of " + std::to_string(loop.g.kSp) + " positions (more than "
                              + std::to_string(kConvMaxTaps) + ") is not on CUDA yet");
        ConvParams p;
        p.core = loop.core;
        p.f64 = loop.out->dtype() == DType::F64;
        p.g = loop.g;
        auto data = [](const Tensor* t) -> void* { return t && t->numel() > 0 ? t->rawData() : nullptr; };
        p.a = data(loop.a);
        p.b = data(loop.b);
        p.bias = data(loop.bias);
        p.out = data(loop.out);
        p.count = loop.out->numel();
        p.sumN = loop.sumN;
        p.sumC = loop.sumC;
        p.sumSp = loop.sumSp;
        if (p.count > 0) device_->conv(p);
    }
    void layerNorm(const LayerNormLoop& loop) override
    {
        for (const Tensor* t :
             {loop.x, loop.weight, loop.bias, loop.out, loop.mean, loop.rstd, loop.dy, loop.dx, loop.dw, loop.db})
            if (t && t->numel() > 0 && !onThisDevice(*t)) throw KernelError("expected all tensors to be on " + name());
        const Tensor& x = *loop.x;
        LayerNormParams p;
        p.elem = floatElem(x.dtype());
        p.x = baseOf(x);
        p.xOffset = x.offset();
        p.eps = loop.eps;
        p.rows = 1;
        p.n = 1;
        for (int64_t d = 0; d < x.dim(); ++d) {
            const size_t u = static_cast<size_t>(d);
            if (p.nRowDims == kMaxDims || p.nColDims == kMaxDims)
                throw KernelError("layer norm: too many dims for CUDA");
            if (d < loop.axis) {
                p.rowSizes[p.nRowDims] = x.sizes()[u];
                p.xRowStrides[p.nRowDims] = x.strides()[u];
                if (loop.dy) p.gRowStrides[p.nRowDims] = loop.dy->strides()[u];
                ++p.nRowDims;
                p.rows *= x.sizes()[u];
            } else {
                p.colSizes[p.nColDims] = x.sizes()[u];
                p.xColStrides[p.nColDims] = x.strides()[u];
                if (loop.dy) p.gColStrides[p.nColDims] = loop.dy->strides()[u];
                ++p.nColDims;
                p.n *= x.sizes()[u];
            }
        }
        auto data = [](const Tensor* t) -> void* { return t && t->numel() > 0 ? t->rawData() : nullptr; };
        p.weight = data(loop.weight);
        p.bias = data(loop.bias);
        p.out = data(loop.out);
        p.meanOut = data(loop.mean);
        p.rstdOut = data(loop.rstd);
        if (loop.dy) {
            p.dy = baseOf(*loop.dy);
            p.dyOffset = loop.dy->offset();
        }
        p.dx = data(loop.dx);
        p.dw = data(loop.dw);
        p.db = data(loop.db);
        if (loop.dw)
            p.paramElem = floatElem(loop.dw->dtype());
        else if (loop.db)
            p.paramElem = floatElem(loop.db->dtype());
        const int64_t acc = p.elem == kFloatF64 ? 8 : 4;
        const bool rowPass = !loop.backward || p.dx;
        Staging scratch(*device_, rowPass ? p.rows * lnRowBytes(p.n, acc) : 0);  // the rows' working copies
        p.scratch = scratch.p;
        device_->layerNorm(p, loop.backward);
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
    bool fast_;
};

}  // namespace

std::unique_ptr<Backend> makeCudaBackend(std::unique_ptr<DeviceApi> device, int index, bool fast)
{
    return std::make_unique<CudaBackend>(std::move(device), index, fast);
}

}  // namespace fxl::cuda

#include "runtime/cpu/cpu_backend.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

#include "runtime/base/kernel.hpp"
#include "runtime/cpu/thread_pool.hpp"

namespace fxl {

namespace {

// Copies element by element in the logical (row-major) order of the view; bytes only, so
// it is exact for every dtype.
void stridedCopyBytes(const Tensor& dst, const Tensor& src)
{
    const int64_t n = dst.numel();
    if (n == 0) return;
    const int64_t isz = dst.itemSize();
    if (dst.isContiguous() && src.isContiguous()) {
        std::memcpy(dst.rawData(), src.rawData(), static_cast<size_t>(n * isz));
        return;
    }
    const size_t nd = dst.sizes().size();
    std::vector<int64_t> idx(nd, 0);
    char* d = static_cast<char*>(dst.rawData());
    const char* s = static_cast<const char*>(src.rawData());
    for (int64_t k = 0; k < n; ++k) {
        int64_t od = 0, os = 0;
        for (size_t j = 0; j < nd; ++j) {
            od += idx[j] * dst.strides()[j];
            os += idx[j] * src.strides()[j];
        }
        std::memcpy(d + od * isz, s + os * isz, static_cast<size_t>(isz));
        for (size_t j = nd; j-- > 0;) {
            if (++idx[j] < dst.sizes()[j]) break;
            idx[j] = 0;
        }
    }
}

class CpuBackend final : public Backend
{
public:
    explicit CpuBackend(const CpuBackendOptions& o)
        : pool_(o.threads)
    { }
    std::string name() const override { return "cpu"; }
    DeviceKind device() const override { return DeviceKind::Cpu; }

    Tensor empty(const std::vector<int64_t>& sizes, DType t) override
    {
        if (!runtimeSupportsDType(t)) throw KernelError("the CPU backend has no dtype " + std::string(dtypeAbbr(t)));
        int64_t n = 1;
        for (int64_t s : sizes) {
            if (s < 0) throw KernelError("negative size");
            n *= s;
        }
        const int64_t nbytes = n * dtypeItemSize(t);
        // 64-byte aligned, at least one line so that data() is never null
        const size_t alloc = static_cast<size_t>(((nbytes + 63) / 64) * 64 + (nbytes == 0 ? 64 : 0));
        void* p = std::aligned_alloc(64, alloc);
        if (!p) throw std::bad_alloc();
        noteAlloc(nbytes);
        auto st = std::make_shared<Storage>(this, p, nbytes, DeviceKind::Cpu);
        return Tensor::fromStorage(std::move(st), t, sizes, Tensor::contiguousStrides(sizes), 0);
    }
    void release(void* data, int64_t nbytes) override
    {
        std::free(data);
        noteFree(nbytes);
    }
    void copy(const Tensor& dst, const Tensor& src) override
    {
        if (dst.sizes() != src.sizes()) throw KernelError("copy: sizes differ");
        if (dst.dtype() != src.dtype()) throw KernelError("copy: dtypes differ (use a cast kernel)");
        stridedCopyBytes(dst, src);
    }
    void upload(const Tensor& dst, const void* host, int64_t nbytes) override
    {
        if (!dst.isContiguous() || nbytes != dst.nbytes()) throw KernelError("upload: size mismatch");
        if (nbytes) std::memcpy(dst.rawData(), host, static_cast<size_t>(nbytes));
    }
    void download(void* host, const Tensor& src, int64_t nbytes) override
    {
        if (nbytes != src.nbytes()) throw KernelError("download: size mismatch");
        if (src.isContiguous()) {
            if (nbytes) std::memcpy(host, src.rawData(), static_cast<size_t>(nbytes));
            return;
        }
        // through a contiguous view over the host buffer
        auto tmp = std::make_shared<Storage>(nullptr, host, nbytes, DeviceKind::Cpu);
        Tensor dst = Tensor::fromStorage(tmp, src.dtype(), src.sizes(), Tensor::contiguousStrides(src.sizes()), 0);
        stridedCopyBytes(dst, src);
    }
    void run(KernelCall& call) override
    {
        const std::string& target = call.op ? call.op->qualifiedName : call.node->target;
        const KernelFn* fn = KernelRegistry::instance().find(target, DeviceKind::Cpu);
        if (!fn) throw KernelError("no CPU kernel for " + target);
        call.backend = this;
        call.pool = &pool_;
        (*fn)(call);
    }
    ThreadPool& pool() { return pool_; }

private:
    ThreadPool pool_;
};

}  // namespace

std::unique_ptr<Backend> makeCpuBackend(const CpuBackendOptions& opts) { return std::make_unique<CpuBackend>(opts); }

}  // namespace fxl

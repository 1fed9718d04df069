#include "runtime/cpu/cpu_backend.hpp"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

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

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kKeepFreedBlocks = false;  // AddressSanitizer must see every free
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kKeepFreedBlocks = false;
#else
constexpr bool kKeepFreedBlocks = true;
#endif
#else
constexpr bool kKeepFreedBlocks = true;
#endif

// Freed blocks kept for the next allocation of the same size: a training step allocates the
// same sizes at every step, and the C library's malloc and free of them (with its
// consolidation of free chunks) cost more than many of the small kernels of a large graph.
// Only blocks up to 1 MiB, at most 64 MiB in all; the accounting (Backend::liveBytes) counts
// a kept block as freed, as it is for the run.
class BlockCache
{
public:
    ~BlockCache()
    {
        for (auto& [size, blocks] : free_)
            for (void* p : blocks) std::free(p);
    }
    void* take(size_t size)
    {
        if (!kKeepFreedBlocks || size > kLargest) return nullptr;
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = free_.find(size);
        if (it == free_.end() || it->second.empty()) return nullptr;
        void* p = it->second.back();
        it->second.pop_back();
        kept_ -= size;
        return p;
    }
    // false: not kept (the caller frees it)
    bool keep(void* p, size_t size)
    {
        if (!kKeepFreedBlocks || size > kLargest) return false;
        std::lock_guard<std::mutex> lock(mutex_);
        if (kept_ + size > kMost) return false;
        free_[size].push_back(p);
        kept_ += size;
        return true;
    }

private:
    static constexpr size_t kLargest = size_t(1) << 20, kMost = size_t(64) << 20;
    std::mutex mutex_;
    std::unordered_map<size_t, std::vector<void*>> free_;
    size_t kept_ = 0;
};

// The records (shared_ptr control block and Storage, one allocation) of the backend's
// storages, kept for the next tensor: a large graph makes and drops one per node.
class StorageRecords
{
public:
    ~StorageRecords()
    {
        for (void* p : free_) ::operator delete(p);
    }
    void* take(size_t size)
    {
        if (kKeepFreedBlocks) {
            std::lock_guard<std::mutex> lock(mutex_);
            if (size == size_ && !free_.empty()) {
                void* p = free_.back();
                free_.pop_back();
                return p;
            }
        }
        return ::operator new(size);
    }
    void give(void* p, size_t size)
    {
        if (kKeepFreedBlocks) {
            std::lock_guard<std::mutex> lock(mutex_);
            if (size_ == 0) size_ = size;
            if (size == size_ && free_.size() < kMost) {
                free_.push_back(p);
                return;
            }
        }
        ::operator delete(p);
    }

private:
    static constexpr size_t kMost = 1 << 16;
    std::mutex mutex_;
    std::vector<void*> free_;
    size_t size_ = 0;  // the one size kept (the first given)
};

template<class T>
struct RecordAllocator
{
    using value_type = T;
    StorageRecords* records;
    explicit RecordAllocator(StorageRecords* r)
        : records(r)
    { }
    template<class U>
    RecordAllocator(const RecordAllocator<U>& o)
        : records(o.records)
    { }
    T* allocate(size_t n) { return static_cast<T*>(records->take(n * sizeof(T))); }
    void deallocate(T* p, size_t n) { records->give(p, n * sizeof(T)); }
    template<class U>
    bool operator==(const RecordAllocator<U>& o) const
    {
        return records == o.records;
    }
};

// The size of the block that holds `nbytes`: 64-byte lines, at least one (data() is never null).
size_t blockSize(int64_t nbytes) { return static_cast<size_t>(((nbytes + 63) / 64) * 64 + (nbytes == 0 ? 64 : 0)); }

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
        const int64_t nbytes = newTensorBytes(sizes, t);
        // 64-byte aligned
        const size_t alloc = blockSize(nbytes);
        void* p = blocks_.take(alloc);
        if (!p) p = std::aligned_alloc(64, alloc);
        if (!p) throw std::bad_alloc();
        noteAlloc(nbytes);
        return layouts_.make(
            std::allocate_shared<Storage>(RecordAllocator<Storage>(&records_), this, p, nbytes, DeviceKind::Cpu), t,
            sizes);
    }
    void release(void* data, int64_t nbytes) override
    {
        if (!blocks_.keep(data, blockSize(nbytes))) std::free(data);
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
        const KernelFn* fn = call.kernel;
        if (!fn) {
            const std::string& target = call.op ? call.op->qualifiedName : call.node->target;
            fn = KernelRegistry::instance().find(target, DeviceKind::Cpu);
            if (!fn) throw KernelError("no CPU kernel for " + target);
        }
        call.backend = this;
        call.pool = &pool_;
        (*fn)(call);
    }
    ThreadPool& pool() { return pool_; }

private:
    BlockCache blocks_;  // given back to the C library with the backend
    StorageRecords records_;
    ContiguousLayouts layouts_;
    ThreadPool pool_;
};

}  // namespace

std::unique_ptr<Backend> makeCpuBackend(const CpuBackendOptions& opts) { return std::make_unique<CpuBackend>(opts); }

}  // namespace fxl

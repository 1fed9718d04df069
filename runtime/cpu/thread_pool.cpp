#include "runtime/cpu/thread_pool.hpp"

#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <xmmintrin.h>
#endif

namespace fxl {

namespace {
// Denormals are kept (no flush-to-zero, no denormals-are-zero) on every thread that computes,
// so that a result never depends on which thread produced it.
void setIeeeDenormals()
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned csr = _mm_getcsr();
    csr &= ~(1u << 15);  // FTZ
    csr &= ~(1u << 6);  // DAZ
    _mm_setcsr(csr);
    if ((_mm_getcsr() & ((1u << 15) | (1u << 6))) != 0) throw std::runtime_error("cannot clear FTZ/DAZ");
#endif
}

inline void cpuRelax()
{
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#else
    std::this_thread::yield();
#endif
}

// How long a thread polls before it sleeps on the condition variable: a parallel region
// that follows within this window (the next kernel of a graph, the compute phase after a
// packing phase) starts without a futex wake-up, which costs 10-50 us, as much as a whole
// 256^3 product. About 50-100 us of pause instructions; OpenMP runtimes spin far longer.
constexpr int kSpinIterations = 1 << 14;
}  // namespace

struct ThreadPool::Impl
{
    int threads = 1;
    std::vector<std::thread> workers;
    std::mutex m;
    std::condition_variable wake, done;
    // Written under m (so a sleeper cannot miss it), read without it while polling.
    std::atomic<uint64_t> generation{0};
    std::atomic<int> pending{0};
    bool stop = false;  // under m
    std::atomic<bool> stopping{false};
    // the current job (published by the release store of generation)
    const std::function<void(int64_t, int64_t)>* fn = nullptr;
    std::vector<std::pair<int64_t, int64_t>> ranges;
    std::exception_ptr error;

    void runRange(size_t k)
    {
        try {
            if (k < ranges.size() && ranges[k].first < ranges[k].second) (*fn)(ranges[k].first, ranges[k].second);
        } catch (...) {
            std::lock_guard<std::mutex> g(m);
            if (!error) error = std::current_exception();
        }
    }

    void workerLoop(size_t index)
    {
        setIeeeDenormals();
        uint64_t seen = 0;
        for (;;) {
            bool ready = false;
            for (int s = 0; s < kSpinIterations; ++s) {
                if (stopping.load(std::memory_order_relaxed)) break;
                if (generation.load(std::memory_order_acquire) != seen) {
                    ready = true;
                    break;
                }
                cpuRelax();
            }
            if (!ready) {
                std::unique_lock<std::mutex> lk(m);
                wake.wait(lk, [&] { return stop || generation.load(std::memory_order_acquire) != seen; });
                if (stop) return;
            }
            seen = generation.load(std::memory_order_acquire);
            runRange(index + 1);
            if (pending.fetch_sub(1, std::memory_order_acq_rel) == 1) {
                // the caller may be asleep: take the lock so that its predicate check and
                // this notification cannot interleave badly
                std::lock_guard<std::mutex> g(m);
                done.notify_one();
            }
        }
    }
};

ThreadPool::ThreadPool(int threads)
    : impl_(new Impl)
{
    if (threads < 1) threads = 1;
    impl_->threads = threads;
    setIeeeDenormals();
    for (int k = 1; k < threads; ++k)
        impl_->workers.emplace_back([this, k] { impl_->workerLoop(static_cast<size_t>(k - 1)); });
}

ThreadPool::~ThreadPool()
{
    {
        std::lock_guard<std::mutex> g(impl_->m);
        impl_->stop = true;
        impl_->stopping.store(true, std::memory_order_relaxed);
    }
    impl_->wake.notify_all();
    for (auto& t : impl_->workers) t.join();
    delete impl_;
}

int ThreadPool::threads() const { return impl_->threads; }

void ThreadPool::prepareCaller() { setIeeeDenormals(); }

void ThreadPool::parallelFor(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn)
{
    if (n <= 0) return;
    if (grain < 1) grain = 1;
    int64_t parts = std::min<int64_t>(impl_->threads, (n + grain - 1) / grain);
    if (parts <= 1) {
        setIeeeDenormals();
        fn(0, n);
        return;
    }
    {
        std::lock_guard<std::mutex> lk(impl_->m);
        impl_->fn = &fn;
        impl_->ranges.assign(static_cast<size_t>(impl_->threads), {0, 0});
        const int64_t per = n / parts, extra = n % parts;
        int64_t begin = 0;
        for (int64_t k = 0; k < parts; ++k) {
            const int64_t len = per + (k < extra ? 1 : 0);
            impl_->ranges[static_cast<size_t>(k)] = {begin, begin + len};
            begin += len;
        }
        impl_->error = nullptr;
        impl_->pending.store(impl_->threads - 1, std::memory_order_relaxed);
        impl_->generation.fetch_add(1, std::memory_order_release);
    }
    impl_->wake.notify_all();
    impl_->runRange(0);
    bool finished = false;
    for (int s = 0; s < kSpinIterations; ++s) {
        if (impl_->pending.load(std::memory_order_acquire) == 0) {
            finished = true;
            break;
        }
        cpuRelax();
    }
    std::unique_lock<std::mutex> lk(impl_->m);
    if (!finished) impl_->done.wait(lk, [&] { return impl_->pending.load(std::memory_order_acquire) == 0; });
    impl_->fn = nullptr;
    if (impl_->error) {
        auto e = impl_->error;
        impl_->error = nullptr;
        std::rethrow_exception(e);
    }
}

}  // namespace fxl

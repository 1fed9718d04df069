#include "runtime/thread_pool.hpp"

#include <condition_variable>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace fxl {

namespace {
// Denormals are kept (no flush-to-zero, no denormals-are-zero) on every thread that computes,
// so that a result never depends on which thread produced it.
void setIeeeDenormals() {
#if defined(__x86_64__) || defined(__i386__)
    unsigned csr = _mm_getcsr();
    csr &= ~(1u << 15);  // FTZ
    csr &= ~(1u << 6);   // DAZ
    _mm_setcsr(csr);
    if ((_mm_getcsr() & ((1u << 15) | (1u << 6))) != 0) throw std::runtime_error("cannot clear FTZ/DAZ");
#endif
}
}  // namespace

struct ThreadPool::Impl {
    int threads = 1;
    std::vector<std::thread> workers;
    std::mutex m;
    std::condition_variable wake, done;
    uint64_t generation = 0;
    int pending = 0;
    bool stop = false;
    // the current job
    const std::function<void(int64_t, int64_t)>* fn = nullptr;
    std::vector<std::pair<int64_t, int64_t>> ranges;
    std::exception_ptr error;

    void runRange(size_t k) {
        try {
            if (k < ranges.size() && ranges[k].first < ranges[k].second) (*fn)(ranges[k].first, ranges[k].second);
        } catch (...) {
            std::lock_guard<std::mutex> g(m);
            if (!error) error = std::current_exception();
        }
    }

    void workerLoop(size_t index) {
        setIeeeDenormals();
        uint64_t seen = 0;
        for (;;) {
            std::unique_lock<std::mutex> lk(m);
            wake.wait(lk, [&] { return stop || generation != seen; });
            if (stop) return;
            seen = generation;
            lk.unlock();
            runRange(index + 1);
            lk.lock();
            if (--pending == 0) done.notify_one();
        }
    }
};

ThreadPool::ThreadPool(int threads) : impl_(new Impl) {
    if (threads < 1) threads = 1;
    impl_->threads = threads;
    setIeeeDenormals();
    for (int k = 1; k < threads; ++k) impl_->workers.emplace_back([this, k] { impl_->workerLoop(static_cast<size_t>(k - 1)); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> g(impl_->m);
        impl_->stop = true;
    }
    impl_->wake.notify_all();
    for (auto& t : impl_->workers) t.join();
    delete impl_;
}

int ThreadPool::threads() const { return impl_->threads; }

void ThreadPool::parallelFor(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
    if (n <= 0) return;
    if (grain < 1) grain = 1;
    int64_t parts = std::min<int64_t>(impl_->threads, (n + grain - 1) / grain);
    if (parts <= 1) {
        setIeeeDenormals();
        fn(0, n);
        return;
    }
    std::unique_lock<std::mutex> lk(impl_->m);
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
    impl_->pending = impl_->threads - 1;
    ++impl_->generation;
    lk.unlock();
    impl_->wake.notify_all();
    impl_->runRange(0);
    lk.lock();
    impl_->done.wait(lk, [&] { return impl_->pending == 0; });
    impl_->fn = nullptr;
    if (impl_->error) {
        auto e = impl_->error;
        impl_->error = nullptr;
        std::rethrow_exception(e);
    }
}

}  // namespace fxl

// A persistent pool of worker threads that splits independent outputs (rows, tiles) between
// threads. The split never changes any element's arithmetic, so results do not depend on
// the thread count. FTZ/DAZ are set off on every worker and asserted.
#pragma once

#include <cstdint>
#include <functional>

namespace fxl {

class ThreadPool
{
public:
    explicit ThreadPool(int threads);  // threads >= 1 (1 = run on the caller)
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int threads() const;
    // Calls fn(begin, end) over [0, n) cut into contiguous ranges of at least `grain`
    // items; blocks until all are done. Exceptions from fn are rethrown on the caller.
    void parallelFor(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);
    // parallelFor, except that a range of one part (one thread, or n <= grain: most calls of
    // the small kernels of a large graph) runs fn on the caller without making a std::function.
    template<class F>
    void parallelForInline(int64_t n, int64_t grain, F&& fn)
    {
        if (n <= 0) return;
        if (threads() <= 1 || n <= (grain < 1 ? 1 : grain)) {
            prepareCaller();
            fn(int64_t(0), n);
            return;
        }
        parallelFor(n, grain, std::function<void(int64_t, int64_t)>(std::ref(fn)));
    }
    // Makes the calling thread compute as the workers do (denormals kept: no FTZ, no DAZ).
    static void prepareCaller();

private:
    struct Impl;
    Impl* impl_;
};

}  // namespace fxl

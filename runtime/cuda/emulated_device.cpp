// The emulated CUDA device: host memory, kernels' bodies run by the CPU emulator (emulate.hpp).
// Its memory behaves as a GPU's does for the host: every allocation is mapped with no access
// (PROT_NONE) except while a transfer or a kernel launch that names it runs, so host code that
// reads or writes a device tensor directly (a kernel's host logic forgetting that its tensors
// are not in host memory) crashes in the tests instead of working by accident.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <new>
#include <type_traits>
#include <vector>

#include "runtime/cuda/device_api.hpp"
#include "runtime/cuda/emulate.hpp"

namespace fxl::cuda {
namespace {

// The pointwise kernel of every listed functor, by its number (pw::Functors).
using PointwiseRun = void (*)(const Coord&, const PointwiseParams&, const pw::Fn&);
template<class... F>
constexpr std::array<PointwiseRun, sizeof...(F)> pointwiseRuns(pw::List<F...>)
{
    return {&pointwiseFnBody<F>...};
}
constexpr auto kPointwiseRuns = pointwiseRuns(pw::Functors{});

size_t pageRound(int64_t n)
{
    static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    return (static_cast<size_t>(n) + page - 1) / page * page;
}

class EmulatedDevice final : public DeviceApi
{
public:
    explicit EmulatedDevice(int index)
        : index_(index)
    { }
    ~EmulatedDevice() override
    {
        for (const auto& [start, len] : maps_) munmap(reinterpret_cast<void*>(start), len);
    }
    std::string name() const override { return "cuda-emu:" + std::to_string(index_); }
    void* allocate(int64_t nbytes) override
    {
        if (nbytes == 0) return nullptr;
        // page-aligned (cudaMalloc's 256 bytes and more), no access until a launch names it
        const size_t len = pageRound(nbytes);
        void* p = mmap(nullptr, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) throw std::bad_alloc();
        maps_[reinterpret_cast<uintptr_t>(p)] = len;
        return p;
    }
    void deallocate(void* p, int64_t) override
    {
        if (!p) return;
        auto it = maps_.find(reinterpret_cast<uintptr_t>(p));
        if (it == maps_.end()) return;
        munmap(p, it->second);
        maps_.erase(it);
    }
    void toDevice(void* dst, const void* host, int64_t nbytes) override
    {
        if (!nbytes) return;
        Open open(*this, {dst});
        std::memcpy(dst, host, static_cast<size_t>(nbytes));
    }
    void toHost(void* host, const void* src, int64_t nbytes) override
    {
        if (!nbytes) return;
        Open open(*this, {src});
        std::memcpy(host, src, static_cast<size_t>(nbytes));
    }
    void synchronize() override { }
    void stridedCopy(const StridedCopyParams& p) override
    {
        Open open(*this, {p.dst, p.src});
        emulateLaunch(gridFor(p.numel), {kThreads, 1, 1}, [&](const Coord& c) { stridedCopyBody(c, p); });
    }
    // A stand-in for cuBLAS's tensor cores: f32 operands rounded to TF32 (10 fraction bits, to
    // nearest even), bf16 / f16 ones as they are, each output summed from +0 in blocks of 8 k
    // values (products and block sums in float, without FMA; in double for f64), the blocks
    // added in turn. Neither the CPU's bits nor cuBLAS's: close to both, as a fast run is.
    void fastGemm(const GemmParams& p) override
    {
        if (p.m == 0 || p.n == 0 || p.batch == 0) return;
        Open open(*this, {p.a.data, p.b.data, p.c});
        if (p.a.elem == kGemmF64)
            fastRun<double>(p);
        else
            fastRun<float>(p);
    }
    void gemm(const GemmParams& p) override
    {
        if (p.m == 0 || p.n == 0 || p.batch == 0) return;
        Open open(*this, {p.a.data, p.b.data, p.c});
        if (p.a.elem == kGemmF64)
            run<double>(p);
        else
            run<float>(p);
    }
    void intGemm(const IntGemmParams& p) override
    {
        const int64_t total = p.batch * p.m * p.n;
        if (total == 0) return;
        Open open(*this, {p.a.data, p.b.data, p.bias.data, p.c});
        emulateLaunch(gridFor(total), {kThreads, 1, 1}, [&](const Coord& c) { intGemmBody(c, p); });
    }
    void rowSum(const RowSumParams& p) override
    {
        if (p.rows == 0) return;
        Open open(*this, {p.src, p.out});
        emulateLaunch(gridFor(p.rows), {kThreads, 1, 1}, [&](const Coord& c) { rowSumBody(c, p); });
    }
    void rows(const RowsParams& p) override
    {
        if (p.rows == 0 || p.n == 0) return;
        Open open(*this, {p.in[0], p.in[1], p.out, p.scratch});
        emulateLaunch(gridFor(p.rows), {kThreads, 1, 1}, [&](const Coord& c) { rowsBody(c, p); });
    }
    void nll(const NllParams& p, bool backward) override
    {
        if (p.rows == 0 && backward) return;
        Open open(*this, {p.x, p.weight, p.targets, p.out, p.total, p.scratch, p.grad, p.totalWeight});
        if (backward) {
            emulateLaunch(gridFor(p.rows), {kThreads, 1, 1}, [&](const Coord& c) { nllBackwardBody(c, p); });
            return;
        }
        emulateLaunch(gridFor(p.rows), {kThreads, 1, 1}, [&](const Coord& c) { nllForwardRowsBody(c, p); });
        emulateLaunch({1, 1, 1}, {1, 1, 1}, [&](const Coord& c) { nllForwardFoldBody(c, p); });
    }
    void gather(const GatherParams& p) override
    {
        if (p.numel == 0) return;
        Open open(*this, {p.base, p.out, p.idx[0], p.idx[1], p.idx[2], p.idx[3], p.idx[4], p.idx[5], p.error});
        auto claim = [](DeviceErrorRecord* r) {  // threads run one after another here
            if (r->flag != 0) return false;
            r->flag = 1;
            return true;
        };
        emulateLaunch(gridFor(p.numel), {kThreads, 1, 1}, [&](const Coord& c) { gatherBody(c, p, claim); });
    }
    void segmentSum(const SegmentSumParams& p) override
    {
        const int64_t total = p.segments * p.cols;
        if (total == 0) return;
        Open open(*this, {p.src, p.rowOffsets, p.segStart, p.members, p.out});
        emulateLaunch(gridFor(total), {kThreads, 1, 1}, [&](const Coord& c) { segmentSumBody(c, p); });
    }
    void layerNorm(const LayerNormParams& p, bool backward) override
    {
        Open open(*this, {p.x, p.dy, p.weight, p.bias, p.out, p.meanOut, p.rstdOut, p.dx, p.dw, p.db});
        Open scratch(*this, {p.scratch});
        if (!backward) {
            if (p.rows > 0)
                emulateLaunch(gridFor(p.rows), {kThreads, 1, 1}, [&](const Coord& c) { layerNormForwardBody(c, p); });
            return;
        }
        if (p.dx && p.rows > 0)
            emulateLaunch(gridFor(p.rows), {kThreads, 1, 1}, [&](const Coord& c) { layerNormInputGradBody(c, p); });
        if ((p.dw || p.db) && p.n > 0)
            emulateLaunch(gridFor(p.n), {kThreads, 1, 1}, [&](const Coord& c) { layerNormParamGradBody(c, p); });
    }
    void groupNorm(const GroupNormParams& p) override
    {
        Open open(*this, {p.x, p.dy, p.out, p.weight, p.bias, p.meanOut, p.rstdOut, p.mean, p.rstd, p.dw, p.db});
        emulateLaunch(gridFor(groupNormThreads(p)), {kThreads, 1, 1}, [&](const Coord& c) { groupNormBody(c, p); });
    }
    void plane(const PlaneParams& p) override
    {
        Open open(*this, {p.src, p.index, p.out, p.outIndex});
        emulateLaunch(gridFor(planeThreads(p)), {kThreads, 1, 1}, [&](const Coord& c) { planeBody(c, p); });
    }
    void batchNorm(const BatchNormParams& p) override
    {
        Open open(*this,
                  {p.x, p.dy, p.out, p.weight, p.bias, p.runningMean, p.runningVar, p.mean, p.rstd, p.meanOut,
                   p.rstdOut, p.dw, p.db});
        emulateLaunch(gridFor(p.C), {kThreads, 1, 1}, [&](const Coord& c) { batchNormBody(c, p); });
    }
    void conv(const ConvParams& p) override
    {
        Open open(*this, {p.a, p.b, p.bias, p.out});
        emulateLaunch(gridFor(p.count), {kThreads, 1, 1}, [&](const Coord& c) { convBody(c, p); });
    }
    void pointwise(const PointwiseParams& p, const PointwiseLoop& loop) override
    {
        if (p.numel == 0) return;
        Open open(*this, {p.base[0], p.base[1], p.base[2], p.base[3]});
        const pw::Fn& fn = loop.fn;
        if (fn.kind < 0 || fn.kind >= pw::kFunctorCount)
            throw std::runtime_error("internal: a pointwise loop without its functor's device form");
        const PointwiseRun run = kPointwiseRuns[static_cast<size_t>(fn.kind)];
        emulateLaunch(gridFor(p.numel), {kThreads, 1, 1}, [&](const Coord& c) { run(c, p, fn); });
    }

private:
    // The allocations holding `ptrs` readable and writable while it lives.
    class Open
    {
    public:
        Open(EmulatedDevice& d, std::initializer_list<const void*> ptrs)
            : d_(d)
        {
            for (const void* p : ptrs) {
                if (!p) continue;
                auto it = d_.maps_.upper_bound(reinterpret_cast<uintptr_t>(p));
                if (it == d_.maps_.begin()) continue;
                --it;
                if (reinterpret_cast<uintptr_t>(p) >= it->first + it->second) continue;  // not device memory
                bool seen = false;
                for (const auto& o : opened_) seen = seen || o.first == it->first;
                if (seen) continue;
                mprotect(reinterpret_cast<void*>(it->first), it->second, PROT_READ | PROT_WRITE);
                opened_.push_back(*it);
            }
        }
        ~Open()
        {
            for (const auto& [start, len] : opened_) mprotect(reinterpret_cast<void*>(start), len, PROT_NONE);
        }
        Open(const Open&) = delete;
        Open& operator=(const Open&) = delete;

    private:
        EmulatedDevice& d_;
        std::vector<std::pair<uintptr_t, size_t>> opened_;
    };

    static float toTf32(float x)
    {
        uint32_t u = 0;
        std::memcpy(&u, &x, 4);
        if ((u & 0x7f800000u) == 0x7f800000u) return x;  // inf, NaN
        u += 0x0fffu + ((u >> 13) & 1u);
        u &= ~0x1fffu;
        std::memcpy(&x, &u, 4);
        return x;
    }
    template<class T>
    static T fastLoad(const GemmOperandView& o, int64_t off)
    {
        const T v = gemmLoad<T>(o, off);
        if constexpr (std::is_same_v<T, float>)
            if (o.elem == kGemmF32) return toTf32(v);
        return v;
    }
    template<class T>
    void fastRun(const GemmParams& p)
    {
        constexpr int64_t kBlock = 8;
        for (int64_t bi = 0; bi < p.batch; ++bi)
            for (int64_t i = 0; i < p.m; ++i)
                for (int64_t j = 0; j < p.n; ++j) {
                    T total = T(0);
                    for (int64_t k0 = 0; k0 < p.k; k0 += kBlock) {
                        T block = T(0);
                        for (int64_t kk = k0; kk < std::min(p.k, k0 + kBlock); ++kk) {
                            const T x = fastLoad<T>(p.a, bi * p.a.batchStride + i * p.a.rowStride + kk * p.a.colStride);
                            const T y = fastLoad<T>(p.b, bi * p.b.batchStride + kk * p.b.rowStride + j * p.b.colStride);
                            const T prod = x * y;
                            block = block + prod;
                        }
                        total = total + block;
                    }
                    static_cast<T*>(p.c)[bi * p.cBatchStride + i * p.ldc + j] = total;
                }
    }
    template<class T>
    void run(const GemmParams& p)
    {
        emulatePhasedLaunch<GemmShared<T>, GemmThread<T>>(
            gemmGrid(p), gemmBlock(), gemmPhases(p),
            [&](const Coord& c, int phase, GemmShared<T>& sh, GemmThread<T>& th) { gemmBody(c, phase, sh, th, p); });
    }
    int index_;
    std::map<uintptr_t, size_t> maps_;  // start -> mapped length
};

}  // namespace

std::unique_ptr<DeviceApi> makeEmulatedDevice(int index) { return std::make_unique<EmulatedDevice>(index); }

}  // namespace fxl::cuda

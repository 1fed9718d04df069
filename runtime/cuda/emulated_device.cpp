#include <cstdlib>
#include <cstring>
#include <new>

#include "runtime/cuda/device_api.hpp"
#include "runtime/cuda/emulate.hpp"

namespace fxl::cuda {
namespace {

class EmulatedDevice final : public DeviceApi
{
public:
    explicit EmulatedDevice(int index)
        : index_(index)
    { }
    std::string name() const override { return "cuda-emu:" + std::to_string(index_); }
    void* allocate(int64_t nbytes) override
    {
        if (nbytes == 0) return nullptr;
        // 256-byte alignment, as cudaMalloc's
        void* p = std::aligned_alloc(256, static_cast<size_t>((nbytes + 255) / 256 * 256));
        if (!p) throw std::bad_alloc();
        return p;
    }
    void deallocate(void* p, int64_t) override { std::free(p); }
    void toDevice(void* dst, const void* host, int64_t nbytes) override
    {
        if (nbytes) std::memcpy(dst, host, static_cast<size_t>(nbytes));
    }
    void toHost(void* host, const void* src, int64_t nbytes) override
    {
        if (nbytes) std::memcpy(host, src, static_cast<size_t>(nbytes));
    }
    void synchronize() override { }
    void stridedCopy(const StridedCopyParams& p) override
    {
        emulateLaunch(gridFor(p.numel), {kThreads, 1, 1}, [&](const Coord& c) { stridedCopyBody(c, p); });
    }
    void gemm(const GemmParams& p) override
    {
        if (p.m == 0 || p.n == 0 || p.batch == 0) return;
        if (p.a.elem == kGemmF64)
            run<double>(p);
        else
            run<float>(p);
    }

private:
    template<class T>
    void run(const GemmParams& p)
    {
        emulatePhasedLaunch<GemmShared<T>, GemmThread<T>>(
            gemmGrid(p), gemmBlock(), gemmPhases(p),
            [&](const Coord& c, int phase, GemmShared<T>& sh, GemmThread<T>& th) { gemmBody(c, phase, sh, th, p); });
    }

    int index_;
};

}  // namespace

std::unique_ptr<DeviceApi> makeEmulatedDevice(int index) { return std::make_unique<EmulatedDevice>(index); }

}  // namespace fxl::cuda

// Internals of the CPU elementwise family (cpu_elementwise*.cpp): the one strided loop every
// kernel of the family runs through, on the device-independent rules of
// runtime/base/elementwise_rules.hpp (storage types, conversions, promotion, output layouts).
//
// Numerics: every element goes through the same functor whatever the path (contiguous inner
// loop or strided), the split between threads or the position; no fast-math, no implicit
// contraction; each value comes from the functor's runtime/math/ formula (the transcendental
// functions are fxlens' own, correctly rounded in float).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "runtime/base/backend.hpp"
#include "runtime/base/elementwise_rules.hpp"
#include "runtime/base/pointwise_fn.hpp"
#include "runtime/cpu/cpu_common.hpp"
#include "runtime/cpu/thread_pool.hpp"

namespace fxl::cpu::ew {

using namespace fxl::ew;  // the rules (runtime/base/elementwise_rules.hpp)

// PyTorch's resize_ of `t` to `sizes`: t itself when the sizes are its own; else a view of
// the new sizes with contiguous strides (or memoryFormat's, namedFormatStrides) at t's
// offset, on t's storage when it is big enough, otherwise on a new storage that starts with
// the old one's bytes (the elements past them are zero, where PyTorch leaves them unset).
Tensor resizedTensor(const KernelCall& call, const Tensor& t, const std::vector<int64_t>& sizes,
                     const Value& memoryFormat);

// ---- the loop
inline constexpr int64_t kGrainCheap = 1 << 15;  // elements per thread at least (add, copy)
inline constexpr int64_t kGrainMath = 1 << 12;  // transcendental functors

namespace detail {
// One run of `n` elements along the walk's fastest dim: ptr[0] the output's first element,
// ptr[1..] the inputs', step[k] operand k's stride in elements; `f` points at the functor.
using RunFn = PointwiseLoop::RunFn;
inline constexpr size_t kMaxOperands = PointwiseLoop::kMaxOperands;

// The walk shared by every pointwise kernel (cpu_elementwise.cpp): the operands' dims in the
// output's memory order, size-1 dims dropped and adjacent dims merged where every operand
// allows it, cut into contiguous ranges for the threads; `run` is called once per stretch of
// the fastest dim. Only `run` depends on the functor and the dtypes, so each kernel compiles
// its element loop and nothing else.
void walkPointwise(ThreadPool* pool, const Tensor* const* ops, const int64_t* itemBytes, size_t nOps, int64_t grain,
                   RunFn run, const void* f);

template<class F, class OutS, class... InS>
struct Runner
{
    static_assert(sizeof...(InS) + 1 <= kMaxOperands);
    static constexpr std::array<int64_t, sizeof...(InS) + 1> kItem = {static_cast<int64_t>(sizeof(OutS)),
                                                                      static_cast<int64_t>(sizeof(InS))...};
    template<size_t... K>
    static void loop(char* const* ptr, const int64_t* step, int64_t n, const F& f, std::index_sequence<K...>)
    {
        OutS* out = reinterpret_cast<OutS*>(ptr[0]);
        bool unit = step[0] == 1;
        ((unit = unit && step[K + 1] == 1), ...);
        if (unit) {
            // contiguous: plain indexing so the compiler may vectorise; the same functor per element
            for (int64_t i = 0; i < n; ++i) out[i] = f(reinterpret_cast<const InS*>(ptr[K + 1])[i]...);
        } else {
            for (int64_t i = 0; i < n; ++i)
                out[i * step[0]] = f(reinterpret_cast<const InS*>(ptr[K + 1])[i * step[K + 1]]...);
        }
    }
    static void run(char* const* ptr, const int64_t* step, int64_t n, const void* f)
    {
        loop(ptr, step, n, *static_cast<const F*>(f), std::index_sequence_for<InS...>{});
    }
};

// out, then ins: the loop's operands.
template<size_t M>
std::array<const Tensor*, M + 1> operandsOf(const Tensor& out, const std::array<Tensor, M>& ins)
{
    std::array<const Tensor*, M + 1> ops{};
    ops[0] = &out;
    for (size_t k = 0; k < M; ++k) ops[k + 1] = &ins[k];
    return ops;
}

// The loop on a device backend, with the functor's device form: every operand must be on the
// output's backend.
void devicePointwise(ThreadPool* pool, const Tensor* const* ops, const int64_t* itemBytes, size_t nOps, int64_t grain,
                     RunFn run, const void* f, const pw::Fn& fn);
}  // namespace detail

// out[i] = f(in0[i], in1[i], ...) over every element of `out`. The inputs have out's sizes
// (expand them first); f maps storage values to a storage value: a functor of
// runtime/base/pointwise_fn.hpp's list (or a Lifted / Stored / Convert wrapper of one), so
// that it runs on every device. Threads get contiguous ranges of the iteration order; no
// element's arithmetic depends on the split.
template<class OutS, class... InS, class F>
void pointwiseOnCpu(ThreadPool* pool, const Tensor& out, const std::array<Tensor, sizeof...(InS)>& ins, const F& f,
                    int64_t grain = kGrainCheap);

template<class OutS, class... InS, class F>
void pointwise(ThreadPool* pool, const Tensor& out, const std::array<Tensor, sizeof...(InS)>& ins, const F& f,
               int64_t grain = kGrainCheap)
{
    if (out.device() == DeviceKind::Cpu) {
        pointwiseOnCpu<OutS, InS...>(pool, out, ins, f, grain);
        return;
    }
    using R = detail::Runner<F, OutS, InS...>;
    const auto ops = detail::operandsOf(out, ins);
    detail::devicePointwise(pool, ops.data(), R::kItem.data(), ops.size(), grain, &R::run, &f,
                            pw::deviceForm<OutS, InS...>(f));
}

// pointwise for a functor with no device form (a CPU-only fast path: the caller gives a
// device the listed functor instead). Throws on a device.
template<class OutS, class... InS, class F>
void pointwiseOnCpu(ThreadPool* pool, const Tensor& out, const std::array<Tensor, sizeof...(InS)>& ins, const F& f,
                    int64_t grain)
{
    if (out.device() != DeviceKind::Cpu) throw KernelError("internal: a CPU-only pointwise loop on a device");
    using R = detail::Runner<F, OutS, InS...>;
    const auto ops = detail::operandsOf(out, ins);
    detail::walkPointwise(pool, ops.data(), R::kItem.data(), ops.size(), grain, &R::run, &f);
}

// ThreadPool::parallelFor when the call has a pool, else one range on the caller.
template<class F>
void parallelFor(const KernelCall& call, int64_t n, int64_t grain, const F& fn)
{
    if (n <= 0) return;
    if (call.pool)
        call.pool->parallelForInline(n, grain, fn);
    else
        fn(0, n);
}

// Wraps a functor on compute values (Num<S>::C) into one on storage values.
template<class OutS, class... InS, class F>
pw::Lifted<OutS, F, InS...> lifted(F f)
{
    return pw::Lifted<OutS, F, InS...>{f};
}

// ---- helpers shared by the kernel files
// t's elements in row-major order, in host memory (copied; downloaded when t is on a device):
// what host logic reads of a tensor's values (an item, a 0-dim operand).
std::vector<unsigned char> hostBytes(const Tensor& t);
// A new contiguous tensor of `sizes` and `t` on the call's backend holding `bytes` (row-major
// elements computed on the host).
Tensor tensorFromHost(const KernelCall& call, const std::vector<int64_t>& sizes, DType t, const void* bytes);
// A tensor of dtype `to` with t's values (t itself when the dtype matches). Keeps t's sizes;
// the copy is contiguous.
Tensor castTo(const KernelCall& call, const Tensor& t, DType to);
// dst (any strides) = src converted to dst's dtype; src has dst's sizes (or broadcasts to them).
void castInto(const KernelCall& call, const Tensor& dst, const Tensor& src);
// dst (any strides) = value converted to dst's dtype.
void fillWith(const KernelCall& call, const Tensor& dst, const Value& value);

void registerCopies(KernelRegistry& reg, DeviceKind d);  // cpu_elementwise.cpp (clone, casts)

}  // namespace fxl::cpu::ew

namespace fxl::cpu {

// The whole family, registered for the CPU by registerCpuKernels and for CUDA by
// registerCudaKernels: its host logic is the same on every device, its loops go through
// pointwise (Backend::pointwise on a device).
void registerElementwiseKernels(KernelRegistry& reg, DeviceKind d);

}  // namespace fxl::cpu

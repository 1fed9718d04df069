// Building blocks of the elementwise kernels with several operands (tensors or Python
// numbers): argument helpers, the broadcast output layout, integer arithmetic that wraps, and
// the binary / unary loops the arithmetic, comparison and activation kernels run through.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/cpu/cpu_elementwise.hpp"

namespace fxl::cpu::ew {

// The argument `name`, or `fallback` when it is absent or None.
const Value& argOr(const KernelCall& call, const char* name, const Value& fallback);
// The Python number 1 (alpha's default).
const Value& intOne();
// The broadcast shape of the tensor operands (numbers do not take part).
std::vector<int64_t> broadcastOf(const std::vector<const Value*>& vals);
std::vector<const Tensor*> tensorsOf(const std::vector<const Value*>& vals);
// How many operands are Python numbers.
int scalarsOf(const std::vector<const Value*>& vals);
// Throws unless v is a tensor or a number.
void needOperand(const Value& v, const char* op, const char* name);
// A new output for a binary op of a and b (tensors or numbers): broadcast shape, laid out
// as TensorIterator would.
Tensor binaryOutput(const KernelCall& call, const Value& a, const Value& b, DType t);

// Integer division and remainder by zero fail before any element is computed (no device can
// throw from inside its loop): throws `message` when common is an integer dtype, out is not
// empty and the divisor, converted to common, holds a zero.
void checkIntDivisor(const KernelCall& call, const Value& divisor, DType common, const Tensor& out,
                     const char* message);

// f(x, b) with b fixed (the CPU's loop for a tensor and a number).
template<class F, class C>
struct BindSecond
{
    F f;
    C b;
    auto operator()(C x) const { return f(x, b); }
};

// out = f(a, b) with a, b tensors (cast to S, broadcast) or Python numbers (converted to S
// once, the way TensorIterator casts a wrapped number to the common dtype). The output's
// storage type is OutS (S, or B8 for comparisons). On the CPU the tensor-number case gets its
// own loop (the number folded into the functor); a device runs the number as a 0-dim tensor.
template<class S, class OutS = S, class F>
void runBinary(const KernelCall& call, const Tensor& out, const Value& a, const Value& b, F f,
               int64_t grain = kGrainCheap)
{
    using C = typename Num<S>::C;
    constexpr DType dt = dtypeOf<S>();
    // a number becomes a 0-dim tensor of S (broadcast with stride 0)
    auto prep = [&](const Value& v) {
        if (v.isTensor()) return expandTo(castTo(call, v.tensor, dt), out.sizes());
        const S x = scalarTo<S>(v);
        return expandTo(tensorFromHost(call, {}, dt, &x), out.sizes());
    };
    if (a.isTensor() && !b.isTensor() && out.device() == DeviceKind::Cpu) {
        const C cb = Num<S>::load(scalarTo<S>(b));
        pointwiseOnCpu<OutS, S>(call.pool, out, {prep(a)}, lifted<OutS, S>(BindSecond<F, C>{f, cb}), grain);
    } else {
        pointwise<OutS, S, S>(call.pool, out, {prep(a), prep(b)}, lifted<OutS, S, S>(f), grain);
    }
}

// A unary op on self cast to `compute`, output laid out as TensorIterator would.
template<Set set, class Make>
void unaryKernel(KernelCall& call, const char* name, DType compute, Make make, int64_t grain = kGrainCheap,
                 bool inplace = false)
{
    const Tensor& self = call.tensor("self");
    Tensor out = inplace ? self : allocStrided(call, self.sizes(), iteratorStrides(self.sizes(), {&self}, 0), compute);
    const Tensor in = castTo(call, self, compute);
    dispatch<set>(compute, name, [&](auto tag) {
        using S = typename decltype(tag)::type;
        pointwise<S, S>(call.pool, out, {in}, lifted<S, S>(make(tag)), grain);
    });
    call.result = Value::ofTensor(out);
}

}  // namespace fxl::cpu::ew

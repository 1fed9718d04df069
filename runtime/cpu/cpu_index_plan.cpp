#include "runtime/cpu/cpu_index_plan.hpp"

#include <type_traits>

#include "runtime/cpu/cpu_elementwise.hpp"
#include "runtime/cpu/cpu_shape.hpp"

namespace fxl::cpu::shape {

namespace {

// Accumulation in the storage type, as PyTorch's `*dst += *src` does.
template<class S>
S addValues(S a, S b)
{
    using ew::Num;
    if constexpr (ew::kIsBool<S>) {
        return ew::B8{static_cast<uint8_t>((a.v != 0 || b.v != 0) ? 1 : 0)};
    } else if constexpr (ew::kIsReduced<S>) {
        return Num<S>::store(Num<S>::load(a) + Num<S>::load(b));
    } else if constexpr (std::is_floating_point_v<S>) {
        return a + b;
    } else {
        using W = uint64_t;  // wraps like PyTorch's integer add (no promotion to int)
        return static_cast<S>(static_cast<W>(static_cast<W>(a) + static_cast<W>(b)));
    }
}

}  // namespace

IterOperand iterOperandOf(const Tensor& t, const std::vector<int64_t>& shape)
{
    IterOperand o;
    o.base = static_cast<char*>(t.rawData());
    o.itemSize = t.itemSize();
    o.dtype = t.dtype();
    o.strides.assign(shape.size(), 0);
    const size_t lead = shape.size() - t.sizes().size();
    for (size_t k = 0; k < t.sizes().size(); ++k)
        o.strides[lead + k] = (t.sizes()[k] == 1 && shape[lead + k] != 1) ? 0 : t.strides()[k];
    return o;
}

[[noreturn]] void outOfRange(const IndexPlan& plan, int64_t v, const IndexOperand& ix)
{
    if (plan.wrapNegative)
        throw KernelError(std::string(plan.op) + ": index " + std::to_string(v) + " is out of bounds for dimension "
                          + std::to_string(ix.dim) + " with size " + std::to_string(ix.size));
    throw KernelError(std::string(plan.op) + ": index " + std::to_string(v) + " is out of range for dimension "
                      + std::to_string(ix.dim) + " with size " + std::to_string(ix.size)
                      + " (index out of range in self)");
}

void runGather(const KernelCall& call, const IndexPlan& plan, const Tensor& out)
{
    const int64_t n = numelOf(plan.shape);
    if (n == 0) return;
    const IterOperand o = iterOperandOf(out, plan.shape);
    if (out.device() != DeviceKind::Cpu) {  // the device's gather, then the CPU's error text
        auto operand = [](const IterOperand& it) { return GatherOperand{it.base, it.strides, it.dtype}; };
        GatherLoop loop;
        loop.shape = plan.shape;
        loop.base = operand(plan.base);
        loop.out = operand(o);
        for (const IndexOperand& ix : plan.idx) loop.idx.push_back(GatherIndex{operand(ix.op), ix.size, ix.stride});
        loop.wrapNegative = plan.wrapNegative;
        call.backend->gather(loop);
        if (loop.failed) outOfRange(plan, loop.failedValue, plan.idx[static_cast<size_t>(loop.failedIndex)]);
        return;
    }
    ew::dispatchBits(out.dtype(), [&](auto tag) {
        using U = typename decltype(tag)::type;
        const U* src = reinterpret_cast<const U*>(plan.base.base);
        U* dst = reinterpret_cast<U*>(o.base);
        ew::parallelFor(call, n, 1 << 14, [&](int64_t b, int64_t e) {
            walkPlan(plan, {&o}, b, e, [&](int64_t bo, const int64_t* oo) { dst[oo[0]] = src[bo]; });
        });
    });
}

void runScatter(const IndexPlan& plan, const Tensor& values)
{
    const int64_t n = numelOf(plan.shape);
    if (n == 0) return;
    const IterOperand v = iterOperandOf(values, plan.shape);
    ew::dispatchBits(values.dtype(), [&](auto tag) {
        using U = typename decltype(tag)::type;
        U* dst = reinterpret_cast<U*>(plan.base.base);
        const U* src = reinterpret_cast<const U*>(v.base);
        walkPlan(plan, {&v}, 0, n, [&](int64_t bo, const int64_t* vo) { dst[bo] = src[vo[0]]; });
    });
}

void runAdd(const IndexPlan& plan, const Tensor& values)
{
    const int64_t n = numelOf(plan.shape);
    if (n == 0) return;
    const IterOperand v = iterOperandOf(values, plan.shape);
    ew::dispatch<ew::Set::All>(values.dtype(), plan.op, [&](auto tag) {
        using S = typename decltype(tag)::type;
        S* dst = reinterpret_cast<S*>(plan.base.base);
        const S* src = reinterpret_cast<const S*>(v.base);
        walkPlan(plan, {&v}, 0, n, [&](int64_t bo, const int64_t* vo) { dst[bo] = addValues<S>(dst[bo], src[vo[0]]); });
    });
}

IterOperand baseOperand(const Tensor& t, const std::vector<int64_t>& baseStrides)
{
    IterOperand o;
    o.base = static_cast<char*>(t.rawData());
    o.itemSize = t.itemSize();
    o.dtype = t.dtype();
    o.strides = baseStrides;
    return o;
}

void checkIndexDType(const Tensor& idx, const char* op, bool allowInt32)
{
    if (idx.dtype() == DType::I64 || (allowInt32 && idx.dtype() == DType::I32)) return;
    throw KernelError(std::string(op) + "(): Expected dtype " + (allowInt32 ? "int32/int64" : "int64")
                      + " for index, got " + std::string(dtypeAbbr(idx.dtype())));
}

IndexPlan vectorIndexPlan(const Tensor& base, const Tensor& ix, std::vector<int64_t> shape, int64_t d, const char* op)
{
    IndexPlan plan;
    plan.op = op;
    plan.shape = std::move(shape);
    std::vector<int64_t> bs = base.strides();
    bs[static_cast<size_t>(d)] = 0;
    plan.base = baseOperand(base, bs);
    IndexOperand io;
    io.op.base = static_cast<char*>(ix.rawData());
    io.op.itemSize = ix.itemSize();
    io.op.dtype = ix.dtype();
    io.op.strides.assign(plan.shape.size(), 0);
    io.op.strides[static_cast<size_t>(d)] = ix.strides()[0];
    io.size = base.sizes()[static_cast<size_t>(d)];
    io.stride = base.strides()[static_cast<size_t>(d)];
    io.dim = d;
    plan.idx.push_back(io);
    return plan;
}

IndexPlan dimPlan(const Tensor& base, const Tensor& index, int64_t d, const char* op)
{
    IndexPlan plan;
    plan.op = op;
    plan.shape = index.sizes();
    std::vector<int64_t> bs = base.strides();
    bs[static_cast<size_t>(d)] = 0;
    plan.base = baseOperand(base, bs);
    IndexOperand io;
    io.op = iterOperandOf(index, plan.shape);
    io.size = base.sizes()[static_cast<size_t>(d)];
    io.stride = base.strides()[static_cast<size_t>(d)];
    io.dim = d;
    plan.idx.push_back(io);
    return plan;
}

}  // namespace fxl::cpu::shape

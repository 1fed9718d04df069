// CPU elementwise family: shared pieces (type promotion, output layouts, casts) and the copy
// kernels (clone, _to_copy, copy). The arithmetic, comparison, activation and factory kernels
// live in cpu_elementwise_{arith,compare,act,factory}.cpp and register from
// registerElementwiseKernels.
#include "runtime/cpu/cpu_elementwise.hpp"
#include "runtime/cpu/cpu_elementwise_act.hpp"
#include "runtime/cpu/cpu_elementwise_arith.hpp"
#include "runtime/cpu/cpu_elementwise_compare.hpp"
#include "runtime/cpu/cpu_elementwise_factory.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace fxl::cpu {
namespace ew {

// ---- the walk of every pointwise kernel
namespace detail {
namespace {

struct Walk
{
    size_t n = 0;  // operands
    std::vector<int64_t> sizes;  // last is the fastest
    std::vector<std::array<int64_t, kMaxOperands>> strides;  // in elements, per operand
    std::array<char*, kMaxOperands> base{};
    int64_t numel = 1;
};

// Fills `w` (a thread's scratch walk: its vectors keep their capacity from call to call).
void makeWalk(Walk& w, std::vector<size_t>& order, const Tensor* const* ops, size_t n)
{
    w.n = n;
    w.sizes.clear();
    w.strides.clear();
    w.base = {};
    w.numel = 1;
    order.clear();
    const Tensor& out = *ops[0];
    const size_t nd = out.sizes().size();
    for (size_t k = 0; k < n; ++k) w.base[k] = static_cast<char*>(ops[k]->rawData());
    for (size_t d = 0; d < nd; ++d) {
        w.numel *= out.sizes()[d];
        if (out.sizes()[d] != 1) order.push_back(d);
    }
    // output memory order: larger |stride| first (stable: ties keep the logical order)
    for (size_t i = 1; i < order.size(); ++i)
        for (size_t j = i; j > 0; --j) {
            const int64_t a = std::abs(out.strides()[order[j - 1]]), b = std::abs(out.strides()[order[j]]);
            if (a < b)
                std::swap(order[j - 1], order[j]);
            else
                break;
        }
    for (size_t d : order) {
        std::array<int64_t, kMaxOperands> st{};
        for (size_t k = 0; k < n; ++k) st[k] = ops[k]->strides()[d];
        const int64_t sz = out.sizes()[d];
        if (!w.sizes.empty()) {
            bool merge = true;
            for (size_t k = 0; k < n; ++k)
                if (w.strides.back()[k] != st[k] * sz) merge = false;
            if (merge) {
                w.sizes.back() *= sz;
                w.strides.back() = st;
                continue;
            }
        }
        w.sizes.push_back(sz);
        w.strides.push_back(st);
    }
    if (w.sizes.empty()) {
        w.sizes.push_back(1);
        w.strides.push_back(std::array<int64_t, kMaxOperands>{});
    }
}

}  // namespace

void walkPointwise(ThreadPool* pool, const Tensor* const* ops, const int64_t* itemBytes, size_t nOps, int64_t grain,
                   RunFn run, const void* f)
{
    const Tensor& out = *ops[0];
    const int64_t numel = out.numel();
    if (numel == 0) return;
    bool dense = out.isContiguous();
    for (size_t k = 1; k < nOps; ++k) {
        if (ops[k]->sizes() != out.sizes()) throw KernelError("internal: operand sizes differ from the output's");
        dense = dense && ops[k]->strides() == out.strides();
    }
    if (dense) {  // every operand laid out as the contiguous output: one run of numel elements
        const std::array<int64_t, kMaxOperands> ones{1, 1, 1, 1};
        auto span = [&](int64_t begin, int64_t end) {
            std::array<char*, kMaxOperands> ptr{};
            for (size_t k = 0; k < nOps; ++k) ptr[k] = static_cast<char*>(ops[k]->rawData()) + begin * itemBytes[k];
            run(ptr.data(), ones.data(), end - begin, f);
        };
        if (pool)
            pool->parallelForInline(numel, grain, span);
        else
            span(0, numel);
        return;
    }
    thread_local Walk scratch;
    thread_local std::vector<size_t> order;
    makeWalk(scratch, order, ops, nOps);
    const Walk& w = scratch;
    const size_t nd = w.sizes.size();
    auto body = [&](int64_t begin, int64_t end) {
        thread_local std::vector<int64_t> idx;
        idx.assign(nd, 0);
        int64_t rem = begin;
        for (size_t d = nd; d-- > 0;) {
            idx[d] = rem % w.sizes[d];
            rem /= w.sizes[d];
        }
        std::array<int64_t, kMaxOperands> off{};
        for (size_t d = 0; d < nd; ++d)
            for (size_t k = 0; k < nOps; ++k) off[k] += idx[d] * w.strides[d][k];
        const std::array<int64_t, kMaxOperands>& inner = w.strides[nd - 1];
        int64_t pos = begin;
        std::array<char*, kMaxOperands> ptr{};
        while (pos < end) {
            const int64_t len = std::min(w.sizes[nd - 1] - idx[nd - 1], end - pos);
            for (size_t k = 0; k < nOps; ++k) ptr[k] = w.base[k] + off[k] * itemBytes[k];
            run(ptr.data(), inner.data(), len, f);
            pos += len;
            // advance the multi-index by `len` along the last dim, carrying
            idx[nd - 1] += len;
            for (size_t k = 0; k < nOps; ++k) off[k] += len * inner[k];
            for (size_t d = nd - 1; d > 0 && idx[d] == w.sizes[d]; --d) {
                for (size_t k = 0; k < nOps; ++k) off[k] += w.strides[d - 1][k] - w.sizes[d] * w.strides[d][k];
                idx[d] = 0;
                ++idx[d - 1];
            }
        }
    };
    if (pool)
        pool->parallelForInline(w.numel, grain, body);
    else
        body(0, w.numel);
}

void devicePointwise(ThreadPool* pool, const Tensor* const* ops, const int64_t* itemBytes, size_t nOps, int64_t grain,
                     RunFn run, const void* f, const pw::Fn& fn)
{
    const Tensor& out = *ops[0];
    for (size_t k = 1; k < nOps; ++k) {
        if (ops[k]->sizes() != out.sizes()) throw KernelError("internal: operand sizes differ from the output's");
        const auto& a = ops[k]->storage();
        const auto& b = out.storage();
        if (a && b && (a->device() != b->device() || a->deviceIndex() != b->deviceIndex()))
            throw KernelError("expected all tensors to be on the same device (an operand is on another device)");
    }
    Backend* backend = out.storage() ? out.storage()->owner() : nullptr;
    if (!backend) throw KernelError("internal: a device tensor without its backend");
    PointwiseLoop loop;
    loop.ops = ops;
    loop.itemBytes = itemBytes;
    loop.nOps = nOps;
    loop.grain = grain;
    loop.run = run;
    loop.functor = f;
    loop.fn = fn;
    loop.pool = pool;
    backend->pointwise(loop);
}

}  // namespace detail

std::vector<unsigned char> hostBytes(const Tensor& t)
{
    std::vector<unsigned char> out(static_cast<size_t>(t.nbytes()));
    if (out.empty()) return out;
    Backend* owner = t.storage() ? t.storage()->owner() : nullptr;
    if (t.device() != DeviceKind::Cpu) {
        if (!owner) throw KernelError("internal: a device tensor without its backend");
        owner->download(out.data(), t, t.nbytes());
        return out;
    }
    // host memory: a strided gather (the CPU backend's download does the same)
    const Tensor& src = t;
    auto tmp = std::make_shared<Storage>(nullptr, out.data(), t.nbytes(), DeviceKind::Cpu);
    const Tensor dst = Tensor::fromStorage(tmp, t.dtype(), t.sizes(), Tensor::contiguousStrides(t.sizes()), 0);
    dispatchBits(t.dtype(), [&](auto tag) {
        using U = typename decltype(tag)::type;
        pointwiseOnCpu<U, U>(nullptr, dst, {src}, pw::Copy<U>{});
    });
    return out;
}

Tensor tensorFromHost(const KernelCall& call, const std::vector<int64_t>& sizes, DType t, const void* bytes)
{
    Tensor out = call.newTensor(sizes, t);
    call.backend->upload(out, bytes, out.nbytes());
    return out;
}

void castInto(const KernelCall& call, const Tensor& dst, const Tensor& src)
{
    const Tensor s = src.sizes() == dst.sizes() ? src : expandTo(src, dst.sizes());
    if (s.dtype() == dst.dtype()) {
        dispatchBits(dst.dtype(), [&](auto tag) {
            using U = typename decltype(tag)::type;
            pointwise<U, U>(call.pool, dst, {s}, pw::Copy<U>{});
        });
        return;
    }
    dispatch<Set::All>(s.dtype(), "cast", [&](auto st) {
        using S = typename decltype(st)::type;
        dispatch<Set::All>(dst.dtype(), "cast", [&](auto dt) {
            using D = typename decltype(dt)::type;
            pointwise<D, S>(call.pool, dst, {s}, pw::Convert<D, S>{});
        });
    });
}

Tensor castTo(const KernelCall& call, const Tensor& t, DType to)
{
    if (t.dtype() == to) return t;
    Tensor out = call.newTensor(t.sizes(), to);
    castInto(call, out, t);
    return out;
}

void fillWith(const KernelCall& call, const Tensor& dst, const Value& value)
{
    dispatch<Set::All>(dst.dtype(), "fill", [&](auto tag) {
        using S = typename decltype(tag)::type;
        using U = typename BitsOf<sizeof(S)>::type;
        const S v = checkedScalarTo<S>(value, "fill");
        U bits;
        std::memcpy(&bits, &v, sizeof bits);
        pointwise<U>(call.pool, dst, {}, pw::Fill<U>{bits});
    });
}

namespace {

// clone(self, memory_format): a bit-exact copy laid out by the memory format.
void cloneKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    Tensor out =
        allocStrided(call, self.sizes(), memoryFormatStrides(optArg(call, "memory_format"), self), self.dtype());
    castInto(call, out, self);
    call.result = Value::ofTensor(out);
}

// _to_copy(self, dtype, ..., memory_format): a new tensor of the dtype (values converted as
// c10::convert does), laid out by the memory format (default preserve).
void toCopyKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    const DType dt = optDType(call, "dtype").value_or(self.dtype());
    Tensor out = allocStrided(call, self.sizes(), memoryFormatStrides(optArg(call, "memory_format"), self), dt);
    castInto(call, out, self);
    call.result = Value::ofTensor(out);
}

// prims.convert_element_type(a, dtype): a new tensor of the dtype, a's layout kept where it
// is dense (as the prim's meta computes elementwise output strides), values converted as
// c10::convert does.
void convertElementTypeKernel(KernelCall& call)
{
    const Tensor& a = call.tensor("a");
    const std::optional<DType> dt = optDType(call, "dtype");
    if (!dt) throw KernelError("convert_element_type: dtype is required");
    Tensor out = allocStrided(call, a.sizes(), memoryFormatStrides(Value::none(), a), *dt);
    castInto(call, out, a);
    call.result = Value::ofTensor(out);
}

// prims.device_put(a, device): the values on the device, as a new tensor (one device here).
void devicePutKernel(KernelCall& call)
{
    const Tensor& a = call.tensor("a");
    Tensor out = allocStrided(call, a.sizes(), memoryFormatStrides(Value::none(), a), a.dtype());
    castInto(call, out, a);
    call.result = Value::ofTensor(out);
}

// to.dtype / to.dtype_layout: self itself when nothing changes and no copy is asked for.
void toKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    const DType dt = optDType(call, "dtype").value_or(self.dtype());
    const Value& mf = optArg(call, "memory_format");
    const bool copy = optArg(call, "copy").kind == Value::Kind::Bool && optArg(call, "copy").b;
    const bool keepsLayout =
        mf.isNone() || mf.s == "preserve_format" || memoryFormatStrides(mf, self) == self.strides();
    if (dt == self.dtype() && !copy && keepsLayout) {
        call.result = Value::ofTensor(self);
        return;
    }
    Tensor out = allocStrided(call, self.sizes(), memoryFormatStrides(mf, self), dt);
    castInto(call, out, self);
    call.result = Value::ofTensor(out);
}

// copy(self, src): a new contiguous tensor of self's sizes and dtype holding src (broadcast,
// cast), as torch 1.13's functional copy gives.
void copyKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    Tensor out = call.newTensor(self.sizes(), self.dtype());
    castInto(call, out, call.tensor("src"));
    call.result = Value::ofTensor(out);
}

// copy_(self, src): writes src into self (in place), returns self.
void copyInplaceKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    castInto(call, self, call.tensor("src"));
    call.result = Value::ofTensor(self);
}

// resize_(self, size, memory_format): self with the new sizes (resizedTensor); the executor
// gives later uses of self this value.
void resizeInplaceKernel(KernelCall& call)
{
    call.result =
        Value::ofTensor(resizedTensor(call, call.tensor("self"), sizeArg(call, "size"), optArg(call, "memory_format")));
}

}  // namespace

Tensor resizedTensor(const KernelCall& call, const Tensor& t, const std::vector<int64_t>& sizes,
                     const Value& memoryFormat)
{
    if (sizes == t.sizes()) return t;
    int64_t numel = 1;
    for (int64_t s : sizes) {
        if (s < 0) throw KernelError("resize_: negative size " + std::to_string(s));
        numel *= s;
    }
    // PyTorch's resize_ refuses preserve_format (there is no old layout to keep at new sizes)
    if (!memoryFormat.isNone() && (memoryFormat.s == "preserve_format" || memoryFormat.s == "torch.preserve_format"))
        throw KernelError("resize_: unsupported memory format preserve_format");
    const std::vector<int64_t> strides =
        memoryFormat.isNone() ? Tensor::contiguousStrides(sizes) : namedFormatStrides(memoryFormat.s, sizes);
    const int64_t item = t.itemSize();
    const int64_t need = numel == 0 ? 0 : (t.offset() + numel) * item;
    const int64_t have = t.storage() ? t.storage()->nbytes() : 0;
    if (need <= have) return Tensor::fromStorage(t.storage(), t.dtype(), sizes, strides, t.offset());
    Tensor grown = call.newTensor({t.offset() + numel}, t.dtype());
    // the old bytes, then zeros, by the pointwise loop (so on any device)
    const Tensor bytes = Tensor::fromStorage(grown.storage(), DType::U8, {need}, {1}, 0);
    if (have > 0)
        castInto(call, bytes.asStrided({have}, {1}, 0), Tensor::fromStorage(t.storage(), DType::U8, {have}, {1}, 0));
    fillWith(call, bytes.asStrided({need - have}, {1}, have), Value::ofInt(0));
    return grown.asStrided(sizes, strides, t.offset());
}

void registerCopies(KernelRegistry& reg, DeviceKind d)
{
    reg.add("aten.clone.default", d, cloneKernel);
    reg.add("aten.lift_fresh_copy.default", d, cloneKernel);
    reg.add("aten._to_copy.default", d, toCopyKernel);
    reg.add("aten.to.dtype", d, toKernel);
    reg.add("aten.to.dtype_layout", d, toKernel);
    reg.add("prims.convert_element_type.default", d, convertElementTypeKernel);
    reg.add("prims.device_put.default", d, devicePutKernel);
    reg.add("aten.copy.default", d, copyKernel);
    reg.add("aten.copy_.default", d, copyInplaceKernel);
    reg.add("aten.resize_.default", d, resizeInplaceKernel);
}

}  // namespace ew

void registerElementwiseKernels(KernelRegistry& reg, DeviceKind d)
{
    ew::registerCopies(reg, d);
    ew::registerArithmetic(reg, d);
    ew::registerComparisons(reg, d);
    ew::registerActivations(reg, d);
    ew::registerFactories(reg, d);
}

}  // namespace fxl::cpu

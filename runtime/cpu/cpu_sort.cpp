// The shape family's sorting ops: sort (default and stable), argsort, topk. One order for
// all of them: NaN is the largest value, -0 equals +0, and equal keys keep their index order
// (lower index first), so results are fully defined (PyTorch's unstable sort and its topk
// leave ties in libstdc++'s introsort / nth_element order; sort(stable=True) matches ours).
// Values are copied bit for bit from the input. Rows (all positions but `dim`) are
// independent and split between threads.
#include "runtime/cpu/cpu_sort.hpp"
#include "runtime/math/accumulate.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "runtime/cpu/cpu_elementwise.hpp"
#include "runtime/cpu/cpu_shape.hpp"

namespace fxl::cpu::shape {

namespace {

inline int64_t loadI64(const char* p)
{
    int64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

// Keys of one row: doubles for floating types (exact widening), int64 otherwise.
struct RowKeys
{
    std::vector<double> f;
    std::vector<int64_t> i;
    bool isFloat = false;
};

// Orders positions a, b of a row: "a before b" for the ascending (descending) order, ties by
// position. NaN counts as larger than everything.
struct Order
{
    const RowKeys* k;
    bool descending;
    bool operator()(int64_t a, int64_t b) const
    {
        if (k->isFloat)
            return math::acc::sortsBefore(k->f[static_cast<size_t>(a)], k->f[static_cast<size_t>(b)], a, b, descending);
        return math::acc::sortsBefore(k->i[static_cast<size_t>(a)], k->i[static_cast<size_t>(b)], a, b, descending);
    }
};

// For each row of `self` along `dim`: fn(keys, order) fills `order` with the first `k`
// positions of the row in sorted order; values and indices are written to the outputs.
void sortRows(const KernelCall& call, const Tensor& self, int64_t dim, int64_t k, bool descending, bool partial,
              const Tensor& values, const Tensor& indices)
{
    const Tensor s = self.dim() == 0 ? self.asStrided({1}, {1}, self.offset()) : self;
    const Tensor v =
        values.defined() ? (values.dim() == 0 ? values.asStrided({1}, {1}, values.offset()) : values) : Tensor();
    const Tensor ix = indices.dim() == 0 ? indices.asStrided({1}, {1}, indices.offset()) : indices;
    const size_t d = static_cast<size_t>(dim);
    const int64_t n = s.sizes()[d];
    // rows: every position of the other dims
    std::vector<int64_t> rowSizes = s.sizes();
    rowSizes[d] = 1;
    const int64_t rows = numelOf(rowSizes);
    if (rows == 0 || k == 0) return;
    const DType dt = s.dtype();
    const bool isFloat = isFloatingPoint(dt);
    const int64_t is = s.itemSize();
    ew::parallelFor(call, rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(n, 1)), [&](int64_t b, int64_t e) {
        RowKeys keys;
        keys.isFloat = isFloat;
        (isFloat ? keys.f.resize(static_cast<size_t>(n)) : keys.i.resize(static_cast<size_t>(n)));
        std::vector<int64_t> order(static_cast<size_t>(n));
        std::vector<int64_t> pos(rowSizes.size(), 0);
        for (int64_t r = b; r < e; ++r) {
            int64_t rem = r;
            for (size_t j = rowSizes.size(); j-- > 0;) {
                pos[j] = rem % rowSizes[j];
                rem /= rowSizes[j];
            }
            int64_t sOff = s.offset(), vOff = v.defined() ? v.offset() : 0, iOff = ix.offset();
            for (size_t j = 0; j < pos.size(); ++j) {
                sOff += pos[j] * s.strides()[j];
                if (v.defined()) vOff += pos[j] * v.strides()[j];
                iOff += pos[j] * ix.strides()[j];
            }
            const char* sp = static_cast<const char*>(s.storage()->data());
            for (int64_t q = 0; q < n; ++q) {
                const char* p = sp + (sOff + q * s.strides()[d]) * is;
                if (isFloat)
                    keys.f[static_cast<size_t>(q)] = loadAsDouble(p, dt);
                else
                    keys.i[static_cast<size_t>(q)] =
                        dt == DType::I64 ? loadI64(p) : static_cast<int64_t>(loadAsDouble(p, dt));
            }
            std::iota(order.begin(), order.end(), 0);
            const Order cmp{&keys, descending};
            // the comparator is a total order (ties by position): every algorithm gives one result
            if (partial && k < n)
                std::partial_sort(order.begin(), order.begin() + k, order.end(), cmp);
            else
                std::sort(order.begin(), order.end(), cmp);
            char* vp = v.defined() ? static_cast<char*>(v.storage()->data()) : nullptr;
            int64_t* ip = static_cast<int64_t*>(ix.storage()->data());
            for (int64_t q = 0; q < k; ++q) {
                const int64_t src = order[static_cast<size_t>(q)];
                if (vp)
                    std::memcpy(vp + (vOff + q * v.strides()[d]) * is, sp + (sOff + src * s.strides()[d]) * is,
                                static_cast<size_t>(is));
                ip[iOff + q * ix.strides()[d]] = src;
            }
        }
    });
}

void checkSortable(const Tensor& self, const char* op)
{
    if (!runtimeSupportsDType(self.dtype())) throw KernelError(std::string(op) + ": unsupported dtype");
}

// sort / sort.stable: outputs laid out like self (dense), as PyTorch's sort does.
void sortInto(KernelCall& call, bool withValues)
{
    const Tensor& self = call.tensor("self");
    checkSortable(self, "sort");
    const int64_t dim = wrapDim(intArg(call, "dim"), self.dim());
    const bool desc = boolArg(call, "descending", false);
    const std::vector<int64_t> st = ew::preserveStrides(self);
    Tensor values = withValues ? ew::allocStrided(call, self.sizes(), st, self.dtype()) : Tensor();
    Tensor indices = ew::allocStrided(call, self.sizes(), st, DType::I64);
    const int64_t n = self.dim() == 0 ? 1 : self.sizes()[static_cast<size_t>(dim)];
    sortRows(call, self, dim, n, desc, false, values, indices);
    if (withValues)
        call.result = Value::ofList({Value::ofTensor(values), Value::ofTensor(indices)});
    else
        call.result = Value::ofTensor(indices);
}

void sortKernel(KernelCall& call) { sortInto(call, true); }
void argsortKernel(KernelCall& call) { sortInto(call, false); }

// topk: the k largest (smallest) along dim, in sorted order (also for sorted=False), contiguous.
void topkKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    checkSortable(self, "topk");
    const int64_t dim = wrapDim(intArg(call, "dim"), self.dim());
    const int64_t k = intArg(call, "k");
    const int64_t n = self.dim() == 0 ? 1 : self.sizes()[static_cast<size_t>(dim)];
    if (k < 0 || k > n) throw KernelError("selected index k out of range");
    const bool largest = boolArg(call, "largest", true);
    std::vector<int64_t> sizes = self.sizes();
    if (!sizes.empty()) sizes[static_cast<size_t>(dim)] = k;
    Tensor values = call.newTensor(sizes, self.dtype());
    Tensor indices = call.newTensor(sizes, DType::I64);
    // a 0-dim self gives 0-dim outputs holding its element, whether k is 0 or 1 (as PyTorch)
    sortRows(call, self, dim, self.dim() == 0 ? 1 : k, largest, true, values, indices);
    call.result = Value::ofList({Value::ofTensor(values), Value::ofTensor(indices)});
}

}  // namespace

void registerSortKernels(KernelRegistry& reg)
{
    const DeviceKind cpu = DeviceKind::Cpu;
    reg.add("aten.sort.default", cpu, sortKernel);
    reg.add("aten.sort.stable", cpu, sortKernel);
    reg.add("aten.argsort.default", cpu, argsortKernel);
    reg.add("aten.topk.default", cpu, topkKernel);
}

}  // namespace fxl::cpu::shape

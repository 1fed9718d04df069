// The iteration plan the indexing kernels run through (PyTorch's AdvancedIndex): an iteration
// shape, a "base" tensor (the one indexed: read by gathers, written by scatters) restrided
// with stride 0 on its indexed dims, and index tensors broadcast to the iteration shape.
// Gathers split the positions between threads; scatters and accumulations run on one thread
// in row-major order of the iteration (index order for every destination element).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/base/kernel.hpp"
#include "runtime/cpu/cpu_shape.hpp"

namespace fxl::cpu::shape {

// An operand of the iteration: element offsets through strides of the iteration shape.
struct IterOperand
{
    char* base = nullptr;  // element [0, ...] (offset included)
    std::vector<int64_t> strides;  // per iteration dim (0 on broadcast dims)
    int64_t itemSize = 0;
    DType dtype = DType::Undefined;
};

// t broadcast to `shape` (leading dims added, size-1 dims stride 0).
IterOperand iterOperandOf(const Tensor& t, const std::vector<int64_t>& shape);

// An index tensor of the plan and the base dim it indexes.
struct IndexOperand
{
    IterOperand op;  // the index tensor over the iteration shape
    int64_t size = 0;  // size of the indexed dim of the base
    int64_t stride = 0;  // its stride in the base
    int64_t dim = 0;  // for messages
};

// PyTorch's AdvancedIndex: element p of the iteration touches
// base[baseOffset(p) + sum_k index_k(p) * indexedStride_k].
struct IndexPlan
{
    std::vector<int64_t> shape;  // iteration shape
    IterOperand base;  // indexed tensor, stride 0 on the indexed dims
    std::vector<IndexOperand> idx;
    bool wrapNegative = false;  // index / index_put wrap -size..-1; the others reject negatives
    const char* op = "";
};

// An index element of dtype t (int64, int32, int16, int8, uint8/bool) as int64.
inline int64_t loadIndex(const char* p, DType t)
{
    switch (t) {
    case DType::I64: {
        int64_t v;
        std::memcpy(&v, p, 8);
        return v;
    }
    case DType::I32: {
        int32_t v;
        std::memcpy(&v, p, 4);
        return v;
    }
    case DType::I16: {
        int16_t v;
        std::memcpy(&v, p, 2);
        return v;
    }
    case DType::I8: {
        int8_t v;
        std::memcpy(&v, p, 1);
        return v;
    }
    default: {
        uint8_t v;
        std::memcpy(&v, p, 1);
        return v;
    }
    }
}

// Throws the out-of-range message of the plan's op for index value v.
[[noreturn]] void outOfRange(const IndexPlan& plan, int64_t v, const IndexOperand& ix);

// Visits positions [begin, end) of plan.shape in row-major order: fn(baseElementOffset,
// otherOffsets) where the other operands are `others` (output / values).
template<class F>
void walkPlan(const IndexPlan& plan, const std::vector<const IterOperand*>& others, int64_t begin, int64_t end, F&& fn)
{
    const std::vector<int64_t>& shape = plan.shape;
    const size_t nd = shape.size(), no = others.size(), ni = plan.idx.size();
    std::vector<int64_t> pos(nd, 0), off(no + ni + 1, 0);
    std::vector<const std::vector<int64_t>*> st;
    st.push_back(&plan.base.strides);
    for (const auto& ix : plan.idx) st.push_back(&ix.op.strides);
    for (const IterOperand* o : others) st.push_back(&o->strides);
    int64_t rem = begin;
    for (size_t d = nd; d-- > 0;) {
        pos[d] = rem % shape[d];
        rem /= shape[d];
    }
    for (size_t d = 0; d < nd; ++d)
        for (size_t k = 0; k < st.size(); ++k) off[k] += pos[d] * (*st[k])[d];
    for (int64_t p = begin; p < end; ++p) {
        int64_t b = off[0];
        for (size_t k = 0; k < ni; ++k) {
            const IndexOperand& ix = plan.idx[k];
            int64_t v = loadIndex(ix.op.base + off[1 + k] * ix.op.itemSize, ix.op.dtype);
            if (v < 0 && plan.wrapNegative && v >= -ix.size) v += ix.size;
            if (v < 0 || v >= ix.size) outOfRange(plan, v, ix);
            b += v * ix.stride;
        }
        fn(b, off.data() + 1 + ni);
        for (size_t d = nd; d-- > 0;) {
            ++pos[d];
            for (size_t k = 0; k < st.size(); ++k) off[k] += (*st[k])[d];
            if (pos[d] < shape[d]) break;
            for (size_t k = 0; k < st.size(); ++k) off[k] -= shape[d] * (*st[k])[d];
            pos[d] = 0;
        }
    }
}

// out[p] = base[plan(p)] for every position (bit copies), split between threads.
void runGather(const KernelCall& call, const IndexPlan& plan, const Tensor& out);
// base[plan(p)] = values[p] in row-major order (last writer wins), one thread.
void runScatter(const IndexPlan& plan, const Tensor& values);

// base[plan(p)] = combine(base[plan(p)], values[p]) in row-major order (index order per
// destination), one thread; S is the storage type of both.
template<class S, class F>
void runAccumulate(const IndexPlan& plan, const Tensor& values, F&& combine)
{
    const int64_t n = numelOf(plan.shape);
    if (n == 0) return;
    const IterOperand v = iterOperandOf(values, plan.shape);
    S* dst = reinterpret_cast<S*>(plan.base.base);
    const S* src = reinterpret_cast<const S*>(v.base);
    walkPlan(plan, {&v}, 0, n, [&](int64_t bo, const int64_t* vo) { dst[bo] = combine(dst[bo], src[vo[0]]); });
}

// base[plan(p)] += values[p] in the storage type (as PyTorch's `*dst += *src`), one thread.
void runAdd(const IndexPlan& plan, const Tensor& values);

// The indexed tensor with the given strides over the iteration shape (0 on indexed dims).
IterOperand baseOperand(const Tensor& t, const std::vector<int64_t>& baseStrides);
// Throws unless idx is int64 (or int32 when allowed).
void checkIndexDType(const Tensor& idx, const char* op, bool allowInt32);

// A 0-d tensor acts as 1-d of size 1 for the dim-wise ops.
inline Tensor atLeast1d(const Tensor& t) { return t.dim() == 0 ? t.asStrided({1}, {1}, t.offset()) : t; }

// index_select / index_add geometry: iteration over `shape`; base restrided with stride 0 on
// dim d; the 1-d index `ix` runs along d (position p[d] picks index ix[p[d]]).
IndexPlan vectorIndexPlan(const Tensor& base, const Tensor& ix, std::vector<int64_t> shape, int64_t d, const char* op);
// gather / scatter geometry: iteration over the index's shape; base = self restrided with
// stride 0 on `dim`; index[p] picks the position along dim.
IndexPlan dimPlan(const Tensor& base, const Tensor& index, int64_t d, const char* op);

}  // namespace fxl::cpu::shape

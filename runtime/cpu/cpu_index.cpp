// The shape family's indexing ops: embedding, index_select, index.Tensor (None / integer /
// bool-mask indices, PyTorch's advanced-indexing layout), index_put (+ accumulate), index_add,
// gather, scatter / scatter_add / scatter_reduce, nonzero.
//
// All of them run through one plan (PyTorch's AdvancedIndex): an iteration shape, a "base"
// tensor (the one indexed: read by gathers, written by scatters) restrided with stride 0 on
// its indexed dims, and index tensors broadcast to the iteration shape; element p of the
// iteration touches base[baseOffset(p) + sum_k index_k(p) * indexedStride_k].
// Gathers write one output element per position: split between threads. Scatters (last
// writer wins) and accumulations (index_put accumulate, index_add, scatter_add,
// scatter_reduce) run on one thread in row-major order of the iteration, i.e. in index order
// for every destination element, so the result never depends on the thread count.
#include "runtime/cpu/cpu_index.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "runtime/cpu/cpu_elementwise.hpp"
#include "runtime/cpu/cpu_shape.hpp"

namespace fxl::cpu::shape {

namespace {

using ew::Tag;

// An operand of the iteration: element offsets through strides of the iteration shape.
struct Operand
{
    char* base = nullptr;  // element [0, ...] (offset included)
    std::vector<int64_t> strides;  // per iteration dim (0 on broadcast dims)
    int64_t itemSize = 0;
    DType dtype = DType::Undefined;
};

Operand operandOf(const Tensor& t, const std::vector<int64_t>& shape)
{
    // t broadcast to `shape` (leading dims added, size-1 dims stride 0)
    Operand o;
    o.base = static_cast<char*>(t.rawData());
    o.itemSize = t.itemSize();
    o.dtype = t.dtype();
    o.strides.assign(shape.size(), 0);
    const size_t lead = shape.size() - t.sizes().size();
    for (size_t k = 0; k < t.sizes().size(); ++k)
        o.strides[lead + k] = (t.sizes()[k] == 1 && shape[lead + k] != 1) ? 0 : t.strides()[k];
    return o;
}

struct IndexOperand
{
    Operand op;  // the index tensor over the iteration shape
    int64_t size = 0;  // size of the indexed dim of the base
    int64_t stride = 0;  // its stride in the base
    int64_t dim = 0;  // for messages
};

struct Plan
{
    std::vector<int64_t> shape;  // iteration shape
    Operand base;  // indexed tensor, stride 0 on the indexed dims
    std::vector<IndexOperand> idx;
    bool wrapNegative = false;  // index / index_put wrap -size..-1; the others reject negatives
    const char* op = "";
};

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

[[noreturn]] void outOfRange(const Plan& plan, int64_t v, const IndexOperand& ix)
{
    if (plan.wrapNegative)
        throw KernelError(std::string(plan.op) + ": index " + std::to_string(v) + " is out of bounds for dimension "
                          + std::to_string(ix.dim) + " with size " + std::to_string(ix.size));
    throw KernelError(std::string(plan.op) + ": index " + std::to_string(v) + " is out of range for dimension "
                      + std::to_string(ix.dim) + " with size " + std::to_string(ix.size)
                      + " (index out of range in self)");
}

// Visits positions [begin, end) of plan.shape in row-major order: fn(baseElementOffset,
// otherOffsets) where the other operands are `others` (output / values).
template<class F>
void walk(const Plan& plan, const std::vector<const Operand*>& others, int64_t begin, int64_t end, F&& fn)
{
    const std::vector<int64_t>& shape = plan.shape;
    const size_t nd = shape.size(), no = others.size(), ni = plan.idx.size();
    std::vector<int64_t> pos(nd, 0), off(no + ni + 1, 0);
    std::vector<const std::vector<int64_t>*> st;
    st.push_back(&plan.base.strides);
    for (const auto& ix : plan.idx) st.push_back(&ix.op.strides);
    for (const Operand* o : others) st.push_back(&o->strides);
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
void runGather(const KernelCall& call, const Plan& plan, const Tensor& out)
{
    const int64_t n = numelOf(plan.shape);
    if (n == 0) return;
    const Operand o = operandOf(out, plan.shape);
    ew::dispatchBits(out.dtype(), [&](auto tag) {
        using U = typename decltype(tag)::type;
        const U* src = reinterpret_cast<const U*>(plan.base.base);
        U* dst = reinterpret_cast<U*>(o.base);
        ew::parallelFor(call, n, 1 << 14, [&](int64_t b, int64_t e) {
            walk(plan, {&o}, b, e, [&](int64_t bo, const int64_t* oo) { dst[oo[0]] = src[bo]; });
        });
    });
}

// base[plan(p)] = values[p] in row-major order (last writer wins), one thread.
void runScatter(const Plan& plan, const Tensor& values)
{
    const int64_t n = numelOf(plan.shape);
    if (n == 0) return;
    const Operand v = operandOf(values, plan.shape);
    ew::dispatchBits(values.dtype(), [&](auto tag) {
        using U = typename decltype(tag)::type;
        U* dst = reinterpret_cast<U*>(plan.base.base);
        const U* src = reinterpret_cast<const U*>(v.base);
        walk(plan, {&v}, 0, n, [&](int64_t bo, const int64_t* vo) { dst[bo] = src[vo[0]]; });
    });
}

// ---- accumulation in the storage type, as PyTorch's `*dst += *src` does
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

// base[plan(p)] = combine(base[plan(p)], values[p]) in row-major order (index order per
// destination), one thread; S is the storage type of both.
template<class S, class F>
void runAccumulate(const Plan& plan, const Tensor& values, F&& combine)
{
    const int64_t n = numelOf(plan.shape);
    if (n == 0) return;
    const Operand v = operandOf(values, plan.shape);
    S* dst = reinterpret_cast<S*>(plan.base.base);
    const S* src = reinterpret_cast<const S*>(v.base);
    walk(plan, {&v}, 0, n, [&](int64_t bo, const int64_t* vo) { dst[bo] = combine(dst[bo], src[vo[0]]); });
}

void runAdd(const Plan& plan, const Tensor& values)
{
    const int64_t n = numelOf(plan.shape);
    if (n == 0) return;
    const Operand v = operandOf(values, plan.shape);
    ew::dispatch<ew::Set::All>(values.dtype(), plan.op, [&](auto tag) {
        using S = typename decltype(tag)::type;
        S* dst = reinterpret_cast<S*>(plan.base.base);
        const S* src = reinterpret_cast<const S*>(v.base);
        walk(plan, {&v}, 0, n, [&](int64_t bo, const int64_t* vo) { dst[bo] = addValues<S>(dst[bo], src[vo[0]]); });
    });
}

// The indexed tensor with the given strides over the iteration shape (0 on indexed dims).
Operand baseOperand(const Tensor& t, const std::vector<int64_t>& baseStrides)
{
    Operand o;
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

// ================================================================ advanced indexing

// PyTorch's make_info: masks become nonzero() coordinates, indices broadcast together, the
// indexed dims go to the front when they are not adjacent, and the indexed dims of the base
// are replaced by the broadcast index shape.
struct Advanced
{
    Plan plan;
    Tensor src;  // the (possibly permuted) base as a view
    std::vector<Tensor> reshaped;  // index tensors as [1]*before + shape + [1]*after (for layout)
    std::vector<Tensor> owned;  // nonzero() coordinates of masks (kept alive)
};

void maskCoordinates(const KernelCall& call, const Tensor& mask, std::vector<Tensor>& coords)
{
    // nonzero(mask): one int64 vector per mask dim
    std::vector<std::vector<int64_t>> cs(static_cast<size_t>(mask.dim()));
    const char* base = static_cast<const char*>(mask.rawData());
    forEachIndex(mask.sizes(), [&](const int64_t* i, int64_t) {
        if (base[offsetOf(mask, i)] != 0)
            for (size_t j = 0; j < cs.size(); ++j) cs[j].push_back(i[j]);
    });
    for (auto& c : cs) {
        Tensor t = call.newTensor({static_cast<int64_t>(c.size())}, DType::I64);
        if (!c.empty()) std::memcpy(t.rawData(), c.data(), c.size() * 8);
        coords.push_back(t);
    }
}

Advanced makeAdvanced(const KernelCall& call, const Tensor& self, const std::vector<Tensor>& given, const char* op)
{
    Advanced a;
    std::vector<Tensor> indices;
    for (const Tensor& t : given) {
        if (!t.defined()) {
            indices.emplace_back();
            continue;
        }
        if (t.dtype() == DType::Bool || t.dtype() == DType::U8) {
            if (t.dim() == 0) throw KernelError(std::string(op) + ": 0-dim boolean indices are not supported");
            const int64_t at = static_cast<int64_t>(indices.size());
            if (at + t.dim() > self.dim())
                throw KernelError("too many indices for tensor of dimension " + std::to_string(self.dim()) + " (got "
                                  + std::to_string(at + t.dim()) + ")");
            for (int64_t j = 0; j < t.dim(); ++j)
                if (t.sizes()[static_cast<size_t>(j)] != self.sizes()[static_cast<size_t>(at + j)])
                    throw KernelError("The shape of the mask " + shapeStr(t.sizes()) + " at index " + std::to_string(j)
                                      + " does not match the shape of the indexed tensor " + shapeStr(self.sizes())
                                      + " at index " + std::to_string(at + j));
            std::vector<Tensor> coords;
            maskCoordinates(call, t, coords);
            for (Tensor& c : coords) {
                a.owned.push_back(c);
                indices.push_back(c);
            }
        } else if (t.dtype() == DType::I64 || t.dtype() == DType::I32) {
            indices.push_back(t);
        } else {
            throw KernelError("tensors used as indices must be long, int, byte or bool tensors");
        }
    }
    if (static_cast<int64_t>(indices.size()) > self.dim())
        throw KernelError("too many indices for tensor of dimension " + std::to_string(self.dim()) + " (got "
                          + std::to_string(indices.size()) + ")");
    while (static_cast<int64_t>(indices.size()) < self.dim()) indices.emplace_back();

    // transposeToFront when the indexed dims are not one run
    Tensor src = self;
    std::vector<int64_t> dimOf(indices.size());  // original dim of each (reordered) entry
    for (size_t k = 0; k < indices.size(); ++k) dimOf[k] = static_cast<int64_t>(k);
    {
        int first = -1, last = -1;
        for (size_t k = 0; k < indices.size(); ++k)
            if (indices[k].defined()) {
                if (first < 0) first = static_cast<int>(k);
                last = static_cast<int>(k);
            }
        bool contiguousRun = true;
        for (int k = first; k >= 0 && k <= last; ++k)
            if (!indices[static_cast<size_t>(k)].defined()) contiguousRun = false;
        if (!contiguousRun) {
            std::vector<size_t> order;
            for (size_t k = 0; k < indices.size(); ++k)
                if (indices[k].defined()) order.push_back(k);
            for (size_t k = 0; k < indices.size(); ++k)
                if (!indices[k].defined()) order.push_back(k);
            std::vector<int64_t> sz, st;
            std::vector<Tensor> re;
            std::vector<int64_t> dims;
            for (size_t k : order) {
                sz.push_back(self.sizes()[k]);
                st.push_back(self.strides()[k]);
                re.push_back(indices[k]);
                dims.push_back(static_cast<int64_t>(k));
            }
            src = self.asStrided(sz, st, self.offset());
            indices = re;
            dimOf = dims;
        }
    }

    // broadcast the index tensors together
    std::vector<int64_t> repl;
    bool anyDefined = false;
    for (const Tensor& t : indices) {
        if (!t.defined()) continue;
        if (!anyDefined) {
            repl = t.sizes();
            anyDefined = true;
        } else {
            try {
                repl = broadcastShapes(repl, t.sizes());
            } catch (const KernelError&) {
                std::string shapes;
                for (const Tensor& u : indices)
                    if (u.defined()) shapes += (shapes.empty() ? "" : ", ") + shapeStr(u.sizes());
                throw KernelError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                                  + shapes);
            }
        }
    }
    int64_t before = 0, after = 0, indexed = 0;
    std::vector<int64_t> idxSizes;
    for (size_t k = 0; k < indices.size(); ++k) {
        if (!indices[k].defined())
            (indexed == 0 ? before : after)++;
        else {
            ++indexed;
            idxSizes.push_back(src.sizes()[k]);
        }
    }
    if (std::find(idxSizes.begin(), idxSizes.end(), 0) != idxSizes.end()
        && std::find(repl.begin(), repl.end(), 0) == repl.end())
        throw KernelError("index is out of bounds for dimension with size 0");

    Plan& plan = a.plan;
    plan.op = op;
    plan.wrapNegative = true;
    std::vector<int64_t> baseStrides;
    for (int64_t k = 0; k < before; ++k) {
        plan.shape.push_back(src.sizes()[static_cast<size_t>(k)]);
        baseStrides.push_back(src.strides()[static_cast<size_t>(k)]);
    }
    for (int64_t s : repl) {
        plan.shape.push_back(s);
        baseStrides.push_back(0);
    }
    for (int64_t k = before + indexed; k < src.dim(); ++k) {
        plan.shape.push_back(src.sizes()[static_cast<size_t>(k)]);
        baseStrides.push_back(src.strides()[static_cast<size_t>(k)]);
    }
    plan.base = baseOperand(src, baseStrides);
    a.src = src.asStrided(plan.shape, baseStrides, src.offset());
    for (size_t k = 0; k < indices.size(); ++k) {
        const Tensor& t = indices[k];
        if (!t.defined()) continue;
        // [1]*before + broadcast(t) + [1]*after
        Tensor e = expandTo(t, repl);
        std::vector<int64_t> sz(static_cast<size_t>(before), 1), st(static_cast<size_t>(before), 0);
        sz.insert(sz.end(), e.sizes().begin(), e.sizes().end());
        st.insert(st.end(), e.strides().begin(), e.strides().end());
        for (int64_t j = 0; j < after; ++j) {
            sz.push_back(1);
            st.push_back(0);
        }
        Tensor r = e.asStrided(sz, st, e.offset());
        a.reshaped.push_back(r);
        IndexOperand ix;
        ix.op = operandOf(r, plan.shape);
        ix.size = src.sizes()[k];
        ix.stride = src.strides()[k];
        ix.dim = dimOf[k];
        plan.idx.push_back(ix);
    }
    return a;
}

void indexKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    Advanced a = makeAdvanced(call, self, optTensorListArg(call, "indices"), "index");
    std::vector<const Tensor*> ins{&a.src};
    for (const Tensor& r : a.reshaped) ins.push_back(&r);
    Tensor out = ew::allocStrided(call, a.plan.shape, ew::iteratorStrides(a.plan.shape, ins, 0), self.dtype());
    runGather(call, a.plan, out);
    call.result = Value::ofTensor(out);
}

// index_put_ on `dst` (the clone, or self for the in-place overload).
void indexPutInto(KernelCall& call, const Tensor& dst)
{
    const Tensor& values = call.tensor("values");
    const bool accumulate = boolArg(call, "accumulate", false);
    Advanced a = makeAdvanced(call, dst, optTensorListArg(call, "indices"), "index_put");
    if (values.dtype() != dst.dtype())
        throw KernelError(std::string("Index put requires the source and destination dtypes match, got ")
                          + std::string(dtypeTorchName(dst.dtype())) + " for the destination and "
                          + std::string(dtypeTorchName(values.dtype())) + " for the source.");
    Tensor v;
    try {
        v = expandTo(values, a.plan.shape);
    } catch (const KernelError&) {
        throw KernelError("shape mismatch: value tensor of shape " + shapeStr(values.sizes())
                          + " cannot be broadcast to indexing result of shape " + shapeStr(a.plan.shape));
    }
    if (accumulate)
        runAdd(a.plan, v);
    else
        runScatter(a.plan, v);
}

void indexPutKernel(KernelCall& call)
{
    Tensor out = clonePreserve(call, call.tensor("self"));
    indexPutInto(call, out);
    call.result = Value::ofTensor(out);
}

void indexPutInplaceKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    indexPutInto(call, self);
    call.result = Value::ofTensor(self);
}

// ================================================================ dim-wise indexing

// A 0-d tensor acts as 1-d of size 1 for the dim-wise ops.
Tensor atLeast1d(const Tensor& t) { return t.dim() == 0 ? t.asStrided({1}, {1}, t.offset()) : t; }

// index_select / index_add geometry: iteration over `shape`; base restrided with stride 0 on
// dim d; the 1-d index `ix` runs along d (position p[d] picks index ix[p[d]]).
Plan vectorIndexPlan(const Tensor& base, const Tensor& ix, std::vector<int64_t> shape, int64_t d, const char* op)
{
    Plan plan;
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

void indexSelectKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    const Tensor& index = call.tensor("index");
    if (index.dim() > 1) throw KernelError("index_select(): Index is supposed to be a vector");
    checkIndexDType(index, "index_select", true);
    const int64_t d = wrapDim(intArg(call, "dim"), self.dim());
    const int64_t n = index.numel();
    if (self.dim() == 0 && n != 1)
        throw KernelError("index_select(): Index to scalar can have only 1 value, got " + std::to_string(n)
                          + " value(s)");
    const Tensor s = atLeast1d(self), ix = atLeast1d(index);
    std::vector<int64_t> shape = s.sizes();
    shape[static_cast<size_t>(d)] = n;
    Plan plan = vectorIndexPlan(s, ix, std::move(shape), d, "index_select");
    Tensor out = call.newTensor(self.dim() == 0 ? std::vector<int64_t>{} : plan.shape, self.dtype());
    runGather(call, plan, self.dim() == 0 ? atLeast1d(out) : out);
    call.result = Value::ofTensor(out);
}

// embedding = weight.index_select(0, indices.reshape(-1)).view(indices.sizes() + [D])
void embeddingKernel(KernelCall& call)
{
    const Tensor& w = call.tensor("weight");
    const Tensor& ind = call.tensor("indices");
    if (w.dim() != 2) throw KernelError("'weight' must be 2-D");
    checkIndexDType(ind, "embedding", true);
    Plan plan;
    plan.op = "embedding";
    plan.shape = ind.sizes();
    plan.shape.push_back(w.sizes()[1]);
    std::vector<int64_t> bs(ind.sizes().size(), 0);
    bs.push_back(w.strides()[1]);
    plan.base = baseOperand(w, bs);
    IndexOperand io;
    io.op = operandOf(ind.asStrided(
                          plan.shape,
                          [&] {
                              std::vector<int64_t> st = ind.strides();
                              st.push_back(0);
                              return st;
                          }(),
                          ind.offset()),
                      plan.shape);
    io.size = w.sizes()[0];
    io.stride = w.strides()[0];
    io.dim = 0;
    plan.idx.push_back(io);
    Tensor out = call.newTensor(plan.shape, w.dtype());
    runGather(call, plan, out);
    call.result = Value::ofTensor(out);
}

// gather / scatter geometry: iteration over the index's shape; base = self restrided with
// stride 0 on `dim`; index[p] picks the position along dim.
Plan dimPlan(const Tensor& base, const Tensor& index, int64_t d, const char* op)
{
    Plan plan;
    plan.op = op;
    plan.shape = index.sizes();
    std::vector<int64_t> bs = base.strides();
    bs[static_cast<size_t>(d)] = 0;
    plan.base = baseOperand(base, bs);
    IndexOperand io;
    io.op = operandOf(index, plan.shape);
    io.size = base.sizes()[static_cast<size_t>(d)];
    io.stride = base.strides()[static_cast<size_t>(d)];
    io.dim = d;
    plan.idx.push_back(io);
    return plan;
}

void checkGatherShapes(const Tensor& self, const Tensor& index, int64_t d, const Tensor* src, const char* op)
{
    const int64_t sd = std::max<int64_t>(self.dim(), 1), id = std::max<int64_t>(index.dim(), 1);
    if (sd != id)
        throw KernelError(std::string(op) + "(): Index tensor must have the same number of dimensions as "
                          + (src ? "self tensor" : "input tensor"));
    const Tensor s = atLeast1d(self), ix = atLeast1d(index);
    for (int64_t k = 0; k < sd; ++k) {
        const size_t u = static_cast<size_t>(k);
        if (ix.sizes()[u] == 0) return;  // empty index: nothing is read or written
    }
    for (int64_t k = 0; k < sd; ++k) {
        const size_t u = static_cast<size_t>(k);
        if (k != d && ix.sizes()[u] > s.sizes()[u])
            throw KernelError(std::string(op) + "(): Size does not match at dimension " + std::to_string(k)
                              + " expected index " + shapeStr(index.sizes()) + " to be smaller than self "
                              + shapeStr(self.sizes()) + " apart from dimension " + std::to_string(d));
        if (src) {
            const Tensor sr = atLeast1d(*src);
            if (ix.sizes()[u] > sr.sizes()[u])
                throw KernelError(std::string(op) + "(): Expected index " + shapeStr(index.sizes())
                                  + " to be smaller than self " + shapeStr(self.sizes()) + " apart from dimension "
                                  + std::to_string(d) + " and to be smaller size than src " + shapeStr(src->sizes()));
        }
    }
}

void gatherKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    const Tensor& index = call.tensor("index");
    checkIndexDType(index, "gather", false);
    const int64_t d = wrapDim(intArg(call, "dim"), self.dim());
    checkGatherShapes(self, index, d, nullptr, "gather");
    Tensor out = call.newTensor(index.sizes(), self.dtype());
    if (index.numel() > 0) runGather(call, dimPlan(atLeast1d(self), atLeast1d(index), d, "gather"), atLeast1d(out));
    call.result = Value::ofTensor(out);
}

enum class Reduce
{
    None,
    Add,
    Prod,
    Mean,
    Amax,
    Amin
};

// scatter.src / scatter_add / scatter_reduce into `out` (a copy of self, or self in place).
void scatterInto(KernelCall& call, const Tensor& out, Reduce red, bool includeSelf)
{
    const Tensor& index = call.tensor("index");
    const Tensor& src = call.tensor("src");
    const char* op = red == Reduce::None ? "scatter" : red == Reduce::Add ? "scatter_add" : "scatter_reduce";
    checkIndexDType(index, op, false);
    if (src.dtype() != out.dtype())
        throw KernelError(std::string(op) + "(): Expected self.dtype to be equal to src.dtype");
    const int64_t d = wrapDim(intArg(call, "dim"), out.dim());
    checkGatherShapes(out, index, d, &src, op);
    if (index.numel() == 0) return;
    const Tensor ix = atLeast1d(index);
    const Plan plan = dimPlan(atLeast1d(out), ix, d, op);
    const Tensor vals = atLeast1d(src).asStrided(ix.sizes(), atLeast1d(src).strides(), src.offset());
    if (red == Reduce::None) {
        runScatter(plan, vals);
        return;
    }
    if (red == Reduce::Add && includeSelf) {
        runAdd(plan, vals);
        return;
    }
    // scatter_reduce: identities first where include_self is false, then combine in order
    if (red == Reduce::Mean && !out.isContiguous())
        throw KernelError("scatter_reduce: internal: mean needs a contiguous output");
    const int64_t n = index.numel();
    ew::dispatch<ew::Set::Numeric>(out.dtype(), op, [&](auto tag) {
        using S = typename decltype(tag)::type;
        using C = typename ew::Num<S>::C;
        using ew::Num;
        S* dst = reinterpret_cast<S*>(plan.base.base);
        const Operand v = operandOf(vals, plan.shape);
        const S* sv = reinterpret_cast<const S*>(v.base);
        if (!includeSelf) {
            C init{};
            if (red == Reduce::Prod)
                init = C(1);
            else if (red == Reduce::Amax)
                init = std::numeric_limits<C>::has_infinity ? -std::numeric_limits<C>::infinity()
                                                            : std::numeric_limits<C>::lowest();
            else if (red == Reduce::Amin)
                init = std::numeric_limits<C>::has_infinity ? std::numeric_limits<C>::infinity()
                                                            : std::numeric_limits<C>::max();
            walk(plan, {&v}, 0, n, [&](int64_t bo, const int64_t*) { dst[bo] = Num<S>::store(init); });
        }
        std::vector<int64_t> count;
        if (red == Reduce::Mean) count.assign(static_cast<size_t>(out.numel()), includeSelf ? 1 : 0);
        walk(plan, {&v}, 0, n, [&](int64_t bo, const int64_t* vo) {
            const C a = Num<S>::load(dst[bo]), b = Num<S>::load(sv[vo[0]]);
            C r;
            if constexpr (std::is_integral_v<C>) {
                using W = uint64_t;  // integer sum/prod wrap like PyTorch's (no promotion to int)
                switch (red) {
                case Reduce::Prod: r = static_cast<C>(static_cast<W>(a) * static_cast<W>(b)); break;
                case Reduce::Amax: r = std::max(a, b); break;
                case Reduce::Amin: r = std::min(a, b); break;
                default: r = static_cast<C>(static_cast<W>(a) + static_cast<W>(b)); break;
                }
            } else {
                switch (red) {
                case Reduce::Prod: r = a * b; break;
                case Reduce::Amax: r = std::isnan(b) ? b : std::max(a, b); break;  // NaN propagates
                case Reduce::Amin: r = std::isnan(b) ? b : std::min(a, b); break;
                default: r = a + b; break;  // sum; mean sums first
                }
            }
            dst[bo] = Num<S>::store(r);
            if (red == Reduce::Mean) ++count[static_cast<size_t>(bo)];
        });
        if (red == Reduce::Mean) {
            for (size_t k = 0; k < count.size(); ++k) {
                const C c = static_cast<C>(count[k] == 0 ? 1 : count[k]);
                const C a = Num<S>::load(dst[k]);
                if constexpr (std::is_integral_v<C>) {
                    C q = static_cast<C>(a / c);  // floor division, as div_(count, "floor")
                    if (a % c != 0 && ((a < 0) != (c < 0))) q = static_cast<C>(q - 1);
                    dst[k] = Num<S>::store(q);
                } else {
                    dst[k] = Num<S>::store(a / c);
                }
            }
        }
    });
}

// scatter's output is contiguous (structured kernel), holding self's values
Tensor contiguousCopy(const KernelCall& call, const Tensor& self)
{
    Tensor out = call.newTensor(self.sizes(), self.dtype());
    copyInto(call, out, self);
    return out;
}

void scatterKernel(KernelCall& call)
{
    Tensor out = contiguousCopy(call, call.tensor("self"));
    scatterInto(call, out, Reduce::None, true);
    call.result = Value::ofTensor(out);
}

void scatterAddKernel(KernelCall& call)
{
    Tensor out = contiguousCopy(call, call.tensor("self"));
    scatterInto(call, out, Reduce::Add, true);
    call.result = Value::ofTensor(out);
}

void scatterAddInplaceKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    scatterInto(call, self, Reduce::Add, true);
    call.result = Value::ofTensor(self);
}

void scatterReduceKernel(KernelCall& call)
{
    const Value& rv = optArg(call, "reduce");
    Reduce red;
    if (rv.s == "sum")
        red = Reduce::Add;
    else if (rv.s == "prod")
        red = Reduce::Prod;
    else if (rv.s == "mean")
        red = Reduce::Mean;
    else if (rv.s == "amax")
        red = Reduce::Amax;
    else if (rv.s == "amin")
        red = Reduce::Amin;
    else
        throw KernelError("reduce argument must be either sum, prod, mean, amax or amin, got " + rv.s);
    const bool includeSelf = boolArg(call, "include_self", true);
    Tensor out = contiguousCopy(call, call.tensor("self"));
    scatterInto(call, out, red, includeSelf);
    call.result = Value::ofTensor(out);
}

// index_add: out = self (contiguous); out.select(dim, index[i]) += alpha * source.select(dim, i)
// for i in order.
void indexAddKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    const Tensor& index = call.tensor("index");
    const Tensor& source = call.tensor("source");
    if (index.dim() > 1) throw KernelError("index_add_(): Index is supposed to be a vector");
    checkIndexDType(index, "index_add_", true);
    if (source.dtype() != self.dtype())
        throw KernelError("index_add_(): self (" + std::string(dtypeTorchName(self.dtype())) + ") and source ("
                          + std::string(dtypeTorchName(source.dtype())) + ") must have the same scalar type");
    const int64_t d = wrapDim(intArg(call, "dim"), self.dim());
    const Tensor s1 = atLeast1d(self), src1 = atLeast1d(source), ix = atLeast1d(index);
    if (src1.dim() != s1.dim())
        throw KernelError("index_add_(): Self and source should have same number of dimensions");
    for (int64_t k = 0; k < s1.dim(); ++k) {
        const size_t u = static_cast<size_t>(k);
        const int64_t want = k == d ? ix.numel() : s1.sizes()[u];
        if (src1.sizes()[u] != want)
            throw KernelError("index_add_(): source " + shapeStr(source.sizes()) + " does not fit self "
                              + shapeStr(self.sizes()) + " with " + std::to_string(ix.numel()) + " indices along dim "
                              + std::to_string(d));
    }
    Tensor out = contiguousCopy(call, self);
    Tensor o1 = atLeast1d(out);
    Plan plan = vectorIndexPlan(o1, ix, src1.sizes(), d, "index_add");
    const Value& alpha = optArg(call, "alpha");
    const bool unitAlpha = alpha.isNone() || (alpha.kind == Value::Kind::Int && alpha.i == 1)
        || (alpha.kind == Value::Kind::Float && alpha.f == 1.0);
    if (unitAlpha) {
        runAdd(plan, src1);
    } else {
        ew::dispatch<ew::Set::Numeric>(self.dtype(), "index_add", [&](auto tag) {
            using S = typename decltype(tag)::type;
            using C = typename ew::Num<S>::C;
            const C a = ew::Num<S>::load(ew::scalarTo<S>(alpha));
            runAccumulate<S>(plan, src1, [a](S x, S y) {
                using ew::Num;
                if constexpr (std::is_floating_point_v<C>) {
                    return Num<S>::store(std::fma(a, Num<S>::load(y), Num<S>::load(x)));
                } else {
                    using W = uint64_t;
                    return static_cast<S>(static_cast<W>(x) + static_cast<W>(a) * static_cast<W>(y));
                }
            });
        });
    }
    call.result = Value::ofTensor(out);
}

// nonzero: [n, ndim] int64 coordinates in row-major order, laid out column-major (strides
// [1, n]) as PyTorch's CPU kernel leaves them.
void nonzeroKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    std::vector<int64_t> hits;  // flat positions
    const int64_t is = self.itemSize();
    const char* base = static_cast<const char*>(self.rawData());
    const DType dt = self.dtype();
    forEachIndex(self.sizes(), [&](const int64_t* i, int64_t flat) {
        const char* p = base + offsetOf(self, i) * is;
        bool nz;
        if (isFloatingPoint(dt)) {
            const double v = loadAsDouble(p, dt);
            nz = v != 0.0;  // NaN counts as nonzero, -0 as zero
        } else {
            nz = false;
            for (int64_t b = 0; b < is; ++b) nz = nz || p[b] != 0;
        }
        if (nz) hits.push_back(flat);
    });
    const int64_t n = static_cast<int64_t>(hits.size()), nd = self.dim();
    Tensor store = call.newTensor({nd, n}, DType::I64);
    int64_t* o = store.data<int64_t>();
    for (int64_t k = 0; k < n; ++k) {
        int64_t rem = hits[static_cast<size_t>(k)];
        for (int64_t j = nd - 1; j >= 0; --j) {
            const int64_t s = self.sizes()[static_cast<size_t>(j)];
            o[j * n + k] = rem % s;
            rem /= s;
        }
    }
    call.result = Value::ofTensor(store.asStrided({n, nd}, {1, n}, 0));
}

}  // namespace

void registerIndexKernels(KernelRegistry& reg)
{
    const DeviceKind cpu = DeviceKind::Cpu;
    reg.add("aten.embedding.default", cpu, embeddingKernel);
    reg.add("aten.index_select.default", cpu, indexSelectKernel);
    reg.add("aten.index.Tensor", cpu, indexKernel);
    reg.add("aten._unsafe_index.Tensor", cpu, indexKernel);
    reg.add("aten.index_put.default", cpu, indexPutKernel);
    reg.add("aten._unsafe_index_put.default", cpu, indexPutKernel);
    reg.add("aten.index_put_.default", cpu, indexPutInplaceKernel);
    reg.add("aten.index_add.default", cpu, indexAddKernel);
    reg.add("aten.gather.default", cpu, gatherKernel);
    reg.add("aten.scatter.src", cpu, scatterKernel);
    reg.add("aten.scatter_add.default", cpu, scatterAddKernel);
    reg.add("aten.scatter_add_.default", cpu, scatterAddInplaceKernel);
    reg.add("aten.scatter_reduce.two", cpu, scatterReduceKernel);
    reg.add("aten.nonzero.default", cpu, nonzeroKernel);
}

}  // namespace fxl::cpu::shape

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
#include "runtime/math/accumulate.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "runtime/cpu/cpu_elementwise.hpp"
#include "runtime/cpu/cpu_index_advanced.hpp"
#include "runtime/cpu/cpu_index_plan.hpp"
#include "runtime/cpu/cpu_shape.hpp"

namespace fxl::cpu::shape {

namespace {

using ew::Tag;

void indexKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    AdvancedIndex a = makeAdvancedIndex(call, self, optTensorListArg(call, "indices"), "index");
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
    AdvancedIndex a = makeAdvancedIndex(call, dst, optTensorListArg(call, "indices"), "index_put");
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
    // every index in [0, size), also when the result is empty; negative indices do not wrap
    // (PyTorch's CPU index_select rejects them)
    const int64_t size = s.sizes()[static_cast<size_t>(d)];
    for (const int64_t i : indexValues(ix, "index_select")) {  // read in host memory (any device)
        if (i < 0 || i >= size)
            throw KernelError("index_select(): index " + std::to_string(i) + " is out of range for dimension "
                              + std::to_string(d) + " with size " + std::to_string(size));
    }
    std::vector<int64_t> shape = s.sizes();
    shape[static_cast<size_t>(d)] = n;
    IndexPlan plan = vectorIndexPlan(s, ix, std::move(shape), d, "index_select");
    Tensor out = call.newTensor(self.dim() == 0 ? std::vector<int64_t>{} : plan.shape, self.dtype());
    runGather(call, plan, self.dim() == 0 ? atLeast1d(out) : out);
    call.result = Value::ofTensor(out);
}

// masked_scatter(self, mask, source): self broadcast with mask, in a new contiguous tensor; the
// k-th position (row-major) where mask is true takes source's k-th element (row-major). One
// sequential pass; source must hold at least as many elements as mask has true ones.
void maskedScatterKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    const Tensor& mask = call.tensor("mask");
    const Tensor& source = call.tensor("source");
    if (mask.dtype() != DType::Bool)
        throw KernelError("masked_scatter only supports boolean masks, got " + std::string(dtypeAbbr(mask.dtype())));
    if (source.dtype() != self.dtype())
        throw KernelError("masked_scatter: expected source and self to have the same dtype, got "
                          + std::string(dtypeAbbr(source.dtype())) + " and " + std::string(dtypeAbbr(self.dtype())));
    const std::vector<int64_t> shape = broadcastShapes(self.sizes(), mask.sizes());
    Tensor out = call.newTensor(shape, self.dtype());
    const Tensor s = expandTo(self, shape), m = expandTo(mask, shape);
    const size_t is = static_cast<size_t>(out.itemSize());
    std::vector<const char*> src;  // source's elements in row-major order
    src.reserve(static_cast<size_t>(source.numel()));
    const char* sb = static_cast<const char*>(source.rawData());
    forEachIndex(source.sizes(),
                 [&](const int64_t* idx, int64_t) { src.push_back(sb + offsetOf(source, idx) * source.itemSize()); });
    char* o = static_cast<char*>(out.rawData());
    const char* selfB = static_cast<const char*>(s.rawData());
    const uint8_t* maskB = static_cast<const uint8_t*>(m.rawData());
    size_t k = 0;
    bool tooFew = false;
    forEachIndex(shape, [&](const int64_t* idx, int64_t flat) {
        const char* from = selfB + offsetOf(s, idx) * s.itemSize();
        if (maskB[offsetOf(m, idx)]) {
            if (k < src.size())
                from = src[k];
            else
                tooFew = true;
            ++k;
        }
        std::memcpy(o + static_cast<size_t>(flat) * is, from, is);
    });
    if (tooFew)
        throw KernelError("masked_scatter: the mask has " + std::to_string(k) + " true elements, source only "
                          + std::to_string(src.size()));
    call.result = Value::ofTensor(out);
}

// embedding = weight.index_select(0, indices.reshape(-1)).view(indices.sizes() + [D])
void embeddingKernel(KernelCall& call)
{
    const Tensor& w = call.tensor("weight");
    const Tensor& ind = call.tensor("indices");
    if (w.dim() != 2) throw KernelError("'weight' must be 2-D");
    checkIndexDType(ind, "embedding", true);
    IndexPlan plan;
    plan.op = "embedding";
    plan.shape = ind.sizes();
    plan.shape.push_back(w.sizes()[1]);
    std::vector<int64_t> bs(ind.sizes().size(), 0);
    bs.push_back(w.strides()[1]);
    plan.base = baseOperand(w, bs);
    IndexOperand io;
    io.op = iterOperandOf(ind.asStrided(
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

// scatter_reduce: identities first where include_self is false, then combine in index
// order; mean divides by the count of values (self included when include_self) at the end.
void runScatterReduce(const IndexPlan& plan, const Tensor& vals, const Tensor& out, Reduce red, bool includeSelf,
                      const char* op)
{
    if (red == Reduce::Mean && !out.isContiguous())
        throw KernelError("scatter_reduce: internal: mean needs a contiguous output");
    const int64_t n = numelOf(plan.shape);
    const math::acc::Reduce mathRed = red == Reduce::Prod ? math::acc::Reduce::Prod
        : red == Reduce::Amax                             ? math::acc::Reduce::Amax
        : red == Reduce::Amin                             ? math::acc::Reduce::Amin
                                                          : math::acc::Reduce::Sum;
    ew::dispatch<ew::Set::Numeric>(out.dtype(), op, [&](auto tag) {
        using S = typename decltype(tag)::type;
        using C = typename ew::Num<S>::C;
        using ew::Num;
        S* dst = reinterpret_cast<S*>(plan.base.base);
        const IterOperand v = iterOperandOf(vals, plan.shape);
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
            walkPlan(plan, {&v}, 0, n, [&](int64_t bo, const int64_t*) { dst[bo] = Num<S>::store(init); });
        }
        std::vector<int64_t> count;
        if (red == Reduce::Mean) count.assign(static_cast<size_t>(out.numel()), includeSelf ? 1 : 0);
        walkPlan(plan, {&v}, 0, n, [&](int64_t bo, const int64_t* vo) {
            // integer sum / prod wrap like PyTorch's (no promotion to int); a NaN source propagates
            dst[bo] = Num<S>::store(math::acc::combine(Num<S>::load(dst[bo]), Num<S>::load(sv[vo[0]]), mathRed));
            if (red == Reduce::Mean) ++count[static_cast<size_t>(bo)];
        });
        if (red == Reduce::Mean) {
            for (size_t k = 0; k < count.size(); ++k) {
                dst[k] = Num<S>::store(math::acc::meanOf(Num<S>::load(dst[k]), count[k]));
            }
        }
    });
}

// scatter.src / scatter_add / scatter_reduce into `out` (a copy of self, or self in place).
// scatter.value scatters a tensor of index's sizes filled with the value (converted as
// Scalar::to does: out of range is an error).
void scatterInto(KernelCall& call, const Tensor& out, Reduce red, bool includeSelf)
{
    const Tensor& index = call.tensor("index");
    Tensor filled;
    if (call.argIndex("value") >= 0) {
        filled = call.newTensor(index.sizes(), out.dtype());
        ew::fillWith(call, filled, call.arg("value"));
    }
    const Tensor& src = call.argIndex("value") >= 0 ? filled : call.tensor("src");
    const char* op = red == Reduce::None ? "scatter" : red == Reduce::Add ? "scatter_add" : "scatter_reduce";
    checkIndexDType(index, op, false);
    if (src.dtype() != out.dtype())
        throw KernelError(std::string(op) + "(): Expected self.dtype to be equal to src.dtype");
    const int64_t d = wrapDim(intArg(call, "dim"), out.dim());
    checkGatherShapes(out, index, d, &src, op);
    if (index.numel() == 0) return;
    const Tensor ix = atLeast1d(index);
    const IndexPlan plan = dimPlan(atLeast1d(out), ix, d, op);
    const Tensor vals = atLeast1d(src).asStrided(ix.sizes(), atLeast1d(src).strides(), src.offset());
    if (red == Reduce::None) {
        runScatter(plan, vals);
        return;
    }
    if (red == Reduce::Add && includeSelf) {
        runAdd(plan, vals);
        return;
    }
    runScatterReduce(plan, vals, out, red, includeSelf, op);
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
    IndexPlan plan = vectorIndexPlan(o1, ix, src1.sizes(), d, "index_add");
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
                return Num<S>::store(math::acc::addScaled(Num<S>::load(x), Num<S>::load(y), a));
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

void registerGatherKernels(KernelRegistry& reg, DeviceKind d)
{
    reg.add("aten.embedding.default", d, embeddingKernel);
    reg.add("aten.index_select.default", d, indexSelectKernel);
    reg.add("aten.index.Tensor", d, indexKernel);
    reg.add("aten._unsafe_index.Tensor", d, indexKernel);
    reg.add("aten.gather.default", d, gatherKernel);
}

void registerIndexKernels(KernelRegistry& reg)
{
    const DeviceKind cpu = DeviceKind::Cpu;
    registerGatherKernels(reg, cpu);
    reg.add("aten.masked_scatter.default", cpu, maskedScatterKernel);
    reg.add("aten.index_put.default", cpu, indexPutKernel);
    reg.add("aten._unsafe_index_put.default", cpu, indexPutKernel);
    reg.add("aten.index_put_.default", cpu, indexPutInplaceKernel);
    reg.add("aten.index_add.default", cpu, indexAddKernel);
    reg.add("aten.scatter.src", cpu, scatterKernel);
    reg.add("aten.scatter.value", cpu, scatterKernel);
    reg.add("aten.scatter_add.default", cpu, scatterAddKernel);
    reg.add("aten.scatter_add_.default", cpu, scatterAddInplaceKernel);
    reg.add("aten.scatter_reduce.two", cpu, scatterReduceKernel);
    reg.add("aten.nonzero.default", cpu, nonzeroKernel);
}

}  // namespace fxl::cpu::shape

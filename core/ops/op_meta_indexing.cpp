// Meta functions of indexing, scatter/gather, sorting and the data-dependent ops whose
// output size is a new unbacked symbol (u0, u1, ...) with the recorded size as hint.
#include <algorithm>

#include "core/ops/op_meta_indexing.hpp"

namespace fxl::meta {
namespace {

// A fresh unbacked size for output `out`, dim `dim`.
SymInt unbacked(const MetaCall& c, size_t out, size_t dim)
{
    std::optional<int64_t> hint;
    if (c.recordedSize) hint = c.recordedSize(out, dim);
    if (!c.newUnbacked) throw MetaError("data-dependent output size and no way to create an unbacked symbol");
    return c.newUnbacked(hint);
}

SymInt numelOf(const TensorMeta& t) { return product(t.sizes); }

ValueMeta indexImpl(const MetaCall& c)
{
    const TensorMeta& self = tensorOf(c, "self");
    auto idx = tensorListOf(c, "indices", true);
    size_t ndim = self.sizes.size();
    // expand boolean masks into nonzero() index tensors (one per mask dim)
    struct Entry
    {
        bool present = false;
        Sizes shape;
    };
    std::vector<Entry> entries;
    std::vector<std::vector<size_t>> masks;  // entries of each mask (they share one nnz)
    for (const TensorMeta* t : idx) {
        if (!t) {
            entries.push_back({});
            continue;
        }
        if (t->dtype == DType::Bool || t->dtype == DType::U8) {
            size_t k = entries.size();
            if (k + t->sizes.size() > ndim)
                throw MetaError("index: too many indices for tensor of dimension " + std::to_string(ndim));
            for (size_t j = 0; j < t->sizes.size(); ++j)
                if (!guardEq(t->sizes[j], self.sizes[k + j]))
                    throw MetaError("The shape of the mask " + formatAnnotation(ValueMeta::ofTensor(*t))
                                    + " does not match the shape of the indexed tensor at index "
                                    + std::to_string(k + j));
            masks.emplace_back();
            // a 0-d mask adds one dim of size 0 or 1
            size_t dims = std::max<size_t>(t->sizes.size(), 1);
            for (size_t j = 0; j < dims; ++j) {
                entries.push_back({true, {SymInt(-1)}});  // size filled below
                masks.back().push_back(entries.size() - 1);
            }
        } else {
            if (!isIntegral(t->dtype, false))
                throw MetaError("tensors used as indices must be long, int, byte or bool tensors");
            entries.push_back({true, t->sizes});
        }
    }
    if (entries.size() > ndim) throw MetaError("too many indices for tensor of dimension " + std::to_string(ndim));
    while (entries.size() < ndim) entries.push_back({});
    // layout: contiguous subspace of indexed dims?
    int first = -1, last = -1, blocks = 0;
    bool inBlock = false;
    for (size_t d = 0; d < entries.size(); ++d) {
        if (entries[d].present) {
            if (!inBlock) ++blocks;
            inBlock = true;
            if (first < 0) first = static_cast<int>(d);
            last = static_cast<int>(d);
        } else {
            inBlock = false;
        }
    }
    bool contiguousSubspace = blocks <= 1;
    Sizes before, after;
    for (size_t d = 0; d < entries.size(); ++d) {
        if (entries[d].present) continue;
        if (contiguousSubspace && static_cast<int>(d) < first)
            before.push_back(self.sizes[d]);
        else
            after.push_back(self.sizes[d]);
    }
    (void)last;
    size_t replPos = before.size();
    // all dims of one mask share a single nnz symbol
    for (const auto& m : masks) {
        SymInt nnz = unbacked(c, 0, replPos);
        for (size_t e : m) entries[e].shape = {nnz};
    }
    std::vector<const Sizes*> shapes;
    for (const auto& e : entries)
        if (e.present) shapes.push_back(&e.shape);
    Sizes repl = broadcastShapes(shapes);
    Sizes out = before;
    out.insert(out.end(), repl.begin(), repl.end());
    out.insert(out.end(), after.begin(), after.end());
    return tensorValue(makeContiguous(self.dtype, std::move(out), self.device));
}

ValueMeta likeSelfContiguous(const MetaCall& c)
{
    const TensorMeta& self = tensorOf(c, "self");
    return tensorValue(makeContiguous(self.dtype, self.sizes, self.device));
}

ValueMeta likeSelfPreserve(const MetaCall& c)
{
    const TensorMeta& self = tensorOf(c, "self");
    return tensorValue(makeTensor(self.dtype, self.sizes, stridesLike(self, ""), self.device));
}

void checkIndexDim(const MetaCall& c, const TensorMeta& self, const char* dimArg)
{
    wrapDim(intArg(c, dimArg), static_cast<int64_t>(self.sizes.size()));
}

ValueMeta scatterLike(const MetaCall& c)
{
    const TensorMeta& self = tensorOf(c, "self");
    checkIndexDim(c, self, "dim");
    const TensorMeta& index = tensorOf(c, "index");
    if (!isIntegral(index.dtype, false)) throw MetaError("scatter(): Expected dtype int64 for index");
    return likeSelfContiguous(c);
}

ValueMeta sortImpl(const MetaCall& c)
{
    const TensorMeta& self = tensorOf(c, "self");
    wrapDim(intArg(c, "dim"), static_cast<int64_t>(self.sizes.size()));
    Sizes st = stridesLike(self, "");
    return ValueMeta::ofTuple({tensorValue(makeTensor(self.dtype, self.sizes, st, self.device)),
                               tensorValue(makeTensor(DType::I64, self.sizes, st, self.device))});
}

// index, index_put, index_select, gather, scatter, sort, topk, histc
void registerIndexOps(MetaTable& t)
{
    t["aten.index.Tensor"] = indexImpl;
    t["aten._unsafe_index.Tensor"] = indexImpl;
    for (const char* n : {"aten.index_put.default", "aten._unsafe_index_put.default"})
        t[n] = [](const MetaCall& c) {
            tensorOf(c, "values");
            return likeSelfPreserve(c);
        };
    t["aten.index_select.default"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        const TensorMeta& index = tensorOf(c, "index");
        if (index.sizes.size() > 1) throw MetaError("index_select(): Index is supposed to be a vector");
        if (!isIntegral(index.dtype, false)) throw MetaError("index_select(): Expected dtype int32/int64 for index");
        int64_t n = static_cast<int64_t>(self.sizes.size());
        int64_t dim = wrapDim(intArg(c, "dim"), n);
        Sizes out = self.sizes;
        if (n > 0) out[static_cast<size_t>(dim)] = numelOf(index);
        return tensorValue(makeContiguous(self.dtype, std::move(out), self.device));
    };
    t["aten.gather.default"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        const TensorMeta& index = tensorOf(c, "index");
        checkIndexDim(c, self, "dim");
        if (!isIntegral(index.dtype, false)) throw MetaError("gather(): Expected dtype int64 for index");
        if (index.sizes.size() != self.sizes.size() && !(index.sizes.empty() || self.sizes.empty()))
            throw MetaError("Index tensor must have the same number of dimensions as input tensor");
        return tensorValue(makeContiguous(self.dtype, index.sizes, self.device));
    };
    for (const char* n : {"aten.scatter.src", "aten.scatter.value", "aten.scatter.reduce", "aten.scatter.value_reduce",
                          "aten.scatter_add.default", "aten.scatter_reduce.two"})
        t[n] = scatterLike;
    t["aten.index_add.default"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        checkIndexDim(c, self, "dim");
        const TensorMeta& index = tensorOf(c, "index");
        if (index.sizes.size() > 1) throw MetaError("index_add_(): Index is supposed to be a vector");
        tensorOf(c, "source");
        return likeSelfContiguous(c);
    };
    t["aten.index_copy.default"] = t["aten.index_add.default"];
    t["aten.index_fill.int_Scalar"] = likeSelfContiguous;
    t["aten.sort.default"] = sortImpl;
    t["aten.sort.stable"] = sortImpl;
    t["aten.argsort.default"] = [](const MetaCall& c) {
        ValueMeta v = sortImpl(c);
        return v.elems[1];
    };
    t["aten.argsort.stable"] = t["aten.argsort.default"];
    t["aten.topk.default"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        int64_t n = static_cast<int64_t>(self.sizes.size());
        int64_t dim = wrapDim(intArg(c, "dim"), n);
        SymInt k = symArg(c, "k");
        Sizes out = self.sizes;
        if (n > 0) {
            if (k.isConcrete() && self.sizes[static_cast<size_t>(dim)].isConcrete()
                && (*k.maybeValue() < 0 || *k.maybeValue() > *self.sizes[static_cast<size_t>(dim)].maybeValue()))
                throw MetaError("selected index k out of range");
            out[static_cast<size_t>(dim)] = k;
        }
        return ValueMeta::ofTuple({tensorValue(makeContiguous(self.dtype, out, self.device)),
                                   tensorValue(makeContiguous(DType::I64, out, self.device))});
    };
    t["aten.histc.default"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        return tensorValue(makeContiguous(self.dtype, {intArg(c, "bins")}, self.device));
    };
}

// ops whose output size depends on the data: bincount, nonzero, repeat_interleave, one_hot, masked_select
void registerDataDependent(MetaTable& t)
{
    t["aten.bincount.default"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        if (self.sizes.size() != 1 || !isIntegral(self.dtype, false))
            throw MetaError("bincount only supports 1-d non-negative integral inputs");
        const TensorMeta* w = optTensorOf(c, "weights");
        DType dt = DType::I64;
        if (w) dt = w->dtype == DType::F32 ? DType::F32 : DType::F64;
        return tensorValue(makeContiguous(dt, {unbacked(c, 0, 0)}, self.device));
    };
    t["aten.nonzero.default"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        SymInt nnz = unbacked(c, 0, 0);
        return tensorValue(
            makeContiguous(DType::I64, {nnz, SymInt(static_cast<int64_t>(self.sizes.size()))}, self.device));
    };
    t["aten.repeat_interleave.Tensor"] = [](const MetaCall& c) {
        const TensorMeta& rep = tensorOf(c, "repeats");
        if (rep.sizes.size() > 1) throw MetaError("repeat_interleave: repeats must be 0-dim or 1-dim tensor");
        if (!isIntegral(rep.dtype, false)) throw MetaError("repeat_interleave: repeats has to be Long or Int tensor");
        const Arg& os = c.arg("output_size");
        SymInt n = os.isNone() ? unbacked(c, 0, 0) : toSymInt(c, os, "output_size");
        return tensorValue(makeContiguous(rep.dtype, {n}, rep.device));
    };
    t["aten.one_hot.default"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        int64_t k = intArg(c, "num_classes");
        Sizes out = self.sizes;
        out.push_back(k >= 0 ? SymInt(k) : unbacked(c, 0, self.sizes.size()));
        return tensorValue(makeContiguous(DType::I64, std::move(out), self.device));
    };
    t["aten.masked_select.default"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        return tensorValue(makeContiguous(self.dtype, {unbacked(c, 0, 0)}, self.device));
    };
}

}  // namespace

void registerIndexing(MetaTable& t)
{
    registerIndexOps(t);
    registerDataDependent(t);
}

}  // namespace fxl::meta

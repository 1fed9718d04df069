// Meta functions of view ops: sizes, strides and storage offset of the alias, as
// ATen's view kernels compute them (computeStride for view of non-contiguous inputs,
// inferExpandGeometry, slice clamping), plus split/unbind lists.
#include <algorithm>
#include <limits>

#include "core/ops/op_meta_views.hpp"

namespace fxl::meta {
namespace {

const TensorMeta& selfOf(const MetaCall& c) { return tensorOf(c, "self"); }

TensorMeta viewOf(const TensorMeta& base, Sizes sizes, Sizes strides, SymInt offset)
{
    TensorMeta t;
    t.dtype = base.dtype;
    t.device = base.device;
    t.sizes = std::move(sizes);
    t.strides = std::move(strides);
    t.storageOffset = std::move(offset);
    return t;
}

Sizes requireStrides(const TensorMeta& t)
{
    if (t.strides.size() == t.sizes.size()) return t.strides;
    return contiguous(t.sizes);  // strides unknown: assume contiguous
}

// infer_size: resolves one -1 from the numel.
Sizes inferSize(const Sizes& shape, const SymInt& numel)
{
    Sizes out = shape;
    int inferDim = -1;
    SymInt newSize = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
        if (shape[i].isConcrete() && *shape[i].maybeValue() == -1) {
            if (inferDim >= 0) throw MetaError("only one dimension can be inferred");
            inferDim = static_cast<int>(i);
        } else {
            if (shape[i].isConcrete() && *shape[i].maybeValue() < 0)
                throw MetaError("invalid shape dimension " + shape[i].str());
            newSize = mul(newSize, shape[i]);
        }
    }
    if (inferDim >= 0) {
        if (guardEq(newSize, 0)) throw MetaError("cannot reshape tensor of 0 elements into a shape with -1");
        int64_t hn = hintOf(numel), hs = hintOf(newSize);
        if (hs == 0 || hn % hs != 0) throw MetaError("shape is invalid for input of size " + numel.str());
        out[static_cast<size_t>(inferDim)] = exactDiv(numel, newSize);
    } else if (!guardEq(numel, newSize)) {
        throw MetaError("shape '[...]' is invalid for input of size " + numel.str() + " (new numel " + newSize.str()
                        + ")");
    }
    return out;
}

// at::detail::computeStride: strides of a view of (oldshape, oldstride) as newshape,
// nullopt when the view is not possible without a copy.
std::optional<Sizes> computeStride(const Sizes& oldshape, const Sizes& oldstride, const Sizes& newshape)
{
    if (oldshape.empty()) return Sizes(newshape.size(), SymInt(1));
    SymInt numel = product(oldshape);
    if (guardEq(numel, 0)) {
        if (oldshape.size() == newshape.size()) {
            bool same = true;
            for (size_t i = 0; i < oldshape.size(); ++i) same = same && guardEq(oldshape[i], newshape[i]);
            if (same) return oldstride;
        }
        return contiguous(newshape);
    }
    Sizes newstride(newshape.size());
    int64_t viewD = static_cast<int64_t>(newshape.size()) - 1;
    SymInt chunkBaseStride = oldstride.back();
    SymInt tensorNumel = 1, viewNumel = 1;
    for (int64_t td = static_cast<int64_t>(oldshape.size()) - 1; td >= 0; --td) {
        tensorNumel = mul(tensorNumel, oldshape[static_cast<size_t>(td)]);
        if (td == 0
            || (!isOne(oldshape[static_cast<size_t>(td - 1)])
                && !guardEq(oldstride[static_cast<size_t>(td - 1)], mul(tensorNumel, chunkBaseStride)))) {
            while (viewD >= 0 && (hintLt(viewNumel, tensorNumel) || isOne(newshape[static_cast<size_t>(viewD)]))) {
                newstride[static_cast<size_t>(viewD)] = mul(viewNumel, chunkBaseStride);
                viewNumel = mul(viewNumel, newshape[static_cast<size_t>(viewD)]);
                --viewD;
            }
            if (!guardEq(viewNumel, tensorNumel)) return std::nullopt;
            if (td > 0) {
                chunkBaseStride = oldstride[static_cast<size_t>(td - 1)];
                tensorNumel = 1;
                viewNumel = 1;
            }
        }
    }
    if (viewD != -1) return std::nullopt;
    return newstride;
}

enum class ViewMode
{
    Strict,
    UnsafeView,
    Reshape
};

ValueMeta viewImpl(const MetaCall& c, const char* sizeArg, ViewMode mode)
{
    const TensorMeta& self = selfOf(c);
    Sizes shape = inferSize(symListArg(c, sizeArg), product(self.sizes));
    Sizes oldStrides = requireStrides(self);
    std::optional<Sizes> st;
    if (isContiguous(self))
        st = contiguous(shape);
    else
        st = computeStride(self.sizes, oldStrides, shape);
    if (!st) {
        if (mode == ViewMode::Strict)
            throw MetaError("view size is not compatible with input tensor's size and stride (at least one "
                            "dimension spans across two contiguous subspaces); use reshape instead");
        // reshape copies; _unsafe_view's input is a fresh temporary in practice
        return tensorValue(makeContiguous(self.dtype, std::move(shape), self.device));
    }
    return tensorValue(viewOf(self, std::move(shape), std::move(*st), self.storageOffset));
}

ValueMeta permuteImpl(const TensorMeta& self, const std::vector<int64_t>& dims)
{
    int64_t n = static_cast<int64_t>(self.sizes.size());
    if (static_cast<int64_t>(dims.size()) != n)
        throw MetaError("permute: number of dims don't match (" + std::to_string(dims.size()) + " vs "
                        + std::to_string(n) + ")");
    Sizes strides = requireStrides(self);
    Sizes ns(dims.size()), nt(dims.size());
    std::vector<bool> seen(dims.size(), false);
    for (size_t i = 0; i < dims.size(); ++i) {
        int64_t d = wrapDim(dims[i], n);
        if (seen[static_cast<size_t>(d)]) throw MetaError("permute: repeated dim");
        seen[static_cast<size_t>(d)] = true;
        ns[i] = self.sizes[static_cast<size_t>(d)];
        nt[i] = strides[static_cast<size_t>(d)];
    }
    return tensorValue(viewOf(self, std::move(ns), std::move(nt), self.storageOffset));
}

ValueMeta transposeImpl(const TensorMeta& self, int64_t d0, int64_t d1)
{
    int64_t n = static_cast<int64_t>(self.sizes.size());
    if (n == 0) return tensorValue(self);
    d0 = wrapDim(d0, n);
    d1 = wrapDim(d1, n);
    Sizes ns = self.sizes, nt = requireStrides(self);
    std::swap(ns[static_cast<size_t>(d0)], ns[static_cast<size_t>(d1)]);
    std::swap(nt[static_cast<size_t>(d0)], nt[static_cast<size_t>(d1)]);
    return tensorValue(viewOf(self, std::move(ns), std::move(nt), self.storageOffset));
}

// inferExpandGeometry
ValueMeta expandImpl(const TensorMeta& self, const Sizes& sizes)
{
    size_t ndim = sizes.size(), tdim = self.sizes.size();
    if (ndim < tdim)
        throw MetaError("expand: the number of sizes provided (" + std::to_string(ndim)
                        + ") must be greater or equal to the number of dimensions in the tensor ("
                        + std::to_string(tdim) + ")");
    Sizes strides = requireStrides(self);
    Sizes es(ndim), et(ndim);
    for (size_t k = ndim; k-- > 0;) {
        size_t offset = ndim - 1 - k;
        bool has = offset < tdim;
        size_t dim = tdim - 1 - offset;
        SymInt size = has ? self.sizes[dim] : SymInt(1);
        SymInt stride = has ? strides[dim] : (k + 1 < ndim ? mul(es[k + 1], et[k + 1]) : SymInt(1));
        SymInt target = sizes[k];
        if (target.isConcrete() && *target.maybeValue() == -1) {
            if (!has) throw MetaError("expand: -1 is not allowed in a leading, non-existing dimension");
            target = size;
        }
        if (!guardEq(size, target)) {
            if (!isOne(size))
                throw MetaError("expand: the expanded size of the tensor (" + target.str()
                                + ") must match the existing size (" + size.str() + ") at non-singleton dimension "
                                + std::to_string(k));
            size = target;
            stride = 0;
        } else if (!size.isConcrete() && target.isConcrete()) {
            size = target;
        }
        es[k] = size;
        et[k] = stride;
    }
    return tensorValue(viewOf(self, std::move(es), std::move(et), self.storageOffset));
}

ValueMeta unsqueezeImpl(const TensorMeta& self, int64_t dim)
{
    int64_t n = static_cast<int64_t>(self.sizes.size());
    dim = wrapDim(dim, n + 1);
    Sizes ns = self.sizes, nt = requireStrides(self);
    SymInt st = dim >= n ? SymInt(1) : mul(ns[static_cast<size_t>(dim)], nt[static_cast<size_t>(dim)]);
    ns.insert(ns.begin() + dim, SymInt(1));
    nt.insert(nt.begin() + dim, st);
    return tensorValue(viewOf(self, std::move(ns), std::move(nt), self.storageOffset));
}

ValueMeta squeezeDims(const TensorMeta& self, const std::vector<int64_t>& dimsIn, bool all)
{
    int64_t n = static_cast<int64_t>(self.sizes.size());
    std::vector<bool> drop(self.sizes.size(), false);
    if (all) {
        for (size_t i = 0; i < self.sizes.size(); ++i) drop[i] = guardEq(self.sizes[i], 1);
    } else {
        for (int64_t d : dimsIn) {
            if (n == 0) {
                wrapDim(d, 0);
                continue;
            }
            int64_t w = wrapDim(d, n);
            if (guardEq(self.sizes[static_cast<size_t>(w)], 1) && !hasUnbacked(self.sizes[static_cast<size_t>(w)]))
                drop[static_cast<size_t>(w)] = true;
        }
    }
    Sizes strides = requireStrides(self);
    Sizes ns, nt;
    for (size_t i = 0; i < self.sizes.size(); ++i) {
        if (drop[i]) continue;
        ns.push_back(self.sizes[i]);
        nt.push_back(strides[i]);
    }
    return tensorValue(viewOf(self, std::move(ns), std::move(nt), self.storageOffset));
}

TensorMeta selectImpl(const TensorMeta& self, int64_t dim, SymInt index)
{
    int64_t n = static_cast<int64_t>(self.sizes.size());
    if (n == 0) throw MetaError("select() cannot be applied to a 0-dim tensor.");
    dim = wrapDim(dim, n);
    const SymInt& size = self.sizes[static_cast<size_t>(dim)];
    if (index.isConcrete()) {
        int64_t i = *index.maybeValue();
        if (size.isConcrete()) {
            int64_t s = *size.maybeValue();
            if (i < -s || i >= s)
                throw MetaError("select(): index " + std::to_string(i) + " out of range for tensor of size "
                                + std::to_string(s) + " at dimension " + std::to_string(dim));
        }
        if (i < 0) index = add(size, i);
    }
    Sizes strides = requireStrides(self);
    SymInt offset = add(self.storageOffset, mul(index, strides[static_cast<size_t>(dim)]));
    Sizes ns = self.sizes, nt = strides;
    ns.erase(ns.begin() + dim);
    nt.erase(nt.begin() + dim);
    return viewOf(self, std::move(ns), std::move(nt), std::move(offset));
}

constexpr int64_t kMaxI64 = std::numeric_limits<int64_t>::max();

// slice.Tensor clamping (start/end None -> 0 / INT64_MAX)
TensorMeta sliceImpl(const TensorMeta& self, int64_t dim, std::optional<SymInt> startIn, std::optional<SymInt> endIn,
                     SymInt step)
{
    int64_t n = static_cast<int64_t>(self.sizes.size());
    if (n == 0) throw MetaError("slice() cannot be applied to a 0-dim tensor.");
    dim = wrapDim(dim, n);
    if (!step.isConcrete() || *step.maybeValue() <= 0) {
        if (step.isConcrete()) throw MetaError("slice step must be positive");
    }
    const SymInt size = self.sizes[static_cast<size_t>(dim)];
    SymInt start = startIn ? *startIn : SymInt(0);
    SymInt end = endIn ? *endIn : SymInt(kMaxI64);
    if (size.isConcrete() && start.isConcrete() && end.isConcrete()) {
        int64_t s = *size.maybeValue(), b = *start.maybeValue(), e = *end.maybeValue();
        if (b < 0) b += s;
        if (e < 0) e += s;
        if (b < 0)
            b = 0;
        else if (b >= s)
            b = s;
        if (e < b)
            e = b;
        else if (e >= s)
            e = s;
        start = b;
        end = e;
    } else {
        // Symbolic: PyTorch guards each clamp on the hints, so the result is either the
        // bound itself or the size, never a Min(). Without hints (unbacked symbols from
        // .item()) the bound is taken as in range, as the tracer assumes.
        auto hs = size.maybeValue();
        auto clamp = [&](SymInt v, bool isEnd) -> SymInt {
            if (v.isConcrete() && isEnd && *v.maybeValue() == kMaxI64) return size;
            if (v.isConcrete() && *v.maybeValue() < 0) v = add(size, v);
            auto hv = v.maybeValue();
            if (hv && *hv < 0) return 0;
            if (hv && hs && *hv >= *hs) return size;
            return v;
        };
        start = clamp(start, false);
        end = clamp(end, true);
        auto hb = start.maybeValue(), he = end.maybeValue();
        if (hb && he && *he < *hb) end = start;
    }
    Sizes strides = requireStrides(self);
    SymInt len = ceilDiv(sub(end, start), step);
    if (len.isConcrete() && *len.maybeValue() < 0) len = 0;
    SymInt offset = add(self.storageOffset, mul(start, strides[static_cast<size_t>(dim)]));
    Sizes ns = self.sizes, nt = strides;
    ns[static_cast<size_t>(dim)] = len;
    nt[static_cast<size_t>(dim)] = mul(strides[static_cast<size_t>(dim)], step);
    return viewOf(self, std::move(ns), std::move(nt), std::move(offset));
}

std::optional<SymInt> optSym(const MetaCall& c, const char* name)
{
    const Arg& a = c.arg(name);
    if (a.isNone()) return std::nullopt;
    return toSymInt(c, a, name);
}

ValueMeta splitWithSizes(const TensorMeta& self, int64_t dim, const Sizes& sizes)
{
    int64_t n = static_cast<int64_t>(self.sizes.size());
    dim = wrapDim(dim, n);
    std::vector<ValueMeta> parts;
    SymInt start = 0;
    SymInt total = 0;
    for (const auto& s : sizes) {
        if (s.isConcrete() && *s.maybeValue() < 0) throw MetaError("split_with_sizes: negative size");
        SymInt end = add(start, s);
        TensorMeta part = sliceImpl(self, dim, start, end, 1);
        part.sizes[static_cast<size_t>(dim)] = s;  // exact, also for symbolic sizes
        parts.push_back(tensorValue(std::move(part)));
        start = end;
        total = end;
    }
    if (!guardEq(total, self.sizes[static_cast<size_t>(dim)]))
        throw MetaError("split_with_sizes expects split_sizes to sum exactly to "
                        + self.sizes[static_cast<size_t>(dim)].str() + " (got " + total.str() + ")");
    return ValueMeta::ofTuple(std::move(parts));
}

ValueMeta splitImpl(const TensorMeta& self, int64_t dim, const SymInt& splitSize)
{
    int64_t n = static_cast<int64_t>(self.sizes.size());
    if (n == 0) throw MetaError("split expects at least a 1-dimensional tensor");
    dim = wrapDim(dim, n);
    const SymInt& dimSize = self.sizes[static_cast<size_t>(dim)];
    int64_t ds = hintOf(dimSize), ss = hintOf(splitSize, "split size");
    if (ss == 0 && ds != 0) throw MetaError("split_size can only be 0 if dimension size is 0");
    int64_t chunks = ss == 0 ? 1 : std::max<int64_t>((ds + ss - 1) / ss, 1);
    Sizes sizes;
    for (int64_t i = 0; i < chunks; ++i) {
        if (i + 1 < chunks)
            sizes.push_back(splitSize);
        else
            sizes.push_back(sub(dimSize, mul(splitSize, chunks - 1)));
    }
    return splitWithSizes(self, dim, sizes);
}

ValueMeta sameAlias(const MetaCall& c)
{
    const ValueMeta& v = c.tensorArg("self");
    if (!v.isTensor()) throw MetaError("argument 'self' has no tensor meta");
    return v;
}

}  // namespace

// exposed for the indexing / misc groups
TensorMeta sliceMeta(const TensorMeta& self, int64_t dim, std::optional<SymInt> start, std::optional<SymInt> end,
                     SymInt step)
{
    return sliceImpl(self, dim, std::move(start), std::move(end), std::move(step));
}
TensorMeta selectMeta(const TensorMeta& self, int64_t dim, SymInt index)
{
    return selectImpl(self, dim, std::move(index));
}

namespace {

// view, reshape, as_strided, permute, transpose, expand, squeeze, unsqueeze
void registerReshapes(MetaTable& t)
{
    t["aten.view.default"] = [](const MetaCall& c) { return viewImpl(c, "size", ViewMode::Strict); };
    t["aten._unsafe_view.default"] = [](const MetaCall& c) { return viewImpl(c, "size", ViewMode::UnsafeView); };
    t["aten.reshape.default"] = [](const MetaCall& c) { return viewImpl(c, "shape", ViewMode::Reshape); };
    t["aten._reshape_alias.default"] = [](const MetaCall& c) {
        const TensorMeta& self = selfOf(c);
        Sizes size = symListArg(c, "size"), stride = symListArg(c, "stride");
        if (size.size() != stride.size()) throw MetaError("_reshape_alias: size and stride differ in length");
        if (!guardEq(product(size), product(self.sizes)))
            throw MetaError("_reshape_alias: numel of size differs from the input's");
        return tensorValue(viewOf(self, std::move(size), std::move(stride), self.storageOffset));
    };
    t["aten.as_strided.default"] = [](const MetaCall& c) {
        const TensorMeta& self = selfOf(c);
        Sizes size = symListArg(c, "size"), stride = symListArg(c, "stride");
        if (size.size() != stride.size()) throw MetaError("as_strided: size and stride differ in length");
        const Arg& off = c.arg("storage_offset");
        SymInt o = off.isNone() ? self.storageOffset : toSymInt(c, off, "storage_offset");
        return tensorValue(viewOf(self, std::move(size), std::move(stride), std::move(o)));
    };
    t["aten.permute.default"] = [](const MetaCall& c) { return permuteImpl(selfOf(c), intListArg(c, "dims")); };
    t["aten.t.default"] = [](const MetaCall& c) {
        const TensorMeta& self = selfOf(c);
        if (self.sizes.size() > 2)
            throw MetaError("t() expects a tensor with <= 2 dimensions, but self is "
                            + std::to_string(self.sizes.size()) + "D");
        if (self.sizes.size() < 2) return tensorValue(self);
        return transposeImpl(self, 0, 1);
    };
    t["aten.transpose.int"] = [](const MetaCall& c) {
        return transposeImpl(selfOf(c), intArg(c, "dim0"), intArg(c, "dim1"));
    };
    t["aten.expand.default"] = [](const MetaCall& c) { return expandImpl(selfOf(c), symListArg(c, "size")); };
    t["aten.expand_as.default"] = [](const MetaCall& c) { return expandImpl(selfOf(c), tensorOf(c, "other").sizes); };
    t["aten.unsqueeze.default"] = [](const MetaCall& c) { return unsqueezeImpl(selfOf(c), intArg(c, "dim")); };
    t["aten.squeeze.dim"] = [](const MetaCall& c) { return squeezeDims(selfOf(c), {intArg(c, "dim")}, false); };
    t["aten.squeeze.dims"] = [](const MetaCall& c) { return squeezeDims(selfOf(c), intListArg(c, "dim"), false); };
    t["aten.squeeze.default"] = [](const MetaCall& c) { return squeezeDims(selfOf(c), {}, true); };
}

// select, slice, narrow, diagonal, unfold
void registerSlicing(MetaTable& t)
{
    t["aten.select.int"] = [](const MetaCall& c) {
        return tensorValue(selectImpl(selfOf(c), intArg(c, "dim"), symArg(c, "index")));
    };
    t["aten.slice.Tensor"] = [](const MetaCall& c) {
        return tensorValue(
            sliceImpl(selfOf(c), intArg(c, "dim"), optSym(c, "start"), optSym(c, "end"), symArg(c, "step")));
    };
    t["aten.narrow.default"] = [](const MetaCall& c) {
        SymInt start = symArg(c, "start");
        const TensorMeta& self = selfOf(c);
        int64_t dim = wrapDim(intArg(c, "dim"), static_cast<int64_t>(self.sizes.size()));
        if (start.isConcrete() && *start.maybeValue() < 0) start = add(self.sizes[static_cast<size_t>(dim)], start);
        SymInt len = symArg(c, "length");
        TensorMeta r = sliceImpl(self, dim, start, add(start, len), 1);
        r.sizes[static_cast<size_t>(dim)] = len;
        return tensorValue(std::move(r));
    };
    t["aten.diagonal.default"] = [](const MetaCall& c) {
        const TensorMeta& self = selfOf(c);
        int64_t n = static_cast<int64_t>(self.sizes.size());
        int64_t off = intArg(c, "offset");
        int64_t d1 = wrapDim(intArg(c, "dim1"), n), d2 = wrapDim(intArg(c, "dim2"), n);
        if (d1 == d2) throw MetaError("diagonal dimensions cannot be identical");
        Sizes strides = requireStrides(self);
        SymInt s1 = self.sizes[static_cast<size_t>(d1)], s2 = self.sizes[static_cast<size_t>(d2)];
        SymInt len, offset = self.storageOffset;
        if (off >= 0) {
            len = maxS(minS(s1, sub(s2, off)), 0);
            offset = add(offset, mul(off, strides[static_cast<size_t>(d2)]));
        } else {
            len = maxS(minS(add(s1, off), s2), 0);
            offset = add(offset, mul(-off, strides[static_cast<size_t>(d1)]));
        }
        Sizes ns, nt;
        for (int64_t i = 0; i < n; ++i) {
            if (i == d1 || i == d2) continue;
            ns.push_back(self.sizes[static_cast<size_t>(i)]);
            nt.push_back(strides[static_cast<size_t>(i)]);
        }
        ns.push_back(len);
        nt.push_back(add(strides[static_cast<size_t>(d1)], strides[static_cast<size_t>(d2)]));
        return tensorValue(viewOf(self, std::move(ns), std::move(nt), std::move(offset)));
    };
    t["aten.unfold.default"] = [](const MetaCall& c) {
        const TensorMeta& self = selfOf(c);
        int64_t n = static_cast<int64_t>(self.sizes.size());
        int64_t d = wrapDim(intArg(c, "dimension"), n);
        SymInt size = intArg(c, "size"), step = intArg(c, "step");
        Sizes strides = requireStrides(self);
        Sizes ns = self.sizes, nt = strides;
        if (n > 0) {
            ns[static_cast<size_t>(d)] = add(floorDiv(sub(self.sizes[static_cast<size_t>(d)], size), step), 1);
            nt[static_cast<size_t>(d)] = mul(strides[static_cast<size_t>(d)], step);
        }
        ns.push_back(size);
        nt.push_back(n > 0 ? strides[static_cast<size_t>(d)] : SymInt(1));
        return tensorValue(viewOf(self, std::move(ns), std::move(nt), self.storageOffset));
    };
}

// aliases, view.dtype, view_as_real, view_as_complex
void registerAliasesAndDtypeViews(MetaTable& t)
{
    for (const char* n : {"aten.alias.default", "aten.detach.default", "aten.lift_fresh.default",
                          "aten.detach_.default", "aten.view_as.default"})
        t[n] = sameAlias;
    t["aten.view.dtype"] = [](const MetaCall& c) {
        const TensorMeta& self = selfOf(c);
        auto dt = toOptDType(c.arg("dtype"));
        if (!dt) throw MetaError("view.dtype: no dtype");
        int oldSize = dtypeItemSize(self.dtype), newSize = dtypeItemSize(*dt);
        TensorMeta r = self;
        r.dtype = *dt;
        if (oldSize == newSize) return tensorValue(std::move(r));
        if (self.sizes.empty()) throw MetaError("view.dtype: a 0-dim tensor cannot change element size");
        r.strides = requireStrides(self);
        size_t last = r.sizes.size() - 1;
        if (!guardEq(r.strides[last], 1)) throw MetaError("view.dtype: last dimension must be contiguous");
        if (newSize > oldSize) {
            int ratio = newSize / oldSize;
            r.sizes[last] = exactDiv(r.sizes[last], ratio);
            for (size_t i = 0; i < last; ++i) r.strides[i] = exactDiv(r.strides[i], ratio);
            r.storageOffset = exactDiv(r.storageOffset, ratio);
        } else {
            int ratio = oldSize / newSize;
            r.sizes[last] = mul(r.sizes[last], ratio);
            for (size_t i = 0; i < last; ++i) r.strides[i] = mul(r.strides[i], ratio);
            r.storageOffset = mul(r.storageOffset, ratio);
        }
        return tensorValue(std::move(r));
    };
    t["aten.view_as_real.default"] = [](const MetaCall& c) {
        const TensorMeta& self = selfOf(c);
        if (!isComplex(self.dtype)) throw MetaError("view_as_real is only supported for complex tensors");
        TensorMeta r = self;
        r.dtype = self.dtype == DType::C128 ? DType::F64 : self.dtype == DType::C32 ? DType::F16 : DType::F32;
        r.strides = requireStrides(self);
        for (auto& s : r.strides) s = mul(s, 2);
        r.sizes.push_back(2);
        r.strides.push_back(1);
        r.storageOffset = mul(self.storageOffset, 2);
        return tensorValue(std::move(r));
    };
    t["aten.view_as_complex.default"] = [](const MetaCall& c) {
        const TensorMeta& self = selfOf(c);
        if (self.sizes.empty() || !guardEq(self.sizes.back(), 2))
            throw MetaError("view_as_complex: tensor must have a last dimension of size 2");
        TensorMeta r = self;
        r.dtype = self.dtype == DType::F64 ? DType::C128 : self.dtype == DType::F16 ? DType::C32 : DType::C64;
        r.strides = requireStrides(self);
        if (!guardEq(r.strides.back(), 1)) throw MetaError("view_as_complex: last dimension must have stride 1");
        r.sizes.pop_back();
        r.strides.pop_back();
        for (auto& s : r.strides) s = exactDiv(s, 2);
        r.storageOffset = exactDiv(self.storageOffset, 2);
        return tensorValue(std::move(r));
    };
}

// split, chunk, unbind, contiguous
void registerSplits(MetaTable& t)
{
    t["aten.split.Tensor"] = [](const MetaCall& c) {
        return splitImpl(selfOf(c), intArg(c, "dim"), symArg(c, "split_size"));
    };
    t["aten.split_with_sizes.default"] = [](const MetaCall& c) {
        return splitWithSizes(selfOf(c), intArg(c, "dim"), symListArg(c, "split_sizes"));
    };
    t["aten.chunk.default"] = [](const MetaCall& c) {
        const TensorMeta& self = selfOf(c);
        int64_t chunks = intArg(c, "chunks");
        if (chunks <= 0) throw MetaError("chunk expects `chunks` to be greater than 0");
        int64_t dim = wrapDim(intArg(c, "dim"), static_cast<int64_t>(self.sizes.size()));
        SymInt splitSize = ceilDiv(self.sizes[static_cast<size_t>(dim)], chunks);
        if (guardEq(splitSize, 0) && !guardEq(self.sizes[static_cast<size_t>(dim)], 0)) splitSize = 1;
        return splitImpl(self, dim, splitSize);
    };
    // the unsafe_ variants: the same pieces, each a new contiguous tensor (no alias)
    for (const char* v : {"aten.split.Tensor", "aten.split_with_sizes.default", "aten.chunk.default"}) {
        std::string name(v);
        const std::string unsafe = "aten.unsafe_" + name.substr(5);
        t[unsafe] = [fn = t[name]](const MetaCall& c) {
            ValueMeta m = fn(c);
            for (auto& e : m.elems)
                if (e.isTensor()) e.tensor = makeContiguous(e.tensor.dtype, e.tensor.sizes, e.tensor.device);
            return m;
        };
    }
    t["aten.unbind.int"] = [](const MetaCall& c) {
        const TensorMeta& self = selfOf(c);
        int64_t n = static_cast<int64_t>(self.sizes.size());
        int64_t dim = wrapDim(intArg(c, "dim"), n);
        int64_t count = hintOf(self.sizes[static_cast<size_t>(dim)]);
        std::vector<ValueMeta> parts;
        for (int64_t i = 0; i < count; ++i) parts.push_back(tensorValue(selectImpl(self, dim, i)));
        return ValueMeta::ofTuple(std::move(parts));
    };
    t["aten.contiguous.default"] = [](const MetaCall& c) {
        const ValueMeta& v = c.tensorArg("self");
        if (!v.isTensor()) throw MetaError("argument 'self' has no tensor meta");
        std::string fmt = memoryFormatOf(c.arg("memory_format"));
        bool already = fmt == "channels_last" ? isChannelsLastContiguous(v.tensor) : isContiguous(v.tensor);
        if (already) return v;
        return tensorValue(
            makeTensor(v.tensor.dtype, v.tensor.sizes, stridesFor(v.tensor.sizes, fmt), v.tensor.device));
    };
}

}  // namespace

void registerViews(MetaTable& t)
{
    registerReshapes(t);
    registerSlicing(t);
    registerAliasesAndDtypeViews(t);
    registerSplits(t);
}

}  // namespace fxl::meta

// The shape family's views (view, reshape, permute, expand, slice, select, split, ...): each
// returns Tensor::asStrided of its input's storage with PyTorch's sizes, strides and storage
// offset (aten/src/ATen/native/TensorShape.cpp, c10/core/... inferExpandGeometry,
// at::detail::computeStride). reshape copies only when no view is possible, as PyTorch does.
// Also the family's shared helpers (cpu_shape.hpp) and its registration.
#include "runtime/cpu/cpu_shape.hpp"
#include "runtime/cpu/cpu_index.hpp"
#include "runtime/cpu/cpu_shape_copy.hpp"
#include "runtime/cpu/cpu_sort.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>

#include "runtime/cpu/cpu_elementwise.hpp"

namespace fxl::cpu::shape {

// ---------------------------------------------------------------- helpers

int64_t intArg(const KernelCall& call, const char* name)
{
    const Value& v = optArg(call, name);
    if (v.kind != Value::Kind::Int && v.kind != Value::Kind::Bool)
        throw KernelError(std::string("argument '") + name + "' must be an integer");
    return v.toInt();
}

std::optional<int64_t> optIntArg(const KernelCall& call, const char* name)
{
    const Value& v = optArg(call, name);
    if (v.isNone()) return std::nullopt;
    return intArg(call, name);
}

bool boolArg(const KernelCall& call, const char* name, bool dflt)
{
    const Value& v = optArg(call, name);
    if (v.isNone()) return dflt;
    if (v.kind == Value::Kind::Bool) return v.b;
    if (v.kind == Value::Kind::Int) return v.i != 0;
    throw KernelError(std::string("argument '") + name + "' must be a bool");
}

std::vector<int64_t> intListArg(const KernelCall& call, const char* name)
{
    const Value& v = optArg(call, name);
    try {
        return v.toIntList();
    } catch (const std::invalid_argument&) {
        throw KernelError(std::string("argument '") + name + "' must be a list of integers");
    }
}

std::vector<Tensor> tensorListArg(const KernelCall& call, const char* name)
{
    const Value& v = optArg(call, name);
    if (v.isTensor()) return {v.tensor};
    if (v.kind != Value::Kind::List)
        throw KernelError(std::string("argument '") + name + "' must be a list of tensors");
    std::vector<Tensor> out;
    for (const Value& x : v.items) {
        if (!x.isTensor()) throw KernelError(std::string("argument '") + name + "' must be a list of tensors");
        out.push_back(x.tensor);
    }
    return out;
}

std::vector<Tensor> optTensorListArg(const KernelCall& call, const char* name)
{
    const Value& v = optArg(call, name);
    if (v.isTensor()) return {v.tensor};
    if (v.kind != Value::Kind::List)
        throw KernelError(std::string("argument '") + name + "' must be a list of tensors");
    std::vector<Tensor> out;
    for (const Value& x : v.items) {
        if (x.isNone())
            out.emplace_back();
        else if (x.isTensor())
            out.push_back(x.tensor);
        else
            throw KernelError(std::string("argument '") + name + "' must be a list of tensors or None");
    }
    return out;
}

std::string shapeStr(const std::vector<int64_t>& v)
{
    std::string s = "[";
    for (size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + std::to_string(v[k]);
    return s + "]";
}

int64_t numelOf(const std::vector<int64_t>& sizes)
{
    int64_t n = 1;
    for (int64_t s : sizes) n *= s;
    return n;
}

int64_t wrapDim(int64_t d, int64_t ndim)
{
    const int64_t n = ndim <= 0 ? 1 : ndim;
    if (d < -n || d >= n)
        throw KernelError("Dimension out of range (expected to be in range of [" + std::to_string(-n) + ", "
                          + std::to_string(n - 1) + "], but got " + std::to_string(d) + ")");
    return d < 0 ? d + n : d;
}

std::vector<int64_t> inferSize(const std::vector<int64_t>& shape, int64_t numel)
{
    std::vector<int64_t> out = shape;
    int64_t newSize = 1;
    std::optional<size_t> infer;
    for (size_t k = 0; k < out.size(); ++k) {
        if (out[k] == -1) {
            if (infer) throw KernelError("only one dimension can be inferred");
            infer = k;
        } else if (out[k] >= 0) {
            newSize *= out[k];
        } else {
            throw KernelError("invalid shape dimension " + std::to_string(out[k]));
        }
    }
    if (numel == newSize || (infer && newSize > 0 && numel % newSize == 0)) {
        if (infer) {
            // a 0-element tensor cannot infer its -1 (it could be anything)
            if (newSize == 0)
                throw KernelError("cannot reshape tensor of 0 elements into shape " + shapeStr(shape)
                                  + " because the unspecified dimension size -1 can be any value and is ambiguous");
            out[*infer] = numel / newSize;
        }
        return out;
    }
    throw KernelError("shape '" + shapeStr(shape) + "' is invalid for input of size " + std::to_string(numel));
}

std::optional<std::vector<int64_t>> computeStride(const std::vector<int64_t>& oldshape,
                                                  const std::vector<int64_t>& oldstride,
                                                  const std::vector<int64_t>& newshape)
{
    if (oldshape.empty()) return std::vector<int64_t>(newshape.size(), 1);
    const int64_t numel = numelOf(oldshape);
    if (numel == 0 && oldshape == newshape) return oldstride;
    std::vector<int64_t> newstride(newshape.size());
    if (numel == 0) {
        for (int64_t d = static_cast<int64_t>(newshape.size()) - 1; d >= 0; --d) {
            const size_t u = static_cast<size_t>(d);
            if (u == newshape.size() - 1)
                newstride[u] = 1;
            else
                newstride[u] = std::max<int64_t>(newshape[u + 1], 1) * newstride[u + 1];
        }
        return newstride;
    }
    int64_t viewD = static_cast<int64_t>(newshape.size()) - 1;
    int64_t chunkBaseStride = oldstride.back();
    int64_t tensorNumel = 1, viewNumel = 1;
    for (int64_t td = static_cast<int64_t>(oldshape.size()) - 1; td >= 0; --td) {
        tensorNumel *= oldshape[static_cast<size_t>(td)];
        // a chunk ends where the next-outer dim is not contiguous with this one
        if (td == 0
            || (oldshape[static_cast<size_t>(td - 1)] != 1
                && oldstride[static_cast<size_t>(td - 1)] != tensorNumel * chunkBaseStride)) {
            while (viewD >= 0 && (viewNumel < tensorNumel || newshape[static_cast<size_t>(viewD)] == 1)) {
                newstride[static_cast<size_t>(viewD)] = viewNumel * chunkBaseStride;
                viewNumel *= newshape[static_cast<size_t>(viewD)];
                --viewD;
            }
            if (viewNumel != tensorNumel) return std::nullopt;
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

namespace {
// asStrided with the storage check reported as a KernelError.
Tensor strided(const Tensor& t, std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset)
{
    try {
        return t.asStrided(std::move(sizes), std::move(strides), offset);
    } catch (const std::out_of_range& e) {
        throw KernelError(e.what());
    }
}
}  // namespace

Tensor viewAs(const Tensor& t, const std::vector<int64_t>& newSizes)
{
    const std::vector<int64_t> shape = inferSize(newSizes, t.numel());
    auto st = computeStride(t.sizes(), t.strides(), shape);
    if (!st)
        throw KernelError("view size is not compatible with input tensor's size and stride (at least one dimension "
                          "spans across two contiguous subspaces). Use .reshape(...) instead.");
    return strided(t, shape, *st, t.offset());
}

Tensor sliceView(const Tensor& t, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step)
{
    if (t.dim() == 0) throw KernelError("slice() cannot be applied to a 0-dim tensor.");
    const size_t d = static_cast<size_t>(wrapDim(dim, t.dim()));
    if (step <= 0) throw KernelError("slice step must be positive");
    std::vector<int64_t> sizes = t.sizes(), strides = t.strides();
    const int64_t n = sizes[d];
    int64_t s = start.value_or(0), e = end.value_or(INT64_MAX);
    if (s < 0) s += n;
    if (e < 0) e += n;
    if (s < 0)
        s = 0;
    else if (s >= n)
        s = n;
    if (e < s)
        e = s;
    else if (e >= n)
        e = n;
    const int64_t offset = t.offset() + s * strides[d];
    sizes[d] = (e - s + step - 1) / step;
    strides[d] *= step;
    return strided(t, sizes, strides, offset);
}

Tensor selectView(const Tensor& t, int64_t dim, int64_t index)
{
    if (t.dim() == 0) throw KernelError("select() cannot be applied to a 0-dim tensor.");
    const size_t d = static_cast<size_t>(wrapDim(dim, t.dim()));
    const int64_t n = t.sizes()[d];
    if (index < -n || index >= n)
        throw KernelError("select(): index " + std::to_string(index) + " out of range for tensor of size "
                          + shapeStr(t.sizes()) + " at dimension " + std::to_string(d));
    if (index < 0) index += n;
    std::vector<int64_t> sizes = t.sizes(), strides = t.strides();
    const int64_t offset = t.offset() + index * strides[d];
    sizes.erase(sizes.begin() + static_cast<std::ptrdiff_t>(d));
    strides.erase(strides.begin() + static_cast<std::ptrdiff_t>(d));
    return strided(t, sizes, strides, offset);
}

Tensor unsqueezeView(const Tensor& t, int64_t dim)
{
    const size_t d = static_cast<size_t>(wrapDim(dim, t.dim() + 1));
    std::vector<int64_t> sizes = t.sizes(), strides = t.strides();
    const int64_t st = d >= sizes.size() ? 1 : sizes[d] * strides[d];
    sizes.insert(sizes.begin() + static_cast<std::ptrdiff_t>(d), 1);
    strides.insert(strides.begin() + static_cast<std::ptrdiff_t>(d), st);
    return strided(t, sizes, strides, t.offset());
}

void copyInto(const KernelCall& call, const Tensor& dst, const Tensor& src)
{
    if (dst.sizes() != src.sizes())
        throw KernelError("copy: sizes " + shapeStr(src.sizes()) + " and " + shapeStr(dst.sizes()) + " differ");
    if (dst.numel() == 0) return;
    ew::castInto(call, dst, src);
}

Tensor zeros(const KernelCall& call, const std::vector<int64_t>& sizes, DType t)
{
    Tensor out = call.newTensor(sizes, t);
    ew::fillWith(call, out, Value::ofInt(0));
    return out;
}

Tensor clonePreserve(const KernelCall& call, const Tensor& t)
{
    Tensor out = ew::allocStrided(call, t.sizes(), ew::preserveStrides(t), t.dtype());
    copyInto(call, out, t);
    return out;
}

bool isIndexDType(DType t) { return t == DType::I64 || t == DType::I32; }

std::vector<int64_t> indexValues(const Tensor& idx, const char* op)
{
    if (!isIntegral(idx.dtype(), false) || idx.dtype() == DType::U16 || idx.dtype() == DType::U32
        || idx.dtype() == DType::U64)
        throw KernelError(std::string(op) + ": index tensors must be integer tensors, got "
                          + std::string(dtypeAbbr(idx.dtype())));
    std::vector<int64_t> out(static_cast<size_t>(idx.numel()));
    const std::vector<unsigned char> bytes = ew::hostBytes(idx);  // row-major, in host memory
    const int64_t is = idx.itemSize();
    for (int64_t flat = 0; flat < idx.numel(); ++flat) {
        const unsigned char* p = bytes.data() + flat * is;
        int64_t v = 0;
        switch (idx.dtype()) {
        case DType::I64: std::memcpy(&v, p, 8); break;
        case DType::I32: {
            int32_t x;
            std::memcpy(&x, p, 4);
            v = x;
            break;
        }
        case DType::I16: {
            int16_t x;
            std::memcpy(&x, p, 2);
            v = x;
            break;
        }
        case DType::I8: {
            int8_t x;
            std::memcpy(&x, p, 1);
            v = x;
            break;
        }
        default: {
            uint8_t x;
            std::memcpy(&x, p, 1);
            v = x;
            break;
        }
        }
        out[static_cast<size_t>(flat)] = v;
    }
    return out;
}

// ---------------------------------------------------------------- view kernels

namespace {

void setView(KernelCall& call, const Tensor& t) { call.result = Value::ofTensor(t); }

void viewKernel(KernelCall& call) { setView(call, viewAs(call.tensor("self"), intListArg(call, "size"))); }

// view.dtype: a bitcast; a different item size rescales the last dim (which must have stride 1).
void viewDtypeKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    const Value& dv = optArg(call, "dtype");
    const std::optional<DType> dt = ew::optDType(call, "dtype");
    if (!dt || dv.isNone()) throw KernelError("view.dtype needs a dtype");
    if (!runtimeSupportsDType(*dt))
        throw KernelError("view.dtype: dtype " + std::string(dtypeAbbr(*dt)) + " is not supported");
    const int64_t oldSize = self.itemSize(), newSize = dtypeItemSize(*dt);
    if (oldSize == newSize) {
        setView(call, self.reinterpret(*dt));
        return;
    }
    if (self.dim() == 0)
        throw KernelError("self.dim() cannot be 0 to view " + std::string(dtypeAbbr(self.dtype())) + " as "
                          + std::string(dtypeAbbr(*dt)) + " (different element sizes)");
    if (self.strides().back() != 1)
        throw KernelError("self.stride(-1) must be 1 to view with a different element size");
    std::vector<int64_t> sizes = self.sizes(), strides = self.strides();
    int64_t offset = self.offset();
    if (newSize > oldSize) {
        const int64_t r = newSize / oldSize;
        if (sizes.back() % r != 0)
            throw KernelError("self.size(-1) must be divisible by " + std::to_string(r)
                              + " to view with a larger element size");
        if (offset % r != 0)
            throw KernelError("self.storage_offset() must be divisible by " + std::to_string(r)
                              + " to view with a larger element size");
        for (size_t k = 0; k + 1 < strides.size(); ++k) {
            if (strides[k] % r != 0)
                throw KernelError("self.stride(" + std::to_string(k) + ") must be divisible by " + std::to_string(r));
            strides[k] /= r;
        }
        sizes.back() /= r;
        offset /= r;
    } else {
        const int64_t r = oldSize / newSize;
        for (size_t k = 0; k + 1 < strides.size(); ++k) strides[k] *= r;
        sizes.back() *= r;
        offset *= r;
    }
    try {
        setView(call,
                Tensor::fromStorage(self.storage(), *dt, sizes, strides, offset).asStrided(sizes, strides, offset));
    } catch (const std::out_of_range& e) {
        throw KernelError(e.what());
    }
}

// reshape: the view when computeStride finds one, else a contiguous copy (PyTorch's rule).
void reshapeKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    const std::vector<int64_t> shape = inferSize(intListArg(call, "shape"), self.numel());
    if (auto st = computeStride(self.sizes(), self.strides(), shape)) {
        setView(call, strided(self, shape, *st, self.offset()));
        return;
    }
    Tensor out = call.newTensor(self.sizes(), self.dtype());
    copyInto(call, out, self);
    setView(call, strided(out, shape, Tensor::contiguousStrides(shape), 0));
}

void reshapeAliasKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    const std::vector<int64_t> sizes = intListArg(call, "size"), strides = intListArg(call, "stride");
    if (sizes.size() != strides.size()) throw KernelError("_reshape_alias: size and stride differ in length");
    setView(call, strided(self, sizes, strides, self.offset()));
}

void asStridedKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    const std::vector<int64_t> sizes = intListArg(call, "size"), strides = intListArg(call, "stride");
    if (sizes.size() != strides.size()) throw KernelError("as_strided: mismatch in length of strides and shape");
    for (int64_t s : strides)
        if (s < 0) throw KernelError("as_strided: Negative strides are not supported at the moment");
    setView(call, strided(self, sizes, strides, optIntArg(call, "storage_offset").value_or(self.offset())));
}

void permuteKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    const std::vector<int64_t> dims = intListArg(call, "dims");
    const int64_t nd = self.dim();
    if (static_cast<int64_t>(dims.size()) != nd)
        throw KernelError("permute(sparse_coo): number of dimensions in the tensor input does not match the length of "
                          "the desired ordering of dimensions i.e. input.dim() = "
                          + std::to_string(nd) + " is not equal to len(dims) = " + std::to_string(dims.size()));
    std::vector<int64_t> sizes(dims.size()), strides(dims.size());
    std::vector<bool> seen(dims.size(), false);
    for (size_t i = 0; i < dims.size(); ++i) {
        const size_t d = static_cast<size_t>(wrapDim(dims[i], nd));
        if (seen[d]) throw KernelError("permute(): duplicate dims are not allowed.");
        seen[d] = true;
        sizes[i] = self.sizes()[d];
        strides[i] = self.strides()[d];
    }
    setView(call, strided(self, sizes, strides, self.offset()));
}

Tensor transposed(const Tensor& self, int64_t d0, int64_t d1)
{
    const int64_t nd = self.dim();
    const size_t a = static_cast<size_t>(wrapDim(d0, nd)), b = static_cast<size_t>(wrapDim(d1, nd));
    if (nd == 0 || a == b) return self;
    std::vector<int64_t> sizes = self.sizes(), strides = self.strides();
    std::swap(sizes[a], sizes[b]);
    std::swap(strides[a], strides[b]);
    return strided(self, sizes, strides, self.offset());
}

void transposeKernel(KernelCall& call)
{
    setView(call, transposed(call.tensor("self"), intArg(call, "dim0"), intArg(call, "dim1")));
}

void tKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    if (self.dim() > 2)
        throw KernelError("t() expects a tensor with <= 2 dimensions, but self is " + std::to_string(self.dim()) + "D");
    setView(call, self.dim() < 2 ? self : transposed(self, 0, 1));
}

// inferExpandGeometry: -1 keeps a dim; new leading dims and expanded size-1 dims get stride 0
// (a new leading dim of size 1 gets the stride a contiguous dim there would have).
void expandKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    const std::vector<int64_t> sizes = intListArg(call, "size");
    const int64_t nd = static_cast<int64_t>(sizes.size()), td = self.dim();
    if (nd < td)
        throw KernelError("expand(" + std::string(dtypeAbbr(self.dtype())) + shapeStr(self.sizes())
                          + ", size=" + shapeStr(sizes) + "): the number of sizes provided (" + std::to_string(nd)
                          + ") must be greater or equal to the number of dimensions in the tensor ("
                          + std::to_string(td) + ")");
    std::vector<int64_t> outSizes(static_cast<size_t>(nd)), outStrides(static_cast<size_t>(nd));
    for (int64_t i = nd - 1; i >= 0; --i) {
        const int64_t off = nd - 1 - i, dim = td - 1 - off;
        const size_t u = static_cast<size_t>(i);
        int64_t size = dim >= 0 ? self.sizes()[static_cast<size_t>(dim)] : 1;
        int64_t stride = dim >= 0 ? self.strides()[static_cast<size_t>(dim)]
                                  : (i + 1 < nd ? outSizes[u + 1] * outStrides[u + 1] : 1);
        int64_t target = sizes[u];
        if (target == -1) {
            if (dim < 0)
                throw KernelError(
                    "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension "
                    + std::to_string(i));
            target = size;
        }
        if (size != target) {
            if (size != 1)
                throw KernelError("The expanded size of the tensor (" + std::to_string(target)
                                  + ") must match the existing size (" + std::to_string(size)
                                  + ") at non-singleton dimension " + std::to_string(i) + ".  Target sizes: "
                                  + shapeStr(sizes) + ".  Tensor sizes: " + shapeStr(self.sizes()));
            if (target < 0) throw KernelError("expand: negative size " + std::to_string(target));
            size = target;
            stride = 0;
        }
        outSizes[u] = size;
        outStrides[u] = stride;
    }
    setView(call, strided(self, outSizes, outStrides, self.offset()));
}

void unsqueezeKernel(KernelCall& call) { setView(call, unsqueezeView(call.tensor("self"), intArg(call, "dim"))); }

Tensor squeezeDims(const Tensor& self, const std::vector<bool>& drop)
{
    std::vector<int64_t> sizes, strides;
    for (size_t k = 0; k < self.sizes().size(); ++k) {
        if (drop[k] && self.sizes()[k] == 1) continue;
        sizes.push_back(self.sizes()[k]);
        strides.push_back(self.strides()[k]);
    }
    return strided(self, sizes, strides, self.offset());
}

void squeezeDimKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    const int64_t d = wrapDim(intArg(call, "dim"), self.dim());
    std::vector<bool> drop(self.sizes().size(), false);
    if (self.dim() > 0) drop[static_cast<size_t>(d)] = true;
    setView(call, squeezeDims(self, drop));
}

void squeezeDimsKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    std::vector<bool> drop(self.sizes().size(), false);
    for (int64_t d : intListArg(call, "dim")) {
        const int64_t w = wrapDim(d, self.dim());
        if (self.dim() > 0) drop[static_cast<size_t>(w)] = true;
    }
    setView(call, squeezeDims(self, drop));
}

void squeezeKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    setView(call, squeezeDims(self, std::vector<bool>(self.sizes().size(), true)));
}

void selectKernel(KernelCall& call)
{
    setView(call, selectView(call.tensor("self"), intArg(call, "dim"), intArg(call, "index")));
}

void sliceKernel(KernelCall& call)
{
    setView(call,
            sliceView(call.tensor("self"), intArg(call, "dim"), optIntArg(call, "start"), optIntArg(call, "end"),
                      intArg(call, "step")));
}

void diagonalKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    const int64_t off = intArg(call, "offset");
    const int64_t nd = self.dim();
    if (nd < 2) throw KernelError("diagonal: the tensor must have at least 2 dimensions");
    const size_t d1 = static_cast<size_t>(wrapDim(intArg(call, "dim1"), nd));
    const size_t d2 = static_cast<size_t>(wrapDim(intArg(call, "dim2"), nd));
    if (d1 == d2)
        throw KernelError("diagonal dimensions cannot be identical " + std::to_string(d1) + ", " + std::to_string(d2));
    const auto& sz = self.sizes();
    const auto& st = self.strides();
    int64_t diag = off >= 0 ? std::max<int64_t>(std::min(sz[d1], sz[d2] - off), 0)
                            : std::max<int64_t>(std::min(sz[d1] + off, sz[d2]), 0);
    int64_t offset = self.offset();
    if (diag > 0) offset += off >= 0 ? off * st[d2] : -off * st[d1];
    std::vector<int64_t> sizes, strides;
    for (size_t k = 0; k < sz.size(); ++k) {
        if (k == d1 || k == d2) continue;
        sizes.push_back(sz[k]);
        strides.push_back(st[k]);
    }
    sizes.push_back(diag);
    strides.push_back(st[d1] + st[d2]);
    setView(call, strided(self, sizes, strides, offset));
}

void unfoldKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    const int64_t nd = self.dim();
    const int64_t d = wrapDim(intArg(call, "dimension"), nd);
    const int64_t size = intArg(call, "size"), step = intArg(call, "step");
    const int64_t maxSize = nd == 0 ? 1 : self.sizes()[static_cast<size_t>(d)];
    if (size > maxSize)
        throw KernelError("maximum size for tensor at dimension " + std::to_string(d) + " is " + std::to_string(maxSize)
                          + " but size is " + std::to_string(size));
    if (size < 0) throw KernelError("size is " + std::to_string(size) + " but must be >= 0");
    if (step <= 0) throw KernelError("step is " + std::to_string(step) + " but must be > 0");
    std::vector<int64_t> sizes(static_cast<size_t>(nd + 1)), strides(static_cast<size_t>(nd + 1));
    sizes.back() = size;
    strides.back() = nd == 0 ? 1 : self.strides()[static_cast<size_t>(d)];
    for (int64_t k = 0; k < nd; ++k) {
        const size_t u = static_cast<size_t>(k);
        if (k == d) {
            sizes[u] = (self.sizes()[u] - size) / step + 1;
            strides[u] = step * self.strides()[u];
        } else {
            sizes[u] = self.sizes()[u];
            strides[u] = self.strides()[u];
        }
    }
    setView(call, strided(self, sizes, strides, self.offset()));
}

void aliasKernel(KernelCall& call) { setView(call, call.tensor("self")); }

// ---- lists of views

Value viewList(const std::vector<Tensor>& parts)
{
    std::vector<Value> items;
    items.reserve(parts.size());
    for (const Tensor& t : parts) items.push_back(Value::ofTensor(t));
    return Value::ofList(std::move(items));
}

std::vector<Tensor> splitBySize(const Tensor& self, int64_t splitSize, int64_t dim)
{
    if (self.dim() == 0) throw KernelError("split expects at least a 1-dimensional tensor");
    if (splitSize < 0)
        throw KernelError("split expects split_size be non-negative, but got split_size=" + std::to_string(splitSize));
    const int64_t d = wrapDim(dim, self.dim());
    const int64_t n = self.sizes()[static_cast<size_t>(d)];
    if (splitSize == 0 && n != 0)
        throw KernelError("split_size can only be 0 if dimension size is 0, but got dimension size of "
                          + std::to_string(n));
    int64_t parts = 1;
    if (splitSize != 0) parts = std::max<int64_t>((n + splitSize - 1) / splitSize, 1);
    const int64_t last = splitSize - (splitSize * parts - n);
    std::vector<Tensor> out;
    for (int64_t i = 0; i < parts; ++i) {
        const int64_t len = i < parts - 1 ? splitSize : last;
        out.push_back(sliceView(self, d, i * splitSize, i * splitSize + len, 1));
    }
    return out;
}

std::vector<Tensor> splitBySizes(const Tensor& self, const std::vector<int64_t>& sizes, int64_t dim)
{
    if (self.dim() == 0) throw KernelError("split expects at least a 1-dimensional tensor");
    const int64_t d = wrapDim(dim, self.dim());
    const int64_t n = self.sizes()[static_cast<size_t>(d)];
    std::vector<Tensor> out;
    int64_t start = 0;
    for (int64_t s : sizes) {
        if (s < 0)
            throw KernelError(
                "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes="
                + shapeStr(sizes));
        start += s;
    }
    if (start != n)
        throw KernelError("split_with_sizes expects split_sizes to sum exactly to " + std::to_string(n)
                          + " (input tensor's size at dimension " + std::to_string(d)
                          + "), but got split_sizes=" + shapeStr(sizes));
    start = 0;
    for (int64_t s : sizes) {
        out.push_back(sliceView(self, d, start, start + s, 1));
        start += s;
    }
    return out;
}

void splitKernel(KernelCall& call)
{
    call.result = viewList(splitBySize(call.tensor("self"), intArg(call, "split_size"), intArg(call, "dim")));
}

void splitWithSizesKernel(KernelCall& call)
{
    call.result = viewList(splitBySizes(call.tensor("self"), intListArg(call, "split_sizes"), intArg(call, "dim")));
}

void unbindKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    if (self.dim() == 0) throw KernelError("Dimension specified as 0 but tensor has no dimensions");
    const int64_t d = wrapDim(intArg(call, "dim"), self.dim());
    std::vector<Tensor> out;
    for (int64_t i = 0; i < self.sizes()[static_cast<size_t>(d)]; ++i) out.push_back(selectView(self, d, i));
    call.result = viewList(out);
}

void chunkKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    if (self.dim() == 0) throw KernelError("chunk expects at least a 1-dimensional tensor");
    const int64_t chunks = intArg(call, "chunks");
    if (chunks <= 0) throw KernelError("chunk expects `chunks` to be greater than 0, got: " + std::to_string(chunks));
    const int64_t d = wrapDim(intArg(call, "dim"), self.dim());
    const int64_t n = self.sizes()[static_cast<size_t>(d)];
    const int64_t splitSize = (n + chunks - 1) / chunks;
    if (splitSize == 0 && n == 0) {
        std::vector<int64_t> sizes(static_cast<size_t>(chunks), 0);
        call.result = viewList(splitBySizes(self, sizes, d));
    } else {
        call.result = viewList(splitBySize(self, splitSize, d));
    }
}

// unsafe_split / unsafe_split_with_sizes / unsafe_chunk: the pieces of split, each copied to a
// storage of its own (the schema aliases nothing; the memory timeline allocates each).
template<void (*Split)(KernelCall&)>
void unsafeSplitKernel(KernelCall& call)
{
    Split(call);
    for (Value& piece : call.result.items) {
        Tensor own = call.newTensor(piece.tensor.sizes(), piece.tensor.dtype());
        call.backend->copy(own, piece.tensor);
        piece.tensor = own;
    }
}

// sym_size.int / sym_stride.int / sym_numel / sym_storage_offset: the tensor's size facts as
// numbers (the symbolic-shape graphs' way of reading them).
void symSizeKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    call.result = Value::ofInt(self.sizes()[static_cast<size_t>(wrapDim(intArg(call, "dim"), self.dim()))]);
}
void symStrideKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    call.result = Value::ofInt(self.strides()[static_cast<size_t>(wrapDim(intArg(call, "dim"), self.dim()))]);
}
void symNumelKernel(KernelCall& call) { call.result = Value::ofInt(call.tensor("self").numel()); }
void symStorageOffsetKernel(KernelCall& call) { call.result = Value::ofInt(call.tensor("self").offset()); }

}  // namespace

void registerViewKernels(KernelRegistry& reg, DeviceKind d)
{
    reg.add("aten.sym_size.int", d, symSizeKernel);
    reg.add("aten.sym_stride.int", d, symStrideKernel);
    reg.add("aten.sym_numel.default", d, symNumelKernel);
    reg.add("aten.sym_storage_offset.default", d, symStorageOffsetKernel);
    reg.add("aten.view.default", d, viewKernel);
    reg.add("aten._unsafe_view.default", d, viewKernel);  // PyTorch: view_impl (same rule as view)
    reg.add("aten.view.dtype", d, viewDtypeKernel);
    reg.add("aten.reshape.default", d, reshapeKernel);
    reg.add("aten._reshape_alias.default", d, reshapeAliasKernel);
    reg.add("aten.as_strided.default", d, asStridedKernel);
    reg.add("aten.permute.default", d, permuteKernel);
    reg.add("aten.t.default", d, tKernel);
    reg.add("aten.transpose.int", d, transposeKernel);
    reg.add("aten.expand.default", d, expandKernel);
    reg.add("aten.unsqueeze.default", d, unsqueezeKernel);
    reg.add("aten.squeeze.dim", d, squeezeDimKernel);
    reg.add("aten.squeeze.dims", d, squeezeDimsKernel);
    reg.add("aten.squeeze.default", d, squeezeKernel);
    reg.add("aten.select.int", d, selectKernel);
    reg.add("aten.slice.Tensor", d, sliceKernel);
    reg.add("aten.diagonal.default", d, diagonalKernel);
    reg.add("aten.unfold.default", d, unfoldKernel);
    reg.add("aten.alias.default", d, aliasKernel);
    reg.add("aten.detach.default", d, aliasKernel);
    reg.add("aten.lift_fresh.default", d, aliasKernel);
    reg.add("aten.split.Tensor", d, splitKernel);
    reg.add("aten.split_with_sizes.default", d, splitWithSizesKernel);
    reg.add("aten.unbind.int", d, unbindKernel);
    reg.add("aten.chunk.default", d, chunkKernel);
    reg.add("aten.unsafe_split.Tensor", d, unsafeSplitKernel<splitKernel>);
    reg.add("aten.unsafe_split_with_sizes.default", d, unsafeSplitKernel<splitWithSizesKernel>);
    reg.add("aten.unsafe_chunk.default", d, unsafeSplitKernel<chunkKernel>);
}

}  // namespace fxl::cpu::shape

namespace fxl::cpu {

void registerShapeKernels(KernelRegistry& reg)
{
    shape::registerViewKernels(reg, DeviceKind::Cpu);
    shape::registerCopyKernels(reg, DeviceKind::Cpu);
    shape::registerIndexKernels(reg);
    shape::registerSortKernels(reg);
}

void registerDeviceShapeKernels(KernelRegistry& reg, DeviceKind d)
{
    shape::registerViewKernels(reg, d);
    shape::registerCopyKernels(reg, d);
}

}  // namespace fxl::cpu

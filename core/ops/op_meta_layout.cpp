#include "core/ops/op_meta_layout.hpp"

#include <algorithm>
#include <numeric>

#include "core/ops/op_meta.hpp"

namespace fxl::meta {

Sizes contiguous(const Sizes& sizes)
{
    Sizes st(sizes.size());
    SymInt acc = 1;
    for (size_t i = sizes.size(); i-- > 0;) {
        st[i] = acc;
        const SymInt& s = sizes[i];
        // make_contiguous_strides_for multiplies by max(size, 1); symbolic sizes are
        // assumed >= 1 (size-oblivious) as PyTorch prints them.
        if (s.isConcrete())
            acc = mul(acc, std::max<int64_t>(*s.maybeValue(), 1));
        else
            acc = mul(acc, s);
    }
    return st;
}

namespace {
bool hintIsZero(const SymInt& s)
{
    if (s.isConcrete()) return *s.maybeValue() == 0;
    if (hasUnbacked(s)) return false;
    auto h = s.maybeValue();
    return h && *h == 0;
}
bool anyZero(const Sizes& s)
{
    for (const auto& x : s)
        if (hintIsZero(x)) return true;
    return false;
}
bool denseInOrder(const TensorMeta& t, std::initializer_list<int> order)
{
    SymInt expected = 1;
    for (int d : order) {
        const SymInt& sz = t.sizes[static_cast<size_t>(d)];
        if (!isOne(sz)) {
            if (!guardEq(t.strides[static_cast<size_t>(d)], expected)) return false;
            expected = mul(expected, sz);
        }
    }
    return true;
}
}  // namespace

bool isContiguous(const TensorMeta& t)
{
    if (t.strides.size() != t.sizes.size()) return false;
    if (anyZero(t.sizes)) return true;
    SymInt expected = 1;
    for (size_t i = t.sizes.size(); i-- > 0;) {
        if (isOne(t.sizes[i])) continue;
        if (!guardEq(t.strides[i], expected)) return false;
        expected = mul(expected, t.sizes[i]);
    }
    return true;
}

bool isChannelsLastContiguous(const TensorMeta& t)
{
    if (t.strides.size() != t.sizes.size()) return false;
    if (t.sizes.size() == 4) return denseInOrder(t, {1, 3, 2, 0});
    if (t.sizes.size() == 5) return denseInOrder(t, {1, 4, 3, 2, 0});
    return false;
}

bool isNonOverlappingAndDense(const TensorMeta& t)
{
    size_t n = t.sizes.size();
    if (t.strides.size() != n) return false;
    if (n == 1) return hintOf(t.sizes[0]) < 2 || guardEq(t.strides[0], 1);
    std::vector<size_t> dims;
    dims.reserve(n);
    for (size_t i = 0; i < n; ++i)
        if (hintOf(t.sizes[i]) >= 2) dims.push_back(i);
    std::stable_sort(dims.begin(), dims.end(), [&](size_t a, size_t b) {
        return hintOf(t.strides[a], "stride") < hintOf(t.strides[b], "stride");
    });
    SymInt require = 1;
    for (size_t d : dims) {
        if (!guardEq(t.strides[d], require)) return false;
        require = mul(require, t.sizes[d]);
    }
    return true;
}

bool isChannelsLastStrides(const TensorMeta& t)
{
    size_t n = t.sizes.size();
    if (t.strides.size() != n || (n != 4 && n != 5)) return false;
    std::vector<int> order = n == 4 ? std::vector<int>{1, 3, 2, 0} : std::vector<int>{1, 4, 3, 2, 0};
    int64_t minv = 0;
    if (hintOf(t.strides[1], "stride") == 0) return false;
    for (int d : order) {
        int64_t sz = hintOf(t.sizes[static_cast<size_t>(d)]);
        int64_t st = hintOf(t.strides[static_cast<size_t>(d)], "stride");
        if (sz == 0) return false;
        if (st < minv) return false;
        if (d == 0 && minv == hintOf(t.strides[1], "stride")) return false;
        minv = st;
        if (sz > 1) minv *= sz;
    }
    return true;
}

Sizes channelsLastStrides(const Sizes& sizes)
{
    size_t n = sizes.size();
    Sizes st(n);
    std::vector<int> order = n == 4 ? std::vector<int>{1, 3, 2, 0} : std::vector<int>{1, 4, 3, 2, 0};
    SymInt acc = 1;
    for (int d : order) {
        st[static_cast<size_t>(d)] = acc;
        const SymInt& s = sizes[static_cast<size_t>(d)];
        acc = mul(acc, s.isConcrete() ? SymInt(std::max<int64_t>(*s.maybeValue(), 1)) : s);
    }
    return st;
}

namespace {
// TensorIterator's dimension order (reorder_dimensions): perm[0] is the fastest dim.
// `strideSets` hold each operand's strides already broadcast (0 for broadcast dims).
std::vector<size_t> iteratorPerm(const Sizes& shape, const std::vector<std::vector<int64_t>>& strideSets,
                                 bool zeroIsAmbiguousOnly)
{
    size_t n = shape.size();
    std::vector<size_t> perm(n);
    for (size_t i = 0; i < n; ++i) perm[i] = n - 1 - i;
    if (n <= 1) {
        if (n == 1) perm[0] = 0;
        return perm;
    }
    std::vector<int64_t> sh(n);
    for (size_t i = 0; i < n; ++i) sh[i] = hintOf(shape[i]);
    auto shouldSwap = [&](size_t d0, size_t d1) -> int {
        for (const auto& st : strideSets) {
            int64_t s0 = st[d0], s1 = st[d1];
            if (s0 == 0 || s1 == 0) {
                if (zeroIsAmbiguousOnly) return 0;
                continue;
            }
            if (s0 < s1) return -1;
            if (s0 > s1) return 1;
            if (sh[d0] > sh[d1]) return 1;
        }
        return 0;
    };
    for (size_t i = 1; i < n; ++i) {
        size_t dim1 = i;
        for (size_t dim0 = i; dim0-- > 0;) {
            int cmp = shouldSwap(perm[dim0], perm[dim1]);
            if (cmp > 0) {
                std::swap(perm[dim0], perm[dim1]);
                dim1 = dim0;
            } else if (cmp < 0) {
                break;
            }
        }
    }
    return perm;
}

std::vector<int64_t> broadcastStrides(const Sizes& shape, const TensorMeta& t)
{
    size_t n = shape.size(), m = t.sizes.size();
    std::vector<int64_t> st(n, 0);
    for (size_t i = 0; i < m && i < n; ++i) {
        size_t od = n - 1 - i, id = m - 1 - i;
        if (isOne(t.sizes[id]) && !isOne(shape[od])) continue;  // broadcast
        st[od] = t.strides.size() == m ? hintOf(t.strides[id], "stride") : 0;
    }
    return st;
}

// Dense strides laid out in `perm` order (fastest first).
Sizes stridesFromPerm(const Sizes& shape, const std::vector<size_t>& perm, bool skipSizeLeqOne)
{
    Sizes st(shape.size());
    SymInt acc = 1;
    for (size_t d : perm) {
        st[d] = acc;
        const SymInt& s = shape[d];
        if (skipSizeLeqOne) {
            if (!s.isConcrete() || *s.maybeValue() > 1) acc = mul(acc, s);
        } else {
            acc = mul(acc, s);
        }
    }
    return st;
}
}  // namespace

Sizes stridesFor(const Sizes& sizes, std::string_view memoryFormat)
{
    if ((memoryFormat == "channels_last" && sizes.size() == 4)
        || (memoryFormat == "channels_last_3d" && sizes.size() == 5))
        return channelsLastStrides(sizes);
    return contiguous(sizes);
}

Sizes stridesLike(const TensorMeta& t, std::string_view memoryFormat)
{
    if (!memoryFormat.empty() && memoryFormat != "preserve_format") return stridesFor(t.sizes, memoryFormat);
    if (t.strides.size() != t.sizes.size()) return contiguous(t.sizes);
    if (isNonOverlappingAndDense(t)) return t.strides;
    // infer_dense_strides: keep the input's layout permutation
    std::vector<std::vector<int64_t>> ss(1);
    for (const auto& s : t.strides) ss[0].push_back(hintOf(s, "stride"));
    auto perm = iteratorPerm(t.sizes, ss, true);
    return stridesFromPerm(t.sizes, perm, true);
}

int64_t wrapDim(int64_t dim, int64_t ndim, bool allowScalar)
{
    int64_t n = ndim;
    if (n <= 0) {
        if (!allowScalar)
            throw MetaError("dimension specified as " + std::to_string(dim) + " but tensor has no dimensions");
        n = 1;
    }
    if (dim < -n || dim >= n)
        throw MetaError("dimension out of range (expected to be in range of [" + std::to_string(-n) + ", "
                        + std::to_string(n - 1) + "], but got " + std::to_string(dim) + ")");
    return dim < 0 ? dim + n : dim;
}

// ---------------------------------------------------------------- broadcasting / strides

Sizes broadcastShapes(const std::vector<const Sizes*>& shapes)
{
    size_t n = 0;
    for (const auto* s : shapes) n = std::max(n, s->size());
    Sizes out(n, SymInt(1));
    for (const auto* s : shapes) {
        size_t m = s->size();
        for (size_t i = 0; i < m; ++i) {
            SymInt& o = out[n - m + i];
            const SymInt& v = (*s)[i];
            if (isOne(v)) continue;
            if (isOne(o)) {
                o = v;
                continue;
            }
            // without hints two symbols cannot be told apart: the traced program was valid
            auto ho = o.maybeValue(), hv = v.maybeValue();
            if (!guardEq(o, v) && ho && hv)
                throw MetaError("shapes cannot be broadcast: size " + o.str() + " vs " + v.str() + " at dim "
                                + std::to_string(n - m + i));
            // keep the concrete / structurally simpler one (the tracer asserts equality)
            if (!o.isConcrete() && v.isConcrete()) o = v;
        }
    }
    return out;
}

Sizes iteratorStrides(const Sizes& shape, const std::vector<const TensorMeta*>& inputs, bool scalarOperand)
{
    size_t n = shape.size();
    if (n == 0) return {};
    // fast setup: all operands of the same shape and all contiguous / channels-last /
    // non-overlapping-and-dense with equal strides
    bool sameShape = !inputs.empty() && !scalarOperand;
    for (const auto* t : inputs) {
        if (t->sizes.size() != n || t->strides.size() != n) {
            sameShape = false;
            break;
        }
        for (size_t i = 0; i < n && sameShape; ++i)
            if (!guardEq(t->sizes[i], shape[i])) sameShape = false;
    }
    if (sameShape) {
        bool contig = true, cl = true, dense = true;
        for (const auto* t : inputs) {
            contig = contig && isContiguous(*t);
            cl = cl && isChannelsLastContiguous(*t);
            dense = dense && isNonOverlappingAndDense(*t);
        }
        if (contig) return contiguous(shape);
        if (cl) return channelsLastStrides(shape);
        if (dense) {
            bool same = true;
            for (const auto* t : inputs)
                for (size_t i = 0; i < n && same; ++i)
                    if (!guardEq(t->strides[i], inputs.back()->strides[i])) same = false;
            if (same) return inputs.back()->strides;
        }
    }
    std::vector<std::vector<int64_t>> ss;
    ss.reserve(inputs.size());
    for (const auto* t : inputs) ss.push_back(broadcastStrides(shape, *t));
    auto perm = iteratorPerm(shape, ss, false);
    bool inverted = true;
    for (size_t j = 0; j < n; ++j)
        if (perm[j] != n - 1 - j) {
            inverted = false;
            break;
        }
    if (inverted) return contiguous(shape);
    return stridesFromPerm(shape, perm, false);
}

Sizes primsElementwiseStrides(const Sizes& shape, const std::vector<const TensorMeta*>& inputsIn)
{
    size_t n = shape.size();
    if (n == 0) return {};
    if (n == 1) return {SymInt(1)};
    std::vector<const TensorMeta*> inputs;
    for (const auto* t : inputsIn)
        if (!(t->sizes.empty() && t->device == "cpu")) inputs.push_back(t);
    if (inputs.empty()) return contiguous(shape);
    bool contig = true, cl = true;
    for (const auto* t : inputs) {
        contig = contig && isContiguous(*t);
        cl = cl && isChannelsLastContiguous(*t);
    }
    if (contig && !cl) return contiguous(shape);
    if (cl && !contig) return channelsLastStrides(shape);
    std::vector<std::vector<int64_t>> ss;
    for (const auto* t : inputs) ss.push_back(broadcastStrides(shape, *t));
    auto perm = iteratorPerm(shape, ss, false);
    // make_contiguous_strides_for over the permuted shape (max(size, 1))
    Sizes st(n);
    SymInt acc = 1;
    for (size_t d : perm) {
        st[d] = acc;
        const SymInt& s = shape[d];
        acc = mul(acc, s.isConcrete() ? SymInt(std::max<int64_t>(*s.maybeValue(), 1)) : s);
    }
    return st;
}

std::string deviceOfInputs(const std::vector<const TensorMeta*>& inputs)
{
    // a 0-dim cpu tensor may mix with tensors on another device
    std::string dev;
    for (const auto* t : inputs) {
        if (!t) continue;
        if (dev.empty() || (dev == "cpu" && t->device != "cpu" && !t->device.empty())) dev = t->device;
    }
    return dev;
}

}  // namespace fxl::meta

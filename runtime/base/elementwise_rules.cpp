// The device-independent rules of the elementwise operators (elementwise_rules.hpp).
#include "runtime/base/elementwise_rules.hpp"

#include <algorithm>
#include <numeric>

namespace fxl::ew {

void unsupportedDType(const char* what, DType t)
{
    throw KernelError(std::string(what) + ": dtype " + std::string(dtypeAbbr(t)) + " is not supported");
}

bool isScalarValue(const Value& v)
{
    return v.kind == Value::Kind::Int || v.kind == Value::Kind::Float || v.kind == Value::Kind::Bool;
}

namespace {
DType promoteSkipUndefined(DType a, DType b)
{
    if (a == DType::Undefined) return b;
    if (b == DType::Undefined) return a;
    return promoteTypes(a, b);
}

// c10 combine_categories: the lower-priority class wins only with a higher category.
DType combineCategories(DType higher, DType lower)
{
    if (isComplex(higher)) return higher;
    if (!isComplex(lower) && isFloatingPoint(higher)) return higher;
    if (higher == DType::Bool || isFloatingPoint(lower) || isComplex(lower)) return promoteSkipUndefined(higher, lower);
    if (higher != DType::Undefined) return higher;
    return lower;
}
}  // namespace

DType resultType(const std::vector<const Value*>& operands)
{
    DType dim = DType::Undefined, zero = DType::Undefined, wrapped = DType::Undefined;
    for (const Value* v : operands) {
        if (!v || v->isNone()) continue;
        if (v->isTensor()) {
            if (v->tensor.dim() > 0)
                dim = promoteSkipUndefined(dim, v->tensor.dtype());
            else
                zero = promoteSkipUndefined(zero, v->tensor.dtype());
        } else if (v->kind == Value::Kind::Int) {
            wrapped = promoteSkipUndefined(wrapped, DType::I64);
        } else if (v->kind == Value::Kind::Float) {
            wrapped = promoteSkipUndefined(wrapped, DType::F32);  // the default dtype
        } else if (v->kind == Value::Kind::Bool) {
            wrapped = promoteSkipUndefined(wrapped, DType::Bool);
        } else {
            throw KernelError("expected a tensor or a number");
        }
    }
    return combineCategories(dim, combineCategories(zero, wrapped));
}

bool canCast(DType from, DType to)
{
    if (isComplex(from) && !isComplex(to)) return false;
    if (isFloatingPoint(from) && isIntegral(to, false)) return false;
    if (from != DType::Bool && to == DType::Bool) return false;
    return true;
}

// ---- layouts (c10 TensorImpl and TensorIterator rules)

bool isContiguousLayout(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides)
{
    int64_t numel = 1;
    for (int64_t s : sizes) numel *= s;
    if (numel == 0) return true;
    int64_t z = 1;
    for (size_t d = sizes.size(); d-- > 0;) {
        if (sizes[d] == 1) continue;
        if (strides[d] != z) return false;
        z *= sizes[d];
    }
    return true;
}

bool isNonOverlappingAndDense(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides)
{
    const size_t dim = sizes.size();
    if (dim == 0) return true;
    if (dim == 1) return sizes[0] < 2 || strides[0] == 1;
    std::vector<size_t> perm(dim);
    std::iota(perm.begin(), perm.end(), 0);
    std::sort(perm.begin(), perm.end(), [&](size_t a, size_t b) {
        if (sizes[a] < 2) return false;
        if (sizes[b] < 2) return true;
        return strides[a] < strides[b];
    });
    int64_t require = 1;
    for (size_t i = 0; i < dim; ++i) {
        const int64_t s = sizes[perm[i]];
        if (s < 2) return true;
        if (strides[perm[i]] != require) return false;
        require *= s;
    }
    return true;
}

bool isChannelsLastLayout(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides)
{
    if (sizes.size() != 4) return false;
    int64_t expected = 1;
    for (size_t d : {1u, 3u, 2u, 0u}) {
        if (sizes[d] == 1) continue;
        if (strides[d] != expected) return false;
        expected *= sizes[d];
    }
    return true;
}

std::vector<int64_t> channelsLastStrides(const std::vector<int64_t>& sizes)
{
    const size_t nd = sizes.size();
    if (nd != 4 && nd != 5) throw KernelError("channels_last needs a 4-d tensor (channels_last_3d a 5-d one)");
    std::vector<int64_t> st(nd);
    st[1] = 1;
    int64_t acc = std::max<int64_t>(sizes[1], 1);
    for (size_t d = nd - 1; d >= 2; --d) {
        st[d] = acc;
        acc *= std::max<int64_t>(sizes[d], 1);
    }
    st[0] = acc;
    return st;
}

std::vector<int64_t> namedFormatStrides(std::string_view name, const std::vector<int64_t>& sizes)
{
    if (name.starts_with("torch.")) name.remove_prefix(6);
    if (name == "contiguous_format") return Tensor::contiguousStrides(sizes);
    const size_t rank = name == "channels_last" ? 4 : name == "channels_last_3d" ? 5 : 0;
    if (rank == 0) throw KernelError("unsupported memory format '" + std::string(name) + "'");
    if (sizes.size() != rank)
        throw KernelError("required rank " + std::to_string(rank) + " tensor to use " + std::string(name) + " format");
    return channelsLastStrides(sizes);
}

namespace {
// Insertion sort of dims, fastest first, the way TensorIterator::reorder_dimensions and
// infer_dense_strides do it: a stride of 0 is "no opinion", equal strides put the smaller
// size first. `strides` holds one stride vector per operand, consulted in order.
std::vector<size_t> iteratorPerm(const std::vector<int64_t>& shape, const std::vector<std::vector<int64_t>>& strides)
{
    const size_t nd = shape.size();
    std::vector<size_t> perm(nd);
    for (size_t i = 0; i < nd; ++i) perm[i] = nd - 1 - i;
    if (nd <= 1) return perm;
    auto shouldSwap = [&](size_t d0, size_t d1) {
        for (const auto& st : strides) {
            const int64_t s0 = st[d0], s1 = st[d1];
            if (s0 == 0 || s1 == 0) continue;
            if (s0 < s1) return -1;
            if (s0 > s1) return 1;
            if (shape[d0] > shape[d1]) return 1;
        }
        return 0;
    };
    for (size_t i = 1; i < nd; ++i) {
        size_t d1 = i;
        for (size_t j = i; j-- > 0;) {
            const int c = shouldSwap(perm[j], perm[d1]);
            if (c > 0) {
                std::swap(perm[j], perm[d1]);
                d1 = j;
            } else if (c < 0) {
                break;
            }
        }
    }
    return perm;
}
}  // namespace

std::vector<int64_t> preserveStrides(const Tensor& self)
{
    if (isNonOverlappingAndDense(self.sizes(), self.strides())) return self.strides();
    const size_t nd = self.sizes().size();
    if (nd == 0) return {};
    if (nd == 1) return {1};
    // infer_dense_strides: same order as TensorIterator with one operand, size <= 1 dims add nothing
    const std::vector<size_t> perm = iteratorPerm(self.sizes(), {self.strides()});
    std::vector<int64_t> out(nd);
    int64_t cur = 1;
    for (size_t i = 0; i < nd; ++i) {
        out[perm[i]] = cur;
        if (self.sizes()[perm[i]] > 1) cur *= self.sizes()[perm[i]];
    }
    return out;
}

std::vector<int64_t> memoryFormatStrides(const Value& mf, const Tensor& self)
{
    if (mf.isNone() || mf.s == "preserve_format" || mf.s == "torch.preserve_format") return preserveStrides(self);
    return namedFormatStrides(mf.s, self.sizes());
}

std::vector<int64_t> iteratorStrides(const std::vector<int64_t>& shape, const std::vector<const Tensor*>& inputs,
                                     int wrappedScalars)
{
    // fast setup: every operand of the same shape (a wrapped number is a 0-dim operand)
    bool allSame = true, hasScalars = wrappedScalars > 0, hasTensors = false;
    for (const Tensor* t : inputs) {
        (t->dim() == 0 ? hasScalars : hasTensors) = true;
        if (t->sizes() != inputs.front()->sizes()) allSame = false;
    }
    if (hasScalars && hasTensors) allSame = false;
    if (allSame) {
        bool contiguous = true, channelsLast = true, dense = true;
        for (const Tensor* t : inputs) {
            contiguous = contiguous && isContiguousLayout(t->sizes(), t->strides());
            channelsLast = channelsLast && isChannelsLastLayout(t->sizes(), t->strides());
            dense = dense && isNonOverlappingAndDense(t->sizes(), t->strides());
        }
        if (contiguous) return Tensor::contiguousStrides(shape);
        if (channelsLast) return channelsLastStrides(shape);
        if (dense) {
            bool sameStrides = true;
            for (const Tensor* t : inputs) sameStrides = sameStrides && t->strides() == inputs.front()->strides();
            if (sameStrides) return inputs.back()->strides();
        }
    }
    const size_t nd = shape.size();
    if (nd == 0) return {};
    std::vector<std::vector<int64_t>> st;
    for (const Tensor* t : inputs) {
        std::vector<int64_t> s(nd, 0);
        const size_t off = nd - t->sizes().size();
        for (size_t i = 0; i < t->sizes().size(); ++i)
            s[off + i] = (t->sizes()[i] == 1 && shape[off + i] != 1) ? 0 : t->strides()[i];
        st.push_back(std::move(s));
    }
    std::vector<size_t> perm(1, 0);
    if (nd > 1) perm = iteratorPerm(shape, st);
    bool inverted = true;
    for (size_t j = 0; j < nd; ++j)
        if (perm[j] != nd - 1 - j) inverted = false;
    if (inverted) return Tensor::contiguousStrides(shape);
    std::vector<int64_t> out(nd);
    int64_t next = 1;
    for (size_t i = 0; i < nd; ++i) {
        out[perm[i]] = next;
        next *= shape[perm[i]];
    }
    return out;
}

Tensor allocStrided(const KernelCall& call, const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                    DType t)
{
    // exactly Tensor::contiguousStrides(sizes) (the common case): the backend's new tensor as
    // it is, its layout record shared
    bool contiguous = sizes.size() == strides.size();
    int64_t expect = 1;
    for (size_t k = sizes.size(); contiguous && k-- > 0;) {
        contiguous = strides[k] == expect;
        expect *= sizes[k] > 0 ? sizes[k] : 1;
    }
    if (contiguous) return call.newTensor(sizes, t);
    int64_t numel = 1;
    for (int64_t s : sizes) numel *= s;
    Tensor buf = call.newTensor({numel}, t);
    return buf.asStrided(sizes, strides, 0);
}

// ---- casts and fills

std::optional<DType> optDType(const KernelCall& call, const char* name)
{
    const int k = call.argIndex(name);
    if (k < 0 || static_cast<size_t>(k) >= call.args.size()) return std::nullopt;
    const Value& v = call.args[static_cast<size_t>(k)];
    if (v.isNone()) return std::nullopt;
    if (v.kind == Value::Kind::DType) return v.dtype;
    if (v.kind == Value::Kind::Int) {  // ScalarType passed as its enum number
        static const DType kByCode[] = {DType::U8,        DType::I8,        DType::I16,       DType::I32,
                                        DType::I64,       DType::F16,       DType::F32,       DType::F64,
                                        DType::Undefined, DType::Undefined, DType::Undefined, DType::Bool,
                                        DType::Undefined, DType::Undefined, DType::Undefined, DType::BF16};
        if (v.i >= 0 && v.i < 16 && kByCode[v.i] != DType::Undefined) return kByCode[v.i];
    }
    throw KernelError(std::string("argument '") + name + "' is not a dtype");
}

}  // namespace fxl::ew

// CPU kernels of the reduction family: sum, mean, var_mean / var, amax/max/argmax and
// amin/min/argmin, prod, any, cumsum, bincount; the shared helpers of cpu_reduction.hpp; and the family's registration
// (softmax and layer norm live in cpu_norm.cpp, losses and embedding backward in cpu_loss.cpp).
//
// Numerics contract: see the top of runtime/cpu/cpu_reduction.hpp (fixed 8-lane blocks of 128,
// a fixed lane tree, a binary-counter cascade over blocks; the order depends on the reduced
// length only).
#include "runtime/cpu/cpu_reduction.hpp"
#include "runtime/cpu/cpu_distance.hpp"
#include "runtime/cpu/cpu_embedding_bag.hpp"
#include "runtime/cpu/cpu_loss.hpp"
#include "runtime/cpu/cpu_norm.hpp"
#include "runtime/cpu/cpu_norm_batch.hpp"

#include <cmath>
#include <limits>

#include "runtime/base/backend.hpp"
#include "runtime/cpu/cpu_elementwise.hpp"

namespace fxl::cpu {
namespace red {

namespace {

// Coalesces (size, stride) pairs, outer to inner: drops size-1 dims and merges a dim into the
// one before it when the outer stride equals inner stride * inner size.
void coalesce(const std::vector<std::pair<int64_t, int64_t>>& dims, std::vector<int64_t>& sizes,
              std::vector<int64_t>& strides)
{
    sizes.clear();
    strides.clear();
    for (const auto& [s, st] : dims) {
        if (s == 1) continue;
        if (!sizes.empty() && strides.back() == st * s) {
            sizes.back() *= s;
            strides.back() = st;
        } else {
            sizes.push_back(s);
            strides.push_back(st);
        }
    }
}

}  // namespace

RowView::RowView(const Tensor& t, const std::vector<int64_t>& colDims)
{
    const int64_t nd = t.dim();
    std::vector<bool> isCol(static_cast<size_t>(nd), false);
    std::vector<std::pair<int64_t, int64_t>> rdims, cdims;
    for (int64_t d : colDims) {
        isCol[static_cast<size_t>(d)] = true;
        cdims.emplace_back(t.sizes()[static_cast<size_t>(d)], t.strides()[static_cast<size_t>(d)]);
    }
    for (int64_t d = 0; d < nd; ++d)
        if (!isCol[static_cast<size_t>(d)])
            rdims.emplace_back(t.sizes()[static_cast<size_t>(d)], t.strides()[static_cast<size_t>(d)]);
    rows = 1;
    for (const auto& p : rdims) rows *= p.first;
    cols = 1;
    for (const auto& p : cdims) cols *= p.first;
    coalesce(rdims, rowSizes, rowStrides);
    coalesce(cdims, colSizes, colStrides);
    if (colSizes.size() <= 1) {
        colLinear = true;
        colStride = colSizes.empty() ? 0 : colStrides[0];
    } else {
        colLinear = false;
        colOff.resize(static_cast<size_t>(cols));
        forEachIndex(colSizes, [&](const int64_t* idx, int64_t flat) {
            int64_t o = 0;
            for (size_t k = 0; k < colSizes.size(); ++k) o += idx[k] * colStrides[k];
            colOff[static_cast<size_t>(flat)] = o;
        });
    }
}

int64_t wrapDim(int64_t d, int64_t ndim, const char* op)
{
    const int64_t n = std::max<int64_t>(ndim, 1);
    if (d < -n || d >= n)
        throw KernelError(std::string(op) + ": dimension " + std::to_string(d) + " out of range for a "
                          + std::to_string(ndim) + "-d tensor");
    return d < 0 ? d + n : d;
}

std::vector<bool> reducedDims(const Value& dimArg, int64_t ndim, const char* op)
{
    std::vector<bool> red(static_cast<size_t>(ndim), false);
    std::vector<int64_t> dims;
    if (!dimArg.isNone()) dims = dimArg.toIntList();
    if (dims.empty()) {
        std::fill(red.begin(), red.end(), true);
        return red;
    }
    for (int64_t d : dims) {
        const int64_t w = wrapDim(d, ndim, op);
        if (ndim == 0) continue;
        if (red[static_cast<size_t>(w)])
            throw KernelError(std::string(op) + ": dim " + std::to_string(w)
                              + " appears multiple times in the list of dims");
        red[static_cast<size_t>(w)] = true;
    }
    return red;
}

std::optional<DType> optDType(const Value& v)
{
    if (v.isNone()) return std::nullopt;
    if (v.kind == Value::Kind::DType) return v.dtype;
    throw KernelError("expected a ScalarType argument");
}

Tensor contiguousOf(const KernelCall& call, const Tensor& t)
{
    if (t.isContiguous()) return t;
    return contiguous(t, *call.backend);
}

// Each element through double (loadAsDouble, storeFromDouble), by the pointwise loop (so on
// any device).
Tensor castThroughDouble(const KernelCall& call, const Tensor& x, DType to)
{
    Tensor out = call.newTensor(x.sizes(), to);
    const DType from = x.dtype();
    ew::dispatchBits(from, [&](auto inTag) {
        using In = typename decltype(inTag)::type;
        ew::dispatchBits(to, [&](auto outTag) {
            using Out = typename decltype(outTag)::type;
            ew::pointwise<Out, In>(call.pool, out, {x}, pw::ThroughDoubleBits<Out, In>{from, to});
        });
    });
    return out;
}

DType accDtypeOf(DType t) { return t == DType::F64 ? DType::F64 : DType::F32; }

Tensor widenedOnDevice(const KernelCall& call, const Tensor& t)
{
    return contiguousOf(call, ew::castTo(call, t, accDtypeOf(t.dtype())));
}

Tensor narrowedOnDevice(const KernelCall& call, const Tensor& y, DType dt)
{
    if (dt != y.dtype()) return ew::castTo(call, y, dt);
    if (dt == DType::F64)
        ew::pointwise<double, double>(call.pool, y, {y}, ew::lifted<double, double>(pw::Copy<double>{}));
    else
        ew::pointwise<float, float>(call.pool, y, {y}, ew::lifted<float, float>(pw::Copy<float>{}));
    return y;
}

}  // namespace red

namespace {

using namespace red;

// x converted to dtype `to` (PyTorch's "dtype=" semantics: cast first, then reduce).
std::vector<int64_t> reducedShape(const Tensor& x, const std::vector<bool>& red, bool keepdim)
{
    std::vector<int64_t> out;
    for (int64_t d = 0; d < x.dim(); ++d) {
        if (!red[static_cast<size_t>(d)])
            out.push_back(x.sizes()[static_cast<size_t>(d)]);
        else if (keepdim)
            out.push_back(1);
    }
    return out;
}

std::vector<int64_t> dimsOf(const std::vector<bool>& red)
{
    std::vector<int64_t> d;
    for (size_t k = 0; k < red.size(); ++k)
        if (red[k]) d.push_back(static_cast<int64_t>(k));
    return d;
}

// For every row r of rv: emit(r, S_i f(r, widen(x[r, i]))) with the contract's order. Rows are
// split between threads; when the columns are not contiguous, tiles of neighbouring outputs
// are summed together (sumOrderedTile, bitwise equal to the per-output loop).
template<class A, class T, class F, class Emit>
void reduceRows(const RowView& rv, const T* p, ThreadPool* pool, F f, Emit emit)
{
    const int64_t rows = rv.rows, n = rv.cols;
    if (rows <= 0) return;
    const bool tiled = !(rv.colLinear && rv.colStride == 1) && rv.innerRowSize() > 1 && n > 1;
    if (!tiled) {
        parallelRows(pool, rows, grainFor(n), [&](int64_t b, int64_t e) {
            for (int64_t r = b; r < e; ++r) {
                const T* q = p + rv.rowOffset(r);
                A s;
                if (rv.colLinear) {
                    const int64_t cs = rv.colStride;
                    s = sumOrdered<A>(n, [&](int64_t i) { return f(r, widenTo<A>(q[i * cs])); });
                } else {
                    const int64_t* off = rv.colOff.data();
                    s = sumOrdered<A>(n, [&](int64_t i) { return f(r, widenTo<A>(q[off[i]])); });
                }
                emit(r, s);
            }
        });
        return;
    }
    const int64_t innerSize = rv.innerRowSize(), innerStride = rv.innerRowStride();
    parallelRows(pool, rows, std::max<int64_t>(grainFor(n), 16), [&](int64_t b, int64_t e) {
        A out[kTile];
        int64_t r = b;
        while (r < e) {
            const int64_t inner = r % innerSize;
            const int nt = static_cast<int>(std::min<int64_t>({kTile, e - r, innerSize - inner}));
            const T* q = p + rv.rowOffset(r);
            const int64_t r0 = r;
            if (rv.colLinear && innerStride == 1) {  // neighbouring outputs adjacent: the t loop vectorises
                const int64_t cs = rv.colStride;
                sumOrderedTile<A>(
                    n, nt, [&](int t, int64_t i) { return f(r0 + t, widenTo<A>(q[t + i * cs])); }, out);
            } else if (rv.colLinear) {
                const int64_t cs = rv.colStride;
                sumOrderedTile<A>(
                    n, nt, [&](int t, int64_t i) { return f(r0 + t, widenTo<A>(q[t * innerStride + i * cs])); }, out);
            } else {
                const int64_t* off = rv.colOff.data();
                sumOrderedTile<A>(
                    n, nt, [&](int t, int64_t i) { return f(r0 + t, widenTo<A>(q[t * innerStride + off[i]])); }, out);
            }
            for (int t = 0; t < nt; ++t) emit(r0 + t, out[t]);
            r += nt;
        }
    });
}

// sum.default, sum.dim_IntList, mean.default, mean.dim
void sumMean(KernelCall& call, bool hasDim, bool mean)
{
    const char* op = mean ? "mean" : "sum";
    const Tensor& x = call.tensor("self");
    const std::vector<bool> red =
        hasDim ? reducedDims(call.arg("dim"), x.dim(), op) : std::vector<bool>(static_cast<size_t>(x.dim()), true);
    const bool keepdim = hasDim && call.arg("keepdim").toInt() != 0;
    const std::optional<DType> kw = optDType(call.arg("dtype"));
    DType outDt = kw ? *kw : (isIntegral(x.dtype(), true) ? DType::I64 : x.dtype());
    if (mean && !isFloatingPoint(outDt))
        throw KernelError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or complex "
            "dtype. Got: "
            + std::string(dtypeTorchName(outDt)));
    if (outDt == DType::Bool) throw KernelError(std::string(op) + ": bool results are not supported");
    Tensor src = x;
    // integer inputs sum exactly in 64 bits, which is what a cast to int64 first would give
    const bool intToLong = isIntegral(x.dtype(), true) && outDt == DType::I64;
    if (x.dtype() != outDt && !intToLong) src = castThroughDouble(call, x, outDt);
    const auto shape = reducedShape(x, red, keepdim);
    Tensor out = call.newTensor(shape, outDt);
    // integer sums are computed in int64 and cast at the end when another int type was asked for
    Tensor out64 = (isIntegral(src.dtype(), true) && outDt != DType::I64) ? call.newTensor(shape, DType::I64) : out;
    if (call.backend && call.backend->device() != DeviceKind::Cpu) {  // the device's row sum
        dispatchAll(src.dtype(), op, [](auto) {});  // the CPU's refusal of a dtype it has no sum for
        RowSumLoop loop;
        loop.src = &src;
        loop.colDims = dimsOf(red);
        loop.out = &out64;
        loop.mean = mean;
        call.backend->rowSum(loop);
        if (out64.storage() != out.storage()) call.backend->copy(out, castThroughDouble(call, out64, outDt));
        call.result = Value::ofTensor(out);
        return;
    }
    const RowView rv(src, dimsOf(red));
    const int64_t n = rv.cols;
    dispatchAll(src.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        const T* p = src.template data<T>();
        auto id = [](int64_t, A v) { return v; };
        if constexpr (std::is_integral_v<T>) {
            int64_t* o = out64.template data<int64_t>();
            reduceRows<A>(rv, p, call.pool, id, [&](int64_t r, A s) { o[r] = static_cast<int64_t>(s); });
        } else {
            T* o = out.template data<T>();
            reduceRows<A>(rv, p, call.pool, id, [&](int64_t r, A s) {
                if constexpr (std::is_same_v<A, float>) {
                    // a float sum that overflowed part way (or met an inf / nan): the same
                    // order in double, rounded once, so that a finite exact sum stays finite
                    if (!std::isfinite(s)) {
                        const double d = rowSumF64(p + rv.rowOffset(r), rv);
                        o[r] = narrowTo<T>(mean ? math::sum::meanOf(d, n) : d);
                        return;
                    }
                }
                o[r] = narrowTo<T>(mean ? math::sum::meanOf(s, n) : s);
            });
        }
    });
    if (out64.storage() != out.storage()) call.backend->copy(out, castThroughDouble(call, out64, outDt));
    call.result = Value::ofTensor(out);
}

// Comparison key of an element: floats widened (exact), ints as int64.
template<class T>
inline auto keyOf(T v)
{
    if constexpr (std::is_integral_v<T>)
        return static_cast<int64_t>(v);
    else
        return widenTo<AccOf<T>>(v);
}
template<class K>
inline bool isNan(K k)
{
    if constexpr (std::is_floating_point_v<K>)
        return std::isnan(k);
    else
        return false;
}

// var_mean.correction: m0 = S(x)/n, mean = m0 + S(x - m0)/n, var = S((x - mean)^2) / max(0, n - correction).
// var.correction / var.dim (unbiased = correction 1 or 0) give var alone, computed the same way.
enum class VarKind
{
    VarMean,
    VarCorrection,
    VarDim
};

void varMean(KernelCall& call, VarKind kind)
{
    const char* op = kind == VarKind::VarMean ? "var_mean" : "var";
    const Tensor& x = call.tensor("self");
    const std::vector<bool> red = reducedDims(call.arg("dim"), x.dim(), op);
    const bool keepdim = call.arg("keepdim").toInt() != 0;
    double correction = 1.0;
    if (kind == VarKind::VarDim) {
        correction = call.arg("unbiased").toInt() != 0 ? 1.0 : 0.0;
    } else {
        const Value& cv = call.arg("correction");
        correction = cv.isNone() ? 1.0 : cv.toDouble();
    }
    const auto shape = reducedShape(x, red, keepdim);
    Tensor var = call.newTensor(shape, x.dtype());
    Tensor mean = kind == VarKind::VarMean ? call.newTensor(shape, x.dtype()) : Tensor();
    const RowView rv(x, dimsOf(red));
    const int64_t n = rv.cols;
    dispatchFloating(x.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        const T* p = x.template data<T>();
        std::vector<A> m(static_cast<size_t>(rv.rows));
        // the moments of math::rows::moments, each sum over the rows' columns at once
        reduceRows<A>(
            rv, p, call.pool, [](int64_t, A v) { return v; },
            [&](int64_t r, A s) { m[static_cast<size_t>(r)] = math::sum::meanOf(s, n); });
        // one refinement of the mean (as layer norm): mean = m0 + S(x - m0)/n
        reduceRows<A>(
            rv, p, call.pool, [&](int64_t r, A v) { return v - m[static_cast<size_t>(r)]; },
            [&](int64_t r, A s) { m[static_cast<size_t>(r)] = m[static_cast<size_t>(r)] + math::sum::meanOf(s, n); });
        const A div = static_cast<A>(std::max(0.0, static_cast<double>(n) - correction));
        T* vo = var.template data<T>();
        T* mo = mean.defined() ? mean.template data<T>() : nullptr;
        reduceRows<A>(
            rv, p, call.pool,
            [&](int64_t r, A v) {
                const A d = v - m[static_cast<size_t>(r)];
                return d * d;
            },
            [&](int64_t r, A s) {
                A v = s / div, mr = m[static_cast<size_t>(r)];
                if constexpr (!std::is_same_v<A, double>) {
                    // float moments that overflowed (or inf / nan in the row): the same
                    // algorithm in double, rounded once (rowMomentsF64)
                    if (n > 0 && (!std::isfinite(mr) || !std::isfinite(s))) {
                        const RowMoments mm = rowMomentsF64(p + rv.rowOffset(r), rv);
                        mr = static_cast<A>(mm.mean);
                        v = static_cast<A>(mm.m2 / static_cast<double>(div));
                    }
                }
                vo[r] = narrowTo<T>(v);
                if (mo) mo[r] = narrowTo<T>(mr);
            });
    });
    if (kind == VarKind::VarMean)
        call.result = Value::ofList({Value::ofTensor(var), Value::ofTensor(mean)});
    else
        call.result = Value::ofTensor(var);
}

// prod.default / prod.dim_int: a sequential product in the logical order of the reduced
// elements (x_0 * x_1 * ... * x_{n-1}, starting from 1), in the accumulation type (f32 for
// f32/bf16/f16, f64, wrapping 64-bit for integers and bool, whose result is int64 unless
// dtype= says otherwise). Independent of strides, threads and the rows in the call.
void prodKernel(KernelCall& call, bool hasDim)
{
    const Tensor& x = call.tensor("self");
    std::vector<bool> red(static_cast<size_t>(x.dim()), !hasDim);
    bool keepdim = false;
    if (hasDim) {
        const int64_t d = wrapDim(call.arg("dim").toInt(), x.dim(), "prod");
        if (x.dim() > 0) red[static_cast<size_t>(d)] = true;
        keepdim = call.arg("keepdim").toInt() != 0;
    }
    const std::optional<DType> kw = optDType(call.arg("dtype"));
    const DType outDt = kw ? *kw : (isIntegral(x.dtype(), true) ? DType::I64 : x.dtype());
    if (outDt == DType::Bool) throw KernelError("prod: bool results are not supported");
    const bool intToLong = isIntegral(x.dtype(), true) && outDt == DType::I64;
    const Tensor src = (x.dtype() != outDt && !intToLong) ? castThroughDouble(call, x, outDt) : x;
    const auto shape = reducedShape(x, red, keepdim);
    Tensor out = call.newTensor(shape, outDt);
    Tensor out64 = (isIntegral(src.dtype(), true) && outDt != DType::I64) ? call.newTensor(shape, DType::I64) : out;
    const RowView rv(src, dimsOf(red));
    dispatchAll(src.dtype(), "prod", [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        using O = std::conditional_t<std::is_integral_v<T>, int64_t, T>;
        const T* p = src.template data<T>();
        O* o = out64.template data<O>();
        parallelRows(call.pool, rv.rows, grainFor(rv.cols), [&](int64_t b, int64_t e) {
            for (int64_t r = b; r < e; ++r) {
                const T* q = p + rv.rowOffset(r);
                o[r] = narrowTo<O>(
                    math::sum::prodOrdered<A>(rv.cols, [&](int64_t j) { return widenTo<A>(q[rv.colOffset(j)]); }));
            }
        });
    });
    if (out64.storage() != out.storage()) call.backend->copy(out, castThroughDouble(call, out64, outDt));
    call.result = Value::ofTensor(out);
}

// any.default / any.dim / any.dims: whether some element of the row is nonzero (NaN counts);
// bool, or uint8 (0/1) for uint8 input. Order independent.
enum class AnyKind
{
    All,
    Dim,
    Dims
};

void anyKernel(KernelCall& call, AnyKind kind)
{
    const Tensor& x = call.tensor("self");
    std::vector<bool> red(static_cast<size_t>(x.dim()), true);
    bool keepdim = false;
    if (kind == AnyKind::Dim) {
        std::fill(red.begin(), red.end(), false);
        const int64_t d = wrapDim(call.arg("dim").toInt(), x.dim(), "any");
        if (x.dim() > 0) red[static_cast<size_t>(d)] = true;
    } else if (kind == AnyKind::Dims) {
        red = reducedDims(call.arg("dim"), x.dim(), "any");
    }
    if (kind != AnyKind::All) keepdim = call.arg("keepdim").toInt() != 0;
    const DType outDt = x.dtype() == DType::U8 ? DType::U8 : DType::Bool;
    const auto shape = reducedShape(x, red, keepdim);
    Tensor out = call.newTensor(shape, outDt);
    const RowView rv(x, dimsOf(red));
    uint8_t* o = out.data<uint8_t>();
    dispatchAll(x.dtype(), "any", [&](auto tag) {
        using T = decltype(tag);
        const T* p = x.template data<T>();
        parallelRows(call.pool, rv.rows, grainFor(rv.cols), [&](int64_t b, int64_t e) {
            for (int64_t r = b; r < e; ++r) {
                const T* q = p + rv.rowOffset(r);
                bool hit = false;
                for (int64_t j = 0; j < rv.cols && !hit; ++j) {
                    const auto k = keyOf(q[rv.colOffset(j)]);
                    hit = isNan(k) || k != 0;
                }
                o[r] = hit ? 1 : 0;
            }
        });
    });
    call.result = Value::ofTensor(out);
}

// Index (in column order) of the maximum (Min: minimum) of row q: the first NaN, else the
// first extremum.
template<bool Min, class T>
int64_t argExtremeRow(const T* q, const RowView& rv)
{
    return math::sum::argExtreme<Min>(rv.cols, [&](int64_t j) { return keyOf(q[rv.colOffset(j)]); });
}

// amax.default / max.default / max.dim / argmax.default and their min counterparts
enum class MaxKind
{
    Amax,
    MaxAll,
    MaxDim,
    Argmax
};

void maxLike(KernelCall& call, MaxKind kind, bool isMin = false)
{
    const char* op = kind == MaxKind::Argmax ? (isMin ? "argmin" : "argmax")
        : kind == MaxKind::Amax              ? (isMin ? "amin" : "amax")
                                             : (isMin ? "min" : "max");
    if (kind == MaxKind::Argmax && call.tensor("self").dtype() == DType::Bool)
        throw KernelError(std::string(op) + ": bool tensors are not supported");
    const Tensor& x = call.tensor("self");
    std::vector<bool> red;
    bool keepdim = false;
    if (kind == MaxKind::MaxAll) {
        red.assign(static_cast<size_t>(x.dim()), true);
    } else if (kind == MaxKind::MaxDim) {
        red.assign(static_cast<size_t>(x.dim()), false);
        const int64_t d = wrapDim(call.arg("dim").toInt(), x.dim(), op);
        if (x.dim() > 0) red[static_cast<size_t>(d)] = true;
        keepdim = call.arg("keepdim").toInt() != 0;
    } else {
        red = reducedDims(call.arg("dim"), x.dim(), op);
        keepdim = call.arg("keepdim").toInt() != 0;
    }
    std::vector<int64_t> shape = reducedShape(x, red, keepdim);
    const RowView rv(x, dimsOf(red));
    if (rv.cols == 0 && rv.rows > 0)
        throw KernelError(std::string(op) + ": cannot reduce over an empty dimension (the operation has no identity)");
    Tensor vals, idx;
    if (kind != MaxKind::Argmax) vals = call.newTensor(shape, x.dtype());
    if (kind == MaxKind::MaxDim || kind == MaxKind::Argmax) idx = call.newTensor(shape, DType::I64);
    dispatchAll(x.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        const T* p = x.template data<T>();
        T* vo = vals.defined() ? vals.template data<T>() : nullptr;
        int64_t* io = idx.defined() ? idx.template data<int64_t>() : nullptr;
        parallelRows(call.pool, rv.rows, grainFor(rv.cols), [&](int64_t b, int64_t e) {
            for (int64_t r = b; r < e; ++r) {
                const T* q = p + rv.rowOffset(r);
                const int64_t j = isMin ? argExtremeRow<true>(q, rv) : argExtremeRow<false>(q, rv);
                if (vo) vo[r] = q[rv.colOffset(j)];
                if (io) io[r] = j;
            }
        });
    });
    if (kind == MaxKind::MaxDim)
        call.result = Value::ofList({Value::ofTensor(vals), Value::ofTensor(idx)});
    else
        call.result = Value::ofTensor(kind == MaxKind::Argmax ? idx : vals);
}

// cumsum.default: a sequential running sum along `dim` per row (acc type as for sums).
void cumsum(KernelCall& call)
{
    const Tensor& x = call.tensor("self");
    const int64_t d = wrapDim(call.arg("dim").toInt(), x.dim(), "cumsum");
    const std::optional<DType> kw = optDType(call.arg("dtype"));
    const DType outDt = kw ? *kw : (isIntegral(x.dtype(), true) ? DType::I64 : x.dtype());
    if (outDt == DType::Bool) throw KernelError("cumsum: bool results are not supported");
    const bool intToLong = isIntegral(x.dtype(), true) && outDt == DType::I64;
    Tensor src = (x.dtype() != outDt && !intToLong) ? castThroughDouble(call, x, outDt) : x;
    Tensor out = call.newTensor(x.sizes(), outDt);
    Tensor out64 = (isIntegral(src.dtype(), true) && outDt != DType::I64) ? call.newTensor(x.sizes(), DType::I64) : out;
    const std::vector<int64_t> cd = x.dim() == 0 ? std::vector<int64_t>{} : std::vector<int64_t>{d};
    const RowView rv(src, cd), ro(out64, cd);
    dispatchAll(src.dtype(), "cumsum", [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        using O = std::conditional_t<std::is_integral_v<T>, int64_t, T>;
        const T* p = src.template data<T>();
        O* o = out64.template data<O>();
        parallelRows(call.pool, rv.rows, grainFor(rv.cols), [&](int64_t b, int64_t e) {
            for (int64_t r = b; r < e; ++r) {
                const T* q = p + rv.rowOffset(r);
                O* w = o + ro.rowOffset(r);
                A acc = A(0);
                for (int64_t j = 0; j < rv.cols; ++j) {
                    acc = math::sum::scanStep(acc, widenTo<A>(q[rv.colOffset(j)]));
                    w[ro.colOffset(j)] = narrowTo<O>(acc);
                }
            }
        });
    });
    if (out64.storage() != out.storage()) call.backend->copy(out, castThroughDouble(call, out64, outDt));
    call.result = Value::ofTensor(out);
}

// bincount.default: integer counts, or per-bin sums of the weights in element order (the
// contract's order), f32 for f32 weights and f64 otherwise (PyTorch's rule).
void bincount(KernelCall& call)
{
    const Tensor& x = call.tensor("self");
    if (x.dim() != 1) throw KernelError("bincount only supports 1-d non-negative integral inputs");
    const Value& wv = call.arg("weights");
    const int64_t minlength = call.arg("minlength").toInt();
    if (minlength < 0) throw KernelError("bincount: minlength should be >= 0");
    const int64_t n = x.size(0);
    std::vector<int64_t> v(static_cast<size_t>(n));
    dispatchIndex(x.dtype(), "bincount", [&](auto tag) {
        using T = decltype(tag);
        const T* p = x.template data<T>();
        for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<int64_t>(p[i * x.stride(0)]);
    });
    int64_t bins = minlength;
    for (int64_t k : v) {
        if (k < 0) throw KernelError("bincount only supports 1-d non-negative integral inputs");
        bins = std::max(bins, k + 1);
    }
    if (wv.isNone()) {
        Tensor out = call.newTensor({bins}, DType::I64);
        int64_t* o = out.data<int64_t>();
        std::fill(o, o + bins, 0);
        for (int64_t k : v) ++o[k];
        call.result = Value::ofTensor(out);
        return;
    }
    const Tensor& w = wv.tensor;
    if (w.dim() != 1 || w.size(0) != n)
        throw KernelError("bincount: weights should be 1-d and have the same length as input");
    // the elements of each bin in index order (counting sort)
    std::vector<int64_t> start(static_cast<size_t>(bins) + 1, 0), order(static_cast<size_t>(n));
    for (int64_t k : v) ++start[static_cast<size_t>(k) + 1];
    for (int64_t b = 0; b < bins; ++b) start[static_cast<size_t>(b) + 1] += start[static_cast<size_t>(b)];
    {
        std::vector<int64_t> fill(start.begin(), start.end() - 1);
        for (int64_t i = 0; i < n; ++i)
            order[static_cast<size_t>(fill[static_cast<size_t>(v[static_cast<size_t>(i)])]++)] = i;
    }
    const bool f32 = w.dtype() == DType::F32;
    Tensor out = call.newTensor({bins}, f32 ? DType::F32 : DType::F64);
    const char* wp = static_cast<const char*>(w.rawData());
    const int64_t ws = w.stride(0) * w.itemSize();
    auto run = [&](auto accTag) {
        using A = decltype(accTag);
        A* o = out.template data<A>();
        for (int64_t b = 0; b < bins; ++b) {
            const int64_t* ids = order.data() + start[static_cast<size_t>(b)];
            const int64_t m = start[static_cast<size_t>(b) + 1] - start[static_cast<size_t>(b)];
            o[b] = sumOrdered<A>(m, [&](int64_t i) {
                const void* e = wp + ids[i] * ws;
                if constexpr (std::is_same_v<A, float>)
                    return loadAsFloat(e, DType::F32);
                else
                    return loadAsDouble(e, w.dtype());
            });
        }
    };
    if (f32)
        run(float{});
    else
        run(double{});
    call.result = Value::ofTensor(out);
}

}  // namespace

void registerSumKernels(KernelRegistry& reg, DeviceKind d)
{
    reg.add("aten.sum.default", d, [](KernelCall& c) { sumMean(c, false, false); });
    reg.add("aten.sum.dim_IntList", d, [](KernelCall& c) { sumMean(c, true, false); });
    reg.add("aten.mean.default", d, [](KernelCall& c) { sumMean(c, false, true); });
    reg.add("aten.mean.dim", d, [](KernelCall& c) { sumMean(c, true, true); });
}

void registerReductionKernels(KernelRegistry& reg)
{
    registerSumKernels(reg, DeviceKind::Cpu);
    reg.add("aten.var_mean.correction", DeviceKind::Cpu, [](KernelCall& c) { varMean(c, VarKind::VarMean); });
    reg.add("aten.var.correction", DeviceKind::Cpu, [](KernelCall& c) { varMean(c, VarKind::VarCorrection); });
    reg.add("aten.var.dim", DeviceKind::Cpu, [](KernelCall& c) { varMean(c, VarKind::VarDim); });
    reg.add("aten.amin.default", DeviceKind::Cpu, [](KernelCall& c) { maxLike(c, MaxKind::Amax, true); });
    reg.add("aten.min.dim", DeviceKind::Cpu, [](KernelCall& c) { maxLike(c, MaxKind::MaxDim, true); });
    reg.add("aten.argmin.default", DeviceKind::Cpu, [](KernelCall& c) { maxLike(c, MaxKind::Argmax, true); });
    reg.add("aten.prod.default", DeviceKind::Cpu, [](KernelCall& c) { prodKernel(c, false); });
    reg.add("aten.prod.dim_int", DeviceKind::Cpu, [](KernelCall& c) { prodKernel(c, true); });
    reg.add("aten.any.default", DeviceKind::Cpu, [](KernelCall& c) { anyKernel(c, AnyKind::All); });
    reg.add("aten.any.dim", DeviceKind::Cpu, [](KernelCall& c) { anyKernel(c, AnyKind::Dim); });
    reg.add("aten.any.dims", DeviceKind::Cpu, [](KernelCall& c) { anyKernel(c, AnyKind::Dims); });
    reg.add("aten.amax.default", DeviceKind::Cpu, [](KernelCall& c) { maxLike(c, MaxKind::Amax); });
    reg.add("aten.max.default", DeviceKind::Cpu, [](KernelCall& c) { maxLike(c, MaxKind::MaxAll); });
    reg.add("aten.max.dim", DeviceKind::Cpu, [](KernelCall& c) { maxLike(c, MaxKind::MaxDim); });
    reg.add("aten.argmax.default", DeviceKind::Cpu, [](KernelCall& c) { maxLike(c, MaxKind::Argmax); });
    reg.add("aten.cumsum.default", DeviceKind::Cpu, cumsum);
    reg.add("aten.bincount.default", DeviceKind::Cpu, bincount);
    red::registerNormKernels(reg);
    red::registerBatchNormKernels(reg, DeviceKind::Cpu);
    red::registerDistanceKernels(reg);
    red::registerEmbeddingBagKernels(reg);
    red::registerLossKernels(reg);
}

}  // namespace fxl::cpu

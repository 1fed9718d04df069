// CPU kernels of the row-wise normalisations: _softmax, _log_softmax and their backward,
// native_layer_norm and native_layer_norm_backward. Threads split rows only; each row is
// reduced by one thread in the order of the numerics contract (runtime/math/sum_order.hpp; the row formulas:
// runtime/math/rows.hpp), so a row's bits never depend on the other rows in the call, their number, offsets or strides.
// Parameter gradients of layer norm (reductions over rows) are split over columns only.
#include "runtime/cpu/cpu_norm.hpp"
#include "runtime/math/rows.hpp"

#include <cmath>
#include <limits>

#include "runtime/base/backend.hpp"
#include "runtime/cpu/cpu_reduction.hpp"

namespace fxl::cpu::red {
namespace {

std::vector<int64_t> dimList(const Tensor& t, int64_t dim)
{
    return t.dim() == 0 ? std::vector<int64_t>{} : std::vector<int64_t>{dim};
}

// Whether the call runs on a device backend: its rows go through Backend::rows.
bool onDevice(const KernelCall& call) { return call.backend && call.backend->device() != DeviceKind::Cpu; }

void deviceRows(KernelCall& call, RowsLoop::Kind kind, const Tensor& in0, const Tensor* in1, const Tensor& out,
                int64_t dim)
{
    RowsLoop loop;
    loop.kind = kind;
    loop.in0 = &in0;
    loop.in1 = in1;
    loop.out = &out;
    loop.dim = dim;
    call.backend->rows(loop);
    call.result = Value::ofTensor(out);
}

// ---- _softmax / _log_softmax
// softmax:     y_j = e_j / S(e),            e_j = exp(x_j - max)
// log_softmax: y_j = (x_j - max) - log(S(e))
// safe: rows whose inputs are all -inf give zeros instead of NaN (_safe_softmax).
template<class T, class O>
void softmaxRows(const Tensor& x, Tensor& out, int64_t dim, bool log, ThreadPool* pool, bool safe = false)
{
    using A = AccOf<T>;
    const auto cd = dimList(x, dim);
    const RowView rv(x, cd), ro(out, cd);
    const T* p = x.data<T>();
    O* o = out.data<O>();
    const int64_t n = rv.cols;
    parallelRows(pool, rv.rows, grainFor(n), [&](int64_t b, int64_t e) {
        std::vector<A> buf(static_cast<size_t>(n));
        for (int64_t r = b; r < e; ++r) {
            const T* q = p + rv.rowOffset(r);
            O* w = o + ro.rowOffset(r);
            A* v = buf.data();
            gatherRow(q, rv, v);
            math::rows::softmaxRow(v, n, log, safe);
            scatterRow(w, ro, v);
        }
    });
}

void softmaxFwd(KernelCall& call, bool log)
{
    const char* op = log ? "_log_softmax" : "_softmax";
    const Tensor& x = call.tensor("self");
    const int64_t dim = wrapDim(call.arg("dim").toInt(), x.dim(), op);
    const bool halfToFloat = call.arg("half_to_float").toInt() != 0;
    const bool half = x.dtype() == DType::BF16 || x.dtype() == DType::F16;
    if (halfToFloat && !half) throw KernelError(std::string(op) + ": half_to_float needs a bf16/f16 input");
    Tensor out = call.newTensor(x.sizes(), halfToFloat ? DType::F32 : x.dtype());
    if (onDevice(call)) {
        dispatchFloating(x.dtype(), op, [](auto) {});  // the CPU's refusal of a dtype
        deviceRows(call, log ? RowsLoop::Kind::LogSoftmax : RowsLoop::Kind::Softmax, x, nullptr, out, dim);
        return;
    }
    dispatchFloating(x.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_same_v<T, bf16_t> || std::is_same_v<T, f16_t>) {
            if (halfToFloat) {
                softmaxRows<T, float>(x, out, dim, log, call.pool);
                return;
            }
        }
        softmaxRows<T, T>(x, out, dim, log, call.pool);
    });
    call.result = Value::ofTensor(out);
}

// _safe_softmax(self, dim, dtype=None): softmax of self.to(dtype) with fully masked rows
// (all -inf) set to 0, as torch's decomposition (softmax, then where(all(x == -inf), 0, .)).
void safeSoftmax(KernelCall& call)
{
    const char* op = "_safe_softmax";
    const Tensor& x0 = call.tensor("self");
    const int64_t dim = wrapDim(call.arg("dim").toInt(), x0.dim(), op);
    const std::optional<DType> kw = optDType(call.arg("dtype"));
    Tensor x = x0;
    if (kw && *kw != x0.dtype()) {
        if (!isFloatingPoint(*kw)) throw KernelError(std::string(op) + ": dtype must be a floating dtype");
        x = castThroughDouble(call, x0, *kw);
    }
    Tensor out = call.newTensor(x.sizes(), x.dtype());
    if (onDevice(call)) {
        dispatchFloating(x.dtype(), op, [](auto) {});
        deviceRows(call, RowsLoop::Kind::SafeSoftmax, x, nullptr, out, dim);
        return;
    }
    dispatchFloating(x.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        softmaxRows<T, T>(x, out, dim, false, call.pool, true);
    });
    call.result = Value::ofTensor(out);
}

// ---- backward
// softmax:     gi_j = y_j * (g_j - S(g * y))
// log_softmax: gi_j = g_j - exp(y_j) * S(g)
template<class T, class O>
void softmaxBwdRows(const Tensor& g, const Tensor& y, Tensor& out, int64_t dim, bool log, ThreadPool* pool)
{
    using A = AccOf<T>;
    const auto cd = dimList(g, dim);
    const RowView rg(g, cd), ry(y, cd), ro(out, cd);
    const T* gp = g.data<T>();
    const T* yp = y.data<T>();
    O* o = out.data<O>();
    const int64_t n = rg.cols;
    parallelRows(pool, rg.rows, grainFor(n), [&](int64_t b, int64_t e) {
        std::vector<A> gb(static_cast<size_t>(n)), yb(static_cast<size_t>(n));
        for (int64_t r = b; r < e; ++r) {
            const T* gq = gp + rg.rowOffset(r);
            const T* yq = yp + ry.rowOffset(r);
            O* w = o + ro.rowOffset(r);
            A* gv = gb.data();
            A* yv = yb.data();
            gatherRow(gq, rg, gv);
            gatherRow(yq, ry, yv);
            math::rows::softmaxBackwardRow(gv, yv, n, log);
            scatterRow(w, ro, gv);
        }
    });
}

void softmaxBwd(KernelCall& call, bool log)
{
    const char* op = log ? "_log_softmax_backward_data" : "_softmax_backward_data";
    const Tensor& g = call.tensor("grad_output");
    const Tensor& y = call.tensor("output");
    if (g.sizes() != y.sizes()) throw KernelError(std::string(op) + ": grad_output and output sizes differ");
    if (g.dtype() != y.dtype()) throw KernelError(std::string(op) + ": grad_output and output dtypes differ");
    const int64_t dim = wrapDim(call.arg("dim").toInt(), g.dim(), op);
    const std::optional<DType> inDt = optDType(call.arg("input_dtype"));
    const DType outDt = inDt ? *inDt : g.dtype();
    Tensor out = call.newTensor(g.sizes(), outDt);
    if (onDevice(call)) {
        dispatchFloating(g.dtype(), op, [&](auto) { dispatchFloating(outDt, op, [](auto) {}); });
        deviceRows(call, log ? RowsLoop::Kind::LogSoftmaxBackward : RowsLoop::Kind::SoftmaxBackward, g, &y, out, dim);
        return;
    }
    dispatchFloating(g.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        dispatchFloating(outDt, op, [&](auto otag) {
            using O = decltype(otag);
            softmaxBwdRows<T, O>(g, y, out, dim, log, call.pool);
        });
    });
    call.result = Value::ofTensor(out);
}

// ---- layer norm
// Widened copy of an optional 1-row parameter (weight/bias) with `n` elements.
template<class A>
std::vector<A> widenParam(const Value& v, int64_t n, const char* op, const char* what)
{
    std::vector<A> out;
    if (v.isNone()) return out;
    const Tensor& t = v.tensor;
    if (t.numel() != n)
        throw KernelError(std::string(op) + ": " + what + " has " + std::to_string(t.numel()) + " elements, expected "
                          + std::to_string(n));
    out.resize(static_cast<size_t>(n));
    const char* base = static_cast<const char*>(t.rawData());
    forEachIndex(t.sizes(), [&](const int64_t* idx, int64_t flat) {
        out[static_cast<size_t>(flat)] =
            static_cast<A>(loadAsDouble(base + offsetOf(t, idx) * t.itemSize(), t.dtype()));
    });
    return out;
}

// On a device: an optional parameter (or per-row statistics) checked as widenParam /
// widenStats check it, as a contiguous tensor of the accumulation type `acc` (each element
// through double, as they widen); undefined for None.
Tensor widenedOnDevice(const KernelCall& call, const Value& v, int64_t n, DType acc, const char* op, const char* what)
{
    if (v.isNone()) return Tensor();
    if (v.tensor.numel() != n)
        throw KernelError(std::string(op) + ": " + what + " has " + std::to_string(v.tensor.numel())
                          + " elements, expected " + std::to_string(n));
    return castThroughDouble(call, v.tensor, acc);
}

// Leading dims of x before the normalized shape; checks the trailing sizes.
int64_t normAxis(const Tensor& x, const std::vector<int64_t>& ns, const char* op)
{
    const int64_t nd = static_cast<int64_t>(ns.size());
    if (nd == 0 || x.dim() < nd)
        throw KernelError(std::string(op) + ": normalized_shape must be non-empty and fit the input's dims");
    const int64_t axis = x.dim() - nd;
    for (int64_t k = 0; k < nd; ++k)
        if (x.sizes()[static_cast<size_t>(axis + k)] != ns[static_cast<size_t>(k)])
            throw KernelError(std::string(op) + ": input's trailing sizes do not match normalized_shape");
    return axis;
}

std::vector<int64_t> range(int64_t a, int64_t b)
{
    std::vector<int64_t> v;
    for (int64_t k = a; k < b; ++k) v.push_back(k);
    return v;
}

// m0 = S(x)/N; mean = m0 + S(x - m0)/N; var = S((x - mean)^2)/N; rstd = 1/sqrt(var + eps);
// y_j = ((x_j - mean) * rstd) [* w_j] [+ b_j]
void layerNorm(KernelCall& call)
{
    const char* op = "native_layer_norm";
    const Tensor& x = call.tensor("input");
    const std::vector<int64_t> ns = call.arg("normalized_shape").toIntList();
    const int64_t axis = normAxis(x, ns, op);
    const double eps = call.arg("eps").toDouble();
    std::vector<int64_t> statShape(x.sizes().begin(), x.sizes().begin() + axis);
    statShape.resize(static_cast<size_t>(x.dim()), 1);
    Tensor out = call.newTensor(x.sizes(), x.dtype());
    Tensor meanT = call.newTensor(statShape, x.dtype());
    Tensor rstdT = call.newTensor(statShape, x.dtype());
    const auto cd = range(axis, x.dim());
    const RowView rv(x, cd), ro(out, cd);
    const int64_t n = rv.cols;
    if (onDevice(call)) {  // Backend::layerNorm
        dispatchFloating(x.dtype(), op, [](auto) {});
        const DType acc = x.dtype() == DType::F64 ? DType::F64 : DType::F32;
        const Tensor w = widenedOnDevice(call, call.arg("weight"), n, acc, op, "weight");
        const Tensor b = widenedOnDevice(call, call.arg("bias"), n, acc, op, "bias");
        LayerNormLoop loop;
        loop.x = &x;
        loop.axis = axis;
        loop.eps = eps;
        loop.weight = w.defined() ? &w : nullptr;
        loop.bias = b.defined() ? &b : nullptr;
        loop.out = &out;
        loop.mean = &meanT;
        loop.rstd = &rstdT;
        call.backend->layerNorm(loop);
        call.result = Value::ofList({Value::ofTensor(out), Value::ofTensor(meanT), Value::ofTensor(rstdT)});
        return;
    }
    dispatchFloating(x.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        const std::vector<A> w = widenParam<A>(call.arg("weight"), n, op, "weight");
        const std::vector<A> bias = widenParam<A>(call.arg("bias"), n, op, "bias");
        const T* p = x.template data<T>();
        T* o = out.template data<T>();
        T* mo = meanT.template data<T>();
        T* so = rstdT.template data<T>();
        const A nA = static_cast<A>(n), epsA = static_cast<A>(eps);
        parallelRows(call.pool, rv.rows, grainFor(n), [&](int64_t b, int64_t e) {
            std::vector<A> buf(static_cast<size_t>(n));
            for (int64_t r = b; r < e; ++r) {
                const T* q = p + rv.rowOffset(r);
                T* wr = o + ro.rowOffset(r);
                A* v = buf.data();
                gatherRow(q, rv, v);
                const math::rows::Moments<A> mm = math::rows::moments<A>(n, [&](int64_t i) { return v[i]; });
                A mean = mm.mean;
                A var = mm.m2 / nA;
                if constexpr (!std::is_same_v<A, double>) {
                    // float moments that overflowed (or a row with inf / nan, or no elements):
                    // the same algorithm in double (rowMomentsF64), rounded once
                    if (!std::isfinite(mean) || !std::isfinite(var)) {
                        const RowMoments wide = rowMomentsF64(q, rv);
                        mean = static_cast<A>(wide.mean);
                        var = static_cast<A>(wide.m2 / static_cast<double>(n));
                    }
                } else if (n == 0) {
                    mean = 0;
                }
                const A rstd = math::rows::rstdOf(var, epsA);
                math::rows::layerNormRow(v, n, mean, rstd, w.empty() ? nullptr : w.data(),
                                         bias.empty() ? nullptr : bias.data());
                scatterRow(wr, ro, v);
                mo[r] = narrowTo<T>(mean);
                so[r] = narrowTo<T>(rstd);
            }
        });
    });
    call.result = Value::ofList({Value::ofTensor(out), Value::ofTensor(meanT), Value::ofTensor(rstdT)});
}

// Per-row statistics (mean or rstd) widened, in row order.
template<class A>
std::vector<A> widenStats(const Tensor& t, int64_t rows, const char* op, const char* what)
{
    if (t.numel() != rows)
        throw KernelError(std::string(op) + ": " + what + " has " + std::to_string(t.numel()) + " elements, expected "
                          + std::to_string(rows));
    std::vector<A> out(static_cast<size_t>(rows));
    const char* base = static_cast<const char*>(t.rawData());
    forEachIndex(t.sizes(), [&](const int64_t* idx, int64_t flat) {
        out[static_cast<size_t>(flat)] =
            static_cast<A>(loadAsDouble(base + offsetOf(t, idx) * t.itemSize(), t.dtype()));
    });
    return out;
}

// The layer-norm statistics backward reads: weight (empty without one), mean and rstd per row.
template<class A>
struct LayerNormStats
{
    std::vector<A> weight, mean, rstd;
};

// dx of a row whose gradient sums or results are not finite (an inf or nan in dy, or an overflow
// of the float formula below): PyTorch's
// CPU formula, in double, rounded once, so that infinities meet as they do there (a row with
// -inf and +inf gives nan, not an infinity the centred formula below would pick):
//   db = S(dy*w), ds = S(dy*w*x), b = (db*mean - ds) * rstd^3 / N, c = -b*mean - db*rstd/N,
//   dx_j = rstd*dy_j*w_j + b*x_j + c
template<class T, class A>
void infiniteRowGrad(const T* xq, const T* gq, const RowView& rx, const RowView& rg, A mean, A rstd,
                     const std::vector<A>& weight, A* out)
{
    const int64_t n = rx.cols;
    std::vector<double> x(static_cast<size_t>(n)), g(static_cast<size_t>(n));
    gatherRow(xq, rx, x.data());
    gatherRow(gq, rg, g.data());
    if (!weight.empty())
        for (int64_t j = 0; j < n; ++j)
            g[static_cast<size_t>(j)] *= static_cast<double>(weight[static_cast<size_t>(j)]);
    std::vector<double> dx(static_cast<size_t>(n));
    math::rows::layerNormInputGradWide(g.data(), x.data(), n, mean, rstd, dx.data());
    for (int64_t j = 0; j < n; ++j) out[j] = static_cast<A>(dx[static_cast<size_t>(j)]);
}

// dx, row by row (rows split between threads):
// dx_j = (rstd / N) * ((N * g_j - S(g)) - xhat_j * S(g * xhat)).
template<class T, class A>
void layerNormInputGrad(ThreadPool* pool, const Tensor& x, const Tensor& dy, const Tensor& dx, const RowView& rx,
                        const RowView& rg, const RowView& ro, const LayerNormStats<A>& stats)
{
    const int64_t M = rx.rows, n = rx.cols;
    const T* xp = x.template data<T>();
    const T* gp = dy.template data<T>();
    T* o = dx.template data<T>();
    parallelRows(pool, M, grainFor(n), [&](int64_t b, int64_t e) {
        std::vector<A> gb(static_cast<size_t>(n)), xh(static_cast<size_t>(n));
        for (int64_t r = b; r < e; ++r) {
            const T* xq = xp + rx.rowOffset(r);
            const T* gq = gp + rg.rowOffset(r);
            T* wr = o + ro.rowOffset(r);
            const A m = stats.mean[static_cast<size_t>(r)], rs = stats.rstd[static_cast<size_t>(r)];
            A* xv = xh.data();
            A* gv = gb.data();
            gatherRow(xq, rx, xv);
            gatherRow(gq, rg, gv);
            const bool finite = math::rows::layerNormInputGradRow(gv, xv, n, m, rs,
                                                                  stats.weight.empty() ? nullptr : stats.weight.data());
            if (!finite) infiniteRowGrad<T, A>(xq, gq, rx, rg, m, rs, stats.weight, gv);
            scatterRow(wr, ro, gv);
        }
    });
}

// dgamma_j = S_i(dy_ij * xhat_ij), dbeta_j = S_i(dy_ij): column reductions over the M rows,
// columns split between threads, tiles of kTile. dwv / dbv: empty when not wanted.
template<class T, class A>
void layerNormParamGrads(ThreadPool* pool, const Tensor& x, const Tensor& dy, const RowView& rx, const RowView& rg,
                         const LayerNormStats<A>& stats, std::vector<A>& dwv, std::vector<A>& dbv)
{
    const int64_t M = rx.rows, n = rx.cols;
    const T* xp = x.template data<T>();
    const T* gp = dy.template data<T>();
    const std::vector<A>& mean = stats.mean;
    const std::vector<A>& rstd = stats.rstd;
    std::vector<int64_t> xb(static_cast<size_t>(M)), gbase(static_cast<size_t>(M));
    for (int64_t i = 0; i < M; ++i) {
        xb[static_cast<size_t>(i)] = rx.rowOffset(i);
        gbase[static_cast<size_t>(i)] = rg.rowOffset(i);
    }
    const bool contiguousCols = rx.colLinear && rx.colStride == 1 && rg.colLinear && rg.colStride == 1;
    parallelRows(pool, n, std::max<int64_t>(16, grainFor(M)), [&](int64_t b, int64_t e) {
        for (int64_t j0 = b; j0 < e; j0 += kTile) {
            const int tileWidth = static_cast<int>(std::min<int64_t>(kTile, e - j0));
            int64_t xo[kTile], go[kTile];
            for (int t = 0; t < tileWidth; ++t) {
                xo[t] = rx.colOffset(j0 + t);
                go[t] = rg.colOffset(j0 + t);
            }
            if (contiguousCols) {  // x[i, j0 + t], dy[i, j0 + t] adjacent in t: the tile loop vectorises
                if (!dwv.empty())
                    sumOrderedTile<A>(
                        M, tileWidth,
                        [&](int t, int64_t i) {
                            const size_t ii = static_cast<size_t>(i);
                            const A xh = math::rows::normalized(widenTo<A>(xp[xb[ii] + j0 + t]), mean[ii], rstd[ii]);
                            return widenTo<A>(gp[gbase[ii] + j0 + t]) * xh;
                        },
                        dwv.data() + j0);
                if (!dbv.empty())
                    sumOrderedTile<A>(
                        M, tileWidth,
                        [&](int t, int64_t i) { return widenTo<A>(gp[gbase[static_cast<size_t>(i)] + j0 + t]); },
                        dbv.data() + j0);
                continue;
            }
            if (!dwv.empty())
                sumOrderedTile<A>(
                    M, tileWidth,
                    [&](int t, int64_t i) {
                        const size_t ii = static_cast<size_t>(i);
                        const A xh = math::rows::normalized(widenTo<A>(xp[xb[ii] + xo[t]]), mean[ii], rstd[ii]);
                        return widenTo<A>(gp[gbase[ii] + go[t]]) * xh;
                    },
                    dwv.data() + j0);
            if (!dbv.empty())
                sumOrderedTile<A>(
                    M, tileWidth,
                    [&](int t, int64_t i) { return widenTo<A>(gp[gbase[static_cast<size_t>(i)] + go[t]]); },
                    dbv.data() + j0);
        }
    });
    if constexpr (std::is_same_v<A, float>) {
        // a column whose float sum is not finite (a product or a partial sum overflowed, or an
        // inf / nan met): the same order in double, rounded once (docs/numerics.md section 5)
        for (int64_t j = 0; j < n; ++j) {
            const size_t jj = static_cast<size_t>(j);
            const int64_t xo = rx.colOffset(j), go = rg.colOffset(j);
            if (!dwv.empty() && !std::isfinite(dwv[jj]))
                dwv[jj] = static_cast<A>(sumOrdered<double>(M, [&](int64_t i) {
                    const size_t ii = static_cast<size_t>(i);
                    const double xh = math::rows::normalized(
                        widenTo<double>(xp[xb[ii] + xo]), static_cast<double>(mean[ii]), static_cast<double>(rstd[ii]));
                    return widenTo<double>(gp[gbase[ii] + go]) * xh;
                }));
            if (!dbv.empty() && !std::isfinite(dbv[jj]))
                dbv[jj] = static_cast<A>(sumOrdered<double>(
                    M, [&](int64_t i) { return widenTo<double>(gp[gbase[static_cast<size_t>(i)] + go]); }));
        }
    }
}

// xhat = (x - mean) * rstd, g = dy [* w]
// dx_j     = (rstd / N) * ((N * g_j - S(g)) - xhat_j * S(g * xhat))   (per row)
// dgamma_j = S_i(dy_ij * xhat_ij), dbeta_j = S_i(dy_ij)                 (over rows, per column)
void layerNormBwd(KernelCall& call)
{
    const char* op = "native_layer_norm_backward";
    const Tensor& dy = call.tensor("grad_out");
    const Tensor& x = call.tensor("input");
    if (dy.sizes() != x.sizes()) throw KernelError(std::string(op) + ": grad_out and input sizes differ");
    if (dy.dtype() != x.dtype()) throw KernelError(std::string(op) + ": grad_out and input dtypes differ");
    const std::vector<int64_t> ns = call.arg("normalized_shape").toIntList();
    const int64_t axis = normAxis(x, ns, op);
    std::vector<int64_t> mask = call.arg("output_mask").toIntList();
    mask.resize(3, 0);
    const Value& wv = call.arg("weight");
    const Value& bv = call.arg("bias");
    const auto cd = range(axis, x.dim());
    const RowView rx(x, cd), rg(dy, cd);
    const int64_t M = rx.rows, n = rx.cols;
    Tensor dx, dw, db;
    if (mask[0]) dx = call.newTensor(x.sizes(), x.dtype());
    if (mask[1] && !wv.isNone()) dw = call.newTensor(wv.tensor.sizes(), wv.tensor.dtype());
    if (mask[2] && !bv.isNone()) db = call.newTensor(bv.tensor.sizes(), bv.tensor.dtype());
    if (onDevice(call)) {  // Backend::layerNorm
        dispatchFloating(x.dtype(), op, [](auto) {});
        const DType acc = x.dtype() == DType::F64 ? DType::F64 : DType::F32;
        const Tensor w = widenedOnDevice(call, wv, n, acc, op, "weight");
        const Tensor mean = widenedOnDevice(call, call.arg("mean"), M, acc, op, "mean");
        const Tensor rstd = widenedOnDevice(call, call.arg("rstd"), M, acc, op, "rstd");
        if (dw.defined()) dispatchFloating(dw.dtype(), op, [](auto) {});
        if (db.defined()) dispatchFloating(db.dtype(), op, [](auto) {});
        LayerNormLoop loop;
        loop.backward = true;
        loop.x = &x;
        loop.axis = axis;
        loop.weight = w.defined() ? &w : nullptr;
        loop.mean = &mean;
        loop.rstd = &rstd;
        loop.dy = &dy;
        loop.dx = dx.defined() ? &dx : nullptr;
        loop.dw = dw.defined() ? &dw : nullptr;
        loop.db = db.defined() ? &db : nullptr;
        call.backend->layerNorm(loop);
        call.result = Value::ofList({tensorOrNone(dx), tensorOrNone(dw), tensorOrNone(db)});
        return;
    }
    dispatchFloating(x.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        LayerNormStats<A> stats;
        stats.weight = widenParam<A>(wv, n, op, "weight");
        stats.mean = widenStats<A>(call.tensor("mean"), M, op, "mean");
        stats.rstd = widenStats<A>(call.tensor("rstd"), M, op, "rstd");
        if (dx.defined()) layerNormInputGrad<T, A>(call.pool, x, dy, dx, rx, rg, RowView(dx, cd), stats);
        if (!dw.defined() && !db.defined()) return;
        std::vector<A> dwv(dw.defined() ? static_cast<size_t>(n) : 0), dbv(db.defined() ? static_cast<size_t>(n) : 0);
        layerNormParamGrads<T, A>(call.pool, x, dy, rx, rg, stats, dwv, dbv);
        if (dw.defined()) storeVector(dw, dwv);
        if (db.defined()) storeVector(db, dbv);
    });
    call.result = Value::ofList({tensorOrNone(dx), tensorOrNone(dw), tensorOrNone(db)});
}

}  // namespace

void registerSoftmaxKernels(KernelRegistry& reg, DeviceKind d)
{
    reg.add("aten.native_layer_norm.default", d, layerNorm);
    reg.add("aten.native_layer_norm_backward.default", d, layerNormBwd);
    reg.add("aten._softmax.default", d, [](KernelCall& c) { softmaxFwd(c, false); });
    reg.add("aten._log_softmax.default", d, [](KernelCall& c) { softmaxFwd(c, true); });
    reg.add("aten._safe_softmax.default", d, safeSoftmax);
    reg.add("aten._softmax_backward_data.default", d, [](KernelCall& c) { softmaxBwd(c, false); });
    reg.add("aten._log_softmax_backward_data.default", d, [](KernelCall& c) { softmaxBwd(c, true); });
}

void registerNormKernels(KernelRegistry& reg) { registerSoftmaxKernels(reg, DeviceKind::Cpu); }

}  // namespace fxl::cpu::red

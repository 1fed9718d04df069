// CPU kernels of the losses and of embedding backward: nll_loss_forward/backward,
// mse_loss/mse_loss_backward, embedding_dense_backward. Every sum follows the numerics
// contract of runtime/cpu/cpu_reduction.hpp: losses sum their per-element terms in row-major
// order (ignored nll rows contribute +0 at their position), embedding backward sums each
// vocabulary row's gradient rows in token order (flattened indices, row-major).
#include "runtime/cpu/cpu_loss.hpp"

#include <cmath>

#include "runtime/backend.hpp"
#include "runtime/cpu/cpu_reduction.hpp"

namespace fxl::cpu::red {
namespace {

enum Reduction : int64_t
{
    kNone = 0,
    kMean = 1,
    kSum = 2
};

int64_t reductionOf(const KernelCall& call, const char* op)
{
    const int64_t r = call.arg("reduction").toInt();
    if (r < 0 || r > 2) throw KernelError(std::string(op) + ": reduction must be 0 (none), 1 (mean) or 2 (sum)");
    return r;
}

// Integer tensor elements in row-major logical order.
std::vector<int64_t> indexValues(const Tensor& t, const char* op)
{
    std::vector<int64_t> v(static_cast<size_t>(t.numel()));
    dispatchIndex(t.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        const T* p = t.template data<T>();
        forEachIndex(t.sizes(), [&](const int64_t* idx, int64_t flat) {
            v[static_cast<size_t>(flat)] = static_cast<int64_t>(p[offsetOf(t, idx)]);
        });
    });
    return v;
}

template<class A>
std::vector<A> widenAll(const Tensor& t)
{
    std::vector<A> out(static_cast<size_t>(t.numel()));
    const char* base = static_cast<const char*>(t.rawData());
    forEachIndex(t.sizes(), [&](const int64_t* idx, int64_t flat) {
        out[static_cast<size_t>(flat)] =
            static_cast<A>(loadAsDouble(base + offsetOf(t, idx) * t.itemSize(), t.dtype()));
    });
    return out;
}

// t converted to dtype `to` (contiguous copy).
Tensor castTo(const KernelCall& call, const Tensor& t, DType to)
{
    Tensor c = call.newTensor(t.sizes(), to);
    char* dst = static_cast<char*>(c.rawData());
    const char* src = static_cast<const char*>(t.rawData());
    forEachIndex(t.sizes(), [&](const int64_t* idx, int64_t flat) {
        storeFromDouble(dst + flat * c.itemSize(), to, loadAsDouble(src + offsetOf(t, idx) * t.itemSize(), t.dtype()));
    });
    return c;
}

struct NllShape
{
    bool batched = false;
    int64_t N = 1, C = 0;
};

NllShape nllShape(const Tensor& x, const Tensor& target, const Value& weight, const char* op)
{
    if (x.dim() < 1 || x.dim() > 2) throw KernelError(std::string(op) + ": input tensor should be 1D or 2D");
    if (target.dim() > 1)
        throw KernelError(std::string(op) + ": 0D or 1D target tensor expected, multi-target not supported");
    NllShape s;
    s.batched = x.dim() == 2;
    s.N = s.batched ? x.size(0) : 1;
    s.C = x.size(-1);
    if (s.batched ? (target.dim() != 1 || target.size(0) != s.N) : target.numel() != 1)
        throw KernelError(std::string(op) + ": size mismatch between input and target batch");
    if (!weight.isNone() && weight.tensor.numel() != s.C)
        throw KernelError(std::string(op) + ": weight tensor should be defined either for all " + std::to_string(s.C)
                          + " classes or no classes");
    return s;
}

void checkTarget(int64_t t, int64_t C, const char* op)
{
    if (t < 0 || t >= C) throw KernelError(std::string(op) + ": target " + std::to_string(t) + " is out of bounds");
}

// What both nll_loss kernels read, checked in PyTorch's order: reduction, ignore_index, the
// shapes, then every target not ignored in [0, C).
struct NllArgs
{
    NllShape s;
    int64_t reduction = 0, ignore = 0;
    std::vector<int64_t> tg;
    bool perRow = false;  // reduction none with a batch: one loss per row
};

NllArgs nllArgs(KernelCall& call, const Tensor& x, const Tensor& target, const Value& wv, const char* op)
{
    NllArgs a;
    a.reduction = reductionOf(call, op);
    a.ignore = call.arg("ignore_index").toInt();
    a.s = nllShape(x, target, wv, op);
    a.tg = indexValues(target, op);
    for (int64_t t : a.tg)
        if (t != a.ignore) checkTarget(t, a.s.C, op);
    a.perRow = a.reduction == kNone && a.s.batched;
    return a;
}

// loss_i = -(x[i, t_i] [* w[t_i]]) or +0 for ignored rows; w_i = w[t_i] (1 without weight)
// or 0 for ignored rows. none: (loss_i, total = w_0 for 1-d input, 0 otherwise);
// sum: (S(loss), S(w)); mean: (S(loss) / S(w), S(w)).
void nllForward(KernelCall& call)
{
    const char* op = "nll_loss_forward";
    const Tensor& x = call.tensor("self");
    const Tensor& target = call.tensor("target");
    const Value& wv = call.arg("weight");
    const NllArgs na = nllArgs(call, x, target, wv, op);
    const NllShape& s = na.s;
    const int64_t reduction = na.reduction, ignore = na.ignore;
    const std::vector<int64_t>& tg = na.tg;
    const bool perRow = na.perRow;
    Tensor out = call.newTensor(perRow ? std::vector<int64_t>{s.N} : std::vector<int64_t>{}, x.dtype());
    Tensor total = call.newTensor({}, x.dtype());
    dispatchFloating(x.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        const std::vector<A> w = wv.isNone() ? std::vector<A>{} : widenAll<A>(wv.tensor);
        const T* p = x.template data<T>();
        const int64_t rs = s.batched ? x.stride(0) : 0, cs = x.stride(-1);
        auto term = [&](int64_t i, A& wi) -> A {
            const int64_t t = tg[static_cast<size_t>(i)];
            if (t == ignore) {
                wi = A(0);
                return A(0);
            }
            const A v = widenTo<A>(p[i * rs + t * cs]);
            wi = w.empty() ? A(1) : w[static_cast<size_t>(t)];
            return w.empty() ? -v : -(v * wi);
        };
        T* o = out.template data<T>();
        T* tw = total.template data<T>();
        if (perRow) {
            parallelRows(call.pool, s.N, 4096, [&](int64_t b, int64_t e) {
                for (int64_t i = b; i < e; ++i) {
                    A wi;
                    o[i] = narrowTo<T>(term(i, wi));
                }
            });
            *tw = narrowTo<T>(A(0));
            return;
        }
        std::vector<A> loss(static_cast<size_t>(s.N)), wts(static_cast<size_t>(s.N));
        for (int64_t i = 0; i < s.N; ++i) loss[static_cast<size_t>(i)] = term(i, wts[static_cast<size_t>(i)]);
        if (reduction == kNone) {  // 1-d input: one row
            *o = narrowTo<T>(loss[0]);
            *tw = narrowTo<T>(wts[0]);
            return;
        }
        const A sl = sumOrdered<A>(s.N, [&](int64_t i) { return loss[static_cast<size_t>(i)]; });
        const A sw = sumOrdered<A>(s.N, [&](int64_t i) { return wts[static_cast<size_t>(i)]; });
        *o = narrowTo<T>(reduction == kMean ? sl / sw : sl);
        *tw = narrowTo<T>(sw);
    });
    call.result = Value::ofList({Value::ofTensor(out), Value::ofTensor(total)});
}

// gi = 0 except gi[i, t_i] for rows not ignored:
// none: -w[t_i] * g_i (-g_i without weight); sum: w[t_i] * (-g); mean: w[t_i] * (-(g / total)).
void nllBackward(KernelCall& call)
{
    const char* op = "nll_loss_backward";
    const Tensor& g = call.tensor("grad_output");
    const Tensor& x = call.tensor("self");
    const Tensor& target = call.tensor("target");
    const Value& wv = call.arg("weight");
    const NllArgs na = nllArgs(call, x, target, wv, op);
    const NllShape& s = na.s;
    const int64_t reduction = na.reduction, ignore = na.ignore;
    const std::vector<int64_t>& tg = na.tg;
    const bool perRow = na.perRow;
    if (perRow ? (g.dim() != 1 || g.size(0) != s.N) : g.numel() != 1)
        throw KernelError(std::string(op) + ": grad_output has the wrong shape for the reduction");
    Tensor out = call.newTensor(x.sizes(), x.dtype());
    dispatchFloating(x.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        const std::vector<A> w = wv.isNone() ? std::vector<A>{} : widenAll<A>(wv.tensor);
        const std::vector<A> gv = widenAll<A>(g);
        A scalarGrad = A(0);
        if (!perRow) {
            if (reduction == kMean)
                scalarGrad = -(gv[0] / widenAll<A>(call.tensor("total_weight"))[0]);
            else if (reduction == kSum)
                scalarGrad = -gv[0];
        }
        T* o = out.template data<T>();
        const int64_t C = s.C;
        parallelRows(call.pool, s.N, grainFor(C), [&](int64_t b, int64_t e) {
            for (int64_t i = b; i < e; ++i) {
                T* row = o + i * C;
                for (int64_t j = 0; j < C; ++j) row[j] = narrowTo<T>(A(0));
                const int64_t t = tg[static_cast<size_t>(i)];
                if (t == ignore) continue;
                A v;
                if (reduction == kNone) {
                    const A gi = gv[static_cast<size_t>(i)];
                    v = w.empty() ? -gi : -w[static_cast<size_t>(t)] * gi;
                } else {
                    v = w.empty() ? scalarGrad : w[static_cast<size_t>(t)] * scalarGrad;
                }
                row[t] = narrowTo<T>(v);
            }
        });
    });
    call.result = Value::ofTensor(out);
}

// ---- mse
// none: (x - t)^2 per element; sum: S((x - t)^2) over the broadcast shape in row-major order;
// mean: that sum / numel.
void mseLoss(KernelCall& call)
{
    const char* op = "mse_loss";
    const Tensor& x0 = call.tensor("self");
    const Tensor& t0 = call.tensor("target");
    const int64_t reduction = reductionOf(call, op);
    const std::vector<int64_t> shape = broadcastShapes(x0.sizes(), t0.sizes());
    const DType dt = promoteTypes(x0.dtype(), t0.dtype());
    Tensor x = expandTo(x0, shape), t = expandTo(t0, shape);
    if (x.dtype() != dt) x = castTo(call, x, dt);
    if (t.dtype() != dt) t = castTo(call, t, dt);
    Tensor out = call.newTensor(reduction == kNone ? shape : std::vector<int64_t>{}, dt);
    std::vector<int64_t> all;
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) all.push_back(d);
    dispatchFloating(dt, op, [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        const T* xp = x.template data<T>();
        const T* tp = t.template data<T>();
        T* o = out.template data<T>();
        if (reduction == kNone) {
            const std::vector<int64_t> last = shape.empty() ? std::vector<int64_t>{} : std::vector<int64_t>{all.back()};
            const RowView rx(x, last), rt(t, last), ro(out, last);
            parallelRows(call.pool, rx.rows, grainFor(rx.cols), [&](int64_t b, int64_t e) {
                for (int64_t r = b; r < e; ++r) {
                    const T* xq = xp + rx.rowOffset(r);
                    const T* tq = tp + rt.rowOffset(r);
                    T* w = o + ro.rowOffset(r);
                    for (int64_t j = 0; j < rx.cols; ++j) {
                        const A d = widenTo<A>(xq[rx.colOffset(j)]) - widenTo<A>(tq[rt.colOffset(j)]);
                        w[ro.colOffset(j)] = narrowTo<T>(d * d);
                    }
                }
            });
            return;
        }
        const RowView rx(x, all), rt(t, all);
        const int64_t n = rx.cols;
        const A s = sumOrdered<A>(n, [&](int64_t i) {
            const A d = widenTo<A>(xp[rx.colOffset(i)]) - widenTo<A>(tp[rt.colOffset(i)]);
            return d * d;
        });
        *o = narrowTo<T>(reduction == kMean ? s / static_cast<A>(n) : s);
    });
    call.result = Value::ofTensor(out);
}

// gi = (norm * (x - t)) * g with norm = 2/numel (mean) or 2, rounded to the compute type.
void mseLossBwd(KernelCall& call)
{
    const char* op = "mse_loss_backward";
    const Tensor& g0 = call.tensor("grad_output");
    const Tensor& x = call.tensor("self");
    const Tensor& t0 = call.tensor("target");
    const int64_t reduction = reductionOf(call, op);
    if (t0.dtype() != x.dtype() || g0.dtype() != x.dtype())
        throw KernelError(std::string(op) + ": grad_output, self and target must have the same dtype");
    const std::vector<int64_t>& shape = x.sizes();
    const Tensor t = expandTo(t0, shape), g = expandTo(g0, shape);
    Tensor out = call.newTensor(shape, x.dtype());
    const std::vector<int64_t> last = shape.empty() ? std::vector<int64_t>{} : std::vector<int64_t>{x.dim() - 1};
    const double norm = reduction == kMean ? 2.0 / static_cast<double>(x.numel()) : 2.0;
    dispatchFloating(x.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        const A nA = static_cast<A>(norm);
        const RowView rx(x, last), rt(t, last), rg(g, last), ro(out, last);
        const T* xp = x.template data<T>();
        const T* tp = t.template data<T>();
        const T* gp = g.template data<T>();
        T* o = out.template data<T>();
        parallelRows(call.pool, rx.rows, grainFor(rx.cols), [&](int64_t b, int64_t e) {
            for (int64_t r = b; r < e; ++r) {
                const T* xq = xp + rx.rowOffset(r);
                const T* tq = tp + rt.rowOffset(r);
                const T* gq = gp + rg.rowOffset(r);
                T* w = o + ro.rowOffset(r);
                for (int64_t j = 0; j < rx.cols; ++j) {
                    const A d = widenTo<A>(xq[rx.colOffset(j)]) - widenTo<A>(tq[rt.colOffset(j)]);
                    w[ro.colOffset(j)] = narrowTo<T>((nA * d) * widenTo<A>(gq[rg.colOffset(j)]));
                }
            }
        });
    });
    call.result = Value::ofTensor(out);
}

// ---- embedding_dense_backward: out[v, :] = S over the tokens k with index v (in token order)
// of scale_v * grad[k, :]; scale_v = 1 / count_v with scale_grad_by_freq, else the term is
// grad[k, :] itself. Tokens equal to padding_idx are skipped. Vocabulary rows are split between
// threads, each row reduced by one thread.
void embeddingDenseBwd(KernelCall& call)
{
    const char* op = "embedding_dense_backward";
    const Tensor& g = call.tensor("grad_output");
    const Tensor& indices = call.tensor("indices");
    const int64_t V = call.arg("num_weights").toInt();
    const int64_t pad = call.arg("padding_idx").toInt();
    const bool byFreq = call.arg("scale_grad_by_freq").toInt() != 0;
    if (g.dim() < 1) throw KernelError(std::string(op) + ": grad must have at least 1 dim");
    if (V < 0) throw KernelError(std::string(op) + ": num_weights must be >= 0");
    const RowView rg(g, {g.dim() - 1});
    const std::vector<int64_t> ids = indexValues(indices, op);
    const int64_t K = static_cast<int64_t>(ids.size());
    if (rg.rows != K)
        throw KernelError(std::string(op) + ": grad has " + std::to_string(rg.rows) + " rows but indices has "
                          + std::to_string(K) + " elements");
    const int64_t D = rg.cols;
    // counting sort of the tokens by vocabulary row, stable (token order within a row)
    std::vector<int64_t> start(static_cast<size_t>(V) + 1, 0), order;
    for (int64_t v : ids) {
        if (v == pad) continue;
        if (v < 0 || v >= V)
            throw KernelError(std::string(op) + ": index " + std::to_string(v) + " is out of range [0, "
                              + std::to_string(V) + ")");
        ++start[static_cast<size_t>(v) + 1];
    }
    for (int64_t v = 0; v < V; ++v) start[static_cast<size_t>(v) + 1] += start[static_cast<size_t>(v)];
    order.resize(static_cast<size_t>(start[static_cast<size_t>(V)]));
    {
        std::vector<int64_t> fill(start.begin(), start.end() - 1);
        for (int64_t k = 0; k < K; ++k) {
            const int64_t v = ids[static_cast<size_t>(k)];
            if (v != pad) order[static_cast<size_t>(fill[static_cast<size_t>(v)]++)] = k;
        }
    }
    std::vector<int64_t> gb(static_cast<size_t>(K));
    for (int64_t k = 0; k < K; ++k) gb[static_cast<size_t>(k)] = rg.rowOffset(k);
    Tensor out = call.newTensor({V, D}, g.dtype());
    dispatchFloating(g.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        const T* p = g.template data<T>();
        T* o = out.template data<T>();
        const int64_t cs = rg.colStride;
        parallelRows(
            call.pool, V, std::max<int64_t>(1, grainFor(D * std::max<int64_t>(1, K / std::max<int64_t>(1, V)))),
            [&](int64_t b, int64_t e) {
                A acc[kTile];
                for (int64_t v = b; v < e; ++v) {
                    const int64_t* tok = order.data() + start[static_cast<size_t>(v)];
                    const int64_t m = start[static_cast<size_t>(v) + 1] - start[static_cast<size_t>(v)];
                    const A scale = static_cast<A>(m > 0 ? 1.0 / static_cast<double>(m) : 1.0);
                    T* row = o + v * D;
                    for (int64_t j0 = 0; j0 < D; j0 += kTile) {
                        const int T_ = static_cast<int>(std::min<int64_t>(kTile, D - j0));
                        const T* q = p + j0 * cs;
                        if (cs == 1 && !byFreq)  // adjacent columns: the tile loop vectorises
                            sumOrderedTile<A>(
                                m, T_,
                                [&](int t, int64_t i) { return widenTo<A>(q[gb[static_cast<size_t>(tok[i])] + t]); },
                                acc);
                        else if (byFreq)
                            sumOrderedTile<A>(
                                m, T_,
                                [&](int t, int64_t i) {
                                    return scale * widenTo<A>(q[gb[static_cast<size_t>(tok[i])] + t * cs]);
                                },
                                acc);
                        else
                            sumOrderedTile<A>(
                                m, T_,
                                [&](int t, int64_t i) {
                                    return widenTo<A>(q[gb[static_cast<size_t>(tok[i])] + t * cs]);
                                },
                                acc);
                        for (int t = 0; t < T_; ++t) row[j0 + t] = narrowTo<T>(acc[t]);
                    }
                }
            });
    });
    call.result = Value::ofTensor(out);
}

}  // namespace

void registerLossKernels(KernelRegistry& reg)
{
    reg.add("aten.nll_loss_forward.default", DeviceKind::Cpu, nllForward);
    reg.add("aten.nll_loss_backward.default", DeviceKind::Cpu, nllBackward);
    reg.add("aten.mse_loss.default", DeviceKind::Cpu, mseLoss);
    reg.add("aten.mse_loss_backward.default", DeviceKind::Cpu, mseLossBwd);
    reg.add("aten.embedding_dense_backward.default", DeviceKind::Cpu, embeddingDenseBwd);
}

}  // namespace fxl::cpu::red

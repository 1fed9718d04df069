// CPU kernels of group norm and batch norm on an input [N, C, *] (read as [N, C, HW], a
// contiguous copy made first when it is strided). Every statistic is one fixed-order sum
// (runtime/math/sum_order.hpp; the formulas: runtime/math/rows.hpp) computed by one thread:
// - group norm: rows (n, g) of D = C / G * HW elements, threads split rows only, so a sample's
//   bits never depend on the other samples in the call (batch invariance); its weight / bias
//   gradients are sums over the batch per channel, in (n, hw) order, threads split channels;
// - batch norm: per channel over the N * HW elements in (n, hw) order, threads split channels.
// The statistics as layer norm computes them: m0 = S(x)/M, mean = m0 + S(x - m0)/M,
// var = S((x - mean)^2)/M (biased), rstd = 1/sqrt(var + eps); y = (x - mean) * rstd * w + b.
#include "runtime/cpu/cpu_norm_batch.hpp"

#include <cmath>

#include "runtime/base/backend.hpp"
#include "runtime/cpu/cpu_common.hpp"
#include "runtime/cpu/cpu_reduction.hpp"

namespace fxl::cpu::red {
namespace {

// An optional per-channel tensor (weight, bias, running stats, saved stats) widened to A;
// empty for None.
template<class A>
std::vector<A> channelVector(const Value& v, int64_t C, const std::string& op, const char* what)
{
    std::vector<A> out;
    if (v.isNone()) return out;
    if (!v.isTensor()) throw KernelError(op + ": " + what + " must be a tensor or None");
    const Tensor& t = v.tensor;
    if (t.numel() != C)
        throw KernelError(op + ": " + what + " has " + std::to_string(t.numel()) + " elements, expected "
                          + std::to_string(C));
    out.resize(static_cast<size_t>(C));
    const char* base = static_cast<const char*>(t.rawData());
    forEachIndex(t.sizes(), [&](const int64_t* idx, int64_t flat) {
        out[static_cast<size_t>(flat)] =
            static_cast<A>(loadAsDouble(base + offsetOf(t, idx) * t.itemSize(), t.dtype()));
    });
    return out;
}

// The [N, C, HW] reading of an input with at least 2 dims.
struct Layout
{
    int64_t N = 0, C = 0, HW = 1;
};
Layout layoutOf(const Tensor& x, const std::string& op)
{
    if (x.dim() < 2) throw KernelError(op + ": input must have at least 2 dims [N, C, *], got " + describe(x));
    Layout l;
    l.N = x.size(0);
    l.C = x.size(1);
    for (int64_t k = 2; k < x.dim(); ++k) l.HW *= x.size(k);
    return l;
}

Tensor contiguousOf(const KernelCall& call, const Tensor& t)
{
    return t.isContiguous() ? t : contiguous(t, *call.backend);
}

template<class A>
struct Stats
{
    A mean, var;
};
// mean and biased variance of load(0 .. M-1) in the layer-norm order (math/rows.hpp).
template<class A, class Load>
Stats<A> meanVar(int64_t M, Load&& load)
{
    const math::rows::Moments<A> m = math::rows::moments<A>(M, load);
    return {m.mean, m.m2 / static_cast<A>(M)};
}

DType statDtypeOf(DType t) { return t == DType::BF16 || t == DType::F16 ? DType::F32 : t; }

// ---- on a device: the same checks, the per-channel tensors widened there (widenedOnDevice)
// and the loop the backend's (Backend::batchNorm)

// channelVector's checks; the tensor widened to the accumulation type, contiguous (undefined
// for None).
Tensor channelOnDevice(const KernelCall& call, const Value& v, int64_t C, const std::string& op, const char* what)
{
    if (v.isNone()) return {};
    if (!v.isTensor()) throw KernelError(op + ": " + what + " must be a tensor or None");
    if (v.tensor.numel() != C)
        throw KernelError(op + ": " + what + " has " + std::to_string(v.tensor.numel()) + " elements, expected "
                          + std::to_string(C));
    return widenedOnDevice(call, v.tensor);
}

// dst = a (accumulation type, dst's element count) as storeVector stores: through double.
void storeChannels(const KernelCall& call, const Tensor& dst, const Tensor& a)
{
    const Tensor v = castThroughDouble(call, a, dst.dtype());
    call.backend->copy(dst, v.asStrided(dst.sizes(), Tensor::contiguousStrides(dst.sizes()), 0));
}

const Tensor* orNull(const Tensor& t) { return t.defined() ? &t : nullptr; }

// ---- group norm
void groupNorm(KernelCall& call)
{
    const std::string op = "native_group_norm";
    const Tensor x = contiguousOf(call, call.tensor("input"));
    const int64_t N = call.arg("N").toInt(), C = call.arg("C").toInt(), HW = call.arg("HxW").toInt(),
                  G = call.arg("group").toInt();
    const double eps = call.arg("eps").toDouble();
    if (G <= 0 || C % G != 0)
        throw KernelError(op + ": C (" + std::to_string(C) + ") must be divisible by group (" + std::to_string(G)
                          + ")");
    if (x.numel() != N * C * HW || (x.dim() >= 2 && (x.size(0) != N || x.size(1) != C)))
        throw KernelError(op + ": input " + describe(x) + " is not [N=" + std::to_string(N) + ", C=" + std::to_string(C)
                          + ", HxW=" + std::to_string(HW) + "]");
    const int64_t cpg = C / G, D = cpg * HW, rows = N * G;
    Tensor out = call.newTensor(x.sizes(), x.dtype());
    Tensor meanT = call.newTensor({N, G}, x.dtype());
    Tensor rstdT = call.newTensor({N, G}, x.dtype());
    if (call.backend->device() != DeviceKind::Cpu) {
        dispatchFloating(x.dtype(), op.c_str(), [](auto) {});  // the CPU's refusal of other dtypes
        const Tensor w = channelOnDevice(call, call.arg("weight"), C, op, "weight");
        const Tensor b = channelOnDevice(call, call.arg("bias"), C, op, "bias");
        GroupNormLoop loop;
        loop.N = N;
        loop.C = C;
        loop.HW = HW;
        loop.G = G;
        loop.eps = eps;
        loop.x = &x;
        loop.out = &out;
        loop.weight = orNull(w);
        loop.bias = orNull(b);
        loop.meanOut = &meanT;
        loop.rstdOut = &rstdT;
        call.backend->groupNorm(loop);
        call.result = Value::ofList({Value::ofTensor(out), Value::ofTensor(meanT), Value::ofTensor(rstdT)});
        return;
    }
    dispatchFloating(x.dtype(), op.c_str(), [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        const std::vector<A> w = channelVector<A>(call.arg("weight"), C, op, "weight");
        const std::vector<A> b = channelVector<A>(call.arg("bias"), C, op, "bias");
        const T* p = x.template data<T>();
        T* o = out.template data<T>();
        T* mo = meanT.template data<T>();
        T* so = rstdT.template data<T>();
        const A epsA = static_cast<A>(eps);
        parallelRows(call.pool, rows, grainFor(D), [&](int64_t r0, int64_t r1) {
            for (int64_t r = r0; r < r1; ++r) {
                const T* q = p + r * D;
                const Stats<A> st = meanVar<A>(D, [&](int64_t i) { return widenTo<A>(q[i]); });
                const A rstd = math::rows::rstdOf(st.var, epsA);
                const int64_t c0 = (r % G) * cpg;
                for (int64_t j = 0; j < D; ++j) {
                    const size_t c = static_cast<size_t>(c0 + j / HW);
                    o[r * D + j] = narrowTo<T>(
                        math::rows::affine(math::rows::normalized(widenTo<A>(q[j]), st.mean, rstd), !w.empty(),
                                           w.empty() ? A(0) : w[c], !b.empty(), b.empty() ? A(0) : b[c]));
                }
                mo[r] = narrowTo<T>(st.mean);
                so[r] = narrowTo<T>(rstd);
            }
        });
    });
    call.result = Value::ofList({Value::ofTensor(out), Value::ofTensor(meanT), Value::ofTensor(rstdT)});
}

// xhat = (x - mean) * rstd, g = dy * w
// dx_j = (rstd / D) * ((D * g_j - S(g)) - xhat_j * S(g * xhat))   per row (n, group)
// dw_c = S_{n,hw}(dy * xhat), db_c = S_{n,hw}(dy)                   per channel
void groupNormBwd(KernelCall& call)
{
    const std::string op = "native_group_norm_backward";
    const Tensor dy = contiguousOf(call, call.tensor("grad_out"));
    const Tensor x = contiguousOf(call, call.tensor("input"));
    const int64_t N = call.arg("N").toInt(), C = call.arg("C").toInt(), HW = call.arg("HxW").toInt(),
                  G = call.arg("group").toInt();
    if (G <= 0 || C % G != 0)
        throw KernelError(op + ": C (" + std::to_string(C) + ") must be divisible by group (" + std::to_string(G)
                          + ")");
    if (dy.sizes() != x.sizes() || dy.dtype() != x.dtype())
        throw KernelError(op + ": grad_out " + describe(dy) + " and input " + describe(x) + " differ");
    if (x.numel() != N * C * HW)
        throw KernelError(op + ": input " + describe(x) + " is not [N, C, HxW] = [" + std::to_string(N) + ", "
                          + std::to_string(C) + ", " + std::to_string(HW) + "]");
    std::vector<int64_t> mask = call.arg("output_mask").toIntList();
    mask.resize(3, 0);
    const int64_t cpg = C / G, D = cpg * HW, rows = N * G;
    const Value& wv = call.arg("weight");
    Tensor dx, dw, db;
    if (mask[0]) dx = call.newTensor(x.sizes(), x.dtype());
    if (mask[1]) dw = call.newTensor({C}, wv.isTensor() ? wv.tensor.dtype() : x.dtype());
    if (mask[2]) db = call.newTensor({C}, wv.isTensor() ? wv.tensor.dtype() : x.dtype());
    if (call.backend->device() != DeviceKind::Cpu) {
        dispatchFloating(x.dtype(), op.c_str(), [](auto) {});
        const Tensor w = channelOnDevice(call, wv, C, op, "weight");
        const Tensor mean = channelOnDevice(call, call.arg("mean"), rows, op, "mean");
        const Tensor rstd = channelOnDevice(call, call.arg("rstd"), rows, op, "rstd");
        if (!mean.defined() || !rstd.defined()) throw KernelError(op + ": mean and rstd must be tensors");
        const DType acc = accDtypeOf(x.dtype());
        Tensor dwA, dbA;
        if (mask[1]) dwA = call.newTensor({C}, acc);
        if (mask[2]) dbA = call.newTensor({C}, acc);
        GroupNormLoop loop;
        loop.backward = true;
        loop.N = N;
        loop.C = C;
        loop.HW = HW;
        loop.G = G;
        loop.x = &x;
        loop.dy = &dy;
        loop.out = orNull(dx);
        loop.weight = orNull(w);
        loop.mean = &mean;
        loop.rstd = &rstd;
        loop.dw = orNull(dwA);
        loop.db = orNull(dbA);
        call.backend->groupNorm(loop);
        if (dw.defined()) storeChannels(call, dw, dwA);
        if (db.defined()) storeChannels(call, db, dbA);
        call.result = Value::ofList({tensorOrNone(dx), tensorOrNone(dw), tensorOrNone(db)});
        return;
    }
    dispatchFloating(x.dtype(), op.c_str(), [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        const std::vector<A> w = channelVector<A>(wv, C, op, "weight");
        const std::vector<A> mean = channelVector<A>(call.arg("mean"), rows, op, "mean");
        const std::vector<A> rstd = channelVector<A>(call.arg("rstd"), rows, op, "rstd");
        if (mean.empty() || rstd.empty()) throw KernelError(op + ": mean and rstd must be tensors");
        const T* xp = x.template data<T>();
        const T* gp = dy.template data<T>();
        if (dx.defined()) {
            T* o = dx.template data<T>();
            const A dA = static_cast<A>(D);
            parallelRows(call.pool, rows, grainFor(D), [&](int64_t r0, int64_t r1) {
                std::vector<A> gb(static_cast<size_t>(D)), xb(static_cast<size_t>(D));
                for (int64_t r = r0; r < r1; ++r) {
                    const A m = mean[static_cast<size_t>(r)], rs = rstd[static_cast<size_t>(r)];
                    const int64_t c0 = (r % G) * cpg;
                    for (int64_t j = 0; j < D; ++j) {
                        const A g = widenTo<A>(gp[r * D + j]);
                        gb[static_cast<size_t>(j)] = w.empty() ? g : g * w[static_cast<size_t>(c0 + j / HW)];
                        xb[static_cast<size_t>(j)] = math::rows::normalized(widenTo<A>(xp[r * D + j]), m, rs);
                    }
                    const A sg = sumOrdered<A>(D, [&](int64_t i) { return gb[static_cast<size_t>(i)]; });
                    const A sgx = sumOrdered<A>(
                        D, [&](int64_t i) { return gb[static_cast<size_t>(i)] * xb[static_cast<size_t>(i)]; });
                    const A scale = rs / dA;
                    for (int64_t j = 0; j < D; ++j)
                        o[r * D + j] = narrowTo<T>(math::rows::normInputGrad(scale, dA, gb[static_cast<size_t>(j)], sg,
                                                                             xb[static_cast<size_t>(j)], sgx));
                }
            });
        }
        if (!dw.defined() && !db.defined()) return;
        std::vector<A> dwv(static_cast<size_t>(C)), dbv(static_cast<size_t>(C));
        parallelRows(call.pool, C, std::max<int64_t>(1, grainFor(N * HW)), [&](int64_t c0, int64_t c1) {
            for (int64_t c = c0; c < c1; ++c) {
                auto at = [&](int64_t i) { return ((i / HW) * C + c) * HW + i % HW; };
                const int64_t g = c / cpg;
                if (dw.defined())
                    dwv[static_cast<size_t>(c)] = sumOrdered<A>(N * HW, [&](int64_t i) {
                        const size_t s = static_cast<size_t>((i / HW) * G + g);
                        return widenTo<A>(gp[at(i)]) * math::rows::normalized(widenTo<A>(xp[at(i)]), mean[s], rstd[s]);
                    });
                if (db.defined())
                    dbv[static_cast<size_t>(c)] =
                        sumOrdered<A>(N * HW, [&](int64_t i) { return widenTo<A>(gp[at(i)]); });
            }
        });
        if (dw.defined()) storeVector(dw, dwv);
        if (db.defined()) storeVector(db, dbv);
    });
    call.result = Value::ofList({tensorOrNone(dx), tensorOrNone(dw), tensorOrNone(db)});
}

// ---- batch norm
// training: statistics of the batch per channel (the running stats, when given, updated in
// place: r = (1 - momentum) * r + momentum * s, the variance unbiased); otherwise the running
// stats normalise. Returns (out, save_mean, save_invstd): the batch statistics in training,
// empty [0] tensors otherwise; f32 for bf16 / f16 inputs.
void batchNormImpl(KernelCall& call, const std::string& op, bool training, const Value& rmV, const Value& rvV)
{
    const Tensor x = contiguousOf(call, call.tensor("input"));
    const Layout l = layoutOf(x, op);
    const double momentum = call.arg("momentum").toDouble(), eps = call.arg("eps").toDouble();
    const DType sdt = statDtypeOf(x.dtype());
    const int64_t M = l.N * l.HW;
    Tensor out = call.newTensor(x.sizes(), x.dtype());
    Tensor sm = call.newTensor({training ? l.C : 0}, sdt);
    Tensor si = call.newTensor({training ? l.C : 0}, sdt);
    if (call.backend->device() != DeviceKind::Cpu) {
        dispatchFloating(x.dtype(), op.c_str(), [](auto) {});  // the CPU's refusal of other dtypes
        const Tensor w = channelOnDevice(call, call.arg("weight"), l.C, op, "weight");
        const Tensor b = channelOnDevice(call, call.arg("bias"), l.C, op, "bias");
        const Tensor rm = channelOnDevice(call, rmV, l.C, op, "running_mean");
        const Tensor rv = channelOnDevice(call, rvV, l.C, op, "running_var");
        if (!training && (!rm.defined() || !rv.defined()))
            throw KernelError(op + ": running_mean and running_var are required when training is False");
        const DType acc = accDtypeOf(x.dtype());
        const Tensor meanA = call.newTensor({l.C}, acc), rstdA = call.newTensor({l.C}, acc);
        BatchNormLoop loop;
        loop.training = training;
        loop.N = l.N;
        loop.C = l.C;
        loop.HW = l.HW;
        loop.eps = eps;
        loop.momentum = momentum;
        loop.x = &x;
        loop.out = &out;
        loop.weight = orNull(w);
        loop.bias = orNull(b);
        loop.runningMean = orNull(rm);
        loop.runningVar = orNull(rv);
        loop.meanOut = &meanA;
        loop.rstdOut = &rstdA;
        call.backend->batchNorm(loop);
        if (training) {
            storeChannels(call, sm, meanA);
            storeChannels(call, si, rstdA);
            if (rmV.isTensor()) storeChannels(call, rmV.tensor, rm);
            if (rvV.isTensor()) storeChannels(call, rvV.tensor, rv);
        }
        call.result = Value::ofList({Value::ofTensor(out), Value::ofTensor(sm), Value::ofTensor(si)});
        return;
    }
    dispatchFloating(x.dtype(), op.c_str(), [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        const std::vector<A> w = channelVector<A>(call.arg("weight"), l.C, op, "weight");
        const std::vector<A> b = channelVector<A>(call.arg("bias"), l.C, op, "bias");
        std::vector<A> rm = channelVector<A>(rmV, l.C, op, "running_mean");
        std::vector<A> rv = channelVector<A>(rvV, l.C, op, "running_var");
        if (!training && (rm.empty() || rv.empty()))
            throw KernelError(op + ": running_mean and running_var are required when training is False");
        const T* p = x.template data<T>();
        T* o = out.template data<T>();
        std::vector<A> meanV(static_cast<size_t>(l.C)), rstdV(static_cast<size_t>(l.C));
        const A epsA = static_cast<A>(eps), mom = static_cast<A>(momentum);
        parallelRows(call.pool, l.C, std::max<int64_t>(1, grainFor(M)), [&](int64_t c0, int64_t c1) {
            for (int64_t c = c0; c < c1; ++c) {
                const size_t cs = static_cast<size_t>(c);
                auto at = [&](int64_t i) { return ((i / l.HW) * l.C + c) * l.HW + i % l.HW; };
                A mean, rstd;
                if (training) {
                    const Stats<A> st = meanVar<A>(M, [&](int64_t i) { return widenTo<A>(p[at(i)]); });
                    mean = st.mean;
                    rstd = math::rows::rstdOf(st.var, epsA);
                    if (!rm.empty()) rm[cs] = math::rows::runningUpdate(rm[cs], st.mean, mom);
                    if (!rv.empty())
                        rv[cs] = math::rows::runningUpdate(rv[cs], math::rows::unbiasedVariance(st.var, M), mom);
                } else {
                    mean = rm[cs];
                    rstd = math::rows::rstdOf(rv[cs], epsA);
                }
                meanV[cs] = mean;
                rstdV[cs] = rstd;
                const A wc = w.empty() ? A(0) : w[cs], bc = b.empty() ? A(0) : b[cs];
                for (int64_t i = 0; i < M; ++i)
                    o[at(i)] = narrowTo<T>(math::rows::affine(math::rows::normalized(widenTo<A>(p[at(i)]), mean, rstd),
                                                              !w.empty(), wc, !b.empty(), bc));
            }
        });
        if (training) {
            storeVector(sm, meanV);
            storeVector(si, rstdV);
            if (rmV.isTensor()) {
                Tensor t = rmV.tensor;
                storeVector(t, rm);
            }
            if (rvV.isTensor()) {
                Tensor t = rvV.tensor;
                storeVector(t, rv);
            }
        }
    });
    call.result = Value::ofList({Value::ofTensor(out), Value::ofTensor(sm), Value::ofTensor(si)});
}

// native_batch_norm / _native_batch_norm_legit(.default): optional running stats
void batchNorm(KernelCall& call, const std::string& op)
{
    batchNormImpl(call, op, call.arg("training").toInt() != 0, call.arg("running_mean"), call.arg("running_var"));
}

void batchNormNoStats(KernelCall& call)
{
    const std::string op = "_native_batch_norm_legit.no_stats";
    if (call.arg("training").toInt() == 0)
        throw KernelError(op + ": training=False needs running statistics (there are none)");
    batchNormImpl(call, op, true, Value::none(), Value::none());
}

void batchNormNoTraining(KernelCall& call)
{
    batchNormImpl(call, "_native_batch_norm_legit_no_training", false, call.arg("running_mean"),
                  call.arg("running_var"));
}

// _native_batch_norm_legit_functional: _native_batch_norm_legit on copies of the running
// stats, returned (updated) as outputs 3 and 4.
void batchNormFunctional(KernelCall& call)
{
    const std::string op = "_native_batch_norm_legit_functional";
    auto copyOf = [&](const char* name) {
        const Tensor& t = call.tensor(name);
        Tensor c = call.newTensor(t.sizes(), t.dtype());
        call.backend->copy(c, t);
        return c;
    };
    const Tensor rm = copyOf("running_mean"), rv = copyOf("running_var");
    batchNormImpl(call, op, call.arg("training").toInt() != 0, Value::ofTensor(rm), Value::ofTensor(rv));
    call.result.items.push_back(Value::ofTensor(rm));
    call.result.items.push_back(Value::ofTensor(rv));
}

// train: mean / rstd the saved batch statistics;
//   dx = (rstd * w / M) * ((M * dy - S(dy)) - xhat * S(dy * xhat))
// eval: mean / rstd from the running stats; dx = dy * rstd * w
// dw_c = S(dy * xhat), db_c = S(dy) (per channel over the N * HW elements)
void batchNormBwd(KernelCall& call)
{
    const std::string op = "native_batch_norm_backward";
    const Tensor dy = contiguousOf(call, call.tensor("grad_out"));
    const Tensor x = contiguousOf(call, call.tensor("input"));
    if (dy.sizes() != x.sizes() || dy.dtype() != x.dtype())
        throw KernelError(op + ": grad_out " + describe(dy) + " and input " + describe(x) + " differ");
    const Layout l = layoutOf(x, op);
    const bool train = call.arg("train").toInt() != 0;
    const double eps = call.arg("eps").toDouble();
    std::vector<int64_t> mask = call.arg("output_mask").toIntList();
    mask.resize(3, 0);
    const Value& wv = call.arg("weight");
    const int64_t M = l.N * l.HW;
    Tensor dx, dw, db;
    const DType pdt = wv.isTensor() ? wv.tensor.dtype() : x.dtype();
    if (mask[0]) dx = call.newTensor(x.sizes(), x.dtype());
    if (mask[1]) dw = call.newTensor({l.C}, pdt);
    if (mask[2]) db = call.newTensor({l.C}, pdt);
    if (call.backend->device() != DeviceKind::Cpu) {
        dispatchFloating(x.dtype(), op.c_str(), [](auto) {});
        const Tensor w = channelOnDevice(call, wv, l.C, op, "weight");
        const Tensor mean = channelOnDevice(call, call.arg(train ? "save_mean" : "running_mean"), l.C, op,
                                            train ? "save_mean" : "running_mean");
        const Tensor rstd = channelOnDevice(call, call.arg(train ? "save_invstd" : "running_var"), l.C, op,
                                            train ? "save_invstd" : "running_var");
        if (!mean.defined() || !rstd.defined())
            throw KernelError(op
                              + (train ? ": train=True needs save_mean and save_invstd"
                                       : ": train=False needs running_mean and running_var"));
        const DType acc = accDtypeOf(x.dtype());
        Tensor dwA, dbA;
        if (mask[1]) dwA = call.newTensor({l.C}, acc);
        if (mask[2]) dbA = call.newTensor({l.C}, acc);
        BatchNormLoop loop;
        loop.backward = true;
        loop.training = train;
        loop.N = l.N;
        loop.C = l.C;
        loop.HW = l.HW;
        loop.eps = eps;
        loop.x = &x;
        loop.dy = &dy;
        loop.out = orNull(dx);
        loop.weight = orNull(w);
        loop.mean = &mean;
        loop.rstd = &rstd;
        loop.dw = orNull(dwA);
        loop.db = orNull(dbA);
        call.backend->batchNorm(loop);
        if (dw.defined()) storeChannels(call, dw, dwA);
        if (db.defined()) storeChannels(call, db, dbA);
        call.result = Value::ofList({tensorOrNone(dx), tensorOrNone(dw), tensorOrNone(db)});
        return;
    }
    dispatchFloating(x.dtype(), op.c_str(), [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        const std::vector<A> w = channelVector<A>(wv, l.C, op, "weight");
        std::vector<A> mean, rstd;
        if (train) {
            mean = channelVector<A>(call.arg("save_mean"), l.C, op, "save_mean");
            rstd = channelVector<A>(call.arg("save_invstd"), l.C, op, "save_invstd");
            if (mean.empty() || rstd.empty()) throw KernelError(op + ": train=True needs save_mean and save_invstd");
        } else {
            mean = channelVector<A>(call.arg("running_mean"), l.C, op, "running_mean");
            rstd = channelVector<A>(call.arg("running_var"), l.C, op, "running_var");
            if (mean.empty() || rstd.empty())
                throw KernelError(op + ": train=False needs running_mean and running_var");
            for (A& v : rstd) v = math::rows::rstdOf(v, static_cast<A>(eps));
        }
        const T* xp = x.template data<T>();
        const T* gp = dy.template data<T>();
        T* o = dx.defined() ? dx.template data<T>() : nullptr;
        std::vector<A> dwv(static_cast<size_t>(l.C)), dbv(static_cast<size_t>(l.C));
        const A mA = static_cast<A>(M);
        parallelRows(call.pool, l.C, std::max<int64_t>(1, grainFor(M)), [&](int64_t c0, int64_t c1) {
            for (int64_t c = c0; c < c1; ++c) {
                const size_t cs = static_cast<size_t>(c);
                auto at = [&](int64_t i) { return ((i / l.HW) * l.C + c) * l.HW + i % l.HW; };
                const A m = mean[cs], rs = rstd[cs], wc = w.empty() ? A(1) : w[cs];
                auto xhat = [&](int64_t i) { return math::rows::normalized(widenTo<A>(xp[at(i)]), m, rs); };
                const A sdy = sumOrdered<A>(M, [&](int64_t i) { return widenTo<A>(gp[at(i)]); });
                const A sdyx = sumOrdered<A>(M, [&](int64_t i) { return widenTo<A>(gp[at(i)]) * xhat(i); });
                dwv[cs] = sdyx;
                dbv[cs] = sdy;
                if (!o) continue;
                if (train) {
                    const A scale = rs * wc / mA;
                    for (int64_t i = 0; i < M; ++i)
                        o[at(i)] = narrowTo<T>(
                            math::rows::normInputGrad(scale, mA, widenTo<A>(gp[at(i)]), sdy, xhat(i), sdyx));
                } else {
                    for (int64_t i = 0; i < M; ++i)
                        o[at(i)] = narrowTo<T>(math::rows::fixedStatsGrad(widenTo<A>(gp[at(i)]), rs, wc));
                }
            }
        });
        if (dw.defined()) storeVector(dw, dwv);
        if (db.defined()) storeVector(db, dbv);
    });
    call.result = Value::ofList({tensorOrNone(dx), tensorOrNone(dw), tensorOrNone(db)});
}

}  // namespace

void registerBatchNormKernels(KernelRegistry& reg, DeviceKind d)
{
    const DeviceKind cpu = d;
    reg.add("aten.native_group_norm.default", cpu, groupNorm);
    reg.add("aten.native_group_norm_backward.default", cpu, groupNormBwd);
    reg.add("aten.native_batch_norm.default", cpu, [](KernelCall& c) { batchNorm(c, "native_batch_norm"); });
    reg.add("aten._native_batch_norm_legit.default", cpu,
            [](KernelCall& c) { batchNorm(c, "_native_batch_norm_legit"); });
    reg.add("aten._native_batch_norm_legit.no_stats", cpu, batchNormNoStats);
    reg.add("aten._native_batch_norm_legit_no_training.default", cpu, batchNormNoTraining);
    reg.add("aten._native_batch_norm_legit_functional.default", cpu, batchNormFunctional);
    reg.add("aten.native_batch_norm_backward.default", cpu, batchNormBwd);
}

}  // namespace fxl::cpu::red

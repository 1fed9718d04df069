// CPU kernels of the pairwise p-norm distances, computed by their definition for every p:
//   d(x, y) = S(|x_k - y_k|^p)^(1/p)   (p = 0: the count of x_k != y_k; p = 1: S(|x_k - y_k|);
//                                       p = 2: sqrt(S((x_k - y_k)^2)); p = inf: max |x_k - y_k|)
// one fixed-order sum per output element (runtime/math/sum_order.hpp), threads
// split the output rows. PyTorch's _cdist_forward computes p = 2 through a matrix product
// (|x|^2 + |y|^2 - 2 x.y) when a side has more than 25 rows and compute_mode allows it; here
// every compute_mode gives the direct sum (more accurate; equal within rounding).
#include "runtime/cpu/cpu_distance.hpp"
#include "runtime/math/functions.hpp"

#include <cmath>
#include <limits>

#include "runtime/base/backend.hpp"
#include "runtime/cpu/cpu_common.hpp"
#include "runtime/cpu/cpu_reduction.hpp"
#include "runtime/math/accumulate.hpp"

namespace fxl::cpu::red {
namespace {

template<class A, class T>
A distance(const T* x, const T* y, int64_t m, double p)
{
    return math::acc::pDistance<A>(
        m, [&](int64_t k) { return widenTo<A>(x[k]); }, [&](int64_t k) { return widenTo<A>(y[k]); }, p);
}

double checkedP(const KernelCall& call, const char* op)
{
    const double p = call.arg("p").toDouble();
    if (!(p >= 0.0)) throw KernelError(std::string(op) + ": p must be a non-negative number, got " + std::to_string(p));
    return p;
}

// _cdist_forward(x1 [*, P, M], x2 [*, R, M], p, compute_mode) -> [*, P, R] (batch dims broadcast)
void cdist(KernelCall& call)
{
    const char* op = "_cdist_forward";
    const Tensor& a0 = call.tensor("x1");
    const Tensor& b0 = call.tensor("x2");
    const double p = checkedP(call, op);
    if (a0.dim() < 2 || b0.dim() < 2 || a0.size(-1) != b0.size(-1))
        throw KernelError(std::string(op) + ": x1 " + describe(a0) + " and x2 " + describe(b0)
                          + " must be [*, P, M] and [*, R, M] with the same M");
    if (a0.dtype() != b0.dtype() || !isFloatingPoint(a0.dtype()))
        throw KernelError(std::string(op) + ": x1 and x2 must share one floating-point dtype");
    const std::vector<int64_t> ba(a0.sizes().begin(), a0.sizes().end() - 2),
        bb(b0.sizes().begin(), b0.sizes().end() - 2);
    std::vector<int64_t> batch = broadcastShapes(ba, bb);
    const int64_t P = a0.size(-2), R = b0.size(-2), M = a0.size(-1);
    int64_t nb = 1;
    for (int64_t s : batch) nb *= s;
    std::vector<int64_t> sa = batch, sb = batch, so = batch;
    sa.insert(sa.end(), {P, M});
    sb.insert(sb.end(), {R, M});
    so.insert(so.end(), {P, R});
    const Tensor a = contiguous(expandTo(a0, sa), *call.backend), b = contiguous(expandTo(b0, sb), *call.backend);
    Tensor out = call.newTensor(so, a.dtype());
    dispatchFloating(a.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        const T* ap = a.template data<T>();
        const T* bp = b.template data<T>();
        T* o = out.template data<T>();
        parallelRows(call.pool, nb * P, grainFor(R * M), [&](int64_t r0, int64_t r1) {
            for (int64_t r = r0; r < r1; ++r) {
                const int64_t bi = r / P;
                for (int64_t j = 0; j < R; ++j)
                    o[r * R + j] = narrowTo<T>(distance<A>(ap + r * M, bp + (bi * R + j) * M, M, p));
            }
        });
    });
    call.result = Value::ofTensor(out);
}

// _pdist_forward(self [N, M], p) -> [N (N - 1) / 2]: rows i < j in row-major order
void pdist(KernelCall& call)
{
    const char* op = "_pdist_forward";
    const Tensor& x0 = call.tensor("self");
    const double p = checkedP(call, op);
    if (x0.dim() != 2 || !isFloatingPoint(x0.dtype()))
        throw KernelError(std::string(op) + ": self must be a 2-d floating-point tensor, got " + describe(x0));
    const Tensor x = contiguous(x0, *call.backend);
    const int64_t N = x.size(0), M = x.size(1);
    Tensor out = call.newTensor({N > 1 ? N * (N - 1) / 2 : 0}, x.dtype());
    dispatchFloating(x.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        const T* xp = x.template data<T>();
        T* o = out.template data<T>();
        parallelRows(call.pool, N, grainFor(N * M), [&](int64_t i0, int64_t i1) {
            for (int64_t i = i0; i < i1; ++i) {
                const int64_t base = i * N - i * (i + 1) / 2;  // pairs (i', j) with i' < i
                for (int64_t j = i + 1; j < N; ++j)
                    o[base + (j - i - 1)] = narrowTo<T>(distance<A>(xp + i * M, xp + j * M, M, p));
            }
        });
    });
    call.result = Value::ofTensor(out);
}

}  // namespace

void registerDistanceKernels(KernelRegistry& reg)
{
    reg.add("aten._cdist_forward.default", DeviceKind::Cpu, cdist);
    reg.add("aten._pdist_forward.default", DeviceKind::Cpu, pdist);
}

}  // namespace fxl::cpu::red

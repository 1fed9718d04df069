// mm / addmm / bmm / baddbmm on the CPU. The products come from the fixed-order GEMM engine
// (gemm.hpp: one sequential-k fma chain per output element, runtime/math/gemm_chain.hpp, which
// also holds the epilogue). addmm adds the bias AFTER the
// dot, as PyTorch's CPU path and its decomposition do:
//     out = alpha*dot + beta*bias   (alpha == 1 / beta == 1 skip the multiply: one rounding each)
// with BLAS's rules for zero scalars: beta == 0 ignores the bias (NaN/inf in it do not
// propagate), alpha == 0 skips the product (NaN/inf in the matrices do not propagate).
// bf16/f16 run the f32 chain and round once after the epilogue; f64 runs the chain in double;
// integers accumulate with wrap-around (exact whatever the order).
#include "runtime/cpu/cpu_matmul.hpp"
#include "runtime/math/gemm_chain.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "runtime/cpu/cpu_common.hpp"
#include "runtime/cpu/cpu_elementwise.hpp"
#include "runtime/cpu/gemm.hpp"
#include "runtime/cpu/thread_pool.hpp"

namespace fxl::cpu {

namespace {

std::string shapeText(const Tensor& t)
{
    std::string s;
    for (size_t k = 0; k < t.sizes().size(); ++k) s += (k ? "x" : "") + std::to_string(t.sizes()[k]);
    return s;
}

// A 3-d (batch, rows, cols) view of a 2-d or 3-d tensor as a GEMM operand.
GemmOperand operandOf(const Tensor& t)
{
    GemmOperand o;
    o.data = t.rawData();
    o.dtype = t.dtype();
    const size_t d = t.sizes().size();
    o.rowStride = t.strides()[d - 2];
    o.colStride = t.strides()[d - 1];
    o.batchStride = d == 3 ? t.strides()[0] : 0;
    return o;
}

// Runs fn(begin, end) over [0, n) rows on the pool (or inline without one).
template<class F>
void forRows(ThreadPool* pool, int64_t n, int64_t rowCost, F&& fn)
{
    const int64_t grain = std::max<int64_t>(1, (1 << 15) / std::max<int64_t>(1, rowCost));
    if (!pool || n <= grain) {
        if (n > 0) fn(int64_t{0}, n);
        return;
    }
    pool->parallelFor(n, grain, fn);
}

struct Scalars
{
    bool hasBias = false;  // addmm / baddbmm
    double alpha = 1.0, beta = 1.0;
    int64_t ialpha = 1, ibeta = 1;
};

// Integer product: exact (wrap-around) whatever the order; accumulate in uint64.
template<class S>
void integerMatmul(const Tensor& a, const Tensor& b, const Tensor* bias, const Tensor& out, const Scalars& sc,
                   int64_t batch, int64_t M, int64_t N, int64_t K, ThreadPool* pool)
{
    const GemmOperand A = operandOf(a), B = operandOf(b);
    const S* pa = static_cast<const S*>(A.data);
    const S* pb = static_cast<const S*>(B.data);
    S* po = out.data<S>();
    const bool useBias = bias && sc.ibeta != 0;
    forRows(pool, batch * M, N * K, [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
            const int64_t bi = r / M, i = r % M;
            for (int64_t j = 0; j < N; ++j) {
                uint64_t dot = 0;
                if (sc.ialpha != 0)
                    for (int64_t k = 0; k < K; ++k)
                        dot = math::gemm::intStep(
                            dot, static_cast<int64_t>(pa[bi * A.batchStride + i * A.rowStride + k * A.colStride]),
                            static_cast<int64_t>(pb[bi * B.batchStride + k * B.rowStride + j * B.colStride]));
                int64_t biasValue = 0;
                if (useBias) {
                    const int64_t d = bias->dim();
                    const int64_t off = (d == 3 ? bi * bias->strides()[0] : 0) + i * bias->strides()[d - 2]
                        + j * bias->strides()[d - 1];
                    biasValue = static_cast<int64_t>(bias->data<S>()[off]);
                }
                po[r * N + j] = static_cast<S>(math::gemm::intEpilogue(dot, sc.ialpha, useBias, biasValue, sc.ibeta));
            }
        }
    });
}

// The float epilogue on the f32/f64 chain results `dot` (row-major [batch][M][N]); writes
// `out` (same dtype as the inputs, contiguous; it may be `dot` itself). Element-wise, so any
// row split gives the same bits.
template<class T>
void floatEpilogue(const T* dot, const Tensor* bias, const Tensor& out, const Scalars& sc, int64_t batch, int64_t M,
                   int64_t N, ThreadPool* pool)
{
    const bool useBias = bias && sc.beta != 0.0;
    const math::gemm::Epilogue<T> ep{
        static_cast<T>(sc.alpha), static_cast<T>(sc.beta), sc.alpha != 0.0, sc.alpha != 1.0, useBias, sc.beta != 1.0};
    const DType dt = out.dtype();
    forRows(pool, batch * M, N, [&](int64_t r0, int64_t r1) {
        std::vector<T> v(static_cast<size_t>(N));
        for (int64_t r = r0; r < r1; ++r) {
            const T* dr = dot + r * N;
            if (!useBias) {
                for (int64_t j = 0; j < N; ++j) v[j] = ep(dr[j], T(0));
            } else {
                const int64_t d = bias->dim(), bi = r / M, i = r % M;
                const int64_t off = (d == 3 ? bi * bias->strides()[0] : 0) + i * bias->strides()[d - 2];
                const int64_t st = bias->strides()[d - 1];
                auto add = [&](auto load) {
                    for (int64_t j = 0; j < N; ++j) v[j] = ep(dr[j], load(off + j * st));
                };
                if constexpr (sizeof(T) == 8) {
                    const double* pb = bias->data<double>();
                    add([pb](int64_t k) { return pb[k]; });
                } else if (bias->dtype() == DType::F32) {
                    const float* pb = bias->data<float>();
                    add([pb](int64_t k) { return pb[k]; });
                } else if (bias->dtype() == DType::BF16) {
                    const uint16_t* pb = bias->data<uint16_t>();
                    add([pb](int64_t k) { return bf16ToF32(pb[k]); });
                } else {
                    const uint16_t* pb = bias->data<uint16_t>();
                    add([pb](int64_t k) { return f16ToF32(pb[k]); });
                }
            }
            if (dt == DType::F32 || dt == DType::F64) {
                std::copy_n(v.data(), N, static_cast<T*>(out.rawData()) + r * N);
            } else if (dt == DType::BF16) {  // round once
                uint16_t* po = out.data<uint16_t>() + r * N;
                for (int64_t j = 0; j < N; ++j) po[j] = f32ToBf16(static_cast<float>(v[j]));
            } else {
                uint16_t* po = out.data<uint16_t>() + r * N;
                for (int64_t j = 0; j < N; ++j) po[j] = f32ToF16(static_cast<float>(v[j]));
            }
        }
    });
}

// On a device backend: the chains by Backend::gemm into out (f32, f64) or a float scratch
// tensor (bf16, f16), then the epilogue and the rounding to out's dtype by the pointwise loop
// with the CPU's functor (math::gemm::Epilogue, then Num<OutS>::store: one rounding).
Tensor deviceMatmul(KernelCall& call, const Tensor& a, const Tensor& b, const Tensor* bias, const Scalars& sc,
                    const std::vector<int64_t>& outSizes)
{
    const DType dt = a.dtype();
    if (isIntegral(dt, false)) {
        switch (dt) {
        case DType::I64:
        case DType::I32:
        case DType::I16:
        case DType::I8:
        case DType::U8: break;
        default: throw KernelError("matmul: unsupported dtype " + std::string(dtypeAbbr(dt)));
        }
        Tensor out = call.newTensor(outSizes, dt);
        GemmLoop g;
        g.batch = a.dim() == 3 ? a.size(0) : 1;
        g.m = a.size(-2);
        g.k = a.size(-1);
        g.n = b.size(-1);
        g.a = operandOf(a);
        g.b = operandOf(b);
        if (bias) g.bias = operandOf(*bias);
        g.c = out.rawData();
        g.ldc = g.n;
        g.cBatchStride = g.m * g.n;
        g.alpha = sc.ialpha;
        g.beta = sc.ibeta;
        if (out.numel() > 0) call.backend->gemm(g);
        return out;
    }
    if (dt != DType::F32 && dt != DType::F64 && dt != DType::BF16 && dt != DType::F16)
        throw KernelError("matmul: unsupported dtype " + std::string(dtypeAbbr(dt)));
    const bool batched = a.dim() == 3;
    Tensor out = call.newTensor(outSizes, dt);
    const bool wide = dt == DType::F64;
    const bool direct = dt == DType::F32 || wide;
    const Tensor dot = direct ? out : call.newTensor(outSizes, DType::F32);
    GemmLoop g;
    g.batch = batched ? a.size(0) : 1;
    g.m = a.size(-2);
    g.k = a.size(-1);
    g.n = b.size(-1);
    g.a = operandOf(a);
    g.b = operandOf(b);
    g.c = dot.rawData();
    g.ldc = g.n;
    g.cBatchStride = g.m * g.n;
    const bool needDot = sc.alpha != 0.0;
    if (needDot && dot.numel() > 0) call.backend->gemm(g);
    if (direct && !bias && sc.alpha == 1.0) return out;
    const bool useBias = bias && sc.beta != 0.0;
    ew::dispatch<ew::Set::Float>(dt, "matmul", [&](auto tag) {
        using S = typename decltype(tag)::type;
        using T = std::conditional_t<sizeof(S) == 8, double, float>;
        const math::gemm::Epilogue<T> ep{
            static_cast<T>(sc.alpha), static_cast<T>(sc.beta), needDot, sc.alpha != 1.0, useBias, sc.beta != 1.0};
        // stored as floatEpilogue stores: f32 / f64 as they are, bf16 / f16 rounded once
        if (useBias)
            ew::pointwise<S, T, S>(call.pool, out, {dot, *bias}, pw::Stored<S, pw::EpilogueBias<T>, T, S>{{ep}});
        else
            ew::pointwise<S, T>(call.pool, out, {dot}, pw::Stored<S, pw::EpilogueDot<T>, T>{{ep}});
    });
    return out;
}

// a: [batch,] M x K, b: [batch,] K x N (2-d or 3-d views, any strides), bias expanded to the
// output's sizes (or nullptr). Returns the contiguous result.
Tensor matmulCommon(KernelCall& call, const Tensor& a, const Tensor& b, const Tensor* bias, const Scalars& sc,
                    const std::vector<int64_t>& outSizes)
{
    if (call.backend && call.backend->device() != DeviceKind::Cpu) return deviceMatmul(call, a, b, bias, sc, outSizes);
    const DType dt = a.dtype();
    const bool batched = a.dim() == 3;
    const int64_t batch = batched ? a.size(0) : 1;
    const int64_t M = a.size(-2), K = a.size(-1), N = b.size(-1);
    Tensor out = call.newTensor(outSizes, dt);
    ThreadPool* pool = call.pool;
    const int64_t mn = M * N;

    if (isIntegral(dt, false)) {
        switch (dt) {
        case DType::I64: integerMatmul<int64_t>(a, b, bias, out, sc, batch, M, N, K, pool); break;
        case DType::I32: integerMatmul<int32_t>(a, b, bias, out, sc, batch, M, N, K, pool); break;
        case DType::I16: integerMatmul<int16_t>(a, b, bias, out, sc, batch, M, N, K, pool); break;
        case DType::I8: integerMatmul<int8_t>(a, b, bias, out, sc, batch, M, N, K, pool); break;
        case DType::U8: integerMatmul<uint8_t>(a, b, bias, out, sc, batch, M, N, K, pool); break;
        default: throw KernelError("matmul: unsupported dtype " + std::string(dtypeAbbr(dt)));
        }
        return out;
    }
    const bool needDot = sc.alpha != 0.0;
    if (dt == DType::F64) {
        double* C = out.data<double>();
        if (needDot) gemmF64(batch, M, N, K, operandOf(a), operandOf(b), C, N, mn, pool);
        if (bias || sc.alpha != 1.0) floatEpilogue<double>(C, bias, out, sc, batch, M, N, pool);
        return out;
    }
    if (dt == DType::F32 || dt == DType::BF16 || dt == DType::F16) {
        std::vector<float> tmp;
        float* C;
        if (dt == DType::F32) {
            C = out.data<float>();
        } else {
            tmp.resize(static_cast<size_t>(batch * mn));
            C = tmp.data();
        }
        if (needDot) gemmF32(batch, M, N, K, operandOf(a), operandOf(b), C, N, mn, pool);
        if (dt != DType::F32 || bias || sc.alpha != 1.0) floatEpilogue<float>(C, bias, out, sc, batch, M, N, pool);
        return out;
    }
    throw KernelError("matmul: unsupported dtype " + std::string(dtypeAbbr(dt)));
}

void checkSameDtype(const Tensor& a, const Tensor& b, const char* op)
{
    if (a.dtype() != b.dtype())
        throw KernelError(std::string(op) + ": expected both operands to have the same dtype, got "
                          + std::string(dtypeAbbr(a.dtype())) + " and " + std::string(dtypeAbbr(b.dtype())));
}

void check2d(const Tensor& a, const Tensor& b, const char* op)
{
    if (a.dim() != 2 || b.dim() != 2)
        throw KernelError(std::string(op) + ": expected 2-d matrices, got " + std::to_string(a.dim()) + "-d and "
                          + std::to_string(b.dim()) + "-d");
    if (a.size(1) != b.size(0))
        throw KernelError(std::string(op) + ": mat1 and mat2 shapes cannot be multiplied (" + shapeText(a) + " and "
                          + shapeText(b) + ")");
    checkSameDtype(a, b, op);
}

void check3d(const Tensor& a, const Tensor& b, const char* op)
{
    if (a.dim() != 3 || b.dim() != 3)
        throw KernelError(std::string(op) + ": expected 3-d tensors, got " + std::to_string(a.dim()) + "-d and "
                          + std::to_string(b.dim()) + "-d");
    if (a.size(0) != b.size(0) || a.size(2) != b.size(1))
        throw KernelError(std::string(op) + ": shapes cannot be multiplied (" + shapeText(a) + " and " + shapeText(b)
                          + ")");
    checkSameDtype(a, b, op);
}

// beta/alpha as PyTorch reads them: integral tensors take only integral scalars.
Scalars readScalars(const KernelCall& call, DType dt, const char* op)
{
    Scalars sc;
    sc.hasBias = true;
    const Value& beta = call.arg("beta");
    const Value& alpha = call.arg("alpha");
    if (isIntegral(dt, false)) {
        if (beta.kind == Value::Kind::Float || alpha.kind == Value::Kind::Float)
            throw KernelError(std::string(op)
                              + ": for integral input tensors, alpha and beta must not be floating point numbers");
        sc.ibeta = beta.toInt();
        sc.ialpha = alpha.toInt();
        sc.beta = static_cast<double>(sc.ibeta);
        sc.alpha = static_cast<double>(sc.ialpha);
    } else {
        sc.beta = beta.toDouble();
        sc.alpha = alpha.toDouble();
    }
    return sc;
}

void mmKernel(KernelCall& call)
{
    const Tensor& a = call.tensor("self");
    const Tensor& b = call.tensor("mat2");
    check2d(a, b, "mm");
    call.result = Value::ofTensor(matmulCommon(call, a, b, nullptr, Scalars{}, {a.size(0), b.size(1)}));
}

void addmmKernel(KernelCall& call)
{
    const Tensor& bias = call.tensor("self");
    const Tensor& a = call.tensor("mat1");
    const Tensor& b = call.tensor("mat2");
    check2d(a, b, "addmm");
    checkSameDtype(bias, a, "addmm");
    const std::vector<int64_t> sizes{a.size(0), b.size(1)};
    if (bias.dim() > 2)
        throw KernelError("addmm: the bias has " + std::to_string(bias.dim()) + " dimensions (at most 2)");
    const Tensor bx = expandTo(bias, sizes);
    const Scalars sc = readScalars(call, a.dtype(), "addmm");
    call.result = Value::ofTensor(matmulCommon(call, a, b, &bx, sc, sizes));
}

void bmmKernel(KernelCall& call)
{
    const Tensor& a = call.tensor("self");
    const Tensor& b = call.tensor("mat2");
    check3d(a, b, "bmm");
    call.result = Value::ofTensor(matmulCommon(call, a, b, nullptr, Scalars{}, {a.size(0), a.size(1), b.size(2)}));
}

void baddbmmKernel(KernelCall& call)
{
    const Tensor& bias = call.tensor("self");
    const Tensor& a = call.tensor("batch1");
    const Tensor& b = call.tensor("batch2");
    check3d(a, b, "baddbmm");
    checkSameDtype(bias, a, "baddbmm");
    const std::vector<int64_t> sizes{a.size(0), a.size(1), b.size(2)};
    if (bias.dim() > 3)
        throw KernelError("baddbmm: the bias has " + std::to_string(bias.dim()) + " dimensions (at most 3)");
    const Tensor bx = expandTo(bias, sizes);
    const Scalars sc = readScalars(call, a.dtype(), "baddbmm");
    call.result = Value::ofTensor(matmulCommon(call, a, b, &bx, sc, sizes));
}

}  // namespace

void registerMatmulKernels(KernelRegistry& reg, DeviceKind d)
{
    reg.add("aten.mm.default", d, mmKernel);
    reg.add("aten.addmm.default", d, addmmKernel);
    reg.add("aten.bmm.default", d, bmmKernel);
    reg.add("aten.baddbmm.default", d, baddbmmKernel);
}

}  // namespace fxl::cpu

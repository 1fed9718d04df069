// _embedding_bag(weight [V, D], indices [n], offsets [b(+1)], scale_grad_by_freq, mode, sparse,
// per_sample_weights, include_last_offset, padding_idx) -> (output, offset2bag, bag_size,
// max_indices), as PyTorch's CPU kernel returns them:
// - bag k holds indices[offsets[k] .. offsets[k + 1]) (the last bag runs to n; with
//   include_last_offset the last offset closes the last bag); entries equal to padding_idx are
//   skipped;
// - output: mode 0 (sum) S(w_i * weight[idx_i]) (w_i the per-sample weight, else 1), mode 1
//   (mean) the sum / the bag's count, mode 2 (max) the elementwise maximum (first maximum wins);
//   an empty bag gives 0. Each element is one thread's sum in index order (widened, rounded once);
//   threads split bags;
// - offset2bag [n]: each index's bag (empty [0] for mode sum on the fast path PyTorch takes:
//   f32 / f16 / bf16 contiguous weight, no padding_idx); bag_size [b]: the non-padding counts
//   for mean / max, 0 for sum; max_indices: for max [b, D] the weight row of each maximum (0 in
//   an empty bag), otherwise a copy of bag_size. All three in the indices' dtype.
#include "runtime/cpu/cpu_embedding_bag.hpp"
#include "runtime/math/accumulate.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "runtime/base/backend.hpp"
#include "runtime/cpu/cpu_common.hpp"
#include "runtime/cpu/cpu_reduction.hpp"

namespace fxl::cpu::red {
namespace {

// The integers of t in row-major order (t 1-d unless anyDim).
std::vector<int64_t> intsOf(const Tensor& t, const std::string& op, const char* what, bool anyDim = false)
{
    if (t.dtype() != DType::I64 && t.dtype() != DType::I32)
        throw KernelError(op + ": " + what + " must be int64 or int32, got " + describe(t));
    if (t.dim() != 1 && !anyDim) throw KernelError(op + ": " + what + " must be 1-d, got " + describe(t));
    std::vector<int64_t> v(static_cast<size_t>(t.numel()));
    const char* base = static_cast<const char*>(t.rawData());
    forEachIndex(t.sizes(), [&](const int64_t* idx, int64_t flat) {
        v[static_cast<size_t>(flat)] =
            static_cast<int64_t>(loadAsDouble(base + offsetOf(t, idx) * t.itemSize(), t.dtype()));
    });
    return v;
}

Tensor intTensor(const KernelCall& call, const std::vector<int64_t>& sizes, DType dt, const std::vector<int64_t>& v)
{
    Tensor t = call.newTensor(sizes, dt);
    char* base = static_cast<char*>(t.rawData());
    for (size_t k = 0; k < v.size(); ++k)
        storeFromDouble(base + static_cast<int64_t>(k) * t.itemSize(), dt, static_cast<double>(v[k]));
    return t;
}

void embeddingBag(KernelCall& call)
{
    const std::string op = "_embedding_bag";
    const Tensor& w0 = call.tensor("weight");
    const Tensor& ind = call.tensor("indices");
    const Tensor& offT = call.tensor("offsets");
    const int64_t mode = call.arg("mode").toInt();
    const bool includeLast = call.arg("include_last_offset").toInt() != 0;
    if (w0.dim() != 2 || !isFloatingPoint(w0.dtype()))
        throw KernelError(op + ": weight must be a 2-d floating-point tensor, got " + describe(w0));
    if (mode < 0 || mode > 2)
        throw KernelError(op + ": mode must be 0 (sum), 1 (mean) or 2 (max), got " + std::to_string(mode));
    if (ind.dtype() != offT.dtype())
        throw KernelError(op + ": indices and offsets must have the same dtype, got " + describe(ind) + " and "
                          + describe(offT));
    const std::vector<int64_t> idx = intsOf(ind, op, "indices"), offs = intsOf(offT, op, "offsets");
    const int64_t V = w0.size(0), D = w0.size(1), n = static_cast<int64_t>(idx.size());
    // the Python layer has made padding_idx non-negative; a negative one means none
    const int64_t padding = std::max<int64_t>(-1, call.arg("padding_idx").toInt());
    const int64_t B = static_cast<int64_t>(offs.size()) - (includeLast ? 1 : 0);
    if (B < 0) throw KernelError(op + ": include_last_offset needs at least one offset");
    for (size_t k = 0; k < offs.size(); ++k)
        if (offs[k] < 0 || offs[k] > n || (k && offs[k] < offs[k - 1]))
            throw KernelError(op + ": offsets must be non-decreasing in [0, " + std::to_string(n) + "], got "
                              + std::to_string(offs[k]) + " at " + std::to_string(k));
    if (!offs.empty() && offs[0] != 0) throw KernelError(op + ": offsets[0] must be 0, got " + std::to_string(offs[0]));
    for (int64_t i : idx)
        if (i < 0 || i >= V)
            throw KernelError(op + ": index " + std::to_string(i) + " out of range for " + std::to_string(V) + " rows");
    const Value& psv = call.arg("per_sample_weights");
    if (psv.isTensor() && mode != 0) throw KernelError(op + ": per_sample_weights are only supported for mode sum");
    if (psv.isTensor() && (psv.tensor.dim() != 1 || psv.tensor.numel() != n))
        throw KernelError(op + ": per_sample_weights must be 1-d with one weight per index, got "
                          + describe(psv.tensor));
    auto bagEnd = [&](int64_t k) {
        return k + 1 < static_cast<int64_t>(offs.size()) ? offs[static_cast<size_t>(k + 1)] : n;
    };

    const Tensor w = w0.isContiguous() ? w0 : contiguous(w0, *call.backend);
    Tensor out = call.newTensor({B, D}, w.dtype());
    std::vector<int64_t> bagSize(static_cast<size_t>(B), 0), maxIdx(mode == 2 ? static_cast<size_t>(B * D) : 0, 0);
    dispatchFloating(w.dtype(), op.c_str(), [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        const T* wp = w.template data<T>();
        T* o = out.template data<T>();
        std::vector<A> psw;
        if (psv.isTensor()) {
            const Tensor& t = psv.tensor;
            psw.resize(static_cast<size_t>(n));
            const char* base = static_cast<const char*>(t.rawData());
            forEachIndex(t.sizes(), [&](const int64_t* ix, int64_t flat) {
                psw[static_cast<size_t>(flat)] =
                    static_cast<A>(loadAsDouble(base + offsetOf(t, ix) * t.itemSize(), t.dtype()));
            });
        }
        parallelRows(call.pool, B, std::max<int64_t>(1, grainFor(D * 8)), [&](int64_t b0, int64_t b1) {
            std::vector<A> acc(static_cast<size_t>(D));
            for (int64_t b = b0; b < b1; ++b) {
                std::fill(acc.begin(), acc.end(), A(0));
                int64_t count = 0;
                for (int64_t i = offs[static_cast<size_t>(b)]; i < bagEnd(b); ++i) {
                    const int64_t row = idx[static_cast<size_t>(i)];
                    if (row == padding) continue;
                    const T* r = wp + row * D;
                    for (int64_t d = 0; d < D; ++d) {
                        const A v = widenTo<A>(r[d]);
                        if (mode == 2) {
                            if (math::acc::bagMaxTakes(v, acc[static_cast<size_t>(d)], count == 0)) {
                                acc[static_cast<size_t>(d)] = v;
                                maxIdx[static_cast<size_t>(b * D + d)] = row;
                            }
                        } else {
                            acc[static_cast<size_t>(d)] +=
                                math::acc::bagTerm(v, !psw.empty(), psw.empty() ? A(0) : psw[static_cast<size_t>(i)]);
                        }
                    }
                    ++count;
                }
                if (mode == 1 && count > 0)
                    for (A& v : acc) v = math::acc::bagMean(v, count);
                for (int64_t d = 0; d < D; ++d) o[b * D + d] = narrowTo<T>(acc[static_cast<size_t>(d)]);
                if (mode != 0) bagSize[static_cast<size_t>(b)] = count;
            }
        });
    });
    const DType it = ind.dtype();
    const bool fastSum =
        mode == 0 && padding < 0 && (w.dtype() == DType::F32 || w.dtype() == DType::F16 || w.dtype() == DType::BF16);
    std::vector<int64_t> o2b;
    if (!fastSum) {
        o2b.resize(static_cast<size_t>(n), 0);
        for (int64_t b = 0; b < B; ++b)
            for (int64_t i = offs[static_cast<size_t>(b)]; i < bagEnd(b); ++i) o2b[static_cast<size_t>(i)] = b;
    }
    const Tensor offset2bag = intTensor(call, {static_cast<int64_t>(o2b.size())}, it, o2b);
    const Tensor bagSizeT = intTensor(call, {B}, it, bagSize);
    const Tensor maxT = mode == 2 ? intTensor(call, {B, D}, it, maxIdx) : intTensor(call, {B}, it, bagSize);
    call.result = Value::ofList(
        {Value::ofTensor(out), Value::ofTensor(offset2bag), Value::ofTensor(bagSizeT), Value::ofTensor(maxT)});
}

// _embedding_bag_dense_backward / _embedding_bag_backward: the weight's gradient [V, D]. Sum and
// mean: each index i not padding_idx adds grad[bag_i] (times its per-sample weight; divided by
// its bag's size for mean; divided by its row's count among the indices with
// scale_grad_by_freq) to row indices[i], in index order, each element one widened sum rounded
// once. Max: each non-empty bag adds grad[b, d] to row max_indices[b, d], in bag order.
// _embedding_bag_backward rebuilds offset2bag from the offsets when the forward left it empty
// (mode sum's fast path); sparse gradients are refused.
void embeddingBagBackward(KernelCall& call, bool fromOffsets)
{
    const std::string op = fromOffsets ? "_embedding_bag_backward" : "_embedding_bag_dense_backward";
    if (fromOffsets && call.arg("sparse").toInt() != 0)
        throw KernelError(op + ": sparse gradients are not supported (run with sparse=False)");
    const Tensor& g0 = call.tensor("grad");
    if (g0.dim() != 2 || !isFloatingPoint(g0.dtype()))
        throw KernelError(op + ": grad must be a 2-d floating-point tensor, got " + describe(g0));
    const Tensor g = g0.isContiguous() ? g0 : contiguous(g0, *call.backend);
    const std::vector<int64_t> idx = intsOf(call.tensor("indices"), op, "indices");
    std::vector<int64_t> o2b = intsOf(call.tensor("offset2bag"), op, "offset2bag");
    const std::vector<int64_t> bagSize = intsOf(call.tensor("bag_size"), op, "bag_size");
    const int64_t V = call.arg("num_weights").toInt(), B = g.size(0), D = g.size(1);
    const int64_t n = static_cast<int64_t>(idx.size());
    const int64_t mode = call.arg("mode").toInt();
    const bool byFreq = call.arg("scale_grad_by_freq").toInt() != 0;
    const int64_t padding = std::max<int64_t>(-1, call.arg("padding_idx").toInt());
    if (mode < 0 || mode > 2)
        throw KernelError(op + ": mode must be 0 (sum), 1 (mean) or 2 (max), got " + std::to_string(mode));
    if (fromOffsets && static_cast<int64_t>(o2b.size()) != n) {
        const std::vector<int64_t> offs = intsOf(call.tensor("offsets"), op, "offsets");
        o2b.assign(static_cast<size_t>(n), 0);
        for (size_t k = 0; k < offs.size(); ++k)
            for (int64_t i = offs[k]; i < (k + 1 < offs.size() ? offs[k + 1] : n); ++i)
                if (i >= 0 && i < n) o2b[static_cast<size_t>(i)] = static_cast<int64_t>(k);
    }
    if (mode != 2 && static_cast<int64_t>(o2b.size()) != n)
        throw KernelError(op + ": offset2bag has " + std::to_string(o2b.size()) + " entries for " + std::to_string(n)
                          + " indices");
    for (size_t i = 0; i < idx.size(); ++i) {
        if (idx[i] == padding) continue;
        if (idx[i] < 0 || idx[i] >= V)
            throw KernelError(op + ": index " + std::to_string(idx[i]) + " out of range for " + std::to_string(V)
                              + " rows");
        if (mode != 2 && (o2b[i] < 0 || o2b[i] >= B))
            throw KernelError(op + ": offset2bag " + std::to_string(o2b[i]) + " out of range for " + std::to_string(B)
                              + " bags");
    }
    std::vector<int64_t> counts;
    if (byFreq) {
        counts.assign(static_cast<size_t>(V), 0);
        for (int64_t i : idx)
            if (i != padding) ++counts[static_cast<size_t>(i)];
    }
    const Value& psv = call.arg("per_sample_weights");
    Tensor out = call.newTensor({V, D}, g.dtype());
    dispatchFloating(g.dtype(), op.c_str(), [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        const T* gp = g.template data<T>();
        std::vector<A> acc(static_cast<size_t>(V * D), A(0));
        auto scaleOf = [&](int64_t row) {
            return byFreq ? math::acc::freqScale<A>(counts[static_cast<size_t>(row)]) : A(1);
        };
        if (mode == 2) {
            const std::vector<int64_t> maxIdx = intsOf(call.tensor("maximum_indices"), op, "maximum_indices", true);
            if (static_cast<int64_t>(maxIdx.size()) != B * D)
                throw KernelError(op + ": maximum_indices must be [" + std::to_string(B) + ", " + std::to_string(D)
                                  + "] for mode max");
            for (int64_t b = 0; b < B; ++b) {
                if (b < static_cast<int64_t>(bagSize.size()) && bagSize[static_cast<size_t>(b)] == 0) continue;
                for (int64_t d = 0; d < D; ++d) {
                    const int64_t row = maxIdx[static_cast<size_t>(b * D + d)];
                    if (row < 0 || row >= V || row == padding) continue;
                    acc[static_cast<size_t>(row * D + d)] += widenTo<A>(gp[b * D + d]) * scaleOf(row);
                }
            }
        } else {
            std::vector<A> psw;
            if (psv.isTensor()) {
                const Tensor& t = psv.tensor;
                psw.resize(static_cast<size_t>(n));
                const char* base = static_cast<const char*>(t.rawData());
                forEachIndex(t.sizes(), [&](const int64_t* ix, int64_t flat) {
                    psw[static_cast<size_t>(flat)] =
                        static_cast<A>(loadAsDouble(base + offsetOf(t, ix) * t.itemSize(), t.dtype()));
                });
            }
            for (int64_t i = 0; i < n; ++i) {
                const int64_t row = idx[static_cast<size_t>(i)];
                if (row == padding) continue;
                const int64_t b = o2b[static_cast<size_t>(i)];
                A* dst = acc.data() + row * D;
                const T* src = gp + b * D;
                for (int64_t d = 0; d < D; ++d) {
                    dst[d] += math::acc::bagGrad(widenTo<A>(src[d]), !psw.empty(),
                                                 psw.empty() ? A(0) : psw[static_cast<size_t>(i)], mode == 1,
                                                 bagSize[static_cast<size_t>(b)], byFreq, scaleOf(row));
                }
            }
        }
        T* o = out.template data<T>();
        for (int64_t k = 0; k < V * D; ++k) o[k] = narrowTo<T>(acc[static_cast<size_t>(k)]);
    });
    call.result = Value::ofTensor(out);
}

}  // namespace

void registerEmbeddingBagKernels(KernelRegistry& reg)
{
    reg.add("aten._embedding_bag.default", DeviceKind::Cpu, embeddingBag);
    reg.add("aten._embedding_bag_dense_backward.default", DeviceKind::Cpu,
            [](KernelCall& c) { embeddingBagBackward(c, false); });
    reg.add("aten._embedding_bag_backward.default", DeviceKind::Cpu,
            [](KernelCall& c) { embeddingBagBackward(c, true); });
}

}  // namespace fxl::cpu::red

// CPU kernels of the losses and of embedding backward: nll_loss_forward/backward,
// mse_loss/mse_loss_backward, embedding_dense_backward. Every sum follows the numerics
// contract of runtime/cpu/cpu_reduction.hpp (the order of runtime/math/sum_order.hpp): losses sum their per-element
// terms in row-major order (ignored nll rows contribute +0 at their position), embedding backward sums each vocabulary
// row's gradient rows in token order (flattened indices, row-major).
#include "runtime/cpu/cpu_loss.hpp"

#include <cmath>
#include <cstring>

#include "runtime/base/backend.hpp"
#include "runtime/cpu/cpu_elementwise.hpp"
#include "runtime/cpu/cpu_reduction.hpp"
#include "runtime/math/loss.hpp"

namespace fxl::cpu::red {
namespace {

using math::loss::kMean;
using math::loss::kNone;
using math::loss::kSum;

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
        const std::vector<unsigned char> bytes = ew::hostBytes(t);  // row-major, in host memory
        for (size_t k = 0; k < v.size(); ++k) {
            T x;
            std::memcpy(&x, bytes.data() + k * sizeof(T), sizeof(T));
            v[k] = static_cast<int64_t>(x);
        }
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
    int64_t rows = 1, classes = 0;  // N and C
};

NllShape nllShape(const Tensor& input, const Tensor& target, const Value& weight, const char* op)
{
    if (input.dim() < 1 || input.dim() > 2) throw KernelError(std::string(op) + ": input tensor should be 1D or 2D");
    if (target.dim() > 1)
        throw KernelError(std::string(op) + ": 0D or 1D target tensor expected, multi-target not supported");
    NllShape shape;
    shape.batched = input.dim() == 2;
    shape.rows = shape.batched ? input.size(0) : 1;
    shape.classes = input.size(-1);
    if (shape.batched ? (target.dim() != 1 || target.size(0) != shape.rows) : target.numel() != 1)
        throw KernelError(std::string(op) + ": size mismatch between input and target batch");
    if (!weight.isNone() && weight.tensor.numel() != shape.classes)
        throw KernelError(std::string(op) + ": weight tensor should be defined either for all "
                          + std::to_string(shape.classes) + " classes or no classes");
    return shape;
}

void checkTarget(int64_t target, int64_t classes, const char* op)
{
    if (target < 0 || target >= classes)
        throw KernelError(std::string(op) + ": target " + std::to_string(target) + " is out of bounds");
}

// What both nll_loss kernels read, checked in PyTorch's order: reduction, ignore_index, the
// shapes, then every target not ignored in [0, C).
struct NllArgs
{
    NllShape shape;
    int64_t reduction = 0, ignoreIndex = 0;
    std::vector<int64_t> targets;  // one class per row
    bool perRow = false;  // reduction none with a batch: one loss per row
};

NllArgs nllArgs(KernelCall& call, const Tensor& input, const Tensor& target, const Value& weight, const char* op)
{
    NllArgs args;
    args.reduction = reductionOf(call, op);
    args.ignoreIndex = call.arg("ignore_index").toInt();
    args.shape = nllShape(input, target, weight, op);
    args.targets = indexValues(target, op);
    for (int64_t t : args.targets)
        if (t != args.ignoreIndex) checkTarget(t, args.shape.classes, op);
    args.perRow = args.reduction == kNone && args.shape.batched;
    return args;
}

// The device's loop of an nll call whose host logic ran (args checked).
NllLoop nllLoopOf(const NllArgs& args, const Tensor& input, const Value& weight)
{
    NllLoop loop;
    loop.input = &input;
    loop.weight = weight.isNone() ? nullptr : &weight.tensor;
    loop.targets = args.targets;
    loop.rows = args.shape.rows;
    loop.classes = args.shape.classes;
    loop.ignoreIndex = args.ignoreIndex;
    loop.reduction = args.reduction;
    loop.batched = args.shape.batched;
    return loop;
}

// loss_i = -(x[i, t_i] [* w[t_i]]) or +0 for ignored rows; w_i = w[t_i] (1 without weight)
// or 0 for ignored rows. none: (loss_i, total = w_0 for 1-d input, 0 otherwise);
// sum: (S(loss), S(w)); mean: (S(loss) / S(w), S(w)).
void nllForward(KernelCall& call)
{
    const char* op = "nll_loss_forward";
    const Tensor& input = call.tensor("self");
    const Tensor& target = call.tensor("target");
    const Value& weight = call.arg("weight");
    const NllArgs args = nllArgs(call, input, target, weight, op);
    const NllShape& shape = args.shape;
    Tensor out = call.newTensor(args.perRow ? std::vector<int64_t>{shape.rows} : std::vector<int64_t>{}, input.dtype());
    Tensor total = call.newTensor({}, input.dtype());
    if (call.backend && call.backend->device() != DeviceKind::Cpu) {  // the device's nll (Backend::nll)
        dispatchFloating(input.dtype(), op, [](auto) {});
        NllLoop loop = nllLoopOf(args, input, weight);
        loop.out = &out;
        loop.total = &total;
        call.backend->nll(loop);
        call.result = Value::ofList({Value::ofTensor(out), Value::ofTensor(total)});
        return;
    }
    dispatchFloating(input.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        const std::vector<A> classWeights = weight.isNone() ? std::vector<A>{} : widenAll<A>(weight.tensor);
        const T* in = input.template data<T>();
        const int64_t rowStride = shape.batched ? input.stride(0) : 0, classStride = input.stride(-1);
        // the loss of row i; rowWeight gets its weight
        auto rowLoss = [&](int64_t i, A& rowWeight) -> A {
            const int64_t t = args.targets[static_cast<size_t>(i)];
            if (t == args.ignoreIndex) {
                rowWeight = A(0);
                return A(0);
            }
            const A v = widenTo<A>(in[i * rowStride + t * classStride]);
            rowWeight = classWeights.empty() ? A(1) : classWeights[static_cast<size_t>(t)];
            return math::loss::nllRowLoss(v, !classWeights.empty(), rowWeight);
        };
        T* outData = out.template data<T>();
        T* totalWeight = total.template data<T>();
        if (args.perRow) {
            parallelRows(call.pool, shape.rows, 4096, [&](int64_t b, int64_t e) {
                for (int64_t i = b; i < e; ++i) {
                    A rowWeight;
                    outData[i] = narrowTo<T>(rowLoss(i, rowWeight));
                }
            });
            *totalWeight = narrowTo<T>(A(0));
            return;
        }
        std::vector<A> losses(static_cast<size_t>(shape.rows)), rowWeights(static_cast<size_t>(shape.rows));
        for (int64_t i = 0; i < shape.rows; ++i)
            losses[static_cast<size_t>(i)] = rowLoss(i, rowWeights[static_cast<size_t>(i)]);
        if (args.reduction == kNone) {  // 1-d input: one row
            *outData = narrowTo<T>(losses[0]);
            *totalWeight = narrowTo<T>(rowWeights[0]);
            return;
        }
        const A lossSum = sumOrdered<A>(shape.rows, [&](int64_t i) { return losses[static_cast<size_t>(i)]; });
        const A weightSum = sumOrdered<A>(shape.rows, [&](int64_t i) { return rowWeights[static_cast<size_t>(i)]; });
        *outData = narrowTo<T>(math::loss::nllReduced(lossSum, weightSum, args.reduction));
        *totalWeight = narrowTo<T>(weightSum);
    });
    call.result = Value::ofList({Value::ofTensor(out), Value::ofTensor(total)});
}

// gi = 0 except gi[i, t_i] for rows not ignored:
// none: -w[t_i] * g_i (-g_i without weight); sum: w[t_i] * (-g); mean: w[t_i] * (-(g / total)).
void nllBackward(KernelCall& call)
{
    const char* op = "nll_loss_backward";
    const Tensor& gradOutput = call.tensor("grad_output");
    const Tensor& input = call.tensor("self");
    const Tensor& target = call.tensor("target");
    const Value& weight = call.arg("weight");
    const NllArgs args = nllArgs(call, input, target, weight, op);
    const NllShape& shape = args.shape;
    if (args.perRow ? (gradOutput.dim() != 1 || gradOutput.size(0) != shape.rows) : gradOutput.numel() != 1)
        throw KernelError(std::string(op) + ": grad_output has the wrong shape for the reduction");
    Tensor out = call.newTensor(input.sizes(), input.dtype());
    if (call.backend && call.backend->device() != DeviceKind::Cpu) {  // the device's nll (Backend::nll)
        dispatchFloating(input.dtype(), op, [](auto) {});
        NllLoop loop = nllLoopOf(args, input, weight);
        loop.backward = true;
        loop.out = &out;
        loop.gradOutput = &gradOutput;
        if (args.reduction == kMean) loop.totalWeight = &call.tensor("total_weight");
        call.backend->nll(loop);
        call.result = Value::ofTensor(out);
        return;
    }
    dispatchFloating(input.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        const std::vector<A> classWeights = weight.isNone() ? std::vector<A>{} : widenAll<A>(weight.tensor);
        const std::vector<A> grads = widenAll<A>(gradOutput);
        A reducedGrad = A(0);  // sum and mean: the one gradient every row gets
        if (!args.perRow)
            reducedGrad = math::loss::nllReducedGrad(
                grads[0], args.reduction == kMean ? widenAll<A>(call.tensor("total_weight"))[0] : A(1), args.reduction);
        T* outData = out.template data<T>();
        const int64_t classes = shape.classes;
        parallelRows(call.pool, shape.rows, grainFor(classes), [&](int64_t b, int64_t e) {
            for (int64_t i = b; i < e; ++i) {
                T* row = outData + i * classes;
                for (int64_t j = 0; j < classes; ++j) row[j] = narrowTo<T>(A(0));
                const int64_t t = args.targets[static_cast<size_t>(i)];
                if (t == args.ignoreIndex) continue;
                const A w = classWeights.empty() ? A(1) : classWeights[static_cast<size_t>(t)];
                const A rowGrad = args.reduction == kNone ? grads[static_cast<size_t>(i)] : A(0);
                row[t] =
                    narrowTo<T>(math::loss::nllGrad(args.reduction, rowGrad, reducedGrad, !classWeights.empty(), w));
            }
        });
    });
    call.result = Value::ofTensor(out);
}

// ---- nll_loss2d: nll_loss over the N*H*W positions of an [N, C, H, W] input, rows in
// (n, h, w) order: the input seen as [N*H*W, C] (copied to that layout), the target as
// [N*H*W]; the loss per position ([N, H, W] for reduction none) and the gradient [N, C, H, W]
// are the nll_loss kernels' in that layout.

// [N, C, H, W] -> contiguous [N*H*W, C]
Tensor positionsByClass(KernelCall& call, const Tensor& x, const char* op)
{
    if (x.dim() != 4) throw KernelError(std::string(op) + ": input tensor should be 4D");
    const auto& sz = x.sizes();
    Tensor nhwc =
        x.asStrided({sz[0], sz[2], sz[3], sz[1]}, {x.stride(0), x.stride(2), x.stride(3), x.stride(1)}, x.offset());
    Tensor rows = call.newTensor({sz[0], sz[2], sz[3], sz[1]}, x.dtype());
    call.backend->copy(rows, nhwc);
    return rows.asStrided({sz[0] * sz[2] * sz[3], sz[1]}, {sz[1], 1}, 0);
}

Tensor flatTarget(KernelCall& call, const Tensor& target, const Tensor& input, const char* op)
{
    if (target.dim() != 3) throw KernelError(std::string(op) + ": target tensor should be 3D");
    if (target.size(0) != input.size(0) || target.size(1) != input.size(2) || target.size(2) != input.size(3))
        throw KernelError(std::string(op) + ": size mismatch between input and target");
    Tensor t = call.newTensor(target.sizes(), target.dtype());
    call.backend->copy(t, target);
    return t.asStrided({target.numel()}, {1}, 0);
}

void nll2dForward(KernelCall& call)
{
    const char* op = "nll_loss2d_forward";
    const Tensor input = call.tensor("self");
    const Tensor target = call.tensor("target");
    call.args[0] = Value::ofTensor(positionsByClass(call, input, op));
    call.args[1] = Value::ofTensor(flatTarget(call, target, input, op));
    nllForward(call);
    Value& loss = call.result.items[0];
    if (loss.tensor.dim() == 1)
        loss.tensor = loss.tensor.asStrided(target.sizes(), Tensor::contiguousStrides(target.sizes()), 0);
}

void nll2dBackward(KernelCall& call)
{
    const char* op = "nll_loss2d_backward";
    const Tensor input = call.tensor("self");
    const Tensor target = call.tensor("target");
    const Tensor grad = call.tensor("grad_output");
    call.args[1] = Value::ofTensor(positionsByClass(call, input, op));
    call.args[2] = Value::ofTensor(flatTarget(call, target, input, op));
    if (grad.dim() == 3) {
        Tensor g = call.newTensor(grad.sizes(), grad.dtype());
        call.backend->copy(g, grad);
        call.args[0] = Value::ofTensor(g.asStrided({grad.numel()}, {1}, 0));
    }
    nllBackward(call);
    // [N*H*W, C] -> [N, C, H, W], contiguous
    const auto& sz = input.sizes();
    const Tensor rows = call.result.tensor;
    Tensor out = call.newTensor(sz, input.dtype());
    call.backend->copy(out, rows.asStrided(sz, {sz[2] * sz[3] * sz[1], 1, sz[3] * sz[1], sz[1]}, 0));
    call.result = Value::ofTensor(out);
}

// ---- mse
// none: (x - t)^2 per element; sum: S((x - t)^2) over the broadcast shape in row-major order;
// mean: that sum / numel.
void mseLoss(KernelCall& call)
{
    const char* op = "mse_loss";
    const Tensor& selfArg = call.tensor("self");
    const Tensor& targetArg = call.tensor("target");
    const int64_t reduction = reductionOf(call, op);
    const std::vector<int64_t> shape = broadcastShapes(selfArg.sizes(), targetArg.sizes());
    const DType dt = promoteTypes(selfArg.dtype(), targetArg.dtype());
    Tensor input = expandTo(selfArg, shape), target = expandTo(targetArg, shape);
    if (input.dtype() != dt) input = castTo(call, input, dt);
    if (target.dtype() != dt) target = castTo(call, target, dt);
    Tensor out = call.newTensor(reduction == kNone ? shape : std::vector<int64_t>{}, dt);
    std::vector<int64_t> allDims;
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) allDims.push_back(d);
    dispatchFloating(dt, op, [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        const T* inputData = input.template data<T>();
        const T* targetData = target.template data<T>();
        T* outData = out.template data<T>();
        if (reduction == kNone) {
            const std::vector<int64_t> lastDim =
                shape.empty() ? std::vector<int64_t>{} : std::vector<int64_t>{allDims.back()};
            const RowView inputRows(input, lastDim), targetRows(target, lastDim), outRows(out, lastDim);
            parallelRows(call.pool, inputRows.rows, grainFor(inputRows.cols), [&](int64_t b, int64_t e) {
                for (int64_t r = b; r < e; ++r) {
                    const T* inputRow = inputData + inputRows.rowOffset(r);
                    const T* targetRow = targetData + targetRows.rowOffset(r);
                    T* outRow = outData + outRows.rowOffset(r);
                    for (int64_t j = 0; j < inputRows.cols; ++j) {
                        outRow[outRows.colOffset(j)] =
                            narrowTo<T>(math::loss::mseTerm(widenTo<A>(inputRow[inputRows.colOffset(j)]),
                                                            widenTo<A>(targetRow[targetRows.colOffset(j)])));
                    }
                }
            });
            return;
        }
        const RowView inputAll(input, allDims), targetAll(target, allDims);
        const int64_t count = inputAll.cols;
        const A sum = sumOrdered<A>(count, [&](int64_t i) {
            return math::loss::mseTerm(widenTo<A>(inputData[inputAll.colOffset(i)]),
                                       widenTo<A>(targetData[targetAll.colOffset(i)]));
        });
        *outData = narrowTo<T>(math::loss::mseReduced(sum, count, reduction));
    });
    call.result = Value::ofTensor(out);
}

// gi = (norm * (x - t)) * g with norm = 2/numel (mean) or 2, rounded to the compute type.
void mseLossBwd(KernelCall& call)
{
    const char* op = "mse_loss_backward";
    const Tensor& gradArg = call.tensor("grad_output");
    const Tensor& input = call.tensor("self");
    const Tensor& targetArg = call.tensor("target");
    const int64_t reduction = reductionOf(call, op);
    if (targetArg.dtype() != input.dtype() || gradArg.dtype() != input.dtype())
        throw KernelError(std::string(op) + ": grad_output, self and target must have the same dtype");
    const std::vector<int64_t>& shape = input.sizes();
    const Tensor target = expandTo(targetArg, shape), grad = expandTo(gradArg, shape);
    Tensor out = call.newTensor(shape, input.dtype());
    const std::vector<int64_t> lastDim = shape.empty() ? std::vector<int64_t>{} : std::vector<int64_t>{input.dim() - 1};
    const double norm = math::loss::mseGradNorm(reduction, input.numel());
    dispatchFloating(input.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        const A normAcc = static_cast<A>(norm);
        const RowView inputRows(input, lastDim), targetRows(target, lastDim), gradRows(grad, lastDim),
            outRows(out, lastDim);
        const T* inputData = input.template data<T>();
        const T* targetData = target.template data<T>();
        const T* gradData = grad.template data<T>();
        T* outData = out.template data<T>();
        parallelRows(call.pool, inputRows.rows, grainFor(inputRows.cols), [&](int64_t b, int64_t e) {
            for (int64_t r = b; r < e; ++r) {
                const T* inputRow = inputData + inputRows.rowOffset(r);
                const T* targetRow = targetData + targetRows.rowOffset(r);
                const T* gradRow = gradData + gradRows.rowOffset(r);
                T* outRow = outData + outRows.rowOffset(r);
                for (int64_t j = 0; j < inputRows.cols; ++j) {
                    outRow[outRows.colOffset(j)] = narrowTo<T>(math::loss::mseGrad(
                        normAcc, widenTo<A>(inputRow[inputRows.colOffset(j)]),
                        widenTo<A>(targetRow[targetRows.colOffset(j)]), widenTo<A>(gradRow[gradRows.colOffset(j)])));
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

// The tokens of each vocabulary row, in token order (a stable counting sort): the tokens of
// row v are tokens[rowStart[v] .. rowStart[v + 1]).
struct TokensByRow
{
    std::vector<int64_t> rowStart, tokens;
};

TokensByRow sortTokensByRow(const std::vector<int64_t>& ids, int64_t numWeights, int64_t paddingIdx, const char* op)
{
    TokensByRow sorted;
    sorted.rowStart.assign(static_cast<size_t>(numWeights) + 1, 0);
    for (int64_t v : ids) {
        if (v == paddingIdx) continue;
        if (v < 0 || v >= numWeights)
            throw KernelError(std::string(op) + ": index " + std::to_string(v) + " is out of range [0, "
                              + std::to_string(numWeights) + ")");
        ++sorted.rowStart[static_cast<size_t>(v) + 1];
    }
    for (int64_t v = 0; v < numWeights; ++v)
        sorted.rowStart[static_cast<size_t>(v) + 1] += sorted.rowStart[static_cast<size_t>(v)];
    sorted.tokens.resize(static_cast<size_t>(sorted.rowStart[static_cast<size_t>(numWeights)]));
    std::vector<int64_t> next(sorted.rowStart.begin(), sorted.rowStart.end() - 1);
    for (int64_t k = 0; k < static_cast<int64_t>(ids.size()); ++k) {
        const int64_t v = ids[static_cast<size_t>(k)];
        if (v != paddingIdx) sorted.tokens[static_cast<size_t>(next[static_cast<size_t>(v)]++)] = k;
    }
    return sorted;
}

void embeddingDenseBwd(KernelCall& call)
{
    const char* op = "embedding_dense_backward";
    const Tensor& gradOutput = call.tensor("grad_output");
    const Tensor& indices = call.tensor("indices");
    const int64_t numWeights = call.arg("num_weights").toInt();
    const int64_t paddingIdx = call.arg("padding_idx").toInt();
    const bool byFreq = call.arg("scale_grad_by_freq").toInt() != 0;
    if (gradOutput.dim() < 1) throw KernelError(std::string(op) + ": grad must have at least 1 dim");
    if (numWeights < 0) throw KernelError(std::string(op) + ": num_weights must be >= 0");
    const RowView gradRows(gradOutput, {gradOutput.dim() - 1});
    const std::vector<int64_t> ids = indexValues(indices, op);
    const int64_t tokenCount = static_cast<int64_t>(ids.size());
    if (gradRows.rows != tokenCount)
        throw KernelError(std::string(op) + ": grad has " + std::to_string(gradRows.rows) + " rows but indices has "
                          + std::to_string(tokenCount) + " elements");
    const int64_t embeddingDim = gradRows.cols;
    const TokensByRow sorted = sortTokensByRow(ids, numWeights, paddingIdx, op);
    std::vector<int64_t> gradRowOffset(static_cast<size_t>(tokenCount));
    for (int64_t k = 0; k < tokenCount; ++k) gradRowOffset[static_cast<size_t>(k)] = gradRows.rowOffset(k);
    Tensor out = call.newTensor({numWeights, embeddingDim}, gradOutput.dtype());
    if (call.backend && call.backend->device() != DeviceKind::Cpu) {  // Backend::segmentSum
        dispatchFloating(gradOutput.dtype(), op, [](auto) {});
        SegmentSumLoop loop;
        loop.src = &gradOutput;
        loop.rowOffsets = gradRowOffset;
        loop.cols = embeddingDim;
        loop.colStride = gradRows.colStride;
        loop.segStart = sorted.rowStart;
        loop.members = sorted.tokens;
        loop.byFreq = byFreq;
        loop.out = &out;
        call.backend->segmentSum(loop);
        call.result = Value::ofTensor(out);
        return;
    }
    dispatchFloating(gradOutput.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        const T* gradData = gradOutput.template data<T>();
        T* outData = out.template data<T>();
        const int64_t colStride = gradRows.colStride;
        const int64_t tokensPerRow = std::max<int64_t>(1, tokenCount / std::max<int64_t>(1, numWeights));
        parallelRows(
            call.pool, numWeights, std::max<int64_t>(1, grainFor(embeddingDim * tokensPerRow)),
            [&](int64_t b, int64_t e) {
                A acc[kTile];
                for (int64_t v = b; v < e; ++v) {
                    const int64_t* rowTokens = sorted.tokens.data() + sorted.rowStart[static_cast<size_t>(v)];
                    const int64_t rowTokenCount =
                        sorted.rowStart[static_cast<size_t>(v) + 1] - sorted.rowStart[static_cast<size_t>(v)];
                    const A scale = math::loss::embeddingFreqScale<A>(rowTokenCount);
                    T* row = outData + v * embeddingDim;
                    for (int64_t j0 = 0; j0 < embeddingDim; j0 += kTile) {
                        const int tileWidth = static_cast<int>(std::min<int64_t>(kTile, embeddingDim - j0));
                        const T* tileGrad = gradData + j0 * colStride;
                        auto gradAt = [&](int t, int64_t i, int64_t stride) {
                            return widenTo<A>(tileGrad[gradRowOffset[static_cast<size_t>(rowTokens[i])] + t * stride]);
                        };
                        if (colStride == 1 && !byFreq)  // adjacent columns: the tile loop vectorises
                            sumOrderedTile<A>(
                                rowTokenCount, tileWidth, [&](int t, int64_t i) { return gradAt(t, i, 1); }, acc);
                        else if (byFreq)
                            sumOrderedTile<A>(
                                rowTokenCount, tileWidth,
                                [&](int t, int64_t i) { return scale * gradAt(t, i, colStride); }, acc);
                        else
                            sumOrderedTile<A>(
                                rowTokenCount, tileWidth, [&](int t, int64_t i) { return gradAt(t, i, colStride); },
                                acc);
                        for (int t = 0; t < tileWidth; ++t) row[j0 + t] = narrowTo<T>(acc[t]);
                    }
                }
            });
    });
    call.result = Value::ofTensor(out);
}

}  // namespace

void registerDeviceLossKernels(KernelRegistry& reg, DeviceKind d)
{
    reg.add("aten.embedding_dense_backward.default", d, embeddingDenseBwd);
    reg.add("aten.nll_loss_forward.default", d, nllForward);
    reg.add("aten.nll_loss_backward.default", d, nllBackward);
    reg.add("aten.nll_loss2d_forward.default", d, nll2dForward);
    reg.add("aten.nll_loss2d_backward.default", d, nll2dBackward);
}

void registerLossKernels(KernelRegistry& reg)
{
    registerDeviceLossKernels(reg, DeviceKind::Cpu);
    reg.add("aten.mse_loss.default", DeviceKind::Cpu, mseLoss);
    reg.add("aten.mse_loss_backward.default", DeviceKind::Cpu, mseLossBwd);
}

}  // namespace fxl::cpu::red

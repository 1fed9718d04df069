// The flex_attention and flex_attention_backward higher-order operators, computed as PyTorch's
// dense math definition does (torch/_higher_order_ops/flex_attention.py: math_attention and
// sdpa_dense_backward), composed from the runtime's aten kernels so that their numerics rules
// hold (docs/numerics.md): one fixed reduction order per output element, batch-invariant
// results, the same bits at any thread count.
//
// Forward, per query head h of a batch b (GQA: query head h reads key/value head h / G, G =
// Hq / Hkv; a key/value batch of 1 broadcasts over the query batch):
//   scores = (Q.to(wp) @ K.to(wp)^T) * scale          wp: f64 for f64 queries, else f32
//   post   = where(mask_mod(b, h, q, kv), score_mod(scores, b, h, q, kv), -inf)
//   lse    = logsumexp(post, -1) / ln 2               (-inf for a fully masked row)
//   out    = _safe_softmax(post, -1).to(Q.dtype) @ V   (0 for a fully masked row)
// The logsumexp is returned in base 2, as the HOP does (its Triton kernel stores m + log2(l);
// the public torch.nn.attention.flex_attention multiplies by ln 2 before returning it).
// score_mod and mask_mod run once per call on broadcast index tensors (int32, as traced:
// b [B,1,1,1], h [1,Hq,1,1], q_idx [1,1,L,1], kv_idx [1,1,1,S]) rather than once per element
// as PyTorch's vmap does: the sub-graphs are pointwise, so both give the same values. The
// block-mask tensors (kv_num_blocks, kv_indices, ...) and kernel_options only steer the
// compiled kernels' block sparsity and are not read.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/ir/graph.hpp"
#include "runtime/base/value.hpp"
#include "runtime/torch_level/torch_level_call.hpp"

namespace fxl::exec {

// Runs a nested graph on operands bound to its placeholders in order; returns what its output
// node returns.
using BodyRunner = std::function<Value(const Graph& body, const std::string& name, std::vector<Value> operands)>;

struct FlexBody
{
    const Graph* graph = nullptr;
    std::string name;
};

struct FlexOperands
{
    Tensor query, key, value;  // [B, Hq, L, E], [Bkv, Hkv, S, E], [Bkv, Hkv, S, Ev]
    FlexBody scoreMod, maskMod;
    double scale = 1.0;
    std::vector<Value> scoreModBuffers, maskModBuffers;
    bool maxScores = false;  // also return max_scores (PyTorch 2.9+'s third output)
};

// flex_attention: (out [B, Hq, L, Ev] in the query's dtype, logsumexp [B, Hq, L] in base 2,
// in the working precision[, max_scores: each row's largest post-mod score / ln 2, -inf for a
// fully masked row, as logsumexp]).
Value flexAttention(const torch_level::Call& c, const FlexOperands& op, const BodyRunner& run);

// flex_attention_backward(q, k, v, out, logsumexp, grad_out, grad_logsumexp, fw_graph,
// joint_graph, block_mask, scale, kernel_options, score_mod_other_buffers,
// mask_mod_other_buffers): (dq, dk, dv, (grads of the score_mod buffers)). `joint` takes
// (score, b, h, q_idx, kv_idx, grad_score, *score_mod buffers) and returns (grad_score, None x4,
// *buffer grads); a buffer grad is summed over the broadcast dims it was broadcast along.
struct FlexBackwardOperands
{
    FlexOperands fw;  // fw.scoreMod is fw_graph
    FlexBody joint;
    Tensor out, logsumexp, gradOut;
    Value gradLogsumexp;  // a tensor [B, Hq, L] or None
};
Value flexAttentionBackward(const torch_level::Call& c, const FlexBackwardOperands& op, const BodyRunner& run);

// ---- scaled_dot_product_attention (every aten form), as PyTorch's math definition
// (_scaled_dot_product_attention_math, the decompositions of the fused forms): with wp the
// working precision (f64 for f64 inputs, else f32: bf16/f16 inputs are widened first),
//   scores = (Q.wp @ K.wp^T) * scale                  scale: 1/sqrt(E) when not given
//   post   = scores + mask                           a bool mask adds 0 / -inf, a float mask
//                                                    itself; is_causal: -inf above the
//                                                    diagonal (key j > query i)
//   lse    = logsumexp(post, -1)                      natural log, -inf for a fully masked row
//   out    = (_safe_softmax(post, -1) @ V.wp).to(dtype)
// and the backward, with P = exp(post - lse) (0 on a fully masked row):
//   dV = P^T @ dO, dS = P * (dO @ V^T - rowsum(out * dO)), dQ = dS * scale @ K,
//   dK = (dS * scale)^T @ Q (all in wp, rounded once to the input dtype); GQA folds the
//   query heads' dK / dV per key/value head, a broadcast key/value batch of 1 sums dim 0.
// dS is also the gradient of an additive attention bias (the efficient form's 4th output).
struct SdpaOperands
{
    Tensor query, key, value;  // [B, Hq, L, E], [Bkv, Hkv, S, E], [Bkv, Hkv, S, Ev]
    Value mask;  // None, or a bool / float tensor broadcasting to [B, Hq, L, S]
    bool causal = false;
    std::optional<double> scale;
    bool gqa = false;  // Hq a multiple of Hkv (else the head counts must be equal)
    // Dropout on the attention weights: each weight kept with probability 1 - p and scaled by
    // 1 / (1 - p), the mask drawn as native_dropout draws it from the RNG state of the calls
    // made through the Call (the forward and the backward at the same state draw the same mask).
    double dropoutP = 0.0;
};
struct SdpaForward
{
    Tensor out;  // [B, Hq, L, Ev], the query's dtype
    Tensor lse;  // [B, Hq, L], f32 (natural log)
};
SdpaForward sdpaForward(const torch_level::Call& c, const SdpaOperands& o, const char* op);
struct SdpaGrads
{
    Tensor dq, dk, dv;  // the dtypes and shapes of query, key, value
    Tensor dscores;  // dS [B, Hq, L, S] in wp
};
SdpaGrads sdpaBackward(const torch_level::Call& c, const SdpaOperands& o, const Tensor& out, const Tensor& lse,
                       const Tensor& gradOut, const char* op);

}  // namespace fxl::exec

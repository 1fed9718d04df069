// The graphs of the auto_chunk scenarios (docs/passes.md, auto_chunk; T1-T5 of the research
// notes), as FX text in the print_readable form with shape annotations, at any size, shared by
// tests/passes/test_auto_chunk.cpp (structure) and tests/integration/test_auto_chunk_numerics.cpp
// (numbers). Header-only.
#pragma once

#include <QtTest>

#include <map>
#include <string>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/ir/graph.hpp"
#include "core/ops/shape_prop.hpp"
#include "passes/pass.hpp"

namespace autochunktest {

using namespace fxl;

inline std::string S(int64_t v) { return std::to_string(v); }

// Parses and fills the meta of nodes printed without annotation (multi-output nodes).
inline Graph parseGraph(const std::string& text)
{
    Graph g = parseFxText(text, "<test>");
    ShapePropOptions so;
    so.overwrite = false;
    auto r = propagateShapes(g, so);
    if (!r.problems.empty()) qFatal("shape propagation: %s", r.problems.front().c_str());
    g.rebuildUsers();
    return g;
}

// T1 (upstream common_matmul_test(has_softmax=True)) as an AOT joint graph:
// y = sum(softmax((2 x) @ w)), x [n, k], w [k, m], one tangent.
inline std::string t1Text(int64_t n, int64_t k, int64_t m)
{
    const std::string N = S(n), K = S(k), M = S(m);
    return "class GraphModule(torch.nn.Module):\n"
           "    def forward(self, primals_1: \"f32["
        + N + ", " + K + "]\", primals_2: \"f32[" + K + ", " + M
        + "]\", tangents_1: \"f32[]\"):\n"
          "        mul: \"f32["
        + N + ", " + K
        + "]\" = torch.ops.aten.mul.Tensor(primals_1, 2)\n"
          "        mm: \"f32["
        + N + ", " + M
        + "]\" = torch.ops.aten.mm.default(mul, primals_2)\n"
          "        _softmax: \"f32["
        + N + ", " + M
        + "]\" = torch.ops.aten._softmax.default(mm, 1, False)\n"
          "        sum_1: \"f32[]\" = torch.ops.aten.sum.default(_softmax)\n"
          "        expand: \"f32["
        + N + ", " + M + "]\" = torch.ops.aten.expand.default(tangents_1, [" + N + ", " + M
        + "])\n"
          "        _softmax_backward_data: \"f32["
        + N + ", " + M
        + "]\" = torch.ops.aten._softmax_backward_data.default(expand, _softmax, 1, torch.float32)\n"
          "        t: \"f32["
        + K + ", " + N
        + "]\" = torch.ops.aten.t.default(mul)\n"
          "        mm_1: \"f32["
        + K + ", " + M
        + "]\" = torch.ops.aten.mm.default(t, _softmax_backward_data)\n"
          "        t_1: \"f32["
        + M + ", " + K
        + "]\" = torch.ops.aten.t.default(primals_2)\n"
          "        mm_2: \"f32["
        + N + ", " + K
        + "]\" = torch.ops.aten.mm.default(_softmax_backward_data, t_1)\n"
          "        mul_1: \"f32["
        + N + ", " + K
        + "]\" = torch.ops.aten.mul.Tensor(mm_2, 2)\n"
          "        return (sum_1, mul_1, mm_1)\n";
}

// T2: sum(x @ w), no softmax: the backward never reads an [n, m] value of the forward.
inline std::string t2Text(int64_t n, int64_t k, int64_t m)
{
    const std::string N = S(n), K = S(k), M = S(m);
    return "class GraphModule(torch.nn.Module):\n"
           "    def forward(self, primals_1: \"f32["
        + N + ", " + K + "]\", primals_2: \"f32[" + K + ", " + M
        + "]\", tangents_1: \"f32[]\"):\n"
          "        mm: \"f32["
        + N + ", " + M
        + "]\" = torch.ops.aten.mm.default(primals_1, primals_2)\n"
          "        sum_1: \"f32[]\" = torch.ops.aten.sum.default(mm)\n"
          "        expand: \"f32["
        + N + ", " + M + "]\" = torch.ops.aten.expand.default(tangents_1, [" + N + ", " + M
        + "])\n"
          "        t: \"f32["
        + K + ", " + N
        + "]\" = torch.ops.aten.t.default(primals_1)\n"
          "        mm_1: \"f32["
        + K + ", " + M
        + "]\" = torch.ops.aten.mm.default(t, expand)\n"
          "        t_1: \"f32["
        + M + ", " + K
        + "]\" = torch.ops.aten.t.default(primals_2)\n"
          "        mm_2: \"f32["
        + N + ", " + K
        + "]\" = torch.ops.aten.mm.default(expand, t_1)\n"
          "        return (sum_1, mm_2, mm_1)\n";
}

// T3: T1 with a dynamic number of rows (s0) in every annotation.
inline std::string t3Text()
{
    std::string t = t1Text(4096, 32, 32768);
    for (size_t p; (p = t.find("\"f32[4096")) != std::string::npos;) t.replace(p, 9, "\"f32[s0");
    return t;
}

// T4 (upstream test_fused_linear_cel) as a make_fx fwd+loss+bwd graph: logits = x @ W^T,
// cross entropy (log_softmax + nll_loss mean), the backward seeded by ones_like(loss); with
// `div2` the loss is divided by a gradient-accumulation factor 2 (and the seed by 2 on the way
// back). Outputs (loss, grad x, grad W).
inline std::string t4Text(int64_t rows, int64_t c, int64_t v, const std::string& dt, bool div2)
{
    const std::string R = S(rows), C = S(c), V = S(v);
    const std::string torchDt = dt == "bf16" ? "torch.bfloat16" : "torch.float32";
    std::string s = "class GraphModule(torch.nn.Module):\n"
                    "    def forward(self, arg0_1: \""
        + dt + "[" + R + ", " + C + "]\", arg1_1: \"i64[" + R + "]\", arg2_1: \"" + dt + "[" + V + ", " + C
        + "]\"):\n"
          "        t: \""
        + dt + "[" + C + ", " + V
        + "]\" = torch.ops.aten.t.default(arg2_1)\n"
          "        mm: \""
        + dt + "[" + R + ", " + V
        + "]\" = torch.ops.aten.mm.default(arg0_1, t)\n"
          "        _log_softmax: \""
        + dt + "[" + R + ", " + V
        + "]\" = torch.ops.aten._log_softmax.default(mm, 1, False)\n"
          "        nll_loss_forward = torch.ops.aten.nll_loss_forward.default(_log_softmax, arg1_1, None, 1, -100)\n"
          "        getitem: \""
        + dt
        + "[]\" = nll_loss_forward[0]\n"
          "        getitem_1: \""
        + dt + "[]\" = nll_loss_forward[1]\n";
    std::string loss = "getitem", seed = "ones_like";
    if (div2) {
        s += "        div: \"" + dt + "[]\" = torch.ops.aten.div.Tensor(getitem, 2)\n";
        loss = "div";
    }
    s += "        ones_like: \"" + dt + "[]\" = torch.ops.aten.ones_like.default(" + loss + ", dtype = " + torchDt
        + ", layout = torch.strided, device = device(type='cpu'), pin_memory = False, memory_format = "
          "torch.preserve_format)\n";
    if (div2) {
        s += "        div_1: \"" + dt + "[]\" = torch.ops.aten.div.Tensor(ones_like, 2)\n";
        seed = "div_1";
    }
    s += "        nll_loss_backward: \"" + dt + "[" + R + ", " + V + "]\" = torch.ops.aten.nll_loss_backward.default("
        + seed
        + ", _log_softmax, arg1_1, None, 1, -100, getitem_1)\n"
          "        _log_softmax_backward_data: \""
        + dt + "[" + R + ", " + V
        + "]\" = torch.ops.aten._log_softmax_backward_data.default(nll_loss_backward, _log_softmax, 1, " + torchDt
        + ")\n"
          "        t_1: \""
        + dt + "[" + V + ", " + R
        + "]\" = torch.ops.aten.t.default(_log_softmax_backward_data)\n"
          "        mm_1: \""
        + dt + "[" + V + ", " + C
        + "]\" = torch.ops.aten.mm.default(t_1, arg0_1)\n"
          "        t_2: \""
        + dt + "[" + V + ", " + C
        + "]\" = torch.ops.aten.t.default(t)\n"
          "        mm_2: \""
        + dt + "[" + R + ", " + C
        + "]\" = torch.ops.aten.mm.default(_log_softmax_backward_data, t_2)\n"
          "        return ("
        + loss + ", mm_2, mm_1)\n";
    return s;
}

// The options that let a small graph chunk (thresholds off).
inline std::map<std::string, std::string> smallOptions(int chunks, const std::string& split = "chunk")
{
    return {{"chunks", std::to_string(chunks)}, {"amplify_ratio", "0"}, {"min_output_bytes", "0"}, {"split", split}};
}

inline std::string specOf(const std::map<std::string, std::string>& o)
{
    std::string s = "auto_chunk(";
    bool first = true;
    for (const auto& [k, v] : o) {
        s += (first ? "" : ",") + k + "=" + v;
        first = false;
    }
    return s + ")";
}

}  // namespace autochunktest

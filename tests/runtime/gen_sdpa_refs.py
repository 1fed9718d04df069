#!/usr/bin/python3
"""Float64 references for the runtime's scaled_dot_product_attention kernels
(runtime/composite/sdpa_kernels.hpp): aten.scaled_dot_product_attention.default and the fused forms
_scaled_dot_product_flash_attention_for_cpu, _scaled_dot_product_flash_attention and
_scaled_dot_product_efficient_attention with their backward. Debian's torch 1.13 has none of
these ops, so this script writes PyTorch's math definition itself
(_scaled_dot_product_attention_math, which the fused forms' decompositions call):

    scores = q @ k^T * scale                 scale = 1/sqrt(E) unless given; GQA: query head h
                                             reads key/value head h // (Hq / Hkv)
    post   = scores + mask                   bool mask: 0 where true, -inf where false; float
                                             mask / attn_bias: added; is_causal: -inf where
                                             key j > query i
    lse    = logsumexp(post, -1)             natural log; -inf for a fully masked row
    out    = safe_softmax(post, -1) @ v      0 for a fully masked row

and the backward by hand in float64 (P = softmax(post), dV = P^T dO, dS = P * (dO V^T -
rowsum(out * dO)), dQ = dS * scale @ K, dK = (dS * scale)^T Q, GQA folded per key/value head;
the efficient form's attn_bias gradient is dS summed to the bias's shape). Inputs are drawn in
the case's dtype and widened to f64. Writes tests/data/sdpa/sdpa_refs.safetensors (keys
"<case>/<name>") and tests/data/sdpa/cases.json; the C++ test
(tests/runtime/test_flex_attention.cpp) builds each case's graph from its fields.

Run: /usr/bin/python3 tests/runtime/gen_sdpa_refs.py   (no arguments; deterministic)
"""
import json
import math
import os
import sys

import torch

torch.manual_seed(2025)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from st_util import write_safetensors  # noqa: E402

OUT_DIR = os.path.join(HERE, "..", "data", "sdpa")
NEG_INF = torch.tensor(-math.inf, dtype=torch.float64)


def expand_heads(t, Hq):
    return torch.repeat_interleave(t, Hq // t.shape[1], dim=1)


def reference(c, q, k, v, mask, dout):
    B, Hq, L, E = q.shape
    S = k.shape[2]
    q64, k64, v64 = q.double(), expand_heads(k.double(), Hq), expand_heads(v.double(), Hq)
    scale = c["scale"] if c["scale"] is not None else 1.0 / math.sqrt(E)
    post = q64 @ k64.transpose(-2, -1) * scale
    if mask is not None:
        if mask.dtype == torch.bool:
            post = post + torch.where(mask, torch.zeros((), dtype=torch.float64), NEG_INF)
        else:
            post = post + mask.double()
    if c["causal"]:
        keep = torch.ones(L, S, dtype=torch.bool).tril()
        post = torch.where(keep, post, NEG_INF)
    masked_rows = (post == -math.inf).all(-1)
    lse = torch.where(masked_rows, NEG_INF, torch.logsumexp(post, -1))
    p = torch.exp(post - lse.unsqueeze(-1))
    p = torch.where(masked_rows.unsqueeze(-1), torch.zeros((), dtype=torch.float64), p)
    out = p @ v64
    res = {"out": out, "lse": lse}
    if dout is None:
        return res
    do64 = dout.double()
    dv_rep = p.transpose(-2, -1) @ do64
    dp = do64 @ v64.transpose(-2, -1)
    ds = p * (dp - (out * do64).sum(-1, keepdim=True))
    dq = (ds * scale) @ k64
    dk_rep = (ds * scale).transpose(-2, -1) @ q64
    G = Hq // k.shape[1]

    def fold(t):
        return t.reshape(B, k.shape[1], G, *t.shape[2:]).sum(2)

    res.update({"dq": dq, "dk": fold(dk_rep), "dv": fold(dv_rep)})
    if c["mask"] == "bias":
        res["dbias"] = ds
    return res


DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16, "float64": torch.float64}
# op: sdpa (scaled_dot_product_attention.default), flash_cpu, flash, efficient
# mask: none, bool ([L, S], query row 1 fully masked), float ([L, S]), bias ([B, Hq, L, S] attn_bias)
CASES = [
    # id, op, (B, Hq, Hkv, L, S, E, Ev), dtype, mask, causal, scale, backward
    ("sdpa_plain", "sdpa", (2, 2, 2, 8, 12, 16, 16), "float32", "none", False, None, False),
    ("sdpa_gqa_causal", "sdpa", (2, 4, 2, 10, 10, 8, 8), "float32", "none", True, None, False),
    ("sdpa_boolmask", "sdpa", (2, 2, 2, 8, 8, 8, 4), "float32", "bool", False, 0.3, False),
    ("sdpa_bf16", "sdpa", (1, 2, 2, 16, 16, 16, 16), "bfloat16", "float", False, None, False),
    ("cpu_causal", "flash_cpu", (2, 2, 2, 12, 12, 16, 16), "float32", "none", True, None, True),
    ("cpu_floatmask_gqa", "flash_cpu", (2, 4, 2, 8, 10, 8, 8), "float32", "float", False, None, True),
    ("cpu_boolmask", "flash_cpu", (2, 2, 2, 8, 8, 8, 8), "float32", "bool", False, 0.5, True),
    ("cpu_bf16", "flash_cpu", (1, 4, 4, 16, 16, 16, 16), "bfloat16", "none", True, None, True),
    ("cpu_f16", "flash_cpu", (2, 2, 2, 12, 12, 8, 8), "float16", "bool", False, None, True),
    ("cpu_f64", "flash_cpu", (1, 2, 2, 8, 8, 8, 8), "float64", "float", False, None, True),
    ("flash_causal", "flash", (2, 2, 2, 12, 12, 16, 16), "float32", "none", True, 0.25, True),
    ("flash_bf16", "flash", (1, 2, 2, 16, 16, 16, 16), "bfloat16", "none", False, None, True),
    ("eff_bias", "efficient", (2, 2, 2, 40, 24, 8, 8), "float32", "bias", False, None, True),
    ("eff_f16_causal", "efficient", (1, 2, 2, 12, 12, 8, 8), "float16", "none", True, None, True),
]

tensors = []
cases = []
for cid, op, (B, Hq, Hkv, L, S, E, Ev), dtype, mk, causal, scale, bw in CASES:
    dt = DTYPES[dtype]
    c = {"id": cid, "op": op, "B": B, "Hq": Hq, "Hkv": Hkv, "L": L, "S": S, "E": E, "Ev": Ev, "dtype": dtype,
         "mask": mk, "causal": causal, "scale": scale, "backward": bw}
    q = torch.randn(B, Hq, L, E).to(dt)
    k = torch.randn(B, Hkv, S, E).to(dt)
    v = torch.randn(B, Hkv, S, Ev).to(dt)
    named = [("q", q), ("k", k), ("v", v)]
    mask = None
    if mk == "bool":
        mask = torch.rand(L, S) < 0.7
        mask[:, 0] = True
        mask[1, :] = False  # a fully masked row
    elif mk == "float":
        mask = torch.randn(L, S).to(dt)
    elif mk == "bias":
        mask = torch.randn(B, Hq, L, S).to(dt)
    if mask is not None:
        named.append(("mask", mask))
    dout = None
    if bw:
        dout = torch.randn(B, Hq, L, Ev).to(dt)
        named.append(("grad_out", dout))
    ref = reference(c, q, k, v, mask, dout)
    for name, t in named:
        tensors.append(("%s/%s" % (cid, name), t))
    for name in sorted(ref):
        tensors.append(("%s/ref_%s" % (cid, name), ref[name].to(torch.float64).contiguous()))
    cases.append(c)

os.makedirs(OUT_DIR, exist_ok=True)
write_safetensors(os.path.join(OUT_DIR, "sdpa_refs.safetensors"), tensors)
with open(os.path.join(OUT_DIR, "cases.json"), "w") as f:
    json.dump({"generator": "tests/runtime/gen_sdpa_refs.py", "torch": torch.__version__, "cases": cases}, f,
              indent=1)
    f.write("\n")
print("wrote %d cases, %d tensors" % (len(cases), len(tensors)))

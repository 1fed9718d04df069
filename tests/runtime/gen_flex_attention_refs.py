#!/usr/bin/python3
"""Float64 references for the executor's flex_attention / flex_attention_backward
(runtime/exec/executor_flex_attention.hpp). Debian's torch 1.13 has no flex_attention, so this
script writes PyTorch's dense math definition itself (torch/_higher_order_ops/flex_attention.py,
math_attention and sdpa_dense_backward):

    scores = q @ k^T * scale                       (GQA: query head h reads kv head h // G)
    post   = where(mask_mod(b, h, q, kv), score_mod(scores, b, h, q, kv), -inf)
    lse    = logsumexp(post, -1) / ln 2            (base 2, as the HOP returns it; -inf when
                                                    a row is fully masked)
    out    = safe_softmax(post, -1) @ v            (0 for a fully masked row)
    max    = max(post, -1) / ln 2                  (the third output of PyTorch 2.9+'s HOP)

and the backward as the gradients of sum(out * grad_out) + sum(lse * grad_lse) (computed by
hand in float64: dP, dS = P * (dP - rowsum(out * dO) + dlse / ln2), the score_mod's derivative,
the mask). Inputs are drawn in the case's dtype (f32, bf16, f16, f64) and widened to f64 for the
reference. Writes tests/data/flex/flex_refs.safetensors (keys "<case>/<name>") and
tests/data/flex/cases.json (per case: shapes, dtype, score_mod and mask_mod names, scale,
whether it has a backward). The C++ test (tests/runtime/test_flex_attention.cpp) builds each
case's graph from the names.

Run: /usr/bin/python3 tests/runtime/gen_flex_attention_refs.py   (no arguments; deterministic)
"""
import json
import math
import os
import sys

import torch

torch.manual_seed(2024)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from st_util import TORCH_NAME, write_safetensors  # noqa: E402

OUT_DIR = os.path.join(HERE, "..", "data", "flex")


# score_mod(score, b, h, q, kv, buffers) and d score_mod / d score, by name (the C++ test has
# the same names as FX graphs)
def score_mod(name, s, b, h, q, kv, bias):
    if name == "identity":
        return s
    if name == "relpos":  # the corpus's score + (q - kv)
        return s + (q - kv).to(s.dtype)
    if name == "scaled_relpos":  # score * 0.5 + (q - kv)
        return s * 0.5 + (q - kv).to(s.dtype)
    if name == "head_batch":  # score + (h - b)
        return s + (h - b).to(s.dtype)
    if name == "head_bias":  # score + bias[h] (a score_mod_other_buffers tensor)
        return s + bias[h].to(s.dtype)
    raise ValueError(name)


def score_mod_grad(name):
    return 0.5 if name == "scaled_relpos" else 1.0


def mask_mod(name, b, h, q, kv):
    if name == "none":
        return torch.ones((), dtype=torch.bool)
    if name == "causal":
        return q >= kv
    if name == "strict_causal":  # row 0 is fully masked
        return kv < q
    if name == "sliding":  # causal window of 4
        return (q >= kv) & (q - kv < 4)
    raise ValueError(name)


def expand_heads(t, B, Hq):
    Bkv, Hkv = t.shape[0], t.shape[1]
    t = torch.repeat_interleave(t, Hq // Hkv, dim=1)
    return t.expand(B, *t.shape[1:])


def reference(c, q, k, v, bias, dout=None, dlse=None):
    B, Hq, L, _ = q.shape
    S = k.shape[2]
    q64, k64, v64 = q.double(), expand_heads(k.double(), B, Hq), expand_heads(v.double(), B, Hq)
    b = torch.arange(B).view(B, 1, 1, 1)
    h = torch.arange(Hq).view(1, Hq, 1, 1)
    qi = torch.arange(L).view(1, 1, L, 1)
    kvi = torch.arange(S).view(1, 1, 1, S)
    scores = q64 @ k64.transpose(-2, -1) * c["scale"]
    mask = mask_mod(c["mask_mod"], b, h, qi, kvi).expand(B, Hq, L, S)
    post = torch.where(mask, score_mod(c["score_mod"], scores, b, h, qi, kvi, bias).expand(B, Hq, L, S),
                       torch.tensor(-math.inf, dtype=torch.float64))
    masked_rows = (post == -math.inf).all(-1)
    lse = torch.logsumexp(post, -1)
    lse = torch.where(masked_rows, torch.tensor(-math.inf, dtype=torch.float64), lse)
    p = torch.exp(post - lse.unsqueeze(-1))
    p = torch.where(masked_rows.unsqueeze(-1), torch.zeros((), dtype=torch.float64), p)
    out = p @ v64
    res = {"out": out, "lse": lse / math.log(2), "max": post.max(-1).values / math.log(2)}
    if dout is None:
        return res
    do64, dl64 = dout.double(), dlse.double()
    dv_rep = p.transpose(-2, -1) @ do64
    dp = do64 @ v64.transpose(-2, -1)
    row = (out * do64).sum(-1, keepdim=True)
    ds = p * (dp - row + (dl64 / math.log(2)).unsqueeze(-1))
    ds = torch.where(mask, ds * score_mod_grad(c["score_mod"]) * c["scale"], torch.zeros((), dtype=torch.float64))
    dq = ds @ k64
    dk_rep = ds.transpose(-2, -1) @ q64
    G = Hq // k.shape[1]

    def fold(t, kv):
        t = t.reshape(B, kv.shape[1], G, *t.shape[2:]).sum(2)
        return t.sum(0, keepdim=True) if kv.shape[0] != B else t

    res.update({"dq": dq, "dk": fold(dk_rep, k), "dv": fold(dv_rep, v)})
    return res


DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16, "float64": torch.float64}
CASES = [
    # id, (B, Hq, Hkv, Bkv, L, S, E, Ev), dtype, score_mod, mask_mod, backward
    ("identity", (2, 2, 2, 2, 8, 12, 16, 8), "float32", "identity", "none", True),
    ("causal", (2, 2, 2, 2, 12, 12, 16, 16), "float32", "identity", "causal", True),
    ("relpos_causal", (1, 4, 4, 1, 16, 16, 8, 8), "float32", "relpos", "causal", True),
    ("masked_row", (1, 2, 2, 1, 8, 8, 8, 8), "float32", "identity", "strict_causal", False),
    ("gqa", (2, 4, 2, 2, 8, 10, 8, 4), "float32", "head_batch", "causal", True),
    ("gqa_bcast", (2, 6, 2, 1, 8, 8, 8, 8), "float32", "scaled_relpos", "sliding", True),
    ("buffer", (1, 4, 4, 1, 8, 8, 8, 8), "float32", "head_bias", "causal", False),
    ("f64_relpos", (1, 2, 2, 1, 8, 8, 8, 8), "float64", "relpos", "causal", True),
    ("bf16_relpos", (1, 4, 2, 1, 16, 16, 16, 16), "bfloat16", "relpos", "causal", True),
    ("f16_sliding", (2, 2, 1, 2, 12, 12, 8, 8), "float16", "identity", "sliding", True),
]

tensors = []
cases = []
for cid, (B, Hq, Hkv, Bkv, L, S, E, Ev), dtype, sm, mm, bw in CASES:
    dt = DTYPES[dtype]
    c = {"id": cid, "B": B, "Hq": Hq, "Hkv": Hkv, "Bkv": Bkv, "L": L, "S": S, "E": E, "Ev": Ev, "dtype": dtype,
         "score_mod": sm, "mask_mod": mm, "scale": 1.0 / math.sqrt(E), "backward": bw}
    q = torch.randn(B, Hq, L, E).to(dt)
    k = torch.randn(Bkv, Hkv, S, E).to(dt)
    v = torch.randn(Bkv, Hkv, S, Ev).to(dt)
    bias = torch.randn(Hq).to(torch.float32) if sm == "head_bias" else None
    named = [("q", q), ("k", k), ("v", v)]
    if bias is not None:
        named.append(("bias", bias))
    if bw:
        dout = torch.randn(B, Hq, L, Ev).to(dt)
        dlse = torch.randn(B, Hq, L).to(torch.float32)
        named += [("grad_out", dout), ("grad_lse", dlse)]
        ref = reference(c, q, k, v, bias, dout, dlse)
    else:
        ref = reference(c, q, k, v, bias)
    for name, t in named:
        tensors.append(("%s/%s" % (cid, name), t))
    for name in sorted(ref):
        tensors.append(("%s/ref_%s" % (cid, name), ref[name].to(torch.float64).contiguous()))
    cases.append(c)

os.makedirs(OUT_DIR, exist_ok=True)
write_safetensors(os.path.join(OUT_DIR, "flex_refs.safetensors"), tensors)
with open(os.path.join(OUT_DIR, "cases.json"), "w") as f:
    json.dump({"generator": "tests/runtime/gen_flex_attention_refs.py", "torch": torch.__version__,
               "dtype_names": sorted(set(TORCH_NAME[DTYPES[c["dtype"]]] for c in cases)), "cases": cases}, f,
              indent=1)
    f.write("\n")
print("wrote %d cases, %d tensors" % (len(cases), len(tensors)))

#!/usr/bin/env python3
"""Generates a deep GPT-2 train-step graph like corpus/pytorch/large/gpt2_deep640, with N blocks.

The corpus has no generator, so this one rebuilds the same model (d=8, 2 heads, T=4, V=32,
batch 2, tied embeddings, blocks.<k> with ln_1/attn/ln_2/mlp) and traces it the same way:
make_fx (tracing_mode="real") over a function that computes the loss and
torch.autograd.grad(loss, params), returning (loss, *grads). It writes, in OUT_DIR:

  NAME.joint.code.py                gm.code
  NAME.inputs.safetensors           placeholder values keyed arg0_1, arg1_1, ...
  NAME.joint.constants.safetensors  get_attr tensors (the causal masks)
  NAME.meta.json                    per node name/op/target/tensor_meta/module_path/phase
  NAME.params.json                  data_inputs and parameter FQNs

in the corpus formats (corpus/pytorch/README.md), so fxlens' sidecar loader reads them.
Used by tests/bench/run_pass_bench.sh for the linear-growth comparison (N=64: ~10k nodes).

Usage: make_gpt2_deep.py OUT_DIR [--blocks N] [--name NAME] [--seed S]
Needs PyTorch 1.13 (Debian's python3-torch): run with /usr/bin/python3 if another python3
comes first on PATH.
"""
import argparse
import json
import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.fx.experimental.proxy_tensor import make_fx

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "runtime"))
from st_util import write_safetensors  # noqa: E402  (tests/runtime/st_util.py)

D, HEADS, T, V, BATCH = 8, 2, 4, 32, 2


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(D, 3 * D)
        self.c_proj = nn.Linear(D, D)
        # A plain tensor attribute: make_fx records it as a get_attr constant (_tensor_constantK),
        # and mask[:T, :T] over the whole mask traces as aten.alias, as in the corpus graph.
        self.mask = torch.tril(torch.ones(T, T, dtype=torch.bool))

    def forward(self, x):
        B, Tn, C = x.shape
        hs = C // HEADS
        q, k, v = self.c_attn(x).split(C, dim=2)
        q = q.view(B, Tn, HEADS, hs).transpose(1, 2)
        k = k.view(B, Tn, HEADS, hs).transpose(1, 2)
        v = v.view(B, Tn, HEADS, hs).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hs))
        att = att.masked_fill(~self.mask[:Tn, :Tn], float("-inf"))
        att = F.softmax(att, dim=-1)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, Tn, C)
        return self.c_proj(y)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_fc = nn.Linear(D, 4 * D)
        self.c_proj = nn.Linear(4 * D, D)

    def forward(self, x):
        return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(D)
        self.attn = CausalSelfAttention()
        self.ln_2 = nn.LayerNorm(D)
        self.mlp = MLP()

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, n_blocks):
        super().__init__()
        self.wte = nn.Embedding(V, D)
        self.wpe = nn.Embedding(T, D)
        self.blocks = nn.ModuleList([Block() for _ in range(n_blocks)])
        self.lnf = nn.LayerNorm(D)

    def forward(self, idx, targets):
        Tn = idx.shape[1]
        tok = self.wte(idx)
        x = tok + self.wpe(torch.arange(Tn))
        for b in self.blocks:
            x = b(x)
        x = self.lnf(x)
        logits = x @ self.wte.weight.t()  # tied embeddings
        return F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.view(-1))


# ---------------------------------------------------------------- module path / phase stamping

class Attribution:
    """Stamps every fx node the tracer creates with the running module and the phase.

    Forward: the innermost module whose forward is running (a stack kept by module hooks).
    Backward: the module whose autograd functions are about to run: every tensor a torch
    function returns during the forward gets a hook (run just before its grad_fn) that makes
    that tensor's module current; after a grad_fn ran, a gradient sum into its input's buffer
    belongs to that input's producer (after_backward). The loss seed and everything before the
    first hook are the root module "". Placeholders, the output node and the final sum of the
    tied embedding's two gradients carry neither. With the corpus' gpt2_tiny dimensions
    (D=64, 4 heads, T=16, V=256, batch 4, 2 blocks) this reproduces gpt2_tiny's gm.code,
    meta.json, params.json and constants exactly.
    """

    def __init__(self):
        self.stack = []
        self.phase = None      # None outside the traced function body
        self.bw_path = ""
        self.bw_phase = "backward"
        self.fn_path = {}      # grad_fn of a tensor a torch function returned -> its module
        self.stamps = {}       # id(node) -> (module_path or None, phase or None)

    def set_backward(self, path):
        self.bw_path = path
        self.bw_phase = "backward"

    def after_backward(self, fn):
        # A gradient that reaches a tensor from two consumers is summed right after the
        # second one ran, into the buffer of the tensor's producer: that sum belongs to the
        # producer's module, and to none for a leaf (the tied embedding's two gradients).
        nxt = fn.next_functions[0][0] if fn.next_functions else None
        if nxt is None:
            return
        if type(nxt).__name__ == "AccumulateGrad":
            self.bw_path, self.bw_phase = None, None
        elif nxt in self.fn_path:
            self.bw_path = self.fn_path[nxt]

    def current(self):
        if self.phase == "forward":
            return self.stack[-1] if self.stack else None
        if self.phase == "backward":
            return self.bw_path
        return None

    def install_module_hooks(self, model):
        handles = []
        for name, mod in model.named_modules():
            def pre(m, inp, _name=name):
                self.stack.append(_name)

            def post(m, inp, out):
                self.stack.pop()

            handles.append(mod.register_forward_pre_hook(pre))
            handles.append(mod.register_forward_hook(post))
        return handles


ATTR = Attribution()
_orig_create_node = torch.fx.Graph.create_node


def _stamping_create_node(self, op, target, args=None, kwargs=None, name=None, type_expr=None):
    node = _orig_create_node(self, op, target, args, kwargs, name, type_expr)
    if op not in ("placeholder", "output") and ATTR.phase is not None:
        phase = ATTR.bw_phase if ATTR.phase == "backward" else ATTR.phase
        ATTR.stamps[id(node)] = (ATTR.current(), phase)
    return node


class BackwardPathMode(torch.overrides.TorchFunctionMode):
    """Hooks every grad-requiring tensor a torch function returns in the forward."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if ATTR.phase == "forward":
            path = ATTR.stack[-1] if ATTR.stack else ""
            for t in (out if isinstance(out, (tuple, list)) else (out,)):
                if isinstance(t, torch.Tensor) and t.requires_grad and t.grad_fn is not None:
                    t.register_hook(lambda g, _p=path: ATTR.set_backward(_p))
                    fn = t.grad_fn
                    if fn not in ATTR.fn_path:
                        ATTR.fn_path[fn] = path
                        fn.register_hook(lambda gi, go, _fn=fn: ATTR.after_backward(_fn))
        return out


# ---------------------------------------------------------------- writers


def tensor_meta_json(tm):
    return {"dtype": str(tm.dtype).replace("torch.", ""), "shape": [int(s) for s in tm.shape],
            "stride": [int(s) for s in tm.stride]}


def node_meta_json(node):
    # As the corpus: tensor_meta only where the tracer recorded one (tensor outputs), so
    # tuple-valued nodes (native_layer_norm, split, nll_loss_forward) and get_attr have none.
    j = {"name": node.name, "op": node.op, "target": str(node.target)}
    stamp = ATTR.stamps.get(id(node))
    if stamp is not None and stamp[0] is not None:
        j["module_path"] = stamp[0]
    if stamp is not None and stamp[1] is not None:
        j["phase"] = stamp[1]
    tm = node.meta.get("tensor_meta")
    if tm is not None and hasattr(tm, "shape"):
        j["tensor_meta"] = tensor_meta_json(tm)
    elif isinstance(tm, (list, tuple)):
        j["tensor_meta"] = [tensor_meta_json(x) if hasattr(x, "shape") else None for x in tm]
    return j


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--blocks", type=int, default=64)
    ap.add_argument("--name", default=None, help="case name (default gpt2_deep<N>)")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    name = a.name or f"gpt2_deep{a.blocks}"
    os.makedirs(a.out_dir, exist_ok=True)
    torch.manual_seed(a.seed)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 100000))

    model = GPT(a.blocks)
    named = list(model.named_parameters())  # tied wte.weight listed once
    fqns = [n for n, _ in named]
    params = [p.detach().clone() for _, p in named]
    idx = torch.randint(0, V, (BATCH, T))
    targets = torch.randint(0, V, (BATCH, T))
    handles = ATTR.install_module_hooks(model)

    def train_step(idx, targets, *ps):
        ps = [p.requires_grad_(True) for p in ps]
        ATTR.phase = "forward"
        with BackwardPathMode():
            loss = torch.nn.utils.stateless.functional_call(model, dict(zip(fqns, ps)), (idx, targets))
        ATTR.phase = "backward"
        ATTR.bw_path, ATTR.bw_phase = "", "backward"
        grads = torch.autograd.grad(loss, ps)
        ATTR.phase = None
        return (loss, *grads)

    torch.fx.Graph.create_node = _stamping_create_node
    try:
        gm = make_fx(train_step, tracing_mode="real")(idx, targets, *params)
    finally:
        torch.fx.Graph.create_node = _orig_create_node
        for h in handles:
            h.remove()

    base = os.path.join(a.out_dir, name)
    with open(base + ".joint.code.py", "w") as f:
        f.write(gm.code)

    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    values = [idx, targets, *params]
    if len(placeholders) != len(values):
        sys.exit(f"expected {len(values)} placeholders, found {len(placeholders)}")
    write_safetensors(base + ".inputs.safetensors", [(n.target, v) for n, v in zip(placeholders, values)])

    consts = [(n.target, getattr(gm, n.target)) for n in gm.graph.nodes if n.op == "get_attr"]
    consts = [(k, v) for k, v in consts if isinstance(v, torch.Tensor)]
    if consts:
        write_safetensors(base + ".joint.constants.safetensors", consts)

    meta = {"source": f"make_fx (torch {torch.__version__}, CPU, tracing_mode=real)",
            "nodes": [node_meta_json(n) for n in gm.graph.nodes]}
    with open(base + ".meta.json", "w") as f:
        json.dump(meta, f, indent=1)
    with open(base + ".params.json", "w") as f:
        json.dump({"data_inputs": 2, "parameter_fqns": fqns}, f, indent=1)
    print(f"{base}.joint.code.py: {len(gm.graph.nodes)} nodes, {a.blocks} blocks")


if __name__ == "__main__":
    main()

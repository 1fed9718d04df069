#!/usr/bin/env python3
"""Traces small training steps of model kinds the corpus lacks, with PyTorch 1.13 (Debian's
python3-torch, CPU), and writes them as generated test data:

    make_models.py OUT_DIR [NAME ...]

Per model NAME, as the corpus' pytorch/ cases are made (make_fx, tracing_mode=real):
  NAME.joint.code.py          gm.code of the step: returns (loss, *grads); module state
                              (BatchNorm running statistics, num_batches_tracked) is passed
                              as placeholders and written in place by the graph
  NAME.inputs.safetensors     the placeholders' values before the step (by placeholder name)
  NAME.outputs.safetensors    PyTorch's outputs of the traced graph on those inputs (out_K),
                              and every placeholder the step wrote, after it ("state.NAME")
  NAME.joint.constants.safetensors  the tensors the graph reads with get_attr (weights the
                              tracer kept as constants, e.g. nn.LSTM's flat weights), if any
  NAME.states.json            the placeholders the step writes, with the module buffer each
                              one is (e.g. {"arg10_1": "bn1.running_mean"})
  NAME.params.json            how many leading placeholders are data, and the parameter and
                              buffer FQNs of the rest, in order
  NAME.meta.json              per node: op, target, the tracer's tensor meta, and the module
                              path and phase, attributed as the corpus' generator does (this
                              PyTorch records no nn_module_stack): a forward node gets the
                              innermost module whose forward was running when the tracer
                              created it; a backward node gets the module whose autograd
                              functions were running (pre-hooks on the autograd graph)

The graph is run by PyTorch's own interpreter on fresh copies of the inputs, on one thread,
so the outputs and states are PyTorch's. Nothing is edited by hand.
"""

import json
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.fx.experimental.proxy_tensor import make_fx
from torch.nn.utils.stateless import functional_call

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_fx_graph import write_safetensors  # noqa: E402


class BnConvNet(nn.Module):
    """A two-block residual conv net with BatchNorm in training mode (a small ResNet)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(4)
        self.conv2 = nn.Conv2d(4, 4, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4, 5)

    def forward(self, x, y):
        h = torch.relu(self.bn1(self.conv1(x)))
        h = torch.relu(self.bn2(self.conv2(h)) + h)
        return F.cross_entropy(self.fc(h.mean((2, 3))), y)


def bn_convnet():
    return BnConvNet(), (torch.randn(4, 3, 6, 6), torch.randint(0, 5, (4,)))


class GnResNet(nn.Module):
    """A small ResNet with GroupNorm (per-sample statistics: chunkable along the batch)."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.gn1 = nn.GroupNorm(2, 8)
        self.conv = nn.Conv2d(8, 8, 3, padding=1)
        self.gn2 = nn.GroupNorm(2, 8)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(8, 5)

    def forward(self, x, y):
        h = F.relu(self.gn1(self.stem(x)))
        h = F.relu(self.gn2(self.conv(h)) + h)
        h = F.adaptive_avg_pool2d(self.pool(h), 1).flatten(1)
        return F.cross_entropy(self.fc(h), y)


def gn_resnet():
    return GnResNet(), (torch.randn(4, 3, 8, 8), torch.randint(0, 5, (4,)))


class UNet(nn.Module):
    """A two-level U-Net: max pool down, nearest upsampling up, a skip concatenation, and a
    per-pixel cross entropy (an [N, C, H, W] input: nll_loss2d)."""

    def __init__(self):
        super().__init__()
        self.down = nn.Conv2d(3, 4, 3, padding=1)
        self.mid = nn.Conv2d(4, 4, 3, padding=1)
        self.up = nn.Conv2d(8, 4, 3, padding=1)
        self.head = nn.Conv2d(4, 3, 1)

    def forward(self, x, y):
        d = F.relu(self.down(x))
        m = F.relu(self.mid(F.max_pool2d(d, 2)))
        u = F.interpolate(m, scale_factor=2.0, mode="nearest")
        h = F.relu(self.up(torch.cat([u, d], 1)))
        return F.cross_entropy(self.head(h), y)


def unet():
    return UNet(), (torch.randn(2, 3, 8, 8), torch.randint(0, 3, (2, 8, 8)))


class ViT(nn.Module):
    """A vision transformer with a cls token: patches by a strided conv, the cls token
    expanded over the batch and concatenated, one pre-norm attention block, the head on cls."""

    def __init__(self, d=16, heads=2):
        super().__init__()
        self.patch = nn.Conv2d(3, d, 4, stride=4)
        self.cls = nn.Parameter(torch.randn(1, 1, d) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, 5, d) * 0.02)
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))
        self.head = nn.Linear(d, 5)

    def forward(self, x, y):
        p = self.patch(x).flatten(2).transpose(1, 2)
        h = torch.cat([self.cls.expand(x.shape[0], -1, -1), p], 1) + self.pos
        a = self.ln1(h)
        h = h + self.attn(a, a, a, need_weights=False)[0]
        h = h + self.mlp(self.ln2(h))
        return F.cross_entropy(self.head(h[:, 0]), y)


def vit_cls():
    return ViT(), (torch.randn(4, 3, 8, 8), torch.randint(0, 5, (4,)))


class LstmLM(nn.Module):
    """An LSTM language model: embedding, one nn.LSTM layer, a vocabulary head."""

    def __init__(self, vocab=11, d=8):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.lstm = nn.LSTM(d, d, batch_first=True)
        self.head = nn.Linear(d, vocab)

    def forward(self, ids, y):
        h, _ = self.lstm(self.emb(ids))
        return F.cross_entropy(self.head(h).flatten(0, 1), y.flatten())


def lstm_lm():
    return LstmLM(), (torch.randint(0, 11, (2, 5)), torch.randint(0, 11, (2, 5)))


class GruCellLM(nn.Module):
    """A recurrent model stepped by hand over time (x[:, t] per step, h[:, -1] read), as users
    write one: a GRUCell, the last state to a head."""

    def __init__(self, d=6):
        super().__init__()
        self.cell = nn.GRUCell(4, d)
        self.head = nn.Linear(d, 3)

    def forward(self, x, y):
        h = torch.zeros(x.shape[0], self.cell.hidden_size)
        for t in range(x.shape[1]):
            h = self.cell(x[:, t], h)
        return F.cross_entropy(self.head(h), y)


def gru_steps():
    return GruCellLM(), (torch.randn(4, 3, 4), torch.randint(0, 3, (4,)))


class T5Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.o = nn.Linear(d, d, bias=False)
        self.ff = nn.Linear(d, d, bias=False)

    def forward(self, h, bias):
        b, t, d = h.shape
        q, k, v = self.qkv(h).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        s = q @ k.transpose(-1, -2) + bias
        a = (s.softmax(-1) @ v).transpose(1, 2).reshape(b, t, d)
        h = h + self.o(a)
        return h + F.relu(self.ff(h))


class T5Like(nn.Module):
    """A T5-style encoder: one relative-position bias table, computed once and added in every
    block (its gradient is a sum over the blocks and the batch)."""

    def __init__(self, d=8, heads=2, t=4, blocks=3):
        super().__init__()
        self.rel = nn.Embedding(2 * t - 1, heads)
        self.blocks = nn.ModuleList(T5Block(d, heads) for _ in range(blocks))
        self.head = nn.Linear(d, 3)
        idx = torch.arange(t)
        self.register_buffer("rel_index", idx[None, :] - idx[:, None] + t - 1, persistent=False)

    def forward(self, x, y):
        bias = self.rel(self.rel_index).permute(2, 0, 1).unsqueeze(0)
        h = x
        for blk in self.blocks:
            h = blk(h, bias)
        return F.cross_entropy(self.head(h.mean(1)), y)


def t5_bias():
    return T5Like(), (torch.randn(4, 4, 8), torch.randint(0, 3, (4,)))


class MoeBag(nn.Module):
    """A capacity-limited mixture of experts over EmbeddingBag features: top-1 routing, each
    expert takes at most `capacity` tokens (the rest pass through), outputs scattered back."""

    def __init__(self, vocab=13, d=8, experts=2, capacity=3):
        super().__init__()
        self.bag = nn.EmbeddingBag(vocab, d, mode="mean")
        self.gate = nn.Linear(d, experts)
        self.experts = nn.ModuleList(nn.Linear(d, d) for _ in range(experts))
        self.capacity = capacity
        self.head = nn.Linear(d, 3)

    def forward(self, ids, offsets, y):
        h = self.bag(ids, offsets)
        probs = self.gate(h).softmax(-1)
        top, which = probs.max(-1)
        out = h.clone()
        for e, expert in enumerate(self.experts):
            chosen = (which == e).nonzero().flatten()[: self.capacity]
            out = out.index_add(0, chosen, expert(h[chosen]) * top[chosen, None])
        return F.cross_entropy(self.head(out), y)


def moe_bag():
    return MoeBag(), (torch.randint(0, 13, (12,)), torch.tensor([0, 2, 3, 6, 8, 9]), torch.randint(0, 3, (6,)))


MODELS = {
    "bn_convnet": bn_convnet,
    "gn_resnet": gn_resnet,
    "unet": unet,
    "vit_cls": vit_cls,
    "lstm_lm": lstm_lm,
    "gru_steps": gru_steps,
    "t5_bias": t5_bias,
    "moe_bag": moe_bag,
}


class ModuleAttribution:
    """Tags every node the tracer creates with a module path and a phase (see the docstring)."""

    def __init__(self, model):
        self.stack = []
        self.backward = None  # the module whose autograd functions run, in the backward
        self.phase = "forward"
        self.owner = {}  # autograd function -> module path (innermost first)
        self.before = []  # per open module: the autograd functions that existed before it ran
        self.handles = []
        for path, module in model.named_modules():
            self.handles.append(module.register_forward_pre_hook(self._pre(path)))
            self.handles.append(module.register_forward_hook(self._post(path)))

    @staticmethod
    def _functions(tensors):
        return [t.grad_fn for t in tensors if isinstance(t, torch.Tensor) and t.grad_fn is not None]

    @staticmethod
    def _reachable(roots, stop):
        seen, todo = set(), list(roots)
        while todo:
            fn = todo.pop()
            if fn is None or fn in seen or fn in stop:
                continue
            seen.add(fn)
            todo.extend(f for f, _ in fn.next_functions)
        return seen

    def _pre(self, path):
        def hook(module, args):
            self.stack.append(path)
            self.before.append(self._reachable(self._functions(args), set()))

        return hook

    def _post(self, path):
        def hook(module, args, result):
            before = self.before.pop()
            self.stack.pop()
            outs = result if isinstance(result, (tuple, list)) else [result]
            for fn in self._reachable(self._functions(outs), before):
                if fn not in self.owner:
                    self.owner[fn] = path
                    fn.register_prehook(self._enter(path))

        return hook

    def _enter(self, path):
        def hook(grad_outputs):
            self.backward = path
            return None

        return hook

    def current(self):
        if self.phase == "forward":
            return self.stack[-1] if self.stack else None
        return self.backward

    def remove(self):
        for h in self.handles:
            h.remove()


def trace(model, data):
    model.train()
    params = dict(model.named_parameters())
    buffers = dict(model.named_buffers())
    names = list(params) + list(buffers)

    where = ModuleAttribution(model)

    def step(*args):
        where.phase = "forward"
        state = dict(zip(names, args[len(data):]))
        loss = functional_call(model, state, tuple(args[: len(data)]))
        where.phase = "backward"
        where.backward = None
        grads = torch.autograd.grad(loss, args[len(data): len(data) + len(params)], allow_unused=True)
        return (loss, *grads)

    state = [p.detach().clone().requires_grad_(True) for p in params.values()]
    state += [b.detach().clone() for b in buffers.values()]
    create_node = torch.fx.Graph.create_node

    def tagged(graph, op, *args, **kwargs):
        node = create_node(graph, op, *args, **kwargs)
        if op == "call_function":
            node.meta["fxl_module"] = where.current()
            node.meta["fxl_phase"] = where.phase
        return node

    torch.fx.Graph.create_node = tagged
    try:
        gm = make_fx(step)(*data, *state)
    finally:
        torch.fx.Graph.create_node = create_node
        where.remove()
    return gm, list(data) + [t.detach().clone() for t in state], names, len(data)


def node_meta(gm):
    """The meta.json document: per node its op, target, tensor meta, module path and phase."""
    nodes = []
    for n in gm.graph.nodes:
        row = {"name": n.name, "op": n.op, "target": n.target if isinstance(n.target, str) else str(n.target)}
        tm = n.meta.get("tensor_meta")
        if tm is not None and hasattr(tm, "shape"):
            row["tensor_meta"] = {
                "dtype": str(tm.dtype).replace("torch.", ""),
                "shape": list(tm.shape),
                "stride": list(tm.stride),
            }
        if n.meta.get("fxl_module") is not None:
            row["module_path"] = n.meta["fxl_module"]
        if "fxl_phase" in n.meta:
            row["phase"] = n.meta["fxl_phase"]
        nodes.append(row)
    return {"source": "make_fx (torch %s, CPU, tracing_mode=real)" % torch.__version__, "nodes": nodes}


def main(argv):
    if len(argv) < 2:
        sys.stderr.write("usage: make_models.py OUT_DIR [NAME ...]\n")
        return 2
    out = argv[1]
    wanted = argv[2:] or list(MODELS)
    torch.set_num_threads(1)
    for name in wanted:
        torch.manual_seed(0)
        model, data = MODELS[name]()
        gm, values, names, ndata = trace(model, data)
        placeholders = [n.name for n in gm.graph.nodes if n.op == "placeholder"]
        inputs = dict(zip(placeholders, values))
        write_safetensors(os.path.join(out, name + ".inputs.safetensors"), inputs)
        copies = [v.clone() for v in values]
        with torch.no_grad():
            result = gm(*copies)
        outputs = {"out_%d" % k: v for k, v in enumerate(result) if v is not None}
        states = {}
        for k, p in enumerate(placeholders):
            if not torch.equal(copies[k], values[k]):
                outputs["state." + p] = copies[k]
                states[p] = names[k - ndata] if k >= ndata else "input"
        write_safetensors(os.path.join(out, name + ".outputs.safetensors"), outputs)
        constants = {n.target: getattr(gm, n.target) for n in gm.graph.nodes if n.op == "get_attr"}
        if constants:
            write_safetensors(os.path.join(out, name + ".joint.constants.safetensors"), constants)
        with open(os.path.join(out, name + ".joint.code.py"), "w") as f:
            f.write(gm.code)
        with open(os.path.join(out, name + ".params.json"), "w") as f:
            json.dump({"data_inputs": ndata, "parameter_fqns": names}, f, indent=1)
            f.write("\n")
        with open(os.path.join(out, name + ".meta.json"), "w") as f:
            json.dump(node_meta(gm), f, indent=0)
            f.write("\n")
        with open(os.path.join(out, name + ".states.json"), "w") as f:
            json.dump(states, f, indent=1)
            f.write("\n")
        print("%s: %d nodes, %d states written" % (name, len(gm.graph.nodes), len(states)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

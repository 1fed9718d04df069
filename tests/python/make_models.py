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
  NAME.states.json            the placeholders the step writes, with the module buffer each
                              one is (e.g. {"arg10_1": "bn1.running_mean"})

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


MODELS = {"bn_convnet": bn_convnet}


def trace(model, data):
    model.train()
    params = dict(model.named_parameters())
    buffers = dict(model.named_buffers())
    names = list(params) + list(buffers)

    def step(*args):
        state = dict(zip(names, args[len(data):]))
        loss = functional_call(model, state, tuple(args[: len(data)]))
        grads = torch.autograd.grad(loss, args[len(data): len(data) + len(params)])
        return (loss, *grads)

    state = [p.detach().clone().requires_grad_(True) for p in params.values()]
    state += [b.detach().clone() for b in buffers.values()]
    gm = make_fx(step)(*data, *state)
    return gm, list(data) + [t.detach().clone() for t in state], names, len(data)


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
        outputs = {"out_%d" % k: v for k, v in enumerate(result)}
        states = {}
        for k, p in enumerate(placeholders):
            if not torch.equal(copies[k], values[k]):
                outputs["state." + p] = copies[k]
                states[p] = names[k - ndata] if k >= ndata else "input"
        write_safetensors(os.path.join(out, name + ".outputs.safetensors"), outputs)
        with open(os.path.join(out, name + ".joint.code.py"), "w") as f:
            f.write(gm.code)
        with open(os.path.join(out, name + ".states.json"), "w") as f:
            json.dump(states, f, indent=1)
            f.write("\n")
        print("%s: %d nodes, %d states written" % (name, len(gm.graph.nodes), len(states)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

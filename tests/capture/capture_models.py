#!/usr/bin/env python3
"""Uses python/fxlens_capture.py as a user would, on models whose steps the tests then check
with fxlens (tests/app/test_capture.cpp):

    capture_models.py OUT_DIR [MODEL...]

- mlp_gelu: the corpus' mlp_gelu (x @ w1 -> gelu -> @ w2 -> sum) with the corpus' own input and
  weights (tests/data/pytorch/mlp_gelu.inputs.safetensors): the capture must give the corpus'
  graph and PyTorch's outputs again;
- bn_conv: a model kind the corpus lacks, with buffers: conv -> batch norm (training, running
  statistics) -> relu -> linear, cross-entropy loss; seeded.
- bn_conv_with: the same model, inputs and seed captured by the `with` form around the user's
  own step (forward, backward, an SGD step): the same files as bn_conv's, and the model left as
  the step left it.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import fxlens_capture  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


class MlpGelu(torch.nn.Module):
    def __init__(self, w1, w2):
        super().__init__()
        self.w1 = torch.nn.Parameter(w1)
        self.w2 = torch.nn.Parameter(w2)

    def forward(self, x):
        return torch.nn.functional.gelu(x @ self.w1) @ self.w2


class BnConv(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(4)
        self.fc = torch.nn.Linear(4 * 6 * 6, 5)

    def forward(self, x):
        return self.fc(torch.relu(self.bn(self.conv(x))).flatten(1))


class WithLoss(torch.nn.Module):
    """A model that returns its loss, as the `with` form needs."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, x, y):
        return torch.nn.functional.cross_entropy(self.inner(x), y)


def main():
    out = sys.argv[1]
    which = sys.argv[2:] or ["mlp_gelu", "bn_conv", "bn_conv_with"]
    if "mlp_gelu" in which:
        v = fxlens_capture.read_safetensors(os.path.join(HERE, "..", "data", "pytorch", "mlp_gelu.inputs.safetensors"))
        model = MlpGelu(v["arg1_1"], v["arg2_1"])

        def step(x):
            return model(x).sum()

        fxlens_capture.capture(step, model, (v["arg0_1"],), out, name="mlp_gelu")
    if "bn_conv" in which:
        torch.manual_seed(0)
        model = BnConv()
        x = torch.randn(8, 3, 6, 6)
        y = torch.randint(0, 5, (8,))
        before = model.bn.running_mean.clone()

        def step(x, y):
            return torch.nn.functional.cross_entropy(model(x), y)

        fxlens_capture.capture(step, model, (x, y), out, name="bn_conv")
        assert torch.equal(before, model.bn.running_mean), "the capture changed the model's buffers"
    if "bn_conv_with" in which:
        torch.manual_seed(0)
        model = WithLoss(BnConv())
        x = torch.randn(8, 3, 6, 6)
        y = torch.randint(0, 5, (8,))
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        with fxlens_capture.step(out, name="bn_conv_with"):
            loss = model(x, y)
            loss.backward()
            opt.step()
        # the block's own effects stay: the running statistics moved once, the weights stepped
        assert not torch.equal(model.inner.bn.running_mean, torch.zeros(4)), "the step's statistics were lost"
    print("captured", " ".join(which), "into", out)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The GPU check's last table (tests/gpu/README.md): each graph's train step in PyTorch's own
eager mode on the same device, against fxlens' run of it there.

    torch_eager.py --graphs DIR [--graphs DIR] --outputs DIR [--device cuda|cpu] [--reps N]

--outputs: what `fxlens_gpu_check --outputs DIR` wrote: NAME.outputs.safetensors (fxlens' device
outputs, out_K by position) and device_seconds.json. Each graph file (FX code as PyTorch prints
it) is run as Python: its aten calls dispatched one by one, which is eager mode; the inputs and
get_attr constants come from its sidecars. Prints per graph: PyTorch's best time of --reps runs
against fxlens', how many outputs are bitwise equal, and the largest difference relative to the
output's largest magnitude. PyTorch computes in its own order (cuBLAS, its own functions), so
equal bits are not expected; the numbers say how far apart the two are. Needs only PyTorch.
"""
import argparse
import inspect
import json
import math
import operator
import os
import sys
import time

import torch

# the safetensors reader of the capture module (python/, carried with the working tree)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from fxlens_capture import read_safetensors  # noqa: E402


def sidecar(graph_path, suffix):
    """STEM.suffix, else MODEL.suffix beside the graph (as fxlens looks them up)."""
    d, name = os.path.split(graph_path)
    stem = name[: -len(".code.py")] if name.endswith(".code.py") else name[: -len(".py")]
    for candidate in (stem, name.split(".")[0]):
        p = os.path.join(d, candidate + suffix)
        if os.path.exists(p):
            return p
    return None


class Attrs:
    """`self` of the printed forward: its get_attr constants."""

    def __init__(self, tensors):
        for k, v in tensors.items():
            obj = self
            parts = k.split(".")
            for p in parts[:-1]:
                if not hasattr(obj, p):
                    setattr(obj, p, Attrs({}))
                obj = getattr(obj, p)
            setattr(obj, parts[-1], v)


def load_forward(path, device, consts):
    """The graph as a callable of its placeholders, and their names. Both printed forms: a bare
    `def forward(self, ...)` (gm.code) and `class GraphModule` (print_readable)."""
    with open(path) as f:
        code = f.read()
    env = {
        "torch": torch, "inf": math.inf, "nan": math.nan, "NoneType": type(None),
        "operator": operator, "_operator": operator,
        # the printed graph names the device it was traced on: run it on ours
        "device": lambda *a, **k: torch.device(device),
    }
    exec(compile(code, path, "exec"), env)
    if "forward" in env:
        this = Attrs(consts)
        fn = env["forward"]
        names = [p for p in inspect.signature(fn).parameters if p != "self"]
        return (lambda *args: fn(this, *args)), names
    if "GraphModule" not in env:
        raise ValueError("neither a forward function nor a GraphModule class")
    module = env["GraphModule"]()
    for k, v in consts.items():
        setattr(module, k, v)
    return module.forward, list(inspect.signature(module.forward).parameters)


def flatten(x, out):
    if isinstance(x, (list, tuple)):
        for v in x:
            flatten(v, out)
    else:
        out.append(x)
    return out


def run_graph(path, outputs_dir, times, device, reps):
    name = os.path.basename(path)
    ours_path = os.path.join(outputs_dir, name + ".outputs.safetensors")
    if not os.path.exists(ours_path):
        return name, "skipped: fxlens did not run it on the device"
    inputs_path = sidecar(path, ".inputs.safetensors")
    inputs = read_safetensors(inputs_path) if inputs_path else {}
    consts_path = sidecar(path, ".constants.safetensors")
    consts = {k: v.to(device) for k, v in (read_safetensors(consts_path) if consts_path else {}).items()}
    forward, params = load_forward(path, device, consts)
    missing = [p for p in params if p not in inputs]
    if missing:
        return name, "skipped: fxlens generated its inputs (none recorded for %s)" % ", ".join(missing[:3])
    args = [inputs[p].to(device) for p in params]

    def once():
        # a train step may write its inputs in place (running statistics): each run on fresh copies
        fresh = [a.clone() for a in args]
        r = forward(*fresh)
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        return r

    with torch.no_grad():
        result = once()
        best = math.inf
        for _ in range(reps):
            t0 = time.perf_counter()
            once()
            best = min(best, time.perf_counter() - t0)
    theirs = flatten(result, [])
    ours = read_safetensors(ours_path)
    equal = compared = 0
    worst = 0.0
    for k, v in enumerate(theirs):
        key = "out_%d" % k
        if not isinstance(v, torch.Tensor) or key not in ours:
            continue
        o = ours[key]
        v = v.detach().cpu()
        if v.dtype != o.dtype or tuple(v.shape) != tuple(o.shape):
            return name, "%s: PyTorch %s %s, fxlens %s %s" % (key, v.dtype, tuple(v.shape), o.dtype, tuple(o.shape))
        compared += 1
        if torch.equal(v.contiguous().view(-1).view(torch.uint8) if v.numel() else v,
                       o.contiguous().view(-1).view(torch.uint8) if o.numel() else o):
            equal += 1
            continue
        if v.is_floating_point():
            a, b = v.double(), o.double()
            finite = torch.isfinite(a) & torch.isfinite(b)
            if bool((torch.isfinite(a) != torch.isfinite(b)).any()):
                worst = math.inf
            elif finite.any():
                scale = float(b[finite].abs().max()) or 1.0
                worst = max(worst, float((a[finite] - b[finite]).abs().max()) / scale)
        else:
            worst = math.inf
    ms = times.get(name)
    ours_ms = "%10.3f" % (ms * 1e3) if ms is not None else "%10s" % "-"
    return name, "%10.3f %s %8d %8d %12.3g" % (best * 1e3, ours_ms, compared, equal, worst)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs", action="append", required=True)
    ap.add_argument("--outputs", required=True)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    times_path = os.path.join(a.outputs, "device_seconds.json")
    times = json.load(open(times_path)) if os.path.exists(times_path) else {}
    files = []
    for d in a.graphs:
        for root, _, names in os.walk(d):
            files += [os.path.join(root, n) for n in names if n.endswith(".py")]
    print("\ntrain step against PyTorch %s eager on %s (best of %d)" % (torch.__version__, a.device, a.reps))
    print("%-34s %10s %10s %8s %8s %12s" % ("graph", "eager ms", "fxlens ms", "outputs", "bitwise", "max rel diff"))
    for f in sorted(files, key=os.path.basename):
        try:
            name, row = run_graph(f, a.outputs, times, a.device, a.reps)
        except Exception as e:  # a graph PyTorch cannot run as printed: say so, go on
            name, row = os.path.basename(f), "failed: %s: %s" % (type(e).__name__, str(e).splitlines()[0][:120])
        print("%-34s %s" % (name, row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

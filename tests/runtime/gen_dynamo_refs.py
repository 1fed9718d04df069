#!/usr/bin/env python3
"""PyTorch's own outputs for the Dynamo-level graphs of tests/data/dynamo (torch functions,
tensor methods and Python operators, as Dynamo records them): each NAME.py (not the *_aten.py
twins) is executed by PyTorch 1.13 on seeded inputs. Writes NAME.inputs.safetensors (one
tensor per forward() parameter, by name) and NAME.outputs.safetensors (out_0, out_1, ...),
which tests/runtime/test_torch_level.cpp (matchesPyTorch) and `fxlens check NAME.py
NAME.outputs.safetensors --inputs NAME.inputs.safetensors` compare fxlens' run with.

Run with Debian's PyTorch:  /usr/bin/python3 tests/runtime/gen_dynamo_refs.py
"""
import glob
import os
import re
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from st_util import write_safetensors  # noqa: E402

DATA = os.path.join(HERE, "..", "data", "dynamo")
DTYPES = {"f32": torch.float32, "f64": torch.float64, "bf16": torch.bfloat16, "f16": torch.float16,
          "i64": torch.int64, "i32": torch.int32, "b8": torch.bool}


def main():
    for path in sorted(glob.glob(os.path.join(DATA, "*.py"))):
        name = os.path.basename(path)[:-3]
        if name.endswith("_aten"):
            continue
        src = open(path).read()
        scope = {"torch": torch, "operator": __import__("operator")}
        exec(src, scope)  # noqa: S102 (the repository's own test graph)
        params = re.search(r"def forward\(self, (.*)\):", src).group(1)
        gen = torch.Generator().manual_seed(1127)
        inputs = []
        for pname, dt, dims in re.findall(r'(\w+): "([a-z0-9]+)\[([^\]]*)\]"', params):
            shape = [int(d) for d in dims.split(",") if d.strip()]
            dtype = DTYPES[dt]
            if dtype.is_floating_point:
                t = torch.randn(shape, generator=gen, dtype=torch.float64).to(dtype)
            else:
                t = torch.randint(0, 4, shape, generator=gen).to(dtype)
            inputs.append((pname, t))
        mod = scope["GraphModule"]()
        outs = mod.forward(*[t.clone() for _, t in inputs])
        outs = outs if isinstance(outs, (tuple, list)) else (outs,)
        write_safetensors(os.path.join(DATA, name + ".inputs.safetensors"), inputs)
        write_safetensors(os.path.join(DATA, name + ".outputs.safetensors"),
                          [(f"out_{k}", o.detach()) for k, o in enumerate(outs) if isinstance(o, torch.Tensor)])
        print(name, len(inputs), "inputs", len(outs), "outputs")


main()

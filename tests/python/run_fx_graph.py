#!/usr/bin/env python3
"""Runs a graph that fxlens printed (print_readable form, or gm.code) in PyTorch.

    run_fx_graph.py GRAPH.py INPUTS.safetensors [--constants C.safetensors] --out OUT.safetensors
                    [--float64]
    run_fx_graph.py --serve    (one JSON request {graph, inputs, constants, out[, float64]} per
                                stdin line, one JSON answer {rc, err} per stdout line)

The module text is exec'd in the namespace FX's generated code expects (torch, device, inf,
nan, ...), the top-level class is instantiated, get_attr constants are set from the
constants file (keys are attribute names, dotted paths allowed), the placeholders are read
from the inputs file by parameter name, and forward runs under torch.no_grad() on one
thread. The outputs (flattened tuples/lists) are written as out_0, out_1, ...; an output
that is None is skipped but keeps its index. Python numbers become 0-dim tensors.

--float64 runs the graph in float64, as corpus/pytorch's NAME.outputs_f64.safetensors
references were made (inputs upcast, float32 dtype arguments read as float64): every float32,
bfloat16 and float16 input and constant is upcast to float64, the text `torch.float32` (and the
alias `torch.float`) in the graph is read as `torch.float64`, and every floating-point output is
written as float64 (integer and bool tensors are left as they are). Without the flag nothing is
converted.

safetensors is read and written here with json + struct + torch.frombuffer: no packages
beyond torch. Exit codes: 0 ok, 1 bad input or a failure while running, 2 usage.
"""

import argparse
import builtins
import inspect
import json
import math
import operator
import re
import struct
import sys

try:
    import torch
except ImportError as e:  # the caller checks `import torch` first; be clear anyway
    sys.stderr.write("run_fx_graph.py: PyTorch is not importable: %s\n" % e)
    sys.exit(1)

_DTYPES = {
    "F64": torch.float64,
    "F32": torch.float32,
    "F16": torch.float16,
    "BF16": torch.bfloat16,
    "I64": torch.int64,
    "I32": torch.int32,
    "I16": torch.int16,
    "I8": torch.int8,
    "U8": torch.uint8,
    "BOOL": torch.bool,
}
_NAMES = {v: k for k, v in _DTYPES.items()}


class InputFailure(Exception):
    pass


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        raise InputFailure("%s: too short for a safetensors file" % path)
    (n,) = struct.unpack("<Q", data[:8])
    if n > len(data) - 8:
        raise InputFailure("%s: header length %d past the end of the file" % (path, n))
    header = json.loads(data[8 : 8 + n].decode("utf-8"))
    base = 8 + n
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(info["dtype"])
        if dtype is None:
            raise InputFailure("%s: tensor %s has unsupported dtype %s" % (path, name, info["dtype"]))
        begin, end = info["data_offsets"]
        shape = [int(s) for s in info["shape"]]
        if end == begin:
            out[name] = torch.empty(shape, dtype=dtype)
            continue
        buf = bytearray(data[base + begin : base + end])
        t = torch.frombuffer(buf, dtype=dtype)
        out[name] = t.reshape(shape).clone()
    return out


def tensor_bytes(t):
    t = t.detach().contiguous().cpu()
    if t.numel() == 0:
        return b""
    raw = t.reshape(-1).view(torch.uint8)
    try:
        return raw.numpy().tobytes()
    except Exception:  # no numpy: slower, same bytes
        return bytes(raw.tolist())


def write_safetensors(path, tensors):
    header = {}
    chunks = []
    offset = 0
    def natural(name):  # out_2 before out_10
        return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]

    for name in sorted(tensors, key=natural):
        t = tensors[name]
        if t.dtype not in _NAMES:
            raise InputFailure("output %s has dtype %s, which safetensors cannot store" % (name, t.dtype))
        b = tensor_bytes(t)
        header[name] = {"dtype": _NAMES[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(b)]}
        chunks.append(b)
        offset += len(b)
    h = json.dumps(header, separators=(",", ":")).encode("utf-8")
    h += b" " * ((8 - len(h) % 8) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for c in chunks:
            f.write(c)
    import os

    os.replace(tmp, path)


def namespace():
    """Globals FX's generated code refers to (torch.fx.graph._custom_builtins and friends)."""
    ns = {
        "__name__": "fxlens_graph",
        "torch": torch,
        "device": torch.device,
        "inf": math.inf,
        "nan": math.nan,
        "NoneType": type(None),
        "math": math,
        "operator": operator,
        "_operator": operator,
        "builtins": builtins,
    }
    try:
        import torch.fx._pytree as fx_pytree
        import torch.utils._pytree as pytree

        ns["fx_pytree"] = fx_pytree
        ns["pytree"] = pytree
    except ImportError:
        pass
    return ns


def top_level_class(text):
    m = re.search(r"^class\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(", text, re.MULTILINE)
    return m.group(1) if m else None


def gm_code_module(text):
    """gm.code text (a bare `def forward(self, ...)`) wrapped into a module class."""
    body = "\n".join(("    " + line) if line.strip() else "" for line in text.splitlines())
    return "class GraphModule(torch.nn.Module):\n" + body + "\n", "GraphModule"


def instantiate(cls):
    mod = cls()
    # print_readable nests the classes of higher-order ops' subgraphs; FX's get_attr
    # reads instances of them.
    for name, value in list(vars(cls).items()):
        if inspect.isclass(value) and issubclass(value, torch.nn.Module):
            setattr(mod, name, instantiate(value))
    return mod


def set_constant(mod, dotted, tensor):
    parts = dotted.split(".")
    for p in parts[:-1]:
        child = getattr(mod, p, None)
        if child is None:
            child = torch.nn.Module()
            setattr(mod, p, child)
        mod = child
    setattr(mod, parts[-1], tensor)  # a plain attribute, as make_fx's _tensor_constantN are


def flatten(value, out):
    if isinstance(value, (tuple, list)):
        for v in value:
            flatten(v, out)
    else:
        out.append(value)


_UPCAST = (torch.float32, torch.bfloat16, torch.float16)


def to_float64(t):
    """A float32/bf16/f16 tensor as float64 (--float64); any other value unchanged."""
    if isinstance(t, torch.Tensor) and t.dtype in _UPCAST:
        return t.to(torch.float64)
    return t


def run_one(graph, inputs_path, constants_path, out_path, float64=False):
    """Runs one graph; raises InputFailure or whatever the graph raises. float64: the graph run
    in float64 (inputs and constants upcast, torch.float32 in the text read as torch.float64,
    floating-point outputs written as float64)."""
    with open(graph, "r", encoding="utf-8") as f:
        text = f.read()
    if float64:
        text = re.sub(r"\btorch\.float(32)?\b", "torch.float64", text)
    cls_name = top_level_class(text)
    if cls_name is None:
        text, cls_name = gm_code_module(text)
    ns = namespace()
    try:
        exec(compile(text, graph, "exec"), ns)
    except SyntaxError as e:
        raise InputFailure("%s:%s: not valid Python: %s" % (graph, e.lineno, e.msg))
    mod = instantiate(ns[cls_name])

    if constants_path:
        for k, v in read_safetensors(constants_path).items():
            set_constant(mod, k, to_float64(v) if float64 else v)

    inputs = read_safetensors(inputs_path)
    if float64:
        inputs = {k: to_float64(v) for k, v in inputs.items()}
    params = list(inspect.signature(mod.forward).parameters.values())
    call = []
    for p in params:
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            raise InputFailure("forward parameter %s is not positional (pytree/boxed signatures are not supported)" % p.name)
        if p.name in inputs:
            call.append(inputs[p.name])
        elif p.default is not inspect.Parameter.empty:
            call.append(p.default)
        else:
            raise InputFailure("%s: no input named %s for the placeholder %s" % (inputs_path, p.name, p.name))

    with torch.no_grad():
        result = mod(*call)
    flat = []
    flatten(result, flat)
    outs = {}
    for i, v in enumerate(flat):
        if v is None:
            continue
        if isinstance(v, torch.Tensor):
            outs["out_%d" % i] = to_float64(v) if float64 else v
        elif isinstance(v, (bool, int, float)):
            outs["out_%d" % i] = torch.tensor(v, dtype=torch.float64) if float64 and isinstance(v, float) else torch.tensor(v)
        else:
            raise InputFailure("output %d has type %s" % (i, type(v).__name__))
    write_safetensors(out_path, outs)


def run_reporting(graph, inputs_path, constants_path, out_path, float64=False):
    """run_one; returns (exit code, error text)."""
    try:
        run_one(graph, inputs_path, constants_path, out_path, float64)
    except InputFailure as e:
        return 1, "run_fx_graph.py: error: %s\n" % e
    except Exception as e:  # a failure while running the graph: report it
        import traceback

        return 1, traceback.format_exc() + "run_fx_graph.py: error: %s: %s\n" % (type(e).__name__, e)
    return 0, ""


def serve(threads):
    """One request per stdin line, a JSON object {graph, inputs, constants, out[, float64]}; one
    JSON line {rc, err} answered per request: PyTorch is imported once for many graphs."""
    torch.set_num_threads(threads)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            rc, err = run_reporting(req["graph"], req["inputs"], req.get("constants"), req["out"],
                                    bool(req.get("float64", False)))
        except (ValueError, KeyError) as e:
            rc, err = 2, "run_fx_graph.py: error: bad request line: %s\n" % e
        sys.stdout.write(json.dumps({"rc": rc, "err": err}) + "\n")
        sys.stdout.flush()
    return 0


def main(argv):
    ap = argparse.ArgumentParser(description="Run an FX graph module text in PyTorch.")
    ap.add_argument("graph", nargs="?")
    ap.add_argument("inputs", nargs="?")
    ap.add_argument("--constants")
    ap.add_argument("--out")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--float64", action="store_true",
                    help="run in float64: float inputs and constants upcast, torch.float32 in the text read as torch.float64")
    ap.add_argument("--serve", action="store_true", help="run the graphs named on stdin, one JSON request per line")
    args = ap.parse_args(argv)
    if args.serve:
        return serve(args.threads)
    if not args.graph or not args.inputs or not args.out:
        ap.error("GRAPH, INPUTS and --out are required (or --serve)")

    torch.set_num_threads(args.threads)
    rc, err = run_reporting(args.graph, args.inputs, args.constants, args.out, args.float64)
    sys.stderr.write(err)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Capture one training step of your own model for fxlens: its joint forward+backward graph and
the real values fxlens needs to run it and to compare its run with your PyTorch's.

    import fxlens_capture
    def step(x, y): return loss_fn(model(x), y)       # your step, up to the loss
    fxlens_capture.capture(step, model, (x, y), "capture", name="mymodel")

or, when your model returns its loss, around the step as it is:

    with fxlens_capture.step("capture", name="mymodel"):
        loss = model(batch)
        loss.backward()

Then, in a shell:

    fxlens check capture/mymodel.joint.code.py capture/mymodel.outputs.safetensors --tolerance 1e-6,1e-5

Writes, in fxlens' corpus form (the files `fxlens run`, `check`, `mem` and the window read):

    NAME.joint.code.py            the traced train step (gm.code): returns (loss, *grads)
    NAME.joint.graph.txt          the same graph as PyTorch lists it
    NAME.meta.json                per node: op, target, tensor meta (dtype, shape, stride), phase
    NAME.params.json              how many leading inputs are data; the parameter names of the rest
    NAME.inputs.safetensors       the real inputs and parameters, keyed by placeholder name
    NAME.joint.constants.safetensors  tensors the graph reads by get_attr (buffers, masks), if any
    NAME.outputs.safetensors      PyTorch's run of that graph on those inputs (out_0 = loss, ...)
    NAME.outputs_f64.safetensors  the same step computed by PyTorch in float64 (f64=True)

The graph is traced with make_fx (torch.fx.experimental.proxy_tensor), which PyTorch 1.13 to
2.x provide; the backward comes from torch.autograd.grad inside the trace, as AOT autograd does.
Needs nothing but PyTorch. The model is not changed: its parameters are swapped for traced
copies only while the step is traced.
"""

import json
import os
import struct

import torch

__all__ = ["capture", "step", "read_safetensors", "write_safetensors"]

_DTYPES = {
    torch.float64: "F64", torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
    torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8",
    torch.uint8: "U8", torch.bool: "BOOL",
}


def read_safetensors(path):
    """name -> tensor, without the safetensors package (what capture writes, what fxlens writes)."""
    names = {v: k for k, v in _DTYPES.items()}
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = bytearray(f.read())
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        b, e = t["data_offsets"]
        dtype = names[t["dtype"]]
        out[name] = (torch.frombuffer(data[b:e], dtype=dtype).reshape(t["shape"]).clone() if e > b
                     else torch.empty(t["shape"], dtype=dtype))
    return out


def write_safetensors(path, tensors, metadata=None):
    """name -> tensor, as the safetensors format lays it out (no dependency)."""
    header, blobs, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = {k: str(v) for k, v in metadata.items()}
    for name, t in tensors.items():
        t = t.detach().to("cpu").contiguous()
        if t.dtype not in _DTYPES:
            raise TypeError("%s: dtype %s has no safetensors name" % (name, t.dtype))
        data = t.view(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b""
        header[name] = {"dtype": _DTYPES[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    tmp = path + ".part"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)
    os.replace(tmp, path)


def _write_text(path, text):
    tmp = path + ".part"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def _reparametrized(model, tensors):
    """A context that swaps the module's parameters (by name) for `tensors` while it is open."""
    try:  # PyTorch 2.x
        from torch.nn.utils.stateless import _reparametrize_module
    except ImportError:  # pragma: no cover
        from torch.nn.utils._named_member_accessor import _reparametrize_module  # type: ignore
    return _reparametrize_module(model, tensors)


def _joint(step, model, names, n_data, fixed):
    """The traced function: data inputs and parameters in, (loss, *grads) out. `fixed`: tensors
    swapped into the module for the step without being inputs (its buffers' copies)."""
    def joint(*flat):
        data, params = flat[:n_data], flat[n_data:]
        with _reparametrized(model, {**fixed, **dict(zip(names, params))}):
            loss = step(*data)
        grads = torch.autograd.grad(loss, params, allow_unused=True)
        return (loss, *[g if g is not None else torch.zeros_like(p) for g, p in zip(grads, params)])
    return joint


def _tensor_meta(value):
    if isinstance(value, torch.Tensor):
        return {"dtype": str(value.dtype).replace("torch.", ""), "shape": list(value.shape),
                "stride": list(value.stride())}
    if isinstance(value, (list, tuple)):
        return [_tensor_meta(v) for v in value]
    return None


def capture(step, model, inputs, out_dir, name="step", f64=True):
    """Traces `step(*inputs)` (which returns the loss) with the backward of the loss with respect
    to `model`'s parameters, runs the traced graph, and writes the files listed above to
    `out_dir`. Returns the traced GraphModule."""
    from torch.fx.experimental.proxy_tensor import make_fx

    os.makedirs(out_dir, exist_ok=True)
    inputs = tuple(inputs)
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    names = [n for n, _ in named]
    params = [p.detach().clone().requires_grad_(True) for _, p in named]
    # the buffers (running statistics, ...) as copies: the traced step may write them, the
    # model's own stay as they are; the graph reads them as get_attr constants
    buffers = {n: b.detach().clone() for n, b in model.named_buffers()}
    originals = {n: b.detach().clone() for n, b in model.named_buffers()}
    joint = _joint(step, model, names, len(inputs), buffers)
    gm = make_fx(joint, tracing_mode="real")(*inputs, *params)
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(inputs) + len(params):
        raise RuntimeError("the traced step has %d inputs, expected %d" % (len(placeholders), len(inputs) + len(params)))
    stem = os.path.join(out_dir, name)

    # the graph, its listing and the values it reads
    _write_text(stem + ".joint.code.py", gm.code)
    _write_text(stem + ".joint.graph.txt", str(gm.graph))
    values = list(inputs) + [p.detach() for p in params]
    write_safetensors(stem + ".inputs.safetensors", {n.name: v for n, v in zip(placeholders, values)})
    constants = {}
    for n in gm.graph.nodes:
        if n.op == "get_attr":
            v = gm
            for part in n.target.split("."):
                v = getattr(v, part)
            if isinstance(v, torch.Tensor):
                # a buffer the trace ran on (and may have written): its value before the step
                for bn, b in buffers.items():
                    if v.data_ptr() == b.data_ptr() and v.shape == b.shape:
                        v = originals[bn].clone()
                        setattr(gm, n.target, v)
                        break
                constants[n.target] = v
    if constants:
        write_safetensors(stem + ".joint.constants.safetensors", constants)
    _write_text(stem + ".params.json", json.dumps({"data_inputs": len(inputs), "parameter_fqns": names}, indent=1) + "\n")

    # PyTorch's run of the traced graph on those values, recording each node's tensor meta
    metas = {}

    class Recorder(torch.fx.Interpreter):
        def run_node(self, n):
            out = super().run_node(n)
            metas[n.name] = _tensor_meta(out)
            return out

    with torch.no_grad():
        outs = Recorder(gm).run(*[v.detach().clone() for v in values])
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    write_safetensors(stem + ".outputs.safetensors",
                       {"out_%d" % k: o for k, o in enumerate(outs) if isinstance(o, torch.Tensor)},
                       {"source": "fxlens_capture, PyTorch %s, the traced graph run eagerly" % torch.__version__})

    # per node meta; phase: forward until the loss (the first output), backward after it
    loss_node = None
    out_node = [n for n in gm.graph.nodes if n.op == "output"][0]
    first = out_node.args[0][0] if isinstance(out_node.args[0], (list, tuple)) else out_node.args[0]
    loss_node = first if isinstance(first, torch.fx.Node) else None
    phase, nodes = "forward", []
    for n in gm.graph.nodes:
        entry = {"name": n.name, "op": n.op, "target": str(n.target)}
        if n.name in metas and metas[n.name] is not None:
            entry["tensor_meta"] = metas[n.name]
        if n.op not in ("placeholder", "output"):
            entry["phase"] = phase
        if n is loss_node:
            phase = "backward"
        nodes.append(entry)
    _write_text(stem + ".meta.json", json.dumps({"source": "fxlens_capture (make_fx, torch %s, tracing_mode=real)"
                                                 % torch.__version__, "nodes": nodes}, indent=1) + "\n")

    # the same step in float64, by PyTorch's autograd on float64 copies
    if f64:
        def up(t):
            return t.detach().clone().double() if t.is_floating_point() else t.detach().clone()
        in64 = [up(v) if isinstance(v, torch.Tensor) else v for v in inputs]
        p64 = [up(p).requires_grad_(True) for p in params]
        loss = _joint(step, model, names, len(in64), {n: up(b) for n, b in originals.items()})(*in64, *p64)
        write_safetensors(stem + ".outputs_f64.safetensors", {"out_%d" % k: o for k, o in enumerate(loss)},
                           {"source": "fxlens_capture, PyTorch %s, float64" % torch.__version__})
    return gm


class step:
    """The `with` form: captures the first module called inside the block, from the inputs and
    the state it had when it was called, as capture() does for `lambda *a: model(*a)`. The
    model must return the loss (a scalar tensor) and take its inputs positionally; anything
    else is refused with the reason (use capture() with a step that computes the loss). The
    block runs as it is (the backward, even an optimizer step); the trace runs at its end from
    the state saved at the call, and the model is left as the block left it.

        with fxlens_capture.step("capture", name="mymodel"):
            loss = model(batch)
            loss.backward()
    """

    def __init__(self, out_dir, name="step", f64=True):
        self.out_dir, self.name, self.f64 = out_dir, name, f64
        self.graph = None  # the traced GraphModule, once the block has ended
        self._model = self._args = self._out = None
        self._state = {}
        self._depth = 0
        self._kwargs = False
        self._hooks = []

    def __enter__(self):
        from torch.nn.modules import module as nn_module

        def pre(module, args):
            if self._depth == 0 and self._model is None:
                self._model = module
                self._args = tuple(a.detach().clone() if isinstance(a, torch.Tensor) else a for a in args)
                self._state = {k: v.detach().clone() for k, v in module.state_dict(keep_vars=True).items()}
            self._depth += 1

        def post(module, args, out):
            self._depth -= 1
            if self._depth == 0 and module is self._model and self._out is None:
                self._out = out

        self._hooks = [nn_module.register_module_forward_pre_hook(pre), nn_module.register_module_forward_hook(post)]
        return self

    def __exit__(self, exc_type, exc, tb):
        for h in self._hooks:
            h.remove()
        self._hooks = []
        if exc_type is not None:
            return False
        if self._model is None:
            raise RuntimeError("fxlens_capture.step: no module was called inside the with block")
        out = self._out
        if not (isinstance(out, torch.Tensor) and out.dim() == 0):
            what = "a tensor of shape %s" % (list(out.shape),) if isinstance(out, torch.Tensor) else type(out).__name__
            raise RuntimeError("fxlens_capture.step: %s returned %s, not its loss (a scalar tensor): use "
                               "fxlens_capture.capture(step, model, inputs, out_dir) with a step that computes the "
                               "loss from the model's output" % (type(self._model).__name__, what))
        model = self._model
        after = {k: v.detach().clone() for k, v in model.state_dict(keep_vars=True).items()}
        with torch.no_grad():  # the state the step began from
            for k, v in model.state_dict(keep_vars=True).items():
                v.copy_(self._state[k])
        try:
            self.graph = capture(lambda *a: model(*a), model, self._args, self.out_dir, self.name, self.f64)
        finally:
            with torch.no_grad():  # as the block left it
                for k, v in model.state_dict(keep_vars=True).items():
                    v.copy_(after[k])
        return False

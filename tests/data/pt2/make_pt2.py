#!/usr/bin/env python3
"""Makes the torch.export archives (.pt2) fxlens' tests read, by hand following the schema
(torch/_export/serde/schema.py), with Debian's PyTorch 1.13, which has no torch.export.

The graphs are traced for real (make_fx, ATen ops with their tensor meta); this script writes
them in each layout and schema generation PyTorch has used:
  flat21_mlp.pt2         PyTorch 2.1: schema 1, the old signature, $type/$value unions,
                         serialized_state_dict.json holding torch.save bytes
  flat25_mlp.pt2         PyTorch 2.2-2.3: schema 5.0, input/output specs, $type/$value unions
  flat27_cond.pt2        PyTorch 2.7: schema 7.3, one-key unions: a cond sub-graph, a
                         multi-output op (native_layer_norm), a list output (split), symbolic
                         sizes (plain "s0"), range constraints, a buffer, constants.pt
  rooted28_mlp.pt2       PyTorch 2.8: schema 8.3, rooted (PyTorchFileWriter's container),
                         pickled weights, ArgumentKind, srepr symbols, tied (aliased) weights
  rooted29_raw.pt2       PyTorch 2.9+: schema 8.20, raw weights with their config: tied weights
                         sharing one file, a weight that views its file at an offset
  aoti_package.pt2       an AOTInductor package with no exported program
and the inputs and PyTorch's outputs of each runnable program:
  NAME.inputs.safetensors, NAME.outputs.safetensors (out_0, out_1, ...)
and malformed archives, each refused with its own message (bad_*.pt2), and one PyTorch
writes that must still be read (crc_zero.pt2: CRCs not computed).

Run from this folder: /usr/bin/python3 make_pt2.py
For the benchmark (tests/bench/RESULTS.md), a large archive not kept here:
    /usr/bin/python3 make_pt2.py --large LAYERS OUT.pt2
writes the joint training step of a LAYERS-deep MLP (64 wide, GELU) as a rooted 8.x archive with
raw weights.
"""
import io
import json
import os
import struct
import zipfile

import torch
import torch.nn as nn
from torch.fx.experimental.proxy_tensor import make_fx

import sys

torch.manual_seed(0)
HERE = os.path.dirname(os.path.abspath(__file__))
LARGE = sys.argv[1:2] == ["--large"]

SCALAR = {torch.uint8: 1, torch.int8: 2, torch.int16: 3, torch.int32: 4, torch.int64: 5, torch.float16: 6,
          torch.float32: 7, torch.float64: 8, torch.bool: 12, torch.bfloat16: 13}
MEMFMT = {torch.contiguous_format: 1, torch.channels_last: 2, torch.channels_last_3d: 3, torch.preserve_format: 4}
ST_DTYPE = {torch.float32: "F32", torch.float64: "F64", torch.int64: "I64", torch.bool: "BOOL"}


def write_safetensors(path, tensors):
    header, blobs, off = {}, [], 0
    for name, t in tensors.items():
        b = t.detach().contiguous().numpy().tobytes()
        header[name] = {"dtype": ST_DTYPE[t.dtype], "shape": list(t.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


class Writer:
    """One schema generation: how unions, symbols, hints and argument kinds are spelled."""

    def __init__(self, major, minor, dollar, kinds=False, srepr=False):
        self.major, self.minor, self.dollar, self.kinds, self.srepr = major, minor, dollar, kinds, srepr
        self.sym = {}  # (node name, dim) -> (symbol expression, hint)

    def u(self, k, v):
        return {"$type": k, "$value": v} if self.dollar else {k: v}

    def expr(self, text, srepr_text):
        return srepr_text if self.srepr else text

    def symint(self, v):
        if isinstance(v, tuple):
            text, srepr_text, hint = v
            h = self.u("as_int", hint) if self.major >= 8 else hint
            return self.u("as_expr", {"expr_str": self.expr(text, srepr_text), "hint": h})
        return self.u("as_int", int(v))

    def meta(self, name, tm):
        sizes = [self.sym.get((name, d), s) for d, s in enumerate(tm.shape)]
        strides = list(tm.stride)
        if any(isinstance(s, tuple) for s in sizes):  # contiguous strides over the symbolic sizes
            strides = [1] * len(sizes)
            for d in range(len(sizes) - 2, -1, -1):
                nxt = sizes[d + 1]
                strides[d] = nxt if not isinstance(strides[d + 1], tuple) and strides[d + 1] == 1 else strides[d + 1]
        out = {"dtype": SCALAR[tm.dtype], "sizes": [self.symint(s) for s in sizes],
               "requires_grad": bool(tm.requires_grad), "device": {"type": "cpu", "index": None},
               "strides": [self.symint(s) for s in strides], "storage_offset": self.symint(0), "layout": 7,
               "unknown_future_field": "ignored"}
        if self.major < 5:
            out["storage_offset"] = 0
        return out

    def arg(self, a, ty=""):
        u = self.u
        if isinstance(a, torch.fx.Node):
            return u("as_tensor", {"name": a.name})
        if isinstance(a, (list, tuple)):
            if a and all(isinstance(x, torch.fx.Node) for x in a):
                return u("as_tensors", [{"name": x.name} for x in a])
            if any(x is None for x in a) and any(isinstance(x, torch.fx.Node) for x in a):
                return u("as_optional_tensors",
                         [u("as_none", True) if x is None else u("as_tensor", {"name": x.name}) for x in a])
            if not a:
                return u("as_tensors", []) if "Tensor" in ty else u("as_ints", [])
            if all(isinstance(x, bool) for x in a):
                return u("as_bools", list(a))
            if all(isinstance(x, int) for x in a):
                return u("as_ints", list(a))
            return u("as_floats", [float(x) for x in a])
        if a is None:
            return u("as_none", True)
        if isinstance(a, bool):
            return u("as_bool", a)
        if isinstance(a, int):
            return u("as_int", a)
        if isinstance(a, float):
            return u("as_float", "Infinity" if a == float("inf") else "-Infinity" if a == float("-inf") else a)
        if isinstance(a, str):
            return u("as_string", a)
        if isinstance(a, torch.dtype):
            return u("as_scalar_type", SCALAR[a])
        if isinstance(a, torch.layout):
            return u("as_layout", 7)
        if isinstance(a, torch.device):
            return u("as_device", {"type": a.type, "index": a.index})
        if isinstance(a, torch.memory_format):
            return u("as_memory_format", MEMFMT[a])
        raise TypeError(f"cannot serialize {a!r}")

    def graph(self, gm, extra_nodes=(), metadata=None):
        """gm: a make_fx graph; getitem nodes become the outputs of the op they read."""
        metadata = metadata or {}
        values, nodes, inputs = {}, [], []
        getitems = {}
        for n in gm.graph.nodes:
            if n.op == "call_function" and n.target.__name__ == "getitem":
                getitems.setdefault(n.args[0], {})[n.args[1]] = n
        for n in gm.graph.nodes:
            tm = n.meta.get("tensor_meta")
            if n.op == "placeholder":
                inputs.append(self.u("as_tensor", {"name": n.name}))
                values[n.name] = self.meta(n.name, tm)
            elif n.op == "call_function" and n.target.__name__ == "getitem":
                values[n.name] = self.meta(n.name, tm)
            elif n.op == "call_function":
                schema = n.target._schema
                ins = []
                for i, sa in enumerate(schema.arguments):
                    if i < len(n.args):
                        v = n.args[i]
                    elif sa.name in n.kwargs:
                        v = n.kwargs[sa.name]
                    else:
                        continue  # left to the schema's default
                    na = {"name": sa.name, "arg": self.arg(v, str(sa.type))}
                    if self.kinds:
                        na["kind"] = 2 if sa.kwarg_only else 1
                    ins.append(na)
                if n in getitems:
                    outs = getitems[n]
                    if str(schema.returns[0].type).startswith(("List[", "Tensor[")):  # a list: one as_tensors
                        outputs = [self.u("as_tensors", [{"name": outs[i].name} for i in sorted(outs)])]
                    else:
                        outputs = [self.u("as_tensor", {"name": outs[i].name}) for i in range(len(schema.returns))]
                else:
                    outputs = [self.u("as_tensor", {"name": n.name})]
                    values[n.name] = self.meta(n.name, tm)
                md = metadata.get(n.name, {})
                nodes.append({"target": "torch.ops." + str(n.target), "inputs": ins, "outputs": outputs,
                              "metadata": md, "is_hop_single_tensor_return": None})
            elif n.op == "output":
                outputs = [self.arg(x) for x in n.args[0]]
        for pos, node in extra_nodes:
            nodes.insert(pos, node)
        return {"inputs": inputs, "outputs": outputs, "nodes": nodes, "tensor_values": values,
                "sym_int_values": {}, "sym_bool_values": {}, "is_single_tensor_return": False}

    def program(self, graph, signature, ranges=None):
        doc = {"graph_module": {"graph": graph, "signature": signature, "module_call_graph": [], "metadata": {}},
               "opset_version": {"aten": 10}, "range_constraints": ranges or {},
               "schema_version": {"major": self.major, "minor": self.minor}, "torch_version": "2.x (made by hand)",
               "verifiers": ["TRAINING"] if self.major >= 8 else []}
        if self.major < 5:
            doc["schema_version"] = self.major
            doc["dialect"] = "ATEN"
            del doc["verifiers"]
        return json.dumps(doc, indent=1).encode()

    def signature(self, ins, outs):
        """ins: (kind, name, target); outs: (kind, name, target)."""
        u = self.u
        if self.major < 5:  # the 2.1 signature
            sig = {"parameters": [], "buffers": [], "user_inputs": [], "user_outputs": [],
                   "inputs_to_parameters": {}, "inputs_to_buffers": {}, "buffers_to_mutate": {},
                   "backward_signature": None}
            back = {"gradients_to_parameters": {}, "gradients_to_user_inputs": {}, "loss_output": None}
            for kind, name, target in ins:
                if kind == "parameter":
                    sig["parameters"].append(target)
                    sig["inputs_to_parameters"][name] = target
                elif kind == "buffer":
                    sig["buffers"].append(target)
                    sig["inputs_to_buffers"][name] = target
                else:
                    sig["user_inputs"].append(name)
            for kind, name, target in outs:
                if kind == "loss_output":
                    back["loss_output"] = name
                elif kind == "gradient_to_parameter":
                    back["gradients_to_parameters"][name] = target
                else:
                    sig["user_outputs"].append(name)
            if back["loss_output"]:
                sig["backward_signature"] = back
            return sig
        key = {"parameter": "parameter_name", "buffer": "buffer_name", "tensor_constant": "tensor_constant_name",
               "gradient_to_parameter": "parameter_name", "buffer_mutation": "buffer_name"}
        specs_in, specs_out = [], []
        for kind, name, target in ins:
            if kind == "user_input":
                specs_in.append(u("user_input", {"arg": u("as_tensor", {"name": name})}))
            else:
                spec = {"arg": {"name": name}, key[kind]: target}
                if kind == "buffer":
                    spec["persistent"] = True
                specs_in.append(u(kind, spec))
        for kind, name, target in outs:
            if kind == "user_output":
                specs_out.append(u("user_output", {"arg": u("as_tensor", {"name": name})}))
            else:
                spec = {"arg": {"name": name}}
                if target:
                    spec[key[kind]] = target
                specs_out.append(u(kind, spec))
        return {"input_specs": specs_in, "output_specs": specs_out}


def torch_save_bytes(obj):
    b = io.BytesIO()
    torch.save(obj, b)
    return b.getvalue()


def large(layers, out):
    ws = [torch.randn(64, 64) * 0.1 for _ in range(layers)]

    def deep(x, *w):
        h = x
        for wi in w:
            h = torch.nn.functional.gelu(h @ wi)
        loss = h.pow(2).mean()
        return (loss,) + torch.autograd.grad(loss, w)

    params = [w.requires_grad_() for w in ws]
    gm = make_fx(deep)(torch.randn(16, 64), *params)
    names = [n.name for n in gm.graph.nodes if n.op == "placeholder"]
    outs = [n.name for n in list(gm.graph.nodes)[-1].args[0]]
    wr = Writer(8, 20, dollar=False, kinds=True, srepr=True)
    ins = [("user_input", names[0], "")] + [("parameter", names[i + 1], "layers.%d.weight" % i) for i in range(layers)]
    outs_spec = [("loss_output", outs[0], "")] + [("gradient_to_parameter", outs[i + 1], "layers.%d.weight" % i)
                                                  for i in range(layers)]
    md = {n.name: {"stack_trace": '  File "deep.py", line 9, in forward\n    h = gelu(h @ w)\n',
                   "nn_module_stack": "L__self__,,Deep;L__self___layers_%d,layers.%d,torch.nn.Linear" % (k % layers, k % layers)}
          for k, n in enumerate(gm.graph.nodes)}
    cfg = {"config": {"layers.%d.weight" % i: {"path_name": "weight_%d" % i, "is_param": True, "use_pickle": False,
                                               "tensor_meta": {"dtype": 7, "sizes": [{"as_int": 64}, {"as_int": 64}],
                                                               "strides": [{"as_int": 64}, {"as_int": 1}],
                                                               "storage_offset": {"as_int": 0}, "requires_grad": True,
                                                               "device": {"type": "cpu", "index": None}, "layout": 7}}
                      for i in range(layers)}}
    records = [("archive_format", b"pt2"), ("archive_version", b"0"), ("byteorder", b"little"), (".data/version", b"1"),
               ("models/deep.json", wr.program(wr.graph(gm, metadata=md), wr.signature(ins, outs_spec))),
               ("data/weights/deep_weights_config.json", json.dumps(cfg).encode())]
    records += [("data/weights/weight_%d" % i, ws[i].detach().numpy().tobytes()) for i in range(layers)]
    if os.path.exists(out):
        os.remove(out)
    w = torch._C.PyTorchFileWriter(out)
    for name, data in records:
        w.write_record(name, data, len(data))
    w.write_end_of_file()
    del w
    print("wrote", out, len(gm.graph.nodes), "nodes")


if LARGE:
    large(int(sys.argv[2]), sys.argv[3])
    sys.exit(0)

# --- model 1: an MLP's joint training step (loss and parameter gradients)
class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(torch.nn.functional.gelu(self.fc1(x)))


mlp = MLP()
MLP_PARAMS = ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]


def mlp_step(x, w1, b1, w2, b2):
    h = torch.nn.functional.gelu(torch.nn.functional.linear(x, w1, b1))
    loss = (torch.nn.functional.linear(h, w2, b2) ** 2).mean()
    return (loss,) + torch.autograd.grad(loss, (w1, b1, w2, b2))


mlp_x = torch.randn(3, 4)
mlp_params = [p.detach().clone().requires_grad_() for p in mlp.parameters()]
mlp_gm = make_fx(mlp_step)(mlp_x, *mlp_params)
MLP_META = {
    "t": ("fc1", 7, "x = self.fc1(x)"), "addmm": ("fc1", 7, "x = self.fc1(x)"),
    "gelu": (None, 8, "x = F.gelu(x)"), "t_1": ("fc2", 9, "return self.fc2(x)"),
    "addmm_1": ("fc2", 9, "return self.fc2(x)"),
}


def mlp_metadata(strict_paths):
    md = {}
    for name, (mod, line, code) in MLP_META.items():
        m = {"stack_trace": f'  File "/home/user/mlp.py", line {line}, in forward\n    {code}\n'}
        if mod:
            path = f"L['self'].{mod}" if strict_paths else mod
            m["nn_module_stack"] = f"L__self__,,__main__.MLP;L__self___{mod},{path},torch.nn.modules.linear.Linear"
        md[name] = m
    return md


mlp_out = mlp_step(mlp_x, *mlp_params)
write_safetensors(os.path.join(HERE, "mlp.outputs.safetensors"),
                  {f"out_{i}": t.detach() for i, t in enumerate(mlp_out)})
mlp_names = [n.name for n in mlp_gm.graph.nodes if n.op == "placeholder"]
write_safetensors(os.path.join(HERE, "mlp.inputs.safetensors"), {mlp_names[0]: mlp_x})
mlp_outs = [n.name for n in list(mlp_gm.graph.nodes)[-1].args[0]]
MLP_INS = [("user_input", mlp_names[0], "")] + [("parameter", mlp_names[i + 1], MLP_PARAMS[i]) for i in range(4)]
MLP_OUTS = [("loss_output", mlp_outs[0], "")] + [("gradient_to_parameter", mlp_outs[i + 1], MLP_PARAMS[i])
                                                 for i in range(4)]
state = {k: v.detach() for k, v in mlp.state_dict().items()}


def flat(path, entries):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for name, data in entries:  # a fixed time, so that the archives are the same on every run
            z.writestr(zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0)), data)


# 2.1: schema 1
w = Writer(1, 0, dollar=True)
flat(os.path.join(HERE, "flat21_mlp.pt2"), [
    ("serialized_exported_program.json",
     w.program(w.graph(mlp_gm, metadata=mlp_metadata(True)), w.signature(MLP_INS, MLP_OUTS))),
    ("serialized_state_dict.json", torch_save_bytes(state)),
    ("version", b"1"),
])

# 2.2-2.3: schema 5.0
w = Writer(5, 0, dollar=True)
flat(os.path.join(HERE, "flat25_mlp.pt2"), [
    ("serialized_exported_program.json",
     w.program(w.graph(mlp_gm, metadata=mlp_metadata(True)), w.signature(MLP_INS, MLP_OUTS))),
    ("serialized_state_dict.pt", torch_save_bytes(state)),
    ("serialized_constants.pt", torch_save_bytes({})),
    ("serialized_example_inputs.pt", torch_save_bytes(((mlp_x,), {}))),
    ("version", b"5.0"),
])


# --- model 2: layer norm, a split, a cond, a symbolic batch
class LnCond(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm(8)
        self.register_buffer("scale", torch.full((4,), 0.5))


lnc = LnCond()


def ln_body(x, w, b, scale):
    y = torch.nn.functional.layer_norm(x, (8,), w, b)
    a, c = torch.split(y, 4, dim=1)
    s = torch.sum(a)
    pred = torch.gt(s, 0.0)
    return a * scale, c, pred


ln_x = torch.randn(6, 8)
ln_gm = make_fx(ln_body)(ln_x, lnc.ln.weight.detach(), lnc.ln.bias.detach(), lnc.scale)


def true_fn(a):
    return (torch.mul(a, 2.0),)


def false_fn(a):
    return (torch.sub(a, 1.0),)


w = Writer(7, 3, dollar=False)
S0 = ("s0", "Symbol('s0', integer=True, positive=True)", 6)
ln_names = [n.name for n in ln_gm.graph.nodes if n.op == "placeholder"]
for n in ln_gm.graph.nodes:  # the batch dimension is symbolic wherever it appears
    tm = n.meta.get("tensor_meta")
    if tm is not None and len(tm.shape) >= 1 and tm.shape[0] == 6:
        w.sym[(n.name, 0)] = S0
ln_graph = w.graph(ln_gm)
mul_name = ln_graph["outputs"][0]["as_tensor"]["name"]
pred_name = ln_graph["outputs"][2]["as_tensor"]["name"]
branch = {}
for fn, key in ((true_fn, "true_graph_0"), (false_fn, "false_graph_0")):
    bg = make_fx(fn)(torch.randn(6, 4))
    for n in bg.graph.nodes:
        tm = n.meta.get("tensor_meta")
        if tm is not None:
            w.sym[(n.name, 0)] = S0
    branch[key] = w.graph(bg)
cond_node = {"target": "torch.ops.higher_order.cond",
             "inputs": [{"name": "pred", "arg": {"as_tensor": {"name": pred_name}}},
                        {"name": "true_fn", "arg": {"as_graph": {"name": "true_graph_0", "graph": branch["true_graph_0"]}}},
                        {"name": "false_fn", "arg": {"as_graph": {"name": "false_graph_0", "graph": branch["false_graph_0"]}}},
                        {"name": "operands", "arg": {"as_tensors": [{"name": mul_name}]}}],
             "outputs": [{"as_tensors": [{"name": "cond_out"}]}], "metadata": {}}
ln_graph["nodes"].append(cond_node)
ln_graph["tensor_values"]["cond_out"] = ln_graph["tensor_values"][mul_name]
ln_graph["outputs"] = [{"as_tensor": {"name": "cond_out"}}, ln_graph["outputs"][1]]
# PyTorch's outputs of the program: the cond takes the branch its predicate picks
ln_a, ln_c, ln_pred = ln_body(ln_x, lnc.ln.weight.detach(), lnc.ln.bias.detach(), lnc.scale)
write_safetensors(os.path.join(HERE, "cond.inputs.safetensors"), {ln_names[0]: ln_x})
write_safetensors(os.path.join(HERE, "cond.outputs.safetensors"),
                  {"out_0": (true_fn if bool(ln_pred) else false_fn)(ln_a)[0], "out_1": ln_c})
LN_INS = [("user_input", ln_names[0], ""), ("parameter", ln_names[1], "ln.weight"),
          ("parameter", ln_names[2], "ln.bias"), ("buffer", ln_names[3], "scale")]
LN_OUTS = [("user_output", "cond_out", ""), ("user_output", ln_graph["outputs"][1]["as_tensor"]["name"], "")]
flat(os.path.join(HERE, "flat27_cond.pt2"), [
    ("serialized_exported_program.json",
     w.program(ln_graph, w.signature(LN_INS, LN_OUTS), {"s0": {"min_val": 2, "max_val": "Infinity"}})),
    ("serialized_state_dict.pt", torch_save_bytes({"ln.weight": lnc.ln.weight.detach(), "ln.bias": lnc.ln.bias.detach()})),
    ("serialized_constants.pt", torch_save_bytes({"scale": lnc.scale})),
    ("serialized_example_inputs.pt", torch_save_bytes(((ln_x,), {}))),
    ("version", b"7.3"),
])


# --- model 3: tied weights (an embedding and its output head) for the rooted layouts
class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 6)
        self.head = nn.Linear(6, 10, bias=False)
        self.head.weight = self.emb.weight
        self.proj = nn.Linear(6, 6)


tied = Tied()


def tied_step(ids, wemb, wproj, bproj):
    h = torch.nn.functional.embedding(ids, wemb)
    h = torch.tanh(torch.nn.functional.linear(h, wproj, bproj))
    return (torch.nn.functional.linear(h, wemb),)


tied_ids = torch.tensor([[1, 4, 9], [0, 3, 3]])
tied_args = [tied.emb.weight.detach(), tied.proj.weight.detach(), tied.proj.bias.detach()]
tied_gm = make_fx(tied_step)(tied_ids, *tied_args)
write_safetensors(os.path.join(HERE, "tied.outputs.safetensors"), {"out_0": tied_step(tied_ids, *tied_args)[0]})
tied_names = [n.name for n in tied_gm.graph.nodes if n.op == "placeholder"]
write_safetensors(os.path.join(HERE, "tied.inputs.safetensors"), {tied_names[0]: tied_ids})
tied_out = [n.name for n in list(tied_gm.graph.nodes)[-1].args[0]]
TIED_INS = [("user_input", tied_names[0], ""), ("parameter", tied_names[1], "emb.weight"),
            ("parameter", tied_names[2], "proj.weight"), ("parameter", tied_names[3], "proj.bias")]
TIED_OUTS = [("user_output", tied_out[0], "")]


def rooted(path, records):
    """PyTorch's own container (caffe2/serialize/inline_container.cc): stored, 64-byte aligned."""
    if os.path.exists(path):
        os.remove(path)
    wr = torch._C.PyTorchFileWriter(path)
    for name, data in records:
        wr.write_record(name, data, len(data))
    wr.write_end_of_file()
    del wr


w = Writer(8, 3, dollar=False, kinds=True, srepr=True)
tied_state = {k: v.detach() for k, v in tied.state_dict().items()}  # emb.weight and head.weight share storage
mlp_w8 = Writer(8, 3, dollar=False, kinds=True, srepr=True)
rooted(os.path.join(HERE, "rooted28_mlp.pt2"), [
    ("archive_format", b"pt2"),
    ("archive_version", b"0"),
    ("byteorder", b"little"),
    (".data/version", b"1"),
    ("models/model.json", mlp_w8.program(mlp_w8.graph(mlp_gm, metadata=mlp_metadata(False)),
                                         mlp_w8.signature(MLP_INS, MLP_OUTS))),
    ("data/weights/model.pt", torch_save_bytes(state)),
    ("data/sample_inputs/model.pt", torch_save_bytes(((mlp_x,), {}))),
    ("models/tied.json", w.program(w.graph(tied_gm), w.signature(TIED_INS, TIED_OUTS))),
    ("data/weights/tied.pt", torch_save_bytes(tied_state)),
    ("extra/module_info.json", b"{}"),
])

# 2.9+: raw weights. emb.weight and head.weight share weight_0; proj.bias views weight_2 at an offset.
w = Writer(8, 20, dollar=False, kinds=True, srepr=True)


def tmeta(t, offset=0):
    return {"dtype": SCALAR[t.dtype], "sizes": [{"as_int": s} for s in t.shape],
            "strides": [{"as_int": s} for s in t.stride()], "storage_offset": {"as_int": offset},
            "requires_grad": True, "device": {"type": "cpu", "index": None}, "layout": 7}


bias = tied.proj.bias.detach()
padded = torch.cat([torch.full((3,), -7.0), bias])
config = {"config": {
    "emb.weight": {"path_name": "weight_0", "is_param": True, "use_pickle": False, "tensor_meta": tmeta(tied.emb.weight.detach())},
    "head.weight": {"path_name": "weight_0", "is_param": True, "use_pickle": False, "tensor_meta": tmeta(tied.emb.weight.detach())},
    "proj.weight": {"path_name": "weight_1", "is_param": True, "use_pickle": False, "tensor_meta": tmeta(tied.proj.weight.detach())},
    "proj.bias": {"path_name": "weight_2", "is_param": True, "use_pickle": False, "tensor_meta": tmeta(bias, 3)},
}}
rooted(os.path.join(HERE, "rooted29_raw.pt2"), [
    ("archive_format", b"pt2"),
    ("archive_version", b"0"),
    ("byteorder", b"little"),
    (".data/version", b"1"),
    ("models/tied.json", w.program(w.graph(tied_gm), w.signature(TIED_INS, TIED_OUTS))),
    ("data/weights/tied_weights_config.json", json.dumps(config, indent=1).encode()),
    ("data/weights/weight_0", tied.emb.weight.detach().numpy().tobytes()),
    ("data/weights/weight_1", tied.proj.weight.detach().numpy().tobytes()),
    ("data/weights/weight_2", padded.numpy().tobytes()),
])

# an AOTInductor package (2.5-2.7 flat form): compiled code, no exported program
flat(os.path.join(HERE, "aoti_package.pt2"), [
    ("version", b"0"),
    ("archive_format", b"pt2"),
    ("data/aotinductor/model/cxyz.cpp", b"// generated kernels\n"),
    ("data/aotinductor/model/cxyz_metadata.json", b'{"AOTI_DEVICE_KEY": "cpu"}'),
    ("data/aotinductor/model/cxyz.so", b"\x7fELF" + bytes(60)),
])


# --- malformed archives
def patch_central_crc(data, entry, crc):
    """Sets the CRC-32 the central directory records for `entry`."""
    at = 0
    while True:
        at = data.index(b"PK\x01\x02", at)
        name_len, = struct.unpack_from("<H", data, at + 28)
        if data[at + 46:at + 46 + name_len] == entry.encode():
            return data[:at + 16] + struct.pack("<I", crc) + data[at + 20:]
        at += 4


good = open(os.path.join(HERE, "flat25_mlp.pt2"), "rb").read()
open(os.path.join(HERE, "bad_truncated.pt2"), "wb").write(good[:len(good) // 2])
open(os.path.join(HERE, "crc_zero.pt2"), "wb").write(patch_central_crc(good, "serialized_state_dict.pt", 0))
open(os.path.join(HERE, "bad_crc.pt2"), "wb").write(patch_central_crc(good, "serialized_state_dict.pt", 0x12345678))
flat(os.path.join(HERE, "bad_root.pt2"), [  # the first entry's folder is not the archive's root
    ("notes/readme.txt", b"hello"),
    ("model/archive_format", b"pt2"),
    ("model/models/model.json", b"{}"),
])
flat(os.path.join(HERE, "bad_format.pt2"), [("m/archive_format", b"pt3"), ("m/models/m.json", b"{}")])
w = Writer(8, 3, dollar=False, kinds=True)
prog = json.loads(w.program(w.graph(mlp_gm), w.signature(MLP_INS, MLP_OUTS)))
prog["graph_module"]["graph"]["nodes"][3]["inputs"][0]["arg"] = {"as_foo": {"name": "t"}}
flat(os.path.join(HERE, "bad_union.pt2"), [
    ("serialized_exported_program.json", json.dumps(prog, indent=1).encode()),
    ("serialized_state_dict.pt", torch_save_bytes(state)), ("version", b"8.3")])
prog = json.loads(w.program(w.graph(mlp_gm), w.signature(MLP_INS, MLP_OUTS)))
prog["schema_version"] = {"major": 9, "minor": 0}
flat(os.path.join(HERE, "bad_newer_major.pt2"), [
    ("serialized_exported_program.json", json.dumps(prog, indent=1).encode()),
    ("serialized_state_dict.pt", torch_save_bytes(state)), ("version", b"9.0")])


class Evil:  # a pickle that would run os.system when unpickled by Python
    def __reduce__(self):
        return (os.system, ("echo pwned",))


flat(os.path.join(HERE, "bad_global.pt2"), [
    ("serialized_exported_program.json", w.program(w.graph(mlp_gm), w.signature(MLP_INS, MLP_OUTS))),
    ("serialized_state_dict.pt", torch_save_bytes({"fc1.weight": Evil()})), ("version", b"8.3")])

print("wrote", sorted(f for f in os.listdir(HERE) if f.endswith((".pt2", ".safetensors"))))

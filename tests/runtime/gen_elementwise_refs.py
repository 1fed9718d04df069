#!/usr/bin/env python3
"""Reference outputs of PyTorch (1.13, CPU) for the elementwise / factory kernel family.

Writes tests/data/kernels/elementwise.safetensors (input storages and expected outputs) and
tests/data/kernels/elementwise.cases.json (one entry per case: op target, arguments by schema
name, how each tensor argument views its storage, the expected output's key, dtype and
strides, and whether the result must be bit-identical to PyTorch's or within tolerance).

Run with the interpreter that has torch (Debian's python3-torch: /usr/bin/python3):
    /usr/bin/python3 tests/runtime/gen_elementwise_refs.py
The output is deterministic (fixed seeds).
"""
import json
import math
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from st_util import TORCH_NAME, write_safetensors  # noqa: E402

OUT_DIR = os.path.join(HERE, "..", "data", "kernels")

F32, F64, BF16, F16 = torch.float32, torch.float64, torch.bfloat16, torch.float16
I64, I32, I16, I8, U8, BOOL = torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool
FLOATS = (F32, F64, BF16, F16)

EDGE = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1e-40, -1e-42, 1.4e-45, 3.0e38, -3.0e38,
        88.72, -88.72, 1e-7, 65504.0, 70000.0, 6e-8, 1.0, -1.0, 0.5, 2.0, -5.0, 5.0, 20.0, -20.0]

tensors = {}   # key -> contiguous tensor (written to safetensors)
cases = []
counters = {}
rng = torch.Generator().manual_seed(1234)


def values(n, dtype, kind="normal", edge=False, lo=-3.0, hi=3.0):
    """n values for a storage of `dtype`."""
    if dtype == BOOL:
        return torch.rand(n, generator=rng) > 0.5
    if dtype in (I64, I32, I16, I8, U8):
        info = torch.iinfo(dtype)
        lo_i, hi_i = max(info.min, -50), min(info.max, 50)
        if kind == "wide":
            lo_i, hi_i = info.min, info.max
        v = torch.randint(lo_i, hi_i + 1 if hi_i < info.max else hi_i, (n,), generator=rng, dtype=torch.int64)
        if kind == "wide" and n >= 4:
            v[0], v[1], v[2], v[3] = info.min, info.max, 0, -1 if info.min < 0 else 1
        return v.to(dtype)
    if kind == "uniform":
        v = torch.rand(n, generator=rng, dtype=torch.float64) * (hi - lo) + lo
    elif kind == "positive":
        v = torch.rand(n, generator=rng, dtype=torch.float64) * 10 + 1e-3
    else:
        v = torch.randn(n, generator=rng, dtype=torch.float64) * 2
    if edge:
        e = torch.tensor(EDGE, dtype=torch.float64)
        k = min(n, len(e))
        pos = torch.randperm(n, generator=rng)[:k]
        v[pos] = e[:k]
    return v.to(dtype)


def contiguous_strides(shape):
    st, s = [], 1
    for d in reversed(shape):
        st.append(s)
        s *= max(d, 1)
    return list(reversed(st))


def make(shape, dtype, layout="contig", **kw):
    """A tensor of `shape` viewing a fresh storage in the given layout."""
    shape = list(shape)
    nd = len(shape)
    offset = 0
    if layout == "contig":
        strides = contiguous_strides(shape)
    elif layout == "transposed":  # last two dims swapped in memory
        assert nd >= 2
        perm_shape = shape[:-2] + [shape[-1], shape[-2]]
        st = contiguous_strides(perm_shape)
        strides = st[:-2] + [st[-1], st[-2]]
    elif layout == "reversed":  # every dim reversed in memory (dense, not contiguous)
        st = contiguous_strides(list(reversed(shape)))
        strides = list(reversed(st))
    elif layout == "step2":  # every other element of the last dim, offset 1 (not dense)
        big = shape[:-1] + [shape[-1] * 2]
        st = contiguous_strides(big)
        strides = st[:-1] + [2]
        offset = 1
    elif layout == "offset":
        strides = contiguous_strides(shape)
        offset = 3
    elif layout == "expand0":  # first dim broadcast (stride 0)
        st = contiguous_strides(shape[1:])
        strides = [0] + st
    else:
        raise ValueError(layout)
    extent = offset + 1 + sum((s - 1) * t for s, t in zip(shape, strides)) if all(shape) else offset
    storage = values(max(extent, 1), dtype, **kw)
    return storage.as_strided(shape, strides, offset), storage


def new_case(op, group):
    short = op.replace("aten.", "")
    k = counters.get(short, 0)
    counters[short] = k + 1
    return "%s/%03d" % (short, k)


def storage_of(v):
    """The whole storage under a tensor, as a 1-D tensor."""
    return torch.empty(0, dtype=v.dtype).set_(v.storage())


def encode(v, cid, name):
    if isinstance(v, torch.Tensor):
        key = "%s/%s" % (cid, name)
        tensors[key] = storage_of(v).clone()
        return {"tensor": key, "sizes": list(v.shape), "strides": list(v.stride()), "offset": v.storage_offset()}
    if v is None:
        return {"none": True}
    if isinstance(v, bool):
        return {"bool": v}
    if isinstance(v, int):
        return {"int": v}
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            return {"float": repr(v)}
        return {"float": v}
    if isinstance(v, str):
        return {"str": v}
    if isinstance(v, torch.dtype):
        return {"dtype": TORCH_NAME[v]}
    if isinstance(v, torch.memory_format):
        return {"memory_format": str(v).replace("torch.", "")}
    if isinstance(v, (list, tuple)):
        return {"ints": [int(x) for x in v]}
    raise TypeError(type(v))


def same_values(a, b):
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype in FLOATS:
        return bool(((a == b) | (a.isnan() & b.isnan())).all())
    return bool((a == b).all())


def run(op, args, group, exact, check_values=True, inplace=False, ref_f32=False, half_via_f32=False):
    """args: dict schema-name -> value (tensors made by make()). Records one case.

    The expected values are PyTorch's, with two corrections (each reported on stderr):
    ref_f32: for bf16/f16 inputs of transcendental ops, the op computed on f32 copies of the
    inputs and rounded once to the output dtype (the runtime's contract; PyTorch 1.13's
    reduced-precision kernels round intermediates); and where PyTorch's result for strided
    inputs is not even close to its result for contiguous copies of them (a PyTorch 1.13 bug:
    gelu_backward with a transposed grad), the contiguous-input result."""
    overload = eval("torch.ops." + op)  # noqa: S307 (our own constant strings)
    schema = overload._schema
    names = [a.name for a in schema.arguments]
    for k in args:
        assert k in names, (op, k)
    pos, kw = [], {}
    last_pos = max([i for i, a in enumerate(schema.arguments) if a.name in args and not a.kwarg_only], default=-1)
    for i, a in enumerate(schema.arguments):
        if a.kwarg_only:
            if a.name in args:
                kw[a.name] = args[a.name]
        elif i <= last_pos:
            pos.append(args[a.name] if a.name in args else a.default_value)
    def fresh(x):  # a private copy of self's storage, same view
        return storage_of(x).clone().as_strided(x.shape, x.stride(), x.storage_offset())
    call_args = [fresh(x) if isinstance(x, torch.Tensor) and inplace and i == 0 else x for i, x in enumerate(pos)]
    no_half = False
    try:
        out = overload(*call_args, **kw)
    except Exception as e:  # dtype not implemented on CPU in 1.13, etc.
        if half_via_f32 and "not implemented for 'Half'" in str(e):
            # PyTorch 1.13 has no f16 CPU kernel for the op: the reference is the runtime's
            # contract, the op on f32 copies of the inputs rounded once to f16 (ref_f32 below)
            up = lambda x: x.float() if isinstance(x, torch.Tensor) and x.dtype == F16 else x  # noqa: E731
            out = overload(*[up(x) for x in call_args], **{k: up(v) for k, v in kw.items()}).to(F16)
            print("note %s (%s): no Half kernel in PyTorch 1.13; reference computed in f32, rounded once" % (op, group), file=sys.stderr)
            assert ref_f32 and not inplace
            no_half = True
        else:
            print("skip %s (%s): %s" % (op, group, str(e).splitlines()[0][:100]), file=sys.stderr)
            return None
    if inplace:
        assert out.data_ptr() == call_args[0].data_ptr()
    expected = out
    ref = "pytorch"
    if not inplace and check_values and not no_half:
        cont = overload(*[x.contiguous() if isinstance(x, torch.Tensor) else x for x in pos],
                        **{k: (v.contiguous() if isinstance(v, torch.Tensor) else v) for k, v in kw.items()})
        a, b = cont.contiguous(), out.contiguous()
        broken = not same_values(a, b) and not (a.dtype in FLOATS and torch.allclose(
            a.double(), b.double(), rtol=1e-5, atol=1e-6, equal_nan=True))
        if broken:
            print("note %s (%s): PyTorch's result is wrong for these strided inputs; using contiguous copies" % (op, group), file=sys.stderr)
            expected, ref = cont, "pytorch (contiguous inputs)"
    if ref_f32 and out.dtype in (BF16, F16):
        up = lambda x: x.float() if isinstance(x, torch.Tensor) and x.dtype in (BF16, F16) else x  # noqa: E731
        wide = overload(*[up(x.contiguous()) if isinstance(x, torch.Tensor) else x for x in pos],
                        **{k: up(v) for k, v in kw.items()})
        rounded = wide.to(out.dtype)
        ndiff = int((~((rounded == out) | (rounded.isnan() & out.isnan()))).sum())
        if ndiff:
            print("note %s (%s): %d elements of PyTorch's %s kernel differ from f32-and-round-once" % (op, group, ndiff, out.dtype), file=sys.stderr)
        expected, ref = rounded, "pytorch f32, rounded once" + (" (no Half kernel in PyTorch 1.13)" if no_half else "")
    ref64 = None
    if not exact and check_values and out.dtype in (F32, BF16, F16):
        # the same op on f64 copies: where PyTorch's f32 vector math (Sleef erf/tanh/exp) is
        # off in a cancellation (1 + tanh near -1), this is the value a correct f32 result is near
        up = lambda x: x.double() if isinstance(x, torch.Tensor) and x.dtype in FLOATS else x  # noqa: E731
        ref64 = overload(*[up(x.contiguous()) if isinstance(x, torch.Tensor) else x for x in pos],
                         **{k: up(v) for k, v in kw.items()})
    cid = new_case(op, group)
    if ref64 is not None:
        tensors[cid + "/out_f64"] = ref64.contiguous()
    enc = {name: encode(v, cid, name) for name, v in args.items()}
    tensors[cid + "/out"] = expected.contiguous()
    cases.append({
        "ref": ref,
        "id": cid, "op": op, "group": group, "args": enc,
        "out": cid + "/out", "out_f64": (cid + "/out_f64") if ref64 is not None else None, "out_dtype": TORCH_NAME[out.dtype], "out_sizes": list(out.shape),
        "out_strides": list(out.stride()), "exact": bool(exact), "check_values": check_values, "inplace": inplace,
    })
    return out


def tensor_maker(shape, dtype=F32, layout="contig", **kw):
    return make(shape, dtype, layout, **kw)[0]


def case(op, group, exact, build, **kw):
    if op.split(".")[0] in ("gelu", "gelu_backward", "silu", "sigmoid", "rsqrt", "sqrt", "reciprocal", "exp", "log",
                            "tanh", "erf", "sin", "cos", "sigmoid_backward", "tanh_backward", "silu_backward",
                            "acos", "expm1", "log1p", "elu", "softplus", "addcmul", "addcdiv", "lerp", "asin", "acosh",
                            "asinh", "atan", "atanh", "cosh", "sinh", "tan", "log10", "log2", "atan2"):
        kw.setdefault("ref_f32", True)
    return run("aten." + op, build(tensor_maker), group, exact, **kw)


def binary_cases():
    for op in ("add.Tensor", "sub.Tensor", "mul.Tensor", "div.Tensor"):
        ex = True
        case(op, "f32 same shape", ex, lambda t: {"self": t([5, 7]), "other": t([5, 7])})
        case(op, "f32 edge values", ex, lambda t: {"self": t([6, 8], edge=True), "other": t([6, 8], edge=True)})
        case(op, "f32 broadcast", ex, lambda t: {"self": t([4, 1, 6]), "other": t([5, 1])})
        case(op, "f32 broadcast row", ex, lambda t: {"self": t([3, 9]), "other": t([9])})
        case(op, "f32 transposed + contig", ex, lambda t: {"self": t([6, 5], layout="transposed"), "other": t([6, 5])})
        case(op, "f32 contig + transposed", ex, lambda t: {"self": t([6, 5]), "other": t([6, 5], layout="transposed")})
        case(op, "f32 both transposed", ex, lambda t: {"self": t([2, 6, 5], layout="transposed"), "other": t([2, 6, 5], layout="transposed")})
        case(op, "f32 reversed + scalar", ex, lambda t: {"self": t([3, 4, 5], layout="reversed"), "other": 0.1})
        case(op, "f32 step2 + offset", ex, lambda t: {"self": t([4, 9], layout="step2"), "other": t([4, 9], layout="offset")})
        case(op, "f32 transposed + row", ex, lambda t: {"self": t([7, 4], layout="transposed"), "other": t([4])})
        case(op, "f32 + python float", ex, lambda t: {"self": t([3, 5], edge=True), "other": 0.1})
        case(op, "f32 + python int", ex, lambda t: {"self": t([3, 5]), "other": 3})
        case(op, "f32 + python bool", ex, lambda t: {"self": t([3, 5]), "other": True})
        case(op, "f32 + 0-dim f64", ex, lambda t: {"self": t([4, 3]), "other": t([], F64)})
        case(op, "0-dim f32 + 0-dim f32", ex, lambda t: {"self": t([], F32), "other": t([], F32)})
        case(op, "f64", ex, lambda t: {"self": t([4, 5], F64, edge=True), "other": t([4, 5], F64)})
        case(op, "bf16", ex, lambda t: {"self": t([4, 6], BF16, edge=True), "other": t([4, 6], BF16)})
        case(op, "bf16 + python float", ex, lambda t: {"self": t([4, 6], BF16), "other": 0.1})
        case(op, "bf16 + f32 tensor", ex, lambda t: {"self": t([4, 6], BF16), "other": t([6], F32)})
        case(op, "f16", ex, lambda t: {"self": t([4, 6], F16, edge=True), "other": t([4, 6], F16)})
        case(op, "f16 + python float", ex, lambda t: {"self": t([4, 6], F16), "other": 0.3})
        case(op, "i64", ex, lambda t: {"self": t([4, 5], I64), "other": t([4, 5], I64)})
        case(op, "i64 wide", ex, lambda t: {"self": t([4, 5], I64, kind="wide"), "other": t([4, 5], I64, kind="wide")})
        case(op, "i32 + i64", ex, lambda t: {"self": t([4, 5], I32), "other": t([5], I64)})
        case(op, "i32 + 0-dim i64", ex, lambda t: {"self": t([4, 5], I32), "other": t([], I64)})
        case(op, "i32 + 0-dim f64", ex, lambda t: {"self": t([4, 5], I32), "other": t([], F64)})
        case(op, "u8 + i8", ex, lambda t: {"self": t([3, 7], U8, kind="wide"), "other": t([3, 7], I8, kind="wide")})
        case(op, "i8 wide", ex, lambda t: {"self": t([3, 7], I8, kind="wide"), "other": t([3, 7], I8, kind="wide")})
        case(op, "i64 + python float", ex, lambda t: {"self": t([3, 4], I64), "other": 2.5})
        case(op, "i64 + python int", ex, lambda t: {"self": t([3, 4], I64), "other": 7})
        case(op, "i16 + python int", ex, lambda t: {"self": t([3, 4], I16), "other": 7})
        case(op, "bool + bool", ex, lambda t: {"self": t([3, 4], BOOL), "other": t([3, 4], BOOL)})
        case(op, "bool + python int", ex, lambda t: {"self": t([3, 4], BOOL), "other": 2})
        case(op, "bool + f32", ex, lambda t: {"self": t([3, 4], BOOL), "other": t([3, 4])})
        case(op, "dense odd size-1 strides + scalar", ex,
             lambda t: {"self": t([4, 1, 8]).as_strided([4, 1, 8], [8, 1, 1]), "other": 1.5})
    for op in ("add.Tensor", "sub.Tensor"):
        case(op, "f32 alpha 2", True, lambda t: {"self": t([5, 6], edge=True), "other": t([5, 6], edge=True), "alpha": 2})
        case(op, "f32 alpha -0.37", False, lambda t: {"self": t([5, 6]), "other": t([5, 6]), "alpha": -0.37})
        case(op, "bf16 alpha 0.5", False, lambda t: {"self": t([5, 6], BF16), "other": t([5, 6], BF16), "alpha": 0.5})
        case(op, "i64 alpha 3", True, lambda t: {"self": t([5, 6], I64), "other": t([5, 6], I64), "alpha": 3})
        case(op, "f32 + scalar alpha 2", True, lambda t: {"self": t([5, 6]), "other": 0.25, "alpha": 2})
    case("add.Tensor", "bool alpha True", True, lambda t: {"self": t([4, 4], BOOL), "other": t([4, 4], BOOL), "alpha": True})
    # Scalar overloads
    for op, scal in (("add.Scalar", [1, 0.1, -2.5]), ("mul.Scalar", [-0.5, 2.0, 3]), ("div.Scalar", [64, 3.0, 0.3, 0])):
        for s in scal:
            case(op, "f32 %r" % s, True, lambda t, s=s: {"self": t([4, 6], edge=True), "other": s})
            case(op, "bf16 %r" % s, True, lambda t, s=s: {"self": t([4, 6], BF16), "other": s})
            case(op, "i64 %r" % s, True, lambda t, s=s: {"self": t([4, 6], I64), "other": s})
            case(op, "transposed f32 %r" % s, True, lambda t, s=s: {"self": t([4, 6], layout="transposed"), "other": s})
    case("add.Scalar", "f32 alpha 3", True, lambda t: {"self": t([4, 6]), "other": 2, "alpha": 3})
    case("div.Tensor", "i64 / i64 (true division)", True, lambda t: {"self": t([4, 6], I64), "other": t([4, 6], I64, kind="positive")})
    case("div.Tensor", "f32 / zeros", True,
         lambda t: {"self": t([8], edge=True), "other": torch.tensor([0.0, -0.0, 0.0, -0.0, 0.0, 0.0, -0.0, 0.0]).as_strided([8], [1])})
    case("div.Tensor", "bool / bool", True, lambda t: {"self": t([3, 4], BOOL), "other": t([3, 4], BOOL)})
    case("mul.Tensor", "f32 attention scale (corpus)", True, lambda t: {"self": t([2, 4, 16, 16]), "other": 0.5})


def inplace_cases():
    op = "sub_.Tensor"
    for grp, build in (
        ("f32", lambda t: {"self": t([4, 6], edge=True), "other": t([4, 6])}),
        ("f32 broadcast other", lambda t: {"self": t([4, 6]), "other": t([6])}),
        ("f32 transposed self", lambda t: {"self": t([5, 4], layout="transposed"), "other": t([5, 4])}),
        ("f32 step2 self", lambda t: {"self": t([3, 5], layout="step2"), "other": t([3, 5])}),
        ("f32 - 0-dim f64", lambda t: {"self": t([4, 6]), "other": t([], F64)}),
        ("f32 - f64 tensor", lambda t: {"self": t([4, 6]), "other": t([4, 6], F64)}),
        ("f64 - f32", lambda t: {"self": t([4, 6], F64), "other": t([4, 6])}),
        ("bf16 - f32 tensor", lambda t: {"self": t([4, 6], BF16), "other": t([4, 6])}),
        ("i64", lambda t: {"self": t([4, 6], I64), "other": t([4, 6], I64)}),
        ("f32 alpha 2", lambda t: {"self": t([4, 6]), "other": t([4, 6]), "alpha": 2}),
        ("corpus: fill_ - sigmoid", lambda t: {"self": torch.ones(4, 8).as_strided([4, 8], [8, 1]), "other": t([4, 8], kind="uniform", lo=0, hi=1)}),
    ):
        run("aten." + op, build(tensor_maker), grp, True, inplace=True)


def generic_inplace_cases():
    # the in-place variants fxlens makes of pointwise ops (OpRegistry::addInplaceVariants): the
    # functional kernel, its result written into self (nn.LSTM / nn.GRU cells trace to sigmoid_
    # and tanh_); a comparison's bool result is cast into a float self as copy_ casts
    for op, exact in (("sigmoid_.default", False), ("tanh_.default", False), ("relu_.default", True),
                      ("neg_.default", True), ("exp_.default", False), ("abs_.default", True)):
        run("aten." + op, {"self": tensor_maker([5, 6], edge=True)}, "f32", exact, inplace=True)
        run("aten." + op, {"self": tensor_maker([6, 5], layout="transposed")}, "f32 transposed", exact, inplace=True)
    run("aten.mul_.Scalar", {"self": tensor_maker([4, 6], edge=True), "other": 0.5}, "f32 scalar", True, inplace=True)
    run("aten.lt_.Scalar", {"self": tensor_maker([4, 6], edge=True), "other": 0.0}, "f32 <- bool", True, inplace=True)


def unary_cases():
    # neg
    for dt, kind in ((F32, "normal"), (F64, "normal"), (BF16, "normal"), (F16, "normal"), (I64, "wide"), (I8, "wide"), (I32, "normal")):
        case("neg.default", "%s" % TORCH_NAME[dt], True, lambda t, dt=dt, kind=kind: {"self": t([5, 7], dt, kind=kind, edge=dt in FLOATS)})
    case("neg.default", "f32 transposed", True, lambda t: {"self": t([5, 7], layout="transposed")})
    case("neg.default", "f32 step2", True, lambda t: {"self": t([5, 7], layout="step2")})
    case("neg.default", "f32 reversed 3d", True, lambda t: {"self": t([3, 4, 5], layout="reversed")})
    case("neg.default", "dense odd size-1 strides", True, lambda t: {"self": t([4, 1, 8]).as_strided([4, 1, 8], [8, 1, 1])})
    # rsqrt (1/sqrt, correctly rounded on both sides)
    # bf16: PyTorch 1.13 rounds sqrt to bf16 before dividing (two roundings); we round once
    for dt in (F32, F64, BF16):
        case("rsqrt.default", TORCH_NAME[dt], dt != BF16, lambda t, dt=dt: {"self": t([6, 8], dt, kind="positive", edge=True)})
    case("rsqrt.default", "f32 transposed", True, lambda t: {"self": t([6, 8], layout="transposed", kind="positive")})
    case("rsqrt.default", "i64 -> f32", True, lambda t: {"self": t([4, 5], I64, kind="wide")})
    # transcendental activations
    for op in ("sigmoid.default", "silu.default"):
        for dt in (F32, F64, BF16, F16):
            case(op, TORCH_NAME[dt], False, lambda t, dt=dt: {"self": t([10, 12], dt, kind="uniform", lo=-12, hi=12, edge=True)})
        case(op, "f32 wide", False, lambda t: {"self": t([200], kind="uniform", lo=-120, hi=120)})
        case(op, "f32 transposed", False, lambda t: {"self": t([6, 9], layout="transposed")})
        case(op, "f32 step2", False, lambda t: {"self": t([6, 9], layout="step2")})
    case("sigmoid.default", "i64 -> f32", False, lambda t: {"self": t([4, 5], I64)})
    for approx in ("none", "tanh"):
        for dt in (F32, F64, BF16):
            case("gelu.default", "%s %s" % (approx, TORCH_NAME[dt]), False,
                 lambda t, dt=dt, approx=approx: {"self": t([10, 16], dt, kind="uniform", lo=-10, hi=10, edge=True), "approximate": approx})
            case("gelu_backward.default", "%s %s" % (approx, TORCH_NAME[dt]), False,
                 lambda t, dt=dt, approx=approx: {"grad_output": t([10, 16], dt), "self": t([10, 16], dt, kind="uniform", lo=-10, hi=10, edge=True), "approximate": approx})
        case("gelu.default", "%s f32 dense normal" % approx, False, lambda t, approx=approx: {"self": t([300]), "approximate": approx})
        case("gelu.default", "%s f32 transposed" % approx, False, lambda t, approx=approx: {"self": t([8, 6], layout="transposed"), "approximate": approx})
        case("gelu_backward.default", "%s f32 dense normal" % approx, False, lambda t, approx=approx: {"grad_output": t([300]), "self": t([300]), "approximate": approx})
        case("gelu_backward.default", "%s f32 transposed grad" % approx, False,
             lambda t, approx=approx: {"grad_output": t([8, 6], layout="transposed"), "self": t([8, 6]), "approximate": approx})
        case("gelu_backward.default", "%s f32 broadcast grad" % approx, False,
             lambda t, approx=approx: {"grad_output": t([6]), "self": t([8, 6]), "approximate": approx})
    case("gelu.default", "default approximate", False, lambda t: {"self": t([50])})
    # pow(Tensor, Scalar)
    for e in (2, 3, 1.0, 0, 0.5, -0.5, -1, -2, 1.7, 2.5, -1.3):
        ex = e in (2, 3, 1.0, 0, 0.5, -0.5, -1, -2)
        case("pow.Tensor_Scalar", "f32 ** %r" % e, ex, lambda t, e=e: {"self": t([6, 7], edge=True), "exponent": e})
        case("pow.Tensor_Scalar", "f32 positive ** %r" % e, ex, lambda t, e=e: {"self": t([6, 7], kind="positive"), "exponent": e})
        case("pow.Tensor_Scalar", "bf16 ** %r" % e, e in (2, 1.0, 0, 0.5, -1), lambda t, e=e: {"self": t([6, 7], BF16), "exponent": e})
    case("pow.Tensor_Scalar", "f64 ** 1.7", False, lambda t: {"self": t([6, 7], F64, kind="positive"), "exponent": 1.7})
    case("pow.Tensor_Scalar", "f32 transposed ** 2", True, lambda t: {"self": t([6, 7], layout="transposed"), "exponent": 2})
    for e in (2, 3, 0, 5):
        case("pow.Tensor_Scalar", "i64 ** %r" % e, True, lambda t, e=e: {"self": t([5, 6], I64), "exponent": e})
    case("pow.Tensor_Scalar", "i32 ** 3", True, lambda t: {"self": t([5, 6], I32), "exponent": 3})
    case("pow.Tensor_Scalar", "i64 ** 0.5 -> f32", True, lambda t: {"self": t([5, 6], I64, kind="wide"), "exponent": 0.5})
    case("pow.Tensor_Scalar", "i64 ** 1.5 -> f32", False, lambda t: {"self": t([5, 6], I64), "exponent": 1.5})
    # bitwise_not
    for dt in (BOOL, I64, I32, U8, I8):
        case("bitwise_not.default", TORCH_NAME[dt], True, lambda t, dt=dt: {"self": t([5, 6], dt, kind="wide")})
    case("bitwise_not.default", "bool transposed", True, lambda t: {"self": t([5, 6], BOOL, layout="transposed")})


def select_cases():
    op = "masked_fill.Scalar"
    case(op, "corpus: attention -inf", True, lambda t: {"self": t([2, 3, 4, 4]), "mask": t([1, 1, 4, 4], BOOL), "value": float("-inf")})
    case(op, "f32 value 0", True, lambda t: {"self": t([5, 6], edge=True), "mask": t([5, 6], BOOL), "value": 0})
    case(op, "f32 transposed self", True, lambda t: {"self": t([5, 6], layout="transposed"), "mask": t([6], BOOL), "value": 2.5})
    case(op, "mask broadcasts self", True, lambda t: {"self": t([6]), "mask": t([3, 6], BOOL), "value": -1.0})
    case(op, "i64 value 2.7", True, lambda t: {"self": t([4, 5], I64), "mask": t([4, 5], BOOL), "value": 2.7})
    case(op, "bf16 value 0.1", True, lambda t: {"self": t([4, 5], BF16), "mask": t([4, 5], BOOL), "value": 0.1})
    case(op, "bool value True", True, lambda t: {"self": t([4, 5], BOOL), "mask": t([4, 5], BOOL), "value": True})
    case(op, "f64 nan", True, lambda t: {"self": t([4, 5], F64), "mask": t([4, 5], BOOL, layout="step2"), "value": float("nan")})
    op = "where.self"
    case(op, "f32", True, lambda t: {"condition": t([5, 6], BOOL), "self": t([5, 6], edge=True), "other": t([5, 6])})
    case(op, "broadcast all", True, lambda t: {"condition": t([4, 1], BOOL), "self": t([1, 5]), "other": t([4, 5])})
    case(op, "f32 vs f64", True, lambda t: {"condition": t([4, 5], BOOL), "self": t([4, 5]), "other": t([4, 5], F64)})
    case(op, "i64 vs f32", True, lambda t: {"condition": t([4, 5], BOOL), "self": t([4, 5], I64), "other": t([4, 5])})
    case(op, "transposed", True, lambda t: {"condition": t([4, 5], BOOL, layout="transposed"), "self": t([4, 5], layout="transposed"), "other": t([4, 5], layout="transposed")})
    case(op, "bf16", True, lambda t: {"condition": t([4, 5], BOOL), "self": t([4, 5], BF16), "other": t([5], BF16)})


def copy_cases():
    op = "clone.default"
    for grp, build in (
        ("contig", lambda t: {"self": t([4, 6], edge=True)}),
        ("transposed preserve", lambda t: {"self": t([4, 6], layout="transposed")}),
        ("transposed contiguous_format", lambda t: {"self": t([4, 6], layout="transposed"), "memory_format": torch.contiguous_format}),
        ("expand contiguous_format (corpus)", lambda t: {"self": t([3, 4, 5], layout="expand0"), "memory_format": torch.contiguous_format}),
        ("expand preserve", lambda t: {"self": t([3, 4, 5], layout="expand0")}),
        ("step2 preserve (not dense)", lambda t: {"self": t([4, 6], layout="step2")}),
        ("step2 transposed preserve", lambda t: {"self": t([6, 8], layout="step2").t()}),
        ("reversed preserve", lambda t: {"self": t([2, 3, 4], layout="reversed")}),
        ("dense odd size-1 strides", lambda t: {"self": t([4, 1, 8]).as_strided([4, 1, 8], [8, 1, 1])}),
        ("bf16", lambda t: {"self": t([4, 6], BF16, edge=True)}),
        ("i64", lambda t: {"self": t([4, 6], I64, kind="wide")}),
        ("bool", lambda t: {"self": t([4, 6], BOOL, layout="transposed")}),
        ("0-dim", lambda t: {"self": t([], F32)}),
        ("empty", lambda t: {"self": t([0, 3], F32)}),
    ):
        run("aten." + op, build(tensor_maker), grp, True)
    op = "_to_copy.default"
    for src, dst in ((F32, BF16), (F32, F16), (F32, F64), (F64, F32), (BF16, F32), (F16, F64), (F16, BF16), (BF16, F16),
                     (F32, I64), (F32, I32), (F32, I16), (F32, I8), (F32, U8), (F32, BOOL), (F64, I64), (F64, I32),
                     (I64, F32), (I64, BF16), (I64, F16), (I64, I32), (I64, I8), (I32, I64), (BOOL, F32), (BOOL, I64),
                     (U8, F32), (I8, U8), (I64, BOOL), (BF16, I64), (F16, I32), (F64, BF16)):
        kind = "wide" if src in (I64, I32, I16, I8, U8) else "normal"
        case(op, "%s -> %s" % (TORCH_NAME[src], TORCH_NAME[dst]), True,
             lambda t, src=src, dst=dst, kind=kind: {"self": t([6, 8], src, kind=kind, edge=src in FLOATS), "dtype": dst})
    case(op, "f32 scaled -> int (out of range)", True,
         lambda t: {"self": torch.tensor([float("nan"), float("inf"), -float("inf"), 3e9, -3e9, 1e20, 300.7, -1.5, -200.3, 70000.5, 2.5, -0.5]).as_strided([12], [1]), "dtype": I16})
    case(op, "f32 big -> i64", True, lambda t: {"self": t([40], kind="uniform", lo=-1e19, hi=1e19), "dtype": I64})
    case(op, "f32 big -> i32", True, lambda t: {"self": t([40], kind="uniform", lo=-3e9, hi=3e9), "dtype": I32})
    case(op, "f32 big -> u8", True, lambda t: {"self": t([40], kind="uniform", lo=-1e3, hi=1e3), "dtype": U8})
    case(op, "i64 big -> f32 (one rounding)", True,
         lambda t: {"self": torch.tensor([2**53 + 1, 2**60 + 2**36 + 1, -(2**62) - 1, 2**24 + 1, 16777219, 2**63 - 1, -(2**63)]).as_strided([7], [1]), "dtype": F32})
    case(op, "f32 transposed preserve -> f64", True, lambda t: {"self": t([4, 6], layout="transposed"), "dtype": F64})
    case(op, "f32 step2 -> f64 (not dense)", True, lambda t: {"self": t([4, 6], layout="step2").t(), "dtype": F64})
    case(op, "f32 transposed contiguous_format", True, lambda t: {"self": t([4, 6], layout="transposed"), "dtype": BF16, "memory_format": torch.contiguous_format})
    case(op, "same dtype copy", True, lambda t: {"self": t([4, 6], layout="transposed")})


def factory_cases():
    case("fill.Scalar", "f32 1 (corpus)", True, lambda t: {"self": t([4, 6]), "value": 1})
    case("fill.Scalar", "f32 transposed preserve", True, lambda t: {"self": t([4, 6], layout="transposed"), "value": 0.1})
    case("fill.Scalar", "i64 2.7", True, lambda t: {"self": t([4, 6], I64), "value": 2.7})
    case("fill.Scalar", "bf16 0.1", True, lambda t: {"self": t([4, 6], BF16), "value": 0.1})
    case("fill.Scalar", "bool 1", True, lambda t: {"self": t([4, 6], BOOL), "value": 1})
    case("fill.Scalar", "f32 -inf", True, lambda t: {"self": t([3], F32), "value": float("-inf")})
    for grp, build in (
        ("f32 1 (corpus)", lambda t: {"self": t([4, 6]), "value": 1}),
        ("f32 transposed", lambda t: {"self": t([4, 6], layout="transposed"), "value": -2.5}),
        ("f32 step2", lambda t: {"self": t([4, 6], layout="step2"), "value": 7}),
        ("i64 2", lambda t: {"self": t([1], I64), "value": 2}),
        ("f16 1e5 -> inf", lambda t: {"self": t([5], F16), "value": 1e5}),
    ):
        run("aten.fill_.Scalar", build(tensor_maker), grp, True, inplace=True)
    for op in ("ones_like.default", "zeros_like.default", "empty_like.default"):
        vals = op != "empty_like.default"
        case(op, "f32", True, lambda t: {"self": t([4, 6])}, check_values=vals)
        case(op, "f32 transposed preserve", True, lambda t: {"self": t([4, 6], layout="transposed")}, check_values=vals)
        case(op, "step2 (not dense)", True, lambda t: {"self": t([4, 6], layout="step2")}, check_values=vals)
        case(op, "dtype f32 from i64 (corpus form)", True, lambda t: {"self": t([4, 6], I64), "dtype": F32}, check_values=vals)
        case(op, "contiguous_format", True, lambda t: {"self": t([4, 6], layout="transposed"), "memory_format": torch.contiguous_format}, check_values=vals)
        case(op, "bf16 0-dim", True, lambda t: {"self": t([], BF16)}, check_values=vals)
    case("empty_like.default", "preserve_format (corpus)", True, lambda t: {"self": t([4, 8]), "memory_format": torch.preserve_format}, check_values=False)
    case("full_like.default", "f32 3.5", True, lambda t: {"self": t([4, 6], layout="transposed"), "fill_value": 3.5})
    for grp, args in (("corpus [16,16] -inf", {"size": [16, 16], "fill_value": float("-inf")}),
                      ("int -> i64", {"size": [3, 4], "fill_value": 3}),
                      ("bool -> i64 (torch 1.13)", {"size": [3], "fill_value": True}),
                      ("dtype bf16", {"size": [2, 3], "fill_value": 0.1, "dtype": BF16}),
                      ("dtype bool", {"size": [2, 3], "fill_value": 1, "dtype": BOOL}),
                      ("0-dim", {"size": [], "fill_value": 2.0}),
                      ("empty", {"size": [0, 4], "fill_value": 2.0})):
        run("aten.full.default", args, grp, True)
    run("aten.zeros.default", {"size": [24, 4], "dtype": F32}, "corpus [24,4]", True)
    run("aten.zeros.default", {"size": [3, 5]}, "default dtype", True)
    run("aten.zeros.default", {"size": [3, 5], "dtype": I64}, "i64", True)
    run("aten.ones.default", {"size": [24, 4], "dtype": F32}, "f32 [24,4]", True)
    run("aten.ones.default", {"size": [3, 5]}, "default dtype", True)
    run("aten.ones.default", {"size": [2, 3], "dtype": BF16}, "bf16", True)
    run("aten.ones.default", {"size": [3], "dtype": BOOL}, "bool", True)
    run("aten.ones.default", {"size": [0, 4], "dtype": I64}, "empty i64", True)
    run("aten.empty.memory_format", {"size": [1], "dtype": I64}, "corpus i64 [1]", True, check_values=False)
    run("aten.empty.memory_format", {"size": [2, 3, 4]}, "default", True, check_values=False)
    run("aten.empty.memory_format", {"size": [2, 3, 4, 5], "memory_format": torch.channels_last}, "channels_last", True, check_values=False)
    case("new_zeros.default", "corpus [48] f32", True, lambda t: {"self": t([4, 12]), "size": [48], "dtype": F32})
    case("new_zeros.default", "self dtype", True, lambda t: {"self": t([4], I32), "size": [2, 3]})
    run("aten.arange.default", {"end": 16}, "corpus 16", True)
    run("aten.arange.default", {"end": 4}, "corpus 4", True)
    run("aten.arange.default", {"end": 5.5}, "float end", True)
    run("aten.arange.default", {"end": 7, "dtype": F32}, "dtype f32", True)
    run("aten.arange.default", {"end": 7, "dtype": BF16}, "dtype bf16", True)
    run("aten.arange.default", {"end": 0}, "empty", True)
    run("aten.arange.start", {"start": 3, "end": 11}, "ints", True)
    run("aten.arange.start", {"start": -2.5, "end": 3}, "float start", True)
    run("aten.arange.start_step", {"start": 0, "end": 1, "step": 0.25}, "f32 step 0.25", True)
    # inexact steps: PyTorch's vector body computes (start + step*i0) + k*step per 8-lane chunk,
    # we compute start + step*i for every element
    run("aten.arange.start_step", {"start": 0, "end": 1, "step": 0.1}, "f32 step 0.1", False)
    run("aten.arange.start_step", {"start": 10, "end": -3, "step": -3}, "negative int step", True)
    run("aten.arange.start_step", {"start": 1.0, "end": -1.0, "step": -0.3, "dtype": F64}, "f64 negative step", False)
    run("aten.arange.start_step", {"start": 0, "end": 2, "step": 0.1, "dtype": BF16}, "bf16 step 0.1", False)
    run("aten.arange.start_step", {"start": 0, "end": 100, "step": 7, "dtype": I32}, "i32", True)
    run("aten.scalar_tensor.default", {"s": 3}, "int -> f32 (1.13)", True)
    run("aten.scalar_tensor.default", {"s": 2.5, "dtype": F64}, "f64", True)
    run("aten.scalar_tensor.default", {"s": True}, "bool -> f32", True)
    case("triu.default", "corpus full(-inf) diagonal 1", True,
         lambda t: {"self": torch.full([16, 16], float("-inf")).as_strided([16, 16], [16, 1]), "diagonal": 1})
    for dg in (0, 1, -1, 3, -7, 9):
        case("triu.default", "f32 5x6 diagonal %d" % dg, True, lambda t, dg=dg: {"self": t([5, 6]), "diagonal": dg})
    case("triu.default", "batched", True, lambda t: {"self": t([2, 3, 4, 5])})
    case("triu.default", "transposed", True, lambda t: {"self": t([5, 4], layout="transposed"), "diagonal": 1})
    case("triu.default", "i64", True, lambda t: {"self": t([4, 4], I64)})
    case("triu.default", "bool", True, lambda t: {"self": t([4, 4], BOOL), "diagonal": -1})



def extra_cases():
    """Elementwise ops of ops.tsv beyond the corpus graphs."""
    for op, ex in (("sqrt", True), ("reciprocal", True), ("exp", False), ("log", False), ("tanh", False),
                   ("erf", False), ("sin", False), ("cos", False)):
        o = op + ".default"
        case(o, "f32 edge", ex, lambda t: {"self": t([8, 9], edge=True)})
        case(o, "f32 positive", ex, lambda t: {"self": t([60], kind="positive")})
        case(o, "f64", ex, lambda t: {"self": t([5, 6], F64, edge=True)})
        case(o, "bf16", False, lambda t: {"self": t([5, 6], BF16)})
        case(o, "i64 -> f32", ex, lambda t: {"self": t([4, 5], I64)})
        case(o, "f32 transposed", ex, lambda t: {"self": t([5, 6], layout="transposed")})
    # PyTorch's build contracts 1 - b*b into an fma (GCC's default -ffp-contract=fast): not bit-exact
    for op, b in (("sigmoid_backward", "output"), ("tanh_backward", "output")):
        case(op + ".default", "f32", op == "sigmoid_backward", lambda t, b=b: {"grad_output": t([6, 7], edge=True), b: t([6, 7], kind="uniform", lo=-1, hi=1)})
        case(op + ".default", "f32 broadcast grad", op == "sigmoid_backward", lambda t, b=b: {"grad_output": t([7]), b: t([6, 7], kind="uniform", lo=-1, hi=1)})
        case(op + ".default", "f64", op == "sigmoid_backward", lambda t, b=b: {"grad_output": t([6, 7], F64), b: t([6, 7], F64)})
        case(op + ".default", "bf16", False, lambda t, b=b: {"grad_output": t([6, 7], BF16), b: t([6, 7], BF16, kind="uniform", lo=-1, hi=1)})
    case("silu_backward.default", "f32", False, lambda t: {"grad_output": t([6, 7]), "self": t([6, 7], kind="uniform", lo=-12, hi=12, edge=True)})
    case("silu_backward.default", "f64", False, lambda t: {"grad_output": t([6, 7], F64), "self": t([6, 7], F64)})
    case("silu_backward.default", "bf16", False, lambda t: {"grad_output": t([6, 7], BF16), "self": t([6, 7], BF16)})
    for th in (0, 0.5, -1):
        case("threshold_backward.default", "f32 threshold %r" % th, True,
             lambda t, th=th: {"grad_output": t([6, 7]), "self": t([6, 7], edge=True), "threshold": th})
    case("threshold_backward.default", "transposed self", True, lambda t: {"grad_output": t([6, 7]), "self": t([6, 7], layout="transposed"), "threshold": 0})
    case("threshold_backward.default", "bf16", True, lambda t: {"grad_output": t([6, 7], BF16), "self": t([6, 7], BF16), "threshold": 0})
    case("threshold_backward.default", "i64", True, lambda t: {"grad_output": t([6, 7], I64), "self": t([6, 7], I64), "threshold": 3})
    # comparisons
    for op in ("eq", "ne", "lt", "le", "gt", "ge"):
        case(op + ".Scalar", "f32 vs 0.5", True, lambda t: {"self": t([6, 7], edge=True), "other": 0.5})
        case(op + ".Scalar", "f32 vs nan", True, lambda t: {"self": t([6, 7], edge=True), "other": float("nan")})
        case(op + ".Scalar", "i64 vs 2.5 (compared as f32)", True, lambda t: {"self": t([6, 7], I64), "other": 2.5})
        case(op + ".Scalar", "i64 vs 3", True, lambda t: {"self": t([6, 7], I64, kind="wide"), "other": 3})
        case(op + ".Scalar", "bf16 vs 0.1", True, lambda t: {"self": t([6, 7], BF16), "other": 0.1})
        case(op + ".Scalar", "bool vs True", True, lambda t: {"self": t([6, 7], BOOL), "other": True})
        case(op + ".Tensor", "f32 broadcast", True, lambda t: {"self": t([6, 7], edge=True), "other": t([7], edge=True)})
        case(op + ".Tensor", "i32 vs f64 0-dim", True, lambda t: {"self": t([6, 7], I32), "other": t([], F64)})
        case(op + ".Tensor", "f32 vs f64", True, lambda t: {"self": t([6, 7]), "other": t([6, 7], F64)})
        case(op + ".Tensor", "transposed", True, lambda t: {"self": t([6, 7], layout="transposed"), "other": t([6, 7])})
    for op in ("maximum.default", "minimum.default"):
        case(op, "f32 edge", False, lambda t: {"self": t([6, 7], edge=True), "other": t([6, 7], edge=True)})
        case(op, "f32 broadcast", True, lambda t: {"self": t([6, 7]), "other": t([7])})
        case(op, "i64 vs f32", True, lambda t: {"self": t([6, 7], I64), "other": t([6, 7])})
        case(op, "bf16", True, lambda t: {"self": t([6, 7], BF16), "other": t([6, 7], BF16)})
        case(op, "bool", True, lambda t: {"self": t([6, 7], BOOL), "other": t([6, 7], BOOL)})
        case(op, "u8 wide", True, lambda t: {"self": t([6, 7], U8, kind="wide"), "other": t([6, 7], U8, kind="wide")})
    case("clamp.default", "f32 [-1, 1]", True, lambda t: {"self": t([6, 7], edge=True), "min": -1.0, "max": 1.0})
    case("clamp.default", "f32 min only", True, lambda t: {"self": t([6, 7], edge=True), "min": 0})
    case("clamp.default", "f32 max only", True, lambda t: {"self": t([6, 7], edge=True), "max": 0.5})
    case("clamp.default", "f32 min > max", True, lambda t: {"self": t([6, 7]), "min": 1.0, "max": -1.0})
    case("clamp.default", "i64 with ints", True, lambda t: {"self": t([6, 7], I64), "min": -3, "max": 7})
    case("clamp.default", "i64 with float -> f32", True, lambda t: {"self": t([6, 7], I64), "min": -2.5})
    case("clamp.default", "bf16", True, lambda t: {"self": t([6, 7], BF16), "min": -0.1, "max": 0.3})
    case("clamp.default", "transposed", True, lambda t: {"self": t([6, 7], layout="transposed"), "min": -1, "max": 1})
    case("clamp_min.default", "f32 0", True, lambda t: {"self": t([6, 7], edge=True), "min": 0})
    case("clamp_max.default", "f32 0", True, lambda t: {"self": t([6, 7], edge=True), "max": 0})
    case("clamp_min.default", "i32 -5", True, lambda t: {"self": t([6, 7], I32), "min": -5})
    for dt in (F32, I64, BOOL, BF16):
        case("logical_not.default", TORCH_NAME[dt], True, lambda t, dt=dt: {"self": t([6, 7], dt, edge=dt in FLOATS)})
    for op in ("bitwise_and.Tensor", "bitwise_or.Tensor"):
        case(op, "bool", True, lambda t: {"self": t([6, 7], BOOL), "other": t([6, 7], BOOL)})
        case(op, "i64 broadcast", True, lambda t: {"self": t([6, 7], I64, kind="wide"), "other": t([7], I64, kind="wide")})
        case(op, "u8 & i8", True, lambda t: {"self": t([6, 7], U8, kind="wide"), "other": t([6, 7], I8, kind="wide")})
        case(op, "bool & i32", True, lambda t: {"self": t([6, 7], BOOL), "other": t([6, 7], I32)})
    for op in ("abs.default", "sign.default", "relu.default"):
        case(op, "f32 edge", True, lambda t: {"self": t([6, 7], edge=True)})
        case(op, "f64", True, lambda t: {"self": t([6, 7], F64, edge=True)})
        case(op, "bf16", True, lambda t: {"self": t([6, 7], BF16, edge=True)})
        case(op, "i64 wide", True, lambda t: {"self": t([6, 7], I64, kind="wide")})
        case(op, "i8 wide", True, lambda t: {"self": t([6, 7], I8, kind="wide")})
        case(op, "transposed", True, lambda t: {"self": t([6, 7], layout="transposed")})
    case("sign.default", "bool", True, lambda t: {"self": t([6, 7], BOOL)})
    for mode in ("trunc", "floor"):
        # (edge values only for trunc: PyTorch's vector fmod gives NaN where the scalar formula overflows to inf)
        case("div.Tensor_mode", "f32 %s" % mode, True, lambda t, mode=mode: {"self": t([6, 7], edge=mode == "trunc"), "other": t([6, 7], edge=mode == "trunc"), "rounding_mode": mode})
        case("div.Tensor_mode", "f32 %s by 0.3" % mode, True, lambda t, mode=mode: {"self": t([6, 7], kind="uniform", lo=-9, hi=9), "other": 0.3, "rounding_mode": mode})
        case("div.Tensor_mode", "f64 %s" % mode, True, lambda t, mode=mode: {"self": t([6, 7], F64), "other": t([6, 7], F64), "rounding_mode": mode})
        case("div.Tensor_mode", "i64 %s" % mode, True, lambda t, mode=mode: {"self": t([6, 7], I64), "other": (t([6, 7], I64).abs() % 5 + 1) * torch.tensor([1, -1]).repeat(21).view(6, 7), "rounding_mode": mode})
        case("div.Tensor_mode", "i64 %s by 3" % mode, True, lambda t, mode=mode: {"self": t([6, 7], I64), "other": 3, "rounding_mode": mode})
        case("div.Tensor_mode", "bf16 %s" % mode, True, lambda t, mode=mode: {"self": t([6, 7], BF16), "other": t([6, 7], BF16), "rounding_mode": mode})
    case("div.Tensor_mode", "None", True, lambda t: {"self": t([6, 7]), "other": t([6, 7]), "rounding_mode": None})
    case("pow.Tensor_Tensor", "f32 positive", False, lambda t: {"self": t([6, 7], kind="positive"), "exponent": t([6, 7])})
    case("pow.Tensor_Tensor", "f32 edge", False, lambda t: {"self": t([6, 7], edge=True), "exponent": t([6, 7], edge=True)})
    case("pow.Tensor_Tensor", "f32 broadcast", False, lambda t: {"self": t([6, 7], kind="positive"), "exponent": t([7])})
    case("pow.Tensor_Tensor", "i64", True, lambda t: {"self": t([6, 7], I64), "exponent": t([6, 7], I64).abs() % 5})
    case("pow.Tensor_Tensor", "i64 negative exponents", True, lambda t: {"self": t([6, 7], I64) % 3, "exponent": t([6, 7], I64) % 4})
    case("pow.Tensor_Tensor", "bf16", False, lambda t: {"self": t([6, 7], BF16, kind="positive"), "exponent": t([6, 7], BF16)})
    case("pow.Scalar", "2.0 ** f32", False, lambda t: {"self": 2.0, "exponent": t([6, 7])})
    case("pow.Scalar", "2 ** i64", True, lambda t: {"self": 2, "exponent": t([6, 7], I64).abs() % 20})
    case("pow.Scalar", "1.5 ** i64 -> f32", False, lambda t: {"self": 1.5, "exponent": t([6, 7], I64)})
    # in-place and reversed forms
    for op in ("add_.Tensor", "mul_.Tensor"):
        run("aten." + op, {"self": tensor_maker([5, 6], layout="transposed"), "other": tensor_maker([6])}, "f32 transposed self", True, inplace=True)
        run("aten." + op, {"self": tensor_maker([5, 6], I64), "other": tensor_maker([5, 6], I64)}, "i64", True, inplace=True)
        run("aten." + op, {"self": tensor_maker([5, 6], BF16), "other": 0.1}, "bf16 scalar", True, inplace=True)
    run("aten.add_.Tensor", {"self": tensor_maker([5, 6]), "other": tensor_maker([5, 6]), "alpha": 2}, "f32 alpha 2", True, inplace=True)
    case("rsub.Scalar", "1 - f32", True, lambda t: {"self": t([6, 7], edge=True), "other": 1})
    case("rsub.Scalar", "1 - f32 alpha 2", True, lambda t: {"self": t([6, 7]), "other": 1.0, "alpha": 2})
    case("rsub.Scalar", "i64", True, lambda t: {"self": t([6, 7], I64), "other": 10})
    case("rsub.Tensor", "f32 broadcast", True, lambda t: {"self": t([6, 7]), "other": t([7])})
    case("sub.Scalar", "f32 - 0.5", True, lambda t: {"self": t([6, 7]), "other": 0.5})
    case("sub.Scalar", "i64 - 3 alpha 2", True, lambda t: {"self": t([6, 7], I64), "other": 3, "alpha": 2})
    # copies
    case("copy.default", "f32 <- f64 broadcast", True, lambda t: {"self": t([4, 6], layout="transposed"), "src": t([6], F64)})
    case("copy.default", "bf16 <- f32", True, lambda t: {"self": t([4, 6], BF16), "src": t([4, 6], edge=True)})
    run("aten.copy_.default", {"self": tensor_maker([4, 6], layout="step2"), "src": tensor_maker([4, 6], I64)}, "f32 strided <- i64", True, inplace=True)
    run("aten.copy_.default", {"self": tensor_maker([4, 6], I32), "src": tensor_maker([6], edge=True)}, "i32 <- f32 broadcast", True, inplace=True)
    case("lift_fresh_copy.default", "f32", True, lambda t: {"self": t([4, 6], layout="transposed")})
    case("to.dtype", "f32 -> bf16", True, lambda t: {"self": t([4, 6], edge=True), "dtype": BF16})
    case("to.dtype", "same dtype, copy", True, lambda t: {"self": t([4, 6]), "dtype": F32, "copy": True})
    case("to.dtype_layout", "f32 -> f64", True, lambda t: {"self": t([4, 6], layout="transposed"), "dtype": F64})
    # factories
    run("aten.zero_.default", {"self": tensor_maker([4, 6], layout="step2")}, "f32 strided", True, inplace=True)
    case("full_like.default", "i64 7 from f32", True, lambda t: {"self": t([4, 6]), "fill_value": 7, "dtype": I64})
    run("aten.empty_strided.default", {"size": [3, 4], "stride": [1, 3]}, "transposed strides", True, check_values=False)
    case("new_empty_strided.default", "i64 from f32", True, lambda t: {"self": t([2]), "size": [2, 3], "stride": [3, 1], "dtype": I64}, check_values=False)


def extra_cases2():
    """More ops of the registry's ops.tsv (rounding, remainders, predicates, activations)."""
    for op, ex in (("acos", False), ("expm1", False), ("log1p", False)):
        o = op + ".default"
        case(o, "f32 edge", ex, lambda t: {"self": t([8, 9], edge=True)})
        case(o, "f32 [-1, 1]", ex, lambda t: {"self": t([60], kind="uniform", lo=-1, hi=1)})
        case(o, "f64", ex, lambda t: {"self": t([5, 6], F64, kind="uniform", lo=-1, hi=1)})
        case(o, "bf16", False, lambda t: {"self": t([5, 6], BF16, kind="uniform", lo=-1, hi=1)})
        case(o, "i64 -> f32", ex, lambda t: {"self": t([4, 5], I64)})
    for op in ("floor", "ceil", "trunc", "round"):
        o = op + ".default"
        case(o, "f32 edge", True, lambda t: {"self": t([8, 9], edge=True)})
        case(o, "f32 halves", True, lambda t: {"self": torch.arange(-6, 6.5, 0.5).as_strided([25], [1])})
        case(o, "f64", True, lambda t: {"self": t([5, 6], F64)})
        case(o, "bf16", True, lambda t: {"self": t([5, 6], BF16)})
        case(o, "i64", True, lambda t: {"self": t([5, 6], I64, kind="wide")})
    for op in ("fmod", "remainder"):
        case(op + ".Tensor", "f32", True, lambda t: {"self": t([6, 7], kind="uniform", lo=-9, hi=9), "other": t([6, 7], kind="uniform", lo=-3, hi=3)})
        # (no edge divisors: PyTorch's vector fmod treats a denormal divisor as 0)
        # (no +-3e38 dividends either: PyTorch's vector fmod returns NaN for a huge quotient)
        case(op + ".Tensor", "f32 edge", True, lambda t: {"self": torch.tensor([v for v in EDGE if not (math.isfinite(v) and abs(v) > 1e38)] + [0.7, -2.5, 9.25]).as_strided([5, 5], [5, 1]), "other": t([5, 5])})
        case(op + ".Tensor", "i64", True, lambda t: {"self": t([6, 7], I64), "other": (t([6, 7], I64).abs() % 5 + 1) * torch.tensor([1, -1]).repeat(21).view(6, 7)})
        case(op + ".Scalar", "f32 by 1.5", True, lambda t: {"self": t([6, 7], kind="uniform", lo=-9, hi=9), "other": 1.5})
        case(op + ".Scalar", "f32 by -2", True, lambda t: {"self": t([6, 7], kind="uniform", lo=-9, hi=9), "other": -2})
        case(op + ".Scalar", "i64 by -3", True, lambda t: {"self": t([6, 7], I64), "other": -3})
        case(op + ".Scalar", "i64 by 2.5 -> f32", True, lambda t: {"self": t([6, 7], I64), "other": 2.5})
    case("floor_divide.default", "f32", True, lambda t: {"self": t([6, 7], kind="uniform", lo=-9, hi=9), "other": t([6, 7], kind="uniform", lo=-3, hi=3)})
    case("floor_divide.default", "i64", True, lambda t: {"self": t([6, 7], I64), "other": (t([6, 7], I64).abs() % 5 + 1) * torch.tensor([1, -1]).repeat(21).view(6, 7)})
    for op in ("isnan.default", "isinf.default"):
        case(op, "f32 edge", True, lambda t: {"self": t([6, 7], edge=True)})
        case(op, "bf16 edge", True, lambda t: {"self": t([6, 7], BF16, edge=True)})
        case(op, "i64", True, lambda t: {"self": t([6, 7], I64)})
    for op in ("logical_and.default", "logical_or.default"):
        case(op, "bool", True, lambda t: {"self": t([6, 7], BOOL), "other": t([6, 7], BOOL)})
        case(op, "f32 edge vs i64", True, lambda t: {"self": t([6, 7], edge=True), "other": t([7], I64) % 2})
    case("sgn.default", "f32 edge", True, lambda t: {"self": t([6, 7], edge=True)})
    case("sgn.default", "i64", True, lambda t: {"self": t([6, 7], I64)})
    case("hardtanh.default", "f32 default", True, lambda t: {"self": t([6, 7], edge=True)})
    case("hardtanh.default", "f32 [0, 6]", True, lambda t: {"self": t([6, 7], edge=True), "min_val": 0.0, "max_val": 6.0})
    case("hardtanh.default", "bf16", True, lambda t: {"self": t([6, 7], BF16)})
    # (no NaN in self: PyTorch's vector path gives 0 there, its scalar path grad; we give grad)
    case("hardtanh_backward.default", "f32", True, lambda t: {"grad_output": t([6, 7]), "self": t([6, 7], kind="uniform", lo=-2, hi=2), "min_val": -1.0, "max_val": 1.0})
    case("hardtanh_backward.default", "f32 at the bounds", True, lambda t: {"grad_output": t([4]), "self": torch.tensor([-1.0, 1.0, -0.5, 2.0]).as_strided([4], [1]), "min_val": -1.0, "max_val": 1.0})
    case("leaky_relu.default", "f32 default", True, lambda t: {"self": t([6, 7], edge=True)})
    case("leaky_relu.default", "f32 0.2", True, lambda t: {"self": t([6, 7], edge=True), "negative_slope": 0.2})
    case("leaky_relu.default", "bf16 0.1", True, lambda t: {"self": t([6, 7], BF16), "negative_slope": 0.1})
    case("leaky_relu_backward.default", "f32 0.2", True, lambda t: {"grad_output": t([6, 7]), "self": t([6, 7], edge=True), "negative_slope": 0.2, "self_is_result": False})
    case("elu.default", "f32 default", False, lambda t: {"self": t([6, 7], edge=True)})
    case("elu.default", "f32 alpha 0.5 scale 2 input_scale 3", False, lambda t: {"self": t([6, 7]), "alpha": 0.5, "scale": 2.0, "input_scale": 3.0})
    case("elu.default", "bf16", False, lambda t: {"self": t([6, 7], BF16)})
    case("softplus.default", "f32 default", False, lambda t: {"self": t([6, 7], kind="uniform", lo=-30, hi=30, edge=True)})
    case("softplus.default", "f32 beta 2 threshold 5", False, lambda t: {"self": t([6, 7], kind="uniform", lo=-10, hi=10), "beta": 2.0, "threshold": 5.0})
    case("softplus.default", "f64", False, lambda t: {"self": t([6, 7], F64)})
    for op in ("addcmul.default", "addcdiv.default"):
        # (PyTorch's build fuses value * t1 * t2 + self into fmas: not bit-exact)
        case(op, "f32 value 1", False, lambda t: {"self": t([6, 7]), "tensor1": t([6, 7]), "tensor2": t([6, 7])})
        case(op, "f32 value 0.5 broadcast", False, lambda t: {"self": t([7]), "tensor1": t([6, 7]), "tensor2": t([6, 1]), "value": 0.5})
        case(op, "f64 value -2", False, lambda t: {"self": t([6, 7], F64), "tensor1": t([6, 7], F64), "tensor2": t([6, 7], F64), "value": -2})
        # (a value exact in bf16: PyTorch rounds it to bf16, the f32 reference would not)
        case(op, "bf16", False, lambda t: {"self": t([6, 7], BF16), "tensor1": t([6, 7], BF16), "tensor2": t([6, 7], BF16), "value": 0.25})
    case("addcmul.default", "i64 value 3", True, lambda t: {"self": t([6, 7], I64), "tensor1": t([6, 7], I64), "tensor2": t([6, 7], I64), "value": 3})
    case("lerp.Scalar", "f32 0.3", False, lambda t: {"self": t([6, 7]), "end": t([6, 7]), "weight": 0.3})
    case("lerp.Scalar", "f32 0.7 broadcast", False, lambda t: {"self": t([6, 7]), "end": t([7]), "weight": 0.7})
    case("lerp.Scalar", "f32 0 and 1", True, lambda t: {"self": t([6, 7]), "end": t([6, 7]), "weight": 1.0})
    case("lerp.Tensor", "f32", False, lambda t: {"self": t([6, 7]), "end": t([6, 7]), "weight": t([6, 7], kind="uniform", lo=0, hi=1)})
    case("lerp.Tensor", "bf16", False, lambda t: {"self": t([6, 7], BF16), "end": t([6, 7], BF16), "weight": t([6, 7], BF16, kind="uniform", lo=0, hi=1)})
    case("clamp_min.Tensor", "f32 edge", True, lambda t: {"self": t([6, 7], edge=True), "min": t([7])})
    case("clamp_max.Tensor", "f32 edge", True, lambda t: {"self": t([6, 7], edge=True), "max": t([6, 7])})
    case("clamp_min.Tensor", "i64 vs f32", True, lambda t: {"self": t([6, 7], I64), "min": t([6, 7])})
    run("aten.clamp_.default", {"self": tensor_maker([6, 7], layout="transposed", edge=True), "min": -0.5, "max": 0.5}, "f32 transposed", True, inplace=True)
    run("aten.clamp_.default", {"self": tensor_maker([6, 7], I64), "min": -3}, "i64", True, inplace=True)
    run("aten.div_.Tensor", {"self": tensor_maker([6, 7], layout="step2"), "other": tensor_maker([7])}, "f32 strided", True, inplace=True)
    run("aten.masked_fill_.Scalar", {"self": tensor_maker([6, 7], layout="transposed"), "mask": tensor_maker([7], BOOL), "value": -1.5}, "f32 transposed", True, inplace=True)
    case("masked_fill.Tensor", "f32 value f32 0-dim", True, lambda t: {"self": t([6, 7]), "mask": t([6, 7], BOOL), "value": t([], F32)})
    case("masked_fill.Tensor", "i64 value i64 0-dim", True, lambda t: {"self": t([6, 7], I64), "mask": t([6, 7], BOOL), "value": t([], I64)})
    case("where.Scalar", "floats", True, lambda t: {"condition": t([6, 7], BOOL), "self": 1.5, "other": -2.0})
    case("where.Scalar", "ints", True, lambda t: {"condition": t([6, 7], BOOL), "self": 1, "other": 7})
    case("where.ScalarOther", "f32 vs 0.0", True, lambda t: {"condition": t([6, 7], BOOL), "self": t([6, 7]), "other": 0.0})
    case("where.ScalarOther", "i64 vs 0.5", True, lambda t: {"condition": t([6, 7], BOOL), "self": t([6, 7], I64), "other": 0.5})
    case("where.ScalarSelf", "-inf vs bf16", True, lambda t: {"condition": t([6, 7], BOOL), "self": float("-inf"), "other": t([6, 7], BF16)})
    case("new_ones.default", "f32", True, lambda t: {"self": t([3]), "size": [2, 5]})
    case("new_full.default", "i64 3 from f32", True, lambda t: {"self": t([3]), "size": [2, 5], "fill_value": 3, "dtype": I64})
    case("new_empty.default", "f32", True, lambda t: {"self": t([3]), "size": [4]}, check_values=False)


def extra_cases3():
    """Core ATen ops of issue 14: inverse / hyperbolic trig, log2 / log10, atan2, logical_xor,
    bitwise and / or / xor with numbers, clamp with tensor bounds, div.Scalar_mode, scatter.value.
    Appended last so the earlier cases keep their random inputs."""
    # f32 within allclose (glibc's libm vs PyTorch's Sleef vector math); bf16 / f16 in f32, rounded once
    domains = {"asin": (-1, 1), "acosh": (1, 8), "asinh": (-8, 8), "atan": (-8, 8), "atanh": (-1, 1),
               "cosh": (-9, 9), "sinh": (-9, 9), "tan": (-3, 3), "log10": (0, 9), "log2": (0, 9)}
    for op, (lo, hi) in domains.items():
        o = op + ".default"
        case(o, "f32 edge (out of domain, inf, nan, -0, denormals)", False, lambda t: {"self": t([6, 8], edge=True)})
        case(o, "f32 domain", False, lambda t, lo=lo, hi=hi: {"self": t([64], kind="uniform", lo=lo, hi=hi)})
        case(o, "f32 transposed", False, lambda t, lo=lo, hi=hi: {"self": t([5, 6], layout="transposed", kind="uniform", lo=lo, hi=hi)})
        case(o, "f64 edge", False, lambda t: {"self": t([6, 8], F64, edge=True)})
        case(o, "f64 domain", False, lambda t, lo=lo, hi=hi: {"self": t([40], F64, kind="uniform", lo=lo, hi=hi)})
        case(o, "bf16", False, lambda t, lo=lo, hi=hi: {"self": t([5, 8], BF16, kind="uniform", lo=lo, hi=hi, edge=True)})
        case(o, "f16", False, lambda t, lo=lo, hi=hi: {"self": t([5, 8], F16, kind="uniform", lo=lo, hi=hi, edge=True)}, half_via_f32=True)
        case(o, "i64 -> f32", False, lambda t: {"self": t([4, 5], I64)})
        case(o, "bool -> f32", False, lambda t: {"self": t([4, 5], BOOL)})
    op = "atan2.default"
    case(op, "f32 edge", False, lambda t: {"self": t([6, 8], edge=True), "other": t([6, 8], edge=True)})
    case(op, "f32 signed zeros and infinities", False,
         lambda t: {"self": torch.tensor([0.0, -0.0, 0.0, -0.0, 1.0, -1.0, float("inf"), -float("inf"), float("inf"), 1.0]).as_strided([10], [1]),
                    "other": torch.tensor([0.0, 0.0, -0.0, -0.0, float("inf"), -float("inf"), float("inf"), -float("inf"), 2.0, float("nan")]).as_strided([10], [1])})
    case(op, "f32 broadcast", False, lambda t: {"self": t([5, 6]), "other": t([6])})
    case(op, "f32 transposed", False, lambda t: {"self": t([5, 6], layout="transposed"), "other": t([5, 6])})
    case(op, "f64", False, lambda t: {"self": t([5, 6], F64, edge=True), "other": t([5, 6], F64)})
    case(op, "bf16", False, lambda t: {"self": t([5, 6], BF16), "other": t([5, 6], BF16)})
    case(op, "f16", False, lambda t: {"self": t([5, 6], F16), "other": t([5, 6], F16)}, half_via_f32=True)
    case(op, "i64 -> f32", False, lambda t: {"self": t([5, 6], I64), "other": t([5, 6], I64)})
    case(op, "f32 vs 0-dim f64", False, lambda t: {"self": t([5, 6]), "other": t([], F64)})
    op = "logical_xor.default"
    case(op, "bool", True, lambda t: {"self": t([6, 7], BOOL), "other": t([6, 7], BOOL)})
    case(op, "f32 edge vs i64", True, lambda t: {"self": t([6, 7], edge=True), "other": t([7], I64) % 2})
    case(op, "bf16 transposed vs u8", True, lambda t: {"self": t([6, 7], BF16, layout="transposed"), "other": t([6, 7], U8) % 2})
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        case(name + ".Scalar", "i64 wide & 0x5a", True, lambda t: {"self": t([5, 6], I64, kind="wide"), "other": 0x5A})
        case(name + ".Scalar", "i64 & -7", True, lambda t: {"self": t([5, 6], I64, kind="wide"), "other": -7})
        case(name + ".Scalar", "i32 transposed & 12", True, lambda t: {"self": t([5, 6], I32, kind="wide", layout="transposed"), "other": 12})
        case(name + ".Scalar", "u8 & 300 (wraps)", True, lambda t: {"self": t([5, 6], U8, kind="wide"), "other": 300})
        case(name + ".Scalar", "i8 & 3", True, lambda t: {"self": t([5, 6], I8, kind="wide"), "other": 3})
        case(name + ".Scalar", "bool & True", True, lambda t: {"self": t([5, 6], BOOL), "other": True})
        case(name + ".Scalar", "bool & 6 -> i64", True, lambda t: {"self": t([5, 6], BOOL), "other": 6})
    op = "bitwise_xor.Tensor"
    for dt in (BOOL, I64, I32, I16, I8, U8):
        case(op, TORCH_NAME[dt], True, lambda t, dt=dt: {"self": t([5, 6], dt, kind="wide"), "other": t([5, 6], dt, kind="wide")})
    case(op, "i32 ^ i64 broadcast", True, lambda t: {"self": t([5, 6], I32, kind="wide"), "other": t([6], I64, kind="wide")})
    case(op, "u8 ^ i8 -> i16", True, lambda t: {"self": t([5, 6], U8, kind="wide"), "other": t([5, 6], I8, kind="wide")})
    case(op, "bool ^ i64 transposed", True, lambda t: {"self": t([5, 6], BOOL, layout="transposed"), "other": t([5, 6], I64)})
    case(op, "i64 ^ 0-dim i64", True, lambda t: {"self": t([5, 6], I64), "other": t([], I64)})
    op = "clamp.Tensor"
    case(op, "f32 edge both", True, lambda t: {"self": t([6, 7], edge=True), "min": t([7], kind="uniform", lo=-2, hi=0), "max": t([6, 1], kind="uniform", lo=0, hi=2)})
    case(op, "f32 nan bounds", True, lambda t: {"self": t([6, 7]), "min": t([6, 7], edge=True), "max": t([6, 7], edge=True)})
    case(op, "f32 min > max", True, lambda t: {"self": t([6, 7]), "min": t([7], kind="uniform", lo=1, hi=2), "max": t([7], kind="uniform", lo=-2, hi=-1)})
    case(op, "f32 min only", True, lambda t: {"self": t([6, 7], edge=True), "min": t([7])})
    case(op, "f32 max only", True, lambda t: {"self": t([6, 7], edge=True), "max": t([6, 7], layout="transposed")})
    case(op, "f64", True, lambda t: {"self": t([6, 7], F64), "min": t([6, 7], F64), "max": t([7], F64)})
    case(op, "bf16 vs f32 bounds", True, lambda t: {"self": t([6, 7], BF16), "min": t([7], F32, kind="uniform", lo=-2, hi=0), "max": t([7], F32, kind="uniform", lo=0, hi=2)})
    case(op, "f16", True, lambda t: {"self": t([6, 7], F16), "min": t([7], F16, kind="uniform", lo=-2, hi=0), "max": t([7], F16, kind="uniform", lo=0, hi=2)})
    case(op, "i64", True, lambda t: {"self": t([6, 7], I64), "min": t([7], I64), "max": t([6, 1], I64)})
    case(op, "i32 vs f32 bounds -> f32", True, lambda t: {"self": t([6, 7], I32), "min": t([7]), "max": t([7])})
    case(op, "u8 transposed", True, lambda t: {"self": t([6, 7], U8, kind="wide", layout="transposed"), "min": t([], U8), "max": t([7], U8, kind="wide")})
    op = "div.Scalar_mode"
    for mode in ("trunc", "floor"):
        # (floor: no +-3e38 dividends: PyTorch's vector fmod returns NaN for a huge quotient, its
        # scalar formula (and the runtime) +-inf)
        small_edge = [v for v in EDGE if not (math.isfinite(v) and abs(v) > 1e38)]
        for s in (0.3, -2, 0):
            case(op, "f32 %s by %r" % (mode, s), True,
                 lambda t, mode=mode, s=s: {"self": t([6, 7], edge=True) if mode == "trunc" else torch.tensor(small_edge + [0.7, -2.5]).as_strided([4, 6], [6, 1]),
                                            "other": s, "rounding_mode": mode})
        case(op, "f64 %s by -0.7" % mode, True, lambda t, mode=mode: {"self": t([6, 7], F64, edge=True), "other": -0.7, "rounding_mode": mode})
        # (bf16 / f16: PyTorch rounds the quotient to the 16-bit format before trunc / floor; the
        # runtime divides in f32 and rounds once, which is the reference here: the op on f32
        # copies with a divisor exact in the 16-bit format)
        case(op, "bf16 %s by 0.375" % mode, True, lambda t, mode=mode: {"self": t([6, 7], BF16), "other": 0.375, "rounding_mode": mode}, ref_f32=True)
        case(op, "f16 %s by 3" % mode, True, lambda t, mode=mode: {"self": t([6, 7], F16), "other": 3, "rounding_mode": mode}, ref_f32=True)
        case(op, "i64 %s by -3" % mode, True, lambda t, mode=mode: {"self": t([6, 7], I64, kind="wide"), "other": -3, "rounding_mode": mode})
        case(op, "i32 %s by 2.5 -> f32" % mode, True, lambda t, mode=mode: {"self": t([6, 7], I32), "other": 2.5, "rounding_mode": mode})
        case(op, "u8 transposed %s by 7" % mode, True, lambda t, mode=mode: {"self": t([6, 7], U8, kind="wide", layout="transposed"), "other": 7, "rounding_mode": mode})
    case(op, "f32 None", True, lambda t: {"self": t([6, 7], edge=True), "other": 0.3, "rounding_mode": None})
    case(op, "i64 None -> f32", True, lambda t: {"self": t([6, 7], I64), "other": 4, "rounding_mode": None})
    op = "scatter.value"
    idx = lambda shape, n: torch.randint(0, n, shape, generator=rng).as_strided(shape, contiguous_strides(shape))  # noqa: E731
    case(op, "f32 dim 0 value 2.5", True, lambda t: {"self": t([5, 6]), "dim": 0, "index": idx([3, 6], 5), "value": 2.5})
    case(op, "f32 dim 1 value -inf", True, lambda t: {"self": t([5, 6], layout="transposed"), "dim": 1, "index": idx([5, 4], 6), "value": float("-inf")})
    case(op, "f32 dim -1 smaller index", True, lambda t: {"self": t([4, 5, 6]), "dim": -1, "index": idx([2, 3, 4], 6), "value": 1})
    case(op, "i64 value 7", True, lambda t: {"self": t([5, 6], I64), "dim": 1, "index": idx([5, 6], 6), "value": 7})
    case(op, "bf16 value 0.1", True, lambda t: {"self": t([5, 6], BF16), "dim": 0, "index": idx([5, 6], 5), "value": 0.1})
    case(op, "f16 value 0.5", True, lambda t: {"self": t([5, 6], F16), "dim": 0, "index": idx([2, 6], 5), "value": 0.5})
    case(op, "bool value True", True, lambda t: {"self": t([5, 6], BOOL), "dim": 1, "index": idx([5, 2], 6), "value": True})
    case(op, "f64 empty index", True, lambda t: {"self": t([5, 6], F64), "dim": 0, "index": torch.zeros(0, 6, dtype=I64), "value": 3.0})
    # constant_pad_nd with non-finite fill values (tests/data/kernels/shape.* holds the other
    # padding cases; its JSON has no encoding for inf / nan)
    op = "constant_pad_nd.default"
    case(op, "f32 -inf (attention mask padding)", True, lambda t: {"self": t([2, 3, 4]), "pad": [0, 2, 1, 0], "value": float("-inf")})
    case(op, "bf16 nan, negative pad", True, lambda t: {"self": t([3, 5], BF16), "pad": [-1, 2], "value": float("nan")})
    case(op, "f16 inf", True, lambda t: {"self": t([3, 5], F16), "pad": [1, 1], "value": float("inf")})


def main():
    torch.set_num_threads(1)
    binary_cases()
    inplace_cases()
    generic_inplace_cases()
    unary_cases()
    select_cases()
    copy_cases()
    factory_cases()
    extra_cases()
    extra_cases2()
    extra_cases3()
    os.makedirs(OUT_DIR, exist_ok=True)
    write_safetensors(os.path.join(OUT_DIR, "elementwise.safetensors"), sorted(tensors.items()),
                      metadata={"generator": "tests/runtime/gen_elementwise_refs.py", "torch": torch.__version__},
                      sort_keys=True)
    with open(os.path.join(OUT_DIR, "elementwise.cases.json"), "w") as f:
        json.dump({"torch": torch.__version__, "cases": cases}, f, indent=1, sort_keys=True)
        f.write("\n")
    size = os.path.getsize(os.path.join(OUT_DIR, "elementwise.safetensors"))
    print("%d cases, %d tensors, %d bytes" % (len(cases), len(tensors), size))


if __name__ == "__main__":
    main()

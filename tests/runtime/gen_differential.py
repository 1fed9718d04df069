#!/usr/bin/env python3
"""Differential edge cases: the CPU kernels against PyTorch (1.13, CPU), float64 as the judge.

For every kernel family below, a fixed-seed generator draws a bounded number of cases over
shapes (empty, size-1, odd), layouts (contiguous, transposed, strided slices, expanded
stride-0 views), special values (inf, -inf, nan, -0.0, denormals, 1e30, 3e38, 65504) and
dtypes. Each case is run by PyTorch on the same views, and once more on float64 copies of the
floating inputs: that float64 result is the judge. tests/runtime/test_differential.cpp runs
every case on fxlens and fails a case when

- fxlens raises where PyTorch computes, or computes where PyTorch raises (an input error such
  as an index out of range; "not implemented for 'Half'" is PyTorch's gap, not an input error:
  such cases are judged against float64 alone);
- an output's dtype or sizes differ from PyTorch's;
- an integer or bool output differs from PyTorch's (index outputs may differ on ties only);
- a floating output element is farther from the float64 judge than PyTorch's is, beyond the
  dtype's tolerance (inf and nan count as infinitely far unless the judge, rounded to the
  output dtype, is the same inf or nan);
- the bytes at 1 and 2 threads differ.

Writes tests/data/differential/edge.cases.json and edge.safetensors. Run with Debian's PyTorch:
    /usr/bin/python3 tests/runtime/gen_differential.py
The output is deterministic (fixed seeds). The cases issue 14 listed carry a "listed" note.
"""
import json
import math
import os
import random
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from st_util import TORCH_NAME, write_safetensors  # noqa: E402

OUT_DIR = os.path.join(HERE, "..", "data", "differential")

F32, F64, BF16, F16 = torch.float32, torch.float64, torch.bfloat16, torch.float16
I64, I32, I8, U8, BOOL = torch.int64, torch.int32, torch.int8, torch.uint8, torch.bool
FLOATS = (F32, F64, BF16, F16)
INF, NAN = float("inf"), float("nan")
SPECIAL = [0.0, -0.0, INF, -INF, NAN, 1e-40, -1e-42, 1.4e-45, 1e30, -1e30, 3e38, -3e38, 65504.0, 7e4, 6e-8,
           1.0, -1.0, 0.5, -2.5, 88.7, -88.7, 1e-7]

rng = random.Random(20261127)
trng = torch.Generator().manual_seed(20261127)
tensors = {}
cases = []
counts = {}


def values(n, dtype, kind):
    """n values of dtype: 'normal', 'special' (a mix of SPECIAL and normals), 'big' (|x| ~ 1e20..1e30),
    'positive', 'int' (small ints), 'index' (filled in by the caller)."""
    if dtype == BOOL:
        return torch.rand(n, generator=trng) > 0.5
    if dtype not in FLOATS:
        info = torch.iinfo(dtype)
        lo, hi = max(info.min, -20), min(info.max, 20)
        v = torch.randint(lo, hi + 1, (n,), generator=trng, dtype=torch.int64)
        if kind == "special" and n >= 2:
            v[0], v[-1] = info.max, info.min
        return v.to(dtype)
    if kind in ("near_overflow", "e28", "infnan"):
        return wide_values(n, dtype, kind)
    if kind == "big":
        mag = 10.0 ** (20 + 10 * torch.rand(n, generator=trng, dtype=F64))
        sign = torch.where(torch.rand(n, generator=trng) > 0.5, 1.0, -1.0).to(F64)
        v = mag * sign
    elif kind == "positive":
        v = torch.rand(n, generator=trng, dtype=F64) * 4 + 1e-3
    else:
        v = torch.randn(n, generator=trng, dtype=F64) * 2
    if kind == "special":
        for k in range(n):
            if rng.random() < 0.6:
                v[k] = rng.choice(SPECIAL)
    return v.to(dtype)


def wide_values(n, dtype, kind):
    """The widened kinds (gen_wide): 'near_overflow' (|x| from 1e36 to 3.3e38 of either sign, a
    quarter normal values), 'e28' (|x| near 1e28, mostly positive: sums that pass 3.4e38 part way),
    'infnan' (normal values with about one in five an inf, -inf or nan)."""
    v = torch.randn(n, generator=trng, dtype=F64) * 2
    u = torch.rand(n, generator=trng, dtype=F64)
    if kind == "near_overflow":
        mag = 10.0 ** (36 + 2.5 * torch.rand(n, generator=trng, dtype=F64))
        mag = torch.clamp(mag, max=3.3e38)
        sign = torch.where(torch.rand(n, generator=trng) > 0.5, 1.0, -1.0).to(F64)
        v = torch.where(u < 0.75, mag * sign, v)
    elif kind == "e28":
        sign = torch.where(torch.rand(n, generator=trng) > 0.1, 1.0, -1.0).to(F64)
        v = (1 + torch.rand(n, generator=trng, dtype=F64)) * 1e28 * sign
    else:
        for k in range(n):
            if u[k] < 0.2:
                v[k] = rng.choice([INF, -INF, NAN])
    if dtype in (F16,):
        v = torch.clamp(v, -6e4, 6e4) if kind != "infnan" else v
    return v.to(dtype)


def store(key, t):
    tensors[key] = t.contiguous()
    return key


def make_input(cid, name, sizes, dtype, kind="normal", layout="contiguous", data=None):
    """A view of `sizes` over a stored base, laid out as `layout`; returns (torch view, arg json)."""
    sizes = list(sizes)
    nd = len(sizes)
    if layout == "transposed" and nd >= 2:
        perm = list(range(nd))
        perm[-1], perm[-2] = perm[-2], perm[-1]
        base_sizes = [sizes[p] for p in perm]
        n = math.prod(base_sizes)
        base = (data.reshape(sizes).permute(perm).contiguous().reshape(-1) if data is not None
                else values(n, dtype, kind))
        bstr = torch.empty(base_sizes).stride() if n else [1] * nd
        strides = [0] * nd
        for i, p in enumerate(perm):
            strides[p] = bstr[i] if n else 1
        offset = 0
        view = torch.as_strided(base, sizes, strides, 0) if n else base.reshape(sizes)
        if not n:
            strides = list(view.stride())
    elif layout == "strided" and nd >= 1 and all(s > 0 for s in sizes):
        base_sizes = sizes[:-1] + [2 * sizes[-1] + 1]
        n = math.prod(base_sizes)
        base = values(n, dtype, kind)
        cstr = list(torch.empty(base_sizes).stride())
        strides = cstr[:-1] + [2]
        offset = 1
        if data is not None:
            torch.as_strided(base, sizes, strides, offset).copy_(data.reshape(sizes))
        view = torch.as_strided(base, sizes, strides, offset)
    elif layout == "expanded" and nd >= 1 and sizes[0] > 0:
        base_sizes = [1] + sizes[1:]
        n = math.prod(base_sizes)
        base = values(n, dtype, kind) if data is None else data.reshape(sizes)[0:1].contiguous().reshape(-1)
        strides = [0] + list(torch.empty(base_sizes).stride())[1:]
        offset = 0
        view = torch.as_strided(base, sizes, strides, 0)
    else:
        n = math.prod(sizes)
        base = values(n, dtype, kind) if data is None else data.reshape(-1).clone()
        view = base.reshape(sizes)
        strides = list(view.stride())
        offset = 0
    key = store(f"{cid}/{name}", base.reshape(-1))
    return view, {"tensor": key, "sizes": sizes, "strides": [int(s) for s in strides], "offset": offset}


def to_json(v):
    if isinstance(v, torch.dtype):
        return {"dtype": TORCH_NAME[v]}
    if isinstance(v, (list, tuple)):
        return [to_json(x) for x in v]
    if isinstance(v, float) and not math.isfinite(v):
        return {"float": repr(v)}
    return v


def outputs_of(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


def upcast(x):
    if isinstance(x, torch.Tensor) and x.dtype in FLOATS:
        return x.to(F64)
    if isinstance(x, (list, tuple)):
        return type(x)(upcast(y) for y in x)
    return x


def add_case(family, target, targs, jargs, note="", listed=None, judge=True, ties=None, inplace=None, exact=None):
    """targs: the PyTorch arguments by schema name; jargs: the same for the cases file."""
    n = counts.get(family, 0)
    counts[family] = n + 1
    cid = f"{family}/{n:03d}"
    op = eval("torch.ops." + target)
    case = {"id": cid, "op": target, "args": jargs, "note": note}
    if listed:
        case["listed"] = listed
    if ties:
        case["ties"] = ties
    clones = {k: (v.clone() if isinstance(v, torch.Tensor) and inplace == k else v) for k, v in targs.items()}
    try:
        res = outputs_of(op._op(**clones))
        case["torch_error"] = None
    except Exception as e:  # noqa: BLE001 (PyTorch's verdict is the data)
        msg = str(e).splitlines()[0][:200]
        if "not implemented for" in msg:
            case["torch_error"] = None
            case["torch_gap"] = msg
            res = None
        else:
            case["torch_error"] = msg
            cases.append(case)
            return cid
    outs = []
    if res is not None:
        for k, r in enumerate(res):
            if not isinstance(r, torch.Tensor):
                outs.append(None)
                continue
            outs.append({"key": store(f"{cid}/out{k}", r), "dtype": TORCH_NAME[r.dtype], "sizes": list(r.shape)})
    case["outputs"] = outs
    jud = None
    if judge:
        try:
            jres = exact() if exact else None
            if jres is None:
                jres = outputs_of(op._op(**{k: upcast(v) for k, v in targs.items()}))
            jud = []
            for k, r in enumerate(jres):
                if isinstance(r, torch.Tensor) and r.dtype == F64:
                    jud.append(store(f"{cid}/judge{k}", r))
                else:
                    jud.append(None)
        except Exception:  # noqa: BLE001 (no float64 kernel: judged against PyTorch alone)
            jud = None
    if res is None and (jud is None or all(j is None for j in jud)):
        counts[family] -= 1
        for key in [k for k in tensors if k.startswith(cid + "/")]:
            del tensors[key]
        return None  # neither PyTorch nor a float64 judge: nothing to compare with
    case["judge"] = jud
    if res is None:  # outputs' dtypes and sizes from the judge's shapes (PyTorch lacks the dtype)
        case["outputs"] = None
    cases.append(case)
    return cid


SHAPES = [[], [0], [1], [7], [3, 5], [1, 4], [4, 1], [2, 3, 5], [0, 3], [5, 0], [2, 1, 3]]
LAYOUTS = ["contiguous", "transposed", "strided", "expanded"]
KINDS = ["normal", "special", "special", "big"]


def pick_dtype(dtypes):
    return rng.choice(dtypes)


def unary(target, dtypes=FLOATS, kinds=KINDS, n=18, extra=None):
    fam = target.split(".")[1]
    for _ in range(n):
        sizes, dt, kind, layout = rng.choice(SHAPES), pick_dtype(dtypes), rng.choice(kinds), rng.choice(LAYOUTS)
        cid = f"{fam}/{counts.get(fam, 0):03d}"
        x, jx = make_input(cid, "self", sizes, dt, kind, layout)
        ta, ja = {"self": x}, {"self": jx}
        if extra:
            for k, v in extra().items():
                ta[k], ja[k] = v, to_json(v)
        add_case(fam, target, ta, ja, note=f"{TORCH_NAME[dt]} {sizes} {layout} {kind}")


BCAST = [([3, 5], [3, 5]), ([3, 5], [5]), ([3, 1], [1, 5]), ([], [4]), ([0, 3], [3]), ([2, 3, 4], [3, 1]), ([1], [6]),
         ([7], [7])]


def binary(target, dtypes=FLOATS, mixed=True, kinds=KINDS, n=20, second="other", extra=None):
    fam = target.split(".")[1] + ("_" + target.split(".")[2] if target.split(".")[2] != "default" else "")
    for _ in range(n):
        sa, sb = rng.choice(BCAST)
        if rng.random() < 0.5:
            sa, sb = sb, sa
        da = pick_dtype(dtypes)
        db = pick_dtype(dtypes) if mixed and rng.random() < 0.3 else da
        kind = rng.choice(kinds)
        cid = f"{fam}/{counts.get(fam, 0):03d}"
        a, ja = make_input(cid, "self", sa, da, kind, rng.choice(LAYOUTS))
        b, jb = make_input(cid, second, sb, db, rng.choice(kinds), rng.choice(LAYOUTS))
        ta, jargs = {"self": a, second: b}, {"self": ja, second: jb}
        if extra:
            for k, v in extra().items():
                ta[k], jargs[k] = v, to_json(v)
        add_case(fam, target, ta, jargs, note=f"{TORCH_NAME[da]}{sa} {TORCH_NAME[db]}{sb} {kind}")


def scalar_op(target, scalars, dtypes=FLOATS, n=14, sname="other"):
    fam = target.split(".")[1] + "_" + target.split(".")[2]
    for _ in range(n):
        sizes, dt, kind = rng.choice(SHAPES), pick_dtype(dtypes), rng.choice(KINDS)
        cid = f"{fam}/{counts.get(fam, 0):03d}"
        x, jx = make_input(cid, "self", sizes, dt, kind, rng.choice(LAYOUTS))
        s = rng.choice(scalars)
        add_case(fam, target, {"self": x, sname: s}, {"self": jx, sname: to_json(s)},
                 note=f"{TORCH_NAME[dt]} {sizes} {kind} scalar {s}")


def gen_elementwise():
    for t in ["abs", "neg", "exp", "log", "log1p", "expm1", "sin", "cos", "tanh", "sigmoid", "sqrt", "rsqrt",
              "reciprocal", "erf", "relu", "silu", "ceil", "floor", "round", "trunc", "sign", "sgn", "acos"]:
        unary(f"aten.{t}.default")
    unary("aten.gelu.default", extra=lambda: {"approximate": rng.choice(["none", "tanh"])})
    for t in ["isinf", "isnan"]:
        unary(f"aten.{t}.default", n=8)
    unary("aten.abs.default", dtypes=(I64, I32, I8), n=6)
    unary("aten.neg.default", dtypes=(I64, I32), n=6)
    unary("aten.logical_not.default", dtypes=(BOOL, F32, I64), n=8)
    unary("aten.bitwise_not.default", dtypes=(BOOL, I64, I32, U8), n=8)
    unary("aten.clamp.default", n=16, extra=lambda: rng.choice(
        [{"min": -1.0, "max": 1.0}, {"min": 0.5}, {"max": -0.5}, {"min": 2.0, "max": 1.0}, {"min": NAN}]))
    unary("aten.leaky_relu.default", n=8, extra=lambda: {"negative_slope": rng.choice([0.01, 0.2])})
    unary("aten.hardtanh.default", n=8)
    unary("aten.elu.default", n=8)
    unary("aten.softplus.default", n=8, extra=lambda: {"beta": rng.choice([1.0, 2.0]), "threshold": 20.0})
    for t in ["add.Tensor", "sub.Tensor", "mul.Tensor", "div.Tensor", "maximum.default", "minimum.default",
              "fmod.Tensor", "remainder.Tensor"]:
        binary(f"aten.{t}")
    binary("aten.pow.Tensor_Tensor", second="exponent")
    binary("aten.add.Tensor", dtypes=(I64, I32, I8, U8), n=8)
    binary("aten.mul.Tensor", dtypes=(I64, I32, BOOL), n=8)
    binary("aten.div.Tensor_mode", dtypes=(F32, F64, BF16, I64), n=16,
           extra=lambda: {"rounding_mode": rng.choice(["trunc", "floor"])})
    for t in ["eq", "ne", "lt", "le", "gt", "ge"]:
        binary(f"aten.{t}.Tensor", dtypes=(F32, F64, BF16, F16, I64), n=10)
    for t in ["logical_and", "logical_or"]:
        binary(f"aten.{t}.default", dtypes=(BOOL, F32, I64), n=8)
    for t in ["bitwise_and", "bitwise_or"]:
        binary(f"aten.{t}.Tensor", dtypes=(BOOL, I64, I32, U8), n=8, mixed=False)
    scalar_op("aten.add.Scalar", [1.5, -2, 1e30, INF])
    scalar_op("aten.mul.Scalar", [0.5, -3, 1e30, 0.0])
    scalar_op("aten.div.Scalar", [3.0, -0.0, 0.0, 7])
    scalar_op("aten.pow.Tensor_Scalar", [2, 3, 0.5, -1, 0, -2.5], sname="exponent")
    scalar_op("aten.eq.Scalar", [0.0, 1.0, NAN, INF], dtypes=(F32, BF16, I64), n=8)
    scalar_op("aten.lt.Scalar", [0.0, -1, INF], dtypes=(F32, F16, I32), n=8)
    scalar_op("aten.rsub.Scalar", [1.0, -2], n=8)
    scalar_op("aten.fill.Scalar", [0.0, -1, 3.5, NAN, True], dtypes=FLOATS + (I64, BOOL), n=10, sname="value")
    # where / masked_fill / fill_
    for _ in range(14):
        sizes = rng.choice([[3, 5], [7], [], [0, 3], [2, 1, 3]])
        dt = pick_dtype(FLOATS + (I64,))
        cid = f"where_self/{counts.get('where_self', 0):03d}"
        c, jc = make_input(cid, "condition", sizes, BOOL, "normal", rng.choice(LAYOUTS))
        a, ja = make_input(cid, "self", sizes, dt, "special", rng.choice(LAYOUTS))
        b, jb = make_input(cid, "other", sizes[-1:] if sizes else [], dt, "normal", "contiguous")
        add_case("where_self", "aten.where.self", {"condition": c, "self": a, "other": b},
                 {"condition": jc, "self": ja, "other": jb}, note=f"{TORCH_NAME[dt]} {sizes}")
    for k in range(14):
        sizes = rng.choice([[3, 5], [7], [], [0, 3], [2, 1, 3]])
        dt = pick_dtype(FLOATS + (I64, BOOL))
        mdt = [BOOL, BOOL, U8, I64][k % 4]
        cid = f"masked_fill/{counts.get('masked_fill', 0):03d}"
        a, ja = make_input(cid, "self", sizes, dt, "special", rng.choice(LAYOUTS))
        m, jm = make_input(cid, "mask", sizes, mdt, "normal", "contiguous",
                           data=None if mdt == BOOL else torch.randint(0, 2, sizes or [], generator=trng).to(mdt))
        v = rng.choice([0.0, -1e30, NAN, 2])
        add_case("masked_fill", "aten.masked_fill.Scalar", {"self": a, "mask": m, "value": v},
                 {"self": ja, "mask": jm, "value": to_json(v)}, note=f"{TORCH_NAME[dt]} {sizes} mask {TORCH_NAME[mdt]}",
                 listed="masked_fill with an integer mask is accepted, as PyTorch accepts it" if mdt != BOOL else None)
    for k, (dt, v) in enumerate([(BOOL, -1), (BOOL, 2.5), (BOOL, 0), (I8, -1), (U8, 3), (F16, 1e5), (BF16, NAN)]):
        cid = f"fill_/{counts.get('fill_', 0):03d}"
        a, ja = make_input(cid, "self", [2, 3], dt, "normal", "contiguous")
        add_case("fill_", "aten.fill_.Scalar", {"self": a, "value": v}, {"self": ja, "value": to_json(v)},
                 note=f"{TORCH_NAME[dt]} fill {v}", inplace="self",
                 listed="fill_ of a bool tensor with -1 is accepted (True), as in PyTorch" if (dt, v) == (BOOL, -1)
                 else None)


def gen_reductions():
    shapes = [[3, 5], [7], [2, 3, 4], [0, 3], [4, 0], [1, 1], [5, 17]]
    for _ in range(18):
        sizes = rng.choice(shapes)
        dt, kind = pick_dtype(FLOATS), rng.choice(KINDS)
        cid = f"sum/{counts.get('sum', 0):03d}"
        x, jx = make_input(cid, "self", sizes, dt, kind, rng.choice(LAYOUTS))
        dim = [rng.randrange(len(sizes))] if rng.random() < 0.8 else []
        kd = rng.random() < 0.5
        add_case("sum", "aten.sum.dim_IntList", {"self": x, "dim": dim, "keepdim": kd},
                 {"self": jx, "dim": dim, "keepdim": kd}, note=f"{TORCH_NAME[dt]} {sizes} dim {dim} {kind}")
    for _ in range(14):
        sizes = rng.choice(shapes)
        dt, kind = pick_dtype(FLOATS), rng.choice(KINDS)
        cid = f"mean/{counts.get('mean', 0):03d}"
        x, jx = make_input(cid, "self", sizes, dt, kind, rng.choice(LAYOUTS))
        dim = [rng.randrange(len(sizes))]
        add_case("mean", "aten.mean.dim", {"self": x, "dim": dim, "keepdim": True},
                 {"self": jx, "dim": dim, "keepdim": True}, note=f"{TORCH_NAME[dt]} {sizes} dim {dim} {kind}")
    for _ in range(12):
        sizes = rng.choice([s for s in shapes if 0 not in s])
        dt, kind = pick_dtype(FLOATS), rng.choice(KINDS)
        cid = f"amax/{counts.get('amax', 0):03d}"
        x, jx = make_input(cid, "self", sizes, dt, kind, rng.choice(LAYOUTS))
        dim = [rng.randrange(len(sizes))]
        add_case("amax", "aten.amax.default", {"self": x, "dim": dim}, {"self": jx, "dim": dim},
                 note=f"{TORCH_NAME[dt]} {sizes} {kind}")
    for _ in range(12):
        sizes = rng.choice([s for s in shapes if 0 not in s])
        dt, kind = pick_dtype(FLOATS), rng.choice(["normal", "special"])
        cid = f"max_dim/{counts.get('max_dim', 0):03d}"
        x, jx = make_input(cid, "self", sizes, dt, kind, rng.choice(LAYOUTS))
        d = rng.randrange(len(sizes))
        add_case("max_dim", "aten.max.dim", {"self": x, "dim": d}, {"self": jx, "dim": d},
                 note=f"{TORCH_NAME[dt]} {sizes} {kind}", ties={"self": "self", "dim": d, "output": 1})
    for _ in range(12):
        sizes = rng.choice([s for s in shapes if 0 not in s])
        dt, kind = pick_dtype(FLOATS), rng.choice(KINDS)
        cid = f"var_mean/{counts.get('var_mean', 0):03d}"
        x, jx = make_input(cid, "self", sizes, dt, kind, rng.choice(LAYOUTS))
        dim = [rng.randrange(len(sizes))]
        corr = rng.choice([0, 1])
        add_case("var_mean", "aten.var_mean.correction", {"self": x, "dim": dim, "correction": corr, "keepdim": True},
                 {"self": jx, "dim": dim, "correction": corr, "keepdim": True},
                 note=f"{TORCH_NAME[dt]} {sizes} {kind}")
    for t in ["_softmax", "_log_softmax"]:
        for _ in range(14):
            sizes = rng.choice([s for s in shapes if s])
            dt, kind = pick_dtype((F32, F64)), rng.choice(KINDS)
            cid = f"{t}/{counts.get(t, 0):03d}"
            x, jx = make_input(cid, "self", sizes, dt, kind, rng.choice(LAYOUTS))
            d = rng.randrange(len(sizes))
            add_case(t, f"aten.{t}.default", {"self": x, "dim": d, "half_to_float": False},
                     {"self": jx, "dim": d, "half_to_float": False}, note=f"{TORCH_NAME[dt]} {sizes} {kind}")
    for _ in range(10):
        sizes = rng.choice([s for s in shapes if s])
        dt, kind = pick_dtype(FLOATS), rng.choice(KINDS)
        cid = f"cumsum/{counts.get('cumsum', 0):03d}"
        x, jx = make_input(cid, "self", sizes, dt, kind, rng.choice(LAYOUTS))
        d = rng.randrange(len(sizes))
        add_case("cumsum", "aten.cumsum.default", {"self": x, "dim": d}, {"self": jx, "dim": d},
                 note=f"{TORCH_NAME[dt]} {sizes} {kind}")


def gen_matmul():
    listed_done = False
    for k in range(26):
        m, kk, n = rng.choice([(1, 2, 1), (4, 5, 6), (3, 1, 2), (2, 0, 3), (0, 3, 2), (5, 9, 7), (1, 33, 17)])
        dt = pick_dtype(FLOATS)
        kind = rng.choice(["normal", "special", "big", "big"])
        cid = f"mm/{counts.get('mm', 0):03d}"
        if not listed_done:
            a, ja = make_input(cid, "self", [1, 2], F32, data=torch.tensor([1e30, 1e30]))
            b, jb = make_input(cid, "mat2", [2, 1], F32, data=torch.tensor([-1e30, 1e30]))
            add_case("mm", "aten.mm.default", {"self": a, "mat2": b}, {"self": ja, "mat2": jb},
                     note="products overflow to -inf and +inf",
                     listed="mm whose products overflow float: the exact 0 of float64, not -inf (PyTorch: nan)")
            listed_done = True
            continue
        a, ja = make_input(cid, "self", [m, kk], dt, kind, rng.choice(LAYOUTS[:3]))
        b, jb = make_input(cid, "mat2", [kk, n], dt, kind, rng.choice(LAYOUTS[:3]))
        add_case("mm", "aten.mm.default", {"self": a, "mat2": b}, {"self": ja, "mat2": jb},
                 note=f"{TORCH_NAME[dt]} {m}x{kk} @ {kk}x{n} {kind}")
    for _ in range(14):
        bb, m, kk, n = rng.choice([(2, 4, 5, 6), (1, 1, 2, 1), (3, 2, 0, 2), (0, 2, 2, 2), (2, 3, 7, 5)])
        dt, kind = pick_dtype(FLOATS), rng.choice(["normal", "special", "big"])
        cid = f"bmm/{counts.get('bmm', 0):03d}"
        a, ja = make_input(cid, "self", [bb, m, kk], dt, kind, rng.choice(LAYOUTS))
        b, jb = make_input(cid, "mat2", [bb, kk, n], dt, kind, rng.choice(LAYOUTS[:3]))
        add_case("bmm", "aten.bmm.default", {"self": a, "mat2": b}, {"self": ja, "mat2": jb},
                 note=f"{TORCH_NAME[dt]} {bb}x{m}x{kk} @ {kk}x{n} {kind}")
    for _ in range(16):
        m, kk, n = rng.choice([(4, 5, 6), (1, 2, 1), (3, 0, 2), (2, 7, 3)])
        dt, kind = pick_dtype(FLOATS), rng.choice(["normal", "special", "big"])
        cid = f"addmm/{counts.get('addmm', 0):03d}"
        bias, jbias = make_input(cid, "self", rng.choice([[n], [m, n], [1, n]]), dt, rng.choice(KINDS))
        a, ja = make_input(cid, "mat1", [m, kk], dt, kind, rng.choice(LAYOUTS[:3]))
        b, jb = make_input(cid, "mat2", [kk, n], dt, kind, rng.choice(LAYOUTS[:3]))
        beta, alpha = rng.choice([(1, 1), (0, 1), (0.5, 2), (1, 0)])
        add_case("addmm", "aten.addmm.default", {"self": bias, "mat1": a, "mat2": b, "beta": beta, "alpha": alpha},
                 {"self": jbias, "mat1": ja, "mat2": jb, "beta": beta, "alpha": alpha},
                 note=f"{TORCH_NAME[dt]} {m}x{kk}x{n} {kind} beta {beta} alpha {alpha}")


def layer_norm_case(x, jx, cid, normalized, dt, note, listed=None, affine=True):
    w = b = jw = jb = None
    if affine:
        w, jw = make_input(cid, "weight", normalized, dt)
        b, jb = make_input(cid, "bias", normalized, dt)
    add_case("layer_norm", "aten.native_layer_norm.default",
             {"input": x, "normalized_shape": normalized, "weight": w, "bias": b, "eps": 1e-5},
             {"input": jx, "normalized_shape": normalized, "weight": jw, "bias": jb, "eps": 1e-5}, note=note,
             listed=listed)


def layer_norm_backward_args(cid, sizes, dt, xv, gv):
    """native_layer_norm_backward's arguments (PyTorch's, the cases file's) for input xv and
    gradient gv: mean and rstd computed in float64 from xv, random weight and bias."""
    x, jx = make_input(cid, "input", sizes, dt, data=xv)
    g, jg = make_input(cid, "grad_out", sizes, dt, data=gv, layout=rng.choice(LAYOUTS[:3]))
    xf = xv.to(F64)
    mean = xf.mean(-1, keepdim=True)
    rstd = 1.0 / torch.sqrt(xf.var(-1, unbiased=False, keepdim=True) + 1e-5)
    m, jm = make_input(cid, "mean", list(mean.shape), dt, data=mean.to(dt))
    r, jr = make_input(cid, "rstd", list(rstd.shape), dt, data=rstd.to(dt))
    w, jw = make_input(cid, "weight", sizes[-1:], dt)
    b, jb = make_input(cid, "bias", sizes[-1:], dt)
    mask = [True, True, True]
    ta = {"grad_out": g, "input": x, "normalized_shape": sizes[-1:], "mean": m, "rstd": r, "weight": w, "bias": b,
          "output_mask": mask}
    ja = {"grad_out": jg, "input": jx, "normalized_shape": sizes[-1:], "mean": jm, "rstd": jr, "weight": jw, "bias": jb,
          "output_mask": mask}
    return ta, ja


def gen_norm():
    cid = f"layer_norm/{counts.get('layer_norm', 0):03d}"
    x, jx = make_input(cid, "input", [1, 3], F32, data=torch.tensor([3e38, 3e38, 0.0]))
    layer_norm_case(x, jx, cid, [3], F32, "mean of [3e38, 3e38, 0]", affine=False,
                    listed="native_layer_norm: the mean of [3e38, 3e38, 0] is 2e38 (no overflow)")
    cid = f"layer_norm/{counts.get('layer_norm', 0):03d}"
    x, jx = make_input(cid, "input", [2, 0], F32)
    layer_norm_case(x, jx, cid, [0], F32, "empty normalized shape", affine=False,
                    listed="native_layer_norm over an empty normalized shape: mean 0")
    for _ in range(16):
        sizes = rng.choice([[3, 5], [2, 3, 4], [1, 7], [4, 1], [2, 33]])
        dt, kind = pick_dtype(FLOATS), rng.choice(KINDS)
        cid = f"layer_norm/{counts.get('layer_norm', 0):03d}"
        x, jx = make_input(cid, "input", sizes, dt, kind, rng.choice(LAYOUTS))
        layer_norm_case(x, jx, cid, sizes[-1:], dt, f"{TORCH_NAME[dt]} {sizes} {kind}", affine=rng.random() < 0.7)
    # backward: grads with specials, the listed +-inf row first
    for k in range(12):
        sizes = [2, 3] if k == 0 else rng.choice([[3, 5], [2, 3, 4], [1, 7], [4, 1]])
        dt = F32 if k == 0 else pick_dtype((F32, F64))
        cid = f"layer_norm_backward/{counts.get('layer_norm_backward', 0):03d}"
        xv = torch.randn(sizes, generator=trng, dtype=F64).to(dt)
        gv = (torch.tensor([[INF, -INF, 1.0], [0.5, -1.0, 2.0]], dtype=dt) if k == 0
              else values(math.prod(sizes), dt, rng.choice(KINDS)).reshape(sizes))
        ta, ja = layer_norm_backward_args(cid, sizes, dt, xv, gv)
        g, x, m, r, w = (ta[k] for k in ("grad_out", "input", "mean", "rstd", "weight"))

        def exact_grads(g=g, x=x, m=m, r=r, w=w):
            """The exact gradients of the given (finite) inputs, in rationals, rounded once to float64:
            PyTorch's float64 cancels badly where the exact answer is small (N = 1 gives 0)."""
            from fractions import Fraction as Fr
            vals = [t.to(F64).reshape(-1).tolist() for t in (g, x, m, r, w)]
            if not all(math.isfinite(v) for vs in vals for v in vs):
                return None
            gl, xl, ml, rl, wl = vals
            n = len(wl)
            rows = len(gl) // n
            dx, dw, db = [], [Fr(0)] * n, [Fr(0)] * n
            for i in range(rows):
                mu, rs = Fr(ml[i]), Fr(rl[i])
                gw = [Fr(gl[i * n + j]) * Fr(wl[j]) for j in range(n)]
                xh = [(Fr(xl[i * n + j]) - mu) * rs for j in range(n)]
                sg, sgx = sum(gw), sum(a * b for a, b in zip(gw, xh))
                dx += [rs / n * ((n * gw[j] - sg) - xh[j] * sgx) for j in range(n)]
                for j in range(n):
                    dw[j] += Fr(gl[i * n + j]) * xh[j]
                    db[j] += Fr(gl[i * n + j])
            t = lambda v, shape: torch.tensor([float(a) for a in v], dtype=F64).reshape(shape)  # noqa: E731
            return [t(dx, sizes), t(dw, sizes[-1:]), t(db, sizes[-1:])]
        add_case("layer_norm_backward", "aten.native_layer_norm_backward.default", ta, ja,
                 note=f"{TORCH_NAME[dt]} {sizes}",
                 listed="native_layer_norm_backward: a gradient row with -inf and +inf gives nan" if k == 0 else None,
                 exact=exact_grads)


def index_tensor(cid, name, sizes, hi, lo=0, data=None):
    d = data if data is not None else torch.randint(lo, max(hi, lo + 1), sizes, generator=trng)
    return make_input(cid, name, sizes, I64, data=d)


def gen_indexing():
    # index_select, the listed empty case first
    cid = f"index_select/{counts.get('index_select', 0):03d}"
    x, jx = make_input(cid, "self", [0, 3], F32)
    i, ji = index_tensor(cid, "index", [1], 0, data=torch.tensor([5]))
    add_case("index_select", "aten.index_select.default", {"self": x, "dim": 0, "index": i},
             {"self": jx, "dim": 0, "index": ji}, note="empty self, index 5",
             listed="index_select on an empty tensor rejects an out-of-range index")
    for k in range(14):
        sizes = rng.choice([[5, 3], [7], [2, 3, 4], [4, 0]])
        d = rng.randrange(len(sizes))
        dt = pick_dtype(FLOATS + (I64, BOOL))
        cid = f"index_select/{counts.get('index_select', 0):03d}"
        x, jx = make_input(cid, "self", sizes, dt, "special", rng.choice(LAYOUTS))
        bad = k % 5 == 4
        n = sizes[d]
        idx = torch.randint(-n if n and not bad else 0, max(n, 1), [rng.choice([0, 1, 4])], generator=trng)
        if bad:
            idx = torch.tensor([n + 2])
        i, ji = index_tensor(cid, "index", list(idx.shape), 0, data=idx)
        add_case("index_select", "aten.index_select.default", {"self": x, "dim": d, "index": i},
                 {"self": jx, "dim": d, "index": ji}, note=f"{TORCH_NAME[dt]} {sizes} dim {d} index {idx.tolist()}")
    for k in range(12):
        sizes = rng.choice([[5, 3], [2, 3, 4], [6]])
        d = rng.randrange(len(sizes))
        dt = pick_dtype(FLOATS)
        cid = f"gather/{counts.get('gather', 0):03d}"
        x, jx = make_input(cid, "self", sizes, dt, "special", rng.choice(LAYOUTS))
        isz = list(sizes)
        isz[d] = rng.choice([1, 2, sizes[d]])
        hi = sizes[d] + (3 if k % 6 == 5 else 0)
        i, ji = index_tensor(cid, "index", isz, hi)
        add_case("gather", "aten.gather.default", {"self": x, "dim": d, "index": i},
                 {"self": jx, "dim": d, "index": ji}, note=f"{TORCH_NAME[dt]} {sizes} dim {d}")
    for k in range(10):
        nrow, dim = rng.choice([(6, 3), (1, 4), (10, 1)])
        dt = pick_dtype(FLOATS)
        cid = f"embedding/{counts.get('embedding', 0):03d}"
        w, jw = make_input(cid, "weight", [nrow, dim], dt, "special")
        hi = nrow + (2 if k % 5 == 4 else 0)
        i, ji = index_tensor(cid, "indices", rng.choice([[4], [2, 3], [0]]), hi)
        add_case("embedding", "aten.embedding.default", {"weight": w, "indices": i}, {"weight": jw, "indices": ji},
                 note=f"{TORCH_NAME[dt]} {nrow}x{dim}")
    # topk: the listed 0-dim cases first
    for k, (sizes, kk) in enumerate([([], 0), ([], 1), ([7], 3), ([3, 5], 2), ([4], 4), ([5, 0], 0), ([6], 0),
                                     ([2, 9], 5), ([8], 8), ([3, 4], 1)]):
        dt = F32 if k < 2 else pick_dtype(FLOATS + (I64,))
        cid = f"topk/{counts.get('topk', 0):03d}"
        x, jx = make_input(cid, "self", sizes, dt, "special" if k >= 4 else "normal", rng.choice(LAYOUTS[:3]))
        largest = rng.random() < 0.6
        add_case("topk", "aten.topk.default", {"self": x, "k": kk, "dim": -1, "largest": largest, "sorted": True},
                 {"self": jx, "k": kk, "dim": -1, "largest": largest, "sorted": True},
                 note=f"{TORCH_NAME[dt]} {sizes} k {kk}", ties={"self": "self", "dim": -1, "output": 1},
                 listed="topk of a 0-dim tensor with k=0 (PyTorch returns the element)" if k == 0 else None)
    for _ in range(10):
        sizes = rng.choice([[7], [3, 5], [2, 1, 4], [0], []])
        dt = pick_dtype(FLOATS + (I64,))
        cid = f"sort/{counts.get('sort', 0):03d}"
        x, jx = make_input(cid, "self", sizes, dt, "special", rng.choice(LAYOUTS[:3]))
        desc = rng.random() < 0.5
        add_case("sort", "aten.sort.stable", {"self": x, "stable": True, "dim": -1, "descending": desc},
                 {"self": jx, "stable": True, "dim": -1, "descending": desc}, note=f"{TORCH_NAME[dt]} {sizes}")
    for _ in range(10):
        parts = rng.choice([[[2, 3], [1, 3]], [[0, 3], [2, 3]], [[4], [0], [3]], [[2, 0], [2, 0]], [[3, 2], [3, 2]]])
        dt = pick_dtype(FLOATS + (I64,))
        cid = f"cat/{counts.get('cat', 0):03d}"
        ts, js = [], []
        for p, sz in enumerate(parts):
            t, j = make_input(cid, f"t{p}", sz, dt, "special", rng.choice(LAYOUTS))
            ts.append(t)
            js.append(j)
        add_case("cat", "aten.cat.default", {"tensors": ts, "dim": 0}, {"tensors": js, "dim": 0},
                 note=f"{TORCH_NAME[dt]} {parts}")


def with_grad(target, second, dtypes=FLOATS, n=12, extra=None, out_positive=False):
    """Backward ops of activations: (grad_output, second) of one shape."""
    fam = target.split(".")[1]
    for _ in range(n):
        sizes, dt = rng.choice([[3, 5], [7], [2, 3, 4], [0, 3], []]), pick_dtype(dtypes)
        cid = f"{fam}/{counts.get(fam, 0):03d}"
        g, jg = make_input(cid, "grad_output", sizes, dt, rng.choice(KINDS), rng.choice(LAYOUTS))
        x, jx = make_input(cid, second, sizes, dt, "positive" if out_positive else rng.choice(KINDS),
                           rng.choice(LAYOUTS))
        ta, ja = {"grad_output": g, second: x}, {"grad_output": jg, second: jx}
        if extra:
            for k, v in extra().items():
                ta[k], ja[k] = v, to_json(v)
        add_case(fam, target, ta, ja, note=f"{TORCH_NAME[dt]} {sizes}")


def gen_more():
    with_grad("aten.gelu_backward.default", "self", extra=lambda: {"approximate": rng.choice(["none", "tanh"])})
    with_grad("aten.sigmoid_backward.default", "output", out_positive=True)
    with_grad("aten.tanh_backward.default", "output")
    with_grad("aten.silu_backward.default", "self")
    with_grad("aten.threshold_backward.default", "self", extra=lambda: {"threshold": rng.choice([0.0, 0.5])})
    with_grad("aten.hardtanh_backward.default", "self", extra=lambda: {"min_val": -1.0, "max_val": 1.0})
    with_grad("aten.leaky_relu_backward.default", "self",
              extra=lambda: {"negative_slope": 0.01, "self_is_result": False})
    binary("aten.floor_divide.default", dtypes=(F32, F64, I64, I32), n=12)
    binary("aten.rsub.Tensor", n=10)
    binary("aten.clamp_min.Tensor", second="min", n=8)
    binary("aten.clamp_max.Tensor", second="max", n=8)
    scalar_op("aten.clamp_min.default", [0.0, -1.0, NAN], sname="min", n=8)
    scalar_op("aten.clamp_max.default", [0.0, 1.0, INF], sname="max", n=8)
    scalar_op("aten.remainder.Scalar", [2.0, -1.5, 3], dtypes=(F32, F64, I64), n=10)
    scalar_op("aten.fmod.Scalar", [2.0, -1.5, 3], dtypes=(F32, F64, I64), n=10)
    scalar_op("aten.sub.Scalar", [1.5, -2, 1e30], n=8)
    scalar_op("aten.gt.Scalar", [0.0, NAN, -INF], dtypes=(F32, F64, I64, BOOL), n=8)
    scalar_op("aten.ne.Scalar", [0.0, NAN, 1], dtypes=(F32, BF16, I64), n=8)
    # the Core ATen additions of issue 14
    for t in ["asin", "acosh", "asinh", "atan", "atanh", "cosh", "sinh", "tan", "log10", "log2"]:
        unary(f"aten.{t}.default", n=10)
    binary("aten.atan2.default", n=12)
    binary("aten.logical_xor.default", dtypes=(BOOL, F32, I64), n=8)
    binary("aten.clamp.Tensor", second="min", n=8)
    for t, sname in [("amin", None), ("prod", None)]:
        for _ in range(8):
            sizes = rng.choice([[3, 5], [7], [2, 3, 4], [1, 1]])
            dt = pick_dtype(FLOATS)
            cid = f"{t}/{counts.get(t, 0):03d}"
            x, jx = make_input(cid, "self", sizes, dt, rng.choice(["normal", "special"]), rng.choice(LAYOUTS))
            d = rng.randrange(len(sizes))
            if t == "amin":
                add_case(t, "aten.amin.default", {"self": x, "dim": [d]}, {"self": jx, "dim": [d]},
                         note=f"{TORCH_NAME[dt]} {sizes}")
            else:
                add_case(t, "aten.prod.dim_int", {"self": x, "dim": d}, {"self": jx, "dim": d},
                         note=f"{TORCH_NAME[dt]} {sizes}")
    for _ in range(8):
        sizes = rng.choice([[3, 5], [2, 3, 4], [7]])
        dt = pick_dtype(FLOATS + (I64,))
        cid = f"constant_pad_nd/{counts.get('constant_pad_nd', 0):03d}"
        x, jx = make_input(cid, "self", sizes, dt, "special", rng.choice(LAYOUTS))
        pad = [rng.choice([-1, 0, 1, 2]) for _ in range(2 * rng.randint(1, len(sizes)))]
        v = rng.choice([0.0, -1.5, 3])
        add_case("constant_pad_nd", "aten.constant_pad_nd.default", {"self": x, "pad": pad, "value": v},
                 {"self": jx, "pad": pad, "value": v}, note=f"{TORCH_NAME[dt]} {sizes} pad {pad}")
    for k in range(10):
        sizes = rng.choice([[3, 5], [7], [2, 3, 4], [0, 3]])
        dt = pick_dtype(FLOATS + (I64, BOOL))
        cid = f"masked_scatter/{counts.get('masked_scatter', 0):03d}"
        x, jx = make_input(cid, "self", sizes, dt, "special", rng.choice(LAYOUTS))
        msizes = sizes if k % 3 else sizes[-1:]
        m, jm = make_input(cid, "mask", msizes, BOOL, "normal", rng.choice(LAYOUTS[:3]))
        n = math.prod(sizes) + (0 if k % 4 else 3)
        if k == 9:
            n = 0  # fewer source elements than true mask elements: an error in PyTorch
        src, jsrc = make_input(cid, "source", [n], dt, "special")
        add_case("masked_scatter", "aten.masked_scatter.default", {"self": x, "mask": m, "source": src},
                 {"self": jx, "mask": jm, "source": jsrc}, note=f"{TORCH_NAME[dt]} {sizes} mask {msizes} source {n}")
    for t in ["addcmul", "addcdiv"]:
        for _ in range(10):
            dt, sizes = pick_dtype(FLOATS), rng.choice([[3, 5], [7], [2, 1, 3]])
            cid = f"{t}/{counts.get(t, 0):03d}"
            a, ja = make_input(cid, "self", sizes, dt, rng.choice(KINDS), rng.choice(LAYOUTS))
            b, jb = make_input(cid, "tensor1", sizes, dt, rng.choice(KINDS))
            c, jc = make_input(cid, "tensor2", sizes[-1:], dt, rng.choice(KINDS))
            v = rng.choice([1, 0.5, -2.0])
            add_case(t, f"aten.{t}.default", {"self": a, "tensor1": b, "tensor2": c, "value": v},
                     {"self": ja, "tensor1": jb, "tensor2": jc, "value": v}, note=f"{TORCH_NAME[dt]} {sizes}")
    for _ in range(10):
        dt, sizes = pick_dtype(FLOATS), rng.choice([[3, 5], [7], [2, 1, 3]])
        cid = f"lerp/{counts.get('lerp', 0):03d}"
        a, ja = make_input(cid, "self", sizes, dt, rng.choice(KINDS), rng.choice(LAYOUTS))
        b, jb = make_input(cid, "end", sizes, dt, rng.choice(KINDS))
        w = rng.choice([0.0, 0.25, 0.75, 1.0, -0.5])
        add_case("lerp", "aten.lerp.Scalar", {"self": a, "end": b, "weight": w}, {"self": ja, "end": jb, "weight": w},
                 note=f"{TORCH_NAME[dt]} {sizes} weight {w}")
    # dtype conversions: floats (specials) to floats, finite in-range values to integers and bool
    for k in range(24):
        src = pick_dtype(FLOATS + (I64, I32, BOOL))
        dst = pick_dtype(FLOATS + (I64, I32, I8, U8, BOOL))
        sizes = rng.choice([[3, 5], [7], [], [0, 2]])
        cid = f"to_copy/{counts.get('to_copy', 0):03d}"
        kind = "special" if dst in FLOATS else "normal"
        x, jx = make_input(cid, "self", sizes, src, kind, rng.choice(LAYOUTS))
        if dst in (U8,) and src in FLOATS:  # negative floats to u8 are undefined in C++: in range only
            x, jx = make_input(cid, "self", sizes, src, "positive", "contiguous")
        add_case("to_copy", "aten._to_copy.default", {"self": x, "dtype": dst}, {"self": jx, "dtype": to_json(dst)},
                 note=f"{TORCH_NAME[src]} -> {TORCH_NAME[dst]} {sizes} {kind}")
    for t in ["_softmax_backward_data", "_log_softmax_backward_data"]:
        for _ in range(8):
            dt, sizes = pick_dtype((F32, F64)), rng.choice([[3, 5], [7], [2, 3, 4]])
            d = rng.randrange(len(sizes))
            cid = f"{t}/{counts.get(t, 0):03d}"
            x = torch.randn(sizes, generator=trng, dtype=F64)
            y = (torch.softmax(x, d) if t == "_softmax_backward_data" else torch.log_softmax(x, d)).to(dt)
            g, jg = make_input(cid, "grad_output", sizes, dt, rng.choice(KINDS), rng.choice(LAYOUTS))
            o, jo = make_input(cid, "output", sizes, dt, data=y)
            add_case(t, f"aten.{t}.default", {"grad_output": g, "output": o, "dim": d, "input_dtype": dt},
                     {"grad_output": jg, "output": jo, "dim": d, "input_dtype": to_json(dt)},
                     note=f"{TORCH_NAME[dt]} {sizes} dim {d}")
    for _ in range(8):
        dt, sizes = pick_dtype(FLOATS), rng.choice([[3, 5], [7], [2, 3, 4], [1]])
        cid = f"argmax/{counts.get('argmax', 0):03d}"
        x, jx = make_input(cid, "self", sizes, dt, rng.choice(["normal", "special"]), rng.choice(LAYOUTS))
        d = rng.randrange(len(sizes))
        add_case("argmax", "aten.argmax.default", {"self": x, "dim": d, "keepdim": False},
                 {"self": jx, "dim": d, "keepdim": False}, note=f"{TORCH_NAME[dt]} {sizes}",
                 ties={"self": "self", "dim": d, "output": 0})
    for t in ["sum.default", "mean.default", "max.default"]:
        for _ in range(6):
            dt, sizes = pick_dtype(FLOATS), rng.choice([[3, 5], [7], [2, 3, 4], [0], [1]])
            if t == "max.default" and 0 in sizes:
                sizes = [4]
            fam = t.replace(".default", "_all")
            cid = f"{fam}/{counts.get(fam, 0):03d}"
            x, jx = make_input(cid, "self", sizes, dt, rng.choice(KINDS), rng.choice(LAYOUTS))
            add_case(fam, f"aten.{t}", {"self": x}, {"self": jx}, note=f"{TORCH_NAME[dt]} {sizes}")
    for _ in range(10):
        bb, m, kk, n = rng.choice([(2, 4, 5, 6), (1, 1, 2, 1), (3, 2, 0, 2), (2, 3, 7, 5)])
        dt, kind = pick_dtype(FLOATS), rng.choice(["normal", "special", "big"])
        cid = f"baddbmm/{counts.get('baddbmm', 0):03d}"
        c, jc = make_input(cid, "self", rng.choice([[bb, m, n], [n], [1, m, 1]]), dt, rng.choice(KINDS))
        a, ja = make_input(cid, "batch1", [bb, m, kk], dt, kind, rng.choice(LAYOUTS[:3]))
        b, jb = make_input(cid, "batch2", [bb, kk, n], dt, kind, rng.choice(LAYOUTS[:3]))
        beta, alpha = rng.choice([(1, 1), (0, 1), (0.5, 2)])
        add_case("baddbmm", "aten.baddbmm.default",
                 {"self": c, "batch1": a, "batch2": b, "beta": beta, "alpha": alpha},
                 {"self": jc, "batch1": ja, "batch2": jb, "beta": beta, "alpha": alpha},
                 note=f"{TORCH_NAME[dt]} {bb}x{m}x{kk}x{n} {kind}")
    for _ in range(8):
        dt, sizes = pick_dtype((F32, F64, BF16)), rng.choice([[3, 5], [7], [2, 3, 4]])
        cid = f"mse_loss/{counts.get('mse_loss', 0):03d}"
        a, ja = make_input(cid, "self", sizes, dt, rng.choice(KINDS), rng.choice(LAYOUTS))
        b, jb = make_input(cid, "target", sizes, dt, "normal")
        red = rng.choice([0, 1, 2])
        add_case("mse_loss", "aten.mse_loss.default", {"self": a, "target": b, "reduction": red},
                 {"self": ja, "target": jb, "reduction": red}, note=f"{TORCH_NAME[dt]} {sizes} reduction {red}")
    for k in range(10):
        nb, nc = rng.choice([(4, 5), (1, 3), (6, 2)])
        dt = pick_dtype((F32, F64))
        cid = f"nll_loss_forward/{counts.get('nll_loss_forward', 0):03d}"
        x, jx = make_input(cid, "self", [nb, nc], dt, rng.choice(["normal", "special"]))
        tgt = torch.randint(0, nc, [nb], generator=trng)
        if k % 3 == 2:
            tgt[0] = -100
        if k % 5 == 4:
            tgt[-1] = nc + 1
        t, jt = index_tensor(cid, "target", [nb], nc, data=tgt)
        red = rng.choice([0, 1, 2])
        add_case("nll_loss_forward", "aten.nll_loss_forward.default",
                 {"self": x, "target": t, "weight": None, "reduction": red, "ignore_index": -100},
                 {"self": jx, "target": jt, "weight": None, "reduction": red, "ignore_index": -100},
                 note=f"{TORCH_NAME[dt]} {nb}x{nc} reduction {red}")
    for k in range(10):
        sizes = rng.choice([[5, 3], [4], [3, 4, 2]])
        d = rng.randrange(len(sizes))
        dt = pick_dtype((F32, F64, BF16, I64))
        t = rng.choice(["scatter_add", "index_add"])
        cid = f"{t}/{counts.get(t, 0):03d}"
        x, jx = make_input(cid, "self", sizes, dt, rng.choice(KINDS))
        hi = sizes[d] + (2 if k % 5 == 4 else 0)
        if t == "scatter_add":
            isz = list(sizes)
            isz[d] = rng.choice([1, 2, sizes[d]])
            i, ji = index_tensor(cid, "index", isz, hi)
            src, jsrc = make_input(cid, "src", isz, dt, rng.choice(KINDS))
            add_case(t, "aten.scatter_add.default", {"self": x, "dim": d, "index": i, "src": src},
                     {"self": jx, "dim": d, "index": ji, "src": jsrc}, note=f"{TORCH_NAME[dt]} {sizes} dim {d}")
        else:
            ni = rng.choice([1, 3, 6])
            i, ji = index_tensor(cid, "index", [ni], hi)
            ssz = list(sizes)
            ssz[d] = ni
            src, jsrc = make_input(cid, "source", ssz, dt, rng.choice(KINDS))
            add_case(t, "aten.index_add.default", {"self": x, "dim": d, "index": i, "source": src, "alpha": 1},
                     {"self": jx, "dim": d, "index": ji, "source": jsrc, "alpha": 1},
                     note=f"{TORCH_NAME[dt]} {sizes} dim {d}")
    for k in range(8):
        nw, dim = rng.choice([(6, 3), (4, 1), (10, 2)])
        dt = pick_dtype((F32, F64))
        cid = f"embedding_dense_backward/{counts.get('embedding_dense_backward', 0):03d}"
        ind = torch.randint(0, nw, rng.choice([[5], [2, 3]]), generator=trng)
        i, ji = index_tensor(cid, "indices", list(ind.shape), nw, data=ind)
        g, jg = make_input(cid, "grad_output", list(ind.shape) + [dim], dt, rng.choice(KINDS))
        pad = rng.choice([-1, 0, 2])
        add_case("embedding_dense_backward", "aten.embedding_dense_backward.default",
                 {"grad_output": g, "indices": i, "num_weights": nw, "padding_idx": pad, "scale_grad_by_freq": False},
                 {"grad_output": jg, "indices": ji, "num_weights": nw, "padding_idx": pad, "scale_grad_by_freq": False},
                 note=f"{TORCH_NAME[dt]} {nw}x{dim} padding_idx {pad}")
    for _ in range(8):
        sizes = rng.choice([[4, 5], [3, 3], [2, 3, 4], [1, 6]])
        dt = pick_dtype(FLOATS + (I64, BOOL))
        cid = f"triu/{counts.get('triu', 0):03d}"
        x, jx = make_input(cid, "self", sizes, dt, "special", rng.choice(LAYOUTS))
        dg = rng.choice([-1, 0, 2])
        add_case("triu", "aten.triu.default", {"self": x, "diagonal": dg}, {"self": jx, "diagonal": dg},
                 note=f"{TORCH_NAME[dt]} {sizes} diagonal {dg}")
    for _ in range(8):
        sizes = rng.choice([[4, 5], [7], [2, 3, 4], [0, 3]])
        dt = pick_dtype(FLOATS + (I64, BOOL))
        cid = f"flip/{counts.get('flip', 0):03d}"
        x, jx = make_input(cid, "self", sizes, dt, "special", rng.choice(LAYOUTS))
        dims = sorted(rng.sample(range(len(sizes)), rng.randint(1, len(sizes))))
        add_case("flip", "aten.flip.default", {"self": x, "dims": dims}, {"self": jx, "dims": dims},
                 note=f"{TORCH_NAME[dt]} {sizes} dims {dims}")
    for _ in range(8):
        sizes = rng.choice([[2, 3], [4], [1, 2, 1]])
        dt = pick_dtype(FLOATS + (I64,))
        cid = f"repeat/{counts.get('repeat', 0):03d}"
        x, jx = make_input(cid, "self", sizes, dt, "special", rng.choice(LAYOUTS))
        reps = [rng.choice([1, 2, 3, 0]) for _ in range(len(sizes) + rng.choice([0, 1]))]
        add_case("repeat", "aten.repeat.default", {"self": x, "repeats": reps}, {"self": jx, "repeats": reps},
                 note=f"{TORCH_NAME[dt]} {sizes} repeats {reps}")


def gen_wide():
    """Inputs the families above draw rarely: magnitudes near float32's overflow, sums that pass
    3.4e38 part way, rows mixing inf and nan, and odd transposed shapes ([257, 33] x [33, 65] with
    either operand transposed)
    whose products take the GEMM's packed paths. Drawn after every other family, so the cases
    before keep their values."""
    wide = ["near_overflow", "e28", "infnan"]
    for _ in range(16):
        sizes = rng.choice([[129, 9], [9, 129], [1031], [3, 129]])
        dt, kind = pick_dtype((F32, F32, BF16, F16, F64)), rng.choice(wide)
        cid = f"sum/{counts.get('sum', 0):03d}"
        x, jx = make_input(cid, "self", sizes, dt, kind, rng.choice(LAYOUTS[:3]))
        dim = [rng.randrange(len(sizes))] if rng.random() < 0.7 else []
        add_case("sum", "aten.sum.dim_IntList", {"self": x, "dim": dim, "keepdim": False},
                 {"self": jx, "dim": dim, "keepdim": False}, note=f"wide {TORCH_NAME[dt]} {sizes} dim {dim} {kind}")
    for _ in range(8):
        sizes = rng.choice([[129, 9], [9, 129], [3, 129]])
        dt, kind = pick_dtype((F32, BF16, F64)), rng.choice(wide)
        cid = f"mean/{counts.get('mean', 0):03d}"
        x, jx = make_input(cid, "self", sizes, dt, kind, rng.choice(LAYOUTS[:3]))
        dim = [rng.randrange(len(sizes))]
        add_case("mean", "aten.mean.dim", {"self": x, "dim": dim, "keepdim": True},
                 {"self": jx, "dim": dim, "keepdim": True}, note=f"wide {TORCH_NAME[dt]} {sizes} dim {dim} {kind}")
    for _ in range(8):
        sizes = rng.choice([[65, 9], [5, 65]])
        dt, kind = pick_dtype((F32, F64)), rng.choice(wide)
        cid = f"var_mean/{counts.get('var_mean', 0):03d}"
        x, jx = make_input(cid, "self", sizes, dt, kind, rng.choice(LAYOUTS[:3]))
        dim = [rng.randrange(len(sizes))]
        add_case("var_mean", "aten.var_mean.correction", {"self": x, "dim": dim, "correction": 1, "keepdim": True},
                 {"self": jx, "dim": dim, "correction": 1, "keepdim": True}, note=f"wide {TORCH_NAME[dt]} {sizes} {kind}")
    for t in ["_softmax", "_log_softmax"]:
        for _ in range(6):
            sizes = rng.choice([[65, 9], [4, 65]])
            dt, kind = pick_dtype((F32, F64)), rng.choice(["near_overflow", "infnan"])
            cid = f"{t}/{counts.get(t, 0):03d}"
            x, jx = make_input(cid, "self", sizes, dt, kind, rng.choice(LAYOUTS[:3]))
            d = rng.randrange(len(sizes))
            add_case(t, f"aten.{t}.default", {"self": x, "dim": d, "half_to_float": False},
                     {"self": jx, "dim": d, "half_to_float": False}, note=f"wide {TORCH_NAME[dt]} {sizes} {kind}")
    for _ in range(6):
        sizes = rng.choice([[65, 9], [1031]])
        dt, kind = pick_dtype((F32, F64)), rng.choice(["e28", "infnan"])
        cid = f"cumsum/{counts.get('cumsum', 0):03d}"
        x, jx = make_input(cid, "self", sizes, dt, kind, rng.choice(LAYOUTS[:3]))
        d = rng.randrange(len(sizes))
        add_case("cumsum", "aten.cumsum.default", {"self": x, "dim": d}, {"self": jx, "dim": d},
                 note=f"wide {TORCH_NAME[dt]} {sizes} {kind}")
    for _ in range(12):
        m, kk, n = rng.choice([(257, 33, 65), (33, 65, 17), (17, 129, 3), (65, 9, 33)])
        dt = pick_dtype((F32, F32, F64, BF16))
        kind = rng.choice(["normal", "near_overflow", "infnan", "big"])
        cid = f"mm/{counts.get('mm', 0):03d}"
        a, ja = make_input(cid, "self", [m, kk], dt, kind, rng.choice(["contiguous", "transposed"]))
        b, jb = make_input(cid, "mat2", [kk, n], dt, rng.choice([kind, "normal"]), rng.choice(["contiguous", "transposed"]))
        add_case("mm", "aten.mm.default", {"self": a, "mat2": b}, {"self": ja, "mat2": jb},
                 note=f"wide {TORCH_NAME[dt]} {m}x{kk} @ {kk}x{n} {kind}")
    for _ in range(10):
        m, kk, n = rng.choice([(33, 65, 17), (65, 9, 33)])
        dt, kind = pick_dtype((F32, F64)), rng.choice(["normal", "near_overflow", "infnan"])
        cid = f"addmm/{counts.get('addmm', 0):03d}"
        bias, jbias = make_input(cid, "self", rng.choice([[n], [m, n]]), dt, rng.choice(["normal", kind]))
        a, ja = make_input(cid, "mat1", [m, kk], dt, kind, rng.choice(["contiguous", "transposed"]))
        b, jb = make_input(cid, "mat2", [kk, n], dt, "normal", rng.choice(["contiguous", "transposed"]))
        beta, alpha = rng.choice([(1, 1), (0.5, 2)])
        add_case("addmm", "aten.addmm.default", {"self": bias, "mat1": a, "mat2": b, "beta": beta, "alpha": alpha},
                 {"self": jbias, "mat1": ja, "mat2": jb, "beta": beta, "alpha": alpha},
                 note=f"wide {TORCH_NAME[dt]} {m}x{kk}x{n} {kind} beta {beta} alpha {alpha}")
    for _ in range(8):
        sizes = rng.choice([[65, 9], [4, 65]])
        dt, kind = pick_dtype((F32, F64)), rng.choice(["near_overflow", "infnan"])
        cid = f"layer_norm/{counts.get('layer_norm', 0):03d}"
        x, jx = make_input(cid, "input", sizes, dt, kind, rng.choice(LAYOUTS[:3]))
        layer_norm_case(x, jx, cid, sizes[-1:], dt, f"wide {TORCH_NAME[dt]} {sizes} {kind}", affine=True)
    for _ in range(8):
        sizes = rng.choice([[65, 9], [4, 65], [3, 5]])
        dt = pick_dtype((F32, F64))
        cid = f"layer_norm_backward/{counts.get('layer_norm_backward', 0):03d}"
        xv = values(math.prod(sizes), dt, rng.choice(["normal", "infnan", "near_overflow"])).reshape(sizes)
        gv = values(math.prod(sizes), dt, rng.choice(["infnan", "normal", "near_overflow"])).reshape(sizes)
        ta, ja = layer_norm_backward_args(cid, sizes, dt, xv, gv)
        add_case("layer_norm_backward", "aten.native_layer_norm_backward.default", ta, ja,
                 note=f"wide {TORCH_NAME[dt]} {sizes}")


gen_elementwise()
gen_reductions()
gen_matmul()
gen_norm()
gen_indexing()
gen_more()
gen_wide()

os.makedirs(OUT_DIR, exist_ok=True)
write_safetensors(os.path.join(OUT_DIR, "edge.safetensors"), sorted(tensors.items()))
with open(os.path.join(OUT_DIR, "edge.cases.json"), "w") as f:
    json.dump({"torch": torch.__version__, "cases": cases}, f, indent=0, sort_keys=True)
print(f"{len(cases)} cases, {len(tensors)} tensors, {sum(t.numel() * t.element_size() for t in tensors.values())} bytes")

#!/usr/bin/python3
"""Reference outputs of PyTorch (Debian's python3-torch 1.13, CPU) for the reduction-family
kernels of the fxlens CPU runtime: sum/mean/var_mean/amax/max/argmax/cumsum/bincount,
softmax/log_softmax (+ backward), native_layer_norm (+ backward), nll_loss (+ backward),
mse_loss (+ backward), embedding_dense_backward, native_group_norm (+ backward), native_batch_norm
(+ backward) and _native_batch_norm_legit (.default, .no_stats, _functional, _no_training; computed
by native_batch_norm, which 1.13 has), _cdist_forward, _pdist_forward, _embedding_bag.

Writes tests/data/kernels/reduction.safetensors (inputs and outputs, keys "<case>/in<k>" and
"<case>/out<k>") and tests/data/kernels/reduction.cases.json (per case: the op target, its
arguments in schema order with defaults filled in, which keys are outputs).

An argument is a JSON value: number/bool/null/list as is, {"dtype": "float32"} for a
ScalarType, {"tensor": key} for a tensor; a non-contiguous input is stored as its contiguous
base storage (1-d) plus "sizes", "strides", "offset" of the view over it.

Run: /usr/bin/python3 tests/runtime/gen_reduction_refs.py   (from the repository root)
"""
import json
import math
import os
import sys

import torch

A = torch.ops.aten
torch.manual_seed(1234)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from st_util import TORCH_NAME, write_safetensors  # noqa: E402

OUT_DIR = os.path.join(HERE, "..", "data", "kernels")

tensors = {}   # key -> contiguous tensor
cases = []
counters = {}


def put(key, t):
    assert key not in tensors
    tensors[key] = t.detach().clone().contiguous()


class View:
    """A non-contiguous view of the values of `x`: 'T' = transposed storage of the last two
    dims, 'gap' = every other element of a larger buffer, starting at offset 3."""

    def __init__(self, x, kind):
        self.kind = kind
        if kind == "T":
            base = x.transpose(-1, -2).contiguous().reshape(-1)
            st = list(x.transpose(-1, -2).contiguous().transpose(-1, -2).stride())
            v = torch.as_strided(base, x.shape, st, 0)
            off = 0
        elif kind == "gap":
            n = x.numel()
            base = torch.zeros(2 * n + 5, dtype=x.dtype)
            if x.dtype.is_floating_point:
                base.fill_(-7.25)
            st = [2 * s for s in torch.empty(x.shape).stride()] if x.dim() else []
            off = 3
            v = torch.as_strided(base, x.shape, st, off)
            v.copy_(x)
        else:
            raise ValueError(kind)
        assert torch.equal(v, x) or (x.dtype.is_floating_point and torch.equal(torch.nan_to_num(v), torch.nan_to_num(x)))
        self.base, self.view, self.strides, self.offset = base, v, st, off


def arg_tensor(key, x):
    """Stores x (a tensor or a View) and returns its JSON argument and the torch value."""
    if isinstance(x, View):
        put(key, x.base)
        return {"tensor": key, "sizes": list(x.view.shape), "strides": list(x.strides), "offset": x.offset}, x.view
    put(key, x)
    return {"tensor": key}, x


skipped = []


def case(name, op, args, fn, note=""):
    """args: list of python values / tensors / Views / ('dtype', torch.dtype). fn(*torch_args)
    gives the reference (a tensor or a tuple; None entries allowed). Cases PyTorch's CPU
    kernels do not implement for a dtype are skipped (listed in the JSON)."""
    targs = []
    for a in args:
        if isinstance(a, View):
            targs.append(a.view)
        elif isinstance(a, tuple) and a and a[0] == "dtype":
            targs.append(a[1])
        else:
            targs.append(a)
    try:
        res = fn(*targs)
    except RuntimeError as e:
        if "not implemented for" not in str(e):
            raise
        skipped.append({"op": op, "note": note, "why": str(e).splitlines()[0]})
        return
    k = counters.get(name, 0)
    counters[name] = k + 1
    cid = "%s/%03d" % (name, k)
    jargs = []
    nin = 0
    for a in args:
        if isinstance(a, (torch.Tensor, View)):
            j, _ = arg_tensor("%s/in%d" % (cid, nin), a)
            nin += 1
        elif isinstance(a, tuple) and a and a[0] == "dtype":
            j = {"dtype": TORCH_NAME[a[1]]}
        else:
            j = a
        jargs.append(j)
    if not isinstance(res, (tuple, list)):
        res = (res,)
    # bf16/f16 cases: PyTorch's CPU kernels round some intermediates to the 16-bit format, so
    # their outputs are not the correctly rounded results; the same op run in float64 on the
    # widened inputs gives those (stored as out<k>_f64, compared within 1 ulp after rounding).
    half = any(isinstance(t, torch.Tensor) and t.dtype in (torch.bfloat16, torch.float16) for t in targs)
    res64 = None
    if half:
        t64 = []
        for t in targs:
            if isinstance(t, torch.Tensor) and t.dtype.is_floating_point:
                t64.append(t.double())
            elif isinstance(t, torch.dtype) and t.is_floating_point:
                t64.append(torch.float64)
            else:
                t64.append(t)
        res64 = fn(*t64)
        if not isinstance(res64, (tuple, list)):
            res64 = (res64,)
    outs, outs64 = [], []
    for i, r in enumerate(res):
        if r is None:
            outs.append(None)
            outs64.append(None)
        else:
            key = "%s/out%d" % (cid, i)
            put(key, r)
            outs.append(key)
            if res64 is not None and r.dtype in (torch.bfloat16, torch.float16):
                put(key + "_f64", res64[i])
                outs64.append(key + "_f64")
            else:
                outs64.append(None)
    entry = {"id": cid, "op": op, "args": jargs, "outputs": outs, "note": note}
    if any(o is not None for o in outs64):
        entry["outputs_f64"] = outs64
    cases.append(entry)


def rn(*shape, dtype=torch.float32, scale=1.0):
    return (torch.randn(shape, dtype=torch.float64) * scale).to(dtype)


def edge_rows(x):
    """Puts 0, -0, inf, -inf, nan, large and denormal values into a float tensor."""
    x = x.clone()
    flat = x.view(-1)
    # at most one huge value per row of a (4, 6) tensor: cancelling 1e30 - 1e30 inside a row
    # would make the result depend on the summation order only
    vals = [0.0, -0.0, 1e30, 1e-40, float("inf"), float("-inf"), float("nan"), -1e30]
    for i, v in enumerate(vals):
        if 3 * i + 1 < flat.numel():
            flat[3 * i + 1] = v
    return x


# ---------------------------------------------------------------- sum / mean / var_mean
def sum_dim(x, dim, keepdim=False, dtype=None, note=""):
    case("sum_dim", "aten.sum.dim_IntList", [x, dim, keepdim, ("dtype", dtype) if dtype else None],
         lambda t, d, k, dt: A.sum.dim_IntList(t, d, k, dtype=dt), note)


for shape, dim, kd in [((5, 7), [0], True), ((5, 7), [1], False), ((5, 7), [0, 1], False), ((5, 7), [], False),
                       ((5, 7), [-1], True), ((3, 4, 5), [0, 2], True), ((3, 4, 5), [1], False), ((3, 4, 5), [2], True),
                       ((600, 3), [0], True), ((3, 1000), [1], False), ((2, 300, 5), [1], False),
                       ((2, 3, 4, 5), [0, 1], True), ((2, 3, 4, 5), [0, 3], False), ((70, 130), [0], True)]:
    sum_dim(rn(*shape), dim, kd)
sum_dim(View(rn(7, 5), "T"), [0], True, note="transposed")
sum_dim(View(rn(7, 5), "T"), [1], False, note="transposed")
sum_dim(View(rn(4, 6), "gap"), [0, 1], False, note="strided")
sum_dim(View(rn(3, 4, 5), "gap"), [1], True, note="strided")
sum_dim(View(rn(300, 9), "T"), [0], True, note="transposed, many rows")
sum_dim(edge_rows(rn(4, 6)), [1], False, note="edge values")
sum_dim(rn(16, 40, dtype=torch.bfloat16), [0], True)
sum_dim(rn(16, 40, dtype=torch.bfloat16), [1], False)
sum_dim(rn(16, 40, dtype=torch.float16), [0], True)
sum_dim(rn(16, 40, dtype=torch.float16), [1], False)
sum_dim(rn(9, 300, dtype=torch.float64), [1], False)
sum_dim(rn(9, 300, dtype=torch.float64), [0], True)
sum_dim(rn(6, 7), [1], False, dtype=torch.float64, note="dtype=float64")
sum_dim(rn(6, 7, dtype=torch.bfloat16), [0], False, dtype=torch.float32, note="dtype=float32")
sum_dim(torch.randint(-50, 50, (5, 6)), [0], False)
sum_dim(torch.randint(-50, 50, (5, 6), dtype=torch.int32), [1], True)
sum_dim(torch.rand(7, 9) > 0.5, [1], False)
sum_dim(torch.tensor(3.5), [], False, note="0-dim")
sum_dim(torch.zeros(0, 4), [0], False, note="empty reduction")


def sum_all(x, dtype=None, note=""):
    case("sum", "aten.sum.default", [x, ("dtype", dtype) if dtype else None], lambda t, dt: A.sum.default(t, dtype=dt), note)


sum_all(rn(37))
sum_all(rn(300, 17))
sum_all(View(rn(40, 30), "T"), note="transposed")
sum_all(rn(20, 20, dtype=torch.bfloat16))
sum_all(rn(20, 20, dtype=torch.float16, scale=0.1))
sum_all(rn(500, dtype=torch.float64))
sum_all(torch.randint(-9, 9, (11, 3)))
sum_all(torch.rand(40) > 0.3)
sum_all(rn(33), dtype=torch.float64, note="dtype=float64")


def mean_dim(x, dim, keepdim=False, dtype=None, note=""):
    case("mean_dim", "aten.mean.dim", [x, dim, keepdim, ("dtype", dtype) if dtype else None],
         lambda t, d, k, dt: A.mean.dim(t, d, k, dtype=dt), note)


mean_dim(rn(5, 7), [-1], True, note="RMSNorm")
mean_dim(rn(3, 4, 5), [0, 2], False)
mean_dim(rn(2, 3, 100), [-1], True)
mean_dim(rn(130, 6), [0], False)
mean_dim(rn(8, 24, dtype=torch.bfloat16), [-1], True)
mean_dim(rn(8, 24, dtype=torch.float16), [0], False)
mean_dim(rn(8, 24, dtype=torch.float64), [-1], True)
mean_dim(View(rn(6, 9), "T"), [1], True, note="transposed")
mean_dim(View(rn(6, 9), "gap"), [0], False, note="strided")
mean_dim(torch.randint(0, 10, (4, 5)), [1], False, dtype=torch.float32, note="int with dtype")

case("mean", "aten.mean.default", [rn(7, 11), None], lambda t, dt: A.mean.default(t, dtype=dt))
case("mean", "aten.mean.default", [rn(9, 13, dtype=torch.bfloat16), None], lambda t, dt: A.mean.default(t, dtype=dt))
case("mean", "aten.mean.default", [View(rn(9, 13), "T"), None], lambda t, dt: A.mean.default(t, dtype=dt))


def var_mean(x, dim, correction=None, keepdim=False, note=""):
    case("var_mean", "aten.var_mean.correction", [x, dim, correction, keepdim],
         lambda t, d, c, k: A.var_mean.correction(t, d, correction=c, keepdim=k), note)


var_mean(rn(6, 10), [1])
var_mean(rn(6, 10), [0], 0, True)
var_mean(rn(6, 10), None)
var_mean(rn(3, 4, 200) + 3.0, [-1], 1, True)
var_mean(rn(5, 12, dtype=torch.float64), [1], 2)
var_mean(rn(5, 12, dtype=torch.bfloat16), [1])
var_mean(View(rn(8, 5), "T"), [0], None, False, note="transposed")

# ---------------------------------------------------------------- max family, cumsum, bincount
ties = torch.tensor([[1.0, 3.0, 3.0, 2.0, -1.0], [5.0, 5.0, 5.0, 5.0, 5.0], [float("nan"), 1.0, 2.0, float("nan"), 0.0],
                     [-float("inf"), -float("inf"), -2.0, -3.0, -4.0]])
case("amax", "aten.amax.default", [rn(5, 7), [1], False], lambda t, d, k: A.amax(t, d, k))
case("amax", "aten.amax.default", [rn(3, 4, 5), [0, 2], True], lambda t, d, k: A.amax(t, d, k))
case("amax", "aten.amax.default", [ties, [], False], lambda t, d, k: A.amax(t, d, k))
case("amax", "aten.amax.default", [ties, [1], True], lambda t, d, k: A.amax(t, d, k))
case("amax", "aten.amax.default", [torch.randint(-100, 100, (4, 6)), [0], False], lambda t, d, k: A.amax(t, d, k))
case("amax", "aten.amax.default", [rn(6, 10, dtype=torch.bfloat16), [-1], False], lambda t, d, k: A.amax(t, d, k))
case("amax", "aten.amax.default", [View(rn(6, 10), "T"), [0], False], lambda t, d, k: A.amax(t, d, k))
case("max", "aten.max.default", [rn(5, 7)], lambda t: A.max.default(t))
case("max", "aten.max.default", [torch.randint(-100, 100, (4, 6), dtype=torch.int32)], lambda t: A.max.default(t))
case("max", "aten.max.default", [ties], lambda t: A.max.default(t))
case("max_dim", "aten.max.dim", [ties, 1, False], lambda t, d, k: A.max.dim(t, d, k))
case("max_dim", "aten.max.dim", [rn(5, 7), 0, True], lambda t, d, k: A.max.dim(t, d, k))
case("max_dim", "aten.max.dim", [View(rn(3, 4, 5), "gap"), -1, False], lambda t, d, k: A.max.dim(t, d, k))
case("max_dim", "aten.max.dim", [torch.randint(-5, 5, (6, 8)), 1, False], lambda t, d, k: A.max.dim(t, d, k))
case("argmax", "aten.argmax.default", [rn(5, 7), 1, False], lambda t, d, k: A.argmax(t, d, k))
case("argmax", "aten.argmax.default", [rn(5, 7), None, False], lambda t, d, k: A.argmax(t, d, k))
case("argmax", "aten.argmax.default", [rn(5, 7), None, True], lambda t, d, k: A.argmax(t, d, k))
case("argmax", "aten.argmax.default", [ties, 1, True], lambda t, d, k: A.argmax(t, d, k))


def cumsum(x, dim, dtype=None, note=""):
    case("cumsum", "aten.cumsum.default", [x, dim, ("dtype", dtype) if dtype else None],
         lambda t, d, dt: A.cumsum(t, d, dtype=dt), note)


cumsum(rn(5, 7), 1)
cumsum(rn(5, 7), 0)
cumsum(View(rn(5, 7), "T"), 1, note="transposed")
cumsum(torch.randint(-9, 9, (4, 9)), 1)
cumsum(torch.rand(3, 8) > 0.5, -1)
cumsum(rn(4, 50, dtype=torch.bfloat16), 1)
cumsum(rn(4, 50, dtype=torch.float64), 1)
cumsum(rn(6, 5), 1, dtype=torch.float64, note="dtype=float64")


def bincount(x, w=None, minlength=0, note=""):
    case("bincount", "aten.bincount.default", [x, w, minlength], lambda t, ww, m: A.bincount(t, ww, m), note)


bincount(torch.randint(0, 4, (24,)), None, 4, note="moe_tiny form")
bincount(torch.randint(0, 9, (50,)))
bincount(torch.randint(0, 5, (40,)), rn(40))
bincount(torch.randint(0, 5, (300,)), rn(300, dtype=torch.float64), 8)
bincount(torch.tensor([], dtype=torch.int64), None, 3)

# ---------------------------------------------------------------- softmax family
special = rn(6, 9)
special[0] = float("-inf")                      # fully masked row -> nan
special[1, 3:] = float("-inf")                  # causal-mask style row
special[2, 4] = float("nan")                    # nan row
special[3] = torch.tensor([1e30, 1e30, 0, -1e30, 3, 4, 5, 6, 88.0])
special[4, 2] = float("inf")                    # +inf -> nan row
special[5] = 0.0                                # uniform


def softmax(x, dim, log, note=""):
    name, op = ("log_softmax", "aten._log_softmax.default") if log else ("softmax", "aten._softmax.default")
    case(name, op, [x, dim, False], (lambda t, d, h: A._log_softmax(t, d, h)) if log else (lambda t, d, h: A._softmax(t, d, h)), note)


def softmax_bwd(x, dim, log, gview=None, out_dtype=None, note=""):
    xf = x.float() if x.dtype == torch.float16 else x  # no f16 softmax on CPU in 1.13
    y = (A._log_softmax(xf, dim, False) if log else A._softmax(xf, dim, False)).to(x.dtype)
    g = rn(*x.shape, dtype=x.dtype)
    garg = View(g, gview) if gview else g
    name = "log_softmax_bwd" if log else "softmax_bwd"
    op = "aten._log_softmax_backward_data.default" if log else "aten._softmax_backward_data.default"
    idt = out_dtype or x.dtype
    fn = (lambda gg, yy, d, dt: A._log_softmax_backward_data(gg, yy, d, dt)) if log else \
        (lambda gg, yy, d, dt: A._softmax_backward_data(gg, yy, d, dt))
    case(name, op, [garg, y, dim, ("dtype", idt)], fn, note)


for log in (False, True):
    softmax(rn(4, 10), -1, log)
    softmax(rn(4, 10), 0, log)
    softmax(rn(2, 3, 5), 1, log)
    softmax(View(rn(2, 3, 5), "T"), -1, log, note="transposed")
    softmax(View(rn(4, 6), "gap"), 1, log, note="strided")
    softmax(special, -1, log, note="-inf/nan/inf/large rows")
    softmax(rn(3, 700, scale=3.0), -1, log, note="multi-block rows")
    softmax(rn(4, 33, dtype=torch.bfloat16), -1, log)
    softmax(rn(4, 33, dtype=torch.float16), -1, log)
    softmax(rn(4, 33, dtype=torch.float64), -1, log)
    softmax(torch.tensor(2.0), 0, log, note="0-dim")
    softmax_bwd(rn(4, 10), -1, log)
    softmax_bwd(rn(4, 10), 0, log)
    softmax_bwd(rn(2, 3, 5), 1, log, gview="T", note="transposed grad")
    softmax_bwd(rn(3, 300), 1, log)
    softmax_bwd(rn(4, 33, dtype=torch.bfloat16), -1, log)
    softmax_bwd(rn(4, 33, dtype=torch.float16), -1, log)
    softmax_bwd(rn(4, 33, dtype=torch.float64), -1, log)
    masked = rn(4, 12)
    masked[:, 7:] = float("-inf")
    softmax_bwd(masked, -1, log, note="masked (-inf) inputs")


# ---------------------------------------------------------------- layer norm
def layer_norm(x, ns, w, b, eps=1e-5, note=""):
    case("layer_norm", "aten.native_layer_norm.default", [x, ns, w, b, eps],
         lambda t, n, ww, bb, e: A.native_layer_norm(t, n, ww, bb, e), note)


layer_norm(rn(4, 8), [8], rn(8), rn(8))
layer_norm(rn(2, 3, 16), [16], None, None)
layer_norm(rn(2, 3, 4), [3, 4], rn(3, 4), rn(3, 4))
layer_norm(rn(5, 64), [64], rn(64), None)
layer_norm(rn(5, 64), [64], None, rn(64))
layer_norm(View(rn(6, 8), "T"), [8], rn(8), rn(8), note="transposed")
layer_norm(View(rn(2, 3, 8), "gap"), [8], rn(8), rn(8), note="strided")
layer_norm(rn(2, 1000), [1000], rn(1000), rn(1000), note="multi-block rows")
layer_norm(rn(4, 32) + 30.0, [32], None, None, note="mean >> std")
layer_norm(rn(6, 32, dtype=torch.bfloat16), [32], rn(32, dtype=torch.bfloat16), rn(32, dtype=torch.bfloat16))
layer_norm(rn(6, 32, dtype=torch.float64), [32], rn(32, dtype=torch.float64), rn(32, dtype=torch.float64))
layer_norm(rn(3, 8), [8], None, None, 0.1, note="eps=0.1")


def layer_norm_bwd(x, ns, w, b, mask, gview=None, note=""):
    _, mean, rstd = A.native_layer_norm(x, ns, w, b, 1e-5)
    g = rn(*x.shape, dtype=x.dtype)
    garg = View(g, gview) if gview else g
    case("layer_norm_bwd", "aten.native_layer_norm_backward.default", [garg, x, ns, mean, rstd, w, b, mask],
         lambda gg, t, n, m, r, ww, bb, mk: A.native_layer_norm_backward(gg, t, n, m, r, ww, bb, mk), note)


layer_norm_bwd(rn(4, 8), [8], rn(8), rn(8), [True, True, True])
layer_norm_bwd(rn(4, 8), [8], rn(8), rn(8), [True, False, False])
layer_norm_bwd(rn(4, 8), [8], rn(8), rn(8), [False, True, True])
layer_norm_bwd(rn(2, 3, 16), [16], None, None, [True, False, False])
layer_norm_bwd(rn(2, 3, 4), [3, 4], rn(3, 4), rn(3, 4), [True, True, True])
layer_norm_bwd(rn(300, 8), [8], rn(8), rn(8), [True, True, True], note="many rows (parameter grads)")
layer_norm_bwd(rn(3, 130), [130], rn(130), rn(130), [True, True, True], note="columns beyond one tile")
layer_norm_bwd(rn(5, 64), [64], rn(64), rn(64), [True, True, True], gview="T", note="transposed grad")
layer_norm_bwd(rn(2, 500), [500], rn(500), rn(500), [True, True, True], note="multi-block rows")
layer_norm_bwd(rn(6, 32, dtype=torch.bfloat16), [32], rn(32, dtype=torch.bfloat16), rn(32, dtype=torch.bfloat16),
               [True, True, True])
layer_norm_bwd(rn(6, 32, dtype=torch.float64), [32], rn(32, dtype=torch.float64), rn(32, dtype=torch.float64),
               [True, True, True])


# ---------------------------------------------------------------- nll / mse
def nll(x, target, w, reduction, ignore=-100, note=""):
    case("nll", "aten.nll_loss_forward.default", [x, target, w, reduction, ignore],
         lambda t, tg, ww, r, ig: A.nll_loss_forward(t, tg, ww, r, ig), note)


def nll_bwd(x, target, w, reduction, ignore=-100, note=""):
    _, total = A.nll_loss_forward(x, target, w, reduction, ignore)
    n = x.shape[0] if x.dim() == 2 else 1
    g = rn(n, dtype=x.dtype) if (reduction == 0 and x.dim() == 2) else rn(dtype=x.dtype) + 1.5
    case("nll_bwd", "aten.nll_loss_backward.default", [g, x, target, w, reduction, ignore, total],
         lambda gg, t, tg, ww, r, ig, tw: A.nll_loss_backward(gg, t, tg, ww, r, ig, tw), note)


lsm = A._log_softmax(rn(6, 5), 1, False)
tg = torch.tensor([1, -100, 4, 0, 2, -100])
for red in (0, 1, 2):
    nll(lsm, tg, None, red)
    nll(lsm, tg, rn(5).abs() + 0.1, red, note="weight")
    nll(lsm, torch.tensor([1, 2, 4, 0, 2, 3]), None, red, 2, note="ignore_index=2")
    nll_bwd(lsm, tg, None, red)
    nll_bwd(lsm, tg, rn(5).abs() + 0.1, red, note="weight")
    nll_bwd(lsm, torch.tensor([1, 2, 4, 0, 2, 3]), None, red, 2, note="ignore_index=2")
    nll(lsm[2], torch.tensor(3), None, red, note="1-d input")
    nll_bwd(lsm[2], torch.tensor(3), None, red, note="1-d input")
nll(lsm[1], torch.tensor(2), rn(5).abs() + 0.1, 0, note="1-d input, weight")
nll(lsm[1], torch.tensor(-100), None, 0, note="1-d input, ignored")
nll(lsm[1], torch.tensor(-100), None, 1, note="1-d input, ignored: mean is nan")
nll(lsm, torch.full((6,), -100), None, 1, note="all ignored: mean is nan")
nll(lsm, torch.full((6,), -100), None, 2, note="all ignored")
big = A._log_softmax(rn(300, 7), 1, False)
bigt = torch.randint(0, 7, (300,))
bigt[::13] = -100
nll(big, bigt, None, 1, note="many rows")
nll(big, bigt, None, 0)
nll_bwd(big, bigt, None, 1)
nll(View(lsm, "T"), tg, None, 1, note="transposed input")
nll(A._log_softmax(rn(6, 5, dtype=torch.float64), 1, False), tg, None, 1)
nll(A._log_softmax(rn(6, 5, dtype=torch.bfloat16), 1, False), tg, None, 1)
nll_bwd(A._log_softmax(rn(6, 5, dtype=torch.float64), 1, False), tg, None, 1)


def mse(x, t, reduction, note=""):
    case("mse", "aten.mse_loss.default", [x, t, reduction], lambda a, b, r: A.mse_loss(a, b, r), note)


def mse_bwd(x, t, reduction, note=""):
    xv = x.view if isinstance(x, View) else x
    g = rn(*xv.shape, dtype=xv.dtype) if reduction == 0 else rn(dtype=xv.dtype) + 1.0
    case("mse_bwd", "aten.mse_loss_backward.default", [g, x, t, reduction],
         lambda gg, a, b, r: A.mse_loss_backward(gg, a, b, r), note)


for red in (0, 1, 2):
    mse(rn(4, 5), rn(4, 5), red)
    mse_bwd(rn(4, 5), rn(4, 5), red)
    mse(View(rn(4, 5), "T"), View(rn(4, 5), "gap"), red, note="strided")
    mse_bwd(View(rn(4, 5), "T"), rn(4, 5), red, note="strided")
mse(rn(50, 40), rn(50, 40), 1, note="multi-block")
mse(rn(8, 16, dtype=torch.bfloat16), rn(8, 16, dtype=torch.bfloat16), 1)
mse(rn(8, 16, dtype=torch.float64), rn(8, 16, dtype=torch.float64), 2)
mse_bwd(rn(8, 16, dtype=torch.bfloat16), rn(8, 16, dtype=torch.bfloat16), 1)
mse_bwd(rn(8, 16, dtype=torch.float64), rn(8, 16, dtype=torch.float64), 1)


# ---------------------------------------------------------------- embedding backward
def emb_bwd(g, idx, V, pad=-1, freq=False, note=""):
    case("embedding_bwd", "aten.embedding_dense_backward.default", [g, idx, V, pad, freq],
         lambda gg, ii, v, p, f: A.embedding_dense_backward(gg, ii, v, p, f), note)


ids = torch.tensor([[1, 3, 3, 0, 6], [3, 1, 2, 3, 5]])
emb_bwd(rn(2, 5, 4), ids, 7)
emb_bwd(rn(2, 5, 4), ids, 7, 3, note="padding_idx=3")
emb_bwd(rn(2, 5, 4), ids, 7, -1, True, note="scale_grad_by_freq")
emb_bwd(rn(2, 5, 4), ids.to(torch.int32), 7, note="int32 indices")
emb_bwd(View(rn(2, 5, 4), "T"), ids, 7, note="transposed grad")
emb_bwd(rn(300, 70), torch.randint(0, 5, (300,)), 5, note="many duplicates, tile + tail")
emb_bwd(rn(2, 5, 8, dtype=torch.bfloat16), ids, 7)
emb_bwd(rn(2, 5, 8, dtype=torch.float64), ids, 7)
emb_bwd(rn(16, 8), torch.arange(16), 16, note="arange positions")


# ---------------------------------------------------------------- issue 14: amin / argmin / min.dim, any, prod, var
# (appended last so the earlier cases keep their random inputs)
case("amin", "aten.amin.default", [rn(5, 7), [1], False], lambda t, d, k: A.amin(t, d, k))
case("amin", "aten.amin.default", [rn(3, 4, 5), [0, 2], True], lambda t, d, k: A.amin(t, d, k))
case("amin", "aten.amin.default", [ties, [], False], lambda t, d, k: A.amin(t, d, k), note="ties, nan, -inf")
case("amin", "aten.amin.default", [ties, [1], True], lambda t, d, k: A.amin(t, d, k), note="ties, nan, -inf")
case("amin", "aten.amin.default", [torch.randint(-100, 100, (4, 6)), [0], False], lambda t, d, k: A.amin(t, d, k))
case("amin", "aten.amin.default", [torch.rand(4, 6) > 0.3, [1], False], lambda t, d, k: A.amin(t, d, k), note="bool")
case("amin", "aten.amin.default", [rn(6, 10, dtype=torch.bfloat16), [-1], False], lambda t, d, k: A.amin(t, d, k))
case("amin", "aten.amin.default", [rn(6, 10, dtype=torch.float16), [0], False], lambda t, d, k: A.amin(t, d, k))
case("amin", "aten.amin.default", [edge_rows(rn(4, 6, dtype=torch.float64)), [1], False], lambda t, d, k: A.amin(t, d, k), note="edge")
case("amin", "aten.amin.default", [View(rn(6, 10), "T"), [0], False], lambda t, d, k: A.amin(t, d, k), note="transposed")
case("argmin", "aten.argmin.default", [rn(5, 7), 1, False], lambda t, d, k: A.argmin(t, d, k))
case("argmin", "aten.argmin.default", [rn(5, 7), None, False], lambda t, d, k: A.argmin(t, d, k))
case("argmin", "aten.argmin.default", [rn(5, 7), None, True], lambda t, d, k: A.argmin(t, d, k))
case("argmin", "aten.argmin.default", [ties, 1, True], lambda t, d, k: A.argmin(t, d, k), note="ties, nan, -inf")
case("argmin", "aten.argmin.default", [torch.randint(-5, 5, (6, 8), dtype=torch.int32), 0, False], lambda t, d, k: A.argmin(t, d, k), note="i32 ties")
case("argmin", "aten.argmin.default", [rn(6, 9, dtype=torch.bfloat16), -1, False], lambda t, d, k: A.argmin(t, d, k))
case("argmin", "aten.argmin.default", [View(rn(3, 4, 5), "gap"), 2, False], lambda t, d, k: A.argmin(t, d, k), note="gap view")
case("min_dim", "aten.min.dim", [ties, 1, False], lambda t, d, k: A.min.dim(t, d, k), note="ties, nan, -inf")
case("min_dim", "aten.min.dim", [rn(5, 7), 0, True], lambda t, d, k: A.min.dim(t, d, k))
case("min_dim", "aten.min.dim", [View(rn(3, 4, 5), "gap"), -1, False], lambda t, d, k: A.min.dim(t, d, k), note="gap view")
case("min_dim", "aten.min.dim", [torch.randint(-5, 5, (6, 8)), 1, False], lambda t, d, k: A.min.dim(t, d, k), note="i64 ties")
case("min_dim", "aten.min.dim", [rn(6, 8, dtype=torch.float64), 1, False], lambda t, d, k: A.min.dim(t, d, k))
case("min_dim", "aten.min.dim", [rn(6, 8, dtype=torch.bfloat16), 0, False], lambda t, d, k: A.min.dim(t, d, k))


def any_dims(t, d, k):
    """any.dims is newer than PyTorch 1.13: any.dim over each dim, highest first (the decomposition)."""
    dims = sorted(range(t.dim())) if d is None or len(d) == 0 else sorted(x % max(t.dim(), 1) for x in d)
    r = t
    for x in reversed(dims):
        r = A.any.dim(r, x, k)
    return r


def anyin(*shape, dtype=torch.float32, p=0.1):
    x = torch.where(torch.rand(shape) < p, torch.randn(shape), torch.zeros(shape))
    return x.to(dtype)


case("any", "aten.any.default", [anyin(5, 7)], lambda t: A.any.default(t))
case("any", "aten.any.default", [torch.zeros(4, 5)], lambda t: A.any.default(t), note="all zero")
case("any", "aten.any.default", [torch.tensor([0.0, -0.0, float("nan"), 0.0])], lambda t: A.any.default(t), note="nan counts, -0 does not")
case("any", "aten.any.default", [torch.tensor([[0, 0], [0, 3]], dtype=torch.uint8)], lambda t: A.any.default(t), note="u8 -> u8")
case("any", "aten.any.default", [torch.zeros(0, 3)], lambda t: A.any.default(t), note="empty")
case("any_dim", "aten.any.dim", [anyin(6, 9, p=0.15), 1, False], lambda t, d, k: A.any.dim(t, d, k))
case("any_dim", "aten.any.dim", [anyin(6, 9, dtype=torch.bfloat16, p=0.15), 0, True], lambda t, d, k: A.any.dim(t, d, k))
case("any_dim", "aten.any.dim", [torch.rand(6, 9) > 0.8, -1, False], lambda t, d, k: A.any.dim(t, d, k), note="bool")
case("any_dim", "aten.any.dim", [torch.randint(0, 2, (6, 9), dtype=torch.int32) * torch.randint(0, 2, (6, 9), dtype=torch.int32), 0, False], lambda t, d, k: A.any.dim(t, d, k), note="i32")
case("any_dim", "aten.any.dim", [torch.randint(0, 2, (6, 9), dtype=torch.uint8) * torch.randint(0, 2, (6, 9), dtype=torch.uint8), 1, True], lambda t, d, k: A.any.dim(t, d, k), note="u8 -> u8")
case("any_dim", "aten.any.dim", [View(anyin(4, 6, p=0.2), "T"), 0, False], lambda t, d, k: A.any.dim(t, d, k), note="transposed")
case("any_dims", "aten.any.dims", [anyin(3, 4, 5, p=0.05), [0, 2], False], any_dims, note="reference: any.dim per dim")
case("any_dims", "aten.any.dims", [anyin(3, 4, 5, p=0.05), [-1], True], any_dims, note="reference: any.dim per dim")
case("any_dims", "aten.any.dims", [anyin(3, 4, 5, p=0.02), None, False], any_dims, note="reference: any.dim per dim; None = all")
case("any_dims", "aten.any.dims", [View(anyin(4, 6, p=0.2), "gap"), [1], False], any_dims, note="reference: any.dim per dim; gap view")


def prodin(*shape, dtype=torch.float32):
    """values near +-1 so that long products neither overflow nor vanish"""
    x = (1.0 + 0.1 * torch.randn(shape, dtype=torch.float64)) * torch.where(torch.rand(shape) < 0.3, -1.0, 1.0)
    return x.to(dtype)


case("prod", "aten.prod.default", [prodin(5, 7), None], lambda t, dt: A.prod.default(t, dtype=dt))
case("prod", "aten.prod.default", [prodin(600), None], lambda t, dt: A.prod.default(t, dtype=dt), note="600 elements")
case("prod", "aten.prod.default", [edge_rows(rn(4, 6)), None], lambda t, dt: A.prod.default(t, dtype=dt), note="edge")
case("prod", "aten.prod.default", [prodin(5, 7, dtype=torch.float64), None], lambda t, dt: A.prod.default(t, dtype=dt))
case("prod", "aten.prod.default", [prodin(5, 7, dtype=torch.bfloat16), None], lambda t, dt: A.prod.default(t, dtype=dt))
case("prod", "aten.prod.default", [torch.randint(-3, 4, (4, 5)), None], lambda t, dt: A.prod.default(t, dtype=dt), note="i64")
case("prod", "aten.prod.default", [torch.randint(-9, 10, (40,), dtype=torch.int32), None], lambda t, dt: A.prod.default(t, dtype=dt), note="i32 -> i64 (wraps)")
case("prod", "aten.prod.default", [torch.rand(3, 4) > 0.1, None], lambda t, dt: A.prod.default(t, dtype=dt), note="bool -> i64")
case("prod", "aten.prod.default", [prodin(5, 7), ("dtype", torch.float64)], lambda t, dt: A.prod.default(t, dtype=dt), note="dtype f64")
case("prod", "aten.prod.default", [torch.zeros(0, 3), None], lambda t, dt: A.prod.default(t, dtype=dt), note="empty")
case("prod_dim", "aten.prod.dim_int", [prodin(5, 7), 1, False, None], lambda t, d, k, dt: A.prod.dim_int(t, d, k, dtype=dt))
case("prod_dim", "aten.prod.dim_int", [prodin(5, 7), 0, True, None], lambda t, d, k, dt: A.prod.dim_int(t, d, k, dtype=dt))
case("prod_dim", "aten.prod.dim_int", [View(prodin(3, 4, 5), "gap"), -1, False, None], lambda t, d, k, dt: A.prod.dim_int(t, d, k, dtype=dt), note="gap view")
case("prod_dim", "aten.prod.dim_int", [View(prodin(6, 70), "T"), 1, False, None], lambda t, d, k, dt: A.prod.dim_int(t, d, k, dtype=dt), note="transposed")
case("prod_dim", "aten.prod.dim_int", [prodin(6, 8, dtype=torch.bfloat16), 1, False, None], lambda t, d, k, dt: A.prod.dim_int(t, d, k, dtype=dt))
case("prod_dim", "aten.prod.dim_int", [torch.randint(-3, 4, (6, 8), dtype=torch.int8), 0, False, None], lambda t, d, k, dt: A.prod.dim_int(t, d, k, dtype=dt), note="i8 -> i64")
case("prod_dim", "aten.prod.dim_int", [torch.randint(-3, 4, (6, 8)), 1, False, ("dtype", torch.int16)], lambda t, d, k, dt: A.prod.dim_int(t, d, k, dtype=dt), note="dtype i16 (wraps)")
case("prod_dim", "aten.prod.dim_int", [edge_rows(rn(4, 6, dtype=torch.float64)), 1, False, None], lambda t, d, k, dt: A.prod.dim_int(t, d, k, dtype=dt), note="edge")


def var_c(x, dim, correction=None, keepdim=False, note=""):
    case("var", "aten.var.correction", [x, dim, correction, keepdim],
         lambda t, d, c, k: A.var.correction(t, d, correction=c, keepdim=k), note)


def var_d(x, dim, unbiased=True, keepdim=False, note=""):
    case("var_dim", "aten.var.dim", [x, dim, unbiased, keepdim], lambda t, d, u, k: A.var.dim(t, d, u, k), note)


var_c(rn(6, 10), [1])
var_c(rn(6, 10), [0], 0, True)
var_c(rn(6, 10), None)
var_c(rn(3, 4, 200) + 3.0, [-1], 1, True)
var_c(rn(3, 4, 5), [0, 2], 2)
var_c(rn(5, 12, dtype=torch.float64), [1], 2)
var_c(rn(5, 12, dtype=torch.bfloat16), [1])
var_c(edge_rows(rn(4, 6)), [1], note="edge")
var_c(rn(3, 1), [1], note="n = correction: inf / nan")
var_c(View(rn(8, 5), "T"), [0], None, False, note="transposed")
var_d(rn(6, 10), [1])
var_d(rn(6, 10), [0], False, True, note="biased")
var_d(rn(6, 10), None, note="all")
var_d(rn(3, 4, 5, dtype=torch.float64), [1, 2], True, False)
var_d(rn(5, 12, dtype=torch.bfloat16), [1], False)
var_d(View(rn(3, 4, 5), "gap"), [-1], note="gap view")



# ---------------------------------------------------------------- group norm / batch norm
def xshape(x):
    return x.view.shape if isinstance(x, View) else x.shape


def group_norm(x, w, b, G, eps=1e-5, note=""):
    sh = xshape(x)
    N, C = sh[0], sh[1]
    HW = math.prod(sh[2:])
    case("group_norm", "aten.native_group_norm.default", [x, w, b, N, C, HW, G, eps],
         lambda t, ww, bb, n, c, hw, g, e: A.native_group_norm(t, ww, bb, n, c, hw, g, e), note)


def group_norm_bwd(x, w, G, mask, note=""):
    N, C = x.shape[0], x.shape[1]
    HW = math.prod(x.shape[2:])
    _, mean, rstd = A.native_group_norm(x, w, None, N, C, HW, G, 1e-5)
    g = rn(*x.shape, dtype=x.dtype)
    case("group_norm_bwd", "aten.native_group_norm_backward.default", [g, x, mean, rstd, w, N, C, HW, G, mask],
         lambda gg, t, m, r, ww, n, c, hw, gr, mk: A.native_group_norm_backward(gg, t, m, r, ww, n, c, hw, gr, mk),
         note)


group_norm(rn(2, 6, 5), rn(6), rn(6), 3)
group_norm(rn(3, 4, 2, 3), None, None, 2)
group_norm(rn(2, 8, 4), rn(8), None, 8, note="one channel a group")
group_norm(rn(2, 8, 4), None, rn(8), 1, note="one group")
group_norm(rn(2, 4, 300), rn(4), rn(4), 2, note="multi-block rows")
group_norm(rn(2, 6, 5, dtype=torch.float64), rn(6, dtype=torch.float64), rn(6, dtype=torch.float64), 3)
group_norm(rn(2, 6, 5, dtype=torch.bfloat16), rn(6, dtype=torch.bfloat16), rn(6, dtype=torch.bfloat16), 3)
group_norm(rn(3, 4, 6), rn(4), rn(4), 2, 0.1, note="eps=0.1")
group_norm_bwd(rn(2, 6, 5), rn(6), 3, [True, True, True])
group_norm_bwd(rn(3, 4, 2, 3), None, 2, [True, False, False])
group_norm_bwd(rn(2, 8, 4), rn(8), 4, [False, True, True])
group_norm_bwd(rn(4, 4, 200), rn(4), 2, [True, True, True], note="multi-block rows")
group_norm_bwd(rn(2, 6, 5, dtype=torch.float64), rn(6, dtype=torch.float64), 3, [True, True, True])
group_norm_bwd(rn(2, 6, 5, dtype=torch.bfloat16), rn(6, dtype=torch.bfloat16), 3, [True, True, True])


# native_batch_norm mutates its running stats: the references run on copies (the inputs stored
# are the values before the update); the _native_batch_norm_legit* ops (newer than 1.13) are
# computed by native_batch_norm
def batch_norm(name, op, x, w, b, rm, rv, training, momentum=0.1, eps=1e-5, note=""):
    c = lambda t: None if t is None else t.clone()  # noqa: E731
    if op == "aten.native_batch_norm.default" or op == "aten._native_batch_norm_legit.default":
        case(name, op, [x, w, b, rm, rv, training, momentum, eps],
             lambda t, ww, bb, m, v, tr, mo, e: A.native_batch_norm(t, ww, bb, c(m), c(v), tr, mo, e), note)
    elif op == "aten._native_batch_norm_legit.no_stats":
        case(name, op, [x, w, b, training, momentum, eps],
             lambda t, ww, bb, tr, mo, e: A.native_batch_norm(t, ww, bb, None, None, tr, mo, e), note)
    else:
        case(name, op, [x, w, b, rm, rv, momentum, eps],
             lambda t, ww, bb, m, v, mo, e: A.native_batch_norm(t, ww, bb, c(m), c(v), False, mo, e), note)


def batch_norm_bwd(x, w, rm, rv, train, mask, note=""):
    _, sm, si = A.native_batch_norm(x, w, None, None if train else rm, None if train else rv, train, 0.1, 1e-5)
    g = rn(*x.shape, dtype=x.dtype)
    sm, si = (sm, si) if train else (None, None)
    case("batch_norm_bwd", "aten.native_batch_norm_backward.default", [g, x, w, rm, rv, sm, si, train, 1e-5, mask],
         lambda gg, t, ww, m, v, s1, s2, tr, e, mk: A.native_batch_norm_backward(gg, t, ww, m, v, s1, s2, tr, e, mk),
         note)


def stats(C, dtype=torch.float32):
    return rn(C, dtype=dtype) * 0.1, rn(C, dtype=dtype).abs() + 0.5


BN = "aten.native_batch_norm.default"
LEGIT = "aten._native_batch_norm_legit.default"
NOSTATS = "aten._native_batch_norm_legit.no_stats"
NOTRAIN = "aten._native_batch_norm_legit_no_training.default"
batch_norm("batch_norm", BN, rn(4, 3, 5), rn(3), rn(3), *stats(3), True)
batch_norm("batch_norm", BN, rn(4, 3, 5), rn(3), rn(3), *stats(3), False, note="eval")
batch_norm("batch_norm", BN, rn(6, 4), None, None, None, None, True, note="2-d, no stats")
batch_norm("batch_norm", BN, View(rn(2, 3, 4, 5), "T"), rn(3), rn(3), *stats(3), True, note="transposed")
batch_norm("batch_norm", BN, rn(8, 2, 40), rn(2), rn(2), *stats(2), True, note="multi-block channels")
batch_norm("batch_norm", BN, rn(4, 3, 5, dtype=torch.float64), rn(3, dtype=torch.float64),
           rn(3, dtype=torch.float64), *stats(3, torch.float64), True)
batch_norm("batch_norm", BN, rn(4, 3, 5, dtype=torch.bfloat16), rn(3), rn(3), *stats(3), True, note="bf16, f32 params")
batch_norm("bn_legit", LEGIT, rn(4, 3, 5), rn(3), rn(3), *stats(3), True)
batch_norm("bn_legit", LEGIT, rn(4, 3, 5), rn(3), None, *stats(3), False, note="eval")
batch_norm("bn_legit", LEGIT, rn(3, 4, 2, 2, dtype=torch.float64), None, None, *stats(4, torch.float64), True)
batch_norm("bn_legit_no_stats", NOSTATS, rn(4, 3, 5), rn(3), rn(3), None, None, True)
batch_norm("bn_legit_no_stats", NOSTATS, rn(4, 3, 5, dtype=torch.bfloat16), rn(3), None, None, None, True,
           note="bf16, f32 weight")
batch_norm("bn_legit_no_training", NOTRAIN, rn(4, 3, 5), rn(3), rn(3), *stats(3), None)
batch_norm("bn_legit_no_training", NOTRAIN, rn(2, 3, 4, dtype=torch.float64), None, rn(3, dtype=torch.float64),
           *stats(3, torch.float64), None)
batch_norm_bwd(rn(4, 3, 5), rn(3), *stats(3), True, [True, True, True])
batch_norm_bwd(rn(4, 3, 5), rn(3), *stats(3), False, [True, True, True], note="eval")
batch_norm_bwd(rn(6, 4), None, None, None, True, [True, False, False], note="2-d, no weight")
batch_norm_bwd(rn(8, 2, 40), rn(2), *stats(2), True, [True, True, True], note="multi-block channels")
batch_norm_bwd(rn(4, 3, 5, dtype=torch.float64), rn(3, dtype=torch.float64), *stats(3, torch.float64), True,
               [True, True, True])


def bn_functional(x, w, b, rm, rv, training, note=""):
    def f(t, ww, bb, m, v, tr, mo, e):
        m2, v2 = m.clone(), v.clone()
        return tuple(A.native_batch_norm(t, ww, bb, m2, v2, tr, mo, e)) + (m2, v2)

    case("bn_functional", "aten._native_batch_norm_legit_functional.default", [x, w, b, rm, rv, training, 0.1, 1e-5],
         f, note)


bn_functional(rn(4, 3, 5), rn(3), rn(3), *stats(3), True)
bn_functional(rn(4, 3, 5), rn(3), rn(3), *stats(3), False, note="eval")
bn_functional(rn(5, 2, 3, dtype=torch.float64), None, None, *stats(2, torch.float64), True)


# ---------------------------------------------------------------- cdist / pdist
def cdist(x1, x2, p, mode=None, note=""):
    case("cdist", "aten._cdist_forward.default", [x1, x2, p, mode], lambda a, b, pp, m: A._cdist_forward(a, b, pp, m),
         note)


def pdist(x, p, note=""):
    case("pdist", "aten._pdist_forward.default", [x, p], lambda a, pp: A._pdist_forward(a, pp), note)


cdist(rn(5, 7), rn(6, 7), 2.0)
cdist(rn(2, 5, 7), rn(2, 4, 7), 1.0)
cdist(rn(5, 3), rn(4, 3), 0.0, note="p=0 (counts)")
cdist(rn(3, 4, 6), rn(1, 5, 6), 3.0, note="p=3, broadcast batch")
cdist(rn(30, 8), rn(28, 8), 2.0, 2, note="more than 25 rows, no mm")
cdist(View(rn(6, 5), "T"), rn(4, 5), 2.0, note="transposed")
cdist(rn(5, 7, dtype=torch.float64), rn(6, 7, dtype=torch.float64), 2.0)
cdist(rn(5, 7, dtype=torch.float64), rn(6, 7, dtype=torch.float64), 1.5)
pdist(rn(6, 5), 2.0)
pdist(rn(7, 3), 1.0)
pdist(rn(5, 4), 0.5, note="p=0.5")
pdist(rn(1, 4), 2.0, note="one row: empty")
pdist(rn(6, 5, dtype=torch.float64), 2.0)


# ---------------------------------------------------------------- embedding bag
def emb_bag(w, idx, offs, mode, psw=None, last=False, pad=-1, note=""):
    case("embedding_bag", "aten._embedding_bag.default", [w, idx, offs, False, mode, False, psw, last, pad],
         lambda ww, ii, oo, s, m, sp, p, l, pd: A._embedding_bag(ww, ii, oo, s, m, sp, p, l, pd), note)


bag_idx = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 0, 4])
bag_offs = torch.tensor([0, 4, 4, 6])
for m in (0, 1, 2):
    emb_bag(rn(10, 3), bag_idx, bag_offs, m, note="empty bag")
    emb_bag(rn(10, 3), bag_idx, bag_offs, m, pad=4, note="padding_idx=4")
    emb_bag(rn(10, 5, dtype=torch.float64), bag_idx, bag_offs, m)
emb_bag(rn(10, 3), bag_idx, bag_offs, 0, psw=rn(10), note="per_sample_weights")
emb_bag(rn(10, 3), bag_idx, torch.tensor([0, 4, 4, 6, 10]), 1, last=True, note="include_last_offset")
emb_bag(rn(10, 3), bag_idx.to(torch.int32), bag_offs.to(torch.int32), 2, note="int32 indices")
emb_bag(rn(10, 4, dtype=torch.float16), bag_idx, bag_offs, 1)
emb_bag(rn(50, 8), torch.randint(0, 50, (200,)), torch.tensor([0, 3, 50, 51, 120]), 0, note="many")



# ---------------------------------------------------------------- nll_loss2d (cross entropy on [N, C, H, W])
def nll2d(x, target, w, reduction, ignore=-100, note=""):
    case("nll2d", "aten.nll_loss2d_forward.default", [x, target, w, reduction, ignore],
         lambda t, tg, ww, r, ig: A.nll_loss2d_forward(t, tg, ww, r, ig), note)
    xt = x.view if isinstance(x, View) else x
    _, total = A.nll_loss2d_forward(xt, target, w, reduction, ignore)
    g = rn(*target.shape, dtype=xt.dtype) if reduction == 0 else rn(dtype=xt.dtype) + 1.5
    case("nll2d_bwd", "aten.nll_loss2d_backward.default", [g, x, target, w, reduction, ignore, total],
         lambda gg, t, tg, ww, r, ig, tw: A.nll_loss2d_backward(gg, t, tg, ww, r, ig, tw), note)


lsm2d = A._log_softmax(rn(2, 4, 3, 5), 1, False)
tg2d = torch.randint(0, 4, (2, 3, 5))
tg2d[0, 1, 2] = -100
for red in (0, 1, 2):
    nll2d(lsm2d, tg2d, None, red)
    nll2d(lsm2d, tg2d, rn(4).abs() + 0.1, red, note="weight")
nll2d(View(A._log_softmax(rn(2, 3, 4, 4), 1, False), "gap"), torch.randint(0, 3, (2, 4, 4)), None, 1,
      note="strided input")


# ---------------------------------------------------------------- embedding bag backward
# The weight's gradient, every mode, through both entry points; the dense one only where the
# forward filled offset2bag (mode sum's fast path leaves it empty, and PyTorch's dense backward
# then fails: _embedding_bag_backward rebuilds it from the offsets).
# With scale_grad_by_freq, PyTorch 1.13's CPU kernel divides each row's gradient by the count
# of the wrong row (it indexes the counts by the number of the row's group among the sorted
# unique indices, not by the row: EmbeddingBag.cpp, _embedding_bag_dense_backward_cpu_sum_mean);
# the reference is then the gradient without scaling divided by the row's own count, as the
# operator is documented ("scale gradients by the inverse of frequency of the words").
def emb_bag_bwd(w, idx, offs, mode, psw=None, pad=-1, freq=False, note=""):
    out, o2b, bs, mi = A._embedding_bag(w, idx, offs, freq, mode, False, psw, False, pad)
    g = rn(*out.shape, dtype=w.dtype)
    counts = torch.bincount(idx[idx != pad] if pad >= 0 else idx, minlength=w.shape[0]).clamp(min=1)

    def by_freq(fn, at):
        def ref(*a):
            a = list(a)
            if not a[at]:
                return fn(*a)
            a[at] = False
            return (fn(*a).double() / counts[:, None].double()).to(w.dtype)
        return ref

    if freq:
        note = (note + "; " if note else "") + "reference corrected: PyTorch 1.13 scales by another row's count"
    if o2b.numel() == idx.numel():
        case("embedding_bag_dense_backward", "aten._embedding_bag_dense_backward.default",
             [g, idx, o2b, bs, mi, w.shape[0], freq, mode, psw, pad],
             by_freq(lambda *a: A._embedding_bag_dense_backward(*a), 6), note)
    case("embedding_bag_backward", "aten._embedding_bag_backward.default",
         [g, idx, offs, o2b, bs, mi, w.shape[0], freq, mode, False, psw, pad],
         by_freq(lambda *a: A._embedding_bag_backward(*a), 7), note)


for m in (0, 1, 2):
    emb_bag_bwd(rn(10, 3), bag_idx, bag_offs, m, note="empty bag")
    emb_bag_bwd(rn(10, 3), bag_idx, bag_offs, m, pad=4, note="padding_idx=4")
    emb_bag_bwd(rn(10, 3), bag_idx, bag_offs, m, freq=True, note="scale_grad_by_freq")
    emb_bag_bwd(rn(10, 5, dtype=torch.float64), bag_idx, bag_offs, m)
emb_bag_bwd(rn(10, 3), bag_idx, bag_offs, 0, psw=rn(10), note="per_sample_weights")
emb_bag_bwd(rn(50, 8), torch.randint(0, 50, (200,)), torch.tensor([0, 3, 50, 51, 120]), 1, note="many")

os.makedirs(OUT_DIR, exist_ok=True)
write_safetensors(os.path.join(OUT_DIR, "reduction.safetensors"), sorted(tensors.items()))
with open(os.path.join(OUT_DIR, "reduction.cases.json"), "w") as f:
    json.dump({"family": "reduction", "generator": "tests/runtime/gen_reduction_refs.py",
               "torch": torch.__version__, "cases": cases, "skipped": skipped}, f, indent=1)
print("%d cases (%d skipped), %d tensors, %d bytes" % (len(cases), len(skipped), len(tensors),
                                          os.path.getsize(os.path.join(OUT_DIR, "reduction.safetensors"))))

#!/usr/bin/python3
"""Reference outputs of PyTorch (Debian's python3-torch 1.13, CPU) for the shape-family
kernels of the fxlens CPU runtime: views (view, reshape, permute, expand, slice, select,
split, ...), copies (cat, stack, repeat, flip, *_scatter, *_backward, repeat_interleave,
one_hot), indexing (embedding, index_select, index, index_put, index_add, gather, scatter*,
nonzero) and sorting (sort, argsort, topk).

Writes tests/data/kernels/shape.safetensors (inputs and outputs, keys "<case>/in<k>" and
"<case>/out<k>") and tests/data/kernels/shape.cases.json: per case the op target, its
arguments in schema order (keyword-only ones included), the output keys, and per output the
sizes / strides / storage_offset PyTorch gave it and which input tensor's storage it shares
("alias": the input's position among the case's tensor inputs, or null). "compare" is "exact"
(bitwise) or "close" (ops that add floats: allclose + the test's determinism checks).

An argument is a JSON value: number/bool/null/list as is, {"dtype": "float32"} for a
ScalarType, {"tensor": key} for a tensor; a non-contiguous input is stored as its contiguous
base storage (1-d) plus "sizes", "strides", "offset" of the view over it, so that a view's
storage offset is comparable.

Tie order: sort/argsort/topk references use lower-index-first for equal keys (the runtime's
documented order; torch.sort(stable=True) gives it). PyTorch's unstable sort and its topk
order ties the way libstdc++'s introsort / nth_element leave them: cases with ties say so in
their note and take the stable order as the reference.

Run: /usr/bin/python3 tests/runtime/gen_shape_refs.py   (from the repository root)
"""
import json
import os
import sys

import torch

A = torch.ops.aten
torch.manual_seed(4321)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from st_util import TORCH_NAME, write_safetensors  # noqa: E402

OUT_DIR = os.path.join(HERE, "..", "data", "kernels")
INT64_MAX = 9223372036854775807

tensors = {}
cases = []
counters = {}
skipped = []


def put(key, t):
    assert key not in tensors, key
    if t.dtype == torch.bool:  # keep raw bytes (clone would normalise a bool view of 5 to 1)
        tensors[key] = t.detach().view(torch.uint8).clone().contiguous().view(torch.bool)
    else:
        tensors[key] = t.detach().clone().contiguous()


class View:
    """A strided view over a 1-d base storage: kind 'T' = the values of x stored with the
    dims reversed (a transposed layout), 'gap' = every other element from offset 3,
    'raw' = View(base, kind='raw', sizes=..., strides=..., offset=...) as given."""

    def __init__(self, x, kind, sizes=None, strides=None, offset=0):
        if kind == "T":
            perm = list(range(x.dim()))[::-1]
            store = x.permute(perm).contiguous()
            base = store.reshape(-1)
            st = [0] * x.dim()
            cst = list(store.stride())
            for i, p in enumerate(perm):
                st[p] = cst[i]
            off = 0
            sizes = list(x.shape)
        elif kind == "gap":
            n = x.numel()
            base = torch.zeros(2 * n + 5, dtype=x.dtype)
            if x.dtype.is_floating_point:
                base.fill_(-7.25)
            st = [2 * s for s in torch.empty(x.shape).stride()] if x.dim() else []
            off = 3
            sizes = list(x.shape)
            torch.as_strided(base, sizes, st, off).copy_(x)
        elif kind == "raw":
            base, st, off = x.reshape(-1).clone(), list(strides), offset
        else:
            raise ValueError(kind)
        self.base, self.sizes, self.strides, self.offset = base, list(sizes), list(st), off

    def make(self):
        """A fresh torch view (over a fresh copy of the base) for the reference call."""
        return torch.as_strided(self.base.clone(), self.sizes, self.strides, self.offset)


def is_tensorish(a):
    return isinstance(a, (torch.Tensor, View))


def case(name, op, args, fn, note="", compare="exact", check_strides=True, ref=None):
    """args: schema-ordered values: python values, tensors, Views, lists of those (Tensor[]
    and Tensor?[]), ('dtype', torch.dtype). fn(*torch_args) is PyTorch's call; ref (optional)
    maps the torch args to the reference when it is not fn's result (tie order)."""
    k = counters.get(name, 0)
    cid = "%s/%03d" % (name, k)
    targs, jargs, keys = [], [], []
    tin = []  # torch input tensors in order (for alias detection)
    nin = [0]

    def conv(a):
        if isinstance(a, View):
            key = "%s/in%d" % (cid, nin[0])
            nin[0] += 1
            keys.append(key)
            t = a.make()
            tin.append(t)
            return t, {"tensor": key, "sizes": a.sizes, "strides": a.strides, "offset": a.offset}, (key, a.base)
        if isinstance(a, torch.Tensor):
            key = "%s/in%d" % (cid, nin[0])
            nin[0] += 1
            keys.append(key)
            t = a.detach().clone().contiguous()
            tin.append(t)
            return t, {"tensor": key}, (key, t)
        if isinstance(a, tuple) and a and a[0] == "dtype":
            return a[1], {"dtype": TORCH_NAME[a[1]]}, None
        if isinstance(a, list) and any(is_tensorish(x) for x in a):
            ts, js = [], []
            for x in a:
                if x is None:
                    ts.append(None)
                    js.append(None)
                else:
                    t, j, st = conv(x)
                    stores.append(st)
                    ts.append(t)
                    js.append(j)
            return ts, js, None
        return a, a, None

    stores = []
    for a in args:
        t, j, st = conv(a)
        if st:
            stores.append(st)
        targs.append(t)
        jargs.append(j)
    # inputs are stored before the call (in-place ops change them)
    saved = [(key, b.detach().clone()) for key, b in stores]
    try:
        res = (ref or fn)(*targs)
    except RuntimeError as e:
        msg = str(e).splitlines()[0]
        if "not implemented for" not in msg:
            raise
        skipped.append({"op": op, "note": note, "why": msg})
        return
    counters[name] = k + 1
    for key, b in saved:
        put(key, b)
    if not isinstance(res, (tuple, list)):
        res = (res,)
    outs, meta = [], []
    for i, r in enumerate(res):
        key = "%s/out%d" % (cid, i)
        put(key, r)
        outs.append(key)
        alias = None
        if r.numel() > 0:
            for j, t in enumerate(tin):
                if t.numel() > 0 and t.storage().data_ptr() == r.storage().data_ptr():
                    alias = j
                    break
        meta.append({"sizes": list(r.shape), "strides": list(r.stride()), "offset": r.storage_offset(),
                     "alias": alias})
    cases.append({"id": cid, "op": op, "args": jargs, "outputs": outs, "out_meta": meta, "note": note,
                  "compare": compare, "check_strides": check_strides})


def error_case(name, op, args, fn, note=""):
    """A call PyTorch rejects: the runtime must raise KernelError (not crash)."""
    k = counters.get(name, 0)
    cid = "%s/%03d" % (name, k)
    targs, jargs, n = [], [], 0
    for a in args:
        if isinstance(a, list) and any(isinstance(x, torch.Tensor) for x in a):
            js = []
            for x in a:
                if x is None:
                    js.append(None)
                else:
                    key = "%s/in%d" % (cid, n)
                    n += 1
                    put(key, x)
                    js.append({"tensor": key})
            targs.append(a)
            jargs.append(js)
        elif isinstance(a, View):
            key = "%s/in%d" % (cid, n)
            n += 1
            put(key, a.base)
            targs.append(a.make())
            jargs.append({"tensor": key, "sizes": a.sizes, "strides": a.strides, "offset": a.offset})
        elif isinstance(a, torch.Tensor):
            key = "%s/in%d" % (cid, n)
            n += 1
            put(key, a)
            targs.append(a)
            jargs.append({"tensor": key})
        elif isinstance(a, tuple) and a and a[0] == "dtype":
            targs.append(a[1])
            jargs.append({"dtype": TORCH_NAME[a[1]]})
        else:
            targs.append(a)
            jargs.append(a)
    try:
        fn(*targs)
    except (RuntimeError, IndexError) as e:
        counters[name] = k + 1
        cases.append({"id": cid, "op": op, "args": jargs, "outputs": [], "error": str(e).splitlines()[0], "note": note})
        return
    raise AssertionError("PyTorch accepted error case %s (%s)" % (cid, note))


def rn(*shape, dtype=torch.float32):
    return torch.randn(shape, dtype=torch.float64).to(dtype)


def ri(*shape, lo=0, hi=10, dtype=torch.int64):
    return torch.randint(lo, hi, shape, dtype=torch.int64).to(dtype)


def specials(x):
    x = x.clone()
    f = x.view(-1)
    vals = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), 3e38, 1e-42]
    for i, v in enumerate(vals[: f.numel()]):
        f[i] = v
    return x


# ================================================================ views
def view(x, size, note=""):
    case("view", "aten.view.default", [x, size], lambda t, s: A.view(t, s), note)
    case("unsafe_view", "aten._unsafe_view.default", [x, size], lambda t, s: A._unsafe_view(t, s), note)


view(rn(2, 3, 4), [6, 4])
view(rn(2, 3, 4), [-1])
view(rn(2, 3, 4), [4, -1, 2])
view(rn(2, 3, 4), [2, 1, 3, 1, 4], note="size-1 dims")
view(View(rn(2, 3, 4), "gap"), [6, 4], note="strided, mergeable dims")
view(View(rn(2, 3, 4), "gap"), [2, 3, 2, 2], note="strided, split last dim")
view(View(rn(4, 3), "T"), [4, 3, 1], note="transposed + size-1 dim")
view(View(rn(4, 3), "T"), [1, 4, 1, 3], note="transposed, size-1 dims")
view(rn(5), [5, 1])
view(torch.tensor(3.5), [1], note="0-dim")
view(torch.tensor([3.5]), [], note="to 0-dim")
view(rn(0, 3), [3, 0], note="empty")
view(rn(0, 3), [0, 3, 1], note="empty")
view(ri(2, 6), [3, 4])
view(rn(2, 6, dtype=torch.bfloat16), [12])
view(View(rn(2, 1, 6), "raw", sizes=[2, 1, 6], strides=[6, 99, 1]), [12], note="size-1 dim with odd stride")


def view_dtype(x, dt, note=""):
    case("view_dtype", "aten.view.dtype", [x, ("dtype", dt)], lambda t, d: A.view(t, d), note)


view_dtype(rn(2, 4), torch.int32)
view_dtype(rn(2, 4), torch.bfloat16, note="smaller item")
view_dtype(rn(2, 4, dtype=torch.bfloat16), torch.float32, note="larger item")
view_dtype(ri(3, 2), torch.float32, note="i64 -> f32")
view_dtype(ri(3, 2, dtype=torch.uint8), torch.bool)
view_dtype(View(rn(4, 6), "raw", sizes=[2, 6], strides=[12, 1], offset=6), torch.float16, note="offset view")


def reshape(x, shape, note=""):
    case("reshape", "aten.reshape.default", [x, shape], lambda t, s: A.reshape(t, s), note)


reshape(rn(2, 3, 4), [6, 4], note="contiguous: view")
reshape(View(rn(3, 4), "T"), [12], note="transposed: copy")
reshape(View(rn(3, 4), "T"), [3, 4, 1], note="transposed but viewable: view")
reshape(View(rn(2, 3, 4), "gap"), [6, 4], note="strided viewable: view")
reshape(View(rn(2, 3, 4), "gap"), [4, 6], note="strided not viewable: copy")
reshape(rn(0, 4), [4, 0, 1], note="empty")
reshape(torch.tensor(2.0), [1, 1], note="0-dim")
reshape(View(ri(3, 4, dtype=torch.int32), "T"), [-1, 2], note="int copy")


def reshape_alias(x, size, stride, note=""):
    case("reshape_alias", "aten._reshape_alias.default", [x, size, stride],
         lambda t, a, b: A._reshape_alias(t, a, b), note)


reshape_alias(rn(24), [2, 3, 4], [12, 4, 1])
reshape_alias(rn(4, 6), [24], [1])
reshape_alias(View(rn(4, 6), "gap"), [4, 3, 2], [12, 4, 2], note="strided input")
reshape_alias(View(rn(4, 6), "raw", sizes=[3, 6], strides=[6, 1], offset=6), [18], [1], note="offset kept")


def as_strided(x, size, stride, off, note=""):
    case("as_strided", "aten.as_strided.default", [x, size, stride, off],
         lambda t, a, b, o: A.as_strided(t, a, b, o), note)


as_strided(rn(20), [3, 4], [4, 1], None)
as_strided(rn(20), [3, 3], [1, 4], 2)
as_strided(View(rn(5, 4), "raw", sizes=[4, 4], strides=[4, 1], offset=4), [2, 2], [8, 1], None, note="offset from self")
as_strided(rn(6), [3, 4], [0, 1], 1, note="stride 0")


def permute(x, dims, note=""):
    case("permute", "aten.permute.default", [x, dims], lambda t, d: A.permute(t, d), note)


permute(rn(2, 3, 4), [2, 0, 1])
permute(rn(2, 3, 4, 5), [0, 3, 2, 1])
permute(rn(2, 3, 4), [-1, 0, -2], note="negative dims")
permute(View(rn(2, 3, 4), "gap"), [1, 2, 0])
permute(torch.tensor(1.0), [], note="0-dim")
permute(rn(3, 0, 2), [2, 1, 0], note="empty")


def t_(x, note=""):
    case("t", "aten.t.default", [x], lambda a: A.t(a), note)


t_(rn(3, 4))
t_(rn(5), note="1-d")
t_(torch.tensor(1.5), note="0-dim")
t_(View(rn(3, 4), "T"))
t_(View(rn(3, 4), "gap"))


def transpose(x, d0, d1, note=""):
    case("transpose", "aten.transpose.int", [x, d0, d1], lambda a, b, c: A.transpose(a, b, c), note)


transpose(rn(2, 3, 4), 0, 1)
transpose(rn(2, 3, 4), -1, -2)
transpose(rn(2, 3, 4), 1, 1, note="same dim")
transpose(torch.tensor(2.0), 0, -1, note="0-dim")
transpose(View(rn(2, 3, 4), "gap"), 0, 2)


def expand(x, size, note=""):
    case("expand", "aten.expand.default", [x, size, False], lambda a, s, i: A.expand(a, s, implicit=i), note)


expand(rn(3, 1), [2, 3, 4])
expand(rn(3, 1), [-1, 5])
expand(rn(3, 1), [1, 1, 3, 1], note="new leading size-1 dims")
expand(torch.tensor(1.0), [2, 3], note="0-dim")
expand(rn(1), [1, 1, 1], note="all size 1")
expand(View(rn(2, 1, 3), "gap"), [4, 2, 5, 3], note="strided")
expand(rn(3, 1), [3, 0], note="to size 0")
expand(rn(4), [2, 4])


def unsqueeze(x, d, note=""):
    case("unsqueeze", "aten.unsqueeze.default", [x, d], lambda a, b: A.unsqueeze(a, b), note)


unsqueeze(rn(2, 3), 0)
unsqueeze(rn(2, 3), -1)
unsqueeze(rn(2, 3), 1)
unsqueeze(torch.tensor(1.0), 0, note="0-dim")
unsqueeze(torch.tensor(1.0), -1, note="0-dim")
unsqueeze(View(rn(2, 3), "gap"), 1)
unsqueeze(View(rn(2, 3), "T"), 2)


def squeeze_dim(x, d, note=""):
    case("squeeze_dim", "aten.squeeze.dim", [x, d], lambda a, b: A.squeeze(a, b), note)


squeeze_dim(rn(2, 1, 3), 1)
squeeze_dim(rn(2, 1, 3), -2)
squeeze_dim(rn(2, 1, 3), 0, note="not size 1: unchanged view")
squeeze_dim(torch.tensor(1.0), 0, note="0-dim")
squeeze_dim(View(rn(2, 1, 3), "raw", sizes=[2, 1, 3], strides=[3, 77, 1]), 1)


def squeeze_dims_ref(x, dims):
    # torch 1.13 has no squeeze.dims: squeeze each dim from the highest (same result)
    nd = max(x.dim(), 1)
    for d in sorted({d % nd for d in dims}, reverse=True):
        x = A.squeeze(x, d)
    return x


case("squeeze_dims", "aten.squeeze.dims", [rn(1, 2, 1, 3, 1), [0, -1, 3]],
     None, ref=lambda a, d: squeeze_dims_ref(a, d), note="reference: squeeze.dim per dim")
case("squeeze_dims", "aten.squeeze.dims", [rn(1, 2, 1), [0, 2, 1]],
     None, ref=lambda a, d: squeeze_dims_ref(a, d), note="reference: squeeze.dim per dim")
case("squeeze", "aten.squeeze.default", [rn(1, 3, 1, 2)], lambda a: A.squeeze(a))
case("squeeze", "aten.squeeze.default", [rn(1, 1)], lambda a: A.squeeze(a), note="all dims")
case("squeeze", "aten.squeeze.default", [View(rn(1, 3, 1, 2), "gap")], lambda a: A.squeeze(a))


def select(x, d, i, note=""):
    case("select", "aten.select.int", [x, d, i], lambda a, b, c: A.select(a, b, c), note)


select(rn(4, 5), 0, 2)
select(rn(4, 5), -1, 0)
select(rn(4, 5), 1, -1, note="negative index")
select(rn(2, 3, 4), 1, 2)
select(View(rn(4, 5), "T"), 0, 3)
select(View(rn(2, 3, 4), "gap"), 2, 1)
select(rn(6), 0, 5, note="to 0-dim")


def slice_(x, d, s, e, st=1, note=""):
    case("slice", "aten.slice.Tensor", [x, d, s, e, st], lambda a, b, c, dd, f: A.slice(a, b, c, dd, f), note)


slice_(rn(6, 4), 0, 1, 4)
slice_(rn(6, 4), 0, None, None, note="None bounds")
slice_(rn(6, 4), 1, 0, INT64_MAX, note="end INT64_MAX")
slice_(rn(6, 4), 0, -4, -1, note="negative bounds")
slice_(rn(10), 0, 1, 9, 3, note="step 3")
slice_(rn(10), 0, 7, 3, note="empty")
slice_(rn(10), 0, 20, 30, note="beyond the end")
slice_(rn(10), 0, -30, 2, note="start below -size")
slice_(View(rn(6, 4), "gap"), 1, 1, 4, 2)
slice_(View(rn(6, 4), "T"), 0, 2, None)
slice_(rn(3, 8), -1, 2, 7, 2)


def diagonal(x, off, d1, d2, note=""):
    case("diagonal", "aten.diagonal.default", [x, off, d1, d2], lambda a, b, c, d: A.diagonal(a, b, c, d), note)


diagonal(rn(4, 5), 0, 0, 1)
diagonal(rn(4, 5), 2, 0, 1)
diagonal(rn(4, 5), -1, 0, 1)
diagonal(rn(2, 3, 4), 0, 1, 2)
diagonal(rn(2, 3, 4), 1, -1, 0)
diagonal(rn(3, 3), 5, 0, 1, note="empty")
diagonal(View(rn(4, 5), "gap"), 1, 1, 0)


def unfold(x, d, size, step, note=""):
    case("unfold", "aten.unfold.default", [x, d, size, step], lambda a, b, c, e: A.unfold(a, b, c, e), note)


unfold(rn(10), 0, 3, 2)
unfold(rn(3, 8), 1, 4, 4)
unfold(rn(3, 8), -1, 2, 3)
unfold(torch.tensor(1.0), 0, 1, 1, note="0-dim")
unfold(View(rn(4, 6), "gap"), 0, 2, 1)

for opn, fn in (("alias", A.alias), ("detach", A.detach), ("lift_fresh", A.lift_fresh)):
    case(opn, "aten.%s.default" % opn, [rn(2, 3)], lambda a, f=fn: f(a))
    case(opn, "aten.%s.default" % opn, [View(rn(2, 3), "gap")], lambda a, f=fn: f(a))


def split(x, s, d, note=""):
    case("split", "aten.split.Tensor", [x, s, d], lambda a, b, c: A.split(a, b, c), note)


split(rn(5, 3), 2, 0, note="last piece smaller")
split(rn(4, 6), 3, 1)
split(rn(4, 6), 10, -1, note="one piece")
split(rn(0, 3), 0, 0, note="empty, split_size 0")
split(View(rn(6, 4), "T"), 4, 0)
split(rn(2, 8, dtype=torch.bfloat16), 3, 1)

case("split_with_sizes", "aten.split_with_sizes.default", [rn(5, 3), [1, 3, 1], 0], lambda a, b, c: A.split_with_sizes(a, b, c))
case("split_with_sizes", "aten.split_with_sizes.default", [View(rn(3, 6), "gap"), [0, 4, 2], -1],
     lambda a, b, c: A.split_with_sizes(a, b, c), note="a 0-size piece")
case("unbind", "aten.unbind.int", [rn(3, 4), 0], lambda a, b: A.unbind(a, b))
case("unbind", "aten.unbind.int", [View(rn(3, 4), "T"), 1], lambda a, b: A.unbind(a, b))
case("unbind", "aten.unbind.int", [rn(2, 3, 2), -1], lambda a, b: A.unbind(a, b))
for n, c, d in ((5, 3, 0), (6, 4, 0), (6, 6, 0), (2, 5, 0), (0, 3, 0), (7, 2, -1)):
    x = rn(n, 3) if d == 0 else rn(3, n)
    case("chunk", "aten.chunk.default", [x, c, d], lambda a, b, e: A.chunk(a, b, e), note="%d into %d" % (n, c))


# ================================================================ copies
def cat(ts, d, note=""):
    case("cat", "aten.cat.default", [ts, d], lambda a, b: A.cat(a, b), note)


cat([rn(2, 3), rn(4, 3)], 0)
cat([rn(2, 3), rn(2, 1), rn(2, 5)], 1)
cat([rn(2, 3, 4), rn(2, 3, 2)], -1)
cat([rn(2, 3)], 0, note="one tensor")
cat([View(rn(3, 4), "T"), View(rn(2, 4), "gap"), rn(1, 4)], 0, note="strided inputs")
cat([rn(2, 3), rn(0, 3), rn(1, 3)], 0, note="empty piece")
cat([rn(2, 3), rn(0), rn(1, 3)], 0, note="legacy 1-d empty skipped")
cat([rn(0), rn(0)], 0, note="all legacy empty")
cat([rn(2, 3), rn(2, 3, dtype=torch.bfloat16)], 0, note="f32 + bf16 promote")
cat([ri(2, 2), rn(2, 2)], 1, note="i64 + f32 promote")
cat([torch.tensor([[True, False]]), ri(1, 2)], 0, note="bool + i64 promote")
cat([rn(2, 2, dtype=torch.float16), rn(2, 2, dtype=torch.bfloat16)], 0, note="f16 + bf16 -> f32")
cat([ri(2, 2, dtype=torch.int32), ri(3, 2, dtype=torch.int32)], 0)
cat([specials(rn(2, 4)), rn(1, 4)], 0, note="special values")
cat([rn(4, 8), rn(4, 8), rn(4, 8)], 1)


def stack(ts, d, note=""):
    case("stack", "aten.stack.default", [ts, d], lambda a, b: A.stack(a, b), note)


stack([rn(2, 3), rn(2, 3)], 0)
stack([rn(2, 3), rn(2, 3), rn(2, 3)], 1)
stack([rn(2, 3), rn(2, 3)], -1)
stack([View(rn(2, 3), "T"), View(rn(2, 3), "gap")], 2)
stack([torch.tensor(1.0), torch.tensor(2.0)], 0, note="0-dim")
stack([ri(4), ri(4)], 0)

case("repeat", "aten.repeat.default", [rn(2, 3), [2, 1, 2]], lambda a, b: A.repeat(a, b))
case("repeat", "aten.repeat.default", [rn(2, 3), [1, 1]], lambda a, b: A.repeat(a, b))
case("repeat", "aten.repeat.default", [torch.tensor(3.0), [3]], lambda a, b: A.repeat(a, b), note="0-dim")
case("repeat", "aten.repeat.default", [View(rn(2, 3), "T"), [2, 0]], lambda a, b: A.repeat(a, b), note="zero repeat")
case("repeat", "aten.repeat.default", [ri(3), [2, 2]], lambda a, b: A.repeat(a, b))

case("flip", "aten.flip.default", [rn(3, 4), [0]], lambda a, b: A.flip(a, b))
case("flip", "aten.flip.default", [rn(2, 3, 4), [0, -1]], lambda a, b: A.flip(a, b))
case("flip", "aten.flip.default", [View(rn(3, 4), "T"), [1]], lambda a, b: A.flip(a, b), note="transposed: layout kept")
case("flip", "aten.flip.default", [View(rn(3, 4), "gap"), [0, 1]], lambda a, b: A.flip(a, b))
case("flip", "aten.flip.default", [ri(5), []], lambda a, b: A.flip(a, b), note="no dims")


def slice_scatter(x, src, d, s, e, st, note=""):
    case("slice_scatter", "aten.slice_scatter.default", [x, src, d, s, e, st],
         lambda a, b, c, dd, ee, f: A.slice_scatter(a, b, c, dd, ee, f), note)


slice_scatter(rn(6, 4), rn(2, 4), 0, 1, 3, 1)
slice_scatter(rn(6, 4), rn(6, 2), 1, 0, None, 2)
slice_scatter(View(rn(6, 4), "T"), rn(3, 4), 0, -3, INT64_MAX, 1, note="transposed self: layout kept")
case("select_scatter", "aten.select_scatter.default", [rn(4, 5), rn(5), 0, 2], lambda a, b, c, d: A.select_scatter(a, b, c, d))
case("select_scatter", "aten.select_scatter.default", [View(rn(4, 5), "gap"), rn(4), -1, -1],
     lambda a, b, c, d: A.select_scatter(a, b, c, d))
case("as_strided_scatter", "aten.as_strided_scatter.default", [rn(4, 5), rn(2, 2), [2, 2], [5, 1], 6],
     lambda a, b, c, d, e: A.as_strided_scatter(a, b, c, d, e))
case("as_strided_scatter", "aten.as_strided_scatter.default", [rn(12), rn(3, 2), [3, 2], [1, 3], None],
     lambda a, b, c, d, e: A.as_strided_scatter(a, b, c, d, e))


def slice_bwd(g, sizes, d, s, e, st, note=""):
    case("slice_backward", "aten.slice_backward.default", [g, sizes, d, s, e, st],
         lambda a, b, c, dd, ee, f: A.slice_backward(a, b, c, dd, ee, f), note)


slice_bwd(rn(2, 4), [6, 4], 0, 1, 3, 1)
slice_bwd(rn(6, 2), [6, 4], 1, 1, 5, 2)
slice_bwd(rn(6, 4), [6, 4], 0, 0, INT64_MAX, 1, note="whole")
slice_bwd(rn(3, 4), [6, 4], 0, -3, INT64_MAX, 1, note="negative start")
slice_bwd(View(rn(2, 4), "T"), [6, 4], 0, 2, 4, 1, note="transposed grad")
slice_bwd(rn(2, 4, dtype=torch.bfloat16), [5, 4], 0, 3, 5, 1)
case("select_backward", "aten.select_backward.default", [rn(5), [4, 5], 0, 2], lambda a, b, c, d: A.select_backward(a, b, c, d))
case("select_backward", "aten.select_backward.default", [rn(4), [4, 5], 1, -1], lambda a, b, c, d: A.select_backward(a, b, c, d))
case("select_backward", "aten.select_backward.default", [View(rn(3, 4), "T"), [3, 2, 4], 1, 1],
     lambda a, b, c, d: A.select_backward(a, b, c, d), note="transposed grad")


def rep_int(r, out_size=None, note=""):
    case("repeat_interleave", "aten.repeat_interleave.Tensor", [r, out_size],
         lambda a, o: A.repeat_interleave(a, output_size=o), note)


rep_int(torch.tensor([2, 0, 3, 1]))
rep_int(torch.tensor([2, 0, 3, 1]), 6, note="output_size")
rep_int(torch.tensor([1, 2, 3], dtype=torch.int32), note="int32 repeats")
rep_int(torch.tensor([], dtype=torch.int64), note="empty")
rep_int(View(torch.tensor([2]), "raw", sizes=[24], strides=[0]), note="expanded (stride 0), as in moe_dispatch")

case("one_hot", "aten.one_hot.default", [torch.tensor([3, 0, 2]), -1], lambda a, b: A.one_hot(a, b))
case("one_hot", "aten.one_hot.default", [torch.tensor([[3, 0], [1, 1]]), 5], lambda a, b: A.one_hot(a, b))
case("one_hot", "aten.one_hot.default", [torch.tensor([], dtype=torch.int64), 4], lambda a, b: A.one_hot(a, b), note="empty")


# ================================================================ indexing
def embedding(w, idx, pad=-1, note=""):
    case("embedding", "aten.embedding.default", [w, idx, pad, False, False],
         lambda a, b, c, d, e: A.embedding(a, b, c, d, e), note)


embedding(rn(10, 4), ri(2, 3))
embedding(rn(10, 4), ri(7), note="1-d indices")
embedding(rn(10, 4), ri(2, 3, dtype=torch.int32), note="int32 indices")
embedding(rn(10, 4, dtype=torch.bfloat16), ri(3, 2), 2, note="padding_idx (forward ignores it)")
embedding(View(rn(10, 4), "T"), ri(5), note="transposed weight")
embedding(rn(10, 4), torch.empty(0, 3, dtype=torch.int64), note="empty")
embedding(specials(rn(8, 2)), torch.arange(8), note="special values")


def index_select(x, d, idx, note=""):
    case("index_select", "aten.index_select.default", [x, d, idx], lambda a, b, c: A.index_select(a, b, c), note)


index_select(rn(5, 4), 0, torch.tensor([4, 0, 0, 2]))
index_select(rn(5, 4), 1, torch.tensor([3, 1]))
index_select(rn(2, 5, 4), -2, torch.tensor([1, 1, 4], dtype=torch.int32), note="int32 index")
index_select(View(rn(5, 4), "T"), 0, torch.tensor([2, 3]))
index_select(rn(5, 4), 0, torch.tensor(3), note="0-dim index")
index_select(rn(5, 4), 1, torch.tensor([], dtype=torch.int64), note="empty index")
index_select(torch.tensor(2.5), 0, torch.tensor([0]), note="0-dim self")
index_select(torch.tensor([True, False, True]), 0, torch.tensor([2, 1]), note="bool")
index_select(torch.arange(24), 0, torch.tensor([0, 0, 1, 1, 2, 2]), note="as in moe_dispatch")


def index(x, idx, note="", check_strides=True):
    case("index", "aten.index.Tensor", [x, idx], lambda a, b: A.index(a, b), note, check_strides=check_strides)


index(rn(5, 4), [torch.tensor([4, 0, 0, 2])])
index(rn(5, 4), [None, torch.tensor([3, -1])], note="None first, negative index")
index(rn(5, 4, 3), [torch.tensor([0, 4]), torch.tensor([1, 2])], note="two indices")
index(rn(5, 4, 3), [torch.tensor([[0], [4]]), torch.tensor([1, 2, 3])], note="broadcast indices")
index(rn(5, 4, 3), [torch.tensor([0, 4]), None, torch.tensor([1, 2])], note="non-adjacent: to front")
index(rn(5, 4, 3), [None, torch.tensor([[1, 2], [3, 0]])], note="2-d index in the middle")
m = torch.rand(5, 4) > 0.5
index(rn(5, 4), [m], note="bool mask")
index(rn(5, 4, 3), [None, torch.tensor([True, False, True, True])], note="bool mask on dim 1")
index(rn(5, 4), [m.to(torch.uint8)], note="uint8 mask")
index(View(rn(5, 4), "T"), [torch.tensor([1, 3])], note="transposed self")
index(View(rn(3, 4, 5), "T"), [None, torch.tensor([1, 3])], note="transposed 3-d self")
index(rn(48), [torch.randperm(48)], note="as in moe_dispatch")
index(rn(5, 4), [torch.tensor([], dtype=torch.int64)], note="empty index")
index(ri(5, 4), [torch.zeros(5, 4, dtype=torch.bool)], note="all-false mask")


def index_put(x, idx, v, acc, note="", compare="exact"):
    case("index_put", "aten.index_put.default", [x, idx, v, acc], lambda a, b, c, d: A.index_put(a, b, c, d), note, compare)


index_put(rn(5, 4), [torch.tensor([4, 0, 2])], rn(3, 4), False)
index_put(rn(5, 4), [torch.tensor([4, 0, 4, 4])], rn(4, 4), False, note="duplicates: last writer wins")
index_put(rn(5, 4), [torch.tensor([4, 0, 4, 4])], rn(4, 4), True, note="accumulate duplicates", compare="close")
index_put(rn(48), [torch.randperm(48)], rn(48), True, note="as in moe_dispatch", compare="close")
index_put(rn(5, 4), [torch.tensor([1, 3])], rn(4), False, note="values broadcast")
index_put(rn(5, 4), [m], torch.tensor(9.5), False, note="bool mask, scalar value")
index_put(rn(5, 4, 3), [torch.tensor([0, 4]), None, torch.tensor([1, 2])], rn(2, 4), False, note="non-adjacent")
index_put(View(rn(5, 4), "T"), [None, torch.tensor([0, 2])], rn(5, 2), False, note="transposed self: layout kept")
index_put(ri(6), [torch.tensor([1, 1, 5])], ri(3), True, note="int accumulate")
index_put(rn(6, dtype=torch.bfloat16), [torch.tensor([1, 1, 5, 1])], rn(4, dtype=torch.bfloat16), True,
          note="bf16 accumulate (rounds per add)", compare="close")
case("index_put_", "aten.index_put_.default", [rn(5, 4), [torch.tensor([4, 0, 4])], rn(3, 4), True],
     lambda a, b, c, d: A.index_put_(a, b, c, d), note="in place", compare="close")


def index_add(x, d, idx, src, alpha=1, note="", compare="close"):
    case("index_add", "aten.index_add.default", [x, d, idx, src, alpha],
         lambda a, b, c, e, f: A.index_add(a, b, c, e, alpha=f), note, compare)


index_add(rn(5, 4), 0, torch.tensor([4, 0, 4, 1]), rn(4, 4))
index_add(rn(5, 4), 1, torch.tensor([1, 1, 3]), rn(5, 3))
index_add(rn(6), 0, torch.tensor([5, 0, 5]), rn(3), note="1-d (scalar path)")
index_add(rn(5, 4), 0, torch.tensor([2, 2]), rn(2, 4), 2.5, note="alpha")
index_add(ri(5, 3), 0, torch.tensor([0, 0, 4], dtype=torch.int32), ri(3, 3), 3, note="int, int32 index", compare="exact")
index_add(torch.zeros(24, 32), 0, torch.randint(0, 24, (48,)), rn(48, 32), note="as in moe_dispatch")
index_add(rn(5, 4, dtype=torch.bfloat16), 0, torch.tensor([1, 1, 1]), rn(3, 4, dtype=torch.bfloat16))
index_add(View(rn(5, 4), "T"), 0, torch.tensor([0, 3]), View(rn(2, 4), "gap"), note="strided")


def gather(x, d, idx, note=""):
    case("gather", "aten.gather.default", [x, d, idx, False], lambda a, b, c, e: A.gather(a, b, c, sparse_grad=e), note)


gather(rn(4, 5), 1, ri(4, 2, hi=5))
gather(rn(4, 5), 0, ri(3, 5, hi=4))
gather(rn(4, 5), -1, ri(2, 3, hi=5), note="index smaller than self")
gather(rn(2, 3, 4), 1, ri(2, 5, 4, hi=3))
gather(View(rn(4, 5), "T"), 1, View(ri(4, 2, hi=5), "T"), note="transposed")
gather(torch.tensor(1.5), 0, torch.tensor(0), note="0-dim")
gather(rn(4, 5), 1, torch.empty(4, 0, dtype=torch.int64), note="empty")


def scatter(x, d, idx, src, note=""):
    case("scatter", "aten.scatter.src", [x, d, idx, src], lambda a, b, c, e: A.scatter(a, b, c, e), note)


scatter(torch.zeros(4, 5), 1, torch.tensor([[0, 3], [1, 1], [4, 0], [2, 2]]), rn(4, 2), note="duplicates in a row: last wins")
scatter(torch.zeros(24, 4), -1, torch.stack([torch.randperm(4)[:2] for _ in range(24)]), rn(24, 2), note="as in moe")
scatter(rn(3, 4), 0, ri(2, 4, hi=3), rn(5, 6), note="src larger than index")
scatter(View(rn(4, 5), "T"), 1, ri(4, 2, hi=5), rn(4, 2), note="transposed self")
scatter(ri(3, 3), 0, torch.tensor([[2, 1, 0]]), ri(1, 3), note="int")


def scatter_add(x, d, idx, src, note="", compare="close"):
    case("scatter_add", "aten.scatter_add.default", [x, d, idx, src], lambda a, b, c, e: A.scatter_add(a, b, c, e), note, compare)


scatter_add(torch.zeros(4, 5), 1, torch.tensor([[0, 0, 0], [1, 4, 1], [4, 0, 2], [2, 2, 2]]), rn(4, 3))
scatter_add(rn(3, 4), 0, ri(6, 4, hi=3), rn(6, 4), note="many duplicates")
scatter_add(ri(3, 4), 0, ri(6, 4, hi=3), ri(6, 4), note="int", compare="exact")
case("scatter_add_", "aten.scatter_add_.default", [rn(3, 4), 0, ri(6, 4, hi=3), rn(6, 4)],
     lambda a, b, c, e: A.scatter_add_(a, b, c, e), note="in place", compare="close")


def scatter_reduce(x, d, idx, src, red, incl, note=""):
    case("scatter_reduce", "aten.scatter_reduce.two", [x, d, idx, src, red, incl],
         lambda a, b, c, e, f, g: A.scatter_reduce(a, b, c, e, f, include_self=g), note, "close")


sr_idx = torch.tensor([[0, 0, 2], [1, 3, 1], [3, 3, 3]])
for red in ("sum", "prod", "mean", "amax", "amin"):
    for incl in (True, False):
        scatter_reduce(rn(3, 4), 1, sr_idx, rn(3, 3), red, incl)
scatter_reduce(ri(3, 4), 1, sr_idx, ri(3, 3), "mean", True, note="int mean floors")
scatter_reduce(specials(rn(3, 4)), 1, sr_idx, specials(rn(3, 3)), "amax", True, note="nan propagates")


def nonzero(x, note=""):
    case("nonzero", "aten.nonzero.default", [x], lambda a: A.nonzero(a), note)


nonzero(torch.tensor([[0.0, 1.5, -0.0], [float("nan"), 0.0, 2.0]]), note="-0 is zero, nan is not")
nonzero(torch.rand(3, 4, 2) > 0.5)
nonzero(ri(7, hi=3))
nonzero(torch.tensor(0.0), note="0-dim zero")
nonzero(torch.tensor(3), note="0-dim")
nonzero(torch.zeros(0, 3), note="empty")
nonzero(View(rn(3, 4) * (torch.rand(3, 4) > 0.5), "T"), note="transposed")


# ================================================================ sorting
def stable_sort(t, dim=-1, descending=False):
    return torch.sort(t, dim=dim, descending=descending, stable=True)


def sort(x, d, desc, ties=False, note=""):
    ref = (lambda a, b, c: stable_sort(a, b, c)) if ties else None
    case("sort", "aten.sort.default", [x, d, desc], lambda a, b, c: A.sort(a, b, c), note, ref=ref)


sort(rn(10), -1, False)
sort(rn(10), 0, True)
sort(rn(4, 6), 0, False)
sort(rn(4, 6), 1, True)
sort(torch.tensor([0, 2, 2, 3, 1, 2, 1, 0, 2, 0, 2, 1, 0, 2, 3, 1, 2, 3, 1, 2, 1, 0, 1, 2, 2, 3, 2, 3, 3, 0, 3, 0, 0, 3,
                   0, 2, 1, 3, 3, 2, 3, 0, 3, 0, 2, 0, 0, 1]), -1, False, ties=True,
     note="moe_dispatch's expert ids; ties: reference is the stable order")
sort(ri(40, hi=4), -1, True, ties=True, note="ties descending: stable reference")
sort(specials(rn(12)), -1, False, ties=True, note="nan last ascending; -0 == 0")
sort(specials(rn(12)), -1, True, ties=True, note="nan first descending")
sort(rn(9, dtype=torch.bfloat16), -1, False, ties=True)
sort(View(rn(4, 6), "T"), 1, False, note="transposed: layout kept")
sort(View(rn(4, 6), "gap"), 0, True, note="strided: dense layout")
sort(torch.tensor([True, False, True, False]), -1, False, ties=True)
sort(torch.tensor(2.0), -1, False, note="0-dim")
sort(torch.empty(0, 3), 0, False, note="empty")


def sort_stable(x, stable, d, desc, note=""):
    case("sort_stable", "aten.sort.stable", [x, stable, d, desc],
         lambda a, s, b, c: A.sort(a, stable=s, dim=b, descending=c), note,
         ref=lambda a, s, b, c: stable_sort(a, b, c))


sort_stable(ri(30, hi=3), True, -1, False)
sort_stable(ri(30, hi=3), True, 0, True)
sort_stable(ri(5, 8, hi=3, dtype=torch.int32), None, 1, False, note="stable=None")
sort_stable(specials(rn(3, 7)), True, 1, True)


def argsort(x, d, desc, note=""):
    case("argsort", "aten.argsort.default", [x, d, desc], lambda a, b, c: A.argsort(a, b, c), note,
         ref=lambda a, b, c: stable_sort(a, b, c)[1])


argsort(rn(10), -1, False)
argsort(ri(3, 20, hi=4), 1, True, note="ties: stable reference")


def topk(x, k, d, largest, ties=False, note=""):
    def ref(a, kk, dd, lg, so):
        v, i = stable_sort(a, dd, lg)
        return v.narrow(dd, 0, kk).contiguous(), i.narrow(dd, 0, kk).contiguous()
    case("topk", "aten.topk.default", [x, k, d, largest, True], lambda a, b, c, e, f: A.topk(a, b, c, e, f), note,
         ref=ref if ties else None)


topk(rn(24, 4), 2, -1, True, note="as in moe")
topk(rn(10), 3, 0, False)
topk(rn(5, 6), 5, 0, True)
topk(rn(100), 1, -1, True, note="k*64 <= n path")
topk(ri(30, hi=4).float(), 7, -1, True, ties=True, note="ties: lower index first")
topk(ri(30, hi=4).float(), 7, -1, False, ties=True, note="ties smallest")
topk(specials(rn(10)), 4, -1, True, ties=True, note="nan is largest")
topk(specials(rn(10)), 4, -1, False, ties=True, note="smallest: nan last")
topk(rn(4, 8, dtype=torch.bfloat16), 3, 1, True, ties=True)
topk(ri(4, 8, hi=100), 3, 1, True, ties=True, note="int")
topk(View(rn(6, 5), "T"), 2, 0, True, note="transposed")
topk(rn(4, 5), 0, 1, True, note="k = 0")


# ================================================================ rejected inputs
error_case("view", "aten.view.default", [View(rn(3, 4), "T"), [12]], lambda a, b: A.view(a, b), note="not viewable")
error_case("view", "aten.view.default", [rn(4, 3), [5, -1]], lambda a, b: A.view(a, b), note="bad size")
error_case("view", "aten.view.default", [rn(4, 3), [-1, -1]], lambda a, b: A.view(a, b), note="two -1")
error_case("permute", "aten.permute.default", [rn(2, 3), [0, 0]], lambda a, b: A.permute(a, b), note="duplicate dims")
error_case("permute", "aten.permute.default", [rn(2, 3), [0]], lambda a, b: A.permute(a, b), note="too few dims")
error_case("t", "aten.t.default", [rn(2, 3, 4)], lambda a: A.t(a), note="3-d")
error_case("transpose", "aten.transpose.int", [rn(2, 3), 0, 2], lambda a, b, c: A.transpose(a, b, c), note="dim out of range")
error_case("expand", "aten.expand.default", [rn(2, 3), [3, 3], False], lambda a, b, c: A.expand(a, b), note="size mismatch")
error_case("expand", "aten.expand.default", [rn(2, 3), [3], False], lambda a, b, c: A.expand(a, b), note="too few sizes")
error_case("select", "aten.select.int", [rn(2, 3), 1, 3], lambda a, b, c: A.select(a, b, c), note="index out of range")
error_case("select", "aten.select.int", [torch.tensor(1.0), 0, 0], lambda a, b, c: A.select(a, b, c), note="0-dim")
error_case("slice", "aten.slice.Tensor", [rn(5), 0, 0, 5, 0], lambda a, b, c, d, e: A.slice(a, b, c, d, e), note="step 0")
error_case("split", "aten.split.Tensor", [rn(4, 3), 0, 0], lambda a, b, c: A.split(a, b, c), note="split_size 0")
error_case("split_with_sizes", "aten.split_with_sizes.default", [rn(4, 3), [1, 2], 0],
           lambda a, b, c: A.split_with_sizes(a, b, c), note="sizes do not sum")
error_case("cat", "aten.cat.default", [[rn(2, 3), rn(2, 4)], 0], lambda a, b: A.cat(a, b), note="sizes differ")
error_case("cat", "aten.cat.default", [[torch.tensor(1.0), torch.tensor(2.0)], 0], lambda a, b: A.cat(a, b), note="0-dim")
error_case("stack", "aten.stack.default", [[rn(2, 3), rn(3, 2)], 0], lambda a, b: A.stack(a, b), note="sizes differ")
error_case("embedding", "aten.embedding.default", [rn(5, 2), torch.tensor([5]), -1, False, False],
           lambda a, b, c, d, e: A.embedding(a, b), note="index out of range")
error_case("embedding", "aten.embedding.default", [rn(5, 2), torch.tensor([-1]), -1, False, False],
           lambda a, b, c, d, e: A.embedding(a, b), note="negative index")
error_case("index_select", "aten.index_select.default", [rn(5, 2), 0, torch.tensor([1, 7])],
           lambda a, b, c: A.index_select(a, b, c), note="index out of range")
error_case("index_select", "aten.index_select.default", [rn(5, 2), 0, torch.tensor([1.0])],
           lambda a, b, c: A.index_select(a, b, c), note="float index")
error_case("index", "aten.index.Tensor", [rn(5, 2), [torch.tensor([5])]], lambda a, b: A.index(a, b), note="out of range")
error_case("index", "aten.index.Tensor", [rn(5, 2), [torch.tensor([-6])]], lambda a, b: A.index(a, b), note="below -size")
error_case("index", "aten.index.Tensor", [rn(5, 2), [torch.tensor([1]), torch.tensor([1]), torch.tensor([0])]],
           lambda a, b: A.index(a, b), note="too many indices")
error_case("index", "aten.index.Tensor", [rn(5, 2), [torch.ones(4, dtype=torch.bool)]], lambda a, b: A.index(a, b),
           note="mask shape mismatch")
error_case("index", "aten.index.Tensor", [rn(5, 2), [torch.tensor([0, 1]), torch.tensor([0, 1, 1])]],
           lambda a, b: A.index(a, b), note="indices do not broadcast")
error_case("index_put", "aten.index_put.default", [rn(5, 2), [torch.tensor([1, 2])], rn(3, 2), False],
           lambda a, b, c, d: A.index_put(a, b, c, d), note="values do not broadcast")
error_case("index_put", "aten.index_put.default", [rn(5, 2), [torch.tensor([1, 2])], ri(2, 2), False],
           lambda a, b, c, d: A.index_put(a, b, c, d), note="dtype mismatch")
error_case("index_add", "aten.index_add.default", [rn(5, 2), 0, torch.tensor([5]), rn(1, 2), 1],
           lambda a, b, c, d, e: A.index_add(a, b, c, d), note="index out of range")
error_case("gather", "aten.gather.default", [rn(4, 5), 1, torch.tensor([[5]]), False],
           lambda a, b, c, d: A.gather(a, b, c), note="index out of range")
error_case("gather", "aten.gather.default", [rn(4, 5), 1, torch.tensor([[-1]]), False],
           lambda a, b, c, d: A.gather(a, b, c), note="negative index")
error_case("gather", "aten.gather.default", [rn(4, 5), 1, torch.tensor([0]), False],
           lambda a, b, c, d: A.gather(a, b, c), note="rank mismatch")
error_case("scatter", "aten.scatter.src", [rn(4, 5), 1, torch.tensor([[7]]), rn(1, 1)],
           lambda a, b, c, d: A.scatter(a, b, c, d), note="index out of range")
error_case("topk", "aten.topk.default", [rn(4, 5), 6, -1, True, True], lambda a, b, c, d, e: A.topk(a, b, c, d, e),
           note="k too large")
error_case("repeat_interleave", "aten.repeat_interleave.Tensor", [torch.tensor([1, -1]), None],
           lambda a, b: A.repeat_interleave(a), note="negative repeat")
error_case("slice_backward", "aten.slice_backward.default", [rn(3, 4), [6, 4], 0, 0, 2, 1],
           lambda a, b, c, d, e, f: A.slice_backward(a, b, c, d, e, f), note="grad does not fit")
error_case("one_hot", "aten.one_hot.default", [torch.tensor([3, 0]), 3], lambda a, b: A.one_hot(a, b), note="class too large")


# ================================================================ padding (issue 14; appended last so the earlier
# cases keep their random inputs)
def cpad(x, pad, value=0, note=""):
    case("constant_pad_nd", "aten.constant_pad_nd.default", [x, pad, value],
         lambda a, p, v: A.constant_pad_nd(a, p, v), note)


cpad(rn(3, 4), [1, 2], note="last dim")
cpad(rn(2, 3, 4), [1, 0, 2, 3], 1.5, note="two dims, value 1.5")
cpad(rn(2, 3, 4), [-1, 2], note="negative left pad crops")
cpad(rn(2, 3, 4), [-1, -2, 0, -1], note="no positive pad: clone of the cropped view")
cpad(rn(2, 3, 4), [2, -3, -1, 1, 1, 0], -1e30, note="three dims mixed, -1e30")
cpad(specials(rn(4, 5)), [1, 1, 1, 1], 3.5, note="specials (nan, inf, -0, denormal) kept bitwise")
cpad(ri(3, 4), [2, 1], 7, note="i64 value 7")
cpad(ri(3, 4, dtype=torch.int8), [1, 1], -3, note="i8")
cpad(rn(3, 4) > 0, [1, 2], True, note="bool True")
cpad(rn(3, 4, dtype=torch.bfloat16), [0, 3], 0.1, note="bf16 0.1")
cpad(rn(3, 4, dtype=torch.float16), [2, 2], note="f16")
cpad(rn(3, 4, dtype=torch.float64), [1, 2, 1, 0], -2.5, note="f64")
cpad(View(rn(3, 4, 5), "T"), [1, 1], note="transposed input")
cpad(View(rn(3, 4, 5), "gap"), [0, 2, 1, 1], note="gap input")
cpad(View(rn(120), "raw", sizes=[2, 3, 4, 5], strides=[60, 1, 15, 3]), [1, 1, 2, 0], note="channels_last input")
cpad(View(rn(120), "raw", sizes=[2, 3, 4, 5], strides=[60, 1, 15, 3]), [-1, 0], note="channels_last, crop only")
cpad(View(rn(240), "raw", sizes=[2, 2, 3, 4, 5], strides=[120, 1, 40, 10, 2]), [1, 0, 0, 2, 1, 1], note="channels_last_3d input")
cpad(View(rn(250), "raw", sizes=[2, 3, 4, 5], strides=[120, 2, 30, 6], offset=1), [1, 1], note="channels-last-like, not dense")
cpad(View(rn(12), "raw", sizes=[4, 1, 3, 1], strides=[3, 1, 1, 1]), [1, 1], note="size-1 dims: contiguous")
cpad(rn(0, 3), [1, 1], 2.0, note="empty input")
cpad(rn(3, 4), [-2, -2], note="cropped to nothing")
cpad(rn(4), [], note="no pads")


def rpad(kind, k, x, pad, note=""):
    name = "%s_pad%dd" % (kind, k)
    fn = getattr(A, name)
    case(name, "aten.%s.default" % name, [x, pad], lambda a, p: fn(a, p), note)


for kind in ("reflection", "replication"):
    for k in ((1, 2, 3) if kind == "reflection" else (2, 3)):
        sz = [4, 5, 6][:k]
        lead = (2, 3) if k < 3 else (1, 2)
        pad = [2, 3, 1, 0, 3, 2][:2 * k]
        rpad(kind, k, rn(*lead, *sz), pad, note="batched")
        rpad(kind, k, rn(3, *sz), pad, note="no batch dim")
        rpad(kind, k, specials(rn(2, *sz)), [1] * (2 * k), note="specials")
        rpad(kind, k, rn(*lead, *sz, dtype=torch.float64), pad, note="f64")
        rpad(kind, k, rn(*lead, *sz, dtype=torch.bfloat16), pad, note="bf16")
        rpad(kind, k, rn(*lead, *sz, dtype=torch.float16), pad, note="f16")
        rpad(kind, k, ri(*lead, *sz), pad, note="i64")
        rpad(kind, k, View(rn(*lead, *sz), "T"), pad, note="transposed input")
        rpad(kind, k, View(rn(*lead, *sz), "gap"), pad, note="gap input")
        rpad(kind, k, rn(*lead, *sz), [-1, 2, 0, -1, 1, -2][:2 * k], note="negative pads")
        rpad(kind, k, rn(1, 1, *sz), [sz[k - 1 - j // 2] - 1 for j in range(2 * k)], note="pad = size - 1")
error_case("reflection_pad1d", "aten.reflection_pad1d.default", [rn(2, 3, 4), [4, 0]],
           lambda a, p: A.reflection_pad1d(a, p), note="pad not < size")
error_case("reflection_pad2d", "aten.reflection_pad2d.default", [rn(2, 3, 4), [1, 1, 0, 3]],
           lambda a, p: A.reflection_pad2d(a, p), note="pad not < size")
error_case("reflection_pad2d", "aten.reflection_pad2d.default", [rn(4, 4), [1, 1, 1, 1]],
           lambda a, p: A.reflection_pad2d(a, p), note="2-d input")
error_case("replication_pad3d", "aten.replication_pad3d.default", [rn(2, 3, 4), [1, 1, 1, 1, 1, 1]],
           lambda a, p: A.replication_pad3d(a, p), note="3-d input")
error_case("replication_pad2d", "aten.replication_pad2d.default", [rn(1, 3, 4), [-3, -2, 0, 0]],
           lambda a, p: A.replication_pad2d(a, p), note="output too small")
error_case("constant_pad_nd", "aten.constant_pad_nd.default", [rn(3, 4), [1, 1, 1]],
           lambda a, p: A.constant_pad_nd(a, p), note="odd pad length")
error_case("constant_pad_nd", "aten.constant_pad_nd.default", [rn(3, 4), [1, 1, 1, 1, 1, 1]],
           lambda a, p: A.constant_pad_nd(a, p), note="more pads than dims")


os.makedirs(OUT_DIR, exist_ok=True)
write_safetensors(os.path.join(OUT_DIR, "shape.safetensors"), sorted(tensors.items()))
with open(os.path.join(OUT_DIR, "shape.cases.json"), "w") as f:
    json.dump({"family": "shape", "generator": "tests/runtime/gen_shape_refs.py",
               "torch": torch.__version__, "cases": cases, "skipped": skipped}, f, indent=1)
print("%d cases (%d skipped), %d tensors, %d bytes" % (len(cases), len(skipped), len(tensors),
                                                      os.path.getsize(os.path.join(OUT_DIR, "shape.safetensors"))))
for s in skipped:
    print("skipped:", s)

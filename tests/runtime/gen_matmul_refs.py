#!/usr/bin/python3
"""Reference outputs of PyTorch (Debian python3-torch 1.13, CPU) for the matmul kernel family:
aten.mm / addmm / bmm / baddbmm. Writes tests/data/kernels/matmul.safetensors (keys
"<op>/<nnn>/in<k>" and "<op>/<nnn>/out") and tests/data/kernels/matmul.cases.json, which lists
every case: the op target, its scalar arguments, and for each tensor argument the stored
(contiguous) base and the strided view of it the op was given (sizes, strides, offset), so
transposed / strided / broadcast inputs are reproduced exactly by the C++ test.

Run: /usr/bin/python3 tests/runtime/gen_matmul_refs.py   (no arguments; deterministic)
"""
import json
import os
import sys

import torch

torch.manual_seed(1234)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from st_util import write_safetensors  # noqa: E402

OUT_DIR = os.path.join(HERE, "..", "data", "kernels")

tensors = {}  # key -> contiguous tensor
cases = []
counters = {}


def view_of(base, spec):
    if spec is None:
        return base
    return base.as_strided(spec["sizes"], spec["strides"], spec["offset"])


def add_case(op, fn, args, scalars=None, note=""):
    """args: list of (schema arg name, contiguous base tensor, view spec or None)."""
    scalars = scalars or {}
    short = op.split(".")[1]
    n = counters.get(short, 0)
    counters[short] = n + 1
    cid = "%s/%03d" % (short, n)
    inputs = []
    views = []
    for k, (name, base, spec) in enumerate(args):
        key = "%s/in%d" % (cid, k)
        base = base.contiguous()
        tensors[key] = base
        v = view_of(base, spec)
        views.append(v)
        inputs.append({"arg": name, "key": key, "view": spec})
    out = fn(*views, **scalars)
    entry = {"id": cid, "op": op, "inputs": inputs, "scalars": scalars, "out": cid + "/out",
             "dtype": str(out.dtype).replace("torch.", ""), "note": note}
    if out.dtype == torch.bfloat16:
        # PyTorch 1.13's CPU bf16 mm does not round once (its NN path loses up to ~20 bf16 ulps
        # against the exact product; its NT path matches). The reference is therefore the
        # numerics contract computed by PyTorch: widen to f32, compute, round once. PyTorch's
        # own bf16 output is kept as out_native for information.
        tensors[cid + "/out_native"] = out.contiguous()
        entry["out_native"] = cid + "/out_native"
        out = fn(*[v.float() for v in views], **scalars).bfloat16()
        entry["reference"] = "f32 compute, rounded once to bf16"
    tensors[cid + "/out"] = out.contiguous()
    cases.append(entry)


def t_view(shape_base):
    """View spec of base.t() for a 2-d contiguous base of shape (r, c)."""
    r, c = shape_base
    return {"sizes": [c, r], "strides": [1, c], "offset": 0}


def rand(*shape, dtype=torch.float32):
    """Integers in a small range; floats normal with std max(shape)**-0.5 (>= the reduced
    length of a matrix operand), so that dots stay O(1) and f32's allclose bound
    (1e-6 + 1e-5|e|) measures the kernel, not the cancellation of large partial sums."""
    if dtype in (torch.int64, torch.int32, torch.int16, torch.int8):
        return torch.randint(-9, 10, tuple(shape), dtype=dtype)
    if dtype == torch.uint8:
        return torch.randint(0, 20, tuple(shape), dtype=dtype)
    scale = max(list(shape) + [1]) ** -0.5
    return (torch.randn(tuple(shape), dtype=torch.float64) * scale).to(dtype)


def edge_matrix(m, k, dtype=torch.float32):
    """Random values with 0, -0, inf, -inf, nan, large and denormal entries sprinkled in."""
    x = rand(m, k, dtype=dtype)
    flat = x.view(-1)
    specials = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), 3e38, -2e38, 1e-40, -3e-41]
    for i, v in enumerate(specials):
        if i * 7 < flat.numel():
            flat[i * 7] = v
    return x


mm = torch.mm
addmm = torch.addmm
bmm = torch.bmm
baddbmm = torch.baddbmm

# ---------------- mm
for (m, k, n) in [(3, 4, 5), (1, 7, 5), (17, 33, 19), (64, 64, 64), (13, 300, 37), (2, 1, 3), (1, 1, 1), (40, 9, 70)]:
    add_case("aten.mm.default", mm, [("self", rand(m, k), None), ("mat2", rand(k, n), None)], note="contiguous %dx%dx%d" % (m, k, n))
add_case("aten.mm.default", mm, [("self", rand(5, 0), None), ("mat2", rand(0, 6), None)], note="empty K")
add_case("aten.mm.default", mm, [("self", rand(0, 4), None), ("mat2", rand(4, 3), None)], note="empty M")
add_case("aten.mm.default", mm, [("self", rand(3, 4), None), ("mat2", rand(4, 0), None)], note="empty N")
# linear pattern: x @ W.t() ; and A.t() @ B (weight gradient pattern)
add_case("aten.mm.default", mm, [("self", rand(11, 24), None), ("mat2", rand(29, 24), t_view((29, 24)))], note="mat2 transposed (linear)")
add_case("aten.mm.default", mm, [("self", rand(24, 11), t_view((24, 11))), ("mat2", rand(24, 29), None)], note="self transposed (weight grad)")
add_case("aten.mm.default", mm, [("self", rand(24, 11), t_view((24, 11))), ("mat2", rand(29, 24), t_view((29, 24)))], note="both transposed")
# strided: every other column of a wider matrix, with an offset; rows with a gap
add_case("aten.mm.default", mm, [("self", rand(9, 20), {"sizes": [9, 8], "strides": [20, 2], "offset": 3}),
                                  ("mat2", rand(12, 15), {"sizes": [8, 6], "strides": [15, 1], "offset": 31})], note="strided views with offsets")
# broadcast (stride 0) rows / columns
add_case("aten.mm.default", mm, [("self", rand(1, 6), {"sizes": [4, 6], "strides": [0, 1], "offset": 0}),
                                  ("mat2", rand(6, 1), {"sizes": [6, 5], "strides": [1, 0], "offset": 0})], note="expanded (stride 0)")
add_case("aten.mm.default", mm, [("self", edge_matrix(6, 10), None), ("mat2", edge_matrix(10, 7), None)], note="inf/nan/-0/large/denormal")
add_case("aten.mm.default", mm, [("self", torch.full((2, 3), 1e-30), None), ("mat2", torch.full((3, 2), 1e-15), None)], note="denormal products")
add_case("aten.mm.default", mm, [("self", torch.tensor([[-1.0, 0.0]]), None), ("mat2", torch.tensor([[0.0], [-0.0]]), None)], note="signed zeros")
for dt in (torch.float64, torch.bfloat16):
    add_case("aten.mm.default", mm, [("self", rand(7, 33, dtype=dt), None), ("mat2", rand(33, 10, dtype=dt), None)], note=str(dt))
    add_case("aten.mm.default", mm, [("self", rand(5, 16, dtype=dt), None), ("mat2", rand(9, 16, dtype=dt), t_view((9, 16)))], note=str(dt) + " transposed")
for dt in (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8):
    add_case("aten.mm.default", mm, [("self", rand(4, 6, dtype=dt), None), ("mat2", rand(6, 3, dtype=dt), None)], note=str(dt))

# ---------------- addmm
M, K, N = 6, 20, 9
for bias_shape, note in [((N,), "bias [N]"), ((M, N), "bias [M,N]"), ((1, N), "bias [1,N]"), ((M, 1), "bias [M,1]"), ((), "bias 0-d"), ((1,), "bias [1]")]:
    add_case("aten.addmm.default", addmm, [("self", rand(*bias_shape), None), ("mat1", rand(M, K), None), ("mat2", rand(K, N), None)], note=note)
add_case("aten.addmm.default", addmm, [("self", rand(N), None), ("mat1", rand(M, K), None), ("mat2", rand(N, K), t_view((N, K)))], note="linear: mat2 transposed")
add_case("aten.addmm.default", addmm, [("self", rand(N), None), ("mat1", rand(1, K), None), ("mat2", rand(N, K), t_view((N, K)))], note="1 row")
add_case("aten.addmm.default", addmm, [("self", rand(N), None), ("mat1", rand(M, 0), None), ("mat2", rand(0, N), None)], note="empty K")
add_case("aten.addmm.default", addmm, [("self", rand(N), None), ("mat1", rand(M, K), None), ("mat2", rand(K, N), None)], {"beta": 0.5, "alpha": 2.0}, note="beta 0.5 alpha 2")
add_case("aten.addmm.default", addmm, [("self", rand(N), None), ("mat1", rand(M, K), None), ("mat2", rand(K, N), None)], {"beta": -1.5, "alpha": 0.25}, note="beta -1.5 alpha 0.25")
add_case("aten.addmm.default", addmm, [("self", torch.full((N,), float("nan")), None), ("mat1", rand(M, K), None), ("mat2", rand(K, N), None)], {"beta": 0}, note="beta 0 ignores a NaN bias")
nanmat = rand(M, K)
nanmat[1, 3] = float("nan")
nanmat[2, 4] = float("inf")
add_case("aten.addmm.default", addmm, [("self", rand(N), None), ("mat1", nanmat, None), ("mat2", rand(K, N), None)], {"alpha": 0}, note="alpha 0 skips the product")
add_case("aten.addmm.default", addmm, [("self", rand(N), None), ("mat1", rand(M, K), None), ("mat2", rand(K, N), None)], {"alpha": 0, "beta": 0}, note="alpha 0 beta 0")
add_case("aten.addmm.default", addmm, [("self", edge_matrix(M, N), None), ("mat1", edge_matrix(M, K), None), ("mat2", rand(K, N), None)], note="edge values in bias and mat1")
add_case("aten.addmm.default", addmm, [("self", rand(N), {"sizes": [M, N], "strides": [0, 1], "offset": 0}), ("mat1", rand(K, M), t_view((K, M))), ("mat2", rand(K, N), None)], note="expanded bias, mat1 transposed")
for dt in (torch.float64, torch.bfloat16):
    add_case("aten.addmm.default", addmm, [("self", rand(N, dtype=dt), None), ("mat1", rand(M, K, dtype=dt), None), ("mat2", rand(N, K, dtype=dt), t_view((N, K)))], note=str(dt))
    add_case("aten.addmm.default", addmm, [("self", rand(M, N, dtype=dt), None), ("mat1", rand(M, K, dtype=dt), None), ("mat2", rand(K, N, dtype=dt), None)], {"beta": 0.5, "alpha": 3.0}, note=str(dt) + " beta/alpha")
for dt in (torch.int64, torch.int32, torch.uint8):
    add_case("aten.addmm.default", addmm, [("self", rand(N, dtype=dt), None), ("mat1", rand(M, 5, dtype=dt), None), ("mat2", rand(5, N, dtype=dt), None)], {"beta": 3, "alpha": 2}, note=str(dt))

# ---------------- bmm
for (b, m, k, n) in [(3, 4, 5, 6), (1, 1, 8, 3), (4, 17, 40, 9), (2, 3, 0, 4), (0, 3, 4, 5)]:
    add_case("aten.bmm.default", bmm, [("self", rand(b, m, k), None), ("mat2", rand(b, k, n), None)], note="contiguous %dx%dx%dx%d" % (b, m, k, n))
# attention-like: q @ k^T with k stored [b, n, k]
add_case("aten.bmm.default", bmm, [("self", rand(3, 7, 16), None), ("mat2", rand(3, 10, 16), {"sizes": [3, 16, 10], "strides": [160, 1, 16], "offset": 0})], note="mat2 transposed in the last two dims")
# heads split from a [B, T, H, D] tensor (permuted, strided batch)
add_case("aten.bmm.default", bmm, [("self", rand(5, 4, 6), {"sizes": [4, 5, 6], "strides": [6, 24, 1], "offset": 0}), ("mat2", rand(4, 6, 3), None)], note="self batch-strided (permuted)")
add_case("aten.bmm.default", bmm, [("self", rand(3, 5, 8), None), ("mat2", rand(1, 8, 4), {"sizes": [3, 8, 4], "strides": [0, 4, 1], "offset": 0})], note="mat2 expanded over the batch")
add_case("aten.bmm.default", bmm, [("self", edge_matrix(2 * 3, 9).view(2, 3, 9), None), ("mat2", rand(2, 9, 5), None)], note="edge values")
for dt in (torch.float64, torch.bfloat16, torch.int64, torch.int32):
    add_case("aten.bmm.default", bmm, [("self", rand(2, 5, 12, dtype=dt), None), ("mat2", rand(2, 12, 7, dtype=dt), None)], note=str(dt))

# ---------------- baddbmm
add_case("aten.baddbmm.default", baddbmm, [("self", rand(7), None), ("batch1", rand(3, 4, 10), None), ("batch2", rand(3, 10, 7), None)], note="bias [N]")
add_case("aten.baddbmm.default", baddbmm, [("self", rand(3, 4, 7), None), ("batch1", rand(3, 4, 10), None), ("batch2", rand(3, 10, 7), None)], {"beta": 0.5, "alpha": -2.0}, note="beta/alpha")
add_case("aten.baddbmm.default", baddbmm, [("self", rand(1, 4, 1), None), ("batch1", rand(3, 4, 10), None), ("batch2", rand(3, 10, 7), None)], {"beta": 0}, note="beta 0")
add_case("aten.baddbmm.default", baddbmm, [("self", rand(4, 7, dtype=torch.bfloat16), None), ("batch1", rand(2, 4, 10, dtype=torch.bfloat16), None), ("batch2", rand(2, 10, 7, dtype=torch.bfloat16), None)], note="bf16")

os.makedirs(OUT_DIR, exist_ok=True)
write_safetensors(os.path.join(OUT_DIR, "matmul.safetensors"), sorted(tensors.items()))
with open(os.path.join(OUT_DIR, "matmul.cases.json"), "w") as f:
    json.dump({"generator": "tests/runtime/gen_matmul_refs.py", "torch": torch.__version__, "cases": cases}, f, indent=1)
    f.write("\n")
print("%d cases, %d tensors" % (len(cases), len(tensors)))

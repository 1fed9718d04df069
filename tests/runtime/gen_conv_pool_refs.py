#!/usr/bin/python3
"""Reference outputs of PyTorch (Debian python3-torch 1.13, CPU) for the convolution and pooling
kernels (runtime/cpu/cpu_conv.cpp, cpu_pool.cpp): aten.convolution / convolution_backward,
max/avg/adaptive-avg pools and their backwards, upsample_nearest2d / upsample_bilinear2d and their
backwards, grid_sampler_2d.
Writes tests/data/kernels/conv_pool.safetensors and tests/data/kernels/conv_pool.cases.json:
each case names the op target, its arguments by schema name (constants as JSON; tensors as
{"tensor": key} plus the strided view of the stored contiguous base the op was given: sizes,
strides, offset), the keys of its outputs (null where the op returns None) and the strides PyTorch
gave them.

bf16 / f16 cases: PyTorch 1.13's CPU convolution has no f16 kernel and its bf16 paths do not
round once; their reference is the numerics contract computed by PyTorch: widen the inputs to
f32, run the op in f32, round the outputs once.

Run: /usr/bin/python3 tests/runtime/gen_conv_pool_refs.py   (no arguments; deterministic)
"""
import json
import os
import sys

import torch

torch.manual_seed(4321)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from st_util import TORCH_NAME, write_safetensors  # noqa: E402

OUT_DIR = os.path.join(HERE, "..", "data", "kernels")
aten = torch.ops.aten

tensors = {}
cases = []
counters = {}


class T:
    """A tensor argument: a contiguous base and a function making the view the op gets."""

    def __init__(self, base, view=None):
        self.base = base.contiguous()
        self.view = view

    def value(self):
        return self.view(self.base) if self.view else self.base


def spec_of(base, v):
    assert v.storage().data_ptr() == base.storage().data_ptr()
    return {"sizes": list(v.shape), "strides": list(v.stride()), "offset": v.storage_offset()}


def add_case(op, args, note=""):
    """args: (schema name, value) pairs in schema order; T values are tensors."""
    fn = eval("aten." + op.split(".", 1)[1])
    short = op.split(".")[1]
    n = counters.get(short, 0)
    counters[short] = n + 1
    cid = "%s/%03d" % (short, n)
    jargs, call = {}, []
    dtype = None
    for k, (name, a) in enumerate(args):
        if isinstance(a, T):
            key = "%s/in%d" % (cid, k)
            tensors[key] = a.base
            v = a.value()
            j = {"tensor": key}
            if a.view:
                j.update(spec_of(a.base, v))
            jargs[name] = j
            call.append(v)
            if dtype is None and v.is_floating_point():
                dtype = v.dtype
        else:
            jargs[name] = a
            call.append(a)
    entry = {"id": cid, "op": op, "args": jargs, "dtype": TORCH_NAME[dtype], "note": note}
    if dtype in (torch.bfloat16, torch.float16):
        call = [c.float() if isinstance(c, torch.Tensor) and c.is_floating_point() else c for c in call]
        entry["reference"] = "f32 compute, rounded once"
    out = fn(*call)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    keys, strides = [], []
    for i, o in enumerate(outs):
        if o is None:
            keys.append(None)
            strides.append(None)
            continue
        strides.append(list(o.stride()))
        if o.is_floating_point() and dtype in (torch.bfloat16, torch.float16):
            o = o.to(dtype)
        key = "%s/out%d" % (cid, i)
        tensors[key] = o.contiguous()
        keys.append(key)
    entry["outs"] = keys
    entry["out_strides"] = strides  # PyTorch's layout of each output (channels-last in, channels-last out)
    cases.append(entry)


def rand(*shape, dtype=torch.float32, scale=1.0):
    return (torch.randn(tuple(shape), dtype=torch.float64) * scale).to(dtype)


def weight(*shape, dtype=torch.float32):
    fan = 1
    for s in shape[1:]:
        fan *= s
    return rand(*shape, dtype=dtype, scale=fan ** -0.5)


def channels_last(x):
    """x's values stored channels-last: a T whose view is the [N, C, *sp] permutation."""
    d = x.dim()
    perm = [0] + list(range(2, d)) + [1]
    inv = [0, d - 1] + list(range(1, d - 1))
    return T(x.permute(perm).contiguous(), lambda b: b.permute(inv))


def strided_w(x):
    """x's values in a buffer twice as wide in the last dim (every other element)."""
    big = torch.zeros(list(x.shape[:-1]) + [2 * x.shape[-1]], dtype=x.dtype)
    big[..., ::2] = x
    return T(big, lambda b: b[..., ::2])


def conv(x, w, b, stride, pad, dil, groups, transposed=False, out_pad=None, note=""):
    d = w.value().dim() - 2 if isinstance(w, T) else w.dim() - 2
    out_pad = out_pad if out_pad is not None else [0] * d
    x = x if isinstance(x, T) else T(x)
    w = w if isinstance(w, T) else T(w)
    b = b if (b is None or isinstance(b, T)) else T(b)
    add_case("aten.convolution.default",
             [("input", x), ("weight", w), ("bias", b), ("stride", stride), ("padding", pad), ("dilation", dil),
              ("transposed", transposed), ("output_padding", out_pad), ("groups", groups)], note)
    return x, w, b


def conv_bwd(x, w, has_bias, stride, pad, dil, groups, mask, transposed=False, out_pad=None, note="", x_arg=None):
    d = w.dim() - 2
    out_pad = out_pad if out_pad is not None else [0] * d
    y = aten.convolution.default(x.float() if x.dtype in (torch.bfloat16, torch.float16) else x,
                                 w.float() if w.dtype in (torch.bfloat16, torch.float16) else w,
                                 None, stride, pad, dil, transposed, out_pad, groups)
    # grad_weight / grad_bias sum N * output-size terms: scale g so that those sums stay O(1)
    # and f32's allclose bound measures the kernel, not the cancellation of large partial sums
    m = y.shape[0]
    for s in y.shape[2:]:
        m *= s
    g = rand(*y.shape, dtype=x.dtype, scale=m ** -0.5)
    bias_sizes = [w.shape[1] * groups if transposed else w.shape[0]] if has_bias else None
    add_case("aten.convolution_backward.default",
             [("grad_output", T(g)), ("input", x_arg or T(x)), ("weight", T(w)), ("bias_sizes", bias_sizes),
              ("stride", stride), ("padding", pad), ("dilation", dil), ("transposed", transposed),
              ("output_padding", out_pad), ("groups", groups), ("output_mask", mask)], note)


# ---------------- convolution
conv(rand(2, 3, 9, 11), weight(4, 3, 3, 3), rand(4), [1, 1], [0, 0], [1, 1], 1, note="2d basic")
conv(rand(2, 3, 9, 11), weight(4, 3, 3, 3), None, [1, 1], [1, 1], [1, 1], 1, note="2d pad 1 no bias")
conv(rand(3, 4, 10, 7), weight(6, 2, 3, 2), rand(6), [2, 1], [1, 2], [1, 2], 2, note="2d groups 2 stride dil pad")
conv(rand(1, 6, 8, 8), weight(6, 1, 3, 3), rand(6), [1, 1], [2, 2], [2, 2], 6, note="2d depthwise dil 2")
conv(rand(2, 5, 13, 6), weight(7, 5, 5, 1), rand(7), [3, 2], [2, 0], [1, 1], 1, note="2d odd kernel 5x1 stride 3x2")
conv(rand(2, 3, 1, 1), weight(5, 3, 1, 1), rand(5), [1, 1], [0, 0], [1, 1], 1, note="2d 1x1 on 1x1")
conv(rand(1, 1, 5, 5), weight(1, 1, 5, 5), rand(1), [1, 1], [0, 0], [1, 1], 1, note="2d kernel = input")
conv(channels_last(rand(2, 3, 6, 7)), weight(4, 3, 3, 3), rand(4), [1, 1], [1, 1], [1, 1], 1, note="2d channels-last input")
conv(strided_w(rand(2, 3, 6, 7)), T(weight(4, 3, 3, 3).transpose(2, 3).contiguous(), lambda b: b.transpose(2, 3)),
     rand(4), [1, 2], [1, 0], [1, 1], 1, note="2d strided input, transposed-stored weight")
conv(rand(2, 4, 17), weight(6, 4, 3), rand(6), [1], [1], [1], 1, note="1d")
conv(rand(3, 6, 20), weight(4, 3, 4), rand(4), [2], [3], [2], 2, note="1d groups 2 stride 2 pad 3 dil 2")
conv(rand(2, 2, 5, 6, 4), weight(3, 2, 3, 3, 2), rand(3), [1, 2, 1], [1, 1, 0], [1, 1, 2], 1, note="3d")
conv(rand(1, 4, 4, 5, 6), weight(4, 2, 2, 2, 2), None, [2, 2, 2], [1, 0, 1], [1, 1, 1], 2, note="3d groups 2 stride 2")
conv(rand(2, 3, 24, 24), weight(8, 3, 5, 5), rand(8), [1, 1], [2, 2], [1, 1], 1, note="2d 24x24 5x5 (longer sums)")
conv(rand(2, 64, 6, 6), weight(4, 64, 3, 3), rand(4), [1, 1], [1, 1], [1, 1], 1, note="2d 64 channels (576-term sums)")
# transposed
conv(rand(2, 4, 5, 6), weight(4, 3, 3, 3), rand(3), [2, 2], [1, 1], [1, 1], 1, True, [1, 0], note="2d transposed stride 2 out_pad")
conv(rand(2, 4, 5, 5), weight(4, 2, 3, 2), None, [1, 2], [0, 1], [2, 1], 2, True, [0, 1], note="2d transposed groups dil")
conv(rand(2, 3, 7), weight(3, 5, 4), rand(5), [3], [1], [1], 1, True, [2], note="1d transposed stride 3")
conv(rand(1, 2, 3, 4, 3), weight(2, 2, 2, 3, 2), rand(2), [2, 1, 2], [0, 1, 0], [1, 1, 1], 1, True, [1, 0, 0], note="3d transposed")
# dtypes
for dt in (torch.float64, torch.bfloat16, torch.float16):
    conv(rand(2, 4, 7, 8, dtype=dt), weight(6, 2, 3, 3, dtype=dt), rand(6, dtype=dt), [1, 2], [1, 1], [1, 1], 2, note=str(dt))
    conv(rand(2, 3, 9, dtype=dt), weight(4, 3, 3, dtype=dt), None, [2], [1], [2], 1, note=str(dt) + " 1d")
    conv(rand(2, 3, 4, 4, dtype=dt), weight(3, 2, 3, 3, dtype=dt), rand(2, dtype=dt), [2, 2], [1, 1], [1, 1], 1, True, [1, 1], note=str(dt) + " transposed")
# inf / nan / -0 (f64: PyTorch's f64 path is a plain im2col GEMM, no transform that spreads inf)
xs = rand(1, 2, 6, 6, dtype=torch.float64)
xs[0, 0, 1, 1] = float("inf")
xs[0, 1, 4, 2] = float("nan")
xs[0, 0, 5, 5] = float("-inf")
xs[0, 1, 0, 0] = -0.0
conv(xs, weight(3, 2, 3, 3, dtype=torch.float64), rand(3, dtype=torch.float64), [1, 1], [1, 1], [1, 1], 1, note="inf/nan in input, f64")
xs32 = xs.float()
conv(xs32, weight(3, 2, 3, 3), None, [2, 2], [0, 0], [1, 1], 1, note="inf/nan in input, f32 stride 2")

# ---------------- convolution_backward
conv_bwd(rand(2, 3, 8, 9), weight(4, 3, 3, 3), True, [1, 1], [1, 1], [1, 1], 1, [True, True, True], note="2d all grads")
conv_bwd(rand(3, 4, 9, 7), weight(6, 2, 3, 2), True, [2, 1], [1, 1], [1, 2], 2, [True, True, True], note="2d groups stride dil")
conv_bwd(rand(2, 4, 7, 7), weight(4, 1, 3, 3), False, [2, 2], [0, 0], [1, 1], 4, [True, False, False], note="2d depthwise grad_input only")
conv_bwd(rand(2, 4, 7, 7), weight(4, 4, 3, 3), True, [3, 3], [1, 1], [1, 1], 1, [False, True, True], note="2d stride 3 grad_weight+bias")
conv_bwd(rand(2, 3, 15), weight(5, 3, 4), True, [2], [2], [2], 1, [True, True, True], note="1d")
conv_bwd(rand(2, 2, 4, 5, 4), weight(4, 1, 2, 3, 2), True, [1, 2, 1], [1, 1, 0], [1, 1, 1], 2, [True, True, True], note="3d groups")
conv_bwd(rand(2, 4, 5, 6), weight(4, 3, 3, 3), True, [2, 2], [1, 1], [1, 1], 1, [True, True, True], True, [1, 0], note="2d transposed")
conv_bwd(rand(2, 4, 6), weight(4, 2, 3), True, [2], [0], [2], 2, [True, True, True], True, [1], note="1d transposed groups")
xcl = rand(2, 3, 6, 7)
conv_bwd(xcl, weight(4, 3, 3, 3), True, [1, 1], [1, 1], [1, 1], 1, [True, True, True], note="2d channels-last input",
         x_arg=channels_last(xcl))
for dt in (torch.float64, torch.bfloat16, torch.float16):
    conv_bwd(rand(2, 4, 6, 7, dtype=dt), weight(6, 2, 3, 3, dtype=dt), True, [1, 2], [1, 1], [1, 1], 2, [True, True, True], note=str(dt))

# ---------------- pools
def pool(op, x, *consts, note=""):
    names = {
        "max_pool2d_with_indices": ["kernel_size", "stride", "padding", "dilation", "ceil_mode"],
        "max_pool3d_with_indices": ["kernel_size", "stride", "padding", "dilation", "ceil_mode"],
        "avg_pool1d": ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"],
        "avg_pool2d": ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override"],
        "avg_pool3d": ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override"],
        "adaptive_avg_pool1d": ["output_size"],
        "_adaptive_avg_pool2d": ["output_size"],
        "_adaptive_avg_pool3d": ["output_size"],
    }[op]
    x = x if isinstance(x, T) else T(x)
    add_case("aten.%s.default" % op, [("self", x)] + list(zip(names, consts)), note)


pool("max_pool2d_with_indices", rand(2, 3, 9, 10), [3, 3], [2, 2], [1, 1], [1, 1], False, note="3x3 s2 p1")
pool("max_pool2d_with_indices", rand(2, 3, 9, 10), [3, 2], [2, 3], [1, 0], [2, 1], True, note="ceil dil 2")
pool("max_pool2d_with_indices", rand(3, 7, 8), [2, 2], [], [0, 0], [1, 1], False, note="3-d input, stride = kernel")
pool("max_pool2d_with_indices", channels_last(rand(2, 4, 6, 6)), [2, 2], [1, 1], [1, 1], [1, 1], True, note="channels-last ceil")
xm = rand(1, 2, 5, 5)
xm[0, 0, 0, 1] = float("nan")
xm[0, 0, 3, 3] = float("nan")
xm[0, 1, :3, :3] = float("-inf")
xm[0, 1, 4, 4] = float("inf")
pool("max_pool2d_with_indices", xm, [3, 3], [2, 2], [1, 1], [1, 1], False, note="nan / -inf windows")
pool("max_pool3d_with_indices", rand(2, 2, 5, 6, 7), [2, 3, 2], [2, 2, 1], [1, 1, 0], [1, 1, 2], True, note="3d")
pool("avg_pool2d", rand(2, 3, 9, 10), [3, 3], [2, 2], [1, 1], False, True, None, note="3x3 s2 p1 include pad")
pool("avg_pool2d", rand(2, 3, 9, 10), [3, 3], [2, 2], [1, 1], True, False, None, note="ceil exclude pad")
pool("avg_pool2d", rand(2, 3, 8, 7), [2, 3], [2, 1], [1, 1], True, True, 5, note="divisor_override 5 ceil")
pool("avg_pool2d", strided_w(rand(2, 3, 6, 7)), [2, 2], [], [0, 0], False, True, None, note="strided input")
pool("avg_pool2d", rand(1, 1, 7, 7), [7, 7], [1, 1], [0, 0], False, True, None, note="global 7x7")
pool("avg_pool1d", rand(2, 3, 11), [3], [2], [1], True, False, note="1d ceil exclude pad")
pool("avg_pool3d", rand(2, 2, 5, 6, 4), [2, 3, 2], [1, 2, 2], [1, 1, 0], True, True, None, note="3d")
pool("avg_pool3d", rand(1, 2, 4, 4, 4), [2, 2, 2], [2, 2, 2], [1, 1, 1], False, False, 3, note="3d divisor 3 exclude pad")
pool("_adaptive_avg_pool2d", rand(2, 3, 10, 7), [3, 4], note="10x7 -> 3x4")
pool("_adaptive_avg_pool2d", rand(2, 3, 5, 5), [1, 1], note="global")
pool("_adaptive_avg_pool2d", rand(2, 3, 3, 4), [5, 6], note="upsampling windows")
pool("adaptive_avg_pool1d", rand(2, 3, 13), [4], note="1d 13 -> 4")
pool("_adaptive_avg_pool2d", channels_last(rand(2, 3, 10, 7)), [3, 4], note="channels-last")
pool("avg_pool2d", channels_last(rand(2, 3, 9, 10)), [3, 3], [2, 2], [1, 1], False, True, None, note="channels-last")
pool("_adaptive_avg_pool3d", rand(2, 2, 5, 7, 6), [2, 3, 4], note="3d")
for dt in (torch.float64, torch.bfloat16, torch.float16):
    pool("max_pool2d_with_indices", rand(2, 3, 7, 8, dtype=dt), [3, 3], [2, 2], [1, 1], [1, 1], True, note=str(dt))
    pool("avg_pool2d", rand(2, 3, 7, 8, dtype=dt), [3, 3], [2, 2], [1, 1], True, False, None, note=str(dt))
    pool("_adaptive_avg_pool2d", rand(2, 3, 9, 7, dtype=dt), [4, 3], note=str(dt))

# backwards
def max_pool_bwd(x, k, s, p, d, ceil, note=""):
    f = x.float() if x.dtype in (torch.bfloat16, torch.float16) else x
    y, idx = aten.max_pool2d_with_indices.default(f, k, s, p, d, ceil)
    g = rand(*y.shape, dtype=x.dtype)
    add_case("aten.max_pool2d_with_indices_backward.default",
             [("grad_output", T(g)), ("self", T(x)), ("kernel_size", k), ("stride", s), ("padding", p),
              ("dilation", d), ("ceil_mode", ceil), ("indices", T(idx))], note)


def avg_pool_bwd(x, k, s, p, ceil, cip, div, note=""):
    f = x.float() if x.dtype in (torch.bfloat16, torch.float16) else x
    y = aten.avg_pool2d.default(f, k, s, p, ceil, cip, div)
    g = rand(*y.shape, dtype=x.dtype)
    add_case("aten.avg_pool2d_backward.default",
             [("grad_output", T(g)), ("self", T(x)), ("kernel_size", k), ("stride", s), ("padding", p),
              ("ceil_mode", ceil), ("count_include_pad", cip), ("divisor_override", div)], note)


def adaptive_bwd(x, out, note=""):
    g = rand(*(list(x.shape[:-2]) + out), dtype=x.dtype)
    add_case("aten._adaptive_avg_pool2d_backward.default", [("grad_output", T(g)), ("self", T(x))], note)


max_pool_bwd(rand(2, 3, 9, 10), [3, 3], [2, 2], [1, 1], [1, 1], False, note="overlapping windows")
max_pool_bwd(rand(2, 3, 8, 8), [2, 2], [2, 2], [0, 0], [1, 1], True, note="2x2 s2")
max_pool_bwd(rand(3, 7, 6), [3, 2], [1, 2], [1, 1], [2, 1], True, note="3-d input ceil dil")
avg_pool_bwd(rand(2, 3, 9, 10), [3, 3], [2, 2], [1, 1], False, True, None, note="include pad")
avg_pool_bwd(rand(2, 3, 9, 10), [3, 3], [2, 2], [1, 1], True, False, None, note="ceil exclude pad")
avg_pool_bwd(rand(2, 3, 8, 7), [2, 3], [2, 1], [1, 1], True, True, 5, note="divisor_override")
adaptive_bwd(rand(2, 3, 10, 7), [3, 4], note="10x7 -> 3x4")
adaptive_bwd(rand(2, 3, 3, 4), [5, 6], note="overlapping (upsampling) windows")
for dt in (torch.float64, torch.bfloat16, torch.float16):
    max_pool_bwd(rand(2, 3, 7, 8, dtype=dt), [3, 3], [2, 2], [1, 1], [1, 1], True, note=str(dt))
    avg_pool_bwd(rand(2, 3, 7, 8, dtype=dt), [3, 3], [2, 2], [1, 1], True, False, None, note=str(dt))
    adaptive_bwd(rand(2, 3, 9, 7, dtype=dt), [4, 3], note=str(dt))

# 3-d backwards
x3 = rand(2, 2, 5, 6, 7)
y3, i3 = aten.max_pool3d_with_indices.default(x3, [2, 3, 2], [2, 2, 1], [1, 1, 0], [1, 1, 2], True)
add_case("aten.max_pool3d_with_indices_backward.default",
         [("grad_output", T(rand(*y3.shape))), ("self", T(x3)), ("kernel_size", [2, 3, 2]), ("stride", [2, 2, 1]),
          ("padding", [1, 1, 0]), ("dilation", [1, 1, 2]), ("ceil_mode", True), ("indices", T(i3))], "3d")
x3 = rand(2, 2, 5, 6, 4)
y3 = aten.avg_pool3d.default(x3, [2, 3, 2], [1, 2, 2], [1, 1, 0], True, False, None)
add_case("aten.avg_pool3d_backward.default",
         [("grad_output", T(rand(*y3.shape))), ("self", T(x3)), ("kernel_size", [2, 3, 2]), ("stride", [1, 2, 2]),
          ("padding", [1, 1, 0]), ("ceil_mode", True), ("count_include_pad", False), ("divisor_override", None)],
         "3d ceil exclude pad")
x3 = rand(2, 2, 5, 7, 6)
add_case("aten._adaptive_avg_pool3d_backward.default", [("grad_output", T(rand(2, 2, 2, 3, 4))), ("self", T(x3))],
         "3d 5x7x6 -> 2x3x4")

# ---------------- upsampling
def up_nearest(x, size, scales, note=""):
    x = x if isinstance(x, T) else T(x)
    add_case("aten.upsample_nearest2d.vec", [("input", x), ("output_size", size), ("scale_factors", scales)], note)


def up_bilinear(x, size, align, scales, note=""):
    x = x if isinstance(x, T) else T(x)
    add_case("aten.upsample_bilinear2d.vec",
             [("input", x), ("output_size", size), ("align_corners", align), ("scale_factors", scales)], note)


up_nearest(rand(2, 3, 4, 5), [8, 10], None, note="x2 by size")
up_nearest(rand(2, 3, 4, 5), [7, 3], None, note="7x3 by size")
up_nearest(rand(2, 3, 4, 5), None, [1.5, 2.5], note="scales 1.5 2.5")
up_nearest(channels_last(rand(1, 3, 3, 3)), [5, 4], None, note="channels-last")
up_bilinear(rand(2, 3, 4, 5), [8, 10], False, None, note="x2 half-pixel")
up_bilinear(rand(2, 3, 4, 5), [7, 3], True, None, note="align_corners")
up_bilinear(rand(2, 3, 4, 5), [1, 1], True, None, note="align_corners to 1x1")
up_bilinear(rand(2, 3, 4, 5), None, False, [1.5, 2.5], note="scales 1.5 2.5")
up_bilinear(rand(2, 3, 6, 5), [3, 2], False, None, note="downsampling")
for dt in (torch.float64, torch.bfloat16, torch.float16):
    up_nearest(rand(2, 3, 4, 5, dtype=dt), [7, 9], None, note=str(dt))
    up_bilinear(rand(2, 3, 4, 5, dtype=dt), [7, 9], False, None, note=str(dt))
    up_bilinear(rand(2, 3, 4, 5, dtype=dt), [6, 8], True, None, note=str(dt) + " align_corners")

def up_bwd(op, g_shape, in_size, size, scales, align=None, dtype=torch.float32, note=""):
    g = rand(*g_shape, dtype=dtype)
    args = [("grad_output", T(g)), ("output_size", size), ("input_size", in_size)]
    if align is not None:
        args.append(("align_corners", align))
    args.append(("scale_factors", scales))
    add_case(op, args, note)


up_bwd("aten.upsample_nearest2d_backward.vec", (2, 3, 7, 9), [2, 3, 4, 5], [7, 9], None, note="7x9 -> 4x5")
up_bwd("aten.upsample_nearest2d_backward.vec", (2, 3, 8, 10), [2, 3, 4, 5], [8, 10], None, note="x2")
up_bwd("aten.upsample_nearest2d_backward.vec", (2, 3, 6, 12), [2, 3, 4, 5], None, [1.5, 2.5], note="scales")
up_bwd("aten.upsample_bilinear2d_backward.vec", (2, 3, 7, 9), [2, 3, 4, 5], [7, 9], None, False, note="half-pixel")
up_bwd("aten.upsample_bilinear2d_backward.vec", (2, 3, 7, 9), [2, 3, 4, 5], [7, 9], None, True, note="align_corners")
up_bwd("aten.upsample_bilinear2d_backward.vec", (2, 3, 3, 2), [2, 3, 6, 5], [3, 2], None, False, note="downsampling")
for dt in (torch.float64, torch.bfloat16, torch.float16):
    up_bwd("aten.upsample_bilinear2d_backward.vec", (2, 3, 7, 9), [2, 3, 4, 5], [7, 9], None, False, dtype=dt, note=str(dt))
    up_bwd("aten.upsample_nearest2d_backward.vec", (2, 3, 7, 9), [2, 3, 4, 5], [7, 9], None, dtype=dt, note=str(dt))

# ---------------- grid_sampler_2d (modes: 0 bilinear, 1 nearest, 2 bicubic; padding: 0 zeros, 1 border, 2 reflection)
def grid_sample(x, grid, mode, padding, align, note=""):
    x = x if isinstance(x, T) else T(x)
    add_case("aten.grid_sampler_2d.default",
             [("input", x), ("grid", T(grid)), ("interpolation_mode", mode), ("padding_mode", padding),
              ("align_corners", align)], note)


def grid(n, h, w, dtype=torch.float32):
    return (torch.rand(n, h, w, 2, dtype=torch.float64) * 2.6 - 1.3).to(dtype)


for mode in (0, 1):
    for padding in (0, 1, 2):
        for align in (False, True):
            grid_sample(rand(2, 3, 5, 6), grid(2, 4, 7), mode, padding, align,
                        note="mode %d padding %d align %s" % (mode, padding, align))
grid_sample(channels_last(rand(1, 2, 4, 4)), grid(1, 3, 3), 0, 0, False, note="channels-last input")
grid_sample(rand(2, 1, 1, 1), grid(2, 2, 2), 0, 2, False, note="1x1 input reflection")
for dt in (torch.float64, torch.bfloat16, torch.float16):
    grid_sample(rand(2, 3, 5, 6, dtype=dt), grid(2, 4, 7, dtype=dt), 0, 0, False, note=str(dt))
    grid_sample(rand(2, 3, 5, 6, dtype=dt), grid(2, 4, 7, dtype=dt), 0, 2, True, note=str(dt) + " reflection align")

# bicubic (mode 2), after the others so that their random draws stay as they were
for padding in (0, 1, 2):
    for align in (False, True):
        grid_sample(rand(2, 3, 5, 6), grid(2, 4, 7), 2, padding, align,
                    note="mode 2 padding %d align %s" % (padding, align))
grid_sample(rand(2, 1, 1, 1), grid(2, 2, 2), 2, 2, False, note="bicubic 1x1 input reflection")
for dt in (torch.float64, torch.bfloat16):
    grid_sample(rand(2, 3, 5, 6, dtype=dt), grid(2, 4, 7, dtype=dt), 2, 1, False, note=str(dt) + " bicubic border")

os.makedirs(OUT_DIR, exist_ok=True)
write_safetensors(os.path.join(OUT_DIR, "conv_pool.safetensors"), sorted(tensors.items()))
with open(os.path.join(OUT_DIR, "conv_pool.cases.json"), "w") as f:
    json.dump({"generator": "tests/runtime/gen_conv_pool_refs.py", "torch": torch.__version__, "cases": cases}, f,
              indent=1)
    f.write("\n")
print("%d cases, %d tensors" % (len(cases), len(tensors)))

#!/usr/bin/python3
"""Distance to float64 of fxlens' outputs on every corpus/pytorch case that has a float64
reference (NAME.outputs_f64.safetensors): `fxlens run NAME.joint.code.py --out` (inputs from the
case's sidecar), then per output the largest and the mean error in float32 ulps of the
output's largest value (worst output; mean over outputs), and the same for PyTorch 1.13's own float32 outputs (NAME.outputs.safetensors) beside it.
Usage: tests/bench/f64_distance.py [BUILD_DIR] [CORPUS_DIR] [--per-output]
  (defaults: build, ../shared/corpus; --per-output also prints each output's line)
"""
import json, os, struct, subprocess, sys, tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
PER_OUTPUT = "--per-output" in sys.argv
BUILD = ARGS[0] if len(ARGS) > 0 else os.path.join(ROOT, "build")
CORPUS = ARGS[1] if len(ARGS) > 1 else os.path.join(ROOT, "..", "shared", "corpus")
DT = {"F64": np.float64, "F32": np.float32, "F16": np.float16, "I64": np.int64, "I32": np.int32, "BOOL": np.bool_,
      "BF16": None, "U8": np.uint8, "I8": np.int8, "I16": np.int16}


def read(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        head = json.loads(f.read(n))
        data = f.read()
    out = {}
    for k, v in head.items():
        if k == "__metadata__":
            continue
        a, b = v["data_offsets"]
        if v["dtype"] == "BF16":
            raw = np.frombuffer(data[a:b], dtype=np.uint16).astype(np.uint32) << 16
            arr = raw.view(np.float32)
        else:
            arr = np.frombuffer(data[a:b], dtype=DT[v["dtype"]])
        out[k] = arr.reshape(v["shape"])
    return out


def ulps(x, ref):
    """|x - ref| in float32 ulps of the output's largest |ref| (a gradient's elements near 0 would
    give any relative measure there an unbounded scale): the largest and the mean over the finite
    elements of ref; a non-finite x where ref is finite counts as infinite."""
    ref = ref.astype(np.float64).ravel()
    x = x.astype(np.float64).ravel()
    ok = np.isfinite(ref)
    if not ok.any():
        return 0.0, 0.0
    r = ref[ok]
    scale = float(np.abs(r).max())
    if scale == 0:
        scale = 2.0 ** -126
    ulp = 2.0 ** (np.floor(np.log2(scale)) - 23)
    d = np.abs(x[ok] - r) / ulp
    d[~np.isfinite(d)] = np.inf
    return float(d.max()), float(d.mean())


def measure(ours, ref):
    """One case's distance to float64, as main() measures fxlens' outputs: over ref's float64
    outputs that ours has as floating point, (largest error of any output, mean over outputs of
    each output's mean error, number of outputs), in float32 ulps (ulps). ours, ref: dicts as
    read() gives them."""
    worst, total, n = 0.0, 0.0, 0
    for k, r in ref.items():
        if r.dtype != np.float64 or k not in ours or ours[k].dtype.kind != "f":
            continue
        n += 1
        m, a = ulps(ours[k], r)
        worst, total = max(worst, m), total + a
    return worst, total / max(n, 1), n


def main():
    fx = os.path.join(BUILD, "app", "fxlens")
    cases = sorted(f[: -len(".outputs_f64.safetensors")] for f in os.listdir(os.path.join(CORPUS, "pytorch"))
                   if f.endswith(".outputs_f64.safetensors"))
    print("case          outputs  fxlens max / mean ulp   PyTorch max / mean ulp   (float32 ulps of each output's largest value)")
    for c in cases:
        base = os.path.join(CORPUS, "pytorch", c)
        with tempfile.TemporaryDirectory() as t:
            out = os.path.join(t, "o.safetensors")
            subprocess.run([fx, "run", base + ".joint.code.py", "--out", out], check=True, capture_output=True)
            ours = read(out)
        ref = read(base + ".outputs_f64.safetensors")
        torch32 = read(base + ".outputs.safetensors")
        worst = [0.0, 0.0, 0.0, 0.0]
        n = 0
        for k, r in ref.items():
            if r.dtype != np.float64 or k not in ours or ours[k].dtype.kind != "f":
                continue
            n += 1
            m, a = ulps(ours[k], r)
            pm, pa = ulps(torch32[k], r)
            worst = [max(worst[0], m), worst[1] + a, max(worst[2], pm), worst[3] + pa]
            if PER_OUTPUT:
                print(f"    {k:8s} fxlens {m:10.2f} / {a:8.4f}   PyTorch {pm:10.2f} / {pa:8.4f}")
        print(f"{c:14s} {n:5d}   {worst[0]:12.2f} / {worst[1] / max(n, 1):8.3f}   {worst[2]:12.2f} / {worst[3] / max(n, 1):8.3f}")


if __name__ == "__main__":
    main()

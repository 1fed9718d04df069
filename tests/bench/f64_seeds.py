#!/usr/bin/python3
"""Is one fxlens build closer to float64 than another on a train step? Many random seeds, paired.

A single run cannot say: when one function's last bit changes (a correctly rounded erf or tanh
in place of one off by an ulp), a forward activation differs in its last bit and the backward
pass then takes other rounding errors, so one seed's distance to float64 moves by chance, up or
down. This script measures both builds on the same N random inputs per case and compares them
pairwise:

  for each CASE and each seed s in [FIRST, FIRST + N):
    - inputs: from the case's sidecar NAME.inputs.safetensors, every floating-point tensor x
      becomes x * (1 + 0.25 * z) + 0.05 * z2, z and z2 standard normal from numpy's
      default_rng(s) (drawn per tensor in the file's order, z then z2, in float64, then rounded
      to the tensor's dtype); integer and bool tensors (token ids, targets) are kept as they are;
    - the float64 reference: tests/python/run_fx_graph.py --float64 on NAME.joint.code.py (inputs
      and constants upcast, torch.float32 read as torch.float64, as the corpus' own
      NAME.outputs_f64.safetensors were made; on the sidecar inputs it gives those files' bytes);
    - `fxlens run --threads 1` of build A and of build B on the same inputs (and the case's
      NAME.joint.constants.safetensors when there is one);
    - each build's distance to the reference with f64_distance.measure: the largest error of any
      output and the mean over outputs of each output's mean error, in float32 ulps of each
      output's largest value.
  One line per seed (A max / mean, B max / mean, which is closer by mean), then per case the mean
  over seeds of each build's mean distance, the mean paired difference B - A with its standard
  error (and t = mean / SE: |t| well above 2 says the difference is systematic, below 2 chance
  cannot be told from it) and on how many seeds each build is closer (exact ties counted apart).

Usage: tests/bench/f64_seeds.py --a BUILD_A --b BUILD_B [--corpus DIR] [--seeds N] [--first S]
                                [--json OUT] CASE...
  BUILD_A, BUILD_B: a build directory (its fxlens or app/fxlens) or an fxlens binary
  --corpus: the corpus/pytorch directory, or the corpus directory above it
            (default ../shared/corpus/pytorch beside the repository)
  --seeds: number of seeds (default 20); --first: the first seed (default 0)
  --json OUT: every number (per seed and the summaries) written to OUT
  e.g. tests/bench/f64_seeds.py --a ../old/build --b build --seeds 30 gpt2_tiny llama_tiny
Work files go to a temporary directory, removed at the end. Exit code 0 on success, 1 when a run
fails (its stderr is printed), 2 on bad usage.

Dependencies: /usr/bin/python3 with torch (the reference, through tests/python/run_fx_graph.py,
one --serve process for all runs) and numpy.
"""
import argparse, json, math, os, shutil, struct, subprocess, sys, tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import f64_distance  # noqa: E402  (read, measure)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN_FX_GRAPH = os.path.join(ROOT, "tests", "python", "run_fx_graph.py")
ITEM = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1, "U8": 1, "BOOL": 1}


class RunFailed(Exception):
    pass


def fxlens_binary(path):
    if os.path.isfile(path):
        return os.path.abspath(path)
    for p in (os.path.join(path, "fxlens"), os.path.join(path, "app", "fxlens")):
        if os.path.isfile(p):
            return os.path.abspath(p)
    sys.exit("f64_seeds.py: no fxlens binary at %s (nor %s/fxlens, %s/app/fxlens)" % (path, path, path))


def header(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        return json.loads(f.read(n))


def to_bf16_bytes(x):
    """float32 values rounded to bfloat16 (nearest, ties to even; NaN kept NaN) as bytes."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    u = x.view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    r[np.isnan(x)] = 0x7FC0
    return r.tobytes()


def to_bytes(x, dtype):
    if dtype == "BF16":
        return to_bf16_bytes(x)
    np_dtype = f64_distance.DT[dtype]
    return np.ascontiguousarray(x, dtype=np_dtype).tobytes()


def seeded_inputs(src, dst, seed):
    """src's tensors, the floating-point ones perturbed with default_rng(seed), written to dst in
    src's dtypes and order."""
    head = header(src)
    values = f64_distance.read(src)
    rng = np.random.default_rng(seed)
    out_head, chunks, offset = {}, [], 0
    for k, v in head.items():
        if k == "__metadata__":
            continue
        x = values[k]
        if v["dtype"] in ("F64", "F32", "F16", "BF16"):
            z = rng.standard_normal(x.shape)
            z2 = rng.standard_normal(x.shape)
            x = x.astype(np.float64) * (1 + 0.25 * z) + 0.05 * z2
            if v["dtype"] == "BF16":
                x = x.astype(np.float32)
        b = to_bytes(x, v["dtype"])
        assert len(b) == ITEM[v["dtype"]] * int(np.prod(v["shape"], dtype=np.int64))
        out_head[k] = {"dtype": v["dtype"], "shape": list(v["shape"]), "data_offsets": [offset, offset + len(b)]}
        chunks.append(b)
        offset += len(b)
    h = json.dumps(out_head, separators=(",", ":")).encode("utf-8")
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(dst, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for c in chunks:
            f.write(c)


class Reference:
    """run_fx_graph.py --serve: PyTorch imported once, one float64 run per request."""

    def __init__(self, tmp):
        self.err_path = os.path.join(tmp, "run_fx_graph.stderr")
        self.err = open(self.err_path, "w")  # a file, not a pipe: warnings never fill a buffer
        self.p = subprocess.Popen([sys.executable, RUN_FX_GRAPH, "--serve", "--threads", "1"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=self.err, text=True)

    def run(self, graph, inputs, constants, out):
        req = {"graph": graph, "inputs": inputs, "constants": constants, "out": out, "float64": True}
        self.p.stdin.write(json.dumps(req) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            self.p.wait()
            with open(self.err_path) as f:
                raise RunFailed("run_fx_graph.py --serve ended without an answer (rc %s):\n%s" % (self.p.returncode, f.read()))
        ans = json.loads(line)
        if ans["rc"] != 0:
            raise RunFailed("run_fx_graph.py --float64 %s --out %s failed (rc %d):\n%s" % (graph, out, ans["rc"], ans["err"]))

    def close(self):
        try:
            self.p.stdin.close()
            self.p.wait(timeout=30)
        except Exception:
            self.p.kill()
            self.p.wait()
        self.err.close()


def fxlens_run(fx, graph, inputs, constants, out):
    cmd = [fx, "run", graph, "--inputs", inputs, "--out", out, "--threads", "1"]
    if constants:
        cmd += ["--constants", constants]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0 or not os.path.isfile(out):
        raise RunFailed("%s failed (rc %d):\n%s%s" % (" ".join(cmd), p.returncode, p.stderr, p.stdout[-4000:]))


def closer(a, b):
    return "A" if a < b else "B" if b < a else "tie"


def summarize(rows):
    n = len(rows)
    d = np.array([r["b_mean"] - r["a_mean"] for r in rows], dtype=np.float64)
    mean_d = float(d.mean())
    se = float(d.std(ddof=1) / math.sqrt(n)) if n > 1 else None  # None: one seed has no spread
    t = mean_d / se if se else (0.0 if mean_d == 0 else None)
    return {
        "seeds": n,
        "a_mean": float(np.mean([r["a_mean"] for r in rows])),
        "b_mean": float(np.mean([r["b_mean"] for r in rows])),
        "a_max": float(np.mean([r["a_max"] for r in rows])),
        "b_max": float(np.mean([r["b_max"] for r in rows])),
        "diff_mean": mean_d,
        "diff_se": se,
        "t": t,
        "a_closer": sum(r["closer"] == "A" for r in rows),
        "b_closer": sum(r["closer"] == "B" for r in rows),
        "ties": sum(r["closer"] == "tie" for r in rows),
    }


def run_case(case, corpus, fx_a, fx_b, seeds, ref, tmp):
    base = os.path.join(corpus, case)
    graph = base + ".joint.code.py"
    sidecar = base + ".inputs.safetensors"
    for p in (graph, sidecar):
        if not os.path.isfile(p):
            raise RunFailed("%s: no %s" % (case, p))
    constants = base + ".joint.constants.safetensors"
    constants = constants if os.path.isfile(constants) else None
    print(f"{case}: A {fx_a}\n{' ' * len(case)}  B {fx_b}")
    print("  seed  outputs   A max / mean ulp    B max / mean ulp   closer (by mean)")
    rows = []
    for s in seeds:
        stem = os.path.join(tmp, "%s.%d" % (case, s))
        inputs, r_out, a_out, b_out = stem + ".in.st", stem + ".f64.st", stem + ".a.st", stem + ".b.st"
        seeded_inputs(sidecar, inputs, s)
        ref.run(graph, inputs, constants, r_out)
        fxlens_run(fx_a, graph, inputs, constants, a_out)
        fxlens_run(fx_b, graph, inputs, constants, b_out)
        r = f64_distance.read(r_out)
        am, aa, n = f64_distance.measure(f64_distance.read(a_out), r)
        bm, ba, nb = f64_distance.measure(f64_distance.read(b_out), r)
        if n != nb:
            raise RunFailed("%s seed %d: build A gives %d comparable outputs, build B %d" % (case, s, n, nb))
        row = {"seed": s, "outputs": n, "a_max": am, "a_mean": aa, "b_max": bm, "b_mean": ba, "closer": closer(aa, ba)}
        rows.append(row)
        print(f"  {s:4d}  {n:5d}   {am:8.2f} / {aa:7.4f}   {bm:8.2f} / {ba:7.4f}   {row['closer']}", flush=True)
        for p in (inputs, r_out, a_out, b_out):
            os.remove(p)
    sm = summarize(rows)
    se = "n/a" if sm["diff_se"] is None else f"{sm['diff_se']:.5f}"
    t = "n/a" if sm["t"] is None else f"{sm['t']:+.2f}"
    print(f"  {case} over {sm['seeds']} seeds: mean distance A {sm['a_mean']:.4f}, B {sm['b_mean']:.4f} ulp "
          f"(mean max A {sm['a_max']:.2f}, B {sm['b_max']:.2f}); B - A = {sm['diff_mean']:+.5f} +- {se} (SE), "
          f"t = {t}; closer: A on {sm['a_closer']}, B on {sm['b_closer']}, ties {sm['ties']}\n", flush=True)
    return {"seeds": rows, "summary": sm}


def main(argv):
    ap = argparse.ArgumentParser(description="Paired, many-seed distance to float64 of two fxlens builds on train-step graphs.")
    ap.add_argument("--a", required=True, help="build directory or fxlens binary A")
    ap.add_argument("--b", required=True, help="build directory or fxlens binary B")
    ap.add_argument("--corpus", default=os.path.join(ROOT, "..", "shared", "corpus", "pytorch"))
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--json", help="write every number to this file")
    ap.add_argument("cases", nargs="+", metavar="CASE")
    args = ap.parse_args(argv)
    if args.seeds < 1:
        ap.error("--seeds must be at least 1")
    corpus = args.corpus
    if os.path.isdir(os.path.join(corpus, "pytorch")):
        corpus = os.path.join(corpus, "pytorch")
    fx_a, fx_b = fxlens_binary(args.a), fxlens_binary(args.b)
    seeds = list(range(args.first, args.first + args.seeds))

    tmp = tempfile.mkdtemp(prefix="f64_seeds.")
    ref = None
    result = {"a": fx_a, "b": fx_b, "corpus": os.path.abspath(corpus), "seeds": seeds,
              "unit": "float32 ulps of each output's largest float64 value", "cases": {}}
    try:
        ref = Reference(tmp)
        for case in args.cases:
            result["cases"][case] = run_case(case, corpus, fx_a, fx_b, seeds, ref, tmp)
    except RunFailed as e:
        sys.stdout.flush()
        sys.stderr.write("f64_seeds.py: a run failed: %s\n" % e)
        return 1
    finally:
        if ref is not None:
            ref.close()
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

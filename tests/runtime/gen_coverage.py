#!/usr/bin/env python3
"""Writes docs/coverage.md: every operator the CPU runtime has a kernel for, and every operator
of PyTorch's Core ATen opset, with the dtypes its reference cases cover, where the reference
comes from, and whether fxlens runs it.

Sources (all in the repository):
- the kernels: the targets registered in runtime/ (`reg.add("aten.x.y", ...)`);
- the Core ATen opset: tests/data/core_aten_ops.txt;
- the reference cases: tests/data/kernels/*.cases.json (PyTorch 1.13 outputs, from
  tests/runtime/gen_*_refs.py) and tests/data/differential/edge.cases.json (PyTorch 1.13 and a
  float64 judge, from tests/runtime/gen_differential.py); a case's dtypes are those of its input
  tensors (the safetensors headers say them).

tests/runtime/test_differential.cpp (coverageTable) checks the file against the kernel registry
and the case files, so a row cannot claim what the code or the tests do not do.
Run with any Python 3:  python3 tests/runtime/gen_coverage.py
"""
import glob
import json
import os
import re
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DATA = os.path.join(ROOT, "tests", "data")

ST_TO_TORCH = {"F32": "f32", "F64": "f64", "BF16": "bf16", "F16": "f16", "I64": "i64", "I32": "i32", "I16": "i16",
               "I8": "i8", "U8": "u8", "BOOL": "b8"}
DTYPE_ORDER = ["f32", "f64", "bf16", "f16", "i64", "i32", "i16", "i8", "u8", "b8"]

# Reference files: (name in the table, cases file, safetensors file, what the reference is).
REFERENCES = [
    ("elementwise", "kernels/elementwise.cases.json", "kernels/elementwise.safetensors", "PyTorch 1.13"),
    ("reduction", "kernels/reduction.cases.json", "kernels/reduction.safetensors", "PyTorch 1.13"),
    ("matmul", "kernels/matmul.cases.json", "kernels/matmul.safetensors", "PyTorch 1.13"),
    ("shape", "kernels/shape.cases.json", "kernels/shape.safetensors", "PyTorch 1.13"),
    ("conv_pool", "kernels/conv_pool.cases.json", "kernels/conv_pool.safetensors", "PyTorch 1.13"),
    ("differential", "differential/edge.cases.json", "differential/edge.safetensors", "PyTorch 1.13 + float64"),
]


def st_dtypes(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
    return {k: ST_TO_TORCH[v["dtype"]] for k, v in header.items() if k != "__metadata__"}


def input_keys(node, keys, out):
    """Tensor keys a case's arguments name ("tensor": key, or "key": key in an input list)."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k in ("tensor", "key") and isinstance(v, str) and v in keys:
                out.append(v)
            else:
                input_keys(v, keys, out)
    elif isinstance(node, list):
        for v in node:
            input_keys(v, keys, out)


def case_dtypes():
    """op -> reference name -> set of input dtypes."""
    table = {}
    for name, cases_file, st_file, _ in REFERENCES:
        cpath, spath = os.path.join(DATA, cases_file), os.path.join(DATA, st_file)
        if not os.path.exists(cpath):
            continue
        keys = st_dtypes(spath)
        for c in json.load(open(cpath))["cases"]:
            found = []
            input_keys(c.get("args", {}), keys, found)
            input_keys(c.get("inputs", []), keys, found)
            dts = table.setdefault(c["op"], {}).setdefault(name, set())
            dts.update(keys[k] for k in found)
    return table


def kernels():
    targets = set()
    for path in glob.glob(os.path.join(ROOT, "runtime", "**", "*.cpp"), recursive=True):
        for m in re.finditer(r'reg\.add\("([^"]+)"', open(path).read()):
            targets.add(m.group(1))
    return targets


def test_references(op):
    """The runtime test files (tests/runtime/test_*.cpp) that name the operator's qualified target:
    its unit tests (random ops, attention against float64, symbolic sizes, ...)."""
    found = []
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "runtime", "test_*.cpp"))):
        if op in open(path).read():
            found.append(os.path.basename(path)[:-4])
    return found


def main():
    core = [line.strip() for line in open(os.path.join(DATA, "core_aten_ops.txt"))
            if line.strip() and not line.startswith("#")]
    have = kernels()
    refs = case_dtypes()
    ops = sorted(set(have) | set(core))
    rows = []
    for op in ops:
        per = refs.get(op, {})
        dts = set().union(*per.values()) if per else set()
        dtypes = " ".join(d for d in DTYPE_ORDER if d in dts) or "-"
        named = sorted(per) if per else test_references(op)[:2]
        ref = ", ".join(named) if named else "-"
        status = "runs" if op in have else "missing"
        rows.append(f"| `{op}` | {'core' if op in core else ''} | {dtypes} | {ref} | {status} |")
    n_core = len(core)
    core_run = sum(1 for op in core if op in have)
    with_ref = sum(1 for op in have if op in refs)
    with_test = sum(1 for op in have if op not in refs and test_references(op))
    text = f"""# Operator coverage of the CPU runtime

Generated by `tests/runtime/gen_coverage.py` from the kernel registry (`runtime/`), PyTorch's
Core ATen opset (`tests/data/core_aten_ops.txt`) and the reference cases in `tests/data`;
`tests/runtime/test_differential.cpp` (coverageTable) fails when this file and the code or the
cases disagree.

- **{len(have)}** operators have a CPU kernel; **{with_ref}** of them have reference cases,
  **{with_test}** more are checked by the unit tests named in the reference column, and the
  rest through the traced corpus graphs, whose outputs PyTorch recorded, and the tests of their
  family.
- **{core_run} of {n_core}** Core ATen operators run; the others are marked `missing`: a graph
  that uses one stops before running with an error that names the node and the operator.

Columns: **core**: in the Core ATen opset. **dtypes**: the input dtypes of the operator's
reference cases. **reference**: which case files hold them: `elementwise`, `reduction`,
`matmul`, `shape`, `conv_pool` (`tests/data/kernels`, PyTorch 1.13's outputs, compared within the family's
tolerance or bitwise), `differential` (`tests/data/differential`: edge cases judged against
float64, docs/numerics.md section 6.1), or, for operators without such cases, the runtime
test files that exercise them (`test_random`: Philox streams, not PyTorch's bits;
`test_flex_attention`: attention against float64 references; `test_shape`,
`test_torch_level`, `test_reduction`). Higher-order operators (`flex_attention`,
`auto_functionalized`, `wrap_with_set_grad_enabled`, ...) are run by the executor, not by a
kernel: docs/numerics.md section 8.1 and docs/custom_ops.md.

Every pointwise operator listed here whose first argument is `Tensor self` and which returns one
tensor also runs **in place** (`sigmoid_`, `tanh_`, `relu_`, `mul_.Scalar`, `lt_.Scalar`, ...,
as nn.LSTM and nn.GRU cells trace): when `resources/ops.tsv` has no row for the in-place
variant, fxlens makes its schema (`self` written, `Tensor(a!)`) and its kernel from the
functional one: the functional kernel, then its result written into self as `copy_` writes
(cast to self's dtype), so later users of self see the write. These variants have no rows of
their own; the `elementwise` cases check `sigmoid_`, `tanh_`, `relu_`, `neg_`, `exp_`, `abs_`,
`mul_.Scalar` and `lt_.Scalar` against PyTorch.

| operator | core | dtypes | reference | status |
| --- | --- | --- | --- | --- |
""" + "\n".join(rows) + "\n"
    # the section "On CUDA" is kept as it is: test_cuda_kernels checks it against the registry
    # (and prints the lines to paste when it differs)
    path = os.path.join(ROOT, "docs", "coverage.md")
    if os.path.exists(path):
        old = open(path).read()
        at = old.find("\n## On CUDA\n")
        if at >= 0:
            text = text.rstrip("\n") + "\n" + old[at:]
    with open(path, "w") as f:
        f.write(text)
    print(f"{len(rows)} rows: {len(have)} kernels, {core_run}/{n_core} core ops run, {with_ref} with reference cases")


main()

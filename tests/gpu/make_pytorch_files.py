#!/usr/bin/env python3
"""Make real PyTorch files as test inputs for fxlens' .pt2 and snapshot readers.

Run on a GPU machine with PyTorch 2.11 (CUDA), no network needed:

    python3 tests/gpu/make_pytorch_files.py OUT

It writes OUT/pytorch211_files.tar.gz (everything, under the folder
pytorch211/) and OUT/manifest.json (what was made, sizes, sha256, versions,
GPU, errors with tracebacks).  The loose files are removed after a successful
pack unless --keep-files is given.

What it makes (see tests/gpu/README_pytorch_files.md):
  pt2/        torch.export .pt2 archives (+ NAME.json sidecar with inputs and
              eager outputs of ep.module(), NAME.graph.txt = str(ep),
              NAME.io.safetensors or NAME.io.pt with the input/output tensors)
  snapshots/  CUDA caching-allocator memory snapshots (pickles)
  timing.txt  CUDA eager train-step times and an fp32 GEMM reference
  logs/       the log of every phase

Design: the parent process never imports torch.  Every phase (info, export,
snapshots, timing, aoti) runs in its own child process with a timeout, and
every artifact in a phase is made inside its own try/except, recorded (with
its traceback) in a JSON file the parent merges.  A crash, hang or timeout
in one phase loses only what that phase had not yet finished; the manifest
and the tarball are always written.

--dry-cpu runs everything on the CPU with whatever torch is installed
(skipping CUDA-only parts and APIs the installed torch lacks) to check the
guards, the manifest and the tarball.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import copy
import gc
import hashlib
import importlib
import inspect
import io
import json
import math
import os
import pickle
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import traceback
import warnings
import zipfile

SCRIPT_VERSION = 1
SEED = 1234
TAR_NAME = "pytorch211_files.tar.gz"
TAR_PREFIX = "pytorch211"
STAGE_NAME = "pytorch211"          # staging folder under OUT, same name as the tar prefix
TAR_LIMIT = 14 * 1024 * 1024       # bytes, compressed
WORK = ".work"                     # per-phase JSON results; never packed
PHASES = ["info", "export", "snapshots", "timing", "aoti"]
# Per-phase wall-clock caps (seconds); each is further cut to the time left
# in the overall budget (--budget), but never below MIN_PHASE_S.
PHASE_CAPS = {"info": 45, "export": 100, "snapshots": 75, "timing": 60, "aoti": 130}
MIN_PHASE_S = 20
INDUCTOR_CACHE = os.path.join(tempfile.gettempdir(), "fxlens_inductor_cache_%d" % os.getpid())
AOTI_MIN_LEFT_S = 45               # do not start AOTInductor with less than this left
AOTI_MAX_BYTES = 10 * 1024 * 1024  # drop an AOTI package bigger than this


def _early_arg(flag):
    """Value of `flag` in sys.argv, read before argparse (decides torch import)."""
    argv = sys.argv[1:]
    for i, a in enumerate(argv):
        if a == flag and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith(flag + "="):
            return a.split("=", 1)[1]
    return None


_PHASE = _early_arg("--phase")

# ---------------------------------------------------------------------------
# Small helpers usable without torch
# ---------------------------------------------------------------------------


class Skip(Exception):
    """An artifact that cannot be made here (missing API, no CUDA): not an error."""


def _clean_json(obj):
    """Make obj strictly JSON-serialisable: non-finite floats as strings
    ("NaN", "Infinity", "-Infinity", the export schema's convention), tuples
    as lists, unknown objects as repr()."""
    if isinstance(obj, float):
        if math.isnan(obj):
            return "NaN"
        if math.isinf(obj):
            return "Infinity" if obj > 0 else "-Infinity"
        return obj
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    if isinstance(obj, dict):
        return {str(k): _clean_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [_clean_json(v) for v in obj]
    return repr(obj)


def write_json(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(_clean_json(obj), f, indent=1, sort_keys=False, allow_nan=False)
        f.write("\n")
    os.replace(tmp, path)


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def tail_text(path, n=4000):
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - n))
            return f.read().decode("utf-8", "replace")
    except Exception as e:  # noqa: BLE001
        return "<cannot read %s: %r>" % (path, e)


class Recorder:
    """Collects artifact records of one phase and rewrites its JSON after each."""

    def __init__(self, path, phase):
        self.path = path
        self.data = {"phase": phase, "artifacts": [], "info": {}, "timing": {}, "phase_error": None}
        self.flush()

    def flush(self):
        try:
            write_json(self.path, self.data)
        except Exception:  # noqa: BLE001
            traceback.print_exc()

    def run(self, name, kind, fn):
        """Run fn(rec); rec is the artifact record fn fills (files, api, notes)."""
        rec = {"name": name, "kind": kind, "ok": False, "skipped": None, "api": None,
               "files": [], "notes": {}, "sub_errors": [], "warnings": [],
               "error": None, "traceback": None, "seconds": None}
        t0 = time.time()
        print("[%s] %s ..." % (self.data["phase"], name), flush=True)
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    fn(rec)
                    rec["ok"] = True
                finally:
                    seen = []
                    for w in caught:
                        s = "%s: %s" % (getattr(w.category, "__name__", "Warning"), w.message)
                        s = s[:400]
                        if s not in seen:
                            seen.append(s)
                    rec["warnings"] = seen[:12]
        except Skip as e:
            rec["skipped"] = str(e)
        except BaseException as e:  # noqa: BLE001  (SystemExit/KeyboardInterrupt recorded too)
            rec["error"] = "%s: %s" % (type(e).__name__, e)
            rec["traceback"] = traceback.format_exc()
            if isinstance(e, KeyboardInterrupt):
                raise
        finally:
            rec["seconds"] = round(time.time() - t0, 3)
            self.data["artifacts"].append(rec)
            self.flush()
            status = "ok" if rec["ok"] else ("skipped: " + rec["skipped"] if rec["skipped"] else "ERROR " + str(rec["error"]))
            print("[%s] %s: %s (%.2f s)" % (self.data["phase"], name, status, rec["seconds"]), flush=True)
        return rec


def sub_step(rec, label, fn, default=None):
    """Run an optional sub-step of an artifact; record its failure, keep going."""
    try:
        return fn()
    except Skip as e:
        rec["notes"].setdefault("skipped_steps", {})[label] = str(e)
        return default
    except Exception as e:  # noqa: BLE001
        rec["sub_errors"].append({"step": label, "error": "%s: %s" % (type(e).__name__, e),
                                  "traceback": traceback.format_exc()})
        return default


# ---------------------------------------------------------------------------
# Everything below the `if` runs only in child phases (torch imported there)
# ---------------------------------------------------------------------------

if _PHASE is not None:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    try:
        from torch.utils._pytree import tree_flatten as _tree_flatten
    except Exception:  # noqa: BLE001
        _tree_flatten = None

    _SDPA = getattr(F, "scaled_dot_product_attention", None)

    def _attention(q, k, v):
        if _SDPA is not None:
            return _SDPA(q, k, v, is_causal=True)
        # torch < 2.0 fallback (only for --dry-cpu on old torch)
        t = q.shape[-2]
        att = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        mask = torch.ones(t, t, dtype=torch.bool, device=q.device).tril()
        att = att.masked_fill(~mask, float("-inf")).softmax(dim=-1)
        return att @ v

    def _annotate_ctx(meta):
        """torch.fx.traceback.annotate (2.9+) puts `custom` metadata on nodes."""
        tb = getattr(torch.fx, "traceback", None)
        ann = getattr(tb, "annotate", None) if tb is not None else None
        if ann is None:
            return contextlib.nullcontext()
        return ann(meta)

    # ---- models (module level so nn_module_stack types read __main__.Name) ----

    class TinyMLP(nn.Module):
        def __init__(self, d_in=16, d_hidden=32, d_out=8):
            super().__init__()
            self.fc1 = nn.Linear(d_in, d_hidden)
            self.act = nn.ReLU()
            self.fc2 = nn.Linear(d_hidden, d_out)

        def forward(self, x):
            return self.fc2(self.act(self.fc1(x)))

    class TwoBatchMLP(nn.Module):
        """y's batch is 2 * x's batch: a derived dynamic dimension."""

        def __init__(self):
            super().__init__()
            self.mlp = TinyMLP()

        def forward(self, x, y):
            a = self.mlp(x)
            b = self.mlp(y).reshape(x.shape[0], 2, -1).sum(dim=1)
            return a + b

    class BufferMutation(nn.Module):
        """BatchNorm1d in train mode plus explicit in-place buffer updates."""

        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 8)
            self.bn = nn.BatchNorm1d(8)
            self.register_buffer("calls", torch.zeros((), dtype=torch.int64))
            self.register_buffer("running_sum", torch.zeros(8))
            self.register_buffer("scratch", torch.zeros(8), persistent=False)

        def forward(self, x):
            self.calls.add_(1)
            h = self.fc(x)
            self.running_sum.add_(h.detach().mean(dim=0))
            self.scratch.copy_(h.detach().amax(dim=0))
            return torch.relu(self.bn(h)) + self.scratch

    class CondModel(nn.Module):
        """torch.cond: a higher-order op with two sub-graphs."""

        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 8)

        def forward(self, x):
            def true_fn(x):
                return torch.relu(self.lin(x))

            def false_fn(x):
                return torch.sigmoid(self.lin(x)) * 2.0

            cond = getattr(torch, "cond", None)
            if cond is None:
                from functorch.experimental.control_flow import cond  # type: ignore
            return cond(x.sum() > 0, true_fn, false_fn, (x,)) + x

    class MultiOutput(nn.Module):
        """Multi-output ops (topk, var_mean, split, max.dim) and a lifted tensor constant."""

        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 8)
            self.scale = torch.linspace(0.5, 1.5, 8)  # plain attribute: a lifted constant

        def forward(self, x):
            h = self.lin(x) * self.scale
            values, indices = torch.topk(h, 3, dim=-1)
            var, mean = torch.var_mean(h, dim=0)
            a, b, c = torch.split(h, [2, 3, 3], dim=1)
            mx, argmx = torch.max(h, dim=1)
            return values, indices, var, mean, a * 2.0, b + 1.0, torch.relu(c), mx, argmx

    class TiedWeights(nn.Module):
        """Two submodules sharing one Parameter, and a tied embedding/output head."""

        def __init__(self, vocab=64, d=16):
            super().__init__()
            self.emb = nn.Embedding(vocab, d)
            self.proj_a = nn.Linear(d, d)
            self.proj_b = nn.Linear(d, d)
            self.proj_b.weight = self.proj_a.weight
            self.head = nn.Linear(d, vocab, bias=False)
            self.head.weight = self.emb.weight

        def forward(self, ids):
            h = self.emb(ids)
            h = torch.relu(self.proj_a(h)) + self.proj_b(h)
            return self.head(h)

    class StorageViews(nn.Module):
        """Buffers that are views of one storage, and a non-contiguous parameter."""

        def __init__(self):
            super().__init__()
            base = torch.randn(16)
            self.register_buffer("lo", base[:8])
            self.register_buffer("hi", base[8:])
            self.w_t = nn.Parameter(torch.randn(8, 8).t())  # strides (1, 8)

        def forward(self, x):
            return x @ self.w_t + self.lo - self.hi

    class LossMLP(nn.Module):
        """A training program: returns a scalar loss; `frozen` has no gradient."""

        def __init__(self):
            super().__init__()
            self.mlp = TinyMLP()
            self.frozen = nn.Linear(8, 8)
            for p in self.frozen.parameters():
                p.requires_grad_(False)

        def forward(self, x, target):
            return F.cross_entropy(self.frozen(self.mlp(x)), target)

    class CausalSelfAttention(nn.Module):
        def __init__(self, d, heads):
            super().__init__()
            self.heads = heads
            self.qkv = nn.Linear(d, 3 * d)
            self.proj = nn.Linear(d, d)

        def forward(self, x):
            b, t, c = x.shape
            q, k, v = self.qkv(x).split(c, dim=2)
            hd = c // self.heads
            q = q.view(b, t, self.heads, hd).transpose(1, 2)
            k = k.view(b, t, self.heads, hd).transpose(1, 2)
            v = v.view(b, t, self.heads, hd).transpose(1, 2)
            y = _attention(q, k, v)
            y = y.transpose(1, 2).contiguous().view(b, t, c)
            return self.proj(y)

    class FeedForward(nn.Module):
        def __init__(self, d, ff):
            super().__init__()
            self.fc1 = nn.Linear(d, ff)
            self.act = nn.GELU(approximate="tanh")
            self.fc2 = nn.Linear(ff, d)

        def forward(self, x):
            return self.fc2(self.act(self.fc1(x)))

    class Block(nn.Module):
        def __init__(self, d, heads, ff):
            super().__init__()
            self.ln1 = nn.LayerNorm(d)
            self.attn = CausalSelfAttention(d, heads)
            self.ln2 = nn.LayerNorm(d)
            self.mlp = FeedForward(d, ff)

        def forward(self, x):
            x = x + self.attn(self.ln1(x))
            x = x + self.mlp(self.ln2(x))
            return x

    class TinyTransformer(nn.Module):
        def __init__(self, vocab=64, d=32, heads=4, ff=64, max_len=16, annotate=False):
            super().__init__()
            self.annotate = annotate
            self.tok_emb = nn.Embedding(vocab, d)
            self.pos_emb = nn.Embedding(max_len, d)
            self.block = Block(d, heads, ff)
            self.ln_f = nn.LayerNorm(d)
            self.head = nn.Linear(d, vocab)

        def forward(self, idx):
            t = idx.shape[1]
            pos = torch.arange(t, device=idx.device)
            x = self.tok_emb(idx) + self.pos_emb(pos)
            if self.annotate:
                with _annotate_ctx({"fxlens_region": "block", "stage": 0}):
                    x = self.block(x)
            else:
                x = self.block(x)
            return self.head(self.ln_f(x))

    class TransformerLoss(nn.Module):
        def __init__(self):
            super().__init__()
            self.model = TinyTransformer()

        def forward(self, idx, targets):
            logits = self.model(idx)
            return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))

    class MLPLoss(nn.Module):
        def __init__(self):
            super().__init__()
            self.mlp = TinyMLP()

        def forward(self, x, target):
            return F.cross_entropy(self.mlp(x), target)

    # ---- shared child helpers ----

    def seed_all(seed=SEED):
        torch.manual_seed(seed)
        try:
            if torch.cuda.is_available():
                torch.cuda.manual_seed_all(seed)
        except Exception:  # noqa: BLE001
            pass

    def flatten(obj):
        if _tree_flatten is not None:
            return _tree_flatten(obj)[0]
        if isinstance(obj, (list, tuple)):
            out = []
            for o in obj:
                out.extend(flatten(o))
            return out
        return [obj]

    def tinfo(t, values=True, limit=4096):
        if not isinstance(t, torch.Tensor):
            return {"python": repr(t), "type": type(t).__name__}
        d = {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""),
             "device": str(t.device), "stride": list(t.stride()),
             "requires_grad": bool(t.requires_grad)}
        if values and t.numel() <= limit:
            v = t.detach().cpu()
            if v.dtype in (torch.bfloat16, torch.float16):
                v = v.float()
            d["values"] = v.tolist()
        return d

    def max_abs_diff(a_list, b_list):
        worst = 0.0
        if len(a_list) != len(b_list):
            return "length mismatch %d vs %d" % (len(a_list), len(b_list))
        for a, b in zip(a_list, b_list):
            if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
                if a.shape != b.shape:
                    return "shape mismatch %s vs %s" % (list(a.shape), list(b.shape))
                if a.numel():
                    diff = (a.detach().cpu().double() - b.detach().cpu().double()).abs().max().item()
                    worst = max(worst, diff)
        return worst


# ---------------------------------------------------------------------------
# Phase: info
# ---------------------------------------------------------------------------


def _probe(path):
    """True if a dotted attribute path resolves (module import + getattr chain)."""
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except Exception:  # noqa: BLE001
            continue
        try:
            for p in parts[i:]:
                obj = getattr(obj, p)
            return True
        except Exception:  # noqa: BLE001  (torch.backends raises AssertionError for unknown names)
            return False
    return False


def _sig(fn_path):
    try:
        mod, _, name = fn_path.rpartition(".")
        fn = getattr(importlib.import_module(mod), name)
        return str(inspect.signature(fn))
    except Exception as e:  # noqa: BLE001
        return "<%s: %s>" % (type(e).__name__, e)


def phase_info(ctx, R):
    info = R.data["info"]

    def basics(rec):
        info["torch_version"] = torch.__version__
        info["torch_git_version"] = getattr(torch.version, "git_version", None)
        info["torch_cuda_version"] = getattr(torch.version, "cuda", None)
        info["cudnn_version"] = sub_step(rec, "cudnn", lambda: torch.backends.cudnn.version())
        info["python"] = sys.version
        info["pickle_default_protocol"] = pickle.DEFAULT_PROTOCOL
        info["cuda_available"] = bool(torch.cuda.is_available())
        info["dry_cpu"] = ctx.dry
        info["num_threads"] = torch.get_num_threads()
        info["cxx11_abi"] = getattr(torch._C, "_GLIBCXX_USE_CXX11_ABI", None)
        try:
            import numpy  # noqa: F401
            info["numpy_version"] = numpy.__version__
        except Exception as e:  # noqa: BLE001
            info["numpy_version"] = "not importable: %r" % (e,)
        for mod in ("safetensors", "triton", "sympy"):
            try:
                m = importlib.import_module(mod)
                info[mod + "_version"] = getattr(m, "__version__", "importable")
            except Exception as e:  # noqa: BLE001
                info[mod + "_version"] = "not importable: %s" % (type(e).__name__,)
        for tool in ("g++", "gcc", "c++", "nvcc", "addr2line"):
            info["which_" + tool] = shutil.which(tool)
        try:
            from torch._export.serde.schema import SCHEMA_VERSION
            info["export_schema_version"] = list(SCHEMA_VERSION)
        except Exception as e:  # noqa: BLE001
            info["export_schema_version"] = "unavailable: %s" % (type(e).__name__,)

    R.run("torch_basics", "info", basics)

    def gpu(rec):
        if not torch.cuda.is_available():
            raise Skip("CUDA not available")
        info["device_count"] = torch.cuda.device_count()
        info["gpu_name"] = torch.cuda.get_device_name(0)
        p = torch.cuda.get_device_properties(0)
        info["gpu_capability"] = [p.major, p.minor]
        info["gpu_total_memory"] = p.total_memory
        info["gpu_multi_processor_count"] = p.multi_processor_count
        info["cuda_arch_list"] = sub_step(rec, "arch_list", lambda: torch.cuda.get_arch_list())
        info["tf32_defaults"] = {
            "matmul.allow_tf32": sub_step(rec, "allow_tf32", lambda: torch.backends.cuda.matmul.allow_tf32),
            "cudnn.allow_tf32": sub_step(rec, "cudnn_tf32", lambda: torch.backends.cudnn.allow_tf32),
            "float32_matmul_precision": sub_step(rec, "f32prec", lambda: torch.get_float32_matmul_precision()),
            "matmul.fp32_precision": sub_step(rec, "fp32_precision", lambda: getattr(torch.backends.cuda.matmul, "fp32_precision", None)),
        }

    R.run("gpu", "info", gpu)

    def probes(rec):
        names = [
            "torch.export.export", "torch.export.save", "torch.export.load", "torch.export.Dim",
            "torch.export.export_for_training", "torch.export.pt2_archive",
            "torch.export.pt2_archive._package.package_pt2", "torch.export.pt2_archive._package.load_pt2",
            "torch._inductor.package.package_pt2", "torch._inductor.package.package_aoti",
            "torch.export.experimental._export_forward_backward", "torch.export._trace._export",
            "torch.cond", "torch.fx.traceback.annotate", "torch._inductor.aoti_compile_and_package",
            "torch._inductor.aoti_load_package", "torch.cuda.memory._record_memory_history",
            "torch.cuda.memory._dump_snapshot", "torch.cuda.memory._snapshot",
            "torch.cuda.memory.record_annotation", "torch.fx.experimental._config.enrich_profiler_metadata",
            "torch.backends.cuda.matmul.fp32_precision",
        ]
        info["api_probes"] = {n: _probe(n) for n in names}
        info["signatures"] = {n: _sig(n) for n in (
            "torch.export.save", "torch.export.export",
            "torch.cuda.memory._record_memory_history", "torch.cuda.memory._dump_snapshot",
            "torch.cuda.memory._snapshot", "torch._inductor.aoti_compile_and_package",
            "torch.export.pt2_archive._package.package_pt2")}

    R.run("api_probes", "info", probes)


# ---------------------------------------------------------------------------
# Phase: export (.pt2 archives)
# ---------------------------------------------------------------------------


def _need_export():
    if not hasattr(torch, "export") or not hasattr(torch.export, "export"):
        raise Skip("torch.export not available in torch %s" % torch.__version__)
    if not hasattr(torch.export, "save"):
        raise Skip("torch.export.save not available in torch %s" % torch.__version__)


def _find(candidates):
    """First (dotted name, object) that resolves from candidates."""
    for modname, attr in candidates:
        try:
            m = importlib.import_module(modname)
        except Exception:  # noqa: BLE001
            continue
        obj = getattr(m, attr, None)
        if obj is not None:
            return "%s.%s" % (modname, attr), obj
    return None, None


def find_package_pt2():
    return _find([("torch.export.pt2_archive._package", "package_pt2"),
                  ("torch.export.pt2_archive", "package_pt2"),
                  ("torch._inductor.package.package", "package_pt2"),
                  ("torch._inductor.package", "package_pt2")])


def find_load_pt2():
    return _find([("torch.export.pt2_archive._package", "load_pt2"),
                  ("torch.export.pt2_archive", "load_pt2"),
                  ("torch._inductor.package.package", "load_pt2"),
                  ("torch._inductor.package", "load_pt2")])


def describe_archive(path):
    d = {}
    with zipfile.ZipFile(path) as z:
        infos = z.infolist()
        names = [i.filename for i in infos]
        d["n_entries"] = len(infos)
        d["root"] = names[0].split("/")[0] if names else None
        d["entries"] = [{"name": i.filename, "size": i.file_size, "compress_type": i.compress_type,
                         "crc": i.CRC, "header_offset": i.header_offset} for i in infos[:300]]
        small = {}
        for n in names:
            base = n.split("/", 1)[1] if "/" in n else n
            if base in ("archive_format", "archive_version", "byteorder", ".data/version",
                        "version", ".data/serialization_id"):
                small[n] = z.read(n)[:200].decode("utf-8", "replace")
        d["small_records"] = small
        models = {}
        for n in names:
            if (("/models/" in n or n.startswith("models/")) and n.endswith(".json")) or \
                    n.endswith("serialized_exported_program.json"):
                try:
                    j = json.loads(z.read(n))
                    g = j.get("graph_module", {}).get("graph", {})
                    models[n] = {"schema_version": j.get("schema_version"),
                                 "torch_version": j.get("torch_version"),
                                 "verifiers": j.get("verifiers", j.get("dialect")),
                                 "n_nodes": len(g.get("nodes", [])),
                                 "range_constraints": j.get("range_constraints")}
                except Exception as e:  # noqa: BLE001
                    models[n] = {"error": repr(e)}
        d["models"] = models
        d["weights_configs"] = [n for n in names if n.endswith("_config.json")]
    return d


def describe_signature(ep):
    sig = ep.graph_signature
    out = {"inputs": [], "outputs": []}
    for s in getattr(sig, "input_specs", []):
        out["inputs"].append({"kind": getattr(s.kind, "name", str(s.kind)),
                              "arg": getattr(s.arg, "name", repr(s.arg)),
                              "target": getattr(s, "target", None),
                              "persistent": getattr(s, "persistent", None)})
    for s in getattr(sig, "output_specs", []):
        out["outputs"].append({"kind": getattr(s.kind, "name", str(s.kind)),
                               "arg": getattr(s.arg, "name", repr(s.arg)),
                               "target": getattr(s, "target", None)})
    return out


def save_io(ctx, rec, path_base, inputs, outputs, prefix=""):
    """Inputs/outputs as safetensors if importable, else a torch.save .pt."""
    tensors = {}
    for i, t in enumerate(inputs):
        if isinstance(t, torch.Tensor):
            tensors["%sinput_%d" % (prefix, i)] = t.detach().cpu().contiguous().clone()
    for i, t in enumerate(outputs):
        if isinstance(t, torch.Tensor):
            tensors["%soutput_%d" % (prefix, i)] = t.detach().cpu().contiguous().clone()
    try:
        from safetensors.torch import save_file
    except Exception:  # noqa: BLE001
        save_file = None
    if save_file is not None:
        p = path_base + ".io.safetensors"
        save_file(tensors, p, metadata={"generator": "fxlens make_pytorch_files.py"})
        rec["notes"]["io_format"] = "safetensors"
    else:
        p = path_base + ".io.pt"
        torch.save(tensors, p)
        rec["notes"]["io_format"] = "torch.save (safetensors not importable)"
    rec["files"].append(ctx.rel(p))


def save_export(ep, path, rec, extra_files=None):
    kw = {}
    if extra_files:
        kw["extra_files"] = extra_files
    torch.export.save(ep, path, **kw)
    rec["api"] = "torch.export.save"


def finish_pt2(ctx, rec, name, ep, args, ref_module=None, extra_inputs=None, reload=True, sidecar_extra=None):
    """After the .pt2 is written: describe it, str(ep), eager outputs, sidecar, io file."""
    base = os.path.join(ctx.pt2dir, name)
    path = base + ".pt2"
    rec["notes"]["size"] = os.path.getsize(path)
    rec["notes"]["archive"] = sub_step(rec, "describe_archive", lambda: describe_archive(path))

    def graph_txt():
        p = base + ".graph.txt"
        with open(p, "w", encoding="utf-8") as f:
            f.write(str(ep))
            f.write("\n")
        rec["files"].append(ctx.rel(p))

    sub_step(rec, "graph_txt", graph_txt)
    side = {"name": name, "file": name + ".pt2", "api": rec.get("api"),
            "export_api": rec["notes"].get("export_api"), "transform": rec["notes"].get("transform"),
            "torch_version": torch.__version__, "seed": SEED,
            "example_inputs": [tinfo(a) for a in flatten(args)]}
    side["signature"] = sub_step(rec, "signature", lambda: describe_signature(ep))
    side["range_constraints"] = sub_step(
        rec, "range_constraints", lambda: {str(k): str(v) for k, v in ep.range_constraints.items()})
    side["verifiers"] = sub_step(
        rec, "verifiers", lambda: [getattr(v, "dialect", getattr(v, "__name__", str(v)))
                                   for v in getattr(ep, "verifiers", [])] or getattr(ep, "dialect", None))
    side["state_dict"] = sub_step(
        rec, "state_dict", lambda: {k: tinfo(v, values=False) for k, v in ep.state_dict.items()})
    side["constants"] = sub_step(
        rec, "constants", lambda: {k: tinfo(v, values=False) if isinstance(v, torch.Tensor) else repr(v)
                                   for k, v in getattr(ep, "constants", {}).items()})
    if sidecar_extra:
        side.update(sidecar_extra)

    outs = None

    def run_module():
        m = ep.module()
        with torch.no_grad():
            return flatten(m(*args))

    outs = sub_step(rec, "ep.module()", run_module)
    if outs is not None:
        side["outputs"] = [tinfo(o) for o in outs]
        side["outputs_from"] = "ep.module()(*example_inputs)"
    else:
        side["outputs"] = None
        side["outputs_error"] = rec["sub_errors"][-1]["error"] if rec["sub_errors"] else None
    if ref_module is not None and outs is not None:
        def eager_cmp():
            with torch.no_grad():
                ref = flatten(ref_module(*args))
            return max_abs_diff(ref, outs)

        side["max_abs_diff_vs_eager_module"] = sub_step(rec, "eager_compare", eager_cmp)
    if extra_inputs:
        runs = []
        for extra in extra_inputs:
            def run_extra(extra=extra):
                with torch.no_grad():
                    o = flatten(ep.module()(*extra))
                return {"inputs": [tinfo(a) for a in flatten(extra)], "outputs": [tinfo(x) for x in o]}

            runs.append(sub_step(rec, "extra_run", run_extra))
        side["extra_runs"] = runs
    if reload:
        def reload_check():
            ep2 = torch.export.load(path)
            r = {"loaded": True, "signature_equal": describe_signature(ep2) == describe_signature(ep)}
            if outs is not None:
                with torch.no_grad():
                    o2 = flatten(ep2.module()(*args))
                r["max_abs_diff_vs_ep_module"] = max_abs_diff(outs, o2)
            return r

        side["reload"] = sub_step(rec, "torch.export.load", reload_check)
    p = base + ".json"
    write_json(p, side)
    rec["files"].append(ctx.rel(p))
    if outs is not None:
        sub_step(rec, "save_io", lambda: save_io(ctx, rec, base, flatten(args), outs))


def export_case(ctx, rec, name, make, dynamic_shapes=None, transform=None, extra_files=None,
                extra_inputs=None, eps=None, device="cpu"):
    _need_export()
    seed_all()
    mod, args = make(device)
    if callable(extra_inputs):  # drawn right after the seeded model and inputs: reproducible
        extra_inputs = extra_inputs(args)
    ref = sub_step(rec, "deepcopy_for_eager", lambda: copy.deepcopy(mod))
    kw = {}
    if dynamic_shapes is not None:
        kw["dynamic_shapes"] = dynamic_shapes()
    ep = torch.export.export(mod, args, **kw)
    rec["notes"]["export_api"] = "torch.export.export" + (" (dynamic_shapes)" if kw else "")
    if transform is not None:
        ep = transform(ep, rec)
    path = os.path.join(ctx.pt2dir, name + ".pt2")
    save_export(ep, path, rec, extra_files)
    rec["files"].insert(0, ctx.rel(path))
    if eps is not None:
        eps[name] = (ep, args)
    finish_pt2(ctx, rec, name, ep, args, ref_module=ref, extra_inputs=extra_inputs)


def make_mlp(device, dtype=None):
    m = TinyMLP().to(device)
    x = torch.randn(4, 16, device=device)
    if dtype is not None:
        m = m.to(dtype)
        x = x.to(dtype)
    return m.eval(), (x,)


def phase_export(ctx, R):
    os.makedirs(ctx.pt2dir, exist_ok=True)
    eps = {}

    # (a) MLP, static shapes, with an extra file
    R.run("mlp_static", "pt2", lambda rec: export_case(
        ctx, rec, "mlp_static", make_mlp, eps=eps,
        extra_files={"fxlens_note.txt": "tiny MLP 16-32-8, seed %d" % SEED}))

    # (b) dynamic batch
    def dyn_shapes():
        Dim = torch.export.Dim
        return {"x": {0: Dim("batch", min=2, max=1024)}}

    R.run("mlp_dynamic", "pt2", lambda rec: export_case(
        ctx, rec, "mlp_dynamic", make_mlp, dynamic_shapes=dyn_shapes, eps=eps,
        extra_inputs=lambda args: [(torch.randn(7, 16),), (torch.randn(2, 16),)]))

    # (b2) derived dynamic dim: y has batch 2*batch
    def make_two(device):
        m = TwoBatchMLP().to(device).eval()
        return m, (torch.randn(3, 16, device=device), torch.randn(6, 16, device=device))

    def two_shapes():
        Dim = torch.export.Dim
        b = Dim("batch", min=2, max=512)
        return {"x": {0: b}, "y": {0: 2 * b}}

    R.run("mlp_dynamic_derived", "pt2", lambda rec: export_case(
        ctx, rec, "mlp_dynamic_derived", make_two, dynamic_shapes=two_shapes,
        extra_inputs=lambda args: [(torch.randn(5, 16), torch.randn(10, 16))]))

    # (a2) Core ATen (run_decompositions) of the MLP
    def core_aten(ep, rec):
        rec["notes"]["transform"] = "run_decompositions()"
        return ep.run_decompositions()

    R.run("mlp_core_aten", "pt2", lambda rec: export_case(
        ctx, rec, "mlp_core_aten", make_mlp, transform=core_aten))

    # (a3) bfloat16 weights
    R.run("mlp_bf16", "pt2", lambda rec: export_case(
        ctx, rec, "mlp_bf16", lambda dev: make_mlp(dev, torch.bfloat16)))

    # (c) buffer mutation
    def make_bufmut(device):
        m = BufferMutation().to(device).train()
        return m, (torch.randn(4, 8, device=device),)

    R.run("buffer_mutation", "pt2", lambda rec: export_case(ctx, rec, "buffer_mutation", make_bufmut))

    # (d) torch.cond
    def make_cond(device):
        m = CondModel().to(device).eval()
        x = torch.randn(3, 8, device=device)
        return m, (x,)

    def cond_case(rec):
        if not hasattr(torch, "cond"):
            try:
                importlib.import_module("functorch.experimental.control_flow")
            except Exception:  # noqa: BLE001
                raise Skip("torch.cond not available")
        export_case(ctx, rec, "cond", make_cond,
                    extra_inputs=lambda args: [(-args[0],), (args[0].abs(),), (-args[0].abs(),)])

    R.run("cond", "pt2", cond_case)

    # (e) multi-output ops + lifted tensor constant
    def make_multi(device):
        m = MultiOutput().to(device).eval()
        return m, (torch.randn(4, 8, device=device),)

    R.run("multi_output", "pt2", lambda rec: export_case(ctx, rec, "multi_output", make_multi))

    # (f) aliased weights
    def make_tied(device):
        m = TiedWeights().to(device).eval()
        return m, (torch.randint(0, 64, (2, 6), device=device),)

    R.run("tied_weights", "pt2", lambda rec: export_case(ctx, rec, "tied_weights", make_tied, eps=eps))

    # (f2) buffers sharing one storage, non-contiguous parameter
    def make_views(device):
        m = StorageViews().to(device).eval()
        return m, (torch.randn(3, 8, device=device),)

    R.run("storage_views", "pt2", lambda rec: export_case(ctx, rec, "storage_views", make_views))

    # (g) joint forward-backward training program
    R.run("joint_mlp_loss", "pt2", lambda rec: joint_case(ctx, rec))

    # (h) tiny transformer block (training IR and Core ATen)
    def make_tf(device, annotate=False):
        m = TinyTransformer(annotate=annotate).to(device).eval()
        return m, (torch.randint(0, 64, (2, 8), device=device),)

    R.run("transformer", "pt2", lambda rec: export_case(ctx, rec, "transformer", make_tf, eps=eps))
    R.run("transformer_core_aten", "pt2", lambda rec: export_case(
        ctx, rec, "transformer_core_aten", make_tf, transform=core_aten))

    def annotated(rec):
        if not _probe("torch.fx.traceback.annotate"):
            raise Skip("torch.fx.traceback.annotate not available")
        export_case(ctx, rec, "transformer_annotated", lambda dev: make_tf(dev, annotate=True))

    R.run("transformer_annotated", "pt2", annotated)

    # MLP with weights on the GPU
    def cuda_case(rec):
        if not ctx.cuda:
            raise Skip("CUDA not available" + (" (--dry-cpu)" if ctx.dry else ""))
        export_case(ctx, rec, "mlp_cuda", make_mlp, device="cuda")

    R.run("mlp_cuda", "pt2", cuda_case)

    # API variants of the container
    def buffer_root(rec):
        _need_export()
        if "mlp_static" not in eps:
            raise Skip("mlp_static was not exported")
        ep, args = eps["mlp_static"]
        buf = io.BytesIO()
        torch.export.save(ep, buf)
        rec["api"] = "torch.export.save(ep, io.BytesIO())"
        path = os.path.join(ctx.pt2dir, "mlp_saved_to_buffer.pt2")
        with open(path, "wb") as f:
            f.write(buf.getvalue())
        rec["files"].append(ctx.rel(path))
        rec["notes"]["why"] = "written to a buffer: the zip root folder is not the file name"
        finish_pt2(ctx, rec, "mlp_saved_to_buffer", ep, args)

    R.run("mlp_saved_to_buffer", "pt2", buffer_root)

    def multi_model(rec):
        _need_export()
        api, package_pt2 = find_package_pt2()
        if package_pt2 is None:
            raise Skip("package_pt2 not found")
        progs = {k: eps[k][0] for k in ("mlp_static", "mlp_dynamic", "tied_weights", "transformer") if k in eps}
        if not progs:
            raise Skip("no exported programs to package")
        path = os.path.join(ctx.pt2dir, "multi_model_package.pt2")
        kw = {"exported_programs": progs}
        try:
            params = inspect.signature(package_pt2).parameters
        except Exception:  # noqa: BLE001
            params = {}
        if "extra_files" in params or not params:
            kw["extra_files"] = {"fxlens_note.txt": "models: " + ", ".join(sorted(progs))}
        package_pt2(path, **kw)
        rec["api"] = api
        rec["files"].append(ctx.rel(path))
        rec["notes"]["models"] = sorted(progs)
        rec["notes"]["size"] = os.path.getsize(path)
        rec["notes"]["archive"] = sub_step(rec, "describe_archive", lambda: describe_archive(path))
        side = {"name": "multi_model_package", "file": "multi_model_package.pt2", "api": api,
                "models": {}, "torch_version": torch.__version__}
        for k in progs:
            ep, args = eps[k]
            side["models"][k] = {"example_inputs": [tinfo(a) for a in flatten(args)],
                                 "signature": sub_step(rec, "signature_" + k, lambda ep=ep: describe_signature(ep))}

        def reload_all():
            lapi, load_pt2 = find_load_pt2()
            if load_pt2 is None:
                raise Skip("load_pt2 not found")
            contents = load_pt2(path)
            got = getattr(contents, "exported_programs", None)
            return {"api": lapi, "models": sorted(got) if isinstance(got, dict) else repr(type(contents))}

        side["reload"] = sub_step(rec, "load_pt2", reload_all)
        p = os.path.join(ctx.pt2dir, "multi_model_package.json")
        write_json(p, side)
        rec["files"].append(ctx.rel(p))

    R.run("multi_model_package", "pt2", multi_model)


def joint_case(ctx, rec):
    _need_export()
    fb_api, fb = _find([("torch.export.experimental", "_export_forward_backward"),
                        ("torch._export.experimental", "_export_forward_backward")])
    if fb is None:
        raise Skip("_export_forward_backward not available")
    seed_all()
    mod = LossMLP().train()
    args = (torch.randn(4, 16), torch.randint(0, 8, (4,)))
    ref = copy.deepcopy(mod)
    attempts = []
    bases = [("torch.export.export", lambda: torch.export.export(mod, args))]
    if hasattr(torch.export, "export_for_training"):
        bases.append(("torch.export.export_for_training", lambda: torch.export.export_for_training(mod, args)))
    bases.append(("torch.export._trace._export(pre_dispatch=True)",
                  lambda: importlib.import_module("torch.export._trace")._export(mod, args, pre_dispatch=True)))
    joint = None
    for label, make_ep in bases:
        try:
            ep = make_ep()
            joint = fb(ep)
            attempts.append({"base": label, "joint": fb_api, "ok": True})
            rec["notes"]["export_api"] = label
            rec["notes"]["transform"] = fb_api
            break
        except Exception as e:  # noqa: BLE001
            attempts.append({"base": label, "joint": fb_api, "ok": False,
                             "error": "%s: %s" % (type(e).__name__, e), "traceback": traceback.format_exc()})
    rec["notes"]["attempts"] = attempts
    if joint is None:
        raise RuntimeError("every joint export attempt failed; see notes.attempts")
    path = os.path.join(ctx.pt2dir, "joint_mlp_loss.pt2")
    save_export(joint, path, rec)
    rec["files"].insert(0, ctx.rel(path))

    def eager_reference():
        loss = ref(*args)
        loss.backward()
        return {"loss": loss.item(),
                "grads": {n: tinfo(p.grad) for n, p in ref.named_parameters() if p.grad is not None}}

    extra = {"eager_reference": sub_step(rec, "eager_reference", eager_reference)}
    finish_pt2(ctx, rec, "joint_mlp_loss", joint, args, sidecar_extra=extra)


# ---------------------------------------------------------------------------
# Phase: snapshots (CUDA memory snapshots)
# ---------------------------------------------------------------------------


def record_history(**kw):
    """torch.cuda.memory._record_memory_history with fallbacks for older kwargs."""
    fn = torch.cuda.memory._record_memory_history
    optional = ["global_record_annotations", "compile_context", "clear_history", "skip_actions"]
    kw = dict(kw)
    last = None
    for _ in range(len(optional) + 1):
        try:
            fn(**kw)
            return kw
        except TypeError as e:
            last = e
            dropped = False
            for k in optional:
                if k in kw:
                    del kw[k]
                    dropped = True
                    break
            if not dropped:
                break
    raise last


def stop_history():
    try:
        torch.cuda.memory._record_memory_history(enabled=None)
    except Exception:  # noqa: BLE001
        traceback.print_exc()


def describe_snapshot(path):
    with open(path, "rb") as f:
        data = f.read()
    d = {"size": len(data), "pickle_protocol": data[1] if data[:1] == b"\x80" else 0}
    snap = pickle.loads(data)  # our own file, just written
    d["top_keys"] = sorted(snap.keys()) if isinstance(snap, dict) else repr(type(snap))
    segs = snap.get("segments", []) if isinstance(snap, dict) else []
    traces = snap.get("device_traces", []) if isinstance(snap, dict) else []
    d["n_segments"] = len(segs)
    d["n_blocks"] = sum(len(s.get("blocks", [])) for s in segs)
    d["segment_keys"] = sorted(segs[0].keys()) if segs else []
    d["block_keys"] = sorted(segs[0]["blocks"][0].keys()) if segs and segs[0].get("blocks") else []
    d["n_trace_entries"] = [len(t) for t in traces]
    actions = collections.Counter()
    frame_keys = set()
    entry_keys = set()
    max_frames = 0
    n_frames = 0
    big_ints = 0
    for t in traces:
        for e in t:
            actions[e.get("action")] += 1
            entry_keys.update(e.keys())
            fr = e.get("frames") or []
            max_frames = max(max_frames, len(fr))
            n_frames += len(fr)
            for fm in fr[:3]:
                if isinstance(fm, dict):
                    frame_keys.update(fm.keys())
            for k in ("addr", "size"):
                v = e.get(k)
                if isinstance(v, int) and v >= 2 ** 63:
                    big_ints += 1
    d["actions"] = dict(actions)
    d["trace_entry_keys"] = sorted(entry_keys)
    d["frame_keys"] = sorted(frame_keys)
    d["max_frames_per_entry"] = max_frames
    d["total_frames"] = n_frames
    d["ints_ge_2_63"] = big_ints
    if isinstance(snap, dict):
        d["allocator_settings"] = snap.get("allocator_settings")
        ann = snap.get("external_annotations")
        d["n_external_annotations"] = len(ann) if isinstance(ann, list) else None
    return d


def mlp_train(steps, device="cuda", batch=32, annotate=False):
    seed_all()
    model = MLPLoss().to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn(batch, 16, device=device)
    y = torch.randint(0, 8, (batch,), device=device)
    rf = getattr(getattr(torch, "profiler", None), "record_function", None)
    ra = getattr(torch.cuda.memory, "record_annotation", None) if annotate else None
    for i in range(steps):
        ctx1 = rf("fxlens_train_step_%d" % i) if (annotate and rf) else contextlib.nullcontext()
        with ctx1:
            opt.zero_grad(set_to_none=True)
            loss = model(x, y)
            cm = None
            if ra is not None:
                try:
                    cm = ra("fxlens_backward_%d" % i)
                except Exception:  # noqa: BLE001
                    cm = None
            if cm is not None and hasattr(cm, "__enter__") and hasattr(cm, "__exit__"):
                with cm:
                    loss.backward()
            else:
                loss.backward()
            opt.step()
    if device == "cuda":
        torch.cuda.synchronize()
    return model, opt


def transformer_train(steps, device="cuda"):
    seed_all()
    model = TransformerLoss().to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    idx = torch.randint(0, 64, (2, 8), device=device)
    tgt = torch.randint(0, 64, (2, 8), device=device)
    for _ in range(steps):
        opt.zero_grad(set_to_none=True)
        loss = model(idx, tgt)
        loss.backward()
        opt.step()
    if device == "cuda":
        torch.cuda.synchronize()
    return model, opt


def phase_snapshots(ctx, R):
    os.makedirs(ctx.snapdir, exist_ok=True)
    keep = []  # keep models alive across a snapshot where wanted

    def need_cuda():
        if not ctx.cuda:
            raise Skip("CUDA not available" + (" (--dry-cpu)" if ctx.dry else ""))
        if not hasattr(torch.cuda, "memory") or not hasattr(torch.cuda.memory, "_record_memory_history"):
            raise Skip("torch.cuda.memory._record_memory_history not available")

    def fresh():
        keep.clear()
        gc.collect()
        torch.cuda.synchronize()
        torch.cuda.empty_cache()

    def dump(rec, name, **dump_kw):
        path = os.path.join(ctx.snapdir, name + ".pickle")
        torch.cuda.memory._dump_snapshot(path, **dump_kw)
        rec["api"] = "torch.cuda.memory._dump_snapshot" + ("(%s)" % ", ".join("%s=%r" % kv for kv in dump_kw.items()) if dump_kw else "")
        rec["files"].append(ctx.rel(path))
        rec["notes"]["snapshot"] = sub_step(rec, "describe", lambda: describe_snapshot(path))
        return path

    def snap(name, record_kw, workload, before=None, dump_kw=None, extra=None):
        def body(rec):
            need_cuda()
            fresh()
            if before is not None:
                keep.append(before())
            used = record_history(**record_kw)
            rec["notes"]["record_memory_history"] = used
            try:
                keep.append(workload())
                torch.cuda.synchronize()
                dump(rec, name, **(dump_kw or {}))
                if extra is not None:
                    extra(rec)
            finally:
                stop_history()
                fresh()
        R.run(name, "snapshot", body)

    # Order: python-only stacks first (no C++ symbolisation), C++ stacks last.
    # (b, python) MLP + Adam, model built inside the recording
    snap("mlp_adam_python", {"enabled": "all", "context": "all", "stacks": "python", "max_entries": 100000},
         lambda: mlp_train(3))

    # (c) + (d): transformer forward+backward, python frames; then _snapshot() with protocols 2/4/5
    def protocols(rec):
        s = torch.cuda.memory._snapshot()
        for proto in (2, 4, 5):
            if proto > pickle.HIGHEST_PROTOCOL:
                continue
            p = os.path.join(ctx.snapdir, "transformer_snapshot_protocol%d.pickle" % proto)
            with open(p, "wb") as f:
                pickle.dump(s, f, protocol=proto)
            rec["files"].append(ctx.rel(p))
            rec["notes"]["protocol%d" % proto] = sub_step(rec, "describe_p%d" % proto, lambda p=p: describe_snapshot(p))
        rec["notes"]["protocols_api"] = "pickle.dump(torch.cuda.memory._snapshot(), f, protocol=N)"

    snap("transformer_fwd_bwd_python",
         {"enabled": "all", "context": "all", "stacks": "python", "max_entries": 100000},
         lambda: transformer_train(2), extra=protocols)

    # state only: segments/blocks with their frames, no trace entries
    snap("mlp_state_only", {"enabled": "state", "context": "all", "stacks": "python", "max_entries": 100000},
         lambda: mlp_train(2))

    # FX-augmented frames (torch.compile aot_eager + augment_with_fx_traces), if supported
    def fx_body(rec):
        need_cuda()
        try:
            params = inspect.signature(torch.cuda.memory._dump_snapshot).parameters
        except Exception:  # noqa: BLE001
            params = {}
        if "augment_with_fx_traces" not in params:
            raise Skip("_dump_snapshot has no augment_with_fx_traces")
        if not hasattr(torch, "compile"):
            raise Skip("torch.compile not available")
        fresh()
        patch = contextlib.nullcontext()
        try:
            cfg = importlib.import_module("torch.fx.experimental._config")
            if hasattr(cfg, "enrich_profiler_metadata"):
                patch = cfg.patch("enrich_profiler_metadata", True)
                rec["notes"]["enrich_profiler_metadata"] = True
        except Exception:  # noqa: BLE001
            pass
        used = record_history(enabled="all", context="all", stacks="python", max_entries=100000)
        rec["notes"]["record_memory_history"] = used
        try:
            with patch:
                seed_all()
                mod = TinyMLP().cuda()
                compiled = torch.compile(mod, backend="aot_eager", fullgraph=True)
                x = torch.randn(10, 16, device="cuda")
                out = compiled(x)
                out.sum().backward()
                torch.cuda.synchronize()
                keep.append((mod, compiled, out))
                dump(rec, "mlp_compiled_fx_augmented", augment_with_fx_traces=True)
        finally:
            stop_history()
            fresh()
        sn = rec["notes"].get("snapshot") or {}
        rec["notes"]["has_fx_frame_keys"] = any(k.startswith("fx_") for k in sn.get("frame_keys", []))

    R.run("mlp_compiled_fx_augmented", "snapshot", fx_body)

    # (a) the default call: _record_memory_history(max_entries=100000) (C++ + python stacks)
    snap("mlp_adam_default", {"max_entries": 100000}, lambda: mlp_train(3))

    # (b) explicit context='all', stacks='all', annotations; model built before recording
    snap("mlp_adam_all", {"enabled": "all", "context": "all", "stacks": "all", "max_entries": 100000,
                          "global_record_annotations": True},
         lambda: mlp_train(3, annotate=True), before=lambda: mlp_train(1))


# ---------------------------------------------------------------------------
# Phase: timing
# ---------------------------------------------------------------------------


def time_it(step, sync, warmup=5, iters=20):
    for _ in range(warmup):
        step()
    sync()
    ts = []
    for _ in range(iters):
        sync()
        t0 = time.perf_counter()
        step()
        sync()
        ts.append(time.perf_counter() - t0)
    return {"median_ms": statistics.median(ts) * 1e3, "min_ms": min(ts) * 1e3,
            "max_ms": max(ts) * 1e3, "iters": iters, "warmup": warmup,
            "all_ms": [round(t * 1e3, 5) for t in ts]}


def set_tf32(flag, rec):
    """flag None: leave defaults. Returns what was set and the effective flags."""
    how = "defaults"
    if flag is not None:
        try:
            torch.backends.cuda.matmul.allow_tf32 = flag
            torch.backends.cudnn.allow_tf32 = flag
            how = "torch.backends.cuda.matmul.allow_tf32 = %r (and cudnn)" % flag
        except Exception as e:  # noqa: BLE001
            rec["sub_errors"].append({"step": "allow_tf32", "error": repr(e), "traceback": traceback.format_exc()})
            mm = torch.backends.cuda.matmul
            if hasattr(mm, "fp32_precision"):
                mm.fp32_precision = "tf32" if flag else "ieee"
                how = "torch.backends.cuda.matmul.fp32_precision = %r" % mm.fp32_precision
    eff = {}
    for label, fn in (("matmul.allow_tf32", lambda: torch.backends.cuda.matmul.allow_tf32),
                      ("matmul.fp32_precision", lambda: getattr(torch.backends.cuda.matmul, "fp32_precision", None)),
                      ("float32_matmul_precision", lambda: torch.get_float32_matmul_precision())):
        try:
            eff[label] = fn()
        except Exception as e:  # noqa: BLE001
            eff[label] = "error: %s" % (e,)
    return {"set": how, "effective": eff}


def phase_timing(ctx, R):
    T = R.data["timing"]
    dev = "cuda" if ctx.cuda else "cpu"
    T["device"] = dev
    T["device_name"] = torch.cuda.get_device_name(0) if ctx.cuda else platform.processor() or "cpu"
    T["torch_version"] = torch.__version__
    T["cuda_version"] = getattr(torch.version, "cuda", None)
    sync = torch.cuda.synchronize if ctx.cuda else (lambda: None)
    lines = []

    def train_timer(label, tf32):
        def body(rec):
            if ctx.dry:
                rec["notes"]["dry_cpu"] = True
            flags = set_tf32(tf32, rec) if ctx.cuda else {"set": "cpu: n/a"}
            res = {"flags": flags}
            seed_all()
            mlp = MLPLoss().to(dev)
            opt_m = torch.optim.Adam(mlp.parameters(), lr=1e-3)
            x = torch.randn(64, 16, device=dev)
            y = torch.randint(0, 8, (64,), device=dev)

            def mlp_step():
                opt_m.zero_grad(set_to_none=True)
                mlp(x, y).backward()
                opt_m.step()

            res["mlp_train_step"] = time_it(mlp_step, sync)
            seed_all()
            tf = TransformerLoss().to(dev)
            opt_t = torch.optim.AdamW(tf.parameters(), lr=1e-3)
            idx = torch.randint(0, 64, (2, 8), device=dev)
            tgt = torch.randint(0, 64, (2, 8), device=dev)

            def tf_step():
                opt_t.zero_grad(set_to_none=True)
                tf(idx, tgt).backward()
                opt_t.step()

            res["transformer_train_step"] = time_it(tf_step, sync)
            T[label] = res
            rec["notes"]["result"] = {k: (v["median_ms"] if isinstance(v, dict) and "median_ms" in v else v)
                                      for k, v in res.items()}
            lines.append("%-28s mlp train step median %.4f ms | transformer train step median %.4f ms | %s" % (
                label, res["mlp_train_step"]["median_ms"], res["transformer_train_step"]["median_ms"],
                flags.get("set")))
        R.run("train_step_" + label, "timing", body)

    train_timer("default_flags", None)
    train_timer("fp32_tf32_off", False)

    def gemm(label, tf32):
        def body(rec):
            n = 4096 if ctx.cuda else 512
            flags = set_tf32(tf32, rec) if ctx.cuda else {"set": "cpu: n/a"}
            seed_all()
            a = torch.randn(n, n, device=dev)
            b = torch.randn(n, n, device=dev)
            r = time_it(lambda: torch.mm(a, b), sync)
            flop = 2.0 * n * n * n
            r["gflops_median"] = flop / (r["median_ms"] * 1e-3) / 1e9
            r["n"] = n
            r["flags"] = flags
            T["mm_" + label] = r
            rec["notes"]["result"] = {"n": n, "median_ms": r["median_ms"], "gflops": r["gflops_median"]}
            lines.append("%-28s torch.mm %dx%dx%d fp32 median %.4f ms = %.1f GFLOP/s | %s" % (
                "mm_" + label, n, n, n, r["median_ms"], r["gflops_median"], flags.get("set")))
        R.run("mm_" + label, "timing", body)

    gemm("fp32_tf32_off", False)
    gemm("tf32_on", True)

    def write_txt(rec):
        p = os.path.join(ctx.stage, "timing.txt")
        hdr = ["# fxlens make_pytorch_files.py timing (median of 20 after 5 warm-ups; "
               "torch.cuda.synchronize around each)",
               "# device: %s (%s); torch %s; CUDA %s" % (T["device"], T["device_name"], T["torch_version"], T["cuda_version"]),
               "# train step = zero_grad + forward + backward + optimizer step (Adam for the MLP, AdamW for the transformer)",
               "# MLP 16-32-8 batch 64; transformer: vocab 64, d 32, 4 heads, ff 64, batch 2 x 8 tokens"]
        if ctx.dry:
            hdr.append("# DRY RUN ON CPU: not a GPU timing")
        with open(p, "w", encoding="utf-8") as f:
            f.write("\n".join(hdr + lines) + "\n")
        rec["files"].append(ctx.rel(p))

    R.run("timing_txt", "timing", write_txt)


# ---------------------------------------------------------------------------
# Phase: aoti (AOTInductor package, last, in its own process with a timeout)
# ---------------------------------------------------------------------------


def phase_aoti(ctx, R):
    def body(rec):
        _need_export()
        if not ctx.cuda:
            raise Skip("CUDA not available" + (" (--dry-cpu)" if ctx.dry else ""))
        ind = importlib.import_module("torch._inductor")
        fn = getattr(ind, "aoti_compile_and_package", None)
        if fn is None:
            raise Skip("torch._inductor.aoti_compile_and_package not available")
        try:
            cfg = importlib.import_module("torch._inductor.config")
            cfg.compile_threads = 1
        except Exception:  # noqa: BLE001
            pass
        os.makedirs(ctx.pt2dir, exist_ok=True)
        seed_all()
        mod, args = make_mlp("cuda")
        ep = torch.export.export(mod, args)
        path = os.path.join(ctx.pt2dir, "mlp_aoti_cuda.pt2")
        try:
            params = list(inspect.signature(fn).parameters)
        except Exception:  # noqa: BLE001
            params = []
        t0 = time.time()
        if len(params) > 1 and params[1] == "args":  # 2.5-style (ep, args, kwargs, *, package_path)
            res = fn(ep, args, package_path=path)
        else:
            res = fn(ep, package_path=path)
        rec["notes"]["compile_seconds"] = round(time.time() - t0, 2)
        rec["api"] = "torch._inductor.aoti_compile_and_package"
        if isinstance(res, str) and res != path and os.path.exists(res):
            shutil.move(res, path)
        size = os.path.getsize(path)
        rec["notes"]["size"] = size
        rec["notes"]["archive"] = sub_step(rec, "describe_archive", lambda: describe_archive(path))
        if size > AOTI_MAX_BYTES:
            os.remove(path)
            raise RuntimeError("AOTI package is %d bytes (> %d): removed" % (size, AOTI_MAX_BYTES))
        rec["files"].append(ctx.rel(path))
        side = {"name": "mlp_aoti_cuda", "file": "mlp_aoti_cuda.pt2", "api": rec["api"],
                "torch_version": torch.__version__, "seed": SEED,
                "example_inputs": [tinfo(a) for a in flatten(args)]}
        with torch.no_grad():
            ref = flatten(mod(*args))
        side["eager_outputs"] = [tinfo(o) for o in ref]

        def run_pkg():
            load = getattr(ind, "aoti_load_package", None)
            if load is None:
                raise Skip("aoti_load_package not available")
            runner = load(path)
            with torch.no_grad():
                out = flatten(runner(*args))
            return {"outputs": [tinfo(o) for o in out], "max_abs_diff_vs_eager": max_abs_diff(ref, out)}

        side["aoti_run"] = sub_step(rec, "aoti_load_package", run_pkg)
        p = os.path.join(ctx.pt2dir, "mlp_aoti_cuda.json")
        write_json(p, side)
        rec["files"].append(ctx.rel(p))

    R.run("mlp_aoti_cuda", "pt2_aoti", body)


PHASE_FUNCS = {"info": "phase_info", "export": "phase_export", "snapshots": "phase_snapshots",
               "timing": "phase_timing", "aoti": "phase_aoti"}


class Ctx:
    def __init__(self, stage, dry):
        self.stage = stage
        self.dry = dry
        self.pt2dir = os.path.join(stage, "pt2")
        self.snapdir = os.path.join(stage, "snapshots")
        self.cuda = False

    def rel(self, p):
        return os.path.relpath(p, self.stage).replace(os.sep, "/")


def child_main(args):
    import faulthandler
    faulthandler.enable()
    if args.phase_timeout and args.phase_timeout > 8:
        faulthandler.dump_traceback_later(args.phase_timeout - 4, exit=False)
    stage = args.out
    ctx = Ctx(stage, args.dry_cpu)
    os.makedirs(os.path.join(stage, WORK), exist_ok=True)
    R = Recorder(os.path.join(stage, WORK, "phase_%s.json" % args.phase), args.phase)
    try:
        ctx.cuda = (not args.dry_cpu) and bool(torch.cuda.is_available())
        R.data["info"]["phase_torch_version"] = torch.__version__
        R.data["info"]["phase_cuda"] = ctx.cuda
        globals()[PHASE_FUNCS[args.phase]](ctx, R)
    except BaseException as e:  # noqa: BLE001
        R.data["phase_error"] = {"error": "%s: %s" % (type(e).__name__, e), "traceback": traceback.format_exc()}
    finally:
        R.flush()
    return 0


# ---------------------------------------------------------------------------
# Parent: orchestrate phases, write manifest, pack the tarball
# ---------------------------------------------------------------------------


def run_child(script, stage, phase, timeout, dry, log_path):
    cmd = [sys.executable, script, stage, "--phase", phase, "--phase-timeout", str(int(timeout))]
    if dry:
        cmd.append("--dry-cpu")
    env = os.environ.copy()
    env["PYTHONUNBUFFERED"] = "1"
    env.setdefault("TORCH_SYMBOLIZE_MODE", "fast")
    env.setdefault("TORCHINDUCTOR_CACHE_DIR", INDUCTOR_CACHE)
    env.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
    if dry:
        env["CUDA_VISIBLE_DEVICES"] = ""
    res = {"cmd": cmd, "timeout_s": int(timeout), "rc": None, "timed_out": False, "seconds": None,
           "log": os.path.relpath(log_path, stage)}
    t0 = time.time()
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True)
        try:
            res["rc"] = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            res["timed_out"] = True
            try:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait(timeout=10)
            except ProcessLookupError:
                pass
            except Exception as e:  # noqa: BLE001
                res["kill_error"] = repr(e)
            res["rc"] = proc.returncode
    res["seconds"] = round(time.time() - t0, 2)
    return res


def nvidia_smi():
    exe = shutil.which("nvidia-smi")
    if not exe:
        return None
    try:
        p = subprocess.run([exe, "--query-gpu=name,driver_version,memory.total,compute_cap",
                            "--format=csv,noheader"], capture_output=True, text=True, timeout=20)
        return (p.stdout or p.stderr).strip()
    except Exception as e:  # noqa: BLE001
        return "error: %r" % (e,)


def list_files(stage):
    files = []
    for root, dirs, names in os.walk(stage):
        dirs[:] = sorted(d for d in dirs if d != WORK)
        for n in sorted(names):
            p = os.path.join(root, n)
            if os.path.isfile(p) and not n.endswith(".tmp"):
                files.append(p)
    return files


def make_tar(out, stage, files, manifest_path):
    tar_path = os.path.join(out, TAR_NAME)
    tmp = tar_path + ".tmp"
    members = [(p, TAR_PREFIX + "/" + os.path.relpath(p, stage).replace(os.sep, "/")) for p in files]
    members.append((manifest_path, TAR_PREFIX + "/manifest.json"))
    with tarfile.open(tmp, "w:gz", compresslevel=9) as tf:
        for p, arc in members:
            ti = tf.gettarinfo(p, arcname=arc)
            ti.uid = ti.gid = 0
            ti.uname = ti.gname = ""
            ti.mode = 0o644
            with open(p, "rb") as f:
                tf.addfile(ti, f)
    os.replace(tmp, tar_path)
    return tar_path


def parent_main(args):
    t_start = time.time()
    out = os.path.abspath(args.out)
    stage = os.path.join(out, STAGE_NAME)
    script = os.path.abspath(__file__)
    manifest = {
        "generator": "tests/gpu/make_pytorch_files.py",
        "script_version": SCRIPT_VERSION,
        "script_sha256": None,
        "mode": "dry-cpu" if args.dry_cpu else "gpu",
        "argv": sys.argv,
        "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t_start)),
        "finished_utc": None,
        "wall_seconds": None,
        "budget_seconds": args.budget,
        "python": sys.version,
        "platform": platform.platform(),
        "hostname_cpu_count": os.cpu_count(),
        "env": {k: os.environ.get(k) for k in ("TORCH_SYMBOLIZE_MODE", "CUDA_VISIBLE_DEVICES",
                                               "PYTORCH_CUDA_ALLOC_CONF", "TORCHINDUCTOR_CACHE_DIR")},
        "env_defaults_for_children": {"TORCH_SYMBOLIZE_MODE": "fast (unless set)",
                                      "TORCHINDUCTOR_COMPILE_THREADS": "1 (unless set)"},
        "nvidia_smi": None,
        "info": {},
        "phases": {},
        "artifacts": [],
        "timing": {},
        "summary": {},
        "errors": [],
        "files": [],
        "tarball": None,
        "notes": [
            "tarball members are under pytorch211/; unpack into tests/data/ to get tests/data/pytorch211/",
            "the manifest.json inside the tarball lacks the 'tarball' entry (it is written before the tarball)",
        ],
    }
    manifest_path = os.path.join(out, "manifest.json")
    try:
        os.makedirs(out, exist_ok=True)
        if os.path.isdir(stage) and not args.keep_existing:
            shutil.rmtree(stage)
        for sub in (WORK, "logs", "pt2", "snapshots"):
            os.makedirs(os.path.join(stage, sub), exist_ok=True)
        try:
            manifest["script_sha256"] = sha256_file(script)
        except Exception as e:  # noqa: BLE001
            manifest["errors"].append({"where": "script_sha256", "error": repr(e)})
        write_json(manifest_path, manifest)  # an early manifest, in case of a hard kill
        manifest["nvidia_smi"] = nvidia_smi()
        deadline = t_start + args.budget
        phases = [p for p in PHASES if p in args.only.split(",")] if args.only else list(PHASES)
        for phase in phases:
            left = deadline - time.time()
            if phase == "aoti":
                if args.no_aoti:
                    manifest["phases"][phase] = {"skipped": "--no-aoti"}
                    continue
                if args.dry_cpu:
                    manifest["phases"][phase] = {"skipped": "--dry-cpu (AOTInductor needs the GPU run)"}
                    continue
                if left < AOTI_MIN_LEFT_S:
                    manifest["phases"][phase] = {"skipped": "only %.0f s of the %d s budget left" % (left, args.budget)}
                    continue
            timeout = max(MIN_PHASE_S, min(PHASE_CAPS[phase], left))
            log_path = os.path.join(stage, "logs", "phase_%s.log" % phase)
            print("== phase %s (timeout %d s)" % (phase, timeout), flush=True)
            try:
                res = run_child(script, stage, phase, timeout, args.dry_cpu, log_path)
            except Exception as e:  # noqa: BLE001
                res = {"error": "%s: %s" % (type(e).__name__, e), "traceback": traceback.format_exc()}
            res["log_tail"] = tail_text(log_path, 3000)
            jpath = os.path.join(stage, WORK, "phase_%s.json" % phase)
            try:
                with open(jpath, encoding="utf-8") as f:
                    pdata = json.load(f)
            except Exception as e:  # noqa: BLE001
                pdata = None
                res["result_error"] = "no phase result: %s: %s" % (type(e).__name__, e)
            if pdata is not None:
                manifest["info"].update(pdata.get("info") or {})
                manifest["timing"].update(pdata.get("timing") or {})
                for a in pdata.get("artifacts") or []:
                    a["phase"] = phase
                    manifest["artifacts"].append(a)
                if pdata.get("phase_error"):
                    res["phase_error"] = pdata["phase_error"]
            if res.get("timed_out"):
                res["note"] = "timed out: artifacts after the last recorded one in this phase were not made"
            manifest["phases"][phase] = res
            print("== phase %s: rc=%s timed_out=%s %.1f s" % (phase, res.get("rc"), res.get("timed_out"),
                                                              res.get("seconds") or 0), flush=True)
            write_json(manifest_path, manifest)
    except BaseException as e:  # noqa: BLE001
        manifest["errors"].append({"where": "parent", "error": "%s: %s" % (type(e).__name__, e),
                                   "traceback": traceback.format_exc()})
    finally:
        finalize(manifest, manifest_path, out, stage, t_start, args)
    return 0


def finalize(manifest, manifest_path, out, stage, t_start, args):
    try:
        for a in manifest["artifacts"]:
            if a.get("error"):
                manifest["errors"].append({"where": "%s/%s" % (a.get("phase"), a["name"]),
                                           "error": a["error"], "traceback": a.get("traceback")})
            for se in a.get("sub_errors") or []:
                manifest["errors"].append({"where": "%s/%s/%s" % (a.get("phase"), a["name"], se.get("step")),
                                           "error": se.get("error"), "traceback": se.get("traceback")})
        for ph, r in manifest["phases"].items():
            if isinstance(r, dict):
                if r.get("phase_error"):
                    manifest["errors"].append({"where": "phase " + ph, **r["phase_error"]})
                if r.get("timed_out") or (r.get("rc") not in (0, None)) or r.get("result_error") or r.get("error"):
                    manifest["errors"].append({"where": "phase " + ph, "error": "rc=%s timed_out=%s %s %s" % (
                        r.get("rc"), r.get("timed_out"), r.get("result_error") or "", r.get("error") or ""),
                        "log_tail": r.get("log_tail")})
        arts = manifest["artifacts"]
        manifest["summary"] = {
            "ok": sorted(a["name"] for a in arts if a.get("ok")),
            "skipped": {a["name"]: a.get("skipped") for a in arts if a.get("skipped")},
            "failed": {a["name"]: a.get("error") for a in arts if a.get("error")},
        }
    except Exception as e:  # noqa: BLE001
        manifest["errors"].append({"where": "finalize/summary", "error": repr(e), "traceback": traceback.format_exc()})
    files = []
    try:
        files = list_files(stage) if os.path.isdir(stage) else []
        manifest["files"] = [{"path": os.path.relpath(p, stage).replace(os.sep, "/"),
                              "size": os.path.getsize(p), "sha256": sha256_file(p)} for p in files]
        manifest["total_bytes_uncompressed"] = sum(f["size"] for f in manifest["files"])
    except Exception as e:  # noqa: BLE001
        manifest["errors"].append({"where": "finalize/files", "error": repr(e), "traceback": traceback.format_exc()})
    manifest["finished_utc"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    manifest["wall_seconds"] = round(time.time() - t_start, 2)
    try:
        write_json(manifest_path, manifest)
    except Exception:  # noqa: BLE001
        traceback.print_exc()
    tar_ok = False
    try:
        packed = list(files)
        dropped = []
        while True:
            tar_path = make_tar(out, stage, packed, manifest_path)
            size = os.path.getsize(tar_path)
            if size <= TAR_LIMIT or not packed:
                break
            # Over the limit: drop the biggest optional file (AOTI package first, then snapshots).
            def prio(p):
                n = os.path.basename(p)
                return (0 if "aoti" in n else 1 if n.endswith(".pickle") else 2, -os.path.getsize(p))
            victim = sorted(packed, key=prio)[0]
            packed.remove(victim)
            dropped.append(os.path.relpath(victim, stage))
        manifest["tarball"] = {"path": TAR_NAME, "size": size, "sha256": sha256_file(tar_path),
                               "members_prefix": TAR_PREFIX + "/", "n_files": len(packed) + 1,
                               "dropped_for_size": dropped, "limit_bytes": TAR_LIMIT}
        tar_ok = True
    except Exception as e:  # noqa: BLE001
        manifest["errors"].append({"where": "finalize/tar", "error": repr(e), "traceback": traceback.format_exc()})
    try:
        write_json(manifest_path, manifest)
    except Exception:  # noqa: BLE001
        traceback.print_exc()
    if tar_ok and not args.keep_files:
        shutil.rmtree(stage, ignore_errors=True)
    if "TORCHINDUCTOR_CACHE_DIR" not in os.environ:
        shutil.rmtree(INDUCTOR_CACHE, ignore_errors=True)
    print("manifest: %s" % manifest_path)
    if tar_ok:
        print("tarball:  %s (%d bytes)" % (os.path.join(out, TAR_NAME), manifest["tarball"]["size"]))
    s = manifest.get("summary") or {}
    print("ok: %d  skipped: %d  failed: %d  errors in manifest: %d  wall: %.1f s" % (
        len(s.get("ok", [])), len(s.get("skipped", {})), len(s.get("failed", {})),
        len(manifest["errors"]), manifest["wall_seconds"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", help="output directory")
    ap.add_argument("--dry-cpu", action="store_true",
                    help="CPU only, skip CUDA parts and missing APIs (check the guards, manifest and tar)")
    ap.add_argument("--budget", type=float, default=175.0, help="overall time budget in seconds (default 175)")
    ap.add_argument("--no-aoti", action="store_true", help="skip the AOTInductor package")
    ap.add_argument("--only", default="", help="comma-separated phases to run (%s)" % ",".join(PHASES))
    ap.add_argument("--keep-files", action="store_true", help="keep the loose files next to the tarball")
    ap.add_argument("--keep-existing", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--phase", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--phase-timeout", type=float, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.phase:
        if args.phase not in PHASE_FUNCS:
            print("unknown phase %r" % args.phase, file=sys.stderr)
            return 2
        return child_main(args)
    return parent_main(args)


if __name__ == "__main__":
    sys.exit(main())

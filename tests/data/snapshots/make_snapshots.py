#!/usr/bin/env python3
"""Makes the CUDA memory snapshots of fxlens' tests (tests/data/snapshots), as PyTorch writes
them, without PyTorch: the same dict written by Python's pickle with protocols 2, 4 and 5
(torch.cuda.memory._dump_snapshot uses the default of its Python), by a writer that emits what
PyTorch's C++ pickler does (protocol 2, EMPTY_DICT/MARK/SETITEMS, BINUNICODE strings memoized
with BINPUT, BININT1/2/BININT/LONG1 integers), and in PyTorch 2.0's form (blocks with a
`history`). The trace is a small training step whose active-memory timeline is known by hand
(see test_memory_snapshot.cpp):

  t  action           addr       size  frames
  0  segment_alloc    0x7f0000000000  4 MiB
  1  alloc            A=base        1 MiB  [linear weight]   (fx node mm)
  2  alloc            B=base+1MiB   2 MiB  [activation]      (fx node relu)
  3  free_requested   A
  4  free_completed   A
  5  alloc            A             512 KiB [grad]           (address A again: a new version)
  6  free_requested   B
  7  free_completed   B
  8  snapshot
plus a block allocated before the trace started (initially allocated, 256 KiB at base+3MiB),
and an address of 2^63 + 4096 on device 1 (a 9-byte LONG1).

pools.p4.pickle: a private memory pool (segment_pool_id (1, 7), as a CUDA graph's pool) beside
the default pool, its expandable segment growing by segment_map:

  t  action          addr                size
  0  segment_map     P=0x2000000          4 MiB  (pool 1,7)
  1  alloc           P                    3 MiB  (in the pool)
  2  alloc           D=0x1000000          1 MiB  (default pool)
  3  free_completed  P                    3 MiB
  4  segment_map     P+4MiB               4 MiB  (pool 1,7)
  5  alloc           P                    6 MiB  (in the pool)

memory_viz's default view peaks at 7 MiB (6 + 1); with private pools the pool's envelope is
its reserved 8 MiB, so the peak is 9 MiB.

    python3 make_snapshots.py   (writes the files next to itself)
"""
import os
import pickle
import struct

MiB = 1 << 20
BASE = 0x7F0000000000
HIGH = (1 << 63) + 4096


def frame(filename, line, name, fx=None):
    f = {"filename": filename, "line": line, "name": name}
    if fx:
        f["fx_node_op"] = "call_function"
        f["fx_node_name"] = fx[0]
        f["fx_node_target"] = fx[1]
    return f


def snapshot(fx=True, history=False):
    train = frame("train.py", 42, "train_step")
    linear = [frame("torch/nn/modules/linear.py", 125, "forward", ("mm", "aten.mm.default") if fx else None), train]
    act = [frame("torch/nn/functional.py", 1500, "relu", ("relu", "aten.relu.default") if fx else None), train]
    grad = [frame("torch/autograd/graph.py", 768, "_engine_run_backward"), train]
    early = [frame("model.py", 10, "__init__"), train]
    A, B, C = BASE, BASE + MiB, BASE + 3 * MiB

    def entry(action, addr, size, frames, t):
        return {"action": action, "addr": addr, "size": size, "stream": 0, "time_us": 1000 + t,
                "frames": frames, "compile_context": "N/A", "user_metadata": ""}

    trace0 = [
        entry("segment_alloc", BASE, 4 * MiB, [train], 0),
        entry("alloc", A, MiB, linear, 1),
        entry("alloc", B, 2 * MiB, act, 2),
        entry("free_requested", A, MiB, linear, 3),
        entry("free_completed", A, MiB, linear, 4),
        entry("alloc", A, 512 * 1024, grad, 5),
        entry("free_requested", B, 2 * MiB, act, 6),
        entry("free_completed", B, 2 * MiB, act, 7),
        entry("snapshot", 0, 0, [], 8),
    ]
    trace1 = [entry("alloc", HIGH, 4096, early, 0)]
    blocks = [
        {"address": A, "size": 512 * 1024, "requested_size": 500 * 1024, "state": "active_allocated", "frames": grad},
        {"address": A + 512 * 1024, "size": 512 * 1024 + 2 * MiB, "requested_size": 0, "state": "inactive",
         "frames": []},
        {"address": C, "size": 256 * 1024, "requested_size": 256 * 1024, "state": "active_allocated", "frames": early},
        {"address": C + 256 * 1024, "size": MiB - 256 * 1024, "requested_size": 0, "state": "inactive", "frames": []},
    ]
    if history:
        for b in blocks:
            frames = b.pop("frames")
            real = b.pop("requested_size")
            b["history"] = [{"addr": b["address"], "real_size": real, "frames": frames}] if frames else []
    segments = [
        {"device": 0, "address": BASE, "total_size": 4 * MiB, "allocated_size": 768 * 1024,
         "active_size": 768 * 1024, "requested_size": 756 * 1024, "stream": 0, "segment_type": "large",
         "segment_pool_id": (0, 0), "is_expandable": False, "frames": [train], "blocks": blocks},
        {"device": 1, "address": HIGH, "total_size": 2 * MiB, "allocated_size": 4096, "active_size": 4096,
         "requested_size": 4096, "stream": 0, "segment_type": "small", "segment_pool_id": (0, 0),
         "is_expandable": False, "frames": early,
         "blocks": [{"address": HIGH, "size": 4096, "requested_size": 4096, "state": "active_allocated",
                     "frames": early}]},
    ]
    s = {"segments": segments, "device_traces": [trace0, trace1],
         "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": "", "max_split_size": -1}}
    if not history:
        s["external_annotations"] = []
    return s


class CppPickler:
    """What torch/csrc/jit/serialization/pickler.cpp emits for such a dict (protocol 2)."""

    def __init__(self):
        self.out = bytearray(b"\x80\x02")
        self.strings = {}
        self.memo = 0

    def put(self):
        if self.memo < 256:
            self.out += b"q" + bytes([self.memo])
        else:
            self.out += b"r" + struct.pack("<I", self.memo)
        self.memo += 1
        return self.memo - 1

    def value(self, v):
        o = self.out
        if v is None:
            o += b"N"
        elif v is True:
            o += b"\x88"
        elif v is False:
            o += b"\x89"
        elif isinstance(v, int):
            if 0 <= v < 256:
                o += b"K" + bytes([v])
            elif 0 <= v < 65536:
                o += b"M" + struct.pack("<H", v)
            elif -(1 << 31) <= v < (1 << 31):
                o += b"J" + struct.pack("<i", v)
            else:
                n = 9 if v >= (1 << 63) else 8
                o += b"\x8a" + bytes([n]) + v.to_bytes(n, "little", signed=True)
        elif isinstance(v, float):
            o += b"G" + struct.pack(">d", v)
        elif isinstance(v, str):
            if v in self.strings:
                m = self.strings[v]
                o += (b"h" + bytes([m])) if m < 256 else (b"j" + struct.pack("<I", m))
            else:
                b = v.encode()
                o += b"X" + struct.pack("<I", len(b)) + b
                self.strings[v] = self.put()
        elif isinstance(v, tuple):
            o += b"("
            for x in v:
                self.value(x)
            o += b"t"
        elif isinstance(v, list):
            o += b"]"
            self.put()
            if v:
                o += b"("
                for x in v:
                    self.value(x)
                o += b"e"
        elif isinstance(v, dict):
            o += b"}"
            self.put()
            if v:
                o += b"("
                for k, x in v.items():
                    self.value(k)
                    self.value(x)
                o += b"u"
        else:
            raise TypeError(type(v))

    def dumps(self, v):
        self.value(v)
        self.out += b"."
        return bytes(self.out)


def pools():
    P, D = 0x2000000, 0x1000000
    ev = lambda action, addr, size: {"action": action, "addr": addr, "size": size, "stream": 0, "frames": [],
                                     "time_us": 1000}
    trace = [ev("segment_map", P, 4 * MiB), ev("alloc", P, 3 * MiB), ev("alloc", D, MiB),
             ev("free_completed", P, 3 * MiB), ev("segment_map", P + 4 * MiB, 4 * MiB), ev("alloc", P, 6 * MiB)]
    segs = [
        {"device": 0, "address": D, "total_size": 2 * MiB, "allocated_size": MiB, "active_size": MiB,
         "requested_size": MiB, "stream": 0, "segment_type": "large", "segment_pool_id": (0, 0),
         "is_expandable": False, "frames": [],
         "blocks": [{"address": D, "size": MiB, "requested_size": MiB, "state": "active_allocated", "frames": []},
                    {"address": D + MiB, "size": MiB, "requested_size": 0, "state": "inactive", "frames": []}]},
        {"device": 0, "address": P, "total_size": 8 * MiB, "allocated_size": 6 * MiB, "active_size": 6 * MiB,
         "requested_size": 6 * MiB, "stream": 0, "segment_type": "large", "segment_pool_id": (1, 7),
         "is_expandable": True, "frames": [],
         "blocks": [{"address": P, "size": 6 * MiB, "requested_size": 6 * MiB, "state": "active_allocated",
                     "frames": []},
                    {"address": P + 6 * MiB, "size": 2 * MiB, "requested_size": 0, "state": "inactive",
                     "frames": []}]},
    ]
    return {"segments": segs, "device_traces": [trace], "allocator_settings": {}}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    s = snapshot()
    for proto in (2, 4, 5):
        with open(os.path.join(here, "step.p%d.pickle" % proto), "wb") as f:
            pickle.dump(s, f, protocol=proto)
    with open(os.path.join(here, "step.cpp.pickle"), "wb") as f:
        f.write(CppPickler().dumps(s))
    with open(os.path.join(here, "step.history.pickle"), "wb") as f:
        pickle.dump(snapshot(fx=False, history=True), f, protocol=4)
    with open(os.path.join(here, "pools.p4.pickle"), "wb") as f:
        pickle.dump(pools(), f, protocol=4)


if __name__ == "__main__":
    main()

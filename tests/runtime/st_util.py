"""Shared by the reference generators (tests/runtime/gen_*_refs.py) and tests/bench/make_gpt2_deep.py:
the safetensors writer and the dtype names of the two formats.

Import it with the script's own directory (or tests/runtime) on sys.path; run with Debian's
/usr/bin/python3 (torch 1.13).
"""
import json
import struct

import torch

# safetensors dtype names
ST_NAME = {
    torch.float32: "F32", torch.float64: "F64", torch.bfloat16: "BF16", torch.float16: "F16",
    torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8",
    torch.uint8: "U8", torch.bool: "BOOL",
}
# torch dtype names as the cases files and dtypeFromTorchName (core/ir/dtype.hpp) spell them
TORCH_NAME = {
    torch.float32: "float32", torch.float64: "float64", torch.bfloat16: "bfloat16",
    torch.float16: "float16", torch.int64: "int64", torch.int32: "int32", torch.int16: "int16",
    torch.int8: "int8", torch.uint8: "uint8", torch.bool: "bool",
}


def tensor_bytes(t):
    """The little-endian element bytes of t in logical (contiguous) order; a bool tensor's raw
    bytes (a bool view of u8 may hold 5)."""
    t = t.detach().contiguous().cpu()
    if t.dtype in (torch.bfloat16, torch.float16):
        return t.view(torch.int16).numpy().tobytes()
    if t.dtype == torch.bool:
        return t.view(torch.uint8).numpy().tobytes()
    return t.numpy().tobytes()


def write_safetensors(path, named, metadata=None, sort_keys=False):
    """named: (name, tensor) pairs in file order (pass sorted(d.items()) for a dict). The
    header is padded to 8 bytes; metadata (a dict of strings) goes to "__metadata__";
    sort_keys orders the header's JSON keys."""
    header, blobs, off = {}, [], 0
    for name, t in named:
        b = tensor_bytes(t)
        header[name] = {"dtype": ST_NAME[t.dtype], "shape": list(t.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    if metadata is not None:
        header["__metadata__"] = metadata
    h = json.dumps(header, separators=(",", ":"), sort_keys=sort_keys).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


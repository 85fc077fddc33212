#!/usr/bin/env python3
"""Copies a Hugging Face folder with its f32 safetensors tensors stored as bf16 (rounded to
nearest even, as torch's .to(torch.bfloat16)), the type real checkpoints ship in, and
config.json's dtype set to bfloat16:

  to_bf16_folder.py SRC DST

Other tensors and files are copied as they are (numpy only)."""
import json
import os
import shutil
import struct
import sys

import numpy as np


def to_bf16(raw):
    bits = np.frombuffer(raw, dtype="<u4").astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16  # round to nearest even
    return rounded.astype("<u2").tobytes()


def convert(src, dst):
    with open(src, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out, chunks, offset = {}, [], 0
    for name, t in header.items():
        if name == "__metadata__":
            out[name] = t
            continue
        begin, end = t["data_offsets"]
        raw = data[begin:end]
        if t["dtype"] == "F32":
            raw, t = to_bf16(raw), dict(t, dtype="BF16")
        out[name] = dict(t, data_offsets=[offset, offset + len(raw)])
        chunks.append(raw)
        offset += len(raw)
    blob = json.dumps(out).encode()
    blob += b" " * (-len(blob) % 8)
    with open(dst, "wb") as f:
        f.write(struct.pack("<Q", len(blob)) + blob + b"".join(chunks))


src, dst = sys.argv[1], sys.argv[2]
shutil.rmtree(dst, ignore_errors=True)
os.makedirs(dst)
for name in os.listdir(src):
    path = os.path.join(src, name)
    if name.endswith(".safetensors"):
        convert(path, os.path.join(dst, name))
    elif name == "config.json":
        config = json.load(open(path))
        config["dtype"] = "bfloat16"
        json.dump(config, open(os.path.join(dst, name), "w"), indent=1)
    elif os.path.isdir(path):
        shutil.copytree(path, os.path.join(dst, name))
    else:
        shutil.copy(path, dst)

#!/usr/bin/env python3
"""Writes a small .npy file without numpy (tests run without it).

usage: make_npy.py OUT.npy DTYPE SHAPE VALUES
  DTYPE  f4 | f8 | i8 | i4 | b1      SHAPE  e.g. 2,3 or "" for a scalar
  VALUES comma-separated, repeated cyclically to fill the shape
"""
import struct
import sys

CODES = {"f4": ("<f4", "f"), "f8": ("<f8", "d"), "i8": ("<i8", "q"), "i4": ("<i4", "i"),
         "b1": ("|b1", "?")}

out, dtype, shape_text, values_text = sys.argv[1:5]
descr, fmt = CODES[dtype]
shape = tuple(int(d) for d in shape_text.split(",") if d)
count = 1
for d in shape:
    count *= d
values = [float(v) if fmt in "fd" else int(v) for v in values_text.split(",")]
data = [values[i % len(values)] for i in range(count)]
shape_repr = f"({shape[0]},)" if len(shape) == 1 else "(" + ", ".join(map(str, shape)) + ")"
header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape_repr)
header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
with open(out, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    f.write(struct.pack("<%d%s" % (count, fmt), *data))

"""Minimal .npy reader (little-endian f2/f4/f8/i4/i8, C order) for tests that run without numpy."""
import ast
import struct

FORMATS = {"<f4": "f", "<f8": "d", "<f2": "e", "<i8": "q", "<i4": "i"}


def load(path):
    """Returns (shape, flat list of values)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise ValueError(f"{path}: not a .npy file")
    if data[6] == 1:
        hlen, start = struct.unpack("<H", data[8:10])[0], 10
    else:
        hlen, start = struct.unpack("<I", data[8:12])[0], 12
    header = ast.literal_eval(data[start:start + hlen].decode("latin1"))
    if header["fortran_order"]:
        raise ValueError(f"{path}: Fortran order")
    fmt = FORMATS[header["descr"]]
    shape = tuple(header["shape"])
    count = 1
    for d in shape:
        count *= d
    values = struct.unpack("<%d%s" % (count, fmt), data[start + hlen:start + hlen + count * struct.calcsize(fmt)])
    return shape, list(values)

//===- Npy.h - NumPy .npy files ---------------------------------------------===//
//
// The .npy format, versions 1.0, 2.0 and 3.0
// (https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html): a magic
// string, a version, a Python-dict header {'descr', 'fortran_order', 'shape'}, then the
// raw elements. Supported descr: little-endian (or byte-order-free) f2/f4/f8, i1/i2/i4/i8,
// u1/u2/u4/u8 and b1. Fortran order, big-endian data and object arrays are rejected.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_IO_NPY_H
#define MM_RUNTIME_IO_NPY_H

#include "runtime/core/Tensor.h"

#include <string>

namespace mm::rt::io {

/// Reads a whole .npy file into a new host tensor. Throws Error naming the file and the
/// problem (missing, truncated, unsupported dtype or layout, size mismatch).
Tensor readNpy(const std::string &path);

/// Parses .npy bytes already in memory; `origin` names them in messages.
Tensor parseNpy(const std::string &bytes, const std::string &origin);

/// Writes `t` as a version 1.0 .npy file (C order, little-endian). bf16 has no numpy
/// dtype and is rejected. The file is written to a temporary name and renamed, so a
/// failure leaves no partial file. Throws Error.
void writeNpy(const std::string &path, const Tensor &t);

/// Serializes `t` to .npy bytes.
std::string serializeNpy(const Tensor &t);

} // namespace mm::rt::io

#endif // MM_RUNTIME_IO_NPY_H

//===- WindowRules.h - output sizes of the pooling ops and Resize -----------===//
//
// The size rules of ONNX AveragePool / MaxPool / LpPool (one spatial dim) and Resize (one
// dim), header-only and free of exceptions and of the runtime's types, so that one copy
// serves the ONNX importer (static result types), the mm dialect's verifiers and the CPU
// kernels (result shapes at run time, where dims are dynamic in the IR).
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CPU_WINDOWRULES_H
#define MM_RUNTIME_CPU_WINDOWRULES_H

#include <cmath>
#include <cstdint>

namespace mm::window {

/// The number of output positions of a pooling window along one dim (ONNX AveragePool-19
/// "output_spatial_shape", explicit pads): with span = dilation * (kernel - 1) + 1,
/// floor_or_ceil((in + padBegin + padEnd - span) / stride) + 1. With `ceilMode`, a last
/// window that would start past the input and its begin padding is dropped (the onnx
/// reference and PyTorch rule, `(out - 1) * stride >= in + padBegin`). Returns -1 when
/// the window does not fit in the padded input or an argument is out of range (kernel,
/// stride, dilation < 1, negative pads or input).
inline int64_t poolOutputSize(int64_t in, int64_t kernel, int64_t stride, int64_t dilation,
                              int64_t padBegin, int64_t padEnd, bool ceilMode) {
  if (in < 0 || kernel < 1 || stride < 1 || dilation < 1 || padBegin < 0 || padEnd < 0)
    return -1;
  int64_t span = dilation * (kernel - 1) + 1, room = in + padBegin + padEnd - span;
  if (room < 0)
    return -1;
  int64_t out = (ceilMode ? (room + stride - 1) / stride : room / stride) + 1;
  if (ceilMode && (out - 1) * stride >= in + padBegin)
    --out;
  return out;
}

/// ONNX Resize's output size along a dim resized by `scale` (> 0): floor(in * scale),
/// computed in double as the onnx reference does with its float32 scales.
inline int64_t resizedSize(int64_t in, double scale) {
  return static_cast<int64_t>(std::floor(static_cast<double>(in) * scale));
}

} // namespace mm::window

#endif // MM_RUNTIME_CPU_WINDOWRULES_H

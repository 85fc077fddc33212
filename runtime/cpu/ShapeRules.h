//===- ShapeRules.h - result shapes of the layout ops (ONNX semantics) -------===//
//
// The shape rules of mm.reshape, mm.squeeze, mm.unsqueeze, mm.flatten, mm.transpose and
// mm.slice, shared by the CPU kernels and the CUDA executor (which runs these ops as
// views or strided copies), and of the pooling ops and mm.resize (over the per-dim
// rules of WindowRules.h, which the importer and the verifiers use too). Each throws
// mm::rt::Error naming `op` on bad arguments.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CPU_SHAPERULES_H
#define MM_RUNTIME_CPU_SHAPERULES_H

#include "runtime/core/Tensor.h"

#include <string>
#include <vector>

namespace mm::rt::cpu {

/// A view of a row-major input: result element i reads input element
/// offset + sum_d i_d * strides[d] (strides in elements, may be negative).
struct ViewSpec {
  Shape shape;
  std::vector<int64_t> strides;
  int64_t offset = 0;
};

/// ONNX Reshape: 0 copies the input dim at that index (a literal 0 with allowZero), -1 is
/// inferred from the element count.
Shape reshapeShape(const std::string &op, const Shape &in, const std::vector<int64_t> &req,
                   bool allowZero);
/// ONNX Squeeze with explicit axes (each dim must be 1).
Shape squeezeShape(const std::string &op, const Shape &in, const std::vector<int64_t> &axes);
/// ONNX Unsqueeze: axes index the result.
Shape unsqueezeShape(const std::string &op, const Shape &in, const std::vector<int64_t> &axes);
/// ONNX Flatten: [prod(in[:axis]), prod(in[axis:])], axis in [-rank, rank].
Shape flattenShape(const std::string &op, const Shape &in, int64_t axis);
/// ONNX Transpose: result dim i is input dim perm[i].
ViewSpec transposeView(const std::string &op, const Shape &in, const std::vector<int64_t> &perm);
/// ONNX Slice: per listed axis, start/end are adjusted (negative + dim) and clamped
/// ([0, dim] for positive steps, [0, dim-1] / [-1, dim-1] for negative ones); the count is
/// ceil((end - start) / step) when positive.
ViewSpec sliceView(const std::string &op, const Shape &in, const std::vector<int64_t> &starts,
                   const std::vector<int64_t> &ends, const std::vector<int64_t> &axes,
                   const std::vector<int64_t> &steps);

/// The sliding window of a pooling op (mm.avg_pool, mm.max_pool, mm.lp_pool) over an
/// input [N, C, D1, ..., Dk]: k kernel / stride / dilation entries, 2k pads.
struct PoolWindow {
  std::vector<int64_t> kernel, strides, dilations, pads;
  bool ceilMode = false;
};
/// [N, C, O1, ..., Ok] with Oi = window::poolOutputSize(Di, ...); throws when the input
/// has rank < 3, an attribute has the wrong length or range, or a window does not fit.
Shape poolShape(const std::string &op, const Shape &in, const PoolWindow &w);

/// mm.resize: dim d is sizes[d], or window::resizedSize(in[d], scales[d]) where sizes[d]
/// is -1; throws unless both have one entry per dim, scales > 0 and sizes >= -1.
Shape resizeShape(const std::string &op, const Shape &in, const std::vector<int64_t> &sizes,
                  const std::vector<double> &scales);

/// Strides that view a tensor of `shape` laid out with `strides` (elements) as `target`
/// (same element count) without moving elements, when they exist: only dims that are
/// contiguous with each other may be merged or split (PyTorch's computeStride rule, as in
/// `Tensor.view`). Returns false when the elements would have to move.
bool viewStrides(const Shape &shape, const std::vector<int64_t> &strides, const Shape &target,
                 std::vector<int64_t> &out);

} // namespace mm::rt::cpu

#endif // MM_RUNTIME_CPU_SHAPERULES_H

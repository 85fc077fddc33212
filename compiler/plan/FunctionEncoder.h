//===- FunctionEncoder.h - one func.func as a plan Function -----------------===//
#ifndef MM_COMPILER_PLAN_FUNCTIONENCODER_H
#define MM_COMPILER_PLAN_FUNCTIONENCODER_H

#include "compiler/plan/PlanEmitter.h"
#include "runtime/plan/plan_generated.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mm {

/// A run of a weight's bytes: `length` bytes (of the plan) from `offset` of the file
/// `source`, or of `bytes` (inline constant data) when that is set. When `from` differs
/// from `to` the source holds `from` elements that are converted to `to` while writing
/// (a folded cast; f32, f16 and bf16), and `offset` counts source bytes.
struct WeightExtent {
  std::string source;
  uint64_t offset = 0;
  uint64_t length = 0;
  std::shared_ptr<const std::vector<uint8_t>> bytes;
  plan::fb::DType from = plan::fb::DType::f32;
  plan::fb::DType to = plan::fb::DType::f32;

  /// Source bytes per plan byte (1 without conversion, 2 for f32 -> 16 bits, ...).
  double sourceRatio() const;
};

/// A 2-D transpose applied when a weight is written: its extents' bytes form a row-major
/// [rows, cols] matrix (elements of the written type), written as [cols, rows].
struct WeightTranspose {
  uint64_t rows = 0, cols = 0;
  bool operator==(const WeightTranspose &o) const { return rows == o.rows && cols == o.cols; }
};

/// A weight of the blob: the concatenation of its extents (one file slice for an
/// mm.weight; several for a concat of weights folded at compile time), transposed when
/// `transpose` is set.
struct WeightEntry {
  std::string name;
  std::vector<WeightExtent> extents;
  std::optional<WeightTranspose> transpose;
  uint64_t length = 0;
  uint64_t blobOffset = 0; ///< multiple of plan::kWeightAlignment
  mlir::Location loc;
};

/// The plan's weights, deduplicated by their extents, laid out in the blob in order of
/// first use.
class WeightTable {
public:
  /// A weight made of `extents` (adjacent file slices are merged), written transposed when
  /// `transpose` is set; returns its index.
  uint32_t add(const std::string &name, std::vector<WeightExtent> extents,
               std::optional<WeightTranspose> transpose, mlir::Location loc);
  const std::vector<WeightEntry> &entries() const { return entries_; }
  uint64_t blobSize() const { return blobSize_; }

private:
  std::vector<WeightEntry> entries_;
  std::map<std::string, uint32_t> index_; ///< extents key -> index
  uint64_t blobSize_ = 0;
};

/// The extents covering bytes [begin, begin + length) of the concatenation of `extents`.
std::vector<WeightExtent> sliceExtents(const std::vector<WeightExtent> &extents, uint64_t begin,
                                       uint64_t length);

/// Encodes `fn` (one block of mm ops, mm.weight, mm.constant and func.return): tensors
/// with liveness, ops with their attributes, named inputs/outputs, KV-cache slots.
/// Emits an error at the offending op and fails for anything a plan cannot hold.
mlir::FailureOr<flatbuffers::Offset<plan::fb::Function>>
encodeFunction(flatbuffers::FlatBufferBuilder &fbb, mlir::func::FuncOp fn, WeightTable &weights,
               FunctionPlanStats &stats, uint64_t &constantBytes);

} // namespace mm

#endif // MM_COMPILER_PLAN_FUNCTIONENCODER_H

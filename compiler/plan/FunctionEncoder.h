//===- FunctionEncoder.h - one func.func as a plan Function -----------------===//
#ifndef MM_COMPILER_PLAN_FUNCTIONENCODER_H
#define MM_COMPILER_PLAN_FUNCTIONENCODER_H

#include "compiler/plan/PlanEmitter.h"
#include "runtime/plan/plan_generated.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace mm {

/// A weight to stream into the blob: `length` bytes at `sourceOffset` of `source`.
struct WeightEntry {
  std::string name;
  std::string source;
  uint64_t sourceOffset = 0;
  uint64_t length = 0;
  uint64_t blobOffset = 0; ///< multiple of plan::kWeightAlignment
  mlir::Location loc;
};

/// The plan's weights, deduplicated by (source, offset, length), laid out in the blob in
/// order of first use.
class WeightTable {
public:
  uint32_t add(const std::string &name, const std::string &source, uint64_t offset,
               uint64_t length, mlir::Location loc);
  const std::vector<WeightEntry> &entries() const { return entries_; }
  uint64_t blobSize() const { return blobSize_; }

private:
  std::vector<WeightEntry> entries_;
  std::map<std::tuple<std::string, uint64_t, uint64_t>, uint32_t> index_;
  uint64_t blobSize_ = 0;
};

/// Encodes `fn` (one block of mm ops, mm.weight, mm.constant and func.return): tensors
/// with liveness, ops with their attributes, named inputs/outputs, KV-cache slots.
/// Emits an error at the offending op and fails for anything a plan cannot hold.
mlir::FailureOr<flatbuffers::Offset<plan::fb::Function>>
encodeFunction(flatbuffers::FlatBufferBuilder &fbb, mlir::func::FuncOp fn, WeightTable &weights,
               FunctionPlanStats &stats, uint64_t &constantBytes);

} // namespace mm

#endif // MM_COMPILER_PLAN_FUNCTIONENCODER_H

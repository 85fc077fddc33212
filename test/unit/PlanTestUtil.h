//===- PlanTestUtil.h - build small plan files in tests ---------------------===//
//
// Writes plan bytes (header + FlatBuffer + weights blob, runtime/plan/PlanFormat.h)
// directly with the FlatBuffers API, independent of the MLIR emitter, so the loader,
// verifier and executor can be tested on exact, hand-made plans.
//
//===----------------------------------------------------------------------===//
#ifndef MM_TEST_UNIT_PLANTESTUTIL_H
#define MM_TEST_UNIT_PLANTESTUTIL_H

#include "runtime/plan/Plan.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mm::test {

struct TTensor {
  rt::DType dtype = rt::DType::f32;
  rt::Shape shape;
  std::vector<std::string> dims; ///< empty or one per dim
  rt::TensorKind kind = rt::TensorKind::activation;
  std::string name;
  uint32_t weight = 0;                ///< kind = weight
  std::vector<float> constant;        ///< kind = constant (f32)
  int32_t firstOp = -1, lastOp = -1;  ///< kind = activation
};

struct TOp {
  std::string name;
  std::vector<uint32_t> inputs, outputs;
  std::vector<std::pair<std::string, int64_t>> ints;
  rt::Placement placement = rt::Placement::unplanned;
  int32_t segment = -1;
  uint8_t fusion = 0; ///< bits of rt::cuda::CudaFusion
};

struct TSlot {
  int layer = 0;
  bool isValue = false;
  uint32_t pastInput = 0, presentOutput = 0, appendOp = 0;
  int axis = 2;
};

struct TFunction {
  std::string name;
  std::vector<TTensor> tensors;
  std::vector<TOp> ops;
  std::vector<std::pair<std::string, uint32_t>> inputs, outputs;
  /// The slots' inputs and outputs are written with roles kv_past / kv_present, and the
  /// function with the contiguous layout whose sequence axis is the first slot's axis.
  std::vector<TSlot> slots;
  rt::FunctionRole role = rt::FunctionRole::none;
  /// Roles of inputs / outputs by index (missing entries: none, or the slots' roles).
  std::vector<rt::ValueRole> inputRoles, outputRoles;
  /// Written instead of the slots' layout when set; omitKvLayout writes none.
  std::optional<rt::KvCacheLayout> kvLayout;
  bool omitKvLayout = false;
  std::vector<rt::SegmentInfo> segments; ///< written only when not empty
};

struct TWeight {
  std::string name;
  std::vector<float> values;
};

struct TPlan {
  std::vector<TFunction> functions;
  std::vector<TWeight> weights;
  uint32_t headerVersion = 0;  ///< 0 = current
  uint32_t bufferVersion = 0;  ///< 0 = current
  /// Added to every weight offset (to make them point past the blob).
  uint64_t weightOffsetShift = 0;
  bool generation = false;
  std::string target = "cpu";
  std::string vision, embed, decoder;
  int64_t imageTokenId = -1;
  std::vector<int64_t> eos;
};

/// Plan file bytes for `plan`.
std::string buildPlanBytes(const TPlan &plan);

/// Loads plan bytes through Plan::fromMemory (copying them).
std::shared_ptr<const rt::Plan> loadPlanBytes(const std::string &bytes);

/// y = (x + w) + c with x: f32 [n] input "x" (dim "n"), w: weight [4] = {1,2,3,4},
/// c: constant [4] = {10,20,30,40}; function "f". Needs kernel "mm.add".
TPlan addPlan();

} // namespace mm::test

#endif // MM_TEST_UNIT_PLANTESTUTIL_H

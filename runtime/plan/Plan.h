//===- Plan.h - a loaded, verified plan --------------------------------------===//
//
// Plan::load memory-maps a plan file written by `mmc compile`, verifies it (FlatBuffers
// verifier plus checks of every index, offset and size against the file) and decodes it
// into the structures below. Weights stay in the mapping: their tensors are views into
// it, so loading does not read the weights and the plan may be larger than memory.
// Any problem throws mm::rt::Error naming the file and the failing field. See
// docs/plan-format.md.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_PLAN_PLAN_H
#define MM_RUNTIME_PLAN_PLAN_H

#include "runtime/core/Attrs.h"
#include "runtime/core/Tensor.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mm::rt {

enum class TensorKind : uint8_t { activation, input, weight, constant };

/// One tensor of a function.
struct TensorInfo {
  DType dtype = DType::f32;
  Shape shape;                        ///< -1 = dynamic
  std::vector<std::string> dimNames;  ///< one per dim ("" = unnamed)
  TensorKind kind = TensorKind::activation;
  std::string name;
  /// weight: a view into the mapped file; constant: an owned copy. Empty otherwise.
  Tensor value;
  /// activation: producing op and last reading op (= number of ops for an output).
  int32_t firstOp = -1;
  int32_t lastOp = -1;
};

/// Where the CUDA runtime runs an op (-mm-plan-cuda-graphs; docs/cuda-graphs.md).
/// unplanned: the plan was compiled without the pass (the CPU runtime ignores it).
enum class Placement : uint8_t { unplanned, host, device };

struct OpInfo {
  std::string name;               ///< "mm.matmul"
  std::vector<uint32_t> inputs;   ///< tensor ids
  std::vector<uint32_t> outputs;  ///< tensor ids
  Attrs attrs;
  std::string location;           ///< ONNX node, for messages
  Placement placement = Placement::unplanned;
  /// placement = device: index into FunctionInfo::segments; -1 otherwise.
  int32_t segment = -1;
  /// placement = device: bits of cuda::CudaFusion (runtime/cuda/OpCapabilities.h), the
  /// fused launches the compiler decided (-mm-plan-cuda-fusion); checked by the loader.
  uint8_t fusion = 0;
};

/// A run of device ops captured as one CUDA graph: ops [firstOp, lastOp] of the function
/// (host ops among them read no device data; the runtime runs them before launching).
/// endReason: "end of function", "host op <name> reads a device value" or
/// "data-dependent shape".
struct SegmentInfo {
  uint32_t firstOp = 0, lastOp = 0;
  std::string endReason;
};

/// What a function argument or result means (ValueRole in plan.fbs): the runtime binds
/// generation inputs and reads outputs by role, never by name.
enum class ValueRole : uint8_t {
  none, inputIds, inputsEmbeds, attentionMask, positionIds, pixelValues, imageFeatures,
  logits, kvPast, kvPresent, imageGridThw
};
/// What a function is for (FunctionRole in plan.fbs).
enum class FunctionRole : uint8_t { none, visionEncoder, embedding, decoder };
/// "input_ids", ..., "kv_present"; "none".
const char *roleName(ValueRole role);
/// "vision_encoder", "embedding", "decoder"; "none".
const char *roleName(FunctionRole role);

/// A named function argument or result.
struct ValueInfo {
  std::string name;
  uint32_t tensor = 0;
  ValueRole role = ValueRole::none;
};

enum class KvKind : uint8_t { key, value };

/// See KvCacheSlot in plan.fbs.
struct KvSlotInfo {
  int32_t layer = 0;
  KvKind kind = KvKind::key;
  uint32_t pastInput = 0;      ///< index into FunctionInfo::inputs
  uint32_t presentOutput = 0;  ///< index into FunctionInfo::outputs
  uint32_t appendOp = 0;       ///< index into FunctionInfo::ops
  int32_t axis = 2;
};

/// How a decoder's KV-cache buffers are laid out (KvCacheLayout in plan.fbs): contiguous,
/// rank 4, the axes of batch, KV heads, sequence and head dim (a permutation of 0..3).
struct KvCacheLayout {
  int32_t batchAxis = 0, headsAxis = 1, sequenceAxis = 2, headDimAxis = 3;
};

struct FunctionInfo {
  std::string name;
  FunctionRole role = FunctionRole::none;
  std::vector<TensorInfo> tensors;
  std::vector<OpInfo> ops;
  std::vector<ValueInfo> inputs;
  std::vector<ValueInfo> outputs;
  std::vector<KvSlotInfo> kvSlots;
  /// The layout of every slot's buffer; meaningful when kvSlots is not empty.
  KvCacheLayout kvLayout;
  /// CUDA-graph segments in op order; empty when unplanned or no op runs on the device.
  std::vector<SegmentInfo> segments;

  /// Index of the input named `name`, or -1.
  int inputIndex(const std::string &name) const;
  /// Index of the output named `name`, or -1.
  int outputIndex(const std::string &name) const;
  /// Index of the first input / output with role `role`, or -1.
  int inputWithRole(ValueRole role) const;
  int outputWithRole(ValueRole role) const;
  /// Whether input `index` is a KV-cache slot's past (which a cache serves).
  bool isPastInput(size_t index) const;
};

/// Runtime metadata of a multimodal generator (see GenerationInfo in plan.fbs).
struct GenerationInfo {
  bool present = false;
  std::string visionFunction, embedFunction, decoderFunction;
  int64_t imageTokenId = -1;
  int64_t bosTokenId = -1;
  std::vector<int64_t> eosTokenIds;
  int64_t hiddenSize = -1;
  int64_t vocabSize = -1;
  int32_t numLayers = -1;
  int64_t numKvHeads = -1;
  int64_t headDim = -1;
  int64_t maxPositions = -1;
  /// M-RoPE (Qwen2-VL): the merge size m of the image grids (plan.fbs); 0 for 1-D
  /// position ids.
  int64_t mropeSpatialMergeSize = 0;
};

class Plan {
public:
  /// Maps and verifies `path`. Throws Error: missing or unreadable file, not a plan,
  /// other format version, truncated, or any field out of range.
  static std::shared_ptr<const Plan> load(const std::string &path);
  /// Verifies and decodes `size` bytes at `data` (kept alive by `keepAlive`); `origin`
  /// names the source in messages. Used by load() and by the fuzz test.
  static std::shared_ptr<const Plan> fromMemory(const uint8_t *data, size_t size,
                                                std::shared_ptr<const void> keepAlive,
                                                const std::string &origin);

  uint32_t formatVersion() const { return formatVersion_; }
  const std::string &producer() const { return producer_; }
  const std::string &target() const { return target_; }
  DType computeDType() const { return computeDType_; }
  const std::vector<FunctionInfo> &functions() const { return functions_; }
  /// The function named `name`; throws Error listing the available ones if absent.
  const FunctionInfo &function(const std::string &name) const;
  const FunctionInfo *findFunction(const std::string &name) const;
  const GenerationInfo &generation() const { return generation_; }
  /// The contents of the model-folder file `name` the compiler kept in the plan (e.g.
  /// "preprocessor_config.json"), or null when the plan has none.
  const std::string *modelFile(const std::string &name) const;
  /// The names of the model files kept, in name order.
  std::vector<std::string> modelFileNames() const;
  /// Total bytes of weights in the blob.
  uint64_t weightBytes() const { return blobSize_; }
  const std::string &origin() const { return origin_; }

private:
  friend class PlanDecoder;
  std::string origin_;
  uint32_t formatVersion_ = 0;
  std::string producer_, target_;
  DType computeDType_ = DType::f32;
  std::vector<FunctionInfo> functions_;
  GenerationInfo generation_;
  std::map<std::string, std::string> modelFiles_;
  uint64_t blobSize_ = 0;
  std::shared_ptr<const void> mapping_;
};

} // namespace mm::rt

#endif // MM_RUNTIME_PLAN_PLAN_H

//===- GenerationBackend.h - what the generation loop needs of a backend -----===//
//
// The generation loop (Generator.h) is written once, over this interface: the order of
// the steps, the checks, the timings, token choice and stopping are the loop's; where the
// tensors live and how a function runs are the backend's. A backend runs the plan's three
// generation functions (vision encoder, embedding, decoder) on tensors it holds, keeps the
// decoder's KV cache, and moves the few things the loop needs between them: image features
// into the embeddings, a logits row or an argmax to the host. The CPU backend
// (CpuGeneration.h) holds host tensors; the CUDA backend (runtime/cudaexec/CudaGeneration.h)
// device tensors, and brings its own pipelined greedy decode (decodeGreedily).
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_EXEC_GENERATIONBACKEND_H
#define MM_RUNTIME_EXEC_GENERATIONBACKEND_H

#include "runtime/core/Tensor.h"
#include "runtime/exec/PositionIds.h"
#include "runtime/plan/Plan.h"

#include <functional>
#include <vector>

namespace mm::rt {

/// The generation functions, by the role GenerationInfo gives them.
enum class Stage { visionEncoder, embedding, decoder };

/// A contiguous row-major tensor in a backend's memory (its device; the host for the CPU
/// backend). Valid until the next run of the stage that produced it. Empty (data null)
/// for an output the backend does not return (a kv_present output: its cache holds it).
struct HeldTensor {
  DType dtype = DType::f32;
  Shape shape;
  void *data = nullptr;
  int64_t numel() const { return numElements(shape); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtypeSize(dtype); }
};

/// One input of GenerationBackend::run: a host tensor, or (held) one the backend holds.
struct StageInput {
  Tensor host;
  HeldTensor held;
  bool isHeld = false;
  static StageInput ofHost(Tensor t) { return {std::move(t), {}, false}; }
  static StageInput ofHeld(const HeldTensor &t) { return {{}, t, true}; }
};

class GenerationBackend {
public:
  virtual ~GenerationBackend() = default;

  /// The function `stage` runs, or null when the plan has none (only the vision encoder
  /// may be missing).
  virtual const FunctionInfo *function(Stage stage) const = 0;
  /// Runs `stage` on `inputs`, which follow function(stage)->inputs; the decoder's kv_past
  /// inputs are left empty: it reads the backend's KV cache and appends the step's keys
  /// and values to it. Returns the outputs, held (the decoder's kv_present outputs empty);
  /// may return before the backend's device has finished. Throws Error.
  virtual std::vector<HeldTensor> run(Stage stage, const std::vector<StageInput> &inputs) = 0;
  /// Empties the KV cache, with room for `capacity` positions (batch 1); returns its bytes.
  virtual size_t resetKvCache(int64_t capacity) = 0;
  /// Positions the KV cache holds.
  virtual int64_t kvLength() const = 0;
  /// Copies row k of `features` ([.., hidden]) into the row of `embeds` ([1, ids, hidden],
  /// the same dtype and hidden size: the loop checks) at the k-th `imageTokenId` of
  /// `inputIds` (as many as features rows: the loop checks).
  virtual void spliceImageFeatures(HeldTensor &embeds, const HeldTensor &features,
                                   const std::vector<int64_t> &inputIds, int64_t imageTokenId) = 0;
  /// A host copy of `t`, after the work that produces it.
  virtual Tensor toHost(const HeldTensor &t) = 0;
  /// The index of the largest element of `row` ([vocab] of f32, f16 or bf16; the first of
  /// equal ones, as torch.argmax), after the work that produces it.
  virtual int64_t argmax(const HeldTensor &row) = 0;
  /// Waits for the work issued so far (the loop's timings).
  virtual void synchronize() = 0;
  /// Greedy decoding after the first token `first` (the KV cache holds the prompt) in the
  /// backend's own loop, at most `maxSteps` steps: each embeds the previous token, runs
  /// the decoder (its inputs from decoderInputs, GenerationSteps.h) and takes the argmax of
  /// the last logits row; `accept` is given each token, in order, and says whether to go
  /// on; `positions` gives the steps' position ids. Returns false, having run nothing,
  /// when the backend has no such loop (the generation loop then runs the same steps
  /// itself).
  virtual bool decodeGreedily(int64_t first, int64_t maxSteps, const PositionIds &positions,
                              const std::function<bool(int64_t)> &accept) {
    (void)first;
    (void)maxSteps;
    (void)positions;
    (void)accept;
    return false;
  }
};

} // namespace mm::rt

#endif // MM_RUNTIME_EXEC_GENERATIONBACKEND_H

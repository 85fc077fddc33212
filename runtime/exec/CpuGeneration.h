//===- CpuGeneration.h - the generation backend of the CPU executor ----------===//
//
// GenerationBackend over three CPU Executors (vision encoder, embedding, decoder) and a
// KvCache: held tensors are host tensors, the KV cache is made anew for each generation.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_EXEC_CPUGENERATION_H
#define MM_RUNTIME_EXEC_CPUGENERATION_H

#include "runtime/exec/Executor.h"
#include "runtime/exec/GenerationBackend.h"

#include <memory>

namespace mm::rt {

class CpuGeneration : public GenerationBackend {
public:
  /// Prepares executors for the plan's generation functions with `kernels`; throws Error
  /// when the plan has no generation metadata.
  explicit CpuGeneration(std::shared_ptr<const Plan> plan,
                         const cpu::KernelRegistry &kernels = cpu::cpuKernels());

  const FunctionInfo *function(Stage stage) const override;
  std::vector<HeldTensor> run(Stage stage, const std::vector<StageInput> &inputs) override;
  size_t resetKvCache(int64_t capacity) override;
  int64_t kvLength() const override { return cache_ ? cache_->length() : 0; }
  void spliceImageFeatures(HeldTensor &embeds, const HeldTensor &features,
                           const std::vector<int64_t> &inputIds, int64_t imageTokenId) override;
  Tensor toHost(const HeldTensor &t) override;
  int64_t argmax(const HeldTensor &row) override;
  void synchronize() override {}

  /// The executors, for profiles and arena sizes (vision may be null).
  const Executor *vision() const { return executors_[0].get(); }
  const Executor &embed() const { return *executors_[1]; }
  const Executor &decoder() const { return *executors_[2]; }
  void setProfiling(bool on);

private:
  std::shared_ptr<const Plan> plan_;
  std::unique_ptr<Executor> executors_[3]; ///< by Stage
  std::vector<Tensor> outputs_[3];         ///< each stage's last outputs (what is held)
  std::unique_ptr<KvCache> cache_;
};

} // namespace mm::rt

#endif // MM_RUNTIME_EXEC_CPUGENERATION_H

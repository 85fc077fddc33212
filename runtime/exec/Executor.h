//===- Executor.h - run one function of a plan on the CPU --------------------===//
//
// Runs a function op by op with the CPU kernels. Activations live in the function's
// arena (runtime/exec/Arena.h) and are released after the last op that reads them (the
// liveness stored in the plan); function outputs are allocated on the heap and handed
// to the caller. Inputs are checked against the signature (dtype, rank, static dims and
// consistent symbolic dims) before anything runs.
//
// With a KvCache, each KV slot's concat(past, new) is not run as a kernel: the executor
// writes `new` into the cache buffer in place and gives the concat's consumers a view
// of the cache (strided: the buffer has room for `capacity` positions). Kernels take
// contiguous tensors only, so a consumer that is a kernel gets a contiguous copy of the
// view (made once per step and view), except mm.shape and mm.dim, which read only the
// shape, and mm.attention, which the executor runs on contiguous slices of the cache
// (ViewAttention.cpp; see docs/plan-format.md).
//
// Errors throw mm::rt::Error naming the function, the op (index, name, ONNX node) and
// the problem; the arena is left ready for the next call.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_EXEC_EXECUTOR_H
#define MM_RUNTIME_EXEC_EXECUTOR_H

#include "runtime/cpu/CpuKernels.h"
#include "runtime/exec/Arena.h"
#include "runtime/exec/KvCache.h"
#include "runtime/plan/Plan.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mm::rt {

/// Time spent per op name in the calls made while profiling was on.
struct OpProfile {
  int64_t calls = 0;
  double ms = 0;
};

class Executor {
public:
  /// Prepares `function` of `plan`: resolves a kernel for every op (throws Error naming
  /// the ops that have none).
  Executor(std::shared_ptr<const Plan> plan, const std::string &function,
           const cpu::KernelRegistry &kernels = cpu::cpuKernels());
  Executor(const Executor &) = delete;
  Executor &operator=(const Executor &) = delete;

  const FunctionInfo &function() const { return *fn_; }

  /// Runs the function. `inputs` follow function().inputs. With `cache` (built for this
  /// function), the KV-cache inputs (role kv_past) must be left empty (default Tensor): they are
  /// views of the cache; the step's new keys/values are appended to it and its length
  /// advanced; the KV-cache outputs (kv_present) are then returned empty (the cache holds them).
  /// Returns the outputs in function().outputs order.
  std::vector<Tensor> run(const std::vector<Tensor> &inputs, KvCache *cache = nullptr);

  /// Checks `inputs` against the signature; throws Error such as
  /// "input 'pixel_values': expected f32 [batch, 3, 64, 64], got f32 [1, 3, 32, 32]".
  void validateInputs(const std::vector<Tensor> &inputs, const KvCache *cache) const;

  const Arena &arena() const { return arena_; }
  /// Contiguous copies of KV-cache views made for kernels so far (0 when every reader of
  /// the cache takes views: mm.attention, mm.shape, mm.dim).
  int64_t viewCopies() const { return viewCopies_; }
  void setProfiling(bool on) { profiling_ = on; }
  const std::map<std::string, OpProfile> &profile() const { return profile_; }

private:
  /// A tensor during a call: contiguous, or a strided view of a KV-cache buffer.
  struct Value {
    Tensor tensor;                ///< for a view: logical shape, data at element 0
    std::vector<int64_t> strides; ///< in elements; empty = contiguous row-major
    void *block = nullptr;        ///< arena block holding `tensor` (activations)
    Tensor contiguous;            ///< a view's copy, made for the first kernel needing one
    void *contiguousBlock = nullptr;
    bool set = false;
  };
  class OpContext;

  void runOp(size_t index, std::vector<Value> &values);
  /// mm.attention reading KV-cache views: one kernel call per (batch, KV head) on
  /// contiguous slices of the cache, so the views are never copied. False (nothing done)
  /// when the operands do not have that form. Defined in ViewAttention.cpp.
  bool runAttentionOnViews(size_t index, std::vector<Value> &values);
  /// Storage for tensor `id` of `shape`: heap for function outputs, else the arena.
  Value allocateValue(uint32_t id, const Shape &shape);
  /// Throws unless `got` agrees with the static dims declared for tensor `id`.
  void checkResultShape(size_t index, size_t result, const Shape &got) const;
  /// The tensor a kernel reads for `v`: itself, or its contiguous copy.
  const Tensor &kernelInput(Value &v);
  void appendToCache(size_t slot, std::vector<Value> &values, KvCache &cache, int64_t &appended);
  [[noreturn]] void opError(size_t index, const std::string &message) const;

  std::shared_ptr<const Plan> plan_;
  const FunctionInfo *fn_;
  std::vector<cpu::CpuKernel> kernels_;
  std::vector<bool> isOutput_;          ///< per tensor: a function output (heap-allocated)
  std::vector<int> appendSlot_;         ///< per op: KV slot index, or -1
  std::vector<std::vector<uint32_t>> releaseAfter_; ///< per op: activations dead after it
  Arena arena_;
  int64_t viewCopies_ = 0;
  bool profiling_ = false;
  std::map<std::string, OpProfile> profile_;
};

/// "f32 [batch, 3, 64, 64]": dtype and dims, symbolic dims by name ("?" if unnamed).
std::string signatureString(const TensorInfo &t);
/// True when `shape` has t's rank and agrees with each of its static dims (dynamic dims
/// take any extent).
bool fitsDeclaredShape(const TensorInfo &t, const Shape &shape);

/// Orders named inputs like fn.inputs (for any backend); throws Error for an unknown or a
/// missing name (KV-cache inputs may be missing when `forCache`).
std::vector<Tensor> orderInputs(const FunctionInfo &fn, const std::map<std::string, Tensor> &named,
                                bool forCache = false);

/// Checks `inputs` against fn's signature (count, dtype, rank, static dims, one value per
/// symbolic dim name; with a KV cache the KV-cache inputs must be empty); throws
/// Error such as "input 'pixel_values': expected f32 [batch, 3, 64, 64], got f32 [1, 3, 32, 32]".
void checkInputs(const FunctionInfo &fn, const std::vector<Tensor> &inputs, bool withCache);

/// Per tensor of `fn`: whether it is a function output.
std::vector<bool> outputMask(const FunctionInfo &fn);
/// Per op of `fn`: the tensors whose storage may be released after it (activations at
/// their plan liveness end, inputs after their last reader; never weights, constants or
/// outputs).
std::vector<std::vector<uint32_t>> releaseSchedule(const FunctionInfo &fn,
                                                   const std::vector<bool> &isOutput);

} // namespace mm::rt

#endif // MM_RUNTIME_EXEC_EXECUTOR_H

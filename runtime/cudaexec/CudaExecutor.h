//===- CudaExecutor.h - run one function of a plan on a CUDA device ----------===//
//
// Runs a function of a plan compiled with `mmc compile --target cuda`, whose ops carry the
// placement and graph segments of -mm-plan-cuda-graphs (docs/cuda-graphs.md):
//   - device ops are launches on one stream (runtime/cuda kernels, cuBLASLt); activations
//     live in one device arena per function (runtime/exec/Arena.h over device memory),
//     weights and constants are uploaded once when the executor is made;
//   - host ops (mask building, positions, rotary tables, shape arithmetic) run with the CPU
//     kernels while the launches are recorded; a device op reading a host value gets it by
//     an asynchronous copy from page-locked staging memory;
//   - layout ops (reshape, transpose, split, slice, expand, squeeze, unsqueeze) are views
//     where the consuming kernel takes strides, else one strided copy.
// A call first records its launches (checking every shape on the host), then issues them.
// When CUDA graphs are on and a segment records exactly the launches (kernels, arguments,
// addresses) of a recent call, it is captured once and replayed from then on: with the
// KV-cache lengths in device memory a decode step records the same launches every step.
// A host op reading a device value ends a segment (the executor synchronises there).
//
// Errors throw mm::rt::Error naming the function, the op and the problem.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CUDAEXEC_CUDAEXECUTOR_H
#define MM_RUNTIME_CUDAEXEC_CUDAEXECUTOR_H

#include "runtime/cpu/CpuKernels.h"
#include "runtime/cuda/Blas.h"
#include "runtime/cuda/OpCapabilities.h"
#include "runtime/cudaexec/DeviceKvCache.h"
#include "runtime/cudaexec/DeviceMemory.h"
#include "runtime/cudaexec/DeviceWeights.h"
#include "runtime/exec/Arena.h"
#include "runtime/exec/GenerationBackend.h"
#include "runtime/plan/Plan.h"

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace mm::rt::cudaexec {

/// The stream, cuBLASLt and attention scratch shared by the executors of one generator.
class CudaContext {
public:
  /// Checks the device (requireCudaDevice) and creates the stream and cuBLASLt handle.
  CudaContext();
  ~CudaContext();
  CudaContext(const CudaContext &) = delete;
  CudaContext &operator=(const CudaContext &) = delete;

  cudaStream_t stream() const { return stream_; }
  cuda::Blas &blas() { return *blas_; }
  /// The weights and constants uploaded for the executors made on this context (each once).
  DeviceWeights &weights() { return weights_; }
  const DeviceWeights &weights() const { return weights_; }
  /// Scratch for decodeAttention big enough for (batch, heads, headDim, splits); grows
  /// (outside any segment being recorded) when a call needs more.
  const cuda::SplitScratch &decodeScratch(size_t partialFloats, size_t counters);
  void synchronize() const;
  bool graphsEnabled() const { return graphs_; }
  void setGraphsEnabled(bool on) { graphs_ = on; }
  /// The batch-1 fused launches of the executors (RMSNorm or SwiGLU into the next GEMV,
  /// q and k rotary in one launch, rotary and KV append inside decode attention;
  /// docs/cuda-runtime.md). On by default; off for
  /// comparisons (mmrun --no-fused-launches): the results are the same either way.
  bool fusedLaunchesEnabled() const { return fused_; }
  void setFusedLaunchesEnabled(bool on) { fused_ = on; }

private:
  cudaStream_t stream_ = nullptr;
  std::unique_ptr<cuda::Blas> blas_;
  DeviceWeights weights_;
  DeviceBuffer partials_, counters_;
  cuda::SplitScratch scratch_;
  bool graphs_ = true;
  bool fused_ = true;
};

/// Throws Error unless `fn` was compiled with `mmc compile --target cuda` (its ops carry a
/// placement); callers check before touching the device, so that a CPU plan is reported as
/// such on any machine.
void requireCudaPlacement(const Plan &plan, const FunctionInfo &fn);

/// A tensor in device memory, contiguous row-major (what the CUDA generation backend holds).
using DeviceTensor = HeldTensor;

/// An input of run(): a host tensor, or (onDevice) a contiguous tensor in device memory
/// that stays valid until the call's work completes.
struct RunInput {
  Tensor tensor;
  bool onDevice = false;
};

/// Counters of how calls were issued.
struct LaunchStats {
  int64_t eagerSegments = 0;  ///< segments issued launch by launch
  int64_t captures = 0;       ///< segments captured into a CUDA graph
  int64_t graphLaunches = 0;  ///< segments replayed from a graph (captures included)
  int64_t launches = 0;       ///< kernel launches and copies issued, eager or in graphs
  double hostMs = 0;          ///< host time in run(): host ops, checks, recording, issuing
  double deviceMs = 0;        ///< device time from each call's first issued segment to its
                              ///< last (CUDA events), calls completed so far
};

class CudaExecutor {
public:
  /// Prepares `function` of `plan` on ctx's device: uploads its weights and constants
  /// (throws Error with the memory needed and free when they do not fit) and checks that
  /// the plan was compiled for CUDA and that every device op has a launch.
  CudaExecutor(std::shared_ptr<const Plan> plan, const std::string &function, CudaContext &ctx);
  ~CudaExecutor();
  CudaExecutor(const CudaExecutor &) = delete;
  CudaExecutor &operator=(const CudaExecutor &) = delete;

  const FunctionInfo &function() const { return *fn_; }

  /// Records and issues the function on the context's stream without waiting for it.
  /// `inputs` follow function().inputs (validated like the CPU executor: dtype, rank,
  /// static dims); with `cache`, the KV-cache inputs are left empty and the step's
  /// keys/values are appended to the cache. Returns the outputs in device memory (valid
  /// until the next run of this executor; the KV-cache outputs empty with a cache).
  std::vector<DeviceTensor> run(const std::vector<RunInput> &inputs, DeviceKvCache *cache = nullptr);
  /// run() with host inputs, then copies the outputs to the host (synchronises).
  std::vector<Tensor> runToHost(const std::vector<Tensor> &inputs);

  /// The counters, after waiting for the calls issued so far.
  const LaunchStats &stats();
  /// Bytes of the activation arena.
  size_t arenaBytes() const { return arena_.capacity(); }

  /// One value during a call (public for the op launch table in CudaOps.cpp).
  struct Value {
    DType dtype = DType::f32;
    Shape shape;
    Tensor host;                  ///< host copy (host ops' results, inputs, constants)
    char *dev = nullptr;          ///< device element 0, or null when only on the host
    std::vector<int64_t> strides; ///< device element strides; empty = contiguous
    void *block = nullptr;        ///< reference-counted arena block holding `dev`
    int kvSlot = -1;              ///< a view of this KV-cache slot's buffer
    int maskPattern = -1;         ///< an attention mask's pattern, once classified
    bool set = false;
  };
  class OpRecorder;

private:
  friend class OpRecorder;
  void uploadParameters();
  /// Whether op `index` carries fusion bit `f` (decided by -mm-plan-cuda-fusion).
  bool fuses(size_t index, cuda::CudaFusion f) const {
    return (fn_->ops[index].fusion & static_cast<uint8_t>(f)) != 0;
  }
  /// True when `p` points into the weights and constants uploaded at load (never written
  /// by a launch), so that a GEMV may read it before the previous kernel has finished.
  bool isUploadedConstant(const char *p) const { return ctx_.weights().holds(p); }
  std::vector<Value> bindInputs(const std::vector<RunInput> &inputs, DeviceKvCache *cache);
  void runHostOp(size_t index, std::vector<Value> &values);
  void runDeviceOp(size_t index, std::vector<Value> &values, DeviceKvCache *cache);
  std::vector<DeviceTensor> finishOutputs(std::vector<Value> &values);
  /// Issues the recorded launches: replays a graph, captures one, or launches eagerly.
  void flush();
  void releaseValue(Value &v);
  void addDeviceTime(int parity);
  [[noreturn]] void opError(size_t index, const std::string &message) const;

  // Storage used by OpRecorder.
  void *arenaAllocate(size_t bytes);
  void retain(void *block);
  void drop(void *block);
  void *stage(const void *hostData, size_t bytes);

  std::shared_ptr<const Plan> plan_;
  const FunctionInfo *fn_;
  CudaContext &ctx_;
  std::vector<cpu::CpuKernel> hostKernels_;   ///< per op; null for device ops
  std::vector<std::vector<uint32_t>> releaseAfter_;
  std::vector<bool> isOutput_;
  std::vector<int> appendSlot_;               ///< per op: KV slot appended, or -1
  /// The input left by the previous op to this call's next mm.linear: the previous op's
  /// result tensor (UINT32_MAX when none), the x pointer, the fused input and the arena
  /// blocks it reads (retained until the linear has allocated its result: the plan's
  /// liveness releases them after the previous op).
  struct FusedInput {
    uint32_t tensor = UINT32_MAX;
    const char *x = nullptr;
    cuda::GemvInput input;
    std::vector<void *> blocks;
  } fusedInput_;
  /// The op whose results an earlier op's launch already produced in this call (skipped).
  size_t doneByPrevious_ = SIZE_MAX;
  std::vector<int> partnerSlot_;              ///< per KV slot: the other slot of its layer
  /// The merged q/k rotary launch left to a fused decode step (rotateWithNext); recorded
  /// by launchDeferredRotary when anything else is to read its results. `blocks` (its
  /// inputs' arena blocks) are retained until then.
  struct DeferredRotary {
    size_t op = SIZE_MAX; ///< the rotary op; SIZE_MAX: none deferred
    cuda::RotaryArgs args;
    int64_t qHeads = 0; ///< args covers qHeads query heads, then the key heads
    /// Its query and key results (views set, unwritten) and the unrotated key heads.
    const char *qOut() const { return static_cast<const char *>(args.y); }
    const char *kOut() const { return qOut() + keyOffset(args.yStrideH); }
    const char *kIn() const { return static_cast<const char *>(args.x) + keyOffset(args.xStrideH); }
    int64_t keyOffset(int64_t headStride) const {
      return qHeads * headStride * static_cast<int64_t>(dtypeSize(args.dtype));
    }
    std::vector<void *> blocks;
  } deferredRotary_;
  std::vector<Value> kvPending_;              ///< per KV slot: entries not yet appended
  std::vector<char *> parameterDev_;          ///< per tensor: device copy (ctx_.weights()), or null
  std::vector<DeviceBuffer> outputBuffers_;   ///< per function output
  Arena arena_;
  /// Two staging areas used by alternate calls, so that recording a call (which writes
  /// staging) only waits for the call before the previous one: the host records step
  /// N + 1 while the device runs step N.
  Arena staging_[2];
  cudaEvent_t done_[2] = {nullptr, nullptr}; ///< the last flush of the calls using staging_[i]
  cudaEvent_t begin_[2] = {nullptr, nullptr}, end_[2] = {nullptr, nullptr}; ///< device timing
  bool timed_[2] = {false, false};                ///< begin_/end_[i] hold a segment to add
  int parity_ = 0;
  std::unordered_map<void *, int> blockRefs_;

  // The segment being recorded.
  struct PendingLaunch {
    size_t op; ///< the op that recorded it (fn_->ops.size() for the outputs and lengths)
    std::function<void(cudaStream_t)> launch;
  };
  std::vector<PendingLaunch> pending_;
  /// Issues every pending launch on `s`; an Error names the op that recorded it.
  void issuePending(cudaStream_t s);
  std::string signature_;
  std::deque<std::string> recentSignatures_; ///< segments issued eagerly lately
  struct CapturedGraph {
    cudaGraphExec_t exec;
    uint64_t lastUse; ///< graphUses_ at its last launch (least recently used is dropped)
  };
  std::map<std::string, CapturedGraph> graphs_;
  uint64_t graphUses_ = 0;
  LaunchStats stats_;
};

} // namespace mm::rt::cudaexec

#endif // MM_RUNTIME_CUDAEXEC_CUDAEXECUTOR_H

//===- OpRecorder.h - records the launches of one device op (internal) -------===//
//
// Internal to the CUDA executor. For one op of a call: checks operand shapes on the host,
// allocates results (arena or output buffers), makes views, and appends the op's
// launches with their arguments to the segment being recorded (CudaExecutor::pending_)
// and to its signature (which decides graph reuse: it holds every argument of every
// launch, so equal signatures mean identical launches).
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CUDAEXEC_OPRECORDER_H
#define MM_RUNTIME_CUDAEXEC_OPRECORDER_H

#include "runtime/cuda/Attention.h"
#include "runtime/cuda/Kernels.h"
#include "runtime/exec/MaskPattern.h"
#include "runtime/cudaexec/CudaExecutor.h"

namespace mm::rt::cudaexec {

/// True when the CUDA executor has a launch for the op named `name`.
bool hasDeviceLaunch(const std::string &name);
/// The ops the CUDA executor launches, sorted: exactly runtime/cuda/OpCapabilities.h's
/// kDeviceOps, which -mm-plan-cuda-graphs places by (OpCapabilitiesTest checks it).
std::vector<std::string> deviceLaunchNames();

class CudaExecutor::OpRecorder {
public:
  using Value = CudaExecutor::Value;
  OpRecorder(CudaExecutor &ex, size_t index, std::vector<Value> &values, DeviceKvCache *cache)
      : ex_(ex), index_(index), values_(values), cache_(cache) {}

  /// Records the op's launches (dispatch on its name).
  void launch();
  /// The KV slot's concat: writes the step's entries into the cache at the current
  /// lengths and makes the concat's result a view of the cache buffer.
  void appendToCache(size_t slot);
  /// Launches the appends still pending (a layer whose key or value never came).
  void appendPending();

  // Value helpers (also used by the executor).
  /// Gives `v` a device copy (staged upload) when it only lives on the host.
  void ensureDevice(Value &v);
  /// Replaces a strided device view by a contiguous copy.
  void makeContiguous(Value &v);
  /// Gives `v` a host copy: issues what is recorded, waits, downloads (a segment end).
  void download(Value &v);
  /// Copies `v` into `buf` (grown to fit; contiguous), as the last launches of a call.
  void copyInto(Value &v, DeviceBuffer &buf, const char *what);

private:
  using Launch = std::function<void(cudaStream_t)>;
  const OpInfo &op() const { return ex_.fn_->ops[index_]; }
  const Attrs &attrs() const { return op().attrs; }
  Value &in(size_t k);
  size_t numInputs() const { return op().inputs.size(); }
  /// Operand k as host data (downloaded if it only lives on the device).
  const Tensor &hostIn(size_t k);
  std::vector<int64_t> hostInts(size_t k);
  /// Result r with `shape`: a new contiguous device tensor the launch writes as `written`
  /// (Error when the plan declares another dtype or shape).
  Value &result(size_t r, const Shape &shape, DType written);
  /// Result r as a view of `base`'s memory (Error when the plan declares another dtype).
  Value &view(size_t r, const Value &base, char *dev, const Shape &shape, std::vector<int64_t> strides);
  /// Tensor `id` (a result of this op or of the next) as a view of `base`'s memory.
  Value &viewTensor(uint32_t id, const Value &base, char *dev, const Shape &shape,
                    std::vector<int64_t> strides);
  DType resultType(size_t r) const;
  void record(Launch launch);
  template <typename... T> void sign(const T &...v) {
    (ex_.signature_.append(reinterpret_cast<const char *>(&v), sizeof(T)), ...);
  }
  cudaStream_t stream() const { return ex_.ctx_.stream(); }
  /// Records the append of slot's pending entries, together with its partner's when both
  /// are pending and laid out alike (one launch per layer).
  void launchAppend(size_t slot);
  /// For an op (mm.swiglu, mm.geglu, RMSNorm) whose one-row result 0 feeds only the next op, an
  /// mm.linear whose GEMV can form that input itself from x [cols] and `input`
  /// (Blas::gemvTakesInput): notes it in the executor (fusedInput_) and returns true, so
  /// that the op records no launch; its result 0 stays unwritten.
  /// `blocks` are the arena blocks of the values x and input point into; they are
  /// retained until the linear has allocated its result.
  bool leaveToNextLinear(DType dtype, int64_t rows, int64_t cols, const char *x,
                         const cuda::GemvInput &input, std::vector<void *> blocks);
  /// For an mm.rotary whose next op rotates heads that follow this op's heads in the same
  /// buffer with the same strides and tables (a layer's q and k in the merged QKV output):
  /// records one launch over both into one new buffer, sets both ops' results as views
  /// of it, marks the next op done (doneByPrevious_) and returns true.
  bool rotateWithNext(cuda::RotaryArgs a);
  /// Records the rotary launch deferred by rotateWithNext (deferredRotary_), if any.
  void launchDeferredRotary();
  /// The pattern of the attention mask (operand 3; none without one), classified once
  /// per call.
  MaskPattern maskPattern(int64_t qLen, int64_t kvLen);
  /// The decodeAttention arguments of a one-token step of q over the KV-cache slots of k
  /// and v (shapes, cache view, lengths with lenOffset 1, scale, contiguous out strides);
  /// the caller sets q, its strides, out and a fused step's fields.
  cuda::DecodeAttentionArgs decodeArgs(const Value &q, const Value &k, const Value &v);
  /// Records a decodeAttention launch of `a` with scratch for its shapes (grown between
  /// segments when needed).
  void recordDecodeAttention(cuda::DecodeAttentionArgs a);
  /// mm.attention of a one-token step whose new key/value rows are still pending (and
  /// whose q/k rotary may be deferred): one decode-attention launch appends, rotates and
  /// attends (DecodeAttentionArgs::newK). Returns false, recording nothing, when the
  /// operands do not take that form; the caller then runs the separate launches.
  bool attendToFreshStep(Value &q, Value &k, Value &v);

  // Op launches (CudaOps.cpp, CudaAttentionOp.cpp).
  void linear();
  void matmul();
  void rmsNorm();
  void layerNorm();
  void rotary();
  void swiglu();
  void activation();
  /// The GELU of an mm.gelu / mm.geglu `approximate` (0: erf, 1: tanh); fails for others.
  cuda::Activation geluActivation() const;
  void cast();
  void binary();
  void gather();
  void gatherDeviceIndices(Value &data, Value &idx);
  void reshape();
  void squeezeOrUnsqueeze();
  void transpose();
  void slice();
  void expand();
  void concat();
  void split();
  void attention();

  friend bool hasDeviceLaunch(const std::string &name);
  friend std::vector<std::string> deviceLaunchNames();
  using Method = void (OpRecorder::*)();
  static const std::map<std::string, Method, std::less<>> &table();

  CudaExecutor &ex_;
  size_t index_;
  std::vector<Value> &values_;
  DeviceKvCache *cache_;
};

/// Row-major strides of `shape`, in elements.
std::vector<int64_t> rowMajorStrides(const Shape &shape);
/// The element strides of a device value (its row-major strides when contiguous).
std::vector<int64_t> stridesOf(const CudaExecutor::Value &v);
/// True when the value's elements are contiguous in row-major order.
bool isContiguous(const CudaExecutor::Value &v);
/// A copy layout: dims of size 1 dropped (rank <= cuda::kMaxLayoutRank after that, else
/// Error).
cuda::StridedLayout copyLayout(const Shape &shape, const std::vector<int64_t> &src,
                               const std::vector<int64_t> &dst);

} // namespace mm::rt::cudaexec

#endif // MM_RUNTIME_CUDAEXEC_OPRECORDER_H

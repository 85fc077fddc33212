//===- Session.h - the public C++ API of the mmc runtime ---------------------===//
//
// A Session runs one plan (a file written by `mmc compile`) on one device. It prepares
// the plan's functions there once (on CUDA: weights uploaded at first use and kept), then
// generates (vision encoder -> prompt embeddings with the image features spliced in ->
// prefill -> decode with the runtime's KV cache, batch 1) or calls one function on host
// tensors. docs/runtime.md walks through an example program (docs/examples/generate.cpp,
// built and run by test/e2e/runtime-api.test).
//
//   auto session = mm::rt::Session::open("chat.plan", {});   // device "cpu"
//   mm::rt::GenerationRequest request;
//   request.inputIds = {1, 415, 2936};
//   request.options.maxNewTokens = 32;
//   mm::rt::GenerationResult r = session->generate(request);  // r.tokens, r.ttftMs, ...
//
// Every failure (missing or foreign plan, a device this build lacks, wrong input shapes,
// a prompt that does not fit) throws mm::rt::Error with a message naming what and where.
// The tensor, plan and generation types are the runtime's own (runtime/core/Tensor.h,
// runtime/plan/Plan.h, runtime/exec/Generator.h); a Session is not thread-safe.
//
//===----------------------------------------------------------------------===//
#ifndef MMRT_SESSION_H
#define MMRT_SESSION_H

#include "runtime/exec/Executor.h"
#include "runtime/exec/Generator.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mm::rt {

/// Where and how a Session runs.
struct SessionOptions {
  /// "cpu" or "cuda" (Session::availableDevices).
  std::string device = "cpu";
  /// cuda: decode steps replay captured CUDA graphs (docs/cuda-graphs.md).
  bool cudaGraphs = true;
  /// cuda: the fused decode-step launches (rotary + KV append + attention in one kernel).
  bool fusedLaunches = true;
  /// cuda: programmatic dependent launch between kernels. Process-wide: the last CUDA
  /// session made sets it.
  bool programmaticDependentLaunch = true;
  /// cpu: time every op (Session::profiles).
  bool profile = false;
};

/// One generation: the prompt's token ids (image placeholders already expanded to one id
/// per image feature, as runtime/chat/Processor.h does) and, when the prompt has image
/// tokens, the vision encoder's pixel values ([images, 3, H, W] in the encoder's float
/// type; Qwen2-VL: the patches [patches, C * T * P * P] with imageGridThw [images, 3] i64,
/// each image's (t, h, w) patch grid, which also places the image tokens' M-RoPE
/// positions). Both are read during generate() only.
struct GenerationRequest {
  std::vector<int64_t> inputIds;
  const Tensor *pixelValues = nullptr;
  const Tensor *imageGridThw = nullptr;
  GenerationOptions options;
};

/// The memory a Session holds besides the KV cache (GenerationResult::kvCacheBytes).
struct MemoryReport {
  /// Bytes of the weights its prepared functions read: the device copies on CUDA (each
  /// weight once, whichever functions read it; with the constants and the 256-byte
  /// alignment of each), mapped from the plan file on the CPU (a function prepared for both
  /// generate() and call() counts twice there, the mapping shared).
  uint64_t weightBytes = 0;
  /// cuda: bytes of the device KV cache (with its lengths) now; 0 on the CPU, whose cache
  /// lives for one generate() (GenerationResult::kvCacheBytes).
  uint64_t kvCacheBytes = 0;
  /// Bytes of the activation arenas; on CUDA everything else the session holds on the
  /// device: activations, function outputs, attention scratch, staged token ids.
  uint64_t arenaBytes = 0;
  /// cuda: the device memory in use as the device reports it (cudaMemGetInfo), less what it
  /// reported before the process's first CUDA allocation: weightBytes + kvCacheBytes +
  /// arenaBytes, rounded up to the driver's pages, plus the cuBLASLt workspace, the
  /// loaded kernels and the CUDA graphs (and whatever other processes allocated since).
  /// On CUDA the three shares count the process's allocations: with one session per
  /// process (mmrun), that session's.
  uint64_t deviceReportedBytes = 0;
  /// cuda: the peak of the runtime's device allocations (MiB), and the allocations live
  /// at that peak in bytes per purpose (they sum to the peak).
  double peakDeviceMiB = 0;
  std::map<std::string, size_t> devicePeakByPurpose;
};

/// cuda: how one function's calls were launched so far.
struct LaunchReport {
  std::string role;           ///< "vision_encoder", "embed", "decoder", or "call"
  std::string function;       ///< the plan's function name
  int64_t eagerSegments = 0;  ///< segments issued launch by launch
  int64_t captures = 0;       ///< segments captured into a CUDA graph
  int64_t graphLaunches = 0;  ///< segments replayed from a graph (captures included)
  int64_t launches = 0;       ///< kernel launches and copies, eager or in graphs
  double hostMs = 0;          ///< host time spent issuing them
  double deviceMs = 0;        ///< device time of the calls
};

/// cpu with SessionOptions::profile: time per op kind of one function.
struct ProfileReport {
  std::string role, function;
  std::map<std::string, OpProfile> ops;
  int64_t kvViewCopies = 0; ///< KV-cache views that had to be copied contiguous
};

class Session {
public:
  /// The devices this build runs on: "cpu", and "cuda" when built with the CUDA backend.
  static std::vector<std::string> availableDevices();
  /// Throws Error unless this build runs on `device` (naming the devices it has).
  static void checkDevice(const std::string &device);

  /// Loads the plan at `planPath` and makes a Session for it. Throws Error for a missing,
  /// truncated, foreign or other-version plan, or a device this build lacks.
  static std::unique_ptr<Session> open(const std::string &planPath, const SessionOptions &options = {});
  Session(std::shared_ptr<const Plan> plan, const SessionOptions &options);
  ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  const Plan &plan() const { return *plan_; }
  const SessionOptions &options() const { return options_; }

  /// Prepares the generation functions (vision encoder, embedding, decoder;
  /// Plan::generation) now rather than at the first generate(): on CUDA, uploads their
  /// weights. Throws Error when the plan has no generation metadata, a function cannot run
  /// on the device, or the device lacks the memory.
  void prepareGeneration();
  /// Generates from `request`, preparing the generation functions first if
  /// prepareGeneration() has not. Throws Error when
  /// the plan has no generation metadata, the prompt's image tokens and the image
  /// features differ in number, a token id is outside the vocabulary, or the KV cache
  /// cannot hold the prompt and maxNewTokens.
  GenerationResult generate(const GenerationRequest &request);

  /// Prepares `function` for call() now rather than at its first call (so that the first
  /// call's time is the run's alone). Throws Error for an unknown function or one that
  /// cannot run on the device.
  void prepare(const std::string &function);
  /// Runs `function` on `inputs` (host tensors, in the function's input order) and
  /// returns its outputs as host tensors, preparing the function first if prepare() has
  /// not. Throws Error for an unknown function or inputs that do not fit its signature.
  std::vector<Tensor> call(const std::string &function, const std::vector<Tensor> &inputs);

  MemoryReport memory() const;
  /// cuda: one entry per prepared function; empty on the CPU.
  std::vector<LaunchReport> launches() const;
  /// cpu with profile: one entry per prepared function; empty otherwise.
  std::vector<ProfileReport> profiles() const;

private:
  struct Backend;
  struct CpuBackend;
  struct CudaBackend;
  std::shared_ptr<const Plan> plan_;
  SessionOptions options_;
  std::unique_ptr<Backend> backend_;
};

} // namespace mm::rt

#endif // MMRT_SESSION_H

//===- Session.cpp - the public C++ API of the mmc runtime -------------------===//
//
// The one place that tells the backends apart: a Session holds a Backend, the CPU one
// (runtime/exec) or, in builds with the CUDA backend, the CUDA one (runtime/cudaexec).
//
//===----------------------------------------------------------------------===//
#include "mmrt/Session.h"

#include "runtime/core/Error.h"
#include "runtime/core/InjectedFault.h"
#include "runtime/exec/CpuGeneration.h"
#include "runtime/exec/PositionIds.h"
#ifdef MM_HAVE_CUDA
#include "runtime/cuda/CudaCommon.h"
#include "runtime/cudaexec/CudaGeneration.h"
#include "runtime/cudaexec/DeviceMemory.h"
#endif

#include <algorithm>

namespace mm::rt {

namespace {

/// A vision encoder that takes image_grid_thw (Qwen2-VL), called on its own, gets the
/// generator's checks of its grids against its patch rows: a bad grid would otherwise
/// run into an op's error or garbage. A grid tensor that is not i64 [images, 3] is refused
/// by imageGrids; a missing input or pixel values not of rank 2 are left to the
/// executor's input checks, which name them.
void checkImageGridInput(const Plan &plan, const std::string &function, const std::vector<Tensor> &inputs) {
  const FunctionInfo *fn = plan.findFunction(function);
  if (!fn || inputs.size() != fn->inputs.size())
    return;
  const int grid = fn->inputWithRole(ValueRole::imageGridThw);
  const int pixels = fn->inputWithRole(ValueRole::pixelValues);
  if (grid < 0 || pixels < 0)
    return;
  const Tensor &g = inputs[static_cast<size_t>(grid)], &p = inputs[static_cast<size_t>(pixels)];
  if (!g.data || !p.data || p.rank() != 2)
    return;
  checkImageGrids(imageGrids(g), p.shape[0], plan.generation().mropeSpatialMergeSize, fn->name);
}
/// Bytes of the weights a function reads.
uint64_t functionWeightBytes(const FunctionInfo &fn) {
  uint64_t bytes = 0;
  for (const TensorInfo &t : fn.tensors)
    if (t.kind == TensorKind::weight)
      bytes += t.value.nbytes();
  return bytes;
}
/// The executors a backend has prepared, with their roles: the generator's (vision
/// encoder, embedding, decoder; none before the first generation) and those of call().
template <typename E, typename G, typename Calls>
std::vector<std::pair<std::string, E *>> preparedExecutors(G *generator, const Calls &calls) {
  std::vector<std::pair<std::string, E *>> out;
  if (generator) {
    if (generator->vision())
      out.emplace_back("vision_encoder", generator->vision());
    out.emplace_back("embed", &generator->embed());
    out.emplace_back("decoder", &generator->decoder());
  }
  for (const auto &entry : calls)
    out.emplace_back("call", entry.second.get());
  return out;
}
} // namespace

/// What a device does for a Session: generation and single calls, prepared lazily.
struct Session::Backend {
  virtual ~Backend() = default;
  virtual void prepareGeneration() = 0;
  virtual GenerationResult generate(const GenerationRequest &request) = 0;
  virtual void prepare(const std::string &function) = 0;
  virtual std::vector<Tensor> call(const std::string &function, const std::vector<Tensor> &inputs) = 0;
  virtual MemoryReport memory() const = 0;
  virtual std::vector<LaunchReport> launches() const { return {}; }
  virtual std::vector<ProfileReport> profiles() const { return {}; }
};

struct Session::CpuBackend : Session::Backend {
  CpuBackend(std::shared_ptr<const Plan> plan, bool profile) : plan_(std::move(plan)), profile_(profile) {}

  void prepareGeneration() override {
    if (generator_)
      return;
    auto backend = std::make_unique<CpuGeneration>(plan_);
    backend->setProfiling(profile_);
    const CpuGeneration *raw = backend.get();
    generator_ = std::make_unique<Generator>(plan_, std::move(backend)); // may throw
    generation_ = raw;
  }

  GenerationResult generate(const GenerationRequest &request) override {
    prepareGeneration();
    return generator_->generate(request.pixelValues, request.imageGridThw, request.inputIds, request.options);
  }

  Executor &prepared(const std::string &function) {
    const std::string &name = plan_->function(function).name;
    auto it = calls_.find(name);
    if (it == calls_.end()) {
      auto e = std::make_unique<Executor>(plan_, name); // inserted only once made
      e->setProfiling(profile_);
      it = calls_.emplace(name, std::move(e)).first;
    }
    return *it->second;
  }

  void prepare(const std::string &function) override { prepared(function); }

  std::vector<Tensor> call(const std::string &function, const std::vector<Tensor> &inputs) override {
    return prepared(function).run(inputs);
  }

  std::vector<std::pair<std::string, const Executor *>> executors() const {
    return preparedExecutors<const Executor>(generation_, calls_);
  }

  MemoryReport memory() const override {
    MemoryReport m;
    for (const auto &[role, e] : executors()) {
      m.weightBytes += functionWeightBytes(e->function());
      m.arenaBytes += e->arena().capacity();
    }
    return m;
  }

  std::vector<ProfileReport> profiles() const override {
    std::vector<ProfileReport> out;
    if (profile_)
      for (const auto &[role, e] : executors())
        out.push_back({role, e->function().name, e->profile(), e->viewCopies()});
    return out;
  }

  std::shared_ptr<const Plan> plan_;
  bool profile_;
  std::unique_ptr<Generator> generator_;
  const CpuGeneration *generation_ = nullptr; ///< generator_'s backend
  std::map<std::string, std::unique_ptr<Executor>> calls_;
};

#ifdef MM_HAVE_CUDA
struct Session::CudaBackend : Session::Backend {
  CudaBackend(std::shared_ptr<const Plan> plan, const SessionOptions &o) : plan_(std::move(plan)), options_(o) {
    cuda::setProgrammaticDependentLaunch(o.programmaticDependentLaunch);
  }

  void prepareGeneration() override {
    if (!generator_) {
      cudaexec::requireGenerationOnCuda(*plan_);
      auto backend = std::make_unique<cudaexec::CudaGeneration>(plan_, context());
      cudaexec::CudaGeneration *raw = backend.get();
      generator_ = std::make_unique<Generator>(plan_, std::move(backend)); // may throw
      generation_ = raw;
    }
  }

  /// The session's device context: made at the first use, shared by every executor, so
  /// that each weight is uploaded once.
  cudaexec::CudaContext &context() {
    if (!context_) {
      context_ = std::make_unique<cudaexec::CudaContext>();
      context_->setGraphsEnabled(options_.cudaGraphs);
      context_->setFusedLaunchesEnabled(options_.fusedLaunches);
    }
    return *context_;
  }

  GenerationResult generate(const GenerationRequest &request) override {
    prepareGeneration();
    return generator_->generate(request.pixelValues, request.imageGridThw, request.inputIds, request.options);
  }

  cudaexec::CudaExecutor &prepared(const std::string &function) {
    const FunctionInfo &fn = plan_->function(function);
    auto it = calls_.find(fn.name);
    if (it == calls_.end()) {
      cudaexec::requireCudaPlacement(*plan_, fn);
      auto e = std::make_unique<cudaexec::CudaExecutor>(plan_, fn.name, context()); // inserted only once made
      it = calls_.emplace(fn.name, std::move(e)).first;
    }
    return *it->second;
  }

  void prepare(const std::string &function) override { prepared(function); }

  std::vector<Tensor> call(const std::string &function, const std::vector<Tensor> &inputs) override {
    return prepared(function).runToHost(inputs);
  }

  std::vector<std::pair<std::string, cudaexec::CudaExecutor *>> executors() const {
    return preparedExecutors<cudaexec::CudaExecutor>(generation_, calls_);
  }

  MemoryReport memory() const override {
    MemoryReport m;
    const cudaexec::DeviceShares shares = cudaexec::deviceBytesInUseByShare();
    m.weightBytes = shares.weights;
    m.kvCacheBytes = shares.kvCache;
    m.arenaBytes = shares.arena;
    m.deviceReportedBytes = context_ ? cudaexec::deviceBytesUsedSinceStart() : 0;
    m.devicePeakByPurpose = cudaexec::deviceBytesAtPeak();
    m.peakDeviceMiB = static_cast<double>(cudaexec::deviceBytesPeak()) / (1 << 20);
    return m;
  }

  std::vector<LaunchReport> launches() const override {
    std::vector<LaunchReport> out;
    for (const auto &[role, e] : executors()) {
      const cudaexec::LaunchStats &s = e->stats();
      out.push_back({role, e->function().name, s.eagerSegments, s.captures, s.graphLaunches,
                     s.launches, s.hostMs, s.deviceMs});
    }
    return out;
  }

  std::shared_ptr<const Plan> plan_;
  SessionOptions options_;
  // Destroyed in reverse: the executors before the context that holds their weights.
  std::unique_ptr<cudaexec::CudaContext> context_;
  std::unique_ptr<Generator> generator_;
  cudaexec::CudaGeneration *generation_ = nullptr; ///< generator_'s backend
  std::map<std::string, std::unique_ptr<cudaexec::CudaExecutor>> calls_;
};
#endif

std::vector<std::string> Session::availableDevices() {
#ifdef MM_HAVE_CUDA
  return {"cpu", "cuda"};
#else
  return {"cpu"};
#endif
}

void Session::checkDevice(const std::string &device) {
  const std::vector<std::string> have = availableDevices();
  if (std::find(have.begin(), have.end(), device) != have.end())
    return;
  if (device == "cuda")
    fail("device 'cuda': this runtime was built without the CUDA backend (no nvcc at build "
         "time); use device 'cpu'");
  std::string list;
  for (const std::string &d : have)
    list += (list.empty() ? "" : " or ") + d;
  fail("unknown device '", device, "' (expected ", list, ")");
}

std::unique_ptr<Session> Session::open(const std::string &planPath, const SessionOptions &options) {
  checkDevice(options.device);
  return std::make_unique<Session>(Plan::load(planPath), options);
}

Session::Session(std::shared_ptr<const Plan> plan, const SessionOptions &options)
    : plan_(std::move(plan)), options_(options) {
  checkDevice(options_.device);
  injectedFault(); // a bad MM_INJECT_FAULT fails here, not in the middle of a run
  if (options_.profile && options_.device != "cpu")
    fail("profiling times ops on the CPU backend only; on CUDA use nsys or ncu");
#ifdef MM_HAVE_CUDA
  if (options_.device == "cuda") {
    backend_ = std::make_unique<CudaBackend>(plan_, options_);
    return;
  }
#endif
  backend_ = std::make_unique<CpuBackend>(plan_, options_.profile);
}

Session::~Session() = default;

void Session::prepareGeneration() { backend_->prepareGeneration(); }

GenerationResult Session::generate(const GenerationRequest &request) { return backend_->generate(request); }

void Session::prepare(const std::string &function) { backend_->prepare(function); }

std::vector<Tensor> Session::call(const std::string &function, const std::vector<Tensor> &inputs) {
  checkImageGridInput(*plan_, function, inputs);
  return backend_->call(function, inputs);
}

MemoryReport Session::memory() const { return backend_->memory(); }
std::vector<LaunchReport> Session::launches() const { return backend_->launches(); }
std::vector<ProfileReport> Session::profiles() const { return backend_->profiles(); }

} // namespace mm::rt

//===- AnyGenerator.cpp - mmrun: the CPU or CUDA generator of a plan --------===//
#include "tools/mmrun/AnyGenerator.h"

#include "runtime/core/Error.h"
#ifdef MM_HAVE_CUDA
#include "runtime/cudaexec/CudaGenerator.h"
#endif

#include "llvm/Support/Format.h"

#include <map>

using namespace mm::rt;

namespace mmrun {

/// What the generator's functions hold besides the KV cache: the weights they read (on
/// the device for CUDA; mapped from the plan on the CPU) and their activation arenas.
struct AnyGenerator::Memory {
  uint64_t weightBytes = 0, arenaBytes = 0;
  double peakDeviceMiB = 0;
  /// CUDA: the device allocations live at the peak, bytes per purpose.
  std::map<std::string, size_t> devicePeakByPurpose;
  nlohmann::ordered_json launches; ///< CUDA: launch statistics per function
};

namespace {

double mib(uint64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

/// Bytes of the weights a function reads.
uint64_t functionWeightBytes(const FunctionInfo &fn) {
  uint64_t bytes = 0;
  for (const TensorInfo &t : fn.tensors)
    if (t.kind == TensorKind::weight)
      bytes += t.value.nbytes();
  return bytes;
}

} // namespace

AnyGenerator::AnyGenerator(std::shared_ptr<const Plan> plan, const DeviceOptions &run, bool profile)
    : plan_(std::move(plan)), run_(run) {
#ifdef MM_HAVE_CUDA
  if (run.device == "cuda") {
    cuda_ = std::make_unique<cudaexec::CudaGenerator>(plan_, run.cudaGraphs, run.fusedLaunches);
    return;
  }
#endif
  cpu_ = std::make_unique<Generator>(plan_);
  cpu_->setProfiling(profile);
}

AnyGenerator::~AnyGenerator() = default;

GenerationResult AnyGenerator::generate(const Tensor *pixelValues, const std::vector<int64_t> &ids,
                                        const GenerationOptions &options) {
#ifdef MM_HAVE_CUDA
  if (cuda_)
    return cuda_->generate(pixelValues, ids, options);
#endif
  return cpu_->generate(pixelValues, ids, options);
}

Tensor AnyGenerator::toVisionInput(Tensor pixels, const std::string &processedBy) const {
  const std::string &vision = info().visionFunction;
  if (vision.empty())
    fail("the plan has no vision encoder, but an image was given");
  const FunctionInfo &fn = plan_->function(vision);
  if (fn.inputs.empty())
    return pixels;
  const TensorInfo &want = fn.tensors[fn.inputs[0].tensor];
  const Shape &s = want.shape;
  if (!processedBy.empty() && s.size() == 4 && pixels.rank() == 4 && s[2] >= 0 && s[3] >= 0 &&
      (s[2] != pixels.shape[2] || s[3] != pixels.shape[3]))
    fail(processedBy, " gives ", pixels.shape[3], " x ", pixels.shape[2],
         " pixels (width x height) but the vision encoder takes ", s[3], " x ", s[2]);
  return toDeclaredFloat(want, std::move(pixels));
}

AnyGenerator::Memory AnyGenerator::memory() const {
  Memory m;
#ifdef MM_HAVE_CUDA
  if (cuda_) {
    auto statsOf = [](cudaexec::CudaExecutor &e) {
      const cudaexec::LaunchStats &s = e.stats();
      return nlohmann::ordered_json{{"eager_segments", s.eagerSegments}, {"captures", s.captures},
                            {"graph_launches", s.graphLaunches}, {"launches", s.launches},
                            {"host_ms", s.hostMs},               {"device_ms", s.deviceMs}};
    };
    m.launches = {{"decoder", statsOf(cuda_->decoder())}, {"embed", statsOf(cuda_->embed())}};
    // Why the decode step is not one CUDA graph, when it is not (the plan's segment ends).
    nlohmann::ordered_json ends = nlohmann::ordered_json::array();
    for (const SegmentInfo &s : plan_->function(info().decoderFunction).segments)
      if (s.endReason != "end of function")
        ends.push_back(s.endReason);
    m.launches["decoder"]["segment_ends"] = ends;
    if (cuda_->vision())
      m.launches["vision_encoder"] = statsOf(*cuda_->vision());
    for (cudaexec::CudaExecutor *e : {cuda_->vision(), &cuda_->embed(), &cuda_->decoder()})
      if (e) {
        m.weightBytes += e->weightBytes();
        m.arenaBytes += e->arenaBytes();
      }
    m.devicePeakByPurpose = cudaexec::deviceBytesAtPeak();
    m.peakDeviceMiB = mib(cudaexec::deviceBytesPeak());
    return m;
  }
#endif
  for (const Executor *e : {cpu_->vision(), &cpu_->embed(), &cpu_->decoder()})
    if (e) {
      m.weightBytes += functionWeightBytes(e->function());
      m.arenaBytes += e->arena().capacity();
    }
  return m;
}

nlohmann::ordered_json AnyGenerator::statsJson(const GenerationResult &r) const {
  const Memory m = memory();
  nlohmann::ordered_json j;
  j["timing"] = {{"vision_encoder_ms", r.visionMs},
                 {"prefill_ms", r.prefillMs},
                 {"time_to_first_token_ms", r.ttftMs},
                 {"decode_ms", r.decodeMs},
                 {"decode_tokens_per_s", r.decodeTokensPerSecond}};
  j["memory"] = {{"peak_rss_mib", peakResidentMiB()}, {"kv_cache_bytes", r.kvCacheBytes},
                 {"weights_bytes", m.weightBytes}, {"arena_bytes", m.arenaBytes}};
  if (!cpu_) {
    j["memory"]["peak_device_mib"] = m.peakDeviceMiB;
    nlohmann::ordered_json byPurpose = nlohmann::ordered_json::object();
    for (const auto &[what, bytes] : m.devicePeakByPurpose)
      byPurpose[what] = mib(bytes);
    j["memory"]["peak_device_mib_by_purpose"] = byPurpose;
    j["cuda_graphs"] = run_.cudaGraphs;
    j["fused_launches"] = run_.fusedLaunches;
    j["launches"] = m.launches;
  }
  return j;
}

void AnyGenerator::printStats(const GenerationResult &r, llvm::raw_ostream &os) const {
  const Memory m = memory();
  const double rss = peakResidentMiB();
  os << llvm::format("vision encoder: %.2f ms (%lld image features)\n", r.visionMs,
                     static_cast<long long>(r.imageFeatureCount));
  os << llvm::format("time to first token: %.2f ms (prefill %.2f ms, %lld prompt tokens)\n",
                     r.ttftMs, r.prefillMs, static_cast<long long>(r.promptTokens));
  os << llvm::format("decode: %.2f tokens/s (%lld tokens in %.2f ms)%s\n",
                     r.decodeTokensPerSecond, static_cast<long long>(r.tokens.size() - 1),
                     r.decodeMs, r.stoppedAtEos ? ", stopped at EOS" : "");
  if (cpu_) {
    os << llvm::format("peak memory: %.1f MiB RSS (weights %.1f MiB mapped from the plan, KV "
                       "cache %.2f MiB, activations %.1f MiB)\n",
                       rss, mib(m.weightBytes), mib(r.kvCacheBytes), mib(m.arenaBytes));
    return;
  }
  os << llvm::format("peak memory: %.1f MiB device (weights %.1f MiB, KV cache %.2f MiB, "
                     "activations %.1f MiB), %.1f MiB RSS; CUDA graphs %s\n",
                     m.peakDeviceMiB, mib(m.weightBytes), mib(r.kvCacheBytes), mib(m.arenaBytes),
                     rss, run_.cudaGraphs ? "on" : "off");
  os << "device memory at the peak:";
  for (const auto &[what, bytes] : m.devicePeakByPurpose)
    os << llvm::format(" %s %.1f MiB;", what.c_str(), mib(bytes));
  os << "\n";
  const nlohmann::ordered_json &d = m.launches["decoder"];
  os << "decoder segments: " << d["graph_launches"].get<int64_t>()
     << " replayed from CUDA graphs (" << d["captures"].get<int64_t>() << " captured), "
     << d["eager_segments"].get<int64_t>() << " launched kernel by kernel\n";
  for (const auto &end : d["segment_ends"])
    os << "  a decoder segment ends (the step is not one CUDA graph): " << end.get<std::string>()
       << "\n";
}

void AnyGenerator::printProfiles(llvm::raw_ostream &os) const {
  if (!cpu_)
    return;
  if (cpu_->vision()) {
    os << "vision encoder ";
    printProfile(cpu_->vision()->profile(), os);
  }
  os << "decoder ";
  printProfile(cpu_->decoder().profile(), os);
  os << "KV-cache view copies: " << cpu_->decoder().viewCopies() << "\n";
}

} // namespace mmrun

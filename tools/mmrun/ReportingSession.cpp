//===- ReportingSession.cpp - mmrun: a runtime Session and its reports -------===//
#include "tools/mmrun/ReportingSession.h"

#include "runtime/core/Error.h"
#include "runtime/exec/GenerationSteps.h"

#include "llvm/Support/Format.h"

using namespace mm::rt;

namespace mmrun {

namespace {
double mib(uint64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }
} // namespace

ReportingSession::ReportingSession(std::shared_ptr<const Plan> plan, const DeviceOptions &run)
    : session_(std::move(plan), run) {
  generation::requireGenerationInfo(session_.plan());
  session_.prepareGeneration(); // device and plan errors before any input is read
}

GenerationResult ReportingSession::generate(const Tensor *pixelValues, const Tensor *imageGridThw,
                                            const std::vector<int64_t> &ids, const GenerationOptions &options) {
  GenerationRequest request;
  request.pixelValues = pixelValues;
  request.imageGridThw = imageGridThw;
  request.inputIds = ids;
  request.options = options;
  return session_.generate(request);
}

Tensor ReportingSession::toVisionInput(Tensor pixels, const std::string &processedBy) const {
  const std::string &vision = info().visionFunction;
  if (vision.empty())
    fail("the plan has no vision encoder, but an image was given");
  const FunctionInfo &fn = session_.plan().function(vision);
  const int input = fn.inputWithRole(ValueRole::pixelValues);
  if (input < 0)
    return pixels; // the generator names what is missing
  const TensorInfo &want = fn.tensors[fn.inputs[input].tensor];
  const Shape &s = want.shape;
  if (!processedBy.empty() && s.size() == 4 && pixels.rank() == 4 && s[2] >= 0 && s[3] >= 0 &&
      (s[2] != pixels.shape[2] || s[3] != pixels.shape[3]))
    fail(processedBy, " gives ", pixels.shape[3], " x ", pixels.shape[2],
         " pixels (width x height) but the vision encoder takes ", s[3], " x ", s[2]);
  return toDeclaredFloat(want, std::move(pixels));
}

nlohmann::ordered_json ReportingSession::launchesJson() const {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  const std::vector<LaunchReport> launches = session_.launches();
  for (const char *role : {"decoder", "embed", "vision_encoder"})
    for (const LaunchReport &l : launches)
      if (l.role == role)
        j[role] = {{"eager_segments", l.eagerSegments}, {"captures", l.captures},
                   {"graph_launches", l.graphLaunches}, {"launches", l.launches},
                   {"host_ms", l.hostMs},               {"device_ms", l.deviceMs}};
  // Why the decode step is not one CUDA graph, when it is not (the plan's segment ends).
  nlohmann::ordered_json ends = nlohmann::ordered_json::array();
  for (const SegmentInfo &s : session_.plan().function(info().decoderFunction).segments)
    if (s.endReason != "end of function")
      ends.push_back(s.endReason);
  if (j.contains("decoder"))
    j["decoder"]["segment_ends"] = ends;
  return j;
}

nlohmann::ordered_json ReportingSession::statsJson(const GenerationResult &r) const {
  const MemoryReport m = session_.memory();
  const bool onCpu = session_.options().device == "cpu";
  nlohmann::ordered_json j;
  j["timing"] = {{"vision_encoder_ms", r.visionMs},
                 {"prefill_ms", r.prefillMs},
                 {"time_to_first_token_ms", r.ttftMs},
                 {"decode_ms", r.decodeMs},
                 {"decode_tokens_per_s", r.decodeTokensPerSecond}};
  j["memory"] = {{"peak_rss_mib", peakResidentMiB()}, {"kv_cache_bytes", r.kvCacheBytes},
                 {"weights_bytes", m.weightBytes}, {"arena_bytes", m.arenaBytes}};
  if (!onCpu) {
    // On the device: weights + KV cache + arena, and what the device reports in use.
    j["memory"]["kv_cache_bytes"] = m.kvCacheBytes;
    j["memory"]["device_bytes"] = m.weightBytes + m.kvCacheBytes + m.arenaBytes;
    j["memory"]["device_reported_bytes"] = m.deviceReportedBytes;
    j["memory"]["peak_device_mib"] = m.peakDeviceMiB;
    nlohmann::ordered_json byPurpose = nlohmann::ordered_json::object();
    for (const auto &[what, bytes] : m.devicePeakByPurpose)
      byPurpose[what] = mib(bytes);
    j["memory"]["peak_device_mib_by_purpose"] = byPurpose;
    j["cuda_graphs"] = session_.options().cudaGraphs;
    j["fused_launches"] = session_.options().fusedLaunches;
    j["launches"] = launchesJson();
  }
  return j;
}

void ReportingSession::printStats(const GenerationResult &r, llvm::raw_ostream &os) const {
  const MemoryReport m = session_.memory();
  const double rss = peakResidentMiB();
  os << llvm::format("vision encoder: %.2f ms (%lld image features)\n", r.visionMs,
                     static_cast<long long>(r.imageFeatureCount));
  os << llvm::format("time to first token: %.2f ms (prefill %.2f ms, %lld prompt tokens)\n",
                     r.ttftMs, r.prefillMs, static_cast<long long>(r.promptTokens));
  os << llvm::format("decode: %.2f tokens/s (%lld tokens in %.2f ms)%s\n",
                     r.decodeTokensPerSecond, static_cast<long long>(r.tokens.size() - 1),
                     r.decodeMs, r.stoppedAtEos ? ", stopped at EOS" : "");
  if (session_.options().device == "cpu") {
    os << llvm::format("peak memory: %.1f MiB RSS (weights %.1f MiB mapped from the plan, KV "
                       "cache %.2f MiB, activations %.1f MiB)\n",
                       rss, mib(m.weightBytes), mib(r.kvCacheBytes), mib(m.arenaBytes));
    return;
  }
  os << llvm::format("device memory: %.1f MiB (weights %.1f MiB, KV cache %.2f MiB, arena "
                     "%.1f MiB; the device reports %.1f MiB in use), peak %.1f MiB; %.1f MiB "
                     "RSS; CUDA graphs %s\n",
                     mib(m.weightBytes + m.kvCacheBytes + m.arenaBytes), mib(m.weightBytes),
                     mib(m.kvCacheBytes), mib(m.arenaBytes), mib(m.deviceReportedBytes),
                     m.peakDeviceMiB, rss, session_.options().cudaGraphs ? "on" : "off");
  os << "device memory at the peak:";
  for (const auto &[what, bytes] : m.devicePeakByPurpose)
    os << llvm::format(" %s %.1f MiB;", what.c_str(), mib(bytes));
  os << "\n";
  const nlohmann::ordered_json launches = launchesJson();
  const nlohmann::ordered_json &d = launches["decoder"];
  os << "decoder segments: " << d["graph_launches"].get<int64_t>()
     << " replayed from CUDA graphs (" << d["captures"].get<int64_t>() << " captured), "
     << d["eager_segments"].get<int64_t>() << " launched kernel by kernel\n";
  for (const auto &end : d["segment_ends"])
    os << "  a decoder segment ends (the step is not one CUDA graph): " << end.get<std::string>()
       << "\n";
}

void ReportingSession::printProfiles(llvm::raw_ostream &os) const {
  for (const ProfileReport &p : session_.profiles()) {
    if (p.role == "embed" || p.role == "call")
      continue;
    os << (p.role == "vision_encoder" ? "vision encoder " : "decoder ");
    printProfile(p.ops, os);
    if (p.role == "decoder")
      os << "KV-cache view copies: " << p.kvViewCopies << "\n";
  }
}

} // namespace mmrun

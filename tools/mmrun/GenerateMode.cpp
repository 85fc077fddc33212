//===- GenerateMode.cpp - mmrun: multimodal greedy generation ---------------===//
#include "tools/mmrun/Modes.h"

#include "runtime/core/Error.h"
#include "runtime/exec/GenerationSteps.h"
#include "runtime/exec/Generator.h"
#ifdef MM_HAVE_CUDA
#include "runtime/cudaexec/CudaGenerator.h"
#endif
#include "runtime/image/ClipImageProcessor.h"
#include "runtime/io/Npy.h"

#include "llvm/Support/Format.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>

using namespace mm::rt;

namespace mmrun {
namespace {

/// "1,300, 300,11" -> ids; throws naming the option and the bad entry.
std::vector<int64_t> parseIds(const std::string &text, const char *option) {
  std::vector<int64_t> ids;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    size_t b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
    item = b == std::string::npos ? "" : item.substr(b, e - b + 1);
    bool digits = !item.empty() && item.size() <= 18 &&
                  item.find_first_not_of("0123456789") == std::string::npos;
    if (!digits)
      fail(option, ": '", item, "' is not a token id (expected comma-separated integers >= 0)");
    ids.push_back(std::stoll(item));
    if (comma == std::string::npos)
      break;
    pos = comma + 1;
  }
  return ids;
}

} // namespace

namespace {

/// What the generator's functions hold besides the KV cache: the weights they read (on
/// the device for CUDA; mapped from the plan on the CPU) and their activation arenas.
struct MemorySplit {
  uint64_t weightBytes = 0, arenaBytes = 0;
  /// CUDA: the device allocations live at the peak, bytes per purpose.
  std::map<std::string, size_t> devicePeakByPurpose;
};

double mib(uint64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

/// Bytes of the weights a function reads.
uint64_t functionWeightBytes(const FunctionInfo &fn) {
  uint64_t bytes = 0;
  for (const TensorInfo &t : fn.tensors)
    if (t.kind == TensorKind::weight)
      bytes += t.value.nbytes();
  return bytes;
}

/// Prints tokens, timings and memory (text or JSON); writes --dump-dir files.
void report(const GenerationResult &r, const GenerateOptions &o, double deviceMiB,
            const MemorySplit &memory, const nlohmann::json &graphStats, llvm::raw_ostream &os) {
  double rss = peakResidentMiB();
  if (!o.dumpDir.empty()) {
    makeDirectories(o.dumpDir);
    std::filesystem::path dir(o.dumpDir);
    if (r.imageFeatures.data)
      io::writeNpy((dir / "image_features.npy").string(), r.imageFeatures);
    io::writeNpy((dir / "prefill_last_logits.npy").string(), r.prefillLastLogits);
    if (r.stepLogits.data)
      io::writeNpy((dir / "step_logits.npy").string(), r.stepLogits);
  }
  const bool cuda = o.run.device == "cuda";
  if (o.json) {
    nlohmann::json j;
    j["tokens"] = r.tokens;
    j["prompt_tokens"] = r.promptTokens;
    j["image_features"] = r.imageFeatureCount;
    j["stopped_at_eos"] = r.stoppedAtEos;
    j["device"] = o.run.device;
    j["timing"] = {{"vision_encoder_ms", r.visionMs},
                   {"prefill_ms", r.prefillMs},
                   {"time_to_first_token_ms", r.ttftMs},
                   {"decode_ms", r.decodeMs},
                   {"decode_tokens_per_s", r.decodeTokensPerSecond}};
    j["memory"] = {{"peak_rss_mib", rss}, {"kv_cache_bytes", r.kvCacheBytes},
                   {"weights_bytes", memory.weightBytes}, {"arena_bytes", memory.arenaBytes}};
    if (cuda) {
      j["memory"]["peak_device_mib"] = deviceMiB;
      nlohmann::json byPurpose = nlohmann::json::object();
      for (const auto &[what, bytes] : memory.devicePeakByPurpose)
        byPurpose[what] = mib(bytes);
      j["memory"]["peak_device_mib_by_purpose"] = byPurpose;
      j["cuda_graphs"] = o.run.cudaGraphs;
      j["fused_launches"] = o.run.fusedLaunches;
      j["launches"] = graphStats;
    }
    os << j.dump(1) << "\n";
    return;
  }
  os << "tokens:";
  for (int64_t t : r.tokens)
    os << " " << t;
  os << "\n";
  os << llvm::format("vision encoder: %.2f ms (%lld image features)\n", r.visionMs,
                     static_cast<long long>(r.imageFeatureCount));
  os << llvm::format("time to first token: %.2f ms (prefill %.2f ms, %lld prompt tokens)\n",
                     r.ttftMs, r.prefillMs, static_cast<long long>(r.promptTokens));
  os << llvm::format("decode: %.2f tokens/s (%lld tokens in %.2f ms)%s\n",
                     r.decodeTokensPerSecond, static_cast<long long>(r.tokens.size() - 1),
                     r.decodeMs, r.stoppedAtEos ? ", stopped at EOS" : "");
  if (cuda)
    os << llvm::format("peak memory: %.1f MiB device (weights %.1f MiB, KV cache %.2f MiB, "
                       "activations %.1f MiB), %.1f MiB RSS; CUDA graphs %s\n",
                       deviceMiB, mib(memory.weightBytes), mib(r.kvCacheBytes),
                       mib(memory.arenaBytes), rss, o.run.cudaGraphs ? "on" : "off");
  if (cuda) {
    os << "device memory at the peak:";
    for (const auto &[what, bytes] : memory.devicePeakByPurpose)
      os << llvm::format(" %s %.1f MiB;", what.c_str(), mib(bytes));
    os << "\n";
    os << "decoder segments: " << graphStats["decoder"]["graph_launches"].get<int64_t>()
       << " replayed from CUDA graphs (" << graphStats["decoder"]["captures"].get<int64_t>()
       << " captured), " << graphStats["decoder"]["eager_segments"].get<int64_t>()
       << " launched kernel by kernel\n";
    for (const auto &end : graphStats["decoder"]["segment_ends"])
      os << "  a decoder segment ends (the step is not one CUDA graph): "
         << end.get<std::string>() << "\n";
  }
  else
    os << llvm::format("peak memory: %.1f MiB RSS (weights %.1f MiB mapped from the plan, KV "
                       "cache %.2f MiB, activations %.1f MiB)\n",
                       rss, mib(memory.weightBytes), mib(r.kvCacheBytes), mib(memory.arenaBytes));
}

/// `pixels` in the vision encoder's float type (an f32 .npy feeds an f16 export's encoder;
/// f32, f16, bf16 and f64 are taken). Other kinds and shapes pass as they are, so the
/// encoder's input check names them.
Tensor toVisionInputType(const Plan &plan, Tensor pixels) {
  const std::string &vision = plan.generation().visionFunction;
  if (vision.empty())
    return pixels;
  const FunctionInfo &fn = plan.function(vision);
  if (fn.inputs.empty())
    return pixels;
  return toDeclaredFloat(fn.tensors[fn.inputs[0].tensor], std::move(pixels));
}

/// The pixel values of --image: the file decoded and preprocessed by the CLIP image
/// processor with the plan's preprocessor_config.json, [1, 3, H, W] in the vision
/// encoder's float type.
Tensor imagePixelValues(const Plan &plan, const std::string &path) {
  const std::string *config = plan.modelFile("preprocessor_config.json");
  if (!config)
    fail("--image: the plan has no preprocessor_config.json (compile a model folder that "
         "holds one, or give --pixel-values)");
  const std::string where = plan.origin() + ": preprocessor_config.json";
  const ClipProcessorConfig c = parseClipProcessorConfig(*config, where);
  // The crop fixes the pixel values' size: check it against the encoder before decoding.
  const FunctionInfo &vision = plan.function(plan.generation().visionFunction);
  if (c.doCenterCrop && !vision.inputs.empty()) {
    const auto &shape = vision.tensors[vision.inputs[0].tensor].shape;
    if (shape.size() == 4 && shape[2] >= 0 && shape[3] >= 0 &&
        (shape[2] != c.cropHeight || shape[3] != c.cropWidth))
      fail("--image: ", where, " crops to ", c.cropWidth, " x ", c.cropHeight,
           " but the vision encoder takes ", shape[3], " x ", shape[2], " pixels");
  }
  int64_t h = 0, w = 0;
  const std::vector<float> values = clipPixelValues(decodeImageFile(path), c, h, w);
  Tensor pixels = Tensor::host(DType::f32, {1, 3, h, w});
  std::copy(values.begin(), values.end(), pixels.as<float>());
  return toVisionInputType(plan, std::move(pixels));
}

/// Runs the warm-up generations and the reported one with `gen` (CPU or CUDA generator).
template <typename Gen>
GenerationResult generateWith(Gen &gen, const Plan &plan, const GenerateOptions &o,
                              const std::vector<int64_t> &ids) {
  const GenerationInfo &g = gen.info();
  GenerationOptions options;
  if (!o.teacherTokens.empty())
    options.teacherTokens = parseIds(o.teacherTokens, "--teacher-tokens");
  for (const auto &[option, list] : {std::pair{"--input-ids", &ids}, {"--teacher-tokens", &options.teacherTokens}})
    for (int64_t id : *list)
      if (g.vocabSize > 0 && id >= g.vocabSize)
        fail(option, ": token id ", id, " is outside the vocabulary (", g.vocabSize, " tokens)");
  Tensor pixels;
  if (!o.pixelValues.empty() && !o.image.empty())
    fail("give --image or --pixel-values, not both");
  if (!o.image.empty() && g.visionFunction.empty())
    fail("--image: the plan has no vision encoder");
  if (!o.pixelValues.empty())
    pixels = toVisionInputType(plan, readTensorFile(o.pixelValues));
  else if (!o.image.empty())
    pixels = imagePixelValues(plan, o.image);
  options.maxNewTokens = o.maxNewTokens;
  options.kvCapacity = o.kvCapacity;
  if (o.warmup < 0)
    fail("--warmup must be at least 0");
  const int64_t prompt = static_cast<int64_t>(ids.size());
  if (g.maxPositions > 0 && generation::positionsFed(prompt, o.maxNewTokens) > g.maxPositions)
    llvm::errs() << "mmrun: warning: " << generation::counted(prompt, "prompt token") << " + "
                 << generation::counted(o.maxNewTokens, "new token") << " exceed the model's "
                 << g.maxPositions
                 << " positions (max_position_embeddings); later positions are extrapolated\n";
  const Tensor *image = o.pixelValues.empty() && o.image.empty() ? nullptr : &pixels;
  for (int w = 0; w < o.warmup; ++w)
    gen.generate(image, ids, options);
  return gen.generate(image, ids, options);
}

#ifdef MM_HAVE_CUDA
int runGenerateCuda(std::shared_ptr<const Plan> plan, const GenerateOptions &o,
                    const std::vector<int64_t> &ids, llvm::raw_ostream &os) {
  cudaexec::CudaGenerator gen(plan, o.run.cudaGraphs, o.run.fusedLaunches);
  GenerationResult r = generateWith(gen, *plan, o, ids);
  auto statsOf = [](cudaexec::CudaExecutor &e) {
    const cudaexec::LaunchStats &s = e.stats();
    return nlohmann::json{{"eager_segments", s.eagerSegments},
                          {"captures", s.captures},
                          {"graph_launches", s.graphLaunches},
                          {"launches", s.launches},
                          {"host_ms", s.hostMs},
                          {"device_ms", s.deviceMs}};
  };
  nlohmann::json stats = {{"decoder", statsOf(gen.decoder())}, {"embed", statsOf(gen.embed())}};
  // Why the decode step is not one CUDA graph, when it is not (the plan's segment ends).
  nlohmann::json ends = nlohmann::json::array();
  for (const SegmentInfo &s : plan->function(gen.info().decoderFunction).segments)
    if (s.endReason != "end of function")
      ends.push_back(s.endReason);
  stats["decoder"]["segment_ends"] = ends;
  if (gen.vision())
    stats["vision_encoder"] = statsOf(*gen.vision());
  MemorySplit memory;
  for (cudaexec::CudaExecutor *e : {gen.vision(), &gen.embed(), &gen.decoder()})
    if (e) {
      memory.weightBytes += e->weightBytes();
      memory.arenaBytes += e->arenaBytes();
    }
  memory.devicePeakByPurpose = cudaexec::deviceBytesAtPeak();
  report(r, o, mib(cudaexec::deviceBytesPeak()), memory, stats, os);
  return 0;
}
#endif

} // namespace

int runGenerate(std::shared_ptr<const Plan> plan, const GenerateOptions &o, llvm::raw_ostream &os) {
  std::vector<int64_t> ids = parseIds(o.inputIds, "--input-ids");
#ifdef MM_HAVE_CUDA
  if (o.run.device == "cuda")
    return runGenerateCuda(plan, o, ids, os);
#endif
  Generator gen(plan);
  gen.setProfiling(o.profile);
  GenerationResult r = generateWith(gen, *plan, o, ids);
  MemorySplit memory;
  for (const Executor *e : {gen.vision(), &gen.embed(), &gen.decoder()})
    if (e) {
      memory.weightBytes += functionWeightBytes(e->function());
      memory.arenaBytes += e->arena().capacity();
    }
  report(r, o, 0, memory, nlohmann::json(), os);
  if (o.profile) {
    if (gen.vision()) {
      llvm::errs() << "vision encoder ";
      printProfile(gen.vision()->profile(), llvm::errs());
    }
    llvm::errs() << "decoder ";
    printProfile(gen.decoder().profile(), llvm::errs());
    llvm::errs() << "KV-cache view copies: " << gen.decoder().viewCopies() << "\n";
  }
  return 0;
}

} // namespace mmrun

//===- GenerateMode.cpp - mmrun: generation from token ids -------------------===//
#include "tools/mmrun/ReportingSession.h"

#include "runtime/chat/Processor.h"
#include "runtime/core/Error.h"
#include "runtime/exec/GenerationSteps.h"
#include "runtime/io/Npy.h"

#include <filesystem>

using namespace mm::rt;

namespace mmrun {

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

/// Writes `t` as .npy; bf16 (which numpy has not) widened to f32, exactly.
void writeDump(const std::filesystem::path &path, const Tensor &t) {
  io::writeNpy(path.string(), t.dtype == DType::bf16 ? convertFloat(t, DType::f32) : t);
}

void writeDumps(const GenerationResult &r, const std::string &dumpDir) {
  if (dumpDir.empty())
    return;
  makeDirectories(dumpDir);
  std::filesystem::path dir(dumpDir);
  if (r.imageFeatures.data)
    writeDump(dir / "image_features.npy", r.imageFeatures);
  writeDump(dir / "prefill_last_logits.npy", r.prefillLastLogits);
  if (r.stepLogits.data)
    writeDump(dir / "step_logits.npy", r.stepLogits);
}

void warnPastContext(const GenerationInfo &g, int64_t promptTokens, int64_t maxNewTokens) {
  if (g.maxPositions > 0 && generation::positionsFed(promptTokens, maxNewTokens) > g.maxPositions)
    llvm::errs() << "mmrun: warning: " << generation::counted(promptTokens, "prompt token") << " + "
                 << generation::counted(maxNewTokens, "new token") << " exceed the model's "
                 << g.maxPositions
                 << " positions (max_position_embeddings); later positions are extrapolated\n";
}

namespace {

/// The vision encoder's inputs: pixel values and (Qwen2-VL) image_grid_thw.
struct VisionTensors {
  Tensor pixels, grids;
};

/// The pixel values (and grids) of --image: the files decoded and preprocessed by the image
/// processor of the plan's preprocessor_config.json (or processor_config.json), stacked.
VisionTensors imagePixelValues(const Plan &plan, const ReportingSession &gen,
                               const std::vector<std::string> &paths) {
  auto lookup = [&](const std::string &name) { return plan.modelFile(name); };
  std::optional<ImageProcessor> processor = imageProcessorOf(lookup, plan.origin());
  if (!processor)
    fail("--image: the plan has no preprocessor_config.json (compile a model folder that "
         "holds one, or give --pixel-values)");
  checkProcessorFitsPlan(*processor, plan);
  std::vector<ProcessedImage> images;
  for (const std::string &path : paths)
    images.push_back(processor->process(decodeImageFile(path)));
  return {gen.toVisionInput(batchPixelValues(*processor, images),
                            "--image: " + plan.origin() + ": " + processor->typeName()),
          batchImageGrids(images)};
}

/// --image-grid-thw t,h,w[,t,h,w...] as [images, 3] i64.
Tensor parseImageGrids(const std::string &text) {
  std::vector<int64_t> v;
  llvm::SmallVector<llvm::StringRef> items;
  llvm::StringRef(text).split(items, ',');
  for (llvm::StringRef item : items) {
    int64_t n = 0;
    if (item.trim().getAsInteger(10, n) || n < 1)
      fail("--image-grid-thw: '", item.trim().str(), "' is not a positive patch count (t,h,w per image)");
    v.push_back(n);
  }
  if (v.empty() || v.size() % 3 != 0)
    fail("--image-grid-thw takes t,h,w per image (a multiple of 3 numbers); ", v.size(), " given");
  Tensor t = Tensor::host(DType::i64, {static_cast<int64_t>(v.size() / 3), 3});
  std::copy(v.begin(), v.end(), t.as<int64_t>());
  return t;
}

} // namespace

int runGenerate(std::shared_ptr<const Plan> plan, const GenerateOptions &o, llvm::raw_ostream &os) {
  std::vector<int64_t> ids = parseIds(o.inputIds, "--input-ids");
  ReportingSession gen(plan, o.run);
  const GenerationInfo &g = gen.info();
  GenerationOptions options;
  if (!o.teacherTokens.empty())
    options.teacherTokens = parseIds(o.teacherTokens, "--teacher-tokens");
  if (!o.pixelValues.empty() && !o.images.empty())
    fail("give --image or --pixel-values, not both");
  if (!o.imageGridThw.empty() && o.pixelValues.empty())
    fail("--image-grid-thw goes with --pixel-values (--image computes the grids)");
  VisionTensors vision;
  if (!o.pixelValues.empty())
    vision = {gen.toVisionInput(readTensorFile(o.pixelValues)),
              o.imageGridThw.empty() ? Tensor() : parseImageGrids(o.imageGridThw)};
  else if (!o.images.empty())
    vision = imagePixelValues(*plan, gen, o.images);
  options.maxNewTokens = o.maxNewTokens;
  options.kvCapacity = o.kvCapacity;
  options.sampling = o.sampling;
  options.ignoreEos = o.ignoreEos;
  if (o.warmup < 0)
    fail("--warmup must be at least 0");
  warnPastContext(g, static_cast<int64_t>(ids.size()), o.maxNewTokens);
  const Tensor *image = vision.pixels.data ? &vision.pixels : nullptr;
  const Tensor *grids = vision.grids.data ? &vision.grids : nullptr;
  for (int w = 0; w < o.warmup; ++w)
    gen.generate(image, grids, ids, options);
  GenerationResult r = gen.generate(image, grids, ids, options);
  writeDumps(r, o.dumpDir);
  if (o.json) {
    nlohmann::ordered_json j = gen.statsJson(r);
    j["tokens"] = r.tokens;
    j["prompt_tokens"] = r.promptTokens;
    j["image_features"] = r.imageFeatureCount;
    j["stopped_at_eos"] = r.stoppedAtEos;
    j["device"] = o.run.device;
    os << j.dump(1) << "\n";
  } else {
    os << "tokens:";
    for (int64_t t : r.tokens)
      os << " " << t;
    os << "\n";
    gen.printStats(r, os);
  }
  if (o.run.profile)
    gen.printProfiles(llvm::errs());
  return 0;
}

} // namespace mmrun

//===- Modes.h - what mmrun can do with a plan -------------------------------===//
#ifndef MM_TOOLS_MMRUN_MODES_H
#define MM_TOOLS_MMRUN_MODES_H

#include "runtime/exec/Executor.h"
#include "runtime/chat/Processor.h"
#include "runtime/exec/Generator.h"
#include "runtime/plan/Plan.h"
#include "mmrt/Session.h"

#include "llvm/Support/raw_ostream.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mmrun {

/// Throws unless `device` is "cpu", or "cuda" in a build with the CUDA backend.
void checkDevice(const std::string &device);

/// Prints functions, signatures, KV-cache slots and generation metadata; returns 0.
int printInfo(const mm::rt::Plan &plan, llvm::raw_ostream &os);

/// A tensor from a .npy or .pb file (by extension); `name` gets the TensorProto's name.
mm::rt::Tensor readTensorFile(const std::string &path, std::string *name = nullptr);

/// `t` converted to `want`'s float type when both are float (f32, f16 or bf16 for `want`)
/// and `t`'s shape fits `want`'s (an f32 .npy of pixels for an f16 or bf16 encoder);
/// otherwise `t` as it is (the executor's input check names any mismatch).
mm::rt::Tensor toDeclaredFloat(const mm::rt::TensorInfo &want, mm::rt::Tensor t);

/// Time per op kind, slowest first.
void printProfile(const std::map<std::string, mm::rt::OpProfile> &profile, llvm::raw_ostream &os);

/// "[1, 2.5, ...]": the values of a small tensor (the first `limit` elements).
std::string valuesString(const mm::rt::Tensor &t, int64_t limit = 64);

/// Creates `dir` and its parents if needed; throws Error.
void makeDirectories(const std::string &dir);

/// Where a mode runs: --device, and for cuda --no-cuda-graphs, --no-fused-launches and
/// --no-pdl, and --profile (the runtime's session options).
using DeviceOptions = mm::rt::SessionOptions;

struct GraphOptions {
  std::string function;
  std::vector<std::string> inputs; ///< name=file or file.pb
  std::string inputDir, outputDir, outputFormat = "npy", compareDir;
  double atol = 1e-4, rtol = 1e-3;
  int repeat = 1;
  bool json = false;
  bool print = false; ///< print output values
  DeviceOptions run;
};

/// Runs one function on files; writes/compares its outputs. Returns the exit status
/// (1 when a comparison fails). Throws Error for bad input.
int runGraph(std::shared_ptr<const mm::rt::Plan> plan, const GraphOptions &o, llvm::raw_ostream &os);

/// --temperature, --top-k, --top-p, --repetition-penalty and --seed as given: each
/// overrides the defaults (GenerationDefaults::choose: generation_config.json's for text,
/// GenerationConfig's own, greedy, for --input-ids).
struct SamplingOverrides {
  std::optional<double> temperature, topP, repetitionPenalty;
  std::optional<int64_t> topK;
  uint64_t seed = 0;
  mm::rt::SamplingOptions over(const mm::rt::GenerationDefaults &defaults) const;
};

struct GenerateOptions {
  std::string pixelValues, inputIds, dumpDir;
  std::string imageGridThw;        ///< --image-grid-thw t,h,w[,...] (with --pixel-values)
  std::vector<std::string> images; ///< --image, in order
  std::string teacherTokens; ///< comma-separated ids fed by decode steps 1.. (teacher forcing)
  int64_t maxNewTokens = 16, kvCapacity = 0;
  mm::rt::SamplingOptions sampling;
  bool ignoreEos = false;
  int warmup = 0; ///< untimed generations before the reported one
  bool json = false;
  DeviceOptions run;
};

/// Generation from --input-ids; prints tokens and timings. Returns 0; throws Error.
int runGenerate(std::shared_ptr<const mm::rt::Plan> plan, const GenerateOptions &o,
                llvm::raw_ostream &os);

/// Text in, text out: --prompt (one turn) or --chat (turns read from stdin).
struct TextOptions {
  std::vector<std::string> images;
  std::string prompt, system;
  bool chat = false;
  bool raw = false; ///< --raw-prompt: no chat template
  std::vector<std::string> stops;
  std::optional<int64_t> maxNewTokens; ///< default: generation_config.json's, else 256
  int64_t kvCapacity = 0;
  SamplingOverrides sampling;
  int warmup = 0; ///< untimed generations of each turn before the reported one
  bool ignoreEos = false;
  bool json = false;
  DeviceOptions run;
};

/// Streams the generated text to `os` (timings to stderr; with json, one JSON object per
/// turn instead). Returns 0; throws Error.
int runText(std::shared_ptr<const mm::rt::Plan> plan, const TextOptions &o, llvm::raw_ostream &os);

/// --tokenize TEXT (prints the JSON array of ids, special tokens added) or --detokenize
/// IDS (prints the text). Returns 0; throws Error.
int runTokenizer(const mm::rt::Plan &plan, const std::string *tokenize,
                 const std::string *detokenize, llvm::raw_ostream &os);

/// "1,300, 300,11" -> ids; throws naming the option and the bad entry.
std::vector<int64_t> parseIds(const std::string &text, const char *option);
/// Writes image_features.npy, prefill_last_logits.npy (and step_logits.npy) to `dumpDir`
/// when it is not "".
void writeDumps(const mm::rt::GenerationResult &r, const std::string &dumpDir);
/// A warning on stderr when the positions fed exceed max_position_embeddings.
void warnPastContext(const mm::rt::GenerationInfo &g, int64_t promptTokens, int64_t maxNewTokens);

} // namespace mmrun

#endif // MM_TOOLS_MMRUN_MODES_H

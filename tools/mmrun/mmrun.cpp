//===- mmrun.cpp - run a compiled mmc plan ---------------------------------===//
//
//   Images and text in, text out (plans compiled from a folder with tokenizer.json):
//     mmrun plan.fb [--image photo.jpg ...] --prompt TEXT [--system TEXT] [--chat]
//                   [--max-new-tokens N] [--temperature T --top-k K --top-p P
//                   --repetition-penalty R --seed S] [--stop STR ...] [--json]
//     mmrun plan.fb --tokenize TEXT | --detokenize 1,2,3
//   Generation from token ids (plans with vision encoder, embedding and decoder):
//     mmrun plan.fb --pixel-values x.npy --input-ids 1,300,... [--max-new-tokens N]
//                   [--json] [--dump-dir DIR] [--teacher-tokens IDS] [--warmup N] [--kv-capacity N]
//                   [--profile]
//                   [--device cpu|cuda] [--no-cuda-graphs] [--no-pdl]
//   One graph (any plan):
//     mmrun plan.fb [--function NAME] --input name=file.npy|file.pb ... | --input-dir DIR
//                   [--output-dir DIR] [--output-format npy|pb|both]
//                   [--compare-dir DIR --atol A --rtol R] [--repeat N] [--print]
//   Inspect:
//     mmrun plan.fb --info
//
// Every error prints "mmrun: error: ..." and exits with status 1. See docs/mmrun.md.
//
//===----------------------------------------------------------------------===//
#include "tools/mmrun/Modes.h"

#include "runtime/core/Error.h"
#include "runtime/core/InjectedFault.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>

namespace cl = llvm::cl;

// --help lists these categories only (LLVM's own options stay accepted but hidden).
static cl::OptionCategory mainCat("Options");
static cl::opt<std::string> planPath(cl::Positional, cl::Required, cl::desc("<plan.fb>"),
                                     cl::cat(mainCat));
static cl::opt<std::string> device("device", cl::init("cpu"), cl::desc("cpu or cuda"),
                                   cl::cat(mainCat));
static cl::opt<bool> noCudaGraphs("no-cuda-graphs", cl::cat(mainCat),
                                  cl::desc("With --device cuda: launch every kernel, capture no CUDA graph"));
static cl::opt<bool> noFusedLaunches(
    "no-fused-launches", cl::cat(mainCat),
    cl::desc("With --device cuda: no RMSNorm/SwiGLU/GeGLU fused into the next GEMV, no merged "
             "q/k rotary launch, no rotary and KV append inside decode attention (for "
             "comparisons; the results are the same)"));
static cl::opt<bool> noPdl(
    "no-pdl", cl::cat(mainCat),
    cl::desc("With --device cuda: launch kernels without programmatic dependent launch (no "
             "weight loads overlapping the previous kernel); one-row products wider than 1024 "
             "then go to cuBLASLt instead of the own GEMV, without its fused RMSNorm/SwiGLU/GeGLU "
             "inputs, so sums run in another order (for comparisons)"));
static cl::opt<bool> info("info", cl::cat(mainCat),
                          cl::desc("Print the plan's functions, signatures and metadata"));
static cl::opt<bool> json("json", cl::cat(mainCat), cl::desc("Print results and timings as JSON"));
static cl::opt<bool> profile("profile", cl::cat(mainCat), cl::desc("Print time per op kind"));

static cl::OptionCategory textCat("Text generation");
static cl::opt<std::string> prompt("prompt", cl::cat(textCat),
                                   cl::desc("The user's message: rendered with the plan's chat "
                                            "template (else used as it is), tokenized, and "
                                            "answered; the text streams to stdout"),
                                   cl::value_desc("text"));
static cl::opt<std::string> systemPrompt("system", cl::cat(textCat),
                                         cl::desc("A system message before the user's (needs a "
                                                  "chat template)"),
                                         cl::value_desc("text"));
static cl::opt<bool> rawPrompt("raw-prompt", cl::cat(textCat),
                               cl::desc("Use --prompt as it is, without the chat template (a "
                                        "completion; one image placeholder per --image first)"));
static cl::opt<bool> chat("chat", cl::cat(textCat),
                          cl::desc("Interactive chat: one user message per line of stdin, the "
                                   "history kept (after --prompt's turn when given)"));
static cl::list<std::string> stops("stop", cl::cat(textCat),
                                   cl::desc("Stop when the text holds this string (not printed); "
                                            "repeatable"),
                                   cl::value_desc("string"));
static cl::opt<std::string> tokenizeText("tokenize", cl::cat(textCat),
                                         cl::desc("Print the token ids of this text (special "
                                                  "tokens added) and exit"),
                                         cl::value_desc("text"));
static cl::opt<std::string> detokenizeIds("detokenize", cl::cat(textCat),
                                          cl::desc("Print the text of these token ids and exit"),
                                          cl::value_desc("1,2,3"));
static cl::opt<double> temperature("temperature", cl::cat(textCat),
                                   cl::desc("Sampling temperature; 0 is greedy (default: "
                                            "generation_config.json's, else greedy)"));
static cl::opt<int64_t> topK("top-k", cl::cat(textCat),
                             cl::desc("Sample among the K most likely tokens (0: all)"));
static cl::opt<double> topP("top-p", cl::cat(textCat),
                            cl::desc("Sample from the smallest set holding this probability"));
static cl::opt<double> repetitionPenalty("repetition-penalty", cl::cat(textCat),
                                         cl::desc("Penalise tokens already seen (CTRL; 1: none)"));
static cl::opt<bool> ignoreEos("ignore-eos", cl::cat(textCat),
                               cl::desc("Do not stop at EOS tokens (benchmarks: exactly "
                                        "--max-new-tokens tokens)"));
static cl::opt<uint64_t> seed("seed", cl::init(0), cl::cat(textCat),
                              cl::desc("Seed of the sampler's random draws"));

static cl::OptionCategory genCat("Generation");
static cl::opt<std::string> pixelValues("pixel-values", cl::cat(genCat),
                                        cl::desc("Image input [1,3,H,W] f32 (.npy or .pb); Qwen2-VL: "
                                                 "patches [patches,C*T*P*P] with --image-grid-thw"),
                                        cl::value_desc("file"));
static cl::opt<std::string> imageGridThw(
    "image-grid-thw", cl::cat(genCat),
    cl::desc("With --pixel-values of Qwen2-VL's patches: each image's grid of temporal, "
             "height and width patches (image_grid_thw)"),
    cl::value_desc("t,h,w[,t,h,w...]"));
static cl::list<std::string> images(
    "image", cl::cat(genCat),
    cl::desc("Image input: a PNG or JPEG file, preprocessed as the plan's "
             "preprocessor_config.json says (instead of --pixel-values); repeatable"),
    cl::value_desc("file"));
static cl::opt<std::string> inputIds("input-ids", cl::cat(genCat),
                                     cl::desc("Prompt token ids, comma separated"),
                                     cl::value_desc("1,300,..."));
static cl::opt<int64_t> maxNewTokens("max-new-tokens", cl::init(16), cl::cat(genCat),
                                     cl::desc("Maximum number of tokens to generate"));
static cl::opt<int64_t> kvCapacity("kv-capacity", cl::init(0), cl::cat(genCat),
                                   cl::desc("KV-cache positions (default: prompt + max new tokens)"));
static cl::opt<int> warmup("warmup", cl::init(0), cl::cat(genCat),
                           cl::desc("Untimed generations to run before the reported one"));
static cl::opt<std::string> dumpDir(
    "dump-dir", cl::cat(genCat),
    cl::desc("Write image_features.npy and prefill_last_logits.npy here (and step_logits.npy "
             "with --teacher-tokens)"),
    cl::value_desc("dir"));
static cl::opt<std::string> teacherTokens(
    "teacher-tokens", cl::cat(genCat),
    cl::desc("Teacher forcing: decode step k feeds the k-th of these ids instead of its own "
             "argmax, EOS does not stop, and every step's logits are kept (step_logits.npy "
             "[max-new-tokens, vocab] f32 in --dump-dir); at least max-new-tokens - 1 ids"),
    cl::value_desc("ids"));

static cl::OptionCategory graphCat("Single graph");
static cl::opt<std::string> function("function", cl::cat(graphCat),
                                     cl::desc("Function to run (default: the plan's only one)"));
static cl::list<std::string> inputs("input", cl::cat(graphCat),
                                    cl::desc("An input: name=file.npy|file.pb, or file.pb (named inside)"),
                                    cl::value_desc("name=file"));
static cl::opt<std::string> inputDir("input-dir", cl::cat(graphCat),
                                     cl::desc("Read every input_*.pb of an ONNX test data set"),
                                     cl::value_desc("dir"));
static cl::opt<std::string> outputDir("output-dir", cl::cat(graphCat),
                                      cl::desc("Write the outputs here as <name>.npy / <name>.pb"),
                                      cl::value_desc("dir"));
static cl::opt<std::string> outputFormat("output-format", cl::init("npy"), cl::cat(graphCat),
                                         cl::desc("npy, pb or both"));
static cl::opt<std::string> compareDir("compare-dir", cl::cat(graphCat),
                                       cl::desc("Compare the outputs with output_*.pb in this folder"),
                                       cl::value_desc("dir"));
static cl::opt<double> absTol("atol", cl::init(1e-4), cl::cat(graphCat),
                            cl::desc("Absolute tolerance of --compare-dir"));
static cl::opt<double> relTol("rtol", cl::init(1e-3), cl::cat(graphCat),
                            cl::desc("Relative tolerance of --compare-dir"));
static cl::opt<bool> printValues("print", cl::cat(graphCat),
                                 cl::desc("Print the output values (the first 64 of each)"));
static cl::opt<int> repeat("repeat", cl::init(1), cl::cat(graphCat),
                           cl::desc("Run the graph N times and report the mean time"));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // InitLLVM turns a failed allocation into an abort; mmrun reports it as an error instead
  // (std::bad_alloc, caught below with every other exception).
  std::set_new_handler(nullptr);
  cl::SetVersionPrinter([](llvm::raw_ostream &os) { os << "mmrun " MM_VERSION "\n"; });
  cl::HideUnrelatedOptions({&mainCat, &textCat, &genCat, &graphCat});
  cl::ParseCommandLineOptions(argc, argv, "mmrun: run a plan compiled by mmc\n");
  try {
    mmrun::checkDevice(device);
    mm::rt::injectedFault(); // refuses a bad MM_INJECT_FAULT, warns about a good one
    if (noCudaGraphs && device != "cuda")
      mm::rt::fail("--no-cuda-graphs applies to --device cuda only");
    if (noFusedLaunches && device != "cuda")
      mm::rt::fail("--no-fused-launches applies to --device cuda only");
    if (noPdl && device != "cuda")
      mm::rt::fail("--no-pdl applies to --device cuda only");
    if (profile && device == "cuda")
      mm::rt::fail("--profile times ops on the CPU backend only; with --device cuda use nsys or ncu");
    mmrun::DeviceOptions run;
    run.device = device;
    run.cudaGraphs = !noCudaGraphs;
    run.fusedLaunches = !noFusedLaunches;
    run.programmaticDependentLaunch = !noPdl;
    run.profile = profile;
    auto plan = mm::rt::Plan::load(planPath);
    if (info)
      return mmrun::printInfo(*plan, llvm::outs());
    for (const std::string &path : images)
      if (path.empty())
        mm::rt::fail("--image needs a file name");
    const bool tokenizerMode = tokenizeText.getNumOccurrences() || detokenizeIds.getNumOccurrences();
    const bool textMode = prompt.getNumOccurrences() || chat;
    const std::vector<cl::Option *> textOnly = {&systemPrompt, std::addressof(stops), &rawPrompt};
    if (!textMode)
      for (cl::Option *opt : textOnly)
        if (opt->getNumOccurrences() > 0)
          mm::rt::fail("--", opt->ArgStr.str(), " applies to text generation (--prompt, --chat)");
    // The options of one mode are errors in another (an option silently ignored would
    // mislead).
    const std::vector<cl::Option *> graphOnly = {&function,   &outputDir, &outputFormat,
                                                 &compareDir, &absTol,    &relTol,
                                                 &repeat,     &printValues, std::addressof(inputs),
                                                 &inputDir};
    auto refuse = [](const std::vector<cl::Option *> &opts, const char *mode) {
      for (cl::Option *opt : opts)
        if (opt->getNumOccurrences() > 0)
          mm::rt::fail("--", opt->ArgStr.str(), " does not apply to ", mode);
    };
    if (tokenizerMode) {
      if (tokenizeText.getNumOccurrences() && detokenizeIds.getNumOccurrences())
        mm::rt::fail("give --tokenize or --detokenize, not both");
      refuse(graphOnly, "--tokenize / --detokenize");
      refuse({&prompt, &systemPrompt, &chat, &rawPrompt, std::addressof(stops), &temperature, &topK,
              &topP, &repetitionPenalty, &seed, &ignoreEos, &pixelValues, &imageGridThw,
              std::addressof(images), &inputIds, &maxNewTokens, &kvCapacity, &warmup, &dumpDir, &teacherTokens, &json,
              &profile},
             "--tokenize / --detokenize");
    }
    if (tokenizerMode)
      return mmrun::runTokenizer(*plan, tokenizeText.getNumOccurrences() ? &tokenizeText : nullptr,
                                 detokenizeIds.getNumOccurrences() ? &detokenizeIds : nullptr,
                                 llvm::outs());
    mmrun::SamplingOverrides sampling;
    if (temperature.getNumOccurrences())
      sampling.temperature = temperature;
    if (topK.getNumOccurrences())
      sampling.topK = topK;
    if (topP.getNumOccurrences())
      sampling.topP = topP;
    if (repetitionPenalty.getNumOccurrences())
      sampling.repetitionPenalty = repetitionPenalty;
    sampling.seed = seed;
    if (textMode) {
      refuse({&inputIds, &pixelValues, &imageGridThw, &teacherTokens, &dumpDir},
             "text generation (--prompt, --chat)");
      refuse(graphOnly, "text generation (--prompt, --chat)");
      mmrun::TextOptions o;
      o.images = std::vector<std::string>(images.begin(), images.end());
      o.prompt = prompt;
      o.system = systemPrompt;
      o.chat = chat;
      o.raw = rawPrompt;
      if (o.raw && (o.chat || !o.system.empty()))
        mm::rt::fail("--raw-prompt takes no chat template, so neither --chat nor --system");
      o.stops = std::vector<std::string>(stops.begin(), stops.end());
      if (maxNewTokens.getNumOccurrences())
        o.maxNewTokens = maxNewTokens;
      o.kvCapacity = kvCapacity;
      o.sampling = sampling;
      if (warmup < 0)
        mm::rt::fail("--warmup must be at least 0");
      o.warmup = warmup;
      o.ignoreEos = ignoreEos;
      o.json = json;
      o.run = run;
      return mmrun::runText(plan, o, llvm::outs());
    }
    // One graph also when the function to run takes no inputs (every input bound at
    // compile time): --function, or the plan's only function.
    auto takesNoInputs = [&] {
      const auto &fns = plan->functions();
      if (!function.empty())
        return plan->function(function).inputs.empty();
      return fns.size() == 1 && fns[0].inputs.empty();
    };
    bool graphMode = !inputs.empty() || !inputDir.empty() || (inputIds.empty() && takesNoInputs());
    if (graphMode && !inputIds.empty())
      mm::rt::fail("give either --input-ids (generation) or --input/--input-dir (one graph), not both");
    // An option of the other mode would be ignored (a --compare-dir that compares nothing).
    const std::vector<cl::Option *> generationOnly = {
        &pixelValues, &imageGridThw, std::addressof(images), &maxNewTokens, &kvCapacity, &warmup,
        &dumpDir, &teacherTokens, &temperature, &topK,       &topP,       &repetitionPenalty, &seed, &ignoreEos};
    for (cl::Option *opt : graphMode ? generationOnly : graphOnly)
      if (opt->getNumOccurrences() > 0)
        mm::rt::fail("--", opt->ArgStr.str(), " applies to ",
                     graphMode ? "generation (--input-ids)" : "one-graph runs (--input, --input-dir)",
                     ", not to this ", graphMode ? "one-graph run" : "generation");
    if (graphMode) {
      mmrun::GraphOptions o;
      o.function = function;
      o.inputs = std::vector<std::string>(inputs.begin(), inputs.end());
      o.inputDir = inputDir;
      o.outputDir = outputDir;
      o.outputFormat = outputFormat;
      o.compareDir = compareDir;
      if (!(absTol >= 0) || !(relTol >= 0))
        mm::rt::fail("--atol and --rtol must be at least 0 (got ", double(absTol), " and ",
                     double(relTol), ")");
      o.atol = absTol;
      o.rtol = relTol;
      o.repeat = repeat;
      o.json = json;
      o.print = printValues;
      o.run = run;
      return mmrun::runGraph(plan, o, llvm::outs());
    }
    if (inputIds.empty())
      mm::rt::fail("nothing to run: give --prompt (and --image) or --chat to generate text, "
                   "--input-ids (and --pixel-values) to generate tokens, --input or --input-dir "
                   "to run one graph, or --info");
    mmrun::GenerateOptions o;
    o.pixelValues = pixelValues;
    o.imageGridThw = imageGridThw;
    o.images = std::vector<std::string>(images.begin(), images.end());
    o.inputIds = inputIds;
    o.maxNewTokens = maxNewTokens;
    o.kvCapacity = kvCapacity;
    o.dumpDir = dumpDir;
    if (teacherTokens.getNumOccurrences() > 0 && teacherTokens.empty())
      mm::rt::fail("--teacher-tokens is empty (give the ids decode steps 1.. feed)");
    o.teacherTokens = teacherTokens;
    o.sampling = sampling.over(mm::rt::GenerationDefaults());
    o.ignoreEos = ignoreEos;
    o.warmup = warmup;
    o.json = json;
    o.run = run;
    return mmrun::runGenerate(plan, o, llvm::outs());
  } catch (const std::exception &e) {
    llvm::outs().flush();
    llvm::WithColor::error(llvm::errs(), "mmrun") << e.what() << "\n";
    return 1;
  }
}

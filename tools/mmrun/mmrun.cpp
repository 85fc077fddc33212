//===- mmrun.cpp - run a compiled mmc plan ---------------------------------===//
//
//   mmrun plan.fb [--pixel-values x.npy] [--input-ids 1,300,...] [--max-new-tokens N]
//                 [--device cpu|cuda] [--json] [--output-dir DIR]
//
//===----------------------------------------------------------------------===//
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

static cl::opt<std::string> planPath(cl::Positional, cl::Required, cl::desc("<plan.fb>"));
static cl::opt<std::string> pixelValues("pixel-values", cl::desc("Image input as .npy [1,3,H,W] f32"),
                                        cl::value_desc("file.npy"));
static cl::opt<std::string> inputIds("input-ids", cl::desc("Prompt token ids, comma separated"),
                                     cl::value_desc("1,300,..."));
static cl::opt<unsigned> maxNewTokens("max-new-tokens", cl::init(16),
                                      cl::desc("Number of tokens to generate"));
static cl::opt<std::string> device("device", cl::init("cpu"), cl::desc("cpu or cuda"));
static cl::opt<bool> json("json", cl::desc("Print results and timings as JSON"));
static cl::opt<std::string> outputDir("output-dir", cl::desc("Write single-graph outputs here"),
                                      cl::value_desc("dir"));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::SetVersionPrinter([](llvm::raw_ostream &os) { os << "mmrun " MM_VERSION "\n"; });
  cl::ParseCommandLineOptions(argc, argv, "mmrun: run a plan compiled by mmc\n");
  llvm::WithColor::error(llvm::errs(), "mmrun")
      << "running plans is not implemented yet (the plan loader and CPU runtime); cannot run '"
      << planPath << "'\n";
  return 1;
}

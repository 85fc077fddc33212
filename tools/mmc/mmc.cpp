//===- mmc.cpp - the mmc compiler driver -----------------------------------===//
//
//   mmc import  <model.onnx | folder> [-o out.mlir] [--no-fold] [--stats]   ONNX -> `mm`
//   mmc compile <model | file.mlir> -o plan.fb [--target cpu|cuda] [--dtype auto|f32|f16|bf16]
//               [--bind NAME=VALUE[,VALUE...]]
//               [--config config.json] [--stats] [--no-fusion]
//   mmc tokenize <folder | tokenizer.json> --file F [--add-special-tokens] [--decode]
//
//===----------------------------------------------------------------------===//
#include "compiler/import/onnx/OnnxImporter.h"
#include "compiler/support/OpStats.h"
#include "compiler/transforms/Passes.h"
#include "tools/mmc/Compile.h"
#include "tools/mmc/Tokenize.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

static cl::SubCommand importCmd("import", "Import a model (ONNX file or folder, or a Hugging "
                                          "Face folder) into the mm dialect");
static cl::SubCommand compileCmd("compile", "Compile a model into a plan file for mmrun");
static cl::SubCommand tokenizeCmd("tokenize", "Encode (or decode) lines of text with a model "
                                              "folder's tokenizer.json, without a model");

static cl::opt<std::string> importInput(cl::Positional, cl::Required, cl::sub(importCmd),
                                        cl::desc("<model.onnx | folder>"));
static cl::opt<std::string> importOutput("o", cl::sub(importCmd), cl::init("-"),
                                         cl::desc("Output .mlir file (default: stdout)"),
                                         cl::value_desc("file"));
static cl::opt<std::string> importFrom("from", cl::sub(importCmd), cl::init("auto"),
                                       cl::desc("Importer: auto (ONNX when the folder has ONNX "
                                                "graphs, else config.json + safetensors), "
                                                "onnx or hf"));
static cl::opt<bool> importStats("stats", cl::sub(importCmd),
                                 cl::desc("Print op counts per function to stderr"));
static cl::opt<bool> importDebugInfo("mlir-print-debuginfo", cl::sub(importCmd),
                                     cl::desc("Print op locations (file and ONNX node)"));
static cl::opt<bool> importNoFold("no-fold", cl::sub(importCmd),
                                  cl::desc("Print the graphs as imported, without running "
                                           "-mm-fold-shapes on them"));

static cl::opt<std::string> compileInput(cl::Positional, cl::Required, cl::sub(compileCmd),
                                         cl::desc("<model.onnx | folder | file.mlir>"));
static cl::opt<std::string> compileOutput("o", cl::sub(compileCmd), cl::Required,
                                          cl::desc("Output plan file"), cl::value_desc("plan.fb"));
static cl::opt<std::string> compileFrom("from", cl::sub(compileCmd), cl::init("auto"),
                                        cl::desc("Importer: auto (ONNX when the folder has ONNX "
                                                 "graphs, else config.json + safetensors), "
                                                 "onnx or hf"));
static cl::opt<std::string> compileTarget("target", cl::sub(compileCmd), cl::init("cpu"),
                                          cl::desc("Target backend: cpu or cuda"));
static cl::opt<std::string> compileDtype("dtype", cl::sub(compileCmd), cl::init("auto"),
                                         cl::desc("Compute dtype: auto (a Hugging Face config's "
                                                  "dtype, else the weights' own float type), f32, "
                                                  "f16 or bf16"));
static cl::opt<std::string> compileConfig("config", cl::sub(compileCmd),
                                          cl::desc("config.json with generation metadata "
                                                   "(default: next to the model)"),
                                          cl::value_desc("file"));
static cl::opt<bool> compileStats("stats", cl::sub(compileCmd),
                                  cl::desc("Print op counts and plan statistics to stderr"));
static cl::opt<bool> compileNoFusion("no-fusion", cl::sub(compileCmd),
                                     cl::desc("Do not run the fusion passes"));
static cl::list<std::string> compileBind(
    "bind", cl::sub(compileCmd), cl::value_desc("NAME=VALUE[,VALUE...]"),
    cl::desc("Replace graph input NAME by a constant (a shape parameter, a branch "
             "condition); repeatable"));

static cl::opt<std::string> tokenizeInput(cl::Positional, cl::Required, cl::sub(tokenizeCmd),
                                          cl::desc("<folder | tokenizer.json>"));
static cl::opt<std::string> tokenizeFile("file", cl::sub(tokenizeCmd), cl::Required,
                                         cl::desc("Input: one JSON string per line (with "
                                                  "--decode, one JSON array of ids)"),
                                         cl::value_desc("file"));
static cl::opt<bool> tokenizeSpecial("add-special-tokens", cl::sub(tokenizeCmd),
                                     cl::desc("Add the post-processor's special tokens "
                                              "(e.g. Llama-2's <s>)"));
static cl::opt<bool> tokenizeDecode("decode", cl::sub(tokenizeCmd),
                                    cl::desc("Decode id arrays to JSON strings instead"));

/// `mmc import`: ONNX file or folder -> mm dialect, shape-folded (-mm-fold-shapes) unless
/// --no-fold, printed to stdout or written to -o atomically (a temporary file renamed into
/// place; nothing is written on failure). --stats prints op counts per function to stderr,
/// as imported and after folding.
static int runImport() {
  mlir::MLIRContext ctx;
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &ctx);
  auto module = mm::importModel(importInput, importFrom, {}, ctx, sourceMgr);
  if (!module)
    return 1;
  std::vector<mm::FunctionOpCounts> imported;
  if (importStats)
    imported = mm::countOpsPerFunction(*module);
  if (!importNoFold) {
    mlir::PassManager pm(&ctx);
    pm.addNestedPass<mlir::func::FuncOp>(mm::createFoldShapes());
    if (mlir::failed(pm.run(*module)))
      return 1;
  }
  if (importStats && importNoFold)
    mm::printOpCounts(llvm::errs(), imported);
  else if (importStats)
    mm::printOpCountChanges(llvm::errs(), imported, mm::countOpsPerFunction(*module),
                            "imported", "folded");
  mlir::OpPrintingFlags flags;
  if (importDebugInfo)
    flags.enableDebugInfo();
  if (llvm::Error err = llvm::writeToOutput(importOutput, [&](llvm::raw_ostream &os) {
        module->print(os, flags);
        return llvm::Error::success();
      })) {
    llvm::WithColor::error(llvm::errs(), "mmc")
        << "cannot write '" << importOutput << "': " << llvm::toString(std::move(err)) << "\n";
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::SetVersionPrinter([](llvm::raw_ostream &os) { os << "mmc " MM_VERSION "\n"; });
  // mmc's options belong to its subcommands: LLVM's own stay accepted but out of --help.
  cl::HideUnrelatedOptions(llvm::ArrayRef<const cl::OptionCategory *>{});
  cl::ParseCommandLineOptions(argc, argv,
                              "mmc: ahead-of-time compiler for multimodal transformer models\n");
  if (importCmd)
    return runImport();
  if (compileCmd) {
    mm::CompileRequest request;
    request.input = compileInput;
    request.output = compileOutput;
    request.target = compileTarget;
    request.dtype = compileDtype;
    request.config = compileConfig;
    request.from = compileFrom;
    request.stats = compileStats;
    request.fusion = !compileNoFusion;
    request.bindings.assign(compileBind.begin(), compileBind.end());
    return mm::runCompile(request);
  }
  if (tokenizeCmd)
    return mm::runTokenize({tokenizeInput, tokenizeFile, tokenizeSpecial, tokenizeDecode});
  llvm::WithColor::error(llvm::errs(), "mmc") << "no subcommand given; see 'mmc --help'\n";
  return 1;
}

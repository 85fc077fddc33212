//===- Compile.cpp - `mmc compile` -------------------------------------------===//
#include "tools/mmc/Compile.h"

#include "compiler/import/hf/HfImporter.h"
#include "compiler/import/onnx/OnnxImporter.h"
#include "compiler/pipeline/Pipeline.h"
#include "compiler/plan/PlanEmitter.h"
#include "compiler/support/OpStats.h"
#include "tools/mmc/FusionReport.h"
#include "mm/MMDialect.h"
#include "runtime/plan/PlanFormat.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <fstream>

namespace mm {
namespace {

int usageError(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "mmc") << message << "\n";
  return 1;
}

} // namespace

mlir::OwningOpRef<mlir::ModuleOp> importModel(const std::string &input, const std::string &from,
                                              const ImportOptions &options, mlir::MLIRContext &ctx,
                                              llvm::SourceMgr &sourceMgr) {
  if (from != "auto" && from != "onnx" && from != "hf") {
    usageError("unknown --from '" + from + "' (expected auto, onnx or hf)");
    return nullptr;
  }
  if (llvm::StringRef(input).ends_with(".mlir"))
    return mlir::parseSourceFile<mlir::ModuleOp>(input, sourceMgr, &ctx);
  // auto: a folder without ONNX graphs but with a config.json is a Hugging Face folder (the
  // HF importer then says what else it lacks).
  const bool hf = from == "hf" || (from == "auto" && llvm::sys::fs::is_directory(input) &&
                                   !holdsOnnxGraphs(input) &&
                                   llvm::sys::fs::exists(input + "/config.json"));
  if (hf && !options.bindings.empty()) {
    usageError("--bind applies to ONNX models, not to the Hugging Face folder '" + input + "'");
    return nullptr;
  }
  if (from == "auto" && !hf && llvm::sys::fs::is_directory(input) && !holdsOnnxGraphs(input)) {
    mlir::emitError(mlir::FileLineColLoc::get(&ctx, input, 0, 0))
        << "folder '" << input << "' holds no .onnx file (looked in it and in its onnx/ "
        << "subfolder) and no config.json (a Hugging Face folder: config.json and safetensors)";
    return nullptr;
  }
  auto module = hf ? importHfFolder(input, ctx) : importOnnx(input, ctx, options);
  if (mlir::failed(module))
    return nullptr;
  return std::move(*module);
}

namespace {

int compile(const CompileRequest &r) {
  if (r.target != "cpu" && r.target != "cuda")
    return usageError("unknown --target '" + r.target + "' (expected cpu or cuda)");
  if (r.dtype != "auto" && r.dtype != "f32" && r.dtype != "f16" && r.dtype != "bf16")
    return usageError("unknown --dtype '" + r.dtype + "' (expected auto, f32, f16 or bf16)");
  if (!llvm::sys::fs::exists(r.input))
    return usageError("no such file or folder: '" + r.input + "'");
  ImportOptions importOptions;
  if (std::string bad = parseBindings(r.bindings, importOptions.bindings); !bad.empty())
    return usageError(bad);
  if (!importOptions.bindings.empty() && llvm::StringRef(r.input).ends_with(".mlir"))
    return usageError("--bind applies to ONNX models, not to '" + r.input + "'");

  mlir::DialectRegistry registry;
  registry.insert<MMDialect, mlir::func::FuncDialect>();
  mlir::MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &ctx);

  mlir::OwningOpRef<mlir::ModuleOp> module = importModel(r.input, r.from, importOptions, ctx, sourceMgr);
  if (!module || mlir::failed(mlir::verify(*module)))
    return 1;
  if (r.stats) {
    llvm::errs() << "imported:\n";
    printOpCounts(llvm::errs(), countOpsPerFunction(*module));
  }
  PipelineOptions pipeline;
  pipeline.fusion = r.fusion;
  pipeline.reportNearMisses = true;
  NearMissCollector nearMisses(&ctx);
  pipeline.target = r.target;
  pipeline.dtype = r.dtype == "auto" ? modelFloatType(*module) : r.dtype;
  if (r.stats)
    llvm::errs() << "dtype: " << pipeline.dtype << (r.dtype == "auto" ? " (auto: the model's float type)" : "")
                 << "\n";
  std::vector<std::string> passes;
  if (mlir::failed(runCompilePipeline(*module, pipeline, &passes)))
    return 1;
  if (r.stats) {
    llvm::errs() << "after passes:";
    for (const std::string &p : passes)
      llvm::errs() << " " << p;
    llvm::errs() << "\n";
    printOpCounts(llvm::errs(), countOpsPerFunction(*module));
    printNearMisses(llvm::errs(), nearMisses.nearMisses());
  }
  warnAboutDecoders(*module, nearMisses.nearMisses(), r.target == "cuda");
  PlanEmitOptions emit;
  emit.target = r.target;
  emit.producer = "mmc " MM_VERSION;
  emit.modelPath = r.input;
  emit.configPath = r.config;
  emit.computeDType = pipeline.dtype;
  PlanStats stats;
  if (mlir::failed(emitPlan(*module, emit, r.output, &stats)))
    return 1;
  if (r.stats)
    stats.print(llvm::errs());
  return 0;
}

} // namespace

std::string parseBindings(const std::vector<std::string> &specs,
                          std::map<std::string, std::vector<double>> &out) {
  for (const std::string &spec : specs) {
    auto [name, list] = llvm::StringRef(spec).split('=');
    if (name.empty() || list.empty())
      return "--bind '" + spec + "': expected NAME=VALUE[,VALUE...]";
    if (out.count(name.str()))
      return "--bind: input '" + name.str() + "' is bound twice";
    std::vector<double> &values = out[name.str()];
    llvm::SmallVector<llvm::StringRef> items;
    list.split(items, ',');
    for (llvm::StringRef item : items) {
      item = item.trim();
      double v;
      if (item == "true")
        v = 1;
      else if (item == "false")
        v = 0;
      else if (item.getAsDouble(v))
        return "--bind " + name.str() + ": '" + item.str() + "' is not a number (nor true / false)";
      values.push_back(v);
    }
  }
  return "";
}

namespace {

/// True when `path` is a regular file that starts with the plan magic.
bool isPlanFile(const std::string &path) {
  if (!llvm::sys::fs::is_regular_file(path))
    return false;
  std::ifstream in(path, std::ios::binary);
  char magic[sizeof(plan::kPlanMagic)] = {};
  return in.read(magic, sizeof(magic)) && std::memcmp(magic, plan::kPlanMagic, sizeof(magic)) == 0;
}

/// Whether `path` names an existing file inside folder `dir` (or below it).
bool isFileInFolder(const std::string &path, const std::string &dir) {
  if (!llvm::sys::fs::is_directory(dir) || !llvm::sys::fs::exists(path) ||
      llvm::sys::fs::is_directory(path))
    return false;
  llvm::SmallString<256> parent(path);
  llvm::sys::fs::make_absolute(parent);
  for (llvm::sys::path::remove_filename(parent); !parent.empty();
       llvm::sys::path::remove_filename(parent)) {
    if (llvm::sys::fs::equivalent(parent, dir))
      return true;
    if (llvm::sys::path::parent_path(parent) == parent)
      break;
  }
  return false;
}

} // namespace

int runCompile(const CompileRequest &request) {
  // `-o` naming the model itself would replace it (or, on failure, delete it); so would one
  // naming a file of the model's folder (its config.json, a weight file) that is no plan.
  if (llvm::sys::fs::equivalent(request.output, request.input))
    return usageError("the output '" + request.output + "' is the input model; choose another -o");
  if (isFileInFolder(request.output, request.input) && !isPlanFile(request.output))
    return usageError("the output '" + request.output + "' is a file of the model folder '" +
                      request.input + "'; choose another -o");
  int rc = compile(request);
  // The plan is written through a temporary file, so a failure leaves none; a stale plan of
  // the same name is removed (as a C compiler does): only a file that is a plan, never a
  // directory, a special file, or anything else the output path may name.
  if (rc != 0 && isPlanFile(request.output))
    llvm::sys::fs::remove(request.output);
  return rc;
}

} // namespace mm

//===- OnnxImporter.cpp - ONNX models into the `mm` dialect ---------------===//
#include "compiler/import/onnx/OnnxImporter.h"

#include "compiler/import/onnx/GraphImporter.h"

#include <set>
#include "compiler/import/onnx/ModelLoader.h"
#include "mm/MMDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace mlir;

namespace mm {

namespace {

/// The graphs of a model folder, in the order of the generation pipeline.
constexpr const char *kFolderGraphs[] = {"vision_encoder", "embed_tokens", "decoder_model_merged"};

/// The .onnx files directly in `dir`, sorted by name.
std::vector<std::string> onnxFilesIn(StringRef dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec))
    if (llvm::sys::path::extension(it->path()) == ".onnx" &&
        it->type() != llvm::sys::fs::file_type::directory_file)
      out.push_back(it->path());
  std::sort(out.begin(), out.end());
  return out;
}

/// The graph files a path stands for: the file itself, or the known graphs of a folder
/// (or of its onnx/ subfolder), or else every .onnx file there.
FailureOr<std::vector<std::string>> graphFiles(StringRef path, Location loc) {
  if (!llvm::sys::fs::exists(path))
    return emitError(loc) << "'" << path << "' does not exist";
  if (!llvm::sys::fs::is_directory(path))
    return std::vector<std::string>{path.str()};
  llvm::SmallString<256> sub(path);
  llvm::sys::path::append(sub, "onnx");
  for (StringRef dir : {path, StringRef(sub)}) {
    std::vector<std::string> files;
    for (const char *graph : kFolderGraphs) {
      llvm::SmallString<256> f(dir);
      llvm::sys::path::append(f, Twine(graph) + ".onnx");
      if (llvm::sys::fs::exists(f))
        files.push_back(f.str().str());
    }
    if (files.empty())
      files = onnxFilesIn(dir);
    if (!files.empty())
      return files;
  }
  return emitError(loc) << "folder '" << path << "' holds no .onnx file (looked in it and in its "
                        << "onnx/ subfolder)";
}

} // namespace

bool holdsOnnxGraphs(StringRef folder) {
  llvm::SmallString<256> sub(folder);
  llvm::sys::path::append(sub, "onnx");
  return !onnxFilesIn(folder).empty() || !onnxFilesIn(sub).empty();
}

FailureOr<OwningOpRef<ModuleOp>> importOnnx(StringRef path, MLIRContext &ctx,
                                            const ImportOptions &options) {
  ctx.loadDialect<MMDialect, func::FuncDialect>();
  Location loc = FileLineColLoc::get(&ctx, path, 0, 0);
  auto files = graphFiles(path, loc);
  if (failed(files))
    return failure();

  std::vector<std::unique_ptr<onnx_import::LoadedModel>> models;
  std::set<std::string> inputs; // of every graph, to check the bindings before importing
  for (const std::string &file : *files) {
    auto model = onnx_import::loadModel(file, FileLineColLoc::get(&ctx, file, 0, 0));
    if (failed(model))
      return failure();
    std::set<std::string> initializers; // IR version 3 lists them as inputs too
    for (const auto &init : (*model)->initializers)
      initializers.insert(init.proto.name());
    for (const auto &input : (*model)->model.graph().input())
      if (!initializers.count(input.name()))
        inputs.insert(input.name());
    models.push_back(std::move(*model));
  }
  for (const auto &[name, values] : options.bindings)
    if (!inputs.count(name))
      return emitError(loc) << "--bind " << name << ": no graph of '" << path
                            << "' has an input named '" << name << "'";

  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  for (const auto &model : models) {
    StringRef stem = llvm::sys::path::stem(model->path);
    if (module->lookupSymbol(stem))
      return emitError(loc) << "two graphs named '" << stem << "'";
    if (failed(onnx_import::GraphImporter(*model, stem, *module, options.bindings).run()))
      return failure();
  }
  if (failed(verify(*module)))
    return failure();
  return module;
}

} // namespace mm

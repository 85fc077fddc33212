//===- CaseRunner.cpp - one conformance case through mmc and the CPU runtime ===//
#include "tools/mmc-conformance/CaseRunner.h"

#include "tools/mmc-conformance/BindInputs.h"

#include "compiler/import/onnx/OnnxImporter.h"
#include "compiler/pipeline/Pipeline.h"
#include "compiler/plan/PlanEmitter.h"
#include "mm/MMDialect.h"
#include "runtime/core/Error.h"
#include "runtime/exec/Executor.h"
#include "runtime/io/Compare.h"
#include "runtime/io/TensorProto.h"
#include "runtime/plan/Plan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include "onnx.pb.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <sstream>

namespace fs = std::filesystem;
using namespace mm::rt;

namespace mmconf {

Tolerance tolerance(DType t) {
  switch (t) {
  case DType::f32:
  case DType::f64: return {1e-5, 1e-3};
  case DType::f16: return {1e-3, 4e-3};
  case DType::bf16: return {1e-2, 3e-2};
  default: return {0, 0};
  }
}

namespace {

/// Longest message kept per case (one line in expected.tsv and the docs).
constexpr size_t kMaxMessage = 400;

bool mentionsUnsupported(const std::string &text) {
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return lower.find("unsupported") != std::string::npos ||
         lower.find("not supported") != std::string::npos;
}

/// The ONNX node name of an op location (NameLoc around the file), or "".
std::string nodeName(mlir::Location loc) {
  if (auto name = mlir::dyn_cast<mlir::NameLoc>(loc))
    return name.getName().str();
  if (auto fused = mlir::dyn_cast<mlir::FusedLoc>(loc))
    for (mlir::Location inner : fused.getLocations())
      if (std::string n = nodeName(inner); !n.empty())
        return n;
  return "";
}

/// Files `<prefix>_<k>.pb` of `dir`, ordered by k.
std::vector<std::string> numberedFiles(const std::string &dir, const std::string &prefix) {
  std::regex re(prefix + "_([0-9]+)\\.pb");
  std::vector<std::pair<int, std::string>> found;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::smatch m;
    std::string file = it->path().filename().string();
    if (std::regex_match(file, m, re))
      found.emplace_back(std::stoi(m[1].str()), it->path().string());
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < found.size(); ++i) {
    if (found[i].first != static_cast<int>(i))
      fail("'", dir, "' has ", prefix, "_", found[i].first, ".pb but no ", prefix, "_", i, ".pb");
    out.push_back(found[i].second);
  }
  return out;
}

/// A failure of one stage; `unsupported` when the text says so.
struct StageError {
  std::string stage, message;
};

/// What one case compiles and runs with.
struct CaseFiles {
  std::string modelPath;               ///< the case's model.onnx
  onnx::ModelProto model;
  std::vector<std::string> inputNames; ///< graph inputs (not initializers), in order
  std::vector<std::string> inputFiles; ///< input_<k>.pb, in the same order
  std::vector<std::string> outputFiles;
  std::map<std::string, std::string> bound; ///< inputs bound at compile time -> file
};

} // namespace

struct CaseRunner::Impl {
  std::string tmpDir, rootPrefix;
  mlir::MLIRContext ctx;
  std::vector<std::string> diagnostics;  ///< errors of the current stage
  mlir::ScopedDiagnosticHandler handler;

  Impl(std::string tmp, std::string prefix)
      : tmpDir(std::move(tmp)), rootPrefix(std::move(prefix)),
        ctx(makeRegistry(), mlir::MLIRContext::Threading::DISABLED),
        handler(&ctx, [this](mlir::Diagnostic &d) { return collect(d); }) {
    ctx.loadAllAvailableDialects();
  }

  static mlir::DialectRegistry makeRegistry() {
    mlir::DialectRegistry registry;
    registry.insert<mm::MMDialect, mlir::func::FuncDialect>();
    return registry;
  }

  mlir::LogicalResult collect(mlir::Diagnostic &d) {
    if (d.getSeverity() != mlir::DiagnosticSeverity::Error)
      return mlir::success();
    std::string text = d.str();
    std::string node = nodeName(d.getLocation());
    // Importer messages name their node already; others (passes, emitter) get it here.
    if (!node.empty() && text.find(node) == std::string::npos)
      text = "at node '" + node + "': " + text;
    for (const mlir::Diagnostic &note : d.getNotes())
      if (!llvm::StringRef(note.str()).starts_with("see current operation"))
        text += " (note: " + note.str() + ")";
    diagnostics.push_back(std::move(text));
    return mlir::success();
  }

  /// The collected diagnostics as one line, or `fallback` when there are none.
  std::string takeDiagnostics(const std::string &fallback) {
    std::string out;
    for (const std::string &d : diagnostics)
      out += (out.empty() ? "" : " | ") + d;
    diagnostics.clear();
    return out.empty() ? fallback : out;
  }

  std::string clean(std::string text) const {
    for (const std::string &prefix : {rootPrefix, tmpDir + "/"})
      for (size_t pos; !prefix.empty() && (pos = text.find(prefix)) != std::string::npos;)
        text.erase(pos, prefix.size());
    for (char &ch : text)
      if (ch == '\n' || ch == '\t' || ch == '\r')
        ch = ' ';
    if (text.size() > kMaxMessage)
      text = text.substr(0, kMaxMessage - 3) + "...";
    return text;
  }

  /// Reads the case's model and lists its data files.
  CaseFiles caseFiles(const Case &c) {
    CaseFiles f;
    f.modelPath = (fs::path(c.dir) / "model.onnx").string();
    f.model = readModel(f.modelPath);
    f.inputNames = graphInputs(f.model);
    std::string data = (fs::path(c.dir) / "test_data_set_0").string();
    f.inputFiles = numberedFiles(data, "input");
    f.outputFiles = numberedFiles(data, "output");
    if (f.inputFiles.size() != f.inputNames.size())
      fail("the case has ", f.inputFiles.size(), " input files for ", f.inputNames.size(),
           " graph inputs");
    return f;
  }

  /// Imports the case; when the importer asks for a graph input to be a compile-time
  /// constant (BindInputs.h), binds it to the test's value and imports again.
  mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>> importCase(const Case &c, CaseFiles &f,
                                                               std::string &modelUsed,
                                                               std::optional<StageError> &error) {
    modelUsed = f.modelPath;
    while (true) {
      diagnostics.clear();
      auto module = mm::importOnnx(modelUsed, ctx);
      if (mlir::succeeded(module))
        return module;
      std::string message = takeDiagnostics("importOnnx failed without a diagnostic");
      std::string name = inputToBind(f.model, message);
      if (name.empty() || f.bound.count(name)) {
        error = StageError{"import", message};
        return mlir::failure();
      }
      size_t index = std::find(f.inputNames.begin(), f.inputNames.end(), name) - f.inputNames.begin();
      f.bound[name] = f.inputFiles[index];
      std::string dir = (fs::path(tmpDir) / c.name).string();
      fs::create_directories(dir);
      modelUsed = (fs::path(dir) / "model.onnx").string();
      writeBoundModel(f.model, f.bound, modelUsed);
    }
  }

  /// Compiles the case to `planPath`; a StageError on failure.
  std::optional<StageError> compile(const Case &c, CaseFiles &f, const std::string &planPath) {
    std::string model;
    std::optional<StageError> importError;
    auto module = importCase(c, f, model, importError);
    if (mlir::failed(module))
      return importError;
    if (mlir::failed(mlir::verify(**module)))
      return StageError{"verify", takeDiagnostics("the imported module does not verify")};
    mm::PipelineOptions pipeline;
    if (mlir::failed(mm::runCompilePipeline(**module, pipeline)))
      return StageError{"compile", takeDiagnostics("the pass pipeline failed")};
    mm::PlanEmitOptions emit;
    emit.producer = "mmc-conformance";
    emit.modelPath = model;
    if (mlir::failed(mm::emitPlan(**module, emit, planPath)))
      return StageError{"emit", takeDiagnostics("emitPlan failed")};
    return std::nullopt;
  }

  /// Loads the plan, runs it on the case's inputs (except those bound at compile time)
  /// and compares the outputs; returns the failure message or "" when every output
  /// matches.
  std::string execute(const CaseFiles &f, const std::string &planPath, std::string &stage,
                      CaseResult &result) {
    stage = "load";
    std::shared_ptr<const Plan> plan = Plan::load(planPath);
    if (plan->functions().size() != 1)
      fail("the plan has ", plan->functions().size(), " functions, expected 1");
    Executor ex(plan, plan->functions()[0].name);
    const FunctionInfo &fn = ex.function();
    result.noRuntimeOps = fn.ops.empty();

    stage = "inputs";
    std::vector<Tensor> inputs;
    for (size_t i = 0; i < f.inputNames.size(); ++i)
      if (!f.bound.count(f.inputNames[i]))
        inputs.push_back(io::readTensorProto(f.inputFiles[i]).tensor);
    if (inputs.size() != fn.inputs.size())
      fail("the case feeds ", inputs.size(), " inputs, the function has ", fn.inputs.size());

    stage = "run";
    std::vector<Tensor> outputs = ex.run(inputs);

    stage = "compare";
    if (f.outputFiles.size() != outputs.size())
      fail("the case has ", f.outputFiles.size(), " output files, the function has ",
           outputs.size(), " outputs");
    std::string mismatches;
    for (size_t i = 0; i < outputs.size(); ++i) {
      Tensor want = io::readTensorProto(f.outputFiles[i]).tensor;
      Tolerance tol = tolerance(want.dtype);
      io::CompareResult r = io::compareTensors(outputs[i], want, tol.atol, tol.rtol);
      if (!r.ok)
        mismatches += (mismatches.empty() ? "" : "; ") + std::string("output ") +
                      std::to_string(i) + " ('" + fn.outputs[i].name + "'): " + r.message;
    }
    return mismatches;
  }

  CaseResult run(const Case &c) {
    CaseResult result;
    std::string planPath = (fs::path(tmpDir) / (c.name + ".plan")).string();
    std::string stage = "import";
    CaseFiles files;
    try {
      files = caseFiles(c);
      if (auto err = compile(c, files, planPath)) {
        result.status = mentionsUnsupported(err->message) ? Status::unsupported : Status::failed;
        result.message = result.status == Status::unsupported
                             ? err->message
                             : err->stage + ": " + err->message;
      } else {
        std::string mismatch = execute(files, planPath, stage, result);
        result.status = mismatch.empty() ? Status::passed : Status::failed;
        if (!mismatch.empty())
          result.message = "compare: " + mismatch;
      }
    } catch (const Error &e) {
      result.status = mentionsUnsupported(e.what()) ? Status::unsupported : Status::failed;
      result.message = stage + ": " + e.what();
    } catch (const std::exception &e) {
      result.status = Status::failed;
      result.message = stage + ": " + e.what();
    }
    diagnostics.clear();
    std::error_code ec;
    fs::remove(planPath, ec);
    fs::remove_all(fs::path(tmpDir) / c.name, ec);
    for (const auto &entry : files.bound)
      result.note += (result.note.empty() ? "bound at compile time: " : ", ") + entry.first;
    result.message = clean(result.message);
    return result;
  }
};

CaseRunner::CaseRunner(std::string tmpDir, std::string rootPrefix) {
  std::error_code ec;
  fs::create_directories(tmpDir, ec);
  impl_ = std::make_unique<Impl>(std::move(tmpDir), std::move(rootPrefix));
}

CaseRunner::~CaseRunner() = default;

CaseResult CaseRunner::run(const Case &c) {
  auto start = std::chrono::steady_clock::now();
  CaseResult r = impl_->run(c);
  r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return r;
}

} // namespace mmconf

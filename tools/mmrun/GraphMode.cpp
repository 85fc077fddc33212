//===- GraphMode.cpp - mmrun: run one function on tensor files --------------===//
#include "tools/mmrun/Modes.h"

#include "runtime/core/Error.h"
#include "runtime/io/Compare.h"
#include "runtime/io/Npy.h"
#include "runtime/io/TensorProto.h"

#include "llvm/Support/Format.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <regex>

using namespace mm::rt;
namespace fs = std::filesystem;

namespace mmrun {
namespace {

std::string chooseFunction(const Plan &plan, const std::string &requested) {
  if (!requested.empty())
    return plan.function(requested).name;
  if (plan.functions().size() == 1)
    return plan.functions()[0].name;
  std::string names;
  for (const FunctionInfo &f : plan.functions())
    names += (names.empty() ? "" : ", ") + f.name;
  fail("the plan has ", plan.functions().size(), " functions (", names,
       "); choose one with --function");
}

/// Files `<prefix>_<N>.pb` of `dir`, ordered by N.
std::vector<std::pair<int, std::string>> numberedFiles(const std::string &dir, const std::string &prefix) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    fail("'", dir, "' is not a directory");
  std::regex re(prefix + "_([0-9]+)\\.pb");
  std::vector<std::pair<int, std::string>> out;
  for (const fs::directory_entry &e : fs::directory_iterator(dir)) {
    std::smatch m;
    std::string file = e.path().filename().string();
    if (std::regex_match(file, m, re))
      out.emplace_back(std::stoi(m[1].str()), e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// Reads the --input and --input-dir tensors, by input name.
std::map<std::string, Tensor> readInputs(const FunctionInfo &fn, const GraphOptions &o) {
  std::map<std::string, Tensor> named;
  auto add = [&](std::string name, Tensor t, const std::string &file) {
    if (int i = fn.inputIndex(name); i >= 0) // float files convert to the input's float type
      t = toDeclaredFloat(fn.tensors[fn.inputs[static_cast<size_t>(i)].tensor], std::move(t));
    if (!named.emplace(name, std::move(t)).second)
      fail("input '", name, "' is given twice (again by '", file, "')");
  };
  for (const std::string &spec : o.inputs) {
    size_t eq = spec.find('=');
    std::string name, file = spec;
    if (eq != std::string::npos) {
      name = spec.substr(0, eq);
      file = spec.substr(eq + 1);
    }
    std::string stored;
    Tensor t = readTensorFile(file, &stored);
    // Without NAME=, a .pb names its input; a single-input function takes any file.
    if (name.empty() && fn.inputIndex(stored) >= 0)
      name = stored;
    if (name.empty() && fn.inputs.size() == 1)
      name = fn.inputs[0].name;
    if (name.empty())
      fail("cannot tell which input '", file, "' is: write --input NAME=", file);
    add(name, std::move(t), file);
  }
  if (!o.inputDir.empty()) {
    auto files = numberedFiles(o.inputDir, "input");
    if (files.empty())
      fail("no input_*.pb files in '", o.inputDir, "'");
    for (const auto &[index, file] : files) {
      std::string name;
      Tensor t = readTensorFile(file, &name);
      // By name when it is an input's, else by position (input_N is input N, as in ONNX).
      if (fn.inputIndex(name) < 0) {
        if (index >= static_cast<int>(fn.inputs.size()))
          fail("'", file, "' holds '", name, "', which is not an input of function '", fn.name,
               "', and the function has only ", fn.inputs.size(), " inputs");
        name = fn.inputs[static_cast<size_t>(index)].name;
      }
      add(name, std::move(t), file);
    }
  }
  return named;
}

std::string fileNameFor(const std::string &name) {
  std::string out = name;
  for (char &c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-')
      c = '_';
  return out;
}

void writeOutputs(const FunctionInfo &fn, const std::vector<Tensor> &outputs, const GraphOptions &o) {
  makeDirectories(o.outputDir);
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string base = (fs::path(o.outputDir) / fileNameFor(fn.outputs[i].name)).string();
    if (o.outputFormat != "pb")
      io::writeNpy(base + ".npy", outputs[i]);
    if (o.outputFormat != "npy")
      io::writeTensorProto(base + ".pb", fn.outputs[i].name, outputs[i]);
  }
}

/// Compares with output_*.pb of o.compareDir; prints one line per output. True if all match.
bool compareOutputs(const FunctionInfo &fn, const std::vector<Tensor> &outputs,
                    const GraphOptions &o, nlohmann::json &report, llvm::raw_ostream &os) {
  auto files = numberedFiles(o.compareDir, "output");
  if (files.empty())
    fail("no output_*.pb files in '", o.compareDir, "'");
  bool allOk = true;
  for (const auto &[index, file] : files) {
    std::string name;
    Tensor want = readTensorFile(file, &name);
    int i = fn.outputIndex(name) >= 0 ? fn.outputIndex(name) : index;
    if (i < 0 || i >= static_cast<int>(outputs.size()))
      fail("'", file, "' holds '", name, "', which is not an output of function '", fn.name, "'");
    const std::string &outName = fn.outputs[static_cast<size_t>(i)].name;
    io::CompareResult r = io::compareTensors(outputs[static_cast<size_t>(i)], want, o.atol, o.rtol);
    allOk &= r.ok;
    report["compare"].push_back({{"output", outName}, {"ok", r.ok}, {"max_abs_error", r.maxAbsError},
                                 {"mismatches", r.mismatches}});
    if (!o.json)
      os << "compare " << outName << ": " << (r.ok ? "ok" : "MISMATCH") << " (" << r.message << ")\n";
  }
  return allOk;
}


/// Runs the function `repeat` times on o.run.device; returns the outputs of the last run and
/// the wall times (ms) of the first run and of all runs.
template <typename Run>
std::vector<Tensor> timedRuns(const GraphOptions &o, Run run, double &firstMs, double &totalMs) {
  std::vector<Tensor> outputs;
  for (int r = 0; r < o.repeat; ++r) {
    auto start = std::chrono::steady_clock::now();
    outputs = run();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    totalMs += ms;
    if (r == 0)
      firstMs = ms;
  }
  return outputs;
}

} // namespace

int runGraph(std::shared_ptr<const Plan> plan, const GraphOptions &o, llvm::raw_ostream &os) {
  if (o.repeat < 1)
    fail("--repeat must be at least 1");
  if (o.outputFormat != "npy" && o.outputFormat != "pb" && o.outputFormat != "both")
    fail("unknown --output-format '", o.outputFormat, "' (expected npy, pb or both)");
  const FunctionInfo &fn = plan->function(chooseFunction(*plan, o.function));
  std::vector<Tensor> inputs = orderInputs(fn, readInputs(fn, o));
  Session session(plan, o.run);
  session.prepare(fn.name); // the timings are the runs' alone
  double totalMs = 0, firstMs = 0;
  std::vector<Tensor> outputs =
      timedRuns(o, [&] { return session.call(fn.name, inputs); }, firstMs, totalMs);
  const size_t arenaBytes = session.memory().arenaBytes;
  if (!o.outputDir.empty())
    writeOutputs(fn, outputs, o);

  nlohmann::json report;
  report["function"] = fn.name;
  for (size_t i = 0; i < outputs.size(); ++i)
    report["outputs"].push_back({{"name", fn.outputs[i].name},
                                 {"dtype", std::string(dtypeName(outputs[i].dtype))},
                                 {"shape", outputs[i].shape}});
  report["first_run_ms"] = firstMs;
  report["mean_run_ms"] = totalMs / o.repeat;
  report["runs"] = o.repeat;
  report["arena_bytes"] = arenaBytes;
  report["device"] = o.run.device;
  if (!o.json) {
    os << "function " << fn.name << ": " << llvm::format("%.3f", firstMs) << " ms";
    if (o.repeat > 1)
      os << " first run, " << llvm::format("%.3f", totalMs / o.repeat) << " ms mean of " << o.repeat;
    os << ", arena " << arenaBytes << " bytes (" << o.run.device << ")\n";
    for (size_t i = 0; i < outputs.size(); ++i)
      os << "  output " << fn.outputs[i].name << ": " << dtypeName(outputs[i].dtype) << " "
         << shapeString(outputs[i].shape) << (o.print ? " = " + valuesString(outputs[i]) : "")
         << "\n";
  }
  bool ok = o.compareDir.empty() || compareOutputs(fn, outputs, o, report, os);
  report["ok"] = ok;
  if (o.json)
    os << report.dump(1) << "\n";
  for (const ProfileReport &p : session.profiles())
    printProfile(p.ops, llvm::errs());
  if (!ok) {
    os.flush();
    llvm::errs() << "mmrun: error: outputs differ from '" << o.compareDir << "'\n";
    return 1;
  }
  return 0;
}

} // namespace mmrun

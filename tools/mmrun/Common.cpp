//===- Common.cpp - mmrun: device check, plan info, tensor files, profiles ---===//
#include "tools/mmrun/Modes.h"

#include "runtime/core/Error.h"
#include "runtime/core/Half.h"
#include "runtime/cuda/OpCapabilities.h"
#include "runtime/io/Npy.h"
#include "runtime/io/TensorProto.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <cstdio>

using namespace mm::rt;

namespace mmrun {

void checkDevice(const std::string &device) {
  const std::vector<std::string> have = Session::availableDevices();
  if (std::find(have.begin(), have.end(), device) != have.end())
    return;
  if (device == "cuda")
    fail("--device cuda: this mmrun was built without the CUDA backend (no nvcc at build "
         "time); use --device cpu");
  fail("unknown --device '", device, "' (expected cpu or cuda)");
}

static void printValues(const FunctionInfo &fn, const std::vector<ValueInfo> &values,
                        const char *what, llvm::raw_ostream &os) {
  for (const ValueInfo &v : values) {
    os << "    " << what << " " << v.name << ": " << signatureString(fn.tensors[v.tensor]);
    if (v.role != ValueRole::none)
      os << " (role " << roleName(v.role) << ")";
    os << "\n";
  }
}

/// The CUDA placement of `fn`'s ops and its CUDA-graph segments, if it was planned
/// (-mm-plan-cuda-graphs; docs/cuda-graphs.md).
static void printPlacement(const FunctionInfo &fn, llvm::raw_ostream &os) {
  size_t host = 0, device = 0;
  for (const OpInfo &op : fn.ops) {
    host += op.placement == Placement::host;
    device += op.placement == Placement::device;
  }
  if (host + device == 0)
    return;
  os << "    cuda placement: " << host << " host ops, " << device << " device ops, "
     << fn.segments.size() << " CUDA-graph segments\n";
  for (size_t i = 0; i < fn.segments.size(); ++i) {
    const SegmentInfo &s = fn.segments[i];
    os << "    segment " << i << ": ops " << s.firstOp << ".." << s.lastOp << ", ends: "
       << s.endReason << "\n";
  }
  std::string fused;
  for (const cuda::CudaFusionName &n : cuda::kCudaFusions) {
    const size_t count = std::count_if(fn.ops.begin(), fn.ops.end(), [&](const OpInfo &op) {
      return (op.fusion & static_cast<uint8_t>(n.fusion)) != 0;
    });
    if (count > 0)
      fused += (fused.empty() ? "" : ", ") + std::string(n.name) + " " + std::to_string(count);
  }
  if (!fused.empty())
    os << "    fused launches (ops): " << fused << "\n";
}

int printInfo(const Plan &plan, llvm::raw_ostream &os) {
  os << "plan " << plan.origin() << ": format " << plan.formatVersion() << ", producer '"
     << plan.producer() << "', target " << plan.target() << ", weights "
     << plan.weightBytes() << " bytes\n";
  for (const FunctionInfo &fn : plan.functions()) {
    size_t activations = std::count_if(fn.tensors.begin(), fn.tensors.end(), [](const TensorInfo &t) {
      return t.kind == TensorKind::activation;
    });
    os << "  function " << fn.name << ": " << fn.ops.size() << " ops, " << fn.tensors.size()
       << " tensors (" << activations << " activations), " << fn.kvSlots.size()
       << " KV-cache slots";
    if (fn.role != FunctionRole::none)
      os << ", role " << roleName(fn.role);
    if (!fn.kvSlots.empty())
      os << ", KV cache contiguous (axes: batch " << fn.kvLayout.batchAxis << ", heads "
         << fn.kvLayout.headsAxis << ", sequence " << fn.kvLayout.sequenceAxis << ", head dim "
         << fn.kvLayout.headDimAxis << ")";
    os << "\n";
    printValues(fn, fn.inputs, "input", os);
    printValues(fn, fn.outputs, "output", os);
    printPlacement(fn, os);
  }
  const GenerationInfo &g = plan.generation();
  if (g.present) {
    os << "  generation: vision '" << g.visionFunction << "', embed '" << g.embedFunction
       << "', decoder '" << g.decoderFunction << "', image token " << g.imageTokenId
       << ", eos [";
    for (size_t i = 0; i < g.eosTokenIds.size(); ++i)
      os << (i ? ", " : "") << g.eosTokenIds[i];
    os << "], hidden " << g.hiddenSize << ", vocab " << g.vocabSize << ", layers "
       << g.numLayers << ", kv heads " << g.numKvHeads << ", head dim " << g.headDim
       << ", max positions " << g.maxPositions << "\n";
  }
  const std::vector<std::string> files = plan.modelFileNames();
  if (!files.empty()) {
    os << "  model files:";
    for (const std::string &f : files)
      os << " " << f << " (" << plan.modelFile(f)->size() << " bytes)";
    os << "\n";
  }
  return 0;
}

Tensor toDeclaredFloat(const TensorInfo &want, Tensor t) {
  bool convert = isFloat(t.dtype) && isFloat(want.dtype) && want.dtype != DType::f64 &&
                 t.dtype != want.dtype && fitsDeclaredShape(want, t.shape);
  return convert ? convertFloat(t, want.dtype) : t;
}

Tensor readTensorFile(const std::string &path, std::string *name) {
  auto endsWith = [&](const char *ext) {
    std::string e(ext);
    return path.size() >= e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0;
  };
  if (endsWith(".npy"))
    return io::readNpy(path);
  if (endsWith(".pb")) {
    io::NamedTensor t = io::readTensorProto(path);
    if (name)
      *name = t.name;
    return t.tensor;
  }
  fail("cannot tell the format of '", path, "' (expected a .npy or .pb file)");
}

void printProfile(const std::map<std::string, OpProfile> &profile, llvm::raw_ostream &os) {
  std::vector<std::pair<std::string, OpProfile>> rows(profile.begin(), profile.end());
  std::sort(rows.begin(), rows.end(),
            [](const auto &a, const auto &b) { return a.second.ms > b.second.ms; });
  double total = 0;
  for (const auto &r : rows)
    total += r.second.ms;
  os << "profile (" << llvm::format("%.3f", total) << " ms in kernels):\n";
  for (const auto &[name, p] : rows)
    os << llvm::format("  %10.3f ms %5.1f%% %7lld calls  ", p.ms, total > 0 ? 100 * p.ms / total : 0,
                       static_cast<long long>(p.calls))
       << name << "\n";
}

std::string valuesString(const Tensor &t, int64_t limit) {
  std::string out = "[";
  const int64_t n = std::min(t.numel(), limit);
  for (int64_t i = 0; i < n; ++i) {
    if (i)
      out += ", ";
    char buf[64];
    switch (t.dtype) {
    case DType::f32: std::snprintf(buf, sizeof(buf), "%.7g", t.as<float>()[i]); break;
    case DType::f64: std::snprintf(buf, sizeof(buf), "%.10g", t.as<double>()[i]); break;
    case DType::f16: std::snprintf(buf, sizeof(buf), "%.5g", static_cast<float>(t.as<Half>()[i])); break;
    case DType::bf16: std::snprintf(buf, sizeof(buf), "%.4g", static_cast<float>(t.as<BFloat16>()[i])); break;
    case DType::i8: std::snprintf(buf, sizeof(buf), "%d", t.as<int8_t>()[i]); break;
    case DType::i16: std::snprintf(buf, sizeof(buf), "%d", t.as<int16_t>()[i]); break;
    case DType::i32: std::snprintf(buf, sizeof(buf), "%d", t.as<int32_t>()[i]); break;
    case DType::i64: std::snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(t.as<int64_t>()[i])); break;
    case DType::u8: case DType::boolean: std::snprintf(buf, sizeof(buf), "%u", t.as<uint8_t>()[i]); break;
    case DType::u16: std::snprintf(buf, sizeof(buf), "%u", t.as<uint16_t>()[i]); break;
    case DType::u32: std::snprintf(buf, sizeof(buf), "%u", t.as<uint32_t>()[i]); break;
    case DType::u64: std::snprintf(buf, sizeof(buf), "%llu", static_cast<unsigned long long>(t.as<uint64_t>()[i])); break;
    }
    out += buf;
  }
  if (t.numel() > n)
    out += ", ...";
  return out + "]";
}

void makeDirectories(const std::string &dir) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    fail("cannot create directory '", dir, "': ", ec.message());
}

} // namespace mmrun

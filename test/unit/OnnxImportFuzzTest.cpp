//===- OnnxImportFuzzTest.cpp - corrupted models never crash the importer -===//
//
// Imports truncated and bit-flipped copies of the graphs in ../shared/models for a bounded
// number of iterations (fixed seed, so failures reproduce). Each import must return,
// success or failure, with diagnostics instead of a crash; run under ASan this also
// checks memory safety.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/onnx/OnnxImporter.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

/// Variants per graph, half truncated and half bit-flipped: 48, or MM_FUZZ_VARIANTS from
/// the environment for longer local campaigns.
int variantsPerGraph() {
  const char *env = std::getenv("MM_FUZZ_VARIANTS");
  int n = env ? std::atoi(env) : 0;
  return n > 0 ? n : 48;
}

/// The .onnx graphs under <shared>/models/*/onnx/.
std::vector<std::string> sharedGraphs() {
  std::vector<std::string> out;
  std::error_code ec;
  llvm::SmallString<256> models(MM_SHARED_DIR);
  llvm::sys::path::append(models, "models");
  for (llvm::sys::fs::recursive_directory_iterator it(models, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::sys::path::extension(it->path()) == ".onnx")
      out.push_back(it->path());
  std::sort(out.begin(), out.end());
  return out;
}

/// Imports `path`, swallowing diagnostics; returns whether it succeeded.
bool importQuietly(llvm::StringRef path, std::string &firstError) {
  mlir::MLIRContext ctx;
  mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &d) {
    if (firstError.empty())
      firstError = d.str();
    return mlir::success();
  });
  return mlir::succeeded(mm::importOnnx(path, ctx));
}

void writeFile(llvm::StringRef path, llvm::StringRef bytes) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  ASSERT_FALSE(ec) << ec.message();
  os << bytes;
}

TEST(OnnxImportFuzz, TruncatedAndBitFlippedSharedModels) {
  std::vector<std::string> graphs = sharedGraphs();
  if (graphs.empty()) {
    const char *ci = std::getenv("CI");
    if (ci && std::string(ci) == "true")
      FAIL() << "no ONNX models under " MM_SHARED_DIR "/models: ../shared is absent, and CI=true requires it";
    GTEST_SKIP() << "no ONNX models under " MM_SHARED_DIR "/models (../shared is absent)";
  }

  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("mm-onnx-fuzz", dir));
  llvm::SmallString<128> mutated(dir);
  llvm::sys::path::append(mutated, "model.onnx");

  std::mt19937_64 rng(20240611);
  const int variants = variantsPerGraph();
  int imported = 0, rejected = 0;
  for (const std::string &graph : graphs) {
    std::string error;
    ASSERT_TRUE(importQuietly(graph, error)) << graph << ": " << error;
    auto buffer = llvm::MemoryBuffer::getFile(graph);
    ASSERT_TRUE(bool(buffer)) << graph;
    std::string original = (*buffer)->getBuffer().str();
    for (int i = 0; i < variants; ++i) {
      std::string bytes = original;
      if (i % 2 == 0) {
        bytes.resize(std::uniform_int_distribution<size_t>(0, bytes.size() - 1)(rng));
      } else {
        // 1..8 flipped bits, half of the time within the first 4 KiB (the graph's nodes
        // and tensor headers) where flips hit structure rather than weight bytes.
        int flips = std::uniform_int_distribution<int>(1, 8)(rng);
        size_t span = (i % 4 == 1) ? std::min<size_t>(bytes.size(), 4096) : bytes.size();
        for (int f = 0; f < flips; ++f) {
          size_t at = std::uniform_int_distribution<size_t>(0, span - 1)(rng);
          bytes[at] ^= static_cast<char>(1 << std::uniform_int_distribution<int>(0, 7)(rng));
        }
      }
      writeFile(mutated, bytes);
      std::string err;
      bool ok = importQuietly(mutated, err);
      (ok ? imported : rejected) += 1;
      if (!ok) {
        EXPECT_FALSE(err.empty()) << "failure without a diagnostic: " << graph << " variant " << i;
      }
    }
  }
  llvm::sys::fs::remove_directories(dir);
  EXPECT_EQ(imported + rejected, variants * static_cast<int>(graphs.size()));
  std::printf("fuzzed %zu graphs x %d variants: %d imported, %d rejected with an error\n",
              graphs.size(), variants, imported, rejected);
}

} // namespace

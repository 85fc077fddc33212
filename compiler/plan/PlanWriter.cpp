//===- PlanWriter.cpp - write a plan file atomically ------------------------===//
#include "compiler/plan/PlanWriter.h"

#include "runtime/plan/PlanFormat.h"

#include "mlir/IR/Diagnostics.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <fstream>

using namespace mlir;

namespace mm {
namespace {

constexpr size_t kChunk = 4 << 20;

/// The source as given if it exists, else under modelDir.
std::string resolveSource(StringRef source, StringRef modelDir) {
  if (llvm::sys::fs::exists(source) || llvm::sys::path::is_absolute(source) || modelDir.empty())
    return source.str();
  llvm::SmallString<256> p(modelDir);
  llvm::sys::path::append(p, source);
  return std::string(p);
}

void writeZeros(llvm::raw_ostream &os, uint64_t n) {
  static const char zeros[4096] = {};
  while (n > 0) {
    uint64_t k = std::min<uint64_t>(n, sizeof(zeros));
    os.write(zeros, k);
    n -= k;
  }
}

/// Copies one weight's bytes from its source file into `os`.
LogicalResult streamWeight(llvm::raw_ostream &os, const WeightEntry &w, StringRef modelDir,
                           std::vector<char> &chunk) {
  std::string path = resolveSource(w.source, modelDir);
  uint64_t size = 0;
  if (std::error_code ec = llvm::sys::fs::file_size(path, size))
    return emitError(w.loc) << "weight '" << w.name << "': cannot read '" << path
                            << "': " << ec.message();
  if (w.sourceOffset > size || w.length > size - w.sourceOffset)
    return emitError(w.loc) << "weight '" << w.name << "': bytes [" << w.sourceOffset << ", "
                            << w.sourceOffset + w.length << ") lie past the end of '" << path
                            << "' (" << size << " bytes)";
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(w.sourceOffset));
  uint64_t left = w.length;
  while (left > 0 && in) {
    size_t k = static_cast<size_t>(std::min<uint64_t>(left, chunk.size()));
    in.read(chunk.data(), static_cast<std::streamsize>(k));
    if (static_cast<size_t>(in.gcount()) != k)
      break;
    os.write(chunk.data(), k);
    left -= k;
  }
  if (left != 0)
    return emitError(w.loc) << "weight '" << w.name << "': read error in '" << path << "'";
  return success();
}

} // namespace

LogicalResult writePlanFile(StringRef outputPath, ArrayRef<uint8_t> flatbuffer,
                            const WeightTable &weights, StringRef modelDir, Location loc,
                            uint64_t &fileBytes) {
  plan::FileHeader header{};
  std::memcpy(header.magic, plan::kPlanMagic, sizeof(header.magic));
  header.version = plan::kPlanFormatVersion;
  header.headerSize = sizeof(plan::FileHeader);
  header.fbOffset = sizeof(plan::FileHeader);
  header.fbSize = flatbuffer.size();
  header.blobOffset = plan::alignUp(header.fbOffset + header.fbSize, plan::kBlobAlignment);
  header.blobSize = weights.blobSize();

  llvm::SmallString<256> tmpPath;
  int fd = -1;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(outputPath + ".tmp-%%%%%%", fd, tmpPath))
    return emitError(loc) << "cannot create '" << outputPath << "': " << ec.message();
  llvm::FileRemover remover(tmpPath);
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(reinterpret_cast<const char *>(&header), sizeof(header));
    os.write(reinterpret_cast<const char *>(flatbuffer.data()), flatbuffer.size());
    uint64_t pos = header.fbOffset + header.fbSize;
    writeZeros(os, header.blobOffset - pos);
    pos = 0; // from here on, relative to the blob
    std::vector<char> chunk(kChunk);
    for (const WeightEntry &w : weights.entries()) {
      writeZeros(os, w.blobOffset - pos);
      if (failed(streamWeight(os, w, modelDir, chunk))) {
        os.close();
        os.clear_error();
        return failure();
      }
      pos = w.blobOffset + w.length;
    }
    os.close();
    if (os.has_error()) {
      std::string msg = os.error().message();
      os.clear_error();
      return emitError(loc) << "cannot write '" << tmpPath << "': " << msg;
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(tmpPath, outputPath))
    return emitError(loc) << "cannot rename '" << tmpPath << "' to '" << outputPath
                          << "': " << ec.message();
  remover.releaseFile();
  fileBytes = header.blobOffset + header.blobSize;
  return success();
}

} // namespace mm

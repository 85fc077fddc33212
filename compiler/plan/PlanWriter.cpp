//===- PlanWriter.cpp - write a plan file atomically ------------------------===//
#include "compiler/plan/PlanWriter.h"

#include "compiler/plan/PlanEncoding.h"
#include "runtime/core/Half.h"
#include "runtime/plan/PlanFormat.h"

#include "mlir/IR/Diagnostics.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <memory>
#include <map>

using namespace mlir;

namespace mm {
namespace {

constexpr size_t kChunk = 4 << 20;
/// Bytes of one column block of a transposed weight held in memory while writing it.
constexpr uint64_t kTransposeBlock = 64ull << 20;

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

/// Element `i` of `data` (dtype f32, f16 or bf16) as float.
float loadFloat(const char *data, plan::fb::DType t, size_t i) {
  uint16_t h;
  float f;
  switch (t) {
  case plan::fb::DType::f16:
    std::memcpy(&h, data + 2 * i, 2);
    return rt::halfBitsToFloat(h);
  case plan::fb::DType::bf16:
    std::memcpy(&h, data + 2 * i, 2);
    return rt::bf16BitsToFloat(h);
  default:
    std::memcpy(&f, data + 4 * i, 4);
    return f;
  }
}

/// The `to` bits of every 16-bit `from` value (one lookup per element instead of a decode
/// and a rounding: an fp16 export's bf16 plan converts every weight byte).
const std::vector<uint32_t> &conversionTable(plan::fb::DType from, plan::fb::DType to) {
  static std::map<std::pair<plan::fb::DType, plan::fb::DType>, std::vector<uint32_t>> tables;
  std::vector<uint32_t> &table = tables[{from, to}];
  if (table.empty()) {
    table.resize(1u << 16);
    for (uint32_t bits = 0; bits < (1u << 16); ++bits) {
      const uint16_t h = static_cast<uint16_t>(bits);
      const float v = loadFloat(reinterpret_cast<const char *>(&h), from, 0);
      uint32_t out;
      if (to == plan::fb::DType::f32)
        std::memcpy(&out, &v, 4);
      else
        out = to == plan::fb::DType::f16 ? rt::floatToHalfBits(v) : rt::floatToBf16Bits(v);
      table[bits] = out;
    }
  }
  return table;
}

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "plans are little-endian; convertElements copies a table entry's low bytes");

/// Converts `count` `from` elements at `data` to `to` elements at `out`, rounding to
/// nearest even (runtime/core/Half.h).
void convertElements(const char *data, plan::fb::DType from, plan::fb::DType to, size_t count,
                     char *out) {
  const size_t outSize = planDTypeSize(to);
  if (planDTypeSize(from) == 2) {
    const std::vector<uint32_t> &table = conversionTable(from, to);
    for (size_t i = 0; i < count; ++i) {
      uint16_t h;
      std::memcpy(&h, data + 2 * i, 2);
      std::memcpy(out + outSize * i, &table[h], outSize); // little-endian: the low bits
    }
    return;
  }
  for (size_t i = 0; i < count; ++i) {
    const float v = loadFloat(data, from, i);
    const uint16_t h =
        to == plan::fb::DType::f16 ? rt::floatToHalfBits(v) : rt::floatToBf16Bits(v);
    std::memcpy(out + 2 * i, &h, 2);
  }
}

/// Writes `n` source bytes of extent `e` (its `from` elements) as `to` elements.
void write(llvm::raw_ostream &os, const WeightExtent &e, const char *data, uint64_t n) {
  if (e.from == e.to) {
    os.write(data, n);
    return;
  }
  static std::vector<char> out; // reused: the writer runs on one thread
  const size_t count = n / planDTypeSize(e.from);
  out.resize(count * planDTypeSize(e.to));
  convertElements(data, e.from, e.to, count, out.data());
  os.write(out.data(), out.size());
}

/// dst[j * dstStride + r] = src[r * srcStride + j] for r < rows, j < cols, in 64 x 64 tiles
/// (each tile's source lines stay in cache while its columns are written).
template <typename T>
void scatterColumnsOf(const T *src, uint64_t srcStride, uint64_t rows, uint64_t cols, T *dst,
                      uint64_t dstStride) {
  constexpr uint64_t kTile = 64;
  for (uint64_t r0 = 0; r0 < rows; r0 += kTile)
    for (uint64_t j0 = 0; j0 < cols; j0 += kTile) {
      const uint64_t r1 = std::min(rows, r0 + kTile), j1 = std::min(cols, j0 + kTile);
      for (uint64_t j = j0; j < j1; ++j)
        for (uint64_t r = r0; r < r1; ++r)
          dst[j * dstStride + r] = src[r * srcStride + j];
    }
}

/// Writes the transpose of a [rows, cols] window of a row-major matrix (`srcStride`
/// elements per row, `elem` bytes each) into `dst` ([cols, dstStride], row-major).
void scatterColumns(const char *src, uint64_t srcStride, uint64_t rows, uint64_t cols, char *dst,
                    uint64_t dstStride, uint64_t elem) {
  switch (elem) {
  case 1: return scatterColumnsOf(reinterpret_cast<const uint8_t *>(src), srcStride, rows, cols,
                                  reinterpret_cast<uint8_t *>(dst), dstStride);
  case 2: return scatterColumnsOf(reinterpret_cast<const uint16_t *>(src), srcStride, rows, cols,
                                  reinterpret_cast<uint16_t *>(dst), dstStride);
  case 4: return scatterColumnsOf(reinterpret_cast<const uint32_t *>(src), srcStride, rows, cols,
                                  reinterpret_cast<uint32_t *>(dst), dstStride);
  default: return scatterColumnsOf(reinterpret_cast<const uint64_t *>(src), srcStride, rows, cols,
                                   reinterpret_cast<uint64_t *>(dst), dstStride);
  }
}

/// The weights' source files, opened once each.
class SourceFiles {
public:
  explicit SourceFiles(StringRef modelDir) : modelDir_(modelDir.str()) {}

  /// Copies one extent into `os`, converting its elements if it says so; the diagnostic
  /// names `w` on failure.
  /// Fails, naming `w`, when extent `e`'s source bytes are not all in its file.
  LogicalResult checkExtent(const WeightEntry &w, const WeightExtent &e) {
    if (e.bytes)
      return success();
    Source *src = open(w, e.source);
    if (!src)
      return failure();
    const uint64_t sourceLength = static_cast<uint64_t>(e.length * e.sourceRatio());
    if (e.offset > src->size || sourceLength > src->size - e.offset)
      return emitError(w.loc) << "weight '" << w.name << "': bytes [" << e.offset << ", "
                              << e.offset + sourceLength << ") lie past the end of '"
                              << src->path << "' (" << src->size << " bytes)";
    return success();
  }

  LogicalResult copy(llvm::raw_ostream &os, const WeightEntry &w, const WeightExtent &e,
                     std::vector<char> &chunk) {
    const uint64_t sourceLength = static_cast<uint64_t>(e.length * e.sourceRatio());
    if (e.bytes) {
      write(os, e, reinterpret_cast<const char *>(e.bytes->data() + e.offset), sourceLength);
      return success();
    }
    if (failed(checkExtent(w, e)))
      return failure();
    Source *src = open(w, e.source);
    src->in.clear();
    src->in.seekg(static_cast<std::streamoff>(e.offset));
    uint64_t left = sourceLength;
    while (left > 0 && src->in) {
      size_t k = static_cast<size_t>(std::min<uint64_t>(left, chunk.size()));
      src->in.read(chunk.data(), static_cast<std::streamsize>(k));
      if (static_cast<size_t>(src->in.gcount()) != k)
        break;
      write(os, e, chunk.data(), k);
      left -= k;
    }
    if (left != 0)
      return emitError(w.loc) << "weight '" << w.name << "': read error in '" << src->path << "'";
    return success();
  }

  /// Writes the whole of `w`: its extents in order, or, for a transposed weight, the
  /// [rows, cols] matrix they form as [cols, rows], one block of columns at a time, so
  /// memory stays within kTransposeBlock (plus one chunk): each block reads the matrix
  /// once, in chunks of whole rows (large sequential reads; a [4096, 11008] weight in
  /// 16 bits is read twice).
  LogicalResult writeEntry(llvm::raw_ostream &os, const WeightEntry &w, std::vector<char> &chunk) {
    // A transpose of one row or one column is the same bytes.
    if (!w.transpose || w.transpose->rows == 1 || w.transpose->cols == 1) {
      for (const WeightExtent &e : w.extents)
        if (failed(copy(os, w, e, chunk)))
          return failure();
      return success();
    }
    for (const WeightExtent &e : w.extents) // every source range, before anything is allocated
      if (failed(checkExtent(w, e)))
        return failure();
    const uint64_t rows = w.transpose->rows, cols = w.transpose->cols;
    const uint64_t elem = rows * cols == 0 ? 0 : w.length / (rows * cols);
    if ((elem != 1 && elem != 2 && elem != 4 && elem != 8) || elem * rows * cols != w.length)
      return emitError(w.loc) << "weight '" << w.name << "': " << w.length
                              << " bytes do not form a " << rows << " x " << cols << " matrix";
    if (rows * elem > kTransposeBlock)
      return emitError(w.loc) << "weight '" << w.name << "': a " << rows << " x " << cols
                              << " transpose has columns of more than " << (kTransposeBlock >> 20)
                              << " MiB, more than the plan writer holds in memory";
    const uint64_t rowBytes = cols * elem;
    const uint64_t blockCols = std::max<uint64_t>(1, std::min(cols, kTransposeBlock / (rows * elem)));
    const uint64_t chunkRows = std::max<uint64_t>(1, std::min(rows, chunk.size() / rowBytes));
    char *block = transposeBlock(static_cast<size_t>(blockCols * rows * elem));
    llvm::SmallVector<char, 0> &piece = piece_;
    for (uint64_t c0 = 0; c0 < cols; c0 += blockCols) {
      const uint64_t n = std::min(blockCols, cols - c0);
      for (uint64_t r0 = 0; r0 < rows; r0 += chunkRows) {
        const uint64_t k = std::min(chunkRows, rows - r0);
        piece.clear();
        llvm::raw_svector_ostream ps(piece);
        for (const WeightExtent &e : sliceExtents(w.extents, r0 * rowBytes, k * rowBytes))
          if (failed(copy(ps, w, e, chunk)))
            return failure();
        scatterColumns(piece.data() + c0 * elem, cols, k, n, block + r0 * elem, rows, elem);
      }
      os.write(block, static_cast<size_t>(n * rows * elem));
    }
    return success();
  }

private:
  struct Source {
    std::string path;
    uint64_t size = 0;
    std::ifstream in;
  };

  /// The column block of writeEntry, kept for the next transposed weight and not
  /// zero-filled: fresh 64 MiB buffers per weight cost page faults and a memset each
  /// (a 7B's 224 transposed weights took 10x the time of their plain copies).
  char *transposeBlock(size_t bytes) {
    if (bytes > blockBytes_) {
      block_.reset(new char[bytes]);
      blockBytes_ = bytes;
    }
    return block_.get();
  }
  std::unique_ptr<char[]> block_;
  size_t blockBytes_ = 0;
  llvm::SmallVector<char, 0> piece_; ///< the rows of one chunk, as the plan stores them

  Source *open(const WeightEntry &w, const std::string &source) {
    auto it = files_.find(source);
    if (it != files_.end())
      return &it->second;
    std::string path = resolveSource(source, modelDir_);
    uint64_t size = 0;
    if (std::error_code ec = llvm::sys::fs::file_size(path, size)) {
      emitError(w.loc) << "weight '" << w.name << "': cannot read '" << path
                       << "': " << ec.message();
      return nullptr;
    }
    Source &src = files_[source];
    src.path = path;
    src.size = size;
    src.in.open(path, std::ios::binary);
    if (!src.in) {
      emitError(w.loc) << "weight '" << w.name << "': cannot open '" << path << "'";
      files_.erase(source);
      return nullptr;
    }
    return &src;
  }

  std::string modelDir_;
  std::map<std::string, Source> files_;
};

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
  fileBytes = header.blobOffset + header.blobSize; // read by the caller on success only

  // Header, FlatBuffer and the weights streamed from their source files into `os`.
  auto write = [&](llvm::raw_fd_ostream &os, StringRef name) -> LogicalResult {
    os.write(reinterpret_cast<const char *>(&header), sizeof(header));
    os.write(reinterpret_cast<const char *>(flatbuffer.data()), flatbuffer.size());
    uint64_t pos = header.fbOffset + header.fbSize;
    writeZeros(os, header.blobOffset - pos);
    pos = 0; // from here on, relative to the blob
    std::vector<char> chunk(kChunk);
    SourceFiles files(modelDir);
    for (const WeightEntry &w : weights.entries()) {
      writeZeros(os, w.blobOffset - pos);
      if (failed(files.writeEntry(os, w, chunk))) {
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
      return emitError(loc) << "cannot write '" << name << "': " << msg;
    }
    return success();
  };

  // An existing special file (/dev/null, a pipe) is written in place: a rename would
  // replace it by a regular file.
  llvm::sys::fs::file_status st;
  if (!llvm::sys::fs::status(outputPath, st) && llvm::sys::fs::exists(st) &&
      !llvm::sys::fs::is_regular_file(st)) {
    if (llvm::sys::fs::is_directory(st))
      return emitError(loc) << "cannot write the plan to '" << outputPath << "': a directory";
    std::error_code ec;
    llvm::raw_fd_ostream os(outputPath, ec);
    if (ec)
      return emitError(loc) << "cannot open '" << outputPath << "': " << ec.message();
    return write(os, outputPath);
  }

  llvm::SmallString<256> tmpPath;
  int fd = -1;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(outputPath + ".tmp-%%%%%%", fd, tmpPath))
    return emitError(loc) << "cannot create '" << outputPath << "': " << ec.message();
  llvm::FileRemover remover(tmpPath);
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    if (failed(write(os, tmpPath)))
      return failure();
  }
  if (std::error_code ec = llvm::sys::fs::rename(tmpPath, outputPath))
    return emitError(loc) << "cannot rename '" << tmpPath << "' to '" << outputPath
                          << "': " << ec.message();
  remover.releaseFile();
  return success();
}

} // namespace mm

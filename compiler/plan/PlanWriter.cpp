//===- PlanWriter.cpp - write a plan file atomically ------------------------===//
#include "compiler/plan/PlanWriter.h"

#include "compiler/plan/PlanEncoding.h"
#include "runtime/core/Half.h"
#include "runtime/plan/PlanFormat.h"

#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Parallel.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <map>
#include <vector>

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
/// and a rounding: an fp16 export's bf16 plan converts every weight byte). The tables of
/// all four 16-bit conversions are built once, on first use (thread-safe), 1 MiB in all.
const uint32_t *conversionTable(plan::fb::DType from, plan::fb::DType to) {
  using plan::fb::DType;
  static const std::vector<uint32_t> tables = [] {
    std::vector<uint32_t> t(4u << 16);
    for (uint32_t bits = 0; bits < (1u << 16); ++bits) {
      const uint16_t h = static_cast<uint16_t>(bits);
      const float half = rt::halfBitsToFloat(h), brain = rt::bf16BitsToFloat(h);
      t[bits] = rt::floatToBf16Bits(half);
      std::memcpy(&t[(1u << 16) + bits], &half, 4);
      t[(2u << 16) + bits] = rt::floatToHalfBits(brain);
      std::memcpy(&t[(3u << 16) + bits], &brain, 4);
    }
    return t;
  }();
  const uint32_t which = (from == DType::bf16 ? 2 : 0) + (to == DType::f32 ? 1 : 0);
  return tables.data() + (size_t(which) << 16);
}

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "plans are little-endian");

/// Converts `count` `from` elements at `data` to `to` elements at `out`, rounding to
/// nearest even (runtime/core/Half.h).
void convertElements(const char *data, plan::fb::DType from, plan::fb::DType to, size_t count,
                     char *out) {
  if (planDTypeSize(from) == 2) {
    const uint32_t *table = conversionTable(from, to);
    auto convert = [&](auto outElement) {
      using Out = decltype(outElement);
      for (size_t i = 0; i < count; ++i) {
        uint16_t h;
        std::memcpy(&h, data + 2 * i, 2);
        const Out v = static_cast<Out>(table[h]); // the low bits
        std::memcpy(out + sizeof(Out) * i, &v, sizeof(Out));
      }
    };
    if (planDTypeSize(to) == 2)
      convert(uint16_t{});
    else
      convert(uint32_t{});
    return;
  }
  for (size_t i = 0; i < count; ++i) {
    const float v = loadFloat(data, from, i);
    const uint16_t h =
        to == plan::fb::DType::f16 ? rt::floatToHalfBits(v) : rt::floatToBf16Bits(v);
    std::memcpy(out + 2 * i, &h, 2);
  }
}

/// Elements converted per task when a conversion is spread over threads.
constexpr size_t kConvertGrain = 1 << 16;

/// Drops the whole pages inside [p, p + n) of a read-only file mapping from this process
/// (they stay in the page cache; a later read faults them back in). Never called on
/// anything but a file mapping: on anonymous memory MADV_DONTNEED zeroes the pages.
/// (mapped_file_region::dontNeed is a no-op on glibc.)
void releaseMappedPages(const char *p, uint64_t n) {
  static const uintptr_t page = static_cast<uintptr_t>(llvm::sys::Process::getPageSizeEstimate());
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + page - 1) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + n) & ~(page - 1);
  if (begin < end)
    ::madvise(reinterpret_cast<void *>(begin), end - begin, MADV_DONTNEED);
}

/// Writes `n` source bytes of extent `e` (its `from` elements, at `data`) as `to`
/// elements, `kChunk` plan bytes at a time (converted into `out`, on every hardware
/// thread), and releases each chunk's source pages when `mapped`.
void write(llvm::raw_ostream &os, const WeightExtent &e, const char *data, uint64_t n,
           bool mapped, std::vector<char> &out) {
  if (e.from == e.to) {
    for (uint64_t done = 0; done < n; done += kChunk) {
      const uint64_t k = std::min<uint64_t>(kChunk, n - done);
      os.write(data + done, k);
      if (mapped)
        releaseMappedPages(data + done, k);
    }
    return;
  }
  const size_t fromSize = planDTypeSize(e.from), toSize = planDTypeSize(e.to);
  const size_t count = n / fromSize, perChunk = kChunk / toSize;
  out.resize(std::min(count, perChunk) * toSize);
  for (size_t first = 0; first < count; first += perChunk) {
    const size_t k = std::min(perChunk, count - first);
    const char *src = data + first * fromSize;
    if (k <= kConvertGrain) // small extents (a concat along axis 1 has one per row)
      convertElements(src, e.from, e.to, k, out.data());
    else
      llvm::parallelFor(0, (k + kConvertGrain - 1) / kConvertGrain, [&](size_t t) {
        const size_t b = t * kConvertGrain, m = std::min(kConvertGrain, k - b);
        convertElements(src + b * fromSize, e.from, e.to, m, out.data() + b * toSize);
      });
    os.write(out.data(), k * toSize);
    if (mapped)
      releaseMappedPages(src, k * fromSize);
  }
}

/// A weight's extents as one row-major matrix of `to` elements (`elem` bytes each) whose
/// bytes are already in memory (mapped files or inline data).
class MatrixElements {
public:
  struct Piece {
    uint64_t first = 0; ///< index of the piece's first element in the matrix
    const char *data = nullptr;
    plan::fb::DType from = plan::fb::DType::f32, to = plan::fb::DType::f32;
    bool mapped = false; ///< data is in a file mapping (its pages may be released)
  };
  MatrixElements(std::vector<Piece> pieces, uint64_t elem)
      : pieces_(std::move(pieces)), elem_(elem) {}

  /// Elements [first, first + count) as `to` elements at `out`, across pieces.
  void read(uint64_t first, uint64_t count, char *out) const {
    auto it = std::upper_bound(pieces_.begin(), pieces_.end(), first,
                               [](uint64_t i, const Piece &p) { return i < p.first; });
    size_t p = static_cast<size_t>(it - pieces_.begin()) - 1;
    while (count > 0) {
      const Piece &piece = pieces_[p];
      const uint64_t end = p + 1 < pieces_.size() ? pieces_[p + 1].first : UINT64_MAX;
      const uint64_t k = std::min(count, end - first);
      const uint64_t fromSize = planDTypeSize(piece.from);
      const char *src = piece.data + (first - piece.first) * fromSize;
      if (piece.from == piece.to)
        std::memcpy(out, src, k * elem_);
      else
        convertElements(src, piece.from, piece.to, k, out);
      out += k * elem_;
      first += k;
      count -= k;
      ++p;
    }
  }

  /// Releases the mapped source pages of elements [first, first + count) (read again
  /// later, they fault back in from the page cache).
  void release(uint64_t first, uint64_t count) const {
    for (size_t p = 0; p < pieces_.size(); ++p) {
      const Piece &piece = pieces_[p];
      const uint64_t end = p + 1 < pieces_.size() ? pieces_[p + 1].first : UINT64_MAX;
      const uint64_t lo = std::max(first, piece.first), hi = std::min(first + count, end);
      if (piece.mapped && lo < hi) {
        const uint64_t fromSize = planDTypeSize(piece.from);
        releaseMappedPages(piece.data + (lo - piece.first) * fromSize, (hi - lo) * fromSize);
      }
    }
  }

private:
  std::vector<Piece> pieces_;
  uint64_t elem_;
};

/// out[j * stride + r] = tile[r][j] for r < nr, j < nj (a tile row holds 64 elements).
template <typename T>
void scatterTileOf(const T *tile, uint64_t nr, uint64_t nj, T *out, uint64_t stride) {
  for (uint64_t j = 0; j < nj; ++j)
    for (uint64_t r = 0; r < nr; ++r)
      out[j * stride + r] = tile[r * 64 + j];
}

void scatterTile(const char *tile, uint64_t nr, uint64_t nj, char *out, uint64_t stride,
                 uint64_t elem) {
  switch (elem) {
  case 1: return scatterTileOf(reinterpret_cast<const uint8_t *>(tile), nr, nj,
                               reinterpret_cast<uint8_t *>(out), stride);
  case 2: return scatterTileOf(reinterpret_cast<const uint16_t *>(tile), nr, nj,
                               reinterpret_cast<uint16_t *>(out), stride);
  case 4: return scatterTileOf(reinterpret_cast<const uint32_t *>(tile), nr, nj,
                               reinterpret_cast<uint32_t *>(out), stride);
  default: return scatterTileOf(reinterpret_cast<const uint64_t *>(tile), nr, nj,
                                reinterpret_cast<uint64_t *>(out), stride);
  }
}

/// Columns [c0, c0 + n) of the [rows, cols] matrix `m`, transposed into `dst` ([n, rows]),
/// in 64 x 64 tiles (each tile's rows read once, converted, and written as 64 columns).
/// Each thread takes 64 rows at a time and walks them across the columns, so the source
/// (mapped file pages) is read row by row and only the block in memory is written apart;
/// then it releases those rows' source pages.
void transposeColumns(const MatrixElements &m, uint64_t rows, uint64_t cols, uint64_t c0,
                      uint64_t n, uint64_t elem, char *dst) {
  constexpr uint64_t kTile = 64;
  llvm::parallelFor(0, (rows + kTile - 1) / kTile, [&](size_t t) {
    alignas(8) char tile[kTile * kTile * 8]; // [row][col], elem bytes each
    const uint64_t r0 = t * kTile, nr = std::min(kTile, rows - r0);
    for (uint64_t j0 = 0; j0 < n; j0 += kTile) {
      const uint64_t nj = std::min(kTile, n - j0);
      for (uint64_t r = 0; r < nr; ++r)
        m.read((r0 + r) * cols + c0 + j0, nj, tile + r * kTile * elem);
      scatterTile(tile, nr, nj, dst + (j0 * rows + r0) * elem, rows, elem);
    }
    m.release(r0 * cols, nr * cols);
  });
}

/// The weights' source files, each mapped into memory once.
class SourceFiles {
public:
  SourceFiles(StringRef modelDir, StringRef outputPath, uint64_t transposeBlockBytes)
      : modelDir_(modelDir.str()), outputPath_(outputPath.str()),
        transposeBlockBytes_(transposeBlockBytes) {}

  /// The source bytes of extent `e` (mapped or inline), or null after a diagnostic naming
  /// `w` when they are not all in its file.
  const char *bytesOf(const WeightEntry &w, const WeightExtent &e) {
    if (e.bytes)
      return reinterpret_cast<const char *>(e.bytes->data() + e.offset);
    Source *src = open(w, e.source);
    if (!src)
      return nullptr;
    const uint64_t sourceLength = static_cast<uint64_t>(e.length * e.sourceRatio());
    if (e.offset > src->size || sourceLength > src->size - e.offset) {
      emitError(w.loc) << "weight '" << w.name << "': bytes [" << e.offset << ", "
                       << e.offset + sourceLength << ") lie past the end of '" << src->path
                       << "' (" << src->size << " bytes)";
      return nullptr;
    }
    return src->data() + e.offset;
  }

  /// Writes `w`'s extents in order, or, for a transposed weight, the [rows, cols] matrix
  /// they form as [cols, rows], one block of columns (at most transposeBlockBytes_) at a
  /// time. The source pages are let
  /// go of as they are written (a chunk, or a transposing thread's 64 rows), so resident
  /// memory stays within the transpose block, the conversion chunk and one chunk of mapped
  /// pages per thread, however large the weight.
  LogicalResult writeEntry(llvm::raw_ostream &os, const WeightEntry &w) {
    std::vector<MatrixElements::Piece> pieces;
    uint64_t first = 0;
    const uint64_t elem =
        w.extents.empty() ? 1 : static_cast<uint64_t>(planDTypeSize(w.extents.front().to));
    for (const WeightExtent &e : w.extents) { // every source range, before anything is written
      const char *data = bytesOf(w, e);
      if (!data)
        return failure();
      pieces.push_back({first, data, e.from, e.to, !e.bytes});
      first += e.length / elem;
    }
    // A transpose of one row or one column is the same bytes.
    if (!w.transpose || w.transpose->rows == 1 || w.transpose->cols == 1) {
      for (size_t i = 0; i < w.extents.size(); ++i)
        write(os, w.extents[i], pieces[i].data,
              static_cast<uint64_t>(w.extents[i].length * w.extents[i].sourceRatio()),
              pieces[i].mapped, converted_);
      return success();
    }
    const uint64_t rows = w.transpose->rows, cols = w.transpose->cols;
    if ((elem != 1 && elem != 2 && elem != 4 && elem != 8) || elem * rows * cols != w.length ||
        llvm::any_of(w.extents, [&](const WeightExtent &e) {
          return planDTypeSize(e.to) != elem || e.length % elem != 0;
        }))
      return emitError(w.loc) << "weight '" << w.name << "': " << w.length
                              << " bytes do not form a " << rows << " x " << cols << " matrix";
    if (rows * elem > transposeBlockBytes_)
      return emitError(w.loc) << "weight '" << w.name << "': a " << rows << " x " << cols
                              << " transpose has columns of " << rows * elem << " bytes, more than the "
                              << transposeBlockBytes_ << " the plan writer holds in memory";
    const MatrixElements matrix(std::move(pieces), elem);
    const uint64_t blockCols = std::max<uint64_t>(1, std::min(cols, transposeBlockBytes_ / (rows * elem)));
    char *block = transposeBlock(static_cast<size_t>(blockCols * rows * elem));
    for (uint64_t c0 = 0; c0 < cols; c0 += blockCols) {
      const uint64_t n = std::min(blockCols, cols - c0);
      transposeColumns(matrix, rows, cols, c0, n, elem, block);
      os.write(block, static_cast<size_t>(n * rows * elem));
    }
    return success();
  }

  struct Source {
    std::string path;
    uint64_t size = 0;
    std::unique_ptr<llvm::sys::fs::mapped_file_region> map;
    const char *data() const { return map ? map->const_data() : nullptr; }
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
  std::vector<char> converted_; ///< one chunk of converted elements, reused

  Source *open(const WeightEntry &w, const std::string &source) {
    auto it = files_.find(source);
    if (it != files_.end())
      return &it->second;
    std::string path = resolveSource(source, modelDir_);
    auto fail = [&](const std::string &why) -> Source * {
      emitError(w.loc) << "weight '" << w.name << "': cannot read '" << path << "': " << why;
      return nullptr;
    };
    llvm::sys::fs::file_status st;
    if (std::error_code ec = llvm::sys::fs::status(path, st))
      return fail(ec.message());
    if (!llvm::sys::fs::is_regular_file(st)) // a FIFO would block, a directory has no bytes
      return fail("not a regular file");
    if (llvm::sys::fs::equivalent(path, outputPath_))
      return fail("it is the output path: the plan would replace its own weights");
    llvm::Expected<llvm::sys::fs::file_t> fd = llvm::sys::fs::openNativeFileForRead(path);
    if (!fd)
      return fail(llvm::toString(fd.takeError()));
    // The size of the file as opened (it may have been replaced since the check above);
    // a file truncated while it is mapped is out of reach (the read faults, SIGBUS).
    if (std::error_code ec = llvm::sys::fs::status(*fd, st)) {
      llvm::sys::fs::closeFile(*fd);
      return fail(ec.message());
    }
    const uint64_t size = st.getSize();
    Source src;
    src.path = path;
    src.size = size;
    std::error_code ec;
    if (size > 0)
      src.map = std::make_unique<llvm::sys::fs::mapped_file_region>(
          *fd, llvm::sys::fs::mapped_file_region::readonly, size, 0, ec);
    llvm::sys::fs::closeFile(*fd);
    if (ec)
      return fail(ec.message());
    return &(files_[source] = std::move(src));
  }

  std::string modelDir_, outputPath_;
  uint64_t transposeBlockBytes_;
  std::map<std::string, Source> files_;
};

} // namespace

LogicalResult writePlanFile(StringRef outputPath, ArrayRef<uint8_t> flatbuffer,
                            const WeightTable &weights, StringRef modelDir, Location loc,
                            uint64_t &fileBytes, uint64_t transposeBlockBytes) {
  plan::FileHeader header{};
  std::memcpy(header.magic, plan::kPlanMagic, sizeof(header.magic));
  header.version = plan::kPlanFormatVersion;
  header.headerSize = sizeof(plan::FileHeader);
  header.fbOffset = sizeof(plan::FileHeader);
  header.fbSize = flatbuffer.size();
  header.blobOffset = plan::alignUp(header.fbOffset + header.fbSize, plan::kBlobAlignment);
  header.blobSize = weights.blobSize();
  fileBytes = header.blobOffset + header.blobSize; // read by the caller on success only

  // Header, FlatBuffer and the weights, from their mapped source files, into `os`.
  auto write = [&](llvm::raw_fd_ostream &os, StringRef name) -> LogicalResult {
    os.write(reinterpret_cast<const char *>(&header), sizeof(header));
    os.write(reinterpret_cast<const char *>(flatbuffer.data()), flatbuffer.size());
    uint64_t pos = header.fbOffset + header.fbSize;
    writeZeros(os, header.blobOffset - pos);
    pos = 0; // from here on, relative to the blob
    SourceFiles files(modelDir, outputPath, transposeBlockBytes);
    for (const WeightEntry &w : weights.entries()) {
      writeZeros(os, w.blobOffset - pos);
      if (failed(files.writeEntry(os, w))) {
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
  // Next to the output, under its name cut to 200 bytes (+ ".tmp-XXXXXX" stays within the
  // 255 bytes a file name may have).
  llvm::SmallString<256> tmpModel(llvm::sys::path::parent_path(outputPath));
  llvm::sys::path::append(tmpModel, llvm::sys::path::filename(outputPath).take_front(200) +
                                        ".tmp-%%%%%%");
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(tmpModel, fd, tmpPath))
    return emitError(loc) << "cannot create '" << outputPath << "': " << ec.message();
  llvm::FileRemover remover(tmpPath);
  // Ctrl-C or SIGTERM while writing leaves no temporary file either.
  llvm::sys::RemoveFileOnSignal(tmpPath);
  auto keepOnSignal = llvm::make_scope_exit([&] { llvm::sys::DontRemoveFileOnSignal(tmpPath); });
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

//===- PlanWriterTest.cpp - weights written into the plan blob ---------------===//
//
// writePlanFile on hand-made weight tables, the blob read back and compared element by
// element with a scalar reference (runtime/core/Half.h conversions, plain loops for the
// transposes): transposes over several column blocks (a block of a few hundred bytes
// instead of 64 MiB), with partial 64 x 64 tiles, pieces that end mid-row, pieces of
// different source types converted to one type, and 8-byte elements.
//
//===----------------------------------------------------------------------===//
#include "compiler/plan/PlanWriter.h"
#include "runtime/core/Half.h"
#include "runtime/plan/PlanFormat.h"

#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace mm {
namespace {

using plan::fb::DType;

class PlanWriterTest : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SmallString<128> dir;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("plan-writer-test", dir));
    dir_ = std::string(dir);
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir_); }

  std::string path(const std::string &name) const { return dir_ + "/" + name; }

  template <typename T> void writeFile(const std::string &name, const std::vector<T> &v) {
    std::ofstream(path(name), std::ios::binary)
        .write(reinterpret_cast<const char *>(v.data()), std::streamsize(v.size() * sizeof(T)));
  }

  /// Writes a plan of `table` with a transpose block of `blockBytes`, and returns its
  /// blob; fails the test when the writer does.
  std::vector<char> writeAndReadBlob(const WeightTable &table, uint64_t blockBytes) {
    const std::string out = path("w.plan");
    uint64_t fileBytes = 0;
    const std::vector<uint8_t> flatbuffer(16, 0);
    EXPECT_TRUE(mlir::succeeded(writePlanFile(out, flatbuffer, table, dir_,
                                              mlir::UnknownLoc::get(&ctx_), fileBytes,
                                              blockBytes)));
    std::ifstream in(out, std::ios::binary);
    std::vector<char> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(file.size(), fileBytes);
    plan::FileHeader h{};
    std::memcpy(&h, file.data(), sizeof(h));
    EXPECT_EQ(h.blobOffset + h.blobSize, file.size());
    return std::vector<char>(file.begin() + std::ptrdiff_t(h.blobOffset), file.end());
  }

  mlir::MLIRContext ctx_;
  std::string dir_;
};

WeightExtent fileExtent(const std::string &source, uint64_t offset, uint64_t planBytes,
                        DType from, DType to) {
  return WeightExtent{source, offset, planBytes, /*bytes=*/nullptr, from, to};
}

template <typename T> T at(const std::vector<char> &blob, uint64_t byteOffset, uint64_t i) {
  T v;
  std::memcpy(&v, blob.data() + byteOffset + i * sizeof(T), sizeof(T));
  return v;
}

TEST_F(PlanWriterTest, TransposeOverSeveralColumnBlocksWithPartialTiles) {
  // [rows, cols] = [130, 97] u16 (every element distinct), written as [97, 130]; a block of
  // 130 * 2 * 10 bytes holds 10 output rows: 10 blocks, the last of 7 rows.
  const uint64_t rows = 130, cols = 97;
  std::vector<uint16_t> w(rows * cols);
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = uint16_t(i * 7 + 3);
  writeFile("w.bin", w);
  WeightTable table;
  table.add("w", {fileExtent("w.bin", 0, w.size() * 2, DType::u16, DType::u16)},
            WeightTranspose{rows, cols}, mlir::UnknownLoc::get(&ctx_));
  const std::vector<char> blob = writeAndReadBlob(table, rows * 2 * 10);
  const uint64_t base = table.entries()[0].blobOffset;
  for (uint64_t j = 0; j < cols; ++j)
    for (uint64_t r = 0; r < rows; ++r)
      ASSERT_EQ(at<uint16_t>(blob, base, j * rows + r), w[r * cols + j]) << "row " << j << " col " << r;
}

TEST_F(PlanWriterTest, MixedPiecesEndingMidRowAreConvertedOnce) {
  // A [70, 90] bf16 matrix from two files: its first 70 * 90 / 2 + 13 elements f16, the
  // rest f32 (so the boundary falls inside row 35), each converted to bf16 (round to
  // nearest even), then transposed in blocks of 3 output rows (70 * 2 * 3 bytes).
  const uint64_t rows = 70, cols = 90, split = rows * cols / 2 + 13;
  std::mt19937 gen(5);
  std::normal_distribution<float> nd(0.0f, 3.0f);
  std::vector<uint16_t> half(split);
  std::vector<float> single(rows * cols - split), want(rows * cols);
  for (uint64_t i = 0; i < split; ++i) {
    half[i] = rt::floatToHalfBits(nd(gen));
    want[i] = rt::halfBitsToFloat(half[i]);
  }
  for (uint64_t i = split; i < rows * cols; ++i)
    want[i] = single[i - split] = nd(gen);
  writeFile("h.bin", half);
  writeFile("s.bin", single);
  WeightTable table;
  table.add("m",
            {fileExtent("h.bin", 0, split * 2, DType::f16, DType::bf16),
             fileExtent("s.bin", 0, (rows * cols - split) * 2, DType::f32, DType::bf16)},
            WeightTranspose{rows, cols}, mlir::UnknownLoc::get(&ctx_));
  const std::vector<char> blob = writeAndReadBlob(table, rows * 2 * 3);
  const uint64_t base = table.entries()[0].blobOffset;
  for (uint64_t j = 0; j < cols; ++j)
    for (uint64_t r = 0; r < rows; ++r)
      ASSERT_EQ(at<uint16_t>(blob, base, j * rows + r), rt::floatToBf16Bits(want[r * cols + j]))
          << "row " << j << " col " << r;
}

TEST_F(PlanWriterTest, EightByteTransposeAndPlainConversion) {
  // An i64 [65, 3] transpose (one partial tile in each direction) next to a plain f32 ->
  // f16 conversion of 200000 elements (several threads' shares).
  std::vector<int64_t> w(65 * 3);
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = int64_t(i) * 1000003 - 7;
  std::vector<float> f(200000);
  for (size_t i = 0; i < f.size(); ++i)
    f[i] = float(i) * 0.37f - 1000.0f;
  writeFile("i.bin", w);
  writeFile("f.bin", f);
  WeightTable table;
  table.add("i", {fileExtent("i.bin", 0, w.size() * 8, DType::i64, DType::i64)},
            WeightTranspose{65, 3}, mlir::UnknownLoc::get(&ctx_));
  table.add("f", {fileExtent("f.bin", 0, f.size() * 2, DType::f32, DType::f16)}, std::nullopt,
            mlir::UnknownLoc::get(&ctx_));
  const std::vector<char> blob = writeAndReadBlob(table, uint64_t(64) << 20);
  const uint64_t bi = table.entries()[0].blobOffset, bf = table.entries()[1].blobOffset;
  for (uint64_t j = 0; j < 3; ++j)
    for (uint64_t r = 0; r < 65; ++r)
      ASSERT_EQ(at<int64_t>(blob, bi, j * 65 + r), w[r * 3 + j]);
  for (size_t i = 0; i < f.size(); ++i)
    ASSERT_EQ(at<uint16_t>(blob, bf, i), rt::floatToHalfBits(f[i])) << "element " << i;
}

TEST_F(PlanWriterTest, ColumnLongerThanTheBlockIsAnError) {
  std::vector<uint16_t> w(40 * 4, 1);
  writeFile("w.bin", w);
  WeightTable table;
  table.add("w", {fileExtent("w.bin", 0, w.size() * 2, DType::u16, DType::u16)},
            WeightTranspose{40, 4}, mlir::UnknownLoc::get(&ctx_));
  uint64_t fileBytes = 0;
  const std::string out = path("bad.plan");
  EXPECT_TRUE(mlir::failed(writePlanFile(out, std::vector<uint8_t>(16, 0), table, dir_,
                                         mlir::UnknownLoc::get(&ctx_), fileBytes, 40)));
  EXPECT_FALSE(llvm::sys::fs::exists(out));
}

} // namespace
} // namespace mm

//===- PlanFormat.h - the byte layout of a plan file -------------------------===//
//
// Shared by the emitter (compiler/plan) and the loader (runtime/plan); no dependencies.
//
//   [0, 64)                  FileHeader (little-endian)
//   [64, 64 + fbSize)        the FlatBuffer (schema runtime/plan/plan.fbs, identifier "MMPL")
//   zero padding             up to blobOffset, a multiple of kBlobAlignment
//   [blobOffset, +blobSize)  the weights blob; weight i at blobOffset + weights[i].offset,
//                            each offset a multiple of kWeightAlignment
//
// See docs/plan-format.md.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_PLAN_PLANFORMAT_H
#define MM_RUNTIME_PLAN_PLANFORMAT_H

#include <cstdint>

namespace mm::plan {

/// Version of the file layout and of plan.fbs; a loader accepts exactly this version.
constexpr uint32_t kPlanFormatVersion = 3;
/// First 8 bytes of every plan file.
constexpr char kPlanMagic[8] = {'M', 'M', 'C', 'P', 'L', 'A', 'N', '\0'};
/// The blob starts on a page boundary so weights can be memory-mapped in place.
constexpr uint64_t kBlobAlignment = 4096;
/// Every weight starts on a cache-line boundary (SIMD loads, no false sharing).
constexpr uint64_t kWeightAlignment = 64;
/// The largest dim a plan's tensor may have (checked by the emitter and the loader).
constexpr int64_t kMaxDim = int64_t(1) << 40;

/// The fixed-size header at offset 0.
struct FileHeader {
  char magic[8];         ///< kPlanMagic
  uint32_t version;      ///< kPlanFormatVersion of the writer
  uint32_t headerSize;   ///< sizeof(FileHeader) = 64
  uint64_t fbOffset;     ///< byte offset of the FlatBuffer (= 64)
  uint64_t fbSize;       ///< its size in bytes (< 2 GiB)
  uint64_t blobOffset;   ///< byte offset of the weights blob (multiple of kBlobAlignment)
  uint64_t blobSize;     ///< its size in bytes
  uint64_t reserved[2];  ///< zero
};
static_assert(sizeof(FileHeader) == 64, "the plan header is 64 bytes");

/// Rounds `n` up to a multiple of `align` (a power of two).
constexpr uint64_t alignUp(uint64_t n, uint64_t align) { return (n + align - 1) & ~(align - 1); }

} // namespace mm::plan

#endif // MM_RUNTIME_PLAN_PLANFORMAT_H

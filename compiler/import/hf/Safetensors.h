//===- Safetensors.h - the headers of safetensors checkpoints ----------------===//
//
// safetensors (https://huggingface.co/docs/safetensors, format section): an 8-byte
// little-endian header length N, N bytes of JSON {name: {dtype, shape, data_offsets:
// [begin, end]}, "__metadata__": {string: string}}, then the tensor bytes, offsets relative
// to the first byte after the header. Only the header is read: the IR refers to each
// tensor by (file, absolute offset, length) and the plan writer streams the bytes, so a
// 14 GB checkpoint is never read whole or held in memory.
//
// A sharded checkpoint has model.safetensors.index.json ({"weight_map": {name: file}})
// next to its shards (transformers' save_pretrained layout).
//
//===----------------------------------------------------------------------===//
#ifndef MM_COMPILER_IMPORT_HF_SAFETENSORS_H
#define MM_COMPILER_IMPORT_HF_SAFETENSORS_H

#include "mlir/Support/LogicalResult.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mm::hf {

/// One tensor of a checkpoint: where its bytes are.
struct SafetensorsTensor {
  std::string dtype;          ///< the header's dtype: F32, F16, BF16, F64, I64, I32, ...
  std::vector<int64_t> shape; ///< row-major dims
  std::string file;           ///< the .safetensors file holding it
  int64_t offset = 0;         ///< absolute byte offset in `file`
  int64_t length = 0;         ///< bytes (elements x dtype size)
};

/// Tensors by name.
using TensorMap = std::map<std::string, SafetensorsTensor>;

/// The byte size of one element of `dtype`, or 0 for a dtype safetensors does not define.
int64_t safetensorsDTypeBytes(llvm::StringRef dtype);

/// Reads and validates the header of `path` and adds its tensors to `out`. Checked: the
/// file holds the 8-byte length and the header (at most 100 MB), the header is a JSON
/// object of tensors, each with a known dtype, non-negative dims and `data_offsets`
/// [begin, end] inside the data section whose length is the elements times the dtype size,
/// no two tensors overlapping, no name already in `out`. Fails with a message naming the
/// file and the tensor in `error`; `out` is then unchanged.
mlir::LogicalResult readSafetensorsHeader(const std::string &path, TensorMap &out,
                                          std::string &error);

/// The tensors of the checkpoint in `folder`: model.safetensors, else the shards that
/// model.safetensors.index.json names (each tensor of its weight_map must be in the shard it
/// names; transformers' order), else the one .safetensors file there. Fails (message in `error`)
/// when there is none, when the folder holds several unindexed ones, or on a bad file.
mlir::LogicalResult readCheckpoint(const std::string &folder, TensorMap &out, std::string &error);

/// Whether `folder` holds a safetensors checkpoint (an index or a .safetensors file).
bool hasCheckpoint(const std::string &folder);

} // namespace mm::hf

#endif // MM_COMPILER_IMPORT_HF_SAFETENSORS_H

//===- ModelLoader.h - map and parse an ONNX file without copying weights -===//
//
// The model file is memory-mapped and walked at the protobuf wire level
// (https://protobuf.dev/programming-guides/encoding/): ModelProto field 7 (graph) ->
// GraphProto field 5 (initializer) -> TensorProto field 9 (raw_data). Every other field
// is parsed by protobuf itself; raw_data is skipped and only its byte offset and length in
// the file are kept, so embedded weights are neither copied nor paged in.
//
//===----------------------------------------------------------------------===//
#ifndef MM_COMPILER_IMPORT_ONNX_MODELLOADER_H
#define MM_COMPILER_IMPORT_ONNX_MODELLOADER_H

#include "onnx.pb.h"

#include "mlir/IR/Location.h"
#include "mlir/Support/LogicalResult.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>
#include <vector>

namespace mm::onnx_import {

/// One initializer of the main graph. `proto` holds every field but raw_data.
struct Initializer {
  onnx::TensorProto proto;
  bool hasRawData = false; ///< raw_data was present (possibly empty)
  uint64_t rawOffset = 0;  ///< byte offset of the raw_data payload in the model file
  uint64_t rawLength = 0;  ///< payload length in bytes
};

/// A parsed model file. `model.graph().initializer()` is empty: see `initializers`.
struct LoadedModel {
  std::string path;                          ///< absolute path of the .onnx file
  std::unique_ptr<llvm::MemoryBuffer> file;  ///< the mapped file (raw_data is read from it)
  onnx::ModelProto model;
  std::vector<Initializer> initializers;     ///< in file order

  /// The raw_data bytes of `init` inside the mapped file (touching pages only when read).
  llvm::ArrayRef<char> rawData(const Initializer &init) const;
};

/// Maps `path` and parses it. A missing, unreadable, truncated or malformed file, or one
/// over protobuf's 2 GiB limit, is reported as an error at `loc` (naming the file and
/// the byte position where parsing stopped) and yields failure.
mlir::FailureOr<std::unique_ptr<LoadedModel>> loadModel(llvm::StringRef path, mlir::Location loc);

} // namespace mm::onnx_import

#endif // MM_COMPILER_IMPORT_ONNX_MODELLOADER_H

//===- JsonFile.h - reading the JSON files of a model folder -----------------===//
//
// config.json, generation_config.json, model.safetensors.index.json and the tokenizer and
// processor files are JSON (RFC 8259) parsed with nlohmann-json, without exceptions
// (LLVM-style targets build with -fno-exceptions, where a throwing accessor aborts): every
// reader here checks a value's type before it reads it.
//
//===----------------------------------------------------------------------===//
#ifndef MM_COMPILER_SUPPORT_JSONFILE_H
#define MM_COMPILER_SUPPORT_JSONFILE_H

#include "mlir/Support/LogicalResult.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>

namespace mm {

/// The most of a model-folder file mmc reads whole (config.json, the files a plan keeps,
/// a safetensors index): 64 MiB.
constexpr uint64_t kMaxModelFileBytes = uint64_t(64) << 20;

/// Reads `path` whole: a regular file of at most kMaxModelFileBytes (not a FIFO, a device
/// or a sparse giant). Fails with a message naming the file in `error`.
mlir::LogicalResult readModelFile(const std::string &path, std::unique_ptr<llvm::MemoryBuffer> &out,
                                  std::string &error);

/// Parses `text` (the contents of `path`) as a JSON object. A NUL byte (which nlohmann's
/// parser takes for the end of the input), a syntax error or a value that is not an object
/// fail with a message naming `path`.
mlir::LogicalResult parseJsonObject(llvm::StringRef text, const std::string &path,
                                    nlohmann::json &out, std::string &error);

/// readModelFile + parseJsonObject.
mlir::LogicalResult readJsonObject(const std::string &path, nlohmann::json &out,
                                   std::string &error);

} // namespace mm

#endif // MM_COMPILER_SUPPORT_JSONFILE_H

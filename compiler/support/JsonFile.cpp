//===- JsonFile.cpp - reading the JSON files of a model folder ---------------===//
#include "compiler/support/JsonFile.h"

#include "llvm/Support/FileSystem.h"

namespace mm {

mlir::LogicalResult readModelFile(const std::string &path, std::unique_ptr<llvm::MemoryBuffer> &out,
                                  std::string &error) {
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(path, status)) {
    error = "cannot read '" + path + "': " + ec.message();
    return mlir::failure();
  }
  if (!llvm::sys::fs::is_regular_file(status) || status.getSize() > kMaxModelFileBytes) {
    error = "'" + path + "' is not a regular file of at most 64 MiB (" +
            std::to_string(status.getSize()) + " bytes)";
    return mlir::failure();
  }
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer) {
    error = "cannot read '" + path + "': " + buffer.getError().message();
    return mlir::failure();
  }
  if ((*buffer)->getBufferSize() > kMaxModelFileBytes) { // it grew since the status
    error = "'" + path + "' is over the 64 MiB mmc reads of a model file";
    return mlir::failure();
  }
  out = std::move(*buffer);
  return mlir::success();
}

mlir::LogicalResult parseJsonObject(llvm::StringRef text, const std::string &path,
                                    nlohmann::json &out, std::string &error) {
  if (text.contains('\0')) {
    error = "'" + path + "' is not a JSON object (it holds a NUL byte at " +
            std::to_string(text.find('\0')) + ")";
    return mlir::failure();
  }
  out = nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (out.is_discarded() || !out.is_object()) {
    error = "'" + path + "' is not a JSON object";
    return mlir::failure();
  }
  return mlir::success();
}

mlir::LogicalResult readJsonObject(const std::string &path, nlohmann::json &out,
                                   std::string &error) {
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  if (mlir::failed(readModelFile(path, buffer, error)))
    return mlir::failure();
  return parseJsonObject(buffer->getBuffer(), path, out, error);
}

} // namespace mm

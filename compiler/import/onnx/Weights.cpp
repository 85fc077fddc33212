//===- Weights.cpp - initializers as mm.weight references or mm.constant --===//
#include "compiler/import/onnx/Weights.h"

#include "compiler/import/onnx/TensorData.h"
#include "mm/MMOps.h"

#include "mlir/IR/Diagnostics.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace mlir;

namespace mm::onnx_import {

namespace {

/// Where an externally stored tensor lives.
struct ExternalRef {
  std::string path;
  uint64_t offset = 0;
  uint64_t length = 0;
};

FailureOr<uint64_t> parseU64(StringRef text, Location loc, const std::string &tensor,
                             StringRef key) {
  uint64_t v;
  if (text.getAsInteger(10, v))
    return emitError(loc) << "initializer '" << tensor << "': external data " << key << " '"
                          << text << "' is not a non-negative integer";
  return v;
}

/// Resolves and checks the external_data entries of `t` (type `type`) against the disk.
FailureOr<ExternalRef> resolveExternal(const LoadedModel &model, const onnx::TensorProto &t,
                                       RankedTensorType type, Location loc, FileSizes &sizes) {
  const std::string &name = t.name();
  StringRef location;
  std::optional<uint64_t> offset, length;
  for (const auto &kv : t.external_data()) {
    if (kv.key() == "location") {
      location = kv.value();
    } else if (kv.key() == "offset" || kv.key() == "length") {
      auto v = parseU64(kv.value(), loc, name, kv.key());
      if (failed(v))
        return failure();
      (kv.key() == "offset" ? offset : length) = *v;
    }
  }
  if (location.empty())
    return emitError(loc) << "initializer '" << name << "' is stored externally but has no location";
  llvm::SmallString<256> rel(location);
  llvm::sys::path::native(rel);
  bool escapes = llvm::any_of(llvm::make_range(llvm::sys::path::begin(rel), llvm::sys::path::end(rel)),
                              [](StringRef c) { return c == ".."; });
  if (llvm::sys::path::is_absolute(rel) || escapes)
    return emitError(loc) << "initializer '" << name << "': external data location '" << location
                          << "' must be a relative path inside the model's folder";

  ExternalRef ref;
  llvm::SmallString<256> path(llvm::sys::path::parent_path(model.path));
  llvm::sys::path::append(path, rel);
  ref.path = path.str().str();
  ref.offset = offset.value_or(0);
  uint64_t expected = storageBytes(type.getElementType(), type.getNumElements());
  ref.length = length.value_or(expected);
  if (ref.length != expected)
    return emitError(loc) << "initializer '" << name << "': external data length " << ref.length
                          << " bytes does not match " << type << " (" << expected << " bytes)";

  auto it = sizes.find(ref.path);
  if (it == sizes.end()) {
    llvm::sys::fs::file_status st;
    if (std::error_code ec = llvm::sys::fs::status(ref.path, st))
      return emitError(loc) << "initializer '" << name << "': external data file '" << location
                            << "' not found next to '" << model.path << "' (" << ec.message() << ")";
    if (st.type() != llvm::sys::fs::file_type::regular_file)
      return emitError(loc) << "initializer '" << name << "': external data '" << ref.path
                            << "' is not a regular file";
    it = sizes.insert({ref.path, st.getSize()}).first;
  }
  uint64_t size = it->second;
  if (ref.offset > size || ref.length > size - ref.offset)
    return emitError(loc) << "initializer '" << name << "': external data [" << ref.offset << ", "
                          << ref.offset + ref.length << ") runs past the end of '" << ref.path
                          << "' (" << size << " bytes)";
  return ref;
}

} // namespace

bool isSmallConstant(RankedTensorType type) {
  int64_t n = type.getNumElements();
  return n <= 16 || (isa<IntegerType>(type.getElementType()) &&
                     type.getElementType().getIntOrFloatBitWidth() > 4 && n <= 1024);
}

FailureOr<Value> importInitializer(OpBuilder &b, const LoadedModel &model, const Initializer &init,
                                   Location loc, FileSizes &sizes) {
  const onnx::TensorProto &t = init.proto;
  std::string what = "initializer '" + t.name() + "'";
  if (t.name().empty())
    return emitError(loc) << "an initializer has no name";
  if (t.segment().begin() != 0 || t.segment().end() != 0)
    return emitError(loc) << what << " is segmented (TensorProto.segment is not supported)";
  auto type = tensorType(t, loc, what);
  if (failed(type))
    return failure();
  bool small = isSmallConstant(*type);
  uint64_t bytes = storageBytes(type->getElementType(), type->getNumElements());

  auto constant = [&](std::optional<ArrayRef<char>> data) -> FailureOr<Value> {
    auto value = tensorValue(t, *type, data, loc, what);
    if (failed(value))
      return failure();
    return b.create<mm::ConstantOp>(loc, value->getType(), *value).getResult();
  };
  auto weight = [&](StringRef source, uint64_t offset) -> Value {
    return b.create<mm::WeightOp>(loc, *type, t.name(), source, static_cast<int64_t>(offset),
                                  static_cast<int64_t>(bytes));
  };

  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    auto ref = resolveExternal(model, t, *type, loc, sizes);
    if (failed(ref))
      return failure();
    if (!small)
      return weight(ref->path, ref->offset);
    auto slice = llvm::MemoryBuffer::getFileSlice(ref->path, ref->length, ref->offset);
    if (!slice)
      return emitError(loc) << what << ": cannot read '" << ref->path
                            << "': " << slice.getError().message();
    return constant(ArrayRef<char>((*slice)->getBufferStart(), (*slice)->getBufferSize()));
  }
  if (init.hasRawData) {
    if (init.rawLength != bytes)
      return emitError(loc) << what << " holds " << init.rawLength << " bytes of raw_data but "
                            << *type << " needs " << bytes;
    if (!small)
      return weight(model.path, init.rawOffset);
    return constant(model.rawData(init));
  }
  return constant(std::nullopt);
}

} // namespace mm::onnx_import

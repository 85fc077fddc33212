//===- ModelLoader.cpp - map and parse an ONNX file without copying weights ===//
#include "compiler/import/onnx/ModelLoader.h"

#include "mlir/IR/Diagnostics.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <climits>

#if defined(__unix__)
#include <sys/mman.h>
#include <unistd.h>
#endif

using namespace mlir;
using google::protobuf::MessageLite;
using google::protobuf::io::CodedInputStream;
using google::protobuf::internal::WireFormatLite;

namespace mm::onnx_import {

namespace {

constexpr uint32_t kModelGraph = 7;       // ModelProto.graph
constexpr uint32_t kGraphInitializer = 5; // GraphProto.initializer
constexpr uint32_t kTensorRawData = 9;    // TensorProto.raw_data

/// Walks one message's fields in `in` (up to the current limit). Fields for which
/// `special(field, in)` returns true were consumed by it; the byte ranges of all others
/// are merged into `msg` by protobuf. Returns false on malformed input.
template <typename Special>
bool walkMessage(CodedInputStream &in, const uint8_t *base, MessageLite &msg, Special special) {
  int runStart = -1, runEnd = -1;
  auto flush = [&]() {
    if (runStart < 0)
      return true;
    CodedInputStream sub(base + runStart, runEnd - runStart);
    sub.SetTotalBytesLimit(INT_MAX);
    bool ok = msg.MergePartialFromCodedStream(&sub) && sub.ConsumedEntireMessage();
    runStart = runEnd = -1;
    return ok;
  };
  while (true) {
    int start = in.CurrentPosition();
    uint32_t tag = in.ReadTag();
    if (tag == 0)
      return in.ConsumedEntireMessage() && flush();
    uint32_t field = WireFormatLite::GetTagFieldNumber(tag);
    bool lengthDelimited =
        WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
    if (lengthDelimited) {
      int handled = special(field, in);
      if (handled < 0)
        return false;
      if (handled > 0) {
        if (!flush())
          return false;
        continue;
      }
    }
    if (!WireFormatLite::SkipField(&in, tag))
      return false;
    if (runStart < 0)
      runStart = start;
    runEnd = in.CurrentPosition();
  }
}

/// Reads a length prefix and pushes it as a limit; false when it runs past the input.
bool pushLength(CodedInputStream &in, CodedInputStream::Limit &limit) {
  uint32_t len;
  if (!in.ReadVarint32(&len))
    return false;
  int left = in.BytesUntilLimit();
  if (len > static_cast<uint32_t>(INT_MAX) || (left >= 0 && static_cast<int>(len) > left))
    return false;
  limit = in.PushLimit(static_cast<int>(len));
  return true;
}

/// TensorProto: every field but raw_data, whose position is recorded.
bool readInitializer(CodedInputStream &in, const uint8_t *base, Initializer &init) {
  return walkMessage(in, base, init.proto, [&](uint32_t field, CodedInputStream &s) -> int {
    if (field != kTensorRawData)
      return 0;
    uint32_t len;
    if (!s.ReadVarint32(&len))
      return -1;
    int left = s.BytesUntilLimit();
    if (left < 0 || len > static_cast<uint32_t>(left))
      return -1;
    init.hasRawData = true;
    init.rawOffset = static_cast<uint64_t>(s.CurrentPosition());
    init.rawLength = len;
    return s.Skip(static_cast<int>(len)) ? 1 : -1;
  });
}

bool readGraph(CodedInputStream &in, const uint8_t *base, LoadedModel &m) {
  onnx::GraphProto &graph = *m.model.mutable_graph();
  return walkMessage(in, base, graph, [&](uint32_t field, CodedInputStream &s) -> int {
    if (field != kGraphInitializer)
      return 0;
    CodedInputStream::Limit limit;
    if (!pushLength(s, limit))
      return -1;
    m.initializers.emplace_back();
    if (!readInitializer(s, base, m.initializers.back()))
      return -1;
    s.PopLimit(limit);
    return 1;
  });
}

bool readModel(CodedInputStream &in, const uint8_t *base, LoadedModel &m) {
  return walkMessage(in, base, m.model, [&](uint32_t field, CodedInputStream &s) -> int {
    if (field != kModelGraph)
      return 0;
    CodedInputStream::Limit limit;
    if (!pushLength(s, limit))
      return -1;
    if (!readGraph(s, base, m))
      return -1;
    s.PopLimit(limit);
    return 1;
  });
}

/// Embedded weights are skipped, not read: tell the kernel not to read ahead around the
/// tensor headers we touch, so that mapping a 2 GB model pages in only its metadata.
void adviseRandomAccess(const llvm::MemoryBuffer &buf) {
#if defined(__unix__)
  if (buf.getBufferKind() != llvm::MemoryBuffer::MemoryBuffer_MMap)
    return;
  uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t start = reinterpret_cast<uintptr_t>(buf.getBufferStart()) & ~(page - 1);
  uintptr_t end = reinterpret_cast<uintptr_t>(buf.getBufferEnd());
  madvise(reinterpret_cast<void *>(start), end - start, MADV_RANDOM);
#endif
}

} // namespace

llvm::ArrayRef<char> LoadedModel::rawData(const Initializer &init) const {
  return llvm::ArrayRef<char>(file->getBufferStart() + init.rawOffset, init.rawLength);
}

FailureOr<std::unique_ptr<LoadedModel>> loadModel(llvm::StringRef path, Location loc) {
  auto m = std::make_unique<LoadedModel>();
  llvm::SmallString<256> abs(path);
  if (std::error_code ec = llvm::sys::fs::make_absolute(abs))
    return emitError(loc) << "cannot resolve path '" << path << "': " << ec.message();
  llvm::sys::path::remove_dots(abs, /*remove_dot_dot=*/true);
  m->path = abs.str().str();

  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(abs, status))
    return emitError(loc) << "cannot open ONNX model '" << path << "': " << ec.message();
  if (status.type() != llvm::sys::fs::file_type::regular_file)
    return emitError(loc) << "ONNX model '" << path << "' is not a regular file";
  if (status.getSize() > static_cast<uint64_t>(INT_MAX))
    return emitError(loc) << "ONNX model '" << path << "' is " << status.getSize()
                          << " bytes; protobuf files are limited to 2 GiB (store the weights "
                             "as external data)";
  auto buf = llvm::MemoryBuffer::getFile(abs, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false, /*IsVolatile=*/false);
  if (!buf)
    return emitError(loc) << "cannot read ONNX model '" << path << "': " << buf.getError().message();
  m->file = std::move(*buf);
  adviseRandomAccess(*m->file);

  const auto *base = reinterpret_cast<const uint8_t *>(m->file->getBufferStart());
  int size = static_cast<int>(m->file->getBufferSize());
  CodedInputStream in(base, size);
  in.SetTotalBytesLimit(INT_MAX);
  if (size == 0 || !readModel(in, base, *m))
    return emitError(loc) << "'" << path << "' is not a valid ONNX model: protobuf parsing failed "
                          << "near byte " << in.CurrentPosition() << " of " << size
                          << " (file truncated or corrupt?)";
  if (!m->model.has_graph())
    return emitError(loc) << "'" << path << "' is not a valid ONNX model: it has no graph";
  return m;
}

} // namespace mm::onnx_import

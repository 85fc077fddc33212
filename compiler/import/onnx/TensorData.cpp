//===- TensorData.cpp - ONNX element types, value types and tensor contents ===//
#include "compiler/import/onnx/TensorData.h"

#include "compiler/import/onnx/ShapeInference.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/APInt.h"

#include <cstring>

using namespace mlir;

namespace mm::onnx_import {

namespace {
using TP = onnx::TensorProto;

bool isFourBit(Type t) { return t.isIntOrFloat() && t.getIntOrFloatBitWidth() == 4; }

/// Unpacks 4-bit elements (two per byte, low nibble first) into APInts.
SmallVector<APInt> unpackNibbles(llvm::ArrayRef<uint8_t> packed, int64_t n, bool isSigned) {
  SmallVector<APInt> out;
  out.reserve(n);
  for (int64_t i = 0; i < n; ++i) {
    uint8_t nibble = (packed[i / 2] >> (4 * (i % 2))) & 0xF;
    out.push_back(APInt(4, nibble, isSigned));
  }
  return out;
}

/// Builds the attribute from a buffer in ONNX raw layout (validated size).
DenseElementsAttr fromRaw(RankedTensorType type, llvm::ArrayRef<char> bytes) {
  Type elt = type.getElementType();
  int64_t n = type.getNumElements();
  if (elt.isInteger(1)) {
    SmallVector<bool> values(n);
    for (int64_t i = 0; i < n; ++i)
      values[i] = bytes[i] != 0;
    return DenseElementsAttr::get(type, ArrayRef<bool>(values));
  }
  if (isFourBit(elt)) {
    llvm::ArrayRef<uint8_t> packed(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
    return DenseElementsAttr::get(type, unpackNibbles(packed, n, !elt.isUnsignedInteger()));
  }
  return DenseElementsAttr::getFromRawBuffer(type, bytes);
}

/// Appends the low `width` bytes of each value (little-endian host) to `out`.
template <typename T>
void appendLowBytes(std::vector<char> &out, const google::protobuf::RepeatedField<T> &values,
                    unsigned width) {
  for (T v : values) {
    char buf[sizeof(T)];
    std::memcpy(buf, &v, sizeof(T));
    out.insert(out.end(), buf, buf + width);
  }
}

} // namespace

Type elementType(int32_t onnxType, MLIRContext *ctx) {
  Builder b(ctx);
  auto uint = [&](unsigned w) { return IntegerType::get(ctx, w, IntegerType::Unsigned); };
  switch (onnxType) {
  case TP::FLOAT: return b.getF32Type();
  case TP::UINT8: return uint(8);
  case TP::INT8: return b.getIntegerType(8);
  case TP::UINT16: return uint(16);
  case TP::INT16: return b.getIntegerType(16);
  case TP::INT32: return b.getIntegerType(32);
  case TP::INT64: return b.getIntegerType(64);
  case TP::BOOL: return b.getI1Type();
  case TP::FLOAT16: return b.getF16Type();
  case TP::DOUBLE: return b.getF64Type();
  case TP::UINT32: return uint(32);
  case TP::UINT64: return uint(64);
  case TP::BFLOAT16: return b.getBF16Type();
  case 17: return b.getFloat8E4M3FNType();     // FLOAT8E4M3FN
  case 18: return b.getFloat8E4M3FNUZType();   // FLOAT8E4M3FNUZ
  case 19: return b.getFloat8E5M2Type();       // FLOAT8E5M2
  case 20: return b.getFloat8E5M2FNUZType();   // FLOAT8E5M2FNUZ
  case 21: return uint(4);                     // UINT4
  case 22: return b.getIntegerType(4);         // INT4
  default: return Type();
  }
}

std::string dataTypeName(int32_t onnxType) {
  static const char *names[] = {"UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16",
                                "INT32", "INT64", "STRING", "BOOL", "FLOAT16", "DOUBLE",
                                "UINT32", "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16",
                                "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2",
                                "FLOAT8E5M2FNUZ", "UINT4", "INT4", "FLOAT4E2M1",
                                "FLOAT8E8M0", "UINT2", "INT2"};
  if (onnxType >= 0 && onnxType < static_cast<int32_t>(std::size(names)))
    return names[onnxType];
  return "type " + std::to_string(onnxType);
}

uint64_t storageBytes(Type type, int64_t numElements) {
  unsigned bits = type.getIntOrFloatBitWidth();
  if (bits == 1)
    bits = 8;
  return (static_cast<uint64_t>(numElements) * bits + 7) / 8;
}

FailureOr<RankedTensorType> tensorType(const onnx::TensorProto &tensor, Location loc,
                                       llvm::StringRef what) {
  Type elt = elementType(tensor.data_type(), loc.getContext());
  if (!elt)
    return emitError(loc) << what << " has unsupported element type "
                          << dataTypeName(tensor.data_type());
  SmallVector<int64_t> shape;
  int64_t count = 1;
  for (int64_t d : tensor.dims()) {
    if (d < 0 || d > kMaxDim)
      return emitError(loc) << what << " has an invalid dim " << d;
    if (d > 0 && count > (int64_t(1) << 55) / d)
      return emitError(loc) << what << " has too many elements";
    count *= d;
    shape.push_back(d);
  }
  return RankedTensorType::get(shape, elt);
}

FailureOr<DenseElementsAttr> tensorValue(const onnx::TensorProto &t, RankedTensorType type,
                                         std::optional<llvm::ArrayRef<char>> bytes, Location loc,
                                         llvm::StringRef what) {
  Type elt = type.getElementType();
  int64_t n = type.getNumElements();
  uint64_t expected = storageBytes(elt, n);
  if (bytes) {
    if (bytes->size() != expected)
      return emitError(loc) << what << " holds " << bytes->size() << " bytes but " << type
                            << " needs " << expected;
    return fromRaw(type, *bytes);
  }

  // Typed fields (onnx.proto: which field holds which data type).
  std::vector<char> raw;
  int64_t stored = 0;
  unsigned width = elt.isInteger(1) ? 1 : (elt.getIntOrFloatBitWidth() + 7) / 8;
  switch (t.data_type()) {
  case TP::FLOAT:
    stored = t.float_data_size();
    appendLowBytes(raw, t.float_data(), 4);
    break;
  case TP::INT64:
    stored = t.int64_data_size();
    appendLowBytes(raw, t.int64_data(), 8);
    break;
  case TP::DOUBLE:
    stored = t.double_data_size();
    appendLowBytes(raw, t.double_data(), 8);
    break;
  case TP::UINT32:
  case TP::UINT64:
    stored = t.uint64_data_size();
    appendLowBytes(raw, t.uint64_data(), width);
    break;
  case 21: // UINT4
  case 22: // INT4: int32_data holds the packed bytes
    stored = t.int32_data_size();
    if (static_cast<uint64_t>(stored) != expected)
      return emitError(loc) << what << " has " << stored << " packed int32_data entries but "
                            << type << " needs " << expected;
    appendLowBytes(raw, t.int32_data(), 1);
    return fromRaw(type, raw);
  case TP::STRING:
  case TP::COMPLEX64:
  case TP::COMPLEX128:
    return emitError(loc) << what << " has unsupported element type "
                          << dataTypeName(t.data_type());
  default: // INT32, INT16, INT8, UINT16, UINT8, BOOL, FLOAT16, BFLOAT16, FLOAT8*
    stored = t.int32_data_size();
    appendLowBytes(raw, t.int32_data(), width);
    break;
  }
  if (stored != n)
    return emitError(loc) << what << " has " << stored << " values but " << type << " needs " << n;
  return fromRaw(type, raw);
}

FailureOr<std::optional<DeclaredType>> declaredType(const onnx::ValueInfoProto &info,
                                                    Location loc, MLIRContext *ctx) {
  if (!info.has_type() || info.type().value_case() == onnx::TypeProto::VALUE_NOT_SET)
    return std::optional<DeclaredType>();
  if (!info.type().has_tensor_type())
    return emitError(loc) << "value '" << info.name()
                          << "' is not a tensor (sequence, map and optional values are not "
                             "supported)";
  const auto &tt = info.type().tensor_type();
  if (!tt.has_shape())
    return std::optional<DeclaredType>();
  Type elt = elementType(tt.elem_type(), ctx);
  if (!elt)
    return emitError(loc) << "value '" << info.name() << "' has unsupported element type "
                          << dataTypeName(tt.elem_type());
  DeclaredType out;
  SmallVector<int64_t> shape;
  for (const auto &d : tt.shape().dim()) {
    if (d.has_dim_value()) {
      if (d.dim_value() < 0 || d.dim_value() > kMaxDim)
        return emitError(loc) << "value '" << info.name() << "' has an invalid dim "
                              << d.dim_value();
      shape.push_back(d.dim_value());
      out.dimNames.push_back("");
    } else {
      shape.push_back(ShapedType::kDynamic);
      out.dimNames.push_back(d.dim_param());
    }
  }
  out.type = RankedTensorType::get(shape, elt);
  return std::optional<DeclaredType>(std::move(out));
}

} // namespace mm::onnx_import

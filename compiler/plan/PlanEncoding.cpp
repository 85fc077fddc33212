//===- PlanEncoding.cpp - MLIR types and attributes as plan FlatBuffer values -===//
#include "compiler/plan/PlanEncoding.h"

#include "mm/MMOps.h"

#include "mlir/IR/Diagnostics.h"

#include <cstring>

using namespace mlir;
namespace fb = mm::plan::fb;

namespace mm {

FailureOr<fb::DType> planDType(Type type) {
  if (type.isF32()) return fb::DType::f32;
  if (type.isF16()) return fb::DType::f16;
  if (type.isBF16()) return fb::DType::bf16;
  if (type.isF64()) return fb::DType::f64;
  auto it = dyn_cast<IntegerType>(type);
  if (!it)
    return failure();
  bool u = it.isUnsigned();
  switch (it.getWidth()) {
  case 1: return fb::DType::boolean;
  case 8: return u ? fb::DType::u8 : fb::DType::i8;
  case 16: return u ? fb::DType::u16 : fb::DType::i16;
  case 32: return u ? fb::DType::u32 : fb::DType::i32;
  case 64: return u ? fb::DType::u64 : fb::DType::i64;
  default: return failure();
  }
}

uint64_t planDTypeSize(fb::DType t) {
  switch (t) {
  case fb::DType::f64: case fb::DType::i64: case fb::DType::u64: return 8;
  case fb::DType::f32: case fb::DType::i32: case fb::DType::u32: return 4;
  case fb::DType::f16: case fb::DType::bf16: case fb::DType::i16: case fb::DType::u16: return 2;
  default: return 1;
  }
}

FailureOr<std::vector<uint8_t>> denseBytes(ElementsAttr value, Location loc) {
  auto type = cast<ShapedType>(value.getType());
  auto dtype = planDType(type.getElementType());
  if (failed(dtype))
    return emitError(loc) << "constant of element type " << type.getElementType()
                          << " cannot be put in a plan";
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense)
    return emitError(loc) << "constant stored as " << value
                          << " cannot be put in a plan (only dense elements)";
  const uint64_t n = static_cast<uint64_t>(type.getNumElements());
  const uint64_t es = planDTypeSize(*dtype);
  std::vector<uint8_t> bytes(n * es);
  if (*dtype == fb::DType::boolean) {
    size_t i = 0;
    for (bool b : dense.getValues<bool>())
      bytes[i++] = b ? 1 : 0;
    return bytes;
  }
  ArrayRef<char> raw = dense.getRawData();
  if (dense.isSplat() && raw.size() == es) {
    for (uint64_t i = 0; i < n; ++i)
      std::memcpy(bytes.data() + i * es, raw.data(), es);
  } else if (raw.size() == bytes.size()) {
    if (!bytes.empty())
      std::memcpy(bytes.data(), raw.data(), raw.size());
  } else {
    return emitError(loc) << "constant " << type << " has " << raw.size()
                          << " bytes of storage, expected " << bytes.size();
  }
  return bytes;
}

FailureOr<flatbuffers::Offset<fb::TensorData>>
encodeTensorData(flatbuffers::FlatBufferBuilder &fbb, ElementsAttr value, Location loc,
                 uint64_t *bytesOut) {
  auto bytes = denseBytes(value, loc);
  if (failed(bytes))
    return failure();
  auto type = cast<ShapedType>(value.getType());
  if (bytesOut)
    *bytesOut = bytes->size();
  auto shape = fbb.CreateVector(type.getShape().data(), type.getShape().size());
  auto data = fbb.CreateVector(*bytes);
  return fb::CreateTensorData(fbb, *planDType(type.getElementType()), shape, data);
}

namespace {

using AttrOffset = flatbuffers::Offset<fb::Attribute>;

/// The value of an mm enum attribute of one of the types `Ts` (the plan stores enums as
/// integers), or std::nullopt.
template <typename... Ts> std::optional<int64_t> enumValue(Attribute attr) {
  std::optional<int64_t> v;
  ((isa<Ts>(attr) ? void(v = static_cast<int64_t>(cast<Ts>(attr).getValue())) : void()), ...);
  return v;
}

/// One attribute value; fails (no diagnostic) for a kind the plan cannot hold.
FailureOr<AttrOffset> encodeValue(flatbuffers::FlatBufferBuilder &fbb, StringRef name,
                                  Attribute attr, Operation *op) {
  auto nameOff = fbb.CreateString(name.str());
  auto make = [&](fb::AttrValue type, flatbuffers::Offset<void> v) {
    return fb::CreateAttribute(fbb, nameOff, type, v);
  };
  auto ints = [&](ArrayRef<int64_t> v) {
    return make(fb::AttrValue::IntListAttr, fb::CreateIntListAttr(fbb, fbb.CreateVector(v.data(), v.size())).Union());
  };
  auto floats = [&](ArrayRef<double> v) {
    return make(fb::AttrValue::FloatListAttr, fb::CreateFloatListAttr(fbb, fbb.CreateVector(v.data(), v.size())).Union());
  };

  // constant_of_shape keeps the element type of its scalar `value`.
  if (isa<ConstantOfShapeOp>(op) && name == "value" && isa<IntegerAttr, FloatAttr>(attr)) {
    auto typed = cast<TypedAttr>(attr);
    auto tensorType = RankedTensorType::get({}, typed.getType());
    auto data = encodeTensorData(fbb, DenseElementsAttr::get(tensorType, typed), op->getLoc());
    if (failed(data))
      return failure();
    return make(fb::AttrValue::TensorAttr, fb::CreateTensorAttr(fbb, *data).Union());
  }
  if (auto b = dyn_cast<BoolAttr>(attr))
    return make(fb::AttrValue::IntAttr, fb::CreateIntAttr(fbb, b.getValue()).Union());
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return make(fb::AttrValue::IntAttr, fb::CreateIntAttr(fbb, i.getValue().getSExtValue()).Union());
  if (auto f = dyn_cast<FloatAttr>(attr))
    return make(fb::AttrValue::FloatAttr, fb::CreateFloatAttr(fbb, f.getValueAsDouble()).Union());
  if (auto s = dyn_cast<StringAttr>(attr))
    return make(fb::AttrValue::StringAttr, fb::CreateStringAttr(fbb, fbb.CreateString(s.str())).Union());
  if (auto v = enumValue<GeluApproximationAttr, ActivationAttr, PadModeAttr, ResizeModeAttr,
                         ResizeCoordinateModeAttr, NearestModeAttr, ScatterReductionAttr>(attr))
    return make(fb::AttrValue::IntAttr, fb::CreateIntAttr(fbb, *v).Union());
  if (auto a = dyn_cast<DenseI64ArrayAttr>(attr))
    return ints(a.asArrayRef());
  if (auto a = dyn_cast<DenseI32ArrayAttr>(attr))
    return ints(SmallVector<int64_t>(a.asArrayRef().begin(), a.asArrayRef().end()));
  if (auto a = dyn_cast<DenseBoolArrayAttr>(attr))
    return ints(SmallVector<int64_t>(a.asArrayRef().begin(), a.asArrayRef().end()));
  if (auto a = dyn_cast<DenseF64ArrayAttr>(attr))
    return floats(a.asArrayRef());
  if (auto a = dyn_cast<DenseF32ArrayAttr>(attr))
    return floats(SmallVector<double>(a.asArrayRef().begin(), a.asArrayRef().end()));
  if (auto a = dyn_cast<ArrayAttr>(attr)) {
    if (llvm::all_of(a, [](Attribute x) { return isa<IntegerAttr>(x); })) {
      SmallVector<int64_t> v;
      for (Attribute x : a)
        v.push_back(cast<IntegerAttr>(x).getValue().getSExtValue());
      return ints(v);
    }
    if (llvm::all_of(a, [](Attribute x) { return isa<FloatAttr>(x); })) {
      SmallVector<double> v;
      for (Attribute x : a)
        v.push_back(cast<FloatAttr>(x).getValueAsDouble());
      return floats(v);
    }
    return failure();
  }
  if (auto e = dyn_cast<ElementsAttr>(attr)) {
    auto data = encodeTensorData(fbb, e, op->getLoc());
    if (failed(data))
      return failure();
    return make(fb::AttrValue::TensorAttr, fb::CreateTensorAttr(fbb, *data).Union());
  }
  return failure();
}

} // namespace

FailureOr<std::vector<AttrOffset>> encodeAttributes(flatbuffers::FlatBufferBuilder &fbb,
                                                    Operation *op) {
  if (op->getPropertiesStorageSize())
    op->getName().populateDefaultProperties(op->getPropertiesStorage());
  std::vector<AttrOffset> out;
  for (NamedAttribute attr : op->getAttrDictionary()) {
    StringRef name = attr.getName().strref();
    if (name.contains('.'))
      continue; // discardable dialect attribute (mm.name, ...), not an op argument
    auto encoded = encodeValue(fbb, name, attr.getValue(), op);
    if (failed(encoded))
      return op->emitError() << "attribute '" << name << "' (" << attr.getValue()
                             << ") cannot be put in a plan";
    out.push_back(*encoded);
  }
  return out;
}

} // namespace mm

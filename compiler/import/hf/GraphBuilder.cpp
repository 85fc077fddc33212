//===- GraphBuilder.cpp - building `mm` functions from a checkpoint ----------===//
#include "compiler/import/hf/GraphBuilder.h"

#include "runtime/core/DimRules.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringSwitch.h"

#include <sstream>

using namespace mlir;

namespace mm::hf {
namespace {

std::string shapeString(ArrayRef<int64_t> shape) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < shape.size(); ++i)
    os << (i ? ", " : "") << shape[i];
  os << "]";
  return os.str();
}

/// The MLIR element type of a safetensors float dtype, or null.
Type floatTypeOf(MLIRContext *ctx, llvm::StringRef dtype) {
  OpBuilder b(ctx);
  return llvm::StringSwitch<Type>(dtype)
      .Case("F32", b.getF32Type())
      .Case("F16", b.getF16Type())
      .Case("BF16", b.getBF16Type())
      .Case("F64", b.getF64Type())
      .Default(Type());
}

} // namespace

GraphBuilder::GraphBuilder(Block &block, Location loc, const TensorMap &tensors, Type floatType)
    : b_(block.getParentOp()->getContext()), fileLoc_(loc), loc_(loc), tensors_(tensors), float_(floatType) {
  b_.setInsertionPointToEnd(&block);
}

void GraphBuilder::at(const std::string &module) {
  loc_ = NameLoc::get(b_.getStringAttr(module), fileLoc_);
}

void GraphBuilder::fail(const std::string &message) {
  if (error_.empty())
    error_ = message;
}

const SafetensorsTensor *GraphBuilder::find(const Prefixes &prefixes, const std::string &name,
                                            std::string *resolved) const {
  for (const std::string &p : prefixes)
    if (auto it = tensors_.find(p + name); it != tensors_.end()) {
      if (resolved)
        *resolved = it->first;
      return &it->second;
    }
  return nullptr;
}

void GraphBuilder::expectLayers(const Prefixes &prefixes, const std::string &stem, int64_t count,
                                const std::string &field) {
  int64_t found = 0;
  std::string shown = prefixes.front(); // the spelling the checkpoint's layers use
  for (const std::string &p : prefixes) {
    const std::string head = p + stem;
    for (auto it = tensors_.lower_bound(head); it != tensors_.end() && llvm::StringRef(it->first).starts_with(head); ++it) {
      int64_t layer = 0;
      llvm::StringRef rest = llvm::StringRef(it->first).drop_front(head.size());
      // An index past any count compared (the config's is at most kMaxLayers) counts as
      // that many, without overflowing.
      if (!rest.consumeInteger(10, layer) && rest.starts_with(".") && layer >= 0) {
        found = std::max(found, std::min<int64_t>(layer, int64_t(1) << 40) + 1);
        shown = p;
      }
    }
  }
  if (found != count)
    fail("config.json's " + field + " is " + std::to_string(count) + ", but the checkpoint has " +
         std::to_string(found) + " layers (" + shown + stem + "<i>.*)");
}

Type GraphBuilder::tensorType(ArrayRef<int64_t> shape, Type element) const {
  return RankedTensorType::get(shape, element);
}

SmallVector<int64_t> GraphBuilder::shapeOf(Value v) {
  return SmallVector<int64_t>(llvm::cast<RankedTensorType>(v.getType()).getShape());
}

Value GraphBuilder::zeros(ArrayRef<int64_t> shape) {
  auto type = RankedTensorType::get(shape, float_);
  return create<ConstantOp>(type, DenseElementsAttr::get(type, b_.getZeroAttr(float_)));
}

Value GraphBuilder::weight(const Prefixes &prefixes, const std::string &name, ArrayRef<int64_t> shape) {
  std::string resolved;
  const SafetensorsTensor *t = find(prefixes, name, &resolved);
  if (!t) {
    std::string tried;
    for (size_t i = 0; i < prefixes.size(); ++i)
      tried += (i ? ", '" : "'") + prefixes[i] + name + "'";
    fail("the checkpoint has no tensor " + name + " (looked for " + tried + ")");
    return zeros(shape);
  }
  if (auto it = weights_.find(resolved); it != weights_.end())
    return it->second;
  Type element = floatTypeOf(b_.getContext(), t->dtype);
  if (!element) {
    fail(t->file + ": tensor '" + resolved + "' is " + t->dtype + ", not a float tensor");
    return zeros(shape);
  }
  if (ArrayRef<int64_t>(t->shape) != shape) {
    fail(t->file + ": tensor '" + resolved + "' has shape " + shapeString(t->shape) +
         "; config.json makes it " + shapeString(shape));
    return zeros(shape);
  }
  Value w = create<WeightOp>(tensorType(shape, element), resolved, t->file, t->offset, t->length);
  if (element != float_)
    w = cast(w, float_);
  weights_[resolved] = w;
  return w;
}

Value GraphBuilder::linearWeight(const Prefixes &prefixes, const std::string &name, int64_t n, int64_t k) {
  return transpose(weight(prefixes, name, {n, k}), {1, 0});
}

Value GraphBuilder::linear(Value x, const Prefixes &prefixes, const std::string &name, int64_t n,
                           bool bias, Activation act) {
  SmallVector<int64_t> shape = shapeOf(x);
  const int64_t k = shape.back();
  Value w = linearWeight(prefixes, name + ".weight", n, k);
  Value b = bias ? weight(prefixes, name + ".bias", {n}) : Value();
  shape.back() = n;
  return create<LinearOp>(tensorType(shape, float_), x, w, b, act);
}

Value GraphBuilder::i64s(ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())}, b_.getI64Type());
  return create<ConstantOp>(type, DenseElementsAttr::get(type, values));
}

Value GraphBuilder::i64Scalar(int64_t value) {
  auto type = RankedTensorType::get({}, b_.getI64Type());
  return create<ConstantOp>(type, DenseElementsAttr::get(type, ArrayRef<int64_t>{value}));
}

Value GraphBuilder::floats(ArrayRef<float> values, ArrayRef<int64_t> shape, Type type) {
  auto f32 = RankedTensorType::get(shape, b_.getF32Type());
  Value c = create<ConstantOp>(f32, DenseElementsAttr::get(f32, values));
  return type.isF32() ? c : cast(c, type);
}

Value GraphBuilder::dim(Value x, int64_t index) {
  return create<DimOp>(RankedTensorType::get({1}, b_.getI64Type()), x, index);
}

Value GraphBuilder::scalarDim(Value x, int64_t index) {
  return create<SqueezeOp>(RankedTensorType::get({}, b_.getI64Type()), dim(x, index),
                           ArrayRef<int64_t>{0});
}

Value GraphBuilder::reshape(Value x, ArrayRef<int64_t> shape) {
  // ONNX Reshape (dims::reshapeEntry); the dims a 0 copies cancel out of what the -1 takes,
  // so [?, 64, 4, 4] by [0, 64, -1] is [?, 64, 16].
  SmallVector<int64_t> in = shapeOf(x), out;
  int64_t left = 1, explicitDims = 1, inferAt = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    switch (dims::reshapeEntry(shape[i], false)) {
    case dims::ReshapeEntry::copy:
      if (i >= in.size()) {
        fail("internal: a reshape copies dim " + std::to_string(i) + " of a rank-" +
             std::to_string(in.size()) + " value");
        return x;
      }
      out.push_back(in[i]);
      break;
    case dims::ReshapeEntry::infer:
      inferAt = static_cast<int64_t>(i);
      out.push_back(kDyn);
      break;
    default:
      explicitDims *= shape[i];
      out.push_back(shape[i]);
    }
  }
  for (size_t i = 0; i < in.size(); ++i)
    if (i >= shape.size() || dims::reshapeEntry(shape[i], false) != dims::ReshapeEntry::copy)
      left = (in[i] == kDyn || left == kDyn) ? kDyn : left * in[i];
  if (inferAt >= 0 && left != kDyn && explicitDims > 0)
    out[inferAt] = left / explicitDims;
  return create<ReshapeOp>(tensorType(out, getElementTypeOrSelf(x.getType())), x, i64s(shape));
}

Value GraphBuilder::transpose(Value x, ArrayRef<int64_t> perm) {
  SmallVector<int64_t> in = shapeOf(x), out;
  for (int64_t p : perm)
    out.push_back(in[p]);
  return create<TransposeOp>(tensorType(out, getElementTypeOrSelf(x.getType())), x, perm);
}

Value GraphBuilder::unsqueeze(Value x, ArrayRef<int64_t> axes) {
  SmallVector<int64_t> out = shapeOf(x);
  for (int64_t a : axes) // ascending, indexing the result
    out.insert(out.begin() + a, 1);
  return create<UnsqueezeOp>(tensorType(out, getElementTypeOrSelf(x.getType())), x, axes);
}

Value GraphBuilder::concat(ValueRange xs, int64_t axis) {
  SmallVector<int64_t> out = shapeOf(xs.front());
  out[axis] = 0;
  for (Value x : xs) {
    int64_t d = shapeOf(x)[axis];
    out[axis] = (d == kDyn || out[axis] == kDyn) ? kDyn : out[axis] + d;
  }
  return create<ConcatOp>(tensorType(out, getElementTypeOrSelf(xs.front().getType())), xs, axis);
}

Value GraphBuilder::slice(Value x, int64_t axis, int64_t start, int64_t end) {
  SmallVector<int64_t> out = shapeOf(x);
  if (out[axis] != kDyn)
    out[axis] = dims::sliceBounds(out[axis], start, end, 1)->count;
  return create<SliceOp>(tensorType(out, getElementTypeOrSelf(x.getType())), x, i64s({start}),
                         i64s({end}), i64s({axis}), i64s({1}));
}

Value GraphBuilder::cast(Value x, Type elementType) {
  return create<CastOp>(tensorType(shapeOf(x), elementType), x);
}

namespace {

template <typename Op> Value binary(GraphBuilder &g, Value a, Value b, const char *what) {
  SmallVector<int64_t> out;
  if (!dims::broadcastShapes(GraphBuilder::shapeOf(a), GraphBuilder::shapeOf(b), out, kDyn))
    g.fail(std::string("internal: the operands of ") + what + " do not broadcast");
  return g.create<Op>(g.tensorType(out, getElementTypeOrSelf(a.getType())), a, b);
}

} // namespace

Value GraphBuilder::add(Value a, Value b) { return binary<AddOp>(*this, a, b, "an add"); }
Value GraphBuilder::mul(Value a, Value b) { return binary<MulOp>(*this, a, b, "a mul"); }
Value GraphBuilder::sub(Value a, Value b) { return binary<SubOp>(*this, a, b, "a sub"); }
Value GraphBuilder::div(Value a, Value b) { return binary<DivOp>(*this, a, b, "a div"); }

Value GraphBuilder::layerNorm(Value x, Value scale, Value bias, double eps) {
  const int64_t last = static_cast<int64_t>(shapeOf(x).size()) - 1;
  return create<LayerNormOp>(x.getType(), x, scale, bias, b_.getI64IntegerAttr(last),
                             b_.getF32FloatAttr(static_cast<float>(eps)));
}

Value GraphBuilder::rmsNorm(Value x, Value scale, double eps, double scaleOffset) {
  return create<RMSNormOp>(x.getType(), x, scale, b_.getF32FloatAttr(static_cast<float>(eps)),
                           b_.getF32FloatAttr(static_cast<float>(scaleOffset)));
}

Value GraphBuilder::attention(Value q, Value k, Value v, Value mask, double scale) {
  SmallVector<int64_t> out = shapeOf(q);
  out.back() = shapeOf(v).back();
  return create<AttentionOp>(tensorType(out, float_), q, k, v, mask,
                             b_.getF32FloatAttr(static_cast<float>(scale)), b_.getBoolAttr(false));
}

Value GraphBuilder::splitHeads(Value x, int64_t heads, int64_t headDim) {
  return transpose(reshape(x, {0, 0, heads, headDim}), {0, 2, 1, 3});
}

Value GraphBuilder::mergeHeads(Value x) {
  SmallVector<int64_t> s = shapeOf(x);
  return reshape(transpose(x, {0, 2, 1, 3}), {0, 0, s[1] * s[3]});
}

namespace {

DictionaryAttr portAttrs(MLIRContext *ctx, const Port &p) {
  Builder b(ctx);
  SmallVector<NamedAttribute> attrs;
  attrs.push_back(b.getNamedAttr("mm.name", b.getStringAttr(p.name)));
  SmallVector<Attribute> dims;
  for (const std::string &d : p.dims)
    dims.push_back(b.getStringAttr(d));
  attrs.push_back(b.getNamedAttr("mm.dims", b.getArrayAttr(dims)));
  if (p.role != contract::ValueRole::none)
    attrs.push_back(b.getNamedAttr(contract::kRoleAttr, contract::roleAttr(ctx, p.role)));
  if (p.kv)
    attrs.push_back(b.getNamedAttr(contract::kKvAttr, contract::kvAttr(ctx, *p.kv)));
  return b.getDictionaryAttr(attrs);
}

} // namespace

func::FuncOp createFunction(ModuleOp module, Location loc, llvm::StringRef name,
                            contract::FunctionRole role, ArrayRef<Port> args) {
  MLIRContext *ctx = module.getContext();
  SmallVector<Type> types;
  for (const Port &p : args)
    types.push_back(p.type);
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module.getBody());
  auto fn = b.create<func::FuncOp>(loc, name, b.getFunctionType(types, {}));
  fn->setAttr(contract::kRoleAttr, contract::roleAttr(ctx, role));
  fn.addEntryBlock();
  SmallVector<Attribute> attrs; // set at once: one call per argument would copy them all each time
  for (const Port &p : args)
    attrs.push_back(portAttrs(ctx, p));
  fn.setAllArgAttrs(attrs);
  return fn;
}

void finishFunction(func::FuncOp fn, ValueRange values, ArrayRef<Port> ports) {
  OpBuilder b(fn.getContext());
  b.setInsertionPointToEnd(&fn.getBody().front());
  b.create<func::ReturnOp>(fn.getLoc(), values);
  fn.setType(b.getFunctionType(fn.getArgumentTypes(), TypeRange(values)));
  for (auto [i, p] : llvm::enumerate(ports))
    fn.setResultAttrs(i, portAttrs(fn.getContext(), p));
}

} // namespace mm::hf

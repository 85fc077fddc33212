//===- ModelContract.cpp - function and value roles of a multimodal model ----===//
#include "mm/ModelContract.h"

#include "mm/MMOps.h"
#include "runtime/core/DimRules.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

namespace mm::contract {
namespace {

constexpr std::pair<FunctionRole, llvm::StringLiteral> kFunctionRoles[] = {
    {FunctionRole::visionEncoder, "vision_encoder"},
    {FunctionRole::embedding, "embedding"},
    {FunctionRole::decoder, "decoder"},
};

constexpr std::pair<ValueRole, llvm::StringLiteral> kValueRoles[] = {
    {ValueRole::inputIds, "input_ids"},         {ValueRole::inputsEmbeds, "inputs_embeds"},
    {ValueRole::attentionMask, "attention_mask"}, {ValueRole::positionIds, "position_ids"},
    {ValueRole::pixelValues, "pixel_values"},   {ValueRole::imageFeatures, "image_features"},
    {ValueRole::logits, "logits"},              {ValueRole::kvPast, "kv_past"},
    {ValueRole::kvPresent, "kv_present"},       {ValueRole::imageGridThw, "image_grid_thw"},
};

constexpr ValueRole kResultRoles[] = {ValueRole::inputsEmbeds, ValueRole::imageFeatures,
                                      ValueRole::logits, ValueRole::kvPresent};

template <typename Role, size_t N>
StringRef nameIn(const std::pair<Role, llvm::StringLiteral> (&table)[N], Role role) {
  for (const auto &[r, name] : table)
    if (r == role)
      return name;
  return "none";
}

template <typename Role, size_t N>
std::optional<Role> parseIn(const std::pair<Role, llvm::StringLiteral> (&table)[N], StringRef name) {
  for (const auto &[r, n] : table)
    if (n == name)
      return r;
  return std::nullopt;
}

template <typename Role, size_t N>
std::string namesOf(const std::pair<Role, llvm::StringLiteral> (&table)[N]) {
  std::string out;
  for (const auto &[r, n] : table)
    out += (out.empty() ? "" : ", ") + n.str();
  return out;
}

std::optional<KvPosition> kvOf(DictionaryAttr attrs) {
  auto kv = attrs ? attrs.getAs<DictionaryAttr>(kKvAttr) : DictionaryAttr();
  if (!kv)
    return std::nullopt;
  auto layer = kv.getAs<IntegerAttr>("layer");
  auto kind = kv.getAs<StringAttr>("kind");
  if (!layer || !kind || !layer.getType().isSignlessInteger(64))
    return std::nullopt;
  return KvPosition{layer.getInt(), kind.getValue() == "value"};
}

ValueRole valueRoleOf(DictionaryAttr attrs) {
  auto name = attrs ? attrs.getAs<StringAttr>(kRoleAttr) : StringAttr();
  if (!name)
    return ValueRole::none;
  return parseValueRole(name.getValue()).value_or(ValueRole::none);
}

} // namespace

bool fitsArgument(ValueRole role) {
  return role == ValueRole::inputsEmbeds || !llvm::is_contained(kResultRoles, role);
}
bool fitsResult(ValueRole role) { return llvm::is_contained(kResultRoles, role); }

StringRef roleName(FunctionRole role) { return nameIn(kFunctionRoles, role); }
StringRef roleName(ValueRole role) { return nameIn(kValueRoles, role); }
std::optional<FunctionRole> parseFunctionRole(StringRef name) { return parseIn(kFunctionRoles, name); }
std::optional<ValueRole> parseValueRole(StringRef name) { return parseIn(kValueRoles, name); }

FunctionRole functionRole(func::FuncOp fn) {
  auto name = fn->getAttrOfType<StringAttr>(kRoleAttr);
  return name ? parseFunctionRole(name.getValue()).value_or(FunctionRole::none) : FunctionRole::none;
}

ValueRole argRole(func::FuncOp fn, unsigned index) { return valueRoleOf(fn.getArgAttrDict(index)); }
ValueRole resultRole(func::FuncOp fn, unsigned index) {
  return valueRoleOf(fn.getResultAttrDict(index));
}
std::optional<KvPosition> argKv(func::FuncOp fn, unsigned index) { return kvOf(fn.getArgAttrDict(index)); }
std::optional<KvPosition> resultKv(func::FuncOp fn, unsigned index) {
  return kvOf(fn.getResultAttrDict(index));
}

StringAttr roleAttr(MLIRContext *ctx, FunctionRole role) { return StringAttr::get(ctx, roleName(role)); }
StringAttr roleAttr(MLIRContext *ctx, ValueRole role) { return StringAttr::get(ctx, roleName(role)); }
DictionaryAttr kvAttr(MLIRContext *ctx, KvPosition kv) {
  Builder b(ctx);
  return b.getDictionaryAttr({b.getNamedAttr("layer", b.getI64IntegerAttr(kv.layer)),
                              b.getNamedAttr("kind", b.getStringAttr(kv.isValue ? "value" : "key"))});
}

func::FuncOp functionWithRole(ModuleOp module, FunctionRole role) {
  for (auto fn : module.getOps<func::FuncOp>())
    if (functionRole(fn) == role)
      return fn;
  return {};
}

int argWithRole(func::FuncOp fn, ValueRole role) {
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    if (argRole(fn, i) == role)
      return static_cast<int>(i);
  return -1;
}

int resultWithRole(func::FuncOp fn, ValueRole role) {
  for (unsigned i = 0; i < fn.getNumResults(); ++i)
    if (resultRole(fn, i) == role)
      return static_cast<int>(i);
  return -1;
}

KvAppend kvAppend(func::FuncOp fn, unsigned argIndex, unsigned resultIndex) {
  auto fail = [](std::string why) { return KvAppend{nullptr, -1, std::move(why)}; };
  auto ret = dyn_cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  auto concat = ret ? ret.getOperand(resultIndex).getDefiningOp<ConcatOp>() : ConcatOp();
  if (!concat || concat->getNumOperands() != 2)
    return fail("the present is not a concat of two values");
  if (concat->getOperand(0) != fn.getArgument(argIndex))
    return fail("the present's concat does not take the past as its first operand");
  auto type = dyn_cast<RankedTensorType>(concat.getType());
  if (!type || type.getRank() != 4)
    return fail("the KV-cache tensors are not rank 4 ([batch, heads, sequence, head_dim] or "
                "[batch, sequence, heads, head_dim])");
  int64_t axis = dims::normalizeAxis(static_cast<int64_t>(concat.getAxis()), 4).value_or(-1);
  if (axis != 1 && axis != 2)
    return fail("the concat appends along axis " + std::to_string(axis) +
                ", not a sequence axis (1 or 2 of [batch, heads, sequence, head_dim] or "
                "[batch, sequence, heads, head_dim])");
  return KvAppend{concat, axis, ""};
}

LogicalResult verifyFunctionAttr(Operation *op, NamedAttribute attr) {
  if (attr.getName() == kKvAttr)
    return op->emitOpError() << "'" << kKvAttr << "' is an argument or result attribute";
  if (attr.getName() != kRoleAttr)
    return success();
  auto name = dyn_cast<StringAttr>(attr.getValue());
  if (!isa<func::FuncOp>(op))
    return op->emitOpError() << "'" << kRoleAttr << "' is a function attribute";
  if (!name || !parseFunctionRole(name.getValue()))
    return op->emitOpError() << "'" << kRoleAttr << "' must be one of "
                             << namesOf(kFunctionRoles) << ", got " << attr.getValue();
  return success();
}

LogicalResult verifyValueAttr(Operation *op, bool isResult, unsigned index, Type type,
                              NamedAttribute attr, DictionaryAttr all) {
  const char *what = isResult ? "result " : "argument ";
  if (attr.getName() == kRoleAttr) {
    auto name = dyn_cast<StringAttr>(attr.getValue());
    std::optional<ValueRole> role = name ? parseValueRole(name.getValue()) : std::nullopt;
    if (!role)
      return op->emitOpError() << what << index << ": '" << kRoleAttr << "' must be one of "
                               << namesOf(kValueRoles) << ", got " << attr.getValue();
    if (isResult ? !fitsResult(*role) : !fitsArgument(*role))
      return op->emitOpError() << what << index << ": role " << name.getValue() << " is "
                               << (isResult ? "an argument" : "a result") << " role";
    if ((*role == ValueRole::kvPast || *role == ValueRole::kvPresent) && !kvOf(all))
      return op->emitOpError() << what << index << ": role " << name.getValue()
                               << " needs '" << kKvAttr << "' (its layer and kind)";
    return success();
  }
  if (attr.getName() != kKvAttr)
    return success();
  auto kv = dyn_cast<DictionaryAttr>(attr.getValue());
  auto layer = kv ? kv.getAs<IntegerAttr>("layer") : IntegerAttr();
  auto kind = kv ? kv.getAs<StringAttr>("kind") : StringAttr();
  if (!kv || kv.size() != 2 || !layer || !layer.getType().isSignlessInteger(64) ||
      layer.getInt() < 0 || layer.getInt() > kMaxLayer ||
      !kind || (kind.getValue() != "key" && kind.getValue() != "value"))
    return op->emitOpError() << what << index << ": '" << kKvAttr
                             << "' must be {layer = <i64 0 to " << kMaxLayer
                             << ">, kind = key or value}, got " << attr.getValue();
  ValueRole want = isResult ? ValueRole::kvPresent : ValueRole::kvPast;
  if (valueRoleOf(all) != want)
    return op->emitOpError() << what << index << ": '" << kKvAttr << "' needs role "
                             << roleName(want);
  auto t = dyn_cast<RankedTensorType>(type);
  if (!t || t.getRank() != 4)
    return op->emitOpError() << what << index << ": a KV-cache tensor must be rank 4, got " << type;
  return success();
}

} // namespace mm::contract

//===- RaiseModelContract.cpp - the -mm-raise-model-contract pass -----------===//
//
// Raises the exporters' naming conventions into the model contract of mm/ModelContract.h,
// right after import and -mm-fold-shapes, so that nothing after this pass matches tensor
// names:
//
//  - value roles from the argument and result names (`mm.name`) the exporters use
//    (Optimum, transformers.js, onnxruntime-genai, torch.onnx): input_ids (an integer
//    tensor), inputs_embeds (float, rank 3), attention_mask, position_ids, pixel_values
//    (float, rank 4) for arguments; logits (float, rank 3) and image_features (float) for
//    results. A name on a tensor of another type gets no role;
//  - KV-cache pairs: an argument past_key_values.<i>.<k> or past.<i>.<k> (k = key or value)
//    and a result present.<i>.<k> or present_key_values.<i>.<k> whose value is
//    concat(past, new) along axis 1 or 2 of rank-4 tensors, with the past as the first of
//    the two operands (contract::kvAppend; -mm-fold-shapes has removed the ops exporters
//    put between them that pass a value on unchanged: one-operand concats, casts to the
//    same type, reshapes to the same shape). Both get roles kv_past / kv_present and
//    `mm.kv = {layer, kind}`. A past argument that is not paired gets a warning saying why
//    (no present of that name, or the present is not that concat: another rank or axis,
//    as a GPT-2 style [batch, heads, head_dim, sequence] key cache, is not a cache the
//    runtimes keep);
//  - function roles from the signatures, never the function names:
//      decoder:        a KV-cache pair, a logits result and an inputs_embeds or input_ids
//                      argument;
//      embedding:      one argument, input_ids, and one float rank-3 result (which gets
//                      the inputs_embeds role);
//      vision_encoder: a pixel_values argument and an image_features result (a function
//                      with a pixel_values argument and one float result: that result).
//    Pairs set by hand (kv_past / kv_present with mm.kv) count as well. When two or more
//    functions fit one role, none gets it (a warning names them).
//
//===----------------------------------------------------------------------===//
#include "compiler/transforms/Passes.h"
#include "mm/MMDialect.h"
#include "mm/MMOps.h"
#include "mm/ModelContract.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/Regex.h"

#include <map>

namespace mm {
#define GEN_PASS_DEF_RAISEMODELCONTRACT
#include "compiler/transforms/Passes.h.inc"
} // namespace mm

using namespace mlir;
using namespace mm::contract;

namespace {

std::string nameOf(DictionaryAttr attrs) {
  auto name = attrs ? attrs.getAs<StringAttr>("mm.name") : StringAttr();
  return name ? name.str() : "";
}

RankedTensorType tensorType(Type t) { return dyn_cast<RankedTensorType>(t); }

bool isFloatOfRank(Type t, int64_t rank) {
  auto r = tensorType(t);
  return r && isa<FloatType>(r.getElementType()) && (rank < 0 || r.getRank() == rank);
}

/// The role an argument named `name` of type `t` takes by the exporters' names.
ValueRole argRoleByName(StringRef name, Type t) {
  auto r = tensorType(t);
  if (name == "input_ids")
    return r && isa<IntegerType>(r.getElementType()) ? ValueRole::inputIds : ValueRole::none;
  if (name == "inputs_embeds")
    return isFloatOfRank(t, 3) ? ValueRole::inputsEmbeds : ValueRole::none;
  if (name == "attention_mask")
    return r ? ValueRole::attentionMask : ValueRole::none;
  if (name == "position_ids")
    return r && isa<IntegerType>(r.getElementType()) ? ValueRole::positionIds : ValueRole::none;
  if (name == "pixel_values")
    return isFloatOfRank(t, 4) ? ValueRole::pixelValues : ValueRole::none;
  return ValueRole::none;
}

ValueRole resultRoleByName(StringRef name, Type t) {
  if (name == "logits")
    return isFloatOfRank(t, 3) ? ValueRole::logits : ValueRole::none;
  if (name == "image_features")
    return isFloatOfRank(t, -1) ? ValueRole::imageFeatures : ValueRole::none;
  return ValueRole::none;
}

/// The layer and kind a KV-cache name gives, when `name` matches `re`.
std::optional<KvPosition> kvByName(const llvm::Regex &re, StringRef name) {
  SmallVector<StringRef, 4> m;
  unsigned layer = 0;
  if (!re.match(name, &m) || m[2].getAsInteger(10, layer) || layer > kMaxLayer)
    return std::nullopt;
  return KvPosition{static_cast<int64_t>(layer), m[3] == "value"};
}

/// Sets the value roles and KV-cache pairs of `fn`.
void raiseValues(func::FuncOp fn) {
  MLIRContext *ctx = fn.getContext();
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    if (ValueRole r = argRoleByName(nameOf(fn.getArgAttrDict(i)), fn.getArgumentTypes()[i]);
        r != ValueRole::none)
      fn.setArgAttr(i, kRoleAttr, roleAttr(ctx, r));
  for (unsigned i = 0; i < fn.getNumResults(); ++i)
    if (ValueRole r = resultRoleByName(nameOf(fn.getResultAttrDict(i)), fn.getResultTypes()[i]);
        r != ValueRole::none)
      fn.setResultAttr(i, kRoleAttr, roleAttr(ctx, r));

  static const llvm::Regex pastRe("^(past_key_values|past)\\.([0-9]+)\\.(key|value)$");
  static const llvm::Regex presentRe("^(present|present_key_values)\\.([0-9]+)\\.(key|value)$");
  std::map<std::pair<int64_t, bool>, unsigned> presents;
  for (unsigned i = 0; i < fn.getNumResults(); ++i)
    if (auto kv = kvByName(presentRe, nameOf(fn.getResultAttrDict(i))))
      presents.emplace(std::pair{kv->layer, kv->isValue}, i);
  int pairs = 0;
  bool unpaired = false;
  for (unsigned a = 0; a < fn.getNumArguments(); ++a) {
    std::string past = nameOf(fn.getArgAttrDict(a));
    auto kv = kvByName(pastRe, past);
    if (!kv)
      continue;
    auto it = presents.find({kv->layer, kv->isValue});
    std::string suffix = "." + std::to_string(kv->layer) + (kv->isValue ? ".value" : ".key");
    std::string why = it == presents.end()
                          ? "no result is named present" + suffix + " or present_key_values" +
                                suffix
                          : kvAppend(fn, a, it->second).whyNot;
    if (!why.empty()) {
      emitWarning(fn.getLoc()) << "@" << fn.getSymName() << ": argument '" << past
                               << "' is not a KV-cache input: " << why;
      unpaired = true;
      continue;
    }
    fn.setArgAttr(a, kRoleAttr, roleAttr(ctx, ValueRole::kvPast));
    fn.setArgAttr(a, kKvAttr, kvAttr(ctx, *kv));
    fn.setResultAttr(it->second, kRoleAttr, roleAttr(ctx, ValueRole::kvPresent));
    fn.setResultAttr(it->second, kKvAttr, kvAttr(ctx, *kv));
    ++pairs;
  }
  if (unpaired && pairs == 0)
    emitWarning(fn.getLoc()) << "@" << fn.getSymName()
                             << " takes KV-cache inputs (past_key_values.N or past.N) but "
                                "returns no present = concat(past, new): it has no KV-cache "
                                "slots, so mmrun cannot generate with it (an Optimum decoder "
                                "compiled with use_cache_branch=0?)";
}

/// The number of KV-cache pairs of `fn`: its kv_past arguments (raised or set by hand).
int kvPairsOf(func::FuncOp fn) {
  int n = 0;
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    n += argRole(fn, i) == ValueRole::kvPast;
  return n;
}

/// The role `fn`'s signature gives it (its value roles set), or none.
FunctionRole roleBySignature(func::FuncOp fn) {
  const int kvPairs = kvPairsOf(fn);
  const bool logits = resultWithRole(fn, ValueRole::logits) >= 0;
  if (kvPairs > 0 && logits &&
      (argWithRole(fn, ValueRole::inputsEmbeds) >= 0 || argWithRole(fn, ValueRole::inputIds) >= 0))
    return FunctionRole::decoder;
  if (fn.getNumArguments() == 1 && argRole(fn, 0) == ValueRole::inputIds &&
      fn.getNumResults() == 1 && isFloatOfRank(fn.getResultTypes()[0], 3) && !logits)
    return FunctionRole::embedding;
  if (argWithRole(fn, ValueRole::pixelValues) >= 0 &&
      (resultWithRole(fn, ValueRole::imageFeatures) >= 0 ||
       (fn.getNumResults() == 1 && isFloatOfRank(fn.getResultTypes()[0], -1))))
    return FunctionRole::visionEncoder;
  return FunctionRole::none;
}

struct RaiseModelContractPass : mm::impl::RaiseModelContractBase<RaiseModelContractPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    std::map<FunctionRole, std::vector<func::FuncOp>> candidates;
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (fn.isExternal() || !fn.getBody().hasOneBlock() ||
          !isa<func::ReturnOp>(fn.getBody().front().getTerminator()))
        continue;
      raiseValues(fn);
      FunctionRole role = roleBySignature(fn);
      if (role != FunctionRole::none)
        candidates[role].push_back(fn);
    }
    for (auto &[role, fns] : candidates) {
      if (fns.size() > 1) {
        InFlightDiagnostic d = emitWarning(module.getLoc());
        for (size_t i = 0; i < fns.size(); ++i)
          d << (i == 0 ? "@" : i + 1 == fns.size() ? " and @" : ", @") << fns[i].getSymName();
        d << " fit the " << roleName(role) << " role; none is given it";
        continue;
      }
      func::FuncOp fn = fns[0];
      fn->setAttr(kRoleAttr, roleAttr(ctx, role));
      if (role == FunctionRole::embedding)
        fn.setResultAttr(0, kRoleAttr, roleAttr(ctx, ValueRole::inputsEmbeds));
      if (role == FunctionRole::visionEncoder && resultWithRole(fn, ValueRole::imageFeatures) < 0)
        fn.setResultAttr(0, kRoleAttr, roleAttr(ctx, ValueRole::imageFeatures));
    }
  }
};

} // namespace

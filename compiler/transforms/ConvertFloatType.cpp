//===- ConvertFloatType.cpp - the -mm-convert-float-type pass ---------------===//
//
// Makes a function compute in f16 or bf16 (`mmc compile --dtype`): activations and
// weights become the target type, the signature stays f32.
//
//  - f32 arguments are cast to the target type on entry, f32 results cast back before
//    the return; except the KV cache: arguments named past_key_values.* and results named
//    present.* (`mm.name`) take the target type themselves, so a decoder's cache is kept
//    in the compute type and its concat(past, new) -> present stays recognisable;
//  - every f32 mm.weight gets a cast after it (the plan emitter folds a cast of a weight
//    into a converted weight, so it costs nothing at run time);
//  - an op with at least one converted operand is converted: its other f32 operands are
//    cast to the target type, its f32 results retyped;
//  - values computed only from integer arguments and constants stay f32: position ids
//    feeding rotary cos/sin, attention masks. bf16 represents integers exactly only up to
//    256, so computing rotary angles from positions in bf16 would be wrong beyond that;
//    like Hugging Face's bf16 models, they are computed in f32 and cast where they meet
//    activations.
//
// f64 and integer tensors are left alone. The function is verified afterwards; an op whose
// types cannot follow fails the pass with its verifier's diagnostic.
//
//===----------------------------------------------------------------------===//
#include "compiler/transforms/Passes.h"
#include "mm/MMDialect.h"
#include "mm/MMOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"

#include "llvm/ADT/DenseSet.h"

namespace mm {
#define GEN_PASS_DEF_CONVERTFLOATTYPE
#include "compiler/transforms/Passes.h.inc"
} // namespace mm

using namespace mlir;

namespace {

bool isF32Tensor(Type t) {
  auto r = dyn_cast<RankedTensorType>(t);
  return r && r.getElementType().isF32();
}

/// Whether `attrs` (an argument's or result's) names a KV-cache tensor with `prefix`.
bool isKvCache(DictionaryAttr attrs, StringRef prefix) {
  auto name = attrs ? attrs.getAs<StringAttr>("mm.name") : StringAttr();
  return name && name.getValue().starts_with(prefix);
}

struct ConvertFloatTypePass : public mm::impl::ConvertFloatTypeBase<ConvertFloatTypePass> {
  using ConvertFloatTypeBase::ConvertFloatTypeBase;

  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    MLIRContext *ctx = &getContext();
    Type target;
    if (to == "bf16")
      target = BFloat16Type::get(ctx);
    else if (to == "f16")
      target = Float16Type::get(ctx);
    else {
      fn.emitError() << "-mm-convert-float-type: unknown type '" << to
                     << "' (expected f16 or bf16)";
      return signalPassFailure();
    }
    if (fn.isExternal())
      return;
    auto retype = [&](Type t) { return cast<RankedTensorType>(t).clone(target); };
    Block &body = fn.getBody().front();
    OpBuilder b(ctx);
    llvm::DenseSet<Value> converted;
    auto castAfter = [&](Value v, Location loc) {
      auto c = b.create<mm::CastOp>(loc, retype(v.getType()), v);
      v.replaceAllUsesExcept(c.getResult(), c);
      converted.insert(c.getResult());
    };

    SmallVector<Operation *> ops;
    for (Operation &op : body)
      ops.push_back(&op);
    b.setInsertionPointToStart(&body);
    SmallVector<Type> argTypes(fn.getArgumentTypes()), resultTypes(fn.getResultTypes());
    for (BlockArgument arg : body.getArguments()) {
      if (!isF32Tensor(arg.getType()))
        continue;
      if (isKvCache(fn.getArgAttrDict(arg.getArgNumber()), "past_key_values.")) {
        arg.setType(retype(arg.getType()));
        argTypes[arg.getArgNumber()] = arg.getType();
        converted.insert(arg);
        continue;
      }
      castAfter(arg, fn.getLoc());
    }

    for (Operation *op : ops) {
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        b.setInsertionPoint(ret);
        for (OpOperand &o : ret->getOpOperands()) {
          unsigned i = o.getOperandNumber();
          if (!converted.count(o.get()))
            continue;
          if (isKvCache(fn.getResultAttrDict(i), "present."))
            resultTypes[i] = retype(resultTypes[i]);
          else
            o.set(b.create<mm::CastOp>(ret.getLoc(), resultTypes[i], o.get()));
        }
        continue;
      }
      if (auto w = dyn_cast<mm::WeightOp>(op)) {
        if (isF32Tensor(w.getType())) {
          b.setInsertionPointAfter(w);
          castAfter(w.getResult(), w.getLoc());
        }
        continue;
      }
      if (isa<mm::ConstantOp>(op) ||
          llvm::none_of(op->getOperands(), [&](Value v) { return converted.count(v) > 0; }))
        continue;
      b.setInsertionPoint(op);
      for (OpOperand &o : op->getOpOperands())
        if (!converted.count(o.get()) && isF32Tensor(o.get().getType()))
          o.set(b.create<mm::CastOp>(op->getLoc(), retype(o.get().getType()), o.get()));
      for (OpResult r : op->getResults())
        if (isF32Tensor(r.getType())) {
          r.setType(retype(r.getType()));
          converted.insert(r);
        }
    }
    fn.setFunctionType(FunctionType::get(ctx, argTypes, resultTypes));
    if (failed(verify(fn)))
      return signalPassFailure();
  }
};

} // namespace

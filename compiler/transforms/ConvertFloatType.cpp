//===- ConvertFloatType.cpp - the -mm-convert-float-type pass ---------------===//
//
// Makes a function compute in one float type (`mmc compile --dtype`): f32, f16 or bf16.
// Every float tensor of another type (f32, f16 or bf16; f64 is left alone) becomes the
// target type, so an f32 export computes in bf16, and an f16 export (whose exporter left
// f32 islands and an f32 residual stream behind, see docs/fusion.md) computes in one type:
//
//  - arguments of another float type are cast to the target type on entry, results cast
//    back to their type before the return; except the KV cache: arguments and results
//    with roles kv_past / kv_present (-mm-raise-model-contract) take the target type
//    themselves, so a decoder's cache is kept in the compute type and its
//    concat(past, new) -> present stays recognisable;
//  - every mm.weight of another float type gets a cast after it (the plan emitter folds a
//    cast of a weight into a converted weight, so it costs nothing at run time);
//  - an op with at least one activation operand (a value computed from a float argument
//    or a weight) is converted: its other float operands of another type are cast to the
//    target type, its float results retyped;
//  - values computed only from integer arguments and constants keep their type: position
//    ids feeding rotary cos/sin, attention masks. bf16 represents integers exactly only up
//    to 256, so computing rotary angles from positions in bf16 would be wrong beyond that;
//    like Hugging Face's bf16 models, they are computed in f32 and cast where they meet
//    activations.
//
// Integer and boolean tensors are left alone. The function is verified afterwards; an op
// whose types cannot follow fails the pass with its verifier's diagnostic.
//
//===----------------------------------------------------------------------===//
#include "compiler/transforms/FusionUtils.h"
#include "compiler/transforms/Passes.h"
#include "mm/MMDialect.h"
#include "mm/MMOps.h"
#include "mm/ModelContract.h"

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

/// A tensor the pass converts to `target`: f32, f16 or bf16 elements other than target's.
bool isConvertible(Type t, Type target) {
  auto r = dyn_cast<RankedTensorType>(t);
  if (!r || r.getElementType() == target)
    return false;
  Type e = r.getElementType();
  return e.isF32() || e.isF16() || e.isBF16();
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
    else if (to == "f32")
      target = Float32Type::get(ctx);
    else {
      fn.emitError() << "-mm-convert-float-type: unknown type '" << to
                     << "' (expected f32, f16 or bf16)";
      return signalPassFailure();
    }
    if (fn.isExternal())
      return;
    auto retype = [&](Type t) { return cast<RankedTensorType>(t).clone(target); };
    auto isFloat = [](Type t) {
      auto r = dyn_cast<RankedTensorType>(t);
      return r && isa<FloatType>(r.getElementType());
    };
    Block &body = fn.getBody().front();
    OpBuilder b(ctx);
    // Float values computed from a float argument or a weight (all in the target type once
    // the pass is done); the others are computed from integers and constants.
    llvm::DenseSet<Value> activations;
    auto castAfter = [&](Value v, Location loc) {
      auto c = b.create<mm::CastOp>(loc, retype(v.getType()), v);
      v.replaceAllUsesExcept(c.getResult(), c);
      activations.insert(c.getResult());
    };
    // A value computed from integers, cast where it meets activations; from its f32 source
    // when the graph rounded that to a narrower type first (HF's cos/sin: f32, then .to(x.dtype)).
    auto castIn = [&](Value v, Location loc) {
      Type want = retype(v.getType()); // v's dims, the target type
      if (mm::fusion::isFloatPrecisionCast(v.getDefiningOp()) &&
          cast<RankedTensorType>(v.getDefiningOp()->getOperand(0).getType()).getElementType().isF32())
        v = v.getDefiningOp()->getOperand(0);
      return v.getType() == want ? v : b.create<mm::CastOp>(loc, want, v).getResult();
    };

    SmallVector<Operation *> ops;
    for (Operation &op : body)
      ops.push_back(&op);
    b.setInsertionPointToStart(&body);
    SmallVector<Type> argTypes(fn.getArgumentTypes()), resultTypes(fn.getResultTypes());
    for (BlockArgument arg : body.getArguments()) {
      if (!isConvertible(arg.getType(), target)) {
        if (isFloat(arg.getType())) // already in the target type (or f64)
          activations.insert(arg);
        continue;
      }
      if (mm::contract::argRole(fn, arg.getArgNumber()) == mm::contract::ValueRole::kvPast) {
        arg.setType(retype(arg.getType()));
        argTypes[arg.getArgNumber()] = arg.getType();
        activations.insert(arg);
        continue;
      }
      castAfter(arg, fn.getLoc());
    }

    for (Operation *op : ops) {
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        b.setInsertionPoint(ret);
        for (OpOperand &o : ret->getOpOperands()) {
          unsigned i = o.getOperandNumber();
          if (!activations.count(o.get()) || o.get().getType() == resultTypes[i])
            continue;
          if (mm::contract::resultRole(fn, i) == mm::contract::ValueRole::kvPresent)
            resultTypes[i] = o.get().getType();
          else
            o.set(b.create<mm::CastOp>(ret.getLoc(), resultTypes[i], o.get()));
        }
        continue;
      }
      if (auto w = dyn_cast<mm::WeightOp>(op)) {
        if (isConvertible(w.getType(), target)) {
          b.setInsertionPointAfter(w);
          castAfter(w.getResult(), w.getLoc());
        } else if (isFloat(w.getType())) {
          activations.insert(w.getResult());
        }
        continue;
      }
      if (isa<mm::ConstantOp>(op) ||
          llvm::none_of(op->getOperands(), [&](Value v) { return activations.count(v) > 0; }))
        continue;
      b.setInsertionPoint(op);
      for (OpOperand &o : op->getOpOperands())
        if (!activations.count(o.get()) && isConvertible(o.get().getType(), target))
          o.set(castIn(o.get(), op->getLoc()));
      for (OpResult r : op->getResults()) {
        if (!isFloat(r.getType()))
          continue;
        if (isConvertible(r.getType(), target))
          r.setType(retype(r.getType()));
        activations.insert(r);
      }
    }
    fn.setFunctionType(FunctionType::get(ctx, argTypes, resultTypes));
    if (failed(verify(fn)))
      return signalPassFailure();
  }
};

} // namespace

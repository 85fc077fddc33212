//===- FusionDims.cpp - provable equalities of dims for fusion matchers ----===//
#include "compiler/transforms/FusionDims.h"

#include "mm/MMDialect.h"
#include "mm/MMOps.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mm::shapes;

namespace mm::fusion {

/// Integer tensors of at most this many elements have their elements tracked (as in
/// -mm-fold-shapes), so shape vectors feeding reshapes and expands are known.
constexpr int64_t kMaxTrackedElements = 64;
/// How many transposes / reshapes structurallyEqual() follows back.
constexpr int kMaxStructuralDepth = 8;

FunctionDims::FunctionDims(func::FuncOp f) : analysis_(kMaxTrackedElements) {
  analysis_.seedArguments(f);
  ScopedDiagnosticHandler silence(f.getContext(), [](Diagnostic &) { return success(); });
  f.walk([&](Operation *op) {
    if (!isa_and_nonnull<MMDialect>(op->getDialect()))
      return;
    auto inferred = analysis_.inferDims(op);
    if (failed(inferred))
      return;
    for (auto [r, guesses] : llvm::zip(op->getResults(), *inferred)) {
      auto t = dyn_cast<RankedTensorType>(r.getType());
      if (!t || static_cast<int64_t>(guesses.size()) != t.getRank())
        continue;
      DimExprs dims;
      for (int64_t i = 0; i < t.getRank(); ++i) {
        if (!t.isDynamicDim(i))
          dims.push_back(DimExpr::constant(t.getDimSize(i)));
        else if (guesses[i])
          dims.push_back(*guesses[i]);
        else
          dims.push_back(DimExpr::symbol(analysis_.symbols().fresh(true)));
      }
      analysis_.set(r, std::move(dims), std::nullopt);
    }
    if (op->getNumResults() != 1 ||
        !isTrackedIntType(op->getResult(0).getType(), kMaxTrackedElements))
      return;
    Value r = op->getResult(0);
    DimExprs elems;
    for (auto &g : analysis_.inferElems(op))
      elems.push_back(g ? *g : DimExpr::symbol(analysis_.symbols().fresh(false)));
    DimExprs dims = analysis_.dims(r);
    analysis_.set(r, std::move(dims), std::move(elems));
  });
}

bool FunctionDims::equal(Value a, int64_t i, Value b, int64_t j) { return equal(a, i, b, j, 0); }

bool FunctionDims::equal(Value a, int64_t i, Value b, int64_t j, int depth) {
  auto ta = cast<RankedTensorType>(a.getType()), tb = cast<RankedTensorType>(b.getType());
  if (i < 0 || j < 0 || i >= ta.getRank() || j >= tb.getRank())
    return false;
  if (!ta.isDynamicDim(i) && !tb.isDynamicDim(j))
    return ta.getDimSize(i) == tb.getDimSize(j);
  if (a == b && i == j)
    return true;
  // Copy before the second lookup: it may grow the map and move the first entry.
  DimExpr ea = analysis_.dims(a)[i];
  DimExpr eb = analysis_.dims(b)[j];
  if (ea == eb)
    return true;
  return depth < kMaxStructuralDepth && structurallyEqual(a, i, b, j, depth + 1);
}

bool FunctionDims::sameShape(Value a, Value b, int depth) {
  auto ta = cast<RankedTensorType>(a.getType()), tb = cast<RankedTensorType>(b.getType());
  if (ta.getRank() != tb.getRank())
    return false;
  for (int64_t d = 0; d < ta.getRank(); ++d)
    if (!equal(a, d, b, d, depth))
      return false;
  return true;
}

bool FunctionDims::structurallyEqual(Value a, int64_t i, Value b, int64_t j, int depth) {
  // Transposes: the dims they read.
  if (auto tA = a.getDefiningOp<TransposeOp>())
    if (auto tB = b.getDefiningOp<TransposeOp>())
      return equal(tA.getInput(), tA.getPerm()[i], tB.getInput(), tB.getPerm()[j], depth);
  // Reshapes to the same shape vector of inputs of one shape: the same dims (a -1 entry
  // whose value the analysis could not express gets a fresh symbol per reshape).
  if (auto rA = a.getDefiningOp<ReshapeOp>())
    if (auto rB = b.getDefiningOp<ReshapeOp>())
      return i == j && rA.getShape() == rB.getShape() &&
             rA.getAllowZero() == rB.getAllowZero() &&
             sameShape(rA.getData(), rB.getData(), depth);
  return false;
}

} // namespace mm::fusion

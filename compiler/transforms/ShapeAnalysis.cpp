//===- ShapeAnalysis.cpp - what is known of each value ---------------------===//
#include "compiler/transforms/ShapeAnalysis.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mm::shapes;

bool mm::shapes::isTrackedIntType(Type t, int64_t maxElements) {
  auto rt = dyn_cast<RankedTensorType>(t);
  return rt && rt.hasStaticShape() && isa<IntegerType>(rt.getElementType()) &&
         rt.getNumElements() <= maxElements;
}

void ShapeAnalysis::seedArguments(func::FuncOp f) {
  for (BlockArgument arg : f.getArguments()) {
    auto t = dyn_cast<RankedTensorType>(arg.getType());
    if (!t)
      continue;
    auto names = f.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(), "mm.dims");
    DimExprs d;
    for (int64_t i = 0; i < t.getRank(); ++i) {
      if (!t.isDynamicDim(i)) {
        d.push_back(DimExpr::constant(t.getDimSize(i)));
        continue;
      }
      StringRef name;
      if (names && i < static_cast<int64_t>(names.size()))
        if (auto s = dyn_cast<StringAttr>(names[i]))
          name = s.getValue();
      d.push_back(DimExpr::symbol(name.empty() ? symbols_.fresh(true) : symbols_.named(name)));
    }
    set(arg, std::move(d), std::nullopt);
  }
}

const DimExprs &ShapeAnalysis::dims(Value v) {
  auto it = dims_.find(v);
  if (it != dims_.end())
    return it->second;
  auto t = cast<RankedTensorType>(v.getType());
  DimExprs d;
  for (int64_t i = 0; i < t.getRank(); ++i)
    d.push_back(t.isDynamicDim(i) ? DimExpr::symbol(symbols_.fresh(true))
                                  : DimExpr::constant(t.getDimSize(i)));
  for (auto [i, e] : llvm::enumerate(d))
    symbols_.noteSource(e, v, i, /*isDim=*/true);
  return dims_[v] = std::move(d);
}

const DimExprs *ShapeAnalysis::elems(Value v) {
  if (!isTrackedIntType(v.getType(), maxTracked_))
    return nullptr;
  auto it = elems_.find(v);
  if (it != elems_.end())
    return &it->second;
  // Not computed (a function argument, an op of another dialect): unknown elements.
  int64_t n = cast<RankedTensorType>(v.getType()).getNumElements();
  DimExprs e;
  for (int64_t i = 0; i < n; ++i) {
    e.push_back(DimExpr::symbol(symbols_.fresh(false)));
    symbols_.noteSource(e.back(), v, i, /*isDim=*/false);
  }
  return &(elems_[v] = std::move(e));
}

std::optional<SmallVector<int64_t>> ShapeAnalysis::constElems(Value v) {
  const DimExprs *e = elems(v);
  if (!e)
    return std::nullopt;
  SmallVector<int64_t> out;
  for (const DimExpr &x : *e) {
    auto c = x.constantValue();
    if (!c)
      return std::nullopt;
    out.push_back(*c);
  }
  return out;
}

void ShapeAnalysis::set(Value v, DimExprs d, std::optional<DimExprs> e) {
  for (auto [i, x] : llvm::enumerate(d))
    symbols_.noteSource(x, v, i, /*isDim=*/true);
  dims_[v] = std::move(d);
  if (!e) {
    elems_.erase(v);
    return;
  }
  for (auto [i, x] : llvm::enumerate(*e))
    symbols_.noteSource(x, v, i, /*isDim=*/false);
  elems_[v] = std::move(*e);
}

std::optional<DimExpr> ShapeAnalysis::fitToWidth(const DimExpr &e, unsigned bits) {
  auto c = e.constantValue();
  if (!c)
    return e;
  if (bits == 1)
    return DimExpr::constant(*c != 0);
  if (bits >= 64)
    return e;
  // Two's-complement wrap to `bits`, sign-extended back.
  uint64_t mask = (uint64_t(1) << bits) - 1;
  uint64_t u = static_cast<uint64_t>(*c) & mask;
  if (u >> (bits - 1))
    u |= ~mask;
  return DimExpr::constant(static_cast<int64_t>(u));
}

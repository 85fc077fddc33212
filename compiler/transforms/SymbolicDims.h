//===- SymbolicDims.h - integers known up to symbols (dims, shape values) --===//
//
// Shape folding reasons about sizes that are not static: a dim named `batch` on every
// input, `past + seq` after concatenating the KV cache, the value of a shape-vector
// element computed from those dims. Each such integer is a DimExpr: an affine
// expression `c + sum(k_i * s_i)` over symbols s_i. A symbol is an unknown integer
// (a dynamic dim, an element nobody can compute at compile time, or a product /
// broadcast of other expressions that is not affine); the DimSymbolTable records what is
// known about each one (>= 0 or not, and a value + position where it can be read at
// run time, used to rebuild it in IR).
//
//===----------------------------------------------------------------------===//
#ifndef MM_COMPILER_TRANSFORMS_SYMBOLICDIMS_H
#define MM_COMPILER_TRANSFORMS_SYMBOLICDIMS_H

#include "mlir/IR/Value.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mm::shapes {

using SymbolId = unsigned;

/// An integer `constant + sum(coefficient * symbol)`. Terms are sorted by symbol and have
/// nonzero coefficients, so two equal expressions compare equal. Arithmetic returns
/// std::nullopt on int64 overflow.
class DimExpr {
public:
  DimExpr() = default; ///< the constant 0
  static DimExpr constant(int64_t c);
  static DimExpr symbol(SymbolId s);

  bool isConstant() const { return terms_.empty(); }
  std::optional<int64_t> constantValue() const;
  int64_t constantPart() const { return c_; }
  llvm::ArrayRef<std::pair<SymbolId, int64_t>> terms() const { return terms_; }
  /// The symbol when this is exactly one symbol (coefficient 1, constant 0).
  std::optional<SymbolId> singleSymbol() const;

  std::optional<DimExpr> plus(const DimExpr &o) const;
  std::optional<DimExpr> minus(const DimExpr &o) const;
  std::optional<DimExpr> scaled(int64_t k) const;
  /// this / k when every coefficient and the constant are multiples of k (k != 0).
  std::optional<DimExpr> exactDiv(int64_t k) const;

  bool operator==(const DimExpr &o) const { return c_ == o.c_ && terms_ == o.terms_; }
  bool operator!=(const DimExpr &o) const { return !(*this == o); }
  bool operator<(const DimExpr &o) const;
  /// A stable text key ("3+2*s5+s7"), used to name derived symbols.
  std::string key() const;

private:
  int64_t c_ = 0;
  llvm::SmallVector<std::pair<SymbolId, int64_t>, 2> terms_;
};

using DimExprs = llvm::SmallVector<DimExpr, 4>;

/// What a sign test proves about an expression.
enum class Sign { Unknown, Negative, Zero, Positive, NonNegative, NonPositive };

/// One symbol: an unknown integer.
struct Symbol {
  bool nonNegative = false; ///< true for sizes
  std::string name;         ///< ONNX dim_param for named dims, else a description
  /// Where the value can be read at run time: dim `index` of `source` (isDim), or its
  /// flat element `index`. Unset until the symbol appears alone in some value.
  mlir::Value source;
  int64_t index = 0;
  bool sourceIsDim = false;
  /// Product symbols: the value is the product of these (none is constant).
  DimExprs factors;
};

/// Issues symbols and builds the non-affine combinations (products, broadcasts) in a
/// canonical way, so the same computation done twice gives the same symbol.
class DimSymbolTable {
public:
  SymbolId fresh(bool nonNegative, llvm::StringRef name = "");
  /// The symbol of a named dynamic dim: equal names give the same symbol (ONNX
  /// dim_params are shared between a graph's inputs). Named dims are >= 0.
  SymbolId named(llvm::StringRef name);
  const Symbol &get(SymbolId s) const { return symbols_[s]; }

  /// Product of expressions: constants multiply out; one non-constant factor stays
  /// affine; more become a product symbol (factors flattened and sorted).
  std::optional<DimExpr> product(llvm::ArrayRef<DimExpr> factors);
  /// A product as constant * (multiset of non-constant factors), product symbols
  /// expanded: what reshape's -1 inference cancels. nullopt on overflow.
  std::optional<std::pair<int64_t, DimExprs>> factorize(llvm::ArrayRef<DimExpr> factors) const;
  /// ONNX broadcast of sizes: 1s drop out, a constant other than 1 wins, equal sizes
  /// merge; differing symbolic sizes become one broadcast symbol per set of members
  /// (members of nested broadcasts flattened). nullopt when two constants (not 1) differ.
  std::optional<DimExpr> broadcast(llvm::ArrayRef<DimExpr> sizes);
  /// A symbol keyed by `key`: the same key gives the same symbol (e.g. "max(...)").
  SymbolId derived(llvm::StringRef key, bool nonNegative);

  Sign sign(const DimExpr &e) const;
  bool isNonNegative(const DimExpr &e) const;

  /// Records (value, index) as the run-time source of `e` when `e` is a single symbol
  /// that has none yet.
  void noteSource(const DimExpr &e, mlir::Value v, int64_t index, bool isDim);

  void print(llvm::raw_ostream &os, const DimExpr &e) const;

private:
  std::vector<Symbol> symbols_;
  llvm::StringMap<SymbolId> byName_, byKey_;
  llvm::DenseMap<SymbolId, DimExprs> bcastMembers_;
};

} // namespace mm::shapes

#endif // MM_COMPILER_TRANSFORMS_SYMBOLICDIMS_H

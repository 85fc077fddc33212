//===- SymbolicDims.cpp - integers known up to symbols ---------------------===//
#include "compiler/transforms/SymbolicDims.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mm::shapes;

//===----------------------------------------------------------------------===//
// DimExpr
//===----------------------------------------------------------------------===//

DimExpr DimExpr::constant(int64_t c) {
  DimExpr e;
  e.c_ = c;
  return e;
}

DimExpr DimExpr::symbol(SymbolId s) {
  DimExpr e;
  e.terms_.push_back({s, 1});
  return e;
}

std::optional<int64_t> DimExpr::constantValue() const {
  if (!isConstant())
    return std::nullopt;
  return c_;
}

std::optional<SymbolId> DimExpr::singleSymbol() const {
  if (c_ != 0 || terms_.size() != 1 || terms_[0].second != 1)
    return std::nullopt;
  return terms_[0].first;
}

std::optional<DimExpr> DimExpr::plus(const DimExpr &o) const {
  DimExpr r;
  if (llvm::AddOverflow(c_, o.c_, r.c_))
    return std::nullopt;
  auto a = terms_.begin(), ae = terms_.end(), b = o.terms_.begin(), be = o.terms_.end();
  while (a != ae || b != be) {
    if (b == be || (a != ae && a->first < b->first)) {
      r.terms_.push_back(*a++);
    } else if (a == ae || b->first < a->first) {
      r.terms_.push_back(*b++);
    } else {
      int64_t k;
      if (llvm::AddOverflow(a->second, b->second, k))
        return std::nullopt;
      if (k != 0)
        r.terms_.push_back({a->first, k});
      ++a, ++b;
    }
  }
  return r;
}

std::optional<DimExpr> DimExpr::scaled(int64_t k) const {
  if (k == 0)
    return DimExpr();
  DimExpr r;
  if (llvm::MulOverflow(c_, k, r.c_))
    return std::nullopt;
  for (auto [s, coeff] : terms_) {
    int64_t v;
    if (llvm::MulOverflow(coeff, k, v))
      return std::nullopt;
    r.terms_.push_back({s, v});
  }
  return r;
}

std::optional<DimExpr> DimExpr::minus(const DimExpr &o) const {
  auto neg = o.scaled(-1);
  if (!neg)
    return std::nullopt;
  return plus(*neg);
}

std::optional<DimExpr> DimExpr::exactDiv(int64_t k) const {
  if (k == 0 || c_ % k != 0)
    return std::nullopt;
  if (k == -1 && c_ == INT64_MIN)
    return std::nullopt;
  DimExpr r;
  r.c_ = c_ / k;
  for (auto [s, coeff] : terms_) {
    if (coeff % k != 0 || (k == -1 && coeff == INT64_MIN))
      return std::nullopt;
    r.terms_.push_back({s, coeff / k});
  }
  return r;
}

bool DimExpr::operator<(const DimExpr &o) const {
  if (terms_ != o.terms_)
    return std::lexicographical_compare(terms_.begin(), terms_.end(), o.terms_.begin(),
                                        o.terms_.end());
  return c_ < o.c_;
}

std::string DimExpr::key() const {
  std::string s = std::to_string(c_);
  for (auto [sym, k] : terms_)
    s += "+" + std::to_string(k) + "*s" + std::to_string(sym);
  return s;
}

//===----------------------------------------------------------------------===//
// DimSymbolTable
//===----------------------------------------------------------------------===//

SymbolId DimSymbolTable::fresh(bool nonNegative, llvm::StringRef name) {
  Symbol s;
  s.nonNegative = nonNegative;
  s.name = name.str();
  symbols_.push_back(std::move(s));
  return symbols_.size() - 1;
}

SymbolId DimSymbolTable::named(llvm::StringRef name) {
  auto it = byName_.find(name);
  if (it != byName_.end())
    return it->second;
  SymbolId s = fresh(/*nonNegative=*/true, name);
  byName_[name] = s;
  return s;
}

SymbolId DimSymbolTable::derived(llvm::StringRef key, bool nonNegative) {
  auto it = byKey_.find(key);
  if (it != byKey_.end())
    return it->second;
  SymbolId s = fresh(nonNegative, key);
  byKey_[key] = s;
  return s;
}

std::optional<std::pair<int64_t, DimExprs>>
DimSymbolTable::factorize(llvm::ArrayRef<DimExpr> factors) const {
  int64_t c = 1;
  DimExprs rest;
  for (const DimExpr &f : factors) {
    if (auto v = f.constantValue()) {
      if (llvm::MulOverflow(c, *v, c))
        return std::nullopt;
      continue;
    }
    // k * s with s a product symbol expands into k and s's factors.
    if (f.constantPart() == 0 && f.terms().size() == 1) {
      auto [sym, k] = f.terms()[0];
      if (llvm::MulOverflow(c, k, c))
        return std::nullopt;
      const Symbol &s = symbols_[sym];
      if (s.factors.empty())
        rest.push_back(DimExpr::symbol(sym));
      else
        llvm::append_range(rest, s.factors);
      continue;
    }
    rest.push_back(f);
  }
  llvm::sort(rest);
  return std::make_pair(c, rest);
}

std::optional<DimExpr> DimSymbolTable::product(llvm::ArrayRef<DimExpr> factors) {
  auto fz = factorize(factors);
  if (!fz)
    return std::nullopt;
  auto &[c, rest] = *fz;
  if (rest.empty())
    return DimExpr::constant(c);
  if (rest.size() == 1)
    return rest[0].scaled(c);
  std::string key = "mul(";
  bool nonNeg = true;
  for (const DimExpr &f : rest) {
    key += f.key() + ",";
    nonNeg &= isNonNegative(f);
  }
  key += ")";
  SymbolId s = derived(key, nonNeg);
  if (symbols_[s].factors.empty())
    symbols_[s].factors = rest;
  return DimExpr::symbol(s).scaled(c);
}

std::optional<DimExpr> DimSymbolTable::broadcast(llvm::ArrayRef<DimExpr> sizes) {
  DimExprs members;
  std::optional<int64_t> fixed;
  for (const DimExpr &e : sizes) {
    if (auto v = e.constantValue()) {
      if (*v == 1)
        continue;
      if (fixed && *fixed != *v)
        return std::nullopt;
      fixed = *v;
      continue;
    }
    if (auto s = e.singleSymbol()) {
      auto it = bcastMembers_.find(*s);
      if (it != bcastMembers_.end()) {
        llvm::append_range(members, it->second);
        continue;
      }
    }
    members.push_back(e);
  }
  if (fixed)
    return DimExpr::constant(*fixed);
  llvm::sort(members);
  members.erase(std::unique(members.begin(), members.end()), members.end());
  if (members.empty())
    return DimExpr::constant(1);
  if (members.size() == 1)
    return members[0];
  std::string key = "bcast(";
  for (const DimExpr &m : members)
    key += m.key() + ",";
  key += ")";
  SymbolId s = derived(key, /*nonNegative=*/true);
  bcastMembers_[s] = members;
  return DimExpr::symbol(s);
}

Sign DimSymbolTable::sign(const DimExpr &e) const {
  int64_t c = e.constantPart();
  if (e.isConstant())
    return c < 0 ? Sign::Negative : c == 0 ? Sign::Zero : Sign::Positive;
  bool allUp = true, allDown = true;
  for (auto [s, k] : e.terms()) {
    bool nonNeg = symbols_[s].nonNegative;
    allUp &= nonNeg && k > 0;
    allDown &= nonNeg && k < 0;
  }
  if (allUp)
    return c > 0 ? Sign::Positive : c == 0 ? Sign::NonNegative : Sign::Unknown;
  if (allDown)
    return c < 0 ? Sign::Negative : c == 0 ? Sign::NonPositive : Sign::Unknown;
  return Sign::Unknown;
}

bool DimSymbolTable::isNonNegative(const DimExpr &e) const {
  Sign s = sign(e);
  return s == Sign::Zero || s == Sign::Positive || s == Sign::NonNegative;
}

void DimSymbolTable::noteSource(const DimExpr &e, mlir::Value v, int64_t index, bool isDim) {
  auto s = e.singleSymbol();
  if (!s || symbols_[*s].source)
    return;
  symbols_[*s].source = v;
  symbols_[*s].index = index;
  symbols_[*s].sourceIsDim = isDim;
}

void DimSymbolTable::print(llvm::raw_ostream &os, const DimExpr &e) const {
  bool first = true;
  for (auto [s, k] : e.terms()) {
    if (!first)
      os << " + ";
    if (k != 1)
      os << k << "*";
    const Symbol &sym = symbols_[s];
    if (sym.name.empty())
      os << "s" << s;
    else
      os << sym.name;
    first = false;
  }
  if (first || e.constantPart() != 0)
    os << (first ? "" : " + ") << e.constantPart();
}

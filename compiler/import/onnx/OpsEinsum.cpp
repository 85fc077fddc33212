//===- OpsEinsum.cpp - Einsum as transpose / reduce_sum / reshape / matmul --===//
//
// Einsum with one or two operands (no repeated label within an operand) is rewritten as:
// reduce_sum over labels only one side uses, transposes to [batch, free, contracted] and
// [batch, contracted, free], reshapes merging each group into one dim, one batched
// mm.matmul, a reshape splitting the groups again and a transpose to the output order.
// `...` becomes one label per broadcast dim. A label repeated within one operand takes
// that operand's diagonal first (transpose, reshape, strided slice). Three or more
// operands are unsupported.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/onnx/OpBuilders.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace mm::onnx_import {

namespace {

using Labels = std::string;

/// Splits "ab,bc->ac" into operand label strings and the output; expands "..." into
/// digit labels (right-aligned across operands).
FailureOr<std::pair<SmallVector<Labels>, Labels>> parseEquation(NodeContext &c, StringRef eq,
                                                                ArrayRef<int64_t> ranks) {
  std::string clean;
  for (char ch : eq)
    if (ch != ' ')
      clean.push_back(ch);
  StringRef s(clean);
  auto [lhs, rhs] = s.split("->");
  bool explicitOut = s.contains("->");
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != ranks.size())
    return c.error() << "equation '" << eq << "' has " << terms.size() << " operands but the node has "
                     << ranks.size();
  size_t maxEll = 0;
  SmallVector<Labels> ops;
  for (auto [term, rank] : llvm::zip(terms, ranks)) {
    size_t dots = term.find("...");
    size_t letters = term.size() - (dots == StringRef::npos ? 0 : 3);
    if (letters > static_cast<size_t>(rank) || (dots == StringRef::npos && letters != size_t(rank)))
      return c.error() << "term '" << term << "' does not fit an operand of rank " << rank;
    size_t ell = rank - letters;
    maxEll = std::max(maxEll, ell);
    Labels l = term.str();
    if (dots != StringRef::npos) {
      Labels digits;
      for (size_t i = 0; i < ell; ++i)
        digits.push_back(static_cast<char>('0' + 9 - ell + 1 + i)); // right-aligned
      l = term.substr(0, dots).str() + digits + term.substr(dots + 3).str();
    }
    ops.push_back(l);
  }
  if (maxEll > 9)
    return c.unsupported("Einsum ellipsis over more than 9 dims");
  Labels allEll;
  for (size_t i = 0; i < maxEll; ++i)
    allEll.push_back(static_cast<char>('0' + 9 - maxEll + 1 + i));
  Labels out;
  if (explicitOut) {
    size_t dots = rhs.find("...");
    out = dots == StringRef::npos ? rhs.str()
                                  : rhs.substr(0, dots).str() + allEll + rhs.substr(dots + 3).str();
  } else {
    // Implicit output: the letters that occur exactly once in the whole equation.
    std::string once;
    for (const Labels &l : ops)
      for (char ch : l)
        if (!isdigit(ch) &&
            llvm::count_if(ops, [&](const Labels &o) { return llvm::count(o, ch) > 0; }) == 1 &&
            llvm::count(l, ch) == 1)
          once.push_back(ch);
    llvm::sort(once);
    out = allEll + once;
  }
  for (char ch : out) {
    if (llvm::count(out, ch) > 1)
      return c.error() << "output label '" << ch << "' is repeated";
    if (llvm::none_of(ops, [&](const Labels &o) { return o.find(ch) != Labels::npos; }))
      return c.error() << "output label '" << ch << "' is in no operand";
  }
  return std::make_pair(ops, out);
}

/// Takes the diagonal of `v` (labelled `l`) over every label that occurs twice or more in
/// `l`, leaving each label once (at the end, for the repeated ones): the two dims move
/// last, merge into one of n*n elements, and a slice with step n + 1 keeps x[.., i, i].
FailureOr<Value> takeDiagonals(NodeContext &c, Value v, Labels &l) {
  for (size_t p = 0; p < l.size(); ++p) {
    size_t q = l.find(l[p], p + 1);
    if (q == Labels::npos)
      continue;
    Shape s = shapeOf(v);
    if (ShapedType::isDynamic(s[p]) || ShapedType::isDynamic(s[q]))
      return c.unsupported("Einsum diagonal over dims of unknown size");
    if (s[p] != s[q])
      return c.error() << "label '" << l[p] << "' is repeated over dims of sizes " << s[p]
                       << " and " << s[q];
    int64_t n = s[p];
    Labels rest;
    SmallVector<int64_t> perm, target;
    for (size_t i = 0; i < l.size(); ++i)
      if (i != p && i != q) {
        perm.push_back(i);
        rest.push_back(l[i]);
        target.push_back(0);
      }
    perm.push_back(p);
    perm.push_back(q);
    target.push_back(n * n);
    Value flat = buildReshape(c, buildTranspose(c, v, perm), target);
    Shape out = shapeOf(flat);
    out.back() = n;
    int64_t last = static_cast<int64_t>(out.size()) - 1;
    v = c.create<SliceOp>(withShape(flat, out), flat, c.constI64({0}), c.constI64({n * n}),
                          c.constI64({last}), c.constI64({n + 1}));
    l = rest + l[p];
    p = static_cast<size_t>(-1); // rescan: positions moved
  }
  return v;
}

/// Sums `v` (labelled `l`) over the labels for which `drop` is true.
Value sumOut(NodeContext &c, Value v, Labels &l, llvm::function_ref<bool(char)> drop) {
  SmallVector<int64_t> axes;
  Labels kept;
  for (auto [i, ch] : llvm::enumerate(l)) {
    if (drop(ch))
      axes.push_back(i);
    else
      kept.push_back(ch);
  }
  if (axes.empty())
    return v;
  l = kept;
  return buildReduce<ReduceSumOp>(c, v, axes, /*keepdims=*/false);
}

/// Transposes `v` (labelled `from`) to the label order `to`.
Value permute(NodeContext &c, Value v, const Labels &from, const Labels &to) {
  if (from == to)
    return v;
  SmallVector<int64_t> perm;
  for (char ch : to)
    perm.push_back(from.find(ch));
  return buildTranspose(c, v, perm);
}

/// The size of a group of dims for a reshape target: their product, or -1 when one is
/// dynamic (only one group may be).
FailureOr<int64_t> groupSize(NodeContext &c, ArrayRef<int64_t> dims, bool &usedInfer) {
  int64_t p = productOfDims(dims);
  if (!ShapedType::isDynamic(p))
    return p;
  if (usedInfer)
    return c.unsupported("Einsum merging two groups of dims of unknown size");
  usedInfer = true;
  return -1;
}

LogicalResult importEinsum(NodeContext &c) {
  if (c.numInputs() > 2)
    return c.unsupported("Einsum with more than two operands");
  if (c.numInputs() < 1)
    return c.error() << "needs one or two inputs";
  if (failed(c.requireInputs(c.numInputs())))
    return failure();
  SmallVector<int64_t> ranks;
  for (unsigned i = 0; i < c.numInputs(); ++i)
    ranks.push_back(c.type(i).getRank());
  auto parsed = parseEquation(c, c.attrString("equation", ""), ranks);
  if (failed(parsed))
    return failure();
  auto &[ops, out] = *parsed;
  auto inOutput = [&](char ch) { return out.find(ch) != Labels::npos; };
  SmallVector<Value> operands;
  for (unsigned i = 0; i < ops.size(); ++i) {
    auto v = takeDiagonals(c, c.in(i), ops[i]);
    if (failed(v))
      return failure();
    operands.push_back(*v);
  }

  if (ops.size() == 1) {
    Labels l = ops[0];
    Value v = sumOut(c, operands[0], l, [&](char ch) { return !inOutput(ch); });
    c.setOutput(0, permute(c, v, l, out));
    return success();
  }

  Labels la = ops[0], lb = ops[1];
  auto inA = [&](char ch) { return la.find(ch) != Labels::npos; };
  auto inB = [&](char ch) { return lb.find(ch) != Labels::npos; };
  Value a = sumOut(c, operands[0], la, [&](char ch) { return !inB(ch) && !inOutput(ch); });
  Value b = sumOut(c, operands[1], lb, [&](char ch) { return !inA(ch) && !inOutput(ch); });
  Labels batch, m, k, n;
  for (char ch : out)
    if (inA(ch) && inB(ch))
      batch.push_back(ch);
  for (char ch : la) {
    if (inB(ch) && !inOutput(ch))
      k.push_back(ch);
    else if (!inB(ch))
      m.push_back(ch);
  }
  for (char ch : lb)
    if (!inA(ch))
      n.push_back(ch);
  a = permute(c, a, la, batch + m + k);
  b = permute(c, b, lb, batch + k + n);

  // A -> [batch, m..., K] (K merged; M = 1 when A has no free label), B -> [batch, 1...,
  // K, N] (K and N merged, one unit dim per extra free label of A so that matmul's batch
  // broadcasting pairs them up).
  size_t nb = batch.size(), nm = m.size();
  Shape nDims = shapeOf(b);
  nDims.erase(nDims.begin(), nDims.begin() + nb + k.size());
  auto mergeTail = [&](Value v, size_t keep, ArrayRef<size_t> groups) -> FailureOr<Value> {
    Shape s = shapeOf(v);
    SmallVector<int64_t> target(keep, 0);
    bool usedInfer = false;
    size_t at = keep;
    for (size_t g : groups) {
      auto size = groupSize(c, ArrayRef<int64_t>(s).slice(at, g), usedInfer);
      if (failed(size))
        return failure();
      target.push_back(*size);
      at += g;
    }
    return buildReshape(c, v, target);
  };
  if (k.size() != 1) {
    auto r = mergeTail(a, nb + nm, {k.size()});
    if (failed(r))
      return failure();
    a = *r;
  }
  if (nm == 0)
    a = buildUnsqueeze(c, a, nb);
  if (k.size() != 1 || n.size() != 1) {
    auto r = mergeTail(b, nb, {k.size(), n.size()});
    if (failed(r))
      return failure();
    b = *r;
  }
  for (size_t i = 1; i < nm; ++i)
    b = buildUnsqueeze(c, b, nb);
  auto shape = matmulShape(shapeOf(a), shapeOf(b));
  if (!shape)
    return c.error() << "Einsum operands do not fit: " << a.getType() << " x " << b.getType();
  Value y = c.create<MatMulOp>(withShape(a, *shape), a, b);
  if (nm == 0)
    y = buildSqueeze(c, y, nb);
  if (n.size() != 1) {
    SmallVector<int64_t> target(nb + nm, 0);
    bool usedInfer = false;
    for (int64_t d : nDims) {
      if (!ShapedType::isDynamic(d)) {
        target.push_back(d);
      } else if (!usedInfer) {
        target.push_back(-1);
        usedInfer = true;
      } else {
        return c.unsupported("Einsum splitting two dims of unknown size");
      }
    }
    y = buildReshape(c, y, target);
  }
  c.setOutput(0, permute(c, y, batch + m + n, out));
  return success();
}

} // namespace

void addEinsumOps(OpTable &t) { t["Einsum"] = importEinsum; }

} // namespace mm::onnx_import

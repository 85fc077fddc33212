//===- PlanCudaFusion.cpp - the -mm-plan-cuda-fusion pass -------------------===//
//
// Decides, at compile time, the fused launches the CUDA executor makes in a decode step,
// and records each as `mm.fusion = [names]` on the op (the plan's Op.fusion bits;
// runtime/cuda/OpCapabilities.h's CudaFusion). Runs after -mm-plan-cuda-graphs, over the
// ops the plan holds (those with mm.placement), in their order:
//   - feeds_next_linear: a device op whose first result is read only by the next op, a
//     device mm.linear, as its input, and is not returned (an RMSNorm or SwiGLU may then
//     run inside that linear's GEMV);
//   - rotary_pair_with_next: a device mm.rotary (x, cos, sin) followed by another with the
//     same cos and sin and the same `interleaved`, neither result returned, and not itself
//     the second of a pair (one launch rotates the query and the key);
//   - append_into_attention: on a KV-cache append (the concat of a kv_past / kv_present
//     pair, contract::kvAppend) when its result and the append of the layer's other kind
//     are read only by one device mm.attention, as its key and value;
//   - rotary_into_attention: on a rotary pair whose query result is read only by a device
//     mm.attention, as its query, whose key is the pair's key result appended to the KV
//     cache (read only by that append) with append_into_attention (the decode-attention
//     launch rotates both and writes the new rows).
// Marks already on the ops are dropped first: this pass alone decides. The plan loader
// checks each bit's preconditions again (a plan is input), and the executor checks each
// fused launch's shapes and types at run time and falls back to separate launches where
// they do not fit.
//
//===----------------------------------------------------------------------===//
#include "compiler/transforms/Passes.h"
#include "mm/MMDialect.h"
#include "mm/MMOps.h"
#include "mm/ModelContract.h"
#include "runtime/cuda/OpCapabilities.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <map>

namespace mm {
#define GEN_PASS_DEF_PLANCUDAFUSION
#include "compiler/transforms/Passes.h.inc"
} // namespace mm

using namespace mlir;
using mm::rt::cuda::CudaFusion;

namespace {

llvm::StringRef fusionName(CudaFusion f) {
  for (const auto &n : mm::rt::cuda::kCudaFusions)
    if (n.fusion == f)
      return llvm::StringRef(n.name.data(), n.name.size());
  return "";
}

class FusionPlanner {
public:
  explicit FusionPlanner(func::FuncOp fn) : fn_(fn) {
    for (Operation &op : fn.getBody().front()) {
      op.removeAttr("mm.fusion"); // this pass decides; marks from elsewhere are dropped
      if (op.hasAttr("mm.placement"))
        ops_.push_back(&op);
    }
    for (size_t i = 0; i < ops_.size(); ++i)
      for (Value v : ops_[i]->getOperands()) {
        ++uses_[v];
        reader_[v] = i;
      }
    for (Value v : fn.getBody().front().getTerminator()->getOperands())
      returned_.insert(v);
    findAppends();
  }

  void plan() {
    for (size_t i = 0; i + 1 < ops_.size(); ++i) {
      if (feedsNextLinear(i))
        mark(ops_[i], CudaFusion::feedsNextLinear);
      if (rotaryPair(i) && !(i > 0 && hasMark(ops_[i - 1], CudaFusion::rotaryPairWithNext)))
        mark(ops_[i], CudaFusion::rotaryPairWithNext); // the next one is done by this launch
    }
    for (auto &[concat, append] : appends_)
      if (appendIntoAttention(append))
        mark(concat, CudaFusion::appendIntoAttention);
    for (size_t i = 0; i + 1 < ops_.size(); ++i)
      if (hasMark(ops_[i], CudaFusion::rotaryPairWithNext) && rotaryIntoAttention(i))
        mark(ops_[i], CudaFusion::rotaryIntoAttention);
    for (auto &[op, names] : marks_) {
      SmallVector<Attribute> list;
      for (CudaFusion f : names)
        list.push_back(StringAttr::get(fn_.getContext(), fusionName(f)));
      op->setAttr("mm.fusion", ArrayAttr::get(fn_.getContext(), list));
    }
  }

private:
  struct Append {
    int64_t layer = 0;
    bool isValue = false;
  };

  bool onDevice(Operation *op) const {
    auto p = op->getAttrOfType<StringAttr>("mm.placement");
    return p && p.getValue() == "device";
  }

  /// The one device mm.attention (query, key, value, ...) reading `v`, when nothing else
  /// among the plan's ops reads it; else null.
  mm::AttentionOp onlyAttention(Value v) const {
    if (uses_.lookup(v) != 1)
      return {};
    auto att = dyn_cast<mm::AttentionOp>(ops_[reader_.lookup(v)]);
    return att && onDevice(att) && att->getNumOperands() >= 3 ? att : mm::AttentionOp();
  }

  bool feedsNextLinear(size_t i) const {
    Operation *op = ops_[i];
    auto next = dyn_cast<mm::LinearOp>(ops_[i + 1]);
    return next && onDevice(op) && onDevice(next) && op->getNumResults() > 0 &&
           next.getInput() == op->getResult(0) && uses_.lookup(op->getResult(0)) == 1 &&
           !returned_.contains(op->getResult(0));
  }

  bool rotaryPair(size_t i) const {
    auto a = dyn_cast<mm::RotaryOp>(ops_[i]), b = dyn_cast<mm::RotaryOp>(ops_[i + 1]);
    return a && b && onDevice(a) && onDevice(b) && a->getNumOperands() == 3 &&
           b->getNumOperands() == 3 && a->getOperand(1) == b->getOperand(1) &&
           a->getOperand(2) == b->getOperand(2) && !returned_.contains(a.getResult()) &&
           !returned_.contains(b.getResult()) && a.getInterleaved() == b.getInterleaved();
  }

  /// The KV-cache appends: the concat of each kv_past argument and its kv_present result.
  void findAppends() {
    using namespace mm::contract;
    for (unsigned a = 0; a < fn_.getNumArguments(); ++a) {
      std::optional<KvPosition> kv = argKv(fn_, a);
      if (!kv || argRole(fn_, a) != ValueRole::kvPast)
        continue;
      for (unsigned r = 0; r < fn_.getNumResults(); ++r)
        if (resultRole(fn_, r) == ValueRole::kvPresent && resultKv(fn_, r) == kv)
          if (Operation *concat = kvAppend(fn_, a, r).concat)
            if (onDevice(concat))
              appends_[concat] = {kv->layer, kv->isValue};
    }
  }

  /// The append of the same layer's other kind, or null.
  Operation *partner(const Append &x) const {
    for (auto &[concat, y] : appends_)
      if (y.layer == x.layer && y.isValue != x.isValue)
        return concat;
    return nullptr;
  }

  bool appendIntoAttention(const Append &x) {
    Operation *other = partner(x);
    if (!other)
      return false;
    Operation *mine = nullptr;
    for (auto &[concat, y] : appends_)
      if (y.layer == x.layer && y.isValue == x.isValue)
        mine = concat;
    Value key = (x.isValue ? other : mine)->getResult(0);
    Value value = (x.isValue ? mine : other)->getResult(0);
    mm::AttentionOp att = onlyAttention(key);
    return att && att == onlyAttention(value) && att->getOperand(1) == key &&
           att->getOperand(2) == value;
  }

  bool rotaryIntoAttention(size_t i) const {
    Value q = ops_[i]->getResult(0), k = ops_[i + 1]->getResult(0);
    mm::AttentionOp att = onlyAttention(q);
    if (!att || att->getOperand(0) != q || uses_.lookup(k) != 1)
      return false;
    Operation *append = ops_[reader_.lookup(k)];
    auto it = appends_.find(append);
    return it != appends_.end() && !it->second.isValue && append->getOperand(1) == k &&
           hasMark(append, CudaFusion::appendIntoAttention) &&
           att->getOperand(1) == append->getResult(0);
  }

  void mark(Operation *op, CudaFusion f) { marks_[op].push_back(f); }
  bool hasMark(Operation *op, CudaFusion f) const {
    auto it = marks_.find(op);
    return it != marks_.end() && llvm::is_contained(it->second, f);
  }

  func::FuncOp fn_;
  std::vector<Operation *> ops_; ///< the ops the plan holds, in order
  llvm::DenseMap<Value, int> uses_;
  llvm::DenseMap<Value, size_t> reader_; ///< the last op reading a value (the one, when uses_ is 1)
  llvm::DenseSet<Value> returned_;
  std::map<Operation *, Append> appends_;
  std::map<Operation *, SmallVector<CudaFusion, 2>> marks_;
};

struct PlanCudaFusionPass : mm::impl::PlanCudaFusionBase<PlanCudaFusionPass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal() || !fn->hasAttr("mm.segments"))
      return; // not planned by -mm-plan-cuda-graphs: nothing runs on the device
    FusionPlanner(fn).plan();
  }
};

} // namespace

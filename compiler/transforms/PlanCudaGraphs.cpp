//===- PlanCudaGraphs.cpp - the -mm-plan-cuda-graphs pass -------------------===//
//
// Decides, for `mmc compile --target cuda`, where the CUDA runtime runs each op of a
// function and splits its device launches into segments that can be captured as CUDA
// graphs (docs/cuda-graphs.md).
//
// Residency of values:
//  - arguments with an integer (or i1) element type: host; other arguments: device;
//  - mm.constant results: host (the runtime uploads a constant once, at load, when a
//    device op reads it);
//  - mm.weight results, and the weight concats, casts and transposes the plan emitter
//    folds into weights (mm/WeightExpr.h): "weight", uploaded at load and still readable on the
//    host in the mapped plan, so reading one never needs a synchronisation;
//  - an op's results: where the op runs.
// Placement: mm.dim and mm.shape read only shapes and run on the host. Any other op runs
// on the device when the CUDA executor implements it for its element types (the table
// kDeviceOps of runtime/cuda/OpCapabilities.h, whose names the executor's launch table
// holds: OpCapabilitiesTest) and one of its data
// operands (not a shape operand) is on the device or a weight of more than 256 elements
// (a smaller one, like a rotary inv_freq, is read on the host); otherwise on the host, so
// integer, mask and position computations over host inputs stay on the host and their
// results are uploaded where a device op reads them. Two refinements: an op left on the
// host for reading only host values and small weights runs on the device when all its
// users do (pullWeightWorkToDevice); and a cheap device op
// (layout, elementwise, cast) that reads only weights and host values and whose results
// only host ops read runs on the host instead, as running it on the device would only
// force a download (a mask buffer expanded for mm.where, in dynamo exports).
// Segments: a host op reading a device value needs a download (a sync), and so does a
// device op whose shape operand (kShapeOperands) is on the device: either ends the open
// segment. A segment is a maximal run of device ops (in op order) between such points;
// host ops that read no device data do not split segments (the runtime runs them before
// launching the segment).
//
//===----------------------------------------------------------------------===//
#include "compiler/transforms/Passes.h"
#include "mm/MMDialect.h"
#include "mm/MMOps.h"
#include "mm/WeightExpr.h"
#include "runtime/cuda/OpCapabilities.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

namespace mm {
#define GEN_PASS_DEF_PLANCUDAGRAPHS
#include "compiler/transforms/Passes.h.inc"
} // namespace mm

using namespace mlir;

namespace {

using mm::rt::cuda::DeviceTypes;
/// The op names of kDeviceOps and the element types each runs on the device for.
using DeviceOpTable = llvm::StringMap<DeviceTypes>;

/// Where a value lives while the CUDA runtime runs the function.
enum class Residency { host, device, weight };

bool isCudaFloat(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  Type e = tensor ? tensor.getElementType() : t;
  return e.isF32() || e.isF16() || e.isBF16();
}

/// Operands of device-capable ops that decide the result's shape: the runtime reads them
/// on the host to size the output (reshape / expand shape, slice starts / ends / axes /
/// steps). Returns the index of the first one (they run to the last operand), or the
/// number of operands when there are none.
unsigned firstShapeOperand(Operation *op) {
  if (isa<mm::ReshapeOp, mm::ExpandOp, mm::SliceOp>(op))
    return 1;
  return op->getNumOperands();
}

class Planner {
public:
  Planner(func::FuncOp fn, const DeviceOpTable &deviceOps)
      : fn_(fn), deviceOps_(deviceOps), b_(fn.getContext()) {}

  LogicalResult run() {
    Block &body = fn_.getBody().front();
    for (BlockArgument arg : body.getArguments()) {
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type)
        return fn_.emitError() << "argument #" << arg.getArgNumber() << " of type "
                               << arg.getType() << " cannot be placed (ranked tensors only)";
      where_[arg] = isa<IntegerType>(type.getElementType()) ? Residency::host : Residency::device;
    }
    for (Operation &op : body.getOperations()) {
      op.removeAttr("mm.placement");
      op.removeAttr("mm.segment");
      if (isa<func::ReturnOp>(op))
        continue;
      if (!isa_and_nonnull<mm::MMDialect>(op.getDialect()) || op.getNumRegions() != 0)
        return op.emitError() << "op '" << op.getName()
                              << "' cannot be placed: the CUDA runtime runs mm ops only";
      if (!visitFoldable(op)) {
        ops_.push_back(&op);
        decide(op);
      }
    }
    pullWeightWorkToDevice();
    keepHostWorkOnHost();
    for (size_t i = 0; i < ops_.size(); ++i)
      assign(*ops_[i], static_cast<int64_t>(i));
    endSegment("end of function");
    fn_->setAttr("mm.segments", b_.getArrayAttr(segments_));
    return success();
  }

private:
  /// mm.weight, mm.constant and the ops over them that the plan emitter folds into
  /// weights (mm/WeightExpr.h): no op in the plan, so no placement and no op index.
  /// Returns whether `op` is one.
  bool visitFoldable(Operation &op) {
    std::optional<mm::WeightExprInfo> folded = mm::foldedWeightExpr(op, [&](Value v) -> const mm::WeightExprInfo * {
      auto it = foldable_.find(v);
      return it == foldable_.end() ? nullptr : &it->second;
    });
    if (!folded)
      return false;
    foldable_[op.getResult(0)] = *folded;
    where_[op.getResult(0)] = folded->weight ? Residency::weight : Residency::host;
    return true;
  }

  bool isCudaOp(Operation &op) const {
    auto it = deviceOps_.find(op.getName().getStringRef());
    if (it == deviceOps_.end())
      return false;
    switch (it->second) {
    case DeviceTypes::any:
      return true;
    case DeviceTypes::floatResult:
      return isCudaFloat(op.getResult(0).getType());
    case DeviceTypes::floatCast:
      return isCudaFloat(op.getOperand(0).getType()) && isCudaFloat(op.getResult(0).getType());
    }
    return false;
  }

  /// Data operands: all but the shape operands (firstShapeOperand).
  static auto dataOperands(Operation &op) {
    return op.getOperands().take_front(firstShapeOperand(&op));
  }

  /// The placement rule: on the device when the CUDA executor implements the op and a
  /// data operand is on the device or a weight; mm.dim / mm.shape on the host.
  void decide(Operation &op) {
    bool device = !isa<mm::DimOp, mm::ShapeOp>(op) && isCudaOp(op) &&
                  llvm::any_of(dataOperands(op), [&](Value v) { return pullsToDevice(v); });
    setDevice(op, device);
  }

  /// Whether reading `v` makes a device-capable op run on the device: a device value, or a
  /// weight of more than kSmallWeight elements. A small weight (a rotary inv_freq, which
  /// dynamo exports keep as an initializer) is read on the host like a constant, so the
  /// angle computation over host positions stays on the host with its mm.cos / mm.sin.
  bool pullsToDevice(Value v) const {
    Residency r = where_.lookup(v);
    if (r != Residency::weight)
      return r == Residency::device;
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return !t || !t.hasStaticShape() || t.getNumElements() > kSmallWeight;
  }
  static constexpr int64_t kSmallWeight = 256;

  void setDevice(Operation &op, bool device) {
    onDevice_[&op] = device;
    for (Value result : op.getResults())
      where_[result] = device ? Residency::device : Residency::host;
  }

  /// A device-capable op left on the host because it reads only host values and small
  /// weights moves to the device when every user runs there (a class embedding expanded
  /// for a concat with the patches): it reads the weight where it is uploaded, instead of
  /// its result being uploaded per call. Repeated until nothing moves.
  void pullWeightWorkToDevice() {
    for (bool moved = true; moved;) {
      moved = false;
      for (Operation *op : ops_) {
        if (onDevice_[op] || isa<mm::DimOp, mm::ShapeOp>(op) || !isCudaOp(*op) ||
            llvm::none_of(dataOperands(*op),
                          [&](Value v) { return where_.lookup(v) == Residency::weight; }))
          continue;
        bool deviceUsersOnly = !op->use_empty() && llvm::all_of(op->getUsers(), [&](Operation *u) {
          auto it = onDevice_.find(u);
          return it != onDevice_.end() && it->second;
        });
        if (deviceUsersOnly) {
          setDevice(*op, true);
          moved = true;
        }
      }
    }
  }

  /// A cheap device op (layout, elementwise, cast) that reads only weights and host
  /// values and whose results only host ops read moves to the host: its inputs are all
  /// readable there, and running it on the device would only force a download (e.g. an
  /// expand of a mask buffer feeding mm.where). Repeated until nothing moves.
  void keepHostWorkOnHost() {
    for (bool moved = true; moved;) {
      moved = false;
      for (Operation *op : llvm::reverse(ops_)) {
        if (!onDevice_[op] || isHeavyOp(*op) ||
            llvm::any_of(op->getOperands(),
                         [&](Value v) { return where_.lookup(v) == Residency::device; }))
          continue;
        bool hostUsersOnly = !op->use_empty() && llvm::all_of(op->getUsers(), [&](Operation *u) {
          auto it = onDevice_.find(u);
          return it != onDevice_.end() && !it->second;
        });
        if (hostUsersOnly) {
          setDevice(*op, false);
          moved = true;
        }
      }
    }
  }

  /// Ops worth a device launch even when only the host reads their result.
  static bool isHeavyOp(Operation &op) {
    return isa<mm::LinearOp, mm::MatMulOp, mm::AttentionOp, mm::LayerNormOp,
               mm::AddLayerNormOp, mm::RMSNormOp, mm::AddRMSNormOp, mm::RotaryOp, mm::SwiGLUOp, mm::GeGLUOp,
               mm::GeluOp, mm::QuickGeluOp, mm::SiluOp>(op);
  }

  /// Writes op `index`'s placement and extends or ends the open segment: a host op
  /// (other than mm.dim / mm.shape) reading a device value, or a device op whose shape
  /// operand is on the device, needs a download first.
  void assign(Operation &op, int64_t index) {
    if (onDevice_[&op]) {
      bool deviceShape = llvm::any_of(op.getOperands().drop_front(firstShapeOperand(&op)),
                                      [&](Value v) { return where_.lookup(v) == Residency::device; });
      if (deviceShape)
        endSegment("data-dependent shape");
      if (first_ < 0)
        first_ = index;
      last_ = index;
      op.setAttr("mm.placement", b_.getStringAttr("device"));
      op.setAttr("mm.segment", b_.getI64IntegerAttr(static_cast<int64_t>(segments_.size())));
      return;
    }
    bool readsDevice = !isa<mm::DimOp, mm::ShapeOp>(op) &&
                       llvm::any_of(op.getOperands(), [&](Value v) {
                         return where_.lookup(v) == Residency::device;
                       });
    if (readsDevice)
      endSegment(("host op " + op.getName().getStringRef() + " reads a device value").str());
    op.setAttr("mm.placement", b_.getStringAttr("host"));
  }

  /// Closes the open segment, if any, with `reason`.
  void endSegment(StringRef reason) {
    if (first_ < 0)
      return;
    segments_.push_back(b_.getDictionaryAttr({
        b_.getNamedAttr("first", b_.getI64IntegerAttr(first_)),
        b_.getNamedAttr("last", b_.getI64IntegerAttr(last_)),
        b_.getNamedAttr("end", b_.getStringAttr(reason)),
    }));
    first_ = last_ = -1;
  }

  func::FuncOp fn_;
  const DeviceOpTable &deviceOps_;
  Builder b_;
  llvm::DenseMap<Value, Residency> where_;
  llvm::DenseMap<Value, mm::WeightExprInfo> foldable_;
  SmallVector<Attribute> segments_;
  /// The ops the plan holds, in order: op i of the plan is ops_[i] (the emitter's numbering).
  std::vector<Operation *> ops_;
  llvm::DenseMap<Operation *, bool> onDevice_;
  int64_t first_ = -1, last_ = -1; ///< the open segment's ops (-1: none open)
};

struct PlanCudaGraphsPass : public mm::impl::PlanCudaGraphsBase<PlanCudaGraphsPass> {
  using PlanCudaGraphsBase::PlanCudaGraphsBase;

  /// Builds the op table; fails if a name is not an op of the mm dialect (the table and
  /// the dialect out of step).
  LogicalResult initialize(MLIRContext *ctx) override {
    ctx->getOrLoadDialect<mm::MMDialect>();
    for (const mm::rt::cuda::DeviceOpCapability &c : mm::rt::cuda::kDeviceOps) {
      StringRef name(c.name.data(), c.name.size());
      if (!RegisteredOperationName::lookup(name, ctx))
        return emitError(UnknownLoc::get(ctx))
               << "-mm-plan-cuda-graphs: '" << name << "' is not an op of the mm dialect";
      deviceOps_[name] = c.types;
    }
    return success();
  }

  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal())
      return;
    if (!fn.getBody().hasOneBlock()) {
      fn.emitError() << "function @" << fn.getSymName() << " must have exactly one block";
      return signalPassFailure();
    }
    if (failed(Planner(fn, deviceOps_).run()))
      signalPassFailure();
  }

  DeviceOpTable deviceOps_;
};

} // namespace

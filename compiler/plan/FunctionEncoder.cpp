//===- FunctionEncoder.cpp - one func.func as a plan Function ---------------===//
#include "compiler/plan/FunctionEncoder.h"

#include "compiler/plan/KvCachePattern.h"
#include "compiler/plan/PlanEncoding.h"
#include "compiler/support/Locations.h"
#include "mm/MMDialect.h"
#include "mm/MMOps.h"
#include "mm/ModelContract.h"
#include "mm/WeightExpr.h"
#include "runtime/cuda/OpCapabilities.h"
#include "runtime/plan/PlanFormat.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
namespace fb = mm::plan::fb;

namespace mm {

double WeightExtent::sourceRatio() const {
  return static_cast<double>(planDTypeSize(from)) / static_cast<double>(planDTypeSize(to));
}

uint32_t WeightTable::add(const std::string &name, std::vector<WeightExtent> extents,
                          std::optional<WeightTranspose> transpose, Location loc) {
  std::vector<WeightExtent> merged;
  for (WeightExtent &e : extents) {
    if (e.length == 0)
      continue;
    WeightExtent *last = merged.empty() ? nullptr : &merged.back();
    if (last && last->from == e.from && last->to == e.to && last->bytes == e.bytes &&
        last->source == e.source &&
        last->offset + static_cast<uint64_t>(last->length * last->sourceRatio()) == e.offset) {
      last->length += e.length;
      continue;
    }
    merged.push_back(std::move(e));
  }
  std::string key = transpose ? "T" + std::to_string(transpose->rows) + "x" +
                                    std::to_string(transpose->cols) + ";"
                              : "";
  uint64_t length = 0;
  for (const WeightExtent &e : merged) {
    key += (e.bytes ? "inline:" + std::to_string(reinterpret_cast<uintptr_t>(e.bytes.get()))
                    : "file:" + e.source) +
           "@" + std::to_string(e.offset) + "+" + std::to_string(e.length) + ":" +
           std::to_string(static_cast<int>(e.from)) + ">" + std::to_string(static_cast<int>(e.to)) +
           ";";
    length += e.length;
  }
  auto it = index_.find(key);
  if (it != index_.end())
    return it->second;
  uint32_t id = static_cast<uint32_t>(entries_.size());
  uint64_t at = plan::alignUp(blobSize_, plan::kWeightAlignment);
  entries_.push_back({name, std::move(merged), transpose, length, at, loc});
  blobSize_ = at + length;
  index_.emplace(key, id);
  return id;
}

std::vector<WeightExtent> sliceExtents(const std::vector<WeightExtent> &extents, uint64_t begin,
                                       uint64_t length) {
  std::vector<WeightExtent> out;
  uint64_t pos = 0, end = begin + length;
  for (const WeightExtent &e : extents) {
    uint64_t lo = std::max(pos, begin), hi = std::min(pos + e.length, end);
    if (lo < hi) {
      WeightExtent part = e;
      part.offset = e.offset + static_cast<uint64_t>((lo - pos) * e.sourceRatio());
      part.length = hi - lo;
      out.push_back(std::move(part));
    }
    pos += e.length;
    if (pos >= end)
      break;
  }
  return out;
}

namespace {

/// What is known about one tensor before its table is written.
struct TensorRecord {
  fb::DType dtype = fb::DType::f32;
  SmallVector<int64_t> shape;
  std::vector<std::string> dimNames;
  fb::TensorKind kind = fb::TensorKind::activation;
  std::string name;
  /// weight and constant tensors: their bytes, as file slices or inline data
  std::vector<WeightExtent> extents;
  /// set when the bytes of `extents` are written transposed (a folded mm.transpose)
  std::optional<WeightTranspose> transpose;
  Location loc;
  ElementsAttr constant; ///< kind = constant
  int32_t firstOp = -1, lastOp = -1;
  bool used = false;     ///< read by an emitted op or returned
};

/// An op to write once the tensor ids are final.
struct OpRecord {
  std::string name;
  std::vector<uint32_t> inputs, outputs;
  std::vector<flatbuffers::Offset<fb::Attribute>> attributes;
  std::string location;
  Operation *op;
  fb::Placement placement = fb::Placement::unplanned;
  int32_t segment = -1;
  uint8_t fusion = 0; ///< bits of rt::cuda::CudaFusion (mm.fusion)
};

/// A CUDA-graph segment from the function's `mm.segments` (-mm-plan-cuda-graphs).
struct SegmentRecord {
  uint32_t first = 0, last = 0;
  std::string end;
};

/// Numbers the tensors of one function and writes it. Weights and constants are written
/// only if an emitted op reads them or the function returns them, so the operands of a
/// folded weight concat do not reach the plan.
class FunctionEncoder {
public:
  FunctionEncoder(flatbuffers::FlatBufferBuilder &fbb, func::FuncOp fn, WeightTable &weights,
                  FunctionPlanStats &stats, uint64_t &constantBytes)
      : fbb_(fbb), fn_(fn), weights_(weights), stats_(stats), constantBytes_(constantBytes) {}

  FailureOr<flatbuffers::Offset<fb::Function>> encode() {
    if (fn_.isExternal() || !fn_.getBody().hasOneBlock())
      return fn_.emitError() << "function @" << fn_.getSymName()
                             << " must have exactly one block to be put in a plan";
    Block &body = fn_.getBody().front();
    llvm::StringSet<> names;
    for (BlockArgument arg : body.getArguments()) {
      auto id = addTensor(arg, fb::TensorKind::input, fn_.getLoc());
      if (failed(id))
        return failure();
      TensorRecord &r = records_[*id];
      r.name = argName(fn_, arg.getArgNumber());
      r.used = true;
      if (!names.insert(r.name).second)
        return fn_.emitError() << "two arguments of @" << fn_.getSymName() << " are named '"
                               << r.name << "'";
      r.dimNames = dimNames(fn_.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(), "mm.dims"),
                            r.shape.size());
    }
    if (failed(readSegments()))
      return failure();
    for (Operation &op : body.getOperations())
      if (failed(visit(op)))
        return failure();
    if (failed(checkSegments()))
      return failure();
    auto slots = findKvCacheSlots(fn_);
    if (failed(slots))
      return failure();
    slots_ = std::move(*slots);
    return finish();
  }

private:
  static std::vector<std::string> dimNames(ArrayAttr dims, size_t rank) {
    std::vector<std::string> names(rank);
    if (dims && dims.size() == rank)
      for (size_t d = 0; d < rank; ++d)
        if (auto s = dyn_cast<StringAttr>(dims[d]))
          names[d] = s.str();
    return names;
  }

  /// Reads the function's `mm.segments` ({first, last, end} dictionaries), if planned.
  LogicalResult readSegments() {
    Attribute attr = fn_->getAttr("mm.segments");
    if (!attr)
      return success();
    auto list = dyn_cast<ArrayAttr>(attr);
    if (!list)
      return fn_.emitError() << "mm.segments must be an array of {first, last, end}";
    planned_ = true;
    for (Attribute a : list) {
      auto dict = dyn_cast<DictionaryAttr>(a);
      auto first = dict ? dict.getAs<IntegerAttr>("first") : IntegerAttr();
      auto last = dict ? dict.getAs<IntegerAttr>("last") : IntegerAttr();
      auto end = dict ? dict.getAs<StringAttr>("end") : StringAttr();
      if (!first || !last || !end || first.getInt() < 0 || last.getInt() < first.getInt())
        return fn_.emitError() << "mm.segments entry " << a
                               << " is not {first = i64, last = i64 >= first, end = string}";
      segments_.push_back({static_cast<uint32_t>(first.getInt()),
                           static_cast<uint32_t>(last.getInt()), end.str()});
    }
    return success();
  }

  /// The op's `mm.placement` and `mm.segment` (-mm-plan-cuda-graphs) into `rec`: every op
  /// of a planned function has a placement, device ops a segment of the function.
  LogicalResult readPlacement(Operation &op, OpRecord &rec) {
    auto placement = op.getAttrOfType<StringAttr>("mm.placement");
    if (!placement) {
      if (planned_ || op.hasAttr("mm.placement") || op.hasAttr("mm.segment"))
        return op.emitError() << "op without a valid mm.placement in a function planned by "
                                 "-mm-plan-cuda-graphs (run it last)";
      if (op.hasAttr("mm.fusion"))
        return op.emitError() << "mm.fusion on an op without mm.placement (-mm-plan-cuda-fusion "
                                 "marks ops that -mm-plan-cuda-graphs placed on the device)";
      return success();
    }
    if (!planned_)
      return op.emitError() << "mm.placement on an op of a function without mm.segments";
    if (placement.getValue() != "host" && placement.getValue() != "device")
      return op.emitError() << "mm.placement must be \"host\" or \"device\", not " << placement;
    auto segment = op.getAttrOfType<IntegerAttr>("mm.segment");
    if (placement.getValue() == "host") {
      if (op.hasAttr("mm.segment") || op.hasAttr("mm.fusion"))
        return op.emitError() << "mm.segment or mm.fusion on an op placed on the host";
      rec.placement = fb::Placement::host;
      return success();
    }
    if (!segment || segment.getInt() < 0 ||
        segment.getInt() >= static_cast<int64_t>(segments_.size()))
      return op.emitError() << "device op without an mm.segment among the function's "
                            << segments_.size() << " segments";
    rec.placement = fb::Placement::device;
    rec.segment = static_cast<int32_t>(segment.getInt());
    return readFusion(op, rec);
  }

  /// mm.fusion (-mm-plan-cuda-fusion) of a device op: the names of runtime/cuda/
  /// OpCapabilities.h's kCudaFusions, as the plan's Op.fusion bits.
  LogicalResult readFusion(Operation &op, OpRecord &rec) {
    auto list = op.getAttrOfType<ArrayAttr>("mm.fusion");
    if (!list)
      return op.hasAttr("mm.fusion") ? op.emitError() << "mm.fusion must be a list of names"
                                     : success();
    for (Attribute a : list) {
      auto name = dyn_cast<StringAttr>(a);
      const auto *known = llvm::find_if(rt::cuda::kCudaFusions, [&](const auto &n) {
        return name && name.getValue() == llvm::StringRef(n.name.data(), n.name.size());
      });
      if (known == std::end(rt::cuda::kCudaFusions))
        return op.emitError() << "mm.fusion: unknown fused launch " << a;
      rec.fusion |= static_cast<uint8_t>(known->fusion);
    }
    return success();
  }

  /// Each segment's [first, last] must be the range of its device ops among the ops the
  /// plan holds: the pass numbers ops as this encoder does (no weights, constants or
  /// folded weight concats / casts).
  LogicalResult checkSegments() {
    std::vector<int64_t> lo(segments_.size(), -1), hi(segments_.size(), -1);
    for (size_t i = 0; i < ops_.size(); ++i) {
      int32_t s = ops_[i].segment;
      if (s < 0)
        continue;
      if (lo[s] < 0)
        lo[s] = static_cast<int64_t>(i);
      hi[s] = static_cast<int64_t>(i);
    }
    for (size_t s = 0; s < segments_.size(); ++s)
      if (lo[s] != segments_[s].first || hi[s] != segments_[s].last)
        return fn_.emitError() << "mm.segments[" << s << "] covers ops [" << segments_[s].first
                               << ", " << segments_[s].last << "] but its device ops in the "
                               << "plan are [" << lo[s] << ", " << hi[s]
                               << "]: run -mm-plan-cuda-graphs last";
    return success();
  }

  FailureOr<uint32_t> addTensor(Value v, fb::TensorKind kind, Location loc) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type)
      return emitError(loc) << "value of type " << v.getType()
                            << " cannot be put in a plan (ranked tensors only)";
    auto dtype = planDType(type.getElementType());
    if (failed(dtype))
      return emitError(loc) << "unsupported element type " << type.getElementType()
                            << ": a plan holds f32, f16, bf16, f64, bool and 8/16/32/64-bit "
                               "integers";
    TensorRecord r{*dtype, {}, {}, kind, "", {}, {}, loc, {}, -1, -1, false};
    for (int64_t d : type.getShape()) {
      if (!ShapedType::isDynamic(d) && d > plan::kMaxDim)
        return emitError(loc) << "value of type " << type << " has a dim of " << d
                              << ": a plan's dims are at most 2^40";
      r.shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
    }
    r.dimNames.assign(r.shape.size(), "");
    uint32_t id = static_cast<uint32_t>(records_.size());
    records_.push_back(std::move(r));
    ids_[v] = id;
    return id;
  }

  LogicalResult visit(Operation &op) {
    if (isa<WeightOp, ConstantOp>(op) && (op.hasAttr("mm.placement") || op.hasAttr("mm.fusion")))
      return op.emitError() << "mm.placement or mm.fusion on a weight or constant (the plan "
                               "holds its bytes; no op runs)";
    if (auto w = dyn_cast<WeightOp>(op))
      return visitWeight(w);
    if (auto c = dyn_cast<ConstantOp>(op))
      return visitConstant(c);
    if (auto ret = dyn_cast<func::ReturnOp>(op))
      return visitReturn(ret);
    if (!isa<MMDialect>(op.getDialect()) || op.getNumRegions() != 0)
      return op.emitError() << "op '" << op.getName()
                            << "' cannot be put in a plan (only mm ops, mm.weight, mm.constant "
                               "and func.return)";
    return visitCompute(op);
  }

  LogicalResult visitWeight(WeightOp w) {
    auto id = addTensor(w.getResult(), fb::TensorKind::weight, w.getLoc());
    if (failed(id))
      return failure();
    TensorRecord &r = records_[*id];
    uint64_t bytes = planDTypeSize(r.dtype);
    for (int64_t d : r.shape) {
      if (d < 0)
        return w.emitError() << "weight '" << w.getName() << "' has a dynamic shape";
      if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(d), &bytes) || bytes > (uint64_t(1) << 62))
        return w.emitError() << "weight '" << w.getName() << "' of type " << w.getType()
                             << " is too large (over 2^62 bytes)";
    }
    if (static_cast<int64_t>(w.getOffset()) < 0 || static_cast<uint64_t>(w.getLength()) != bytes)
      return w.emitError() << "weight '" << w.getName() << "' is " << w.getLength()
                           << " bytes at offset " << w.getOffset() << " but its type "
                           << w.getType() << " needs " << bytes;
    r.name = w.getName().str();
    r.extents = {{w.getSource().str(), static_cast<uint64_t>(w.getOffset()), bytes, nullptr,
                  r.dtype, r.dtype}};
    exprs_[w.getResult()] = WeightExprInfo{true, false, false};
    return success();
  }

  LogicalResult visitConstant(ConstantOp c) {
    auto id = addTensor(c.getResult(), fb::TensorKind::constant, c.getLoc());
    if (failed(id))
      return failure();
    auto bytes = denseBytes(c.getValue(), c.getLoc());
    if (failed(bytes))
      return failure();
    auto raw = std::make_shared<const std::vector<uint8_t>>(std::move(*bytes));
    records_[*id].constant = c.getValue();
    records_[*id].extents = {{"", 0, raw->size(), raw, records_[*id].dtype, records_[*id].dtype}};
    exprs_[c.getResult()] = WeightExprInfo{false, false, false};
    return success();
  }

  /// mm.concat of folded values (mm/WeightExpr.h): one new weight whose bytes are the
  /// operands' interleaved along the axis, so the concat does not run at all (merged Q/K/V
  /// and gate/up projections from -mm-fuse-linear). Of transposed [N_i, K] sources
  /// concatenated along axis 1: their sources appended (axis 0), written transposed.
  LogicalResult foldWeightConcat(ConcatOp concat, bool transposed) {
    auto type = cast<RankedTensorType>(concat.getType());
    const int64_t rawAxis = static_cast<int64_t>(concat.getAxis());
    int64_t axis = rawAxis < 0 ? rawAxis + type.getRank() : rawAxis;
    auto id = addTensor(concat.getResult(), fb::TensorKind::weight, concat.getLoc());
    if (failed(id))
      return failure();
    std::vector<WeightExtent> extents;
    std::string name;
    for (Value v : concat.getInputs())
      name += (name.empty() ? "concat(" : ", ") + records_[ids_[v]].name;
    if (transposed) {
      WeightTranspose t{0, static_cast<uint64_t>(type.getDimSize(0))};
      for (Value v : concat.getInputs()) {
        const TensorRecord &in = records_[ids_[v]];
        t.rows += in.transpose->rows;
        extents.insert(extents.end(), in.extents.begin(), in.extents.end());
      }
      records_[*id].transpose = t;
    } else {
      uint64_t outer = 1, inner = planDTypeSize(records_[*id].dtype);
      for (int64_t d = 0; d < axis; ++d)
        outer *= static_cast<uint64_t>(type.getDimSize(d));
      for (int64_t d = axis + 1; d < type.getRank(); ++d)
        inner *= static_cast<uint64_t>(type.getDimSize(d));
      for (uint64_t o = 0; o < outer; ++o)
        for (Value v : concat.getInputs()) {
          uint64_t chunk =
              static_cast<uint64_t>(cast<RankedTensorType>(v.getType()).getDimSize(axis)) * inner;
          for (WeightExtent &e : sliceExtents(records_[ids_[v]].extents, o * chunk, chunk))
            extents.push_back(std::move(e));
        }
    }
    records_[*id].name = name + ")";
    records_[*id].extents = std::move(extents);
    ++stats_.foldedConcats;
    return success();
  }

  /// Adds the weight record of `result`, computed from the folded value `input`; returns
  /// both records (valid until the next addTensor).
  FailureOr<std::pair<TensorRecord *, const TensorRecord *>> addDerivedWeight(Value result, Value input,
                                                                             Location loc) {
    auto id = addTensor(result, fb::TensorKind::weight, loc);
    if (failed(id))
      return failure();
    return std::pair<TensorRecord *, const TensorRecord *>(&records_[*id], &records_[ids_[input]]);
  }

  /// mm.cast between f32, f16 and bf16 of a folded value: a converted weight, written
  /// converted (round to nearest even, as the runtime's casts), so the cast does not run
  /// (mmc compile --dtype f16|bf16 casts every weight). A cast of bytes already widened to
  /// f32 converts from their source type directly (the widening was exact).
  LogicalResult foldWeightCast(CastOp c) {
    auto records = addDerivedWeight(c.getResult(), c.getInput(), c.getLoc());
    if (failed(records))
      return failure();
    auto [r, src] = *records;
    r->name = src->name + "." + std::string(fb::EnumNameDType(r->dtype));
    r->transpose = src->transpose;
    double shrink = static_cast<double>(planDTypeSize(r->dtype)) / planDTypeSize(src->dtype);
    for (WeightExtent e : src->extents) {
      e.to = r->dtype;
      e.length = static_cast<uint64_t>(e.length * shrink);
      r->extents.push_back(std::move(e));
    }
    ++stats_.foldedCasts;
    return success();
  }

  /// mm.transpose {perm = [1, 0]} of a folded 2-D value: the same bytes, written
  /// transposed (the [N, K] weights of a TorchScript export without constant folding).
  LogicalResult foldWeightTranspose(TransposeOp t) {
    auto records = addDerivedWeight(t.getResult(), t.getInput(), t.getLoc());
    if (failed(records))
      return failure();
    auto [r, src] = *records;
    r->name = src->name + ".T";
    r->extents = src->extents;
    r->transpose = WeightTranspose{static_cast<uint64_t>(src->shape[0]), static_cast<uint64_t>(src->shape[1])};
    ++stats_.foldedTransposes;
    return success();
  }

  /// mm.reshape of a folded weight: the same bytes under the result's shape.
  LogicalResult foldWeightReshape(ReshapeOp reshape) {
    auto records = addDerivedWeight(reshape.getResult(), reshape.getData(), reshape.getLoc());
    if (failed(records))
      return failure();
    auto [r, src] = *records;
    r->name = src->name + ".reshape";
    r->extents = src->extents;
    ++stats_.foldedReshapes;
    return success();
  }

  /// Folds `op` into a weight when mm/WeightExpr.h says the emitter does; returns whether
  /// it did.
  FailureOr<bool> foldWeightExpr(Operation &op) {
    std::optional<WeightExprInfo> info = foldedWeightExpr(op, [&](Value v) -> const WeightExprInfo * {
      auto it = exprs_.find(v);
      return it == exprs_.end() ? nullptr : &it->second;
    });
    if (!info)
      return false;
    LogicalResult done = success();
    if (auto concat = dyn_cast<ConcatOp>(op))
      done = foldWeightConcat(concat, info->transposed);
    else if (auto c = dyn_cast<CastOp>(op))
      done = foldWeightCast(c);
    else if (auto t = dyn_cast<TransposeOp>(op))
      done = foldWeightTranspose(t);
    else if (auto reshape = dyn_cast<ReshapeOp>(op))
      done = foldWeightReshape(reshape);
    if (failed(done))
      return failure();
    exprs_[op.getResult(0)] = *info;
    return true;
  }

  LogicalResult visitCompute(Operation &op) {
    // A concat, cast, transpose or reshape of weights becomes a weight of the blob, not an
    // op: nothing runs it, so nothing may place or fuse it.
    FailureOr<bool> folded = foldWeightExpr(op);
    if (failed(folded))
      return failure();
    if (*folded && (op.hasAttr("mm.placement") || op.hasAttr("mm.fusion")))
      return op.emitError() << "mm.placement or mm.fusion on an op the plan folds into its "
                               "weights (mm/WeightExpr.h)";
    if (*folded)
      return success();
    const int32_t index = static_cast<int32_t>(ops_.size());
    OpRecord rec{op.getName().getStringRef().str(), {}, {}, {}, describeLocation(op.getLoc()), &op};
    for (Value operand : op.getOperands()) {
      auto it = ids_.find(operand);
      if (it == ids_.end())
        return op.emitError() << "operand defined outside the function's block";
      rec.inputs.push_back(it->second);
      TensorRecord &r = records_[it->second];
      r.used = true;
      if (r.kind == fb::TensorKind::activation)
        r.lastOp = std::max(r.lastOp, index);
    }
    for (Value result : op.getResults()) {
      auto id = addTensor(result, fb::TensorKind::activation, op.getLoc());
      if (failed(id))
        return failure();
      records_[*id].firstOp = index;
      records_[*id].lastOp = index; // extended by later readers
      records_[*id].used = true;
      rec.outputs.push_back(*id);
    }
    auto attrs = encodeAttributes(fbb_, &op);
    if (failed(attrs) || failed(readPlacement(op, rec)))
      return failure();
    rec.attributes = std::move(*attrs);
    ops_.push_back(std::move(rec));
    return success();
  }

  LogicalResult visitReturn(func::ReturnOp ret) {
    const int32_t end = static_cast<int32_t>(ops_.size());
    llvm::StringSet<> names;
    for (OpOperand &operand : ret->getOpOperands()) {
      unsigned i = operand.getOperandNumber();
      auto it = ids_.find(operand.get());
      if (it == ids_.end())
        return ret.emitError() << "result defined outside the function's block";
      std::string name = resultName(fn_, i);
      if (!names.insert(name).second)
        return ret.emitError() << "two results are named '" << name << "'";
      TensorRecord &r = records_[it->second];
      r.used = true;
      if (r.kind == fb::TensorKind::activation) {
        r.lastOp = end; // function results stay live to the end
        if (r.name.empty()) {
          r.name = name;
          r.dimNames = dimNames(fn_.getResultAttrOfType<ArrayAttr>(i, "mm.dims"), r.shape.size());
        }
      }
      outputs_.emplace_back(name, it->second);
    }
    return success();
  }

  /// Writes the used tensors (renumbered), the ops, the signature and the KV slots.
  flatbuffers::Offset<fb::Function> finish() {
    std::vector<uint32_t> newId(records_.size(), 0);
    std::vector<flatbuffers::Offset<fb::Tensor>> tensors;
    for (size_t t = 0; t < records_.size(); ++t) {
      TensorRecord &r = records_[t];
      if (!r.used)
        continue;
      newId[t] = static_cast<uint32_t>(tensors.size());
      uint32_t weight = 0;
      flatbuffers::Offset<fb::TensorData> constant;
      if (r.kind == fb::TensorKind::weight) {
        weight = weights_.add(r.name, r.extents, r.transpose, r.loc);
        ++stats_.weights;
      } else if (r.kind == fb::TensorKind::constant) {
        uint64_t bytes = 0;
        constant = *encodeTensorData(fbb_, r.constant, r.loc, &bytes);
        constantBytes_ += bytes;
        ++stats_.constants;
      }
      auto shape = fbb_.CreateVector(r.shape.data(), r.shape.size());
      bool named = llvm::any_of(r.dimNames, [](const std::string &n) { return !n.empty(); });
      flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>> dims;
      if (named)
        dims = fbb_.CreateVectorOfStrings(r.dimNames);
      auto name = r.name.empty() ? 0 : fbb_.CreateString(r.name);
      tensors.push_back(fb::CreateTensor(fbb_, r.dtype, shape, dims, r.kind, name, weight,
                                         constant, r.firstOp, r.lastOp));
      stats_.activations += r.kind == fb::TensorKind::activation;
    }
    auto remap = [&](const std::vector<uint32_t> &ids) {
      std::vector<uint32_t> out;
      for (uint32_t id : ids)
        out.push_back(newId[id]);
      return fbb_.CreateVector(out);
    };
    std::vector<flatbuffers::Offset<fb::Op>> ops;
    llvm::DenseMap<Operation *, uint32_t> opIndex;
    for (const OpRecord &o : ops_) {
      opIndex[o.op] = static_cast<uint32_t>(ops.size());
      auto name = fbb_.CreateString(o.name);
      auto inputs = remap(o.inputs), outputs = remap(o.outputs);
      auto attrs = fbb_.CreateVector(o.attributes);
      ops.push_back(fb::CreateOp(fbb_, name, inputs, outputs, attrs,
                                 fbb_.CreateString(o.location), o.placement, o.segment,
                                 o.fusion));
      stats_.hostOps += o.placement == fb::Placement::host;
      stats_.deviceOps += o.placement == fb::Placement::device;
    }
    std::vector<flatbuffers::Offset<fb::GraphSegment>> segments;
    for (const SegmentRecord &s : segments_)
      segments.push_back(fb::CreateGraphSegment(fbb_, s.first, s.last, fbb_.CreateString(s.end)));
    std::vector<flatbuffers::Offset<fb::Value>> inputs, outputs;
    for (BlockArgument arg : fn_.getBody().front().getArguments()) {
      uint32_t id = ids_[arg];
      inputs.push_back(fb::CreateValue(fbb_, fbb_.CreateString(records_[id].name), newId[id],
                                       planRole(contract::argRole(fn_, arg.getArgNumber()))));
    }
    for (size_t i = 0; i < outputs_.size(); ++i)
      outputs.push_back(fb::CreateValue(fbb_, fbb_.CreateString(outputs_[i].first),
                                        newId[outputs_[i].second],
                                        planRole(contract::resultRole(fn_, i))));
    std::vector<flatbuffers::Offset<fb::KvCacheSlot>> slots;
    for (const KvCacheMatch &m : slots_)
      slots.push_back(fb::CreateKvCacheSlot(
          fbb_, m.layer, m.isValue ? fb::KvKind::value : fb::KvKind::key, m.argIndex,
          m.resultIndex, opIndex.lookup(m.concat), static_cast<int32_t>(m.axis)));
    stats_.name = fn_.getSymName().str();
    stats_.ops = ops.size();
    stats_.tensors = tensors.size();
    stats_.kvSlots = slots.size();
    stats_.planned = planned_;
    stats_.segments = segments.size();
    return fb::CreateFunction(fbb_, fbb_.CreateString(stats_.name), fbb_.CreateVector(tensors),
                              fbb_.CreateVector(ops), fbb_.CreateVector(inputs),
                              fbb_.CreateVector(outputs), fbb_.CreateVector(slots),
                              planned_ ? fbb_.CreateVector(segments)
                                       : flatbuffers::Offset<flatbuffers::Vector<
                                             flatbuffers::Offset<fb::GraphSegment>>>(),
                              planRole(contract::functionRole(fn_)), kvLayout());
  }

  static fb::ValueRole planRole(contract::ValueRole role) {
    using R = contract::ValueRole;
    switch (role) {
    case R::none: return fb::ValueRole::none;
    case R::inputIds: return fb::ValueRole::input_ids;
    case R::inputsEmbeds: return fb::ValueRole::inputs_embeds;
    case R::attentionMask: return fb::ValueRole::attention_mask;
    case R::positionIds: return fb::ValueRole::position_ids;
    case R::pixelValues: return fb::ValueRole::pixel_values;
    case R::imageFeatures: return fb::ValueRole::image_features;
    case R::logits: return fb::ValueRole::logits;
    case R::kvPast: return fb::ValueRole::kv_past;
    case R::kvPresent: return fb::ValueRole::kv_present;
    case R::imageGridThw: return fb::ValueRole::image_grid_thw;
    }
    llvm_unreachable("every value role is listed");
  }
  static fb::FunctionRole planRole(contract::FunctionRole role) {
    using R = contract::FunctionRole;
    switch (role) {
    case R::none: return fb::FunctionRole::none;
    case R::visionEncoder: return fb::FunctionRole::vision_encoder;
    case R::embedding: return fb::FunctionRole::embedding;
    case R::decoder: return fb::FunctionRole::decoder;
    }
    llvm_unreachable("every function role is listed");
  }

  /// The contiguous layout of the KV-cache slots (rank 4, batch first, head dim last; the
  /// heads axis of contract::kvHeadsAxis), or none without slots.
  flatbuffers::Offset<fb::KvCacheLayout> kvLayout() {
    if (slots_.empty())
      return 0;
    const KvCacheMatch &m = slots_.front();
    return fb::CreateKvCacheLayout(fbb_, fb::KvLayoutKind::contiguous, 0,
                                   static_cast<int32_t>(m.headsAxis()),
                                   static_cast<int32_t>(m.axis), 3);
  }

  flatbuffers::FlatBufferBuilder &fbb_;
  func::FuncOp fn_;
  WeightTable &weights_;
  FunctionPlanStats &stats_;
  uint64_t &constantBytes_;
  std::vector<TensorRecord> records_;
  llvm::DenseMap<Value, uint32_t> ids_;
  llvm::DenseMap<Value, WeightExprInfo> exprs_; ///< the values folded into weights or constants
  std::vector<OpRecord> ops_;
  std::vector<std::pair<std::string, uint32_t>> outputs_;
  bool planned_ = false; ///< the function has mm.segments (-mm-plan-cuda-graphs ran)
  std::vector<SegmentRecord> segments_;
  std::vector<KvCacheMatch> slots_;
};

} // namespace

FailureOr<flatbuffers::Offset<fb::Function>>
encodeFunction(flatbuffers::FlatBufferBuilder &fbb, func::FuncOp fn, WeightTable &weights,
               FunctionPlanStats &stats, uint64_t &constantBytes) {
  return FunctionEncoder(fbb, fn, weights, stats, constantBytes).encode();
}

} // namespace mm

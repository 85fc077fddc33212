//===- FunctionEncoder.cpp - one func.func as a plan Function ---------------===//
#include "compiler/plan/FunctionEncoder.h"

#include "compiler/plan/KvCachePattern.h"
#include "compiler/plan/PlanEncoding.h"
#include "mm/MMDialect.h"
#include "mm/MMOps.h"
#include "runtime/plan/PlanFormat.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
namespace fb = mm::plan::fb;

namespace mm {

uint32_t WeightTable::add(const std::string &name, const std::string &source, uint64_t offset,
                          uint64_t length, Location loc) {
  auto key = std::make_tuple(source, offset, length);
  auto it = index_.find(key);
  if (it != index_.end())
    return it->second;
  uint32_t id = static_cast<uint32_t>(entries_.size());
  uint64_t at = plan::alignUp(blobSize_, plan::kWeightAlignment);
  entries_.push_back({name, source, offset, length, at, loc});
  blobSize_ = at + length;
  index_.emplace(key, id);
  return id;
}

namespace {

/// "node (file:line:col)" for an importer location NameLoc(node, FileLineColLoc(file)).
std::string describeLocation(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc)) {
    std::string child = describeLocation(name.getChildLoc());
    return name.getName().str() + (child.empty() ? "" : " (" + child + ")");
  }
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return file.getFilename().str() + ":" + std::to_string(file.getLine()) + ":" +
           std::to_string(file.getColumn());
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    std::string out;
    for (Location l : fused.getLocations()) {
      std::string part = describeLocation(l);
      if (!part.empty())
        out += (out.empty() ? "" : ", ") + part;
    }
    return out;
  }
  if (auto callsite = dyn_cast<CallSiteLoc>(loc))
    return describeLocation(callsite.getCallee());
  return "";
}

/// What is known about one tensor before its table is written.
struct TensorRecord {
  fb::DType dtype = fb::DType::f32;
  SmallVector<int64_t> shape;
  std::vector<std::string> dimNames;
  fb::TensorKind kind = fb::TensorKind::activation;
  std::string name;
  uint32_t weight = 0;
  flatbuffers::Offset<fb::TensorData> constant;
  int32_t firstOp = -1, lastOp = -1;
};

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
      records_[*id].name = argName(fn_, arg.getArgNumber());
      if (!names.insert(records_[*id].name).second)
        return fn_.emitError() << "two arguments of @" << fn_.getSymName() << " are named '"
                               << records_[*id].name << "'";
      records_[*id].dimNames = dimNames(fn_.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(), "mm.dims"),
                                        records_[*id].shape.size());
    }
    for (Operation &op : body.getOperations())
      if (failed(visit(op)))
        return failure();
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
    TensorRecord r;
    r.dtype = *dtype;
    for (int64_t d : type.getShape())
      r.shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
    r.dimNames.assign(r.shape.size(), "");
    r.kind = kind;
    uint32_t id = static_cast<uint32_t>(records_.size());
    records_.push_back(std::move(r));
    ids_[v] = id;
    return id;
  }

  LogicalResult visit(Operation &op) {
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
      bytes *= static_cast<uint64_t>(d);
    }
    if (static_cast<int64_t>(w.getOffset()) < 0 || static_cast<uint64_t>(w.getLength()) != bytes)
      return w.emitError() << "weight '" << w.getName() << "' is " << w.getLength()
                           << " bytes at offset " << w.getOffset() << " but its type "
                           << w.getType() << " needs " << bytes;
    r.name = w.getName().str();
    r.weight = weights_.add(r.name, w.getSource().str(), static_cast<uint64_t>(w.getOffset()),
                            bytes, w.getLoc());
    ++stats_.weights;
    return success();
  }

  LogicalResult visitConstant(ConstantOp c) {
    auto id = addTensor(c.getResult(), fb::TensorKind::constant, c.getLoc());
    if (failed(id))
      return failure();
    uint64_t bytes = 0;
    auto data = encodeTensorData(fbb_, c.getValue(), c.getLoc(), &bytes);
    if (failed(data))
      return failure();
    records_[*id].constant = *data;
    constantBytes_ += bytes;
    ++stats_.constants;
    return success();
  }

  LogicalResult visitCompute(Operation &op) {
    const int32_t index = static_cast<int32_t>(ops_.size());
    std::vector<uint32_t> inputs, outputs;
    for (Value operand : op.getOperands()) {
      auto it = ids_.find(operand);
      if (it == ids_.end())
        return op.emitError() << "operand defined outside the function's block";
      inputs.push_back(it->second);
      TensorRecord &r = records_[it->second];
      if (r.kind == fb::TensorKind::activation)
        r.lastOp = std::max(r.lastOp, index);
    }
    for (Value result : op.getResults()) {
      auto id = addTensor(result, fb::TensorKind::activation, op.getLoc());
      if (failed(id))
        return failure();
      records_[*id].firstOp = index;
      records_[*id].lastOp = index; // extended by later readers
      outputs.push_back(*id);
    }
    auto attrs = encodeAttributes(fbb_, &op);
    if (failed(attrs))
      return failure();
    ops_.push_back(fb::CreateOp(fbb_, fbb_.CreateString(op.getName().getStringRef().str()),
                                fbb_.CreateVector(inputs), fbb_.CreateVector(outputs),
                                fbb_.CreateVector(*attrs), fbb_.CreateString(describeLocation(op.getLoc()))));
    opIndex_[&op] = static_cast<uint32_t>(index);
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
      if (r.kind == fb::TensorKind::activation) {
        r.lastOp = end; // function results stay live to the end
        if (r.name.empty()) {
          r.name = name;
          r.dimNames = dimNames(fn_.getResultAttrOfType<ArrayAttr>(i, "mm.dims"), r.shape.size());
        }
      }
      outputs_.push_back(fb::CreateValue(fbb_, fbb_.CreateString(name), it->second));
    }
    return success();
  }

  flatbuffers::Offset<fb::Function> finish() {
    std::vector<flatbuffers::Offset<fb::Value>> inputs;
    for (BlockArgument arg : fn_.getBody().front().getArguments()) {
      uint32_t id = ids_[arg];
      inputs.push_back(fb::CreateValue(fbb_, fbb_.CreateString(records_[id].name), id));
    }

    std::vector<flatbuffers::Offset<fb::KvCacheSlot>> slots;
    for (const KvCacheMatch &m : findKvCacheSlots(fn_))
      slots.push_back(fb::CreateKvCacheSlot(
          fbb_, m.layer, m.isValue ? fb::KvKind::value : fb::KvKind::key, m.argIndex,
          m.resultIndex, opIndex_.lookup(m.concat), static_cast<int32_t>(m.axis)));

    std::vector<flatbuffers::Offset<fb::Tensor>> tensors;
    for (const TensorRecord &r : records_) {
      auto shape = fbb_.CreateVector(r.shape.data(), r.shape.size());
      bool named = llvm::any_of(r.dimNames, [](const std::string &n) { return !n.empty(); });
      flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>> dims;
      if (named)
        dims = fbb_.CreateVectorOfStrings(r.dimNames);
      auto name = r.name.empty() ? 0 : fbb_.CreateString(r.name);
      tensors.push_back(fb::CreateTensor(fbb_, r.dtype, shape, dims, r.kind, name, r.weight,
                                         r.constant, r.firstOp, r.lastOp));
      stats_.activations += r.kind == fb::TensorKind::activation;
    }
    stats_.name = fn_.getSymName().str();
    stats_.ops = ops_.size();
    stats_.tensors = records_.size();
    stats_.kvSlots = slots.size();
    return fb::CreateFunction(fbb_, fbb_.CreateString(stats_.name), fbb_.CreateVector(tensors),
                              fbb_.CreateVector(ops_), fbb_.CreateVector(inputs),
                              fbb_.CreateVector(outputs_), fbb_.CreateVector(slots));
  }

  flatbuffers::FlatBufferBuilder &fbb_;
  func::FuncOp fn_;
  WeightTable &weights_;
  FunctionPlanStats &stats_;
  uint64_t &constantBytes_;
  std::vector<TensorRecord> records_;
  llvm::DenseMap<Value, uint32_t> ids_;
  llvm::DenseMap<Operation *, uint32_t> opIndex_;
  std::vector<flatbuffers::Offset<fb::Op>> ops_;
  std::vector<flatbuffers::Offset<fb::Value>> outputs_;
};

} // namespace

FailureOr<flatbuffers::Offset<fb::Function>>
encodeFunction(flatbuffers::FlatBufferBuilder &fbb, func::FuncOp fn, WeightTable &weights,
               FunctionPlanStats &stats, uint64_t &constantBytes) {
  return FunctionEncoder(fbb, fn, weights, stats, constantBytes).encode();
}

} // namespace mm

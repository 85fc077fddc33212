//===- Executor.cpp - run one function of a plan on the CPU ------------------===//
#include "runtime/exec/Executor.h"

#include "runtime/core/Error.h"
#include "runtime/core/InjectedFault.h"
#include "runtime/exec/StridedView.h"

#include <chrono>
#include <cstring>
#include <limits>
#include <set>

namespace mm::rt {

bool fitsDeclaredShape(const TensorInfo &t, const Shape &shape) {
  if (t.shape.size() != shape.size())
    return false;
  for (size_t d = 0; d < shape.size(); ++d)
    if (t.shape[d] >= 0 && t.shape[d] != shape[d])
      return false;
  return true;
}

std::string signatureString(const TensorInfo &t) {
  std::string s = std::string(dtypeName(t.dtype)) + " [";
  for (size_t d = 0; d < t.shape.size(); ++d) {
    if (d)
      s += ", ";
    if (t.shape[d] >= 0)
      s += std::to_string(t.shape[d]);
    else
      s += t.dimNames[d].empty() ? "?" : t.dimNames[d];
  }
  return s + "]";
}

namespace {
std::string gotString(const Tensor &t) {
  return std::string(dtypeName(t.dtype)) + " " + shapeString(t.shape);
}
} // namespace

/// The KernelContext of one op: attributes, declared dtypes, output allocation from the
/// arena (or the heap for function outputs).
class Executor::OpContext final : public cpu::KernelContext {
public:
  OpContext(Executor &ex, const OpInfo &op) : ex_(ex), op_(op), allocated_(op.outputs.size()) {}

  const Attrs &attrs() const override { return op_.attrs; }

  DType outputDType(size_t i) const override {
    if (i >= op_.outputs.size())
      fail("result index ", i, " out of range (", op_.outputs.size(), " results)");
    return ex_.fn_->tensors[op_.outputs[i]].dtype;
  }

  Tensor allocateOutput(size_t i, const Shape &shape) override {
    outputDType(i);
    if (allocated_[i].set)
      fail("result ", i, " allocated twice");
    allocated_[i] = ex_.allocateValue(op_.outputs[i], shape);
    return allocated_[i].tensor;
  }

  std::vector<Value> &allocated() { return allocated_; }

private:
  Executor &ex_;
  const OpInfo &op_;
  std::vector<Value> allocated_;
};

Executor::Executor(std::shared_ptr<const Plan> plan, const std::string &function,
                   const cpu::KernelRegistry &kernels)
    : plan_(std::move(plan)), fn_(&plan_->function(function)) {
  const FunctionInfo &fn = *fn_;
  const size_t nops = fn.ops.size();
  appendSlot_.assign(nops, -1);
  for (size_t s = 0; s < fn.kvSlots.size(); ++s)
    appendSlot_[fn.kvSlots[s].appendOp] = static_cast<int>(s);

  std::set<std::string> missing;
  for (const OpInfo &op : fn.ops) {
    kernels_.push_back(kernels.find(op.name));
    if (!kernels_.back())
      missing.insert(op.name);
  }
  if (!missing.empty()) {
    std::string names;
    for (const std::string &m : missing)
      names += (names.empty() ? "" : ", ") + m;
    fail(plan_->origin(), ": function '", fn.name, "' uses ops without a CPU kernel: ", names);
  }

  isOutput_ = outputMask(fn);
  releaseAfter_ = releaseSchedule(fn, isOutput_);
}

std::vector<bool> outputMask(const FunctionInfo &fn) {
  std::vector<bool> isOutput(fn.tensors.size(), false);
  for (const ValueInfo &v : fn.outputs)
    isOutput[v.tensor] = true;
  return isOutput;
}

std::vector<std::vector<uint32_t>> releaseSchedule(const FunctionInfo &fn,
                                                   const std::vector<bool> &isOutput) {
  const size_t nops = fn.ops.size();
  std::vector<std::vector<uint32_t>> releaseAfter(nops);
  std::vector<int32_t> lastRead(fn.tensors.size(), -1);
  for (size_t i = 0; i < nops; ++i)
    for (uint32_t in : fn.ops[i].inputs)
      lastRead[in] = static_cast<int32_t>(i);
  for (uint32_t t = 0; t < fn.tensors.size(); ++t) {
    const TensorInfo &info = fn.tensors[t];
    int32_t last = info.kind == TensorKind::activation ? info.lastOp
                   : info.kind == TensorKind::input    ? lastRead[t]
                                                       : -1;
    if (isOutput[t] || last < 0 || last >= static_cast<int32_t>(nops))
      continue;
    releaseAfter[static_cast<size_t>(last)].push_back(t);
  }
  return releaseAfter;
}

std::vector<Tensor> orderInputs(const FunctionInfo &fn, const std::map<std::string, Tensor> &named,
                                bool forCache) {
  std::vector<Tensor> ordered(fn.inputs.size());
  for (const auto &[name, tensor] : named) {
    int i = fn.inputIndex(name);
    if (i < 0) {
      std::string names;
      for (const ValueInfo &v : fn.inputs)
        names += (names.empty() ? "" : ", ") + v.name;
      fail("function '", fn.name, "' has no input '", name, "' (inputs: ", names, ")");
    }
    ordered[static_cast<size_t>(i)] = tensor;
  }
  for (size_t i = 0; i < ordered.size(); ++i)
    if (!named.count(fn.inputs[i].name) && !(forCache && fn.isPastInput(i)))
      fail("function '", fn.name, "': input '", fn.inputs[i].name, "' (",
           signatureString(fn.tensors[fn.inputs[i].tensor]), ") is missing");
  return ordered;
}

void Executor::validateInputs(const std::vector<Tensor> &inputs, const KvCache *cache) const {
  if (cache && cache->function() != fn_)
    fail("function '", fn_->name, "': the KV cache was built for another function");
  checkInputs(*fn_, inputs, cache != nullptr);
}

void checkInputs(const FunctionInfo &fn, const std::vector<Tensor> &inputs, bool withCache) {
  if (inputs.size() != fn.inputs.size())
    fail("function '", fn.name, "' takes ", fn.inputs.size(), " inputs, got ", inputs.size());
  std::map<std::string, std::pair<int64_t, std::string>> dims; // name -> (value, input)
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ValueInfo &in = fn.inputs[i];
    const TensorInfo &t = fn.tensors[in.tensor];
    Shape got = inputs[i].shape;
    if (withCache && fn.isPastInput(i)) {
      if (inputs[i].data)
        fail("input '", in.name, "' is supplied by the KV cache; leave it out");
      continue;
    }
    if (!inputs[i].data && inputs[i].numel() != 0)
      fail("input '", in.name, "' (", signatureString(t), ") is missing");
    if (inputs[i].dtype != t.dtype || !fitsDeclaredShape(t, got))
      fail("input '", in.name, "': expected ", signatureString(t), ", got ", gotString(inputs[i]));
    for (size_t d = 0; d < got.size(); ++d) {
      const std::string &name = t.dimNames[d];
      if (t.shape[d] >= 0 || name.empty())
        continue;
      auto [it, inserted] = dims.emplace(name, std::make_pair(got[d], in.name));
      if (!inserted && it->second.first != got[d])
        fail("input '", in.name, "': dim '", name, "' is ", got[d], " but input '",
             it->second.second, "' has ", name, " = ", it->second.first);
    }
  }
}

void Executor::opError(size_t index, const std::string &message) const {
  const OpInfo &op = fn_->ops[index];
  fail("function '", fn_->name, "' op ", index, " (", op.name,
       op.location.empty() ? "" : " at " + op.location, "): ", message);
}

void Executor::appendToCache(size_t s, std::vector<Value> &values, KvCache &cache,
                             int64_t &appended) {
  const KvSlotInfo &slot = fn_->kvSlots[s];
  const OpInfo &op = fn_->ops[slot.appendOp];
  const Value &fresh = values[op.inputs[1]];
  if (!fresh.strides.empty())
    opError(slot.appendOp, "new KV entries are a strided view");
  Tensor &buffer = cache.buffer(s);
  const Tensor &in = fresh.tensor;
  const size_t axis = static_cast<size_t>(slot.axis);
  bool ok = in.dtype == buffer.dtype && in.rank() == buffer.rank();
  for (size_t d = 0; ok && d < in.shape.size(); ++d)
    ok = d == axis || in.shape[d] == buffer.shape[d];
  if (!ok)
    opError(slot.appendOp, "new entries " + gotString(in) + " do not fit the KV cache " +
                               gotString(buffer) + " along axis " + std::to_string(axis));
  const int64_t n = in.shape[axis];
  const int64_t len = cache.length();
  if (appended >= 0 && appended != n)
    opError(slot.appendOp, "appends " + std::to_string(n) + " positions but another layer appended " +
                               std::to_string(appended));
  appended = n;
  if (len + n > cache.capacity())
    opError(slot.appendOp, "KV cache full: " + std::to_string(len) + " + " + std::to_string(n) +
                               " positions exceed its capacity " + std::to_string(cache.capacity()));
  const int64_t cap = buffer.shape[axis];
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d)
    outer *= in.shape[d];
  for (size_t d = axis + 1; d < in.shape.size(); ++d)
    inner *= in.shape[d];
  const size_t es = dtypeSize(in.dtype);
  auto *dst = static_cast<uint8_t *>(buffer.data);
  const auto *src = static_cast<const uint8_t *>(in.data);
  for (int64_t o = 0; o < outer; ++o)
    std::memcpy(dst + static_cast<size_t>((o * cap + len) * inner) * es,
                src + static_cast<size_t>(o * n * inner) * es, static_cast<size_t>(n * inner) * es);

  Value &out = values[op.outputs[0]];
  out.tensor.dtype = buffer.dtype;
  out.tensor.shape = buffer.shape;
  out.tensor.shape[axis] = len + n;
  out.tensor.data = buffer.data;
  out.strides = contiguousStridesOf(buffer.shape);
  out.set = true;
}

Executor::Value Executor::allocateValue(uint32_t id, const Shape &shape) {
  DType dtype = fn_->tensors[id].dtype;
  uint64_t bytes = dtypeSize(dtype);
  for (int64_t d : shape) {
    if (d < 0)
      fail("invalid result shape ", shapeString(shape));
    if (d != 0 && bytes > std::numeric_limits<uint64_t>::max() / 2 / static_cast<uint64_t>(d))
      fail("result shape ", shapeString(shape), " is too large");
    bytes *= static_cast<uint64_t>(d);
  }
  Value v;
  if (isOutput_[id]) {
    v.tensor = Tensor::host(dtype, shape);
  } else {
    v.block = arena_.allocate(bytes);
    v.tensor.dtype = dtype;
    v.tensor.shape = shape;
    v.tensor.data = v.block;
  }
  v.set = true;
  return v;
}

void Executor::checkResultShape(size_t i, size_t r, const Shape &got) const {
  const TensorInfo &decl = fn_->tensors[fn_->ops[i].outputs[r]];
  if (!fitsDeclaredShape(decl, got))
    opError(i, "result " + std::to_string(r) + " has shape " + shapeString(got) +
                   " but the plan declares " + signatureString(decl));
}

const Tensor &Executor::kernelInput(Value &v) {
  if (v.strides.empty() || isContiguousView(v.tensor.shape, v.strides))
    return v.tensor;
  if (!v.contiguous.data) {
    v.contiguousBlock = arena_.allocate(v.tensor.nbytes());
    v.contiguous = v.tensor;
    v.contiguous.data = v.contiguousBlock;
    copyStridedToContiguous(v.tensor, v.strides, v.contiguous.data);
    ++viewCopies_;
  }
  return v.contiguous;
}

void Executor::runOp(size_t i, std::vector<Value> &values) {
  const OpInfo &op = fn_->ops[i];
  std::vector<const Tensor *> ins;
  ins.reserve(op.inputs.size());
  for (uint32_t id : op.inputs) {
    Value &v = values[id];
    if (!v.set)
      opError(i, "input tensor " + std::to_string(id) + " has no value");
    // mm.shape and mm.dim read only the shape: a view needs no copy.
    bool shapeOnly = op.name == "mm.shape" || op.name == "mm.dim";
    ins.push_back(shapeOnly ? &v.tensor : &kernelInput(v));
  }

  OpContext ctx(*this, op);
  // Pre-sized: a kernel holding a reference to result 0 while allocating result 1 must
  // not see the vector reallocate.
  std::vector<Tensor> outs(op.outputs.size());
  try {
    kernels_[i](ctx, ins, outs);
  } catch (const Error &e) {
    for (Value &a : ctx.allocated())
      if (a.block)
        arena_.release(a.block);
    opError(i, e.what());
  }
  std::vector<Value> &results = ctx.allocated();
  for (size_t r = 0; r < results.size(); ++r) {
    if (!results[r].set)
      opError(i, "the kernel did not produce result " + std::to_string(r));
    if (r < outs.size() && outs[r].data && outs[r].data != results[r].tensor.data)
      opError(i, "the kernel replaced result " + std::to_string(r) + " it allocated");
    checkResultShape(i, r, results[r].tensor.shape);
    values[op.outputs[r]] = std::move(results[r]);
  }
}

std::vector<Tensor> Executor::run(const std::vector<Tensor> &inputs, KvCache *cache) {
  validateInputs(inputs, cache);
  const FunctionInfo &fn = *fn_;
  std::vector<Value> values(fn.tensors.size());
  for (uint32_t t = 0; t < fn.tensors.size(); ++t)
    if (fn.tensors[t].kind == TensorKind::weight || fn.tensors[t].kind == TensorKind::constant) {
      values[t].tensor = fn.tensors[t].value;
      values[t].set = true;
    }
  for (size_t i = 0; i < fn.inputs.size(); ++i) {
    Value &v = values[fn.inputs[i].tensor];
    v.tensor = inputs[i];
    v.set = true;
  }
  if (cache)
    for (size_t s = 0; s < fn.kvSlots.size(); ++s) {
      const KvSlotInfo &slot = fn.kvSlots[s];
      const Tensor &buffer = cache->buffer(s);
      Value &v = values[fn.inputs[slot.pastInput].tensor];
      v.tensor.dtype = buffer.dtype;
      v.tensor.shape = buffer.shape;
      v.tensor.shape[static_cast<size_t>(slot.axis)] = cache->length();
      v.tensor.data = buffer.data;
      v.tensor.owner.reset();
      v.strides = contiguousStridesOf(buffer.shape);
    }

  int64_t appended = -1;
  try {
    for (size_t i = 0; i < fn.ops.size(); ++i) {
      auto start = std::chrono::steady_clock::now();
      if (cache && appendSlot_[i] >= 0)
        appendToCache(static_cast<size_t>(appendSlot_[i]), values, *cache, appended);
      else if (!runAttentionOnViews(i, values))
        runOp(i, values);
      for (uint32_t t : releaseAfter_[i]) {
        Value &dead = values[t];
        if (dead.block)
          arena_.release(dead.block);
        if (dead.contiguousBlock)
          arena_.release(dead.contiguousBlock);
        dead = Value();
      }
      if (profiling_) {
        OpProfile &p = profile_[fn.ops[i].name];
        ++p.calls;
        p.ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      }
    }
  } catch (...) {
    arena_.endCall();
    throw;
  }
  arena_.endCall();
  if (cache)
    cache->advance(appended < 0 ? 0 : kvCacheAdvance(cache->length(), appended, cache->capacity()));

  std::vector<Tensor> outputs;
  outputs.reserve(fn.outputs.size());
  for (const ValueInfo &o : fn.outputs) {
    const Value &v = values[o.tensor];
    outputs.push_back(v.strides.empty() ? v.tensor : Tensor());
  }
  return outputs;
}

} // namespace mm::rt

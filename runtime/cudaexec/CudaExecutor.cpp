//===- CudaExecutor.cpp - run one function of a plan on a CUDA device --------===//
#include "runtime/cudaexec/CudaExecutor.h"

#include "runtime/core/Error.h"
#include "runtime/core/InjectedFault.h"
#include "runtime/cuda/Kernels.h"
#include "runtime/cudaexec/OpRecorder.h"
#include "runtime/exec/Executor.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <set>

namespace mm::rt::cudaexec {

using cuda::checkCuda;

//===--- CudaContext ------------------------------------------------------------===//

CudaContext::CudaContext() {
  requireCudaDevice();
  checkCuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  blas_ = std::make_unique<cuda::Blas>();
}

CudaContext::~CudaContext() {
  blas_.reset();
  if (stream_)
    cudaStreamDestroy(stream_);
}

const cuda::SplitScratch &CudaContext::decodeScratch(size_t partialFloats, size_t counters) {
  if (partials_.reserve(partialFloats * sizeof(float), "attention scratch", DeviceShare::arena) |
      counters_.reserve(counters * sizeof(unsigned), "attention scratch", DeviceShare::arena)) {
    // The counters start at zero and every launch leaves them so (CudaCommon.h).
    checkCuda(cudaMemsetAsync(counters_.get(), 0, counters_.bytes(), stream_), "cudaMemsetAsync");
    scratch_.partials = static_cast<float *>(partials_.get());
    scratch_.partialCount = partials_.bytes() / sizeof(float);
    scratch_.counters = static_cast<unsigned *>(counters_.get());
    scratch_.counterCount = counters_.bytes() / sizeof(unsigned);
  }
  return scratch_;
}

void CudaContext::synchronize() const { checkCuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }

//===--- Construction -----------------------------------------------------------===//

void requireCudaPlacement(const Plan &plan, const FunctionInfo &fn) {
  const bool planned = std::any_of(fn.ops.begin(), fn.ops.end(), [](const OpInfo &op) {
    return op.placement != Placement::unplanned;
  });
  if (!planned && !fn.ops.empty())
    fail(plan.origin(), ": function '", fn.name, "' has no CUDA placement (the plan targets '",
         plan.target(), "'); compile it with `mmc compile --target cuda`");
}

CudaExecutor::CudaExecutor(std::shared_ptr<const Plan> plan, const std::string &function,
                           CudaContext &ctx)
    : plan_(std::move(plan)), fn_(&plan_->function(function)), ctx_(ctx),
      arena_(deviceArenaMemory()), staging_{Arena(pinnedArenaMemory()), Arena(pinnedArenaMemory())} {
  const FunctionInfo &fn = *fn_;
  const size_t nops = fn.ops.size();
  std::set<std::string> noLaunch, noKernel;
  for (const OpInfo &op : fn.ops) {
    cpu::CpuKernel k = nullptr;
    if (op.placement == Placement::device) {
      if (!hasDeviceLaunch(op.name))
        noLaunch.insert(op.name);
    } else {
      k = cpu::cpuKernels().find(op.name);
      if (!k)
        noKernel.insert(op.name);
    }
    hostKernels_.push_back(k);
  }
  requireCudaPlacement(*plan_, fn);
  auto join = [](const std::set<std::string> &s) {
    std::string out;
    for (const std::string &n : s)
      out += (out.empty() ? "" : ", ") + n;
    return out;
  };
  if (!noLaunch.empty())
    fail(plan_->origin(), ": function '", fn.name, "' places ops on the device that this "
         "runtime cannot launch: ", join(noLaunch), " (plan from a newer mmc?)");
  if (!noKernel.empty())
    fail(plan_->origin(), ": function '", fn.name, "' uses ops without a CPU kernel: ", join(noKernel));

  appendSlot_.assign(nops, -1);
  partnerSlot_.assign(fn.kvSlots.size(), -1);
  kvPending_.resize(fn.kvSlots.size());
  for (size_t s = 0; s < fn.kvSlots.size(); ++s) {
    appendSlot_[fn.kvSlots[s].appendOp] = static_cast<int>(s);
    for (size_t o = 0; o < fn.kvSlots.size(); ++o)
      if (o != s && fn.kvSlots[o].layer == fn.kvSlots[s].layer && fn.kvSlots[o].kind != fn.kvSlots[s].kind)
        partnerSlot_[s] = static_cast<int>(o);
  }

  isOutput_ = outputMask(fn);
  releaseAfter_ = releaseSchedule(fn, isOutput_);
  outputBuffers_.resize(fn.outputs.size());
  for (cudaEvent_t &e : done_)
    checkCuda(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
  for (int i = 0; i < 2; ++i) {
    checkCuda(cudaEventCreate(&begin_[i]), "cudaEventCreate");
    checkCuda(cudaEventCreate(&end_[i]), "cudaEventCreate");
  }
  uploadParameters();
}

CudaExecutor::~CudaExecutor() {
  cudaStreamSynchronize(ctx_.stream());
  for (auto &[sig, graph] : graphs_)
    cudaGraphExecDestroy(graph.exec);
  for (cudaEvent_t e : {done_[0], done_[1], begin_[0], begin_[1], end_[0], end_[1]})
    if (e)
      cudaEventDestroy(e);
}

void CudaExecutor::uploadParameters() { parameterDev_ = ctx_.weights().upload(*fn_); }

//===--- One call ---------------------------------------------------------------===//

void CudaExecutor::opError(size_t index, const std::string &message) const {
  const OpInfo &op = fn_->ops[index];
  fail("function '", fn_->name, "' op ", index, " (", op.name,
       op.location.empty() ? "" : " at " + op.location, "): ", message);
}

void *CudaExecutor::arenaAllocate(size_t bytes) {
  void *b = arena_.allocate(bytes);
  blockRefs_[b] = 1;
  return b;
}

void CudaExecutor::retain(void *block) {
  if (!block)
    return;
  auto it = blockRefs_.find(block);
  if (it == blockRefs_.end())
    fail("function '", fn_->name, "': internal error: a view of a released activation block");
  ++it->second;
}

void CudaExecutor::drop(void *block) {
  if (!block)
    return;
  auto it = blockRefs_.find(block);
  if (it == blockRefs_.end())
    return; // a persistent output buffer
  if (--it->second == 0) {
    arena_.release(block);
    blockRefs_.erase(it);
  }
}

void *CudaExecutor::stage(const void *hostData, size_t bytes) {
  void *p = staging_[parity_].allocate(bytes);
  if (bytes)
    std::memcpy(p, hostData, bytes);
  return p;
}

void CudaExecutor::releaseValue(Value &v) {
  drop(v.block);
  v = Value();
}

std::vector<CudaExecutor::Value> CudaExecutor::bindInputs(const std::vector<RunInput> &inputs,
                                                          DeviceKvCache *cache) {
  const FunctionInfo &fn = *fn_;
  if (cache && cache->function() != fn_)
    fail("function '", fn.name, "': the KV cache was built for another function");
  std::vector<Tensor> given;
  for (const RunInput &in : inputs)
    given.push_back(in.tensor);
  checkInputs(fn, given, cache != nullptr);
  std::vector<Value> values(fn.tensors.size());
  for (uint32_t t = 0; t < fn.tensors.size(); ++t) {
    const TensorInfo &info = fn.tensors[t];
    if (info.kind != TensorKind::weight && info.kind != TensorKind::constant)
      continue;
    Value &v = values[t];
    v.dtype = info.dtype;
    v.shape = info.value.shape;
    v.host = info.value;
    v.dev = parameterDev_[t];
    v.set = true;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (cache && fn.isPastInput(i))
      continue;
    const Tensor &x = inputs[i].tensor;
    Value &v = values[fn.inputs[i].tensor];
    v.dtype = x.dtype;
    v.shape = x.shape;
    if (inputs[i].onDevice)
      v.dev = static_cast<char *>(x.data);
    else
      v.host = x;
    v.set = true;
  }
  if (cache)
    for (size_t s = 0; s < fn.kvSlots.size(); ++s) {
      const KvSlotInfo &slot = fn.kvSlots[s];
      Value &v = values[fn.inputs[slot.pastInput].tensor];
      v.dtype = cache->dtype(s);
      v.shape = {cache->batch(), cache->kvHeads(s), cache->length(), cache->headDim(s)};
      v.dev = static_cast<char *>(cache->buffer(s));
      v.strides = {cache->kvHeads(s) * cache->capacity() * cache->headDim(s),
                   cache->capacity() * cache->headDim(s), cache->headDim(s), 1};
      v.kvSlot = static_cast<int>(s);
      v.set = true;
    }
  return values;
}

void CudaExecutor::runHostOp(size_t i, std::vector<Value> &values) {
  const OpInfo &op = fn_->ops[i];
  std::vector<const Tensor *> ins;
  std::vector<Tensor> shapeOnly(op.inputs.size());
  const bool readsShapeOnly = op.name == "mm.dim" || op.name == "mm.shape";
  for (size_t k = 0; k < op.inputs.size(); ++k) {
    Value &v = values[op.inputs[k]];
    if (!v.set)
      opError(i, "input tensor " + std::to_string(op.inputs[k]) + " has no value");
    if (readsShapeOnly && !v.host.data) {
      shapeOnly[k].dtype = v.dtype;
      shapeOnly[k].shape = v.shape;
      ins.push_back(&shapeOnly[k]);
      continue;
    }
    if (!v.host.data && v.dev) // a host op reading a device value: the end of a segment
      OpRecorder(*this, i, values, nullptr).download(v);
    ins.push_back(&v.host);
  }
  // The CPU kernel allocates its results on the heap.
  struct HostContext final : cpu::KernelContext {
    const OpInfo &op;
    const FunctionInfo &fn;
    std::vector<Tensor> made;
    HostContext(const OpInfo &o, const FunctionInfo &f) : op(o), fn(f), made(o.outputs.size()) {}
    const Attrs &attrs() const override { return op.attrs; }
    DType outputDType(size_t r) const override {
      if (r >= op.outputs.size())
        fail("result index ", r, " out of range");
      return fn.tensors[op.outputs[r]].dtype;
    }
    Tensor allocateOutput(size_t r, const Shape &shape) override {
      made.at(r) = Tensor::host(outputDType(r), shape);
      return made[r];
    }
  } hctx(op, *fn_);
  std::vector<Tensor> outs(op.outputs.size());
  try {
    hostKernels_[i](hctx, ins, outs);
  } catch (const Error &e) {
    opError(i, e.what());
  }
  for (size_t r = 0; r < op.outputs.size(); ++r) {
    if (!hctx.made[r].data && hctx.made[r].numel() != 0)
      opError(i, "the kernel did not produce result " + std::to_string(r));
    Value &out = values[op.outputs[r]];
    out = Value();
    out.dtype = hctx.made[r].dtype;
    out.shape = hctx.made[r].shape;
    out.host = hctx.made[r];
    out.set = true;
  }
}

void CudaExecutor::runDeviceOp(size_t i, std::vector<Value> &values, DeviceKvCache *cache) {
  OpRecorder rec(*this, i, values, cache);
  try {
    if (cache && appendSlot_[i] >= 0)
      rec.appendToCache(static_cast<size_t>(appendSlot_[i]));
    else
      rec.launch();
  } catch (const Error &e) {
    const std::string what = e.what();
    if (what.rfind("function '", 0) == 0)
      throw;
    opError(i, what);
  }
}

void CudaExecutor::issuePending(cudaStream_t s) {
  for (PendingLaunch &p : pending_) {
    try {
      p.launch(s);
    } catch (const Error &e) {
      if (p.op < fn_->ops.size())
        opError(p.op, e.what());
      fail("function '", fn_->name, "' (outputs / KV-cache lengths): ", e.what());
    }
  }
}

void CudaExecutor::flush() {
  if (pending_.empty())
    return;
  cudaStream_t s = ctx_.stream();
  // Device time from a call's first issued segment to its last, read back when this
  // parity's next call waits for it.
  if (!timed_[parity_])
    checkCuda(cudaEventRecord(begin_[parity_], s), "cudaEventRecord");
  auto found = graphs_.find(signature_);
  const bool seenBefore =
      std::find(recentSignatures_.begin(), recentSignatures_.end(), signature_) != recentSignatures_.end();
  if (ctx_.graphsEnabled() && found == graphs_.end() && seenBefore) {
    cudaGraph_t graph = nullptr;
    checkCuda(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
    try {
      issuePending(s);
    } catch (...) {
      cudaStreamEndCapture(s, &graph);
      if (graph)
        cudaGraphDestroy(graph);
      throw;
    }
    checkCuda(cudaStreamEndCapture(s, &graph), "cudaStreamEndCapture");
    cudaGraphExec_t exec = nullptr;
    cudaError_t st = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    checkCuda(st, "cudaGraphInstantiate");
    if (graphs_.size() >= 8) { // a few shapes at a time: drop the least recently used
      auto lru = std::min_element(graphs_.begin(), graphs_.end(), [](const auto &a, const auto &b) {
        return a.second.lastUse < b.second.lastUse;
      });
      cudaGraphExecDestroy(lru->second.exec);
      graphs_.erase(lru);
    }
    found = graphs_.emplace(signature_, CapturedGraph{exec, 0}).first;
    ++stats_.captures;
  }
  if (ctx_.graphsEnabled() && found != graphs_.end()) {
    found->second.lastUse = ++graphUses_;
    checkCuda(cudaGraphLaunch(found->second.exec, s), "cudaGraphLaunch");
    ++stats_.graphLaunches;
  } else {
    issuePending(s);
    ++stats_.eagerSegments;
  }
  checkCuda(cudaEventRecord(end_[parity_], s), "cudaEventRecord");
  timed_[parity_] = true;
  checkCuda(cudaEventRecord(done_[parity_], s), "cudaEventRecord");
  if (!seenBefore) {
    recentSignatures_.push_back(std::move(signature_));
    if (recentSignatures_.size() > 8)
      recentSignatures_.pop_front();
  }
  stats_.launches += static_cast<int64_t>(pending_.size());
  signature_.clear();
  pending_.clear();
}

std::vector<DeviceTensor> CudaExecutor::finishOutputs(std::vector<Value> &values) {
  std::vector<DeviceTensor> outs;
  for (size_t o = 0; o < fn_->outputs.size(); ++o) {
    Value &v = values[fn_->outputs[o].tensor];
    DeviceTensor t;
    t.dtype = v.dtype;
    if (v.kvSlot >= 0 || !v.set) {
      outs.push_back(t); // a KV-cache output: the cache holds it
      continue;
    }
    t.shape = v.shape;
    DeviceBuffer &buf = outputBuffers_[o];
    bool inBuffer = v.dev && v.dev == buf.get() && v.strides.empty();
    if (!inBuffer) {
      OpRecorder rec(*this, fn_->ops.size(), values, nullptr);
      rec.copyInto(v, buf, ("output '" + fn_->outputs[o].name + "'").c_str());
    }
    t.data = buf.get();
    outs.push_back(t);
  }
  return outs;
}

std::vector<DeviceTensor> CudaExecutor::run(const std::vector<RunInput> &inputs, DeviceKvCache *cache) {
  // This call's staging area is rewritten below: the copies of the call that used it last
  // (the one before the previous) must have completed.
  parity_ ^= 1;
  checkCuda(cudaEventSynchronize(done_[parity_]), "cudaEventSynchronize");
  addDeviceTime(parity_);
  const auto start = std::chrono::steady_clock::now();
  std::vector<Value> values = bindInputs(inputs, cache);
  const FunctionInfo &fn = *fn_;
  int64_t appended = 0;
  fusedInput_ = {};
  deferredRotary_ = {};
  doneByPrevious_ = SIZE_MAX;
  try {
    for (size_t i = 0; i < fn.ops.size(); ++i) {
      if (i == doneByPrevious_) {
        doneByPrevious_ = SIZE_MAX; // its results were set by the previous op's launch
      } else if (fn.ops[i].placement == Placement::device) {
        runDeviceOp(i, values, cache);
        if (cache && appendSlot_[i] >= 0)
          appended = values[fn.ops[i].inputs[1]].shape[2];
      } else {
        runHostOp(i, values);
      }
      for (uint32_t t : releaseAfter_[i])
        releaseValue(values[t]);
    }
    if (cache)
      OpRecorder(*this, fn.ops.size(), values, cache).appendPending();
    std::vector<DeviceTensor> outs = finishOutputs(values);
    if (cache && appended > 0)
      appended = kvCacheAdvance(cache->length(), appended, cache->capacity());
    if (cache && appended > 0) {
      int32_t *lens = cache->lengths();
      const int64_t batch = cache->batch();
      const int32_t delta = static_cast<int32_t>(appended);
      pending_.push_back({fn.ops.size(), [=](cudaStream_t s) { cuda::advanceLengths(s, lens, batch, delta); }});
      for (int64_t v : {reinterpret_cast<int64_t>(lens), batch, static_cast<int64_t>(delta)})
        signature_.append(reinterpret_cast<const char *>(&v), sizeof v);
    }
    flush();
    if (cache)
      cache->advanceHost(appended); // after the launches were issued without error
    blockRefs_.clear();
    for (Value &p : kvPending_)
      p = Value();
    arena_.endCall();
    staging_[parity_].endCall();
    // The other staging area grows with this one, now rather than in the next call: page-
    // locked allocations of a megabyte or more take milliseconds (measured: 2.4 ms for the
    // 1.35 MB of LLaVA-7B's f32 pixel values on the H200), which a call of the same shape
    // would otherwise pay on each parity's first use, the second generation included. Best
    // effort: this call has completed, and a failed allocation leaves that area empty, to
    // be grown (or fail with its message) by the call that needs it.
    try {
      staging_[parity_ ^ 1].reserve(staging_[parity_].capacity());
    } catch (const Error &) {
    }
    stats_.hostMs +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return outs;
  } catch (...) {
    pending_.clear();
    signature_.clear();
    recentSignatures_.clear();
    blockRefs_.clear();
    deferredRotary_ = {};
    for (Value &p : kvPending_)
      p = Value();
    cudaStreamSynchronize(ctx_.stream());
    arena_.endCall();
    staging_[parity_].endCall();
    throw;
  }
}

void CudaExecutor::addDeviceTime(int parity) {
  if (!timed_[parity])
    return;
  float ms = 0;
  checkCuda(cudaEventElapsedTime(&ms, begin_[parity], end_[parity]), "cudaEventElapsedTime");
  stats_.deviceMs += ms;
  timed_[parity] = false;
}

const LaunchStats &CudaExecutor::stats() {
  checkCuda(cudaStreamSynchronize(ctx_.stream()), "cudaStreamSynchronize");
  addDeviceTime(0);
  addDeviceTime(1);
  return stats_;
}

std::vector<Tensor> CudaExecutor::runToHost(const std::vector<Tensor> &inputs) {
  std::vector<RunInput> in;
  for (const Tensor &t : inputs)
    in.push_back({t, false});
  std::vector<DeviceTensor> outs = run(in);
  std::vector<Tensor> host;
  for (const DeviceTensor &d : outs) {
    Tensor h = Tensor::host(d.dtype, d.shape);
    if (d.data && h.nbytes())
      checkCuda(cudaMemcpyAsync(h.data, d.data, h.nbytes(), cudaMemcpyDeviceToHost, ctx_.stream()),
                "cudaMemcpyAsync");
    host.push_back(h);
  }
  ctx_.synchronize();
  return host;
}

} // namespace mm::rt::cudaexec

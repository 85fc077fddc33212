//===- OpRecorder.cpp - value helpers and the KV-cache append ----------------===//
#include "runtime/cudaexec/OpRecorder.h"
#include "runtime/exec/Executor.h"

#include "runtime/core/Error.h"

namespace mm::rt::cudaexec {

using cuda::checkCuda;

std::vector<int64_t> rowMajorStrides(const Shape &shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;)
    s[d - 1] = s[d] * shape[d];
  return s;
}

std::vector<int64_t> stridesOf(const CudaExecutor::Value &v) {
  return v.strides.empty() ? rowMajorStrides(v.shape) : v.strides;
}

bool isContiguous(const CudaExecutor::Value &v) {
  if (v.strides.empty())
    return true;
  std::vector<int64_t> want = rowMajorStrides(v.shape);
  for (size_t d = 0; d < v.shape.size(); ++d)
    if (v.shape[d] != 1 && v.strides[d] != want[d])
      return false;
  return true;
}

cuda::StridedLayout copyLayout(const Shape &shape, const std::vector<int64_t> &src,
                               const std::vector<int64_t> &dst) {
  cuda::StridedLayout l;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1)
      continue;
    if (l.rank == cuda::kMaxLayoutRank)
      fail("a strided copy of rank ", shape.size(), " ", shapeString(shape), " exceeds ",
           cuda::kMaxLayoutRank, " dims");
    l.shape[l.rank] = shape[d];
    l.srcStride[l.rank] = src[d];
    l.dstStride[l.rank] = dst[d];
    ++l.rank;
  }
  return l;
}

CudaExecutor::Value &CudaExecutor::OpRecorder::in(size_t k) {
  if (k >= numInputs())
    fail("operand ", k, " missing (", numInputs(), " operands)");
  Value &v = values_[op().inputs[k]];
  if (!v.set)
    fail("operand ", k, " (tensor ", op().inputs[k], ") has no value");
  return v;
}

void CudaExecutor::OpRecorder::record(Launch launch) {
  ex_.pending_.push_back({index_, std::move(launch)});
}

DType CudaExecutor::OpRecorder::resultType(size_t r) const {
  if (r >= op().outputs.size())
    fail("result ", r, " out of range");
  return ex_.fn_->tensors[op().outputs[r]].dtype;
}

void CudaExecutor::OpRecorder::ensureDevice(Value &v) {
  if (v.kvSlot >= 0 && cache_ && ex_.kvPending_[static_cast<size_t>(v.kvSlot)].set)
    launchAppend(static_cast<size_t>(v.kvSlot));
  if (v.dev)
    return;
  const size_t bytes = v.host.nbytes();
  if (!v.host.data && bytes)
    fail("a value has neither host nor device data");
  char *staged = static_cast<char *>(ex_.stage(v.host.data, bytes));
  char *block = static_cast<char *>(ex_.arenaAllocate(bytes));
  record([=](cudaStream_t s) {
    checkCuda(cudaMemcpyAsync(block, staged, bytes, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync");
  });
  sign(index_, block, staged, bytes);
  v.dev = block;
  v.block = block;
  v.strides.clear();
}

void CudaExecutor::OpRecorder::makeContiguous(Value &v) {
  ensureDevice(v);
  if (isContiguous(v)) {
    v.strides.clear();
    return;
  }
  const size_t es = dtypeSize(v.dtype);
  char *block = static_cast<char *>(ex_.arenaAllocate(static_cast<size_t>(numElements(v.shape)) * es));
  cuda::StridedLayout l = copyLayout(v.shape, v.strides, rowMajorStrides(v.shape));
  const char *src = v.dev;
  record([=](cudaStream_t s) { cuda::stridedCopy(s, es, src, block, l); });
  sign(index_, src, block, l.rank, l.shape, l.srcStride, l.dstStride);
  ex_.drop(v.block);
  v.dev = block;
  v.block = block;
  v.strides.clear();
  v.kvSlot = -1;
}

void CudaExecutor::OpRecorder::download(Value &v) {
  makeContiguous(v);
  ex_.flush();
  Tensor h = Tensor::host(v.dtype, v.shape);
  if (h.nbytes())
    checkCuda(cudaMemcpyAsync(h.data, v.dev, h.nbytes(), cudaMemcpyDeviceToHost, stream()),
              "cudaMemcpyAsync");
  ex_.ctx_.synchronize();
  v.host = h;
}

void CudaExecutor::OpRecorder::copyInto(Value &v, DeviceBuffer &buf, const char *what) {
  ensureDevice(v);
  const size_t es = dtypeSize(v.dtype);
  const size_t bytes = static_cast<size_t>(numElements(v.shape)) * es;
  buf.reserve(bytes, what, DeviceShare::arena);
  char *dst = static_cast<char *>(buf.get());
  const char *src = v.dev;
  if (isContiguous(v)) {
    record([=](cudaStream_t s) { cuda::copyBytes(s, dst, src, bytes); });
    sign(index_, dst, src, bytes);
  } else {
    cuda::StridedLayout l = copyLayout(v.shape, v.strides, rowMajorStrides(v.shape));
    record([=](cudaStream_t s) { cuda::stridedCopy(s, es, src, dst, l); });
    sign(index_, src, dst, l.rank, l.shape, l.srcStride, l.dstStride);
  }
}

const Tensor &CudaExecutor::OpRecorder::hostIn(size_t k) {
  Value &v = in(k);
  if (!v.host.data && v.dev)
    download(v);
  return v.host;
}

std::vector<int64_t> CudaExecutor::OpRecorder::hostInts(size_t k) {
  const Tensor &t = hostIn(k);
  std::vector<int64_t> out(static_cast<size_t>(t.numel()));
  for (size_t i = 0; i < out.size(); ++i) {
    if (t.dtype == DType::i64)
      out[i] = t.as<int64_t>()[i];
    else if (t.dtype == DType::i32)
      out[i] = t.as<int32_t>()[i];
    else
      fail("operand ", k, " must be i32 or i64, got ", dtypeName(t.dtype));
  }
  return out;
}

CudaExecutor::Value &CudaExecutor::OpRecorder::result(size_t r, const Shape &shape, DType written) {
  const uint32_t id = op().outputs.at(r);
  const TensorInfo &decl = ex_.fn_->tensors[id];
  if (decl.dtype != written)
    fail("result ", r, " is ", dtypeName(written), " but the plan declares ", signatureString(decl));
  if (!fitsDeclaredShape(decl, shape))
    fail("result ", r, " has shape ", shapeString(shape), " but the plan declares ",
         signatureString(decl));
  const size_t bytes = static_cast<size_t>(numElements(shape)) * dtypeSize(decl.dtype);
  Value &out = values_[id];
  out = Value();
  out.dtype = decl.dtype;
  out.shape = shape;
  out.set = true;
  if (ex_.isOutput_[id]) {
    for (size_t o = 0; o < ex_.fn_->outputs.size(); ++o)
      if (ex_.fn_->outputs[o].tensor == id) {
        DeviceBuffer &buf = ex_.outputBuffers_[o];
        buf.reserve(bytes, "function outputs", DeviceShare::arena);
        out.dev = static_cast<char *>(buf.get());
        return out;
      }
  }
  out.block = ex_.arenaAllocate(bytes);
  out.dev = static_cast<char *>(out.block);
  return out;
}

CudaExecutor::Value &CudaExecutor::OpRecorder::view(size_t r, const Value &base, char *dev,
                                                    const Shape &shape, std::vector<int64_t> strides) {
  return viewTensor(op().outputs.at(r), base, dev, shape, std::move(strides));
}

CudaExecutor::Value &CudaExecutor::OpRecorder::viewTensor(uint32_t id, const Value &base,
                                                          char *dev, const Shape &shape,
                                                          std::vector<int64_t> strides) {
  const TensorInfo &decl = ex_.fn_->tensors[id];
  if (decl.dtype != base.dtype)
    fail("tensor ", id, " views ", dtypeName(base.dtype), " data but the plan declares ",
         signatureString(decl));
  void *block = base.block;
  ex_.retain(block);
  Value &out = values_[id];
  out = Value();
  out.dtype = decl.dtype;
  out.shape = shape;
  out.dev = dev;
  out.strides = std::move(strides);
  out.block = block;
  out.set = true;
  return out;
}

void CudaExecutor::OpRecorder::appendToCache(size_t slot) {
  DeviceKvCache &cache = *cache_;
  Value &fresh = in(1);
  ensureDevice(fresh);
  if (fresh.shape.size() != 4 || stridesOf(fresh)[3] != 1)
    makeContiguous(fresh);
  const int64_t b = cache.batch(), h = cache.kvHeads(slot), d = cache.headDim(slot);
  const Shape &s = fresh.shape;
  if (fresh.dtype != cache.dtype(slot) || s.size() != 4 || s[0] != b || s[1] != h || s[3] != d)
    fail("new entries ", dtypeName(fresh.dtype), " ", shapeString(s), " do not fit the KV cache ",
         dtypeName(cache.dtype(slot)), " [", b, ", ", h, ", ", cache.capacity(), ", ", d, "]");
  const int64_t n = s[2], len = cache.length();
  if (len + n > cache.capacity())
    fail("KV cache full: ", len, " + ", n, " positions exceed its capacity ", cache.capacity());
  // Launched with the layer's other slot (launchAppend), or before a device op reads it.
  ex_.retain(fresh.block);
  ex_.kvPending_[slot] = fresh;
  const int partner = ex_.partnerSlot_[slot];
  const bool leftToAttention = ex_.ctx_.fusedLaunchesEnabled() && ex_.fuses(ex_.fn_->kvSlots[slot].appendOp, cuda::CudaFusion::appendIntoAttention);
  if (partner >= 0 && ex_.kvPending_[static_cast<size_t>(partner)].set && !leftToAttention)
    launchAppend(slot);
  Value &out = values_[op().outputs.at(0)];
  out = Value();
  out.dtype = fresh.dtype;
  out.shape = {b, h, len + n, d};
  out.dev = static_cast<char *>(cache.buffer(slot));
  out.strides = {h * cache.capacity() * d, cache.capacity() * d, d, 1};
  out.kvSlot = static_cast<int>(slot);
  out.set = true;
}

namespace {
/// Strides with those of size-1 dims zeroed (they never move), to compare layouts.
std::vector<int64_t> effectiveStrides(const CudaExecutor::Value &v) {
  std::vector<int64_t> st = stridesOf(v);
  for (size_t i = 0; i < st.size(); ++i)
    if (v.shape[i] == 1)
      st[i] = 0;
  return st;
}
} // namespace

void CudaExecutor::OpRecorder::launchAppend(size_t slot) {
  DeviceKvCache &cache = *cache_;
  Value &a = ex_.kvPending_[slot];
  if (!a.set)
    return;
  launchDeferredRotary(); // it may produce the entries
  const int partner = ex_.partnerSlot_[slot];
  Value *b = partner >= 0 && ex_.kvPending_[static_cast<size_t>(partner)].set
                 ? &ex_.kvPending_[static_cast<size_t>(partner)]
                 : nullptr;
  std::vector<int64_t> st = effectiveStrides(a);
  if (b && (b->shape != a.shape || effectiveStrides(*b) != st))
    b = nullptr; // laid out differently: one launch each
  // The kernel writes newK into view.k and newV into view.v: a lone slot names its own
  // buffer twice (the same element written twice by one thread).
  const bool aIsKey = ex_.fn_->kvSlots[slot].kind == KvKind::key;
  cuda::KvCacheView kv;
  kv.k = kv.v = cache.buffer(slot);
  const char *newK = a.dev, *newV = a.dev;
  if (b) {
    (aIsKey ? kv.v : kv.k) = cache.buffer(static_cast<size_t>(partner));
    (aIsKey ? newV : newK) = b->dev;
  }
  kv.batch = cache.batch();
  kv.kvHeads = cache.kvHeads(slot);
  kv.capacity = cache.capacity();
  kv.headDim = cache.headDim(slot);
  const DType dt = a.dtype;
  const int64_t n = a.shape[2];
  const int32_t *lens = cache.lengths();
  record([=](cudaStream_t stream) {
    cuda::kvCacheAppend(stream, dt, kv, newK, newV, n, st[0], st[1], st[2], lens, nullptr);
  });
  sign(index_, kv, newK, newV, n, st[0], st[1], st[2], lens);
  ex_.drop(a.block);
  a = Value();
  if (b) {
    ex_.drop(b->block);
    *b = Value();
  }
}

void CudaExecutor::OpRecorder::appendPending() {
  for (size_t s = 0; s < ex_.kvPending_.size(); ++s)
    launchAppend(s);
  launchDeferredRotary();
}

void CudaExecutor::OpRecorder::launch() {
  const auto &t = table();
  auto it = t.find(op().name);
  if (it == t.end())
    fail("no CUDA launch for ", op().name);
  (this->*(it->second))();
}

bool hasDeviceLaunch(const std::string &name) {
  return CudaExecutor::OpRecorder::table().count(name) != 0;
}

std::vector<std::string> deviceLaunchNames() {
  std::vector<std::string> names;
  for (const auto &entry : CudaExecutor::OpRecorder::table())
    names.push_back(entry.first);
  return names;
}

} // namespace mm::rt::cudaexec

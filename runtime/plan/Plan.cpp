//===- Plan.cpp - load and verify a plan file --------------------------------===//
#include "runtime/plan/Plan.h"

#include "runtime/core/Error.h"
#include "runtime/cuda/OpCapabilities.h"
#include "runtime/plan/PlanFormat.h"
#include "runtime/plan/plan_generated.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <set>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mm::rt {

int FunctionInfo::inputIndex(const std::string &name) const {
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].name == name)
      return static_cast<int>(i);
  return -1;
}

int FunctionInfo::outputIndex(const std::string &name) const {
  for (size_t i = 0; i < outputs.size(); ++i)
    if (outputs[i].name == name)
      return static_cast<int>(i);
  return -1;
}

int FunctionInfo::inputWithRole(ValueRole role) const {
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].role == role)
      return static_cast<int>(i);
  return -1;
}

bool FunctionInfo::isPastInput(size_t index) const {
  return std::any_of(kvSlots.begin(), kvSlots.end(),
                     [&](const KvSlotInfo &s) { return s.pastInput == index; });
}

int FunctionInfo::outputWithRole(ValueRole role) const {
  for (size_t i = 0; i < outputs.size(); ++i)
    if (outputs[i].role == role)
      return static_cast<int>(i);
  return -1;
}

// The runtime's role enums read the plan's by value: every member at its plan number.
#define MM_SAME_ROLE(Enum, ours, plans)                                                    \
  static_assert(static_cast<int>(Enum::ours) == static_cast<int>(plan::fb::Enum::plans))
MM_SAME_ROLE(ValueRole, none, none);
MM_SAME_ROLE(ValueRole, inputIds, input_ids);
MM_SAME_ROLE(ValueRole, inputsEmbeds, inputs_embeds);
MM_SAME_ROLE(ValueRole, attentionMask, attention_mask);
MM_SAME_ROLE(ValueRole, positionIds, position_ids);
MM_SAME_ROLE(ValueRole, pixelValues, pixel_values);
MM_SAME_ROLE(ValueRole, imageFeatures, image_features);
MM_SAME_ROLE(ValueRole, logits, logits);
MM_SAME_ROLE(ValueRole, kvPast, kv_past);
MM_SAME_ROLE(ValueRole, kvPresent, kv_present);
MM_SAME_ROLE(ValueRole, imageGridThw, image_grid_thw);
MM_SAME_ROLE(ValueRole, imageGridThw, MAX);
MM_SAME_ROLE(FunctionRole, none, none);
MM_SAME_ROLE(FunctionRole, visionEncoder, vision_encoder);
MM_SAME_ROLE(FunctionRole, embedding, embedding);
MM_SAME_ROLE(FunctionRole, decoder, decoder);
MM_SAME_ROLE(FunctionRole, decoder, MAX);
#undef MM_SAME_ROLE

const char *roleName(ValueRole role) {
  return plan::fb::EnumNameValueRole(static_cast<plan::fb::ValueRole>(role));
}

const char *roleName(FunctionRole role) {
  return plan::fb::EnumNameFunctionRole(static_cast<plan::fb::FunctionRole>(role));
}

const FunctionInfo *Plan::findFunction(const std::string &name) const {
  for (const FunctionInfo &f : functions_)
    if (f.name == name)
      return &f;
  return nullptr;
}

std::vector<std::string> Plan::modelFileNames() const {
  std::vector<std::string> names;
  for (const auto &[name, contents] : modelFiles_)
    names.push_back(name);
  return names;
}

const std::string *Plan::modelFile(const std::string &name) const {
  auto it = modelFiles_.find(name);
  return it == modelFiles_.end() ? nullptr : &it->second;
}

const FunctionInfo &Plan::function(const std::string &name) const {
  if (const FunctionInfo *f = findFunction(name))
    return *f;
  std::string names;
  for (const FunctionInfo &f : functions_)
    names += (names.empty() ? "" : ", ") + f.name;
  fail(origin_, ": the plan has no function '", name, "' (it has: ", names, ")");
}

/// Decodes a verified FlatBuffer into a Plan, checking every cross-reference.
class PlanDecoder {
public:
  PlanDecoder(Plan &plan, const uint8_t *blob, uint64_t blobSize)
      : plan_(plan), blob_(blob), blobSize_(blobSize) {}

  void decode(const plan::fb::Plan &fb) {
    plan_.formatVersion_ = fb.format_version();
    plan_.producer_ = str(fb.producer());
    plan_.target_ = str(fb.target());
    if (plan_.target_ != "cpu" && plan_.target_ != "cuda")
      bad("Plan.target '", plan_.target_, "' is not a target this runtime knows (cpu or cuda)");
    plan_.computeDType_ = dtype(fb.compute_dtype(), "Plan.compute_dtype");
    plan_.blobSize_ = blobSize_;
    if (fb.blob_size() != blobSize_)
      bad("Plan.blob_size (", fb.blob_size(), ") differs from the header's blob size (",
          blobSize_, ")");
    decodeWeights(fb);
    if (!fb.functions() || fb.functions()->size() == 0)
      bad("Plan.functions is empty");
    std::set<std::string> names;
    for (uint32_t i = 0; i < fb.functions()->size(); ++i) {
      FunctionInfo f = decodeFunction(*fb.functions()->Get(i), i);
      if (!names.insert(f.name).second)
        bad("Plan.functions[", i, "]: duplicate function name '", f.name, "'");
      plan_.functions_.push_back(std::move(f));
    }
    if (fb.generation())
      decodeGeneration(*fb.generation());
    if (fb.model_files())
      for (uint32_t i = 0; i < fb.model_files()->size(); ++i) {
        const plan::fb::ModelFile &f = *fb.model_files()->Get(i);
        const std::string name = str(f.name());
        if (name.empty() || !f.contents())
          bad("Plan.model_files[", i, "] has no name or no contents");
        if (!plan_.modelFiles_.emplace(name, str(f.contents())).second)
          bad("Plan.model_files[", i, "]: duplicate file '", name, "'");
      }
  }

private:
  template <typename... Parts> [[noreturn]] void bad(const Parts &...parts) {
    fail(plan_.origin_, ": invalid plan: ", parts...);
  }

  static std::string str(const flatbuffers::String *s) { return s ? s->str() : std::string(); }

  /// The FlatBuffers verifier checks the alignment of a vector's length field only; a
  /// corrupt offset can leave the 8-byte elements of [long] / [double] misaligned. An
  /// empty vector has no elements to misalign (FlatBuffers does not pad it: the shape of
  /// every 0-D tensor is one).
  template <typename T>
  const flatbuffers::Vector<T> *aligned(const flatbuffers::Vector<T> *v, const std::string &where) {
    if (v && v->size() > 0 && reinterpret_cast<uintptr_t>(v->data()) % alignof(T) != 0)
      bad(where, ": misaligned vector");
    return v;
  }

  DType dtype(plan::fb::DType t, const std::string &where) {
    if (t > plan::fb::DType::boolean)
      bad(where, ": unknown dtype code ", static_cast<int>(t));
    return static_cast<DType>(t);
  }

  Shape shape(const flatbuffers::Vector<int64_t> *dims, const std::string &where,
              bool requireStatic) {
    Shape s;
    if (!aligned(dims, where))
      return s;
    if (dims->size() > 64)
      bad(where, ": rank ", dims->size(), " is larger than 64");
    for (int64_t d : *dims) {
      if (d < -1 || (requireStatic && d < 0))
        bad(where, ": invalid dim ", d);
      if (d > plan::kMaxDim)
        bad(where, ": dim ", d, " is too large");
      s.push_back(d);
    }
    return s;
  }

  /// Byte size of a static shape of `t`, with overflow checks.
  uint64_t byteSize(const Shape &s, DType t, const std::string &where) {
    uint64_t n = dtypeSize(t);
    for (int64_t d : s) {
      if (d != 0 && n > std::numeric_limits<uint64_t>::max() / static_cast<uint64_t>(d))
        bad(where, ": size overflows");
      n *= static_cast<uint64_t>(d);
    }
    return n;
  }

  Tensor tensorData(const plan::fb::TensorData *td, const std::string &where) {
    if (!td)
      bad(where, ": missing tensor data");
    DType t = dtype(td->dtype(), where);
    Shape s = shape(td->shape(), where + ".shape", /*requireStatic=*/true);
    uint64_t bytes = byteSize(s, t, where);
    uint64_t have = td->data() ? td->data()->size() : 0;
    if (have != bytes)
      bad(where, ": holds ", have, " bytes but ", dtypeName(t), " ", shapeString(s), " needs ",
          bytes);
    Tensor out = Tensor::host(t, s);
    if (bytes)
      std::memcpy(out.data, td->data()->data(), bytes);
    return out;
  }

  void decodeWeights(const plan::fb::Plan &fb) {
    uint32_t align = fb.blob_alignment();
    if (align == 0 || (align & (align - 1)) != 0 || align > plan::kBlobAlignment)
      bad("Plan.blob_alignment ", align, " is not a power of two <= ", plan::kBlobAlignment);
    if (!fb.weights())
      return;
    for (uint32_t i = 0; i < fb.weights()->size(); ++i) {
      const plan::fb::WeightRef *w = fb.weights()->Get(i);
      uint64_t off = w->offset(), len = w->length();
      if (off % align != 0)
        bad("Plan.weights[", i, "] '", str(w->name()), "': offset ", off,
            " is not a multiple of ", align);
      if (off > blobSize_ || len > blobSize_ - off)
        bad("Plan.weights[", i, "] '", str(w->name()), "': bytes [", off, ", ", off + len,
            ") lie past the end of the weights blob (", blobSize_, " bytes)");
      weights_.push_back({off, len});
    }
  }

  FunctionInfo decodeFunction(const plan::fb::Function &ff, uint32_t index) {
    FunctionInfo f;
    f.name = ff.name()->str();
    std::string where = "function '" + f.name + "'";
    if (f.name.empty())
      bad("Plan.functions[", index, "] has an empty name");
    uint32_t nt = ff.tensors() ? ff.tensors()->size() : 0;
    for (uint32_t t = 0; t < nt; ++t)
      f.tensors.push_back(decodeTensor(*ff.tensors()->Get(t), where + " tensor " + std::to_string(t)));
    uint32_t nops = ff.ops() ? ff.ops()->size() : 0;
    for (uint32_t i = 0; i < nops; ++i)
      f.ops.push_back(decodeOp(*ff.ops()->Get(i), nt, where + " op " + std::to_string(i)));
    f.inputs = decodeValues(ff.inputs(), nt, where + " input");
    f.outputs = decodeValues(ff.outputs(), nt, where + " output");
    checkDataflow(f, where);
    if (ff.role() > plan::fb::FunctionRole::MAX)
      bad(where, ": unknown role ", static_cast<int>(ff.role()));
    f.role = static_cast<FunctionRole>(ff.role());
    if (ff.kv_cache())
      for (uint32_t i = 0; i < ff.kv_cache()->size(); ++i)
        f.kvSlots.push_back(decodeKvSlot(*ff.kv_cache()->Get(i), f,
                                         where + " kv_cache[" + std::to_string(i) + "]"));
    decodeKvLayout(ff, f, where);
    decodeSegments(ff, f, where);
    checkFusion(f, where);
    return f;
  }

  /// A function with KV-cache slots has a layout: contiguous, rank-4 buffers, its axes a
  /// permutation of 0..3 with the sequence on every slot's axis; one without has none.
  void decodeKvLayout(const plan::fb::Function &ff, FunctionInfo &f, const std::string &where) {
    const plan::fb::KvCacheLayout *l = ff.kv_layout();
    if (f.kvSlots.empty()) {
      if (l)
        bad(where, ": kv_layout without KV-cache slots");
      return;
    }
    if (!l)
      bad(where, ": KV-cache slots without a kv_layout");
    if (l->kind() != plan::fb::KvLayoutKind::contiguous)
      bad(where, " kv_layout: unknown kind ", static_cast<int>(l->kind()));
    f.kvLayout = {l->batch_axis(), l->heads_axis(), l->sequence_axis(), l->head_dim_axis()};
    std::set<int32_t> axes{f.kvLayout.batchAxis, f.kvLayout.headsAxis, f.kvLayout.sequenceAxis,
                           f.kvLayout.headDimAxis};
    if (axes != std::set<int32_t>{0, 1, 2, 3})
      bad(where, " kv_layout: axes batch ", f.kvLayout.batchAxis, ", heads ", f.kvLayout.headsAxis,
          ", sequence ", f.kvLayout.sequenceAxis, ", head dim ", f.kvLayout.headDimAxis,
          " are not a permutation of 0..3");
    for (const KvSlotInfo &s : f.kvSlots) {
      const ValueInfo &past = f.inputs[s.pastInput];
      if (f.tensors[past.tensor].shape.size() != 4 || s.axis != f.kvLayout.sequenceAxis)
        bad(where, " kv_layout: input '", past.name, "' is ",
            shapeString(f.tensors[past.tensor].shape), " appended along axis ", s.axis,
            "; the layout has rank 4 and the sequence on axis ", f.kvLayout.sequenceAxis);
    }
  }

  /// Segments are ordered, disjoint op ranges; every device op names the segment whose
  /// range holds it; other ops name none; a function with segments has no unplanned op.
  void decodeSegments(const plan::fb::Function &ff, FunctionInfo &f, const std::string &where) {
    if (ff.segments())
      for (uint32_t i = 0; i < ff.segments()->size(); ++i) {
        const plan::fb::GraphSegment *s = ff.segments()->Get(i);
        SegmentInfo seg{s->first_op(), s->last_op(), str(s->end_reason())};
        if (seg.firstOp > seg.lastOp || seg.lastOp >= f.ops.size())
          bad(where, " segments[", i, "]: ops [", seg.firstOp, ", ", seg.lastOp,
              "] are not a range of its ", f.ops.size(), " ops");
        if (i > 0 && seg.firstOp <= f.segments.back().lastOp)
          bad(where, " segments[", i, "]: first_op ", seg.firstOp,
              " is not after the previous segment's last_op ", f.segments.back().lastOp);
        f.segments.push_back(std::move(seg));
      }
    for (size_t i = 0; i < f.ops.size(); ++i) {
      const OpInfo &op = f.ops[i];
      if (op.placement != Placement::device) {
        if (op.segment != -1)
          bad(where, " op ", i, " (", op.name, "): segment ", op.segment,
              " for an op not placed on the device");
        if (op.placement == Placement::unplanned && !f.segments.empty())
          bad(where, " op ", i, " (", op.name, "): placement unplanned in a planned function");
        continue;
      }
      if (op.segment < 0 || static_cast<size_t>(op.segment) >= f.segments.size())
        bad(where, " op ", i, " (", op.name, "): segment ", op.segment, " out of range (",
            f.segments.size(), " segments)");
      const SegmentInfo &seg = f.segments[op.segment];
      if (i < seg.firstOp || i > seg.lastOp)
        bad(where, " op ", i, " (", op.name, "): segment ", op.segment, " covers ops [",
            seg.firstOp, ", ", seg.lastOp, "] only");
    }
  }

  /// Each fusion bit (-mm-plan-cuda-fusion) sits on a device op whose neighbours make the
  /// fused launch correct: the CUDA executor leaves a fused norm's, SwiGLU's or deferred
  /// rotary's own result unwritten, so no other op may read it and no function output may
  /// be it (an append's result is a kv_present output: the cache serves it). Known bits
  /// only; feeds_next_linear: the next op is a device mm.linear whose input is the op's
  /// first result, which nothing else reads; rotary_pair_with_next: the op and the next
  /// are device mm.rotary (x, cos, sin) with the same cos, sin and `interleaved`, whose
  /// results are no outputs, and the op is not the second of a pair;
  /// append_into_attention: on a KV slot's append whose result and the layer's other
  /// append's are read only by one device mm.attention, as its key and value;
  /// rotary_into_attention: on a pair whose query only a device mm.attention reads, as its
  /// query, and whose key only that attention's key append (with append_into_attention)
  /// reads.
  void checkFusion(const FunctionInfo &f, const std::string &where) {
    using cuda::CudaFusion;
    uint8_t known = 0;
    for (const cuda::CudaFusionName &n : cuda::kCudaFusions)
      known |= static_cast<uint8_t>(n.fusion);
    std::vector<std::vector<size_t>> readers(f.tensors.size());
    for (size_t i = 0; i < f.ops.size(); ++i)
      for (uint32_t t : f.ops[i].inputs)
        readers[t].push_back(i);
    std::vector<bool> isOutput(f.tensors.size(), false);
    for (const ValueInfo &v : f.outputs)
      isOutput[v.tensor] = true;
    auto has = [&](size_t i, CudaFusion b) {
      return i < f.ops.size() && (f.ops[i].fusion & static_cast<uint8_t>(b)) != 0;
    };
    auto device = [&](size_t i, const char *name) {
      return i < f.ops.size() && f.ops[i].placement == Placement::device && f.ops[i].name == name;
    };
    // The op that alone reads `t`, or SIZE_MAX.
    auto onlyReader = [&](uint32_t t) { return readers[t].size() == 1 ? readers[t][0] : SIZE_MAX; };
    // The device mm.attention (query, key, value, ...) that alone reads `t`, or SIZE_MAX.
    auto onlyAttention = [&](uint32_t t) {
      const size_t r = onlyReader(t);
      return device(r, "mm.attention") && f.ops[r].inputs.size() >= 3 ? r : SIZE_MAX;
    };
    auto rotary = [&](size_t i) {
      return device(i, "mm.rotary") && f.ops[i].inputs.size() == 3 && f.ops[i].outputs.size() == 1 &&
             !isOutput[f.ops[i].outputs[0]];
    };
    auto slotOf = [&](size_t op) {
      for (size_t s = 0; s < f.kvSlots.size(); ++s)
        if (f.kvSlots[s].appendOp == op)
          return static_cast<int>(s);
      return -1;
    };
    auto appendOf = [&](int64_t layer, KvKind kind) {
      for (const KvSlotInfo &s : f.kvSlots)
        if (s.layer == layer && s.kind == kind)
          return static_cast<size_t>(s.appendOp);
      return SIZE_MAX;
    };
    auto feedsNextLinear = [&](size_t i) {
      const OpInfo &op = f.ops[i];
      return device(i + 1, "mm.linear") && f.ops[i + 1].inputs.size() >= 2 && !op.outputs.empty() &&
             f.ops[i + 1].inputs[0] == op.outputs[0] && onlyReader(op.outputs[0]) == i + 1 &&
             !isOutput[op.outputs[0]];
    };
    auto rotaryPair = [&](size_t i) {
      return rotary(i) && rotary(i + 1) && f.ops[i].inputs[1] == f.ops[i + 1].inputs[1] &&
             f.ops[i].inputs[2] == f.ops[i + 1].inputs[2] &&
             f.ops[i].attrs.getInt("interleaved", 0) == f.ops[i + 1].attrs.getInt("interleaved", 0) &&
             !(i > 0 && has(i - 1, CudaFusion::rotaryPairWithNext));
    };
    auto appendIntoAttention = [&](size_t i) {
      const int s = slotOf(i);
      if (s < 0)
        return false;
      const KvSlotInfo &slot = f.kvSlots[static_cast<size_t>(s)];
      const size_t k = appendOf(slot.layer, KvKind::key), v = appendOf(slot.layer, KvKind::value);
      if (k == SIZE_MAX || v == SIZE_MAX || f.ops[k].outputs.empty() || f.ops[v].outputs.empty())
        return false;
      const uint32_t key = f.ops[k].outputs[0], value = f.ops[v].outputs[0];
      const size_t att = onlyAttention(key);
      return att != SIZE_MAX && att == onlyAttention(value) && f.ops[att].inputs[1] == key &&
             f.ops[att].inputs[2] == value;
    };
    auto rotaryIntoAttention = [&](size_t i) {
      if (!has(i, CudaFusion::rotaryPairWithNext))
        return false;
      const uint32_t q = f.ops[i].outputs[0], k = f.ops[i + 1].outputs[0];
      const size_t att = onlyAttention(q), append = onlyReader(k);
      const int s = append == SIZE_MAX ? -1 : slotOf(append);
      return att != SIZE_MAX && f.ops[att].inputs[0] == q && s >= 0 &&
             f.kvSlots[static_cast<size_t>(s)].kind == KvKind::key && f.ops[append].inputs.size() == 2 &&
             f.ops[append].inputs[1] == k && has(append, CudaFusion::appendIntoAttention) &&
             f.ops[att].inputs[1] == f.ops[append].outputs.at(0);
    };
    for (size_t i = 0; i < f.ops.size(); ++i) {
      const OpInfo &op = f.ops[i];
      auto refuse = [&](const char *why) {
        bad(where, " op ", i, " (", op.name, "): fusion bits ", static_cast<int>(op.fusion), " ", why);
      };
      if (op.fusion == 0)
        continue;
      if ((op.fusion & ~known) != 0)
        refuse("hold an unknown bit");
      if (op.placement != Placement::device)
        refuse("on an op not placed on the device");
      if (has(i, CudaFusion::feedsNextLinear) && !feedsNextLinear(i))
        refuse("say feeds_next_linear, but the next op is no device mm.linear reading its result, "
               "or another op reads it, or a function returns it");
      if (has(i, CudaFusion::rotaryPairWithNext) && !rotaryPair(i))
        refuse("say rotary_pair_with_next, but the op and the next are not two device mm.rotary "
               "of three inputs with the same cos/sin whose results no function returns, or the "
               "op is the second of a pair");
      if (has(i, CudaFusion::rotaryIntoAttention) && !rotaryIntoAttention(i))
        refuse("say rotary_into_attention, but the op is no rotary pair whose query only a "
               "device mm.attention reads and whose key only that attention's key append "
               "(with append_into_attention) reads");
      if (has(i, CudaFusion::appendIntoAttention) && !appendIntoAttention(i))
        refuse("say append_into_attention, but the op is no KV-cache append whose result and "
               "its partner's only one device mm.attention reads, as its key and value");
    }
  }

  TensorInfo decodeTensor(const plan::fb::Tensor &ft, const std::string &where) {
    TensorInfo t;
    t.dtype = dtype(ft.dtype(), where);
    t.shape = shape(ft.shape(), where + ".shape", /*requireStatic=*/false);
    if (ft.dim_names() && ft.dim_names()->size() != 0) {
      if (ft.dim_names()->size() != t.shape.size())
        bad(where, ": ", ft.dim_names()->size(), " dim names for rank ", t.shape.size());
      for (const flatbuffers::String *n : *ft.dim_names())
        t.dimNames.push_back(str(n));
    } else {
      t.dimNames.assign(t.shape.size(), "");
    }
    if (ft.kind() > plan::fb::TensorKind::constant)
      bad(where, ": unknown tensor kind ", static_cast<int>(ft.kind()));
    t.kind = static_cast<TensorKind>(ft.kind());
    t.name = str(ft.name());
    t.firstOp = ft.first_op();
    t.lastOp = ft.last_op();
    if (t.kind == TensorKind::weight)
      t.value = weightView(ft.weight(), t, where);
    else if (t.kind == TensorKind::constant) {
      t.value = tensorData(ft.constant(), where + ".constant");
      if (t.value.dtype != t.dtype || t.value.shape != t.shape)
        bad(where, ": constant is ", dtypeName(t.value.dtype), " ", shapeString(t.value.shape),
            " but the tensor is ", dtypeName(t.dtype), " ", shapeString(t.shape));
    }
    return t;
  }

  Tensor weightView(uint32_t index, const TensorInfo &t, const std::string &where) {
    if (index >= weights_.size())
      bad(where, ": weight index ", index, " out of range (", weights_.size(), " weights)");
    for (int64_t d : t.shape)
      if (d < 0)
        bad(where, ": weight with dynamic shape ", shapeString(t.shape));
    uint64_t bytes = byteSize(t.shape, t.dtype, where);
    if (bytes != weights_[index].length)
      bad(where, ": weight ", index, " has ", weights_[index].length, " bytes but ",
          dtypeName(t.dtype), " ", shapeString(t.shape), " needs ", bytes);
    Tensor v;
    v.dtype = t.dtype;
    v.shape = t.shape;
    v.data = const_cast<uint8_t *>(blob_ + weights_[index].offset);
    v.owner = std::shared_ptr<void>(plan_.mapping_, const_cast<void *>(plan_.mapping_.get()));
    return v;
  }

  OpInfo decodeOp(const plan::fb::Op &fo, uint32_t numTensors, const std::string &where) {
    OpInfo op;
    op.name = fo.name()->str();
    // An op name is an MLIR name ("mm.matmul"): a corrupted one is named as such, not
    // printed as raw bytes (or, with a NUL inside, as another op's name).
    if (!std::all_of(op.name.begin(), op.name.end(), [](char c) {
          return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_';
        }))
      bad(where, ": op name is not an MLIR op name (", op.name.size(), " bytes)");
    op.location = str(fo.location());
    if (op.name.empty())
      bad(where, ": empty op name");
    auto ids = [&](const flatbuffers::Vector<uint32_t> *v, const char *what) {
      std::vector<uint32_t> out;
      if (v)
        for (uint32_t id : *v) {
          if (id >= numTensors)
            bad(where, " (", op.name, "): ", what, " tensor id ", id, " out of range (",
                numTensors, " tensors)");
          out.push_back(id);
        }
      return out;
    };
    op.inputs = ids(fo.inputs(), "input");
    op.outputs = ids(fo.outputs(), "output");
    if (fo.placement() > plan::fb::Placement::device)
      bad(where, " (", op.name, "): unknown placement ", static_cast<int>(fo.placement()));
    op.placement = static_cast<Placement>(fo.placement());
    op.segment = fo.segment();
    op.fusion = fo.fusion();
    op.attrs = Attrs(op.name);
    if (fo.attributes())
      for (const plan::fb::Attribute *a : *fo.attributes())
        op.attrs.set(a->name()->str(), attrValue(*a, where + " (" + op.name + ") attribute '" +
                                                         a->name()->str() + "'"));
    return op;
  }

  AttrValue attrValue(const plan::fb::Attribute &a, const std::string &where) {
    using plan::fb::AttrValue;
    if (!a.value())
      bad(where, ": missing value");
    switch (a.value_type()) {
    case AttrValue::IntAttr:
      return a.value_as_IntAttr()->value();
    case AttrValue::FloatAttr:
      return a.value_as_FloatAttr()->value();
    case AttrValue::StringAttr:
      return str(a.value_as_StringAttr()->value());
    case AttrValue::IntListAttr: {
      auto *v = aligned(a.value_as_IntListAttr()->values(), where);
      return v ? std::vector<int64_t>(v->begin(), v->end()) : std::vector<int64_t>();
    }
    case AttrValue::FloatListAttr: {
      auto *v = aligned(a.value_as_FloatListAttr()->values(), where);
      return v ? std::vector<double>(v->begin(), v->end()) : std::vector<double>();
    }
    case AttrValue::TensorAttr:
      return tensorData(a.value_as_TensorAttr()->value(), where);
    default:
      bad(where, ": missing or unknown value type ", static_cast<int>(a.value_type()));
    }
  }

  std::vector<ValueInfo> decodeValues(const flatbuffers::Vector<flatbuffers::Offset<plan::fb::Value>> *v,
                                      uint32_t numTensors, const std::string &where) {
    std::vector<ValueInfo> out;
    if (!v)
      return out;
    for (uint32_t i = 0; i < v->size(); ++i) {
      ValueInfo value{v->Get(i)->name()->str(), v->Get(i)->tensor()};
      if (v->Get(i)->role() > plan::fb::ValueRole::MAX)
        bad(where, " ", i, " '", value.name, "': unknown role ", static_cast<int>(v->Get(i)->role()));
      value.role = static_cast<ValueRole>(v->Get(i)->role());
      if (value.tensor >= numTensors)
        bad(where, " ", i, " '", value.name, "': tensor id ", value.tensor, " out of range (",
            numTensors, " tensors)");
      out.push_back(std::move(value));
    }
    return out;
  }

  /// Every activation is produced once, before its uses, and its liveness interval covers
  /// them; inputs are bound once; outputs stay live to the end.
  void checkDataflow(const FunctionInfo &f, const std::string &where) {
    const int32_t nops = static_cast<int32_t>(f.ops.size());
    std::vector<int32_t> producer(f.tensors.size(), -1);
    std::vector<int> boundInputs(f.tensors.size(), 0);
    for (const ValueInfo &v : f.inputs) {
      if (f.tensors[v.tensor].kind != TensorKind::input)
        bad(where, " input '", v.name, "': tensor ", v.tensor, " is not an input tensor");
      if (boundInputs[v.tensor]++)
        bad(where, " input '", v.name, "': tensor ", v.tensor, " is bound twice");
    }
    for (size_t t = 0; t < f.tensors.size(); ++t)
      if (f.tensors[t].kind == TensorKind::input && !boundInputs[t])
        bad(where, " tensor ", t, ": input tensor bound to no function input");
    for (int32_t i = 0; i < nops; ++i) {
      const OpInfo &op = f.ops[i];
      for (uint32_t in : op.inputs) {
        const TensorInfo &t = f.tensors[in];
        if (t.kind != TensorKind::activation)
          continue;
        if (producer[in] < 0)
          bad(where, " op ", i, " (", op.name, "): reads tensor ", in,
              " before any op produces it");
        if (t.lastOp < i)
          bad(where, " tensor ", in, ": last_op ", t.lastOp, " but op ", i, " reads it");
      }
      for (uint32_t out : op.outputs) {
        const TensorInfo &t = f.tensors[out];
        if (t.kind != TensorKind::activation)
          bad(where, " op ", i, " (", op.name, "): output tensor ", out, " is not an activation");
        if (producer[out] >= 0)
          bad(where, " tensor ", out, ": produced by ops ", producer[out], " and ", i);
        producer[out] = i;
        if (t.firstOp != i || t.lastOp < i || t.lastOp > nops)
          bad(where, " tensor ", out, ": liveness [", t.firstOp, ", ", t.lastOp,
              "] does not fit its producer op ", i, " of ", nops);
      }
    }
    for (size_t t = 0; t < f.tensors.size(); ++t)
      if (f.tensors[t].kind == TensorKind::activation && producer[t] < 0)
        bad(where, " tensor ", t, ": activation produced by no op");
    for (const ValueInfo &v : f.outputs) {
      const TensorInfo &t = f.tensors[v.tensor];
      if (t.kind == TensorKind::activation && t.lastOp != nops)
        bad(where, " output '", v.name, "': tensor ", v.tensor, " has last_op ", t.lastOp,
            ", expected ", nops, " (live to the end)");
    }
  }

  KvSlotInfo decodeKvSlot(const plan::fb::KvCacheSlot &fs, const FunctionInfo &f,
                          const std::string &where) {
    KvSlotInfo s;
    s.layer = fs.layer();
    if (fs.kind() > plan::fb::KvKind::value)
      bad(where, ": unknown kind ", static_cast<int>(fs.kind()));
    s.kind = static_cast<KvKind>(fs.kind());
    s.pastInput = fs.past_input();
    s.presentOutput = fs.present_output();
    s.appendOp = fs.append_op();
    s.axis = fs.axis();
    if (s.layer < 0 || s.pastInput >= f.inputs.size() || s.presentOutput >= f.outputs.size() ||
        s.appendOp >= f.ops.size())
      bad(where, ": layer, input, output or op index out of range");
    const OpInfo &op = f.ops[s.appendOp];
    if (op.name != "mm.concat" || op.inputs.size() != 2 || op.outputs.size() != 1 ||
        op.inputs[0] != f.inputs[s.pastInput].tensor ||
        op.outputs[0] != f.outputs[s.presentOutput].tensor)
      bad(where, ": op ", s.appendOp, " is not concat(past, new) -> present");
    if (f.inputs[s.pastInput].role != ValueRole::kvPast ||
        f.outputs[s.presentOutput].role != ValueRole::kvPresent)
      bad(where, ": input '", f.inputs[s.pastInput].name, "' and output '",
          f.outputs[s.presentOutput].name, "' do not have roles kv_past and kv_present");
    const TensorInfo &past = f.tensors[op.inputs[0]];
    if (s.axis < 0 || s.axis >= static_cast<int32_t>(past.shape.size()))
      bad(where, ": axis ", s.axis, " out of range for rank ", past.shape.size());
    for (const KvSlotInfo &o : f.kvSlots) // the slots decoded before this one
      if ((o.layer == s.layer && o.kind == s.kind) || o.appendOp == s.appendOp ||
          o.pastInput == s.pastInput || o.presentOutput == s.presentOutput)
        bad(where, ": layer ", s.layer, (s.kind == KvKind::key ? " key" : " value"),
            " shares its layer and kind, input, output or op with another slot");
    return s;
  }

  void decodeGeneration(const plan::fb::GenerationInfo &g) {
    GenerationInfo &out = plan_.generation_;
    out.present = true;
    out.visionFunction = str(g.vision_function());
    out.embedFunction = str(g.embed_function());
    out.decoderFunction = str(g.decoder_function());
    const std::pair<const std::string *, FunctionRole> named[] = {
        {&out.visionFunction, FunctionRole::visionEncoder},
        {&out.embedFunction, FunctionRole::embedding},
        {&out.decoderFunction, FunctionRole::decoder}};
    for (const auto &[name, role] : named) {
      if (name->empty())
        continue;
      const FunctionInfo *f = plan_.findFunction(*name);
      if (!f)
        bad("GenerationInfo names function '", *name, "' which the plan does not have");
      if (f->role != role)
        bad("GenerationInfo names '", *name, "' as the ", roleName(role), " but its role is ",
            roleName(f->role));
    }
    out.imageTokenId = g.image_token_id();
    out.bosTokenId = g.bos_token_id();
    if (aligned(g.eos_token_ids(), "GenerationInfo.eos_token_ids"))
      out.eosTokenIds.assign(g.eos_token_ids()->begin(), g.eos_token_ids()->end());
    out.hiddenSize = g.hidden_size();
    out.vocabSize = g.vocab_size();
    out.numLayers = g.num_layers();
    out.numKvHeads = g.num_kv_heads();
    out.headDim = g.head_dim();
    out.maxPositions = g.max_positions();
    out.mropeSpatialMergeSize = g.mrope_spatial_merge_size();
  }

  struct WeightSpan {
    uint64_t offset, length;
  };
  Plan &plan_;
  const uint8_t *blob_;
  uint64_t blobSize_;
  std::vector<WeightSpan> weights_;
};

std::shared_ptr<const Plan> Plan::fromMemory(const uint8_t *data, size_t size,
                                             std::shared_ptr<const void> keepAlive,
                                             const std::string &origin) {
  using plan::FileHeader;
  if (size < sizeof(plan::kPlanMagic) ||
      std::memcmp(data, plan::kPlanMagic, sizeof(plan::kPlanMagic)) != 0)
    fail(origin, ": not an mmc plan (no 'MMCPLAN' header; compile one with `mmc compile`)");
  if (size < sizeof(FileHeader))
    fail(origin, ": truncated plan (", size, " bytes, shorter than the 64-byte header)");
  FileHeader h;
  std::memcpy(&h, data, sizeof(h));
  if (h.version != plan::kPlanFormatVersion)
    fail(origin, ": plan format version ", h.version, ", but this runtime reads version ",
         plan::kPlanFormatVersion, " (recompile the model with a matching mmc)");
  if (h.headerSize != sizeof(FileHeader) || h.fbOffset != sizeof(FileHeader))
    fail(origin, ": invalid plan header (header size ", h.headerSize, ", FlatBuffer offset ",
         h.fbOffset, ")");
  if (h.fbSize == 0 || h.fbSize >= (uint64_t(1) << 31) || h.fbSize > size - h.fbOffset)
    fail(origin, ": truncated plan: the FlatBuffer needs bytes [", h.fbOffset, ", ",
         h.fbOffset + h.fbSize, ") but the file has ", size);
  if (h.blobOffset % plan::kBlobAlignment != 0 || h.blobOffset < h.fbOffset + h.fbSize)
    fail(origin, ": invalid plan header (weights blob offset ", h.blobOffset, ")");
  if (h.blobOffset > size || h.blobSize > size - h.blobOffset)
    fail(origin, ": truncated plan: the weights blob needs bytes [", h.blobOffset, ", ",
         h.blobOffset + h.blobSize, ") but the file has ", size);

  const uint8_t *fbData = data + h.fbOffset;
  flatbuffers::Verifier::Options opts;
  opts.max_tables = 100000000;
  flatbuffers::Verifier verifier(fbData, static_cast<size_t>(h.fbSize), opts);
  if (!plan::fb::PlanBufferHasIdentifier(fbData) || !plan::fb::VerifyPlanBuffer(verifier))
    fail(origin, ": corrupt plan: the FlatBuffer fails verification");
  const plan::fb::Plan *fb = plan::fb::GetPlan(fbData);
  if (fb->format_version() != h.version)
    fail(origin, ": corrupt plan: header version ", h.version, " but FlatBuffer version ",
         fb->format_version());

  auto plan = std::make_shared<Plan>();
  plan->origin_ = origin;
  plan->mapping_ = std::move(keepAlive);
  PlanDecoder(*plan, data + h.blobOffset, h.blobSize).decode(*fb);
  return plan;
}

namespace {
/// A read-only private mapping of a whole file.
struct Mapping {
  void *addr = nullptr;
  size_t size = 0;
  ~Mapping() {
    if (addr)
      ::munmap(addr, size);
  }
};
} // namespace

std::shared_ptr<const Plan> Plan::load(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    fail("cannot open plan '", path, "': ", std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    fail("cannot read plan '", path, "': not a regular file");
  }
  auto mapping = std::make_shared<Mapping>();
  mapping->size = static_cast<size_t>(st.st_size);
  if (mapping->size > 0) {
    void *addr = ::mmap(nullptr, mapping->size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (addr == MAP_FAILED) {
      int err = errno;
      ::close(fd);
      fail("cannot map plan '", path, "': ", std::strerror(err));
    }
    mapping->addr = addr;
  }
  ::close(fd);
  const uint8_t *bytes = static_cast<const uint8_t *>(mapping->addr);
  static const uint8_t kEmpty = 0;
  return fromMemory(bytes ? bytes : &kEmpty, mapping->size, mapping, path);
}

} // namespace mm::rt

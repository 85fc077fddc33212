//===- PlanTestUtil.cpp - build small plan files in tests -------------------===//
#include "PlanTestUtil.h"

#include "runtime/plan/PlanFormat.h"
#include "runtime/plan/plan_generated.h"

#include <cstring>
#include <memory>

namespace mm::test {

namespace fb = mm::plan::fb;

std::string buildPlanBytes(const TPlan &p) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<fb::Function>> functions;
  for (const TFunction &f : p.functions) {
    std::vector<flatbuffers::Offset<fb::Tensor>> tensors;
    for (const TTensor &t : f.tensors) {
      flatbuffers::Offset<fb::TensorData> constant;
      if (t.kind == rt::TensorKind::constant) {
        std::vector<uint8_t> bytes(t.constant.size() * 4);
        std::memcpy(bytes.data(), t.constant.data(), bytes.size());
        constant = fb::CreateTensorData(fbb, static_cast<fb::DType>(t.dtype),
                                        fbb.CreateVector(t.shape), fbb.CreateVector(bytes));
      }
      auto shape = fbb.CreateVector(t.shape);
      flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>> dims;
      if (!t.dims.empty())
        dims = fbb.CreateVectorOfStrings(t.dims);
      auto name = fbb.CreateString(t.name);
      tensors.push_back(fb::CreateTensor(fbb, static_cast<fb::DType>(t.dtype), shape, dims,
                                         static_cast<fb::TensorKind>(t.kind), name, t.weight,
                                         constant, t.firstOp, t.lastOp));
    }
    std::vector<flatbuffers::Offset<fb::Op>> ops;
    for (const TOp &o : f.ops) {
      std::vector<flatbuffers::Offset<fb::Attribute>> attrs;
      for (const auto &[name, value] : o.ints) {
        auto n = fbb.CreateString(name);
        auto v = fb::CreateIntAttr(fbb, value).Union();
        attrs.push_back(fb::CreateAttribute(fbb, n, fb::AttrValue::IntAttr, v));
      }
      auto name = fbb.CreateString(o.name);
      auto in = fbb.CreateVector(o.inputs);
      auto out = fbb.CreateVector(o.outputs);
      auto at = fbb.CreateVector(attrs);
      ops.push_back(fb::CreateOp(fbb, name, in, out, at, fbb.CreateString("test"),
                                 static_cast<fb::Placement>(o.placement), o.segment, o.fusion));
    }
    auto values = [&](const std::vector<std::pair<std::string, uint32_t>> &vs,
                      std::vector<rt::ValueRole> roles, bool outputs) {
      roles.resize(vs.size(), rt::ValueRole::none);
      for (const TSlot &s : f.slots) {
        uint32_t i = outputs ? s.presentOutput : s.pastInput;
        if (i < roles.size() && roles[i] == rt::ValueRole::none)
          roles[i] = outputs ? rt::ValueRole::kvPresent : rt::ValueRole::kvPast;
      }
      std::vector<flatbuffers::Offset<fb::Value>> out;
      for (size_t i = 0; i < vs.size(); ++i)
        out.push_back(fb::CreateValue(fbb, fbb.CreateString(vs[i].first), vs[i].second,
                                      static_cast<fb::ValueRole>(roles[i])));
      return fbb.CreateVector(out);
    };
    auto inputs = values(f.inputs, f.inputRoles, false);
    auto outputs = values(f.outputs, f.outputRoles, true);
    flatbuffers::Offset<fb::KvCacheLayout> layout;
    if (f.kvLayout)
      layout = fb::CreateKvCacheLayout(fbb, fb::KvLayoutKind::contiguous, f.kvLayout->batchAxis,
                                       f.kvLayout->headsAxis, f.kvLayout->sequenceAxis,
                                       f.kvLayout->headDimAxis);
    else if (!f.slots.empty() && !f.omitKvLayout) {
      const int seq = f.slots.front().axis;
      layout = fb::CreateKvCacheLayout(fbb, fb::KvLayoutKind::contiguous, 0, seq == 1 ? 2 : 1, seq,
                                       3);
    }
    std::vector<flatbuffers::Offset<fb::KvCacheSlot>> slots;
    for (const TSlot &s : f.slots)
      slots.push_back(fb::CreateKvCacheSlot(fbb, s.layer, s.isValue ? fb::KvKind::value : fb::KvKind::key,
                                            s.pastInput, s.presentOutput, s.appendOp, s.axis));
    auto name = fbb.CreateString(f.name);
    auto tv = fbb.CreateVector(tensors);
    auto ov = fbb.CreateVector(ops);
    auto sv = fbb.CreateVector(slots);
    std::vector<flatbuffers::Offset<fb::GraphSegment>> segments;
    for (const rt::SegmentInfo &s : f.segments)
      segments.push_back(
          fb::CreateGraphSegment(fbb, s.firstOp, s.lastOp, fbb.CreateString(s.endReason)));
    flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::GraphSegment>>> gv;
    if (!f.segments.empty())
      gv = fbb.CreateVector(segments);
    functions.push_back(fb::CreateFunction(fbb, name, tv, ov, inputs, outputs, sv, gv,
                                           static_cast<fb::FunctionRole>(f.role), layout));
  }
  std::vector<flatbuffers::Offset<fb::WeightRef>> weights;
  std::string blob;
  for (const TWeight &w : p.weights) {
    blob.resize(plan::alignUp(blob.size(), plan::kWeightAlignment), '\0');
    uint64_t offset = blob.size();
    blob.append(reinterpret_cast<const char *>(w.values.data()), w.values.size() * 4);
    weights.push_back(fb::CreateWeightRef(fbb, fbb.CreateString(w.name), offset + p.weightOffsetShift,
                                          w.values.size() * 4));
  }
  flatbuffers::Offset<fb::GenerationInfo> gen;
  if (p.generation) {
    auto v = p.vision.empty() ? 0 : fbb.CreateString(p.vision);
    auto e = fbb.CreateString(p.embed);
    auto d = fbb.CreateString(p.decoder);
    auto eos = fbb.CreateVector(p.eos);
    gen = fb::CreateGenerationInfo(fbb, v, e, d, p.imageTokenId, -1, eos);
  }
  auto fv = fbb.CreateVector(functions);
  auto wv = fbb.CreateVector(weights);
  auto producer = fbb.CreateString("test");
  auto target = fbb.CreateString(p.target);
  uint32_t bufferVersion = p.bufferVersion ? p.bufferVersion : plan::kPlanFormatVersion;
  auto root = fb::CreatePlan(fbb, bufferVersion, producer, target, fb::DType::f32, fv, wv,
                             plan::kWeightAlignment, blob.size(), gen);
  fb::FinishPlanBuffer(fbb, root);

  plan::FileHeader h{};
  std::memcpy(h.magic, plan::kPlanMagic, 8);
  h.version = p.headerVersion ? p.headerVersion : plan::kPlanFormatVersion;
  h.headerSize = sizeof(h);
  h.fbOffset = sizeof(h);
  h.fbSize = fbb.GetSize();
  h.blobOffset = plan::alignUp(h.fbOffset + h.fbSize, plan::kBlobAlignment);
  h.blobSize = blob.size();
  std::string out(reinterpret_cast<const char *>(&h), sizeof(h));
  out.append(reinterpret_cast<const char *>(fbb.GetBufferPointer()), fbb.GetSize());
  out.resize(h.blobOffset, '\0');
  out += blob;
  return out;
}

std::shared_ptr<const rt::Plan> loadPlanBytes(const std::string &bytes) {
  auto copy = std::make_shared<std::vector<uint8_t>>(bytes.begin(), bytes.end());
  const uint8_t *data = copy->empty() ? nullptr : copy->data();
  static const uint8_t kEmpty = 0;
  return rt::Plan::fromMemory(data ? data : &kEmpty, copy->size(), copy, "test.plan");
}

TPlan addPlan() {
  TPlan p;
  p.weights.push_back({"w", {1, 2, 3, 4}});
  TFunction f;
  f.name = "f";
  using rt::TensorKind;
  f.tensors = {
      {rt::DType::f32, {-1}, {"n"}, TensorKind::input, "x"},
      {rt::DType::f32, {4}, {}, TensorKind::weight, "w", 0},
      {rt::DType::f32, {4}, {}, TensorKind::constant, "c", 0, {10, 20, 30, 40}},
      {rt::DType::f32, {-1}, {}, TensorKind::activation, "t", 0, {}, 0, 1},
      {rt::DType::f32, {-1}, {"n"}, TensorKind::activation, "y", 0, {}, 1, 2},
  };
  f.ops = {{"mm.add", {0, 1}, {3}, {}}, {"mm.add", {3, 2}, {4}, {}}};
  f.inputs = {{"x", 0}};
  f.outputs = {{"y", 4}};
  p.functions.push_back(f);
  return p;
}

} // namespace mm::test

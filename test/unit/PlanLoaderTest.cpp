//===- PlanLoaderTest.cpp - plan loading, verification and fuzzing ----------===//
#include "PlanTestUtil.h"

#include "runtime/cuda/OpCapabilities.h"

#include "runtime/core/Error.h"
#include "runtime/plan/PlanFormat.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <random>

using namespace mm;
using namespace mm::test;

namespace {

/// The message of the Error that loading `bytes` throws ("" if it loads).
std::string loadError(const std::string &bytes) {
  try {
    loadPlanBytes(bytes);
  } catch (const rt::Error &e) {
    return e.what();
  }
  return "";
}

std::string tempPath(const std::string &name) {
  return ::testing::TempDir() + "/" + name;
}

TEST(PlanLoader, LoadsAValidPlan) {
  auto plan = loadPlanBytes(buildPlanBytes(addPlan()));
  ASSERT_EQ(plan->functions().size(), 1u);
  const rt::FunctionInfo &f = plan->function("f");
  EXPECT_EQ(f.ops.size(), 2u);
  EXPECT_EQ(f.ops[0].name, "mm.add");
  EXPECT_EQ(f.inputs[0].name, "x");
  EXPECT_EQ(f.tensors[0].dimNames[0], "n");
  // The weight is a view of the blob; the constant an owned copy.
  const rt::Tensor &w = f.tensors[1].value;
  ASSERT_NE(w.data, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(w.data) % plan::kWeightAlignment % 16, 0u);
  EXPECT_EQ(w.as<float>()[3], 4.0f);
  EXPECT_EQ(f.tensors[2].value.as<float>()[1], 20.0f);
  EXPECT_EQ(f.tensors[3].firstOp, 0);
  EXPECT_EQ(f.tensors[3].lastOp, 1);
  EXPECT_EQ(plan->weightBytes(), 16u);
}

TEST(PlanLoader, LoadsZeroDTensorsWhateverTheirEmptyShapesAlignment) {
  // Several 0-D tensors: their empty shape vectors land at assorted offsets, which the
  // [long] alignment check must not reject (an empty vector has no element to read).
  for (int scalars = 1; scalars <= 4; ++scalars) {
    mm::test::TPlan p = addPlan();
    mm::test::TFunction &f = p.functions[0];
    for (int i = 0; i < scalars; ++i)
      f.tensors.push_back({rt::DType::f32, {}, {}, rt::TensorKind::constant,
                           "s" + std::to_string(i), 0, {float(i)}});
    EXPECT_EQ(loadError(buildPlanBytes(p)), "") << scalars << " scalars";
  }
}

TEST(PlanLoader, LoadsFromAFileByMemoryMapping) {
  std::string path = tempPath("valid.plan");
  std::ofstream(path, std::ios::binary) << buildPlanBytes(addPlan());
  auto plan = rt::Plan::load(path);
  EXPECT_EQ(plan->function("f").tensors[1].value.as<float>()[0], 1.0f);
  std::remove(path.c_str());
}

TEST(PlanLoader, MissingFile) {
  try {
    rt::Plan::load(tempPath("does-not-exist.plan"));
    FAIL() << "expected an error";
  } catch (const rt::Error &e) {
    EXPECT_NE(std::string(e.what()).find("cannot open plan"), std::string::npos) << e.what();
  }
}

TEST(PlanLoader, ForeignFile) {
  EXPECT_NE(loadError("{\"not\": \"a plan\"}").find("not an mmc plan"), std::string::npos);
  EXPECT_NE(loadError("").find("not an mmc plan"), std::string::npos);
  std::string onnxLike = "\x08\x07\x12\x04test";
  EXPECT_NE(loadError(onnxLike).find("not an mmc plan"), std::string::npos);
}

TEST(PlanLoader, WrongVersion) {
  TPlan p = addPlan();
  p.headerVersion = plan::kPlanFormatVersion + 1;
  std::string err = loadError(buildPlanBytes(p));
  EXPECT_NE(err.find("plan format version " + std::to_string(plan::kPlanFormatVersion + 1)),
            std::string::npos) << err;
  EXPECT_NE(err.find("reads version " + std::to_string(plan::kPlanFormatVersion)), std::string::npos);

  p = addPlan();
  p.bufferVersion = plan::kPlanFormatVersion + 7;
  err = loadError(buildPlanBytes(p));
  EXPECT_NE(err.find("FlatBuffer version"), std::string::npos) << err;
}

TEST(PlanLoader, TruncatedAtEveryRegion) {
  std::string bytes = buildPlanBytes(addPlan());
  // Header, FlatBuffer and weights blob: every cut must fail cleanly.
  for (size_t len : {size_t(4), size_t(40), size_t(64), size_t(100), bytes.size() / 2,
                     bytes.size() - 1}) {
    std::string err = loadError(bytes.substr(0, len));
    EXPECT_NE(err, "") << "a plan cut at " << len << " bytes loaded";
    if (len >= 8) {
      EXPECT_NE(err.find("truncated"), std::string::npos) << len << ": " << err;
    }
  }
}

TEST(PlanLoader, WeightPastTheEndOfTheBlob) {
  TPlan p = addPlan();
  p.weightOffsetShift = 64;
  std::string err = loadError(buildPlanBytes(p));
  EXPECT_NE(err.find("past the end of the weights blob"), std::string::npos) << err;
}

TEST(PlanLoader, TensorIdOutOfRange) {
  TPlan p = addPlan();
  p.functions[0].ops[1].inputs[1] = 99;
  std::string err = loadError(buildPlanBytes(p));
  EXPECT_NE(err.find("tensor id 99 out of range"), std::string::npos) << err;

  p = addPlan();
  p.functions[0].outputs[0].second = 5;
  err = loadError(buildPlanBytes(p));
  EXPECT_NE(err.find("out of range"), std::string::npos) << err;
}

TEST(PlanLoader, UnknownTarget) {
  TPlan p = addPlan();
  p.target = "tpu";
  const std::string err = loadError(buildPlanBytes(p));
  EXPECT_NE(err.find("Plan.target 'tpu' is not a target this runtime knows (cpu or cuda)"),
            std::string::npos)
      << err;
  p.target = "cuda";
  EXPECT_EQ(loadError(buildPlanBytes(p)), "");
}

TEST(PlanLoader, UnknownDTypeAndKind) {
  TPlan p = addPlan();
  p.functions[0].tensors[3].dtype = static_cast<rt::DType>(42);
  EXPECT_NE(loadError(buildPlanBytes(p)).find("unknown dtype code 42"), std::string::npos);
  p = addPlan();
  p.functions[0].tensors[3].kind = static_cast<rt::TensorKind>(9);
  EXPECT_NE(loadError(buildPlanBytes(p)).find("unknown tensor kind 9"), std::string::npos);
}

TEST(PlanLoader, UseBeforeDefinitionAndBadLiveness) {
  TPlan p = addPlan();
  std::swap(p.functions[0].ops[0], p.functions[0].ops[1]);
  EXPECT_NE(loadError(buildPlanBytes(p)).find("before any op produces it"), std::string::npos);

  p = addPlan();
  p.functions[0].tensors[3].lastOp = 0; // read by op 1
  EXPECT_NE(loadError(buildPlanBytes(p)).find("last_op 0 but op 1 reads it"), std::string::npos);

  p = addPlan();
  p.functions[0].tensors[4].lastOp = 1; // an output must live to the end (2)
  EXPECT_NE(loadError(buildPlanBytes(p)).find("live to the end"), std::string::npos);
}

/// addPlan() as the CUDA planner would write it: op 0 on the host, op 1 on the device in
/// segment 0.
TPlan plannedAddPlan() {
  TPlan p = addPlan();
  p.functions[0].ops[0].placement = rt::Placement::host;
  p.functions[0].ops[1].placement = rt::Placement::device;
  p.functions[0].ops[1].segment = 0;
  p.functions[0].segments = {{1, 1, "end of function"}};
  return p;
}

TEST(PlanLoader, DecodesPlacementAndSegments) {
  auto unplanned = loadPlanBytes(buildPlanBytes(addPlan()));
  EXPECT_EQ(unplanned->function("f").ops[1].placement, rt::Placement::unplanned);
  EXPECT_EQ(unplanned->function("f").ops[1].segment, -1);
  EXPECT_TRUE(unplanned->function("f").segments.empty());

  auto plan = loadPlanBytes(buildPlanBytes(plannedAddPlan()));
  const rt::FunctionInfo &f = plan->function("f");
  EXPECT_EQ(f.ops[0].placement, rt::Placement::host);
  EXPECT_EQ(f.ops[0].segment, -1);
  EXPECT_EQ(f.ops[1].placement, rt::Placement::device);
  EXPECT_EQ(f.ops[1].segment, 0);
  ASSERT_EQ(f.segments.size(), 1u);
  EXPECT_EQ(f.segments[0].firstOp, 1u);
  EXPECT_EQ(f.segments[0].lastOp, 1u);
  EXPECT_EQ(f.segments[0].endReason, "end of function");
}

TEST(PlanLoader, RejectsBadSegments) {
  TPlan p = plannedAddPlan();
  p.functions[0].ops[1].segment = 1;
  EXPECT_NE(loadError(buildPlanBytes(p)).find("function 'f' op 1 (mm.add): segment 1 out of range (1 segments)"),
            std::string::npos);
  p = plannedAddPlan();
  p.functions[0].segments[0] = {1, 2, "end of function"};
  EXPECT_NE(loadError(buildPlanBytes(p)).find("function 'f' segments[0]: ops [1, 2] are not a range of its 2 ops"),
            std::string::npos);
  p = plannedAddPlan();
  p.functions[0].segments[0] = {0, 0, "end of function"};
  EXPECT_NE(loadError(buildPlanBytes(p)).find("segment 0 covers ops [0, 0] only"), std::string::npos);
  p = plannedAddPlan();
  p.functions[0].segments.push_back({1, 1, "end of function"});
  EXPECT_NE(loadError(buildPlanBytes(p)).find("is not after the previous segment's last_op"),
            std::string::npos);
  p = plannedAddPlan();
  p.functions[0].ops[0].segment = 0;
  EXPECT_NE(loadError(buildPlanBytes(p)).find("segment 0 for an op not placed on the device"),
            std::string::npos);
  p = plannedAddPlan();
  p.functions[0].ops[0].placement = rt::Placement::unplanned;
  EXPECT_NE(loadError(buildPlanBytes(p)).find("placement unplanned in a planned function"),
            std::string::npos);
  p = plannedAddPlan();
  p.functions[0].ops[0].placement = static_cast<rt::Placement>(7);
  EXPECT_NE(loadError(buildPlanBytes(p)).find("unknown placement 7"), std::string::npos);
}

// Op.fusion bits (-mm-plan-cuda-fusion) must sit on device ops of the shape they need.
TEST(PlanLoader, RejectsFusionBitsOnOpsOfTheWrongShape) {
  TPlan p = plannedAddPlan(); // op 0 host, op 1 (mm.add) on the device, the last op
  p.functions[0].ops[1].fusion = 64;
  EXPECT_NE(loadError(buildPlanBytes(p)).find("op 1 (mm.add): fusion bits 64 hold an unknown bit"),
            std::string::npos);
  p = plannedAddPlan();
  p.functions[0].ops[0].fusion = static_cast<uint8_t>(rt::cuda::CudaFusion::feedsNextLinear);
  EXPECT_NE(loadError(buildPlanBytes(p)).find("op 0 (mm.add): fusion bits 1 on an op not placed on the device"),
            std::string::npos);
  p = plannedAddPlan();
  p.functions[0].ops[1].fusion = static_cast<uint8_t>(rt::cuda::CudaFusion::feedsNextLinear);
  EXPECT_NE(loadError(buildPlanBytes(p)).find("say feeds_next_linear, but the next op is no device mm.linear"),
            std::string::npos);
  p = plannedAddPlan();
  p.functions[0].ops[1].fusion = static_cast<uint8_t>(rt::cuda::CudaFusion::rotaryIntoAttention);
  EXPECT_NE(loadError(buildPlanBytes(p)).find("say rotary_into_attention, but the op is no rotary pair"),
            std::string::npos);
  p = plannedAddPlan();
  p.functions[0].ops[1].fusion = static_cast<uint8_t>(rt::cuda::CudaFusion::appendIntoAttention);
  EXPECT_NE(loadError(buildPlanBytes(p)).find("say append_into_attention, but the op is no KV-cache append"),
            std::string::npos);
}

// A corrupted op name is refused as such, not printed as raw bytes.
TEST(PlanLoader, RefusesAnOpNameThatIsNoMlirName) {
  TPlan p = addPlan();
  p.functions[0].ops[0].name = std::string("mm.a\0dd", 7);
  EXPECT_NE(loadError(buildPlanBytes(p)).find("op 0: op name is not an MLIR op name (7 bytes)"),
            std::string::npos);
  p.functions[0].ops[0].name = "mm.\xe4dd";
  EXPECT_NE(loadError(buildPlanBytes(p)).find("op name is not an MLIR op name"), std::string::npos);
}

// A fused launch leaves the fused op's own result unwritten: the loader refuses a bit
// whose result another op reads or a function returns.
TEST(PlanLoader, RefusesAFusionWhoseUnwrittenResultIsRead) {
  TPlan p = plannedAddPlan(); // t = x + w (op 0), y = t + c (op 1)
  TFunction &f = p.functions[0];
  f.ops[0].placement = rt::Placement::device;
  f.ops[0].segment = 0;
  f.segments = {{0, 1, "end of function"}};
  f.ops[1].name = "mm.linear"; // reads t as its input
  f.ops[0].fusion = static_cast<uint8_t>(rt::cuda::CudaFusion::feedsNextLinear);
  EXPECT_EQ(loadError(buildPlanBytes(p)), "");
  const std::string refused = "say feeds_next_linear, but the next op is no device mm.linear "
                              "reading its result, or another op reads it, or a function returns it";
  TPlan twice = p; // the linear reads t twice: a second read of the unwritten result
  twice.functions[0].ops[1].inputs = {3, 3};
  EXPECT_NE(loadError(buildPlanBytes(twice)).find(refused), std::string::npos);
  f.tensors[3].lastOp = 2; // t returned too
  f.outputs.push_back({"t", 3});
  EXPECT_NE(loadError(buildPlanBytes(p)).find(refused), std::string::npos);
}

/// One decode layer as -mm-plan-cuda-fusion marks it: q, k = rotary(qx, cos, sin),
/// rotary(kx, cos, sin) (a pair, into the attention); K, V = concat(past, k), concat(past,
/// v) (both appends into it); out = attention(q, K, V).
TPlan fusedLayerPlan() {
  using rt::TensorKind;
  auto act = [](const char *name, int first, int last) {
    return TTensor{rt::DType::f32, {1, 2, -1, 4}, {}, TensorKind::activation, name, 0, {}, first, last};
  };
  TFunction f{"decoder"};
  f.tensors = {{rt::DType::f32, {1, 2, -1, 4}, {}, TensorKind::input, "qx"},
               {rt::DType::f32, {1, 2, -1, 4}, {}, TensorKind::input, "kx"},
               {rt::DType::f32, {1, 2, -1, 4}, {}, TensorKind::input, "v"},
               {rt::DType::f32, {1, -1, 4}, {}, TensorKind::input, "cos"},
               {rt::DType::f32, {1, -1, 4}, {}, TensorKind::input, "sin"},
               {rt::DType::f32, {1, 2, -1, 4}, {}, TensorKind::input, "past_k"},
               {rt::DType::f32, {1, 2, -1, 4}, {}, TensorKind::input, "past_v"},
               act("q", 0, 4), act("k", 1, 2), act("K", 2, 5), act("V", 3, 5), act("out", 4, 5)};
  const rt::Placement dev = rt::Placement::device;
  f.ops = {TOp{"mm.rotary", {0, 3, 4}, {7}, {}, dev, 0}, TOp{"mm.rotary", {1, 3, 4}, {8}, {}, dev, 0},
           TOp{"mm.concat", {5, 8}, {9}, {{"axis", 2}}, dev, 0},
           TOp{"mm.concat", {6, 2}, {10}, {{"axis", 2}}, dev, 0},
           TOp{"mm.attention", {7, 9, 10}, {11}, {}, dev, 0}};
  f.segments = {{0, 4, "end of function"}};
  f.inputs = {{"qx", 0}, {"kx", 1}, {"v", 2}, {"cos", 3}, {"sin", 4}, {"past_k", 5}, {"past_v", 6}};
  f.outputs = {{"out", 11}, {"present_k", 9}, {"present_v", 10}};
  f.slots = {{0, false, 5, 1, 2, 2}, {0, true, 6, 2, 3, 2}};
  using rt::cuda::CudaFusion;
  f.ops[0].fusion = static_cast<uint8_t>(CudaFusion::rotaryPairWithNext) |
                    static_cast<uint8_t>(CudaFusion::rotaryIntoAttention);
  f.ops[2].fusion = f.ops[3].fusion = static_cast<uint8_t>(CudaFusion::appendIntoAttention);
  TPlan p;
  p.target = "cuda";
  p.functions = {f};
  return p;
}

TEST(PlanLoader, ChecksTheDecodeStepFusionsOfALayer) {
  EXPECT_EQ(loadError(buildPlanBytes(fusedLayerPlan())), "");
  const std::string noPair = "say rotary_pair_with_next, but";
  const std::string noInto = "say rotary_into_attention, but";
  const std::string noAppend = "say append_into_attention, but";
  // The key read by another op than its append (the deferred rotary leaves it unwritten).
  TPlan p = fusedLayerPlan();
  p.functions[0].ops[4].inputs = {7, 9, 10, 8};
  p.functions[0].tensors[8].lastOp = 4;
  EXPECT_NE(loadError(buildPlanBytes(p)).find(noInto), std::string::npos);
  // The query read by the attention twice.
  p = fusedLayerPlan();
  p.functions[0].ops[4].inputs = {7, 9, 10, 7};
  EXPECT_NE(loadError(buildPlanBytes(p)).find(noInto), std::string::npos);
  // The pair's cos not shared.
  p = fusedLayerPlan();
  p.functions[0].ops[1].inputs = {1, 4, 4};
  EXPECT_NE(loadError(buildPlanBytes(p)).find(noPair), std::string::npos);
  // The value append's bit without the key's: the key append is not marked.
  p = fusedLayerPlan();
  p.functions[0].ops[2].fusion = 0;
  EXPECT_NE(loadError(buildPlanBytes(p)).find(noInto), std::string::npos);
  // The attention reading the value append as its key (the pair left unfused into it).
  p = fusedLayerPlan();
  p.functions[0].ops[0].fusion = static_cast<uint8_t>(rt::cuda::CudaFusion::rotaryPairWithNext);
  p.functions[0].ops[4].inputs = {7, 10, 9};
  EXPECT_NE(loadError(buildPlanBytes(p)).find(noAppend), std::string::npos);
  // Two slots of one layer and kind.
  p = fusedLayerPlan();
  p.functions[0].slots[1].isValue = false;
  EXPECT_NE(loadError(buildPlanBytes(p)).find("shares its layer and kind, input, output or op with another slot"),
            std::string::npos);
}

/// step(x [1,2,seq,3], past [1,2,past,3]) -> present = concat(past, x, axis 2): one
/// KV-cache slot, with roles written by the test util.
TPlan slotPlan() {
  TPlan p;
  TFunction f{"step"};
  f.tensors = {{rt::DType::f32, {1, 2, -1, 3}, {}, rt::TensorKind::input, "x"},
               {rt::DType::f32, {1, 2, -1, 3}, {}, rt::TensorKind::input, "past"},
               {rt::DType::f32, {1, 2, -1, 3}, {}, rt::TensorKind::activation, "present", 0, {}, 0, 1}};
  f.ops = {{"mm.concat", {1, 0}, {2}, {{"axis", 2}}}};
  f.inputs = {{"x", 0}, {"past", 1}};
  f.outputs = {{"present", 2}};
  f.slots = {{0, false, 1, 0, 0, 2}};
  p.functions = {f};
  return p;
}

TEST(PlanLoader, DecodesRolesAndTheKvCacheLayout) {
  TPlan p = slotPlan();
  p.functions[0].role = rt::FunctionRole::decoder;
  p.functions[0].inputRoles = {rt::ValueRole::inputsEmbeds};
  auto plan = loadPlanBytes(buildPlanBytes(p));
  const rt::FunctionInfo &f = plan->function("step");
  EXPECT_EQ(f.role, rt::FunctionRole::decoder);
  EXPECT_EQ(f.inputs[0].role, rt::ValueRole::inputsEmbeds);
  EXPECT_EQ(f.inputs[1].role, rt::ValueRole::kvPast);
  EXPECT_EQ(f.outputs[0].role, rt::ValueRole::kvPresent);
  EXPECT_EQ(f.inputWithRole(rt::ValueRole::kvPast), 1);
  EXPECT_EQ(f.outputWithRole(rt::ValueRole::logits), -1);
  EXPECT_EQ(f.kvLayout.sequenceAxis, 2);
  EXPECT_EQ(f.kvLayout.headsAxis, 1);
  EXPECT_STREQ(rt::roleName(f.inputs[1].role), "kv_past");
  EXPECT_STREQ(rt::roleName(f.role), "decoder");
}

TEST(PlanLoader, RejectsABrokenModelContract) {
  TPlan p = slotPlan();
  p.functions[0].inputRoles = {rt::ValueRole::none, rt::ValueRole::positionIds};
  EXPECT_NE(loadError(buildPlanBytes(p)).find("input 'past' and output 'present' do not have roles kv_past and kv_present"),
            std::string::npos);
  p = slotPlan();
  p.functions[0].outputRoles = {static_cast<rt::ValueRole>(42)};
  EXPECT_NE(loadError(buildPlanBytes(p)).find("output 0 'present': unknown role 42"), std::string::npos);
  p = slotPlan();
  p.functions[0].role = static_cast<rt::FunctionRole>(9);
  EXPECT_NE(loadError(buildPlanBytes(p)).find("function 'step': unknown role 9"), std::string::npos);
  p = slotPlan();
  p.functions[0].omitKvLayout = true;
  EXPECT_NE(loadError(buildPlanBytes(p)).find("KV-cache slots without a kv_layout"), std::string::npos);
  p = slotPlan();
  p.functions[0].kvLayout = rt::KvCacheLayout{0, 1, 2, 2};
  EXPECT_NE(loadError(buildPlanBytes(p)).find("axes batch 0, heads 1, sequence 2, head dim 2 are not a permutation of 0..3"),
            std::string::npos);
  p = slotPlan();
  p.functions[0].kvLayout = rt::KvCacheLayout{0, 2, 1, 3};
  EXPECT_NE(loadError(buildPlanBytes(p)).find("input 'past' is [1, 2, -1, 3] appended along axis 2; the layout has rank 4 and the sequence on axis 1"),
            std::string::npos);
  p = addPlan();
  p.functions[0].kvLayout = rt::KvCacheLayout{};
  EXPECT_NE(loadError(buildPlanBytes(p)).find("function 'f': kv_layout without KV-cache slots"), std::string::npos);
  // GenerationInfo's functions must have the roles it names them for.
  p = slotPlan();
  p.generation = true;
  p.embed = "step";
  p.decoder = "step";
  EXPECT_NE(loadError(buildPlanBytes(p)).find("GenerationInfo names 'step' as the embedding but its role is none"),
            std::string::npos);
}

TEST(PlanLoader, WeightSizeMustMatchItsType) {
  TPlan p = addPlan();
  p.functions[0].tensors[1].shape = {5};
  EXPECT_NE(loadError(buildPlanBytes(p)).find("has 16 bytes but f32 [5] needs 20"), std::string::npos);
}

TEST(PlanLoader, ConstantSizeMustMatchItsType) {
  TPlan p = addPlan();
  p.functions[0].tensors[2].constant.pop_back();
  std::string err = loadError(buildPlanBytes(p));
  EXPECT_NE(err.find("holds 12 bytes"), std::string::npos) << err;
}

TEST(PlanLoader, UnknownFunctionListsTheAvailableOnes) {
  auto plan = loadPlanBytes(buildPlanBytes(addPlan()));
  try {
    plan->function("decoder");
    FAIL();
  } catch (const rt::Error &e) {
    EXPECT_NE(std::string(e.what()).find("(it has: f)"), std::string::npos) << e.what();
  }
}

/// Random truncations and bit flips of a valid plan (with a KV slot and a weight) must
/// load or fail with Error, never crash. Bounded: a fixed number of iterations and seed.
TEST(PlanLoader, FuzzTruncatedAndBitFlippedPlans) {
  TPlan p = plannedAddPlan(); // with placements and a CUDA-graph segment
  p.functions[0].tensors[0].dims = {"n"};
  std::string valid = buildPlanBytes(p);
  std::mt19937_64 rng(20240917);
  const size_t fbEnd = 64 + reinterpret_cast<const plan::FileHeader *>(valid.data())->fbSize;
  int loaded = 0, rejected = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string bytes = valid;
    if (iter % 5 == 0) {
      bytes.resize(std::uniform_int_distribution<size_t>(0, valid.size())(rng));
    } else {
      int flips = std::uniform_int_distribution<int>(1, 8)(rng);
      for (int f = 0; f < flips; ++f) {
        // Mostly inside the header and the FlatBuffer, where the structure is.
        size_t limit = (iter % 7 == 0) ? bytes.size() : fbEnd;
        size_t at = std::uniform_int_distribution<size_t>(0, limit - 1)(rng);
        bytes[at] = static_cast<char>(bytes[at] ^ (1u << std::uniform_int_distribution<int>(0, 7)(rng)));
      }
    }
    try {
      auto plan = loadPlanBytes(bytes);
      // A plan that loads must be internally consistent enough to walk.
      for (const rt::FunctionInfo &f : plan->functions())
        for (const rt::OpInfo &op : f.ops)
          for (uint32_t id : op.inputs)
            ASSERT_LT(id, f.tensors.size());
      for (const rt::FunctionInfo &f : plan->functions())
        for (size_t i = 0; i < f.ops.size(); ++i)
          if (f.ops[i].placement == rt::Placement::device) {
            ASSERT_LT(static_cast<size_t>(f.ops[i].segment), f.segments.size());
            ASSERT_LE(f.segments[f.ops[i].segment].firstOp, i);
            ASSERT_GE(f.segments[f.ops[i].segment].lastOp, i);
          }
      ++loaded;
    } catch (const rt::Error &) {
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 10000);
  EXPECT_GT(loaded, 0); // flips in padding, names or values still load
}

} // namespace

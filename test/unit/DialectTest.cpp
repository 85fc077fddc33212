//===- DialectTest.cpp - the mm dialect through the C++ API ---------------===//
#include "mm/MMDialect.h"
#include "mm/MMOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

class DialectTest : public ::testing::Test {
protected:
  DialectTest() { ctx.loadDialect<mm::MMDialect, func::FuncDialect>(); }

  RankedTensorType f32(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, Float32Type::get(&ctx));
  }

  /// Verifies `op`, capturing the first diagnostic instead of printing it.
  LogicalResult verifyQuietly(Operation *op) {
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
      if (lastError.empty())
        lastError = d.str();
      return success();
    });
    return verify(op);
  }

  MLIRContext ctx;
  std::string lastError;
};

TEST_F(DialectTest, BuildsWeightAndMatMulAndVerifies) {
  OpBuilder b(&ctx);
  auto loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto x = b.create<mm::WeightOp>(loc, f32({2, 8}), "x", "model.onnx", 0, 64);
  auto w = b.create<mm::WeightOp>(loc, f32({8, 4}), "w", "model.onnx", 64, 128);
  b.create<mm::MatMulOp>(loc, f32({2, 4}), x, w);
  EXPECT_TRUE(succeeded(verifyQuietly(*module))) << lastError;
}

TEST_F(DialectTest, RejectsMatMulWithMismatchedContraction) {
  OpBuilder b(&ctx);
  auto loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto x = b.create<mm::WeightOp>(loc, f32({2, 8}), "x", "m", 0, 64);
  auto w = b.create<mm::WeightOp>(loc, f32({7, 4}), "w", "m", 64, 112);
  b.create<mm::MatMulOp>(loc, f32({2, 4}), x, w);
  EXPECT_TRUE(failed(verifyQuietly(*module)));
  EXPECT_NE(lastError.find("contraction dims differ: 8 vs 7"), std::string::npos) << lastError;
}

TEST_F(DialectTest, RejectsWeightWhoseLengthDoesNotMatchItsType) {
  OpBuilder b(&ctx);
  auto loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  b.create<mm::WeightOp>(loc, f32({4, 4}), "w", "m", 0, 60);
  EXPECT_TRUE(failed(verifyQuietly(*module)));
  EXPECT_NE(lastError.find("length 60 bytes does not match"), std::string::npos) << lastError;
}

TEST_F(DialectTest, PrintedIRParsesBackToTheSameText) {
  const char *src = R"mlir(
    func.func @f(%x: tensor<?x16x64xf32>, %g: tensor<64xf32>) -> tensor<?x16x64xf32> {
      %0 = mm.rms_norm %x, %g {epsilon = 1.0e-05 : f32} : tensor<?x16x64xf32>, tensor<64xf32> -> tensor<?x16x64xf32>
      %1 = mm.gelu %0 {approximate = #mm.gelu_approx<tanh>} : tensor<?x16x64xf32>
      return %1 : tensor<?x16x64xf32>
    })mlir";
  OwningOpRef<ModuleOp> first = parseSourceString<ModuleOp>(src, &ctx);
  ASSERT_TRUE(first);
  std::string printed;
  llvm::raw_string_ostream(printed) << *first;
  OwningOpRef<ModuleOp> second = parseSourceString<ModuleOp>(printed, &ctx);
  ASSERT_TRUE(second);
  std::string reprinted;
  llvm::raw_string_ostream(reprinted) << *second;
  EXPECT_EQ(printed, reprinted);
  EXPECT_NE(printed.find("#mm.gelu_approx<tanh>"), std::string::npos) << printed;
}

} // namespace

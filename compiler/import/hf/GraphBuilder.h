//===- GraphBuilder.h - building `mm` functions from a checkpoint -------------===//
//
// What the Hugging Face architecture builders (Architectures.h, VisionTower.cpp, TextDecoder.cpp) share: the checkpoint's
// tensors as `mm.weight` ops (by name, under the prefixes each transformers version
// spells), small constants, and the fused-level ops with their result types worked out
// (dynamic dims are ShapedType::kDynamic). A tensor that is missing or of the wrong shape
// records one error (the first) and yields a zero splat of the expected type, so a
// builder runs to its end and its caller checks `failed()`.
//
//===----------------------------------------------------------------------===//
#ifndef MM_COMPILER_IMPORT_HF_GRAPHBUILDER_H
#define MM_COMPILER_IMPORT_HF_GRAPHBUILDER_H

#include "compiler/import/hf/Safetensors.h"
#include "mm/MMOps.h"
#include "mm/ModelContract.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mm::hf {

constexpr int64_t kDyn = mlir::ShapedType::kDynamic;

/// The spellings of one module's tensor names: a tensor `x` of the module is the first of
/// prefix + x, over the prefixes, that the checkpoint holds (transformers 4.52 moved
/// `language_model.model.` to `model.language_model.`, for example).
using Prefixes = std::vector<std::string>;

class GraphBuilder {
public:
  /// Builds at the end of `block`; `floatType` is the compute type of the graph (weights of
  /// another float type are cast to it).
  GraphBuilder(mlir::Block &block, mlir::Location loc, const TensorMap &tensors,
               mlir::Type floatType);

  mlir::OpBuilder &builder() { return b_; }
  /// Later ops get the location NameLoc(`module`, the file location given at construction):
  /// the transformers module they implement ("model.language_model.layers.3.mlp").
  void at(const std::string &module);
  mlir::Type floatType() const { return float_; }
  bool failed() const { return !error_.empty(); }
  const std::string &error() const { return error_; }
  void fail(const std::string &message);

  /// Fails unless the checkpoint's layers `<prefix><stem><i>.*` are exactly i < `count`
  /// (`field`: the config field that gives the count, for the message).
  void expectLayers(const Prefixes &prefixes, const std::string &stem, int64_t count,
                    const std::string &field);
  /// The tensor `name` as an `mm.weight` of `shape` in the compute type (one op per
  /// tensor and function).
  mlir::Value weight(const Prefixes &prefixes, const std::string &name,
                     llvm::ArrayRef<int64_t> shape);
  /// An nn.Linear weight [N, K] as the [K, N] operand of mm.linear (a transpose the plan
  /// writer folds).
  mlir::Value linearWeight(const Prefixes &prefixes, const std::string &name, int64_t n, int64_t k);
  /// x W^T (+ b) of the nn.Linear `name` ("<name>.weight", "<name>.bias"), N outputs.
  mlir::Value linear(mlir::Value x, const Prefixes &prefixes, const std::string &name, int64_t n,
                     bool bias, Activation act = Activation::none);

  // Constants.
  mlir::Value i64s(llvm::ArrayRef<int64_t> values);
  mlir::Value i64Scalar(int64_t value);
  mlir::Value floats(llvm::ArrayRef<float> values, llvm::ArrayRef<int64_t> shape, mlir::Type type);

  // Ops, result types inferred.
  mlir::Value dim(mlir::Value x, int64_t index);          ///< tensor<1xi64>
  mlir::Value scalarDim(mlir::Value x, int64_t index);    ///< tensor<i64>
  mlir::Value reshape(mlir::Value x, llvm::ArrayRef<int64_t> shape); ///< ONNX 0 / -1 rules
  mlir::Value transpose(mlir::Value x, llvm::ArrayRef<int64_t> perm);
  mlir::Value unsqueeze(mlir::Value x, llvm::ArrayRef<int64_t> axes);
  mlir::Value concat(mlir::ValueRange xs, int64_t axis);
  mlir::Value slice(mlir::Value x, int64_t axis, int64_t start, int64_t end);
  mlir::Value cast(mlir::Value x, mlir::Type elementType);
  mlir::Value add(mlir::Value a, mlir::Value b);
  mlir::Value layerNorm(mlir::Value x, mlir::Value scale, mlir::Value bias, double eps);
  /// x / sqrt(mean(x^2) + eps) * (scaleOffset + scale): scaleOffset 1 for Gemma's 1 + w.
  mlir::Value rmsNorm(mlir::Value x, mlir::Value scale, double eps, double scaleOffset = 0.0);
  mlir::Value mul(mlir::Value a, mlir::Value b);
  mlir::Value sub(mlir::Value a, mlir::Value b);
  mlir::Value div(mlir::Value a, mlir::Value b); ///< integers truncate toward zero
  mlir::Value attention(mlir::Value q, mlir::Value k, mlir::Value v, mlir::Value mask, double scale);
  /// [B, S, H * D] -> [B, H, S, D] and back.
  mlir::Value splitHeads(mlir::Value x, int64_t heads, int64_t headDim);
  mlir::Value mergeHeads(mlir::Value x);

  mlir::Type tensorType(llvm::ArrayRef<int64_t> shape, mlir::Type element) const;
  static llvm::SmallVector<int64_t> shapeOf(mlir::Value v);

  template <typename Op, typename... Args> Op create(Args &&...args) {
    return b_.create<Op>(loc_, std::forward<Args>(args)...);
  }

private:
  const SafetensorsTensor *find(const Prefixes &prefixes, const std::string &name,
                                std::string *resolved) const;
  mlir::Value zeros(llvm::ArrayRef<int64_t> shape);

  mlir::OpBuilder b_;
  mlir::Location fileLoc_, loc_;
  const TensorMap &tensors_;
  mlir::Type float_;
  std::map<std::string, mlir::Value> weights_;
  std::string error_;
};

/// One argument or result of a built function: the exporters' name (`mm.name`, so that
/// ONNX test data and mmrun --function address it as in an ONNX export of the model), the
/// dim names (`mm.dims`, "" for a fixed dim), its role and KV-cache position.
struct Port {
  std::string name;
  mlir::Type type;
  std::vector<std::string> dims;
  contract::ValueRole role = contract::ValueRole::none;
  std::optional<contract::KvPosition> kv;
};

/// A function `name` of `role` with arguments `args` at the end of `module`, its result
/// types set by finishFunction.
mlir::func::FuncOp createFunction(mlir::ModuleOp module, mlir::Location loc, llvm::StringRef name,
                                  contract::FunctionRole role, llvm::ArrayRef<Port> args);
/// Returns `values` from `fn` as the results `ports` describe (their types are the values').
void finishFunction(mlir::func::FuncOp fn, mlir::ValueRange values, llvm::ArrayRef<Port> ports);


} // namespace mm::hf

#endif // MM_COMPILER_IMPORT_HF_GRAPHBUILDER_H

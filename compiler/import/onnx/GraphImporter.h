//===- GraphImporter.h - one ONNX graph into one func.func -----------------===//
#ifndef MM_COMPILER_IMPORT_ONNX_GRAPHIMPORTER_H
#define MM_COMPILER_IMPORT_ONNX_GRAPHIMPORTER_H

#include "compiler/import/onnx/KnownValues.h"
#include "compiler/import/onnx/ModelLoader.h"
#include "compiler/import/onnx/TensorData.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/StringMap.h"

#include <map>
#include <string>
#include <vector>

namespace mm::onnx_import {

class GraphImporter;

/// What an op handler sees of one ONNX node: inputs (null where absent), attributes,
/// known values of small integer inputs, a builder located at the node, and where to put
/// its outputs. Errors go through error()/unsupported(), which name the node.
class NodeContext {
public:
  NodeContext(GraphImporter &g, const onnx::NodeProto &node, std::string name, int64_t opset,
              mlir::Location loc, llvm::SmallVector<mlir::Value> inputs);

  const onnx::NodeProto &node() const { return node_; }
  llvm::StringRef opType() const { return node_.op_type(); }
  llvm::StringRef name() const { return name_; }
  int64_t opset() const { return opset_; }
  mlir::Location loc() const { return loc_; }
  mlir::OpBuilder &builder();
  mlir::MLIRContext *ctx() const { return loc_.getContext(); }

  // ---- inputs --------------------------------------------------------------
  unsigned numInputs() const { return inputs_.size(); }
  /// True when input `i` exists and is not the empty name (an omitted optional input).
  bool has(unsigned i) const { return i < inputs_.size() && inputs_[i]; }
  mlir::Value in(unsigned i) const { return has(i) ? inputs_[i] : mlir::Value(); }
  mlir::RankedTensorType type(unsigned i) const;
  /// The value named `name` in the graph being imported, or null: for subgraphs (Loop
  /// bodies) that read values of the enclosing graph.
  mlir::Value outerValue(llvm::StringRef name) const;
  /// Errors unless inputs [0, n) are all present.
  mlir::LogicalResult requireInputs(unsigned n) const;
  /// Imports a subgraph attribute's nodes in place (GraphImporter::importSubgraph).
  mlir::LogicalResult importSubgraph(const onnx::GraphProto &subgraph,
                                     llvm::SmallVectorImpl<mlir::Value> &outputs);

  // ---- attributes ----------------------------------------------------------
  const onnx::AttributeProto *attr(llvm::StringRef name) const;
  int64_t attrInt(llvm::StringRef name, int64_t def) const;
  float attrFloat(llvm::StringRef name, float def) const;
  std::string attrString(llvm::StringRef name, llvm::StringRef def) const;
  std::optional<llvm::SmallVector<int64_t>> attrInts(llvm::StringRef name) const;

  // ---- known values --------------------------------------------------------
  std::optional<KnownInts> known(mlir::Value v) const;
  std::optional<llvm::SmallVector<int64_t>> constInts(mlir::Value v) const;
  /// The fully known integer values of input `i`; an "unsupported" error naming `what`
  /// when the input is computed at run time (e.g. Squeeze axes, Split sizes).
  mlir::FailureOr<llvm::SmallVector<int64_t>> requireConstInts(unsigned i,
                                                               llvm::StringRef what) const;
  /// The values of input `i` as doubles when it is an mm.constant of a float or integer
  /// type; the same "unsupported ... must be a constant" error as requireConstInts
  /// otherwise (e.g. Resize's scales and roi).
  mlir::FailureOr<llvm::SmallVector<double>> requireConstFloats(unsigned i,
                                                                llvm::StringRef what) const;
  /// The value of a 0-D or one-element constant float/int input, if it is an mm.constant.
  std::optional<double> constScalar(unsigned i) const;
  /// Axes given as input `i` from opset `sinceOpset` on (must be constant) or as the
  /// `axes` attribute before; std::nullopt when absent.
  mlir::FailureOr<std::optional<llvm::SmallVector<int64_t>>> axesOperand(unsigned i,
                                                                         int64_t sinceOpset) const;
  /// `axis` mapped into [0, rank); an error naming `what` when out of range.
  mlir::FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank, llvm::StringRef what) const;
  /// Each axis mapped into [0, rank); errors when out of range or repeated.
  mlir::FailureOr<llvm::SmallVector<int64_t>> normalizeAxes(llvm::ArrayRef<int64_t> axes,
                                                            int64_t rank) const;

  // ---- outputs -------------------------------------------------------------
  unsigned numOutputs() const { return outputs_.size(); }
  /// True when output `i` exists and has a non-empty name.
  bool outputUsed(unsigned i) const;
  /// Records output `i`; ignored when the node has fewer outputs (optional outputs such
  /// as Attention's present_key may be left out of the node).
  void setOutput(unsigned i, mlir::Value v) {
    if (i < outputs_.size())
      outputs_[i] = v;
  }
  mlir::Value output(unsigned i) const { return i < outputs_.size() ? outputs_[i] : mlir::Value(); }

  // ---- errors --------------------------------------------------------------
  /// An error at the node, its text prefixed with "node '<name>' (<op>, opset <n>): ".
  mlir::InFlightDiagnostic error() const;
  /// "unsupported: node ... <why>"; always failure().
  mlir::LogicalResult unsupported(const llvm::Twine &why) const;

  // ---- building ------------------------------------------------------------
  /// Creates an op at the node's location and records what it tells about known values.
  template <typename OpT, typename... Args>
  OpT create(Args &&...args) {
    OpT op = builder().create<OpT>(loc_, std::forward<Args>(args)...);
    recordKnown(op.getOperation());
    return op;
  }
  /// A 1-D i64 mm.constant.
  mlir::Value constI64(llvm::ArrayRef<int64_t> values);
  /// A 0-D mm.constant of `elementType` (float or integer) holding `value`.
  mlir::Value scalar(mlir::Type elementType, double value);

private:
  void recordKnown(mlir::Operation *op);

  GraphImporter &g_;
  const onnx::NodeProto &node_;
  std::string name_;
  int64_t opset_;
  mlir::Location loc_;
  llvm::SmallVector<mlir::Value> inputs_;
  llvm::SmallVector<mlir::Value> outputs_;
};

/// An op handler: creates the mm ops for one node and sets its outputs.
using OpHandler = mlir::LogicalResult (*)(NodeContext &);
using OpTable = llvm::StringMap<OpHandler>;

void addElementwiseOps(OpTable &table);
void addShapeOps(OpTable &table);
void addNNOps(OpTable &table);
void addEinsumOps(OpTable &table);
void addTransformerOps(OpTable &table);
void addQuantOps(OpTable &table);
void addSelectionOps(OpTable &table); // OpsSelection.cpp
void addLossOps(OpTable &table); // OpsLoss.cpp
void addComposedActivationOps(OpTable &table); // OpsActivationsComposed.cpp
void addComposedNormOps(OpTable &table); // OpsNormComposed.cpp
void addPoolOps(OpTable &table); // OpsPool.cpp
void addResizeOps(OpTable &table); // OpsResize.cpp
void addScatterOps(OpTable &table); // OpsScatter.cpp
/// onnxruntime's contrib ops (OpsContrib.cpp): the com.microsoft domain, and the ones
/// onnxruntime registers in the ai.onnx domain (SimplifiedLayerNormalization).
void addContribOps(OpTable &table);
void addContribAttentionOps(OpTable &table); // OpsContribAttention.cpp
void addOnnxruntimeDefaultDomainOps(OpTable &table);

/// Graph inputs replaced by constants: name -> row-major values (ImportOptions::bindings).
using InputBindings = std::map<std::string, std::vector<double>>;

/// Imports the main graph of `model` as func.func @`funcName` at the end of `module`.
class GraphImporter {
public:
  GraphImporter(const LoadedModel &model, llvm::StringRef funcName, mlir::ModuleOp module,
                InputBindings bindings = {});

  /// Builds the function; on failure the diagnostics are emitted and the partial function
  /// is erased.
  mlir::LogicalResult run();

  mlir::OpBuilder &builder() { return b_; }
  KnownValues &known() { return known_; }
  /// The value bound to `name` so far, or null.
  mlir::Value lookup(llvm::StringRef name) const { return values_.lookup(name); }
  llvm::StringRef file() const { return model_.path; }

  /// Imports the nodes of `subgraph` (an If branch: it reads this graph's values by name)
  /// in place, at the end of the function, and sets `outputs` to its outputs' values. Its
  /// initializers must hold their data inline (they become mm.constant).
  mlir::LogicalResult importSubgraph(const onnx::GraphProto &subgraph,
                                     llvm::SmallVectorImpl<mlir::Value> &outputs);

private:
  mlir::LogicalResult importGraph();
  mlir::LogicalResult readDeclaredTypes();
  mlir::LogicalResult createFunction();
  mlir::LogicalResult importInitializers();
  mlir::LogicalResult importNode(const onnx::NodeProto &node, size_t index);
  mlir::LogicalResult bind(const std::string &name, mlir::Value v, mlir::Location loc);
  /// The constant an input bound to `values` becomes (a diagnostic when they do not fit).
  mlir::FailureOr<mlir::Value> boundInput(const onnx::ValueInfoProto &input,
                                          const DeclaredType &decl, std::vector<double> values);
  mlir::LogicalResult finishFunction();
  mlir::Location fileLoc() const;
  mlir::Location nodeLoc(llvm::StringRef name) const;

  const LoadedModel &model_;
  std::string funcName_;
  mlir::ModuleOp module_;
  mlir::OpBuilder b_;
  mlir::func::FuncOp func_;
  KnownValues known_;
  int64_t defaultOpset_ = -1;
  llvm::StringMap<mlir::Value> values_;
  llvm::StringMap<DeclaredType> declared_;
  InputBindings bindings_;
  /// The names bound by each subgraph being imported (importSubgraph), innermost last,
  /// with the enclosing graph's value each shadows (null when none).
  std::vector<std::vector<std::pair<std::string, mlir::Value>>> scopes_;
};

} // namespace mm::onnx_import

#endif // MM_COMPILER_IMPORT_ONNX_GRAPHIMPORTER_H

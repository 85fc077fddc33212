//===- GraphImporter.cpp - one ONNX graph into one func.func ---------------===//
#include "compiler/import/onnx/GraphImporter.h"
#include "compiler/import/onnx/Weights.h"
#include "runtime/core/DimRules.h"
#include "mm/MMOps.h"

#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <cmath>
#include <sstream>

using namespace mlir;

namespace mm::onnx_import {

//===----------------------------------------------------------------------===//
// NodeContext
//===----------------------------------------------------------------------===//

NodeContext::NodeContext(GraphImporter &g, const onnx::NodeProto &node, std::string name,
                         int64_t opset, Location loc, SmallVector<Value> inputs)
    : g_(g), node_(node), name_(std::move(name)), opset_(opset), loc_(loc),
      inputs_(std::move(inputs)), outputs_(node.output_size()) {}

OpBuilder &NodeContext::builder() { return g_.builder(); }

RankedTensorType NodeContext::type(unsigned i) const {
  return has(i) ? cast<RankedTensorType>(inputs_[i].getType()) : RankedTensorType();
}

Value NodeContext::outerValue(StringRef name) const { return g_.lookup(name); }

LogicalResult NodeContext::importSubgraph(const onnx::GraphProto &subgraph,
                                          SmallVectorImpl<Value> &outputs) {
  return g_.importSubgraph(subgraph, outputs);
}

LogicalResult NodeContext::requireInputs(unsigned n) const {
  for (unsigned i = 0; i < n; ++i)
    if (!has(i))
      return error() << "needs input " << i << " but has " << node_.input_size() << " inputs"
                     << (i < inputs_.size() ? " (it is the empty name)" : "");
  return success();
}

const onnx::AttributeProto *NodeContext::attr(StringRef name) const {
  for (const auto &a : node_.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t NodeContext::attrInt(StringRef name, int64_t def) const {
  const auto *a = attr(name);
  return a ? a->i() : def;
}

float NodeContext::attrFloat(StringRef name, float def) const {
  const auto *a = attr(name);
  return a ? a->f() : def;
}

std::string NodeContext::attrString(StringRef name, StringRef def) const {
  const auto *a = attr(name);
  return a ? a->s() : def.str();
}

std::optional<SmallVector<int64_t>> NodeContext::attrInts(StringRef name) const {
  const auto *a = attr(name);
  if (!a)
    return std::nullopt;
  return SmallVector<int64_t>(a->ints().begin(), a->ints().end());
}

std::optional<KnownInts> NodeContext::known(Value v) const { return g_.known().get(v); }

std::optional<SmallVector<int64_t>> NodeContext::constInts(Value v) const {
  return g_.known().getInts(v);
}

FailureOr<SmallVector<int64_t>> NodeContext::requireConstInts(unsigned i, StringRef what) const {
  if (!has(i))
    return error() << "needs input " << i << " (" << what << ")";
  if (auto v = constInts(in(i)))
    return *v;
  return unsupported(Twine(what) + " (input " + Twine(i) +
                     ") must be a constant, but it is computed at run time");
}

FailureOr<SmallVector<double>> NodeContext::requireConstFloats(unsigned i,
                                                               StringRef what) const {
  if (!has(i))
    return error() << "needs input " << i << " (" << what << ")";
  auto c = in(i).getDefiningOp<mm::ConstantOp>();
  auto attr = c ? dyn_cast<DenseElementsAttr>(c.getValue()) : DenseElementsAttr();
  if (!attr)
    return unsupported(Twine(what) + " (input " + Twine(i) +
                       ") must be a constant, but it is computed at run time");
  SmallVector<double> out;
  if (isa<FloatType>(attr.getElementType())) {
    for (const APFloat &v : attr.getValues<APFloat>())
      out.push_back(v.convertToDouble());
  } else if (auto it = dyn_cast<IntegerType>(attr.getElementType())) {
    for (const APInt &v : attr.getValues<APInt>())
      out.push_back(it.isUnsigned() || it.getWidth() == 1 ? double(v.getZExtValue())
                                                          : double(v.getSExtValue()));
  } else {
    return error() << what << " (input " << i << ") must hold numbers, got " << type(i);
  }
  return out;
}

std::optional<double> NodeContext::constScalar(unsigned i) const {
  if (!has(i))
    return std::nullopt;
  auto c = in(i).getDefiningOp<mm::ConstantOp>();
  if (!c)
    return std::nullopt;
  auto attr = dyn_cast<DenseElementsAttr>(c.getValue());
  if (!attr || attr.getNumElements() != 1)
    return std::nullopt;
  if (isa<FloatType>(attr.getElementType()))
    return (*attr.getValues<APFloat>().begin()).convertToDouble();
  if (auto it = dyn_cast<IntegerType>(attr.getElementType())) {
    APInt v = *attr.getValues<APInt>().begin();
    return it.isUnsigned() || it.getWidth() == 1 ? double(v.getZExtValue())
                                                 : double(v.getSExtValue());
  }
  return std::nullopt;
}

FailureOr<std::optional<SmallVector<int64_t>>> NodeContext::axesOperand(unsigned i,
                                                                        int64_t sinceOpset) const {
  if (opset_ < sinceOpset)
    return attrInts("axes");
  if (!has(i))
    return std::optional<SmallVector<int64_t>>();
  auto axes = requireConstInts(i, "axes");
  if (failed(axes))
    return failure();
  return std::optional<SmallVector<int64_t>>(std::move(*axes));
}

FailureOr<int64_t> NodeContext::normalizeAxis(int64_t axis, int64_t rank, StringRef what) const {
  if (std::optional<int64_t> n = dims::normalizeAxis(axis, rank))
    return *n;
  return error() << what << " " << axis << " is out of range for rank " << rank;
}

FailureOr<SmallVector<int64_t>> NodeContext::normalizeAxes(ArrayRef<int64_t> axes,
                                                           int64_t rank) const {
  SmallVector<int64_t> out;
  for (int64_t a : axes) {
    auto n = normalizeAxis(a, rank, "axis");
    if (failed(n))
      return failure();
    if (llvm::is_contained(out, *n))
      return error() << "axis " << a << " is repeated";
    out.push_back(*n);
  }
  return out;
}

bool NodeContext::outputUsed(unsigned i) const {
  return i < static_cast<unsigned>(node_.output_size()) && !node_.output(i).empty();
}

InFlightDiagnostic NodeContext::error() const {
  InFlightDiagnostic d = emitError(loc_);
  d << "node '" << name_ << "' (" << opType() << ", opset " << opset_ << "): ";
  return d;
}

LogicalResult NodeContext::unsupported(const Twine &why) const {
  return error() << "unsupported: " << why;
}

Value NodeContext::constI64(ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    IntegerType::get(ctx(), 64));
  auto attr = DenseIntElementsAttr::get(type, values);
  return create<mm::ConstantOp>(type, attr);
}

Value NodeContext::scalar(Type elementType, double value) {
  auto type = RankedTensorType::get({}, elementType);
  DenseElementsAttr attr;
  if (auto ft = dyn_cast<FloatType>(elementType)) {
    APFloat v(value);
    bool lost;
    v.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    attr = DenseElementsAttr::get(type, v);
  } else {
    auto it = cast<IntegerType>(elementType);
    attr = DenseElementsAttr::get(
        type, APInt(it.getWidth(), static_cast<uint64_t>(static_cast<int64_t>(value)),
                    /*isSigned=*/!it.isUnsigned()));
  }
  return create<mm::ConstantOp>(type, attr);
}

void NodeContext::recordKnown(Operation *op) { g_.known().infer(op); }

//===----------------------------------------------------------------------===//
// GraphImporter
//===----------------------------------------------------------------------===//

namespace {

const OpTable &opTable() {
  static const OpTable table = [] {
    OpTable t;
    addElementwiseOps(t);
    addShapeOps(t);
    addNNOps(t);
    addEinsumOps(t);
    addTransformerOps(t);
    addQuantOps(t);
    addSelectionOps(t);
    addLossOps(t);
    addComposedActivationOps(t);
    addComposedNormOps(t);
    addPoolOps(t);
    addResizeOps(t);
    addScatterOps(t);
    addOnnxruntimeDefaultDomainOps(t);
    return t;
  }();
  return table;
}

/// The ops of onnxruntime's com.microsoft domain that mmc imports.
const OpTable &contribTable() {
  static const OpTable table = [] {
    OpTable t;
    addContribOps(t);
    addContribAttentionOps(t);
    return t;
  }();
  return table;
}

constexpr const char *kContribDomain = "com.microsoft";

bool isDefaultDomain(StringRef domain) { return domain.empty() || domain == "ai.onnx"; }

/// Every name a node of `g` or of its subgraphs (If branches, Loop bodies) reads, and g's
/// outputs.
void collectUsedNames(const onnx::GraphProto &g, llvm::StringSet<> &used) {
  for (const auto &node : g.node()) {
    for (const auto &in : node.input())
      used.insert(in);
    for (const auto &attr : node.attribute()) {
      if (attr.has_g())
        collectUsedNames(attr.g(), used);
      for (const auto &sub : attr.graphs())
        collectUsedNames(sub, used);
    }
  }
  for (const auto &out : g.output())
    used.insert(out.name());
}

/// Optimum's merged decoder input that selects the with-past branch: a bool scalar or
/// [1] named use_cache_branch.
bool isUseCacheBranch(StringRef name, RankedTensorType t) {
  return name == "use_cache_branch" && t.getElementType().isInteger(1) && t.getNumElements() == 1;
}

ArrayAttr dimsAttr(Builder &b, ArrayRef<std::string> names, int64_t rank) {
  SmallVector<Attribute> attrs;
  for (int64_t i = 0; i < rank; ++i)
    attrs.push_back(b.getStringAttr(i < static_cast<int64_t>(names.size()) ? names[i] : ""));
  return b.getArrayAttr(attrs);
}

} // namespace

GraphImporter::GraphImporter(const LoadedModel &model, StringRef funcName, ModuleOp module,
                             InputBindings bindings)
    : model_(model), funcName_(funcName.str()), module_(module), b_(module.getContext()),
      bindings_(std::move(bindings)) {}

Location GraphImporter::fileLoc() const {
  return FileLineColLoc::get(b_.getContext(), model_.path, 0, 0);
}

Location GraphImporter::nodeLoc(StringRef name) const {
  return NameLoc::get(StringAttr::get(b_.getContext(), name), fileLoc());
}

LogicalResult GraphImporter::run() {
  if (succeeded(importGraph()))
    return success();
  if (func_)
    func_.erase();
  return failure();
}

LogicalResult GraphImporter::importGraph() {
  for (const auto &imp : model_.model.opset_import())
    if (isDefaultDomain(imp.domain()))
      defaultOpset_ = imp.version();
  // Without an ai.onnx opset only other domains' nodes can be present: those are reported
  // as unsupported ops below, naming their domain.
  if (defaultOpset_ < 1 && llvm::any_of(model_.model.graph().node(), [](const onnx::NodeProto &n) {
        return isDefaultDomain(n.domain());
      }))
    return emitError(fileLoc()) << "'" << model_.path << "' imports no ai.onnx opset";
  if (failed(readDeclaredTypes()) || failed(createFunction()) || failed(importInitializers()))
    return failure();
  const auto &nodes = model_.model.graph().node();
  for (int i = 0; i < nodes.size(); ++i)
    if (failed(importNode(nodes[i], i)))
      return failure();
  return finishFunction();
}

LogicalResult GraphImporter::readDeclaredTypes() {
  const auto &g = model_.model.graph();
  for (const auto *list : {&g.value_info(), &g.output()}) {
    for (const auto &info : *list) {
      auto d = declaredType(info, nodeLoc(info.name()), b_.getContext());
      if (failed(d))
        return failure();
      if (*d)
        declared_[info.name()] = std::move(**d);
    }
  }
  return success();
}

LogicalResult GraphImporter::createFunction() {
  const auto &g = model_.model.graph();
  llvm::StringSet<> initNames;
  for (const auto &init : model_.initializers)
    initNames.insert(init.proto.name());

  SmallVector<Type> argTypes;
  SmallVector<const onnx::ValueInfoProto *> args;
  SmallVector<DeclaredType> argDecls;
  SmallVector<std::pair<const onnx::ValueInfoProto *, DeclaredType>> bound;
  for (const auto &input : g.input()) {
    if (initNames.contains(input.name()))
      continue; // IR version 3 lists initializers as inputs too
    auto d = declaredType(input, nodeLoc(input.name()), b_.getContext());
    if (failed(d))
      return failure();
    if (!*d)
      return emitError(nodeLoc(input.name()))
             << "graph input '" << input.name() << "' of '" << model_.path
             << "' has no tensor type with a shape (its rank must be known)";
    if (bindings_.count(input.name()) || isUseCacheBranch(input.name(), (*d)->type)) {
      bound.emplace_back(&input, std::move(**d));
      continue;
    }
    args.push_back(&input);
    argTypes.push_back((*d)->type);
    argDecls.push_back(std::move(**d));
  }

  b_.setInsertionPointToEnd(module_.getBody());
  func_ = b_.create<func::FuncOp>(fileLoc(), funcName_, b_.getFunctionType(argTypes, {}));
  Block *entry = func_.addEntryBlock();
  b_.setInsertionPointToStart(entry);
  for (auto &[input, decl] : bound) {
    auto it = bindings_.find(input->name());
    if (it == bindings_.end())
      emitRemark(nodeLoc(input->name()))
          << "graph input 'use_cache_branch' of '" << model_.path << "' bound to true "
          << "(Optimum's merged decoders select their with-past graph with it, which mmrun's "
          << "KV cache needs; --bind use_cache_branch=0 binds it to false)";
    auto v = boundInput(*input, decl, it == bindings_.end() ? std::vector<double>{1} : it->second);
    if (failed(v) || failed(bind(input->name(), *v, nodeLoc(input->name()))))
      return failure();
  }
  for (auto [i, input] : llvm::enumerate(args)) {
    func_.setArgAttr(i, "mm.name", b_.getStringAttr(input->name()));
    func_.setArgAttr(i, "mm.dims", dimsAttr(b_, argDecls[i].dimNames, argDecls[i].type.getRank()));
    if (values_.count(input->name()))
      return emitError(nodeLoc(input->name())) << "graph input '" << input->name()
                                               << "' is listed twice";
    entry->getArgument(i).setLoc(nodeLoc(input->name()));
    values_[input->name()] = entry->getArgument(i);
  }
  b_.setInsertionPointToStart(entry);
  return success();
}

FailureOr<Value> GraphImporter::boundInput(const onnx::ValueInfoProto &input,
                                           const DeclaredType &decl, std::vector<double> values) {
  Location loc = nodeLoc(input.name());
  RankedTensorType t = decl.type;
  if (t.getRank() == 1 && t.isDynamicDim(0))
    t = RankedTensorType::get({static_cast<int64_t>(values.size())}, t.getElementType());
  if (!t.hasStaticShape())
    return emitError(loc) << "--bind " << input.name() << ": the input's type " << decl.type
                          << " has unknown dims; only inputs of a known shape (or 1-D) can be bound";
  const int64_t n = t.getNumElements();
  if (values.size() == 1 && n != 1)
    values.assign(static_cast<size_t>(n), values[0]);
  if (static_cast<int64_t>(values.size()) != n)
    return emitError(loc) << "--bind " << input.name() << ": " << values.size()
                          << " values for an input of type " << t << " (" << n << " elements)";
  Type e = t.getElementType();
  DenseElementsAttr attr;
  if (auto f = dyn_cast<FloatType>(e)) {
    SmallVector<APFloat> xs;
    for (double v : values) {
      APFloat x(v);
      bool lost = false;
      x.convert(f.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      if (std::isfinite(v) && x.isInfinity()) {
        std::ostringstream text;
        text << v << " overflows the input's type ";
        return emitError(loc) << "--bind " << input.name() << ": " << text.str() << t;
      }
      xs.push_back(x);
    }
    attr = DenseElementsAttr::get(t, xs);
  } else if (auto i = dyn_cast<IntegerType>(e)) {
    // Signed or unsigned values of the width (ONNX's int8 and uint8 are both i8 here); a
    // bool is 0 or 1 (true / false).
    // (Values come through a double: at most 2^53 in magnitude, where doubles are exact.)
    const unsigned w = i.getWidth();
    const double exact = std::ldexp(1.0, 53);
    const double lo = w == 1 ? 0 : std::max(-std::ldexp(1.0, static_cast<int>(w) - 1), -exact);
    const double hi = w == 1 ? 1 : std::min(std::ldexp(1.0, static_cast<int>(w)) - 1, exact);
    SmallVector<APInt> xs;
    for (double v : values) {
      if (!std::isfinite(v) || v != std::floor(v) || v < lo || v > hi) {
        std::ostringstream text;
        text << v << " does not fit the input's type ";
        auto d = emitError(loc) << "--bind " << input.name() << ": " << text.str() << t;
        if (w == 1)
          d << " (a bool: 0, 1, true or false)";
        else
          d << " (an integer in [" << static_cast<int64_t>(lo) << ", " << static_cast<uint64_t>(hi) << "])";
        return d;
      }
      xs.push_back(v < 0 ? APInt(w, static_cast<uint64_t>(static_cast<int64_t>(v)), true)
                         : APInt(w, static_cast<uint64_t>(v)));
    }
    attr = DenseElementsAttr::get(t, xs);
  } else {
    return emitError(loc) << "--bind " << input.name() << ": cannot bind an input of type " << t;
  }
  auto c = b_.create<ConstantOp>(loc, t, attr);
  known_.infer(c);
  return c.getResult();
}

LogicalResult GraphImporter::importSubgraph(const onnx::GraphProto &subgraph,
                                            SmallVectorImpl<Value> &outputs) {
  // The subgraph's names are its own: they leave the name table when it is imported (two
  // branches, or a branch and the main graph after it, may reuse one), and a name it
  // shadows is the enclosing graph's again.
  scopes_.emplace_back();
  auto leave = llvm::make_scope_exit([&] {
    for (auto it = scopes_.back().rbegin(); it != scopes_.back().rend(); ++it) {
      if (it->second)
        values_[it->first] = it->second;
      else
        values_.erase(it->first);
    }
    scopes_.pop_back();
  });
  for (const onnx::TensorProto &init : subgraph.initializer()) {
    Location loc = nodeLoc(init.name());
    if (init.data_location() == onnx::TensorProto::EXTERNAL)
      return emitError(loc) << "initializer '" << init.name() << "' of subgraph '" << subgraph.name()
                            << "' keeps its data outside the model (external data), which "
                            << "subgraphs may not do here";
    b_.setInsertionPointToEnd(&func_.getBody().front());
    auto type = tensorType(init, loc, "initializer '" + init.name() + "'");
    if (failed(type))
      return failure();
    std::optional<ArrayRef<char>> raw;
    if (init.has_raw_data())
      raw = ArrayRef<char>(init.raw_data().data(), init.raw_data().size());
    auto value = tensorValue(init, *type, raw, loc, "initializer '" + init.name() + "'");
    if (failed(value))
      return failure();
    auto c = b_.create<ConstantOp>(loc, *type, *value);
    known_.infer(c);
    if (failed(bind(init.name(), c, loc)))
      return failure();
  }
  const auto &nodes = subgraph.node();
  for (int i = 0; i < nodes.size(); ++i)
    if (failed(importNode(nodes[i], i)))
      return failure();
  for (const auto &out : subgraph.output()) {
    Value v = values_.lookup(out.name());
    if (!v)
      return emitError(nodeLoc(out.name())) << "subgraph '" << subgraph.name() << "' output '"
                                            << out.name() << "' is never defined";
    outputs.push_back(v);
  }
  return success();
}

LogicalResult GraphImporter::importInitializers() {
  const auto &g = model_.model.graph();
  if (g.sparse_initializer_size() > 0)
    return emitError(nodeLoc(g.sparse_initializer(0).values().name()))
           << "'" << model_.path << "' has sparse initializers, which are not supported";
  llvm::StringSet<> used;
  collectUsedNames(g, used);

  FileSizes sizes;
  for (const Initializer &init : model_.initializers) {
    const std::string &name = init.proto.name();
    if (!used.contains(name))
      continue;
    Location loc = nodeLoc(name);
    auto v = importInitializer(b_, model_, init, loc, sizes);
    if (failed(v))
      return failure();
    known_.infer(v->getDefiningOp());
    if (failed(bind(name, *v, loc)))
      return failure();
  }
  return success();
}

LogicalResult GraphImporter::importNode(const onnx::NodeProto &node, size_t index) {
  std::string name = node.name().empty() ? node.op_type() + "_" + std::to_string(index) : node.name();
  Location loc = nodeLoc(name);
  int64_t opset = defaultOpset_;
  const OpTable *table = &opTable();
  if (!isDefaultDomain(node.domain())) {
    opset = -1;
    for (const auto &imp : model_.model.opset_import())
      if (imp.domain() == node.domain())
        opset = imp.version();
    if (node.domain() != kContribDomain)
      return emitError(loc) << "unsupported ONNX op '" << node.domain() << "." << node.op_type()
                            << "' (node '" << name << "', domain '" << node.domain() << "', opset "
                            << opset << ") in '" << model_.path << "': only the ai.onnx and "
                            << kContribDomain << " domains are supported";
    table = &contribTable();
  }
  auto it = table->find(node.op_type());
  if (it == table->end())
    return emitError(loc) << "unsupported ONNX op '"
                          << (isDefaultDomain(node.domain()) ? "" : node.domain() + ".")
                          << node.op_type() << "' (node '" << name << "', opset " << opset
                          << ") in '" << model_.path << "'";

  SmallVector<Value> inputs;
  for (const std::string &in : node.input()) {
    if (in.empty()) {
      inputs.push_back(Value());
      continue;
    }
    auto v = values_.find(in);
    if (v == values_.end())
      return emitError(loc) << "node '" << name << "' (" << node.op_type() << ") reads '" << in
                            << "', which no earlier node, initializer or graph input defines";
    inputs.push_back(v->second);
  }

  NodeContext ctx(*this, node, name, opset, loc, std::move(inputs));
  b_.setInsertionPointToEnd(&func_.getBody().front());
  if (failed(it->second(ctx)))
    return failure();
  for (int i = 0; i < node.output_size(); ++i) {
    if (!ctx.outputUsed(i))
      continue;
    if (!ctx.output(i))
      return ctx.unsupported("output " + Twine(i) + " ('" + node.output(i) + "')");
    if (failed(bind(node.output(i), ctx.output(i), loc)))
      return failure();
  }
  return success();
}

LogicalResult GraphImporter::bind(const std::string &name, Value v, Location loc) {
  Value shadowed = values_.lookup(name);
  bool inScope = !scopes_.empty() && llvm::any_of(scopes_.back(), [&](const auto &e) { return e.first == name; });
  if (shadowed && (scopes_.empty() || inScope))
    return emitError(loc) << "value '" << name << "' is defined more than once";
  if (!scopes_.empty())
    scopes_.back().emplace_back(name, shadowed);
  values_.erase(name);
  auto it = declared_.find(name);
  if (it != declared_.end()) {
    auto t = cast<RankedTensorType>(v.getType());
    RankedTensorType d = it->second.type;
    auto mismatch = [&]() {
      return emitError(loc) << "the model declares '" << name << "' as " << d
                            << " but the importer infers " << t;
    };
    if (t.getElementType() != d.getElementType() || t.getRank() != d.getRank())
      return mismatch();
    // The declared type is checked, not adopted: exporters write the traced example's
    // sizes into value_info (dynamo: batch 1 inside a vision encoder exported with a
    // dynamic batch), so a dim the importer infers as dynamic stays dynamic.
    for (int64_t i = 0; i < t.getRank(); ++i) {
      int64_t a = t.getDimSize(i), e = d.getDimSize(i);
      if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(e) && a != e)
        return mismatch();
    }
  }
  values_[name] = v;
  return success();
}

LogicalResult GraphImporter::finishFunction() {
  const auto &g = model_.model.graph();
  SmallVector<Value> results;
  for (const auto &out : g.output()) {
    auto it = values_.find(out.name());
    if (it == values_.end())
      return emitError(nodeLoc(out.name()))
             << "graph output '" << out.name() << "' of '" << model_.path << "' is never defined";
    results.push_back(it->second);
  }
  b_.setInsertionPointToEnd(&func_.getBody().front());
  b_.create<func::ReturnOp>(fileLoc(), results);
  func_.setFunctionType(
      b_.getFunctionType(func_.getArgumentTypes(), ValueRange(results).getTypes()));
  for (auto [i, out] : llvm::enumerate(g.output())) {
    auto it = declared_.find(out.name());
    ArrayRef<std::string> names;
    if (it != declared_.end())
      names = it->second.dimNames;
    func_.setResultAttr(i, "mm.name", b_.getStringAttr(out.name()));
    func_.setResultAttr(i, "mm.dims",
                        dimsAttr(b_, names, cast<RankedTensorType>(results[i].getType()).getRank()));
  }
  return success();
}

} // namespace mm::onnx_import

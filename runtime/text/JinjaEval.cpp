//===- JinjaEval.cpp - rendering a template --------------------------------===//
//
// Executes the syntax tree the way jinja2's generated code does: scopes (a loop body is
// a fresh scope per iteration; a macro sees the scope it was defined in, as it is when
// called; `set` inside a loop, macro, filter or with block stays there), loops (the `if`
// filter is evaluated lazily, `else` runs unless an iteration reached the end of the
// body), the sandbox's attribute and item lookup (getattr first for `a.b`, item first for
// `a[b]`, misses become Undefined), and the limits of RenderLimits.
//
//===----------------------------------------------------------------------===//
#include "runtime/text/Jinja.h"

#include <cmath>
#include <limits>

namespace mm::rt::jinja {
namespace {

/// jinja2's object_type_repr: "dict object", "None", ...
std::string objectTypeRepr(const Value &v) {
  if (v.isNone())
    return "None";
  if (v.kind() == Value::Kind::Namespace)
    return "jinja2.utils.Namespace object";
  if (v.kind() == Value::Kind::Loop)
    return "jinja2.runtime.LoopContext object";
  if (v.kind() == Value::Kind::Callable && v.callable().type == CallableObj::Type::Macro)
    return "jinja2.runtime.Macro object";
  return typeName(v) + " object";
}

Value missingAttribute(const Value &obj, const std::string &name) {
  return Value::undefined(pyReprString(objectTypeRepr(obj)) + " has no attribute " +
                          pyReprString(name));
}

Value missingItem(const Value &obj, const Value &key) {
  if (key.isString())
    return missingAttribute(obj, key.s());
  return Value::undefined(objectTypeRepr(obj) + " has no element " + pyRepr(key));
}

} // namespace

/// Whether `v` holds a namespace, loop or macro anywhere (storing it in a namespace could
/// create a reference cycle, or outlive the frame a macro refers to).
bool holdsMutable(const Value &v, Renderer &r) {
  switch (v.kind()) {
  case Value::Kind::Namespace:
  case Value::Kind::Loop:
    return true;
  case Value::Kind::List:
    r.charge(v.list().items.size());
    for (const Value &item : v.list().items)
      if (holdsMutable(item, r))
        return true;
    return false;
  case Value::Kind::Dict:
    r.charge(v.dict().size());
    for (const auto &entry : v.dict().entries)
      if (holdsMutable(entry.second, r))
        return true;
    return false;
  case Value::Kind::Callable: // a macro refers to the frame it was defined in
    return v.callable().type == CallableObj::Type::Macro || holdsMutable(v.callable().receiver, r);
  default:
    return false;
  }
}

bool LoopObj::fetch(size_t n) {
  while (items.size() <= n && nextSource < source->size()) {
    const Value &candidate = (*source)[nextSource++];
    if (!accept || accept(candidate))
      items.push_back(candidate);
  }
  return n < items.size();
}

size_t LoopObj::length() {
  fetch(std::numeric_limits<size_t>::max() - 1);
  return items.size();
}

namespace {

/// Counts one level of renderer recursion.
class RecursionGuard {
public:
  RecursionGuard(int &depth, int limit) : depth_(depth) {
    if (++depth_ > limit)
      raise("RecursionError", "the template nests blocks, expressions and macro calls more than ",
            std::to_string(limit), " levels deep");
  }
  ~RecursionGuard() { --depth_; }
  RecursionGuard(const RecursionGuard &) = delete;
  RecursionGuard &operator=(const RecursionGuard &) = delete;

private:
  int &depth_;
};

} // namespace

Renderer::Renderer(const Template &tmpl, const DictObj &context, const RenderLimits &limits,
                   const std::tm &now, long microseconds)
    : tmpl_(tmpl), context_(context), limits_(limits), now_(now), microseconds_(microseconds) {}

std::string Renderer::render() {
  std::string out;
  out_ = &out;
  exec(tmpl_.body, root_);
  out_ = nullptr;
  return out;
}

void Renderer::charge(uint64_t units) {
  work_ += units;
  if (work_ > limits_.maxWork)
    raise("RenderLimitError", "the template did more than ", std::to_string(limits_.maxWork),
          " units of work");
}

void Renderer::chargeFor(const Value &v) {
  switch (v.kind()) {
  case Value::Kind::String:
    charge(1 + v.s().size() / 64);
    return;
  case Value::Kind::List:
    charge(1 + v.list().items.size());
    return;
  case Value::Kind::Dict:
    charge(1 + v.dict().size());
    return;
  default:
    charge(1);
  }
}

void Renderer::checkSize(size_t bytes) const {
  if (bytes > limits_.maxStringBytes)
    raise("RenderLimitError", "a string of ", std::to_string(bytes), " bytes exceeds the limit of ",
          std::to_string(limits_.maxStringBytes));
}

void Renderer::write(std::string_view text) {
  checkSize(out_->size() + text.size());
  charge(text.size() / 64);
  out_->append(text);
}

// ---- statements -------------------------------------------------------------------------

Renderer::Flow Renderer::exec(const Body &body, Frame &frame) {
  const RecursionGuard guard(recursion_, limits_.maxRecursion);
  for (const NodePtr &node : body) {
    const Flow flow = execNode(*node, frame);
    if (flow != Flow::Normal)
      return flow;
  }
  return Flow::Normal;
}

Renderer::Flow Renderer::capture(const Body &body, Frame &frame, std::string &text) {
  std::string *saved = out_;
  out_ = &text;
  Flow flow;
  try {
    flow = exec(body, frame);
  } catch (...) {
    out_ = saved;
    throw;
  }
  out_ = saved;
  return flow;
}

Renderer::Flow Renderer::execNode(const Node &node, Frame &frame) {
  line_ = node.line;
  switch (node.kind) {
  case Node::Kind::Text:
    write(node.text);
    return Flow::Normal;
  case Node::Kind::Output:
    write(pyStr(eval(*node.exprs[0], frame)));
    return Flow::Normal;
  case Node::Kind::If:
    for (size_t k = 0; k < node.exprs.size(); ++k)
      if (truthy(eval(*node.exprs[k], frame)))
        return exec(node.bodies[k], frame);
    if (node.bodies.size() > node.exprs.size())
      return exec(node.bodies.back(), frame);
    return Flow::Normal;
  case Node::Kind::For:
    return execFor(node, frame);
  case Node::Kind::Set:
    assign(node.target, eval(*node.exprs[0], frame), frame);
    return Flow::Normal;
  case Node::Kind::SetBlock: {
    Frame inner{{}, &frame};
    std::string body;
    if (const Flow flow = capture(node.bodies[0], inner, body); flow != Flow::Normal)
      return flow;
    Value text = Value::string(std::move(body));
    if (!node.exprs.empty())
      text = evalFilter(*node.exprs[0], frame, &text);
    assign(node.target, text, frame);
    return Flow::Normal;
  }
  case Node::Kind::Macro: {
    auto obj = std::make_shared<CallableObj>();
    obj->type = CallableObj::Type::Macro;
    obj->name = node.macro->name;
    obj->macro = node.macro.get();
    obj->scope = &frame;
    frame.vars[node.macro->name] = Value::object(Value::Kind::Callable, std::move(obj));
    return Flow::Normal;
  }
  case Node::Kind::Break:
    return Flow::Break;
  case Node::Kind::Continue:
    return Flow::Continue;
  case Node::Kind::FilterBlock: {
    Frame inner{{}, &frame};
    std::string body;
    if (const Flow flow = capture(node.bodies[0], inner, body); flow != Flow::Normal)
      return flow;
    const Value text = Value::string(std::move(body));
    write(pyStr(evalFilter(*node.exprs[0], frame, &text)));
    return Flow::Normal;
  }
  case Node::Kind::With: {
    Frame inner{{}, &frame};
    for (size_t k = 0; k < node.targets.size(); ++k)
      assign(node.targets[k], eval(*node.exprs[k], frame), inner);
    return exec(node.bodies[0], inner);
  }
  case Node::Kind::Scope: {
    Frame inner{{}, &frame};
    return exec(node.bodies[0], inner);
  }
  }
  return Flow::Normal;
}

Renderer::Flow Renderer::execFor(const Node &node, Frame &frame) {
  auto loop = std::make_shared<LoopObj>();
  loop->source = std::make_shared<const ValueList>(iterate(eval(*node.exprs[0], frame)));
  if (node.hasFilter)
    loop->accept = [this, &node, &frame](const Value &item) {
      charge(1);
      Frame probe{{}, &frame};
      assign(node.target, item, probe);
      return truthy(eval(*node.exprs[1], probe));
    };
  const Value loopValue = Value::object(Value::Kind::Loop, loop);
  // jinja2 runs the else block unless some iteration reached the end of the body (so
  // also when every iteration ended in break or continue).
  bool completed = false;
  for (size_t k = 0; loop->fetch(k); ++k) {
    if (++iterations_ > limits_.maxLoopIterations)
      raise("RenderLimitError", "the template ran more than ",
            std::to_string(limits_.maxLoopIterations), " loop iterations");
    charge(1);
    loop->index0 = k;
    Frame inner{{}, &frame};
    inner.vars["loop"] = loopValue;
    assign(node.target, loop->items[k], inner);
    const Flow flow = exec(node.bodies[0], inner);
    if (flow == Flow::Break)
      break;
    completed |= flow == Flow::Normal;
  }
  loop->accept = nullptr; // it refers to this frame
  if (completed)
    return Flow::Normal;
  Frame inner{{}, &frame};
  return exec(node.bodies[1], inner); // outside the loop: break/continue go outward
}

void Renderer::assign(const Target &target, const Value &value, Frame &frame) {
  if (target.isTuple) {
    if (value.isUndefined())
      value.failUndefined();
    const ValueList items = iterate(value);
    const size_t n = target.elements.size();
    if (items.size() < n)
      raise("ValueError", "not enough values to unpack (expected ", std::to_string(n), ", got ",
            std::to_string(items.size()), ")");
    if (items.size() > n)
      raise("ValueError", "too many values to unpack (expected ", std::to_string(n), ")");
    for (size_t k = 0; k < n; ++k)
      assign(target.elements[k], items[k], frame);
    return;
  }
  if (target.attr.empty()) {
    frame.vars[target.name] = value;
    return;
  }
  const Value ns = lookup(target.name, frame);
  if (ns.kind() != Value::Kind::Namespace)
    raise("TemplateRuntimeError", "cannot assign attribute on non-namespace object");
  if (holdsMutable(value, *this))
    raise("TemplateRuntimeError",
          "storing a namespace, loop or macro inside a namespace is not supported");
  ns.ns().attrs.set(Value::string(target.attr), value);
}

Value Renderer::lookup(const std::string &name, Frame &frame) {
  for (Frame *f = &frame; f; f = f->parent) {
    const auto it = f->vars.find(name);
    if (it != f->vars.end())
      return it->second;
  }
  const auto it = context_.index.find("s" + name);
  if (it != context_.index.end())
    return context_.entries[it->second].second;
  if (GlobalFn fn = findGlobal(name)) {
    auto obj = std::make_shared<CallableObj>();
    obj->type = CallableObj::Type::Global;
    obj->name = name;
    obj->fn = fn;
    return Value::object(Value::Kind::Callable, std::move(obj));
  }
  return Value::undefined(pyReprString(name) + " is undefined");
}

// ---- lookups and calls ------------------------------------------------------------------

Value Renderer::getattr(const Value &obj, const std::string &name) {
  switch (obj.kind()) {
  case Value::Kind::Undefined:
    obj.failUndefined();
  case Value::Kind::Namespace:
    if (const Value *v = obj.ns().attrs.find(Value::string(name)))
      return *v;
    return missingAttribute(obj, name);
  case Value::Kind::String:
  case Value::Kind::List:
  case Value::Kind::Loop:
    if (auto v = builtinAttribute(obj, name))
      return *v;
    return missingAttribute(obj, name);
  case Value::Kind::Dict:
    if (auto v = builtinAttribute(obj, name))
      return *v;
    if (const Value *v = obj.dict().find(Value::string(name)))
      return *v;
    return missingAttribute(obj, name);
  default:
    return missingAttribute(obj, name);
  }
}

Value Renderer::getitem(const Value &obj, const Value &key) {
  switch (obj.kind()) {
  case Value::Kind::Undefined:
    obj.failUndefined();
  case Value::Kind::Dict: {
    const Value *v = nullptr;
    try {
      v = obj.dict().find(key);
    } catch (const Failure &) { // unhashable: TypeError, caught by jinja2
    }
    if (v)
      return *v;
    break;
  }
  case Value::Kind::List: {
    const ListObj &l = obj.list();
    if (l.flavor == ListFlavor::Generator || l.flavor == ListFlavor::DictKeys ||
        l.flavor == ListFlavor::DictValues || l.flavor == ListFlavor::DictItems ||
        !key.isIntegral())
      break;
    int64_t i = key.i();
    const auto n = int64_t(l.items.size());
    if (i < 0)
      i += n;
    if (i >= 0 && i < n)
      return l.items[size_t(i)];
    return missingItem(obj, key);
  }
  case Value::Kind::String: {
    if (!key.isIntegral())
      break;
    chargeFor(obj);
    const std::u32string s = decodeUtf8(obj.s());
    int64_t i = key.i();
    const auto n = int64_t(s.size());
    if (i < 0)
      i += n;
    if (i >= 0 && i < n)
      return Value::string(encodeUtf8(s.substr(size_t(i), 1)));
    return missingItem(obj, key);
  }
  default:
    break;
  }
  if (key.isString()) {
    // obj[key] failed: jinja2 falls back to the attribute.
    if (obj.kind() == Value::Kind::Namespace || obj.kind() == Value::Kind::Loop || obj.isString() ||
        obj.isList() || obj.isDict())
      return getattr(obj, key.s());
  }
  return missingItem(obj, key);
}

Value Renderer::callValue(const Value &callee, const ValueList &args, const KwArgs &kwargs) {
  switch (callee.kind()) {
  case Value::Kind::Undefined:
    callee.failUndefined();
  case Value::Kind::Callable: {
    const CallableObj &c = callee.callable();
    switch (c.type) {
    case CallableObj::Type::Macro:
      return callMacro(c, args, kwargs);
    case CallableObj::Type::Global:
      return c.fn(*this, args, kwargs);
    case CallableObj::Type::Method:
      chargeFor(c.receiver);
      return callMethod(*this, c, args, kwargs);
    }
    break;
  }
  default:
    break;
  }
  raise("TypeError", "'", typeName(callee), "' object is not callable");
}

Value Renderer::callMacro(const CallableObj &callable, const ValueList &args,
                          const KwArgs &kwargs) {
  const MacroDef &m = *callable.macro;
  struct DepthGuard {
    explicit DepthGuard(int &depth) : depth_(depth) { ++depth_; }
    ~DepthGuard() { --depth_; }
    int &depth_;
  } guard(callDepth_);
  if (callDepth_ > limits_.maxCallDepth)
    raise("RecursionError", "macro calls nested more than ", std::to_string(limits_.maxCallDepth),
          " deep");
  if (args.size() > m.params.size() && !m.usesVarargs)
    raise("TypeError", "macro ", pyReprString(m.name), " takes not more than ",
          std::to_string(m.params.size()), " argument(s)");
  // Late binding over the defining scope, as jinja2's macros (Python closures) do.
  Frame frame{{}, const_cast<Frame *>(static_cast<const Frame *>(callable.scope))};
  auto extraKwargs = std::make_shared<DictObj>();
  for (const auto &[key, value] : kwargs) {
    bool isParam = false;
    for (size_t k = 0; k < m.params.size(); ++k) {
      if (m.params[k].first != key)
        continue;
      isParam = true;
      if (k < args.size())
        raise("TypeError", "macro ", pyReprString(m.name), " got multiple values for argument ",
              pyReprString(key));
    }
    if (!isParam) {
      if (!m.usesKwargs)
        raise("TypeError", "macro ", pyReprString(m.name), " takes no keyword argument ",
              pyReprString(key));
      extraKwargs->set(Value::string(key), value);
    }
  }
  for (size_t k = 0; k < m.params.size(); ++k) {
    const auto &[param, def] = m.params[k];
    Value v;
    if (k < args.size()) {
      v = args[k];
    } else {
      bool found = false;
      for (const auto &[key, value] : kwargs)
        if (key == param) {
          v = value;
          found = true;
        }
      if (!found)
        v = def ? eval(*def, frame)
                : Value::undefined("parameter " + pyReprString(param) + " was not provided");
    }
    frame.vars[param] = v;
  }
  if (m.usesVarargs) {
    ValueList rest;
    for (size_t k = m.params.size(); k < args.size(); ++k)
      rest.push_back(args[k]);
    frame.vars["varargs"] = Value::list(std::move(rest), ListFlavor::Tuple);
  }
  if (m.usesKwargs)
    frame.vars["kwargs"] = Value::dict(std::move(extraKwargs));
  const int savedLine = line_;
  std::string text;
  capture(m.body, frame, text); // the parser keeps break/continue out of macro bodies
  line_ = savedLine;
  return Value::string(std::move(text));
}

Value Renderer::applyFilter(const std::string &name, const Value &input, const ValueList &args,
                            const KwArgs &kwargs) {
  bool known = false;
  const FilterDef *def = findFilter(name, &known);
  if (!def)
    raise("TemplateRuntimeError",
          known ? "the '" + name + "' filter is not supported in chat templates"
                : "No filter named " + pyReprString(name) + ".");
  chargeFor(input);
  return def->fn(*this, input, args, kwargs);
}

bool Renderer::applyTest(const std::string &name, const Value &input, const ValueList &args,
                         const KwArgs &kwargs) {
  bool known = false;
  const TestDef *def = findTest(name, &known);
  if (!def)
    raise("TemplateRuntimeError", known
                                      ? "the '" + name + "' test is not supported in chat templates"
                                      : "No test named " + pyReprString(name) + ".");
  return def->fn(*this, input, args, kwargs);
}

ValueList Renderer::iterate(const Value &v) {
  switch (v.kind()) {
  case Value::Kind::Undefined:
    return {};
  case Value::Kind::String: {
    ValueList out;
    charge(v.s().size());
    for (char32_t cp : decodeUtf8(v.s())) {
      std::string s;
      appendUtf8(s, cp);
      out.push_back(Value::string(std::move(s)));
    }
    return out;
  }
  case Value::Kind::List:
    charge(v.list().items.size());
    return v.list().items;
  case Value::Kind::Dict: {
    ValueList out;
    charge(v.dict().size());
    for (const auto &entry : v.dict().entries)
      out.push_back(entry.first);
    return out;
  }
  default:
    raise("TypeError", "'", typeName(v), "' object is not iterable");
  }
}

// ---- expressions ------------------------------------------------------------------------

void Renderer::evalArgs(const Expr &e, size_t first, Frame &frame, ValueList &args,
                        KwArgs &kwargs) {
  for (size_t k = first; k < e.args.size(); ++k)
    args.push_back(eval(*e.args[k], frame));
  for (const auto &[key, value] : e.kwargs)
    kwargs.emplace_back(key, eval(*value, frame));
}

Value Renderer::evalFilter(const Expr &e, Frame &frame, const Value *blockInput) {
  // In a filter block or block set the chain's innermost input is the rendered body.
  const Value input = !e.args[0]   ? *blockInput
                      : blockInput ? evalFilter(*e.args[0], frame, blockInput)
                                   : eval(*e.args[0], frame);
  ValueList args;
  KwArgs kwargs;
  evalArgs(e, 1, frame, args, kwargs);
  line_ = e.line;
  chargeFor(input);
  return static_cast<const FilterDef *>(e.builtin)->fn(*this, input, args, kwargs);
}

Value Renderer::evalCall(const Expr &e, Frame &frame) {
  const Value callee = eval(*e.args[0], frame);
  ValueList args;
  KwArgs kwargs;
  evalArgs(e, 1, frame, args, kwargs);
  line_ = e.line;
  return callValue(callee, args, kwargs);
}

Value Renderer::evalSlice(const Expr &e, Frame &frame) {
  const Value obj = eval(*e.args[0], frame);
  Value parts[3];
  for (size_t k = 0; k < 3; ++k)
    parts[k] = e.args[k + 1] ? eval(*e.args[k + 1], frame) : Value::none();
  line_ = e.line;
  return sliceOp(*this, obj, parts[0], parts[1], parts[2]);
}

Value Renderer::evalCompare(const Expr &e, Frame &frame) {
  Value left = eval(*e.args[0], frame);
  for (size_t k = 0; k < e.ops.size(); ++k) {
    Value right = eval(*e.args[k + 1], frame);
    line_ = e.line;
    const std::string &op = e.ops[k];
    bool ok;
    if (op == "==" || op == "!=") {
      chargeFor(left);
      ok = pyEqual(left, right) == (op == "==");
    } else if (op == "in" || op == "notin") {
      chargeFor(right);
      ok = containsValue(right, left) == (op == "in");
    } else {
      ok = pyCompare(left, right, op);
    }
    if (!ok)
      return Value::boolean(false);
    left = std::move(right);
  }
  return Value::boolean(true);
}

Value Renderer::evalBinary(const Expr &e, Frame &frame) {
  const std::string &op = e.name;
  if (op == "and" || op == "or") {
    Value left = eval(*e.args[0], frame);
    if (truthy(left) == (op == "or"))
      return left;
    return eval(*e.args[1], frame);
  }
  const Value a = eval(*e.args[0], frame);
  const Value b = eval(*e.args[1], frame);
  line_ = e.line;
  return binaryOp(*this, op, a, b);
}

Value Renderer::eval(const Expr &e, Frame &frame) {
  const RecursionGuard guard(recursion_, limits_.maxRecursion);
  line_ = e.line;
  switch (e.kind) {
  case Expr::Kind::Const:
    return e.value;
  case Expr::Kind::Name:
    return lookup(e.name, frame);
  case Expr::Kind::List:
  case Expr::Kind::Tuple: {
    ValueList items;
    for (const ExprPtr &a : e.args)
      items.push_back(eval(*a, frame));
    return Value::list(std::move(items),
                       e.kind == Expr::Kind::Tuple ? ListFlavor::Tuple : ListFlavor::List);
  }
  case Expr::Kind::Dict: {
    auto d = std::make_shared<DictObj>();
    for (size_t k = 0; k + 1 < e.args.size(); k += 2) {
      Value key = eval(*e.args[k], frame);
      d->set(std::move(key), eval(*e.args[k + 1], frame));
    }
    return Value::dict(std::move(d));
  }
  case Expr::Kind::Getattr: {
    const Value obj = eval(*e.args[0], frame);
    line_ = e.line;
    return getattr(obj, e.name);
  }
  case Expr::Kind::Getitem: {
    const Value obj = eval(*e.args[0], frame);
    const Value key = eval(*e.args[1], frame);
    line_ = e.line;
    return getitem(obj, key);
  }
  case Expr::Kind::Slice:
    return evalSlice(e, frame);
  case Expr::Kind::Call:
    return evalCall(e, frame);
  case Expr::Kind::Filter:
    return evalFilter(e, frame, nullptr);
  case Expr::Kind::Test: {
    const Value input = eval(*e.args[0], frame);
    ValueList args;
    KwArgs kwargs;
    evalArgs(e, 1, frame, args, kwargs);
    line_ = e.line;
    return Value::boolean(static_cast<const TestDef *>(e.builtin)->fn(*this, input, args, kwargs));
  }
  case Expr::Kind::Unary: {
    const Value v = eval(*e.args[0], frame);
    line_ = e.line;
    return unaryOp(e.name, v);
  }
  case Expr::Kind::Binary:
    return evalBinary(e, frame);
  case Expr::Kind::Concat: {
    std::string out;
    for (const ExprPtr &a : e.args) {
      const Value v = eval(*a, frame);
      if (v.isString()) {
        checkSize(out.size() + v.s().size());
        out += v.s();
      } else {
        out += pyStr(v);
        checkSize(out.size());
      }
    }
    charge(out.size() / 64);
    return Value::string(std::move(out));
  }
  case Expr::Kind::Compare:
    return evalCompare(e, frame);
  case Expr::Kind::CondExpr:
    if (truthy(eval(*e.args[0], frame)))
      return eval(*e.args[1], frame);
    if (e.args[2])
      return eval(*e.args[2], frame);
    return Value::undefined("the inline if-expression on line " + std::to_string(e.line) +
                            " evaluated to false and no else section was defined.");
  }
  return Value();
}

} // namespace mm::rt::jinja

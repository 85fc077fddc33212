//===- JinjaParseExpr.cpp - tokens to a syntax tree: expressions ---------===//
//
// The expression half of the parser (JinjaParser.h), with jinja2's operator precedence,
// which differs from Python's in places: `~` binds tighter than `+`/`-`, a unary minus
// binds tighter than `**`, and filters (`|`) and tests (`is`) apply to the operand
// before any operator. Unknown filters and tests are errors here, as jinja2 reports them
// at compile time, with jinja2's messages.
//
//===----------------------------------------------------------------------===//
#include "runtime/text/JinjaParser.h"

namespace mm::rt::jinja {

ExprPtr Parser::parseExpression(bool withCondexpr) {
  if (++exprNesting_ > kMaxExprDepth)
    fail(cur(), "expression nested too deeply (over " + std::to_string(kMaxExprDepth) + " levels)");
  ExprPtr e = withCondexpr ? parseCondexpr() : parseOr();
  --exprNesting_;
  return e;
}

ExprPtr Parser::parseCondexpr() {
  ExprPtr expr = parseOr();
  while (isName("if")) {
    const Token at = cur();
    next();
    ExprPtr test = parseOr();
    ExprPtr otherwise;
    if (skipName("else"))
      otherwise = parseExpression(true);
    ExprPtr e = make(Expr::Kind::CondExpr, at);
    add(*e, std::move(test));
    add(*e, std::move(expr));
    add(*e, std::move(otherwise));
    expr = std::move(e);
  }
  return expr;
}

ExprPtr Parser::parseOr() {
  ExprPtr left = parseAnd();
  while (isName("or")) {
    const Token at = cur();
    next();
    left = makeBinary(Expr::Kind::Binary, "or", std::move(left), parseAnd(), at);
  }
  return left;
}

ExprPtr Parser::parseAnd() {
  ExprPtr left = parseNot();
  while (isName("and")) {
    const Token at = cur();
    next();
    left = makeBinary(Expr::Kind::Binary, "and", std::move(left), parseNot(), at);
  }
  return left;
}

ExprPtr Parser::parseNot() {
  if (isName("not")) {
    const Token at = cur();
    next();
    if (++exprNesting_ > kMaxExprDepth)
      fail(at, "expression nested too deeply (over " + std::to_string(kMaxExprDepth) + " levels)");
    ExprPtr e = make(Expr::Kind::Unary, at);
    e->name = "not";
    add(*e, parseNot());
    --exprNesting_;
    return e;
  }
  return parseCompare();
}

ExprPtr Parser::parseCompare() {
  const Token at = cur();
  ExprPtr first = parseMath1();
  ExprPtr e;
  while (true) {
    std::string op;
    if (cur().type == Tok::Operator &&
        (cur().text == "==" || cur().text == "!=" || cur().text == "<" || cur().text == "<=" ||
         cur().text == ">" || cur().text == ">=")) {
      op = cur().text;
      next();
    } else if (skipName("in")) {
      op = "in";
    } else if (isName("not") && peek().type == Tok::Name && peek().text == "in") {
      next();
      next();
      op = "notin";
    } else {
      break;
    }
    if (!e) {
      e = make(Expr::Kind::Compare, at);
      add(*e, std::move(first));
    }
    e->ops.push_back(op);
    add(*e, parseMath1());
  }
  return e ? std::move(e) : std::move(first);
}

ExprPtr Parser::parseMath1() {
  ExprPtr left = parseConcat();
  while (isOp("+") || isOp("-")) {
    const Token at = cur();
    next();
    left = makeBinary(Expr::Kind::Binary, at.text, std::move(left), parseConcat(), at);
  }
  return left;
}

ExprPtr Parser::parseConcat() {
  ExprPtr first = parseMath2();
  if (!isOp("~"))
    return first;
  ExprPtr e = make(Expr::Kind::Concat, cur());
  add(*e, std::move(first));
  while (skipOp("~"))
    add(*e, parseMath2());
  return e;
}

ExprPtr Parser::parseMath2() {
  ExprPtr left = parsePow();
  while (isOp("*") || isOp("/") || isOp("//") || isOp("%")) {
    const Token at = cur();
    next();
    left = makeBinary(Expr::Kind::Binary, at.text, std::move(left), parsePow(), at);
  }
  return left;
}

ExprPtr Parser::parsePow() {
  ExprPtr left = parseUnary(true);
  while (isOp("**")) {
    const Token at = cur();
    next();
    left = makeBinary(Expr::Kind::Binary, "**", std::move(left), parseUnary(true), at);
  }
  return left;
}

ExprPtr Parser::parseUnary(bool withFilter) {
  ExprPtr node;
  if (isOp("-") || isOp("+")) {
    const Token at = cur();
    next();
    if (++exprNesting_ > kMaxExprDepth)
      fail(at, "expression nested too deeply (over " + std::to_string(kMaxExprDepth) + " levels)");
    node = make(Expr::Kind::Unary, at);
    node->name = at.text;
    add(*node, parseUnary(false));
    --exprNesting_;
  } else {
    node = parsePrimary();
  }
  node = parsePostfix(std::move(node));
  if (withFilter)
    node = parseFilterExpr(std::move(node));
  return node;
}

ExprPtr Parser::constant(const Token &at, Value v) {
  ExprPtr e = make(Expr::Kind::Const, at);
  e->value = std::move(v);
  return e;
}

ExprPtr Parser::parsePrimary() {
  const Token at = cur();
  switch (at.type) {
  case Tok::Name: {
    next();
    if (at.text == "true" || at.text == "True")
      return constant(at, Value::boolean(true));
    if (at.text == "false" || at.text == "False")
      return constant(at, Value::boolean(false));
    if (at.text == "none" || at.text == "None")
      return constant(at, Value::none());
    if (!macros_.empty()) {
      macros_.back()->usesVarargs |= at.text == "varargs";
      macros_.back()->usesKwargs |= at.text == "kwargs";
    }
    ExprPtr e = make(Expr::Kind::Name, at);
    e->name = at.text;
    return e;
  }
  case Tok::String: {
    std::string text;
    while (cur().type == Tok::String) {
      text += cur().text;
      next();
    }
    return constant(at, Value::string(std::move(text)));
  }
  case Tok::Integer:
    next();
    return constant(at, Value::integer(at.integer));
  case Tok::Float:
    next();
    return constant(at, Value::number(at.number));
  case Tok::Operator:
    if (at.text == "(") {
      next();
      ExprPtr e = parseTuple(false, true, {}, true);
      expectOp(")");
      return e;
    }
    if (at.text == "[")
      return parseList();
    if (at.text == "{")
      return parseDict();
    break;
  default:
    break;
  }
  fail(at, "unexpected '" + describe(at) + "'");
}

ExprPtr Parser::parseTuple(bool simplified, bool withCondexpr,
                           std::initializer_list<const char *> extraEnd, bool explicitParens) {
  const Token at = cur();
  std::vector<ExprPtr> args;
  bool isTuple = false;
  while (true) {
    if (!args.empty())
      expectOp(",");
    if (isTupleEnd(extraEnd))
      break;
    args.push_back(simplified ? parsePrimary() : parseExpression(withCondexpr));
    if (isOp(","))
      isTuple = true;
    else
      break;
  }
  if (!isTuple) {
    if (!args.empty())
      return std::move(args[0]);
    if (!explicitParens)
      fail(cur(), "Expected an expression, got '" + describe(cur()) + "'");
  }
  ExprPtr e = make(Expr::Kind::Tuple, at);
  for (ExprPtr &a : args)
    add(*e, std::move(a));
  return e;
}

ExprPtr Parser::parseList() {
  ExprPtr e = make(Expr::Kind::List, cur());
  expectOp("[");
  while (!isOp("]")) {
    if (!e->args.empty())
      expectOp(",");
    if (isOp("]"))
      break;
    add(*e, parseExpression(true));
  }
  expectOp("]");
  return e;
}

ExprPtr Parser::parseDict() {
  ExprPtr e = make(Expr::Kind::Dict, cur());
  expectOp("{");
  while (!isOp("}")) {
    if (!e->args.empty())
      expectOp(",");
    if (isOp("}"))
      break;
    add(*e, parseExpression(true));
    expectOp(":");
    add(*e, parseExpression(true));
  }
  expectOp("}");
  return e;
}

ExprPtr Parser::parsePostfix(ExprPtr node) {
  while (true) {
    if (isOp(".") || isOp("["))
      node = parseSubscript(std::move(node));
    else if (isOp("("))
      node = parseCall(std::move(node));
    else
      return node;
  }
}

ExprPtr Parser::parseFilterExpr(ExprPtr node) {
  while (true) {
    if (isOp("|"))
      node = parseFilter(std::move(node), false);
    else if (isName("is"))
      node = parseTest(std::move(node));
    else if (isOp("("))
      node = parseCall(std::move(node));
    else
      return node;
  }
}

ExprPtr Parser::parseSubscript(ExprPtr node) {
  const Token at = cur();
  next();
  if (at.text == ".") {
    const Token attr = cur();
    next();
    if (attr.type == Tok::Name) {
      ExprPtr e = make(Expr::Kind::Getattr, at);
      e->name = attr.text;
      add(*e, std::move(node));
      return e;
    }
    if (attr.type != Tok::Integer)
      fail(attr, "expected name or number");
    ExprPtr e = make(Expr::Kind::Getitem, at);
    add(*e, std::move(node));
    add(*e, constant(attr, Value::integer(attr.integer)));
    return e;
  }
  std::vector<ExprPtr> args;
  while (!isOp("]")) {
    if (!args.empty())
      expectOp(",");
    args.push_back(parseSubscribed(node));
  }
  expectOp("]");
  if (args.size() == 1 && args[0] && args[0]->kind == Expr::Kind::Slice)
    return std::move(args[0]);
  ExprPtr e = make(Expr::Kind::Getitem, at);
  add(*e, std::move(node));
  if (args.size() == 1) {
    add(*e, std::move(args[0]));
  } else {
    ExprPtr tuple = make(Expr::Kind::Tuple, at);
    for (ExprPtr &a : args) {
      if (a->kind == Expr::Kind::Slice)
        fail(at, "multi-dimensional slices are not supported");
      add(*tuple, std::move(a));
    }
    add(*e, std::move(tuple));
  }
  return e;
}

/// One subscript: an expression, or a slice (returned as a Slice whose args[0] is
/// taken from `node` by the caller).
ExprPtr Parser::parseSubscribed(ExprPtr &node) {
  const Token at = cur();
  ExprPtr start;
  if (!isOp(":")) {
    start = parseExpression(true);
    if (!isOp(":"))
      return start;
  }
  next(); // ':'
  ExprPtr stop, step;
  if (!isOp(":") && !isOp("]") && !isOp(","))
    stop = parseExpression(true);
  if (skipOp(":"))
    if (!isOp("]") && !isOp(","))
      step = parseExpression(true);
  ExprPtr e = make(Expr::Kind::Slice, at);
  add(*e, std::move(node));
  add(*e, std::move(start));
  add(*e, std::move(stop));
  add(*e, std::move(step));
  return e;
}

void Parser::parseCallArgs(Expr &e) {
  expectOp("(");
  while (!isOp(")")) {
    if (e.args.size() > 1 || !e.kwargs.empty()) {
      expectOp(",");
      if (isOp(")"))
        break;
    }
    if (isOp("*") || isOp("**"))
      fail(cur(), "*args and **kwargs in calls are not supported");
    if (cur().type == Tok::Name && peek().type == Tok::Operator && peek().text == "=") {
      std::string key = cur().text;
      next();
      next();
      ExprPtr value = parseExpression(true);
      e.depth = std::max(e.depth, value->depth + 1);
      e.kwargs.emplace_back(std::move(key), std::move(value));
    } else {
      if (!e.kwargs.empty())
        fail(cur(), "invalid syntax for function call expression");
      add(e, parseExpression(true));
    }
  }
  next();
  if (e.depth > kMaxExprDepth)
    fail(cur(), "expression nested too deeply (over " + std::to_string(kMaxExprDepth) + " levels)");
}

ExprPtr Parser::parseCall(ExprPtr node) {
  ExprPtr e = make(Expr::Kind::Call, cur());
  add(*e, std::move(node));
  parseCallArgs(*e);
  return e;
}

std::string Parser::dottedName() {
  std::string name = expectName();
  while (skipOp("."))
    name += "." + expectName();
  return name;
}

/// `| name(args) | ...`; node null for a filter block or block set.
ExprPtr Parser::parseFilter(ExprPtr node, bool startInline) {
  while (isOp("|") || startInline) {
    if (!startInline)
      next();
    startInline = false;
    const Token at = cur();
    ExprPtr e = make(Expr::Kind::Filter, at);
    e->name = dottedName();
    bool known = false;
    const FilterDef *def = findFilter(e->name, &known);
    if (!def)
      fail(at,
           known ? "the '" + e->name + "' filter is not supported in chat templates"
                 : "No filter named '" + e->name + "'.",
           "TemplateAssertionError");
    e->builtin = def;
    add(*e, std::move(node));
    if (isOp("("))
      parseCallArgs(*e);
    node = std::move(e);
  }
  return node;
}

ExprPtr Parser::parseTest(ExprPtr node) {
  const Token at = cur();
  next(); // is
  const bool negated = skipName("not");
  const Token nameAt = cur();
  ExprPtr e = make(Expr::Kind::Test, at);
  e->name = dottedName();
  bool known = false;
  const TestDef *def = findTest(e->name, &known);
  if (!def)
    fail(nameAt,
         known ? "the '" + e->name + "' test is not supported in chat templates"
               : "No test named '" + e->name + "'.",
         "TemplateAssertionError");
  e->builtin = def;
  add(*e, std::move(node));
  if (isOp("(")) {
    parseCallArgs(*e);
  } else if ((cur().type == Tok::Name || cur().type == Tok::String || cur().type == Tok::Integer ||
              cur().type == Tok::Float || isOp("(") || isOp("[") || isOp("{")) &&
             !isName("else") && !isName("or") && !isName("and")) {
    if (isName("is"))
      fail(cur(), "You cannot chain multiple tests with is");
    add(*e, parsePostfix(parsePrimary()));
  }
  if (!negated)
    return e;
  ExprPtr n = make(Expr::Kind::Unary, at);
  n->name = "not";
  add(*n, std::move(e));
  return n;
}

} // namespace mm::rt::jinja

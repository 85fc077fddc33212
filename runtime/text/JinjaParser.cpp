//===- JinjaParser.cpp - tokens to a syntax tree: statements -------------===//
//
// The statement half of the parser (JinjaParser.h): the template body, the block tags
// (for, if, set, macro, filter, with, generation, break/continue) and assignment
// targets. Tags jinja2 has but chat templates do not need (extends, include, call, ...)
// are errors that name the tag; unknown tags get jinja2's message.
//
//===----------------------------------------------------------------------===//
#include "runtime/text/JinjaParser.h"

namespace mm::rt::jinja {
namespace {

const char *const kUnsupportedTags[] = {"extends", "block",      "include", "import",   "from",
                                        "call",    "autoescape", "trans",   "pluralize"};

} // namespace

std::string Parser::describe(const Token &t) {
  switch (t.type) {
  case Tok::Name:
  case Tok::Operator:
    return t.text;
  case Tok::String:
    return "string";
  case Tok::Integer:
    return "integer";
  case Tok::Float:
    return "float";
  case Tok::Data:
    return "template data / text";
  case Tok::VariableBegin:
    return "begin of print statement";
  case Tok::VariableEnd:
    return "end of print statement";
  case Tok::BlockBegin:
    return "begin of statement block";
  case Tok::BlockEnd:
    return "end of statement block";
  case Tok::End:
    return "end of template";
  }
  return "token";
}

/// Parses until a block tag named in `stop` (left as the current token, after its
/// `{%`) or, with `stop` empty, the end of the template.
Body Parser::subparse(std::initializer_list<const char *> stop) {
  Body body;
  while (true) {
    const Token &t = cur();
    switch (t.type) {
    case Tok::Data: {
      NodePtr n = makeNode(Node::Kind::Text, t);
      n->text = t.text;
      body.push_back(std::move(n));
      next();
      break;
    }
    case Tok::VariableBegin: {
      NodePtr n = makeNode(Node::Kind::Output, t);
      next();
      n->exprs.push_back(parseTuple(false, true, {}, false));
      expect(Tok::VariableEnd, "end of print statement");
      body.push_back(std::move(n));
      break;
    }
    case Tok::BlockBegin: {
      next();
      if (cur().type == Tok::Name)
        for (const char *s : stop)
          if (cur().text == s)
            return body;
      body.push_back(parseStatement());
      break;
    }
    case Tok::End:
      if (stop.size() != 0)
        fail(t, "Unexpected end of template." + lookingFor(stop));
      return body;
    default:
      fail(t, "unexpected '" + describe(t) + "'");
    }
  }
}

std::string Parser::lookingFor(std::initializer_list<const char *> stop) const {
  if (stop.size() == 0)
    return "";
  std::string s = " Jinja was looking for the following tags: ";
  size_t k = 0;
  for (const char *tag : stop) {
    s += k == 0 ? "" : " or ";
    s += "'" + std::string(tag) + "'";
    ++k;
  }
  return s + ". The innermost block that needs to be closed is '" + open_.back() + "'.";
}

/// Parses the body of a block opened by `tag` up to one of `stop`; the stop tag's name
/// is the current token afterwards.
Body Parser::block(const char *tag, const Token &at, std::initializer_list<const char *> stop) {
  NestingGuard guard(*this, at);
  open_.push_back(tag);
  stops_.push_back(stop);
  Body body = subparse(stop);
  stops_.pop_back();
  open_.pop_back();
  return body;
}

NodePtr Parser::parseStatement() {
  const Token &t = cur();
  if (t.type != Tok::Name)
    fail(t, "tag name expected");
  const std::string &tag = t.text;
  if (tag == "for")
    return parseFor();
  if (tag == "if")
    return parseIf();
  if (tag == "set")
    return parseSet();
  if (tag == "macro")
    return parseMacro();
  if (tag == "filter")
    return parseFilterBlock();
  if (tag == "with")
    return parseWith();
  if (tag == "generation")
    return parseScope("generation", "endgeneration");
  if (tag == "break" || tag == "continue")
    return parseLoopControl();
  for (const char *unsupported : kUnsupportedTags)
    if (tag == unsupported)
      fail(t, "the '" + tag + "' tag is not supported in chat templates");
  std::string message = "Encountered unknown tag '" + tag + "'.";
  if (!stops_.empty())
    message += lookingFor(stops_.back());
  fail(t, message);
}

NodePtr Parser::parseFor() {
  const Token at = cur();
  NodePtr n = makeNode(Node::Kind::For, at);
  next();
  n->target = parseAssignTarget({"in"});
  expectDescribed(isName("in"), "in");
  next();
  n->exprs.push_back(parseTuple(false, false, {"recursive"}, false));
  if (skipName("if")) {
    n->hasFilter = true;
    n->exprs.push_back(parseExpression(true));
  }
  if (isName("recursive"))
    fail(cur(), "recursive loops are not supported in chat templates");
  expectBlockEnd();
  ++loops_;
  n->bodies.push_back(block("for", at, {"endfor", "else"}));
  --loops_;
  if (skipName("else")) {
    expectBlockEnd();
    n->bodies.push_back(block("for", at, {"endfor"}));
  } else {
    n->bodies.emplace_back();
  }
  next(); // endfor
  expectBlockEnd();
  return n;
}

NodePtr Parser::parseIf() {
  const Token at = cur();
  NodePtr n = makeNode(Node::Kind::If, at);
  next();
  n->exprs.push_back(parseTuple(false, false, {}, false));
  expectBlockEnd();
  n->bodies.push_back(block("if", at, {"elif", "else", "endif"}));
  while (true) {
    if (skipName("elif")) {
      n->exprs.push_back(parseTuple(false, false, {}, false));
      expectBlockEnd();
      n->bodies.push_back(block("if", at, {"elif", "else", "endif"}));
    } else if (skipName("else")) {
      expectBlockEnd();
      n->bodies.push_back(block("if", at, {"endif"}));
      break;
    } else {
      break;
    }
  }
  next(); // endif
  expectBlockEnd();
  return n;
}

NodePtr Parser::parseSet() {
  const Token at = cur();
  next();
  Target target = parseAssignTarget({}, true);
  if (skipOp("=")) {
    NodePtr n = makeNode(Node::Kind::Set, at);
    n->target = std::move(target);
    n->exprs.push_back(parseTuple(false, true, {}, false));
    expectBlockEnd();
    return n;
  }
  NodePtr n = makeNode(Node::Kind::SetBlock, at);
  n->target = std::move(target);
  if (n->target.isTuple)
    fail(at, "a block set assigns one name");
  if (isOp("|"))
    n->exprs.push_back(parseFilter(nullptr, false));
  expectBlockEnd();
  n->bodies.push_back(block("set", at, {"endset"}));
  next(); // endset
  expectBlockEnd();
  return n;
}

NodePtr Parser::parseMacro() {
  const Token at = cur();
  NodePtr n = makeNode(Node::Kind::Macro, at);
  next();
  auto macro = std::make_unique<MacroDef>();
  macro->line = at.line;
  macro->name = expectName();
  expectOp("(");
  while (!isOp(")")) {
    if (!macro->params.empty())
      expectOp(",");
    const Token &p = cur();
    std::string param = expectName();
    ExprPtr def;
    if (skipOp("="))
      def = parseExpression(true);
    else if (!macro->params.empty() && macro->params.back().second)
      fail(p, "non-default argument follows default argument");
    macro->params.emplace_back(std::move(param), std::move(def));
  }
  next();
  expectBlockEnd();
  const int savedLoops = loops_;
  loops_ = 0;
  macros_.push_back(macro.get());
  macro->body = block("macro", at, {"endmacro"});
  macros_.pop_back();
  loops_ = savedLoops;
  next(); // endmacro
  expectBlockEnd();
  n->macro = std::move(macro);
  return n;
}

NodePtr Parser::parseFilterBlock() {
  const Token at = cur();
  NodePtr n = makeNode(Node::Kind::FilterBlock, at);
  next();
  n->exprs.push_back(parseFilter(nullptr, true));
  expectBlockEnd();
  n->bodies.push_back(block("filter", at, {"endfilter"}));
  next();
  expectBlockEnd();
  return n;
}

NodePtr Parser::parseWith() {
  const Token at = cur();
  NodePtr n = makeNode(Node::Kind::With, at);
  next();
  while (cur().type != Tok::BlockEnd) {
    if (!n->targets.empty())
      expectOp(",");
    n->targets.push_back(parseAssignTarget({}, false));
    expectOp("=");
    n->exprs.push_back(parseExpression(true));
  }
  next();
  n->bodies.push_back(block("with", at, {"endwith"}));
  next();
  expectBlockEnd();
  return n;
}

NodePtr Parser::parseScope(const char *tag, const char *endTag) {
  const Token at = cur();
  NodePtr n = makeNode(Node::Kind::Scope, at);
  next();
  expectBlockEnd();
  // jinja2 renders the body as a call block (a macro): no break/continue inside.
  const int savedLoops = loops_;
  loops_ = 0;
  n->bodies.push_back(block(tag, at, {endTag}));
  loops_ = savedLoops;
  next();
  expectBlockEnd();
  return n;
}

NodePtr Parser::parseLoopControl() {
  const Token at = cur();
  const bool isBreak = at.text == "break";
  if (loops_ == 0)
    fail(at, std::string("'") + at.text + "' outside loop");
  NodePtr n = makeNode(isBreak ? Node::Kind::Break : Node::Kind::Continue, at);
  next();
  expectBlockEnd();
  return n;
}

bool Parser::isTupleEnd(std::initializer_list<const char *> extraEnd) const {
  if (cur().type == Tok::VariableEnd || cur().type == Tok::BlockEnd || isOp(")"))
    return true;
  for (const char *name : extraEnd)
    if (isName(name))
      return true;
  return false;
}

Target Parser::parseAssignTarget(std::initializer_list<const char *> extraEnd, bool withNamespace) {
  if (withNamespace && cur().type == Tok::Name && peek().type == Tok::Operator &&
      peek().text == ".") {
    Target t;
    t.name = cur().text;
    next();
    next();
    t.attr = expectName();
    return t;
  }
  return parseTargetTuple(extraEnd, false);
}

Target Parser::parseTargetTuple(std::initializer_list<const char *> extraEnd, bool parenthesized) {
  Target tuple;
  bool isTuple = false;
  while (true) {
    if (!tuple.elements.empty())
      expectOp(",");
    if (isTupleEnd(extraEnd))
      break;
    tuple.elements.push_back(parseTargetPrimary());
    if (isOp(","))
      isTuple = true;
    else
      break;
  }
  if (!isTuple) {
    if (tuple.elements.empty())
      fail(cur(), "Expected an expression, got '" + describe(cur()) + "'");
    if (!parenthesized || tuple.elements.size() == 1)
      return std::move(tuple.elements[0]);
  }
  tuple.isTuple = true;
  return tuple;
}

Target Parser::parseTargetPrimary() {
  const Token &t = cur();
  if (t.type == Tok::Name) {
    static const char *const kConstants[] = {"true", "false", "none", "True", "False", "None"};
    for (const char *c : kConstants)
      if (t.text == c)
        fail(t, "can't assign to 'const'");
    Target target;
    target.name = t.text;
    next();
    return target;
  }
  if (skipOp("(")) {
    Target target = parseTargetTuple({}, true);
    expectOp(")");
    return target;
  }
  if (t.type == Tok::String || t.type == Tok::Integer || t.type == Tok::Float)
    fail(t, "can't assign to 'const'");
  fail(t, "can't assign to '" + describe(t) + "'");
}

std::unique_ptr<Template> parseTemplate(const std::vector<Token> &tokens, std::string name) {
  auto t = std::make_unique<Template>();
  t->name = std::move(name);
  t->body = Parser(tokens).parseAll();
  return t;
}

} // namespace mm::rt::jinja

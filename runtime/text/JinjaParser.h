//===- JinjaParser.h - the template parser (private) -----------------------===//
//
// The recursive-descent parser behind parseTemplate(), shared by JinjaParser.cpp
// (statements and assignment targets) and JinjaParseExpr.cpp (expressions). It follows
// jinja2/parser.py: the same grammar, precedence and error messages.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_TEXT_JINJAPARSER_H
#define MM_RUNTIME_TEXT_JINJAPARSER_H

#include "runtime/text/Jinja.h"

#include <algorithm>
#include <initializer_list>

namespace mm::rt::jinja {

/// Blocks nest at most this deep, expressions at most this high: rendering recurses over
/// the tree, so this bounds its stack use.
constexpr int kMaxBlockNesting = 100;
constexpr int kMaxExprDepth = 200;

class Parser {
public:
  explicit Parser(const std::vector<Token> &tokens) : t_(tokens) {}

  Body parseAll() { return subparse({}); }

private:
  // ---- token helpers ----

  const Token &cur() const { return t_[i_]; }
  const Token &peek() const { return t_[std::min(i_ + 1, t_.size() - 1)]; }
  void next() {
    if (i_ + 1 < t_.size())
      ++i_;
  }
  bool isName(const char *name) const { return cur().type == Tok::Name && cur().text == name; }
  bool isOp(const char *op) const { return cur().type == Tok::Operator && cur().text == op; }
  bool skipName(const char *name) {
    if (!isName(name))
      return false;
    next();
    return true;
  }
  bool skipOp(const char *op) {
    if (!isOp(op))
      return false;
    next();
    return true;
  }

  /// jinja2's describe_token: how an error message names a token.
  static std::string describe(const Token &t);

  [[noreturn]] void fail(const Token &at, const std::string &message,
                         const char *type = "TemplateSyntaxError") const {
    throw Failure{type, message, at.line, at.column};
  }

  void expectDescribed(bool ok, const std::string &what) {
    if (ok)
      return;
    if (cur().type == Tok::End)
      fail(cur(), "unexpected end of template, expected '" + what + "'.");
    fail(cur(), "expected token '" + what + "', got '" + describe(cur()) + "'");
  }
  void expect(Tok type, const char *what) {
    expectDescribed(cur().type == type, what);
    next();
  }
  void expectOp(const char *op) {
    expectDescribed(isOp(op), op);
    next();
  }
  void expectBlockEnd() { expect(Tok::BlockEnd, "end of statement block"); }
  std::string expectName() {
    expectDescribed(cur().type == Tok::Name, "name");
    std::string name = cur().text;
    next();
    return name;
  }

  // ---- tree helpers ----

  ExprPtr make(Expr::Kind kind, const Token &at) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->line = at.line;
    e->column = at.column;
    return e;
  }

  /// Appends a child, keeping the subtree height bounded.
  void add(Expr &e, ExprPtr child) {
    if (child) {
      e.depth = std::max(e.depth, child->depth + 1);
      if (e.depth > kMaxExprDepth)
        fail(cur(),
             "expression nested too deeply (over " + std::to_string(kMaxExprDepth) + " levels)");
    }
    e.args.push_back(std::move(child));
  }

  ExprPtr makeBinary(Expr::Kind kind, const std::string &op, ExprPtr left, ExprPtr right,
                     const Token &at) {
    ExprPtr e = make(kind, at);
    e->name = op;
    add(*e, std::move(left));
    add(*e, std::move(right));
    return e;
  }

  NodePtr makeNode(Node::Kind kind, const Token &at) {
    auto n = std::make_unique<Node>();
    n->kind = kind;
    n->line = at.line;
    n->column = at.column;
    return n;
  }

  /// Counts one level of block nesting while a block body is parsed.
  struct NestingGuard {
    NestingGuard(Parser &parser, const Token &at) : parser_(parser) {
      if (++parser_.nesting_ > kMaxBlockNesting)
        parser_.fail(at, "blocks nested too deeply (over " + std::to_string(kMaxBlockNesting) +
                             " levels)");
    }
    ~NestingGuard() { --parser_.nesting_; }
    Parser &parser_;
  };

  // ---- statements (JinjaParser.cpp) ----

  /// Parses until a block tag named in `stop` (left as the current token, after its
  /// `{%`) or, with `stop` empty, the end of the template.
  Body subparse(std::initializer_list<const char *> stop);
  std::string lookingFor(std::initializer_list<const char *> stop) const;
  /// Parses the body of a block opened by `tag` up to one of `stop`; the stop tag's name
  /// is the current token afterwards.
  Body block(const char *tag, const Token &at, std::initializer_list<const char *> stop);
  NodePtr parseStatement();
  NodePtr parseFor();
  NodePtr parseIf();
  NodePtr parseSet();
  NodePtr parseMacro();
  NodePtr parseFilterBlock();
  NodePtr parseWith();
  NodePtr parseScope(const char *tag, const char *endTag);
  NodePtr parseLoopControl();

  // ---- assignment targets (JinjaParser.cpp) ----

  bool isTupleEnd(std::initializer_list<const char *> extraEnd) const;
  Target parseAssignTarget(std::initializer_list<const char *> extraEnd,
                           bool withNamespace = false);
  Target parseTargetTuple(std::initializer_list<const char *> extraEnd, bool parenthesized);
  Target parseTargetPrimary();

  // ---- expressions (JinjaParseExpr.cpp), jinja2's precedence from low to high ----

  ExprPtr parseExpression(bool withCondexpr);
  ExprPtr parseCondexpr();
  ExprPtr parseOr();
  ExprPtr parseAnd();
  ExprPtr parseNot();
  ExprPtr parseCompare();
  ExprPtr parseMath1();
  ExprPtr parseConcat();
  ExprPtr parseMath2();
  ExprPtr parsePow();
  ExprPtr parseUnary(bool withFilter);
  ExprPtr constant(const Token &at, Value v);
  ExprPtr parsePrimary();
  ExprPtr parseTuple(bool simplified, bool withCondexpr,
                     std::initializer_list<const char *> extraEnd, bool explicitParens);
  ExprPtr parseList();
  ExprPtr parseDict();
  ExprPtr parsePostfix(ExprPtr node);
  ExprPtr parseFilterExpr(ExprPtr node);
  ExprPtr parseSubscript(ExprPtr node);
  /// One subscript: an expression, or a slice (returned as a Slice whose args[0] is
  /// taken from `node` by the caller).
  ExprPtr parseSubscribed(ExprPtr &node);
  void parseCallArgs(Expr &e);
  ExprPtr parseCall(ExprPtr node);
  std::string dottedName();
  /// `| name(args) | ...`; node null for a filter block or block set.
  ExprPtr parseFilter(ExprPtr node, bool startInline);
  ExprPtr parseTest(ExprPtr node);

  // ---- state ----

  const std::vector<Token> &t_;
  size_t i_ = 0;
  int nesting_ = 0, exprNesting_ = 0, loops_ = 0;
  std::vector<const char *> open_;
  std::vector<std::initializer_list<const char *>> stops_;
  std::vector<MacroDef *> macros_;
};

} // namespace mm::rt::jinja

#endif // MM_RUNTIME_TEXT_JINJAPARSER_H

//===- ChatTemplateTest.cpp - chat templates against jinja2 ---------------===//
//
// Renders every case of Inputs/chat_templates/chat_goldens.json (real chat templates
// over many conversations, and mini-templates for each Jinja feature; all rendered by
// jinja2 in transformers' environment by gen_chat_goldens.py) and requires byte-identical
// output, or an error containing jinja2's message. Then: parse errors name line and
// column, and pathological templates and inputs fail cleanly within the limits.
//
//===----------------------------------------------------------------------===//
#include "runtime/text/ChatTemplate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <sstream>

namespace {

using mm::rt::ChatTemplate;
using mm::rt::ChatTemplateError;
using mm::rt::ChatTemplateOptions;
using ojson = nlohmann::ordered_json;

const std::string kInputs = MM_CHAT_TEMPLATE_INPUTS;

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot open " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// gen_chat_goldens.py's NOW: 2024-07-26 14:05:09.
ChatTemplateOptions fixedClock() {
  std::tm t{};
  t.tm_year = 2024 - 1900;
  t.tm_mon = 6;
  t.tm_mday = 26;
  t.tm_hour = 14;
  t.tm_min = 5;
  t.tm_sec = 9;
  const std::time_t secs = timegm(&t); // fills in tm_wday and tm_yday
  gmtime_r(&secs, &t);
  ChatTemplateOptions options;
  options.now = t;
  return options;
}

const ojson &goldens() {
  static const ojson g = ojson::parse(readFile(kInputs + "/chat_goldens.json"));
  return g;
}

/// Case groups: the template family ("llama3") or "mini".
std::vector<std::string> groups() {
  std::vector<std::string> out;
  for (const ojson &c : goldens()["cases"]) {
    const std::string name = c["name"];
    const std::string group = name.substr(0, name.find('/'));
    if (std::find(out.begin(), out.end(), group) == out.end())
      out.push_back(group);
  }
  return out;
}

std::string describe(const std::string &s) { return ojson(s).dump(); }

class GoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenTest, MatchesJinja2) {
  std::map<std::string, ChatTemplate> templates;
  int cases = 0;
  for (const ojson &c : goldens()["cases"]) {
    const std::string name = c["name"];
    if (name.substr(0, name.find('/')) != GetParam())
      continue;
    ++cases;
    SCOPED_TRACE(name);
    try {
      const std::string source = c.contains("template")
                                     ? readFile(kInputs + "/" + c["template"].get<std::string>())
                                     : c["source"].get<std::string>();
      const ChatTemplate t = ChatTemplate::parse(source, name);
      const std::string out = t.render(c["context"], fixedClock());
      if (c.contains("error"))
        ADD_FAILURE() << "expected " << c["error_type"].get<std::string>() << ": "
                      << c["error"].get<std::string>() << "\ngot output " << describe(out);
      else
        EXPECT_EQ(describe(out), describe(c["output"].get<std::string>()));
    } catch (const ChatTemplateError &e) {
      if (!c.contains("error"))
        ADD_FAILURE() << "unexpected error: " << e.what() << "\nexpected output "
                      << describe(c["output"].get<std::string>());
      else
        EXPECT_NE(e.message().find(c["error"].get<std::string>()), std::string::npos)
            << "error " << describe(e.what()) << "\nexpected it to contain "
            << c["error_type"].get<std::string>() << ": " << describe(c["error"]);
    }
  }
  EXPECT_GT(cases, 0);
}

INSTANTIATE_TEST_SUITE_P(ChatTemplate, GoldenTest, ::testing::ValuesIn(groups()),
                         [](const ::testing::TestParamInfo<std::string> &info) {
                           std::string n = info.param;
                           for (char &ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch)))
                               ch = '_';
                           return n;
                         });

// ---- the public API ---------------------------------------------------------------------

TEST(ChatTemplateTest, ApplyBuildsTransformersContext) {
  const ChatTemplate t = ChatTemplate::parse(readFile(kInputs + "/llama3.jinja"), "llama3");
  const ojson messages = ojson::parse(R"([{"role": "user", "content": " Hi! "}])");
  EXPECT_EQ(t.apply(messages, true, "<|begin_of_text|>", "<|end_of_text|>"),
            "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi!<|eot_id|>"
            "<|start_header_id|>assistant<|end_header_id|>\n\n");
  const ojson context = ChatTemplate::makeContext(messages, false, std::nullopt, "</s>",
                                                  ojson{{"tools", ojson::array()}});
  EXPECT_EQ(context.dump(), R"({"messages":[{"role":"user","content":" Hi! "}],"tools":[],)"
                            R"("documents":null,"add_generation_prompt":false,)"
                            R"("eos_token":"</s>"})");
  const ChatTemplate probe = ChatTemplate::parse(
      "{{ bos_token is defined }} {{ tools is none }} {{ documents is none }}", "probe");
  EXPECT_EQ(probe.apply(messages, false, std::nullopt, std::nullopt), "False True True");
}

TEST(ChatTemplateTest, KeyOrder) {
  const ChatTemplate t = ChatTemplate::parse("{{ x|tojson }}", "order");
  EXPECT_EQ(t.render(ojson::parse(R"({"x": {"b": 1, "a": 2}})")), R"({"b": 1, "a": 2})");
  // A plain nlohmann::json sorts its keys before the template sees them.
  EXPECT_EQ(t.render(nlohmann::json::parse(R"({"x": {"b": 1, "a": 2}})")), R"({"a": 2, "b": 1})");
}

TEST(ChatTemplateTest, StrftimeNowUsesTheClock) {
  const ChatTemplate t = ChatTemplate::parse("{{ strftime_now('%Y') }}", "clock");
  EXPECT_EQ(t.render(ojson::object(), fixedClock()), "2024");
  EXPECT_EQ(t.render(ojson::object()).size(), 4u); // the current year
}

TEST(ChatTemplateTest, RaiseExceptionMessage) {
  const ChatTemplate t =
      ChatTemplate::parse("line one\n{{ raise_exception('Roles must alternate!') }}", "m");
  try {
    t.render(ojson::object());
    FAIL() << "no error";
  } catch (const ChatTemplateError &e) {
    EXPECT_EQ(e.message(), "Roles must alternate!");
    EXPECT_EQ(e.line(), 2);
    EXPECT_EQ(std::string(e.what()), "chat template 'm' line 2: Roles must alternate!");
  }
}

TEST(ChatTemplateTest, ContextMustBeAnObject) {
  const ChatTemplate t = ChatTemplate::parse("x", "c");
  EXPECT_THROW(t.render(ojson::array()), ChatTemplateError);
  EXPECT_THROW(t.render(ojson::parse(R"({"x": 18446744073709551615})")), ChatTemplateError);
}

// ---- parse errors -----------------------------------------------------------------------

struct ParseErrorCase {
  const char *source;
  int line, column;
  const char *message;
};

TEST(ChatTemplateTest, ParseErrorsNameLineAndColumn) {
  const ParseErrorCase cases[] = {
      {"{% for x in y %}", 1, 17,
       "Unexpected end of template. Jinja was looking for the following tags: 'endfor' or "
       "'else'. The innermost block that needs to be closed is 'for'."},
      {"a\n{% if x %}\n{% for y in z %}b", 3, 18,
       "The innermost block that needs to be closed "
       "is 'for'."},
      {"{% for x in y %}{% endif %}", 1, 20, "Encountered unknown tag 'endif'."},
      {"\n  {{ x", 2, 3, "missing '}}' for the tag opened here"},
      {"{{ x }", 1, 6, "unexpected '}'"},
      {"{% if %}", 1, 7, "Expected an expression, got 'end of statement block'"},
      {"x\n\n  {{ 1 + }}", 3, 10, "unexpected 'end of print statement'"},
      {"{{ (1 }}", 1, 7, "unexpected '}', expected ')'"},
      {"{{ [1, 2 }}", 1, 10, "unexpected '}', expected ']'"},
      {"{{ x | }}", 1, 8, "expected token 'name', got 'end of print statement'"},
      {"{{ 'x'|foo }}", 1, 8, "No filter named 'foo'."},
      {"é{{ 'x' is foo }}", 1, 12, "No test named 'foo'."},
      {"{% foo %}", 1, 4, "Encountered unknown tag 'foo'."},
      {"{% include 'x' %}", 1, 4, "the 'include' tag is not supported in chat templates"},
      {"{% call f() %}{% endcall %}", 1, 4, "the 'call' tag is not supported"},
      {"{{ 'x'|truncate(3) }}", 1, 8, "the 'truncate' filter is not supported"},
      {"{% for x in y recursive %}{% endfor %}", 1, 15, "recursive loops are not supported"},
      {"{% set 1 = 2 %}", 1, 8, "can't assign to 'const'"},
      {"{% macro f(a=1, b) %}{% endmacro %}", 1, 17,
       "non-default argument follows default argument"},
      {"{{ f(a=1, 2) }}", 1, 11, "invalid syntax for function call expression"},
      {"{{ 'abc }}", 1, 4, "unterminated string literal"},
      {"{# x ", 1, 1, "Missing end of comment tag"},
      {"{% raw %}x", 1, 1, "Missing end of raw directive"},
      {"{{ x $ }}", 1, 6, "unexpected char '$'"},
      {"{% break %}", 1, 4, "'break' outside loop"},
      {"{{ }}", 1, 4, "Expected an expression, got 'end of print statement'"},
      {"{% %}", 1, 4, "tag name expected"},
      {"{{ '\\N{BULLET}' }}", 1, 4, "\\N{...} escapes are not supported"},
      {"{{ 99999999999999999999 }}", 1, 4, "does not fit in 64 bits"},
      {"\xff", 1, 1, "template is not valid UTF-8"},
  };
  for (const ParseErrorCase &c : cases) {
    SCOPED_TRACE(c.source);
    try {
      ChatTemplate::parse(c.source, "bad");
      ADD_FAILURE() << "parsed";
    } catch (const ChatTemplateError &e) {
      EXPECT_NE(e.message().find(c.message), std::string::npos) << e.what();
      EXPECT_EQ(e.line(), c.line) << e.what();
      EXPECT_EQ(e.column(), c.column) << e.what();
      const std::string where = "chat template 'bad' line " + std::to_string(c.line) + ", column " +
                                std::to_string(c.column) + ": ";
      EXPECT_EQ(std::string(e.what()).rfind(where, 0), 0u) << e.what();
    }
  }
}

// ---- pathological inputs ----------------------------------------------------------------

std::string repeat(const std::string &s, int n) {
  std::string out;
  for (int k = 0; k < n; ++k)
    out += s;
  return out;
}

/// Parsing or rendering `source` fails with a message containing `expected`.
void expectFailure(const std::string &source, const std::string &expected,
                   const ojson &context = ojson::object(),
                   const ChatTemplateOptions &options = {}) {
  try {
    ChatTemplate::parse(source, "p").render(context, options);
    ADD_FAILURE() << "no error for " << source.substr(0, 80);
  } catch (const ChatTemplateError &e) {
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
}

TEST(ChatTemplateTest, DeepNestingIsAnError) {
  expectFailure("{{ " + repeat("(", 10000) + "1" + repeat(")", 10000) + " }}", "nested too deeply");
  expectFailure("{{ " + repeat("[", 10000) + repeat("]", 10000) + " }}", "nested too deeply");
  expectFailure("{{ " + repeat("-", 10000) + "1 }}", "nested too deeply");
  expectFailure("{{ " + repeat("not ", 10000) + "1 }}", "nested too deeply");
  expectFailure("{{ x" + repeat(".a", 10000) + " }}", "nested too deeply");
  expectFailure("{{ 1" + repeat(" + 1", 10000) + " }}", "nested too deeply");
  expectFailure("{{ x" + repeat("|trim", 10000) + " }}", "nested too deeply");
  expectFailure(repeat("{% if true %}", 10000) + repeat("{% endif %}", 10000),
                "blocks nested too deeply");
  expectFailure(repeat("{% for x in y %}", 10000), "blocks nested too deeply");
  expectFailure("{{ 1 if x else " + repeat("2 if y else ", 10000) + "3 }}", "nested too deeply");
  // A long flat expression is fine.
  const ChatTemplate t = ChatTemplate::parse("{{ 'a'" + repeat(" ~ 'a'", 10000) + " }}", "flat");
  EXPECT_EQ(t.render(ojson::object()).size(), 10001u);
}

TEST(ChatTemplateTest, DeepContextIsAnError) {
  const ojson deep = ojson::parse(repeat("[", 5000) + repeat("]", 5000));
  expectFailure("{{ x }}", "nests deeper than", ojson{{"x", deep}});
  // Values built by the template are bounded too.
  expectFailure("{% set ns = namespace(x=[]) %}{% for i in range(1000) %}"
                "{% set ns.x = [ns.x] %}{% endfor %}{{ ns.x }}",
                "nested over");
  expectFailure("{% set ns = namespace() %}{% set ns.me = [ns] %}",
                "storing a namespace, loop or macro inside a namespace is not supported");
}

TEST(ChatTemplateTest, LoopsAreBounded) {
  expectFailure("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}"
                "{% endfor %}",
                "more than 1000000 loop iterations");
  ChatTemplateOptions small;
  small.maxLoopIterations = 10;
  expectFailure("{% for i in range(11) %}{% endfor %}", "more than 10 loop iterations",
                ojson::object(), small);
  expectFailure("{{ range(1000000) }}", "Range too big");
  // Work inside the iterations counts too.
  ChatTemplateOptions work;
  work.maxWork = 1000000;
  expectFailure("{% set big = 'x' * 1000000 %}{% for i in range(100) %}{% set y = big|trim %}"
                "{% endfor %}",
                "more than 1000000 units of work", ojson::object(), work);
  expectFailure("{% set ns = namespace(l=[]) %}{% for i in range(10000) %}"
                "{% set ns.l = ns.l + [i] %}{% endfor %}",
                "units of work", ojson::object(), work);
}

TEST(ChatTemplateTest, OutputIsBounded) {
  expectFailure("{{ 'x' * 100000000 }}", "exceeds the limit of 67108864");
  expectFailure("{{ [1] * 100000000 }}", "list repetition");
  ChatTemplateOptions small;
  small.maxOutputBytes = 1 << 20;
  expectFailure("{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}",
                "exceeds the limit of 1048576", ojson::object(), small);
  expectFailure("{% set ns = namespace(s='xx') %}{% for i in range(64) %}"
                "{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
                "exceeds the limit", ojson::object(), small);
  expectFailure("{{ 'ab'|replace('', 'x' * 400000) }}", "bytes", ojson::object(), small);
  expectFailure("{{ 'ab'|indent(2000000) }}", "exceeds the limit", ojson::object(), small);
  expectFailure("{{ x|tojson(indent=100000) }}", "exceeds the limit",
                ojson{{"x", ojson::parse("[[[[[[[[[[[[1]]]]]]]]]]]]")}}, small);
  expectFailure("{{ 'a'.center(100000000) }}", "exceeds the limit of 67108864");
  // Sizes the template gives are checked before anything is built: these used to run
  // for minutes (center, batch) or throw std::length_error past the renderer (indent).
  expectFailure("{{ 'a'|center(100000000000) }}", "exceeds the limit of 67108864");
  expectFailure("{{ 'a'.rjust(9223372036854775807, 'é') }}", "exceeds the limit of 67108864");
  expectFailure("{{ 'a'.zfill(9223372036854775807) }}", "exceeds the limit of 67108864");
  expectFailure("{{ 'a'|indent(9223372036854775807) }}", "exceeds the limit of 67108864");
  expectFailure("{{ [1]|batch(100000000000, 0)|list }}", "units of work");
  expectFailure("{{ '%99999999999d' % 1 }}", "exceeds the limit of 67108864");
  expectFailure("{{ '%.99999999999f' % 1.0 }}", "exceeds the limit of 67108864");
  ChatTemplateOptions work;
  work.maxWork = 1000000;
  expectFailure("{% set ns = namespace(l=[1]) %}{% for i in range(30) %}"
                "{% set ns.l = ns.l + ns.l %}{% endfor %}",
                "units of work", ojson::object(), work);
}

TEST(ChatTemplateTest, PercentFormatKeepsWidthAndPrecision) {
  // jinja2 renders these in full; widths and precisions used to be cut to 2^20 and 256.
  auto render = [](const std::string &source) {
    return ChatTemplate::parse(source, "fmt").render(ojson::object());
  };
  EXPECT_EQ(render("{{ '%2000000d' % 7 }}"), std::string(1999999, ' ') + "7");
  EXPECT_EQ(render("{{ '%300.2f' % 1.0 }}"), std::string(296, ' ') + "1.00");
  EXPECT_EQ(render("{{ '%.300f' % 0.5 }}"), "0.5" + std::string(299, '0'));
  // 1e300 has 301 integer digits: with 256 decimals, more than a 512-byte buffer.
  const std::string big = render("{{ '%.256f' % 1e300 }}");
  EXPECT_EQ(big.size(), 301u + 1 + 256);
  EXPECT_EQ(big.rfind("1000000000000000052504760255204420248704468581108159154915854115511802", 0),
            0u);
  // The remainder of INT64_MIN by -1 fits in 64 bits (only the quotient does not).
  EXPECT_EQ(render("{{ (-9223372036854775807 - 1) % -1 }}"), "0");
  expectFailure("{{ (-9223372036854775807 - 1) // -1 }}", "integer overflow in //");
}

TEST(ChatTemplateTest, JoinWithAttributeNoneJoinsTheItems) {
  // jinja2's do_join maps an attribute only when it is not None.
  const ChatTemplate t = ChatTemplate::parse("{{ ['a', 'b']|join('-', attribute=none) }}", "j");
  EXPECT_EQ(t.render(ojson::object()), "a-b");
}

TEST(ChatTemplateTest, RecursionIsBounded) {
  expectFailure("{% macro m(n) %}{{ m(n) }}{% endmacro %}{{ m(3) }}",
                "macro calls nested more than 32 deep");
  // Deepest allowed macro recursion, each level inside deep blocks and expressions.
  const std::string body = repeat("{% if true %}", 50) + "{{ m(n - 1) if n > 0 else " +
                           repeat("(", 150) + "1" + repeat(")", 150) + " }}" +
                           repeat("{% endif %}", 50);
  const ChatTemplate t =
      ChatTemplate::parse("{% macro m(n) %}" + body + "{% endmacro %}{{ m(31) }}", "deep");
  EXPECT_EQ(t.render(ojson::object()), "1");
  // The deepest stack the renderer reaches: 98 blocks and 150 filters per macro level.
  const std::string deeper = repeat("{% if true %}", 98) + "{{ (m(n + 1) if n < 31 else '')" +
                             repeat("|trim", 150) + " }}" + repeat("{% endif %}", 98);
  expectFailure("{% macro m(n) %}" + deeper + "{% endmacro %}{{ m(0) }}",
                "more than 2000 levels deep");
}

TEST(ChatTemplateTest, GarbageNeverCrashes) {
  // Byte soup of template syntax: every input must parse or fail with ChatTemplateError.
  const char *pieces[] = {
      "{{", "}}", "{%", "%}", "{#", "#}", "-",   "+",   "(",   ")",      "[",     "]",   "{",   "}",
      "'",  "\"", "\\", "x",  " ",  "\n", "for", "if",  "in",  "endfor", "endif", "set", "=",   "|",
      "is", ".",  ",",  ":",  "1",  "~",  "*",   "not", "raw", "endraw", "macro", "é",   "\x80"};
  uint32_t seed = 12345;
  for (int round = 0; round < 3000; ++round) {
    std::string source;
    const int n = 1 + int(seed % 24);
    for (int k = 0; k < n; ++k) {
      seed = seed * 1664525u + 1013904223u;
      source += pieces[(seed >> 8) % (sizeof(pieces) / sizeof(pieces[0]))];
    }
    try {
      ChatTemplate::parse(source, "fuzz").render(ojson{{"x", ojson::array({1, "a"})}});
    } catch (const ChatTemplateError &) {
    }
  }
}

} // namespace

//===- ChatTemplate.cpp - Hugging Face chat templates ----------------------===//
//
// The public face of the Jinja renderer (Jinja*.cpp): parsing with error positions,
// converting the JSON context into template values, the render limits, and
// transformers' render context.
//
//===----------------------------------------------------------------------===//
#include "runtime/text/ChatTemplate.h"

#include "runtime/text/Jinja.h"

#include <chrono>
#include <limits>
#include <stdexcept>

namespace mm::rt {
namespace {

using json = nlohmann::ordered_json;
namespace jj = jinja;

std::string location(const std::string &what, int line, int column) {
  std::string s = "chat template '" + what + "'";
  if (line > 0)
    s += " line " + std::to_string(line);
  if (column > 0)
    s += ", column " + std::to_string(column);
  return s;
}

/// The failure as ChatTemplateError; Python exception names other than the template's
/// own raise_exception are kept as a prefix ("TypeError: ...") to say what went wrong.
ChatTemplateError toError(const std::string &what, const jj::Failure &f) {
  std::string message = f.message;
  if (f.type != "TemplateError" && f.type != "TemplateSyntaxError")
    message = f.type + ": " + message;
  return ChatTemplateError(what, message, f.line, f.column);
}

template <typename Json> jj::Value fromJson(const Json &j, int depth, const std::string &path) {
  if (depth >= jj::kMaxValueDepth)
    jj::raise("ValueError", "the context nests deeper than ", std::to_string(jj::kMaxValueDepth),
              " levels at ", path);
  using value_t = nlohmann::json::value_t;
  switch (j.type()) {
  case value_t::null:
  case value_t::discarded:
    return jj::Value::none();
  case value_t::boolean:
    return jj::Value::boolean(j.template get<bool>());
  case value_t::number_integer:
    return jj::Value::integer(j.template get<int64_t>());
  case value_t::number_unsigned: {
    const auto u = j.template get<uint64_t>();
    if (u > uint64_t(std::numeric_limits<int64_t>::max()))
      jj::raise("ValueError", "integer ", std::to_string(u), " at ", path,
                " does not fit in 64 bits");
    return jj::Value::integer(int64_t(u));
  }
  case value_t::number_float:
    return jj::Value::number(j.template get<double>());
  case value_t::string: {
    const std::string &s = j.template get_ref<const std::string &>();
    if (jj::findInvalidUtf8(s) != std::string::npos)
      jj::raise("ValueError", "the string at ", path, " is not valid UTF-8");
    return jj::Value::string(s);
  }
  case value_t::array: {
    jj::ValueList items;
    items.reserve(j.size());
    for (size_t k = 0; k < j.size(); ++k)
      items.push_back(fromJson(j[k], depth + 1, path + "[" + std::to_string(k) + "]"));
    return jj::Value::list(std::move(items));
  }
  case value_t::object: {
    auto d = std::make_shared<jj::DictObj>();
    for (const auto &[key, value] : j.items()) {
      if (jj::findInvalidUtf8(key) != std::string::npos)
        jj::raise("ValueError", "a key in ", path, " is not valid UTF-8");
      d->set(jj::Value::string(key), fromJson(value, depth + 1, path + "." + key));
    }
    return jj::Value::dict(std::move(d));
  }
  case value_t::binary:
    jj::raise("ValueError", "binary JSON values are not supported (at ", path, ")");
  }
  return jj::Value::none();
}

} // namespace

ChatTemplateError::ChatTemplateError(const std::string &what, std::string message, int line,
                                     int column)
    : Error(location(what, line, column) + ": " + message), message_(std::move(message)),
      line_(line), column_(column) {}

ChatTemplate::ChatTemplate(std::shared_ptr<const jinja::Template> impl) : impl_(std::move(impl)) {}

ChatTemplate ChatTemplate::parse(const std::string &source, const std::string &what) {
  try {
    const std::vector<jj::Token> tokens = jj::tokenize(source);
    return ChatTemplate(jj::parseTemplate(tokens, what));
  } catch (const jj::Failure &f) {
    throw toError(what, f);
  }
}

const std::string &ChatTemplate::name() const { return impl_->name; }

template <typename Json>
std::string ChatTemplate::renderJson(const Json &context,
                                     const ChatTemplateOptions &options) const {
  if (!context.is_object())
    throw ChatTemplateError(impl_->name, "the render context must be a JSON object", 0, 0);
  // Declared outside the try block: the handlers ask the renderer where it failed.
  std::optional<jj::Value> root;
  std::optional<jj::Renderer> renderer;
  try {
    root = fromJson(context, 0, "context");
    std::tm now{};
    long micros = 0;
    if (options.now) {
      now = *options.now;
    } else {
      const auto t = std::chrono::system_clock::now();
      const std::time_t secs = std::chrono::system_clock::to_time_t(t);
      localtime_r(&secs, &now);
      micros =
          long(std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count() %
               1000000);
    }
    jj::RenderLimits limits;
    limits.maxLoopIterations = options.maxLoopIterations;
    limits.maxStringBytes = options.maxOutputBytes;
    limits.maxCallDepth = options.maxCallDepth;
    limits.maxWork = options.maxWork;
    renderer.emplace(*impl_, root->dict(), limits, now, micros);
    return renderer->render();
  } catch (jj::Failure &f) {
    if (f.line == 0 && renderer)
      f.line = renderer->currentLine();
    throw toError(impl_->name, f);
  } catch (const std::bad_alloc &) {
    throw ChatTemplateError(impl_->name, "out of memory while rendering",
                            renderer ? renderer->currentLine() : 0, 0);
  } catch (const std::length_error &) { // a string or vector past max_size()
    throw ChatTemplateError(impl_->name, "out of memory while rendering",
                            renderer ? renderer->currentLine() : 0, 0);
  }
}

std::string ChatTemplate::render(const nlohmann::ordered_json &context,
                                 const ChatTemplateOptions &options) const {
  return renderJson(context, options);
}

std::string ChatTemplate::render(const nlohmann::json &context,
                                 const ChatTemplateOptions &options) const {
  return renderJson(context, options);
}

json ChatTemplate::makeContext(const json &messages, bool addGenerationPrompt,
                               const std::optional<std::string> &bosToken,
                               const std::optional<std::string> &eosToken, const json &extra) {
  json context = json::object();
  context["messages"] = messages;
  context["tools"] = nullptr;
  context["documents"] = nullptr;
  context["add_generation_prompt"] = addGenerationPrompt;
  if (bosToken)
    context["bos_token"] = *bosToken;
  if (eosToken)
    context["eos_token"] = *eosToken;
  if (!extra.is_null()) {
    if (!extra.is_object())
      throw ChatTemplateError("context", "extra template variables must be a JSON object", 0, 0);
    for (const auto &[key, value] : extra.items())
      context[key] = value;
  }
  return context;
}

std::string ChatTemplate::apply(const json &messages, bool addGenerationPrompt,
                                const std::optional<std::string> &bosToken,
                                const std::optional<std::string> &eosToken, const json &extra,
                                const ChatTemplateOptions &options) const {
  return render(makeContext(messages, addGenerationPrompt, bosToken, eosToken, extra), options);
}

} // namespace mm::rt

//===- Tokenize.cpp - `mmc tokenize`: a folder's tokenizer alone --------------===//
#include "tools/mmc/Tokenize.h"

#include "runtime/core/Error.h"
#include "runtime/io/FileUtil.h"
#include "runtime/text/Tokenizer.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <iostream>
#include <sstream>

namespace mm {
namespace {

std::string tokenizerPath(const std::string &input) {
  std::error_code ec;
  if (std::filesystem::is_directory(input, ec))
    return (std::filesystem::path(input) / "tokenizer.json").string();
  return input;
}

std::vector<int32_t> idsOf(const nlohmann::json &j, const std::string &where) {
  if (!j.is_array())
    rt::fail(where, ": not a JSON array of token ids");
  std::vector<int32_t> ids;
  for (const auto &v : j) {
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > INT32_MAX)
      rt::fail(where, ": ", v.dump(), " is not a token id");
    ids.push_back(static_cast<int32_t>(v.get<int64_t>()));
  }
  return ids;
}

std::string tokenizeLines(const TokenizeRequest &r) {
  rt::Tokenizer tokenizer = rt::Tokenizer::fromFile(tokenizerPath(r.tokenizer));
  std::istringstream in(rt::io::readFile(r.file));
  std::string line, out;
  for (size_t number = 1; std::getline(in, line); ++number) {
    std::string where = r.file + ":" + std::to_string(number);
    auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded())
      rt::fail(where, ": not valid JSON");
    try {
      if (r.decode) {
        out += nlohmann::json(tokenizer.decode(idsOf(j, where), false)).dump() + "\n";
        continue;
      }
      if (!j.is_string())
        rt::fail(where, ": not a JSON string");
      out += nlohmann::json(tokenizer.encode(j.get<std::string>(), r.addSpecialTokens)).dump() + "\n";
    } catch (const rt::Error &e) {
      std::string message = e.what();
      rt::fail(message.rfind(where, 0) == 0 ? message : where + ": " + message);
    }
  }
  return out;
}

} // namespace

int runTokenize(const TokenizeRequest &request) {
  try {
    std::cout << tokenizeLines(request) << std::flush;
    return 0;
  } catch (const std::exception &e) {
    std::cerr << "mmc: error: " << e.what() << "\n";
    return 1;
  }
}

} // namespace mm

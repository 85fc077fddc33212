//===- Tokenize.h - `mmc tokenize`: a folder's tokenizer alone ----------------===//
#ifndef MM_TOOLS_MMC_TOKENIZE_H
#define MM_TOOLS_MMC_TOKENIZE_H

#include <string>

namespace mm {

struct TokenizeRequest {
  std::string tokenizer; ///< a model folder (its tokenizer.json) or a tokenizer.json
  std::string file;      ///< one JSON value per line
  bool addSpecialTokens = false;
  bool decode = false; ///< lines are JSON arrays of ids, printed back as JSON strings
};

/// `mmc tokenize`: for each line of the file (a JSON string) prints the JSON array of its
/// ids, or with decode, for each line (a JSON array of ids) the JSON string of its text
/// (special tokens kept). The whole output is printed only when every line succeeds;
/// otherwise an error naming the file and line goes to stderr. Returns the exit status.
int runTokenize(const TokenizeRequest &request);

} // namespace mm

#endif

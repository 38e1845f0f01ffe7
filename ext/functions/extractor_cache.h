// SPDX-License-Identifier: MIT
// Feature extractors for the SQL functions: built from an options argument
// (NULL or '' for the defaults), and a counter of how many option strings the
// glue has parsed, which tests read to prove parsing happens once per
// statement rather than once per row.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "ext/common/sqlite_api.h"
#include "fingerprint/feature_extractor.h"

namespace simhash::sql {

// A feature extractor together with the option string it was built from, so
// a cached one is only reused for the same string.
struct CachedExtractor {
  std::string options_text;
  FeatureExtractor extractor;

  CachedExtractor(std::string_view text, const SimhashOptions& options)
      : options_text(text), extractor(options) {}
};

// Parses `options_text` and builds its extractor. Bad options throw
// SqliteError with the engine's message named by `function_name`
// (named_message, sqlite_support.h).
std::unique_ptr<CachedExtractor> make_extractor(std::string_view options_text,
                                                std::string_view function_name);

// The options argument as text: NULL gives "" (the defaults); anything but
// TEXT or NULL throws an error naming its type.
std::string_view options_text_of(sqlite3_value* options, std::string_view function_name);

// The extractor one call of a scalar function uses for its options argument
// (absent, NULL or '' for the defaults). The defaults use `defaults`, the
// function's own per-connection extractor, built on first use. Other options
// are parsed once per statement: the extractor is kept as SQLite auxiliary
// data on the argument. Bad options throw, so a typo is reported on every
// row, whatever the other arguments hold.
class ExtractorForCall {
 public:
  // `argc` and `argv` are the call's; the options are argument `options_argument`.
  ExtractorForCall(sqlite3_context* context, int argc, sqlite3_value** argv, int options_argument,
                   std::unique_ptr<CachedExtractor>& defaults, std::string_view function_name);
  ExtractorForCall(const ExtractorForCall&) = delete;
  ExtractorForCall& operator=(const ExtractorForCall&) = delete;
  ~ExtractorForCall();

  CachedExtractor& get() const { return *chosen_; }

 private:
  sqlite3_context* context_;
  int options_argument_;
  std::unique_ptr<CachedExtractor> parsed_now_;
  CachedExtractor* chosen_ = nullptr;
};

// How many option strings the glue has parsed in this process: the tests
// that link the static library observe option caching with it. Not exported
// from the module (hidden like everything but the entry point).
unsigned long long options_parse_count();

}  // namespace simhash::sql

// Feature extractors for the SQL functions: built from an options argument
// (NULL or '' for the defaults), and a counter of how many option strings the
// glue has parsed, which tests read to prove parsing happens once per
// statement rather than once per row.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "feature_extractor.h"
#include "sqlite_api.h"

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
// std::runtime_error with "<function_name>: " and the engine's message.
std::unique_ptr<CachedExtractor> make_extractor(std::string_view options_text,
                                                std::string_view function_name);

// The options argument as text: NULL gives "" (the defaults); anything but
// TEXT or NULL throws an error naming its type.
std::string_view options_text_of(sqlite3_value* options, std::string_view function_name);

}  // namespace simhash::sql

// Test hook: how many option strings the glue has parsed in this process.
// Exported from the module (tests find it with dlsym); not part of the SQL
// interface.
extern "C" __attribute__((visibility("default"))) unsigned long long
simhash_debug_options_parse_count(void);

// Building feature extractors from SQL option arguments, with the parse
// counter the tests use to observe option caching.
#include "extractor_cache.h"

#include <atomic>
#include <stdexcept>

#include "sql_values.h"

namespace {

std::atomic<unsigned long long> options_parsed{0};

}  // namespace

extern "C" unsigned long long simhash_debug_options_parse_count(void) {
  return options_parsed.load(std::memory_order_relaxed);
}

namespace simhash::sql {

std::unique_ptr<CachedExtractor> make_extractor(std::string_view options_text,
                                                std::string_view function_name) {
  options_parsed.fetch_add(1, std::memory_order_relaxed);
  std::string error;
  const std::optional<SimhashOptions> options = parse_options(options_text, error);
  if (!options) {
    // The engine words its messages for simhash(); the SQL name of the
    // function actually called replaces its prefix.
    constexpr std::string_view engine_prefix = "simhash: ";
    std::string_view detail = error;
    if (detail.starts_with(engine_prefix)) {
      detail.remove_prefix(engine_prefix.size());
    }
    throw std::runtime_error(std::string(function_name) + ": " + std::string(detail));
  }
  return std::make_unique<CachedExtractor>(options_text, *options);
}

std::string_view options_text_of(sqlite3_value* options, std::string_view function_name) {
  const int type = sqlite3_value_type(options);
  if (type == SQLITE_NULL) {
    return {};
  }
  if (type != SQLITE_TEXT) {
    throw std::runtime_error(std::string(function_name) + ": options must be TEXT, got " +
                             type_name(options));
  }
  return *text_of(options);
}

}  // namespace simhash::sql

// SPDX-License-Identifier: MIT
// Building feature extractors from SQL option arguments, with the parse
// counter the tests use to observe option caching.
#include "ext/functions/extractor_cache.h"

#include <atomic>
#include <utility>

#include "ext/common/sql_values.h"
#include "ext/common/sqlite_support.h"

namespace {

std::atomic<unsigned long long> options_parsed{0};

}  // namespace

namespace simhash::sql {

unsigned long long options_parse_count() { return options_parsed.load(std::memory_order_relaxed); }

std::unique_ptr<CachedExtractor> make_extractor(std::string_view options_text,
                                                std::string_view function_name) {
  options_parsed.fetch_add(1, std::memory_order_relaxed);
  std::string error;
  const std::optional<SimhashOptions> options = parse_options(options_text, error);
  if (!options) {
    throw SqliteError(SQLITE_ERROR, named_message(function_name, error));
  }
  return std::make_unique<CachedExtractor>(options_text, *options);
}

std::string_view options_text_of(sqlite3_value* options, std::string_view function_name) {
  const int type = sqlite3_value_type(options);
  if (type == SQLITE_NULL) {
    return {};
  }
  if (type != SQLITE_TEXT) {
    throw SqliteError(SQLITE_ERROR, std::string(function_name) + ": options must be TEXT, got " +
                                        type_name(options));
  }
  return *text_of(options);
}

namespace {

void destroy_cached_extractor(void* extractor) {
  std::unique_ptr<CachedExtractor> owned(static_cast<CachedExtractor*>(extractor));
}

}  // namespace

ExtractorForCall::ExtractorForCall(sqlite3_context* context, int argc, sqlite3_value** argv,
                                   int options_argument, std::unique_ptr<CachedExtractor>& defaults,
                                   std::string_view function_name)
    : context_(context), options_argument_(options_argument) {
  const std::string_view options_text =
      argc > options_argument ? options_text_of(argv[options_argument], function_name) : "";
  if (options_text.empty()) {
    if (!defaults) {
      defaults = make_extractor("", function_name);
    }
    chosen_ = defaults.get();
    return;
  }
  auto* cached = static_cast<CachedExtractor*>(sqlite3_get_auxdata(context, options_argument));
  // SQLite keeps auxiliary data only while the argument stays the same;
  // comparing the text as well costs little and guards the assumption.
  if (cached != nullptr && cached->options_text == options_text) {
    chosen_ = cached;
  } else {
    parsed_now_ = make_extractor(options_text, function_name);
    chosen_ = parsed_now_.get();
  }
}

ExtractorForCall::~ExtractorForCall() {
  // At the end of the call, as SQLite asks: set_auxdata may free the object
  // before returning. SQLite takes ownership even when it fails.
  if (parsed_now_) {
    sqlite3_set_auxdata(context_, options_argument_, parsed_now_.release(),
                        destroy_cached_extractor);
  }
}

}  // namespace simhash::sql

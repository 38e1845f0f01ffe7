// simhash(text [, options]): the fingerprint of one text. A constant options
// argument is parsed once per statement: its extractor is kept as SQLite
// auxiliary data on the argument; the default options use the extractor held
// by the function's user data, one per connection.
#include <cstdint>
#include <optional>
#include <string_view>

#include "scalar_functions.h"
#include "sql_values.h"
#include "sqlite_support.h"

namespace simhash::sql {

namespace {

constexpr std::string_view kName = "simhash";
constexpr int kOptionsArgument = 1;

void destroy_cached_extractor(void* extractor) {
  std::unique_ptr<CachedExtractor> owned(static_cast<CachedExtractor*>(extractor));
}

}  // namespace

void simhash_function(sqlite3_context* context, int argc, sqlite3_value** argv) {
  guard(context, [&] {
    const std::string_view options_text =
        argc > kOptionsArgument ? options_text_of(argv[kOptionsArgument], kName) : "";

    // Options are checked even when the text is NULL, so a typo in them is
    // reported on every row rather than depending on the data.
    std::unique_ptr<CachedExtractor> parsed_now;
    CachedExtractor* chosen = nullptr;
    if (options_text.empty()) {
      auto* defaults = static_cast<SimhashDefaults*>(sqlite3_user_data(context));
      if (!defaults->extractor) {
        defaults->extractor = make_extractor("", kName);
      }
      chosen = defaults->extractor.get();
    } else {
      auto* cached = static_cast<CachedExtractor*>(sqlite3_get_auxdata(context, kOptionsArgument));
      // SQLite keeps auxiliary data only while the argument stays the same;
      // comparing the text as well costs little and guards the assumption.
      if (cached != nullptr && cached->options_text == options_text) {
        chosen = cached;
      } else {
        parsed_now = make_extractor(options_text, kName);
        chosen = parsed_now.get();
      }
    }

    const std::optional<std::string_view> text = text_of(argv[0]);
    std::optional<std::uint64_t> fingerprint;
    if (text) {
      fingerprint = chosen->extractor.fingerprint(*text);
    }
    if (fingerprint) {
      sqlite3_result_int64(context, static_cast<sqlite3_int64>(*fingerprint));
    } else {
      sqlite3_result_null(context);
    }

    // Last, as SQLite asks: set_auxdata may free the object before returning.
    if (parsed_now) {
      sqlite3_set_auxdata(context, kOptionsArgument, parsed_now.release(),
                          destroy_cached_extractor);
    }
  });
}

}  // namespace simhash::sql

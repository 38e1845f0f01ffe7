// SPDX-License-Identifier: MIT
// simhash(text [, options]): the fingerprint of one text. The extractor comes
// from ExtractorForCall: the connection's own for the default options, one
// per statement for a constant options argument.
#include <cstdint>
#include <optional>
#include <string_view>

#include "ext/common/sql_values.h"
#include "ext/common/sqlite_support.h"
#include "ext/functions/scalar_functions.h"

namespace simhash::sql {

namespace {

constexpr std::string_view kName = "simhash";
constexpr int kOptionsArgument = 1;

}  // namespace

void simhash_function(sqlite3_context* context, int argc, sqlite3_value** argv) {
  guard(context, [&] {
    auto* defaults = static_cast<SimhashDefaults*>(sqlite3_user_data(context));
    const ExtractorForCall extractor(context, argc, argv, kOptionsArgument, defaults->extractor,
                                     kName);
    const std::optional<std::string_view> text = text_of(argv[0]);
    std::optional<std::uint64_t> fingerprint;
    if (text) {
      fingerprint = extractor.get().extractor.fingerprint(*text);
    }
    if (fingerprint) {
      sqlite3_result_int64(context, static_cast<sqlite3_int64>(*fingerprint));
    } else {
      sqlite3_result_null(context);
    }
  });
}

}  // namespace simhash::sql

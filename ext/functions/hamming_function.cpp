// SPDX-License-Identifier: MIT
// hamming(a, b) / simhash_hamming(a, b): the number of differing bits of two
// INTEGER fingerprints or two BLOBs of equal length. Any other pair is an
// error naming what was given, so a TEXT '5' is never silently compared.
#include <span>
#include <stdexcept>
#include <string>

#include "ext/common/sql_values.h"
#include "ext/common/sqlite_support.h"
#include "ext/functions/scalar_functions.h"
#include "fingerprint/hamming.h"

namespace simhash::sql {

namespace {

std::span<const unsigned char> bytes_of(sqlite3_value* blob) {
  const auto* data = static_cast<const unsigned char*>(sqlite3_value_blob(blob));
  return {data, static_cast<std::size_t>(sqlite3_value_bytes(blob))};
}

}  // namespace

void hamming_function(sqlite3_context* context, int /*argc*/, sqlite3_value** argv) {
  guard(context, [&] {
    const int type_a = sqlite3_value_type(argv[0]);
    const int type_b = sqlite3_value_type(argv[1]);
    if (type_a == SQLITE_INTEGER && type_b == SQLITE_INTEGER) {
      sqlite3_result_int(
          context, hamming_distance(static_cast<std::uint64_t>(sqlite3_value_int64(argv[0])),
                                    static_cast<std::uint64_t>(sqlite3_value_int64(argv[1]))));
      return;
    }
    if (type_a == SQLITE_NULL || type_b == SQLITE_NULL) {
      sqlite3_result_null(context);
      return;
    }
    // Built only for an error, so the BLOB path allocates nothing per row.
    const auto error_prefix = [&] {
      return std::string(static_cast<const char*>(sqlite3_user_data(context))) +
             ": expected two INTEGERs or two BLOBs of equal length, got ";
    };
    if (type_a == SQLITE_BLOB && type_b == SQLITE_BLOB) {
      const std::span<const unsigned char> a = bytes_of(argv[0]);
      const std::span<const unsigned char> b = bytes_of(argv[1]);
      if (a.size() != b.size()) {
        throw std::runtime_error(error_prefix() + "BLOBs of " + std::to_string(a.size()) + " and " +
                                 std::to_string(b.size()) + " bytes");
      }
      sqlite3_result_int64(context, hamming_distance(a, b));
      return;
    }
    throw std::runtime_error(error_prefix() + type_name(argv[0]) + " and " + type_name(argv[1]));
  });
}

}  // namespace simhash::sql

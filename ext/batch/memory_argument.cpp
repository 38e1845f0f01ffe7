// SPDX-License-Identifier: MIT
// The memory argument's reader (memory_argument.h).
#include "ext/batch/memory_argument.h"

#include <algorithm>
#include <string>

#include "ext/common/sql_values.h"
#include "ext/common/sqlite_support.h"
#include "util/memory_budget.h"

namespace simhash::sql {

std::optional<std::uint64_t> read_memory_budget(sqlite3_value* value, std::string_view who) {
  if (value != nullptr && sqlite3_value_type(value) != SQLITE_NULL) {
    const std::optional<std::int64_t> bytes = integral_value(value);
    if (!bytes || *bytes < 1) {
      throw SqliteError(
          SQLITE_ERROR,
          std::string(who) +
              ": memory must be a number of bytes of 1 or more (NULL: SQLite's soft heap "
              "limit), got " +
              shown(value));
    }
    return static_cast<std::uint64_t>(*bytes);
  }
  // The soft limit asks to work within it; the hard one (memory_budget.h)
  // refuses what would pass it, as it does for SQLite's own allocations.
  const sqlite3_int64 soft = sqlite3_soft_heap_limit64(-1);
  if (soft <= 0) {
    return std::nullopt;
  }
  const auto limit = static_cast<std::uint64_t>(soft);
  const std::uint64_t used =
      static_cast<std::uint64_t>(std::max<sqlite3_int64>(sqlite3_memory_used(), 0)) +
      memory_charged();
  return limit > used ? limit - used : 0;
}

}  // namespace simhash::sql

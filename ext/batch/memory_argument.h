// SPDX-License-Identifier: MIT
// The memory argument of simhash_dedup and simhash_verified_pairs(_between):
// the bytes their exact join may hold, given or read from SQLite's soft heap
// limit. With a budget the join runs in parts that fit it, the rows'
// features in a temporary file (batch/partitioned_dedup.h,
// batch/partitioned_pairs.h); without one, in memory.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "ext/common/sqlite_api.h"

namespace simhash::sql {

// The budget: `value` when it is an integer of 1 or more bytes; left out
// (nullptr) or NULL, what SQLite's soft heap limit leaves beside the memory
// SQLite and the extension use now (0 when they use it all), or nullopt
// when it is not set. The hard heap limit is not a budget: what would pass
// it fails (util/memory_budget.h). Anything else throws
// SqliteError: "<who>: memory must be a number of bytes of 1 or more (NULL:
// SQLite's soft heap limit), got <value>".
std::optional<std::uint64_t> read_memory_budget(sqlite3_value* value, std::string_view who);

}  // namespace simhash::sql

// SPDX-License-Identifier: MIT
// The one reader of similarity thresholds in SQL: simhash_dedup's and the
// verified pairs' threshold argument and simhash_similar's query threshold.
//   <who>: the threshold must be a number in (0, 1], got TEXT
//   <who>: the threshold must be in (0, 1], got 1.5
#pragma once

#include <string_view>

#include "ext/common/sqlite_api.h"

namespace simhash::sql {

// A number in (0, 1]; throws SqliteError naming `who` otherwise.
double read_threshold(sqlite3_value* value, std::string_view who);

}  // namespace simhash::sql

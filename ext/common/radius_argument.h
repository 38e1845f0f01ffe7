// SPDX-License-Identifier: MIT
// The one reader of radius values in SQL: the radius argument of the batch
// functions and of the index's table-valued form, and the bounds on
// `distance` that the index turns into its search radius. One message style
// for all of them, prefixed by who asks ("simhash_pairs", "simhash_index
// near"):
//   <who>: the radius must be an integer, got TEXT | 2.5
//   <who>: the radius must not be negative (got -1)
// Values are shown exactly (sql_values.h's shown()); an integral REAL (5.0)
// is read as the integer, as integral_value() reads counts.
//   <who>: a bound on distance must be a number, got TEXT
#pragma once

#include <optional>
#include <string_view>

#include "ext/common/sqlite_api.h"

namespace simhash::sql {

// Fingerprints are 64 bits: a larger radius finds nothing more.
inline constexpr int kMaxRadius = 64;

enum class RadiusValue {
  kArgument,  // a radius given as an argument: an integer >= 0
  kAtMost,    // distance <= value (also distance = value: SQLite checks the `=` itself)
  kBelow,     // distance < value
};

// The radius `value` asks for, at most kMaxRadius; nullopt when no row can
// match: a NULL value (nothing equals NULL) or a bound below every distance
// (distance < 0). Throws SqliteError for what is not a radius.
std::optional<int> read_radius(sqlite3_value* value, RadiusValue kind, std::string_view who);

}  // namespace simhash::sql

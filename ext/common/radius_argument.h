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
// A radius argument that has a default (the batch functions') may also be
// the text 'default', which means exactly "left out", so that a later
// argument can be given positionally without choosing a radius:
//   simhash_dedup(query, 0.8, 'default', 'unit=char n=4')
//   <who>: the radius must be an integer or 'default' (the radius left out), got TEXT 'ten'
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
// (distance < 0). Throws SqliteError for what is not a radius. The message's
// prefix is `who`, then ` ` and `whose` when given: the index reads a bound
// on every query, and a string made for a message never shown cost as much as
// the read itself.
std::optional<int> read_radius(sqlite3_value* value, RadiusValue kind, std::string_view who,
                               std::string_view whose = {});

// The spelling of a radius left out (compared without regard to case).
inline constexpr std::string_view kDefaultRadius = "default";

// A radius argument that has a default: left out, or the radius `value` asks
// for (nullopt inside for NULL, as read_radius gives it).
struct RadiusArgument {
  bool left_out = true;  // not given, or given as 'default'
  std::optional<int> radius;
};

// Reads a radius argument that has a default: `value` nullptr (not given)
// or 'default' is left out; anything else is read_radius's kArgument, whose
// message for another text also names 'default'. Throws SqliteError.
RadiusArgument read_radius_or_default(sqlite3_value* value, std::string_view who);

}  // namespace simhash::sql

// SPDX-License-Identifier: MIT
// Runs one statement with bound parameters and reads its first column: the
// tests use it to pass texts (long, binary, invalid UTF-8) without quoting
// them into SQL.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace simhash::testing {

// A parameter: NULL, INTEGER, REAL, TEXT, or BLOB (bytes in a Blob).
struct Blob {
  std::string bytes;
};
using Parameter = std::variant<std::nullptr_t, std::int64_t, double, std::string, Blob>;

// The outcome of one statement: the first column of each row as an optional
// INTEGER (nullopt for NULL; non-INTEGER values are recorded in `types`), or
// the error message.
struct BoundResult {
  int rc = SQLITE_OK;
  std::string error;
  std::vector<std::optional<std::int64_t>> values;
  std::vector<int> types;
};

BoundResult run_bound(sqlite3* db, std::string_view sql, const std::vector<Parameter>& parameters);

// The single INTEGER-or-NULL first column of the statement; records a test
// failure if it fails or returns another shape.
std::optional<std::int64_t> bound_integer(sqlite3* db, std::string_view sql,
                                          const std::vector<Parameter>& parameters);

}  // namespace simhash::testing

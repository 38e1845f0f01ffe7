// SPDX-License-Identifier: MIT
// Statements with bound parameters for the SQL-level tests.
#include "bound_query.h"

#include <gtest/gtest.h>

namespace simhash::testing {

namespace {

void bind(sqlite3_stmt* statement, int index, const Parameter& parameter) {
  if (const auto* integer = std::get_if<std::int64_t>(&parameter)) {
    sqlite3_bind_int64(statement, index, *integer);
  } else if (const auto* real = std::get_if<double>(&parameter)) {
    sqlite3_bind_double(statement, index, *real);
  } else if (const auto* text = std::get_if<std::string>(&parameter)) {
    sqlite3_bind_text64(statement, index, text->data(), text->size(), SQLITE_TRANSIENT,
                        SQLITE_UTF8);
  } else if (const auto* blob = std::get_if<Blob>(&parameter)) {
    sqlite3_bind_blob64(statement, index, blob->bytes.data(), blob->bytes.size(), SQLITE_TRANSIENT);
  } else {
    sqlite3_bind_null(statement, index);
  }
}

}  // namespace

BoundResult run_bound(sqlite3* db, std::string_view sql, const std::vector<Parameter>& parameters) {
  BoundResult result;
  sqlite3_stmt* statement = nullptr;
  result.rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &statement, nullptr);
  if (result.rc != SQLITE_OK) {
    result.error = sqlite3_errmsg(db);
    return result;
  }
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    bind(statement, static_cast<int>(i + 1), parameters[i]);
  }
  while ((result.rc = sqlite3_step(statement)) == SQLITE_ROW) {
    const int type = sqlite3_column_type(statement, 0);
    result.types.push_back(type);
    if (type == SQLITE_NULL) {
      result.values.emplace_back(std::nullopt);
    } else {
      result.values.emplace_back(sqlite3_column_int64(statement, 0));
    }
  }
  if (result.rc == SQLITE_DONE) {
    result.rc = SQLITE_OK;
  } else {
    result.error = sqlite3_errmsg(db);
  }
  sqlite3_finalize(statement);
  return result;
}

std::optional<std::int64_t> bound_integer(sqlite3* db, std::string_view sql,
                                          const std::vector<Parameter>& parameters) {
  const BoundResult result = run_bound(db, sql, parameters);
  if (result.rc != SQLITE_OK) {
    ADD_FAILURE() << "SQL failed: " << sql << "\n  " << result.error;
    return std::nullopt;
  }
  if (result.values.size() != 1 ||
      (result.types[0] != SQLITE_INTEGER && result.types[0] != SQLITE_NULL)) {
    ADD_FAILURE() << "expected one INTEGER or NULL from: " << sql;
    return std::nullopt;
  }
  return result.values[0];
}

}  // namespace simhash::testing

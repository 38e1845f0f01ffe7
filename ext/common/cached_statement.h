// SPDX-License-Identifier: MIT
// The statements a virtual table keeps for its life: compiled on first use,
// reset at the end of each call so that none stays active between calls
// (an active statement would hold the table open), and SQLite's error
// thrown as it is. simhash_index's and simhash_similar's storage use them.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "ext/common/sqlite_api.h"
#include "ext/common/sqlite_support.h"

namespace simhash::sql {

// A prepared statement kept for the life of the table, compiled on first use.
class CachedStatement {
 public:
  // `sql_format` takes the schema and the table name (two %w); the SQL is
  // built only when the statement is compiled, not on every use.
  sqlite3_stmt* get(sqlite3* db, const char* sql_format, const std::string& schema,
                    const std::string& name);
  // The same with SQL built by a callable, for statements of several parts.
  template <typename MakeSql>
  sqlite3_stmt* get_with(sqlite3* db, MakeSql make_sql) {
    if (!statement_) {
      compile(db, make_sql());
    }
    return statement_.get();
  }
  void finalize() { statement_.reset(); }

 private:
  void compile(sqlite3* db, const std::string& sql);
  Statement statement_;
};

// Resets a statement when the scope ends.
class ResetOnExit {
 public:
  explicit ResetOnExit(sqlite3_stmt* statement) : statement_(statement) {}
  ~ResetOnExit() { sqlite3_reset(statement_); }
  ResetOnExit(const ResetOnExit&) = delete;
  ResetOnExit& operator=(const ResetOnExit&) = delete;

 private:
  sqlite3_stmt* statement_;
};

[[noreturn]] inline void throw_sqlite(sqlite3* db, int rc) {
  throw SqliteError(rc, sqlite3_errmsg(db));
}

// Steps `statement`: true at a row, false when it is done; any other
// result throws SqliteError with the connection's message.
inline bool step_row(sqlite3* db, sqlite3_stmt* statement) {
  const int rc = sqlite3_step(statement);
  if (rc == SQLITE_ROW) {
    return true;
  }
  if (rc != SQLITE_DONE) {
    throw_sqlite(db, rc);
  }
  return false;
}

// The bytes of a BLOB column of the current row (empty for NULL or an
// empty value), valid until the statement steps or resets.
inline std::span<const unsigned char> column_bytes(sqlite3_stmt* statement, int column) {
  const auto* bytes = static_cast<const unsigned char*>(sqlite3_column_blob(statement, column));
  const int size = sqlite3_column_bytes(statement, column);
  return {bytes, bytes != nullptr ? static_cast<std::size_t>(size) : 0};
}

}  // namespace simhash::sql

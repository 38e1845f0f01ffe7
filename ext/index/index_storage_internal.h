// SPDX-License-Identifier: MIT
// What the files of IndexStorage (index_storage*.cpp) share and no other
// file needs: the statement reset at scope end and the throw of SQLite's
// error. Include it from those files only; the class is in index_storage.h.
#pragma once

#include "ext/common/sqlite_api.h"
#include "ext/common/sqlite_support.h"

namespace simhash::sql::index_storage_internal {

// Resets a statement when the scope ends, so no statement stays active
// between calls (an active statement would hold the table open).
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

}  // namespace simhash::sql::index_storage_internal

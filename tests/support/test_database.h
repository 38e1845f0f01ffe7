// SPDX-License-Identifier: MIT
// A connection for SQL-level tests: opens a database, loads build/simhash.so
// through the C API (as a user's program would), and runs SQL with compact
// helpers that report SQLite's own message when something fails.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace simhash::testing {

// One result cell as text: NULL is std::nullopt, numbers in SQLite's text form,
// BLOBs as X'..' hex.
using Cell = std::optional<std::string>;
using Row = std::vector<Cell>;

class TestDatabase {
 public:
  // ":memory:" or a file path; loads the extension unless `load` is false.
  explicit TestDatabase(const std::string& path = ":memory:", bool load = true);
  ~TestDatabase();
  TestDatabase(const TestDatabase&) = delete;
  TestDatabase& operator=(const TestDatabase&) = delete;

  sqlite3* handle() const { return db_; }

  // Runs one or more statements; records a test failure naming the SQL and
  // SQLite's message if any fails.
  void exec(std::string_view sql);

  // Runs the statements; returns the result code and the error message ("" on
  // success) without failing the test.
  int try_exec(std::string_view sql, std::string* message = nullptr);

  // Expects `sql` to fail and returns SQLite's message (a test failure and ""
  // if it succeeds).
  std::string error(std::string_view sql);

  // All rows of one statement. A failure is recorded and gives no rows.
  std::vector<Row> rows(std::string_view sql);

  // The first column of the first row; failures when there is no row or it
  // has another type are recorded.
  std::int64_t integer(std::string_view sql);
  Cell cell(std::string_view sql);

 private:
  sqlite3* db_ = nullptr;
};

// Runs `sql` on the file at `path` in a connection of its own without the
// extension, closed before it returns: how a test edits an index's shadow
// tables by hand, as a user with another SQLite could.
void exec_without_extension(const std::string& path, std::string_view sql);

// What EXPLAIN QUERY PLAN says of `sql`: its detail lines, one per line.
std::string plan_of(TestDatabase& db, const std::string& sql);

// A database file in the temp folder, named after `stem` and this process,
// removed (with its journals) when made and when the test ends.
class TempDatabaseFile {
 public:
  explicit TempDatabaseFile(const std::string& stem);
  ~TempDatabaseFile();
  TempDatabaseFile(const TempDatabaseFile&) = delete;
  TempDatabaseFile& operator=(const TempDatabaseFile&) = delete;

  const std::string& path() const { return path_; }

 private:
  void remove_all() const;
  std::string path_;
};

}  // namespace simhash::testing

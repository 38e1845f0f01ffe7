// SPDX-License-Identifier: MIT
// The one skeleton of the eponymous-only table-valued functions
// (simhash_pairs and the other batch functions, simhash_dedup,
// simhash_verified_pairs(_between), simhash_features and
// simhash_shared_features), on top of virtual_table.h's idiom. A function is
// a TableFunction: its name, its schema (result columns, then the arguments
// as hidden columns), where the arguments start and how many there are, and
// two hooks: `plan` (xBestIndex after the arguments are planned: cost, rows,
// the EXPLAIN text) and `open` (a cursor that computes the rows). The module
// is the same for every function; the TableFunction travels as the module's
// aux, so several names are served one way: one TableFunction each.
//
// The skeleton owns what repeated: xConnect (declare, configure, keep the
// db), xBestIndex's argument mapping (function_arguments.h), xFilter placing
// the arguments, the barrier around every callback, xNext/xEof/xColumn/xRowid
// forwarded to the cursor, and registration. A cursor owns only its rows.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "ext/common/sqlite_api.h"

namespace simhash::sql {

struct TableFunction;

// State a function keeps per connection (the table is eponymous: one per
// connection), such as a cache; optional.
class TableFunctionState {
 public:
  virtual ~TableFunctionState() = default;
};

// The table SQLite holds for a function on one connection.
struct TableFunctionTable : sqlite3_vtab {
  sqlite3* db = nullptr;
  const TableFunction* function = nullptr;
  std::unique_ptr<TableFunctionState> state;  // from TableFunction::connect, or null
};

// A cursor over a function's computed rows. Every method may throw: the
// skeleton's barrier turns an exception into the statement's error.
class TableFunctionCursor : public sqlite3_vtab_cursor {
 public:
  virtual ~TableFunctionCursor() = default;
  // xFilter: computes the rows. arguments[i] is argument i's value (the
  // hidden column first_argument + i), nullptr when it was left out.
  virtual void filter(std::span<sqlite3_value* const> arguments) = 0;
  virtual bool eof() const = 0;
  virtual void next() = 0;
  // Every column, the hidden argument columns included.
  virtual void column(sqlite3_context* context, int column) const = 0;
  virtual sqlite3_int64 rowid() const = 0;

  TableFunctionTable& table() const { return *static_cast<TableFunctionTable*>(pVtab); }
  sqlite3* db() const { return table().db; }
};

// The common case: rows computed whole in filter(), then read in order.
template <typename Row>
class RowsCursor : public TableFunctionCursor {
 public:
  bool eof() const override { return position_ >= rows_.size(); }
  void next() override { ++position_; }
  sqlite3_int64 rowid() const override { return static_cast<sqlite3_int64>(position_); }

 protected:
  const Row& row() const { return rows_[position_]; }
  // Back to no rows, for the start of filter().
  void clear_rows() {
    rows_.clear();
    position_ = 0;
  }

  std::vector<Row> rows_;
  std::size_t position_ = 0;
};

struct TableFunction {
  const char* name;
  const char* schema;  // CREATE TABLE x(...): result columns, then the hidden arguments
  int first_argument;  // the column of the first argument
  int argument_count;  // at most kMaxTableFunctionArguments
  int vtab_config;     // SQLITE_VTAB_DIRECTONLY, SQLITE_VTAB_INNOCUOUS or 0
  // xBestIndex once the arguments are mapped (constraint_of[i]: argument i's
  // constraint, -1 when not given): sets the cost, the rows, idxStr (what
  // EXPLAIN QUERY PLAN shows), orderByConsumed; may set the table's error and
  // return SQLITE_ERROR. Throws like any callback.
  int (*plan)(TableFunctionTable& table, sqlite3_index_info* info,
              std::span<const int> constraint_of);
  // xOpen: a new cursor.
  std::unique_ptr<TableFunctionCursor> (*open)();
  // xConnect: the per-connection state, or nullptr for none.
  std::unique_ptr<TableFunctionState> (*connect)() = nullptr;
};

inline constexpr int kMaxTableFunctionArguments = 8;

// Registers `function` under its name (eponymous-only: no CREATE VIRTUAL
// TABLE); on failure sets *error to a message naming it.
int register_table_function(sqlite3* db, const TableFunction& function, char** error);

// Sets idxStr, what EXPLAIN QUERY PLAN shows, to sqlite3_mprintf(format,
// args...) (SQLite frees it). Returns SQLITE_NOMEM when it cannot be made.
template <typename... Args>
int set_plan_text(sqlite3_index_info* info, const char* format, Args... args) {
  info->idxStr = sqlite3_mprintf(format, args...);
  info->needToFreeIdxStr = 1;
  return info->idxStr != nullptr ? SQLITE_OK : SQLITE_NOMEM;
}

}  // namespace simhash::sql

// SPDX-License-Identifier: MIT
// What the files of the simhash_index module share, and no other file
// needs: its columns, the plan encoding xBestIndex writes and xFilter reads,
// the table and cursor structs, and the callbacks one file defines for
// another's sqlite3_module. index_vtab.cpp holds the module (options,
// xCreate/xConnect, commands, xUpdate, transactions, registration);
// index_vtab_plan.cpp xBestIndex; index_vtab_cursor.cpp the cursors (xFilter
// and the rest).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ext/common/shadow_tables.h"
#include "ext/common/sqlite_support.h"
#include "ext/common/virtual_table.h"
#include "ext/index/index_registry.h"
#include "ext/index/index_storage.h"

namespace simhash::sql::index_vtab {

// Declared columns, in order; the last one is named after the table and only
// receives special commands (as in FTS5).
constexpr int kColumnFp = 0;
constexpr int kColumnDistance = 1;
constexpr int kColumnQuery = 2;
constexpr int kColumnRadius = 3;
constexpr int kColumnNearest = 4;
constexpr int kColumnCommand = 5;

// The plan encoding (written by x_best_index, read by x_filter).
//
// idxNum: the plan kind in the low bits, plus a flag when ORDER BY distance is
// consumed (results sorted by distance, then rowid).
constexpr int kPlanScan = 0;
constexpr int kPlanRowid = 1;
constexpr int kPlanMatch = 2;
constexpr int kPlanCommand = 3;  // WHERE <table> = 'integrity-check': a check that only reads
constexpr int kPlanMask = 3;
constexpr int kSortedByDistance = 4;

// idxStr: one code per argument the plan asks xFilter for, in argv order,
// then a space and the plan as EXPLAIN QUERY PLAN shows it.
//   kPlanMatch:   q, then any of l t e r, then n and o (see below)
//   kPlanCommand: c       kPlanRowid: i       kPlanScan: - (no argument)
// Every l, t, e and r is an upper bound: the search radius is the smallest.
// With none of them, ORDER BY distance and a LIMIT, the plan returns the
// LIMIT + OFFSET nearest rows at any distance ("nearest"): the index answers
// when it finds that many within k, else one pass over the data does.
constexpr char kArgQuery = 'q';     // the query fingerprint (MATCH, or the hidden column `query`)
constexpr char kArgAtMost = 'l';    // distance <= value
constexpr char kArgBelow = 't';     // distance < value
constexpr char kArgEqual = 'e';     // distance = value (each value of an IN list; SQLite checks it)
constexpr char kArgRadius = 'r';    // the hidden column `radius` (the function form's 2nd argument)
constexpr char kArgLimit = 'n';     // LIMIT (only with no l, t, e or r, and ORDER BY distance)
constexpr char kArgOffset = 'o';    // OFFSET (likewise)
constexpr char kArgNearest = 'm';   // nearest = value: that many nearest rows (within the bound)
constexpr char kArgCommand = 'c';   // WHERE <table> = 'command'
constexpr char kArgRowid = 'i';     // rowid = value
constexpr char kNoArguments = '-';  // a full scan

struct IndexTable : sqlite3_vtab {
  sqlite3* db = nullptr;
  std::string schema;
  std::string name;
  // Null when the stored config cannot be read (a newer format, damage):
  // the table then connects only so that DROP TABLE can remove it, and
  // every other use fails with `unreadable`.
  // Shared with the table's other connected objects (ext/common/shared_storage.h).
  std::shared_ptr<IndexStorage> storage;
  std::string unreadable;
  int unreadable_code = SQLITE_ERROR;
  // Tells the batch functions this table is an index (index_registry.h).
  std::optional<IndexRegistration> registration;
  // The calls of this table under way that run SQL on its shadow tables
  // (InsideIndex): 0 or 1.
  int calls_under_way = 0;

  IndexStorage& usable_storage() const {
    if (!storage) {
      throw SqliteError(unreadable_code, unreadable);
    }
    return *storage;
  }
};

// Marks a call of the module that runs SQL on the shadow tables (a read, a
// write, a merge, a command) for its duration, and refuses one nested inside
// another (ShadowCallGuard, ext/common/shadow_tables.h). Not in xSavepoint,
// which SQLite may call inside a merge's own statements (it then marks
// nothing) and which runs no SQL.
class InsideIndex : ShadowCallGuard {
 public:
  explicit InsideIndex(IndexTable& table)
      : ShadowCallGuard(table.calls_under_way, "simhash_index", table.name) {}
};

struct IndexCursor : sqlite3_vtab_cursor {
  bool has_query = false;
  std::int64_t query = 0;
  int radius = 0;
  // Index, rowid and radius-scan plans materialize their hits.
  std::vector<IndexHit> hits;
  // The hits of a search, against the heap limit (util/memory_budget.h):
  // charged once found, so a search may pass the limit by its own answer.
  MemoryCharge hits_charge;
  std::size_t position = 0;
  // A plain scan steps its own statement over the data table.
  Statement scan;
  bool scan_mode = false;
  bool scan_valid = false;
  // The rowid plan's row has a NULL fp (searches never return such rows).
  bool fp_is_null = false;
  // The count of `nearest = n`, shown in its column.
  std::optional<std::int64_t> nearest_asked;
};

inline IndexTable* table_of(sqlite3_vtab* vtab) { return sql::table_of<IndexTable>(vtab); }
inline IndexCursor* cursor_of(sqlite3_vtab_cursor* cursor) {
  return sql::cursor_of<IndexCursor>(cursor);
}

// The radius a constraint's value asks for (radius_argument.h): `radius` is
// an argument, the others bound the distance. In index_vtab_plan.cpp; xFilter
// reads the values xBestIndex could not.
std::optional<int> radius_from(char code, sqlite3_value* value, const std::string& name);

// A command as SQL shows it (42 reads as "42"), for matching and messages;
// and the integrity check that commands run. In index_vtab.cpp, with the
// command column's writes; xFilter runs the check's read-only plan.
std::string text_argument(sqlite3_value* command);
void check_integrity(IndexStorage& storage);

// xBestIndex (index_vtab_plan.cpp).
int x_best_index(sqlite3_vtab* vtab, sqlite3_index_info* info);

// The cursors (index_vtab_cursor.cpp).
int x_open(sqlite3_vtab* vtab, sqlite3_vtab_cursor** cursor);
int x_close(sqlite3_vtab_cursor* cursor);
int x_filter(sqlite3_vtab_cursor* base, int idx_num, const char* idx_str, int argc,
             sqlite3_value** argv);
int x_next(sqlite3_vtab_cursor* base);
int x_eof(sqlite3_vtab_cursor* base);
int x_column(sqlite3_vtab_cursor* base, sqlite3_context* context, int column);
int x_rowid(sqlite3_vtab_cursor* base, sqlite3_int64* rowid);

}  // namespace simhash::sql::index_vtab

// SPDX-License-Identifier: MIT
// The checks every module with shadow tables makes of them (simhash_index,
// simhash_similar): that each is still the ordinary table the module made,
// that no call of the module runs inside another (ShadowCallGuard), and the
// drop that removes each, or whatever took its place, and the rename.
#pragma once

#include <sqlite3.h>

#include <span>
#include <string>
#include <string_view>

namespace simhash::sql {

// Throws SqliteError(SQLITE_CORRUPT_VTAB) naming the shadow table when one of
// name_<suffix> in `schema` is a view, a virtual table or anything but an
// ordinary table: such an object could read the module's table itself, so
// that every read of the table read it again without end until the stack
// overflows (a file edited by hand or crafted; PRAGMA trusted_schema does not
// stop it, as the modules are innocuous). A missing one is left to the
// statements that read it. `module` starts the message ("simhash_index").
void check_shadow_tables(sqlite3* db, const std::string& schema, const std::string& name,
                         std::span<const char* const> suffixes, const std::string& module);

// Drops each shadow table name_<suffix> of `schema`, or the view in its place
// (which check_shadow_tables refused to read through), so that DROP TABLE
// removes a damaged table too. Missing ones are skipped.
void drop_shadow_tables_or_views(sqlite3* db, const std::string& schema, const std::string& name,
                                 std::span<const char* const> suffixes);

// Refuses to rename `table` ("<module> <name>") while it was written in the
// open transaction (PendingWrites::holds_writes): a ROLLBACK TO a savepoint
// before the rename would give the table its old name back while the
// storage holding those writes keeps the new one (ext/common/shared_storage.h).
void refuse_rename_after_writes(const std::string& table, bool written);

// Refuses to drop `table` ("<module> <name>") while a savepoint opened after
// writes to it is open (PendingWrites::pending_at_an_older_savepoint): a
// ROLLBACK TO it would bring the table back without the writes then pending,
// which only the dropped storage held. Called before xDestroy changes
// anything, so that a refused DROP leaves the table and its pending writes
// as they were.
void refuse_drop_in_savepoint_after_writes(const std::string& table, bool written);

// Renames each shadow table name_<suffix> of `schema` to new_name_<suffix>
// (xRename).
void rename_shadow_tables(sqlite3* db, const std::string& schema, const std::string& name,
                          const std::string& new_name, std::span<const char* const> suffixes);

// Marks a call of a module that runs SQL on its shadow tables (a read, a
// write, a command) for its duration. Such a call while another of the same
// table is under way can only come from the SQL the first one ran: a
// trigger on a shadow table that uses the table, or a shadow table replaced
// by a view of the table after the connection checked them
// (check_shadow_tables). Each would call the next without end until the
// stack overflows, so the inner call is refused, as SQLite refuses a view
// defined on itself. `calls_under_way` is the table's count (0 or 1); the
// message starts with `module` and the table's `name` ("simhash_index
// near"), which are read only then: the guard runs at every call.
class ShadowCallGuard {
 public:
  ShadowCallGuard(int& calls_under_way, std::string_view module, std::string_view name);
  ~ShadowCallGuard() { --calls_under_way_; }
  ShadowCallGuard(const ShadowCallGuard&) = delete;
  ShadowCallGuard& operator=(const ShadowCallGuard&) = delete;

 private:
  int& calls_under_way_;
};

}  // namespace simhash::sql

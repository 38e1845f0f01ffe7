// SPDX-License-Identifier: MIT
// check_shadow_tables, ShadowCallGuard and drop_shadow_tables_or_views
// (shadow_tables.h).
#include "ext/common/shadow_tables.h"

#include <string_view>

#include "ext/common/sqlite_support.h"

namespace simhash::sql {

void check_shadow_tables(sqlite3* db, const std::string& schema, const std::string& name,
                         std::span<const char* const> suffixes, const std::string& module) {
  // sqlite_master, not sqlite_schema: the older name works on every release
  // this extension supports, in "temp" too. SQLite itself checks, as it
  // loads a schema, that each row's type and name agree with its sql.
  Statement statement;
  const std::string sql = format_sql(
      "SELECT type, sql FROM \"%w\".sqlite_master WHERE name = ?1 COLLATE NOCASE AND "
      "type IN ('table', 'view')",
      schema.c_str());
  int rc = prepare(db, sql, statement);
  if (rc != SQLITE_OK) {
    throw SqliteError(
        rc, module + " " + name + ": cannot read the schema (" + sqlite3_errmsg(db) + ")");
  }
  for (const char* suffix : suffixes) {
    const std::string shadow = name + "_" + suffix;
    sqlite3_reset(statement.get());
    sqlite3_bind_text(statement.get(), 1, shadow.c_str(), -1, SQLITE_TRANSIENT);
    while ((rc = sqlite3_step(statement.get())) == SQLITE_ROW) {
      const auto* type = reinterpret_cast<const char*>(sqlite3_column_text(statement.get(), 0));
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement.get(), 1));
      const std::string_view kind = type != nullptr ? type : "";
      const std::string_view create = text != nullptr ? text : "";
      // SQLite writes "CREATE TABLE " before the name of every ordinary
      // table it makes; a virtual table's sql starts "CREATE VIRTUAL TABLE".
      const bool ordinary = kind == "table" && create.size() > 13 &&
                            sqlite3_strnicmp(create.data(), "CREATE TABLE ", 13) == 0;
      if (!ordinary) {
        const std::string what =
            kind == "view" ? "a view"
            : create.size() > 21 &&
                    sqlite3_strnicmp(create.data(), "CREATE VIRTUAL TABLE ", 21) == 0
                ? "a virtual table"
                : "not an ordinary table";
        // xConnect adds that DROP TABLE still removes the table.
        throw SqliteError(SQLITE_CORRUPT_VTAB,
                          module + " " + name + ": shadow table " + shadow + " is " + what +
                              ", not the table the index made; the database file is damaged "
                              "or was edited");
      }
    }
    if (rc != SQLITE_DONE) {
      throw SqliteError(
          rc, module + " " + name + ": cannot read the schema (" + sqlite3_errmsg(db) + ")");
    }
  }
}

ShadowCallGuard::ShadowCallGuard(int& calls_under_way, std::string_view module,
                                 std::string_view name)
    : calls_under_way_(calls_under_way) {
  if (calls_under_way > 0) {
    throw SqliteError(SQLITE_ERROR, std::string(module) + " " + std::string(name) +
                                        ": used from inside one of its own reads or writes (by a "
                                        "trigger on one of its shadow tables, or a shadow table "
                                        "replaced by a view of the index); refused, as each use "
                                        "would start another");
  }
  ++calls_under_way_;
}

void drop_shadow_tables_or_views(sqlite3* db, const std::string& schema, const std::string& name,
                                 std::span<const char* const> suffixes) {
  for (const char* suffix : suffixes) {
    Statement type;
    const std::string shadow = name + "_" + suffix;
    const bool view =
        prepare(db,
                format_sql("SELECT 1 FROM \"%w\".sqlite_master WHERE name = %Q COLLATE NOCASE AND "
                           "type = 'view'",
                           schema.c_str(), shadow.c_str()),
                type) == SQLITE_OK &&
        sqlite3_step(type.get()) == SQLITE_ROW;
    exec_sql(db, format_sql(view ? "DROP VIEW IF EXISTS \"%w\".\"%w\""
                                 : "DROP TABLE IF EXISTS \"%w\".\"%w\"",
                            schema.c_str(), shadow.c_str()));
  }
}

void refuse_rename_after_writes(const std::string& table, bool written) {
  if (written) {
    throw SqliteError(SQLITE_ERROR, table +
                                        ": cannot be renamed in a transaction that wrote to it; "
                                        "rename it after COMMIT");
  }
}

void refuse_drop_in_savepoint_after_writes(const std::string& table, bool written) {
  if (written) {
    // SQLITE_LOCKED, as SQLite refuses to drop a table that a statement of
    // the same connection still reads: the DROP TABLE answers only the
    // code's text, "database table is locked" (failed_destroy).
    throw SqliteError(SQLITE_LOCKED, table +
                                         ": cannot be dropped inside a savepoint opened after "
                                         "writing to it; RELEASE the savepoint first, or drop it "
                                         "after COMMIT");
  }
}

void rename_shadow_tables(sqlite3* db, const std::string& schema, const std::string& name,
                          const std::string& new_name, std::span<const char* const> suffixes) {
  for (const char* suffix : suffixes) {
    exec_sql(db, format_sql("ALTER TABLE \"%w\".\"%w_%s\" RENAME TO \"%w_%s\"", schema.c_str(),
                            name.c_str(), suffix, new_name.c_str(), suffix));
  }
}

}  // namespace simhash::sql

// SPDX-License-Identifier: MIT
// Resolves an index name like SQL does (the databases in SQL's order, the
// tables as PRAGMA table_list lists them), recognises a simhash_index by
// asking the module (index_registry.h), and reads its config and rows
// through index_shadow_tables.h.
#include "ext/batch/batch_index_reader.h"

#include <optional>
#include <string>
#include <vector>

#include "ext/common/sqlite_support.h"
#include "ext/index/index_registry.h"
#include "ext/index/index_shadow_tables.h"

namespace simhash::sql {
namespace {

// ASCII case folding, as SQLite compares identifiers (the names here come
// from C strings, so they hold no NUL for sqlite3_strnicmp to stop at).
bool equal_ignoring_case(std::string_view x, std::string_view y) {
  return x.size() == y.size() &&
         sqlite3_strnicmp(x.data(), y.data(), static_cast<int>(x.size())) == 0;
}

[[noreturn]] void throw_sqlite(sqlite3* db, std::string_view function) {
  throw BatchError(std::string(function) + ": " + sqlite3_errmsg(db), sqlite3_errcode(db));
}

// The databases in the order SQL resolves an unqualified name: temp, main,
// then attached ones.
std::vector<std::string> database_names(sqlite3* db, std::string_view function) {
  Statement statement;
  if (prepare(db,
              "SELECT name FROM pragma_database_list ORDER BY CASE name WHEN 'temp' THEN 0 "
              "WHEN 'main' THEN 1 ELSE 2 END, seq",
              statement) != SQLITE_OK) {
    throw_sqlite(db, function);
  }
  std::vector<std::string> names;
  int rc = SQLITE_OK;
  while ((rc = sqlite3_step(statement.get())) == SQLITE_ROW) {
    names.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(statement.get(), 0)));
  }
  if (rc != SQLITE_DONE) {
    throw_sqlite(db, function);
  }
  return names;
}

// The table or view named `name` (any case) in database `schema`, as SQLite
// lists it: its name as created and its type (table, view, virtual, shadow).
std::optional<std::pair<std::string, std::string>> find_entry(sqlite3* db,
                                                              const std::string& schema,
                                                              std::string_view name,
                                                              std::string_view function) {
  Statement statement;
  if (prepare(db,
              "SELECT name, type FROM pragma_table_list WHERE schema = ?1 AND name = ?2 "
              "COLLATE NOCASE",
              statement) != SQLITE_OK) {
    throw_sqlite(db, function);
  }
  sqlite3_bind_text(statement.get(), 1, schema.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(statement.get(), 2, name.data(), static_cast<int>(name.size()),
                    SQLITE_TRANSIENT);
  const int rc = sqlite3_step(statement.get());
  if (rc == SQLITE_DONE) {
    return std::nullopt;
  }
  if (rc != SQLITE_ROW) {
    throw_sqlite(db, function);
  }
  const auto text = [&](int column) {
    return std::string(reinterpret_cast<const char*>(sqlite3_column_text(statement.get(), column)));
  };
  return std::pair{text(0), text(1)};
}

// Whether a virtual table is a simhash_index: SQLite connects it when a
// statement names it, and a connected index has registered itself. The
// statement may still fail (an index whose config cannot be read connects
// but plans nothing; a module that is not loaded does not connect), so only
// the registry answers.
bool is_simhash_index(sqlite3* db, const std::string& schema, const std::string& name) {
  Statement statement;
  prepare(db, format_sql("SELECT 1 FROM \"%w\".\"%w\"", schema.c_str(), name.c_str()), statement);
  return is_registered_index(db, schema, name);
}

}  // namespace

// Built by append: GCC 12 warns wrongly about "'" + std::string(...).
std::string quoted(std::string_view name) {
  std::string text;
  text.reserve(name.size() + 2);
  text.push_back('\'');
  text.append(name);
  text.push_back('\'');
  return text;
}

std::optional<SchemaObject> find_object(sqlite3* db, std::string_view requested,
                                        std::string_view function) {
  const std::vector<std::string> databases = database_names(db, function);
  std::vector<std::string> search = databases;
  std::string_view name = requested;
  // 'schema.name' when the part before the first dot names a database.
  if (const auto dot = requested.find('.'); dot != std::string_view::npos) {
    for (const std::string& database : databases) {
      if (equal_ignoring_case(database, requested.substr(0, dot))) {
        search = {database};
        name = requested.substr(dot + 1);
        break;
      }
    }
  }
  for (const std::string& schema : search) {
    if (const auto entry = find_entry(db, schema, name, function)) {
      const auto& [found_name, type] = *entry;
      using Kind = SchemaObject::Kind;
      const Kind kind = type == "view"                             ? Kind::kView
                        : type == "shadow"                         ? Kind::kShadowTable
                        : type != "virtual"                        ? Kind::kTable
                        : is_simhash_index(db, schema, found_name) ? Kind::kSimhashIndex
                                                                   : Kind::kOtherVirtualTable;
      return SchemaObject{schema, found_name, kind};
    }
  }
  return std::nullopt;
}

std::string SchemaObject::kind_text() const {
  switch (kind) {
    case Kind::kView:
      return "a view";
    case Kind::kShadowTable:
      return "a shadow table of a virtual table";
    case Kind::kSimhashIndex:
      return "a simhash_index";
    case Kind::kOtherVirtualTable:
      return "a virtual table of another module";
    case Kind::kTable:
      break;
  }
  return "an ordinary table";
}

ResolvedIndex open_index(sqlite3* db, const SchemaObject& object, std::string_view function) {
  try {
    return ResolvedIndex{object.schema, object.name,
                         read_index_config(db, object.schema, object.name).config.k};
  } catch (const SqliteError& error) {
    throw BatchError(std::string(function) + ": " + error.what(), error.code());
  }
}

ResolvedIndex resolve_index(sqlite3* db, std::string_view requested, std::string_view function) {
  const std::optional<SchemaObject> object = find_object(db, requested, function);
  if (!object) {
    throw BatchError(std::string(function) + ": no simhash_index named " + quoted(requested));
  }
  if (object->kind != SchemaObject::Kind::kSimhashIndex) {
    throw BatchError(std::string(function) + ": " + quoted(requested) +
                     " is not a simhash_index (it is " + object->kind_text() + ")");
  }
  return open_index(db, *object, function);
}

std::vector<IdFingerprint> read_fingerprints(sqlite3* db, const ResolvedIndex& index,
                                             std::string_view function) {
  Statement statement;
  const std::string sql =
      format_sql(kSelectFingerprintRows, index.schema.c_str(), index.name.c_str());
  if (prepare(db, sql, statement) != SQLITE_OK) {
    throw BatchError(std::string(function) + ": cannot read the rows of simhash_index " +
                         quoted(index.name) + " (" + sqlite3_errmsg(db) + ")",
                     sqlite3_errcode(db));
  }
  std::vector<IdFingerprint> records;
  MemoryCharge charge;  // until the engine charges the records it takes (memory_budget.h)
  // Counting first (SQLite counts a table's cells without decoding rows)
  // spares the copies of a growing vector: a tenth of the time at 10M rows.
  // A count that fails costs only the reservation: the read below reports
  // whatever went wrong.
  Statement count;
  if (prepare(db, format_sql(kCountRows, index.schema.c_str(), index.name.c_str()), count) ==
          SQLITE_OK &&
      sqlite3_step(count.get()) == SQLITE_ROW) {
    reserve_charged(records, static_cast<std::size_t>(sqlite3_column_int64(count.get(), 0)),
                    charge);
  }
  int rc = SQLITE_OK;
  while ((rc = sqlite3_step(statement.get())) == SQLITE_ROW) {
    reserve_charged(records, records.size() + 1, charge);
    records.push_back(
        IdFingerprint{sqlite3_column_int64(statement.get(), 0),
                      static_cast<std::uint64_t>(sqlite3_column_int64(statement.get(), 1))});
  }
  if (rc != SQLITE_DONE) {
    throw_sqlite(db, function);
  }
  return records;
}

}  // namespace simhash::sql

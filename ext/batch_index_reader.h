// What simhash_pairs and simhash_clusters read of a simhash_index: the name
// resolved as SQL would (temp, main, then attached databases; or
// 'schema.name'), checked to be a simhash_index, its k, and every (rowid,
// fingerprint) from its data shadow table, all through the caller's
// connection and so inside the caller's transaction.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "batch/fingerprint_groups.h"
#include "sqlite_api.h"
#include "sqlite_support.h"

namespace simhash::sql {

// A problem to report to the user; its message is complete. The code is
// SQLite's when SQLite failed (SQLITE_NOMEM, SQLITE_INTERRUPT, ...), so the
// statement fails with it rather than with SQLITE_ERROR.
class BatchError : public SqliteError {
 public:
  explicit BatchError(const std::string& message, int code = SQLITE_ERROR)
      : SqliteError(code, message) {}
};

struct ResolvedIndex {
  std::string schema;  // e.g. "main"
  std::string name;    // as created (shadow tables are <name>_config, <name>_data)
  int k = 0;
};

// A table or view of the caller's schema, found by name.
struct SchemaObject {
  std::string schema;  // e.g. "main"
  std::string name;    // as created
  bool view = false;
  std::optional<std::string> module;  // a virtual table's module

  bool is_simhash_index() const;
  // For messages: "an ordinary table", "a view", "a virtual table using rtree".
  std::string kind() const;
};

// The table or view `requested` names, resolved as SQL resolves names (temp,
// main, then attached databases; or 'schema.name'); nullopt if none.
std::optional<SchemaObject> find_object(sqlite3* db, std::string_view requested,
                                        std::string_view function);

// Reads a simhash_index's configuration; throws BatchError for a format or k
// this extension cannot read.
ResolvedIndex open_index(sqlite3* db, const SchemaObject& object, std::string_view function);

// Throws BatchError naming `requested` when it is not a simhash_index.
// `function` prefixes the messages (e.g. "simhash_pairs").
ResolvedIndex resolve_index(sqlite3* db, std::string_view requested, std::string_view function);

// `name` in single quotes, for messages.
std::string quoted(std::string_view name);

// Every row of the index in rowid order.
std::vector<IdFingerprint> read_fingerprints(sqlite3* db, const ResolvedIndex& index,
                                             std::string_view function);

// The module of a CREATE VIRTUAL TABLE statement (as sqlite_schema keeps it);
// nullopt for any other SQL.
std::optional<std::string> virtual_table_module(std::string_view sql);

}  // namespace simhash::sql

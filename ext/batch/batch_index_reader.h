// SPDX-License-Identifier: MIT
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
#include "ext/common/sqlite_api.h"
#include "ext/common/sqlite_support.h"

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
  enum class Kind { kTable, kView, kShadowTable, kSimhashIndex, kOtherVirtualTable };
  std::string schema;  // e.g. "main"
  std::string name;    // as created
  Kind kind = Kind::kTable;

  // For messages: "an ordinary table", "a view", "a virtual table of another module".
  std::string kind_text() const;
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

}  // namespace simhash::sql

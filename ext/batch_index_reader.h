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

#include "fingerprint_groups.h"
#include "sqlite_api.h"

namespace simhash::sql {

// A problem to report to the user; its message is complete.
class BatchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ResolvedIndex {
  std::string schema;  // e.g. "main"
  std::string name;    // as created (shadow tables are <name>_config, <name>_data)
  int k = 0;
};

// Throws BatchError naming `requested` when it is not a simhash_index.
// `function` prefixes the messages (e.g. "simhash_pairs").
ResolvedIndex resolve_index(sqlite3* db, std::string_view requested, std::string_view function);

// Every row of the index in rowid order.
std::vector<IdFingerprint> read_fingerprints(sqlite3* db, const ResolvedIndex& index,
                                             std::string_view function);

// The module of a CREATE VIRTUAL TABLE statement (as sqlite_schema keeps it);
// nullopt for any other SQL.
std::optional<std::string> virtual_table_module(std::string_view sql);

}  // namespace simhash::sql

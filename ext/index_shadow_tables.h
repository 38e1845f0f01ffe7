// The shadow tables of a simhash_index, owned here alone (as FTS5's
// fts5_index.c owns %_data): their names and DDL, creation, renaming and
// removal, the config table and its checks, and the SQL that reads the data
// table. The virtual table (index_vtab.cpp, index_storage.cpp) and the batch
// functions (batch_index_reader.cpp) both go through this file.
//
//   <name>_config(key TEXT PRIMARY KEY, value) WITHOUT ROWID
//       'k'      the largest radius the index answers from its buckets
//       'blocks' the blocks of the permutation plan (index/permutation_plan.h)
//       'format' the storage format (kIndexFormat)
//       'icu', 'unicode' (TEXT) the versions the index was created under
//                (simhash_icu_version()); absent in older indexes
//   <name>_data(id INTEGER PRIMARY KEY, fp INTEGER NOT NULL)
//       the rows: rowid and fingerprint, the truth the buckets are built from
//   <name>_buckets(id INTEGER PRIMARY KEY, entries BLOB NOT NULL)
//       the packed buckets (index/bucket_codec.h), row id (table << 16) | bucket
#pragma once

#include <string>

#include "index/permutation_plan.h"
#include "sqlite_api.h"

namespace simhash::sql {

// The storage format this code reads and writes. A config with a higher
// value is refused (upgrade the extension); format 1, an unreleased
// development layout of the buckets, is refused too (drop and create again).
inline constexpr int kIndexFormat = 2;

// The SQL option k is limited to this (the plan class accepts up to 63).
inline constexpr int kMaxIndexK = 16;

// The suffixes of the shadow tables, for xShadowName and for renaming.
inline constexpr const char* kShadowSuffixes[] = {"config", "data", "buckets"};

// What the config table holds.
struct IndexConfig {
  int k = 3;
  int blocks = 4;
  int format = kIndexFormat;
  // The ICU and Unicode versions of the extension that created the index:
  // fingerprints computed under other versions may differ for the same text.
  // Empty for indexes created before they were recorded. Informative only:
  // extra config rows, which older releases skip.
  std::string icu;
  std::string unicode;
};

// Statements on one shadow table take the schema and the index name as two %w.
// Every (id, fp) of the data table, in id order.
inline constexpr const char* kSelectAllRows = "SELECT id, fp FROM \"%w\".\"%w_data\" ORDER BY id";
// The number of rows (SQLite counts a table's cells without decoding rows).
inline constexpr const char* kCountRows = "SELECT count(*) FROM \"%w\".\"%w_data\"";

bool is_shadow_suffix(const char* suffix);

// Throw SqliteError on failure.
void create_shadow_tables(sqlite3* db, const std::string& schema, const std::string& name,
                          const IndexConfig& config);
void drop_shadow_tables(sqlite3* db, const std::string& schema, const std::string& name);
void rename_shadow_tables(sqlite3* db, const std::string& schema, const std::string& name,
                          const std::string& new_name);

// A stored index's config and the permutation plan it describes.
struct StoredIndex {
  IndexConfig config;
  PermutationPlan plan;
};

// Reads the config and checks it: k, blocks and format present as small
// integers, a format this extension reads, k within 0..kMaxIndexK and a plan
// that PermutationPlan accepts. Throws SqliteError whose message starts
// "simhash_index <name>: " (SQLITE_CORRUPT_VTAB for a damaged config).
StoredIndex read_index_config(sqlite3* db, const std::string& schema, const std::string& name);

}  // namespace simhash::sql

// SPDX-License-Identifier: MIT
// The shadow tables of a simhash_index, owned here alone (as FTS5's
// fts5_index.c owns %_data): their names and DDL, creation, renaming and
// removal, the config table and its checks, and the SQL that reads the data
// table. The virtual table (index_vtab*.cpp, index_storage*.cpp) and the
// batch functions (batch_index_reader.cpp) both go through this file.
//
//
// The tables (<name>_config, <name>_data, <name>_buckets), their columns and
// every storage format (1 refused, 2, 3, 4) are specified in docs/format.md,
// the one description of the bytes on disk; the constants below follow it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ext/common/sqlite_api.h"
#include "index/bucket_codec.h"
#include "index/permutation_plan.h"

namespace simhash::sql {

// The newest storage format this code reads and writes. A config with a
// higher value is refused (upgrade the extension); format 1, an unreleased
// development layout of the buckets, is refused too (drop and create again).
inline constexpr int kIndexFormat = 4;
// The first format whose bucket bits are in 'bucket_bits'.
inline constexpr int kGrowingBucketsFormat = 3;
// The format of a new index, and of any whose bucket bits never changed.
inline constexpr int kFixedBucketsFormat = 2;

// The SQL option k is limited to this (the plan class accepts up to 63).
inline constexpr int kMaxIndexK = 16;

// The suffixes of the shadow tables, for xShadowName and for renaming.
inline constexpr const char* kShadowSuffixes[] = {"config", "data", "buckets"};

// What the config table holds.
struct IndexConfig {
  int k = 3;
  int blocks = 4;
  int format = kFixedBucketsFormat;
  int bucket_bits = BucketLayout::kDefaultBucketBits;
  std::optional<std::int64_t> rows;  // absent until the first merge
  // The ICU and Unicode versions of the extension that created the index:
  // fingerprints computed under other versions may differ for the same text.
  // Empty for indexes created before they were recorded. Informative only:
  // extra config rows, which older releases skip.
  std::string icu;
  std::string unicode;
};

// Statements on one shadow table take the schema and the index name as two %w.
// Every (id, fp) of the data table, in id order, NULL fingerprints included
// (a plain scan of the table shows them).
inline constexpr const char* kSelectAllRows = "SELECT id, fp FROM \"%w\".\"%w_data\" ORDER BY id";
// The same without the NULL fingerprints: the rows searches, the buckets and
// the batch functions see.
inline constexpr const char* kSelectFingerprintRows =
    "SELECT id, fp FROM \"%w\".\"%w_data\" WHERE fp IS NOT NULL ORDER BY id";
// The number of rows (SQLite counts a table's cells without decoding rows).
inline constexpr const char* kCountRows = "SELECT count(*) FROM \"%w\".\"%w_data\"";

bool is_shadow_suffix(const char* suffix);

// A probe's first part (its statement is a UNION ALL): the stored bucket
// bits as the row (-1, value), none while they are the format-2 default. A
// connection compares it with the layout it holds (another connection's
// growth, or a rolled-back one, changes it) in the same read as the buckets.
inline constexpr const char* kSelectBucketBitsRow =
    "SELECT -1, value FROM \"%w\".\"%w_config\" WHERE key = 'bucket_bits'";
// The stored bucket bits as a probe's first row shows them; nullopt if the
// row's value is not one (read_index_config then says what is wrong).
std::optional<int> bucket_bits_in_probe_row(sqlite3_stmt* statement);
// The most rows an index can hold: a database file is at most 2^48 bytes
// (2^32 - 2 pages of 64 KiB) and every row takes more than a byte of it. A
// stored row count outside 0..kMaxIndexRows is damage, and within it no sum
// with a merge's changes (fewer than 2^32) can overflow.
inline constexpr std::int64_t kMaxIndexRows = std::int64_t{1} << 48;
// The row count in column `column` of `statement`: nullopt if it is not an
// INTEGER (never stored, as in indexes older than the count); throws
// SqliteError(SQLITE_CORRUPT_VTAB) if it is outside 0..kMaxIndexRows.
std::optional<std::int64_t> row_count_in(sqlite3_stmt* statement, int column,
                                         const std::string& name);
// The row count: read and written at every merge.
inline constexpr const char* kSelectRowCount =
    "SELECT value FROM \"%w\".\"%w_config\" WHERE key = 'rows'";
inline constexpr const char* kStoreRowCount =
    "INSERT OR REPLACE INTO \"%w\".\"%w_config\"(key, value) VALUES ('rows', ?1)";

// Records new bucket bits (after the buckets were rewritten for them): format
// 3 (or 4, kept) with 'bucket_bits', unless the bits are 16 on a format-2
// index, which stays as it is. Throws SqliteError on failure.
void store_bucket_bits(sqlite3* db, const std::string& schema, const std::string& name, int bits);
// Makes the index format 4 (adding 'bucket_bits' to a format-2 one), before
// a NULL fingerprint is stored. Throws SqliteError on failure.
void mark_null_fingerprints(sqlite3* db, const std::string& schema, const std::string& name);
// The message for a NULL fp written to an index made before 0.2.
std::string null_fingerprint_refused(const std::string& name);

// Throw SqliteError on failure.
void create_shadow_tables(sqlite3* db, const std::string& schema, const std::string& name,
                          const IndexConfig& config);
// Drops them, or a view in the place of one (drop_shadow_tables_or_views).
void drop_shadow_tables(sqlite3* db, const std::string& schema, const std::string& name);
void rename_shadow_tables(sqlite3* db, const std::string& schema, const std::string& name,
                          const std::string& new_name);

// A stored index's config and the permutation plan it describes.
struct StoredIndex {
  IndexConfig config;
  PermutationPlan plan;
  BucketLayout layout() const { return BucketLayout(plan, config.bucket_bits); }
};

// Reads the config and checks it, after check_shadow_tables
// (ext/common/shadow_tables.h) refused a shadow table that is not the
// ordinary table create_shadow_tables made: k, blocks and format present as small
// integers, a format this extension reads, k within 0..kMaxIndexK, a plan
// that PermutationPlan accepts, bucket bits as the format requires and a
// row count that is not negative. Throws SqliteError whose message starts
// "simhash_index <name>: " (SQLITE_CORRUPT_VTAB for a damaged config).
StoredIndex read_index_config(sqlite3* db, const std::string& schema, const std::string& name);

}  // namespace simhash::sql

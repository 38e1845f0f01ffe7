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

// The SQL of every statement on an index's shadow tables, in this one table
// (as rtree's rtreeSqlInit and FTS5's azStmt[] keep theirs); no other file
// spells a statement on them. Each is a format_sql() format whose first two
// arguments are the schema and the index name (%w, %w); extra arguments are
// named where a statement takes any. Dropping and renaming them are the
// shared drop_shadow_tables_or_views (which also drops a view in a shadow
// table's place) and rename_shadow_tables (ext/common/shadow_tables.h).
//
// The tables, as docs/format.md specifies them; then the config rows of a
// new index: + k, blocks, format (%d), icu, unicode (%Q). Several statements.
inline constexpr const char* kCreateShadowTables =
    "CREATE TABLE \"%w\".\"%w_config\"(key TEXT PRIMARY KEY, value) WITHOUT ROWID;"
    "CREATE TABLE \"%w\".\"%w_data\"(id INTEGER PRIMARY KEY, fp INTEGER);"
    "CREATE TABLE \"%w\".\"%w_buckets\"(id INTEGER PRIMARY KEY, entries BLOB NOT NULL);"
    "INSERT INTO \"%w\".\"%w_config\"(key, value) VALUES "
    "('k', %d), ('blocks', %d), ('format', %d), ('icu', %Q), ('unicode', %Q), ('rows', 0);";
//
// The config table.
inline constexpr const char* kSelectConfig = "SELECT key, value FROM \"%w\".\"%w_config\"";
// A probe's first part (its statement is a UNION ALL): the stored bucket
// bits as the row (-1, value), none while they are the format-2 default. A
// connection compares it with the layout it holds (another connection's
// growth, or a rolled-back one, changes it) in the same read as the buckets.
inline constexpr const char* kSelectBucketBitsRow =
    "SELECT -1, value FROM \"%w\".\"%w_config\" WHERE key = 'bucket_bits'";
// The bucket bits written: + bits (%d). Update keeps a format-2 index's absent row absent.
inline constexpr const char* kUpdateBucketBits =
    "UPDATE \"%w\".\"%w_config\" SET value = %d WHERE key = 'bucket_bits'";
inline constexpr const char* kStoreBucketBits =
    "INSERT OR REPLACE INTO \"%w\".\"%w_config\"(key, value) VALUES ('bucket_bits', %d)";
inline constexpr const char* kAddBucketBits =
    "INSERT OR IGNORE INTO \"%w\".\"%w_config\"(key, value) VALUES ('bucket_bits', %d)";
// The format raised to at least a value: + the format, the format (%d, %d).
inline constexpr const char* kRaiseFormat =
    "UPDATE \"%w\".\"%w_config\" SET value = %d WHERE key = 'format' AND value < %d";
// The row count: read and written at every merge.
inline constexpr const char* kSelectRowCount =
    "SELECT value FROM \"%w\".\"%w_config\" WHERE key = 'rows'";
inline constexpr const char* kStoreRowCount =
    "INSERT OR REPLACE INTO \"%w\".\"%w_config\"(key, value) VALUES ('rows', ?1)";
//
// The data table, one row per row of the index.
inline constexpr const char* kInsertDataRow =
    "INSERT INTO \"%w\".\"%w_data\"(id, fp) VALUES (?1, ?2)";
inline constexpr const char* kSelectDataRow = "SELECT fp FROM \"%w\".\"%w_data\" WHERE id = ?1";
inline constexpr const char* kDeleteDataRow = "DELETE FROM \"%w\".\"%w_data\" WHERE id = ?1";
inline constexpr const char* kUpdateDataRow =
    "UPDATE \"%w\".\"%w_data\" SET id = ?2, fp = ?3 WHERE id = ?1";
// Every (id, fp) of the data table, in id order, NULL fingerprints included
// (a plain scan of the table shows them).
inline constexpr const char* kSelectAllRows = "SELECT id, fp FROM \"%w\".\"%w_data\" ORDER BY id";
// The same without the NULL fingerprints: the rows searches, the buckets and
// the batch functions see.
inline constexpr const char* kSelectFingerprintRows =
    "SELECT id, fp FROM \"%w\".\"%w_data\" WHERE fp IS NOT NULL ORDER BY id";
// The number of rows (SQLite counts a table's cells without decoding rows).
inline constexpr const char* kCountRows = "SELECT count(*) FROM \"%w\".\"%w_data\"";
//
// The buckets table, one row per non-empty bucket (index/bucket_store.h).
inline constexpr const char* kSelectBucket =
    "SELECT entries FROM \"%w\".\"%w_buckets\" WHERE id = ?1";
// The stored bucket with the highest id in [?2, ?1).
inline constexpr const char* kSelectBucketBelow =
    "SELECT id, entries FROM \"%w\".\"%w_buckets\" WHERE id < ?1 AND id >= ?2 ORDER BY id DESC "
    "LIMIT 1";
inline constexpr const char* kWriteBucket =
    "INSERT OR REPLACE INTO \"%w\".\"%w_buckets\"(id, entries) VALUES (?1, ?2)";
inline constexpr const char* kDeleteBucket = "DELETE FROM \"%w\".\"%w_buckets\" WHERE id = ?1";
inline constexpr const char* kDeleteAllBuckets = "DELETE FROM \"%w\".\"%w_buckets\"";
// A probe's later parts, one a bucket: followed by the parameter's number.
inline constexpr const char* kProbeBucketPart =
    "SELECT id, entries FROM \"%w\".\"%w_buckets\" WHERE id = ?";
// The buckets with ids in [?1, ?2): one permuted copy's.
inline constexpr const char* kSelectBucketRange =
    "SELECT id, entries FROM \"%w\".\"%w_buckets\" WHERE id >= ?1 AND id < ?2";
// The buckets of copy 0 (ids [0, ?1)), after kSelectBucketBitsRow.
inline constexpr const char* kSelectFirstCopyBuckets =
    "SELECT id, entries FROM \"%w\".\"%w_buckets\" WHERE id >= 0 AND id < ?1";
// How many buckets lie outside every copy's ids [0, ?1).
inline constexpr const char* kCountBucketsOutside =
    "SELECT count(*) FROM \"%w\".\"%w_buckets\" WHERE id < 0 OR id >= ?1";

bool is_shadow_suffix(const char* suffix);

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

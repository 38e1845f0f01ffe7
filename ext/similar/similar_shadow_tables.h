// SPDX-License-Identifier: MIT
// The SQL of every statement on a simhash_similar table's shadow tables, in
// this one file (as ext/index/index_shadow_tables.h holds the index's, and
// rtree's rtreeSqlInit and FTS5's azStmt[] theirs); no other file spells a
// statement on them. The storage (similar_storage.cpp) and the module's scan
// and rowid plans (similar_vtab.cpp) read them from here. Each is a
// format_sql() format whose first two arguments are the schema and the table
// name (%w, %w), repeated where a statement names the tables again; extra
// arguments are named where a statement takes any. Renaming and dropping are
// the shared rename_shadow_tables and drop_shadow_tables_or_views
// (ext/common/shadow_tables.h).
//
// The tables (<name>_config, <name>_rows, <name>_sizes, <name>_postings and,
// from format 2, <name>_counts) and their formats are specified in
// docs/format.md; the constants below follow it.
#pragma once

namespace simhash::sql {

// The tables every format has, as docs/format.md specifies them (three
// schema and name pairs), then the config rows of a new table (a fourth
// pair): + format (%d), threshold (%!.17g), options (%Q), options_check
// (%lld), max_features (%lld). Several statements. The postings tables
// follow, by format.
inline constexpr const char* kCreateSimilarTables =
    "CREATE TABLE \"%w\".\"%w_config\"(key TEXT PRIMARY KEY, value) WITHOUT ROWID;"
    "CREATE TABLE \"%w\".\"%w_rows\"(id INTEGER PRIMARY KEY, size INTEGER NOT NULL, "
    "features BLOB NOT NULL);"
    "CREATE TABLE \"%w\".\"%w_sizes\"(size INTEGER, id INTEGER, PRIMARY KEY(size, id)) "
    "WITHOUT ROWID;"
    "INSERT INTO \"%w\".\"%w_config\"(key, value) VALUES ('format', %d), "
    "('threshold', %!.17g), ('options', %Q), ('options_check', %lld), "
    "('max_features', %lld);";
// Formats 1 and 2: a B-tree entry per posting (one pair), and from format
// 2 the counts (a second pair).
inline constexpr const char* kCreateRowPostings =
    "CREATE TABLE \"%w\".\"%w_postings\"(feature INTEGER, size INTEGER, id INTEGER, "
    "PRIMARY KEY(feature, size, id)) WITHOUT ROWID;";
inline constexpr const char* kCreateFeatureCounts =
    "CREATE TABLE \"%w\".\"%w_counts\"(feature INTEGER PRIMARY KEY, count INTEGER NOT NULL);";
// Format 3: the postings in blobs (similar/posting_blob.h), one pair.
inline constexpr const char* kCreateBlobPostings =
    "CREATE TABLE \"%w\".\"%w_postings\"(first INTEGER PRIMARY KEY, entries BLOB NOT NULL);";

// The config table, read at connect.
inline constexpr const char* kSelectSimilarConfig = "SELECT key, value FROM \"%w\".\"%w_config\"";

// The statements a table keeps prepared, in SimilarStorage::Kind order
// (similar_storage.cpp checks the count); each gets the schema and name.
inline constexpr const char* kSimilarStatementSql[] = {
    // kInsertRow, kDeleteRow, kSelectRow, kMaxId: the rows table.
    "INSERT INTO \"%w\".\"%w_rows\"(id, size, features) VALUES (?1, ?2, ?3)",
    "DELETE FROM \"%w\".\"%w_rows\" WHERE id = ?1",
    "SELECT size, features FROM \"%w\".\"%w_rows\" WHERE id = ?1",
    "SELECT max(id) FROM \"%w\".\"%w_rows\"",
    // kCountRows (of a size range, up to a limit), kSelectRows (a size range's ids and sizes).
    "SELECT count(*) FROM (SELECT 1 FROM \"%w\".\"%w_sizes\" WHERE size BETWEEN ?1 AND ?2 "
    "LIMIT ?3)",
    "SELECT id, size FROM \"%w\".\"%w_sizes\" WHERE size BETWEEN ?1 AND ?2",
    // kInsertSize, kDeleteSize, kHasSize.
    "INSERT INTO \"%w\".\"%w_sizes\"(size, id) VALUES (?1, ?2)",
    "DELETE FROM \"%w\".\"%w_sizes\" WHERE size = ?1 AND id = ?2",
    "SELECT count(*) FROM \"%w\".\"%w_sizes\" WHERE size = ?1 AND id = ?2",
    // kMaxSize: the largest stored size (NULL when no row is stored).
    "SELECT max(size) FROM \"%w\".\"%w_sizes\"",
    // kSelectMaxFeatures, kSetMaxFeatures: the config's max_features, read
    // at each write so that a rolled-back change is never obeyed.
    "SELECT value FROM \"%w\".\"%w_config\" WHERE key = 'max_features'",
    "INSERT INTO \"%w\".\"%w_config\"(key, value) VALUES ('max_features', ?1) "
    "ON CONFLICT(key) DO UPDATE SET value = ?1",
};

// The statements of formats 1 and 2's postings, in RowPostings::Kind order
// (similar_postings.cpp).
inline constexpr const char* kRowPostingsSql[] = {
    // kInsertPosting. OR IGNORE: a flush that failed half-way, in a
    // statement SQLite does not roll back, is written again whole (a delete
    // is as repeatable).
    "INSERT OR IGNORE INTO \"%w\".\"%w_postings\"(feature, size, id) VALUES (?1, ?2, ?3)",
    // kDeletePosting, kCountPostings (up to a limit), kSelectPostings, kHasPosting.
    "DELETE FROM \"%w\".\"%w_postings\" WHERE feature = ?1 AND size = ?2 AND id = ?3",
    "SELECT count(*) FROM (SELECT 1 FROM \"%w\".\"%w_postings\" WHERE feature = ?1 AND size "
    "BETWEEN ?2 AND ?3 LIMIT ?4)",
    "SELECT id, size FROM \"%w\".\"%w_postings\" WHERE feature = ?1 AND size BETWEEN ?2 AND ?3",
    "SELECT 1 FROM \"%w\".\"%w_postings\" WHERE feature = ?1 AND size = ?2 AND id = ?3",
    // kAddCount, kDropEmptyCount, kSelectCount: the counts table (format 2).
    "INSERT INTO \"%w\".\"%w_counts\"(feature, count) VALUES (?1, ?2) ON CONFLICT(feature) DO "
    "UPDATE SET count = count + ?2",
    "DELETE FROM \"%w\".\"%w_counts\" WHERE feature = ?1 AND count <= 0",
    "SELECT count FROM \"%w\".\"%w_counts\" WHERE feature = ?1",
};

// The statements of format 3's postings blobs, in BlobPostings::Kind order
// (similar_postings.cpp): kWriteBlob; kUpdateBlob (?1 first, ?2 entries);
// kDeleteBlob; kBlobsFrom (two pairs), the blob that covers position ?1
// and those after it, in order (stepped only as far as a read needs).
inline constexpr const char* kBlobPostingsSql[] = {
    "INSERT OR REPLACE INTO \"%w\".\"%w_postings\"(first, entries) VALUES (?1, ?2)",
    "UPDATE \"%w\".\"%w_postings\" SET entries = ?2 WHERE first = ?1",
    "DELETE FROM \"%w\".\"%w_postings\" WHERE first = ?1",
    "SELECT first, entries FROM \"%w\".\"%w_postings\" WHERE first >= coalesce((SELECT first "
    "FROM \"%w\".\"%w_postings\" WHERE first <= ?1 ORDER BY first DESC LIMIT 1), 0) ORDER BY "
    "first",
};

// The module's plans without a query: a rowid lookup, and the scan of the
// stored rows in rowid order.
inline constexpr const char* kSelectSimilarRowId =
    "SELECT id FROM \"%w\".\"%w_rows\" WHERE id = ?1";
inline constexpr const char* kScanSimilarRowIds = "SELECT id FROM \"%w\".\"%w_rows\" ORDER BY id";

// The integrity check: every stored row; the rows of one shadow table
// (+ its suffix, %s); the features whose count disagrees with their
// postings, both ways (five pairs), the first only (format 2); every
// postings blob in order (format 3).
inline constexpr const char* kSelectAllSimilarRows =
    "SELECT id, size, features FROM \"%w\".\"%w_rows\"";
inline constexpr const char* kCountSimilarShadowRows = "SELECT count(*) FROM \"%w\".\"%w_%s\"";
inline constexpr const char* kSelectMiscountedFeature =
    "SELECT feature, held, (SELECT count FROM \"%w\".\"%w_counts\" AS c WHERE c.feature = "
    "p.feature) FROM (SELECT feature, count(*) AS held FROM \"%w\".\"%w_postings\" GROUP BY "
    "feature) AS p WHERE held IS NOT (SELECT count FROM \"%w\".\"%w_counts\" AS c WHERE "
    "c.feature = p.feature) "
    "UNION ALL SELECT feature, 0, count FROM \"%w\".\"%w_counts\" AS c WHERE NOT EXISTS "
    "(SELECT 1 FROM \"%w\".\"%w_postings\" AS p WHERE p.feature = c.feature) LIMIT 1";

inline constexpr const char* kSelectAllPostingBlobs =
    "SELECT first, entries FROM \"%w\".\"%w_postings\" ORDER BY first";

}  // namespace simhash::sql

// SPDX-License-Identifier: MIT
// The storage of one simhash_similar table, and the only code that uses its
// shadow tables (their SQL is in similar_shadow_tables.h): their creation,
// the config, the cached statements that read and write them, the writes that keep rows and
// postings in step, the search's reads (the engine's SimilarStore) and the integrity check. Every
// write goes through the caller's connection inside its statement, so the
// table is exactly as transactional as an ordinary one: savepoints,
// rollbacks and a crash leave rows and postings together.
//
//
// The tables (<name>_config, <name>_rows, <name>_sizes, <name>_postings and,
// from format 2, <name>_counts) and their formats are specified in
// docs/format.md; kSimilarFormat is the 'format' row of a new table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ext/common/cached_statement.h"
#include "ext/common/savepoint_marks.h"
#include "ext/common/sqlite_support.h"
#include "ext/similar/similar_postings.h"
#include "fingerprint/feature_extractor.h"
#include "fingerprint/feature_similarity.h"
#include "fingerprint/simhash_options.h"
#include "similar/pending_postings.h"
#include "similar/similar_search.h"

namespace simhash::sql {

inline constexpr int kSimilarFormat = 3;
// The formats before: 1 (no <name>_counts, ranked by counting postings)
// and 2 (a B-tree entry per posting, with <name>_counts), still read and
// written (similar_postings.h).
inline constexpr int kSimilarFormatWithoutCounts = 1;
inline constexpr const char* kSimilarShadowSuffixes[] = {"config", "rows", "sizes", "postings",
                                                         "counts"};
bool is_similar_shadow_suffix(const char* suffix);

// Flush when this many postings are pending (32 bytes each, and about as
// much again in the lookup by feature).
inline constexpr std::size_t kDefaultFlushAfter = std::size_t{1} << 21;

// The most distinct features a new table takes from one text unless its
// CREATE says otherwise: a text of this many writes its postings in about
// half a second, a 10 MB text of prose would take seconds, all of them
// under the write lock. Stored in <name>_config as max_features.
inline constexpr std::uint64_t kDefaultMaxFeatures = 100000;

// Rows of more features than this (4 KiB of them, about what a 4 KiB page
// holds without spilling) are read in pieces (read_row_pieces) of
// kRowPieceFeatures (1 KiB: a piece reads at most one more page, so the
// verification stops within a page of its verdict).
inline constexpr std::uint64_t kWholeRowFeatures = 512;
inline constexpr std::size_t kRowPieceFeatures = 128;

struct SimilarConfig {
  double threshold = 0.5;
  SimhashOptions options;
  int format = kSimilarFormat;
  // Written at creation; the stored value (a command may change it) is the
  // one a write obeys. 0: no limit, as in tables made before it.
  std::uint64_t max_features = kDefaultMaxFeatures;
  // Not stored in <name>_config: the CREATE statement's hidden flush_after
  // option, read again at every connect, for tests that need a flush inside
  // a transaction without writing millions of postings.
  std::size_t flush_after = kDefaultFlushAfter;
};

// Makes the shadow tables of a new table. Throws SqliteError.
void create_similar_tables(sqlite3* db, const std::string& schema, const std::string& name,
                           const SimilarConfig& config);
// Drops the shadow tables, or a view in the place of one.
void drop_similar_tables(sqlite3* db, const std::string& schema, const std::string& name);
// Checks that the shadow tables are the ordinary tables the module made
// (check_shadow_tables), then reads and checks the config; throws
// SqliteError (SQLITE_CORRUPT_VTAB for a damaged one) whose message starts
// "simhash_similar <name>: ".
SimilarConfig read_similar_config(sqlite3* db, const std::string& schema, const std::string& name);

// A text to store: absent means NULL (kept as a row without features).
using StoredText = std::optional<std::string_view>;

class SimilarStorage final : public SimilarStore {
 public:
  SimilarStorage(sqlite3* db, std::string schema, std::string name, const SimilarConfig& config);
  // Its cached statements are its own: never copied or moved.
  SimilarStorage(const SimilarStorage&) = delete;
  SimilarStorage& operator=(const SimilarStorage&) = delete;

  const std::string& name() const { return name_; }
  const std::string& schema() const { return schema_; }
  const SimilarConfig& config() const { return config_; }

  // Writes. `conflict` is sqlite3_vtab_on_conflict's: REPLACE removes the
  // row already at the id; others throw SqliteError(SQLITE_CONSTRAINT).
  // insert returns the row's id (chosen as SQLite would, max + 1, when absent).
  std::int64_t insert(std::optional<std::int64_t> id, StoredText text, int conflict);
  void remove(std::int64_t id);
  // Moves the row to `new_id` and, when `text` is given, stores its features.
  void update(std::int64_t id, std::int64_t new_id, std::optional<StoredText> text, int conflict);
  bool contains(std::int64_t id);

  // Every row at `threshold` or more with the text, most similar first
  // (then by id); with a `limit` n > 0, the first n of them (find_similar).
  std::vector<SimilarMatch> search(std::string_view text, double threshold, std::size_t limit = 0,
                                   SimilarCounts* counts = nullptr);

  // "" when postings and rows agree, else what is wrong.
  std::string integrity_problem();

  // Sets the stored max_features (0: no limit), in the caller's
  // transaction: a rollback restores the one before.
  void set_max_features(std::uint64_t most);

  // The postings of writes are kept pending (pending_postings.h), which a
  // search reads beside the stored ones, and written by flush(): at xSync,
  // before the integrity check and a rename, and when many are pending. Rows and sizes are written
  // at once. The savepoint calls keep them pending across savepoints
  // (ext/common/savepoint_marks.h).
  void flush();
  void discard_pending() { pending_writes_.discard(); }
  void savepoint(int level) { pending_writes_.savepoint(level); }
  void release(int level) { pending_writes_.release(level); }
  void rollback_to(int level) { pending_writes_.rollback_to(level); }

  void rename(const std::string& new_name);
  // Throws unless DROP TABLE may discard the pending writes (xDestroy,
  // before anything changes): refuse_drop_in_savepoint_after_writes.
  void check_droppable() const;
  void finalize_statements();

 private:
  // Throws SqliteError(SQLITE_TOOBIG) when a text's `count` features are
  // more than the stored max_features allows.
  void check_feature_count(std::size_t count);

 public:
  // SimilarStore
  std::uint64_t count_postings(std::uint64_t feature, SizeRange sizes,
                               std::uint64_t limit) override;
  void read_postings(
      std::uint64_t feature, SizeRange sizes,
      const std::function<bool(std::int64_t id, std::uint64_t size)>& on_posting) override;
  std::uint64_t count_rows(SizeRange sizes, std::uint64_t limit) override;
  void read_row_sizes(
      SizeRange sizes,
      const std::function<void(std::int64_t id, std::uint64_t size)>& on_row) override;
  void read_row(std::int64_t id, std::vector<std::uint64_t>& out) override;
  // A row of more than kWholeRowFeatures is read from the file a piece of
  // kRowPieceFeatures at a time (sqlite3_blob_read): its bytes spill onto
  // overflow pages, which SQLite reads in order, so the pieces left unread
  // are pages never read. Shorter rows are read whole (one page).
  void read_row_pieces(
      std::int64_t id, std::uint64_t size,
      const std::function<bool(std::span<const std::uint64_t>)>& on_piece) override;
  bool keeps_feature_counts() override { return postings_->keeps_counts(); }
  std::uint64_t feature_count(std::uint64_t feature) override;

 public:
  // The cached statements, by the SQL they run (similar_storage.cpp).
  enum Kind {
    kInsertRow,
    kDeleteRow,
    kSelectRow,
    kMaxId,
    kCountRows,
    kSelectRows,
    kInsertSize,
    kDeleteSize,
    kHasSize,
    kMaxSize,
    kSelectMaxFeatures,
    kSetMaxFeatures,
    kStatementCount,
  };

 private:
  sqlite3_stmt* statement(Kind kind);
  [[noreturn]] void damaged(std::int64_t id, const std::string& problem) const;
  // Column `column` of a row a shadow table gave, where the table keeps an
  // INTEGER (`what`: "a size in the sizes table"): anything else is a
  // damaged file, which must fail the statement, never read as 0 or cut.
  std::int64_t stored_integer(sqlite3_stmt* statement, int column, const char* what) const;
  // A row whose features are not the `size` its posting or sizes entry gives.
  [[noreturn]] void wrong_size(std::int64_t id, std::uint64_t size, std::uint64_t bytes) const;
  // Reads row `id` into `out`; false when there is none.
  bool load_row(std::int64_t id, std::vector<std::uint64_t>& out);
  void write_row(std::int64_t id, std::span<const std::uint64_t> hashes);
  void erase_row(std::int64_t id, std::span<const std::uint64_t> hashes);
  void features_of(StoredText text, std::vector<std::uint64_t>& out);
  // The largest stored size, 0 when no row is stored.
  std::uint64_t largest_size();
  // Pushes the pending postings of a row: one per distinct key of its
  // features (SimilarPostings::key_of).
  void push_postings(std::span<const std::uint64_t> hashes, std::int64_t size, std::int64_t id,
                     bool insert);

  sqlite3* db_;
  std::string schema_;
  std::string name_;
  SimilarConfig config_;
  FeatureExtractor extractor_;
  FeatureVector vector_;  // the last text's, buffers kept
  std::vector<std::uint64_t> scratch_;
  CachedStatement statements_[kStatementCount];
  // The postings table of the table's format; reads and writes of postings
  // go through it.
  std::unique_ptr<SimilarPostings> postings_;
  PendingPostings pending_;
  // Its savepoint marks and flushing (ext/common/savepoint_marks.h).
  PendingWrites<PendingPostings> pending_writes_{pending_};
  std::vector<PendingPostings::Net> net_;  // scratch of the postings reads
  // The handle read_row_pieces moves from row to row (sqlite3_blob_reopen);
  // open only during a search, since an open handle is a statement running.
  Blob row_blob_;
  std::string piece_bytes_;
  std::vector<std::uint64_t> piece_;
};

}  // namespace simhash::sql

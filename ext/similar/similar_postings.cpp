// SPDX-License-Identifier: MIT
// The postings tables of simhash_similar (similar_postings.h): RowPostings
// (formats 1 and 2) and BlobPostings (format 3).
#include "ext/similar/similar_postings.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <vector>

#include "ext/common/cached_statement.h"
#include "ext/common/sql_values.h"
#include "ext/similar/similar_shadow_tables.h"
#include "similar/posting_blob.h"

namespace simhash::sql {

namespace {

std::int64_t as_sql(std::uint64_t value) { return static_cast<std::int64_t>(value); }

// A size bound as SQL binds it.
std::int64_t size_bound(std::uint64_t size) {
  return static_cast<std::int64_t>(
      std::min<std::uint64_t>(size, std::numeric_limits<std::int64_t>::max()));
}

void step_done(sqlite3* db, sqlite3_stmt* statement) {
  if (const int rc = sqlite3_step(statement); rc != SQLITE_DONE) {
    throw_sqlite(db, rc);
  }
}

constexpr const char* kRowSuffixes[] = {"config", "rows", "sizes", "postings", "counts"};

// Formats 1 and 2: a B-tree entry (feature, size, id) per posting, and in
// format 2 a count per feature in <name>_counts, written with them.
class RowPostings final : public SimilarPostings {
 public:
  RowPostings(sqlite3* db, const std::string& schema, const std::string& name, bool counts)
      : SimilarPostings(db, schema, name), counts_(counts) {}

  std::uint64_t key_of(std::uint64_t feature) const override { return feature; }
  void write(std::span<const PendingPostings::Change> changes) override;
  std::int64_t count(std::uint64_t key, SizeRange sizes, std::uint64_t limit) override;
  void read(std::uint64_t key, SizeRange sizes,
            const std::function<bool(std::int64_t id, std::int64_t size)>& on_posting) override;
  bool keeps_counts() const override { return counts_; }
  std::int64_t kept_count(std::uint64_t key) override;
  void begin_check() override { features_ = 0; }
  std::string row_problem(std::int64_t id, std::int64_t size,
                          std::span<const std::uint64_t> hashes) override;
  std::string table_problem() override;
  std::span<const char* const> suffixes() const override {
    const std::span<const char* const> all(kRowSuffixes);
    return counts_ ? all : all.first(all.size() - 1);
  }
  void finalize() override {
    for (CachedStatement& cached : statements_) {
      cached.finalize();
    }
  }

  enum Kind {
    kInsertPosting,
    kDeletePosting,
    kCountPostings,
    kSelectPostings,
    kHasPosting,
    kAddCount,
    kDropEmptyCount,
    kSelectCount,
    kStatementCount,
  };

 private:
  sqlite3_stmt* statement(Kind kind) {
    return statements_[kind].get(db_, kRowPostingsSql[kind], schema_, name_);
  }
  void write_counts(std::span<const PendingPostings::Change> changes);
  std::string counts_problem();

  bool counts_;
  std::uint64_t features_ = 0;  // of the rows checked
  CachedStatement statements_[kStatementCount];
};

static_assert(std::size(kRowPostingsSql) == RowPostings::kStatementCount);

void RowPostings::write(std::span<const PendingPostings::Change> changes) {
  for (const PendingPostings::Change& change : changes) {
    sqlite3_stmt* write = statement(change.insert ? kInsertPosting : kDeletePosting);
    ResetOnExit reset(write);
    sqlite3_bind_int64(write, 1, as_sql(change.feature));
    sqlite3_bind_int64(write, 2, change.size);
    sqlite3_bind_int64(write, 3, change.id);
    step_done(db_, write);
  }
  write_counts(changes);
}

// <name>_counts changes with the postings, in the same flush (the changes
// come sorted by feature, so each feature's count is written once): a
// savepoint or rollback that undoes the one undoes the other, and until the
// flush feature_count adds the pending changes.
void RowPostings::write_counts(std::span<const PendingPostings::Change> changes) {
  if (!counts_) {
    return;
  }
  for (std::size_t begin = 0; begin < changes.size();) {
    std::int64_t delta = 0;
    std::size_t end = begin;
    for (; end < changes.size() && changes[end].feature == changes[begin].feature; ++end) {
      delta += changes[end].insert ? 1 : -1;
    }
    const std::uint64_t feature = changes[begin].feature;
    begin = end;
    if (delta == 0) {
      continue;
    }
    {
      sqlite3_stmt* add = statement(kAddCount);
      ResetOnExit reset(add);
      sqlite3_bind_int64(add, 1, as_sql(feature));
      sqlite3_bind_int64(add, 2, delta);
      step_done(db_, add);
    }
    if (delta < 0) {  // the last holder gone: no entry
      sqlite3_stmt* drop = statement(kDropEmptyCount);
      ResetOnExit reset(drop);
      sqlite3_bind_int64(drop, 1, as_sql(feature));
      step_done(db_, drop);
    }
  }
}

std::int64_t RowPostings::count(std::uint64_t key, SizeRange sizes, std::uint64_t limit) {
  sqlite3_stmt* count = statement(kCountPostings);
  ResetOnExit reset(count);
  sqlite3_bind_int64(count, 1, as_sql(key));
  sqlite3_bind_int64(count, 2, size_bound(sizes.lowest));
  sqlite3_bind_int64(count, 3, size_bound(sizes.highest));
  sqlite3_bind_int64(count, 4, size_bound(limit));
  step_row(db_, count);
  return sqlite3_column_int64(count, 0);
}

void RowPostings::read(std::uint64_t key, SizeRange sizes,
                       const std::function<bool(std::int64_t id, std::int64_t size)>& on_posting) {
  sqlite3_stmt* select = statement(kSelectPostings);
  ResetOnExit reset(select);
  sqlite3_bind_int64(select, 1, as_sql(key));
  sqlite3_bind_int64(select, 2, size_bound(sizes.lowest));
  sqlite3_bind_int64(select, 3, size_bound(sizes.highest));
  while (step_row(db_, select)) {
    const std::int64_t id = stored_integer(name_, select, 0, "a row id in the postings table");
    const std::int64_t size = stored_integer(name_, select, 1, "a size in the postings table");
    if (!on_posting(id, size)) {
      return;
    }
  }
}

std::int64_t RowPostings::kept_count(std::uint64_t key) {
  sqlite3_stmt* select = statement(kSelectCount);
  ResetOnExit reset(select);
  sqlite3_bind_int64(select, 1, as_sql(key));
  return step_row(db_, select) ? sqlite3_column_int64(select, 0) : 0;
}

std::string RowPostings::row_problem(std::int64_t id, std::int64_t size,
                                     std::span<const std::uint64_t> hashes) {
  sqlite3_stmt* has_posting = statement(kHasPosting);
  features_ += hashes.size();
  for (const std::uint64_t hash : hashes) {
    ResetOnExit reset(has_posting);
    sqlite3_bind_int64(has_posting, 1, as_sql(hash));
    sqlite3_bind_int64(has_posting, 2, size);
    sqlite3_bind_int64(has_posting, 3, id);
    if (!step_row(db_, has_posting)) {
      return "feature " + std::to_string(as_sql(hash)) + " has no posting";
    }
  }
  return "";
}

std::string RowPostings::table_problem() {
  Statement count;
  const std::string sql =
      format_sql(kCountSimilarShadowRows, schema_.c_str(), name_.c_str(), "postings");
  if (const int rc = prepare(db_, sql, count); rc != SQLITE_OK) {
    throw_sqlite(db_, rc);
  }
  step_row(db_, count.get());
  if (const auto postings = static_cast<std::uint64_t>(sqlite3_column_int64(count.get(), 0));
      postings != features_) {
    return prefix() + std::to_string(postings) + " postings for " + std::to_string(features_) +
           " features of its rows: a posting names no row's feature";
  }
  return counts_problem();
}

std::string RowPostings::counts_problem() {
  if (!counts_) {
    return "";
  }
  // Both ways: every feature of the postings with its number of postings,
  // and no entry for a feature without postings.
  Statement check;
  const char* s = schema_.c_str();
  const char* n = name_.c_str();
  const std::string sql = format_sql(kSelectMiscountedFeature, s, n, s, n, s, n, s, n, s, n);
  if (const int rc = prepare(db_, sql, check); rc != SQLITE_OK) {
    throw_sqlite(db_, rc);
  }
  if (!step_row(db_, check.get())) {
    return "";
  }
  const auto kept = sqlite3_column_type(check.get(), 2) == SQLITE_NULL
                        ? std::string("none")
                        : std::to_string(sqlite3_column_int64(check.get(), 2));
  return prefix() + "feature " + std::to_string(sqlite3_column_int64(check.get(), 0)) + " has " +
         std::to_string(sqlite3_column_int64(check.get(), 1)) + " postings but its count is " +
         kept;
}

constexpr const char* kBlobSuffixes[] = {"config", "rows", "sizes", "postings"};

// The most bytes of postings one blob holds unless the postings of one
// position (one key and size) alone are more: posting_blob.h cuts between
// positions here. A blob of this many bytes, with its row's header, stays
// on its leaf page at every page size from 1024 bytes (SQLite spills a
// rowid table's record past the page size less 35 bytes), so a read of a
// key's postings of a size range is one leaf where they are few; at a
// quarter of the default 4096-byte page SQLite packs four or more blobs in
// a leaf as it balances the tree; and a write rewrites at most about this
// many bytes of a key, however many rows hold it.
constexpr std::size_t kPostingBlobBytes = 960;

// The blobs kept_count reads of one key at most: a key of more rows than
// they hold counts as what they hold, which only ranks it among the common.
constexpr std::size_t kKeptCountBlobs = 8;

// Format 3: a row (first, entries) per blob of postings, each the postings
// whose posting_position() is from `first` to the next row's first less
// one, encoded as posting_blob.h says. The lowest row's first is 0, so
// every position has its blob; no other row is empty.
class BlobPostings final : public SimilarPostings {
 public:
  using SimilarPostings::SimilarPostings;

  std::uint64_t key_of(std::uint64_t feature) const override { return posting_key(feature); }
  void write(std::span<const PendingPostings::Change> changes) override;
  std::int64_t count(std::uint64_t key, SizeRange sizes, std::uint64_t limit) override;
  void read(std::uint64_t key, SizeRange sizes,
            const std::function<bool(std::int64_t id, std::int64_t size)>& on_posting) override;
  bool keeps_counts() const override { return true; }
  std::int64_t kept_count(std::uint64_t key) override;
  void forget() override { blobs_.clear(); }
  void begin_check() override;
  std::string row_problem(std::int64_t id, std::int64_t size,
                          std::span<const std::uint64_t> hashes) override;
  std::string table_problem() override;
  std::span<const char* const> suffixes() const override { return kBlobSuffixes; }
  void finalize() override {
    for (CachedStatement& cached : statements_) {
      cached.finalize();
    }
  }

  enum Kind {
    kWriteBlob,
    kUpdateBlob,
    kDeleteBlob,
    kBlobsFrom,
    kStatementCount,
  };

 private:
  // A blob decoded: the last position it covers, and its postings.
  struct Decoded {
    std::int64_t last = 0;
    std::vector<PostingEntry> entries;
  };
  using Blobs = std::map<std::int64_t, Decoded>;  // by first

  sqlite3_stmt* statement(Kind kind) {
    const char* s = schema_.c_str();
    const char* n = name_.c_str();
    return statements_[kind].get_with(db_, [&] {
      return kind == kBlobsFrom ? format_sql(kBlobPostingsSql[kind], s, n, s, n)
                                : format_sql(kBlobPostingsSql[kind], s, n);
    });
  }
  [[noreturn]] void damaged(std::int64_t first, const std::string& problem) const;
  // The row of the blob that covers `position` (first, bytes), and the
  // last position it covers; false when the table has no blob.
  bool find_blob(std::int64_t position, std::int64_t& first, std::string& bytes,
                 std::int64_t& last);
  // Decodes a blob into `out`, checking that its postings are in its
  // positions [first, last].
  void decode(std::int64_t first, std::int64_t last, const std::string& bytes,
              std::vector<PostingEntry>& out) const;
  // The kept blob that covers `position`, or nullptr.
  const Decoded* kept_blob(std::int64_t position) const;
  // Calls visit with each stored posting of `key` with a size in `sizes`,
  // in order, while it returns true, reading at most `most_blobs` blobs:
  // from the blobs kept, then, from the first position no kept blob
  // covers, the blobs that cover the rest (one statement, stepped only as
  // far as visit goes), each kept until forget().
  template <typename Visit>
  void walk(std::uint64_t key, SizeRange sizes, std::size_t most_blobs, Visit visit);
  // Writes `entries`, the blob at `first` merged (a row there already when
  // `stored`), cut into blobs.
  void write_blob(std::int64_t first, bool stored, std::span<const PostingEntry> entries);

  CachedStatement statements_[kStatementCount];
  // The blobs a search read, decoded: a probe reads those its ranking read.
  Blobs blobs_;
  // Scratch of the writes.
  std::vector<PostingEntry> stored_;
  std::vector<PostingEntry> merged_;
  std::vector<PostingChange> batch_;
  std::string bytes_;
  // The integrity check: the rows' postings expected, counted and summed
  // by a hash of each, against the table's.
  std::uint64_t expected_count_ = 0;
  std::uint64_t expected_sum_ = 0;
};

static_assert(std::size(kBlobPostingsSql) == BlobPostings::kStatementCount);

void BlobPostings::damaged(std::int64_t first, const std::string& problem) const {
  throw SqliteError(SQLITE_CORRUPT_VTAB, prefix() + "damaged postings: the blob at " +
                                             std::to_string(first) + ": " + problem +
                                             "; drop and create the table again");
}

bool BlobPostings::find_blob(std::int64_t position, std::int64_t& first, std::string& bytes,
                             std::int64_t& last) {
  sqlite3_stmt* blobs = statement(kBlobsFrom);
  ResetOnExit reset(blobs);
  sqlite3_bind_int64(blobs, 1, position);
  last = std::numeric_limits<std::int64_t>::max();
  if (!step_row(db_, blobs)) {
    return false;
  }
  first = sqlite3_column_int64(blobs, 0);
  if (first > position) {  // no blob at 0 (a damaged table): none covers it
    last = first - 1;
    return false;
  }
  if (sqlite3_column_type(blobs, 1) != SQLITE_BLOB && sqlite3_column_bytes(blobs, 1) != 0) {
    damaged(first, "its entries are not a BLOB");
  }
  const std::span<const unsigned char> stored = column_bytes(blobs, 1);
  bytes.assign(reinterpret_cast<const char*>(stored.data()), stored.size());
  if (step_row(db_, blobs)) {
    last = sqlite3_column_int64(blobs, 0) - 1;
  }
  return true;
}

void BlobPostings::decode(std::int64_t first, std::int64_t last, const std::string& bytes,
                          std::vector<PostingEntry>& out) const {
  if (bytes.empty() && first == 0) {
    out.clear();  // the lowest blob, kept when empty
    return;
  }
  const std::span<const unsigned char> view(reinterpret_cast<const unsigned char*>(bytes.data()),
                                            bytes.size());
  if (const std::string problem = decode_postings(view, out); !problem.empty()) {
    damaged(first, problem);
  }
  if (posting_position(out.front()) < first || posting_position(out.back()) > last) {
    damaged(first, "a posting is outside its range");
  }
}

const BlobPostings::Decoded* BlobPostings::kept_blob(std::int64_t position) const {
  const auto it = blobs_.upper_bound(position);
  if (it != blobs_.begin() && std::prev(it)->second.last >= position) {
    return &std::prev(it)->second;
  }
  return nullptr;
}

// A kept blob's `last` is never past what is known of it: the position
// before the next blob's start, or, where a walk stopped before reading
// that, its final posting's. A later walk past it reads it again.
template <typename Visit>
void BlobPostings::walk(std::uint64_t key, SizeRange sizes, std::size_t most_blobs, Visit visit) {
  const auto k = static_cast<std::uint32_t>(key);
  const std::int64_t lowest = size_bound(sizes.lowest);
  const std::int64_t highest = size_bound(sizes.highest);
  const std::int64_t end = posting_position(k, highest);
  const PostingEntry from{k, lowest, std::numeric_limits<std::int64_t>::min()};
  // Visits a blob's postings from `position` on (a blob read again, its
  // kept `last` short of its end, is not visited twice); false when the
  // walk is over.
  std::int64_t position = posting_position(k, lowest);
  std::size_t read = 0;
  const auto visit_blob = [&](const std::vector<PostingEntry>& entries) {
    ++read;
    auto it = std::lower_bound(entries.begin(), entries.end(), from);
    while (it != entries.end() && posting_position(*it) < position) {
      ++it;
    }
    for (; it != entries.end() && it->key == k && it->size <= highest; ++it) {
      if (!visit(*it)) {
        return false;
      }
    }
    return read < most_blobs;
  };
  for (const Decoded* kept = kept_blob(position); kept != nullptr; kept = kept_blob(position)) {
    if (!visit_blob(kept->entries) || kept->last >= end) {
      return;
    }
    position = kept->last + 1;
  }
  sqlite3_stmt* blobs = statement(kBlobsFrom);
  ResetOnExit reset(blobs);
  sqlite3_bind_int64(blobs, 1, position);
  Decoded* previous = nullptr;  // its `last` not yet known
  std::int64_t previous_first = 0;
  bool more = true;
  while (more && step_row(db_, blobs)) {
    const std::int64_t first = sqlite3_column_int64(blobs, 0);
    if (previous != nullptr) {
      previous->last = first - 1;
      if (!previous->entries.empty() && posting_position(previous->entries.back()) >= first) {
        damaged(previous_first, "a posting is outside its range");
      }
      previous = nullptr;
    }
    if (first > end) {
      return;  // the blob after the range: its start alone
    }
    if (sqlite3_column_type(blobs, 1) != SQLITE_BLOB && sqlite3_column_bytes(blobs, 1) != 0) {
      damaged(first, "its entries are not a BLOB");
    }
    const std::span<const unsigned char> stored = column_bytes(blobs, 1);
    bytes_.assign(reinterpret_cast<const char*>(stored.data()), stored.size());
    Decoded decoded;
    decode(first, std::numeric_limits<std::int64_t>::max(), bytes_, decoded.entries);
    previous = &blobs_.insert_or_assign(first, std::move(decoded)).first->second;
    previous_first = first;
    more = visit_blob(previous->entries);
  }
  if (previous != nullptr) {
    // The last blob of the table (it reaches every position after it), or
    // one the walk left before the next: known to its final posting.
    previous->last = more ? std::numeric_limits<std::int64_t>::max()
                     : previous->entries.empty()
                         ? previous_first
                         : std::max(previous_first, posting_position(previous->entries.back()));
  }
}

std::int64_t BlobPostings::count(std::uint64_t key, SizeRange sizes, std::uint64_t limit) {
  std::int64_t counted = 0;
  walk(key, sizes, SIZE_MAX, [&](const PostingEntry&) { return ++counted < size_bound(limit); });
  return std::min(counted, size_bound(limit));
}

void BlobPostings::read(std::uint64_t key, SizeRange sizes,
                        const std::function<bool(std::int64_t id, std::int64_t size)>& on_posting) {
  walk(key, sizes, SIZE_MAX,
       [&](const PostingEntry& entry) { return on_posting(entry.id, entry.size); });
}

std::int64_t BlobPostings::kept_count(std::uint64_t key) {
  std::int64_t counted = 0;
  walk(key, SizeRange{0, std::numeric_limits<std::uint64_t>::max()}, kKeptCountBlobs,
       [&](const PostingEntry&) { return ++counted > 0; });
  return counted;
}

void BlobPostings::write(std::span<const PendingPostings::Change> changes) {
  blobs_.clear();
  const auto position_of = [](const PendingPostings::Change& change) {
    return posting_position(static_cast<std::uint32_t>(change.feature), change.size);
  };
  for (std::size_t begin = 0; begin < changes.size();) {
    // The blob that covers the first change, and the changes up to the
    // last position it covers.
    std::int64_t first = 0;
    std::int64_t last = std::numeric_limits<std::int64_t>::max();
    const bool stored = find_blob(position_of(changes[begin]), first, bytes_, last);
    if (!stored) {
      first = 0;
      bytes_.clear();
    }
    decode(first, last, bytes_, stored_);
    batch_.clear();
    for (; begin < changes.size() && position_of(changes[begin]) <= last; ++begin) {
      const PendingPostings::Change& change = changes[begin];
      batch_.push_back(
          {{static_cast<std::uint32_t>(change.feature), change.size, change.id}, change.insert});
    }
    merge_postings(stored_, batch_, merged_);
    write_blob(first, stored, merged_);
  }
}

void BlobPostings::write_blob(std::int64_t first, bool stored,
                              std::span<const PostingEntry> entries) {
  if (entries.empty() && first != 0) {
    sqlite3_stmt* remove = statement(kDeleteBlob);
    ResetOnExit reset(remove);
    sqlite3_bind_int64(remove, 1, first);
    step_done(db_, remove);
    return;
  }
  // The row at `first` updated in place where it is there; the others
  // written (or written again, by a flush repeated after one that failed
  // half-way).
  const auto write = [&](std::int64_t start, const std::string& bytes) {
    sqlite3_stmt* write = statement(stored && start == first ? kUpdateBlob : kWriteBlob);
    ResetOnExit reset(write);
    sqlite3_bind_int64(write, 1, start);
    sqlite3_bind_blob(write, 2, bytes.data(), static_cast<int>(bytes.size()), SQLITE_STATIC);
    step_done(db_, write);
  };
  bytes_.clear();
  encode_postings(entries, bytes_);
  if (bytes_.size() <= kPostingBlobBytes) {
    write(first, bytes_);  // the lowest blob may be empty
    return;
  }
  // The first piece keeps the blob's start; each later one starts at its
  // first posting's position (the cut is between positions).
  std::size_t begin = 0;
  for (const std::size_t end : split_postings(entries, kPostingBlobBytes, true)) {
    const std::span<const PostingEntry> piece = entries.subspan(begin, end - begin);
    bytes_.clear();
    encode_postings(piece, bytes_);
    write(begin == 0 ? first : posting_position(piece.front()), bytes_);
    begin = end;
  }
}

// A hash of a posting for the integrity check's sums (SplitMix64's finish).
std::uint64_t posting_hash(std::uint64_t key, std::int64_t size, std::int64_t id) {
  std::uint64_t x = key * 0x9E3779B97F4A7C15ULL ^
                    static_cast<std::uint64_t>(size) * 0xC2B2AE3D27D4EB4FULL ^
                    static_cast<std::uint64_t>(id);
  x ^= x >> 30U;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 27U;
  x *= 0x94D049BB133111EBULL;
  return x ^ (x >> 31U);
}

void BlobPostings::begin_check() {
  blobs_.clear();
  expected_count_ = 0;
  expected_sum_ = 0;
}

std::string BlobPostings::row_problem(std::int64_t id, std::int64_t size,
                                      std::span<const std::uint64_t> hashes) {
  // A row holds one posting per distinct key of its features (ascending).
  for (std::size_t i = 0; i < hashes.size(); ++i) {
    const std::uint32_t key = posting_key(hashes[i]);
    if (i == 0 || key != posting_key(hashes[i - 1])) {
      ++expected_count_;
      expected_sum_ += posting_hash(key, size, id);
    }
  }
  return "";
}

std::string BlobPostings::table_problem() {
  Statement blobs;
  const std::string sql = format_sql(kSelectAllPostingBlobs, schema_.c_str(), name_.c_str());
  if (const int rc = prepare(db_, sql, blobs); rc != SQLITE_OK) {
    throw_sqlite(db_, rc);
  }
  std::uint64_t count = 0;
  std::uint64_t sum = 0;
  std::vector<PostingEntry> entries;
  std::string bytes;
  std::optional<std::int64_t> previous;  // the blob before, held in `bytes`
  // The blob held in `bytes`, of the positions [first, last].
  const auto check = [&](std::int64_t first, std::int64_t last) -> std::string {
    const std::string where = prefix() + "the postings blob at " + std::to_string(first) + ": ";
    if (bytes.empty() && first == 0) {
      return "";
    }
    if (bytes.empty()) {
      return where + "it holds no posting";
    }
    if (const std::string problem = decode_postings(
            {reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()}, entries);
        !problem.empty()) {
      return where + problem;
    }
    if (posting_position(entries.front()) < first || posting_position(entries.back()) > last) {
      return where + "a posting is outside its range";
    }
    for (const PostingEntry& entry : entries) {
      ++count;
      sum += posting_hash(entry.key, entry.size, entry.id);
    }
    return "";
  };
  while (step_row(db_, blobs.get())) {
    const std::int64_t first = sqlite3_column_int64(blobs.get(), 0);
    if (!previous && first != 0) {
      return prefix() + "the lowest postings blob starts at " + std::to_string(first) +
             ", not at 0";
    }
    if (previous) {
      if (std::string problem = check(*previous, first - 1); !problem.empty()) {
        return problem;
      }
    }
    if (sqlite3_column_type(blobs.get(), 1) != SQLITE_BLOB &&
        sqlite3_column_bytes(blobs.get(), 1) != 0) {
      return prefix() + "the postings blob at " + std::to_string(first) + ": " +
             "its entries are not a BLOB";
    }
    const std::span<const unsigned char> stored = column_bytes(blobs.get(), 1);
    bytes.assign(reinterpret_cast<const char*>(stored.data()), stored.size());
    previous = first;
  }
  if (previous) {
    if (std::string problem = check(*previous, std::numeric_limits<std::int64_t>::max());
        !problem.empty()) {
      return problem;
    }
  }
  if (count != expected_count_ || sum != expected_sum_) {
    return prefix() + std::to_string(count) + " postings for " + std::to_string(expected_count_) +
           " keys of its rows' features" + (count == expected_count_ ? ", not the same ones" : "") +
           ": a row's feature has no posting, or a posting names no row's feature";
  }
  return "";
}

}  // namespace

std::int64_t stored_integer(const std::string& name, sqlite3_stmt* statement, int column,
                            const char* what) {
  if (sqlite3_column_type(statement, column) != SQLITE_INTEGER) {
    throw SqliteError(SQLITE_CORRUPT_VTAB, "simhash_similar " + name + ": damaged file: " + what +
                                               " is " +
                                               type_name(sqlite3_column_type(statement, column)) +
                                               ", not an INTEGER; drop and create the table again");
  }
  return sqlite3_column_int64(statement, column);
}

std::unique_ptr<SimilarPostings> make_similar_postings(sqlite3* db, const std::string& schema,
                                                       const std::string& name, int format) {
  if (format >= 3) {
    return std::make_unique<BlobPostings>(db, schema, name);
  }
  return std::make_unique<RowPostings>(db, schema, name, format == 2);
}

void create_similar_postings(sqlite3* db, const std::string& schema, const std::string& name,
                             int format) {
  const char* s = schema.c_str();
  const char* n = name.c_str();
  if (format >= 3) {
    exec_sql(db, format_sql(kCreateBlobPostings, s, n));
    return;
  }
  exec_sql(db, format_sql(kCreateRowPostings, s, n));
  if (format == 2) {
    exec_sql(db, format_sql(kCreateFeatureCounts, s, n));
  }
}

}  // namespace simhash::sql

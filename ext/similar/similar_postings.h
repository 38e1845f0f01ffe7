// SPDX-License-Identifier: MIT
// The postings table of a simhash_similar table, one class per way of
// keeping it (docs/format.md): RowPostings, a B-tree entry per posting
// (formats 1 and 2, format 2 with <name>_counts), and BlobPostings, the
// postings of a range of keys in one BLOB (format 3, similar/posting_blob.h).
// SimilarStorage owns one, made by make_similar_postings for the table's
// format, and reads and writes postings only through it; the SQL is in
// similar_shadow_tables.h.
//
// Postings are kept under a key of the feature (key_of): the feature itself
// in formats 1 and 2, its top 32 bits in format 3. The pending postings
// (similar/pending_postings.h) are pushed under the same key, one per
// distinct key of a row, so that what a search reads of them and of the
// table agree.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>

#include "ext/common/sqlite_support.h"
#include "similar/pending_postings.h"
#include "similar/similar_search.h"

namespace simhash::sql {

class SimilarPostings {
 public:
  SimilarPostings(sqlite3* db, std::string schema, std::string name)
      : db_(db), schema_(std::move(schema)), name_(std::move(name)) {}
  virtual ~SimilarPostings() = default;
  SimilarPostings(const SimilarPostings&) = delete;
  SimilarPostings& operator=(const SimilarPostings&) = delete;

  virtual std::uint64_t key_of(std::uint64_t feature) const = 0;
  // Writes a flush's net changes, sorted by (key, size, id).
  virtual void write(std::span<const PendingPostings::Change> changes) = 0;
  // The stored postings of `key` with a size in `sizes`, counted up to
  // `limit` (exact below it), or read while on_posting returns true.
  virtual std::int64_t count(std::uint64_t key, SizeRange sizes, std::uint64_t limit) = 0;
  virtual void read(std::uint64_t key, SizeRange sizes,
                    const std::function<bool(std::int64_t id, std::int64_t size)>& on_posting) = 0;
  // Whether a count of postings per key, of any size, is one lookup
  // (SimilarStore::keeps_feature_counts), and that count.
  virtual bool keeps_counts() const = 0;
  virtual std::int64_t kept_count(std::uint64_t key) = 0;
  // A search begins or ends: what it read may be kept until it ends.
  virtual void forget() {}

  // The integrity check, after a flush: each stored row (its ascending
  // hashes), then the table. "" or what is wrong: row_problem's follows
  // "row <id>: ", table_problem's is a whole message.
  virtual void begin_check() = 0;
  virtual std::string row_problem(std::int64_t id, std::int64_t size,
                                  std::span<const std::uint64_t> hashes) = 0;
  virtual std::string table_problem() = 0;

  // The shadow tables' suffixes of this format (for a rename).
  virtual std::span<const char* const> suffixes() const = 0;
  virtual void finalize() = 0;
  // The table was renamed (its statements finalized first).
  void renamed(std::string new_name) { name_ = std::move(new_name); }

 protected:
  std::string prefix() const { return "simhash_similar " + name_ + ": "; }

  sqlite3* db_;
  const std::string schema_;
  std::string name_;
};

// Column `column` of a row a shadow table of table `name` gave, where the
// table keeps an INTEGER (`what`: "a size in the sizes table"): anything
// else is a damaged file, which must fail the statement, never read as 0 or
// cut.
std::int64_t stored_integer(const std::string& name, sqlite3_stmt* statement, int column,
                            const char* what);

std::unique_ptr<SimilarPostings> make_similar_postings(sqlite3* db, const std::string& schema,
                                                       const std::string& name, int format);

// Creates the postings tables of `format` (and its counts, format 2).
void create_similar_postings(sqlite3* db, const std::string& schema, const std::string& name,
                             int format);

}  // namespace simhash::sql

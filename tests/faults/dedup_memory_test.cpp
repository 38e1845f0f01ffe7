// SPDX-License-Identifier: MIT
// simhash_dedup's memory bound, as docs/sql-reference.md
// states it, checked against what C++ code holds at its peak while the
// statement runs (allocation_hooks.h counts every operator new; SQLite's
// page cache is SQLite's and not counted). The bound is in the features the
// texts have and the rows, so it holds at any size; the texts here are
// random words (no two alike but for the copies made on purpose), near
// copies and exact copies, and a family of 2,000 edits of one text, whose
// 2 million pairs the radius mode holds as links until it groups them.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "allocation_hooks.h"
#include "fault_workload.h"

namespace simhash::testing {
namespace {

// The stated bound (docs/sql-reference.md, simhash_dedup, "Memory"): bytes
// per feature of every distinct text, per row, per verified pair (the
// radius mode keeps them until grouping) and a fixed part (the read batch,
// the tokenizers).
constexpr double kBytesPerFeature = 24;
constexpr double kBytesPerRow = 200;
constexpr double kBytesPerVerifiedPair = 24;
constexpr double kFixedBytes = 4 << 20;
// Each thread beyond the first: its share of the two read batches and
// their features, and a bit a row for the join's probes.
constexpr double kBytesPerExtraThread = 1 << 20;
constexpr double kBitsPerRowPerExtraThread = 1;
constexpr int kThreads = 2;

std::int64_t integer(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* statement = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr), SQLITE_OK) << sql;
  EXPECT_EQ(sqlite3_step(statement), SQLITE_ROW) << sql << ": " << sqlite3_errmsg(db);
  const std::int64_t value = sqlite3_column_int64(statement, 0);
  sqlite3_finalize(statement);
  return value;
}

// Peak bytes held by C++ code while `sql` runs to its end, above what was
// held before; `result` gets its one integer.
std::size_t peak_while(sqlite3* db, const std::string& sql, std::int64_t& result) {
  const std::size_t before = allocation::live_bytes();
  allocation::reset_peak();
  result = integer(db, sql);
  return allocation::peak_bytes() - before;
}

TEST(DedupMemory, StaysWithinTheStatedBound) {
  sqlite3* db = open_with_extension(":memory:");
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT)", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  std::mt19937_64 random(22);
  sqlite3_stmt* insert = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "INSERT INTO docs(body) VALUES (?1)", -1, &insert, nullptr),
            SQLITE_OK);
  sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr);
  std::vector<std::string> words;
  std::vector<std::string> first;
  // Under AddressSanitizer (several times slower) a quarter of the rows and
  // half the family, a quarter of its pairs: there the point is the
  // sanitizer watching every path of the four modes, which the smaller table
  // takes too. The bound's check at full size, where the 4 MiB fixed part is
  // too small to hide a per-row or per-pair overrun, is the Release build's.
  const int kRows = sanitized() ? 10000 : 40000;
  const int kFamily = sanitized() ? 1000 : 2000;
  for (int row = 0; row < kRows; ++row) {
    if (row > 0 && row <= kFamily) {  // an edit of the first text
      words = first;
      words[random() % words.size()] = std::string("e").append(std::to_string(row));
    } else if (row % 5 != 4 || words.empty()) {  // else a copy of the last text, or a near one
      words.assign(row == 0 ? 60 : 10 + random() % 60, "");
      for (std::string& word : words) {
        word = std::string("w").append(std::to_string(random() % 100000));
      }
    } else if (row % 10 == 9) {
      words[random() % words.size()] = "edit";
    }
    if (row == 0) {
      first = words;
    }
    std::string body;
    for (const std::string& word : words) {
      body += word + ' ';
    }
    sqlite3_bind_text(insert, 1, body.c_str(), -1, SQLITE_TRANSIENT);
    ASSERT_EQ(sqlite3_step(insert), SQLITE_DONE);
    sqlite3_reset(insert);
  }
  sqlite3_finalize(insert);
  sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
  const auto features = static_cast<double>(
      integer(db, "SELECT count(*) FROM docs, simhash_features(docs.body, 'n=3 weight=binary')"));

  // Word shingles with binary weights take the join, with or without a
  // radius; weighted ones the pairs within the radius, which it holds. At
  // 0.1 the join's prefixes are nearly every feature.
  struct Mode {
    const char* threshold;
    const char* radius;
    const char* options;
  };
  for (const Mode mode :
       {Mode{"0.5", "NULL", "NULL"}, Mode{"0.1", "NULL", "NULL"}, Mode{"0.5", "10", "NULL"},
        Mode{"0.5", "10", "'n=3'"}, Mode{"0.5", "24", "'n=3'"}}) {
    const std::string query = std::string("SELECT count(*) FROM simhash_dedup('SELECT id, body ") +
                              "FROM docs', " + mode.threshold + ", " + mode.radius + ", " +
                              mode.options + ", " + std::to_string(kThreads) + ")";
    std::int64_t grouped = 0;
    const std::size_t peak = peak_while(db, query, grouped);
    // The links: every pair at the threshold (the weighted Jaccard of these
    // texts, whose shingles never repeat, is their set Jaccard).
    const bool holds_links = std::string(mode.options) != "NULL";
    const std::int64_t pairs =
        holds_links ? integer(db, std::string("SELECT count(*) FROM simhash_verified_pairs('") +
                                      "SELECT id, body FROM docs', 0.5, 'n=3 weight=binary', 2)")
                    : 0;
    const double bound =
        kBytesPerFeature * features + kBytesPerRow * kRows +
        kBytesPerVerifiedPair * static_cast<double>(pairs) + kFixedBytes +
        (kThreads - 1) * (kBytesPerExtraThread + kBitsPerRowPerExtraThread * kRows / 8);
    EXPECT_GT(grouped, kRows / 10) << query;
    if (holds_links) {
      EXPECT_GT(pairs, std::int64_t{kFamily} * (kFamily - 1) / 2) << query;
    }
    EXPECT_LE(static_cast<double>(peak), bound) << query << ": " << features << " features, "
                                                << kRows << " rows, " << pairs << " verified pairs";
    RecordProperty("peak bytes per row: " + query,
                   static_cast<int>(static_cast<double>(peak) / kRows));
    std::printf("%s: peak %zu bytes, bound %.0f\n", query.c_str(), peak, bound);
  }
  sqlite3_close(db);
}

}  // namespace
}  // namespace simhash::testing

// SPDX-License-Identifier: MIT
// simhash_verified_pairs within a memory budget holds about the budget
// however many pairs it returns, checked against what C++ code holds at its
// peak while the statement runs to its end (allocation_hooks.h counts every
// operator new; SQLite's page cache is SQLite's and not counted): a family
// of edits of one text, whose pairs grow with the square of its size, read
// at two sizes. The join in memory holds every pair (24 bytes and more
// each), which the same statements without the budget show.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "allocation_hooks.h"
#include "fault_workload.h"

namespace simhash::testing {
namespace {

// The budget, and what a statement holds beside it: the read batch and the
// tokenizers, as the dedup's bound counts them (dedup_memory_test.cpp).
constexpr std::size_t kBudget = std::size_t{4} << 20;
constexpr std::size_t kFixedBytes = std::size_t{4} << 20;

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

// `family` edits of one 60-word text (one word each: every two at Jaccard
// 0.5 or more under word 3-shingles), and 2,000 unrelated texts.
sqlite3* family_database(int family) {
  sqlite3* db = open_with_extension(":memory:");
  sqlite3_exec(db, "CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT)", nullptr, nullptr,
               nullptr);
  std::mt19937_64 random(31);
  sqlite3_stmt* insert = nullptr;
  sqlite3_prepare_v2(db, "INSERT INTO docs(body) VALUES (?1)", -1, &insert, nullptr);
  sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr);
  std::vector<std::string> first(60);
  for (std::string& word : first) {
    word = std::string("w").append(std::to_string(random() % 100000));
  }
  for (int row = 0; row < family + 2000; ++row) {
    std::vector<std::string> words = first;
    if (row < family) {
      words[random() % words.size()] = std::string("e").append(std::to_string(row));
    } else {
      words.resize(10 + random() % 60);
      for (std::string& word : words) {
        word = std::string("u").append(std::to_string(random() % 1000000));
      }
    }
    std::string body;
    for (const std::string& word : words) {
      body += word + ' ';
    }
    sqlite3_bind_text(insert, 1, body.c_str(), -1, SQLITE_TRANSIENT);
    EXPECT_EQ(sqlite3_step(insert), SQLITE_DONE);
    sqlite3_reset(insert);
  }
  sqlite3_finalize(insert);
  sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
  return db;
}

TEST(VerifiedPairsPeakMemory, WithinABudgetMemoryDoesNotGrowWithThePairs) {
  // Under AddressSanitizer half the family at each size.
  const int base = sanitized() ? 500 : 1000;
  std::size_t first_peak = 0;
  for (const int family : {base, 2 * base}) {
    sqlite3* db = family_database(family);
    const std::string call =
        "SELECT count(*) FROM simhash_verified_pairs('SELECT id, body FROM docs', 0.5, NULL, 2";
    std::int64_t pairs = 0;
    const std::size_t peak = peak_while(db, call + ", " + std::to_string(kBudget) + ")", pairs);
    std::int64_t pairs_in_memory = 0;
    const std::size_t peak_in_memory = peak_while(db, call + ")", pairs_in_memory);
    EXPECT_EQ(pairs, pairs_in_memory);
    EXPECT_GE(pairs, std::int64_t{family} * (family - 1) / 2);
    EXPECT_LE(peak, kBudget + kFixedBytes)
        << family << " texts in the family, " << pairs << " pairs";
    // Four times the pairs, about the same peak.
    if (first_peak == 0) {
      first_peak = peak;
    } else {
      EXPECT_LE(peak, first_peak + first_peak / 4) << "four times the pairs";
    }
    EXPECT_GE(static_cast<double>(peak_in_memory), 24.0 * static_cast<double>(pairs))
        << "the join in memory holds every pair";
    std::printf("%d in the family, %lld pairs: peak %zu bytes within %zu, %zu in memory\n", family,
                static_cast<long long>(pairs), peak, kBudget, peak_in_memory);
    sqlite3_close(db);
  }
}

}  // namespace
}  // namespace simhash::testing

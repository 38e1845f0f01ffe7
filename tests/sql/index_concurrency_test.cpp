// Concurrency (issue 11): threads with their own connections on one WAL
// database, writers and readers mixed. Writers change the index and a plain
// mirror table in the same transactions; every reader query compares, inside
// one read transaction (one snapshot), the index's answer with a hamming()
// scan of the mirror, and simhash() of a text with its value computed
// beforehand (the functions' caches are per connection, the CPU dispatch
// is process-wide). The suite runs this under ThreadSanitizer too
// (scripts/test.sh, build-tsan/).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "index_test_support.h"
#include "test_database.h"

namespace simhash::testing {
namespace {

constexpr int kWriters = 2;
constexpr int kReaders = 3;

// "(id, fp)", built by appending: GCC 12 misreads "(" + std::string.
std::string row_values(std::int64_t id, std::int64_t fp) {
  std::string values = "(";
  values += std::to_string(id);
  values += ", ";
  values += std::to_string(fp);
  values += ")";
  return values;
}

std::string hits_sql(const std::string& table_sql, std::int64_t query, int radius) {
  const std::string q = std::to_string(query);
  const std::string r = std::to_string(radius);
  if (table_sql == "near") {
    return "SELECT rowid, distance FROM near WHERE fp MATCH " + q + " AND distance <= " + r +
           " ORDER BY rowid";
  }
  return "SELECT id, hamming(fp, " + q + ") FROM mirror WHERE hamming(fp, " + q + ") <= " + r +
         " ORDER BY id";
}

TEST(IndexConcurrency, ThreadsWithTheirOwnConnectionsAgreeWithBruteForce) {
  TempDatabaseFile file("index_concurrency");
  std::mt19937_64 setup_random(31);
  const std::vector<std::uint64_t> centres = {setup_random(), setup_random(), setup_random()};
  const auto near_a_centre = [&](std::mt19937_64& random) {
    return static_cast<std::int64_t>(flip_random_bits(centres[random() % centres.size()],
                                                      static_cast<int>(random() % 6), random));
  };
  std::string expected_fingerprint;
  {
    TestDatabase db(file.path());
    db.exec("PRAGMA journal_mode=WAL");
    db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
    db.exec("CREATE TABLE mirror(id INTEGER PRIMARY KEY, fp INTEGER)");
    db.exec("BEGIN");
    for (int id = 1; id <= scaled(2000); ++id) {
      const std::string values = row_values(id, near_a_centre(setup_random));
      db.exec("INSERT INTO near(rowid, fp) VALUES " + values);
      db.exec("INSERT INTO mirror(id, fp) VALUES " + values);
    }
    db.exec("COMMIT");
    expected_fingerprint =
        db.cell("SELECT simhash('Concurrent readers fingerprint the same text', 'n=2')")
            .value_or("");
  }

  std::atomic<int> writers_done{0};
  std::atomic<int> comparisons{0};
  std::vector<std::thread> threads;
  threads.reserve(kWriters + kReaders);
  for (int writer = 0; writer < kWriters; ++writer) {
    threads.emplace_back([&, writer] {
      TestDatabase db(file.path());
      db.exec("PRAGMA busy_timeout=10000");
      std::mt19937_64 random(100 + writer);
      // Each writer owns the ids writer*1e6 + ...: no conflicts between them.
      const std::int64_t base = std::int64_t{writer + 1} * 1000000;
      for (std::int64_t round = 0; round < scaled(100); ++round) {
        db.exec("BEGIN IMMEDIATE");
        for (int i = 0; i < 10; ++i) {
          const std::string values = row_values(base + round * 10 + i, near_a_centre(random));
          db.exec("INSERT INTO near(rowid, fp) VALUES " + values);
          db.exec("INSERT INTO mirror(id, fp) VALUES " + values);
        }
        const std::string old_id = std::to_string(base + (round / 2) * 10 + round % 10);
        db.exec("DELETE FROM near WHERE rowid = " + old_id);
        db.exec("DELETE FROM mirror WHERE id = " + old_id);
        const std::string moved = std::to_string(near_a_centre(random));
        db.exec("UPDATE near SET fp = " + moved + " WHERE rowid = " + std::to_string(round + 1));
        db.exec("UPDATE mirror SET fp = " + moved + " WHERE id = " + std::to_string(round + 1));
        db.exec("COMMIT");
      }
      ++writers_done;
    });
  }
  for (int reader = 0; reader < kReaders; ++reader) {
    threads.emplace_back([&, reader] {
      TestDatabase db(file.path());
      db.exec("PRAGMA busy_timeout=10000");
      std::mt19937_64 random(200 + reader);
      while (writers_done.load() < kWriters) {
        const std::int64_t query = near_a_centre(random);
        const int radius = static_cast<int>(random() % 5);  // 4 is above k: a scan
        db.exec("BEGIN");
        const auto index_rows = db.rows(hits_sql("near", query, radius));
        const auto scan_rows = db.rows(hits_sql("mirror", query, radius));
        db.exec("COMMIT");
        EXPECT_EQ(index_rows, scan_rows) << "query " << query << " radius " << radius;
        EXPECT_EQ(db.cell("SELECT simhash('Concurrent readers fingerprint the same text', 'n=2')")
                      .value_or(""),
                  expected_fingerprint);
        ++comparisons;
        if (::testing::Test::HasFailure()) {
          return;
        }
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  EXPECT_GT(comparisons.load(), kReaders) << "the readers ran beside the writers";
  TestDatabase db(file.path());
  expect_integrity(db.handle(), "near");
  EXPECT_EQ(db.rows("SELECT rowid, fp FROM near ORDER BY rowid"),
            db.rows("SELECT id, fp FROM mirror ORDER BY id"));
  RecordProperty("reader_comparisons", comparisons.load());
}

}  // namespace
}  // namespace simhash::testing

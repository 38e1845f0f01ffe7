// SPDX-License-Identifier: MIT
// Concurrency: writer threads, or writer processes, and reader
// threads, each with its own connection, on one WAL database. Writers change
// the index and a plain mirror table in the same transactions; every reader
// query compares, inside one read transaction (one snapshot), the index's
// answer with a hamming() scan of the mirror, and simhash() of a text with
// its value computed beforehand (the functions' caches are per connection,
// the CPU dispatch is process-wide). The threads-only test also runs under
// ThreadSanitizer (scripts/test.sh, build-tsan/).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

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

std::vector<std::uint64_t> make_centres() {
  std::mt19937_64 random(31);
  return {random(), random(), random()};
}

std::int64_t near_a_centre(const std::vector<std::uint64_t>& centres, std::mt19937_64& random) {
  return static_cast<std::int64_t>(
      flip_random_bits(centres[random() % centres.size()], static_cast<int>(random() % 6), random));
}

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

// A WAL database with the index and its mirror holding the same rows;
// returns simhash() of the readers' text, computed before any thread starts.
std::string create_database(const std::string& path, const std::vector<std::uint64_t>& centres) {
  TestDatabase db(path);
  db.exec("PRAGMA journal_mode=WAL");
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  db.exec("CREATE TABLE mirror(id INTEGER PRIMARY KEY, fp INTEGER)");
  std::mt19937_64 random(32);
  db.exec("BEGIN");
  for (int id = 1; id <= scaled(2000); ++id) {
    const std::string values = row_values(id, near_a_centre(centres, random));
    db.exec("INSERT INTO near(rowid, fp) VALUES " + values);
    db.exec("INSERT INTO mirror(id, fp) VALUES " + values);
  }
  db.exec("COMMIT");
  return db.cell("SELECT simhash('Concurrent readers fingerprint the same text', 'n=2')")
      .value_or("");
}

// Writes `rounds` transactions of 12 changes to the index and the mirror
// alike, with ids of its own (writer * 1e6 + ...), through its own connection.
void write_rounds(const std::string& path, int writer, std::int64_t rounds,
                  const std::vector<std::uint64_t>& centres) {
  TestDatabase db(path);
  db.exec("PRAGMA busy_timeout=10000");
  std::mt19937_64 random(100 + writer);
  const std::int64_t base = std::int64_t{writer + 1} * 1000000;
  for (std::int64_t round = 0; round < rounds; ++round) {
    db.exec("BEGIN IMMEDIATE");
    for (int i = 0; i < 10; ++i) {
      const std::string values = row_values(base + round * 10 + i, near_a_centre(centres, random));
      db.exec("INSERT INTO near(rowid, fp) VALUES " + values);
      db.exec("INSERT INTO mirror(id, fp) VALUES " + values);
    }
    const std::string old_id = std::to_string(base + (round / 2) * 10 + round % 10);
    db.exec("DELETE FROM near WHERE rowid = " + old_id);
    db.exec("DELETE FROM mirror WHERE id = " + old_id);
    const std::string moved = std::to_string(near_a_centre(centres, random));
    db.exec("UPDATE near SET fp = " + moved + " WHERE rowid = " + std::to_string(round + 1));
    db.exec("UPDATE mirror SET fp = " + moved + " WHERE id = " + std::to_string(round + 1));
    db.exec("COMMIT");
  }
}

// Compares the index with the mirror, each query inside one read
// transaction, until `done()`; returns the number of comparisons.
template <typename Done>
int read_and_compare(const std::string& path, int reader, const std::vector<std::uint64_t>& centres,
                     const std::string& expected_fingerprint, Done done) {
  TestDatabase db(path);
  db.exec("PRAGMA busy_timeout=10000");
  std::mt19937_64 random(200 + reader);
  int comparisons = 0;
  while (!done()) {
    const std::int64_t query = near_a_centre(centres, random);
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
      break;
    }
  }
  return comparisons;
}

void expect_index_equals_mirror(const std::string& path) {
  TestDatabase db(path);
  expect_integrity(db.handle(), "near");
  EXPECT_EQ(db.rows("SELECT rowid, fp FROM near ORDER BY rowid"),
            db.rows("SELECT id, fp FROM mirror ORDER BY id"));
}

TEST(IndexConcurrency, ThreadsWithTheirOwnConnectionsAgreeWithBruteForce) {
  TempDatabaseFile file("index_concurrency");
  const std::vector<std::uint64_t> centres = make_centres();
  const std::string expected_fingerprint = create_database(file.path(), centres);
  std::atomic<int> writers_done{0};
  std::atomic<int> comparisons{0};
  std::vector<std::thread> threads;
  threads.reserve(kWriters + kReaders);
  for (int writer = 0; writer < kWriters; ++writer) {
    threads.emplace_back([&, writer] {
      write_rounds(file.path(), writer, scaled(100), centres);
      ++writers_done;
    });
  }
  for (int reader = 0; reader < kReaders; ++reader) {
    threads.emplace_back([&, reader] {
      comparisons += read_and_compare(file.path(), reader, centres, expected_fingerprint,
                                      [&] { return writers_done.load() == kWriters; });
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  EXPECT_GT(comparisons.load(), kReaders) << "the readers ran beside the writers";
  expect_index_equals_mirror(file.path());
  RecordProperty("reader_comparisons", comparisons.load());
}

// The same with the writers in child processes (not under ThreadSanitizer,
// which does not follow fork): SQLite's file locks, not its mutexes, keep
// them apart.
TEST(IndexProcesses, WriterProcessesAndReaderThreadsAgreeWithBruteForce) {
  TempDatabaseFile file("index_processes");
  const std::vector<std::uint64_t> centres = make_centres();
  const std::string expected_fingerprint = create_database(file.path(), centres);
  std::vector<pid_t> children;
  for (int writer = 0; writer < kWriters; ++writer) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      write_rounds(file.path(), writer, scaled(100), centres);
      _exit(::testing::Test::HasFailure() ? 1 : 0);
    }
    children.push_back(child);
  }
  std::atomic<int> children_done{0};
  std::atomic<int> comparisons{0};
  std::vector<std::thread> readers;
  readers.reserve(kReaders);
  for (int reader = 0; reader < kReaders; ++reader) {
    readers.emplace_back([&, reader] {
      comparisons += read_and_compare(file.path(), reader, centres, expected_fingerprint,
                                      [&] { return children_done.load() == kWriters; });
    });
  }
  for (const pid_t child : children) {
    int status = 0;
    waitpid(child, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a writer process failed";
    ++children_done;
  }
  for (std::thread& reader : readers) {
    reader.join();
  }
  EXPECT_GT(comparisons.load(), kReaders) << "the readers ran beside the writers";
  expect_index_equals_mirror(file.path());
}

}  // namespace
}  // namespace simhash::testing

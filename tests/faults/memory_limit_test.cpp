// SPDX-License-Identifier: MIT
// The extension's working memory counts against SQLite's
// hard heap limit (util/memory_budget.h). For each batch function and the
// index: a statement that needs more than the limit leaves fails with
// SQLITE_NOMEM and a message naming the function and the limit, the
// database as it was; the same statement under a limit with room succeeds
// with the answer it gives unlimited; and what C++ code holds at its peak
// (allocation_hooks.h) stays within what the limit left plus kSlack, both
// when it fails and when it succeeds.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "allocation_hooks.h"
#include "fault_workload.h"

namespace simhash::testing {
namespace {

// What a statement holds beyond its charges: the read batch of texts and
// their features (128 KiB of text), the tokenizers, a batch of pairs, the
// allocator's rounding of what is charged. Measured at under 3 MB here.
constexpr std::size_t kSlack = std::size_t{4} << 20;

struct Outcome {
  int rc = SQLITE_OK;
  std::string message;
  std::string answer;    // every row, cells joined by '|'
  std::size_t peak = 0;  // bytes C++ code held at most, above what it held before
};

// Runs `sql` to its end, recording the peak of C++ allocations.
Outcome run(sqlite3* db, const std::string& sql) {
  Outcome outcome;
  const std::size_t before = allocation::live_bytes();
  allocation::reset_peak();
  sqlite3_stmt* statement = nullptr;
  outcome.rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr);
  while (outcome.rc == SQLITE_OK || outcome.rc == SQLITE_ROW) {
    outcome.rc = sqlite3_step(statement);
    if (outcome.rc == SQLITE_ROW) {
      for (int column = 0; column < sqlite3_column_count(statement); ++column) {
        const unsigned char* text = sqlite3_column_text(statement, column);
        outcome.answer += text != nullptr ? reinterpret_cast<const char*>(text) : "NULL";
        outcome.answer += '|';
      }
      outcome.answer += '\n';
    }
  }
  outcome.message = sqlite3_errmsg(db);
  sqlite3_finalize(statement);
  outcome.rc = outcome.rc == SQLITE_DONE ? SQLITE_OK : outcome.rc;
  outcome.peak = allocation::peak_bytes() - before;
  return outcome;
}

void exec(sqlite3* db, const std::string& sql) {
  char* message = nullptr;
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message), SQLITE_OK)
      << sql << ": " << (message != nullptr ? message : "");
  sqlite3_free(message);
}

// Texts of random words, every fifth a copy of the one before or a near one,
// and 600 edits of the first text (180,000 pairs at 0.5): the pairs and
// links grow beyond the rows.
void fill_docs(sqlite3* db, int rows) {
  exec(db, "CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT)");
  std::mt19937_64 random(31);
  sqlite3_stmt* insert = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "INSERT INTO docs(body) VALUES (?1)", -1, &insert, nullptr),
            SQLITE_OK);
  exec(db, "BEGIN");
  std::vector<std::string> words;
  std::vector<std::string> first;
  constexpr int kFamily = 600;
  for (int row = 0; row < rows; ++row) {
    if (row > 0 && row <= kFamily) {
      words = first;
      words[random() % words.size()] = std::string("e").append(std::to_string(row));
    } else if (row % 5 != 4 || words.empty()) {
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
  exec(db, "COMMIT");
}

// An index of `rows` random fingerprints, with clumps (every tenth row near
// the one before) so that pairs exist at small radii.
void fill_index(sqlite3* db, const char* name, int rows) {
  exec(db, std::string("CREATE VIRTUAL TABLE ") + name + " USING simhash_index(k=3)");
  // x ^ bit is (x | bit) - (x & bit), SQLite having no XOR.
  exec(db, std::string("INSERT INTO ") + name +
               "(rowid, fp) WITH RECURSIVE n(i, x) AS (SELECT 1, 7 UNION ALL SELECT i + 1, "
               "CASE WHEN i % 10 = 0 THEN (x | (1 << (i % 63))) - (x & (1 << (i % 63))) ELSE "
               "((i * 2654435761) % 4294967296) << 32 | ((i * 40503 * 7919) % 4294967296) END "
               "FROM n WHERE i < " +
               std::to_string(rows) + ") SELECT i, x FROM n");
}

class MemoryLimit : public ::testing::Test {
 protected:
  void SetUp() override {
    sqlite3_hard_heap_limit64(0);
    db_ = open_with_extension(":memory:");
    exec(db_, "CREATE TABLE out(a, b, c, d)");
  }
  void TearDown() override {
    sqlite3_hard_heap_limit64(0);
    sqlite3_close(db_);
  }

  // `select` (four columns) run as INSERT INTO out: unlimited to measure
  // it, under a limit that leaves a `refused_share`th of that (a third by
  // default: SQLITE_NOMEM, `out` unchanged) and under one that leaves room
  // (the same rows).
  void expect_limited(const std::string& function, const std::string& select,
                      std::size_t refused_share = 3) {
    SCOPED_TRACE(select);
    const std::string insert = "INSERT INTO out " + select;
    const Outcome unlimited = run(db_, insert);
    ASSERT_EQ(unlimited.rc, SQLITE_OK) << unlimited.message;
    const std::string rows = run(db_, "SELECT * FROM out ORDER BY a, b").answer;
    ASSERT_FALSE(rows.empty());
    exec(db_, "DELETE FROM out");
    ASSERT_GT(unlimited.peak, 2 * kSlack) << "too small a case to tell";

    // Left a third of what it needs: refused, nothing written.
    const std::size_t tight = unlimited.peak / refused_share;
    std::size_t left = set_limit_leaving(tight);
    const Outcome refused = run(db_, insert);
    EXPECT_EQ(refused.rc, SQLITE_NOMEM) << refused.message;
    EXPECT_NE(refused.message.find(function + ": out of memory under the heap limit (PRAGMA "
                                              "hard_heap_limit = "),
              std::string::npos)
        << refused.message;
    EXPECT_LE(refused.peak, left + kSlack) << "unlimited: " << unlimited.peak;
    sqlite3_hard_heap_limit64(0);
    EXPECT_EQ(run(db_, "SELECT count(*) FROM out").answer, "0|\n");

    // Room for it (the charges are estimates on the safe side, up to twice
    // what is used): the same rows.
    left = set_limit_leaving(2 * unlimited.peak + kSlack);
    const Outcome allowed = run(db_, insert);
    EXPECT_EQ(allowed.rc, SQLITE_OK) << allowed.message;
    EXPECT_LE(allowed.peak, left + kSlack);
    sqlite3_hard_heap_limit64(0);
    EXPECT_TRUE(run(db_, "SELECT * FROM out ORDER BY a, b").answer == rows);
    exec(db_, "DELETE FROM out");
    std::printf("%s: unlimited peak %zu, refused at %zu left (peak %zu)\n", select.c_str(),
                unlimited.peak, tight, refused.peak);
  }

  // `select` run as INSERT INTO out under a limit that leaves a third of
  // what it holds unlimited: a function that takes SQLite's soft limit as
  // its budget (a hard limit sets the soft one too, at most the hard one)
  // runs within it, with the rows it gives unlimited.
  void expect_within_limit(const std::string& select) {
    SCOPED_TRACE(select);
    const std::string insert = "INSERT INTO out " + select;
    const Outcome unlimited = run(db_, insert);
    ASSERT_EQ(unlimited.rc, SQLITE_OK) << unlimited.message;
    const std::string rows = run(db_, "SELECT * FROM out ORDER BY a, b").answer;
    exec(db_, "DELETE FROM out");
    const std::size_t left = set_limit_leaving(unlimited.peak / 3);
    const Outcome within = run(db_, insert);
    sqlite3_hard_heap_limit64(0);
    EXPECT_EQ(within.rc, SQLITE_OK) << within.message;
    EXPECT_LE(within.peak, left + kSlack) << "unlimited: " << unlimited.peak;
    EXPECT_TRUE(run(db_, "SELECT * FROM out ORDER BY a, b").answer == rows);
    exec(db_, "DELETE FROM out");
    std::printf("%s: unlimited peak %zu, within %zu left (peak %zu)\n", select.c_str(),
                unlimited.peak, left, within.peak);
  }

  // Sets the hard heap limit to what SQLite uses now plus `bytes`; returns
  // `bytes`.
  std::size_t set_limit_leaving(std::size_t bytes) {
    sqlite3_hard_heap_limit64(sqlite3_memory_used() + static_cast<sqlite3_int64>(bytes));
    return bytes;
  }

  sqlite3* db_ = nullptr;
};

TEST_F(MemoryLimit, DedupJoin) {
  fill_docs(db_, 20000);
  expect_limited("simhash_dedup",
                 "SELECT id, cluster, distance, similarity FROM "
                 "simhash_dedup('SELECT id, body FROM docs', 0.5, NULL)");
}

TEST_F(MemoryLimit, DedupWithinRadius) {
  fill_docs(db_, 20000);
  expect_limited("simhash_dedup",
                 "SELECT id, cluster, distance, similarity FROM "
                 "simhash_dedup('SELECT id, body FROM docs', 0.5, 16, 'n=3')");
}

// The verified pairs take SQLite's soft limit as their budget, and a hard
// limit sets it: under a limit that leaves a third of what the join in
// memory holds they run in parts, within it; under one that leaves less
// than their rows' own arrays, refused.
TEST_F(MemoryLimit, VerifiedPairs) {
  fill_docs(db_, 20000);
  const std::string select =
      "SELECT a, b, distance, similarity FROM simhash_verified_pairs('SELECT id, body FROM "
      "docs', 0.5)";
  expect_within_limit(select);
  expect_limited("simhash_verified_pairs", select, 40);
}

TEST_F(MemoryLimit, PairsAndClusters) {
  fill_index(db_, "near", 200000);
  expect_limited("simhash_pairs", "SELECT a, b, distance, 0 FROM simhash_pairs('near', 3)");
  expect_limited("simhash_clusters",
                 "SELECT id, cluster, distance, similarity FROM simhash_clusters('near', 3)");
}

// One large text's features count against the limit: the scalar
// functions, the features table and a simhash_similar insert of a 1.5 MB
// text cut into character 16-shingles (a feature for nearly every
// character) fail at the limit instead of holding many times the text.
TEST_F(MemoryLimit, OneLargeTextsFeatures) {
  exec(db_,
       "CREATE TABLE big(body TEXT); INSERT INTO big WITH RECURSIVE n(i, t) AS (SELECT 1, 'x' "
       "UNION ALL SELECT i + 1, t || printf(' w%d v%d', (i * 7919) % 100003, i) FROM n WHERE i < "
       "1) SELECT 'seed' FROM n");
  // 1.5 MB of text whose character shingles are nearly all distinct.
  exec(db_,
       "UPDATE big SET body = (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
       "WHERE i < 150000) SELECT group_concat(printf('%06d%04x', (i * 7919) % 1000003, i), ' ') "
       "FROM n)");
  const std::string options = "'unit=char n=16 weight=binary'";
  expect_limited("simhash", "SELECT simhash(body, " + options + "), 1, 2, 3 FROM big");
  // simhash_jaccard keeps the vectors of the texts it saw last: each run on
  // a connection of its own, so that each computes them.
  const std::string jaccard =
      "SELECT simhash_jaccard(body, substr(body, 1, 100000), " + options + ") FROM big";
  const std::string answer = run(db_, jaccard).answer;
  const auto on_fresh_connection = [&](std::size_t left) {
    sqlite3* fresh = open_with_extension(":memory:");
    exec(fresh, "CREATE TABLE big(body TEXT)");
    sqlite3_stmt* copy = nullptr;
    sqlite3_prepare_v2(db_, "SELECT body FROM big", -1, &copy, nullptr);
    sqlite3_step(copy);
    sqlite3_stmt* insert = nullptr;
    sqlite3_prepare_v2(fresh, "INSERT INTO big VALUES (?1)", -1, &insert, nullptr);
    sqlite3_bind_value(insert, 1, sqlite3_column_value(copy, 0));
    sqlite3_step(insert);
    sqlite3_finalize(insert);
    sqlite3_finalize(copy);
    set_limit_leaving(left);
    const Outcome outcome = run(fresh, jaccard);
    sqlite3_hard_heap_limit64(0);
    sqlite3_close(fresh);
    return outcome;
  };
  const Outcome refused = on_fresh_connection(std::size_t{16} << 20);
  EXPECT_EQ(refused.rc, SQLITE_NOMEM) << refused.message;
  EXPECT_NE(refused.message.find("simhash_jaccard: out of memory under the heap limit (PRAGMA "
                                 "hard_heap_limit = "),
            std::string::npos)
      << refused.message;
  EXPECT_LE(refused.peak, (std::size_t{16} << 20) + kSlack);
  const Outcome allowed = on_fresh_connection(std::size_t{400} << 20);
  EXPECT_EQ(allowed.rc, SQLITE_OK) << allowed.message;
  EXPECT_EQ(allowed.answer, answer);
  expect_limited("simhash_features",
                 "SELECT count(*), sum(length(feature)), 2, 3 FROM big, simhash_features(body, " +
                     options + ")");
}

// The PRAGMA sets the same limit the C API does.
TEST_F(MemoryLimit, PragmaHardHeapLimit) {
  fill_docs(db_, 20000);
  exec(db_, "PRAGMA hard_heap_limit = " + std::to_string(sqlite3_memory_used() + (4 << 20)));
  const Outcome refused =
      run(db_, "SELECT count(*) FROM simhash_dedup('SELECT id, body FROM docs', 0.5, NULL)");
  EXPECT_EQ(refused.rc, SQLITE_NOMEM) << refused.message;
  EXPECT_NE(refused.message.find("simhash_dedup: out of memory"), std::string::npos)
      << refused.message;
  // The connection is not left failing: with the limit lifted it runs.
  sqlite3_hard_heap_limit64(0);
  EXPECT_EQ(run(db_,
                "SELECT count(*) > 0 FROM simhash_dedup('SELECT id, body FROM docs', 0.5, "
                "NULL)")
                .answer,
            "1|\n");
}

// Inside a transaction, SQLITE_NOMEM does what it does for SQLite's own
// allocations: a statement that writes under a statement journal (here the
// UNIQUE constraint asks for one) undoes itself alone; any other, a SELECT
// among them, rolls back the whole transaction. Either way nothing of the
// failing statement stays.
TEST_F(MemoryLimit, InsideATransaction) {
  fill_docs(db_, 20000);
  exec(db_, "CREATE TABLE kept(a UNIQUE, b, c, d)");
  const std::string dedup =
      "SELECT id, cluster, distance, similarity FROM simhash_dedup('SELECT id, body FROM docs', "
      "0.5, NULL)";
  exec(db_, "BEGIN");
  exec(db_, "INSERT INTO kept VALUES (-1, 2, 3, 4)");
  set_limit_leaving(std::size_t{4} << 20);
  const Outcome statement_undone =
      run(db_, "INSERT INTO kept SELECT -5, 6, 7, 8 UNION ALL " + dedup);
  sqlite3_hard_heap_limit64(0);
  EXPECT_EQ(statement_undone.rc, SQLITE_NOMEM) << statement_undone.message;
  EXPECT_EQ(sqlite3_get_autocommit(db_), 0) << "the transaction was rolled back";
  EXPECT_EQ(run(db_, "SELECT * FROM kept").answer, "-1|2|3|4|\n");

  set_limit_leaving(std::size_t{4} << 20);
  const Outcome transaction_undone = run(db_, dedup);
  sqlite3_hard_heap_limit64(0);
  EXPECT_EQ(transaction_undone.rc, SQLITE_NOMEM) << transaction_undone.message;
  EXPECT_EQ(sqlite3_get_autocommit(db_), 1) << "the transaction is still open";
  EXPECT_EQ(run(db_, "SELECT count(*) FROM kept").answer, "0|\n");
}

// A large answer: the hits of a search are charged once found, so the
// statement fails at its end rather than at the allocation, with the index
// unchanged.
TEST_F(MemoryLimit, IndexQuery) {
  fill_index(db_, "near", 200000);
  const std::string query = "SELECT count(*) FROM near WHERE fp MATCH 7 AND distance <= 40";
  const Outcome unlimited = run(db_, query);
  ASSERT_EQ(unlimited.rc, SQLITE_OK) << unlimited.message;
  set_limit_leaving(std::size_t{1} << 20);
  const Outcome refused = run(db_, query);
  EXPECT_EQ(refused.rc, SQLITE_NOMEM) << refused.message;
  EXPECT_NE(refused.message.find("simhash_index: out of memory under the heap limit"),
            std::string::npos)
      << refused.message;
  set_limit_leaving(2 * unlimited.peak + kSlack);
  EXPECT_EQ(run(db_, query).answer, unlimited.answer);
  sqlite3_hard_heap_limit64(0);
  EXPECT_EQ(run(db_, "INSERT INTO near(near) VALUES ('integrity-check')").rc, SQLITE_OK);
}

// A bulk insert into the index in one statement: its changes wait in memory
// to be merged at commit, unless the limit leaves no room for them, when
// they are merged early. Under a limit the insert succeeds with its peak
// within the limit, and the index holds every row.
TEST_F(MemoryLimit, IndexBulkInsertMergesEarly) {
  exec(db_, "CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  const std::string insert =
      "INSERT INTO near(rowid, fp) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 "
      "FROM n WHERE i < 200000) SELECT i, ((i * 2654435761) % 4294967296) << 32 | i FROM n";
  const Outcome unlimited = run(db_, insert);
  ASSERT_EQ(unlimited.rc, SQLITE_OK) << unlimited.message;
  // The pending changes are charged as they are (no estimate), and nothing
  // else grows with the rows: a megabyte of slack.
  constexpr std::size_t kIndexSlack = std::size_t{1} << 20;
  ASSERT_GT(unlimited.peak, 3 * kIndexSlack);
  exec(db_, "DELETE FROM near");
  const std::size_t left = set_limit_leaving(unlimited.peak / 3);
  const Outcome limited = run(db_, insert);
  EXPECT_EQ(limited.rc, SQLITE_OK) << limited.message;
  EXPECT_LE(limited.peak, left + kIndexSlack) << "unlimited: " << unlimited.peak;
  sqlite3_hard_heap_limit64(0);
  EXPECT_EQ(run(db_, "SELECT count(*) FROM near").answer, "200000|\n");
  EXPECT_EQ(run(db_, "INSERT INTO near(near) VALUES ('integrity-check')").rc, SQLITE_OK);
  std::printf("bulk insert: unlimited peak %zu, limited peak %zu\n", unlimited.peak, limited.peak);
}

// simhash_similar keeps a transaction's postings in memory until the commit
// (its log, and a lookup by feature that a search reads), both charged as
// they grow. On a file with SQLite's default page cache, so that its own
// memory stays small: a large insert under a limit that leaves a third of
// what it needs fails with SQLITE_NOMEM naming simhash_similar, its peak
// within the limit, and leaves the table as it was; as statements of one
// transaction, the failing one leaves nothing of itself either; with room,
// every row is stored and the integrity check passes.
TEST(SimilarMemoryLimit, ALargeTransactionIsRefusedWithNothingChanged) {
  const std::string path =
      ::testing::TempDir() + "simhash_similar_limit_" + std::to_string(getpid()) + ".db";
  std::remove(path.c_str());
  sqlite3_hard_heap_limit64(0);
  sqlite3* db = open_with_extension(path);
  exec(db, "PRAGMA synchronous = OFF");
  fill_docs(db, 6000);
  const std::string create = "CREATE VIRTUAL TABLE sim USING simhash_similar(threshold=0.5)";
  const std::string insert = "INSERT INTO sim(rowid, text) SELECT id, body FROM docs";
  const std::string integrity = "INSERT INTO sim(sim) VALUES ('integrity-check')";
  exec(db, create);
  const Outcome unlimited = run(db, insert);
  ASSERT_EQ(unlimited.rc, SQLITE_OK) << unlimited.message;
  ASSERT_GT(unlimited.peak, 3 * kSlack) << "too small a case to tell";
  exec(db, "DROP TABLE sim");
  exec(db, create);

  const std::size_t left = unlimited.peak / 3;
  sqlite3_hard_heap_limit64(sqlite3_memory_used() + static_cast<sqlite3_int64>(left));
  const Outcome refused = run(db, insert);
  sqlite3_hard_heap_limit64(0);
  EXPECT_EQ(refused.rc, SQLITE_NOMEM) << refused.message;
  EXPECT_NE(refused.message.find("simhash_similar: out of memory under the heap limit"),
            std::string::npos)
      << refused.message;
  EXPECT_LE(refused.peak, left + kSlack) << "unlimited: " << unlimited.peak;
  EXPECT_EQ(
      run(db, "SELECT (SELECT count(*) FROM sim) + (SELECT count(*) FROM sim_postings)").answer,
      "0|\n");
  EXPECT_EQ(run(db, integrity).rc, SQLITE_OK);

  // The same rows as ten statements of one transaction.
  exec(db, "BEGIN");
  sqlite3_hard_heap_limit64(sqlite3_memory_used() + static_cast<sqlite3_int64>(left));
  Outcome failed;
  int done = 0;
  for (; done < 10; ++done) {
    failed = run(db, insert + " WHERE id % 10 = " + std::to_string(done));
    if (failed.rc != SQLITE_OK) {
      break;
    }
  }
  sqlite3_hard_heap_limit64(0);
  EXPECT_EQ(failed.rc, SQLITE_NOMEM) << "all ten statements fitted";
  EXPECT_LE(failed.peak, left + kSlack);
  if (sqlite3_get_autocommit(db) == 0) {
    exec(db, "COMMIT");  // the statements before the failing one, whole
    EXPECT_EQ(run(db, "SELECT count(*) FROM sim").answer,
              run(db, "SELECT count(*) FROM docs WHERE id % 10 < " + std::to_string(done)).answer);
  } else {
    EXPECT_EQ(run(db, "SELECT count(*) FROM sim").answer, "0|\n");
  }
  EXPECT_EQ(run(db, integrity).rc, SQLITE_OK) << sqlite3_errmsg(db);
  exec(db, "DROP TABLE sim");
  exec(db, create);

  const std::size_t room = 2 * unlimited.peak + kSlack;
  sqlite3_hard_heap_limit64(sqlite3_memory_used() + static_cast<sqlite3_int64>(room));
  const Outcome allowed = run(db, insert);
  sqlite3_hard_heap_limit64(0);
  EXPECT_EQ(allowed.rc, SQLITE_OK) << allowed.message;
  EXPECT_EQ(run(db, "SELECT count(*) FROM sim").answer, "6000|\n");
  EXPECT_EQ(run(db, integrity).rc, SQLITE_OK);
  std::printf("simhash_similar insert: unlimited peak %zu, refused at %zu left (peak %zu)\n",
              unlimited.peak, left, refused.peak);
  sqlite3_close(db);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace simhash::testing

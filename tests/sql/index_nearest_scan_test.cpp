// SPDX-License-Identifier: MIT
// The n nearest from the packed codes: near(:q, r, n) with r of
// 64 or more is the same query as `query = :q AND nearest = n` (same rows,
// same plan); with a smaller bound the radius grows to it; and when the
// search must visit most rows it scans the packed buckets of one copy. All
// against a brute-force hamming() scan of a plain table with the same rows,
// after writes, pending writes, savepoints, rollbacks and a reopen; and a
// damaged bucket shows that far queries read the packed codes, and that past
// the hidden packed_scan_limit of pending changes they read the data table.
// The codes a connection caches between queries (keyed by the database's
// data version) against commits of another connection and of its own, in
// rollback-journal and WAL mode, and writes inside its own transactions,
// which the codes serve until the transaction writes a bucket; the rows
// within a radius through all of it too.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "index_test_support.h"

namespace simhash::testing {
namespace {

constexpr std::uint64_t kCenter = 0x0f1e'2d3c'4b5a'6978ULL;

// The plan of the n nearest from "nearest" on (the argument codes before it
// differ between the forms).
std::string nearest_plan(TestDatabase& db, const std::string& sql) {
  const std::string plan = plan_of(db, sql);
  const std::size_t at = plan.find("nearest");
  return at == std::string::npos ? "no nearest in: " + plan : plan.substr(at);
}

// The far query's answer with copy 0's buckets 8 bits or more from its
// bucket damaged (FarQueriesReadThePackedCodes), the damage undone after:
// brute force's rows when the data table or the cached codes answer, an
// error when the packed buckets do.
std::vector<std::string> far_rows_with_damaged_buckets(TestDatabase& db) {
  db.exec("SAVEPOINT damage");
  const std::uint64_t query_bucket = ~kCenter >> 48;
  db.exec(std::string("UPDATE near_buckets SET entries = x'ff' WHERE id < 65536 AND hamming(id, ") +
          std::to_string(query_bucket) + ") >= 8");
  EXPECT_GT(db.integer("SELECT changes()"), 1000);
  const std::vector<std::string> rows =
      rows_of(db.handle(), "SELECT rowid, distance FROM near(?1, 64, 10)",
              static_cast<std::int64_t>(~kCenter));
  db.exec("ROLLBACK TO damage");
  db.exec("RELEASE damage");
  return rows;
}

std::vector<std::string> far_brute_force(TestDatabase& db) {
  return rows_of(db.handle(),
                 "SELECT id, hamming(fp, ?1) AS d FROM plain WHERE fp IS NOT NULL ORDER BY d, id "
                 "LIMIT 10",
                 static_cast<std::int64_t>(~kCenter));
}

class NearestScan : public ::testing::Test {
 protected:
  // `options`: the CREATE arguments after k=3 (", packed_scan_limit=N").
  void fill(TestDatabase& db, int rows, const std::string& options = "") {
    db.exec(std::string("CREATE VIRTUAL TABLE near USING simhash_index(k=3") + options + ")");
    db.exec("CREATE TABLE plain(id INTEGER PRIMARY KEY, fp INTEGER)");
    db.exec("BEGIN");
    for (int i = 1; i <= rows; ++i) {
      // A third around kCenter (ties at every distance), the rest random;
      // ids shuffled and some negative, so ties are broken by rowid.
      const std::uint64_t fp =
          i % 3 == 0 ? flip_random_bits(kCenter, static_cast<int>(random_() % 10), random_)
                     : random_();
      insert_into_near_and_plain(db, static_cast<std::int64_t>((i * 7919) % 30011) - 9000, fp);
    }
    db.exec("COMMIT");
  }

  // Queries near the data and far from it (the nearest then at ~20 bits:
  // the radius stops growing and the packed scan answers).
  std::vector<std::int64_t> queries() {
    std::vector<std::int64_t> out = {static_cast<std::int64_t>(kCenter),
                                     static_cast<std::int64_t>(~kCenter), 0};
    out.push_back(static_cast<std::int64_t>(random_()));
    out.push_back(static_cast<std::int64_t>(flip_random_bits(kCenter, 6, random_)));
    return out;
  }

  // Both forms against brute force, for counts and bounds; and the rows
  // within radii above k (which the cached codes answer too, where their
  // loop is priced below the search or scan).
  void expect_brute_force(TestDatabase& db, const std::string& when) {
    for (const std::int64_t query : queries()) {
      for (const int radius : {5, 12, 20}) {
        const std::string within = std::to_string(radius);
        EXPECT_EQ(rows_of(db.handle(),
                          "SELECT rowid, distance FROM near WHERE query = ?1 AND radius = " +
                              within + " ORDER BY distance, rowid",
                          query),
                  brute_force_rows(db, query, radius))
            << when << ": radius " << radius;
      }
      for (const int n : {1, 40}) {
        const std::string count = std::to_string(n);
        const std::vector<std::string> expected = rows_of(
            db.handle(),
            "SELECT id, hamming(fp, ?1) AS d FROM plain WHERE fp IS NOT NULL ORDER BY d, id "
            "LIMIT " +
                count,
            query);
        ASSERT_EQ(expected.size(), static_cast<std::size_t>(n)) << when;
        for (const std::string& sql : {
                 "SELECT rowid, distance FROM near WHERE query = ?1 AND nearest = " + count,
                 "SELECT rowid, distance FROM near(?1, 64, " + count + ")",
                 "SELECT rowid, distance FROM near(?1, 1000, " + count + ")",
                 "SELECT rowid, distance FROM near(?1) ORDER BY distance LIMIT " + count,
                 "SELECT rowid, distance FROM near(?1, 64) ORDER BY distance LIMIT " + count,
             }) {
          EXPECT_EQ(rows_of(db.handle(), sql, query), expected) << when << ": " << sql;
        }
        for (const int bound : {0, 5, 12, 19, 63}) {
          const std::string within = std::to_string(bound);
          EXPECT_EQ(
              rows_of(db.handle(),
                      "SELECT rowid, distance FROM near(?1, " + within + ", " + count + ")", query),
              rows_of(db.handle(),
                      "SELECT id, hamming(fp, ?1) AS d FROM plain WHERE hamming(fp, ?1) <= " +
                          within + " ORDER BY d, id LIMIT " + count,
                      query))
              << when << ": bound " << bound << " n " << n;
        }
      }
    }
  }

  std::mt19937_64 random_{3737};
};

TEST_F(NearestScan, NoBoundAndABoundOf64AreOneQueryWithOnePlan) {
  TestDatabase db;
  fill(db, 3000);
  expect_brute_force(db, "committed");
  const std::string where = nearest_plan(db, "SELECT * FROM near WHERE query = 1 AND nearest = 10");
  EXPECT_NE(where.find("nearest (index, k=3"), std::string::npos) << where;
  EXPECT_EQ(nearest_plan(db, "SELECT * FROM near(1, 64, 10)"), where);
  EXPECT_EQ(nearest_plan(db, "SELECT * FROM near(1, 500, 10)"), where);
  // ORDER BY distance LIMIT n: a bound of 64 hands the LIMIT over as none does.
  EXPECT_EQ(nearest_plan(db, "SELECT * FROM near(1, 64) ORDER BY distance LIMIT 10"),
            nearest_plan(db, "SELECT * FROM near(1) ORDER BY distance LIMIT 10"));
  EXPECT_EQ(nearest_plan(db,
                         "SELECT * FROM near WHERE query = 1 AND nearest = 10 AND "
                         "distance <= 64"),
            where);
  const std::string bounded = nearest_plan(db, "SELECT * FROM near(1, 9, 10)");
  EXPECT_NE(bounded.find("nearest within the bound"), std::string::npos) << bounded;
  // The radius column shows the bound asked for.
  const std::string center = std::to_string(static_cast<std::int64_t>(kCenter));
  EXPECT_EQ(db.integer("SELECT radius FROM near(" + center + ", 64, 3) LIMIT 1"), 64);
  EXPECT_EQ(db.integer("SELECT radius FROM near(" + center + ", 9, 3) LIMIT 1"), 9);
}

TEST_F(NearestScan, PendingWritesSavepointsRollbacksAndReopen) {
  const TempDatabaseFile file("nearest_scan");
  {
    TestDatabase db(file.path());
    fill(db, 3000);
    db.exec("BEGIN");
    // Unflushed: new rows at the center and far away, deletions and
    // updates, some of them of rows the nearest would have been.
    for (int i = 0; i < 30; ++i) {
      insert_into_near_and_plain(db, 100000 + i, flip_random_bits(kCenter, i % 4, random_));
      insert_into_near_and_plain(db, -100000 - i, random_());
    }
    const std::string some = "(SELECT id FROM plain WHERE id % 11 = 0)";
    db.exec("DELETE FROM near WHERE rowid IN " + some);
    db.exec("DELETE FROM plain WHERE id IN " + some);
    const std::string moved = "(SELECT id FROM plain WHERE id % 13 = 1)";
    db.exec("UPDATE near SET fp = (fp | 7) - (fp & 7) WHERE rowid IN " + moved);
    db.exec("UPDATE plain SET fp = (fp | 7) - (fp & 7) WHERE id IN " + moved);
    db.exec("UPDATE near SET fp = NULL WHERE rowid IN (SELECT id FROM plain WHERE id % 17 = 2)");
    db.exec("UPDATE plain SET fp = NULL WHERE id % 17 = 2");
    expect_brute_force(db, "pending");
    db.exec("SAVEPOINT s");
    db.exec("DELETE FROM near WHERE rowid IN (SELECT id FROM plain WHERE id % 5 = 0)");
    db.exec("DELETE FROM plain WHERE id % 5 = 0");
    expect_brute_force(db, "in a savepoint");
    db.exec("ROLLBACK TO s");
    db.exec("RELEASE s");
    expect_brute_force(db, "after rollback to a savepoint");
    db.exec("COMMIT");
    expect_brute_force(db, "committed");
    db.exec("BEGIN");
    db.exec("DELETE FROM near");
    db.exec("ROLLBACK");
    expect_brute_force(db, "after a rollback");
  }
  TestDatabase db(file.path());
  expect_brute_force(db, "reopened");
}

// A query far from every row stops growing its radius and scans the packed
// buckets of copy 0: damage there is reported, not read past (the scan of
// the data table, which this replaced, never saw it).
TEST_F(NearestScan, FarQueriesReadThePackedCodes) {
  TestDatabase db;
  fill(db, 6000);
  EXPECT_EQ(rows_of(db.handle(), "SELECT rowid, distance FROM near(?1, 64, 10)",
                    static_cast<std::int64_t>(~kCenter))
                .size(),
            10U);
  // Copy 0's buckets (ids below 2^16, its bucket the top 16 bits) at 8 bits
  // or more from the query's: no probe of a radius this data grows to
  // reads them.
  const std::uint64_t query_bucket = ~kCenter >> 48;
  db.exec("UPDATE near_buckets SET entries = x'ff' WHERE id < 65536 AND hamming(id, " +
          std::to_string(query_bucket) + ") >= 8");
  ASSERT_GT(db.integer("SELECT changes()"), 1000);
  for (const std::string& sql : {std::string("SELECT rowid, distance FROM near(?1, 64, 10)"),
                                 std::string("SELECT rowid, distance FROM near WHERE query = ?1 "
                                             "AND nearest = 10")}) {
    const std::vector<std::string> rows =
        rows_of(db.handle(), sql, static_cast<std::int64_t>(~kCenter));
    ASSERT_EQ(rows.size(), 1U) << sql;
    EXPECT_NE(rows[0].find("is malformed; run 'rebuild'"), std::string::npos) << rows[0];
  }
}

// Changes pending past the packed scan's limit (65,536; here the hidden
// packed_scan_limit=200, so the test takes 500 writes, not 70,000): the n
// nearest scan the data table instead, and still equal brute force before
// the commit, after a rollback, and after a commit and a reopen.
TEST_F(NearestScan, PastThePackedScanLimitTheDataTableAnswers) {
  const TempDatabaseFile file("nearest_scan_limit");
  constexpr int kRows = 3000;
  // One batch of 300 inserts in a transaction, with deletes and updates of
  // stored and of new rows among them: over 300 pending changes.
  int batch = 0;
  const auto write_batch = [&](TestDatabase& db) {
    ++batch;
    for (int i = 0; i < 300; ++i) {
      const std::int64_t id = 200000 * batch + i;
      insert_into_near_and_plain(
          db, id, i % 2 == 0 ? flip_random_bits(kCenter, i % 5, random_) : random_());
      std::string stored = std::to_string((i * 7919) % 30011 - 9000);  // a row of fill(), or none
      if (i % 4 == 0) {
        db.exec(std::string("DELETE FROM near WHERE rowid = ") + stored);
        db.exec(std::string("DELETE FROM plain WHERE id = ") + stored);
      }
      if (i % 6 == 1) {
        const std::string fp = std::to_string(static_cast<std::int64_t>(
            flip_random_bits(kCenter, static_cast<int>(random_() % 4), random_)));
        stored = std::to_string(id - 1);  // the new row before this one
        db.exec(std::string("UPDATE near SET fp = ") + fp + " WHERE rowid = " + stored);
        db.exec(std::string("UPDATE plain SET fp = ") + fp + " WHERE id = " + stored);
      }
      if (i % 9 == 2) {
        stored = std::to_string((i * 104729) % 30011 - 9000);
        const std::string flipped = "(fp | 1023) - (fp & 1023)";  // the low 10 bits flipped
        db.exec(std::string("UPDATE near SET fp = ") + flipped + " WHERE rowid = " + stored);
        db.exec(std::string("UPDATE plain SET fp = ") + flipped + " WHERE id = " + stored);
      }
    }
  };
  {
    TestDatabase db(file.path());
    fill(db, kRows, ", packed_scan_limit=200");
    // Nothing pending: the packed codes answer (the damage is seen).
    std::vector<std::string> rows = far_rows_with_damaged_buckets(db);
    ASSERT_EQ(rows.size(), 1U);
    EXPECT_NE(rows[0].find("is malformed"), std::string::npos) << rows[0];

    db.exec("BEGIN");
    write_batch(db);
    EXPECT_EQ(far_rows_with_damaged_buckets(db), far_brute_force(db));
    expect_brute_force(db, "past the limit, pending");
    db.exec("ROLLBACK");
    expect_brute_force(db, "after a rollback");
    // On another connection: this one's queries have cached copy 0's codes,
    // which serve the damage's transaction (it wrote no bucket through the
    // index) without reading a bucket.
    TestDatabase other(file.path());
    rows = far_rows_with_damaged_buckets(other);
    ASSERT_EQ(rows.size(), 1U);
    EXPECT_NE(rows[0].find("is malformed"), std::string::npos) << rows[0];

    db.exec("BEGIN");
    write_batch(db);
    expect_brute_force(db, "past the limit again, pending");
    db.exec("COMMIT");
    expect_brute_force(db, "committed");
    ASSERT_EQ(db.integer("SELECT count(*) FROM near"), db.integer("SELECT count(*) FROM plain"));
  }
  TestDatabase db(file.path());
  expect_brute_force(db, "reopened");
  // A new connection reads the limit from the CREATE statement again.
  db.exec("BEGIN");
  write_batch(db);
  EXPECT_EQ(far_rows_with_damaged_buckets(db), far_brute_force(db));
  expect_brute_force(db, "reopened, past the limit, pending");
  db.exec("COMMIT");
  expect_brute_force(db, "reopened, committed");
}

// packed_scan_limit, flush_after and load_buckets_after are hidden:
// accepted, checked, not listed among the keys. flush_after=0 merges at
// every write, which the answers do not show.
TEST_F(NearestScan, HiddenOptionsAreCheckedAndHidden) {
  TestDatabase db;
  for (const char* key : {"packed_scan_limit", "flush_after", "load_buckets_after"}) {
    for (const char* value : {"-1", "abc", "1.5", "", "99999999999999999999999"}) {
      std::string create = "CREATE VIRTUAL TABLE t USING simhash_index(";
      create.append(key).append("=").append(value).append(")");
      std::string message = "simhash_index: option ";
      message.append(key).append(" must be a whole number of ");
      message.append(std::string(key) == "load_buckets_after" ? "probes" : "pending changes");
      message.append(", got \"").append(value).append("\"");
      EXPECT_EQ(db.error(create), message);
    }
  }
  EXPECT_EQ(db.error("CREATE VIRTUAL TABLE t USING simhash_index(size=1)"),
            "simhash_index: unknown option \"size\" (known: k, blocks)");
  db.exec("CREATE VIRTUAL TABLE t USING simhash_index(k=2, packed_scan_limit=0, flush_after=0)");
  db.exec("INSERT INTO t(rowid, fp) VALUES (1, 7), (2, 8)");
  db.exec("BEGIN");
  db.exec("INSERT INTO t(rowid, fp) VALUES (3, 9), (4, -1)");
  db.exec("DELETE FROM t WHERE rowid = 1");
  EXPECT_EQ(db.integer("SELECT count(*) FROM t(0, 64, 5)"), 3);
  EXPECT_EQ(db.integer("SELECT count(*) FROM t WHERE query = 0 AND nearest = 5"), 3);
  db.exec("COMMIT");
  EXPECT_EQ(db.integer("SELECT count(*) FROM t(0, 64, 5)"), 3);
}

// Writes that move the n nearest of the far queries (whose answers come
// from the packed scan, so from the cached codes when they are current):
// their nearest rows deleted and updated, new rows close to them.
void move_far_answers(TestDatabase& db, std::mt19937_64& random, int round) {
  for (const std::int64_t far : {static_cast<std::int64_t>(~kCenter), std::int64_t{0}}) {
    const std::string nearest =
        std::string("SELECT id FROM plain WHERE fp IS NOT NULL ORDER BY hamming(fp, ") +
        std::to_string(far) + "), id LIMIT 6";
    std::vector<std::int64_t> ids;
    sqlite3_stmt* statement = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db.handle(), nearest.c_str(), -1, &statement, nullptr), SQLITE_OK);
    while (sqlite3_step(statement) == SQLITE_ROW) {
      ids.push_back(sqlite3_column_int64(statement, 0));
    }
    sqlite3_finalize(statement);
    ASSERT_EQ(ids.size(), 6U);
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const std::string id = std::to_string(ids[i]);
      if (i % 2 == 0) {
        db.exec(std::string("DELETE FROM near WHERE rowid = ") + id);
        db.exec(std::string("DELETE FROM plain WHERE id = ") + id);
      } else {
        const std::string fp = std::to_string(static_cast<std::int64_t>(random()));
        db.exec(std::string("UPDATE near SET fp = ") + fp + " WHERE rowid = " + id);
        db.exec(std::string("UPDATE plain SET fp = ") + fp + " WHERE id = " + id);
      }
    }
    for (int i = 0; i < 3; ++i) {
      insert_into_near_and_plain(db, 500000 + 100 * round + i + (far == 0 ? 50 : 0),
                                 flip_random_bits(static_cast<std::uint64_t>(far), 9 + i, random));
    }
  }
}

// Another connection commits between this one's queries: each commit
// changes the data version, so the cached codes are read again. In WAL mode
// the reader's snapshot moves at its next read transaction.
TEST_F(NearestScan, CachedCodesFollowAnotherConnectionsCommits) {
  for (const char* journal : {"DELETE", "WAL"}) {
    const TempDatabaseFile file(std::string("nearest_cache_") + journal);
    TestDatabase reader(file.path());
    reader.exec(std::string("PRAGMA journal_mode = ") + journal);
    fill(reader, 3000);
    TestDatabase writer(file.path());
    const std::string mode = std::string(journal) + ", round ";
    expect_brute_force(reader, mode + "0");
    for (int round = 1; round <= 3; ++round) {
      if (round == 2) {
        writer.exec("BEGIN");  // several changes in one commit
      }
      move_far_answers(writer, random_, round);
      if (round == 2) {
        writer.exec("COMMIT");
      }
      expect_brute_force(reader, mode + std::to_string(round));
    }
    // A read transaction keeps its snapshot's codes, and sees the commit after it.
    reader.exec("BEGIN");
    expect_brute_force(reader, mode + "in a read transaction");
    reader.exec("COMMIT");
    move_far_answers(writer, random_, 4);
    expect_brute_force(reader, mode + "after a read transaction");
  }
}

// This connection's own writes: inside a transaction (pending, in
// savepoints, rolled back) the cached codes answer with the pending changes
// over them; its commits, autocommit statements included, change the data
// version like another's.
TEST_F(NearestScan, CachedCodesAndThisConnectionsWrites) {
  const TempDatabaseFile file("nearest_cache_own");
  {
    TestDatabase db(file.path());
    fill(db, 3000);
    expect_brute_force(db, "committed");
    move_far_answers(db, random_, 1);  // autocommit statements
    expect_brute_force(db, "after autocommit writes");
    db.exec("BEGIN");
    move_far_answers(db, random_, 2);
    expect_brute_force(db, "pending");
    db.exec("SAVEPOINT s");
    move_far_answers(db, random_, 3);
    expect_brute_force(db, "in a savepoint");
    db.exec("ROLLBACK TO s");
    db.exec("RELEASE s");
    // plain's rows were rolled back with near's: both as before the savepoint.
    expect_brute_force(db, "after rollback to the savepoint");
    db.exec("ROLLBACK");
    expect_brute_force(db, "after a rollback");
    db.exec("BEGIN");
    move_far_answers(db, random_, 4);
    db.exec("COMMIT");
    expect_brute_force(db, "after a commit");
    // A rebuild rewrites every bucket in its own commit.
    db.exec("INSERT INTO near(near) VALUES ('rebuild')");
    expect_brute_force(db, "after a rebuild");
  }
  TestDatabase db(file.path());
  expect_brute_force(db, "reopened");
  move_far_answers(db, random_, 5);
  expect_brute_force(db, "reopened, after writes");
  // An in-memory database's commits change its data version too.
  TestDatabase memory;
  fill(memory, 3000);
  expect_brute_force(memory, "in memory");
  move_far_answers(memory, random_, 6);
  expect_brute_force(memory, "in memory, after writes");
}

// Inside a write transaction the cached codes answer, with the pending
// changes over them (rows of their answers deleted, moved, and new rows
// close to the far queries), until the transaction writes a bucket: a merge
// (the hidden flush_after makes a few writes merge) or a rebuild, also after
// a ROLLBACK TO that undoes the merge, until the transaction ends. Another
// connection's commit between two of this one's transactions is seen. That
// the codes answer is shown by buckets damaged by hand inside the
// transaction, which the codes (read before it) do not see, while a read of
// the buckets fails.
TEST_F(NearestScan, CachedCodesServeAWriteTransactionUntilItWritesABucket) {
  const TempDatabaseFile file("nearest_cache_in_transaction");
  TestDatabase db(file.path());
  fill(db, 3000, ", flush_after=40");
  expect_brute_force(db, "committed");  // enough far queries to load the codes
  const auto codes_answer = [&](const std::string& when) {
    EXPECT_EQ(far_rows_with_damaged_buckets(db), far_brute_force(db)) << when;
  };
  const auto buckets_answer = [&](const std::string& when) {
    const std::vector<std::string> rows = far_rows_with_damaged_buckets(db);
    ASSERT_EQ(rows.size(), 1U) << when;
    EXPECT_NE(rows[0].find("is malformed"), std::string::npos) << when << ": " << rows[0];
  };
  // Each round of move_far_answers makes 24 changes: the second of a
  // transaction merges (flush_after=40).
  db.exec("BEGIN");
  move_far_answers(db, random_, 1);
  codes_answer("pending");
  expect_brute_force(db, "pending");
  db.exec("SAVEPOINT s");
  move_far_answers(db, random_, 2);
  buckets_answer("merged in a savepoint");
  expect_brute_force(db, "merged in a savepoint");
  db.exec("ROLLBACK TO s");
  db.exec("RELEASE s");
  buckets_answer("the merge rolled back to the savepoint");
  expect_brute_force(db, "the merge rolled back to the savepoint");
  db.exec("ROLLBACK");  // drops the codes; the queries load them again
  expect_brute_force(db, "rolled back");

  db.exec("BEGIN");
  move_far_answers(db, random_, 3);
  codes_answer("a transaction after the rollback");
  db.exec("INSERT INTO near(near) VALUES ('rebuild')");
  buckets_answer("rebuilt");
  move_far_answers(db, random_, 4);
  expect_brute_force(db, "pending after a rebuild");
  db.exec("COMMIT");
  expect_brute_force(db, "the rebuild committed");
  db.exec("BEGIN");
  move_far_answers(db, random_, 5);
  codes_answer("a transaction after the rebuild's");
  expect_brute_force(db, "a transaction after the rebuild's");
  db.exec("COMMIT");

  // Another connection commits between two of this one's transactions.
  TestDatabase writer(file.path());
  move_far_answers(writer, random_, 7);
  db.exec("BEGIN");
  move_far_answers(db, random_, 8);
  expect_brute_force(db, "after another connection's commit");
  codes_answer("after another connection's commit");
  db.exec("COMMIT");
  expect_brute_force(db, "committed after another connection's commit");
}

}  // namespace
}  // namespace simhash::testing

// SPDX-License-Identifier: MIT
// simhash_index inside transactions: ROLLBACK, ROLLBACK TO, failing
// statements, close and reopen, a second connection, WAL mode, and a process
// killed in the middle of a transaction.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <random>
#include <string>

#include "index_test_support.h"
#include "test_database.h"

namespace simhash::testing {
namespace {

TEST(IndexTransactions, RollbackAndSavepoints) {
  std::mt19937_64 random(21);
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  Model model;
  bulk_insert(db.handle(), "near", model, make_fingerprints(scaled(5000), random), 1);
  const Model committed = model;
  // Random writes to the index and the model alike, and the check that they
  // agree, always on `model` and one random stream.
  const auto write = [&](int operations) {
    mutate(db.handle(), "near", model, operations, random);
  };
  const auto verify = [&](int query_count) {
    verify_against_model(db.handle(), "near", model, 3, random, query_count);
  };

  db.exec("BEGIN");
  write(scaled(800));
  verify(3);
  db.exec("ROLLBACK");
  model = committed;
  verify(4);

  db.exec("BEGIN");
  write(scaled(400));
  const Model after_a = model;
  db.exec("SAVEPOINT s1");
  write(scaled(400));
  const Model after_b = model;
  db.exec("SAVEPOINT s2");
  write(scaled(400));
  verify(3);
  db.exec("ROLLBACK TO s2");
  model = after_b;
  verify(3);
  // Unflushed writes after the savepoint, then rolled back without a read.
  write(scaled(300));
  db.exec("ROLLBACK TO s1");
  model = after_a;
  verify(3);
  write(scaled(300));
  db.exec("RELEASE s1");
  db.exec("COMMIT");
  verify(4);

  // A savepoint opened before the index's first write in the transaction.
  const Model before_outer = model;
  db.exec("SAVEPOINT outer_sp");
  write(50);
  db.exec("ROLLBACK TO outer_sp");
  db.exec("RELEASE outer_sp");
  model = before_outer;
  verify(3);
}

TEST(IndexTransactions, FailingStatementChangesNothing) {
  std::mt19937_64 random(22);
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  db.exec("INSERT INTO near(rowid, fp) VALUES (1, 10), (2, 20)");
  Model model = {{1, 10}, {2, 20}};
  for (const bool in_transaction : {false, true}) {
    if (in_transaction) {
      db.exec("BEGIN");
      db.exec("INSERT INTO near(rowid, fp) VALUES (3, 30)");
      model[3] = 30;
    }
    EXPECT_NE(db.error("INSERT INTO near(rowid, fp) VALUES (100, 1), (101, 2), (1, 3)")
                  .find("UNIQUE constraint failed"),
              std::string::npos);
    EXPECT_NE(db.error("INSERT INTO near(rowid, fp) VALUES (200, 1), (201, 'x')").find("got TEXT"),
              std::string::npos);
    EXPECT_NE(
        db.error("UPDATE near SET fp = CASE WHEN rowid = 2 THEN 2.5 ELSE 7 END").find("got REAL"),
        std::string::npos);
    EXPECT_NE(db.error("UPDATE near SET rowid = 1 WHERE rowid = 2").find("UNIQUE"),
              std::string::npos);
    verify_against_model(db.handle(), "near", model, 3, random, 2);
    if (in_transaction) {
      db.exec("COMMIT");
    }
    verify_against_model(db.handle(), "near", model, 3, random, 2);
  }
}

// Creates the index `near` (with `options`) in the file at `path`, in WAL
// mode if asked, holding `count` planted fingerprints; returns its model.
Model create_file_index(const std::string& path, bool wal, const std::string& options, int count,
                        std::mt19937_64& random) {
  TestDatabase db(path);
  if (wal) {
    db.exec("PRAGMA journal_mode=WAL");
  }
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(" + options + ")");
  Model model;
  bulk_insert(db.handle(), "near", model, make_fingerprints(count, random), 1);
  return model;
}

TEST(IndexTransactions, ReopenSecondConnectionAndWal) {
  for (const bool wal : {false, true}) {
    SCOPED_TRACE(wal ? "WAL" : "rollback journal");
    std::mt19937_64 random(wal ? 24 : 23);
    TempDatabaseFile file(wal ? "simhash_index_wal" : "simhash_index_journal");
    Model model = create_file_index(file.path(), wal, "k=3, blocks=5", scaled(5000), random);
    TestDatabase first(file.path());
    verify_against_model(first.handle(), "near", model, 3, random, 4);
    TestDatabase second(file.path());
    first.exec("PRAGMA busy_timeout=2000");
    second.exec("PRAGMA busy_timeout=2000");
    const Model committed = model;
    first.exec("BEGIN");
    mutate(first.handle(), "near", model, scaled(1000), random);
    verify_against_model(first.handle(), "near", model, 3, random, 2);
    if (wal) {
      // A WAL reader sees the last commit while the writer's transaction is open.
      verify_against_model(second.handle(), "near", committed, 3, random, 2, false);
    }
    first.exec("COMMIT");
    verify_against_model(second.handle(), "near", model, 3, random, 4);
    // And the other way round.
    second.exec("BEGIN");
    mutate(second.handle(), "near", model, scaled(500), random);
    second.exec("COMMIT");
    verify_against_model(first.handle(), "near", model, 3, random, 4);
  }
}

// The child writes 10,000 rows in an open transaction (forcing pages to the
// file with a tiny cache) and is killed; the parent finds the last commit.
TEST(IndexTransactions, SurvivesSigkillMidTransaction) {
  for (const bool wal : {false, true}) {
    SCOPED_TRACE(wal ? "WAL" : "rollback journal");
    std::mt19937_64 random(25);
    TempDatabaseFile file("simhash_index_crash");
    const Model model = create_file_index(file.path(), wal, "k=3", scaled(3000), random);
    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      close(ready[0]);
      sqlite3* db = nullptr;
      sqlite3_open(file.path().c_str(), &db);
      sqlite3_enable_load_extension(db, 1);
      sqlite3_load_extension(db, SIMHASH_EXTENSION_PATH, nullptr, nullptr);
      sqlite3_exec(db, "PRAGMA cache_size=10; BEGIN", nullptr, nullptr, nullptr);
      sqlite3_stmt* insert = nullptr;
      sqlite3_prepare_v2(db, "INSERT INTO near(rowid, fp) VALUES (?1, ?2)", -1, &insert, nullptr);
      std::mt19937_64 child_random(99);
      for (int i = 0; i < 10000; ++i) {
        sqlite3_bind_int64(insert, 1, 1000000 + i);
        sqlite3_bind_int64(insert, 2, static_cast<sqlite3_int64>(child_random()));
        sqlite3_step(insert);
        sqlite3_reset(insert);
      }
      // Merge the pending rows into the buckets so the file is written too.
      sqlite3_exec(db, "SELECT count(*) FROM near WHERE fp MATCH 0", nullptr, nullptr, nullptr);
      const char byte = 1;
      if (write(ready[1], &byte, 1) != 1) {
        _exit(2);
      }
      pause();
      _exit(0);
    }
    close(ready[1]);
    char byte = 0;
    ASSERT_EQ(read(ready[0], &byte, 1), 1);
    close(ready[0]);
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status));
    TestDatabase db(file.path());
    verify_against_model(db.handle(), "near", model, 3, random, 4);
  }
}

}  // namespace
}  // namespace simhash::testing

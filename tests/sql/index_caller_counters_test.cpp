// SPDX-License-Identifier: MIT
// Reads leave the caller's counters alone: after writes
// inside a transaction, every read form (MATCH within k and beyond it, the
// n nearest, rowid lookup, full scan, the table-valued form) leaves
// changes(), total_changes() and last_insert_rowid() as the user's last
// statement left them, and a command leaves last_insert_rowid() as it was.
// The reads see the uncommitted writes without merging them into the
// buckets; answers are checked against a hamming() scan of a plain copy.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <random>
#include <string>

#include "index_test_support.h"

namespace simhash::testing {
namespace {

struct Counters {
  sqlite3_int64 changes;
  sqlite3_int64 total_changes;
  sqlite3_int64 last_insert_rowid;
  bool operator==(const Counters&) const = default;
};

Counters counters_of(sqlite3* db) {
  return Counters{sqlite3_changes64(db), sqlite3_total_changes64(db),
                  sqlite3_last_insert_rowid(db)};
}

std::ostream& operator<<(std::ostream& out, const Counters& c) {
  return out << "changes " << c.changes << ", total " << c.total_changes << ", last rowid "
             << c.last_insert_rowid;
}

// Every row of `sql` as "a:b" text, ",".joined.
std::string rows_text(TestDatabase& db, const std::string& sql) {
  std::string text;
  for (const Row& row : db.rows(sql)) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      text += i == 0 ? (text.empty() ? "" : ",") : ":";
      text += row[i].value_or("NULL");
    }
  }
  return text;
}

TEST(IndexCallerCounters, ReadsInATransactionLeaveThemAlone) {
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  db.exec("CREATE TABLE plain(id INTEGER PRIMARY KEY, fp INTEGER)");
  std::mt19937_64 random(11);
  const std::uint64_t centre = random();
  db.exec("BEGIN");
  // Enough writes that reads search the pending changes in sorted runs too.
  for (int id = 1; id <= 2000; ++id) {
    insert_into_near_and_plain(db, id,
                               flip_random_bits(centre, static_cast<int>(random() % 8), random));
  }
  db.exec("DELETE FROM near WHERE rowid % 7 = 0; DELETE FROM plain WHERE id % 7 = 0");
  db.exec(
      "UPDATE near SET fp = (fp | 1) - (fp & 1) WHERE rowid % 5 = 0; UPDATE plain SET fp = (fp | "
      "1) - (fp & 1) WHERE id % 5 = 0");
  db.exec("INSERT INTO near(rowid, fp) VALUES (5001, 1), (5002, 2), (5003, 3)");
  const Counters before = counters_of(db.handle());
  ASSERT_EQ(before.changes, 3);
  ASSERT_EQ(before.last_insert_rowid, 5003);
  db.exec("INSERT INTO plain(id, fp) VALUES (5001, 1), (5002, 2), (5003, 3)");
  db.exec("INSERT INTO near(rowid, fp) VALUES (5004, 4), (5005, 5), (5006, 6)");
  db.exec("INSERT INTO plain(id, fp) VALUES (5004, 4), (5005, 5), (5006, 6)");
  // The plain copy's insert came last for the counters; redo the index's so
  // the reads below follow a write of two rows to the index itself.
  db.exec("DELETE FROM near WHERE rowid IN (5005, 5006)");
  db.exec("INSERT INTO near(rowid, fp) VALUES (5005, 5), (5006, 6)");
  const Counters after_write = counters_of(db.handle());
  ASSERT_EQ(after_write.changes, 2);

  const std::string q = std::to_string(static_cast<std::int64_t>(centre));
  struct Read {
    std::string index_sql;
    std::string plain_sql;
  };
  const Read reads[] = {
      {"SELECT rowid, distance FROM near WHERE fp MATCH " + q + " ORDER BY rowid",
       "SELECT id, hamming(fp, " + q + ") FROM plain WHERE hamming(fp, " + q +
           ") <= 3 ORDER BY id"},
      {"SELECT rowid, distance FROM near(" + q + ", 2) ORDER BY rowid",
       "SELECT id, hamming(fp, " + q + ") FROM plain WHERE hamming(fp, " + q +
           ") <= 2 ORDER BY id"},
      {"SELECT rowid, distance FROM near WHERE fp MATCH " + q + " AND distance <= 6 ORDER BY rowid",
       "SELECT id, hamming(fp, " + q + ") FROM plain WHERE hamming(fp, " + q +
           ") <= 6 ORDER BY id"},
      {"SELECT rowid, distance FROM near(" + q + ") ORDER BY distance LIMIT 25",
       "SELECT id, hamming(fp, " + q + ") FROM plain ORDER BY 2, 1 LIMIT 25"},
      {"SELECT rowid, fp FROM near WHERE rowid = 5002", "SELECT id, fp FROM plain WHERE id = 5002"},
      {"SELECT count(*), min(fp), max(rowid) FROM near",
       "SELECT count(*), min(fp), max(id) FROM plain"},
  };
  for (const Read& read : reads) {
    const std::string expected = rows_text(db, read.plain_sql);
    // The plain reads are reads too: they leave the counters alone.
    ASSERT_EQ(counters_of(db.handle()), after_write) << read.plain_sql;
    EXPECT_EQ(rows_text(db, read.index_sql), expected) << read.index_sql;
    EXPECT_EQ(counters_of(db.handle()), after_write) << read.index_sql;
  }
  db.exec("COMMIT");
  expect_integrity(db.handle(), "near");
}

TEST(IndexCallerCounters, CommandsKeepLastInsertRowid) {
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  db.exec("INSERT INTO near(rowid, fp) VALUES (41, 1), (42, 2)");
  ASSERT_EQ(sqlite3_last_insert_rowid(db.handle()), 42);
  for (const char* command : {"rebuild", "integrity-check"}) {
    db.exec(std::string("INSERT INTO near(near) VALUES('") + command + "')");
    EXPECT_EQ(sqlite3_last_insert_rowid(db.handle()), 42) << command;
  }
  db.exec("BEGIN");
  db.exec("INSERT INTO near(rowid, fp) VALUES (43, 3)");
  db.exec("UPDATE near SET fp = 9 WHERE rowid = 41");
  db.exec("DELETE FROM near WHERE rowid = 42");
  db.exec("INSERT INTO near(near) VALUES('rebuild')");
  EXPECT_EQ(sqlite3_last_insert_rowid(db.handle()), 43);
  db.exec("COMMIT");
  EXPECT_EQ(sqlite3_last_insert_rowid(db.handle()), 43);
}

}  // namespace
}  // namespace simhash::testing

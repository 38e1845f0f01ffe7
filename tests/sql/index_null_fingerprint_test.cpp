// SPDX-License-Identifier: MIT
// NULL fingerprints in a simhash_index: simhash() is NULL for a
// text without words, and such a row is stored, shown by a plain scan and a
// rowid lookup, and never found by a search or a batch function, as NULL
// equals nothing. Checked against an ordinary table that receives the same
// statements (hamming() of a NULL is NULL, so its scan finds the same rows),
// through transactions and rollbacks; the storage format turns 4 with the
// first NULL (and back with its rollback); an index made before 0.2, whose
// data table says NOT NULL, refuses a NULL with a message and changes nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>

#include "test_database.h"

namespace simhash::testing {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::int64_t format_of(TestDatabase& db) {
  return db.integer("SELECT value FROM near_config WHERE key = 'format'");
}

TEST(IndexNullFingerprint, StoredShownAndNeverFound) {
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  EXPECT_EQ(format_of(db), 2);
  db.exec("CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT)");
  db.exec(
      "INSERT INTO docs VALUES (1, 'the quick brown fox'), (2, '!!!'), (3, NULL), "
      "(4, 'the quick brown fox jumps'), (5, '')");
  // The bulk load a user writes first: wordless texts no longer break it.
  db.exec("INSERT INTO near(rowid, fp) SELECT id, simhash(body) FROM docs");
  EXPECT_EQ(format_of(db), 4);
  EXPECT_EQ(db.integer("SELECT count(*) FROM near"), 5);
  EXPECT_EQ(db.rows("SELECT rowid, fp IS NULL FROM near ORDER BY rowid"),
            (std::vector<Row>{{"1", "0"}, {"2", "1"}, {"3", "1"}, {"4", "0"}, {"5", "1"}}));
  EXPECT_EQ(db.rows("SELECT rowid, fp FROM near WHERE rowid = 2"), (std::vector<Row>{{"2", {}}}));
  for (const int radius : {0, 3, 10, 30, 64}) {
    const std::string sql = "SELECT group_concat(rowid) FROM near(0, " + std::to_string(radius) +
                            ") WHERE rowid IN (2, 3, 5)";
    EXPECT_EQ(db.cell(sql), std::nullopt) << sql;
  }
  EXPECT_EQ(db.integer("SELECT count(*) FROM (SELECT rowid FROM near(0) ORDER BY distance "
                       "LIMIT 100)"),
            2);
  EXPECT_EQ(db.integer("SELECT count(*) FROM near WHERE fp MATCH NULL"), 0);
  EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_pairs('near', 64)"), 1);
  EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_clusters('near', 64)"), 2);
  db.exec("INSERT INTO near(near) VALUES('integrity-check')");
  db.exec("INSERT INTO near(near) VALUES('rebuild')");
  db.exec("INSERT INTO near(near) VALUES('integrity-check')");
  EXPECT_EQ(db.integer("SELECT count(*) FROM near"), 5);

  // A NULL row holds its rowid like any other.
  EXPECT_TRUE(contains(db.error("INSERT INTO near(rowid, fp) VALUES (2, 7)"), "UNIQUE"));
  EXPECT_TRUE(contains(db.error("INSERT INTO near(rowid, fp) VALUES (1, NULL)"), "UNIQUE"));
  db.exec("INSERT OR REPLACE INTO near(rowid, fp) VALUES (2, 7)");
  EXPECT_EQ(db.rows("SELECT rowid FROM near(7, 0)"), (std::vector<Row>{{"2"}}));
  db.exec("UPDATE near SET fp = NULL WHERE rowid = 2");
  EXPECT_EQ(db.rows("SELECT rowid FROM near(7, 0)"), (std::vector<Row>{}));
  db.exec("UPDATE near SET rowid = 20 WHERE rowid = 2");
  EXPECT_EQ(db.rows("SELECT rowid, fp FROM near WHERE rowid = 20"), (std::vector<Row>{{"20", {}}}));
  db.exec("INSERT INTO near(near) VALUES('integrity-check')");
}

TEST(IndexNullFingerprint, TheFormatMarkRollsBackWithTheRow) {
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  db.exec("INSERT INTO near(rowid, fp) VALUES (1, 5)");
  db.exec("BEGIN");
  db.exec("INSERT INTO near(rowid, fp) VALUES (2, NULL)");
  EXPECT_EQ(format_of(db), 4);
  db.exec("ROLLBACK");
  EXPECT_EQ(format_of(db), 2);
  // The mark is made again by the next NULL, not remembered from before.
  db.exec("INSERT INTO near(rowid, fp) VALUES (2, NULL)");
  EXPECT_EQ(format_of(db), 4);
  EXPECT_EQ(db.integer("SELECT value FROM near_config WHERE key = 'bucket_bits'"), 16);
  db.exec("INSERT INTO near(near) VALUES('integrity-check')");
}

TEST(IndexNullFingerprint, RandomWritesMatchAnOrdinaryTable) {
  std::mt19937_64 random(2511);
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  db.exec("CREATE TABLE mirror(id INTEGER PRIMARY KEY, fp INTEGER)");
  std::vector<std::int64_t> bases;
  for (int i = 0; i < 40; ++i) {
    bases.push_back(static_cast<std::int64_t>(random()));
  }
  const auto value = [&]() -> std::string {
    if (random() % 5 == 0) {
      return "NULL";
    }
    std::uint64_t fp = static_cast<std::uint64_t>(bases[random() % bases.size()]);
    for (int flips = static_cast<int>(random() % 8); flips > 0; --flips) {
      fp ^= std::uint64_t{1} << (random() % 64);
    }
    return std::to_string(static_cast<std::int64_t>(fp));
  };
  const auto both = [&](const std::string& statement) {
    // The same statement on both tables; none of them can fail (they all
    // resolve conflicts), and a failure on one table only would show as a
    // difference below.
    for (const char* table : {"near", "mirror"}) {
      std::string sql = statement;
      for (std::size_t at; (at = sql.find("$T")) != std::string::npos;) {
        sql.replace(at, 2, table);
      }
      if (std::string(table) == "mirror") {
        for (std::size_t at; (at = sql.find("rowid")) != std::string::npos;) {
          sql.replace(at, 5, "id");
        }
      }
      std::string message;
      EXPECT_EQ(db.try_exec(sql, &message), SQLITE_OK) << sql << ": " << message;
    }
  };
  const auto compare = [&] {
    ASSERT_EQ(db.rows("SELECT rowid, fp FROM near ORDER BY rowid"),
              db.rows("SELECT id, fp FROM mirror ORDER BY id"));
    for (int query = 0; query < 6; ++query) {
      const std::string q = value() == "NULL" ? "0" : value();
      for (const int radius : {0, 3, 6, 12}) {
        const std::string r = std::to_string(radius);
        ASSERT_EQ(db.rows("SELECT rowid, distance FROM near(" + q + ", " + r + ") ORDER BY rowid"),
                  db.rows("SELECT id, hamming(fp, " + q + ") FROM mirror WHERE hamming(fp, " + q +
                          ") <= " + r + " ORDER BY id"))
            << "query " << q << " radius " << r;
      }
    }
  };
  for (int round = 0; round < 8; ++round) {
    db.exec(round % 3 == 2 ? "SAVEPOINT s" : "BEGIN");
    for (int op = 0; op < 150; ++op) {
      const std::string id = std::to_string(random() % 300);
      const std::string other = std::to_string(random() % 300);
      switch (random() % 6) {
        case 0:
        case 1:
          both("INSERT OR IGNORE INTO $T(rowid, fp) VALUES (" + id + ", " + value() + ")");
          break;
        case 2:
          both("INSERT OR REPLACE INTO $T(rowid, fp) VALUES (" + id + ", " + value() + ")");
          break;
        case 3:
          both("UPDATE $T SET fp = " + value() + " WHERE rowid = " + id);
          break;
        case 4:
          both("UPDATE OR REPLACE $T SET rowid = " + other + " WHERE rowid = " + id);
          break;
        default:
          both("DELETE FROM $T WHERE rowid = " + id);
          break;
      }
    }
    compare();
    if (round % 3 == 1) {
      db.exec("ROLLBACK");
    } else {
      db.exec(round % 3 == 2 ? "RELEASE s" : "COMMIT");
    }
    compare();
    db.exec("INSERT INTO near(near) VALUES('integrity-check')");
  }
  EXPECT_GT(db.integer("SELECT count(*) FROM near WHERE fp IS NULL"), 10);
  EXPECT_GT(db.integer("SELECT count(*) FROM near WHERE fp IS NOT NULL"), 50);
}

TEST(IndexNullFingerprint, AnIndexFromBeforeRefusesNullAndChangesNothing) {
  TempDatabaseFile copy("null_fingerprint_format2");
  std::filesystem::remove(copy.path());
  std::filesystem::copy_file(SIMHASH_SOURCE_DIR "/tests/data/index_format2.db", copy.path());
  TestDatabase db(copy.path());
  const std::int64_t rows = db.integer("SELECT count(*) FROM near");
  const std::string message = db.error("INSERT INTO near(rowid, fp) VALUES (1000000, NULL)");
  EXPECT_TRUE(contains(message, "simhash_index near: fp is NULL")) << message;
  EXPECT_TRUE(contains(message, "WHERE fp IS NOT NULL")) << message;
  const std::string update =
      db.error("UPDATE near SET fp = NULL WHERE rowid IN (SELECT min(rowid) FROM near)");
  EXPECT_TRUE(contains(update, "before 0.2")) << update;
  EXPECT_EQ(db.integer("SELECT count(*) FROM near"), rows);
  EXPECT_EQ(db.integer("SELECT count(*) FROM near WHERE fp IS NULL"), 0);
  EXPECT_EQ(format_of(db), 2);
  db.exec("INSERT INTO near(near) VALUES('integrity-check')");
}

}  // namespace
}  // namespace simhash::testing

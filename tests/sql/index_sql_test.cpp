// SPDX-License-Identifier: MIT
// The SQL surface of simhash_index: options and their errors, query forms,
// plans shown by EXPLAIN QUERY PLAN, ordering, joins, writes and conflict
// clauses, special commands, shadow tables (defensive mode, RENAME, DROP)
// and the format version.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "index_test_support.h"
#include "savepoint_drop.h"
#include "test_database.h"

namespace simhash::testing {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(IndexSql, BadOptionsNameTheOption) {
  TestDatabase db;
  struct Case {
    const char* options;
    const char* expected;
  };
  for (const Case& c :
       {Case{"k=17", "k=17"}, Case{"k=-1", "k=-1"}, Case{"k=abc", "option k"},
        Case{"k=3, blocks=3", "blocks=3"}, Case{"k=3, blocks=65", "blocks=65"},
        Case{"k=3, blocks=40", "tables"},
        // Past 64 copies: refused, with the radius argument as the way out.
        Case{"k=7",
             "simhash_index: option k=7 with blocks=10 stores 120 permuted "
             "copies of every row (the limit is 64); keep k small (k=3 "
             "stores 4) and give the radius when searching, as in "
             "near(:q, 7)"},
        Case{"k=3, blocks=9", "stores 84 permuted copies"},
        Case{"foo=1", "simhash_index: unknown option \"foo\" (known: k, blocks)"},
        Case{"k", "simhash_index: expected key=value in options, got \"k\""},
        Case{"blocks=", "option blocks"},
        Case{"k=3, k=5", "simhash_index: option k given more than once"},
        Case{"blocks=4, K=3, Blocks=4", "option blocks given more than once"},
        Case{"k=abc", "simhash_index: option k must be an integer, got \"abc\""},
        Case{"k=' 3'", "simhash_index: option k takes its value without quotes, got \"' 3'\""},
        Case{"k=\"3\"", "option k takes its value without quotes, got \"\"3\"\""}}) {
    const std::string message =
        db.error(std::string("CREATE VIRTUAL TABLE bad USING simhash_index(") + c.options + ")");
    EXPECT_TRUE(contains(message, c.expected)) << c.options << ": " << message;
    EXPECT_EQ(db.integer("SELECT count(*) FROM sqlite_master WHERE name LIKE 'bad%'"), 0);
  }
  EXPECT_TRUE(contains(db.error("CREATE VIRTUAL TABLE fp USING simhash_index"), "named"));
  // The largest default plan allowed, and a larger k with few blocks.
  db.exec("CREATE VIRTUAL TABLE six USING simhash_index(k=6)");
  db.exec("CREATE VIRTUAL TABLE wide USING simhash_index(k=12, blocks=13)");
}

// The arguments follow the rule of every option string
// (util/key_value_options.h): keys in any case, spaces around '='.
TEST(IndexSql, OptionsFollowTheSharedRule) {
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE spaced USING simhash_index( K = 2 , BLOCKS=5 )");
  EXPECT_EQ(db.integer("SELECT value FROM spaced_config WHERE key = 'k'"), 2);
  EXPECT_EQ(db.integer("SELECT value FROM spaced_config WHERE key = 'blocks'"), 5);
}

TEST(IndexSql, ConfigAndDataShadowTables) {
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index");
  EXPECT_EQ(db.integer("SELECT value FROM near_config WHERE key = 'k'"), 3);
  EXPECT_EQ(db.integer("SELECT value FROM near_config WHERE key = 'blocks'"), 4);
  EXPECT_EQ(db.integer("SELECT value FROM near_config WHERE key = 'format'"), 2);
  db.exec("CREATE VIRTUAL TABLE near6 USING simhash_index(k = 5, blocks = 8)");
  EXPECT_EQ(db.integer("SELECT value FROM near6_config WHERE key = 'blocks'"), 8);
  db.exec("INSERT INTO near(rowid, fp) VALUES (5, -1), (7, 9223372036854775807)");
  EXPECT_EQ(db.rows("SELECT id, fp FROM near_data ORDER BY id"),
            (std::vector<Row>{{"5", "-1"}, {"7", "9223372036854775807"}}));
}

TEST(IndexSql, QueryForms) {
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  // Distances from 0: 0, 1, 2, 3, 4, 64.
  db.exec("INSERT INTO near(rowid, fp) VALUES (1, 0), (2, 1), (3, 3), (4, 7), (5, 15), (6, -1)");
  auto ids = [&](const std::string& sql) {
    std::string out;
    for (const Row& row : db.rows(sql)) {
      out += row[0].value_or("NULL") + ":" + row[1].value_or("NULL") + " ";
    }
    return out;
  };
  struct Case {
    const char* sql;
    const char* expected;  // "rowid:column " pairs; for errors, part of the message
  };
  for (const Case& c : {
           Case{"SELECT rowid, distance FROM near WHERE fp MATCH 0", "1:0 2:1 3:2 4:3 "},
           Case{"SELECT rowid, distance FROM near WHERE fp MATCH 0 AND distance <= 1", "1:0 2:1 "},
           Case{"SELECT rowid, distance FROM near WHERE fp MATCH 0 AND distance < 1", "1:0 "},
           Case{"SELECT rowid, distance FROM near WHERE fp MATCH 0 AND radius = 2", "1:0 2:1 3:2 "},
           Case{"SELECT rowid, distance FROM near(0)", "1:0 2:1 3:2 4:3 "},
           Case{"SELECT rowid, distance FROM near(0, 4)", "1:0 2:1 3:2 4:3 5:4 "},
           Case{"SELECT rowid, distance FROM near(0, 64)", "1:0 2:1 3:2 4:3 5:4 6:64 "},
           Case{"SELECT rowid, distance FROM near(0, 1000)", "1:0 2:1 3:2 4:3 5:4 6:64 "},
           Case{"SELECT rowid, distance FROM near WHERE fp MATCH 0 AND distance <= 2.5",
                "1:0 2:1 3:2 "},
           Case{"SELECT rowid, distance FROM near WHERE fp MATCH 0 AND distance < 2.5",
                "1:0 2:1 3:2 "},
           Case{"SELECT rowid, distance FROM near WHERE fp MATCH NULL", ""},
           Case{"SELECT rowid, distance FROM near WHERE fp MATCH 0 AND distance <= NULL", ""},
           // No distance is below 0: an empty answer, as a scan would give.
           Case{"SELECT rowid, distance FROM near WHERE fp MATCH 0 AND distance <= -1", ""},
           Case{"SELECT rowid, distance FROM near WHERE fp MATCH 0 AND distance < 0", ""},
           Case{"SELECT rowid, distance FROM near WHERE fp MATCH 0 AND distance = 4", "5:4 "},
           Case{"SELECT rowid, distance FROM near WHERE fp MATCH 0 AND distance IN (1, 4)",
                "2:1 5:4 "},
           Case{"SELECT rowid, distance FROM near WHERE fp MATCH 0 ORDER BY distance DESC",
                "4:3 3:2 2:1 1:0 "},
           Case{"SELECT rowid, distance FROM near WHERE fp MATCH 0 ORDER BY distance LIMIT 2",
                "1:0 2:1 "},
           Case{"SELECT rowid, query FROM near(0, 1)", "1:0 2:0 "},
           Case{"SELECT rowid, radius FROM near(0, 1)", "1:1 2:1 "},
           // Plain scan and rowid lookups: distance is NULL.
           Case{"SELECT rowid, distance FROM near", "1:NULL 2:NULL 3:NULL 4:NULL 5:NULL 6:NULL "},
           Case{"SELECT rowid, fp FROM near WHERE rowid = 4", "4:7 "},
           Case{"SELECT rowid, fp FROM near WHERE rowid IN (2, 6, 99)", "2:1 6:-1 "},
           Case{"SELECT rowid, fp FROM near WHERE rowid = 'x'", ""},
       }) {
    EXPECT_EQ(ids(c.sql), c.expected) << c.sql;
  }
  // Errors: (statement, part of the message).
  for (const Case& c : {
           Case{"SELECT * FROM near(0, -2)", "negative"},
           Case{"SELECT * FROM near WHERE fp MATCH 'abc'", "got TEXT"},
           Case{"SELECT * FROM near WHERE fp MATCH 1.5", "got REAL"},
           Case{"SELECT * FROM near(0, 'x')", "near: the radius must be an integer, got TEXT 'x'"},
           Case{"SELECT * FROM near(0, '10')", "the radius must be an integer, got TEXT '10'"},
           Case{"SELECT * FROM near WHERE fp MATCH '123'",
                "the query fingerprint must be an INTEGER, got TEXT '123'"},
           Case{"SELECT * FROM near(0, 2.5)", "near: the radius must be an integer, got 2.5"},
           Case{"SELECT * FROM near WHERE fp MATCH 0 AND distance <= 'x'",
                "near: a bound on distance must be a number, got TEXT"},
           Case{"SELECT * FROM near WHERE fp MATCH 0 AND radius = 1.5", "integer"},
       }) {
    const std::string message = db.error(c.sql);
    EXPECT_TRUE(contains(message, c.expected)) << c.sql << ": " << message;
  }
}

TEST(IndexSql, ExplainQueryPlanNamesThePlan) {
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  EXPECT_TRUE(
      contains(plan_of(db, "SELECT * FROM near WHERE fp MATCH 1"), "index (4 permuted copies"));
  EXPECT_TRUE(contains(plan_of(db, "SELECT * FROM near(1, 2)"), "index (4 permuted copies"));
  // Above k: four disjoint 16-bit parts; radius 10 spends 11 units as
  // thresholds (2,2,2,1): 3 * 137 + 17 buckets.
  const std::string radius_ten = plan_of(db, "SELECT * FROM near(1, 10)");
  EXPECT_TRUE(contains(
      radius_ten,
      "multi-probe (radius 10 > k=3: 428 buckets of 4 permuted copies within 2,2,2,1 bits; "
      "a scan below "))
      << radius_ten;
  // Below 64 bits each query may answer from the cached codes instead.
  EXPECT_TRUE(contains(radius_ten, "), or a loop over the cached codes, chosen per query"))
      << radius_ten;
  const std::string radius_all = plan_of(db, "SELECT * FROM near(1, 64)");
  EXPECT_TRUE(contains(radius_all, "scan (radius 64 > k=3)")) << radius_all;
  EXPECT_FALSE(contains(radius_all, "cached codes")) << radius_all;
  EXPECT_FALSE(contains(plan_of(db, "SELECT * FROM near(1, 3)"), "cached codes"));
  EXPECT_TRUE(contains(plan_of(db, "SELECT * FROM near WHERE fp MATCH ?1 AND distance <= ?2"),
                       "above k a multi-probe or a scan, or a loop over the cached codes, chosen "
                       "per query)"));
  EXPECT_TRUE(contains(plan_of(db, "SELECT * FROM near"), "full scan"));
  EXPECT_TRUE(contains(plan_of(db, "SELECT * FROM near WHERE rowid = 3"), "rowid lookup"));
  const std::string sorted = plan_of(db, "SELECT * FROM near(1) ORDER BY distance");
  EXPECT_TRUE(contains(sorted, "sorted by distance")) << sorted;
  EXPECT_FALSE(contains(sorted, "TEMP B-TREE")) << sorted;
  EXPECT_TRUE(contains(plan_of(db, "SELECT * FROM near(1) ORDER BY rowid"), "TEMP B-TREE"));
}

// The plan a radius above k names is what a query runs: the multi-probe
// reads the buckets (a damaged one fails it) until the connection has
// cached the codes, and then the loop over them answers (the damage unseen).
TEST(IndexSql, ExplainQueryPlanNamesTheCachedCodesThatAnswer) {
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  db.exec("CREATE TABLE plain(id INTEGER PRIMARY KEY, fp INTEGER)");
  std::mt19937_64 random(71);
  db.exec("BEGIN");
  for (int id = 1; id <= 12000; ++id) {  // above the 9,180 rows where the multi-probe wins
    insert_into_near_and_plain(db, id, random());
  }
  db.exec("COMMIT");
  const std::int64_t query = db.integer("SELECT fp FROM plain WHERE id = 1");
  const std::string search =
      "SELECT rowid, distance FROM near(" + std::to_string(query) + ", 10) ORDER BY rowid";
  const std::string plan = plan_of(db, search);
  EXPECT_TRUE(contains(plan, "multi-probe (radius 10 > k=3")) << plan;
  EXPECT_TRUE(contains(plan, "or a loop over the cached codes, chosen per query")) << plan;
  const std::string brute_force = "SELECT id, hamming(fp, " + std::to_string(query) +
                                  ") FROM plain WHERE hamming(fp, " + std::to_string(query) +
                                  ") <= 10 ORDER BY id";
  const auto with_damaged_buckets = [&] {
    db.exec("SAVEPOINT damage; UPDATE near_buckets SET entries = x'ff'");
    std::string message;
    const int rc = db.try_exec(search, &message);
    const auto rows = rc == SQLITE_OK ? db.rows(search) : std::vector<Row>{};
    db.exec("ROLLBACK TO damage; RELEASE damage");
    return std::pair(message, rows);
  };
  const auto [first_message, first_rows] = with_damaged_buckets();
  EXPECT_TRUE(contains(first_message, "is malformed")) << first_message;
  // The codes load once the searches' excess over their loop has paid for
  // the load (CodeLoadRule), the searches priced as this connection times
  // them: well within these.
  const auto expected = db.rows(brute_force);
  for (int i = 0; i < 200; ++i) {
    ASSERT_EQ(db.rows(search), expected);
  }
  const auto [message, rows] = with_damaged_buckets();
  EXPECT_EQ(message, "");
  EXPECT_EQ(rows, expected);
}

TEST(IndexSql, JoinProbesOncePerOuterRow) {
  std::mt19937_64 random(31);
  TestDatabase db;
  db.exec("CREATE TABLE docs(id INTEGER PRIMARY KEY, fp INTEGER)");
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  Model model;
  bulk_insert(db.handle(), "near", model, make_fingerprints(2000, random), 1);
  Model docs;
  {
    Prepared insert(db.handle(), "INSERT INTO docs(id, fp) VALUES (?1, ?2)");
    auto it = model.begin();
    for (int i = 0; i < 50; ++i, ++it) {
      const std::uint64_t fp = flip_random_bits(it->second, static_cast<int>(random() % 4), random);
      sqlite3_bind_int(insert.get(), 1, i);
      sqlite3_bind_int64(insert.get(), 2, static_cast<sqlite3_int64>(fp));
      // A failed insert is named here, not left to show as a rows mismatch.
      ASSERT_EQ(sqlite3_step(insert.get()), SQLITE_DONE) << sqlite3_errmsg(db.handle());
      sqlite3_reset(insert.get());
      docs[i] = fp;
    }
  }
  const std::string sql =
      "SELECT d.id, n.rowid, n.distance FROM docs d JOIN near n ON n.fp MATCH d.fp AND "
      "n.distance <= 3 ORDER BY 1, 2";
  const std::string plan = plan_of(db, sql);
  EXPECT_TRUE(contains(plan, "SCAN d")) << plan;
  EXPECT_TRUE(contains(plan, "index (4 permuted copies")) << plan;
  std::vector<Row> expected;
  for (const auto& [doc, fp] : docs) {
    for (const auto& [id, distance] : brute_force(model, fp, 3)) {
      expected.push_back({std::to_string(doc), std::to_string(id), std::to_string(distance)});
    }
  }
  EXPECT_EQ(db.rows(sql), expected);
}

TEST(IndexSql, WritesAndConflicts) {
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  db.exec("INSERT INTO near(fp) VALUES (10)");
  EXPECT_EQ(db.integer("SELECT last_insert_rowid()"), 1);
  db.exec("INSERT INTO near(rowid, fp) VALUES (10, 20)");
  db.exec("INSERT INTO near(fp) VALUES (30)");
  EXPECT_EQ(db.integer("SELECT last_insert_rowid()"), 11);
  db.exec("DELETE FROM near WHERE rowid = 1");
  EXPECT_EQ(db.integer("SELECT last_insert_rowid()"), 11) << "nested writes leave it alone";
  EXPECT_TRUE(contains(db.error("INSERT INTO near(rowid, fp) VALUES (10, 1)"),
                       "UNIQUE constraint failed: near.rowid"));
  db.exec("INSERT OR IGNORE INTO near(rowid, fp) VALUES (10, 1)");
  EXPECT_EQ(db.integer("SELECT fp FROM near WHERE rowid = 10"), 20);
  db.exec("INSERT OR REPLACE INTO near(rowid, fp) VALUES (10, 1)");
  EXPECT_EQ(db.integer("SELECT fp FROM near WHERE rowid = 10"), 1);
  EXPECT_TRUE(contains(db.error("UPDATE near SET rowid = 10 WHERE rowid = 11"), "UNIQUE"));
  db.exec("UPDATE OR IGNORE near SET rowid = 10 WHERE rowid = 11");
  EXPECT_EQ(db.integer("SELECT count(*) FROM near"), 2);
  db.exec("UPDATE OR REPLACE near SET rowid = 10 WHERE rowid = 11");
  EXPECT_EQ(db.rows("SELECT rowid, fp FROM near"), (std::vector<Row>{{"10", "30"}}));
  db.exec("UPDATE near SET fp = fp + 1");
  EXPECT_EQ(db.rows("SELECT rowid, distance FROM near(31, 0)"), (std::vector<Row>{{"10", "0"}}));
  for (const char* value : {"'5'", "1.0", "x'00'"}) {
    const std::string message =
        db.error(std::string("INSERT INTO near(rowid, fp) VALUES (50, ") + value + ")");
    EXPECT_TRUE(contains(message, "fp must be an INTEGER fingerprint or NULL, got")) << message;
  }
  EXPECT_TRUE(contains(db.error("UPDATE near SET fp = 'x'"), "got TEXT"));
  EXPECT_TRUE(
      contains(db.error("UPDATE near SET rowid = 'x'"), "rowid must be an INTEGER, got TEXT"));
  EXPECT_TRUE(
      contains(db.error("INSERT INTO near(rowid, fp, distance) VALUES (60, 1, 2)"), "distance"));
  EXPECT_TRUE(contains(db.error("INSERT INTO near(near) VALUES('optimize')"), "unknown command"));
  EXPECT_EQ(db.rows("SELECT rowid, fp FROM near"), (std::vector<Row>{{"10", "31"}}));
  db.exec("INSERT INTO near(near) VALUES('integrity-check')");
}

TEST(IndexSql, IntegrityCheckDetectsDamageAndRebuildRepairs) {
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  db.exec("INSERT INTO near(rowid, fp) VALUES (1, 100), (2, 200), (3, -300)");
  db.exec("INSERT INTO near(near) VALUES('integrity-check')");
  db.exec("INSERT INTO near_data(id, fp) VALUES (4, 400)");  // bypasses the copies
  EXPECT_TRUE(contains(db.error("INSERT INTO near(near) VALUES('integrity-check')"), "disagree"));
  db.exec("INSERT INTO near(near) VALUES('rebuild')");
  db.exec("INSERT INTO near(near) VALUES('integrity-check')");
  EXPECT_EQ(db.rows("SELECT rowid FROM near(400, 0)"), (std::vector<Row>{{"4"}}));
  db.exec("UPDATE near_buckets SET entries = x'ff' WHERE id = (SELECT min(id) FROM near_buckets)");
  EXPECT_TRUE(contains(db.error("INSERT INTO near(near) VALUES('integrity-check')"), "malformed"));
  db.exec("INSERT INTO near(near) VALUES('rebuild')");
  db.exec("INSERT INTO near(near) VALUES('integrity-check')");
}

TEST(IndexSql, TruncatedBucketsGiveExactRowsOrAnError) {
  // 60 rows within 3 bits of one base share buckets, so bucket rows hold
  // many entries. Cutting every bucket row short must never crash or give
  // wrong rows: a query either still reads everything it needs (the cut is
  // past the ids it decodes) or fails naming the malformed bucket.
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  std::mt19937_64 random(77);
  const std::uint64_t base = random();
  std::vector<std::uint64_t> fps;
  for (int row = 1; row <= 60; ++row) {
    std::uint64_t fp = base;
    for (int flip = 0; flip < row % 4; ++flip) {
      fp ^= std::uint64_t{1} << (random() % 64);
    }
    fps.push_back(fp);
    db.exec("INSERT INTO near(rowid, fp) VALUES (" + std::to_string(row) + ", " +
            std::to_string(static_cast<std::int64_t>(fp)) + ")");
  }
  db.exec("CREATE TEMP TABLE saved AS SELECT id, entries FROM near_buckets");
  const auto query_of = [](std::uint64_t fp) {
    return "SELECT rowid, distance FROM near(" + std::to_string(static_cast<std::int64_t>(fp)) +
           ", 3)";
  };
  std::vector<std::vector<Row>> expected;
  for (const std::uint64_t fp : fps) {
    expected.push_back(db.rows(query_of(fp)));
    ASSERT_FALSE(expected.back().empty());
  }
  const std::int64_t longest = db.integer("SELECT max(length(entries)) FROM saved");
  int errors = 0;
  for (std::int64_t length = 0; length < longest; length += 3) {
    db.exec("UPDATE near_buckets SET entries = (SELECT substr(saved.entries, 1, " +
            std::to_string(length) + ") FROM saved WHERE saved.id = near_buckets.id)");
    for (std::size_t i = 0; i < fps.size(); i += 7) {
      std::string message;
      if (db.try_exec(query_of(fps[i]), &message) == SQLITE_OK) {
        EXPECT_EQ(db.rows(query_of(fps[i])), expected[i]) << length;
      } else {
        EXPECT_TRUE(contains(message, "malformed")) << message;
        ++errors;
      }
    }
  }
  EXPECT_GT(errors, 0);
  db.exec(
      "UPDATE near_buckets SET entries = (SELECT entries FROM saved WHERE saved.id = "
      "near_buckets.id)");
  db.exec("INSERT INTO near(near) VALUES('integrity-check')");
}

TEST(IndexSql, DefensiveModeProtectsShadowTables) {
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  int enabled = 0;
  ASSERT_EQ(sqlite3_db_config(db.handle(), SQLITE_DBCONFIG_DEFENSIVE, 1, &enabled), SQLITE_OK);
  ASSERT_EQ(enabled, 1);
  db.exec("INSERT INTO near(rowid, fp) VALUES (1, 5)");
  db.exec(
      "BEGIN; INSERT INTO near(rowid, fp) VALUES (2, 6); SAVEPOINT a; "
      "INSERT INTO near(rowid, fp) VALUES (3, 7); ROLLBACK TO a; COMMIT");
  for (const char* table : {"near_data", "near_config", "near_buckets"}) {
    EXPECT_TRUE(contains(db.error(std::string("DELETE FROM ") + table), "may not be modified"))
        << table;
  }
  EXPECT_EQ(db.integer("SELECT count(*) FROM near_data"), 2);  // reading is allowed
  db.exec("INSERT INTO near(near) VALUES('rebuild')");
  db.exec("INSERT INTO near(near) VALUES('integrity-check')");
  EXPECT_EQ(db.rows("SELECT rowid FROM near(5, 2)"), (std::vector<Row>{{"1"}, {"2"}}));
}

TEST(IndexSql, RenameAndDropCarryShadowTables) {
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  db.exec("BEGIN; INSERT INTO near(rowid, fp) VALUES (1, 5), (2, 6)");
  // Refused in the transaction that wrote to it (a ROLLBACK TO before the
  // rename would part the table's name from its pending writes), and
  // nothing changes.
  EXPECT_EQ(db.error("ALTER TABLE near RENAME TO far"),
            "simhash_index near: cannot be renamed in a transaction that wrote to it; rename it "
            "after COMMIT");
  EXPECT_EQ(db.rows("SELECT rowid FROM near(5, 2)"), (std::vector<Row>{{"1"}, {"2"}}));
  db.exec("COMMIT");
  db.exec("BEGIN; SELECT count(*) FROM near");
  db.exec("ALTER TABLE near RENAME TO far");  // in a transaction that only read it
  db.exec("COMMIT");
  EXPECT_EQ(db.rows("SELECT name FROM sqlite_master WHERE name LIKE 'near%'"), std::vector<Row>{});
  EXPECT_EQ(db.integer("SELECT count(*) FROM sqlite_master WHERE name LIKE 'far_%'"), 3);
  EXPECT_EQ(db.rows("SELECT rowid FROM far(5, 2)"), (std::vector<Row>{{"1"}, {"2"}}));
  db.exec("INSERT INTO far(far) VALUES('integrity-check')");
  // No statement of the index stays active between statements.
  db.exec("VACUUM");
  EXPECT_EQ(db.rows("SELECT rowid FROM far(5, 2)"), (std::vector<Row>{{"1"}, {"2"}}));
  db.exec("DROP TABLE far");
  EXPECT_EQ(db.integer("SELECT count(*) FROM sqlite_master"), 0);
}

// A ROLLBACK TO in a transaction that changed the schema makes SQLite
// connect the table again while the object it connected before, holding the
// pending writes, stays in the transaction: both share one storage
// (ext/common/shared_storage.h), so the queries see the writes before the
// savepoint and not those after it, through either object.
TEST(IndexSql, PendingWritesSurviveASchemaResetInTheTransaction) {
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  db.exec("INSERT INTO near(rowid, fp) VALUES (1, 99999999)");
  // A schema change by CREATE TABLE, and by a rename before the writes.
  for (const char* change : {"CREATE TABLE t(x)", "ALTER TABLE near RENAME TO near"}) {
    SCOPED_TRACE(change);
    db.exec("DROP TABLE IF EXISTS t");
    db.exec("BEGIN");
    if (std::string(change).starts_with("ALTER")) {
      db.exec("ALTER TABLE near RENAME TO far; ALTER TABLE far RENAME TO near");
    } else {
      db.exec(change);
    }
    db.exec("INSERT INTO near(rowid, fp) VALUES (1000, 12345)");
    db.exec("SAVEPOINT s; INSERT INTO near(rowid, fp) VALUES (1001, 12344); ROLLBACK TO s");
    EXPECT_EQ(db.rows("SELECT rowid, distance FROM near WHERE query = 12345 AND radius = 3"),
              (std::vector<Row>{{"1000", "0"}}));
    EXPECT_EQ(db.rows("SELECT rowid FROM near WHERE query = 12345 AND nearest = 1"),
              (std::vector<Row>{{"1000"}}));
    db.exec("INSERT INTO near(rowid, fp) VALUES (1002, 12347)");  // through the new object
    db.exec("SAVEPOINT u; INSERT INTO near(rowid, fp) VALUES (1003, 12345); ROLLBACK TO u");
    EXPECT_EQ(db.rows("SELECT rowid FROM near WHERE query = 12345 AND radius = 3"),
              (std::vector<Row>{{"1000"}, {"1002"}}));
    db.exec("COMMIT");
    EXPECT_EQ(db.rows("SELECT rowid FROM near WHERE query = 12345 AND radius = 3"),
              (std::vector<Row>{{"1000"}, {"1002"}}));
    db.exec("INSERT INTO near(near) VALUES('integrity-check')");
    db.exec("DELETE FROM near WHERE rowid >= 1000");
  }
}

// A DROP TABLE inside a savepoint opened after writes to the table is
// refused (a ROLLBACK TO it would bring the table back without them), and
// allowed everywhere else (tests/support/savepoint_drop.h).
TEST(IndexSql, DropInsideASavepointOpenedAfterWritesIsRefused) {
  expect_drop_refused_only_under_a_savepoint_over_writes(
      {"simhash_index", "near",
       "CREATE VIRTUAL TABLE near USING simhash_index(k=3); INSERT INTO near(rowid, fp) VALUES "
       "(1, 5)",
       "INSERT INTO near(rowid, fp) VALUES ({id}, 4 + {id})",
       "INSERT INTO near(near) VALUES ('rebuild')", "SELECT rowid FROM near(5, 2) ORDER BY rowid"});
}

// Renamed to one of its column names, the table would
// declare that column twice and could no longer be used or dropped.
TEST(IndexSql, RenameToAColumnNameIsRefused) {
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  db.exec("INSERT INTO near(rowid, fp) VALUES (1, 5)");
  for (const char* name : {"distance", "fp", "Query", "RADIUS", "rowid"}) {
    EXPECT_EQ(db.error(std::string("ALTER TABLE near RENAME TO ") + name),
              std::string("simhash_index near: cannot rename to '") + name +
                  "': the name of one of its columns");
  }
  EXPECT_EQ(db.rows("SELECT rowid FROM near(5)"), std::vector<Row>{{"1"}});
  db.exec("DROP TABLE near");
  EXPECT_EQ(db.integer("SELECT count(*) FROM sqlite_master"), 0);
}

// An UPDATE that writes a computed column is an error, not
// one reported change that changes nothing; UPDATEs of fp and rowid work
// whether they find their rows by rowid or by MATCH.
TEST(IndexSql, UpdatesOfComputedColumnsAreErrors) {
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  db.exec("INSERT INTO near(rowid, fp) VALUES (100, 5), (101, 7)");
  for (const char* column : {"distance", "query", "radius"}) {
    EXPECT_EQ(db.error(std::string("UPDATE near SET ") + column + " = 9 WHERE rowid = 100"),
              std::string("simhash_index near: column ") + column +
                  " is computed by queries and cannot be written");
    EXPECT_EQ(db.error(std::string("UPDATE near SET ") + column + " = NULL WHERE fp MATCH 5"),
              std::string("simhash_index near: column ") + column +
                  " is computed by queries and cannot be written");
  }
  EXPECT_EQ(db.error("UPDATE near SET near = 'rebuild'"),
            "simhash_index near: column near takes commands in INSERT only");
  EXPECT_EQ(db.rows("SELECT rowid, fp FROM near"), (std::vector<Row>{{"100", "5"}, {"101", "7"}}));
  db.exec("UPDATE near SET fp = fp + 1 WHERE fp MATCH 5 AND distance = 0");
  db.exec("UPDATE near SET rowid = 102 WHERE rowid = 101");
  EXPECT_EQ(db.rows("SELECT rowid, fp FROM near"), (std::vector<Row>{{"100", "6"}, {"102", "7"}}));
  db.exec("INSERT INTO near(near) VALUES('integrity-check')");
}

// A REAL compares with rowids as SQLite compares it.
TEST(IndexSql, RealRowidsAndRadiiCompareAsSqliteDoes) {
  TestDatabase db;
  db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
  db.exec("INSERT INTO near(rowid, fp) VALUES (9223372036854775807, 1), (5, 2)");
  db.exec("CREATE TABLE plain(id INTEGER PRIMARY KEY)");
  db.exec("INSERT INTO plain VALUES (9223372036854775807), (5)");
  for (const char* value : {"9223372036854775808.0", "9.3e18", "-9.3e18", "5.0", "5.5", "1e300"}) {
    EXPECT_EQ(db.rows(std::string("SELECT rowid FROM near WHERE rowid = ") + value),
              db.rows(std::string("SELECT id FROM plain WHERE id = ") + value))
        << value;
  }
  EXPECT_EQ(db.error("SELECT * FROM near(0, -1e300)"),
            "simhash_index near: the radius must not be negative (got -1.0e+300)");
  EXPECT_EQ(db.rows("SELECT rowid FROM near WHERE fp MATCH 0 AND distance <= -1e300"),
            std::vector<Row>{});
}

TEST(IndexSql, AttachedSchema) {
  TestDatabase db;
  db.exec("ATTACH ':memory:' AS aux");
  db.exec("CREATE VIRTUAL TABLE aux.near USING simhash_index(k=1)");
  db.exec("INSERT INTO aux.near(rowid, fp) VALUES (1, 2), (2, 3)");
  EXPECT_EQ(db.rows("SELECT rowid, distance FROM aux.near WHERE fp MATCH 2"),
            (std::vector<Row>{{"1", "0"}, {"2", "1"}}));
  EXPECT_EQ(db.integer("SELECT count(*) FROM aux.near_data"), 2);
}

TEST(IndexSql, NewerFormatFailsClearly) {
  const TempDatabaseFile file("simhash_format");
  const std::string& path = file.path();
  {
    TestDatabase db(path);
    db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
    db.exec("UPDATE near_config SET value = 5 WHERE key = 'format'");
  }
  {
    TestDatabase db(path);
    const std::string message = db.error("SELECT * FROM near");
    EXPECT_TRUE(contains(message, "format 5 is newer")) << message;
  }
  // Format 1 (an unreleased bucket layout) is refused, not misread.
  exec_without_extension(path, "UPDATE near_config SET value = 1 WHERE key = 'format'");
  {
    TestDatabase db(path);
    const std::string message = db.error("SELECT * FROM near");
    EXPECT_TRUE(contains(message, "format 1 is an older development layout")) << message;
  }
  // Damaged configs fail with a message naming what is wrong.
  struct Damage {
    const char* sql;
    const char* expected;
  };
  for (const Damage& damage : {Damage{"UPDATE near_config SET value = 2 WHERE key = 'format'; "
                                      "DELETE FROM near_config WHERE key = 'blocks'",
                                      "lacks blocks"},
                               Damage{"INSERT INTO near_config VALUES('blocks', 4); "
                                      "UPDATE near_config SET value = 30 WHERE key = 'k'",
                                      "stored k=30"},
                               Damage{"UPDATE near_config SET value = 3 WHERE key = 'k'; "
                                      "UPDATE near_config SET value = 3 WHERE key = 'blocks'",
                                      "blocks=3"}}) {
    exec_without_extension(path, damage.sql);
    TestDatabase db(path);
    const std::string message = db.error("SELECT * FROM near");
    EXPECT_TRUE(contains(message, damage.expected)) << message;
    EXPECT_TRUE(contains(message, "DROP TABLE near still removes it")) << message;
  }
}

// Every state the index refuses to read can still be
// dropped, shadow tables included; other uses fail with the reason.
TEST(IndexSql, UnreadableTablesCanBeDropped) {
  const TempDatabaseFile file("simhash_unreadable");
  for (const char* damage :
       {"UPDATE near_config SET value = 5 WHERE key = 'format'",
        "UPDATE near_config SET value = 1 WHERE key = 'format'",
        "UPDATE near_config SET value = 'garbage' WHERE key = 'k'", "DELETE FROM near_config",
        "UPDATE near_config SET value = 30 WHERE key = 'k'"}) {
    {
      TestDatabase db(file.path());
      db.exec("CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
      db.exec("INSERT INTO near(rowid, fp) VALUES (1, 5)");
    }
    exec_without_extension(file.path(), damage);
    TestDatabase db(file.path());
    for (const char* use :
         {"SELECT * FROM near", "SELECT * FROM near(5)", "INSERT INTO near(fp) VALUES (1)",
          "DELETE FROM near", "ALTER TABLE near RENAME TO far"}) {
      const std::string message = db.error(use);
      EXPECT_TRUE(contains(message, "DROP TABLE near still removes it"))
          << damage << ": " << message;
    }
    db.exec("DROP TABLE near");
    EXPECT_EQ(db.integer("SELECT count(*) FROM sqlite_master"), 0) << damage;
  }
}

}  // namespace
}  // namespace simhash::testing

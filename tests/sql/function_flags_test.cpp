// SPDX-License-Identifier: MIT
// The functions' flags, seen as a SQLite user sees them: deterministic
// functions may appear in index expressions, CHECK constraints and generated
// columns; innocuous ones (and the innocuous simhash_features table) may run
// from a schema when PRAGMA trusted_schema is OFF.
#include <gtest/gtest.h>

#include <string>

#include "test_database.h"

namespace simhash::testing {
namespace {

TEST(FunctionFlags, UsableInIndexesChecksAndGeneratedColumns) {
  TestDatabase db;
  db.exec(
      "CREATE TABLE docs(body TEXT, fp INTEGER CHECK (fp IS simhash(body)),"
      "  hex TEXT AS (simhash_hex(simhash(body, 'n=2'))) STORED,"
      "  near_zero INTEGER AS (hamming(fp, 0)) VIRTUAL,"
      "  prefixed INTEGER AS (simhash_hamming(fp, -1)) VIRTUAL,"
      "  version TEXT AS (simhash_version()) VIRTUAL,"
      "  inside REAL AS (simhash_containment(body, 'one two three four')) VIRTUAL,"
      "  difference TEXT AS (simhash_first_difference(body, 'one two')) VIRTUAL)");
  db.exec("CREATE INDEX docs_by_fp ON docs(simhash(body))");
  db.exec("CREATE INDEX docs_by_distance ON docs(hamming(simhash(body), 0))");
  db.exec("INSERT INTO docs(body, fp) VALUES ('one two three', simhash('one two three'))");
  EXPECT_FALSE(db.error("INSERT INTO docs(body, fp) VALUES ('one two three', 5)").empty());
  EXPECT_EQ(db.integer("SELECT count(*) FROM docs WHERE simhash(body) = simhash('one two three')"),
            1);
  EXPECT_EQ(db.integer("SELECT near_zero + prefixed FROM docs"), 64);
  EXPECT_EQ(db.integer("SELECT count(*) FROM docs WHERE hex = simhash_hex(simhash(body, 'n=2'))"),
            1);
  EXPECT_EQ(db.rows("SELECT inside, difference FROM docs"),
            (std::vector<Row>{{"1.0", "line 1, column 8\n- one two three\n+ one two"}}));
  db.exec("CREATE INDEX docs_by_containment ON docs(simhash_containment(body, 'one'))");
}

TEST(FunctionFlags, InnocuousUnderUntrustedSchema) {
  const TempDatabaseFile file("simhash_flags");
  {
    TestDatabase db(file.path());
    db.exec(
        "CREATE TABLE docs(body TEXT);"
        "INSERT INTO docs VALUES ('alpha beta gamma'), ('alpha beta delta');"
        "CREATE VIEW fingerprints AS SELECT simhash(body) AS fp, simhash(body, 'n=2') AS fp2,"
        "  simhash_hex(simhash(body)) AS hex, hamming(simhash(body), 0) AS d,"
        "  simhash_hamming(simhash(body), 0) AS d2, simhash_version() AS v,"
        "  simhash_containment(body, 'alpha') AS inside,"
        "  simhash_first_difference(body, 'alpha') AS difference FROM docs;"
        "CREATE VIEW aggregated AS SELECT simhash_agg(feature, weight) AS fp"
        "  FROM docs, simhash_features(docs.body);"
        "CREATE VIEW shared AS SELECT feature FROM docs,"
        "  simhash_shared_features(docs.body, 'alpha beta gamma');");
  }
  TestDatabase db(file.path());
  db.exec("PRAGMA trusted_schema = OFF");
  EXPECT_EQ(db.integer("SELECT count(*) FROM fingerprints WHERE fp IS NOT NULL"), 2);
  EXPECT_EQ(db.rows("SELECT fp FROM aggregated").size(), 1U);
  EXPECT_EQ(db.integer("SELECT count(*) FROM fingerprints WHERE inside > 0 AND difference "
                       "LIKE 'line 1, column 6%'"),
            2);
  EXPECT_EQ(db.integer("SELECT count(*) FROM shared"), 5);
}

// The index is innocuous too, so the README's way of
// keeping it in step with its table (triggers) and a view over it work in a
// database opened with PRAGMA trusted_schema=OFF.
TEST(FunctionFlags, IndexTriggersAndViewsUnderUntrustedSchema) {
  const TempDatabaseFile file("simhash_index_flags");
  {
    TestDatabase db(file.path());
    db.exec(
        "CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT);"
        "CREATE VIRTUAL TABLE near USING simhash_index(k=3);"
        "CREATE TRIGGER docs_ai AFTER INSERT ON docs WHEN simhash(new.body) IS NOT NULL BEGIN"
        "  INSERT INTO near(rowid, fp) VALUES (new.id, simhash(new.body)); END;"
        "CREATE TRIGGER docs_ad AFTER DELETE ON docs BEGIN"
        "  DELETE FROM near WHERE rowid = old.id; END;"
        "CREATE VIEW similar AS SELECT d.id, n.rowid AS other, n.distance"
        "  FROM docs AS d, near(simhash(d.body)) AS n WHERE n.rowid <> d.id;"
        "CREATE VIEW similar_by_match AS SELECT d.id, n.rowid AS other"
        "  FROM docs AS d JOIN near AS n ON n.fp MATCH simhash(d.body);");
  }
  TestDatabase db(file.path());
  db.exec("PRAGMA trusted_schema = OFF");
  db.exec(
      "INSERT INTO docs(body) VALUES ('one two three four five'), ('One, two, three, four, five.'),"
      "('entirely other words here')");
  EXPECT_EQ(db.integer("SELECT count(*) FROM near"), 3);
  EXPECT_EQ(db.rows("SELECT id, other FROM similar ORDER BY id"),
            (std::vector<Row>{{"1", "2"}, {"2", "1"}}));
  // SQLite's own match() is not innocuous, so a view that uses the MATCH
  // operator needs a trusted schema (as with FTS5); the table-valued form
  // above does not.
  EXPECT_EQ(db.error("SELECT * FROM similar_by_match"), "unsafe use of MATCH()");
  db.exec("DELETE FROM docs WHERE id = 2");
  EXPECT_EQ(db.integer("SELECT count(*) FROM near"), 2);
}

}  // namespace
}  // namespace simhash::testing

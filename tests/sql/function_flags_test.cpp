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
      "  version TEXT AS (simhash_version()) VIRTUAL)");
  db.exec("CREATE INDEX docs_by_fp ON docs(simhash(body))");
  db.exec("CREATE INDEX docs_by_distance ON docs(hamming(simhash(body), 0))");
  db.exec("INSERT INTO docs(body, fp) VALUES ('one two three', simhash('one two three'))");
  EXPECT_FALSE(db.error("INSERT INTO docs(body, fp) VALUES ('one two three', 5)").empty());
  EXPECT_EQ(db.integer("SELECT count(*) FROM docs WHERE simhash(body) = simhash('one two three')"),
            1);
  EXPECT_EQ(db.integer("SELECT near_zero + prefixed FROM docs"), 64);
  EXPECT_EQ(db.integer("SELECT count(*) FROM docs WHERE hex = simhash_hex(simhash(body, 'n=2'))"),
            1);
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
        "  simhash_hamming(simhash(body), 0) AS d2, simhash_version() AS v FROM docs;"
        "CREATE VIEW aggregated AS SELECT simhash_agg(feature, weight) AS fp"
        "  FROM docs, simhash_features(docs.body);");
  }
  TestDatabase db(file.path());
  db.exec("PRAGMA trusted_schema = OFF");
  EXPECT_EQ(db.integer("SELECT count(*) FROM fingerprints WHERE fp IS NOT NULL"), 2);
  EXPECT_EQ(db.rows("SELECT fp FROM aggregated").size(), 1U);
}

}  // namespace
}  // namespace simhash::testing

// SPDX-License-Identifier: MIT
// simhash_features(text [, options]) through SQL: the identity with simhash
// and simhash_agg, rows against the engine's feature list, hidden columns,
// and its errors.
#include <gtest/gtest.h>

#include <string>

#include "bound_query.h"
#include "fingerprint/feature_extractor.h"
#include "fingerprint/feature_hash.h"
#include "fingerprint/simhash_options.h"
#include "sql_test_texts.h"
#include "test_database.h"

namespace simhash::testing {
namespace {

constexpr const char* kIdentity =
    "SELECT simhash(?1, ?2) IS (SELECT simhash_agg(feature, weight) "
    "FROM simhash_features(?1, ?2))";

TEST(SimhashFeatures, IdentityWithSimhashAggOnEveryTextAndOption) {
  TestDatabase db;
  for (const std::string& options : sample_options()) {
    for (const std::string& text : sample_texts()) {
      ASSERT_EQ(bound_integer(db.handle(), kIdentity, {text, options}), 1)
          << "options '" << options << "' text: " << text.substr(0, 60);
    }
  }
  // NULL text: no rows, and simhash is NULL too.
  EXPECT_EQ(bound_integer(db.handle(), kIdentity, {nullptr, std::string("")}), 1);
  EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_features(NULL)"), 0);
  EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_features('')"), 0);
}

TEST(SimhashFeatures, IdentityOverATableOfDocuments) {
  TestDatabase db;
  db.exec("CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT)");
  for (const std::string& text : sample_texts()) {
    // An insert that failed unnoticed would leave docs empty and the counts
    // below 0 whatever the functions return.
    const BoundResult inserted =
        run_bound(db.handle(), "INSERT INTO docs(body) VALUES (?)", {text});
    ASSERT_EQ(inserted.rc, SQLITE_OK) << inserted.error;
  }
  // The join form: simhash_features takes its argument from each outer row.
  for (const char* options : {"''", "'n=2'", "'unit=char n=4'"}) {
    EXPECT_EQ(db.integer(std::string("SELECT count(*) FROM docs WHERE simhash(body, ") + options +
                         ") IS NOT (SELECT simhash_agg(f.feature, f.weight) FROM docs AS d, "
                         "simhash_features(d.body, " +
                         options + ") AS f WHERE d.id = docs.id)"),
              0)
        << options;
    EXPECT_EQ(db.integer(std::string("SELECT count(*) FROM (SELECT d.id, simhash_agg(f.feature, "
                                     "f.weight) AS fp FROM docs AS d, simhash_features(d.body, ") +
                         options +
                         ") AS f GROUP BY d.id) AS g JOIN docs USING (id) "
                         "WHERE g.fp IS NOT simhash(docs.body, " +
                         options + ")"),
              0)
        << options;
  }
}

TEST(SimhashFeatures, RowsAreTheEngineFeaturesInOrder) {
  TestDatabase db;
  for (const std::string options : {"", "n=2 weight=log", "unit=char n=3"}) {
    std::string error;
    FeatureExtractor extractor(*parse_options(options, error));
    for (const std::string& text : sample_texts()) {
      const std::vector<Feature> expected = extractor.features(text);
      sqlite3_stmt* statement = nullptr;
      ASSERT_EQ(sqlite3_prepare_v2(db.handle(),
                                   "SELECT feature, weight, hash, typeof(weight), text IS ?1, "
                                   "options IS ?2 FROM simhash_features(?1, ?2)",
                                   -1, &statement, nullptr),
                SQLITE_OK);
      sqlite3_bind_text(statement, 1, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
      sqlite3_bind_text(statement, 2, options.data(), static_cast<int>(options.size()),
                        SQLITE_STATIC);
      std::size_t row = 0;
      while (sqlite3_step(statement) == SQLITE_ROW) {
        ASSERT_LT(row, expected.size());
        const std::string feature(reinterpret_cast<const char*>(sqlite3_column_text(statement, 0)),
                                  static_cast<std::size_t>(sqlite3_column_bytes(statement, 0)));
        EXPECT_EQ(feature, expected[row].text);
        EXPECT_EQ(sqlite3_column_double(statement, 1), expected[row].weight);
        EXPECT_EQ(sqlite3_column_int64(statement, 2),
                  static_cast<sqlite3_int64>(expected[row].hash));
        // The hash column is the feature's XXH3-64 as simhash_agg computes it.
        EXPECT_EQ(static_cast<std::uint64_t>(sqlite3_column_int64(statement, 2)),
                  feature_hash(feature));
        EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(statement, 3)), "real");
        EXPECT_EQ(sqlite3_column_int(statement, 4), 1);
        EXPECT_EQ(sqlite3_column_int(statement, 5), 1);
        ++row;
      }
      EXPECT_EQ(row, expected.size()) << text.substr(0, 60);
      sqlite3_finalize(statement);
    }
  }
}

TEST(SimhashFeatures, ShowsItsHiddenArguments) {
  TestDatabase db;
  EXPECT_EQ(db.rows("SELECT DISTINCT text, options FROM simhash_features('a b', 'n=1')"),
            (std::vector<Row>{{"a b", "n=1"}}));
  EXPECT_EQ(db.rows("SELECT DISTINCT text, options IS NULL FROM simhash_features('a b')"),
            (std::vector<Row>{{"a b", "1"}}));
  // Named-argument form through the hidden columns.
  EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_features WHERE text = 'one two three'"),
            db.integer("SELECT count(*) FROM simhash_features('one two three')"));
}

TEST(SimhashFeatures, InvalidUtf8GivesValidFeatures) {
  TestDatabase db;
  for (const auto& row : db.rows("SELECT feature FROM simhash_features(CAST(x'c328ff61' AS TEXT), "
                                 "'unit=char n=1')")) {
    ASSERT_TRUE(row[0].has_value());
  }
  EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_features(CAST(x'c328ff61' AS TEXT), "
                       "'unit=char n=1') WHERE feature = char(65533)"),
            1);
}

TEST(SimhashFeatures, Errors) {
  TestDatabase db;
  const std::string missing = db.error("SELECT * FROM simhash_features");
  EXPECT_NE(missing.find("simhash_features: missing text argument"), std::string::npos) << missing;
  EXPECT_NE(db.error("SELECT * FROM simhash_features WHERE options = 'n=2'")
                .find("missing text argument"),
            std::string::npos);
  EXPECT_EQ(db.error("SELECT * FROM simhash_features('text', 'colour=red')"),
            "simhash_features: unknown option \"colour\" (known: unit, n, weight, symbols)");
  EXPECT_EQ(db.error("SELECT * FROM simhash_features('text', 'n=0')"),
            "simhash_features: option n must be an integer from 1 to 16, got \"0\"");
  EXPECT_EQ(db.error("SELECT * FROM simhash_features('text', 2)"),
            "simhash_features: options must be TEXT, got INTEGER");
  EXPECT_NE(db.error("CREATE VIRTUAL TABLE t USING simhash_features").find("simhash_features"),
            std::string::npos);
  EXPECT_NE(db.error("SELECT * FROM simhash_features('a', 'n=2', 3)").find("arguments"),
            std::string::npos);
}

TEST(SimhashFeatures, TenMegabyteText) {
  TestDatabase db;
  const std::string text = word_soup(10 * 1024 * 1024, 11);
  EXPECT_EQ(bound_integer(db.handle(), kIdentity, {text, std::string("n=2")}), 1);
}

}  // namespace
}  // namespace simhash::testing

// SPDX-License-Identifier: MIT
// simhash_cosine and simhash_jaccard through SQL: agreement with the same
// similarities written in SQL over simhash_features (features by their text),
// NULLs, option errors, and remembered feature vectors that never go stale.
#include <gtest/gtest.h>

#include <string>

#include "bound_query.h"
#include "sanitized_build.h"
#include "sql_test_texts.h"
#include "test_database.h"

namespace simhash::testing {
namespace {

// The model, in SQL over the feature texts simhash_features lists: ?1 and ?2
// are the texts, ?3 the options. NULL when either text has no features.
constexpr const char* kModel = R"(
  WITH a AS (SELECT feature, weight FROM simhash_features(?1, ?3)),
       b AS (SELECT feature, weight FROM simhash_features(?2, ?3)),
       both_sides AS (
         SELECT coalesce(a.weight, 0) AS wa, coalesce(b.weight, 0) AS wb
         FROM a LEFT JOIN b USING (feature)
         UNION ALL
         SELECT 0, b.weight FROM b WHERE feature NOT IN (SELECT feature FROM a))
  SELECT sum(wa * wb) / sqrt(sum(wa * wa) * sum(wb * wb)) AS cosine,
         sum(min(wa, wb)) / sum(max(wa, wb)) AS jaccard
  FROM both_sides
  WHERE (SELECT count(*) FROM a) > 0 AND (SELECT count(*) FROM b) > 0)";

TEST(Similarity, AgreesWithTheSameSimilaritiesInSql) {
  TestDatabase db;
  const std::vector<std::string> texts = sample_texts();
  const std::string agree = std::string(
                                "SELECT (simhash_cosine(?1, ?2, ?3) IS NULL AND cosine IS NULL"
                                "        OR abs(simhash_cosine(?1, ?2, ?3) - cosine) < 1e-9)"
                                "   AND (simhash_jaccard(?1, ?2, ?3) IS NULL AND jaccard IS NULL"
                                "        OR abs(simhash_jaccard(?1, ?2, ?3) - jaccard) < 1e-9)"
                                " FROM (") +
                            kModel + ")";
  int compared = 0;
  const std::vector<std::string> all_options = sample_options();
  for (std::size_t o = 0; o < all_options.size(); ++o) {
    const std::string& options = all_options[o];
    for (std::size_t i = 0; i < texts.size(); ++i) {
      // Each text against itself, its neighbour in the list and a variant
      // with a few words appended (a near-duplicate). Under the sanitizers,
      // which check the same code paths rather than more answers, one of
      // the three in turn: every text, every option and every kind of
      // partner still meet, in a third of the pairs (the model in SQL over
      // the licence texts is most of the test's time there).
      const std::string others[] = {texts[i], texts[(i + 1) % texts.size()],
                                    texts[i] + " and a few more words"};
      for (std::size_t k = 0; k < std::size(others); ++k) {
        if (kSanitizedBuild && k != (i + o) % std::size(others)) {
          continue;
        }
        const std::string& other = others[k];
        ASSERT_EQ(bound_integer(db.handle(), agree, {texts[i], other, options}), 1)
            << "options '" << options << "' texts: " << texts[i].substr(0, 40) << " | "
            << other.substr(0, 40);
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 100);
}

TEST(Similarity, KnownValuesAndEqualTexts) {
  TestDatabase db;
  // Word 3-shingles "a b c", "b c d" against "a b c", "b c e".
  EXPECT_EQ(db.integer("SELECT simhash_jaccard('a b c d', 'a b c e', 'n=3 weight=binary') "
                       "= 1.0 / 3"),
            1);
  // tf vectors {a:2, b:1} and {a:1, c:1}.
  EXPECT_EQ(db.integer("SELECT abs(simhash_cosine('a a b', 'a c') - 2 / sqrt(10)) < 1e-15"), 1);
  EXPECT_EQ(db.integer("SELECT simhash_jaccard('a a b', 'a c') = 0.25"), 1);
  EXPECT_EQ(db.cell("SELECT simhash_jaccard('alpha beta', 'gamma delta')"), "0.0");
  // Equal texts (and texts equal after normalization) are exactly 1.
  for (const std::string& text : sample_texts()) {
    for (const char* function : {"simhash_cosine", "simhash_jaccard"}) {
      EXPECT_EQ(bound_integer(db.handle(),
                              std::string("SELECT ") + function + "(?1, ?1, ?2) IS NULL OR " +
                                  function + "(?1, ?1, ?2) = 1.0",
                              {text, std::string("weight=log n=2")}),
                1);
    }
  }
  EXPECT_EQ(db.cell("SELECT simhash_cosine('Hello, World', 'ＨＥＬＬＯ　ＷＯＲＬＤ')"), "1.0");
  // Numbers and BLOBs are read as simhash() reads them.
  EXPECT_EQ(db.cell("SELECT simhash_jaccard(12345, '12345')"), "1.0");
  EXPECT_EQ(db.cell("SELECT simhash_jaccard(CAST('some words' AS BLOB), 'some words')"), "1.0");
}

TEST(Similarity, NullInNullOutAndTextsWithoutFeatures) {
  TestDatabase db;
  for (const char* function : {"simhash_cosine", "simhash_jaccard"}) {
    const std::string f = function;
    EXPECT_EQ(db.cell("SELECT " + f + "(NULL, 'words')"), std::nullopt);
    EXPECT_EQ(db.cell("SELECT " + f + "('words', NULL)"), std::nullopt);
    EXPECT_EQ(db.cell("SELECT " + f + "(NULL, NULL, 'n=2')"), std::nullopt);
    EXPECT_EQ(db.cell("SELECT " + f + "('', 'words')"), std::nullopt);
    EXPECT_EQ(db.cell("SELECT " + f + "('words', ' ,.;!? ')"), std::nullopt);
    EXPECT_EQ(db.cell("SELECT typeof(" + f + "('one two', 'two three'))"), "real");
  }
}

TEST(Similarity, OptionErrorsNameTheFunctionAndTheOption) {
  TestDatabase db;
  EXPECT_EQ(db.error("SELECT simhash_jaccard('a', 'b', 'colour=red')"),
            "simhash_jaccard: unknown option \"colour\" (known: unit, n, weight, symbols)");
  EXPECT_EQ(db.error("SELECT simhash_cosine('a', 'b', 'colour=red')"),
            "simhash_cosine: unknown option \"colour\" (known: unit, n, weight, symbols)");
  // Checked even when a text is NULL.
  EXPECT_NE(db.error("SELECT simhash_cosine(NULL, 'b', 'n=99')").find("99"), std::string::npos);
  EXPECT_EQ(db.error("SELECT simhash_jaccard('a', 'b', 3)"),
            "simhash_jaccard: options must be TEXT, got INTEGER");
  EXPECT_NE(db.error("SELECT simhash_jaccard('a')").find("wrong number of arguments"),
            std::string::npos);
  EXPECT_NE(db.error("SELECT simhash_cosine('a', 'b', '', 4)").find("wrong number of arguments"),
            std::string::npos);
}

// The functions remember the last text of each argument; these sequences
// would expose a vector served for the wrong text or the wrong options.
TEST(Similarity, RememberedVectorsNeverGoStale) {
  TestDatabase db;
  // The same texts with options that change from row to row.
  EXPECT_EQ(db.rows("SELECT simhash_jaccard(column1, column2, column3) FROM (VALUES "
                    "('a b c', 'a b d', 'weight=binary'), ('a b c', 'a b d', 'n=2 weight=binary'),"
                    "('a b c', 'a b d', NULL), ('a b c', 'a b d', 'weight=binary'))"),
            (std::vector<Row>{{"0.5"}, {"0.333333333333333"}, {"0.5"}, {"0.5"}}));
  // The same text moving between the two arguments, and repeating.
  EXPECT_EQ(
      db.rows(
          "SELECT simhash_jaccard(column1, column2) FROM (VALUES ('x y', 'x z'), ('x z', 'x y'),"
          "('x z', 'x z'), ('x y', 'x y z'), ('x y', 'x y z'))"),
      (std::vector<Row>{{"0.333333333333333"},
                        {"0.333333333333333"},
                        {"1.0"},
                        {"0.666666666666667"},
                        {"0.666666666666667"}}));
  // A table walked by its first row, then changed between statements: every
  // pair agrees with the model computed afresh.
  db.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT)");
  for (int i = 0; i < 12; ++i) {
    run_bound(
        db.handle(), "INSERT INTO t(body) VALUES (?)",
        {word_soup(40 + 17 * static_cast<std::size_t>(i), static_cast<std::uint64_t>(i % 4))});
  }
  const std::string matches_model =
      std::string("SELECT abs(?4 - jaccard) < 1e-9 FROM (") + kModel + ")";
  for (int round = 0; round < 2; ++round) {
    const std::vector<Row> pairs = db.rows(
        "SELECT x.body, y.body, simhash_jaccard(x.body, y.body, 'n=2') "
        "FROM t AS x, t AS y ORDER BY x.id, y.id");
    ASSERT_EQ(pairs.size(), 144U);
    for (const Row& pair : pairs) {
      ASSERT_EQ(bound_integer(db.handle(), matches_model,
                              {*pair[0], *pair[1], std::string("n=2"), std::stod(*pair[2])}),
                1)
          << *pair[0] << " | " << *pair[1];
    }
    db.exec("UPDATE t SET body = body || ' changed words' WHERE id % 3 = 0");
  }
}

}  // namespace
}  // namespace simhash::testing

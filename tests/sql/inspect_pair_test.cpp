// SPDX-License-Identifier: MIT
// Why a verified pair matched, through SQL: simhash_containment against the
// same sum written over simhash_features, simhash_shared_features' rows, and
// simhash_first_difference's text, simhash_change's kind and words; NULLs,
// equal texts and the messages for wrong arguments.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "bound_query.h"
#include "sql_test_texts.h"
#include "test_database.h"

namespace simhash::testing {
namespace {

// ?1 in ?2 under options ?3, by feature text: NULL when ?1 has no features.
// Materialized, so each text is listed once and the join gets an automatic
// index (not a fresh simhash_features scan per row of A).
constexpr const char* kContainmentModel = R"(
  WITH a AS MATERIALIZED (SELECT feature, weight FROM simhash_features(?1, ?3)),
       b AS MATERIALIZED (SELECT feature, weight FROM simhash_features(?2, ?3))
  SELECT (SELECT total(min(a.weight, b.weight)) FROM a JOIN b USING (feature)) /
         (SELECT sum(weight) FROM a) AS containment)";

TEST(Containment, AgreesWithTheSumOverSimhashFeaturesOnRandomTexts) {
  TestDatabase db;
  std::vector<std::string> texts = sample_texts();
  std::mt19937_64 random(2211);
  const std::vector<std::string> words = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta"};
  for (int i = 0; i < 40; ++i) {
    std::string text;
    for (int word = 0, count = 1 + static_cast<int>(random() % 30); word < count; ++word) {
      text.append(text.empty() ? "" : " ").append(words[random() % words.size()]);
    }
    texts.push_back(text);
  }
  const std::string agree = std::string(
                                "SELECT simhash_containment(?1, ?2, ?3) IS NULL AND containment "
                                "IS NULL OR abs(simhash_containment(?1, ?2, ?3) - containment) "
                                "< 1e-9 FROM (") +
                            kContainmentModel + ")";
  int compared = 0;
  for (const std::string& options : {std::string(""), std::string("weight=log n=2"),
                                     std::string("n=3 weight=binary"), std::string("unit=char")}) {
    for (std::size_t i = 0; i < texts.size(); ++i) {
      for (const std::string& other :
           {texts[i], texts[(i + 1) % texts.size()], texts[i] + " and a few more words"}) {
        ASSERT_EQ(bound_integer(db.handle(), agree, {texts[i], other, options}), 1)
            << "options '" << options << "': " << texts[i].substr(0, 40) << " | "
            << other.substr(0, 40);
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 300);
}

TEST(Containment, KnownValuesNullsAndErrors) {
  TestDatabase db;
  EXPECT_EQ(db.cell("SELECT simhash_containment('one two three', 'one two three four five')"),
            "1.0");
  EXPECT_EQ(db.cell("SELECT simhash_containment('one two three four', 'one two')"), "0.5");
  // tf {a:2, b:1} in {a:1, c:1}: 1 of 3.
  EXPECT_EQ(db.integer("SELECT simhash_containment('a a b', 'a c', 'weight=tf') = 1.0 / 3"), 1);
  EXPECT_EQ(db.cell("SELECT simhash_containment(NULL, 'words')"), std::nullopt);
  EXPECT_EQ(db.cell("SELECT simhash_containment('words', NULL)"), std::nullopt);
  // No features in A: NULL (nothing to contain); none in B: 0.
  EXPECT_EQ(db.cell("SELECT simhash_containment(' ,.;', 'words')"), std::nullopt);
  EXPECT_EQ(db.cell("SELECT simhash_containment('words', '')"), "0.0");
  EXPECT_EQ(db.error("SELECT simhash_containment('a', 'b', 3)"),
            "simhash_containment: options must be TEXT, got INTEGER");
  EXPECT_EQ(db.error("SELECT simhash_containment('a', 'b', 'colour=red')"),
            "simhash_containment: unknown option \"colour\" (known: unit, n, weight, symbols)");
  EXPECT_NE(db.error("SELECT simhash_containment('a')").find("wrong number of arguments"),
            std::string::npos);
}

TEST(SharedFeatures, RowsInTheFirstTextsOrderWithBothWeights) {
  TestDatabase db;
  EXPECT_EQ(
      db.rows("SELECT feature, weight_a, weight_b FROM simhash_shared_features("
              "'delta alpha alpha beta', 'beta alpha gamma delta delta delta', 'weight=tf')"),
      (std::vector<Row>{{"delta", "1.0", "3.0"}, {"alpha", "2.0", "1.0"}, {"beta", "1.0", "1.0"}}));
  // The hash is simhash_features' hash; the hidden columns give the arguments.
  EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_shared_features('x y', 'y z') AS s "
                       "JOIN simhash_features('x y') AS f USING (feature) "
                       "WHERE s.hash = f.hash AND s.a = 'x y' AND s.b = 'y z' "
                       "AND s.options IS NULL"),
            1);
  // The minima over A's weights are simhash_containment.
  EXPECT_EQ(db.integer("SELECT abs(sum(min(weight_a, weight_b)) / "
                       "(SELECT sum(weight) FROM simhash_features('the cat sat on the mat', 'n=2'))"
                       " - simhash_containment('the cat sat on the mat', 'a cat sat on a mat', "
                       "'n=2')) < 1e-12 FROM simhash_shared_features('the cat sat on the mat', "
                       "'a cat sat on a mat', 'n=2')"),
            1);
  EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_shared_features('alpha', 'beta')"), 0);
  EXPECT_EQ(db.integer("SELECT count(*) FROM simhash_shared_features(NULL, 'beta')"), 0);
  // As a join: one text against each row of a table.
  db.exec("CREATE TABLE docs(body TEXT); INSERT INTO docs VALUES ('x y z'), ('y'), ('w')");
  EXPECT_EQ(db.rows("SELECT docs.body, count(s.feature) FROM docs LEFT JOIN "
                    "simhash_shared_features('x y', docs.body) AS s GROUP BY docs.body "
                    "ORDER BY docs.body"),
            (std::vector<Row>{{"w", "0"}, {"x y z", "2"}, {"y", "1"}}));
}

TEST(SharedFeatures, ErrorsNameTheFunction) {
  TestDatabase db;
  EXPECT_EQ(db.error("SELECT * FROM simhash_shared_features('a')"),
            "simhash_shared_features: missing text argument: use simhash_shared_features(a, b) "
            "or simhash_shared_features(a, b, options)");
  EXPECT_EQ(db.error("SELECT * FROM simhash_shared_features('a', 'b', 3)"),
            "simhash_shared_features: options must be TEXT, got INTEGER");
  EXPECT_EQ(db.error("SELECT * FROM simhash_shared_features('a', 'b', 'colour=red')"),
            "simhash_shared_features: unknown option \"colour\" (known: unit, n, weight, symbols)");
  EXPECT_NE(
      db.error("SELECT * FROM simhash_shared_features('a', 'b', '', 4)").find("too many arguments"),
      std::string::npos);
  // simhash_features is unchanged by sharing the module.
  EXPECT_EQ(db.error("SELECT * FROM simhash_features()"),
            "simhash_features: missing text argument: use simhash_features(text) or "
            "simhash_features(text, options)");
}

TEST(FirstDifference, LinesNullsAndEqualTexts) {
  TestDatabase db;
  EXPECT_EQ(db.cell("SELECT simhash_first_difference('one' || char(10) || 'two', "
                    "'one' || char(10) || 'too')"),
            "line 2, column 2\n- two\n+ too");
  EXPECT_EQ(db.cell("SELECT simhash_first_difference('same', 'same')"), std::nullopt);
  EXPECT_EQ(db.cell("SELECT simhash_first_difference(NULL, 'x')"), std::nullopt);
  EXPECT_EQ(db.cell("SELECT simhash_first_difference('x', NULL)"), std::nullopt);
  EXPECT_EQ(db.cell("SELECT simhash_first_difference('', 'x')"),
            "line 1, column 1\n- (end of text)\n+ x");
  // Numbers as their text, BLOBs as their bytes (repaired: x'ff' is U+FFFD).
  EXPECT_EQ(db.cell("SELECT simhash_first_difference(12, '12')"), std::nullopt);
  EXPECT_EQ(db.cell("SELECT simhash_first_difference(x'61ff', 'a' || char(65533))"), std::nullopt);
  EXPECT_NE(db.error("SELECT simhash_first_difference('a')").find("wrong number of arguments"),
            std::string::npos);
  EXPECT_NE(
      db.error("SELECT simhash_first_difference('a', 'b', 'c')").find("wrong number of arguments"),
      std::string::npos);
}

TEST(Change, KindAndWordsOfWhatDeletingTheFirstTextLoses) {
  TestDatabase db;
  EXPECT_EQ(db.cell("SELECT simhash_change('same', 'same')"), "identical");
  EXPECT_EQ(db.cell("SELECT simhash_changed_words('same', 'same')"), "");
  EXPECT_EQ(db.cell("SELECT simhash_change('One  two.', 'one' || char(10) || 'two')"),
            "formatting");
  EXPECT_EQ(db.cell("SELECT simhash_change('Catalan language pack', 'Aragonese language pack')"),
            "substituted");
  EXPECT_EQ(
      db.cell("SELECT simhash_changed_words('Catalan language pack', 'Aragonese language pack')"),
      "-catalan +aragonese");
  EXPECT_EQ(db.cell("SELECT simhash_change('a < b', 'a > b') || ' ' || "
                    "simhash_changed_words('a < b', 'a > b')"),
            "symbols -< +>");
  EXPECT_EQ(db.cell("SELECT simhash_change('that partially maps', 'that maps')"), "dropped");
  EXPECT_EQ(db.cell("SELECT simhash_change('that maps', 'that partially maps')"), "added");
  // NULL for a NULL on either side; numbers as their text, BLOBs as their bytes.
  EXPECT_EQ(db.cell("SELECT simhash_change(NULL, 'x')"), std::nullopt);
  EXPECT_EQ(db.cell("SELECT simhash_changed_words('x', NULL)"), std::nullopt);
  EXPECT_EQ(db.cell("SELECT simhash_change(12, '12')"), "identical");
  EXPECT_EQ(db.cell("SELECT simhash_change(x'61ff', 'a' || char(65533))"), "formatting");
  EXPECT_NE(db.error("SELECT simhash_change('a')").find("wrong number of arguments"),
            std::string::npos);
  EXPECT_NE(
      db.error("SELECT simhash_changed_words('a', 'b', 'c')").find("wrong number of arguments"),
      std::string::npos);
}

}  // namespace
}  // namespace simhash::testing

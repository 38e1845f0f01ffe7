// SPDX-License-Identifier: MIT
// simhash_agg(feature [, weight]) through SQL, against a reference per-bit
// vote written here, with its edge cases and error messages.
#include <gtest/gtest.h>

#include <array>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "bound_query.h"
#include "fingerprint/feature_hash.h"
#include "test_database.h"

namespace simhash::testing {
namespace {

// Reference: Charikar's vote, bit i set where the weighted total is positive.
struct ReferenceVote {
  std::array<double, 64> totals{};
  bool any = false;

  void add(std::uint64_t hash, double weight) {
    any = true;
    for (int bit = 0; bit < 64; ++bit) {
      totals[bit] += ((hash >> bit) & 1U) != 0 ? weight : -weight;
    }
  }
  std::optional<std::int64_t> result() const {
    if (!any) {
      return std::nullopt;
    }
    std::uint64_t fingerprint = 0;
    for (int bit = 0; bit < 64; ++bit) {
      if (totals[bit] > 0) {
        fingerprint |= std::uint64_t{1} << bit;
      }
    }
    return static_cast<std::int64_t>(fingerprint);
  }
};

class SimhashAgg : public ::testing::Test {
 protected:
  void SetUp() override { db.exec("CREATE TABLE f(grp INTEGER, feature, weight)"); }
  void insert(std::int64_t group, const Parameter& feature, const Parameter& weight) {
    const auto result =
        run_bound(db.handle(), "INSERT INTO f VALUES (?, ?, ?)", {group, feature, weight});
    ASSERT_EQ(result.rc, SQLITE_OK) << result.error;
  }
  TestDatabase db;
};

TEST_F(SimhashAgg, MatchesTheReferenceVoteOnRandomGroups) {
  std::mt19937_64 random(424242);
  std::vector<ReferenceVote> references(20);
  for (int row = 0; row < 3000; ++row) {
    const auto group = static_cast<std::int64_t>(random() % references.size());
    // Weights: positive, negative, zero, fractional.
    const double weight = static_cast<double>(static_cast<int>(random() % 21) - 5) / 4.0;
    switch (random() % 3) {
      case 0: {
        const std::string text = "word" + std::to_string(random() % 500);
        insert(group, text, weight);
        references[group].add(feature_hash(text), weight);
        break;
      }
      case 1: {
        const auto value = static_cast<std::int64_t>(random());
        insert(group, value, weight);
        references[group].add(feature_hash(value), weight);
        break;
      }
      default: {
        const std::string bytes = {static_cast<char>(random()), '\0', static_cast<char>(random())};
        insert(group, Blob{bytes}, weight);
        references[group].add(feature_hash(std::string_view(bytes)), weight);
        break;
      }
    }
  }
  for (std::size_t group = 0; group < references.size(); ++group) {
    EXPECT_EQ(
        bound_integer(db.handle(),
                      "SELECT simhash_agg(feature, weight) FROM f WHERE grp = ? ORDER BY rowid",
                      {static_cast<std::int64_t>(group)}),
        references[group].result())
        << "group " << group;
  }
  // GROUP BY gives the same per-group values.
  const auto grouped = db.rows(
      "SELECT grp, simhash_agg(feature, weight) FROM (SELECT * FROM f ORDER BY rowid) "
      "GROUP BY grp ORDER BY grp");
  ASSERT_EQ(grouped.size(), references.size());
  for (std::size_t group = 0; group < references.size(); ++group) {
    const auto expected = references[group].result();
    EXPECT_EQ(grouped[group][1],
              expected ? std::optional(std::to_string(*expected)) : std::nullopt);
  }
}

TEST_F(SimhashAgg, DefaultWeightIsOne) {
  db.exec("INSERT INTO f VALUES (1, 'a', 1), (1, 'b', 1), (1, 'c', 1), (1, 42, 1)");
  EXPECT_EQ(db.integer("SELECT simhash_agg(feature) = simhash_agg(feature, 1) FROM f"), 1);
  ReferenceVote vote;
  for (const char* text : {"a", "b", "c"}) {
    vote.add(feature_hash(std::string_view(text)), 1);
  }
  vote.add(feature_hash(std::int64_t{42}), 1);
  EXPECT_EQ(db.integer("SELECT simhash_agg(feature) FROM f"), vote.result());
}

TEST_F(SimhashAgg, IntegerAndTextFeaturesHashDifferently) {
  EXPECT_EQ(bound_integer(db.handle(), "SELECT simhash_agg(42)", {}),
            static_cast<std::int64_t>(feature_hash(std::int64_t{42})));
  EXPECT_EQ(bound_integer(db.handle(), "SELECT simhash_agg('42')", {}),
            static_cast<std::int64_t>(feature_hash(std::string_view("42"))));
  EXPECT_EQ(db.integer("SELECT simhash_agg('42') != simhash_agg(42)"), 1);
  // A BLOB hashes over the same bytes as the TEXT with those bytes.
  EXPECT_EQ(db.integer("SELECT simhash_agg(CAST('abc' AS BLOB)) = simhash_agg('abc')"), 1);
  // A single feature of positive weight is its own hash.
  EXPECT_EQ(db.integer("SELECT simhash_agg('abc', 0.5) = simhash_agg('abc')"), 1);
}

TEST_F(SimhashAgg, NegativeWeightVotesTheOtherWay) {
  // One feature with a negative weight: every bit is the complement of its hash.
  EXPECT_EQ(db.integer("SELECT simhash_agg('abc', -2) = ~simhash_agg('abc')"), 1);
  // Opposite equal weights cancel to a tie everywhere: all bits 0.
  db.exec("INSERT INTO f VALUES (1, 'x', 3), (1, 'x', -3)");
  EXPECT_EQ(db.integer("SELECT simhash_agg(feature, weight) FROM f"), 0);
}

TEST_F(SimhashAgg, ZeroWeightAddsNothingButCounts) {
  db.exec("INSERT INTO f VALUES (1, 'a', 1), (1, 'b', 0), (2, 'a', 1), (3, 'z', 0)");
  EXPECT_EQ(db.integer("SELECT (SELECT simhash_agg(feature, weight) FROM f WHERE grp = 1) = "
                       "(SELECT simhash_agg(feature, weight) FROM f WHERE grp = 2)"),
            1);
  // Only zero weights: there were features, none voted, every bit is a tie.
  EXPECT_EQ(db.integer("SELECT simhash_agg(feature, weight) FROM f WHERE grp = 3"), 0);
}

TEST_F(SimhashAgg, NullFeaturesAreSkippedAndNothingGivesNull) {
  EXPECT_EQ(db.cell("SELECT simhash_agg(feature, weight) FROM f"), std::nullopt);
  EXPECT_EQ(db.cell("SELECT simhash_agg(feature) FROM f"), std::nullopt);
  db.exec(
      "INSERT INTO f VALUES (1, NULL, 1), (1, NULL, NULL), (1, NULL, 'x'), (2, 'a', 1), "
      "(2, NULL, 5)");
  EXPECT_EQ(db.cell("SELECT simhash_agg(feature, weight) FROM f WHERE grp = 1"), std::nullopt);
  EXPECT_EQ(db.integer("SELECT simhash_agg(feature, weight) FROM f WHERE grp = 2"),
            db.integer("SELECT simhash_agg('a')"));
  EXPECT_EQ(db.rows("SELECT grp, simhash_agg(feature, weight) IS NULL FROM f GROUP BY grp"),
            (std::vector<Row>{{"1", "1"}, {"2", "0"}}));
}

TEST_F(SimhashAgg, ErrorsNameTheBadValue) {
  EXPECT_EQ(db.error("SELECT simhash_agg(1.5)"),
            "simhash_agg: feature must be TEXT, BLOB or INTEGER, got REAL");
  EXPECT_EQ(db.error("SELECT simhash_agg('a', NULL)"),
            "simhash_agg: weight must be a number, got NULL");
  EXPECT_EQ(db.error("SELECT simhash_agg('a', '2')"),
            "simhash_agg: weight must be a number, got TEXT");
  EXPECT_EQ(db.error("SELECT simhash_agg('a', x'02')"),
            "simhash_agg: weight must be a number, got BLOB");
  EXPECT_EQ(db.error("SELECT simhash_agg('a', 1e999)"),
            "simhash_agg: weight must be a finite number, got Inf");
  EXPECT_EQ(db.error("SELECT simhash_agg('a', -1e999)"),
            "simhash_agg: weight must be a finite number, got -Inf");
  // An error in a later row fails the whole statement.
  db.exec("INSERT INTO f VALUES (1, 'a', 1), (1, 'b', 'heavy')");
  EXPECT_EQ(db.error("SELECT simhash_agg(feature, weight) FROM f"),
            "simhash_agg: weight must be a number, got TEXT");
}

TEST_F(SimhashAgg, WindowFramesEqualTheAggregateOverTheFrame) {
  std::mt19937_64 random(5);
  for (int row = 0; row < 300; ++row) {
    // Integer weights (exact totals), some NULL features, mixed feature types.
    Parameter feature = nullptr;
    if (row % 3 == 0) {
      feature = static_cast<std::int64_t>(random() % 50);
    } else if (row % 7 != 0) {
      std::string word(1, 'w');
      word += std::to_string(random() % 50);
      feature = word;
    }
    insert(row % 4, feature, static_cast<std::int64_t>(random() % 7) - 2);
  }
  const auto windowed = db.rows(
      "SELECT rowid, simhash_agg(feature, weight) OVER (PARTITION BY grp ORDER BY rowid "
      "ROWS BETWEEN 4 PRECEDING AND CURRENT ROW) FROM f ORDER BY rowid");
  const auto framed = db.rows(
      "SELECT rowid, (SELECT simhash_agg(g.feature, g.weight) FROM (SELECT * FROM f AS h "
      "WHERE h.grp = f.grp AND h.rowid <= f.rowid ORDER BY h.rowid DESC LIMIT 5) AS g) "
      "FROM f ORDER BY rowid");
  ASSERT_EQ(windowed.size(), 300U);
  EXPECT_EQ(windowed, framed);
  // A frame of only NULL features is NULL, as the aggregate is.
  EXPECT_EQ(db.cell("SELECT simhash_agg(x) OVER (ORDER BY x ROWS BETWEEN CURRENT ROW AND "
                    "CURRENT ROW) FROM (SELECT NULL AS x)"),
            std::nullopt);
}

TEST_F(SimhashAgg, IntegerWeightsAreExactAtAnySize) {
  // In doubles 2^53 + 1 rounds to 2^53, the votes cancel and the result
  // would be 0; summed exactly the total of every bit is +-1.
  EXPECT_EQ(db.integer("SELECT simhash_agg(f, w) FROM (SELECT column1 AS f, column2 AS w FROM "
                       "(VALUES ('a', 9007199254740993), "
                       "('a', -9007199254740992)))"),
            db.integer("SELECT simhash_agg('a')"));
  EXPECT_EQ(db.integer("SELECT simhash_agg(f, w) FROM (SELECT 'a' AS f, 9223372036854775807 AS w "
                       "UNION ALL SELECT 'a', -9223372036854775807 - 1 UNION ALL SELECT 'a', 2)"),
            db.integer("SELECT simhash_agg('a')"));
  // A window frame that a huge weight has left equals the aggregate over
  // the frame: the huge vote is taken back exactly.
  std::mt19937_64 random(6);
  const std::int64_t huge[] = {INT64_MAX, INT64_MIN, std::int64_t{1} << 62,
                               (std::int64_t{1} << 53) + 1, -(std::int64_t{1} << 53)};
  for (int row = 0; row < 200; ++row) {
    std::string word(1, 'w');
    word += std::to_string(random() % 20);
    const std::int64_t weight =
        random() % 3 == 0 ? huge[random() % 5] : static_cast<std::int64_t>(random() % 5) - 2;
    insert(0, word, weight);
  }
  const auto windowed = db.rows(
      "SELECT rowid, simhash_agg(feature, weight) OVER (ORDER BY rowid "
      "ROWS BETWEEN 3 PRECEDING AND CURRENT ROW) FROM f ORDER BY rowid");
  const auto framed = db.rows(
      "SELECT rowid, (SELECT simhash_agg(g.feature, g.weight) FROM (SELECT * FROM f AS h "
      "WHERE h.rowid <= f.rowid ORDER BY h.rowid DESC LIMIT 4) AS g) FROM f ORDER BY rowid");
  ASSERT_EQ(windowed.size(), 200U);
  EXPECT_EQ(windowed, framed);
}

}  // namespace
}  // namespace simhash::testing

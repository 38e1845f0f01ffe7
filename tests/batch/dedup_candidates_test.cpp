// SPDX-License-Identifier: MIT
// simhash_dedup's candidate policy (dedup_candidates.h): every case of the
// options (word or character shingles; binary, tf or log weights) and the
// radius (left out, NULL, bits) against the table in its header, and what
// EXPLAIN is told for each radius.
#include "batch/dedup_candidates.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace simhash {
namespace {

SimhashOptions options(TokenUnit unit, WeightScheme weight) {
  SimhashOptions parsed;
  parsed.unit = unit;
  parsed.n = 3;
  parsed.weight = weight;
  return parsed;
}

std::optional<DedupCandidates> choose(const SimhashOptions& verification, DedupRadius radius) {
  std::string error;
  std::optional<DedupCandidates> candidates = choose_dedup_candidates(verification, radius, error);
  EXPECT_EQ(candidates.has_value(), error.empty()) << error;
  return candidates;
}

constexpr DedupCandidates kJoin{DedupPath::kThresholdJoin, std::nullopt};

TEST(DedupCandidates, WordShinglesWithBinaryWeightsTakeTheJoin) {
  const SimhashOptions words = options(TokenUnit::word, WeightScheme::binary);
  EXPECT_EQ(choose(words, DedupRadius::left_out()), kJoin);
  EXPECT_EQ(choose(words, DedupRadius::null()), kJoin);
  // Given a radius, the join drops the pairs farther apart.
  for (const int bits : {0, 10, 64}) {
    EXPECT_EQ(choose(words, DedupRadius::of(bits)),
              (DedupCandidates{DedupPath::kThresholdJoin, bits}));
  }
}

TEST(DedupCandidates, CharacterShinglesTakeTheRadiusUnlessItIsNull) {
  const SimhashOptions characters = options(TokenUnit::character, WeightScheme::binary);
  EXPECT_EQ(choose(characters, DedupRadius::left_out()),
            (DedupCandidates{DedupPath::kWithinRadius, kDedupFallbackRadius}));
  EXPECT_EQ(kDedupFallbackRadius, 10);
  EXPECT_EQ(choose(characters, DedupRadius::null()), kJoin);
  for (const int bits : {0, 6, 64}) {
    EXPECT_EQ(choose(characters, DedupRadius::of(bits)),
              (DedupCandidates{DedupPath::kWithinRadius, bits}));
  }
}

TEST(DedupCandidates, WeightsTakeTheRadiusAndRefuseNull) {
  for (const TokenUnit unit : {TokenUnit::word, TokenUnit::character}) {
    for (const WeightScheme weight : {WeightScheme::tf, WeightScheme::log_tf}) {
      const SimhashOptions weighted = options(unit, weight);
      SCOPED_TRACE(to_string(weighted));
      EXPECT_EQ(choose(weighted, DedupRadius::left_out()),
                (DedupCandidates{DedupPath::kWithinRadius, kDedupFallbackRadius}));
      EXPECT_EQ(choose(weighted, DedupRadius::of(7)),
                (DedupCandidates{DedupPath::kWithinRadius, 7}));
      std::string error;
      EXPECT_FALSE(choose_dedup_candidates(weighted, DedupRadius::null(), error).has_value());
      EXPECT_EQ(error, std::string("radius NULL (every pair at the threshold) serves set Jaccard, "
                                   "weight=binary, with any unit and n; the options ask for ")
                           .append(to_string(weighted))
                           .append(": add weight=binary or give a radius"));
    }
  }
}

TEST(DedupCandidates, RefusesARadiusOutOfRange) {
  for (const std::int64_t bits : {std::int64_t{-1}, std::int64_t{65}}) {
    std::string error;
    EXPECT_FALSE(choose_dedup_candidates(options(TokenUnit::word, WeightScheme::binary),
                                         DedupRadius::of(bits), error)
                     .has_value());
    EXPECT_EQ(
        error,
        std::string("the radius must be from 0 to 64 bits, got ").append(std::to_string(bits)));
  }
}

TEST(DedupCandidates, DescribesEachPathForExplain) {
  const SimhashOptions words = options(TokenUnit::word, WeightScheme::binary);
  const SimhashOptions characters = options(TokenUnit::character, WeightScheme::binary);
  const auto described = [&](const SimhashOptions& verification, DedupRadius radius) {
    return describe_dedup_candidates(*choose(verification, radius),
                                     radius.given == DedupRadius::Given::kLeftOut);
  };
  EXPECT_EQ(described(words, DedupRadius::left_out()),
            "radius left out, for these options every pair at the threshold (a set-similarity "
            "join)");
  EXPECT_EQ(described(characters, DedupRadius::left_out()),
            "radius left out, for these options candidates within 10 bits (block-permutation "
            "tables)");
  EXPECT_EQ(described(characters, DedupRadius::null()),
            "every pair at the threshold (a set-similarity join)");
  EXPECT_EQ(described(words, DedupRadius::of(6)), "the set-similarity join's pairs within 6 bits");
  EXPECT_EQ(described(characters, DedupRadius::of(6)),
            "candidates within 6 bits (block-permutation tables)");
  EXPECT_EQ(describe_dedup_candidates_at_run_time(),
            "candidates by the radius and options given at run time (every pair at the threshold "
            "(a set-similarity join), or candidates within 10 bits (block-permutation tables))");
}

}  // namespace
}  // namespace simhash

// SPDX-License-Identifier: MIT
// SimilarPairs against brute force over every pair of rows: the verified
// pairs of one table and of new rows against kept ones, at thresholds from
// 0.3 to 1, over random rows with exact duplicates and over edited copies.
#include "batch/similar_pairs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <map>
#include <optional>
#include <stdexcept>
#include <vector>

#include "corpus.h"
#include "fingerprint/feature_extractor.h"
#include "parsed_options.h"
#include "random_feature_rows.h"
#include "sanitized_build.h"

namespace simhash {
namespace {

using testing::edited_binary_rows;
using testing::kSanitizedBuild;
using testing::random_rows;
using testing::Row;

SimilarPair pair_of(const Row& a, const Row& b, double similarity) {
  return SimilarPair{a.id, b.id, std::popcount(a.fp ^ b.fp), similarity};
}

std::vector<SimilarPair> sorted(std::vector<SimilarPair> pairs) {
  std::sort(pairs.begin(), pairs.end(), [](const SimilarPair& x, const SimilarPair& y) {
    return x.a != y.a ? x.a < y.a : x.b < y.b;
  });
  return pairs;
}

TEST(SimilarPairs, OneTableEqualsBruteForce) {
  // Two seeds under the sanitizers (this test was 40 s of the ASan+UBSan
  // stage): each is an exact comparison with brute force; the Release and
  // clang++ builds try all six.
  const std::uint64_t seeds = kSanitizedBuild ? 2 : 6;
  for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
    for (const bool edited : {false, true}) {
      const std::vector<Row> rows =
          edited ? edited_binary_rows(300, seed) : random_rows(250, seed, false);
      SimilarPairs finder;
      for (const Row& row : rows) {
        finder.add(row.id, row.fp, row.features);
      }
      for (const double threshold : {0.3, 0.5, 0.75, 0.8, 0.9, 1.0}) {
        std::vector<SimilarPair> expected;
        for (std::size_t i = 0; i < rows.size(); ++i) {
          for (std::size_t j = i + 1; j < rows.size(); ++j) {
            const double similarity = weighted_jaccard(rows[i].features, rows[j].features);
            if (similarity >= threshold) {
              expected.push_back(rows[i].id < rows[j].id ? pair_of(rows[i], rows[j], similarity)
                                                         : pair_of(rows[j], rows[i], similarity));
            }
          }
        }
        DedupCounts counts;
        EXPECT_EQ(finder.pairs(threshold, {}, &counts), sorted(expected))
            << "seed " << seed << " edited " << edited << " threshold " << threshold;
        EXPECT_LE(counts.verified, counts.checked);
        // On threads: the same pairs, the same work.
        for (const unsigned threads : {2U, 3U, 8U}) {
          DedupCounts threaded;
          EXPECT_EQ(finder.pairs(threshold, {}, &threaded, threads), sorted(expected))
              << "seed " << seed << " edited " << edited << " threshold " << threshold
              << " threads " << threads;
          EXPECT_EQ(threaded, counts) << "threads " << threads;
        }
        if (threshold == 0.8) {
          EXPECT_GT(expected.size(), 100U) << "the data makes pairs";
        }
      }
    }
  }
}

TEST(SimilarPairs, NewRowsAgainstKeptOnesEqualBruteForce) {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const std::vector<Row> rows = edited_binary_rows(400, seed);
    // The first 250 kept, the rest new (ids are distinct across the two).
    SimilarPairs finder;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (i < 250) {
        finder.add(rows[i].id, rows[i].fp, rows[i].features);
      } else {
        finder.add_new(rows[i].id, rows[i].fp, rows[i].features);
      }
    }
    for (const double threshold : {0.5, 0.8, 0.95}) {
      std::vector<SimilarPair> expected;
      for (std::size_t fresh = 250; fresh < rows.size(); ++fresh) {
        for (std::size_t kept = 0; kept < 250; ++kept) {
          const double similarity = weighted_jaccard(rows[fresh].features, rows[kept].features);
          if (similarity >= threshold) {
            expected.push_back(pair_of(rows[fresh], rows[kept], similarity));
          }
        }
      }
      DedupCounts counts;
      EXPECT_EQ(finder.pairs_between(threshold, {}, &counts), sorted(expected))
          << "seed " << seed << " threshold " << threshold;
      for (const unsigned threads : {2U, 3U, 8U}) {
        DedupCounts threaded;
        EXPECT_EQ(finder.pairs_between(threshold, {}, &threaded, threads), sorted(expected))
            << "seed " << seed << " threshold " << threshold << " threads " << threads;
        EXPECT_EQ(threaded, counts) << "threads " << threads;
      }
      if (threshold == 0.8) {
        EXPECT_GT(expected.size(), 50U);
      }
    }
  }
}

// The tightest case of the prefix filter: y inside x with |y| = t |x|, x's
// other features the rarest and y's shared with many rows, so x's prefix
// reaches y's features only with its last place (a prefix one shorter
// misses the pair).
TEST(SimilarPairs, FindsASubsetAtTheSmallestSizeTheThresholdAllows) {
  std::map<std::uint64_t, double> common;
  for (std::uint64_t feature = 1; feature <= 8; ++feature) {
    common[feature * 0x9E3779B97F4A7C15ULL] = 1;
  }
  std::map<std::uint64_t, double> larger = common;
  // Spread over the slots (the top bits of a hash rank a feature).
  const auto spread = [](std::uint64_t value) { return (value + 1000) * 0xD6E8FEB86659FD93ULL; };
  larger[spread(1)] = 1;
  larger[spread(2)] = 1;
  SimilarPairs finder;
  finder.add(1, 0, testing::vector_of(larger));
  finder.add(2, 0, testing::vector_of(common));
  for (std::int64_t other = 3; other < 40; ++other) {  // make the common features frequent
    std::map<std::uint64_t, double> crowd = common;
    for (std::uint64_t unique = 0; unique < 12; ++unique) {
      crowd[spread(static_cast<std::uint64_t>(other) * 100 + unique)] = 1;
    }
    finder.add(other, 0, testing::vector_of(crowd));
  }
  const std::vector<SimilarPair> pairs = finder.pairs(0.8);
  ASSERT_EQ(pairs.size(), 1U);
  EXPECT_EQ(pairs[0], (SimilarPair{1, 2, 0, 0.8}));
}

// Real texts: the openings of the copyright files and licences every Debian
// machine has (many share a licence, with edits), under word and character
// shingles, against every pair compared.
TEST(SimilarPairs, RealTextsEqualBruteForce) {
  const std::vector<bench::Document> documents = bench::load_english_corpus();
  ASSERT_GT(documents.size(), 100U);
  for (const char* options : {"n=3 weight=binary", "unit=char n=5 weight=binary"}) {
    FeatureExtractor fingerprints(options_of(""));
    FeatureExtractor extractor(options_of(options));
    std::vector<Row> rows;
    for (std::size_t i = 0; i < documents.size() && rows.size() < 110; ++i) {
      // The opening of each (a cut may split a character: it reads as U+FFFD).
      const std::string text = documents[i].text.substr(0, 3000);
      FeatureVector features;
      extractor.feature_vector(text, features);
      const std::optional<std::uint64_t> fp = fingerprints.fingerprint(text);
      if (fp && !features.empty()) {
        rows.push_back(Row{static_cast<std::int64_t>(i), *fp, features});
      }
    }
    SimilarPairs finder;
    for (const Row& row : rows) {
      finder.add(row.id, row.fp, row.features);
    }
    for (const double threshold : {0.5, 0.8, 0.95}) {
      std::vector<SimilarPair> expected;
      for (std::size_t i = 0; i < rows.size(); ++i) {
        for (std::size_t j = i + 1; j < rows.size(); ++j) {
          const double similarity = weighted_jaccard(rows[i].features, rows[j].features);
          if (similarity >= threshold) {
            expected.push_back(pair_of(rows[i], rows[j], similarity));
          }
        }
      }
      EXPECT_EQ(finder.pairs(threshold), sorted(expected)) << options << " " << threshold;
      if (threshold == 0.8) {
        EXPECT_GE(expected.size(), 3U) << "licences make pairs";
      }
    }
  }
}

TEST(SimilarPairs, RefusesWeights) {
  SimilarPairs finder;
  finder.add(1, 0, testing::vector_of({{1, 1}, {2, 2}}));
  EXPECT_THROW(finder.pairs(0.8), std::invalid_argument);
  EXPECT_THROW(finder.pairs_between(0.8), std::invalid_argument);
}

}  // namespace
}  // namespace simhash

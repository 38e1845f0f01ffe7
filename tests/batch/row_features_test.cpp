// SPDX-License-Identifier: MIT
// RowFeatureBuilder on 1 to 4 threads gives, text by text, what one pair of
// extractors gives alone: fingerprints and feature vectors identical, texts
// without features or without a fingerprint (but with character features)
// included; and a body that throws reaches the caller.
#include "batch/row_features.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "parsed_options.h"
#include "util/parallel_for.h"

namespace simhash {
namespace {

std::vector<std::string> mixed_texts(std::size_t count) {
  const std::vector<std::string> words = {"the",  "cat",  "sat", "on",  "mat", "über",
                                          "東京", "自然", "!!!", ":-)", "x1",  "Straße"};
  std::mt19937_64 random(20261125);
  std::vector<std::string> texts;
  for (std::size_t i = 0; i < count; ++i) {
    std::string text;
    for (std::size_t length = random() % 40; length > 0; --length) {
      text += words[random() % words.size()];
      text += random() % 5 == 0 ? "\n" : " ";
    }
    texts.push_back(text);  // some empty, some punctuation only
  }
  return texts;
}

TEST(RowFeatureBuilder, EveryThreadCountGivesWhatOneExtractorGives) {
  const std::vector<std::string> texts = mixed_texts(700);
  const std::vector<std::string_view> views(texts.begin(), texts.end());
  for (const char* verification : {"n=3 weight=binary", "unit=char n=4 weight=binary", "n=2"}) {
    FeatureExtractor fingerprints(options_of(""));
    FeatureExtractor features(options_of(verification));
    std::vector<RowFeatures> expected(texts.size());
    int without_fingerprint = 0;
    int features_without_fingerprint = 0;
    for (std::size_t i = 0; i < texts.size(); ++i) {
      expected[i].fingerprint = fingerprints.fingerprint(texts[i]);
      // Features whether or not the text has a fingerprint: "!!!" has
      // character features but no word.
      features.feature_vector(texts[i], expected[i].features);
      without_fingerprint += expected[i].fingerprint ? 0 : 1;
      features_without_fingerprint +=
          !expected[i].fingerprint && !expected[i].features.empty() ? 1 : 0;
    }
    EXPECT_GT(without_fingerprint, 5);
    if (std::string(verification).starts_with("unit=char")) {
      EXPECT_GT(features_without_fingerprint, 2) << "punctuation-only texts";
    }
    for (const unsigned threads : {1U, 2U, 3U, 4U}) {
      RowFeatureBuilder builder(options_of(""), options_of(verification), threads);
      std::vector<RowFeatures> rows;
      // Twice, in uneven batches: buffers reused between batches stay right.
      for (int pass = 0; pass < 2; ++pass) {
        for (std::size_t begin = 0; begin < views.size(); begin += 97) {
          const std::size_t end = std::min(views.size(), begin + 97);
          builder.build(std::span(views).subspan(begin, end - begin), rows);
          ASSERT_EQ(rows.size(), end - begin);
          // The first pass lays the features out in one block (as
          // simhash_dedup does); the second does not, and its rows point
          // into no block of the first.
          FeatureBlock block;
          if (pass == 0) {
            block = builder.lay_out(rows);
          }
          bool weighted = false;
          for (std::size_t i = begin; i < end; ++i) {
            const RowFeatures& row = rows[i - begin];
            ASSERT_EQ(row.fingerprint, expected[i].fingerprint) << verification << " " << i;
            weighted = weighted || (!row.features.empty() && !row.key.binary);
            const FeatureView view = row.view();
            EXPECT_EQ(row.laid_out.hashes.empty(), pass == 1 || row.features.empty());
            ASSERT_TRUE(std::equal(view.hashes.begin(), view.hashes.end(),
                                   expected[i].features.hashes.begin(),
                                   expected[i].features.hashes.end()))
                << verification << " " << i;
            for (std::size_t j = 0; j < view.hashes.size(); ++j) {
              EXPECT_EQ(view.weight(j), expected[i].features.weights[j]);
            }
            EXPECT_EQ(view.sum_of_weights, expected[i].features.sum_of_weights);
            EXPECT_EQ(row.features.hashes, expected[i].features.hashes);
            EXPECT_EQ(row.features.weights, expected[i].features.weights);
            EXPECT_EQ(row.features.sum_of_weights, expected[i].features.sum_of_weights);
            if (!row.features.empty()) {
              // The key simhash_dedup adds the row by (built on the threads).
              const RowKey key =
                  FeatureRows::key_of(expected[i].fingerprint.value_or(0), expected[i].features);
              EXPECT_EQ(row.key.hash, key.hash) << verification << " " << i;
              EXPECT_EQ(row.key.binary, key.binary) << verification << " " << i;
            }
          }
          if (pass == 0) {
            // Weights laid out only where some row has one other than 1.
            EXPECT_EQ(block.weights != nullptr, weighted) << verification;
          }
        }
      }
    }
  }
}

TEST(ParallelFor, CoversEveryIndexOnceAndRethrowsTheFirstError) {
  for (const unsigned threads : {1U, 2U, 5U}) {
    std::vector<int> seen(1000, 0);
    parallel_for(seen.size(), 7, threads, [&](unsigned worker, std::size_t begin, std::size_t end) {
      EXPECT_LT(worker, threads);
      for (std::size_t i = begin; i < end; ++i) {
        ++seen[i];
      }
    });
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 1000);
    EXPECT_THROW(parallel_for(100, 3, threads,
                              [](unsigned, std::size_t begin, std::size_t) {
                                if (begin >= 30) throw std::runtime_error("stop");
                              }),
                 std::runtime_error);
  }
  parallel_for(0, 4, 2, [](unsigned, std::size_t, std::size_t) { FAIL() << "no work"; });
}

}  // namespace
}  // namespace simhash

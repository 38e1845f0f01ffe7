// SPDX-License-Identifier: MIT
// The features two texts share: A's order, both weights, and the sums that
// make simhash_containment.
#include "fingerprint/shared_features.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "fingerprint/feature_extractor.h"
#include "fingerprint/feature_similarity.h"
#include "parsed_options.h"

namespace simhash {
namespace {

std::vector<std::string> texts_of(const std::vector<SharedFeature>& shared) {
  std::vector<std::string> texts;
  for (const SharedFeature& feature : shared) {
    texts.push_back(feature.text);
  }
  return texts;
}

TEST(SharedFeatures, ListsTheCommonFeaturesInTheFirstTextsOrder) {
  FeatureExtractor extractor(options_of("weight=tf"));
  const auto a = extractor.features("delta alpha alpha beta");
  const auto b = extractor.features("beta alpha gamma delta delta delta");
  const std::vector<SharedFeature> shared = shared_features(a, b);
  EXPECT_EQ(texts_of(shared), (std::vector<std::string>{"delta", "alpha", "beta"}));
  ASSERT_EQ(shared.size(), 3U);
  EXPECT_EQ(shared[0].weight_a, 1.0);
  EXPECT_EQ(shared[0].weight_b, 3.0);
  EXPECT_EQ(shared[1].weight_a, 2.0);
  EXPECT_EQ(shared[1].weight_b, 1.0);
  EXPECT_EQ(shared[0].hash, a[0].hash);
  // Nothing shared, and empty sides.
  EXPECT_TRUE(shared_features(a, extractor.features("omega")).empty());
  EXPECT_TRUE(shared_features(a, {}).empty());
  EXPECT_TRUE(shared_features({}, b).empty());
}

TEST(SharedFeatures, MinimaOverTheFirstTextsWeightsAreItsContainment) {
  for (const char* options : {"", "weight=log", "n=3 weight=binary", "unit=char n=4"}) {
    FeatureExtractor extractor(options_of(options));
    const std::string a = "the cat sat on the mat and the cat ran off the mat";
    const std::string b = "a cat sat on a mat and then the dog ran";
    double minima = 0;
    for (const SharedFeature& feature :
         shared_features(extractor.features(a), extractor.features(b))) {
      minima += std::min(feature.weight_a, feature.weight_b);
    }
    FeatureVector vector_a;
    FeatureVector vector_b;
    extractor.feature_vector(a, vector_a);
    extractor.feature_vector(b, vector_b);
    EXPECT_NEAR(minima / vector_a.sum_of_weights, containment(vector_a, vector_b), 1e-12)
        << options;
  }
}

}  // namespace
}  // namespace simhash

// SPDX-License-Identifier: MIT
// Exact similarity of two texts: hand-derived answers, agreement with a model
// that works on feature texts (not hashes) for every weight scheme and unit,
// and exact 1 for equal texts; containment the same way.
#include "fingerprint/feature_similarity.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "fingerprint/feature_extractor.h"
#include "fingerprint/feature_vector_cache.h"
#include "parsed_options.h"

namespace simhash {
namespace {

// The model: features by their text, as features() lists them.
std::map<std::string, double> weights_by_text(FeatureExtractor& extractor, std::string_view text) {
  std::map<std::string, double> weights;
  for (const Feature& feature : extractor.features(text)) {
    weights[feature.text] = feature.weight;
  }
  return weights;
}

double model_cosine(const std::map<std::string, double>& a,
                    const std::map<std::string, double>& b) {
  long double dot = 0;
  long double norm_a = 0;
  long double norm_b = 0;
  for (const auto& [text, weight] : a) {
    norm_a += static_cast<long double>(weight) * weight;
    if (auto found = b.find(text); found != b.end()) {
      dot += static_cast<long double>(weight) * found->second;
    }
  }
  for (const auto& [text, weight] : b) {
    norm_b += static_cast<long double>(weight) * weight;
  }
  return static_cast<double>(dot / std::sqrt(norm_a * norm_b));
}

double model_jaccard(const std::map<std::string, double>& a,
                     const std::map<std::string, double>& b) {
  std::map<std::string, std::pair<double, double>> both;
  for (const auto& [text, weight] : a) both[text].first = weight;
  for (const auto& [text, weight] : b) both[text].second = weight;
  long double minima = 0;
  long double maxima = 0;
  for (const auto& [text, weights] : both) {
    minima += std::min(weights.first, weights.second);
    maxima += std::max(weights.first, weights.second);
  }
  return static_cast<double>(minima / maxima);
}

// How much of A is in B, by the texts: shared minima over A's weights.
double model_containment(const std::map<std::string, double>& a,
                         const std::map<std::string, double>& b) {
  long double minima = 0;
  long double total = 0;
  for (const auto& [text, weight] : a) {
    total += weight;
    if (auto found = b.find(text); found != b.end()) {
      minima += std::min(weight, found->second);
    }
  }
  return static_cast<double>(minima / total);
}

struct Similarities {
  double cosine;
  double jaccard;
};

Similarities similarities(std::string_view options, std::string_view a, std::string_view b) {
  FeatureExtractor extractor(options_of(options));
  FeatureVector vector_a;
  FeatureVector vector_b;
  extractor.feature_vector(a, vector_a);
  extractor.feature_vector(b, vector_b);
  return {cosine_similarity(vector_a, vector_b), weighted_jaccard(vector_a, vector_b)};
}

TEST(FeatureSimilarity, HandDerivedAnswers) {
  // tf: {a:2, b:1} and {a:1, c:1}: dot 2, norms 5 and 2; minima 1, maxima 4.
  Similarities tf = similarities("weight=tf", "a a b", "a c");
  EXPECT_DOUBLE_EQ(tf.cosine, 2 / std::sqrt(10.0));
  EXPECT_DOUBLE_EQ(tf.jaccard, 0.25);
  // binary: {a, b} and {a, c}: cosine 1/2, Jaccard 1/3.
  Similarities binary = similarities("weight=binary", "a a b", "a c");
  EXPECT_DOUBLE_EQ(binary.cosine, 0.5);
  EXPECT_DOUBLE_EQ(binary.jaccard, 1.0 / 3);
  // Word 3-shingles: "a b c", "b c d" against "a b c", "b c e": 1 of 3.
  Similarities shingles = similarities("n=3 weight=binary", "a b c d", "a b c e");
  EXPECT_DOUBLE_EQ(shingles.jaccard, 1.0 / 3);
  // Nothing in common.
  Similarities disjoint = similarities("", "alpha beta", "gamma delta");
  EXPECT_EQ(disjoint.cosine, 0.0);
  EXPECT_EQ(disjoint.jaccard, 0.0);
  // Case folding and normalization make these the same features.
  Similarities folded = similarities("", "Hello World", "hello world");
  EXPECT_EQ(folded.cosine, 1.0);
  EXPECT_EQ(folded.jaccard, 1.0);
}

TEST(FeatureSimilarity, FeatureVectorListsTheFeaturesByHash) {
  FeatureExtractor extractor(options_of("weight=tf"));
  FeatureVector vector;
  extractor.feature_vector("b a b c", vector);
  const std::vector<Feature> features = extractor.features("b a b c");
  ASSERT_EQ(vector.hashes.size(), features.size());
  EXPECT_TRUE(std::is_sorted(vector.hashes.begin(), vector.hashes.end()));
  for (const Feature& feature : features) {
    const auto at = std::lower_bound(vector.hashes.begin(), vector.hashes.end(), feature.hash);
    ASSERT_NE(at, vector.hashes.end());
    EXPECT_EQ(vector.weights[static_cast<std::size_t>(at - vector.hashes.begin())], feature.weight);
  }
  EXPECT_EQ(vector.sum_of_weights, 4.0);
  EXPECT_EQ(vector.sum_of_squares, 6.0);
  // The buffers are reused: a second text replaces the first entirely.
  extractor.feature_vector("", vector);
  EXPECT_TRUE(vector.empty());
  EXPECT_EQ(vector.sum_of_weights, 0.0);
}

std::string random_text(std::mt19937_64& random, const std::vector<std::string>& vocabulary,
                        std::size_t words) {
  std::string text;
  for (std::size_t i = 0; i < words; ++i) {
    if (i > 0) text += ' ';
    text += vocabulary[random() % vocabulary.size()];
  }
  return text;
}

// Edits a copy of `text`'s words: replaces each with probability `rate`.
std::string edited(std::mt19937_64& random, const std::string& text,
                   const std::vector<std::string>& vocabulary, double rate) {
  std::string result;
  std::size_t start = 0;
  std::uniform_real_distribution<double> coin(0, 1);
  while (start <= text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    if (!result.empty()) result += ' ';
    result += coin(random) < rate ? vocabulary[random() % vocabulary.size()]
                                  : text.substr(start, end - start);
    start = end + 1;
  }
  return result;
}

TEST(FeatureSimilarity, AgreesWithTheModelOnRandomPairs) {
  std::mt19937_64 random(20261123);
  const std::vector<std::string> vocabulary = {"the", "cat",  "sat",    "on",   "mat", "dog",
                                               "ran", "über", "straße", "東京", "x1",  "Ωmega"};
  for (const char* options : {"", "weight=log", "weight=binary", "n=3 weight=binary", "n=2",
                              "unit=char n=3", "unit=char n=5 weight=log"}) {
    FeatureExtractor extractor(options_of(options));
    FeatureVector vector_a;
    FeatureVector vector_b;
    for (int round = 0; round < 60; ++round) {
      const std::string a = random_text(random, vocabulary, 1 + random() % 80);
      const std::string b = round % 3 == 0 ? random_text(random, vocabulary, 1 + random() % 80)
                                           : edited(random, a, vocabulary, 0.05 * (round % 7));
      extractor.feature_vector(a, vector_a);
      extractor.feature_vector(b, vector_b);
      const auto model_a = weights_by_text(extractor, a);
      const auto model_b = weights_by_text(extractor, b);
      if (model_a.empty() || model_b.empty()) {
        EXPECT_EQ(vector_a.empty(), model_a.empty());
        EXPECT_EQ(vector_b.empty(), model_b.empty());
        continue;
      }
      EXPECT_NEAR(cosine_similarity(vector_a, vector_b), model_cosine(model_a, model_b), 1e-12)
          << options << " | " << a << " | " << b;
      EXPECT_NEAR(weighted_jaccard(vector_a, vector_b), model_jaccard(model_a, model_b), 1e-12)
          << options << " | " << a << " | " << b;
      // Symmetric, and a text is exactly similar to itself.
      EXPECT_EQ(cosine_similarity(vector_a, vector_b), cosine_similarity(vector_b, vector_a));
      EXPECT_EQ(weighted_jaccard(vector_a, vector_b), weighted_jaccard(vector_b, vector_a));
      EXPECT_EQ(cosine_similarity(vector_a, vector_a), 1.0) << options << " | " << a;
      EXPECT_EQ(weighted_jaccard(vector_a, vector_a), 1.0) << options << " | " << a;
    }
  }
}

// Containment against brute force over the feature texts: random texts and
// edits of them, every weight scheme and unit; 1 for a text in itself and in
// any text that holds it, 0 against a text without features.
TEST(FeatureSimilarity, ContainmentAgreesWithTheModelOnRandomPairs) {
  std::mt19937_64 random(20261125);
  const std::vector<std::string> vocabulary = {"the", "cat",  "sat",    "on",   "mat", "dog",
                                               "ran", "über", "straße", "東京", "x1",  "Ωmega"};
  for (const char* options : {"", "weight=log", "weight=binary", "n=3 weight=binary", "n=2",
                              "unit=char n=3", "unit=char n=5 weight=log"}) {
    FeatureExtractor extractor(options_of(options));
    FeatureVector vector_a;
    FeatureVector vector_b;
    for (int round = 0; round < 60; ++round) {
      const std::string a = random_text(random, vocabulary, 1 + random() % 80);
      const std::string b = round % 3 == 0   ? random_text(random, vocabulary, 1 + random() % 80)
                            : round % 3 == 1 ? a + " " + random_text(random, vocabulary, 5)
                                             : edited(random, a, vocabulary, 0.05 * (round % 7));
      extractor.feature_vector(a, vector_a);
      extractor.feature_vector(b, vector_b);
      const auto model_a = weights_by_text(extractor, a);
      const auto model_b = weights_by_text(extractor, b);
      if (model_a.empty()) {
        continue;
      }
      EXPECT_NEAR(containment(vector_a, vector_b), model_containment(model_a, model_b), 1e-12)
          << options << " | " << a << " | " << b;
      EXPECT_EQ(containment(vector_a, vector_a), 1.0) << options << " | " << a;
    }
    extractor.feature_vector("a b c", vector_a);
    extractor.feature_vector("", vector_b);
    if (!vector_a.empty()) {
      EXPECT_EQ(containment(vector_a, vector_b), 0.0) << options;
    }
  }
  // By hand: tf {a:2, b:1} in {a:1, c:1}: min 1 of 3; the other way 1 of 2.
  FeatureExtractor tf(options_of("weight=tf"));
  FeatureVector x;
  FeatureVector y;
  tf.feature_vector("a a b", x);
  tf.feature_vector("a c", y);
  EXPECT_DOUBLE_EQ(containment(x, y), 1.0 / 3);
  EXPECT_DOUBLE_EQ(containment(y, x), 0.5);
  // Words appended to B do not lower A's containment in it.
  tf.feature_vector("one two three", x);
  tf.feature_vector("one two three four five", y);
  EXPECT_EQ(containment(x, y), 1.0);
}

// A binary vector of the given hashes (ascending, distinct).
FeatureVector binary_vector(std::vector<std::uint64_t> hashes) {
  FeatureVector vector;
  vector.hashes = std::move(hashes);
  vector.weights.assign(vector.hashes.size(), 1.0);
  vector.sum_of_weights = static_cast<double>(vector.hashes.size());
  vector.sum_of_squares = vector.sum_of_weights;
  return vector;
}

// The early-stopping merge gives weighted_jaccard's number exactly when it is
// at the threshold, and nothing otherwise: over random sets of every overlap
// and thresholds that include each pair's own Jaccard (the boundary, where a
// bound taken too high would drop the pair) and its neighbours.
TEST(FeatureSimilarity, SetJaccardIfAtLeastEqualsWeightedJaccardAtTheThreshold) {
  std::mt19937_64 random(20261125);
  int at_boundary = 0;
  for (int round = 0; round < 4000; ++round) {
    const std::size_t universe = 2 + random() % 120;
    std::vector<std::uint64_t> a;
    std::vector<std::uint64_t> b;
    const int density_a = 1 + static_cast<int>(random() % 10);
    const int density_b = 1 + static_cast<int>(random() % 10);
    for (std::uint64_t hash = 0; hash < universe; ++hash) {
      const std::uint64_t spread = hash * 0x9E3779B97F4A7C15ULL;  // not consecutive
      if (static_cast<int>(random() % 10) < density_a) a.push_back(spread);
      if (static_cast<int>(random() % 10) < density_b) b.push_back(spread);
    }
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    if (a.empty() || b.empty()) {
      continue;
    }
    const FeatureVector vector_a = binary_vector(a);
    const FeatureVector vector_b = binary_vector(b);
    const double exact = weighted_jaccard(vector_a, vector_b);
    for (const double threshold : {exact, std::nextafter(exact, 0.0), std::nextafter(exact, 2.0),
                                   0.5, 0.8, 0.95, 1.0, 0.0}) {
      const std::optional<double> found = set_jaccard_if_at_least(vector_a, vector_b, threshold);
      if (exact >= threshold) {
        ASSERT_TRUE(found.has_value()) << a.size() << " " << b.size() << " " << threshold;
        EXPECT_EQ(*found, exact);
        at_boundary += threshold == exact ? 1 : 0;
      } else {
        EXPECT_FALSE(found.has_value()) << exact << " < " << threshold;
      }
    }
  }
  EXPECT_GT(at_boundary, 3000);
}

TEST(FeatureVectorCache, ServesEachTextItsOwnVectorWithinTheBudget) {
  FeatureExtractor unigrams(options_of(""));
  FeatureExtractor bigrams(options_of("n=2"));
  FeatureVectorCache cache(16 * 1024);
  const auto expected = [](FeatureExtractor& extractor, std::string_view text) {
    FeatureVector vector;
    extractor.feature_vector(text, vector);
    return vector.hashes;
  };
  std::mt19937_64 random(7);
  const std::vector<std::string> vocabulary = {"a", "b", "c", "d", "e", "f", "g"};
  std::vector<std::string> texts;
  for (int i = 0; i < 40; ++i) {
    texts.push_back(random_text(random, vocabulary, 5 + random() % 200));
  }
  const auto held = cache.vector_of(unigrams, "", texts[0]);
  const std::vector<std::uint64_t> held_hashes = held->hashes;
  for (int round = 0; round < 2000; ++round) {
    const std::string& text = texts[random() % texts.size()];
    const bool use_bigrams = random() % 2 == 0;
    FeatureExtractor& extractor = use_bigrams ? bigrams : unigrams;
    const auto vector = cache.vector_of(extractor, use_bigrams ? "n=2" : "", text);
    ASSERT_EQ(vector->hashes, expected(extractor, text)) << round;
    ASSERT_LE(cache.bytes(), 16U * 1024);
  }
  EXPECT_GT(cache.entries(), 1U);
  EXPECT_LT(cache.entries(), 2 * texts.size());  // some were evicted
  // A vector handed out stays valid after its entry is evicted.
  EXPECT_EQ(held->hashes, held_hashes);
  // A text too large for the budget is computed but not kept.
  FeatureVectorCache small(1024);
  const std::string large = random_text(random, vocabulary, 2000);
  EXPECT_EQ(small.vector_of(unigrams, "", large)->hashes, expected(unigrams, large));
  EXPECT_EQ(small.entries(), 0U);
}

}  // namespace
}  // namespace simhash

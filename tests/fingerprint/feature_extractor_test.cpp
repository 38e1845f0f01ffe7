// SPDX-License-Identifier: MIT
// Features and fingerprints: shingling edge cases, weights, hand-derived known
// answers, agreement with a brute-force reference, robustness.
#include "fingerprint/feature_extractor.h"

#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "fast_path_switch.h"
#include "fingerprint/feature_hash.h"
#include "fingerprint/fingerprint_accumulator.h"
#include "parsed_options.h"
#include "random_symbol_texts.h"
#include "text/text_normalizer.h"
#include "text/word_tokenizer.h"

namespace simhash {
namespace {

struct Expected {
  std::string text;
  double weight;
};

void expect_features(std::string_view options, std::string_view input,
                     const std::vector<Expected>& expected) {
  FeatureExtractor extractor(options_of(options));
  const std::vector<Feature> features = extractor.features(input);
  ASSERT_EQ(features.size(), expected.size()) << options << " | " << input;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(features[i].text, expected[i].text) << i;
    EXPECT_DOUBLE_EQ(features[i].weight, expected[i].weight) << expected[i].text;
    EXPECT_EQ(features[i].hash, feature_hash(expected[i].text)) << expected[i].text;
  }
}

std::optional<std::uint64_t> accumulate(const std::vector<Feature>& features) {
  if (features.empty()) return std::nullopt;
  FingerprintAccumulator accumulator;
  for (const auto& feature : features) accumulator.add(feature.hash, feature.weight);
  return accumulator.fingerprint();
}

TEST(FeatureExtractor, WordShinglesJoinTokensWithOneSpace) {
  expect_features("n=3", "The quick, brown fox!", {{"the quick brown", 1}, {"quick brown fox", 1}});
  expect_features("n=1", "The quick, brown fox!",
                  {{"the", 1}, {"quick", 1}, {"brown", 1}, {"fox", 1}});
}

TEST(FeatureExtractor, FewerTokensThanNIsOneFeature) {
  expect_features("n=3", "a b", {{"a b", 1}});
  expect_features("n=16", "One.", {{"one", 1}});
  expect_features("n=3", "a b c", {{"a b c", 1}});  // exactly n: one shingle
  expect_features("n=3", "a b c d", {{"a b c", 1}, {"b c d", 1}});
}

TEST(FeatureExtractor, RepeatedShinglesAreCountedAndWeighted) {
  // "a b a b a" has bigrams ab, ba, ab, ba: each twice.
  expect_features("n=2 weight=tf", "a b a b a", {{"a b", 2}, {"b a", 2}});
  // ln 2 on the 2^-20 grid of log weights.
  const double log_two = 1 + std::round(std::log(2.0) * 1048576) / 1048576;
  expect_features("n=2 weight=log", "a b a b a", {{"a b", log_two}, {"b a", log_two}});
  expect_features("n=2 weight=binary", "a b a b a", {{"a b", 1}, {"b a", 1}});
  // First-occurrence order, not alphabetical or by count.
  expect_features("n=1 weight=tf", "z y z x z", {{"z", 3}, {"y", 1}, {"x", 1}});
}

TEST(FeatureExtractor, CharUnitCollapsesAndTrimsWhitespace) {
  // Normalized "ab c": leading/trailing whitespace trimmed, the inner run of
  // spaces, tab and newline collapsed to one U+0020.
  const std::string text = "  Ab \t\n  c \n";
  expect_features("unit=char n=3", text, {{"ab ", 1}, {"b c", 1}});
  expect_features("unit=char n=1", text, {{"a", 1}, {"b", 1}, {" ", 1}, {"c", 1}});
  expect_features("unit=char n=5", text, {{"ab c", 1}});  // fewer code points than n
  expect_features("unit=char n=4", text, {{"ab c", 1}});
  // Code points, not bytes; punctuation counts; U+3000 is whitespace.
  expect_features("unit=char n=2", "中文\xE3\x80\x80中文!",
                  {{"中文", 2}, {"文 ", 1}, {" 中", 1}, {"文!", 1}});
  expect_features("unit=char n=3", " \t ", {});
}

TEST(FeatureExtractor, NormalizationGivesOneFingerprint) {
  const std::string full_width =
      "\xEF\xBC\xA8\xEF\xBC\xA5\xEF\xBC\xAC\xEF\xBC\xAC\xEF\xBC\xAF\xE3\x80\x80"
      "\xEF\xBC\xB7\xEF\xBC\xAF\xEF\xBC\xB2\xEF\xBC\xAC\xEF\xBC\xA4";
  for (const char* options : {"", "n=2", "n=3", "weight=binary", "unit=char n=3"}) {
    FeatureExtractor extractor(options_of(options));
    const auto expected = extractor.fingerprint("hello world");
    ASSERT_TRUE(expected.has_value());
    // unit=char keeps the comma, so it only equates the forms without one.
    if (extractor.options().unit == TokenUnit::word) {
      EXPECT_EQ(extractor.fingerprint("Hello, World"), expected) << options;
    }
    EXPECT_EQ(extractor.fingerprint("Hello World"), expected) << options;
    EXPECT_EQ(extractor.fingerprint(full_width), expected) << options;
  }
}

TEST(FeatureExtractor, KnownAnswersDerivedFromTheVote) {
  FeatureExtractor tf(options_of("n=1 weight=tf"));
  // One feature: every bit votes as its hash, so the fingerprint is the hash.
  EXPECT_EQ(tf.fingerprint("hello"), feature_hash(std::string_view("hello")));
  // "a" weighs 2 and "b" 1: a outvotes b on every bit.
  EXPECT_EQ(tf.fingerprint("a a b"), feature_hash(std::string_view("a")));
  // Equal weights: bits where the hashes differ tie (0), where they agree
  // both set them or both clear them.
  FeatureExtractor binary(options_of("n=1 weight=binary"));
  EXPECT_EQ(binary.fingerprint("a a b"),
            feature_hash(std::string_view("a")) & feature_hash(std::string_view("b")));
}

TEST(FeatureExtractor, NoFeaturesGivesNoFingerprint) {
  for (const char* options : {"", "n=3", "unit=char n=3"}) {
    FeatureExtractor extractor(options_of(options));
    EXPECT_FALSE(extractor.fingerprint("").has_value());
    EXPECT_TRUE(extractor.features("").empty());
    EXPECT_FALSE(extractor.fingerprint("  \n\t ").has_value());
  }
  FeatureExtractor words(options_of(""));
  EXPECT_FALSE(words.fingerprint("?!... -- ;").has_value());
  EXPECT_FALSE(words.fingerprint("\xF0\x9F\x98\x80\xF0\x9F\x8E\x89").has_value());  // emoji
}

TEST(FeatureExtractor, InvalidUtf8IsReadAsReplacementCharacter) {
  const std::string invalid = "\xC3\x28\xFF\x61 caf\xC3 ok";
  const std::string substituted =
      "\xEF\xBF\xBD(\xEF\xBF\xBD"
      "a caf\xEF\xBF\xBD ok";
  for (const char* options : {"", "n=2", "unit=char n=2", "unit=char n=4 weight=log"}) {
    FeatureExtractor extractor(options_of(options));
    const auto features = extractor.features(invalid);
    const auto expected = extractor.features(substituted);
    ASSERT_EQ(features.size(), expected.size()) << options;
    for (std::size_t i = 0; i < features.size(); ++i) {
      EXPECT_EQ(features[i].text, expected[i].text);
    }
    EXPECT_EQ(extractor.fingerprint(invalid), extractor.fingerprint(substituted)) << options;
    EXPECT_TRUE(extractor.fingerprint(invalid).has_value());
  }
  // Nothing but invalid bytes: with words, U+FFFD is a symbol, not a word.
  FeatureExtractor words(options_of(""));
  EXPECT_FALSE(words.fingerprint("\xFF\xFE\xC0").has_value());
}

TEST(FeatureExtractor, EmbeddedNulIsAControlCharacterNotAnEnd) {
  const std::string text("hello\0world", 11);
  expect_features("", text, {{"hello", 1}, {"world", 1}});
  expect_features("unit=char n=6", text,
                  {{std::string("hello\0", 6), 1},
                   {std::string("ello\0w", 6), 1},
                   {std::string("llo\0wo", 6), 1},
                   {std::string("lo\0wor", 6), 1},
                   {std::string("o\0worl", 6), 1},
                   {std::string("\0world", 6), 1}});
}

TEST(FeatureExtractor, LogWeightsAreOnAGridAndUnambiguous) {
  EXPECT_EQ(log_tf_weight(1), 1.0);
  for (std::uint64_t count = 2; count <= 1'000'000; ++count) {
    const double scaled = std::log(static_cast<double>(count)) * 1048576;
    // Far from a rounding midpoint: one ulp of ln(count) is at most 2^-49
    // here, 2e-9 after scaling, so a C library whose log is off by even 50
    // ulps still rounds every count the same way.
    ASSERT_GT(std::abs(scaled - std::floor(scaled) - 0.5), 1e-7) << count;
    const double weight = log_tf_weight(count);
    ASSERT_EQ((weight - 1) * 1048576, std::round(scaled)) << count;
    ASSERT_LE(std::abs(weight - 1 - std::log(static_cast<double>(count))), 1.0 / 2097152);
  }
}

TEST(FeatureExtractor, LogWeightTiesAreExact) {
  // Mathematically ln 2 + ln 3 = ln 6. With counts 2 and 3 on one side of a
  // bit and 6 and 1 on the other, the vote must not hinge on rounding noise:
  // on the grid, both sides sum to the same exact value unless the grid
  // rounding itself separates them, and then it does so on every platform.
  const double two_three = log_tf_weight(2) + log_tf_weight(3);
  const double six_one = log_tf_weight(6) + log_tf_weight(1);
  EXPECT_EQ((two_three - six_one) * 1048576, std::round((two_three - six_one) * 1048576));
}

// Brute-force reference: tokens (or code points) as strings, shingles joined
// by string concatenation, counts in first-occurrence order by linear search.
std::vector<Expected> reference_features(const SimhashOptions& options, std::string_view text) {
  std::vector<std::string> units;
  std::string separator;
  if (options.unit == TokenUnit::word) {
    WordTokenizer tokenizer;
    tokenizer.tokenize(text, [&](std::string_view token) { units.emplace_back(token); });
    separator = " ";
  } else {
    std::string normalized;
    TextNormalizer().normalize(text, normalized);
    std::vector<std::string> code_points;
    int32_t position = 0;
    const auto length = static_cast<int32_t>(normalized.size());
    while (position < length) {
      const int32_t begin = position;
      UChar32 c = 0;
      U8_NEXT(normalized.data(), position, length, c);
      code_points.push_back(u_isUWhiteSpace(c) ? " " : normalized.substr(begin, position - begin));
    }
    for (const auto& code_point : code_points) {
      if (code_point == " " && (units.empty() || units.back() == " ")) continue;
      units.push_back(code_point);
    }
    if (!units.empty() && units.back() == " ") units.pop_back();
  }
  std::vector<std::string> shingles;
  const std::size_t n = std::min<std::size_t>(static_cast<std::size_t>(options.n), units.size());
  for (std::size_t first = 0; n > 0 && first + n <= units.size(); ++first) {
    std::string shingle = units[first];
    for (std::size_t i = first + 1; i < first + n; ++i) shingle += separator + units[i];
    shingles.push_back(shingle);
  }
  std::vector<Expected> counted;
  for (const auto& shingle : shingles) {
    auto found = std::find_if(counted.begin(), counted.end(),
                              [&](const Expected& e) { return e.text == shingle; });
    if (found == counted.end()) {
      counted.push_back({shingle, 1});
    } else {
      found->weight += 1;
    }
  }
  for (auto& feature : counted) {
    if (options.weight == WeightScheme::log_tf) {
      feature.weight = 1 + std::round(std::log(feature.weight) * 1048576) / 1048576;
    }
    if (options.weight == WeightScheme::binary) feature.weight = 1;
  }
  return counted;
}

// Random texts drawn from a small vocabulary (so shingles repeat) of words in
// several scripts, punctuation and whitespace.
std::string random_text(std::mt19937& random) {
  static const std::vector<std::string> pieces = {
      "the",      "The",    "cat",       "CAT",         "sat",
      "on",       "mat",    "42",        "3.5",         "don't",
      ", ",       ". ",     " ",         "  ",          "\t",
      "\n",       "!",      "中文",      "北京大学",    "日本語の",
      "ภาษาไทย",  "Привет", "мир",       "مرحبا",       "\xF0\x9F\x98\x80",
      "ＦＵＬＬ", "é",      "e\xCC\x81", "\xEF\xBF\xBD"};
  std::string text;
  const int count = static_cast<int>(random() % 40);
  for (int i = 0; i < count; ++i) {
    text += pieces[random() % pieces.size()];
    if (random() % 3 != 0) text += ' ';
  }
  return text;
}

TEST(FeatureExtractor, MatchesBruteForceReferenceAndVoteIdentity) {
  std::mt19937 random(2026);
  for (const TokenUnit unit : {TokenUnit::word, TokenUnit::character}) {
    for (const int n : {1, 2, 3, 5}) {
      for (const WeightScheme weight :
           {WeightScheme::tf, WeightScheme::log_tf, WeightScheme::binary}) {
        const SimhashOptions options{unit, n, weight};
        FeatureExtractor extractor(options);
        for (int round = 0; round < 60; ++round) {
          const std::string text = random_text(random);
          const auto features = extractor.features(text);
          const auto expected = reference_features(options, text);
          ASSERT_EQ(features.size(), expected.size()) << to_string(options) << " | " << text;
          for (std::size_t i = 0; i < features.size(); ++i) {
            ASSERT_EQ(features[i].text, expected[i].text);
            ASSERT_DOUBLE_EQ(features[i].weight, expected[i].weight);
            ASSERT_EQ(features[i].hash, feature_hash(std::string_view(expected[i].text)));
          }
          // The SQL identity simhash(t, o) = simhash_agg over simhash_features(t, o).
          ASSERT_EQ(extractor.fingerprint(text), accumulate(features)) << text;
        }
      }
    }
  }
}

// The combined call (simhash_dedup's: the text cut into units once for
// both) gives exactly what the two calls give, for extractors of the same
// unit and of different units, on texts with invalid UTF-8, without
// features, in several scripts; and leaves the vector alone without a
// fingerprint.
TEST(FeatureExtractor, FingerprintAndFeatureVectorEqualTheTwoCalls) {
  std::mt19937 random(20261125);
  const std::vector<SimhashOptions> all = {{TokenUnit::word, 1, WeightScheme::tf},
                                           {TokenUnit::word, 3, WeightScheme::binary},
                                           {TokenUnit::word, 2, WeightScheme::log_tf},
                                           {TokenUnit::character, 4, WeightScheme::binary},
                                           {TokenUnit::character, 1, WeightScheme::tf}};
  for (const SimhashOptions& fingerprint_options : all) {
    for (const SimhashOptions& verification_options : all) {
      FeatureExtractor fingerprints(fingerprint_options);
      FeatureExtractor verification(verification_options);
      FeatureExtractor fingerprints_alone(fingerprint_options);
      FeatureExtractor verification_alone(verification_options);
      int without = 0;
      for (int round = 0; round < 80; ++round) {
        std::string text = random_text(random) + (round % 7 == 0 ? "\xFF\xC3" : "");
        if (round % 10 == 0) {
          text = round % 20 == 0 ? "" : " ,. !\t";  // no words; no characters either
        }
        FeatureVector combined;
        combined.hashes = {7};  // stays when there is no fingerprint
        combined.weights = {1.0};
        const std::optional<std::uint64_t> fingerprint =
            fingerprints.fingerprint_and_feature_vector(text, verification, combined);
        ASSERT_EQ(fingerprint, fingerprints_alone.fingerprint(text))
            << to_string(fingerprint_options) << " | " << text;
        if (!fingerprint) {
          ++without;
          EXPECT_EQ(combined.hashes, std::vector<std::uint64_t>{7});
          continue;
        }
        FeatureVector alone;
        verification_alone.feature_vector(text, alone);
        ASSERT_EQ(combined.hashes, alone.hashes)
            << to_string(verification_options) << " | " << text;
        ASSERT_EQ(combined.weights, alone.weights);
        ASSERT_EQ(combined.sum_of_weights, alone.sum_of_weights);
        ASSERT_EQ(combined.sum_of_squares, alone.sum_of_squares);
      }
      EXPECT_GT(without, 0) << "no text without features was tried";
    }
  }
}

// The same across the two settings of symbols (simhash_dedup's default:
// simhash()'s fingerprint drops them, the check keeps them), where the
// combined call cuts the text once with the symbol runs told apart: every
// pair of word options that differ in symbols, either way round, on random
// texts in several scripts with symbols and invalid UTF-8, on the ASCII fast
// path and on ICU alone.
TEST(FeatureExtractor, FingerprintAndFeatureVectorEqualTheTwoCallsAcrossSymbols) {
  const std::vector<std::string> all = {"n=1 weight=tf",
                                        "n=1 weight=tf symbols=keep",
                                        "n=3 weight=binary",
                                        "n=3 weight=binary symbols=keep",
                                        "n=2 weight=log",
                                        "n=2 weight=log symbols=keep",
                                        "n=1 weight=binary symbols=keep",
                                        "n=3 weight=binary symbols=strict",
                                        "n=1 weight=tf symbols=strict"};
  for (const bool fast_path : {true, false}) {
    const testing::FastPathSwitch use(fast_path);
    std::mt19937 random(20261126);
    for (const std::string& fingerprint_options : all) {
      for (const std::string& verification_options : all) {
        FeatureExtractor fingerprints(options_of(fingerprint_options));
        FeatureExtractor verification(options_of(verification_options));
        FeatureExtractor fingerprints_alone(options_of(fingerprint_options));
        FeatureExtractor verification_alone(options_of(verification_options));
        int without = 0;
        int with = 0;
        for (int round = 0; round < 60; ++round) {
          std::string text = testing::random_multiscript_text(random);
          if (round % 10 == 0) {
            // No features at all; and symbols only: features only with them.
            text = round % 20 == 0 ? " ,. !\t" : "<= & \xE2\x82\xAC ->";
          }
          FeatureVector combined;
          combined.hashes = {7};  // stays when there is no fingerprint
          combined.weights = {1.0};
          const std::optional<std::uint64_t> fingerprint =
              fingerprints.fingerprint_and_feature_vector(text, verification, combined);
          ASSERT_EQ(fingerprint, fingerprints_alone.fingerprint(text))
              << fingerprint_options << " | " << text << " | fast path " << fast_path;
          if (!fingerprint) {
            ++without;
            EXPECT_EQ(combined.hashes, std::vector<std::uint64_t>{7});
            continue;
          }
          ++with;
          FeatureVector alone;
          verification_alone.feature_vector(text, alone);
          ASSERT_EQ(combined.hashes, alone.hashes)
              << verification_options << " | " << text << " | fast path " << fast_path;
          ASSERT_EQ(combined.weights, alone.weights);
          ASSERT_EQ(combined.sum_of_weights, alone.sum_of_weights);
          ASSERT_EQ(combined.sum_of_squares, alone.sum_of_squares);
        }
        EXPECT_GT(without, 0) << "no text without features was tried";
        EXPECT_GT(with, 40) << "too few texts with features";
      }
    }
  }
}

TEST(FeatureExtractor, TenMegabyteText) {
  std::mt19937 random(10);
  const std::vector<std::string> words = {"alpha", "beta", "gamma", "delta", "epsilon",
                                          "zeta",  "eta",  "theta", "iota",  "kappa"};
  std::string half;
  while (half.size() < 5'000'000) {
    half += words[random() % words.size()];
    half += ' ';
  }
  FeatureExtractor unigrams(options_of("n=1 weight=tf"));
  const auto fingerprint = unigrams.fingerprint(half);
  ASSERT_TRUE(fingerprint.has_value());
  // Doubling the text doubles every count, so no vote changes sign.
  EXPECT_EQ(unigrams.fingerprint(half + half), fingerprint);
  EXPECT_EQ(unigrams.features(half + half).size(), words.size());
  FeatureExtractor trigrams(options_of("n=3"));
  EXPECT_EQ(trigrams.fingerprint(half + half), accumulate(trigrams.features(half + half)));
  // A small text right after a huge one still comes out right.
  EXPECT_EQ(unigrams.fingerprint("hello"), feature_hash(std::string_view("hello")));
}

// Texts from kCountBySortingBytes on are counted by sorting hashes in
// fingerprint() (unit=char, n >= kCountBySortingMinN), while features() still counts in a hash
// table: the fingerprint must be the vote over the features listed, as for short texts, whatever
// the shingle length and weighting.
TEST(FeatureExtractor, LongCharacterTextsCountedBySortingVoteTheSame) {
  std::mt19937_64 random(41);
  const char* words[] = {"alpha", "beta", "gamma", "délta", "ε", "zeta", "日本", "the", "of"};
  std::string text;
  while (text.size() < FeatureExtractor::kCountBySortingBytes + 1000) {
    text += words[random() % 9];
    text += random() % 7 == 0 ? ".\n" : " ";
  }
  for (const char* options :
       {"unit=char n=16", "unit=char n=6 weight=log", "unit=char n=8 weight=binary"}) {
    FeatureExtractor extractor(options_of(options));
    const auto fingerprint = extractor.fingerprint(text);
    ASSERT_TRUE(fingerprint.has_value()) << options;
    FingerprintAccumulator vote;
    for (const Feature& feature : extractor.features(text)) {
      vote.add(feature.hash, feature.weight);
    }
    EXPECT_EQ(*fingerprint, vote.fingerprint()) << options;
    // And the same extractor still takes short texts the usual way.
    EXPECT_EQ(extractor.fingerprint("short text"),
              FeatureExtractor(options_of(options)).fingerprint("short text"));
  }
}

// count_features(text, most) stops past `most` distinct shingles of two or
// more units (a result above `most`), and then no vector is made from the
// partial count; with `most` at or above the text's count, or for word
// unigrams, it counts the text whole, as feature_vector() does.
TEST(FeatureExtractor, CountFeaturesStopsPastMostAndThenMakesNoVector) {
  std::string text;
  for (int i = 0; i < 500; ++i) {
    text.append("word").append(std::to_string(i % 300)).append(" ");
  }
  for (const char* options :
       {"n=3 weight=binary", "unit=char n=4 weight=binary", "n=1 weight=binary"}) {
    FeatureExtractor extractor(options_of(options));
    FeatureVector whole;
    extractor.feature_vector(text, whole);
    ASSERT_GT(whole.hashes.size(), 40U) << options;
    const std::size_t stopped = extractor.count_features(text, 40);
    FeatureVector out;
    if (std::string(options) == "n=1 weight=binary") {
      EXPECT_EQ(stopped, whole.hashes.size());  // unigrams: counted whole
      continue;
    }
    EXPECT_EQ(stopped, 41U) << options;
    EXPECT_THROW(extractor.counted_feature_vector(out), std::logic_error) << options;
    EXPECT_EQ(extractor.count_features(text, whole.hashes.size()), whole.hashes.size());
    extractor.counted_feature_vector(out);
    EXPECT_EQ(out.hashes, whole.hashes) << options;
  }
}

}  // namespace
}  // namespace simhash

// SPDX-License-Identifier: MIT
// Fingerprint quality: which options make the best default?
//
// For every candidate option set, on real text nobody here wrote (see
// corpus.h), measures
//   recall: the fraction of edited copies (1%, 5%, 10%, 20% of words
//     substituted, deleted or inserted; fixed seed) within kRadius bits of
//     their original, for English and for Chinese;
//   false positives: the fraction of pairs of different English documents
//     whose word-3-shingle Jaccard similarity is below 0.5 that still fall
//     within kRadius bits, and those pairs' mean distance.
// and picks the default by the rule: the highest English recall at 5% edits
// whose false-positive rate is at most 0.5%.
//
// Run: build/quality_benchmark   (Chinese needs `apt-get install manpages-zh`)
#include <unicode/brkiter.h>
#include <unicode/locid.h>
#include <unicode/ubrk.h>
#include <unicode/unistr.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "corpus.h"
#include "fingerprint/feature_extractor.h"
#include "fingerprint/feature_similarity.h"
#include "fingerprint/hamming.h"

namespace {

using simhash::bench::Document;

constexpr int kRadius = 3;
constexpr double kMaxFalsePositiveRate = 0.005;
constexpr double kDissimilarJaccard = 0.5;
constexpr std::uint64_t kSeed = 20261121;
const std::vector<double> kEditRates = {0.01, 0.05, 0.10, 0.20};

// A document cut into editable units: words, and (for Chinese) the
// punctuation and spaces between them, which edits leave alone.
struct Segmented {
  std::vector<std::string> units;
  std::vector<bool> is_word;
  std::string separator;  // joins the units back into text
};

// English words are whitespace-separated: the edit unit does not depend on
// the tokenizer under test.
Segmented split_on_whitespace(const std::string& text) {
  Segmented segmented;
  segmented.separator = " ";
  std::size_t position = 0;
  while (position < text.size()) {
    const std::size_t begin = text.find_first_not_of(" \t\r\n\f\v", position);
    if (begin == std::string::npos) break;
    const std::size_t end = std::min(text.find_first_of(" \t\r\n\f\v", begin), text.size());
    segmented.units.push_back(text.substr(begin, end - begin));
    segmented.is_word.push_back(true);
    position = end;
  }
  return segmented;
}

// Chinese has no spaces: its words come from ICU's dictionary segmentation
// of the raw text, and the segments between words are kept as they are.
Segmented split_with_icu(const std::string& text, icu::BreakIterator& breaker) {
  Segmented segmented;
  const icu::UnicodeString unicode = icu::UnicodeString::fromUTF8(text);
  breaker.setText(unicode);
  int32_t start = breaker.first();
  for (int32_t end = breaker.next(); end != icu::BreakIterator::DONE;
       start = end, end = breaker.next()) {
    std::string unit;
    unicode.tempSubStringBetween(start, end).toUTF8String(unit);
    segmented.units.push_back(unit);
    segmented.is_word.push_back(breaker.getRuleStatus() >= UBRK_WORD_NUMBER);
  }
  return segmented;
}

std::size_t word_count(const Segmented& segmented) {
  return static_cast<std::size_t>(
      std::count(segmented.is_word.begin(), segmented.is_word.end(), true));
}

// A copy with round(rate * words) (at least one) random word edits, each a
// substitution, deletion or insertion with equal odds; new words come from
// the corpus vocabulary.
std::string edited_copy(const Segmented& original, double rate,
                        const std::vector<std::string>& vocabulary, std::mt19937_64& random) {
  std::vector<std::string> units = original.units;
  std::vector<bool> is_word = original.is_word;
  std::size_t words = word_count(original);
  const auto edits = std::max<std::size_t>(
      1, static_cast<std::size_t>(std::llround(rate * static_cast<double>(words))));
  for (std::size_t edit = 0; edit < edits; ++edit) {
    std::size_t index = 0;
    do {
      index = random() % units.size();
    } while (!is_word[index]);
    const std::string& new_word = vocabulary[random() % vocabulary.size()];
    const auto operation = random() % 3;
    if (operation == 1 && words > 1) {  // delete (never the last word)
      units.erase(units.begin() + static_cast<std::ptrdiff_t>(index));
      is_word.erase(is_word.begin() + static_cast<std::ptrdiff_t>(index));
      --words;
    } else if (operation == 2) {  // insert after
      units.insert(units.begin() + static_cast<std::ptrdiff_t>(index) + 1, new_word);
      is_word.insert(is_word.begin() + static_cast<std::ptrdiff_t>(index) + 1, true);
      ++words;
    } else {  // substitute
      units[index] = new_word;
    }
  }
  std::string text;
  for (std::size_t i = 0; i < units.size(); ++i) {
    if (i > 0) text += original.separator;
    text += units[i];
  }
  return text;
}

struct Corpus {
  std::vector<std::string> originals;
  std::vector<std::vector<std::string>> edited;  // [rate][document]
  std::size_t median_words = 0;
};

Corpus make_corpus(const std::vector<Document>& documents,
                   const std::vector<Segmented>& segmented) {
  std::vector<std::string> vocabulary;
  std::vector<std::size_t> words;
  for (const auto& document : segmented) {
    for (std::size_t i = 0; i < document.units.size(); ++i) {
      if (document.is_word[i]) vocabulary.push_back(document.units[i]);
    }
    words.push_back(word_count(document));
  }
  Corpus corpus;
  std::sort(words.begin(), words.end());
  corpus.median_words = words.empty() ? 0 : words[words.size() / 2];
  std::mt19937_64 random(kSeed);
  for (std::size_t i = 0; i < documents.size(); ++i) {
    if (word_count(segmented[i]) > 0) corpus.originals.push_back(documents[i].text);
  }
  for (const double rate : kEditRates) {
    std::vector<std::string> copies;
    for (std::size_t i = 0; i < documents.size(); ++i) {
      if (word_count(segmented[i]) > 0) {
        copies.push_back(edited_copy(segmented[i], rate, vocabulary, random));
      }
    }
    corpus.edited.push_back(std::move(copies));
  }
  return corpus;
}

// Pairs (i, j), i < j, of documents whose word-3-shingle sets have Jaccard
// similarity below kDissimilarJaccard: they are not near-duplicates.
std::vector<std::pair<std::size_t, std::size_t>> dissimilar_pairs(
    const std::vector<std::string>& texts) {
  std::string error;
  simhash::FeatureExtractor trigrams(*simhash::parse_options("n=3 weight=binary", error));
  std::vector<std::vector<std::uint64_t>> shingles;
  for (const auto& text : texts) {
    std::vector<std::uint64_t> hashes;
    for (const auto& feature : trigrams.features(text)) hashes.push_back(feature.hash);
    std::sort(hashes.begin(), hashes.end());
    shingles.push_back(std::move(hashes));
  }
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    for (std::size_t j = i + 1; j < texts.size(); ++j) {
      const auto& a = shingles[i];
      const auto& b = shingles[j];
      std::size_t common = 0;
      for (std::size_t x = 0, y = 0; x < a.size() && y < b.size();) {
        if (a[x] < b[y]) {
          ++x;
        } else if (b[y] < a[x]) {
          ++y;
        } else {
          ++common, ++x, ++y;
        }
      }
      const std::size_t united = a.size() + b.size() - common;
      if (united > 0 &&
          static_cast<double>(common) / static_cast<double>(united) < kDissimilarJaccard) {
        pairs.emplace_back(i, j);
      }
    }
  }
  return pairs;
}

std::vector<std::uint64_t> fingerprints(simhash::FeatureExtractor& extractor,
                                        const std::vector<std::string>& texts) {
  std::vector<std::uint64_t> result;
  result.reserve(texts.size());
  // A text without features has no fingerprint; 0 stands in (rare: none of
  // these documents is punctuation only).
  for (const auto& text : texts) result.push_back(extractor.fingerprint(text).value_or(0));
  return result;
}

double recall(const std::vector<std::uint64_t>& originals, const std::vector<std::uint64_t>& copies,
              int radius = kRadius) {
  std::size_t near = 0;
  for (std::size_t i = 0; i < originals.size(); ++i) {
    near += simhash::hamming_distance(originals[i], copies[i]) <= radius ? 1 : 0;
  }
  return originals.empty() ? 0 : static_cast<double>(near) / static_cast<double>(originals.size());
}

struct Result {
  std::string options;
  std::vector<double> english_recall;
  std::vector<double> chinese_recall;
  std::vector<double> chinese_long_recall;
  double false_positive_rate = 0;
  double mean_distance = 0;
};

// The chosen options' fingerprints of one corpus, its edited copies and its
// dissimilar pairs: what the length and radius tables read.
struct Measured {
  std::vector<std::uint64_t> originals;
  std::vector<std::vector<std::uint64_t>> copies;  // [rate][document]
  std::vector<std::pair<std::size_t, std::size_t>> dissimilar;
};

Measured measure(simhash::FeatureExtractor& extractor, const Corpus& corpus) {
  Measured measured{
      fingerprints(extractor, corpus.originals), {}, dissimilar_pairs(corpus.originals)};
  for (const auto& copies : corpus.edited) {
    measured.copies.push_back(fingerprints(extractor, copies));
  }
  return measured;
}

// Length or language: recall of the chosen options on English paragraphs as
// short as the Chinese ones, beside the rows already measured.
void print_length_table(const Result& chosen, const Measured& english_paragraphs) {
  std::vector<double> paragraph_recall;
  for (const auto& copies : english_paragraphs.copies) {
    paragraph_recall.push_back(recall(english_paragraphs.originals, copies));
  }
  std::printf("\nLength or language, `%s`: recall within %d bits\n\n", chosen.options.c_str(),
              kRadius);
  std::printf("| corpus | 1%% | 5%% | 10%% | 20%% |\n| --- | --- | --- | --- | --- |\n");
  const auto row = [](const char* name, const std::vector<double>& values) {
    std::printf("| %s | %.1f%% | %.1f%% | %.1f%% | %.1f%% |\n", name, 100 * values[0],
                100 * values[1], 100 * values[2], 100 * values[3]);
  };
  row("English documents (EN)", chosen.english_recall);
  row("English paragraphs, 40-120 words", paragraph_recall);
  row("Chinese paragraphs (ZH)", chosen.chinese_recall);
  row("Chinese runs of paragraphs (ZH-long)", chosen.chinese_long_recall);
}

// What a radius means: for the chosen options, recall per edit rate and the
// false-positive rate at each radius, for whole documents and for short
// paragraphs (each against dissimilar pairs of its own kind).
void print_radius_table(const Result& chosen, const Measured& long_texts,
                        const Measured& short_texts) {
  const auto false_positive_rate = [](const Measured& measured, int radius) {
    std::size_t near = 0;
    for (const auto& [i, j] : measured.dissimilar) {
      near +=
          simhash::hamming_distance(measured.originals[i], measured.originals[j]) <= radius ? 1 : 0;
    }
    return static_cast<double>(near) / static_cast<double>(measured.dissimilar.size());
  };
  std::printf(
      "\nRadius, `%s`: recall at 1%%/5%%/10%% edits and FP rate (dissimilar pairs of "
      "the same corpus: %zu pairs of documents, %zu pairs of paragraphs)\n\n",
      chosen.options.c_str(), long_texts.dissimilar.size(), short_texts.dissimilar.size());
  std::printf(
      "| radius | EN documents 1%% / 5%% / 10%% | EN documents FP | EN paragraphs 1%% / 5%% / "
      "10%% | EN paragraphs FP |\n| --- | --- | --- | --- | --- |\n");
  for (const int radius : {0, 1, 2, 3, 4, 5, 6, 8, 10, 12}) {
    std::printf("| %d |", radius);
    for (const Measured* measured : {&long_texts, &short_texts}) {
      std::printf(" %.1f%% / %.1f%% / %.1f%% | %.2f%% |",
                  100 * recall(measured->originals, measured->copies[0], radius),
                  100 * recall(measured->originals, measured->copies[1], radius),
                  100 * recall(measured->originals, measured->copies[2], radius),
                  100 * false_positive_rate(*measured, radius));
    }
    std::printf("\n");
  }
}

// The dedup recipe on edited copies: a copy is found when it is within r bits
// of its original AND passes the exact check; a dissimilar pair is a false
// positive when it is within r bits and passes too. The checks are those of
// simhash_jaccard(a, b, 'n=3 weight=binary') >= 0.5 and of
// simhash_cosine(a, b) >= 0.9 (default options). "Dissimilar" is defined by
// the word-3-shingle Jaccard < 0.5, so the first check admits no dissimilar
// pair by construction; the second shows what a cosine check lets through.
void print_verified_table(const Measured& measured, const Corpus& corpus, const char* name) {
  std::string error;
  simhash::FeatureExtractor shingles(*simhash::parse_options("n=3 weight=binary", error));
  simhash::FeatureExtractor words(*simhash::parse_options("", error));
  const auto vectors = [](simhash::FeatureExtractor& extractor,
                          const std::vector<std::string>& texts) {
    std::vector<simhash::FeatureVector> result(texts.size());
    for (std::size_t i = 0; i < texts.size(); ++i) extractor.feature_vector(texts[i], result[i]);
    return result;
  };
  struct Check {
    const char* name;
    simhash::FeatureExtractor* extractor;
    double (*measure)(const simhash::FeatureVector&, const simhash::FeatureVector&);
    double threshold;
  };
  const std::vector<Check> checks = {
      {"none (within r bits)", nullptr, nullptr, 0},
      {"`simhash_jaccard(a, b, 'n=3 weight=binary') >= 0.5`", &shingles, simhash::weighted_jaccard,
       0.5},
      {"`simhash_cosine(a, b) >= 0.9`", &words, simhash::cosine_similarity, 0.9},
  };
  std::printf(
      "\nRecipe on %s: recall of edited copies at 1%% / 5%% / 10%% / 20%% edits, and false "
      "positives among the %zu dissimilar pairs\n\n",
      name, measured.dissimilar.size());
  std::printf("| r | check | recall 1%% / 5%% / 10%% / 20%% | false positives |\n");
  std::printf("| --- | --- | --- | --- |\n");
  for (const Check& check : checks) {
    std::vector<simhash::FeatureVector> originals;
    std::vector<std::vector<simhash::FeatureVector>> copies;
    if (check.extractor != nullptr) {
      originals = vectors(*check.extractor, corpus.originals);
      for (const auto& edited : corpus.edited) copies.push_back(vectors(*check.extractor, edited));
    }
    const auto passes = [&](const simhash::FeatureVector* a, const simhash::FeatureVector* b) {
      if (check.extractor == nullptr) return true;
      if (a->empty() || b->empty()) return false;
      return check.measure(*a, *b) >= check.threshold;
    };
    for (const int radius : {6, 8, 10}) {
      std::printf("| %d | %s |", radius, check.name);
      for (std::size_t rate = 0; rate < corpus.edited.size(); ++rate) {
        std::size_t found = 0;
        for (std::size_t i = 0; i < corpus.originals.size(); ++i) {
          if (simhash::hamming_distance(measured.originals[i], measured.copies[rate][i]) <=
                  radius &&
              (check.extractor == nullptr || passes(&originals[i], &copies[rate][i]))) {
            ++found;
          }
        }
        std::printf(
            "%s %.1f%%", rate == 0 ? "" : " /",
            100.0 * static_cast<double>(found) / static_cast<double>(corpus.originals.size()));
      }
      std::size_t false_positives = 0;
      for (const auto& [i, j] : measured.dissimilar) {
        if (simhash::hamming_distance(measured.originals[i], measured.originals[j]) <= radius &&
            (check.extractor == nullptr || passes(&originals[i], &originals[j]))) {
          ++false_positives;
        }
      }
      std::printf(" | %zu |\n", false_positives);
    }
  }
}

}  // namespace

int main() {
  const std::vector<Document> english_documents = simhash::bench::load_english_corpus();
  const std::vector<Document> chinese_documents = simhash::bench::load_chinese_corpus();
  const std::vector<Document> chinese_long_documents =
      simhash::bench::load_chinese_long_documents();
  const std::vector<Document> english_paragraph_documents =
      simhash::bench::load_english_paragraphs();
  if (english_documents.empty()) {
    std::fprintf(stderr, "no English corpus under /usr/share/doc\n");
    return 1;
  }
  if (chinese_documents.empty()) {
    std::fprintf(stderr, "no Chinese corpus: apt-get install manpages-zh\n");
  }

  std::vector<Segmented> english_segmented;
  for (const auto& document : english_documents) {
    english_segmented.push_back(split_on_whitespace(document.text));
  }
  UErrorCode status = U_ZERO_ERROR;
  std::unique_ptr<icu::BreakIterator> breaker(
      icu::BreakIterator::createWordInstance(icu::Locale::getRoot(), status));
  if (U_FAILURE(status)) throw std::runtime_error("no ICU word break iterator");
  std::vector<Segmented> chinese_segmented;
  for (const auto& document : chinese_documents) {
    chinese_segmented.push_back(split_with_icu(document.text, *breaker));
  }
  std::vector<Segmented> chinese_long_segmented;
  for (const auto& document : chinese_long_documents) {
    chinese_long_segmented.push_back(split_with_icu(document.text, *breaker));
  }
  std::vector<Segmented> english_paragraphs_segmented;
  for (const auto& document : english_paragraph_documents) {
    english_paragraphs_segmented.push_back(split_on_whitespace(document.text));
  }
  const Corpus english = make_corpus(english_documents, english_segmented);
  const Corpus english_paragraphs =
      make_corpus(english_paragraph_documents, english_paragraphs_segmented);
  const Corpus chinese = make_corpus(chinese_documents, chinese_segmented);
  const Corpus chinese_long = make_corpus(chinese_long_documents, chinese_long_segmented);
  const auto pairs = dissimilar_pairs(english.originals);

  std::printf(
      "English: %zu documents, %zu bytes, median %zu words; %zu pairs with "
      "word-3-shingle Jaccard < %.1f\n",
      english.originals.size(), simhash::bench::total_bytes(english_documents),
      english.median_words, pairs.size(), kDissimilarJaccard);
  std::printf("Chinese: %zu manpages-zh paragraphs, %zu bytes, median %zu words\n",
              chinese.originals.size(), simhash::bench::total_bytes(chinese_documents),
              chinese.median_words);
  std::printf("Chinese long: %zu runs of manpages-zh paragraphs, %zu bytes, median %zu words\n",
              chinese_long.originals.size(), simhash::bench::total_bytes(chinese_long_documents),
              chinese_long.median_words);
  std::printf("English paragraphs: %zu paragraphs of 40-120 words, %zu bytes, median %zu words\n",
              english_paragraphs.originals.size(),
              simhash::bench::total_bytes(english_paragraph_documents),
              english_paragraphs.median_words);
  std::printf(
      "Recall: edited copy within %d bits of its original. FP: dissimilar pair "
      "within %d bits.\n\n",
      kRadius, kRadius);

  std::vector<std::string> candidates;
  for (int n = 1; n <= 4; ++n) {
    for (const char* weight : {"tf", "log", "binary"}) {
      candidates.push_back("unit=word n=" + std::to_string(n) + " weight=" + weight);
    }
  }
  for (int n = 3; n <= 5; ++n)
    candidates.push_back("unit=char n=" + std::to_string(n) + " weight=tf");

  std::printf(
      "| options | EN 1%% | EN 5%% | EN 10%% | EN 20%% | FP rate | FP mean bits | "
      "ZH 1%% | ZH 5%% | ZH 10%% | ZH 20%% | ZH-long 1%% | ZH-long 5%% | ZH-long 10%% | "
      "ZH-long 20%% |\n");
  std::printf(
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | "
      "--- |\n");
  std::vector<Result> results;
  for (const auto& candidate : candidates) {
    std::string error;
    const auto options = simhash::parse_options(candidate, error);
    if (!options) throw std::runtime_error(error);
    simhash::FeatureExtractor extractor(*options);
    Result result{candidate, {}, {}, {}, 0, 0};
    const auto english_originals = fingerprints(extractor, english.originals);
    for (const auto& copies : english.edited) {
      result.english_recall.push_back(recall(english_originals, fingerprints(extractor, copies)));
    }
    const auto chinese_originals = fingerprints(extractor, chinese.originals);
    for (const auto& copies : chinese.edited) {
      result.chinese_recall.push_back(recall(chinese_originals, fingerprints(extractor, copies)));
    }
    const auto chinese_long_originals = fingerprints(extractor, chinese_long.originals);
    for (const auto& copies : chinese_long.edited) {
      result.chinese_long_recall.push_back(
          recall(chinese_long_originals, fingerprints(extractor, copies)));
    }
    std::size_t false_positives = 0;
    double total_distance = 0;
    for (const auto& [i, j] : pairs) {
      const int distance = simhash::hamming_distance(english_originals[i], english_originals[j]);
      false_positives += distance <= kRadius ? 1 : 0;
      total_distance += distance;
    }
    result.false_positive_rate =
        static_cast<double>(false_positives) / static_cast<double>(pairs.size());
    result.mean_distance = total_distance / static_cast<double>(pairs.size());
    std::printf(
        "| `%s` | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.2f%% | %.1f | %.1f%% | %.1f%% | "
        "%.1f%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% |\n",
        candidate.c_str(), 100 * result.english_recall[0], 100 * result.english_recall[1],
        100 * result.english_recall[2], 100 * result.english_recall[3],
        100 * result.false_positive_rate, result.mean_distance, 100 * result.chinese_recall[0],
        100 * result.chinese_recall[1], 100 * result.chinese_recall[2],
        100 * result.chinese_recall[3], 100 * result.chinese_long_recall[0],
        100 * result.chinese_long_recall[1], 100 * result.chinese_long_recall[2],
        100 * result.chinese_long_recall[3]);
    std::fflush(stdout);
    results.push_back(result);
  }

  const Result* best = nullptr;
  for (const auto& result : results) {
    if (result.false_positive_rate <= kMaxFalsePositiveRate &&
        (best == nullptr || result.english_recall[1] > best->english_recall[1])) {
      best = &result;
    }
  }
  if (best == nullptr) {
    std::printf("\nNo candidate keeps false positives at or below %.1f%%.\n",
                100 * kMaxFalsePositiveRate);
  } else {
    std::printf("\nDefault by the rule (highest EN recall at 5%% edits with FP <= %.1f%%): %s\n",
                100 * kMaxFalsePositiveRate, best->options.c_str());
    std::string error;
    const auto options = simhash::parse_options(best->options, error);
    if (!options) throw std::runtime_error(error);
    simhash::FeatureExtractor extractor(*options);
    const Measured documents = measure(extractor, english);
    const Measured paragraphs = measure(extractor, english_paragraphs);
    print_length_table(*best, paragraphs);
    print_radius_table(*best, documents, paragraphs);
    print_verified_table(documents, english, "English documents");
    print_verified_table(paragraphs, english_paragraphs, "English paragraphs (40-120 words)");
  }
  return 0;
}

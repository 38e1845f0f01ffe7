// SPDX-License-Identifier: MIT
// Quality of the dedup recipe on a real corpus with natural near-duplicates:
// the 63,956 English package descriptions of Debian 12 (main), read from
// apt's Translation-en index (`apt-get update -o Acquire::Languages=en` puts
// it in /var/lib/apt/lists; lz4cat reads it). Many packages share most of a
// description (a library, its -dev and -doc packages; families of Haskell,
// Perl or font packages), which is what makes it a fair test of grouping.
//
// Ground truth is the exact word-3-shingle Jaccard similarity (the classic
// dedup measure, simhash_jaccard(a, b, 'n=3 weight=binary')) over all pairs
// of a random sample (fixed seed). Candidates are pairs within r bits of
// the default fingerprints (what simhash_pairs gives), alone or verified
// (candidates whose Jaccard is >= t). Reports:
//   1. precision and recall of candidates, r = 3..10, against the pairs with
//      Jaccard >= 0.8 and >= 0.5, unverified and verified at several t;
//   2. the keep-one audit on the whole corpus: how many texts "keep the
//      representative, delete the rest" removes, and how many of them fall
//      below Jaccard 0.5 / 0.8 with the text kept in their place, for single
//      link (simhash_components), the leader grouping on the radius
//      (simhash_clusters on the index) and the leader grouping over verified
//      pairs (simhash_clusters on a table of pairs).
// Everything runs on the engine (the same code the SQL functions call), with
// candidate pairs found by brute force, so no index can hide a pair.
//
// Usage: build/dedup_quality_benchmark [--sample 10000] [--translations PATH]
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "batch/leader_groups.h"
#include "batch/union_find.h"
#include "fingerprint/feature_extractor.h"
#include "fingerprint/feature_similarity.h"
#include "fingerprint/hamming.h"

namespace {

using simhash::FeatureExtractor;
using simhash::FeatureVector;

constexpr const char* kDefaultTranslations =
    "/var/lib/apt/lists/deb.debian.org_debian_dists_bookworm_main_i18n_Translation-en.lz4";

struct PipeCloser {
  void operator()(FILE* pipe) const { pclose(pipe); }
};

// Each record's description: the synopsis line, then the long description
// with its " ." paragraph separators as blank lines.
std::vector<std::string> read_descriptions(const std::string& path) {
  const std::string command = "lz4cat '" + path + "'";
  std::unique_ptr<FILE, PipeCloser> pipe(popen(command.c_str(), "r"));
  if (!pipe) {
    std::fprintf(stderr, "cannot run %s\n", command.c_str());
    std::exit(1);
  }
  std::vector<std::string> descriptions;
  std::string current;
  bool in_description = false;
  char line[65536];
  const auto finish = [&] {
    if (in_description && !current.empty()) {
      descriptions.push_back(current);
    }
    current.clear();
    in_description = false;
  };
  while (std::fgets(line, sizeof line, pipe.get()) != nullptr) {
    std::string text(line);
    if (!text.empty() && text.back() == '\n') {
      text.pop_back();
    }
    if (text.rfind("Description-en: ", 0) == 0) {
      finish();
      in_description = true;
      current = text.substr(16) + "\n";
    } else if (in_description && !text.empty() && text[0] == ' ') {
      current += text == " ." ? "\n" : text.substr(1) + "\n";
    } else {
      finish();
    }
  }
  finish();
  return descriptions;
}

struct Text {
  std::uint64_t fingerprint = 0;
  bool has_fingerprint = false;
  FeatureVector shingles;  // word 3-shingles, binary weights
};

std::vector<Text> analyse(const std::vector<std::string>& descriptions) {
  std::string error;
  FeatureExtractor fingerprints(*simhash::parse_options("", error));
  FeatureExtractor shingles(*simhash::parse_options("n=3 weight=binary", error));
  std::vector<Text> texts(descriptions.size());
  for (std::size_t i = 0; i < descriptions.size(); ++i) {
    const auto fingerprint = fingerprints.fingerprint(descriptions[i]);
    texts[i].has_fingerprint = fingerprint.has_value();
    texts[i].fingerprint = fingerprint.value_or(0);
    shingles.feature_vector(descriptions[i], texts[i].shingles);
  }
  return texts;
}

double jaccard(const Text& a, const Text& b) {
  if (a.shingles.empty() || b.shingles.empty()) {
    return 0;
  }
  return simhash::weighted_jaccard(a.shingles, b.shingles);
}

int distance(const Text& a, const Text& b) {
  return simhash::hamming_distance(a.fingerprint, b.fingerprint);
}

// 1. Precision and recall on all pairs of a sample.
void precision_and_recall(const std::vector<Text>& all, std::size_t sample_size) {
  std::vector<std::size_t> order(all.size());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 random(20261123);
  std::shuffle(order.begin(), order.end(), random);
  std::vector<const Text*> sample;
  for (std::size_t i = 0; i < order.size() && sample.size() < sample_size; ++i) {
    if (all[order[i]].has_fingerprint) {
      sample.push_back(&all[order[i]]);
    }
  }
  constexpr int kMaxRadius = 10;
  const std::array<double, 4> thresholds = {0.0, 0.5, 0.7, 0.8};  // 0: unverified
  const std::array<double, 2> truths = {0.8, 0.5};
  // found[r][t][g]: pairs within r bits with Jaccard >= thresholds[t] that
  // are true at truths[g]; candidates[r][t]: all such pairs.
  double found[kMaxRadius + 1][4][2] = {};
  double candidates[kMaxRadius + 1][4] = {};
  double truth_total[2] = {};
  double pairs = 0;
  for (std::size_t i = 0; i < sample.size(); ++i) {
    for (std::size_t j = i + 1; j < sample.size(); ++j) {
      const int bits = distance(*sample[i], *sample[j]);
      const std::size_t size_i = sample[i]->shingles.hashes.size();
      const std::size_t size_j = sample[j]->shingles.hashes.size();
      // Jaccard <= smaller / larger: below 0.5 it matters only within the radius.
      const bool may_be_true = 2 * std::min(size_i, size_j) >= std::max(size_i, size_j);
      pairs += 1;
      if (bits > kMaxRadius && !may_be_true) {
        continue;
      }
      const double similarity = jaccard(*sample[i], *sample[j]);
      for (int g = 0; g < 2; ++g) {
        truth_total[g] += similarity >= truths[g] ? 1 : 0;
      }
      for (int r = bits; r <= kMaxRadius; ++r) {
        for (int t = 0; t < 4; ++t) {
          if (similarity >= thresholds[t]) {
            candidates[r][t] += 1;
            for (int g = 0; g < 2; ++g) {
              found[r][t][g] += similarity >= truths[g] ? 1 : 0;
            }
          }
        }
      }
    }
  }
  std::printf("\n### Candidates against the exact Jaccard: all %.0f pairs of %zu texts\n\n", pairs,
              sample.size());
  std::printf("pairs with word-3-shingle Jaccard >= 0.8: %.0f; >= 0.5: %.0f\n\n", truth_total[0],
              truth_total[1]);
  for (int g = 0; g < 2; ++g) {
    std::printf("Against Jaccard >= %.1f (precision / recall; candidates)\n\n", truths[g]);
    std::printf("| r | within r bits | verified >= 0.5 | verified >= 0.7 | verified >= 0.8 |\n");
    std::printf("| --- | --- | --- | --- | --- |\n");
    for (int r = 3; r <= kMaxRadius; ++r) {
      std::printf("| %d |", r);
      for (int t = 0; t < 4; ++t) {
        const double precision = candidates[r][t] > 0 ? found[r][t][g] / candidates[r][t] : 1;
        const double recall = truth_total[g] > 0 ? found[r][t][g] / truth_total[g] : 1;
        std::printf(" %.3f / %.3f; %.0f |", precision, recall, candidates[r][t]);
      }
      std::printf("\n");
    }
    std::printf("\n");
  }
}

// The ids a keep-one removes with, for each, the id kept in its place.
struct Removal {
  std::size_t removed;
  std::size_t kept;
};

void audit(const char* method, int radius, const std::vector<Text>& texts,
           const std::vector<Removal>& removals) {
  std::size_t below_half = 0;
  std::size_t below_eight = 0;
  for (const Removal& removal : removals) {
    const double similarity = jaccard(texts[removal.removed], texts[removal.kept]);
    below_half += similarity < 0.5 ? 1 : 0;
    below_eight += similarity < 0.8 ? 1 : 0;
  }
  std::printf("| %d | %s | %zu (%.1f%%) | %zu (%.1f%%) | %zu (%.1f%%) |\n", radius, method,
              removals.size(), 100.0 * static_cast<double>(removals.size()) / texts.size(),
              below_half,
              100.0 * static_cast<double>(below_half) / std::max<std::size_t>(1, removals.size()),
              below_eight,
              100.0 * static_cast<double>(below_eight) / std::max<std::size_t>(1, removals.size()));
}

// 2. The keep-one audit on the whole corpus.
void keep_one_audit(const std::vector<Text>& texts) {
  std::printf("\n### Keep one of each group, on all %zu descriptions\n\n", texts.size());
  std::printf(
      "Removed: texts that are not their group's representative; below: of those, how many "
      "have a word-3-shingle Jaccard below 0.5 / 0.8 with the text kept in their place.\n\n");
  std::printf(
      "| r | grouping | removed | below 0.5 | below 0.8 |\n| --- | --- | --- | --- | --- |\n");
  struct Pair {
    std::uint32_t a;
    std::uint32_t b;
    int bits;
  };
  constexpr int kLargestRadius = 10;
  std::vector<Pair> pairs;  // every pair within kLargestRadius bits, a < b
  for (std::uint32_t a = 0; a < texts.size(); ++a) {
    if (!texts[a].has_fingerprint) {
      continue;
    }
    for (std::uint32_t b = a + 1; b < texts.size(); ++b) {
      if (!texts[b].has_fingerprint) {
        continue;
      }
      const int bits = distance(texts[a], texts[b]);
      if (bits <= kLargestRadius) {
        pairs.push_back({a, b, bits});
      }
    }
  }
  std::vector<double> similarity(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    similarity[i] = jaccard(texts[pairs[i].a], texts[pairs[i].b]);
  }
  for (const int radius : {3, 6, 8, 10}) {
    // Single link: the smallest id of each component is kept.
    simhash::UnionFind components(static_cast<std::uint32_t>(texts.size()));
    for (const Pair& pair : pairs) {
      if (pair.bits <= radius) {
        components.unite(pair.a, pair.b);
      }
    }
    std::vector<std::size_t> smallest(texts.size(), SIZE_MAX);
    for (std::uint32_t id = 0; id < texts.size(); ++id) {
      std::size_t& root_smallest = smallest[components.find(id)];
      root_smallest = std::min<std::size_t>(root_smallest, id);
    }
    std::vector<Removal> single_link;
    for (std::uint32_t id = 0; id < texts.size(); ++id) {
      const std::size_t kept = smallest[components.find(id)];
      if (kept != id) {
        single_link.push_back({id, kept});
      }
    }
    audit("single link (`simhash_components`)", radius, texts, single_link);

    // Leader grouping on the radius.
    std::vector<simhash::IdFingerprint> records;
    for (std::uint32_t id = 0; id < texts.size(); ++id) {
      if (texts[id].has_fingerprint) {
        records.push_back({id, texts[id].fingerprint});
      }
    }
    std::vector<Removal> leader;
    for (const auto& place : simhash::find_leader_groups(records, radius)) {
      if (place.leader != place.id) {
        leader.push_back(
            {static_cast<std::size_t>(place.id), static_cast<std::size_t>(place.leader)});
      }
    }
    audit("leader (`simhash_clusters` on the index)", radius, texts, leader);

    // Leader grouping over pairs verified at Jaccard >= 0.8, nearest = most similar.
    std::vector<simhash::RankedPair> verified;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      if (pairs[i].bits <= radius && similarity[i] >= 0.8) {
        verified.push_back({pairs[i].a, pairs[i].b, 1.0 - similarity[i]});
      }
    }
    std::vector<Removal> leader_verified;
    for (const auto& place : simhash::group_ranked_pairs(verified)) {
      if (place.leader != place.id) {
        leader_verified.push_back(
            {static_cast<std::size_t>(place.id), static_cast<std::size_t>(place.leader)});
      }
    }
    audit("leader over pairs verified >= 0.8 (`simhash_clusters` on a pairs table)", radius, texts,
          leader_verified);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t sample_size = 10000;
  std::string path = kDefaultTranslations;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--sample") == 0) {
      sample_size = static_cast<std::size_t>(std::atol(argv[i + 1]));
    } else if (std::strcmp(argv[i], "--translations") == 0) {
      path = argv[i + 1];
    }
  }
  const std::vector<std::string> descriptions = read_descriptions(path);
  if (descriptions.empty()) {
    std::fprintf(stderr, "no descriptions in %s (apt-get update -o Acquire::Languages=en)\n",
                 path.c_str());
    return 1;
  }
  std::vector<std::size_t> words;
  words.reserve(descriptions.size());
  for (const std::string& description : descriptions) {
    words.push_back(
        static_cast<std::size_t>(std::count(description.begin(), description.end(), ' ') + 1));
  }
  std::nth_element(words.begin(), words.begin() + static_cast<long>(words.size() / 2), words.end());
  std::printf("corpus: %zu descriptions from %s, median about %zu words\n", descriptions.size(),
              path.c_str(), words[words.size() / 2]);
  const std::vector<Text> texts = analyse(descriptions);
  precision_and_recall(texts, sample_size);
  keep_one_audit(texts);
  return 0;
}

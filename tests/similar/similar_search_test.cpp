// SPDX-License-Identifier: MIT
// The engine of simhash_similar (similar/similar_search.h) against brute
// force: the plan's bounds against every size and overlap that can reach a
// threshold, the byte form pinned, and find_similar over an in-memory store
// against a scan of every row with the exact weighted Jaccard that
// simhash_jaccard computes, on randomized sets with near copies (fixed seeds),
// through the postings path, the direct path and the bounded-work scan,
// ranked by counting postings or by kept counts (right or wrong), and the n
// most similar with a limit (the first n of the scan's answer).
#include "similar/similar_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include "fingerprint/feature_similarity.h"

namespace simhash {
namespace {

using Hashes = std::vector<std::uint64_t>;

// A set as simhash_jaccard sees it with weight=binary: every weight 1.
FeatureVector vector_of(const Hashes& hashes) {
  FeatureVector vector;
  vector.hashes = hashes;
  for (std::size_t i = 0; i < hashes.size(); ++i) {
    vector.weights.push_back(1.0);
    vector.sum_of_weights += 1.0;
    vector.sum_of_squares += 1.0;
  }
  return vector;
}

// A store kept in maps, as the shadow tables keep it; with `kept_counts`,
// a count of holders per feature as <name>_counts keeps it (format 2).
// With a `key_shift`, postings and counts are kept under a key that many
// features share, `hash >> key_shift`, one posting a row and key (format 3
// keeps them under the top 32 bits): a key's postings are a superset of
// each of its features'.
class ModelStore : public SimilarStore {
 public:
  explicit ModelStore(bool kept_counts = false, int key_shift = 0)
      : kept_counts_(kept_counts), key_shift_(key_shift) {}
  void add(std::int64_t id, const Hashes& hashes) {
    rows_[id] = hashes;
    vectors_[id] = vector_of(hashes);
    std::set<std::uint64_t> keys;
    for (const std::uint64_t hash : hashes) {
      keys.insert(key_of(hash));
    }
    for (const std::uint64_t key : keys) {
      postings_[key].insert({hashes.size(), id});
      ++counts_[key];
    }
  }
  // Makes a kept count wrong (as a damaged file could): the search must stay exact.
  void set_count(std::uint64_t hash, std::uint64_t count) { counts_[hash] = count; }
  int postings_counted = 0;  // count_postings calls
  const std::map<std::int64_t, FeatureVector>& vectors() const { return vectors_; }

  std::uint64_t count_postings(std::uint64_t feature, SizeRange sizes,
                               std::uint64_t limit) override {
    ++postings_counted;
    std::uint64_t count = 0;
    read_postings(feature, sizes, [&](std::int64_t, std::uint64_t) { return ++count < limit; });
    return std::min(count, limit);
  }
  void read_postings(
      std::uint64_t feature, SizeRange sizes,
      const std::function<bool(std::int64_t id, std::uint64_t size)>& on_posting) override {
    const auto found = postings_.find(key_of(feature));
    if (found == postings_.end()) {
      return;
    }
    for (auto it = found->second.lower_bound({sizes.lowest, INT64_MIN});
         it != found->second.end() && it->first <= sizes.highest; ++it) {
      if (!on_posting(it->second, it->first)) {
        return;
      }
    }
  }
  std::uint64_t count_rows(SizeRange sizes, std::uint64_t limit) override {
    std::uint64_t count = 0;
    for (const auto& [id, hashes] : rows_) {
      count += in(sizes, hashes.size()) ? 1 : 0;
    }
    return std::min(count, limit);
  }
  void read_row_sizes(SizeRange sizes,
                      const std::function<void(std::int64_t, std::uint64_t)>& on_row) override {
    for (const auto& [id, hashes] : rows_) {
      if (in(sizes, hashes.size())) {
        on_row(id, hashes.size());
      }
    }
  }
  void read_row(std::int64_t id, Hashes& out) override { out = rows_.at(id); }
  // With a piece size, rows are handed to the verification in pieces of it
  // (as the glue reads long rows), and the features handed out are counted.
  void set_piece(std::size_t piece) { piece_ = piece; }
  std::uint64_t features_handed = 0;
  void read_row_pieces(
      std::int64_t id, std::uint64_t size,
      const std::function<bool(std::span<const std::uint64_t>)>& on_piece) override {
    if (piece_ == 0) {
      SimilarStore::read_row_pieces(id, size, on_piece);
      return;
    }
    const Hashes& row = rows_.at(id);
    EXPECT_EQ(row.size(), size) << "a posting's size is its row's";
    for (std::size_t at = 0; at < row.size(); at += piece_) {
      const std::span<const std::uint64_t> piece(row.data() + at,
                                                 std::min(piece_, row.size() - at));
      features_handed += piece.size();
      if (!on_piece(piece)) {
        return;
      }
    }
  }
  bool keeps_feature_counts() override { return kept_counts_; }
  std::uint64_t feature_count(std::uint64_t feature) override {
    const auto found = counts_.find(key_of(feature));
    return found == counts_.end() ? 0 : found->second;
  }

 private:
  static bool in(SizeRange sizes, std::size_t size) {
    return size >= sizes.lowest && size <= sizes.highest;
  }
  std::uint64_t key_of(std::uint64_t hash) const {
    return key_shift_ == 0 ? hash : hash >> key_shift_;
  }
  std::map<std::int64_t, Hashes> rows_;
  std::map<std::int64_t, FeatureVector> vectors_;  // the rows as simhash_jaccard sees them
  std::map<std::uint64_t, std::set<std::pair<std::uint64_t, std::int64_t>>> postings_;
  std::map<std::uint64_t, std::uint64_t> counts_;
  bool kept_counts_;
  int key_shift_;
  std::size_t piece_ = 0;
};

// Every row's similarity to `query` (each row's vector made once).
std::vector<SimilarMatch> all_similarities(const ModelStore& store, const Hashes& query) {
  std::vector<SimilarMatch> all;
  if (query.empty()) {
    return all;
  }
  const FeatureVector a = vector_of(query);
  for (const auto& [id, vector] : store.vectors()) {
    if (!vector.empty()) {
      all.push_back({id, weighted_jaccard(a, vector)});
    }
  }
  return all;
}

// The scan's answer at `threshold`, most similar first, then by id.
std::vector<SimilarMatch> at_least(std::vector<SimilarMatch> all, double threshold) {
  std::erase_if(all, [&](const SimilarMatch& match) { return match.similarity < threshold; });
  std::sort(all.begin(), all.end(), [](const SimilarMatch& x, const SimilarMatch& y) {
    return x.similarity != y.similarity ? x.similarity > y.similarity : x.id < y.id;
  });
  return all;
}

// Sets drawn from a universe of `universe` features with a skew (a few
// common, most rare), and near copies of them.
class SetMaker {
 public:
  SetMaker(std::uint64_t universe, std::uint64_t seed) : universe_(universe), random_(seed) {}
  Hashes fresh(std::size_t size) {
    std::set<std::uint64_t> chosen;
    while (chosen.size() < std::min<std::uint64_t>(size, universe_)) {
      chosen.insert(draw());
    }
    return {chosen.begin(), chosen.end()};
  }
  // `base` with `edits` features replaced, removed or added.
  Hashes near(const Hashes& base, int edits) {
    std::set<std::uint64_t> copy(base.begin(), base.end());
    for (int i = 0; i < edits; ++i) {
      const auto what = random_() % 3;
      if (what != 1 && !copy.empty()) {
        auto it = copy.begin();
        std::advance(it, static_cast<std::ptrdiff_t>(random_() % copy.size()));
        copy.erase(it);
      }
      if (what != 0) {
        copy.insert(draw());
      }
    }
    return {copy.begin(), copy.end()};
  }
  std::mt19937_64& random() { return random_; }

 private:
  std::uint64_t draw() {
    const double u = static_cast<double>(random_() >> 11) * 0x1.0p-53;
    const auto index = static_cast<std::uint64_t>(static_cast<double>(universe_) * u * u * u);
    // Spread over 64 bits, both signs as SQL stores them.
    return (index + 1) * 0x9E3779B97F4A7C15ULL;
  }
  std::uint64_t universe_;
  std::mt19937_64 random_;
};

TEST(SimilarPlan, BoundsHoldEveryRowAtTheThreshold) {
  // For every query size n, stored size s and overlap o that reach t,
  // the plan keeps s in its size range and o at least |x| - p + 1.
  for (const double t : {0.05, 0.1, 0.3, 1.0 / 3, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 0.95, 1.0}) {
    for (std::size_t n = 1; n <= 90; ++n) {
      const SimilarPlan plan = plan_similar_query(n, t);
      ASSERT_GE(plan.probe_count, 1U);
      ASSERT_LE(plan.probe_count, n);
      for (std::size_t s = 1; s <= 4 * n + 4; ++s) {
        for (std::size_t o = 1; o <= std::min(n, s); ++o) {
          const double j = static_cast<double>(o) / static_cast<double>(n + s - o);
          if (j < t) {
            continue;
          }
          EXPECT_GE(s, plan.sizes.lowest) << "t=" << t << " n=" << n << " s=" << s;
          EXPECT_LE(s, plan.sizes.highest) << "t=" << t << " n=" << n << " s=" << s;
          // Some p features of x miss y only if x keeps >= o shared among the rest.
          EXPECT_GT(o + plan.probe_count, n) << "t=" << t << " n=" << n << " o=" << o;
        }
      }
    }
  }
}

TEST(SimilarPlan, ProbesAsFewAsTheBoundAllows) {
  // Not needlessly loose: p = n - ceil(t n) + 1 where t n is not near an integer.
  EXPECT_EQ(plan_similar_query(100, 0.8).probe_count, 21U);
  EXPECT_EQ(plan_similar_query(10, 0.75).probe_count, 3U);  // ceil(7.5) = 8
  EXPECT_EQ(plan_similar_query(10, 1.0).probe_count, 1U);
  EXPECT_EQ(plan_similar_query(10, 0.75).sizes.lowest, 8U);
  EXPECT_EQ(plan_similar_query(10, 0.75).sizes.highest, 13U);  // 13.33
  EXPECT_EQ(plan_similar_query(1, 1e-300).sizes.lowest, 1U);   // a huge bound stays finite
}

TEST(SimilarCodec, BytesAreLittleEndianOnEveryMachine) {
  const Hashes hashes = {0x0102030405060708ULL, 0xF0E0D0C0B0A09080ULL};
  const std::string bytes = encode_features(hashes);
  const std::string expected("\x08\x07\x06\x05\x04\x03\x02\x01\x80\x90\xA0\xB0\xC0\xD0\xE0\xF0",
                             16);
  EXPECT_EQ(bytes, expected);
  Hashes decoded;
  const auto* raw = reinterpret_cast<const unsigned char*>(bytes.data());
  ASSERT_TRUE(decode_features({raw, bytes.size()}, decoded));
  EXPECT_EQ(decoded, hashes);
  EXPECT_FALSE(decode_features({raw, 15}, decoded));  // not whole hashes
  const std::string reversed = encode_features(Hashes{hashes[1], hashes[0]});
  EXPECT_FALSE(decode_features(
      {reinterpret_cast<const unsigned char*>(reversed.data()), reversed.size()}, decoded));
  const std::string twice = encode_features(Hashes{5, 5});
  EXPECT_FALSE(
      decode_features({reinterpret_cast<const unsigned char*>(twice.data()), 16}, decoded));
  EXPECT_TRUE(decode_features({raw, 0}, decoded));
  EXPECT_TRUE(decoded.empty());
}

// Random stores of families of near copies; every query (a stored row's near
// copy or a fresh set) answered as the scan answers, similarity bit for bit.
void expect_exact(std::uint64_t universe, std::size_t max_size, std::uint64_t seed,
                  bool* saw_scan = nullptr, bool* saw_postings = nullptr, bool kept_counts = false,
                  bool wrong_counts = false, bool* saw_sample = nullptr, std::size_t piece = 0,
                  bool* saw_beyond_limit = nullptr, int key_shift = 0) {
  SetMaker maker(universe, seed);
  ModelStore store(kept_counts, key_shift);
  store.set_piece(piece);
  std::vector<Hashes> bases;
  std::int64_t id = 0;
  for (int family = 0; family < 40; ++family) {
    bases.push_back(maker.fresh(1 + maker.random()() % max_size));
    for (int member = 0; member < 6; ++member) {
      store.add(id += 1 + static_cast<std::int64_t>(maker.random()() % 3),
                maker.near(bases.back(), static_cast<int>(maker.random()() % 6)));
    }
  }
  store.add(++id, {});  // a row without features: never found
  if (wrong_counts) {
    // Any p features serve: counts that rank the common ones first, or
    // say nothing (0), change the cost only.
    for (std::uint64_t k = 0; k < universe; k += 3) {
      store.set_count((k + 1) * 0x9E3779B97F4A7C15ULL, (k * 7919) % 5);
    }
  }
  for (int q = 0; q < 60; ++q) {
    const Hashes query = q % 4 == 3 ? maker.fresh(1 + maker.random()() % max_size)
                                    : maker.near(bases[maker.random()() % bases.size()],
                                                 static_cast<int>(maker.random()() % 4));
    const std::vector<SimilarMatch> all = all_similarities(store, query);
    for (const double t : {0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 1.0, 1.0 / 3}) {
      SimilarCounts counts;
      const auto found = find_similar(query, t, store, {}, &counts);
      ASSERT_EQ(found, at_least(all, t)) << "seed " << seed << " query " << q << " t " << t;
      // The n most similar (ties by id) with a rising threshold: the first
      // n of the whole answer, bit for bit (n from 1 to 3 by query).
      {
        const auto limit = static_cast<std::size_t>(1 + q % 3);
        SimilarCounts limited;
        const auto first = find_similar(query, t, store, {}, &limited, limit);
        const std::vector<SimilarMatch> want(
            found.begin(),
            found.begin() + static_cast<std::ptrdiff_t>(std::min(limit, found.size())));
        ASSERT_EQ(first, want) << "seed " << seed << " query " << q << " t " << t << " limit "
                               << limit;
        ASSERT_LE(limited.checked, counts.checked);
        if (saw_beyond_limit != nullptr && limited.beyond_limit > 0) {
          *saw_beyond_limit = true;
        }
      }
      if (saw_scan != nullptr && counts.scanned_sizes) {
        *saw_scan = true;
      }
      if (saw_postings != nullptr && counts.probed_features > 0) {
        *saw_postings = true;
      }
      if (saw_sample != nullptr && counts.ranking_steps > 0 &&
          counts.ranking_steps < query.size()) {
        *saw_sample = true;  // ranked on a sample of the query's features
      }
    }
  }
}

TEST(FindSimilar, EqualsTheScanOnRareFeatures) {
  bool postings = false;
  bool beyond_limit = false;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    expect_exact(100000, 60, seed, nullptr, &postings, false, false, nullptr, 0, &beyond_limit);
  }
  EXPECT_TRUE(postings);      // the postings path ran
  EXPECT_TRUE(beyond_limit);  // and a limit left candidates unread
}

TEST(FindSimilar, EqualsTheScanOnCommonFeatures) {
  // 60 features in all: every feature is in many rows, so the postings
  // outnumber the rows of the sizes and the bounded-work scan runs.
  bool scan = false;
  bool beyond_limit = false;
  for (std::uint64_t seed = 11; seed <= 13; ++seed) {
    expect_exact(60, 40, seed, &scan, nullptr, false, false, nullptr, 0, &beyond_limit);
  }
  EXPECT_TRUE(scan);
  EXPECT_TRUE(beyond_limit);  // rows of the sizes left unread by their size alone
}

TEST(FindSimilar, EqualsTheScanWithKeptCounts) {
  bool postings = false;
  bool scan = false;
  for (std::uint64_t seed = 21; seed <= 23; ++seed) {
    expect_exact(100000, 60, seed, nullptr, &postings, true);
    expect_exact(60, 40, seed, &scan, nullptr, true);
  }
  EXPECT_TRUE(postings);
  EXPECT_TRUE(scan);  // common features: the postings read pass the rows
}

TEST(FindSimilar, EqualsTheScanWhenFeaturesSharePostingKeys) {
  // 64 or 4,096 keys for thousands of features: most probed lists hold rows
  // without the feature, and a row holding two probed features of one key
  // is one posting, read under each; the ranking, the count filter and the
  // limit must stay exact.
  bool postings = false;
  bool scan = false;
  for (std::uint64_t seed = 41; seed <= 43; ++seed) {
    for (const int shift : {52, 58}) {
      for (const bool kept_counts : {false, true}) {
        expect_exact(100000, 60, seed, nullptr, &postings, kept_counts, false, nullptr, 0, nullptr,
                     shift);
        expect_exact(2000, 60, seed, &scan, nullptr, kept_counts, false, nullptr, 0, nullptr,
                     shift);
      }
    }
  }
  EXPECT_TRUE(postings);
  EXPECT_TRUE(scan);
}

TEST(FindSimilar, EqualsTheScanWithWrongKeptCounts) {
  for (std::uint64_t seed = 31; seed <= 32; ++seed) {
    expect_exact(2000, 60, seed, nullptr, nullptr, true, true);
  }
}

TEST(FindSimilar, EqualsTheScanOnLongSetsRankedOnASample) {
  // Sets of up to 900 features: kept counts rank a sample of a long query
  // (kCheapPostings), and a long query's sizes with a few dozen rows are
  // verified directly (kFeaturesPerDirectRow); right counts and wrong ones.
  bool postings = false;
  bool scan = false;
  bool sample = false;
  for (std::uint64_t seed = 41; seed <= 42; ++seed) {
    expect_exact(100000, 900, seed, &scan, &postings, true, false, &sample);
    expect_exact(100000, 900, seed, nullptr, nullptr, true, true);
  }
  EXPECT_TRUE(postings);
  EXPECT_TRUE(scan);
  EXPECT_TRUE(sample);
}

TEST(FindSimilar, EqualsTheScanOnTemplatedFamilies) {
  // Two families of templated rows among 1,500 others of their sizes: each
  // member holds 42 of its template's 45 features and 2 of its own (two
  // members are near 0.8), so a
  // member's query has too few features below kCheapPostings. The family
  // of 120 is ranked on its postings up to kFewPostings, the family of 250
  // by the kept counts; the other rows keep the postings read below the
  // rows of the sizes, so the probes are read (no bounded-work scan).
  SetMaker maker(std::uint64_t{1} << 40, 51);
  ModelStore store(true);
  std::vector<Hashes> members;
  std::int64_t id = 0;
  for (const int family : {120, 250}) {
    Hashes shared;
    for (std::uint64_t k = 0; k < 45; ++k) {
      shared.push_back((static_cast<std::uint64_t>(family) * 1000 + k) * 0xD1B54A32D192ED03ULL);
    }
    for (int member = 0; member < family; ++member) {
      std::shuffle(shared.begin(), shared.end(), maker.random());
      Hashes hashes(shared.begin(), shared.begin() + 42);
      const Hashes own = maker.fresh(2);
      hashes.insert(hashes.end(), own.begin(), own.end());
      std::sort(hashes.begin(), hashes.end());
      hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
      store.add(++id, hashes);
      members.push_back(hashes);
    }
  }
  for (int other = 0; other < 1500; ++other) {
    store.add(++id, maker.fresh(36 + maker.random()() % 9));
  }
  bool probed = false;
  for (int q = 0; q < 24; ++q) {
    const Hashes query = maker.near(members[maker.random()() % members.size()],
                                    static_cast<int>(maker.random()() % 5));
    const std::vector<SimilarMatch> all = all_similarities(store, query);
    for (const double t : {0.6, 0.7, 0.75, 0.8, 0.9}) {
      for (const std::size_t limit : {std::size_t{0}, std::size_t{2}}) {
        SimilarCounts counts;
        const auto found = find_similar(query, t, store, {}, &counts, limit);
        std::vector<SimilarMatch> want = at_least(all, t);
        if (limit != 0 && want.size() > limit) {
          want.resize(limit);
        }
        ASSERT_EQ(found, want) << "query " << q << " t " << t << " limit " << limit;
        probed = probed || (counts.probed_features > 0 && !counts.scanned_sizes);
      }
    }
  }
  EXPECT_TRUE(probed);
}

TEST(FindSimilar, EqualsTheScanReadingRowsInPieces) {
  // The verification takes a candidate's features a piece at a time and
  // stops once its verdict is known: the same answers, similarities bit for
  // bit, with pieces of one feature, a few and many, short sets and long.
  for (const std::size_t piece : {1, 7, 64}) {
    bool scan = false;  // the rows of the sizes verified in pieces too
    expect_exact(60, 40, 54, &scan, nullptr, false, false, nullptr, piece);
    EXPECT_TRUE(scan);
    expect_exact(100000, 60, 51, nullptr, nullptr, false, false, nullptr, piece);
    expect_exact(100000, 900, 52, nullptr, nullptr, true, false, nullptr, piece);
    expect_exact(2000, 300, 53, nullptr, nullptr, true, true, nullptr, piece);
  }
}

// Rows of 900 features against a query of 900 at t = 0.8, where 800 shared
// features give exactly 0.8 (800 / 1000) and 799 fall short. Row 1 holds
// 100 features of its own, below every shared one in hash order, so its merge
// meets the bound with no slack at all (none shared so far, 800 left on
// either side, 800 needed): it must be read to its end and found at exactly
// t. Row 2 holds 101 of its own and 799 shared: out of reach after its own
// 101, its other pieces are never read. Row 3 holds the 800 shared and 100
// above every query feature: its similarity (0.8 too) is final once the
// query's last feature is passed, and its last pieces are not read. 300 rows of the
// same size (none of the query's features) keep the search on its postings
// (181 probed, 243 postings) rather than verifying the rows of the sizes.
TEST(FindSimilar, LongRowsAtExactlyTheThresholdAreFoundWhileOthersAreReadInPart) {
  const auto range = [](std::uint64_t first, std::uint64_t count) {
    Hashes hashes;
    for (std::uint64_t k = 0; k < count; ++k) {
      hashes.push_back(first + k);
    }
    return hashes;
  };
  const auto joined = [](Hashes a, const Hashes& b) {
    a.insert(a.end(), b.begin(), b.end());
    std::sort(a.begin(), a.end());
    return a;
  };
  const Hashes shared = range(10001, 800);
  const Hashes query = joined(range(1, 100), shared);
  for (const bool kept_counts : {false, true}) {
    ModelStore store(kept_counts);
    store.set_piece(16);
    store.add(1, joined(range(101, 100), shared));
    store.add(2, joined(range(201, 101), range(10001, 799)));
    store.add(3, joined(shared, range(20001, 100)));
    // The shared feature row 2 lacks, held by another row: every shared
    // feature is then in three rows, and the probes (the first of them by
    // hash) find row 2 often enough to pass the count filter.
    store.add(4, joined(range(10800, 1), range(3000000, 899)));
    for (std::int64_t id = 1000; id < 1300; ++id) {
      store.add(id, range(1000000 + 1000 * static_cast<std::uint64_t>(id), 900));
    }
    SimilarCounts counts;
    const auto found = find_similar(query, 0.8, store, {}, &counts);
    EXPECT_EQ(found, (std::vector<SimilarMatch>{{1, 0.8}, {3, 0.8}}));
    EXPECT_EQ(found, at_least(all_similarities(store, query), 0.8));
    EXPECT_FALSE(counts.scanned_sizes);
    EXPECT_EQ(counts.checked, 3U);
    // Row 1 whole (900); row 2 its first 7 pieces (101 of its own, then
    // out of reach); row 3 its first 50 (its 800th feature is the query's last).
    EXPECT_EQ(store.features_handed, 900U + 112U + 800U);
    EXPECT_EQ(counts.row_features, store.features_handed);
    // Just below: row 1 is out of reach when one shared feature is missing
    // from the query (799 of 999 is below 0.8).
    Hashes less = query;
    less.erase(std::find(less.begin(), less.end(), std::uint64_t{10500}));
    EXPECT_EQ(find_similar(less, 0.8, store), at_least(all_similarities(store, less), 0.8));
  }
}

// A long query's rows of its sizes: verified directly up to kDirectRows plus
// one per kFeaturesPerDirectRow query features (16 + 640 / 8 = 96), ranked
// beyond (the query's features are in no row: nothing to read).
TEST(FindSimilar, LongQueriesVerifyAFewDozenRowsOfTheirSizesDirectly) {
  Hashes query;
  for (std::uint64_t k = 1; k <= 640; ++k) {
    query.push_back(k);
  }
  for (const std::int64_t rows : {96, 97}) {
    ModelStore store(true);
    for (std::int64_t id = 1; id <= rows; ++id) {
      Hashes own;
      for (std::uint64_t k = 0; k < 640; ++k) {
        own.push_back(100000 * static_cast<std::uint64_t>(id) + k);
      }
      store.add(id, own);
    }
    SimilarCounts counts;
    EXPECT_TRUE(find_similar(query, 0.8, store, {}, &counts).empty());
    EXPECT_EQ(counts.scanned_sizes, rows == 96) << rows;
    EXPECT_EQ(counts.checked, rows == 96 ? 96U : 0U) << rows;
    EXPECT_EQ(counts.ranking_steps > 0, rows == 97) << rows;
  }
}

// With kept counts a long query first counts the postings of its features
// in the size range, in their order (p = 400 - 320 + 1 = 81 at t = 0.8):
// here features 1..40 are in no row and 41..81 in row 2 only, so the first
// 81 hold fewer than kCheapPostings and the walk stops there; the 40 that
// hold nothing are not read (41 probed). When features 1..200 are held by
// a family of 100 rows each (a templated text), the first 16 are all at
// kCheapPostings, too few below it to make 81, so they are counted again
// up to kFewPostings (100 each, below it) and the walk goes on at that cap
// to feature 81 (16 + 16 + 65 counts, no kept count looked up); the 81
// probes hold more postings than the sizes hold rows, so those rows are
// verified instead. When the family is 200 rows, the second cap gives up
// too (16 + 16 counted), and every feature is ranked by its kept count
// (those 16 and the other 384 looked up), which probes 81 of 201..360 (row
// 2's alone). The stored row at the threshold is found every way.
TEST(FindSimilar, KeptCountsRankALongQueryOnItsPostingsWhileTheyAreFew) {
  Hashes query;
  for (std::uint64_t k = 1; k <= 400; ++k) {
    query.push_back(k);
  }
  for (const std::int64_t family : {0, 100, 200}) {
    ModelStore store(true);
    // Row 1 shares 361..400 and has 360 of its own: J = 40 / 760, not found.
    // Row 2 is the query less 1..40: J = 0.9.
    Hashes far(query.end() - 40, query.end());
    for (std::uint64_t k = 0; k < 360; ++k) {
      far.push_back(200000 + k);
    }
    store.add(1, far);
    store.add(2, Hashes(query.begin() + 40, query.end()));
    for (std::int64_t id = 3; id <= 2 + std::max<std::int64_t>(family, 100); ++id) {
      Hashes hashes;
      for (std::uint64_t k = 0; k < 400; ++k) {
        hashes.push_back(id <= 2 + family && k < 200 ? k + 1
                                                     : 100000 * static_cast<std::uint64_t>(id) + k);
      }
      std::sort(hashes.begin(), hashes.end());
      store.add(id, hashes);
    }
    SimilarCounts counts;
    EXPECT_EQ(find_similar(query, 0.8, store, {}, &counts), (std::vector<SimilarMatch>{{2, 0.9}}));
    const std::size_t at = family / 100;
    EXPECT_EQ(counts.ranking_steps, (std::array<std::uint64_t, 3>{81, 97, 432}[at])) << family;
    EXPECT_EQ(store.postings_counted, (std::array<int, 3>{81, 97, 32}[at])) << family;
    EXPECT_EQ(counts.scanned_sizes, family == 100) << family;
    if (family != 100) {
      EXPECT_EQ(counts.probed_features, family == 0 ? 41U : 81U) << family;
      EXPECT_EQ(counts.postings, family == 0 ? 41U : 81U) << family;
    }
  }
}

// The second cap's choice of p: a query of n features (n <= 16,
// so the sample check never stops a walk) whose p rare ones are held by 64
// to 191 rows of its sizes each and the other n - p by 192 or more, in a
// shuffled hash order. The first walk finds none below kCheapPostings and
// gives up after n - p + 1 features; the second counts them again to
// kFewPostings and walks on to the last rare one. Row 1 holds the query's
// n - p common features and only the rare one with the most postings (the
// p-th of the probes): m = n - p + 1 of the query's n, J = m / n >= t, in
// no other probed list. Probing fewer than p (p - 1, p / 2) misses it: the
// rows it is not in are too few for the count filter to need it. Other
// rows of the sizes outnumber the probes' postings (no bounded-work scan),
// and hold each common feature in at most a third of them.
TEST(FindSimilar, KeptCountsProbeAllPOfTheSecondCap) {
  struct Case {
    std::size_t n;
    double t;
  };
  std::mt19937_64 random(61);
  for (const Case c : {Case{10, 0.65}, Case{12, 0.8}, Case{16, 0.7}}) {
    const SimilarPlan plan = plan_similar_query(c.n, c.t);
    const std::size_t p = plan.probe_count;
    ASSERT_GE(p, 3U);  // p - 1 and p / 2 both fewer than p, and not none
    std::set<std::uint64_t> drawn;
    while (drawn.size() < c.n) {
      drawn.insert(random());
    }
    const Hashes query(drawn.begin(), drawn.end());
    // How many rows hold each query feature: p distinct counts in 64..127
    // at p places in the hash order, 192..255 elsewhere.
    std::vector<std::size_t> places(c.n);
    for (std::size_t i = 0; i < c.n; ++i) {
      places[i] = i;
    }
    std::shuffle(places.begin(), places.end(), random);
    std::vector<std::uint64_t> holders(c.n);
    std::set<std::uint64_t> rare_counts;
    while (rare_counts.size() < p) {
      rare_counts.insert(kCheapPostings + random() % 64);
    }
    std::size_t last_rare = 0;  // in hash order: where the second walk stops
    std::size_t most_held = 0;  // the rare feature probed last (most postings)
    auto rare_count = rare_counts.begin();
    for (std::size_t k = 0; k < c.n; ++k) {
      const std::size_t at = places[k];
      if (k < p) {
        holders[at] = *rare_count++;
        last_rare = std::max(last_rare, at);
        most_held = holders[at] == *rare_counts.rbegin() ? at : most_held;
      } else {
        holders[at] = kFewPostings + random() % 64;
      }
    }
    ModelStore store(true);
    Hashes found_by_the_last;
    for (std::size_t i = 0; i < c.n; ++i) {
      if (i == most_held || holders[i] >= kFewPostings) {
        found_by_the_last.push_back(query[i]);
        --holders[i];
      }
    }
    ASSERT_EQ(found_by_the_last.size(), c.n - p + 1);
    store.add(1, found_by_the_last);
    // The other rows, of sizes in the range: each feature in as many as it
    // needs, chosen at random, the rest of each row its own features.
    const std::size_t others =
        std::accumulate(rare_counts.begin(), rare_counts.end(), std::size_t{3 * kFewPostings});
    std::vector<Hashes> rows(others);
    std::vector<std::size_t> order(others);
    for (std::size_t i = 0; i < others; ++i) {
      order[i] = i;
    }
    for (std::size_t i = 0; i < c.n; ++i) {
      std::shuffle(order.begin(), order.end(), random);
      for (std::size_t k = 0; k < holders[i]; ++k) {
        rows[order[k]].push_back(query[i]);
      }
    }
    std::int64_t id = 1;
    for (Hashes& row : rows) {
      const std::uint64_t size = std::max<std::uint64_t>(
          row.size(), plan.sizes.lowest + random() % (plan.sizes.highest - plan.sizes.lowest + 1));
      while (row.size() < size) {
        const std::uint64_t own = random();
        if (drawn.count(own) == 0) {
          row.push_back(own);
        }
      }
      std::sort(row.begin(), row.end());
      store.add(++id, row);
    }
    const std::vector<SimilarMatch> all = all_similarities(store, query);
    const std::vector<SimilarMatch> want = at_least(all, c.t);
    // Row 1 at m / n, first by its id (another row may share as much).
    ASSERT_FALSE(want.empty());
    ASSERT_EQ(want.front().id, 1) << "n " << c.n;
    for (const std::size_t limit : {std::size_t{0}, std::size_t{1}}) {
      store.postings_counted = 0;
      SimilarCounts counts;
      EXPECT_EQ(find_similar(query, c.t, store, {}, &counts, limit), want) << "n " << c.n;
      // n - p + 1 counted to the first cap and again to the second, then
      // the walk on to the last rare one; no kept count looked up.
      const std::size_t walked = c.n - p + 1;
      const std::uint64_t steps = 2 * walked + (last_rare < walked ? 0 : last_rare + 1 - walked);
      EXPECT_EQ(counts.ranking_steps, steps) << "n " << c.n;
      EXPECT_EQ(static_cast<std::uint64_t>(store.postings_counted), steps) << "n " << c.n;
      EXPECT_EQ(counts.probed_features, p) << "n " << c.n;
      EXPECT_FALSE(counts.scanned_sizes) << "n " << c.n;
    }
  }
}

TEST(FindSimilar, KeptCountsRankOnThePostingsOfASample) {
  // As ReadsOnlyTheRarestPostings, with kept counts: the sample counts
  // postings in the size range (features 1..5 at the cap of 16, then 7000
  // and 7001 with one each: p = 2 rare ones, and it stops), and the two
  // probes read the postings just counted; no kept count is looked up.
  ModelStore store(true);
  for (std::int64_t id = 1; id <= 200; ++id) {
    Hashes hashes = {1, 2, 3, 4, 5};
    for (std::uint64_t k = 0; k < 5; ++k) {
      hashes.push_back(1000 * static_cast<std::uint64_t>(id) + k);
    }
    store.add(id, hashes);
  }
  const Hashes query = {1, 2, 3, 4, 5, 7000, 7001, 7002, 7003, 7004};
  SimilarCounts counts;
  EXPECT_EQ(find_similar(query, 0.9, store, {}, &counts), (std::vector<SimilarMatch>{{7, 1.0}}));
  EXPECT_EQ(store.postings_counted, 7);
  EXPECT_EQ(counts.ranking_steps, 7U);
  EXPECT_EQ(counts.probed_features, 2U);
  EXPECT_EQ(counts.postings, 2U);
  EXPECT_EQ(counts.checked, 1U);
  EXPECT_FALSE(counts.scanned_sizes);
  // Without kept counts the same query counts every feature's postings.
  ModelStore counting;
  for (std::int64_t id = 1; id <= 200; ++id) {
    Hashes hashes;
    store.read_row(id, hashes);
    counting.add(id, hashes);
  }
  SimilarCounts counted;
  EXPECT_EQ(find_similar(query, 0.9, counting, {}, &counted),
            (std::vector<SimilarMatch>{{7, 1.0}}));
  EXPECT_GT(counting.postings_counted, store.postings_counted);
  EXPECT_GT(counted.ranking_steps, counts.ranking_steps);
}

// A query of features no row holds: the sample counts p of them, finds each
// in no posting, and reads nothing, whatever the kept counts say (0 here for
// features 1..3, which rows do hold: a kept count is not trusted to skip).
TEST(FindSimilar, FeaturesCountedInNoPostingAreNotRead) {
  ModelStore store(true);
  for (std::int64_t id = 1; id <= 40; ++id) {
    Hashes hashes = {1, 2, 3};
    for (std::uint64_t k = 0; k < 7; ++k) {
      hashes.push_back(1000 * static_cast<std::uint64_t>(id) + k);
    }
    store.add(id, hashes);
  }
  for (std::uint64_t k = 1; k <= 3; ++k) {
    store.set_count(k, 0);
  }
  Hashes novel;
  for (std::uint64_t k = 0; k < 10; ++k) {
    novel.push_back(900000 + k);
  }
  SimilarCounts counts;
  EXPECT_TRUE(find_similar(novel, 0.8, store, {}, &counts).empty());
  EXPECT_EQ(counts.ranking_steps, 3U);  // p = 10 - 8 + 1
  EXPECT_EQ(counts.probed_features, 0U);
  EXPECT_EQ(counts.postings, 0U);
  EXPECT_EQ(counts.checked, 0U);
  // Row 1's own text: 1..3 are held by 40 rows (at the cap), its own
  // features by one; found, though the kept counts of 1..3 say 0.
  Hashes own;
  store.read_row(1, own);
  EXPECT_EQ(find_similar(own, 0.8, store, {}, &counts), (std::vector<SimilarMatch>{{1, 1.0}}));
}

TEST(FindSimilar, EmptyQueryFindsNothingAndFewRowsAreVerifiedDirectly) {
  ModelStore store;
  store.add(1, {1, 2, 3});
  store.add(2, {});
  EXPECT_TRUE(find_similar({}, 0.5, store).empty());
  SimilarCounts counts;
  const Hashes query = {1, 2, 3};
  EXPECT_EQ(find_similar(query, 0.5, store, {}, &counts), (std::vector<SimilarMatch>{{1, 1.0}}));
  EXPECT_TRUE(counts.scanned_sizes);  // one row of its sizes: no ranking
  EXPECT_EQ(counts.probed_features, 0U);
}

TEST(FindSimilar, ReadsOnlyTheRarestPostings) {
  // Many rows share features 1..5; each also has its own. A query of the
  // shared five and one row's own five at t = 0.9 probes 10 - 9 + 1 = 2
  // features: the row's own, not the shared ones.
  ModelStore store;
  for (std::int64_t id = 1; id <= 200; ++id) {
    Hashes hashes = {1, 2, 3, 4, 5};
    for (std::uint64_t k = 0; k < 5; ++k) {
      hashes.push_back(1000 * static_cast<std::uint64_t>(id) + k);
    }
    store.add(id, hashes);
  }
  const Hashes query = {1, 2, 3, 4, 5, 7000, 7001, 7002, 7003, 7004};
  SimilarCounts counts;
  EXPECT_EQ(find_similar(query, 0.9, store, {}, &counts), (std::vector<SimilarMatch>{{7, 1.0}}));
  EXPECT_EQ(counts.probed_features, 2U);
  EXPECT_EQ(counts.postings, 2U);
  EXPECT_EQ(counts.checked, 1U);
  EXPECT_FALSE(counts.scanned_sizes);
}

// The count filter: a row found in h of the probed lists shares at most
// h + (|x| - probed) features with the query. Query {1..20} at t = 0.8
// probes its 5 rarest features, 1..5; each of 50 rows holds one of them and
// 19 of its own (size 20), so it shares at most 1 + 15 = 16 < 0.8 * 40 / 1.8
// features: dropped without being read. Features 6..20 are common (100 rows
// of 25 features hold them, J = 0.5) and are not probed. The query itself,
// stored, is in all 5 lists and is verified.
TEST(FindSimilar, CountFilterDropsRowsThatCannotShareEnough) {
  ModelStore store;
  Hashes query;
  for (std::uint64_t k = 1; k <= 20; ++k) {
    query.push_back(k);
  }
  store.add(1, query);
  std::int64_t id = 1;
  for (std::uint64_t decoy = 0; decoy < 50; ++decoy) {
    Hashes hashes = {1 + decoy % 5};
    for (std::uint64_t k = 0; k < 19; ++k) {
      hashes.push_back(1000 + 100 * decoy + k);
    }
    std::sort(hashes.begin(), hashes.end());
    store.add(++id, hashes);
  }
  for (std::uint64_t filler = 0; filler < 100; ++filler) {
    Hashes hashes;
    for (std::uint64_t k = 6; k <= 20; ++k) {
      hashes.push_back(k);
    }
    for (std::uint64_t k = 0; k < 10; ++k) {
      hashes.push_back(100000 + 100 * filler + k);
    }
    store.add(++id, hashes);
  }
  SimilarCounts counts;
  EXPECT_EQ(find_similar(query, 0.8, store, {}, &counts), (std::vector<SimilarMatch>{{1, 1.0}}));
  EXPECT_EQ(counts.probed_features, 5U);
  EXPECT_EQ(counts.postings, 55U);
  EXPECT_EQ(counts.pruned, 50U);
  EXPECT_EQ(counts.checked, 1U);
  EXPECT_FALSE(counts.scanned_sizes);
}

TEST(FindSimilar, StopsAtTheCheckPoint) {
  ModelStore store;
  SetMaker maker(50, 7);
  for (std::int64_t id = 1; id <= 5000; ++id) {
    store.add(id, maker.fresh(20));
  }
  const Hashes query = maker.fresh(20);
  int checks = 0;
  const CheckPoint check = [&] {
    if (++checks == 2) {
      throw std::runtime_error("stop");
    }
  };
  EXPECT_THROW(find_similar(query, 0.5, store, check), std::runtime_error);
  EXPECT_EQ(checks, 2);
}

}  // namespace
}  // namespace simhash

// SPDX-License-Identifier: MIT
// Every pair of rows whose texts are at a set-Jaccard threshold or more,
// found by the exact join of prefix_filter.h (no radius, none missed): the
// verified pairs of one table, or of new rows against kept ones (new data
// against an existing collection). Each pair carries the exact similarity,
// the number simhash_jaccard() gives, and the Hamming distance of the two
// fingerprints. Set Jaccard (weight=binary) only, as the dedup's join.
//
// Memory: the rows as feature_rows.h keeps them, 12 bytes a row more, the
// join's slot table and 8 bytes a prefix feature of the indexed side, and 24
// bytes a pair found (for_each_pair: a batch of pairs a thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "batch/feature_rows.h"
#include "batch/pair_verifier.h"
#include "fingerprint/feature_similarity.h"
#include "util/check_point.h"
#include "util/memory_budget.h"
#include "util/progress.h"

namespace simhash {

struct SimilarPair {
  std::int64_t a;  // one table: a < b; between: a is the new row, b the kept one
  std::int64_t b;
  int distance;
  double similarity;

  bool operator==(const SimilarPair&) const = default;
};

class SimilarPairs {
 public:
  // What a distinct row of a join holds beyond its features (feature_rows.h,
  // the ids, prefix_filter.h's tables), and a feature: what a join in
  // parts plans each part by.
  static constexpr std::size_t kBytesPerNode = 192;
  static constexpr std::size_t kBytesPerFeature = 24;

  // Where for_each_pair hands the pairs found: a batch at a time, one call
  // at a time but from any of the join's threads. The sink takes the pairs
  // (moving the vector out with its charge, or copying them); what it
  // leaves is dropped. It may throw: the join stops and rethrows it.
  using PairSink = std::function<void(std::vector<SimilarPair>& pairs, MemoryCharge& charge)>;

  // A row of the table (or, between two sets, a kept row), and a new row.
  // `features` must not be empty; weights other than 1 are refused by
  // pairs() and pairs_between().
  void add(std::int64_t id, std::uint64_t fingerprint, const FeatureVector& features);
  void add_new(std::int64_t id, std::uint64_t fingerprint, const FeatureVector& features);

  // Where pairs() and pairs_between() report their phases (progress.h):
  // "ranking features", "indexing prefixes", then "joining" (the probing
  // rows of how many; the caller's thread reports where it is, which the
  // others are near).
  void set_progress(ProgressHook progress) { progress_ = std::move(progress); }

  // Every pair of added rows at `threshold` or more, ordered by (a, b).
  // Both run on `threads` threads (check() on the caller's only), with the
  // same pairs and counts for any count.
  std::vector<SimilarPair> pairs(double threshold, const CheckPoint& check = {},
                                 DedupCounts* counts = nullptr, unsigned threads = 1) const;
  // Every (new row, kept row) at `threshold` or more, ordered by (a, b).
  std::vector<SimilarPair> pairs_between(double threshold, const CheckPoint& check = {},
                                         DedupCounts* counts = nullptr, unsigned threads = 1) const;
  // The pairs of pairs() (`between`: of pairs_between()), in no order,
  // handed to `sink` in batches of at most `batch_pairs` (at least one)
  // while the join runs: the pairs held are a batch a thread, however many
  // are found.
  void for_each_pair(bool between, double threshold, std::size_t batch_pairs, const PairSink& sink,
                     const CheckPoint& check = {}, DedupCounts* counts = nullptr,
                     unsigned threads = 1) const;

 private:
  // The rows of one side: the distinct ones, and the ids of each.
  struct Side {
    MemoryCharge charge;  // ids_of (memory_budget.h)
    FeatureRows nodes;
    std::vector<std::vector<std::int64_t>> ids_of;  // by node

    void add(std::int64_t id, std::uint64_t fingerprint, const FeatureVector& features);
  };
  // Probes `probes` against an index of `indexed`'s nodes; with one side
  // (`probes` == `indexed`) each node meets only the nodes before it, so
  // each pair of nodes is met once.
  void join(const Side& probes, const Side& indexed, double threshold, const CheckPoint& check,
            DedupCounts* counts, unsigned threads, std::size_t batch_pairs,
            const PairSink& sink) const;
  // The pairs of join() in one vector, sorted.
  std::vector<SimilarPair> sorted_pairs(const Side& probes, const Side& indexed, double threshold,
                                        const CheckPoint& check, DedupCounts* counts,
                                        unsigned threads) const;

  Side kept_;
  Side new_;
  ProgressHook progress_;
};

}  // namespace simhash

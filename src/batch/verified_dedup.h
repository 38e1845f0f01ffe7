// SPDX-License-Identifier: MIT
// The engine of simhash_dedup: rows visited in the caller's order, each with
// its fingerprint and its verification features, grouped so that keeping the
// first row of each group deletes nothing below the similarity threshold.
// Candidates are the pairs within a Hamming radius (PairFinder), or, with no
// radius, every pair that can reach the threshold (an exact set-similarity
// join); each is verified by the exact weighted Jaccard of
// feature_similarity.h, the number simhash_jaccard() returns; the leader
// rule of leader_groups.h groups the verified pairs with "visited first" in
// place of "smallest id". So, visited in ascending id, the groups are
// exactly those of the README's recipe (simhash_pairs, simhash_jaccard >=
// threshold, simhash_clusters), or without a radius those simhash_clusters
// makes of every pair at the threshold.
//
// Memory: the distinct rows as feature_rows.h keeps them; every row 12
// bytes more. With a radius, every verified pair takes 16 bytes (candidates
// are verified in windows of 16K as they are found, so rejected ones take no
// memory beyond two windows, 0.9 MB); without, prefix_filter.h's table and 12 bytes a prefix
// feature (its slot, and its posting with the slot's place), 32 bytes a distinct row (the rule and
// the join's own arrays), and while a block is settled (a sixteenth of the rows before it, at most
// 64K) up to 540 bytes a row of the block (the block's entries each probe met, at most 128 a row;
// 668 on several threads, which also note whether each links, and 8 bytes a link for its
// similarity), with a bit a slot of the table for each thread; on several threads, while the
// block's entries are entered, 12 bytes for each of their prefix features and 4 for each of the
// last block's dropped ones.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "batch/feature_rows.h"
#include "batch/pair_verifier.h"
#include "fingerprint/feature_similarity.h"
#include "util/check_point.h"
#include "util/memory_budget.h"
#include "util/progress.h"

namespace simhash {

// A row of a group of two or more.
struct DedupRow {
  std::int64_t id;
  std::int64_t kept;  // the id of the group's first row (id itself for it)
  int distance;       // Hamming distance to the kept row's fingerprint
  double similarity;  // weighted Jaccard with the kept row (1 for it)

  bool operator==(const DedupRow&) const = default;
};

class VerifiedDedup {
 public:
  // Adds the next row in visit order. `features` must not be empty: a row
  // that cannot be verified can join no group, so the caller leaves it out.
  // Rows with the same fingerprint and the same features are kept as one
  // (their links are the same), so exact duplicates cost one comparison.
  void add(std::int64_t id, std::uint64_t fingerprint, const FeatureVector& features) {
    add(id, fingerprint, features, FeatureRows::key_of(fingerprint, features), std::nullopt);
  }
  // The same with the key computed already (row_features.h builds it on
  // the tokenizing threads): `key` must be FeatureRows::key_of(fingerprint,
  // features). With `adopted_block`, the features lie in that block of the
  // last adopt() and are not copied (FeatureRows::add).
  void add(std::int64_t id, std::uint64_t fingerprint, FeatureView features, RowKey key,
           std::optional<std::uint32_t> adopted_block);
  // The blocks the next rows' features lie in, laid out by the threads that
  // built them (FeatureRows::adopt): those rows are added without a copy.
  void adopt(std::vector<FeatureBlock> blocks) { nodes_.adopt(std::move(blocks)); }
  // Called after the last add(): frees what only adding needs (the lookup
  // of identical rows, about 40 bytes a distinct row, and the arrays' spare
  // room, up to half of them), so the groupings below run in less memory.
  // add() after it throws std::logic_error. The groupings give the same
  // results with or without it.
  void finish_adding();

  // Where the groupings below report their phases (progress.h): the join
  // "ranking features", "indexing prefixes", "joining" (rows of
  // row_count()); within a radius "finding candidates within the radius",
  // "verifying candidates" (pairs, no total); both end with "grouping".
  // None by default.
  void set_progress(ProgressHook progress) { progress_ = std::move(progress); }

  std::size_t row_count() const { return ids_.size(); }
  std::size_t distinct_count() const { return nodes_.size(); }
  // An id added more than once, if any (the groups need distinct ids).
  // `check` runs between bounded pieces of work (check_point.h).
  std::optional<std::int64_t> repeated_id(const CheckPoint& check = {}) const;

  // Every row of a group of two or more, in visit order: candidates are the
  // pairs within `radius` bits, kept when their similarity is at least
  // `threshold`. Throws std::invalid_argument for a negative radius; `check`
  // runs between bounded pieces of work (check_point.h). The candidates are
  // verified on `threads` threads (check() on the caller's only) while the
  // caller searches for the next ones, with the same rows and counts for
  // any count.
  std::vector<DedupRow> groups_within_radius(double threshold, int radius,
                                             const CheckPoint& check = {},
                                             DedupCounts* counts = nullptr,
                                             unsigned threads = 1) const;
  // The same without a radius: every pair at `threshold` or more counts, none
  // missed. An exact set-similarity join (AllPairs: Bayardo et al. 2007):
  // features ordered rarest first, a row is compared only with the
  // representatives that share a feature of its prefix and whose size it can
  // reach. Only representatives are indexed, which stays exact because the
  // leader rule only ever links a row to an earlier representative. Set
  // Jaccard only: throws std::invalid_argument when a weight is not 1
  // (weight=binary). Given a `radius`, only pairs within it link: the
  // groups of groups_within_radius, found faster where the texts share few
  // features (words: 323K descriptions at radius 10 in a third of the time;
  // character n-grams are shared so widely that the pairs within the radius
  // are the fewer candidates).
  // The join runs on `threads` threads (check() on the caller's only),
  // with the same rows and counts for any count.
  std::vector<DedupRow> groups_by_threshold_join(double threshold, const CheckPoint& check = {},
                                                 DedupCounts* counts = nullptr,
                                                 std::optional<int> radius = std::nullopt,
                                                 unsigned threads = 1) const;

 private:
  // Where each row (by visit position) went.
  struct Joined {
    std::uint32_t leader;  // the representative's position (its own for one)
    double similarity;
  };
  // The rows of groups of two or more, in visit order; `check` between
  // pieces of rows.
  std::vector<DedupRow> rows_of_groups(const std::vector<Joined>& joined,
                                       const CheckPoint& check) const;
  // groups_by_threshold_join's tables and phases (threshold_join.cpp).
  class ThresholdJoin;

  MemoryCharge charge_;                 // ids_ and node_of_ (memory_budget.h)
  FeatureRows nodes_;                   // the distinct rows
  std::vector<std::int64_t> ids_;       // in visit order
  std::vector<std::uint32_t> node_of_;  // per row
  ProgressHook progress_;
};

}  // namespace simhash

// SPDX-License-Identifier: MIT
// simhash_dedup's threshold join within a memory budget: the same groups,
// distances and similarities as VerifiedDedup::groups_by_threshold_join,
// with the rows' features on disk instead of in memory. Rows are added in
// visit order; each one's features go to a temporary file (spill_file.h)
// and only a few numbers a row stay in memory (kBytesPerRow). Then:
//
// 1. Identical rows (same fingerprint and features) become one node, as in
//    feature_rows.h: rows ordered by (size, key), features compared where
//    keys meet.
// 2. The nodes, ordered by size, are cut into parts that fit the budget
//    (size_parts.h); each part's nodes are read back and joined
//    (similar_pairs.h: every pair at the threshold, exact), and each pair
//    found is written out as the offers its two nodes' first rows may make
//    (offer_runs.h).
// 3. One pass in visit order runs the leader rule (leader_rule.h) over the
//    offers, read back merged in that order: a row that becomes a
//    representative offers itself to its linked nodes, a row joins its
//    node's representative, else its best offer, else becomes one. That is
//    the rule the in-memory join applies, over the same links, so the
//    groups are the same.
//
// Memory: kBytesPerRow a row while the parts run (40 in the last pass, and
// 20 a node), 24 bytes a chunk (the parts are listed a chunk at a time,
// never all); a part at most the budget's share
// (kPartBytesPerNode a node and kPartBytesPerFeature a feature), plus the
// pairs one part finds (32 bytes each) while they are written out; the
// offers' buffer, and as much for the merges of its runs between parts
// (offer_runs.h), when no part is held. The disk: 8 bytes a feature, 16 a
// verified pair twice (twice that while a level of runs is merged).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "batch/spilled_rows.h"
#include "batch/verified_dedup.h"
#include "fingerprint/feature_similarity.h"
#include "util/check_point.h"
#include "util/chunked_array.h"
#include "util/memory_budget.h"
#include "util/progress.h"

namespace simhash {

class OfferRuns;     // offer_runs.h
struct SimilarPair;  // similar_pairs.h

// What a partitioned run did, for tests and progress.
struct PartitionCounts {
  std::size_t nodes = 0;   // distinct rows
  std::size_t chunks = 0;  // of the size order
  std::size_t parts = 0;   // joins run
  std::uint64_t pairs = 0;
  std::size_t offer_runs = 0;  // runs of offers written to disk (0: all in memory)
};

class PartitionedDedup {
 public:
  // Held a row from add() to the end: id, fingerprint, file offset, size,
  // key (until the nodes are found), node, and a place in the size order
  // while the nodes are found; the arrays grow in blocks, never doubled.
  static constexpr std::size_t kBytesPerRow = 48;
  // What a node of a part holds while it is joined (feature_rows.h,
  // similar_pairs.h, prefix_filter.h), beyond its features.
  static constexpr std::size_t kPartBytesPerNode = 192;
  static constexpr std::size_t kPartBytesPerFeature = 24;
  // The least a run takes, whatever the budget: what the rows hold, and
  // this much for a part (its tables cost more than its rows below it) and
  // for the offers' buffer.
  static constexpr std::size_t kLeastWorkingBytes = std::size_t{64} << 10;

  // Adds the next row in visit order: `features` non-empty, every weight 1
  // (the threshold join's sets), `key_hash` FeatureRows::key_of's hash.
  // Throws std::invalid_argument otherwise.
  void add(std::int64_t id, std::uint64_t fingerprint, FeatureView features,
           std::uint64_t key_hash);
  void add(std::int64_t id, std::uint64_t fingerprint, const FeatureVector& features);

  // Where groups() reports its phases: "finding identical rows", "part 3 of
  // 17: joining" (and the join's other phases), "grouping".
  void set_progress(ProgressHook progress) { progress_ = std::move(progress); }

  std::size_t row_count() const { return rows_.size(); }
  // The bytes a run over the rows added so far needs at least.
  std::uint64_t least_budget() const { return rows_.size() * kBytesPerRow + kLeastWorkingBytes; }

  // The groups of VerifiedDedup::groups_by_threshold_join(threshold, check,
  // nullptr, radius, threads) over the same rows, holding at most `budget`
  // bytes (the rows' own included; below least_budget() it holds
  // least_budget()). `part_budget`, when given, sets what a part may hold
  // instead of the budget's share (tests: parts of one row). `threshold`
  // in (0, 1] (the glue's check); throws std::invalid_argument for a
  // negative radius. Once only: the rows' arrays are given up as it goes.
  std::vector<DedupRow> groups(double threshold, std::uint64_t budget, const CheckPoint& check = {},
                               std::optional<int> radius = std::nullopt, unsigned threads = 1,
                               PartitionCounts* counts = nullptr,
                               std::optional<std::uint64_t> part_budget = std::nullopt);

 private:
  // How groups() joins the parts: the pairs at `threshold` (within
  // `radius`, given one), a part holding at most `share` bytes, joined on
  // `threads` threads.
  struct PartSettings {
    double threshold;
    std::uint64_t share;
    std::optional<int> radius;
    unsigned threads;
  };
  // Per node, its first and last rows.
  struct NodeRows {
    std::vector<std::uint32_t> first;
    std::vector<std::uint32_t> last;
  };
  // Where the leader pass put a row: its representative's position, and
  // the similarity to it (1 for a representative).
  struct Joined {
    std::uint32_t leader;
    double similarity;
  };

  // The steps of groups(), in order. node_of_ for every row, node numbers
  // in the order of first rows; returns the number of nodes.
  std::uint32_t find_nodes(const CheckPoint& check);
  // Every pair of nodes the parts find, written to `offers`.
  void join_parts(const PartSettings& settings, std::uint32_t node_count, const CheckPoint& check,
                  OfferRuns& offers, PartitionCounts& counted);
  // One part's pairs within `radius` as the offers they make.
  void write_offers(const std::vector<SimilarPair>& pairs, std::optional<int> radius,
                    const NodeRows& node_rows, OfferRuns& offers, PartitionCounts& counted) const;
  // Every row placed by the leader rule, in visit order.
  std::vector<Joined> place_rows(OfferRuns& offers, std::uint32_t node_count,
                                 const CheckPoint& check) const;
  // The rows of groups of two or more, in visit order; `check` between
  // pieces of rows.
  std::vector<DedupRow> rows_of_groups(const std::vector<Joined>& joined,
                                       const CheckPoint& check) const;

  SpilledRows rows_{{"simhash: a row to dedup has no features", "simhash: too many rows to dedup"}};
  ChunkedArray<std::uint64_t> keys_;  // charged as it grows (chunked_array.h)
  MemoryCharge node_charge_;          // node_of_ (memory_budget.h)
  std::vector<std::uint32_t> node_of_;
  ProgressHook progress_;
};

}  // namespace simhash

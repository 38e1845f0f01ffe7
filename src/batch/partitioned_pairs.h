// SPDX-License-Identifier: MIT
// simhash_verified_pairs' join within a memory budget: the pairs of
// SimilarPairs::pairs() (or pairs_between(), new rows against kept ones),
// the same ids, distances and similarities in the same order, by (a, b),
// with the rows' features on disk instead of in memory and the pairs
// streamed out. Each row's features go to a temporary file (spill_file.h)
// as it is added; only a few numbers a row stay in memory (kBytesPerRow).
// Then:
//
// 1. The rows, ordered by size, are cut into parts that fit the budget
//    (size_parts.h: a chunk with itself, or with a window of the later
//    chunks its rows can reach); each part's rows are read back and joined
//    by SimilarPairs. Between two sets, a chunk with itself joins its new
//    rows with its kept ones, and a chunk with a window joins the chunk's
//    new rows with the window's kept ones, then the window's new rows with
//    the chunk's kept ones: every (new, kept) pair that can reach the
//    threshold in exactly one join, as every pair of one set is in one part.
// 2. The pairs each join finds go, a batch at a time, into sorted runs on
//    disk (sorted_runs.h), merged between parts so that no more than a fan-in
//    of runs is ever read at once.
// 3. next() reads the runs back merged, one pair at a time.
//
// Rows that are identical (same fingerprint and features) are not made one
// node beforehand: they have the same size, and a part holding two of them
// makes them one node as the join in memory does; two in different chunks
// meet as any two rows do, at similarity 1 and distance 0, which is what
// the join in memory gives them.
//
// Memory: kBytesPerRow a row, 32 bytes a chunk (the parts are listed a
// chunk at a time, never all); a part at most the budget's share (what
// SimilarPairs::kBytesPerNode and kBytesPerFeature say a row holds); the
// runs' buffer and a batch of pairs a thread, both bounded by the budget
// whatever the number of pairs. The disk: 8 bytes a feature, 32 a pair
// (twice while a level of runs is merged).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "batch/similar_pairs.h"
#include "batch/sorted_runs.h"
#include "batch/spilled_rows.h"
#include "fingerprint/feature_similarity.h"
#include "util/check_point.h"
#include "util/chunked_array.h"
#include "util/memory_budget.h"
#include "util/progress.h"

namespace simhash {

// What a partitioned run did, for tests.
struct PairPartitionCounts {
  std::size_t chunks = 0;  // of the size order
  std::size_t parts = 0;   // of size_parts.h's plan
  std::size_t joins = 0;   // SimilarPairs joins run (between: up to two a part)
  std::uint64_t pairs = 0;
  std::size_t runs = 0;  // of pairs when read (0: none written, all in memory)
};

class PartitionedPairs {
 public:
  // Held a row from add() to the end: id, fingerprint, file offset, size,
  // side, and its place in the size order and its size there while the
  // parts run (its cost too while they are planned). The arrays grow in
  // blocks, never doubled.
  static constexpr std::size_t kBytesPerRow = 48;
  // The least a run takes, whatever the budget: what the rows hold, and
  // this much for a part (its tables cost more than its rows below it), for
  // the pairs' runs and for the threads' batches of pairs.
  static constexpr std::size_t kLeastWorkingBytes = std::size_t{64} << 10;

  // A row of the table (or, between two sets, a kept row), and a new row,
  // as SimilarPairs::add and add_new take them: `features` non-empty, every
  // weight 1. Throws std::invalid_argument otherwise, std::logic_error
  // after run().
  void add(std::int64_t id, std::uint64_t fingerprint, FeatureView features);
  void add_new(std::int64_t id, std::uint64_t fingerprint, FeatureView features);

  // Where run() reports its phases: "part 3 of 17: reading" and the
  // join's own phases after the same prefix, "merging" between parts.
  void set_progress(ProgressHook progress) { progress_ = std::move(progress); }

  std::size_t row_count() const { return rows_.size(); }
  // The bytes a run over the rows added so far needs at least.
  std::uint64_t least_budget() const { return rows_.size() * kBytesPerRow + kLeastWorkingBytes; }

  // Finds the pairs of SimilarPairs::pairs(threshold) over the rows added
  // with add() (`between`: pairs_between(), the rows added with add_new()
  // against those), holding at most `budget` bytes (the rows' own
  // included; below least_budget() it holds least_budget()), on `threads`
  // threads (check() on the caller's only). `part_budget`, when given, sets
  // what a part may hold instead of the budget's share (tests: parts of one
  // row). `threshold` in (0, 1] (the glue's check). Once only; then next()
  // gives the pairs. Returns the number of pairs.
  std::uint64_t run(bool between, double threshold, std::uint64_t budget,
                    const CheckPoint& check = {}, unsigned threads = 1,
                    PairPartitionCounts* counts = nullptr,
                    std::optional<std::uint64_t> part_budget = std::nullopt);

  // The next pair, ascending by (a, b) (then distance and similarity, as
  // SimilarPairs sorts them), or nullptr after the last; valid until the
  // next call. After run() only.
  const SimilarPair* next() { return pairs_ ? pairs_->next() : nullptr; }

 private:
  struct PairOrder {
    bool operator()(const SimilarPair& x, const SimilarPair& y) const {
      return std::tie(x.a, x.b, x.distance, x.similarity) <
             std::tie(y.a, y.b, y.distance, y.similarity);
    }
  };
  using PairRuns = SortedRuns<SimilarPair, PairOrder>;
  // The rows in size order cut into chunks and parts (partitioned_pairs.cpp).
  struct Plan;
  // Which rows of a run of chunks a side of a join takes.
  enum class Take { kAll, kNew, kKept };
  struct Side {
    std::size_t first;  // chunks [first, end)
    std::size_t end;
    Take take;
  };
  // What every join of a run shares.
  struct JoinSettings {
    bool between;
    double threshold;
    std::size_t batch_pairs;  // a thread's batch (SimilarPairs::for_each_pair)
    unsigned threads;
  };

  void add_row(std::int64_t id, std::uint64_t fingerprint, FeatureView features, bool fresh);
  Plan plan_parts(double threshold, std::uint64_t share, const CheckPoint& check);
  // The rows `side` takes, added to `join` (as new rows with `as_new`).
  void add_side(SimilarPairs& join, const Plan& plan, Side side, bool as_new,
                const CheckPoint& check);
  // One join: `probes` against `kept` (`one_set`: a chunk with itself, the
  // pairs among its rows), its pairs into pairs_; none when a side takes no
  // row. `prefix` starts its progress phases.
  void join(const Plan& plan, Side probes, Side kept, bool one_set, const JoinSettings& settings,
            const std::string& prefix, const CheckPoint& check, PairPartitionCounts& counted);

  SpilledRows rows_{
      {"simhash: a row to compare has no features", "simhash: too many distinct rows to compare"}};
  ChunkedArray<std::uint8_t> fresh_;  // 1: a new row (add_new); charged as it grows
  FeatureVector features_read_;       // the last row read back
  ProgressHook progress_;
  std::optional<PairRuns> pairs_;
};

}  // namespace simhash

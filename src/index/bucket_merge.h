// SPDX-License-Identifier: MIT
// The merge of the pending changes (pending_changes.h) into the stored packed
// buckets (bucket_store.h), and the split of every bucket when the index's
// bucket bits grow (bucket_codec.h, BucketLayout). The glue's flush decides
// when and stores the row count and the bits; this does the buckets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "index/bucket_codec.h"
#include "index/bucket_store.h"
#include "index/pending_changes.h"
#include "index/permutation_plan.h"
#include "util/check_point.h"

namespace simhash {

// The pending changes of one permuted copy grouped by bucket: `order` holds
// indexes into the pending list sorted by bucket, within a bucket in the
// order they happened; `starts` where each changed bucket's changes start in
// `order`, buckets ascending.
struct ChangedBuckets {
  std::vector<std::uint32_t> order;
  std::vector<std::uint32_t> starts;
  std::span<std::uint32_t> changes(std::size_t group);
};

// The buffers of a merge, kept by its owner between merges so that each
// merge does not allocate them again (a bulk insert merges many times).
struct BucketMergeScratch {
  std::string encoded;                                       // a bucket written
  std::vector<std::pair<std::uint64_t, BucketEntry>> split;  // of split_bucket()
};

class BucketMerge {
 public:
  // Buckets between two calls of `check` (when given) in a split.
  static constexpr std::size_t kBucketsBetweenChecks = 4096;
  // Changes are sorted by bucket with this many counters at most (64 MB).
  static constexpr std::size_t kMaxCountingSortBuckets = std::size_t{1} << 24;

  // The buckets of `store` laid out by `layout`, and the changes to merge.
  // All are read only while the merge runs; `store` is written.
  BucketMerge(const PermutationPlan& plan, const BucketLayout& layout,
              const PendingChanges& pending, BucketStore& store, BucketMergeScratch& scratch,
              CheckPoint check);

  // Merges the changes into every copy's buckets under the layout.
  void merge();
  // The same while the bucket bits grow to `grown`'s: every bucket, changed
  // or not, is read and written as the buckets it splits into. The store
  // then holds the buckets of `grown`.
  void merge_and_split(const BucketLayout& grown);

  // The pending changes grouped by their bucket in `table` under the layout.
  ChangedBuckets changes_by_bucket(int table) const;

 private:
  std::uint64_t bucket_of_change(int table, std::uint32_t change) const;
  // `stored` (one bucket's entries, id order) with `changes` (that bucket's,
  // from changes_by_bucket; sorted by id here) applied into `out`: the last
  // change of an id wins.
  void apply_changes(int table, const std::vector<BucketEntry>& stored,
                     std::span<std::uint32_t> changes, std::vector<BucketEntry>& out) const;
  void merge_table(int table);
  void merge_and_split_table(int table, const BucketLayout& grown);
  // Writes `entries` of `bucket` (under the layout) as the buckets of `grown`.
  void split_bucket(int table, std::uint64_t bucket, const std::vector<BucketEntry>& entries,
                    const BucketLayout& grown);

  const PermutationPlan& plan_;
  const BucketLayout& layout_;
  const PendingChanges& pending_;
  BucketStore& store_;
  BucketMergeScratch& scratch_;
  CheckPoint check_;
};

}  // namespace simhash

// SPDX-License-Identifier: MIT
// The n nearest rows by one pass over the packed buckets of one permuted
// copy: every row is in every copy once, so one copy's buckets hold them all,
// and a bucket's rests are scanned with a popcount loop without decoding ids
// (bucket_codec.h). A bounded heap keeps the nearest; ids are decoded only
// in buckets with an entry that enters it. A bucket farther from the query's
// than the farthest row kept is skipped whole. The changes not yet merged
// into the buckets (pending_changes.h) are applied at the end, so the answer
// is the one the merged buckets would give (PendingNearest, which the cached
// codes of packed_codes.h answer through too).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "index/bucket_codec.h"
#include "index/code_scan.h"
#include "index/pending_changes.h"
#include "index/permutation_plan.h"

namespace simhash {

// The pending changes over the n nearest of the stored rows. The stored
// rows are asked for capacity() nearest: `count` plus one for each stored
// row the changes touch, whose entry may be among them and is dropped (the
// rows kept then still hold every untouched row among the `count` nearest
// untouched ones); rows new in the changes take no place there. finish() drops the touched rows'
// stored entries, adds each touched row's fingerprint now where it is within the bound, and keeps
// the first `count`: what the merged buckets would answer.
class PendingNearest {
 public:
  // `pending` is read here only; `bound` as NearestScan's.
  PendingNearest(const PendingChanges& pending, std::uint64_t query, std::size_t count, int bound);
  std::size_t capacity() const { return capacity_; }
  // `hits[first..]` holds the stored rows' nearest (at most capacity() of
  // them, any order, fingerprints unpermuted); corrects it to the answer,
  // sorted by nearer().
  void finish(std::vector<IndexHit>& hits, std::size_t first) const;

 private:
  bool touches(std::int64_t id) const;

  std::uint64_t query_;
  std::size_t count_;
  int bound_;
  std::size_t capacity_;
  // The rows the pending changes touch, by id: their fingerprint now, or
  // none if deleted (the last change of an id wins).
  std::vector<std::pair<std::int64_t, std::optional<std::uint64_t>>> changed_;
};

class NearestScan {
 public:
  // The `count` rows nearest to `query` within `bound` bits (64: any
  // distance), ties by id, from the buckets of copy `table` under `layout`
  // with `pending` applied. `pending` is read here only.
  NearestScan(const PermutationPlan& plan, const BucketLayout& layout, int table,
              std::uint64_t query, std::size_t count, int bound, const PendingChanges& pending);

  // The rows the scan keeps before the pending changes are applied
  // (PendingNearest::capacity).
  std::size_t capacity() const { return capacity_; }

  // Scans the stored bucket `row_id` (a row id of the copy under the layout)
  // with its blob; false if the blob is malformed. Any order of buckets.
  bool add_bucket(std::int64_t row_id, const unsigned char* data, std::size_t size);

  // The answer, sorted by nearer(); call once, after every bucket.
  void finish(std::vector<IndexHit>& out);

  // The loop that compares a bucket's rests (BucketView::find_close): the
  // fastest here unless told (tests and benchmarks try each).
  void use_kernel(ScanKernel kernel) { kernel_ = kernel; }

 private:
  bool full() const { return heap_.size() >= capacity_; }
  void offer(const IndexHit& hit);

  const PermutationPlan& plan_;
  const BucketLayout& layout_;
  int table_;
  std::uint64_t query_key_;
  int bound_;
  PendingNearest pending_;
  std::size_t capacity_;
  // A max-heap by nearer() (its front is the farthest row kept); fp holds
  // the permuted key until finish().
  std::vector<IndexHit> heap_;
  std::vector<CloseEntry> close_;
  ScanKernel kernel_ = best_scan_kernel();
};

}  // namespace simhash

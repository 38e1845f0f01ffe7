// SPDX-License-Identifier: MIT
// Every stored bucket of an index as one read of the buckets table returned
// them: the blobs back to back, and for each bucket row id of every copy
// where its blob starts, so that a probe finds a bucket by one index into an
// array instead of a B-tree descent (a page cache lookup and a binary search
// in each page on the way, most of them misses in the CPU caches once the
// table outgrows them). The blobs are kept as stored, undecoded: a probe
// checks and decodes those it reads, as it does the rows SQLite returns. The
// glue keeps one per index and connection while the database is unchanged
// (ext/index/index_storage.h); this class knows nothing of when it is valid.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "index/bucket_codec.h"
#include "util/memory_budget.h"

namespace simhash {

class BucketCache {
 public:
  // Starts over (every bucket empty) for the buckets of `tables` copies
  // under `layout`, to hold at most `max_bytes`; false (holding nothing)
  // when their starts alone would pass it. Room is made at once for about
  // `expected_blob_bytes` of blobs (an estimate: the blobs grow past it by
  // doubling). Throws MemoryLimitExceeded.
  bool reset(const BucketLayout& layout, int tables, std::size_t max_bytes,
             std::size_t expected_blob_bytes = 0);
  // Appends the blob of the stored bucket `row_id`, row ids ascending. A row
  // id that is no bucket of a copy (a probe never reads it) is skipped.
  // False, keeping nothing more, once the arrays would pass the most bytes
  // reset() was given; throws MemoryLimitExceeded.
  bool add(std::int64_t row_id, const unsigned char* data, std::size_t size);
  // Ends the filling: the buckets after the last added are empty.
  void finish();
  // The blob of bucket `row_id` (a row id of a copy under the layout of
  // reset()); empty when none is stored.
  std::span<const unsigned char> bucket(std::int64_t row_id) const {
    const std::size_t slot = slot_of(row_id);
    return {blobs_.data() + starts_[slot], starts_[slot + 1] - starts_[slot]};
  }
  // The bucket bits of the layout of reset().
  int bits() const { return bits_; }
  // Bytes the arrays hold (what the charge covers).
  std::size_t bytes() const { return charge_.bytes(); }
  // Frees the arrays and their charge.
  void clear();

  // The cost model's prices (index/multi_probe.h), in its nanoseconds. A
  // probe's bucket read here instead of in its statement of point lookups
  // saves kSavedReadCost, as bench/probe_cost_benchmark.cpp times both at
  // 1M rows (an index into starts_, then the blob: a few misses in the CPU
  // caches; SQLite's descent misses more). Loading costs kLoadSlotCost a
  // slot (its start written), kLoadBucketCost a stored bucket (SQLite steps
  // over its row; MultiProbePlan::kPackedBucketCost, plus the page faults
  // on the fresh arrays) and kLoadByteCost a byte copied.
  static constexpr double kSavedReadCost = 800;
  static constexpr double kLoadSlotCost = 1;
  static constexpr double kLoadBucketCost = 150;
  static constexpr double kLoadByteCost = 1;
  // Loading the buckets of `tables` copies under `layout`, a share
  // `stored` of their slots holding a bucket, `slot_bytes` bytes a slot on
  // average (an empty one counting 0).
  static double load_cost(const BucketLayout& layout, int tables, double stored, double slot_bytes);
  // The bytes of those buckets' blobs.
  static double expected_bytes(const BucketLayout& layout, int tables, double slot_bytes);

 private:
  std::size_t slot_of(std::int64_t row_id) const {
    const std::int64_t table = row_id >> bits_;
    return first_slot_[static_cast<std::size_t>(table)] +
           static_cast<std::size_t>(row_id - (table << bits_));
  }

  int bits_ = 0;
  // A copy's buckets take the slots [first_slot_[t], first_slot_[t + 1]).
  std::vector<std::size_t> first_slot_;
  // Where each slot's blob starts in blobs_, and one past the last: a
  // bucket's blob ends where the next slot's starts. 32 bits: the blobs
  // kept are fewer bytes (max_blob_bytes_).
  std::vector<std::uint32_t> starts_;
  std::size_t filled_ = 0;  // the slots whose start is set
  std::size_t max_blob_bytes_ = 0;
  std::vector<unsigned char> blobs_;
  void reserve_blobs(std::size_t capacity);
  MemoryCharge charge_;  // both arrays
};

// What the probes read from SQLite found in the bucket slots they read, on
// average over the recent ones: a probe's buckets are the table's at
// random, so this is what loading a BucketCache would read and copy, a
// slot (BucketCache::load_cost, expected_bytes).
class ProbedSlots {
 public:
  // A probe that read `slots` slots, `stored` of them holding a bucket of
  // `bytes` bytes in all.
  void record(double slots, std::size_t stored, std::size_t bytes) {
    const double weight = count_ < kWindow ? 1.0 / ++count_ : 1.0 / kWindow;
    stored_ += weight * (static_cast<double>(stored) / slots - stored_);
    bytes_ += weight * (static_cast<double>(bytes) / slots - bytes_);
  }
  double stored() const { return stored_; }  // the share of slots holding a bucket
  double bytes() const { return bytes_; }    // bytes a slot, an empty one counting 0

 private:
  static constexpr double kWindow = 64;
  double count_ = 0;
  double stored_ = 0;
  double bytes_ = 0;
};

}  // namespace simhash

// SPDX-License-Identifier: MIT
// Every stored row of one permuted copy, decoded from its packed buckets into
// two contiguous arrays (ids and permuted keys, 16 bytes a row), and the n
// nearest by one popcount loop over the keys: what NearestScan computes from
// the buckets, without decoding them again. A key is a bit permutation of
// the fingerprint, so the distance between permuted key and permuted query
// is the distance between fingerprint and query; only the answer's keys are
// permuted back. The glue keeps one per index and connection while the
// database is unchanged (ext/index/index_storage.h); this class knows
// nothing of when it is valid.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "index/bucket_codec.h"
#include "index/pending_changes.h"
#include "index/permutation_plan.h"
#include "util/memory_budget.h"

namespace simhash {

class PackedCodes {
 public:
  // Starts over (empty) for copy `table`.
  void reset(int table);
  // Makes room for `rows` rows at once (the stored row count), so that the
  // arrays are not copied as they grow; throws MemoryLimitExceeded.
  void reserve(std::size_t rows);
  // Appends the entries of the stored bucket `row_id` (a row id of the copy
  // under `layout`) with its blob; false if the blob is malformed. Throws
  // MemoryLimitExceeded if the arrays cannot grow within the memory limit.
  bool add_bucket(const BucketLayout& layout, std::int64_t row_id, const unsigned char* data,
                  std::size_t size);
  std::size_t size() const { return ids_.size(); }
  // Bytes the arrays hold (what the charge covers).
  std::size_t bytes() const { return charge_.bytes(); }
  int table() const { return table_; }
  // Frees the arrays and their charge.
  void clear();

  // Appends to `out` the `count` rows nearest to `query` within `bound` bits
  // (64: any distance), ties by id, fingerprints unpermuted by `plan`;
  // sorted by nearer().
  void nearest(const PermutationPlan& plan, std::uint64_t query, std::size_t count, int bound,
               std::vector<IndexHit>& out) const;

 private:
  int table_ = 0;
  std::vector<std::int64_t> ids_;
  std::vector<std::uint64_t> keys_;  // permuted keys, ids_[i]'s at keys_[i]
  MemoryCharge charge_;
};

}  // namespace simhash

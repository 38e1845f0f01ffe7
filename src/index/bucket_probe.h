// SPDX-License-Identifier: MIT
// Which stored entries of a probed bucket answer a query: the buckets a
// probe within k reads (one per permuted copy) and those of a multi-probe
// search above k (multi_probe.h), and in each the entries within the radius
// that this copy (or part) reports, so that each row comes once. The glue
// reads the blobs (any order of buckets, absent ones skipped); this filters
// them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "index/bucket_codec.h"
#include "index/multi_probe.h"
#include "index/pending_changes.h"
#include "index/permutation_plan.h"

namespace simhash {

class BucketProbe {
 public:
  // Both are read at each call, so a layout reloaded in place is followed.
  BucketProbe(const PermutationPlan& plan, const BucketLayout& layout);

  // The probe within the plan's k: sets `row_ids` to the buckets to read
  // for `query`, one per copy in table order (which is row id order).
  void probe_rows(std::uint64_t query, std::vector<std::int64_t>& row_ids);
  // Appends to `out` the entries of bucket `row_id` (one of probe_rows'
  // for the same query) within `radius` (at most k) that no earlier copy
  // reports; false if the blob is malformed.
  bool probe_bucket(std::uint64_t query, int radius, std::int64_t row_id, const unsigned char* data,
                    std::size_t size, std::vector<IndexHit>& out);

  // The multi-probe search of `plan`: sets `row_ids` to the buckets to read,
  // each part's in row id order, the parts in table order.
  void multi_probe_rows(std::uint64_t query, const MultiProbePlan& plan,
                        std::vector<std::int64_t>& row_ids);
  // Appends to `out` the entries of bucket `row_id` (one of
  // multi_probe_rows' for the same query and plan) within the plan's radius
  // that its part reports; false if the blob is malformed.
  bool multi_probe_bucket(std::uint64_t query, const MultiProbePlan& plan, std::int64_t row_id,
                          const unsigned char* data, std::size_t size, std::vector<IndexHit>& out);

 private:
  // Appends a hit for each of close_ (found in `view`) that make_hit(close)
  // returns, with its id decoded; false if the ids do not decode, or (when
  // it reports any) the id section does not end exactly where the blob does.
  template <typename MakeHit>
  bool report_close_entries(const BucketView& view, MakeHit make_hit, std::vector<IndexHit>& out);

  const PermutationPlan& plan_;
  const BucketLayout& layout_;
  std::vector<std::uint64_t> keys_;  // the query's permuted key, per table
  std::vector<int> part_of_table_;   // a table's multi-probe part, or -1
  std::vector<CloseEntry> close_;    // scratch
};

}  // namespace simhash

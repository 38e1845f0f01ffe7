// SPDX-License-Identifier: MIT
// Every stored row of one permuted copy, decoded from its packed buckets into
// two contiguous arrays (ids and permuted keys, 16 bytes a row: the scans
// stream the keys alone and read an id only for a row that passed), and the
// n nearest or the rows within a radius by one popcount loop over the keys
// (code_scan.h): what NearestScan computes from the buckets, without
// decoding them again. A key is a bit permutation of
// the fingerprint, so the distance between permuted key and permuted query
// is the distance between fingerprint and query; only the answer's keys are
// permuted back. The glue keeps one per index and connection while the
// database is unchanged (ext/index/index_storage.h); this class knows
// nothing of when it is valid.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "index/bucket_codec.h"
#include "index/code_scan.h"
#include "index/pending_changes.h"
#include "index/permutation_plan.h"
#include "util/aligned_allocator.h"
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
  // The arrays: ids()[i] is the row whose permuted key is keys()[i].
  std::span<const std::int64_t> ids() const { return ids_; }
  std::span<const std::uint64_t> keys() const { return keys_; }
  // Frees the arrays and their charge.
  void clear();

  // Appends to `out` the `count` rows nearest to `query` within `bound` bits
  // (64: any distance), ties by id, fingerprints unpermuted by `plan`;
  // sorted by nearer().
  void nearest(const PermutationPlan& plan, std::uint64_t query, std::size_t count, int bound,
               std::vector<IndexHit>& out) const;
  // Appends to `out` every row within `radius` bits of `query`, in the
  // arrays' order, fingerprints unpermuted by `plan`.
  void within(const PermutationPlan& plan, std::uint64_t query, int radius,
              std::vector<IndexHit>& out) const;

  // Whether the scans run an x86-64 vector loop on this CPU (AVX2 or
  // AVX-512), which the cost model prices as measured (multi_probe.h).
  // NEON's loop is priced as the portable one until it is measured.
  static bool vector_loop_runs() {
    return best_scan_kernel() == ScanKernel::kAvx2 || best_scan_kernel() == ScanKernel::kAvx512;
  }
  // The loop the scans run: the fastest here unless told (tests try each
  // one that runs, scan_kernels_that_run).
  void use_kernel(ScanKernel kernel) { kernel_ = kernel; }

 private:
  int table_ = 0;
  ScanKernel kernel_ = best_scan_kernel();
  std::vector<std::int64_t> ids_;
  // Permuted keys, ids_[i]'s at keys_[i]; on a cache line, so that the
  // scans' vector loads never straddle two.
  std::vector<std::uint64_t, AlignedAllocator<std::uint64_t>> keys_;
  MemoryCharge charge_;
};

// When to decode the codes into memory: decoding costs about
// MultiProbePlan::kCodeLoadCost a row, many times one scan of the packed
// buckets (those far from the query are skipped undecoded). So a scan loads
// the codes only once the scans at the same data version have together cost
// what loading does (the ski-rental rule): a connection that asks once pays
// a scan as before, one that asks often pays the load once, and none pays
// more than about twice the cheaper of the two ways. `version` is whatever
// tells the stored codes unchanged (the glue's data version); costs are in
// the cost model's units.
class CodeLoadRule {
 public:
  // Whether the next scan at `version` would load: true once the scans
  // counted at this version, and this one, cost at least `load_cost`.
  bool loads_next(unsigned version, double scan_cost, double load_cost) const {
    return spent_at(version) + scan_cost >= load_cost;
  }
  // Counts what a query at `version` paid that loaded codes would have
  // saved: a scan that did not load (its whole cost), or a multi-probe
  // search dearer than the loop over the codes (the difference), so that
  // a connection whose queries all end in searches still buys the codes
  // once they would have paid for themselves.
  void count_scan(unsigned version, double scan_cost) {
    spent_ = spent_at(version) + scan_cost;
    version_ = version;
    counted_ = true;
  }

 private:
  double spent_at(unsigned version) const { return counted_ && version_ == version ? spent_ : 0; }
  unsigned version_ = 0;
  bool counted_ = false;
  double spent_ = 0;
};

}  // namespace simhash

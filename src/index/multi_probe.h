// SPDX-License-Identifier: MIT
// Searching a radius above the plan's k from the permuted copies already
// stored: Multi-Index Hashing (Norouzi, Punjani and Fleet, CVPR 2012) with the
// general pigeonhole thresholds of Qin et al. (ICDE 2018).
//
// Take m copies whose bucket bits (the top bits of the permuted key, which
// are some of the fingerprint's bits) are pairwise disjoint: the "parts".
// Give part i a threshold t_i >= -1 with sum(t_i + 1) = radius + 1. A row
// within `radius` of the query differs from it in d_i bits of part i, and
// sum(d_i) <= radius, so some part has d_i <= t_i (otherwise the sum would
// be at least radius + 1). Reading, in every part, each bucket within t_i
// bits of the query's bucket therefore finds every answer, exactly. A row is
// reported only by the first part it is within the threshold of, so each
// row comes once without remembering what was found.
//
// For the default plans (blocks = k + 1) every copy's prefix is one block,
// so all copies are parts: k=3, blocks=4, radius 10 reads thresholds
// (2, 2, 2, 1) over four 16-bit buckets, 428 buckets in all.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "index/bucket_codec.h"
#include "index/permutation_plan.h"

namespace simhash {

struct ProbePart {
  int table;           // the permuted copy
  std::uint64_t mask;  // its bucket bits, in fingerprint bit positions
  int bits;            // how many (the layout's bucket bits of the table)
  int threshold;       // buckets within this many bits are read; -1: none
};

class MultiProbePlan {
 public:
  // The parts for `radius` under `layout`: copies taken in table order while
  // their bucket bits are disjoint from those already taken; thresholds
  // given one unit at a time to the part whose bucket reads grow least.
  MultiProbePlan(const PermutationPlan& plan, const BucketLayout& layout, int radius);

  int radius() const { return radius_; }
  std::span<const ProbePart> parts() const { return parts_; }
  // Buckets the search reads (the sum of each part's Hamming ball).
  double bucket_reads() const { return bucket_reads_; }

  // The part that reports a row whose fingerprint differs from the query by
  // `difference`: the first whose bits differ in at most its threshold; -1
  // when none does (the row is farther than the radius).
  int reporting_part(std::uint64_t difference) const;

  // Calls visit(bucket) for every bucket of `part` within its threshold of
  // `query_bucket` (a value of part.bits bits), the query's own first.
  template <typename Visit>
  static void for_each_bucket(const ProbePart& part, std::uint64_t query_bucket, Visit visit);

  // The cost model: reading every row costs kScanCostPerRow; the search
  // costs kBucketReadCost a bucket read plus kEntryCost for each entry of
  // the buckets it reads (as many as uniform fingerprints would put there).
  // Units are nanoseconds measured by bench/index_benchmark.cpp (BENCH.md,
  // "Radius above k", where a re-fit is also weighed). They are above what
  // uniform rows cost: real buckets are uneven, so the search reads more
  // entries than uniform ones would, and priced lower it would rarely let
  // the n nearest load the cached codes.
  static constexpr double kScanCostPerRow = 70;
  static constexpr double kBucketReadCost = 1500;
  static constexpr double kEntryCost = 10;
  // Whether searching beats scanning a table of `rows` rows.
  bool cheaper_than_scan(std::int64_t rows) const;
  // The n nearest scan the packed buckets of one copy instead
  // (nearest_scan.h): kPackedBucketCost a stored bucket (SQLite steps over
  // its row) plus kPackedEntryCost an entry (a popcount and a compare).
  // Measured by bench/nearest_benchmark.cpp (BENCH.md, "The n nearest").
  static constexpr double kPackedBucketCost = 100;
  static constexpr double kPackedEntryCost = 2;
  // That scan's cost over `rows` rows in `buckets` buckets, in nanoseconds.
  static double packed_scan_cost(std::int64_t rows, std::int64_t buckets) {
    return kPackedBucketCost * static_cast<double>(buckets) +
           kPackedEntryCost * static_cast<double>(rows);
  }
  // Whether searching beats that scan.
  bool cheaper_than_packed_scan(std::int64_t rows, std::int64_t buckets) const;
  // The same scan over codes already decoded into memory (packed_codes.h):
  // a popcount and a compare a row, kCachedCodeCost, measured by
  // bench/nearest_benchmark.cpp like the scan's, while the codes are in the
  // caches. The multi-probe search then pays only where it reads a few
  // buckets.
  static constexpr double kCachedCodeCost = 1;
  // The AVX2 or AVX-512 loop where the CPU runs it (vector_loop_runs), about
  // half the portable loop's cost (BENCH.md, "The scans beside a
  // hand-written loop").
  static constexpr double kCachedVectorCodeCost = 0.4;
  // The loop's cost a row before IndexStorage has timed it on this
  // machine: the loop this CPU runs, its keys in the caches. Optimistic on
  // purpose: the codes are then loaded once the searches' excess over it
  // has paid for the load (CodeLoadRule), and the loop is timed; priced
  // from memory instead, a loop that does beat the searches (clustered
  // rows, whose searches read crowded buckets) would never be loaded to be
  // timed. A loop slower than the searches runs until timed, a few queries
  // after one load, and its time keeps the codes from being loaded again.
  static double unmeasured_cached_row_cost();
  // This search's cost over `rows` rows in the same units.
  double search_cost(std::int64_t rows) const;
  // Decoding one copy's buckets into that memory (PackedCodes::add_bucket,
  // page faults and SQLite's blob reads included), a row, in this model's
  // units, as bench/nearest_benchmark.cpp measures it (BENCH.md, "The n
  // nearest"): SQLite's first reads of the pages and the page faults on the
  // fresh arrays are most of it, the decoding little. The prior: a
  // connection prices its later loads by what its loads cost.
  static constexpr double kCodeLoadCost = 100;
  // The smallest radius within which `rows` uniform fingerprints put at
  // least `wanted` rows around a query (64 if none does): where the n
  // nearest's growth can start once radius k fell short, as the radii
  // below it would most likely fall short too.
  static int expected_radius(std::int64_t rows, double wanted);
  // The smallest radius from `within` on at which `found` rows within
  // `within` bits of a query, were the rows around it as dense farther out,
  // number at least `wanted` (64 if at none): where clustered data (a query
  // near duplicates) holds the n nearest, far below expected_radius.
  static int radius_holding(double found, int within, double wanted);
  // A query whose radius k found one row (a stored row in a sparse region,
  // or in uniform data) grows one radius at a time while the searches so
  // far cost at most this share of the jump to expected_radius: at 10M real
  // rows the 10th nearest of such a row lies at 6-9 bits (radius 14's
  // search reads ~6x the buckets of radii 4-8 together); in uniform data the
  // steps find nothing and cost the jump at most this share more.
  static constexpr double kNearestStepShare = 0.25;
  // The fewest rows at which this search beats a scan (cheaper_than_scan);
  // -1 if it never does.
  std::int64_t rows_where_cheaper() const;

 private:
  int radius_;
  std::vector<ProbePart> parts_;
  double bucket_reads_ = 0;
  double row_fraction_ = 0;  // the share of all rows the read buckets hold
};

template <typename Visit>
void MultiProbePlan::for_each_bucket(const ProbePart& part, std::uint64_t query_bucket,
                                     Visit visit) {
  // Every pattern of `flips` bits among part.bits, in increasing order
  // (Gosper's hack), for flips = 0 .. threshold.
  const int most = part.threshold < part.bits ? part.threshold : part.bits;
  const std::uint64_t limit =
      part.bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << part.bits) - 1;
  for (int flips = 0; flips <= most; ++flips) {
    if (flips == 0) {
      visit(query_bucket);
      continue;
    }
    std::uint64_t pattern = (flips >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << flips) - 1);
    while (true) {
      visit(query_bucket ^ pattern);
      const std::uint64_t lowest = pattern & (~pattern + 1);
      const std::uint64_t ripple = pattern + lowest;
      if (ripple == 0 || ripple > limit) {
        break;  // the highest pattern of this weight was the last
      }
      pattern = ripple | (((pattern ^ ripple) >> 2) / lowest);
    }
  }
}

}  // namespace simhash

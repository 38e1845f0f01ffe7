// SPDX-License-Identifier: MIT
// NearestScan against brute force: the n nearest (ties by id) within a
// bound, from the packed buckets of one copy built as the index stores them,
// with pending inserts, deletes and updates applied (and over PackedCodes'
// answer by PendingNearest); for several plans,
// bucket bits (small ones make large buckets), copies, counts and bounds;
// and a damaged blob is refused. PackedCodes (the same rows decoded into
// arrays, scanned with a popcount loop: the portable one and every vector
// one this CPU runs) against the same brute force.
#include "index/nearest_scan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "index/packed_codes.h"
#include "plan_case.h"

namespace simhash::testing {
namespace {

// The blobs of copy `table` for `rows`, by bucket row id, as the index writes them.
std::map<std::int64_t, std::string> encode_copy(const PermutationPlan& plan,
                                                const BucketLayout& layout, int table,
                                                const std::map<std::int64_t, std::uint64_t>& rows) {
  std::map<std::uint64_t, std::vector<BucketEntry>> buckets;
  for (const auto& [id, fp] : rows) {  // id order, as a bucket wants
    const std::uint64_t key = plan.permute(table, fp);
    buckets[layout.bucket_of(table, key)].push_back(BucketEntry{id, layout.rest_of(table, key)});
  }
  std::map<std::int64_t, std::string> blobs;
  for (const auto& [bucket, entries] : buckets) {
    encode_bucket(entries, layout.rest_bytes(table), blobs[layout.row_id(table, bucket)]);
  }
  return blobs;
}

std::vector<IndexHit> brute_force(const std::map<std::int64_t, std::uint64_t>& rows,
                                  std::uint64_t query, std::size_t count, int bound) {
  std::vector<IndexHit> hits;
  for (const auto& [id, fp] : rows) {
    const int distance = std::popcount(fp ^ query);
    if (distance <= bound) {
      hits.push_back(IndexHit{id, static_cast<std::int64_t>(fp), distance});
    }
  }
  std::sort(hits.begin(), hits.end(), nearer);
  hits.resize(std::min(hits.size(), count));
  return hits;
}

std::string shown(const std::vector<IndexHit>& hits) {
  std::string text;
  for (const IndexHit& hit : hits) {
    text += std::to_string(hit.id) + ":" + std::to_string(hit.distance) + ":" +
            std::to_string(hit.fp) + " ";
  }
  return text;
}

std::uint64_t near_to(std::uint64_t center, std::mt19937_64& random) {
  std::uint64_t fp = center;
  for (int flips = static_cast<int>(random() % 12); flips > 0; --flips) {
    fp ^= std::uint64_t{1} << (random() % 64);
  }
  return fp;
}

class NearestScanTest : public ::testing::TestWithParam<PlanCase> {};

TEST_P(NearestScanTest, MatchesBruteForceWithPendingChanges) {
  const auto [k, blocks, bucket_bits] = GetParam();
  const PermutationPlan plan = make_plan(k, blocks);
  const BucketLayout layout(plan, bucket_bits);
  std::mt19937_64 random(4242 + k * 31 + blocks * 7 + bucket_bits);
  const std::uint64_t center = random();
  // Stored rows: half clustered around `center` (many ties), half random;
  // ids negative and positive, in no order.
  std::map<std::int64_t, std::uint64_t> stored;
  while (stored.size() < 2000) {
    const auto id = static_cast<std::int64_t>(random() % 20001) - 10000;
    stored[id] = random() % 2 == 0 ? near_to(center, random) : random();
  }
  std::map<int, std::map<std::int64_t, std::string>> blobs_of_table;
  for (const int table : {0, plan.table_count() - 1}) {
    blobs_of_table[table] = encode_copy(plan, layout, table, stored);
  }
  std::vector<std::int64_t> stored_ids;
  for (const auto& [id, fp] : stored) {
    stored_ids.push_back(id);
  }
  for (const int changes : {0, 1, 40, 700, 300}) {
    // The pending changes as IndexStorage pushes them (an update is a
    // delete, then an insert), and the rows as they are after them. The
    // last round only deletes and moves stored rows (no new row takes the
    // place of one dropped from the nearest).
    const bool stored_only = changes == 300;
    PendingChanges pending(plan);
    std::map<std::int64_t, std::uint64_t> now = stored;
    for (int i = 0; i < changes; ++i) {
      const auto id = stored_only ? stored_ids[random() % stored_ids.size()]
                                  : static_cast<std::int64_t>(random() % 24001) - 12000;
      const auto found = now.find(id);
      const std::uint64_t fp =
          !stored_only && random() % 2 == 0 ? near_to(center, random) : random();
      if (found == now.end()) {
        pending.push(id, fp, true);
        now[id] = fp;
      } else {
        pending.push(id, found->second, false);
        if (random() % 2 == 0) {
          now.erase(found);
        } else {
          pending.push(id, fp, true);
          found->second = fp;
        }
      }
    }
    for (const int table : {0, plan.table_count() - 1}) {
      const std::map<std::int64_t, std::string>& blobs = blobs_of_table[table];
      // The same rows decoded (the cached codes), the changes applied over
      // their answer by PendingNearest as the glue does.
      PackedCodes codes;
      codes.reset(table);
      for (const auto& [row_id, blob] : blobs) {
        ASSERT_TRUE(codes.add_bucket(
            layout, row_id, reinterpret_cast<const unsigned char*>(blob.data()), blob.size()));
      }
      for (int trial = 0; trial < 12; ++trial) {
        const std::uint64_t query = trial % 2 == 0 ? near_to(center, random) : random();
        const std::size_t count = std::vector<std::size_t>{0, 1, 10, 57, 5000}[trial % 5];
        const int bound = trial % 3 == 0 ? 64 : static_cast<int>(random() % 30);
        const std::string expected = shown(brute_force(now, query, count, bound));
        for (const ScanKernel kernel : scan_kernels_that_run()) {
          NearestScan scan(plan, layout, table, query, count, bound, pending);
          scan.use_kernel(kernel);
          // Buckets in a shuffled order: the answer must not depend on it.
          std::vector<std::pair<std::int64_t, std::string>> order(blobs.begin(), blobs.end());
          std::shuffle(order.begin(), order.end(), random);
          for (const auto& [row_id, blob] : order) {
            ASSERT_TRUE(scan.add_bucket(row_id, reinterpret_cast<const unsigned char*>(blob.data()),
                                        blob.size()));
          }
          std::vector<IndexHit> found;
          scan.finish(found);
          EXPECT_EQ(shown(found), expected)
              << "changes " << changes << " table " << table << " count " << count << " bound "
              << bound << " loop " << scan_kernel_name(kernel);
        }
        const PendingNearest over_codes(pending, query, count, bound);
        std::vector<IndexHit> from_codes = {IndexHit{-1, 0, 0}};  // appended after
        codes.nearest(plan, query, over_codes.capacity(), bound, from_codes);
        over_codes.finish(from_codes, 1);
        from_codes.erase(from_codes.begin());
        EXPECT_EQ(shown(from_codes), expected) << "codes, changes " << changes << " table " << table
                                               << " count " << count << " bound " << bound;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Plans, NearestScanTest,
                         ::testing::Values(PlanCase{3, 4, 16}, PlanCase{3, 4, 4},
                                           PlanCase{2, 5, 16}, PlanCase{6, 8, 8}),
                         [](const auto& info) { return plan_case_name(info.param); });

TEST(NearestScan, RefusesADamagedBucket) {
  const PermutationPlan plan = make_plan(3, 4);
  const BucketLayout layout(plan, 2);
  std::map<std::int64_t, std::uint64_t> rows;
  std::mt19937_64 random(9);
  for (std::int64_t id = 1; id <= 200; ++id) {
    rows[id] = random();
  }
  const std::map<std::int64_t, std::string> blobs = encode_copy(plan, layout, 0, rows);
  const PendingChanges pending(plan);
  // A blob cut short in its id section: the entry nearest the query reads ids.
  const auto& [row_id, blob] = *blobs.begin();
  const std::string cut = blob.substr(0, blob.size() - 1);
  NearestScan scan(plan, layout, 0, rows.begin()->second, 5, 64, pending);
  EXPECT_FALSE(
      scan.add_bucket(row_id, reinterpret_cast<const unsigned char*>(cut.data()), cut.size()));
  NearestScan header(plan, layout, 0, 0, 5, 64, pending);
  const std::string bad = "\x7f";
  EXPECT_FALSE(
      header.add_bucket(row_id, reinterpret_cast<const unsigned char*>(bad.data()), bad.size()));
}

// The codes decoded from a copy's buckets, read in any order (the ids then
// come in no order: ties must still go to the smaller id), answer as brute
// force does for every count and bound.
TEST_P(NearestScanTest, PackedCodesMatchBruteForce) {
  const auto [k, blocks, bucket_bits] = GetParam();
  const PermutationPlan plan = make_plan(k, blocks);
  const BucketLayout layout(plan, bucket_bits);
  std::mt19937_64 random(5151 + k * 31 + blocks * 7 + bucket_bits);
  const std::uint64_t center = random();
  std::map<std::int64_t, std::uint64_t> rows;
  while (rows.size() < 2000) {
    const auto id = static_cast<std::int64_t>(random() % 20001) - 10000;
    rows[id] = random() % 2 == 0 ? near_to(center, random) : random();
  }
  for (const int table : {0, plan.table_count() - 1}) {
    const std::map<std::int64_t, std::string> blobs = encode_copy(plan, layout, table, rows);
    std::vector<std::pair<std::int64_t, std::string>> order(blobs.begin(), blobs.end());
    std::shuffle(order.begin(), order.end(), random);
    PackedCodes codes;
    codes.reset(table);
    if (table == 0) {
      codes.reserve(rows.size());  // and without: the arrays grow
    }
    for (const auto& [row_id, blob] : order) {
      ASSERT_TRUE(codes.add_bucket(
          layout, row_id, reinterpret_cast<const unsigned char*>(blob.data()), blob.size()));
    }
    ASSERT_EQ(codes.size(), rows.size());
    EXPECT_GE(codes.bytes(), rows.size() * 16);
    for (int trial = 0; trial < 30; ++trial) {
      const std::uint64_t query = trial % 2 == 0 ? near_to(center, random) : random();
      const std::size_t count = std::vector<std::size_t>{0, 1, 10, 57, 5000}[trial % 5];
      const int bound = trial % 3 == 0 ? 64 : static_cast<int>(random() % 30);
      const std::string expected = shown(brute_force(rows, query, count, bound));
      for (const ScanKernel kernel : scan_kernels_that_run()) {
        codes.use_kernel(kernel);
        std::vector<IndexHit> found;
        codes.nearest(plan, query, count, bound, found);
        EXPECT_EQ(shown(found), expected) << "table " << table << " count " << count << " bound "
                                          << bound << " loop " << scan_kernel_name(kernel);
      }
    }
    codes.clear();
    EXPECT_EQ(codes.size(), 0U);
    EXPECT_EQ(codes.bytes(), 0U);
  }
}

// The loops filter rows by the limit (the bound, then the n-th best) before
// the heap; the vector ones several rows at a time, the rest one by one. Rows at
// exactly the limit, ties whose smaller id comes later, the nearest row in
// any lane or in the tail: whichever row a filter dropped or let through
// wrongly (an off-by-one at the limit, a lane or the tail skipped, a stale
// limit) changes some answer here, for every loop.
TEST(NearestScan, PackedCodesLoopsKeepEveryRowAtTheLimit) {
  const PermutationPlan plan = make_plan(3, 4);
  const BucketLayout layout(plan, 2);
  std::mt19937_64 random(3737);
  std::vector<std::size_t> sizes;
  for (std::size_t size = 1; size <= 40; ++size) {
    sizes.push_back(size);
  }
  sizes.push_back(67);
  sizes.push_back(1000);
  const std::uint64_t query = random();
  const auto at_distance = [&](int distance) {
    std::uint64_t fp = query;
    while (std::popcount(fp ^ query) < distance) {
      fp ^= std::uint64_t{1} << (random() % 64);
    }
    return fp;
  };
  int compared = 0;
  for (const std::size_t size : sizes) {
    // Distances 5 to 7 (many ties), one row at 4; ids in random order.
    std::map<std::int64_t, std::uint64_t> rows;
    while (rows.size() < size) {
      rows[static_cast<std::int64_t>(random() % 100000)] = at_distance(5 + random() % 3);
    }
    std::next(rows.begin(), static_cast<std::ptrdiff_t>(random() % size))->second = at_distance(4);
    const std::map<std::int64_t, std::string> blobs = encode_copy(plan, layout, 0, rows);
    PackedCodes codes;
    codes.reset(0);
    for (const auto& [row_id, blob] : blobs) {
      ASSERT_TRUE(codes.add_bucket(
          layout, row_id, reinterpret_cast<const unsigned char*>(blob.data()), blob.size()));
    }
    for (const std::size_t count : {std::size_t{1}, std::size_t{3}, std::size_t{8}, size}) {
      for (const int bound : {64, 6, 5, 4, 3}) {
        const std::vector<IndexHit> expected = brute_force(rows, query, count, bound);
        for (const ScanKernel kernel : scan_kernels_that_run()) {
          codes.use_kernel(kernel);
          std::vector<IndexHit> found;
          codes.nearest(plan, query, count, bound, found);
          EXPECT_EQ(shown(found), shown(expected))
              << "size " << size << " count " << count << " bound " << bound << " loop "
              << scan_kernel_name(kernel);
          ++compared;
        }
      }
    }
  }
  EXPECT_EQ(compared, 42 * 4 * 5 * static_cast<int>(scan_kernels_that_run().size()));
}

TEST(NearestScan, PackedCodesRefuseADamagedBucket) {
  const PermutationPlan plan = make_plan(3, 4);
  const BucketLayout layout(plan, 2);
  std::map<std::int64_t, std::uint64_t> rows;
  std::mt19937_64 random(10);
  for (std::int64_t id = 1; id <= 200; ++id) {
    rows[id] = random();
  }
  const std::map<std::int64_t, std::string> blobs = encode_copy(plan, layout, 0, rows);
  const std::int64_t row_id = blobs.begin()->first;
  const std::string cut = blobs.begin()->second.substr(0, blobs.begin()->second.size() - 1);
  PackedCodes codes;
  codes.reset(0);
  EXPECT_FALSE(codes.add_bucket(layout, row_id, reinterpret_cast<const unsigned char*>(cut.data()),
                                cut.size()));
  const std::string bad = "\x7f";
  EXPECT_FALSE(codes.add_bucket(layout, row_id, reinterpret_cast<const unsigned char*>(bad.data()),
                                bad.size()));
}

// The ski-rental rule: scans at one version are counted until they and the
// next cost what a load does; another version starts the count again.
TEST(NearestScan, CodesAreLoadedOnceTheScansCostWhatALoadDoes) {
  CodeLoadRule rule;
  int scans = 0;
  while (!rule.loads_next(7, 10, 35)) {
    rule.count_scan(7, 10);
    ++scans;
    ASSERT_LT(scans, 10);
  }
  EXPECT_EQ(scans, 3);  // 30 spent: the fourth scan's 10 reaches 35
  EXPECT_FALSE(rule.loads_next(8, 10, 35)) << "a new version starts from nothing";
  rule.count_scan(8, 10);
  EXPECT_FALSE(rule.loads_next(7, 10, 35)) << "the count of version 7 was dropped";
  EXPECT_TRUE(rule.loads_next(8, 10, 20));
  EXPECT_TRUE(CodeLoadRule().loads_next(1, 40, 35)) << "a scan dearer than a load loads";
}

}  // namespace
}  // namespace simhash::testing

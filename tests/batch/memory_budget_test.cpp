// SPDX-License-Identifier: MIT
// util/memory_budget.h: charges against an installed limit, as the batch
// arrays make them. The limit here is a test's own (the SQL glue installs
// SQLite's); each test puts back "no limit" when it ends.
#include "util/memory_budget.h"

#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <thread>
#include <vector>

#include "batch/feature_rows.h"
#include "util/charged_id_set.h"
#include "util/chunked_array.h"

namespace simhash {
namespace {

std::atomic<std::size_t> test_limit{0};
std::atomic<std::size_t> test_outside{0};

// Installs test_limit / test_outside for one test.
class LimitForTest {
 public:
  LimitForTest(std::size_t limit, std::size_t outside) {
    test_limit = limit;
    test_outside = outside;
    set_memory_limit_source({[] { return test_limit.load(); }, [] { return test_outside.load(); }});
  }
  ~LimitForTest() { set_memory_limit_source({}); }
};

TEST(MemoryBudget, ChargesUntilTheLimitThenRefusesAndGivesBackOnDestruction) {
  const std::size_t before = memory_charged();
  const LimitForTest limit(before + (std::size_t{8} << 20), std::size_t{2} << 20);
  std::size_t pushed = 0;
  {
    ChunkedArray<std::uint64_t> array;
    try {
      for (;; ++pushed) {
        array.push_back(pushed);
      }
    } catch (const MemoryLimitExceeded& error) {
      EXPECT_EQ(error.limit(), before + (std::size_t{8} << 20));
      EXPECT_NE(std::string(error.what()).find("out of memory"), std::string::npos);
    }
    // 6 MB left over the host's 2: the blocks that fit, and no more.
    const std::size_t block = ChunkedArray<std::uint64_t>::kBlockSize * sizeof(std::uint64_t);
    EXPECT_LE(memory_charged() - before, std::size_t{6} << 20);
    EXPECT_GT(memory_charged() - before, (std::size_t{6} << 20) - 2 * block);
    EXPECT_EQ(array.size(), pushed);
    EXPECT_EQ(array[pushed - 1], pushed - 1);
  }
  EXPECT_EQ(memory_charged(), before);
}

TEST(MemoryBudget, AnIdSetIsChargedAsItGrowsAndRefusedPastTheLimit) {
  const std::size_t before = memory_charged();
  const LimitForTest limit(before + (std::size_t{4} << 20), 0);
  ChargedIdSet ids;
  std::int64_t inserted = 0;
  bool refused = false;
  try {
    for (;; ++inserted) {
      ids.insert(inserted);
    }
  } catch (const MemoryLimitExceeded&) {
    refused = true;
  }
  EXPECT_TRUE(refused);
  // The ids that fit the limit, each charged before it was held.
  EXPECT_GT(static_cast<std::size_t>(inserted) * ChargedIdSet::kBytesPerId,
            (std::size_t{4} << 20) * 3 / 5);
  EXPECT_LE(static_cast<std::size_t>(inserted) * ChargedIdSet::kBytesPerId, std::size_t{4} << 20);
  EXPECT_TRUE(ids.contains(0));
  EXPECT_TRUE(ids.contains(inserted - 1));
  EXPECT_FALSE(ids.contains(inserted));
  ids.clear();
  EXPECT_TRUE(ids.empty());
  EXPECT_EQ(memory_charged(), before);
}

TEST(MemoryBudget, NoSourceNoLimit) {
  const std::size_t before = memory_charged();
  {
    // Counted, not allocated: an eighth of the address space (32-bit too).
    const std::size_t huge = std::numeric_limits<std::size_t>::max() / 8;
    MemoryCharge charge(huge);
    EXPECT_GE(memory_charged() - before, huge);
  }
  EXPECT_EQ(memory_charged(), before);
}

TEST(MemoryBudget, SetGivesBackAndMovesKeepOneCharge) {
  const std::size_t before = memory_charged();
  MemoryCharge charge;
  charge.grow_to(1000);
  charge.add(24);
  EXPECT_GE(charge.bytes(), 1024U);
  charge.set(100);
  EXPECT_EQ(charge.bytes(), 100U);
  MemoryCharge moved(std::move(charge));
  EXPECT_EQ(charge.bytes(), 0U);
  EXPECT_EQ(memory_charged() - before, 100U);
  const MemoryCharge copy(moved);  // a copy holds as much again
  EXPECT_EQ(memory_charged() - before, 200U);
  moved.release();
  EXPECT_EQ(memory_charged() - before, copy.bytes());
}

// Threads charging at once never pass the limit together, and give back
// exactly what they took. Each holds what it got until all have tried, so
// that their charges overlap: 4 x 32 MB asked of 64.
TEST(MemoryBudget, ThreadsShareOneLimit) {
  const std::size_t before = memory_charged();
  const std::size_t room = std::size_t{64} << 20;
  const LimitForTest limit(before + room, 0);
  constexpr int kThreads = 4;
  std::atomic<std::size_t> refused{0};
  std::atomic<std::size_t> most{0};
  std::barrier all_tried(kThreads);
  std::vector<std::thread> threads;
  for (int thread = 0; thread < kThreads; ++thread) {
    threads.emplace_back([&] {
      std::vector<MemoryCharge> charges;
      try {
        for (int i = 0; i < 64; ++i) {
          charges.emplace_back(std::size_t{1} << 19);
          const std::size_t now = memory_charged();
          std::size_t seen = most.load();
          while (now > seen && !most.compare_exchange_weak(seen, now)) {
          }
        }
      } catch (const MemoryLimitExceeded&) {
        ++refused;
      }
      all_tried.arrive_and_wait();
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  EXPECT_GT(refused.load(), 0U);
  EXPECT_LE(most.load() - before, room);
  EXPECT_EQ(memory_charged(), before);
}

// FeatureRows charges its blocks and rows before they grow: refused, it
// keeps the rows it had.
TEST(MemoryBudget, FeatureRowsRefusesWithTheRowsItHad) {
  const std::size_t before = memory_charged();
  const LimitForTest limit(before + (std::size_t{4} << 20), 0);
  FeatureRows rows;
  FeatureVector features;
  std::size_t added = 0;
  try {
    for (std::uint64_t row = 0;; ++row) {
      features.hashes.assign(50, 0);
      for (std::size_t i = 0; i < 50; ++i) {
        features.hashes[i] = row * 50 + i;
      }
      features.weights.assign(50, 1.0);
      features.sum_of_weights = 50;
      rows.add(row, features);
      ++added;
    }
  } catch (const MemoryLimitExceeded&) {
  }
  EXPECT_EQ(rows.size(), added);
  EXPECT_GT(added, 1000U);
  EXPECT_LE(memory_charged() - before, std::size_t{4} << 20);
}

// finish_adding() gives back the charge of the identical-row lookup and of
// the node array's spare room (over 64 bytes a distinct row), keeps the
// features, and refuses a row added after it with nothing charged.
TEST(MemoryBudget, FeatureRowsGivesBackTheLookupWhenFinished) {
  const std::size_t before = memory_charged();
  FeatureRows rows;
  FeatureVector features;
  constexpr std::size_t kRows = 20000;
  for (std::uint64_t row = 0; row < kRows; ++row) {
    features.hashes = {row * 3, row * 3 + 1, row * 3 + 2};
    features.weights.assign(3, 1.0);
    features.sum_of_weights = 3;
    rows.add(row, features);
  }
  const std::size_t adding = memory_charged() - before;
  rows.finish_adding();
  const std::size_t finished = memory_charged() - before;
  EXPECT_GE(adding - finished, kRows * 64);
  EXPECT_GE(finished, rows.hash_count() * sizeof(std::uint64_t));
  EXPECT_EQ(rows.size(), kRows);
  EXPECT_EQ(rows.features_of(kRows - 1).hashes[2], (kRows - 1) * 3 + 2);
  EXPECT_THROW(rows.add(kRows, features), std::logic_error);
  EXPECT_EQ(rows.size(), kRows);
  EXPECT_EQ(memory_charged() - before, finished);
}

}  // namespace
}  // namespace simhash

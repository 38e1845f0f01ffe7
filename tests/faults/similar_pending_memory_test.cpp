// SPDX-License-Identifier: MIT
// simhash_similar's pending postings (similar/pending_postings.h) charge
// the memory budget (util/memory_budget.h) for all they hold: the log of
// changes and the lookup by feature that a search reads. Measured with the
// fault tests' count of the bytes C++ code holds (allocation_hooks.h): what
// is charged covers what is held, without charging several times as much,
// for features each new and for features many rows share; and once cleared
// or cut back, the charge goes back down.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>

#include "allocation_hooks.h"
#include "similar/pending_postings.h"
#include "util/memory_budget.h"

namespace simhash::testing {
namespace {

// Pushes `count` changes of rows of 50 features each, the features drawn
// from `distinct` values, and checks the charge against the bytes held.
void expect_charged(std::size_t count, std::uint64_t distinct) {
  SCOPED_TRACE(distinct);
  std::mt19937_64 random(32);
  const std::size_t held_before = allocation::live_bytes();
  const std::size_t charged_before = memory_charged();
  auto pending = std::make_unique<PendingPostings>();
  for (std::size_t i = 0; i < count; ++i) {
    pending->push({random() % distinct, 50, static_cast<std::int64_t>(i / 50), i % 7 != 0});
  }
  const std::size_t held = allocation::live_bytes() - held_before;
  const std::size_t charged = memory_charged() - charged_before;
  EXPECT_GE(charged, held) << "held " << held << " bytes, charged " << charged;
  EXPECT_LE(charged, 2 * held + 2 * MemoryCharge::kStep) << "held " << held;

  pending->truncate(count / 4);
  EXPECT_LT(memory_charged() - charged_before, charged) << "cut back, charged as much";
  pending->clear();
  EXPECT_LE(memory_charged() - charged_before, MemoryCharge::kStep) << "cleared";
  pending.reset();
  EXPECT_EQ(memory_charged(), charged_before);
}

TEST(SimilarPendingMemory, TheLookupByFeatureIsCharged) {
  expect_charged(200000, std::uint64_t{1} << 62);  // each feature new
  expect_charged(200000, 5000);                    // each held by about 40 rows
}

}  // namespace
}  // namespace simhash::testing

// SPDX-License-Identifier: MIT
// FeatureCounter against a brute-force count: distinct hashes in
// first-occurrence order with their counts, through table growth.
#include "fingerprint/feature_counter.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

namespace {

using Entry = simhash::FeatureCounter::Entry;

std::vector<Entry> brute_force_counts(const std::vector<std::uint64_t>& hashes) {
  std::vector<Entry> entries;
  std::map<std::uint64_t, std::size_t> index_of;
  for (const std::uint64_t hash : hashes) {
    const auto [found, inserted] = index_of.emplace(hash, entries.size());
    if (inserted) {
      entries.push_back({hash, 0});
    }
    ++entries[found->second].count;
  }
  return entries;
}

// Hashes drawn from a pool, so that most repeat; some share their low bits
// (the probe start) or their high half (the tag) with others.
std::vector<std::uint64_t> random_hashes(std::mt19937_64& random, std::size_t count,
                                         std::size_t pool_size) {
  std::vector<std::uint64_t> pool(pool_size);
  for (std::uint64_t& hash : pool) {
    hash = random();
    if (random() % 4 == 0) {
      hash &= 0xFFFFFFFF000000FFU;  // collides in the low bits
    } else if (random() % 4 == 0) {
      hash &= 0x00000000FFFFFFFFU;  // tag 0
    }
  }
  std::vector<std::uint64_t> hashes(count);
  for (std::uint64_t& hash : hashes) {
    hash = pool[random() % pool.size()];
  }
  return hashes;
}

bool same_entries(const std::vector<Entry>& left, const std::vector<Entry>& right) {
  if (left.size() != right.size()) {
    return false;
  }
  for (std::size_t index = 0; index < left.size(); ++index) {
    if (left[index].hash != right[index].hash || left[index].count != right[index].count) {
      return false;
    }
  }
  return true;
}

TEST(FeatureCounter, MatchesBruteForce) {
  std::mt19937_64 random(5);
  simhash::FeatureCounter counter;
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t count = random() % 5000;
    const std::vector<std::uint64_t> hashes = random_hashes(random, count, 1 + random() % 3000);
    const std::vector<Entry> expected = brute_force_counts(hashes);
    // A small guess forces growth; a large one leaves the table sparse. The
    // bound on distinct features (grow once, straight to it) is absent,
    // right, or wrong either way (too small: it grows by doubling past it).
    const std::size_t guess = trial % 2 == 0 ? 1 : count;
    const std::size_t bounds[] = {0, count, count / 8, 4 * count + 1};
    counter.clear(guess, bounds[(trial / 2) % 4]);
    std::size_t new_ones = 0;
    for (const std::uint64_t hash : hashes) {
      new_ones += counter.add(hash) ? 1 : 0;
    }
    EXPECT_EQ(new_ones, expected.size());
    ASSERT_TRUE(same_entries(counter.entries(), expected)) << "trial " << trial;
  }
}

}  // namespace

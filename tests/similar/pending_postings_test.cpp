// SPDX-License-Identifier: MIT
// PendingPostings (similar/pending_postings.h) against a model that keeps
// the log alone and answers every question by reading all of it: random
// pushes, savepoint-like truncations, clears, saves and restores (fixed
// seeds), with features drawn from few values (long chains) and from many
// (mostly new), and features whose top bits agree (one probe run).
#include "similar/pending_postings.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <tuple>
#include <vector>

namespace simhash {
namespace {

using Change = PendingPostings::Change;

struct Model {
  std::vector<Change> log;

  std::vector<PendingPostings::Net> net_of(std::uint64_t feature, std::int64_t lowest,
                                           std::int64_t highest) const {
    std::map<std::pair<std::int64_t, std::int64_t>, int> net;
    for (const Change& c : log) {
      if (c.feature == feature && c.size >= lowest && c.size <= highest) {
        net[{c.size, c.id}] += c.insert ? 1 : -1;
      }
    }
    std::vector<PendingPostings::Net> out;
    for (const auto& [key, sum] : net) {
      if (sum != 0) {
        out.push_back({key.second, key.first, sum});
      }
    }
    return out;
  }
  std::int64_t net_count(std::uint64_t feature) const {
    std::int64_t net = 0;
    for (const Change& c : log) {
      net += c.feature == feature ? (c.insert ? 1 : -1) : 0;
    }
    return net;
  }
  std::vector<Change> merged() const {
    std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::pair<Change, Change>> ends;
    for (const Change& c : log) {
      const auto key = std::tuple(static_cast<std::int64_t>(c.feature), c.size, c.id);
      const auto [at, added] = ends.try_emplace(key, c, c);
      at->second.second = c;
    }
    std::vector<Change> out;
    for (const auto& [key, first_last] : ends) {
      if (first_last.first.insert == first_last.second.insert) {
        out.push_back(first_last.second);
      }
    }
    return out;
  }
};

bool same(const PendingPostings::Net& a, const PendingPostings::Net& b) {
  return a.id == b.id && a.size == b.size && a.net == b.net;
}

bool same_change(const Change& a, const Change& b) {
  return a.feature == b.feature && a.size == b.size && a.id == b.id && a.insert == b.insert;
}

void expect_equal(const PendingPostings& pending, const Model& model,
                  const std::vector<std::uint64_t>& features, std::mt19937_64& random) {
  ASSERT_EQ(pending.size(), model.log.size());
  std::vector<PendingPostings::Net> got;
  for (const std::uint64_t feature : features) {
    const std::int64_t lowest = static_cast<std::int64_t>(random() % 6);
    const std::int64_t highest = lowest + static_cast<std::int64_t>(random() % 6);
    pending.net_of(feature, lowest, highest, got);
    const std::vector<PendingPostings::Net> want = model.net_of(feature, lowest, highest);
    ASSERT_TRUE(std::equal(got.begin(), got.end(), want.begin(), want.end(), same))
        << "feature " << feature;
    ASSERT_EQ(pending.net_count(feature), model.net_count(feature)) << "feature " << feature;
  }
  MemoryCharge charge;
  const std::vector<Change> merged = pending.merged_changes(charge);
  const std::vector<Change> want = model.merged();
  ASSERT_TRUE(std::equal(merged.begin(), merged.end(), want.begin(), want.end(), same_change));
}

// `feature_of` draws a feature; ids and sizes come from small ranges so that
// one posting is inserted and deleted several times.
template <typename FeatureOf>
void run_against_model(std::uint64_t seed, FeatureOf feature_of) {
  SCOPED_TRACE(seed);
  std::mt19937_64 random(seed);
  PendingPostings pending;
  Model model;
  std::vector<std::uint64_t> features;
  for (int step = 0; step < 20000; ++step) {
    const std::uint64_t action = random() % 1000;
    if (action < 960) {
      const Change change{feature_of(random), static_cast<std::int64_t>(random() % 8),
                          static_cast<std::int64_t>(random() % 20), random() % 3 != 0};
      pending.push(change);
      model.log.push_back(change);
      features.push_back(change.feature);
    } else if (action < 985) {
      const std::size_t count = model.log.empty() ? 0 : random() % (model.log.size() + 1);
      pending.truncate(count);
      model.log.resize(std::min(count, model.log.size()));
    } else if (action < 986) {
      pending.clear();
      model.log.clear();
    } else {
      const std::size_t count = model.log.empty() ? 0 : random() % (model.log.size() + 1);
      const PendingPostings::Saved saved = pending.save(model.log.size());
      pending.restore(saved, count);
      model.log.resize(count);
    }
    if (step % 500 == 0) {
      features.push_back(feature_of(random));  // most often one with no change
      expect_equal(pending, model, features, random);
      if (features.size() > 64) {
        features.erase(features.begin(), features.end() - 64);
      }
    }
  }
  expect_equal(pending, model, features, random);
}

TEST(PendingPostings, EqualsTheModelWithFewFeatures) {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    run_against_model(seed, [](std::mt19937_64& random) { return random() % 7; });
  }
}

TEST(PendingPostings, EqualsTheModelWithManyFeatures) {
  for (std::uint64_t seed = 11; seed <= 15; ++seed) {
    run_against_model(seed, [](std::mt19937_64& random) { return random(); });
  }
}

TEST(PendingPostings, EqualsTheModelWhenFeaturesShareTheirTopBits) {
  // Features one multiple of 2^64 / φ apart land in neighbouring slots; and
  // signed order differs from unsigned order for the ones with the top bit.
  for (std::uint64_t seed = 21; seed <= 23; ++seed) {
    run_against_model(seed, [](std::mt19937_64& random) {
      const std::uint64_t k = random() % 300;
      return (random() % 2 ? 0x8000000000000000ULL : 0) + k;
    });
  }
}

}  // namespace
}  // namespace simhash

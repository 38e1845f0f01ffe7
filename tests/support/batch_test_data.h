// SPDX-License-Identifier: MIT
// Test data for the batch search: random fingerprints with planted clusters
// of near-duplicates, and brute-force references to compare with: all pairs,
// connected components, and the leader grouping's rule.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <vector>

#include "batch/fingerprint_groups.h"
#include "batch/leader_groups.h"
#include "batch/near_duplicate_clusters.h"
#include "batch/pair_finder.h"
#include "random_bits.h"

namespace simhash::testing {

// `count` records (ids scattered, negative ones included, shuffled): about
// half random, the rest in planted clusters whose members are 0..6 bits from
// their centre or from each other (chains), with exact duplicates and two
// large groups of identical fingerprints next to each other (so the output
// of one group, and of one pair of groups, spans several batches).
inline std::vector<IdFingerprint> planted_records(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<std::uint64_t> fps;
  const std::uint64_t big = random();
  for (int i = 0; i < 100; ++i) {
    fps.push_back(big);
    fps.push_back(big ^ 0x10);  // a second group at distance 1
  }
  while (fps.size() < count) {
    if (random() % 2 == 0) {
      fps.push_back(random());
      continue;
    }
    const std::uint64_t centre = random();
    const int members = 2 + static_cast<int>(random() % 9);
    std::uint64_t previous = centre;
    for (int m = 0; m < members && fps.size() < count; ++m) {
      const std::uint64_t from = random() % 3 == 0 ? previous : centre;
      previous = flip_random_bits(from, static_cast<int>(random() % 7), random);
      fps.push_back(previous);
    }
  }
  fps.resize(count);
  std::vector<std::int64_t> ids(count);
  std::int64_t id = -static_cast<std::int64_t>(count);
  for (auto& slot : ids) {
    id += 1 + static_cast<std::int64_t>(random() % 5);
    slot = id;
  }
  std::shuffle(ids.begin(), ids.end(), random);
  std::vector<IdFingerprint> records(count);
  for (std::size_t i = 0; i < count; ++i) {
    records[i] = IdFingerprint{ids[i], fps[i]};
  }
  return records;
}

// Every pair within `radius` by comparing all of them, sorted.
inline std::vector<NearPair> brute_force_pairs(const std::vector<IdFingerprint>& records,
                                               int radius) {
  std::vector<NearPair> pairs;
  for (std::size_t i = 0; i < records.size(); ++i) {
    for (std::size_t j = i + 1; j < records.size(); ++j) {
      const int distance = std::popcount(records[i].fp ^ records[j].fp);
      if (distance <= radius) {
        pairs.push_back(NearPair{std::min(records[i].id, records[j].id),
                                 std::max(records[i].id, records[j].id), distance});
      }
    }
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

// Every (left, right) pair within `radius` by comparing all of them, sorted.
inline std::vector<NearPair> brute_force_pairs_between(const std::vector<IdFingerprint>& left,
                                                       const std::vector<IdFingerprint>& right,
                                                       int radius) {
  std::vector<NearPair> pairs;
  for (const IdFingerprint& x : left) {
    for (const IdFingerprint& y : right) {
      const int distance = std::popcount(x.fp ^ y.fp);
      if (distance <= radius) {
        pairs.push_back(NearPair{x.id, y.id, distance});
      }
    }
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

// Connected components of the pairs by repeated relabelling (deliberately not
// union-find), as id -> smallest id of its component.
inline std::map<std::int64_t, std::int64_t> reference_clusters(
    const std::vector<IdFingerprint>& records, const std::vector<NearPair>& pairs) {
  std::map<std::int64_t, std::int64_t> label;
  for (const auto& record : records) {
    label[record.id] = record.id;
  }
  bool changed = true;
  while (changed) {
    changed = false;
    for (const auto& pair : pairs) {
      const std::int64_t smallest = std::min(label[pair.a], label[pair.b]);
      if (label[pair.a] != smallest || label[pair.b] != smallest) {
        label[pair.a] = smallest;
        label[pair.b] = smallest;
        changed = true;
      }
    }
  }
  return label;
}

// The rule, written as plainly as possible: O(records x representatives).
inline std::vector<FingerprintLeader> reference_leaders(std::vector<IdFingerprint> records,
                                                        int radius) {
  std::sort(records.begin(), records.end(),
            [](const IdFingerprint& x, const IdFingerprint& y) { return x.id < y.id; });
  std::vector<IdFingerprint> representatives;
  std::vector<FingerprintLeader> result;
  for (const IdFingerprint& record : records) {
    const IdFingerprint* nearest = nullptr;
    int nearest_distance = 0;
    for (const IdFingerprint& candidate : representatives) {
      const int distance = std::popcount(record.fp ^ candidate.fp);
      if (distance <= radius && (nearest == nullptr || distance < nearest_distance)) {
        nearest = &candidate;
        nearest_distance = distance;
      }
    }
    if (nearest != nullptr) {
      result.push_back({record.id, nearest->id, nearest_distance});
    } else {
      representatives.push_back(record);
      result.push_back({record.id, record.id, 0});
    }
  }
  return result;
}

// The rule over given pairs, plainly: links as a map from id pair to the
// smallest rank given (and the first index with it).
inline std::vector<PairLeader> reference_ranked_leaders(const std::vector<RankedPair>& pairs) {
  std::map<std::pair<std::int64_t, std::int64_t>, std::pair<double, std::size_t>> links;
  std::set<std::int64_t> ids;
  for (std::size_t index = 0; index < pairs.size(); ++index) {
    const auto& pair = pairs[index];
    if (pair.a == pair.b) {
      continue;
    }
    ids.insert(pair.a);
    ids.insert(pair.b);
    const auto key = std::minmax(pair.a, pair.b);
    const auto it = links.find(key);
    if (it == links.end() || pair.rank < it->second.first) {
      links[key] = {pair.rank, index};
    }
  }
  std::vector<std::int64_t> representatives;
  std::vector<PairLeader> result;
  for (const std::int64_t id : ids) {
    std::optional<std::pair<double, std::size_t>> best;
    std::int64_t best_leader = 0;
    for (const std::int64_t leader : representatives) {
      const auto it = links.find(std::minmax(id, leader));
      if (it != links.end() && (!best || it->second.first < best->first)) {
        best = it->second;
        best_leader = leader;
      }
    }
    if (best) {
      result.push_back({id, best_leader, best->second});
    } else {
      representatives.push_back(id);
      result.push_back({id, id, PairLeader::kNoPair});
    }
  }
  return result;
}

// Everything a PairFinder hands out, in the order given.
inline std::vector<NearPair> drain(PairFinder& finder) {
  std::vector<NearPair> all;
  std::vector<NearPair> batch;
  while (finder.next(batch)) {
    EXPECT_FALSE(batch.empty());
    EXPECT_LE(batch.size(), PairFinder::kBatchSize);
    all.insert(all.end(), batch.begin(), batch.end());
  }
  EXPECT_TRUE(batch.empty());
  return all;
}

}  // namespace simhash::testing

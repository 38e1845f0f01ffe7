// SPDX-License-Identifier: MIT
// Clusters by union-find over distinct fingerprints: records sharing a
// fingerprint are one cluster from the start, so only the pairs of distinct
// fingerprints from the batch search are joined.
#include "batch/near_duplicate_clusters.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "batch/group_pair_search.h"
#include "batch/union_find.h"

namespace simhash {

std::vector<IdCluster> find_clusters(std::vector<IdFingerprint> records, int radius,
                                     const CheckPoint& check) {
  const FingerprintGroups groups(std::move(records));
  return find_clusters(groups, BatchPlan::choose(radius, groups.group_count()), check);
}

std::vector<IdCluster> find_clusters(const FingerprintGroups& groups, const BatchPlan& plan,
                                     const CheckPoint& check) {
  const auto group_count = static_cast<std::uint32_t>(groups.group_count());
  UnionFind components(group_count);
  GroupPairSearch search(groups.fingerprints(), plan, check);
  std::vector<GroupPair> found;
  while (search.next(found)) {
    for (const GroupPair& pair : found) {
      components.unite(pair.first, pair.second);
    }
  }

  // Most records are alone in their cluster; they are labelled in one
  // sequential pass, and only members of larger clusters are visited through
  // their groups (an access pattern at random in id order).
  const auto records = groups.records();
  std::vector<IdCluster> clusters;
  clusters.reserve(records.size());
  for (const IdFingerprint& record : records) {
    clusters.push_back(IdCluster{record.id, record.id});
  }
  const auto shared = [&](std::uint32_t group, std::uint32_t root) {
    return groups.members(group).size() > 1 || components.size_of_root(root) > 1;
  };
  // A component's smallest id is at its smallest position (records are in id
  // order), and a group's first member is its smallest position.
  constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> smallest_position(group_count, kNone);
  for (std::uint32_t group = 0; group < group_count; ++group) {
    const std::uint32_t root = components.find(group);
    if (shared(group, root)) {
      smallest_position[root] = std::min(smallest_position[root], groups.members(group).front());
    }
  }
  for (std::uint32_t group = 0; group < group_count; ++group) {
    const std::uint32_t root = components.find(group);
    if (shared(group, root)) {
      const std::int64_t label = records[smallest_position[root]].id;
      for (const std::uint32_t position : groups.members(group)) {
        clusters[position].cluster = label;
      }
    }
  }
  return clusters;
}

}  // namespace simhash

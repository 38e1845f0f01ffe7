// Clusters by union-find over distinct fingerprints: records sharing a
// fingerprint are one cluster from the start, so only the pairs of distinct
// fingerprints from the batch search are joined.
#include "near_duplicate_clusters.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "group_pair_search.h"
#include "union_find.h"

namespace simhash {

std::vector<IdCluster> find_clusters(std::vector<IdFingerprint> records, int radius) {
  const FingerprintGroups groups(std::move(records));
  return find_clusters(groups, BatchPlan::choose(radius, groups.group_count()));
}

std::vector<IdCluster> find_clusters(const FingerprintGroups& groups, const BatchPlan& plan) {
  const auto group_count = static_cast<std::uint32_t>(groups.group_count());
  UnionFind components(group_count);
  GroupPairSearch search(groups.fingerprints(), plan);
  std::vector<GroupPair> found;
  while (search.next(found)) {
    for (const GroupPair& pair : found) {
      components.unite(pair.first, pair.second);
    }
  }

  // The smallest id of each component: a group's first member has its smallest id.
  std::vector<std::int64_t> smallest_id(group_count, std::numeric_limits<std::int64_t>::max());
  for (std::uint32_t group = 0; group < group_count; ++group) {
    const std::int64_t id = groups.records()[groups.members(group).front()].id;
    std::int64_t& smallest = smallest_id[components.find(group)];
    smallest = std::min(smallest, id);
  }
  std::vector<IdCluster> clusters;
  clusters.reserve(groups.records().size());
  for (std::size_t position = 0; position < groups.records().size(); ++position) {
    const std::uint32_t root = components.find(groups.group_of(position));
    clusters.push_back(IdCluster{groups.records()[position].id, smallest_id[root]});
  }
  return clusters;
}

}  // namespace simhash

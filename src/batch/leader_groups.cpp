// SPDX-License-Identifier: MIT
// The leader pass over a graph of nodes (distinct fingerprints, or the ids of
// given pairs): visiting records in ascending id, a representative hands each
// neighbouring node its offer (rank, own position), and a node keeps the best
// offer, so a record decides in O(1) and the whole pass costs O(records +
// links). When the batch plan compares every pair (radii so large that the
// links would not fit in memory), records are instead compared with the
// representatives directly: there are few of them at such radii.
#include "batch/leader_groups.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "batch/group_pair_search.h"
#include "batch/leader_rule.h"
#include "util/cpu_dispatch.h"

namespace simhash {
namespace {

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

// The leader pass's link and result (leader_groups.h).
using Link = NodeLink;
using Assignment = LeaderAssignment;

}  // namespace

// Records of one node join the first of them that became a representative
// (nothing is nearer than the same node); others take their node's best
// offer. Ties in rank keep the earlier offer: the earlier representative
// (for simhash_clusters, the smaller id).
std::vector<LeaderAssignment> assign_leaders(std::span<const std::uint32_t> node_of,
                                             std::size_t node_count,
                                             const ChunkedArray<NodeLink>& links,
                                             const CheckPoint& check) {
  if (links.size() > kNone / 2) {
    throw std::length_error("simhash: too many links to group");
  }
  // A pass over the links touches a node or two each (some 10 ns).
  constexpr std::size_t kLinksBetweenChecks = std::size_t{1} << 20;
  // The links of each node, in compressed rows.
  std::vector<std::uint32_t> row_start(node_count + 1, 0);
  for (std::size_t index = 0; index < links.size(); ++index) {
    ++row_start[links[index].first + 1];
    ++row_start[links[index].second + 1];
    check_after_every(index, kLinksBetweenChecks, check);
  }
  for (std::size_t node = 0; node < node_count; ++node) {
    row_start[node + 1] += row_start[node];
  }
  ChunkedArray<std::uint32_t> row_links;
  row_links.resize(row_start.back(), 0, check);
  std::vector<std::uint32_t> filled(row_start.begin(), row_start.end() - 1);
  for (std::uint32_t index = 0; index < links.size(); ++index) {
    row_links[filled[links[index].first]++] = index;
    row_links[filled[links[index].second]++] = index;
    check_after_every(index, kLinksBetweenChecks, check);
  }
  filled = {};

  LeaderRule rule(node_count);
  std::vector<Assignment> assignments;
  assignments.reserve(node_of.size());
  // An offer is a random access or two (some 20 ns): about 10 ms between checks.
  constexpr std::size_t kOffersBetweenChecks = std::size_t{1} << 19;
  std::size_t offers_made = 0;
  for (std::uint32_t position = 0; position < node_of.size(); ++position) {
    const std::uint32_t node = node_of[position];
    const LeaderRule::Place place = rule.place(position, node);
    assignments.push_back({place.leader, place.link});
    if (place.leader != position) {
      continue;
    }
    // A new representative offers itself to its neighbours.
    offers_made += row_start[node + 1] - row_start[node];
    if (offers_made >= kOffersBetweenChecks && check) {
      offers_made = 0;
      check();
    }
    for (std::uint32_t row = row_start[node]; row < row_start[node + 1]; ++row) {
      const std::uint32_t index = row_links[row];
      const Link& link = links[index];
      rule.offer(link.first == node ? link.second : link.first, position, index, link.rank);
    }
  }
  return assignments;
}

namespace {

// Each record's node: the group of its fingerprint.
std::vector<std::uint32_t> group_of_records(const FingerprintGroups& groups) {
  std::vector<std::uint32_t> node_of(groups.records().size());
  for (std::uint32_t group = 0; group < groups.group_count(); ++group) {
    for (const std::uint32_t position : groups.members(group)) {
      node_of[position] = group;
    }
  }
  return node_of;
}

// The nearest among the representatives a node compares with.
struct NearestLeader {
  std::uint32_t leader = kNone;
  int distance = 0;
};

// Compares `fp` with `leaders[from..]`: the nearest within `radius`, the
// earliest on a tie. Built with and without POPCNT like the search's hot
// loops: the portable popcount would dominate a large radius and stretch
// the checks apart.
SIMHASH_POPCNT_CLONES NearestLeader nearest_leader(std::uint64_t fp,
                                                   std::span<const IdFingerprint> records,
                                                   const std::vector<std::uint32_t>& leaders,
                                                   std::size_t from, int radius) {
  NearestLeader found;
  for (std::size_t i = from; i < leaders.size(); ++i) {
    const std::uint32_t leader = leaders[i];
    const int distance = std::popcount(fp ^ records[leader].fp);
    if (distance <= radius && (found.leader == kNone || distance < found.distance)) {
      found.leader = leader;
      found.distance = distance;
    }
  }
  return found;
}

// The all-pairs method: each record of a node without a representative
// compares with the representatives made since its node last looked, and
// the nearest of them offers itself to the node.
std::vector<FingerprintLeader> leaders_by_comparison(const FingerprintGroups& groups, int radius,
                                                     const CheckPoint& check) {
  std::size_t comparisons = 0;
  const auto records = groups.records();
  const auto fingerprints = groups.fingerprints();
  const std::vector<std::uint32_t> node_of = group_of_records(groups);
  LeaderRule rule(groups.group_count());
  std::vector<std::uint32_t> seen(groups.group_count(), 0);  // representatives compared with
  std::vector<std::uint32_t> leaders;  // positions, in the order they became representatives
  std::vector<FingerprintLeader> result;
  result.reserve(records.size());
  for (std::uint32_t position = 0; position < records.size(); ++position) {
    const std::uint32_t node = node_of[position];
    if (!rule.has_representative(node)) {
      comparisons += leaders.size() - seen[node];
      if (comparisons >= kComparisonsBetweenChecks && check) {
        comparisons = 0;
        check();
      }
      const NearestLeader found =
          nearest_leader(fingerprints[node], records, leaders, seen[node], radius);
      seen[node] = static_cast<std::uint32_t>(leaders.size());
      if (found.leader != kNone) {
        rule.offer(node, found.leader, LeaderRule::kNone, found.distance);
      }
    }
    const LeaderRule::Place place = rule.place(position, node);
    if (place.leader == position) {
      leaders.push_back(position);
    }
    result.push_back(
        {records[position].id, records[place.leader].id, static_cast<int>(place.rank)});
  }
  return result;
}

}  // namespace

std::vector<FingerprintLeader> find_leader_groups(std::vector<IdFingerprint> records, int radius,
                                                  const CheckPoint& check) {
  const FingerprintGroups groups(std::move(records));
  return find_leader_groups(groups, BatchPlan::choose(radius, groups.group_count()), check);
}

std::vector<FingerprintLeader> find_leader_groups(const FingerprintGroups& groups,
                                                  const BatchPlan& plan, const CheckPoint& check) {
  if (plan.method() == BatchPlan::Method::kAllPairs) {
    return leaders_by_comparison(groups, plan.radius(), check);
  }
  ChunkedArray<Link> links;
  GroupPairSearch search(groups.fingerprints(), plan, check);
  std::vector<GroupPair> found;
  while (search.next(found)) {
    for (const GroupPair& pair : found) {
      links.push_back({pair.first, pair.second, static_cast<double>(pair.distance)});
    }
  }
  const auto records = groups.records();
  const std::vector<std::uint32_t> node_of = group_of_records(groups);
  const std::vector<Assignment> assignments =
      assign_leaders(node_of, groups.group_count(), links, check);
  std::vector<FingerprintLeader> result;
  result.reserve(records.size());
  for (std::uint32_t position = 0; position < records.size(); ++position) {
    const Assignment& assignment = assignments[position];
    const int distance =
        assignment.link == kNone ? 0 : static_cast<int>(links[assignment.link].rank);
    result.push_back({records[position].id, records[assignment.leader].id, distance});
  }
  return result;
}

std::vector<PairLeader> group_ranked_pairs(std::span<const RankedPair> pairs) {
  // Nodes are the distinct ids, numbered in ascending order.
  std::vector<std::int64_t> ids;
  ids.reserve(2 * pairs.size());
  for (const RankedPair& pair : pairs) {
    if (std::isnan(pair.rank)) {
      throw std::invalid_argument("simhash: a pair's rank is NaN");
    }
    if (pair.a != pair.b) {
      ids.push_back(pair.a);
      ids.push_back(pair.b);
    }
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  if (ids.size() >= kNone) {
    throw std::length_error("simhash: too many ids to group");
  }
  const auto node_of_id = [&](std::int64_t id) {
    return static_cast<std::uint32_t>(std::lower_bound(ids.begin(), ids.end(), id) - ids.begin());
  };
  ChunkedArray<Link> links;
  std::vector<std::size_t> pair_of_link;
  pair_of_link.reserve(pairs.size());
  for (std::size_t index = 0; index < pairs.size(); ++index) {
    const RankedPair& pair = pairs[index];
    if (pair.a != pair.b) {
      links.push_back({node_of_id(pair.a), node_of_id(pair.b), pair.rank});
      pair_of_link.push_back(index);
    }
  }
  // One record per node: node and position coincide.
  std::vector<std::uint32_t> node_of(ids.size());
  for (std::uint32_t node = 0; node < node_of.size(); ++node) {
    node_of[node] = node;
  }
  const std::vector<Assignment> assignments = assign_leaders(node_of, ids.size(), links);
  std::vector<PairLeader> result;
  result.reserve(ids.size());
  for (std::uint32_t node = 0; node < ids.size(); ++node) {
    const Assignment& assignment = assignments[node];
    result.push_back(
        {ids[node], ids[assignment.leader],
         assignment.link == kNone ? PairLeader::kNoPair : pair_of_link[assignment.link]});
  }
  return result;
}

}  // namespace simhash

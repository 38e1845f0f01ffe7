// Rows to nodes (identical fingerprint and features), candidate pairs of
// nodes within the radius, verified as they come, then the leader pass over
// the rows in visit order.
#include "batch/verified_dedup.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string_view>

#include "batch/leader_groups.h"
#include "batch/pair_finder.h"
#include "fingerprint/feature_hash.h"

namespace simhash {
namespace {

// The bytes of a vector of numbers, for hashing.
template <typename Number>
std::string_view bytes_of(const std::vector<Number>& numbers) {
  return {reinterpret_cast<const char*>(numbers.data()), numbers.size() * sizeof(Number)};
}

std::uint64_t node_key(std::uint64_t fingerprint, const FeatureVector& features) {
  return fingerprint ^ feature_hash(bytes_of(features.hashes)) ^
         (feature_hash(bytes_of(features.weights)) * 0x9E3779B97F4A7C15ULL);
}

bool same_features(const FeatureVector& a, const FeatureVector& b) {
  return a.hashes == b.hashes && a.weights == b.weights;
}

// False when the pair cannot reach `threshold`: the sum of minima is at most
// the smaller sum of weights and the sum of maxima at least the larger, so
// their ratio bounds the weighted Jaccard. The margin keeps the bound from
// refusing a pair the exact merge would accept by a rounding.
bool may_reach(const FeatureVector& a, const FeatureVector& b, double threshold) {
  const double smaller = std::min(a.sum_of_weights, b.sum_of_weights);
  const double larger = std::max(a.sum_of_weights, b.sum_of_weights);
  return smaller / larger >= threshold * (1 - 1e-9);
}

}  // namespace

void VerifiedDedup::add(std::int64_t id, std::uint64_t fingerprint, const FeatureVector& features) {
  if (features.empty()) {
    throw std::invalid_argument("simhash: a row to dedup has no features");
  }
  if (ids_.size() >= LeaderAssignment::kNoLink - 1) {
    throw std::length_error("simhash: too many rows to dedup");
  }
  const std::uint64_t key = node_key(fingerprint, features);
  std::uint32_t node = static_cast<std::uint32_t>(nodes_.size());
  const auto [first, last] = node_by_key_.equal_range(key);
  for (auto found = first; found != last; ++found) {
    const Node& candidate = nodes_[found->second];
    if (candidate.fingerprint == fingerprint && same_features(candidate.features, features)) {
      node = found->second;
      break;
    }
  }
  if (node == nodes_.size()) {
    nodes_.push_back(Node{fingerprint, features});
    node_by_key_.emplace(key, node);
  }
  ids_.push_back(id);
  node_of_.push_back(node);
}

std::optional<std::int64_t> VerifiedDedup::repeated_id() const {
  std::vector<std::int64_t> sorted = ids_;
  std::sort(sorted.begin(), sorted.end());
  const auto repeated = std::adjacent_find(sorted.begin(), sorted.end());
  if (repeated == sorted.end()) {
    return std::nullopt;
  }
  return *repeated;
}

std::vector<DedupRow> VerifiedDedup::groups_within_radius(double threshold, int radius,
                                                          const CheckPoint& check) const {
  std::vector<IdFingerprint> records;
  records.reserve(nodes_.size());
  for (std::uint32_t node = 0; node < nodes_.size(); ++node) {
    records.push_back(IdFingerprint{node, nodes_[node].fingerprint});
  }
  PairFinder finder(std::move(records), radius, check);

  // The verified pairs, with their distances beside them.
  std::vector<NodeLink> links;
  std::vector<int> link_distance;
  std::vector<NearPair> candidates;
  std::size_t work = 0;  // feature comparisons since the last check
  while (finder.next(candidates)) {
    for (const NearPair& pair : candidates) {
      const FeatureVector& a = nodes_[pair.a].features;
      const FeatureVector& b = nodes_[pair.b].features;
      if (!may_reach(a, b, threshold)) {
        continue;
      }
      const double similarity = weighted_jaccard(a, b);
      if (similarity >= threshold) {
        links.push_back(NodeLink{static_cast<std::uint32_t>(pair.a),
                                 static_cast<std::uint32_t>(pair.b), -similarity});
        link_distance.push_back(pair.distance);
      }
      work += a.hashes.size() + b.hashes.size();
      if (work >= kComparisonsBetweenChecks && check) {
        work = 0;
        check();
      }
    }
  }

  const std::vector<LeaderAssignment> assignments = assign_leaders(node_of_, nodes_.size(), links);
  std::vector<std::uint32_t> group_size(ids_.size(), 0);
  for (const LeaderAssignment& assignment : assignments) {
    ++group_size[assignment.leader];
  }
  std::vector<DedupRow> rows;
  for (std::uint32_t position = 0; position < ids_.size(); ++position) {
    const LeaderAssignment& assignment = assignments[position];
    if (group_size[assignment.leader] < 2) {
      continue;
    }
    DedupRow& row = rows.emplace_back(DedupRow{ids_[position], ids_[assignment.leader], 0, 1.0});
    if (assignment.link != LeaderAssignment::kNoLink) {
      row.distance = link_distance[assignment.link];
      row.similarity = -links[assignment.link].rank;
    }
  }
  return rows;
}

}  // namespace simhash

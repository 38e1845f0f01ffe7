// Rows to nodes (identical fingerprint and features); then either candidate
// pairs of nodes within the radius, verified as they come, and the leader
// pass over the rows in visit order; or the leader rule applied row by row
// in visit order, each row looking for its representative in an index of
// the representatives' rarest features (the threshold join).
#include "batch/verified_dedup.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string_view>

#include "batch/leader_groups.h"
#include "batch/pair_finder.h"
#include "batch/radix_sort.h"
#include "fingerprint/feature_hash.h"
#include "fingerprint/hamming.h"

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

// Features merged between two checks: a step of the merge (a compare and a
// branch the predictor often misses) costs a few fingerprint comparisons, so
// a quarter of their count, about 10 ms.
constexpr std::size_t kFeaturesBetweenChecks = kComparisonsBetweenChecks / 4;

// How many of a set's `size` features, rarest first, must be compared so
// that a set at Jaccard `threshold` or more shares one of them: a match
// needs an overlap of at least threshold * size, so it shares one of any
// size - ceil(threshold * size) + 1. The overlap is taken a little lower
// than that (a longer prefix, only more candidates) so that no rounding in
// the bound or in the final similarity can lose a pair.
std::size_t prefix_length(std::size_t size, double threshold) {
  const double overlap = std::ceil(threshold * (1 - 1e-9) * static_cast<double>(size) - 1e-6);
  const std::size_t needed =
      std::clamp<std::size_t>(overlap < 1 ? 1 : static_cast<std::size_t>(overlap), 1, size);
  return size - needed + 1;
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

  // The verified pairs.
  std::vector<NodeLink> links;
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
      }
      work += a.hashes.size() + b.hashes.size();
      if (work >= kFeaturesBetweenChecks && check) {
        work = 0;
        check();
      }
    }
  }

  const std::vector<LeaderAssignment> assignments =
      assign_leaders(node_of_, nodes_.size(), links, check);
  std::vector<Joined> joined;
  joined.reserve(assignments.size());
  for (const LeaderAssignment& assignment : assignments) {
    joined.push_back(Joined{assignment.leader, assignment.link == LeaderAssignment::kNoLink
                                                   ? 1.0
                                                   : -links[assignment.link].rank});
  }
  return rows_of_groups(joined);
}

std::vector<DedupRow> VerifiedDedup::groups_by_threshold_join(double threshold,
                                                              const CheckPoint& check) const {
  for (const Node& node : nodes_) {
    if (std::any_of(node.features.weights.begin(), node.features.weights.end(),
                    [](double weight) { return weight != 1.0; })) {
      throw std::invalid_argument("simhash: the threshold join needs binary weights");
    }
  }
  const Prefixes prefixes = rarest_first_prefixes(threshold);
  constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  // A node's best offer so far, from the representatives (by ordinal: the
  // order they became one) before `seen`; later members of the node look
  // only at the representatives made since.
  struct Offer {
    std::uint32_t leader = kNone;  // ordinal
    double similarity = 0;
    std::uint32_t seen = 0;
  };
  std::vector<Offer> offers(nodes_.size());
  std::vector<std::uint32_t> node_leader(nodes_.size(), kNone);  // position
  std::vector<std::uint32_t> leaders;                            // positions, by ordinal
  std::vector<std::uint32_t> compared_for;  // by ordinal: the last position compared with it
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> ordinals_by_feature;
  std::vector<Joined> joined;
  joined.reserve(ids_.size());
  std::size_t work = 0;
  for (std::uint32_t position = 0; position < ids_.size(); ++position) {
    const std::uint32_t node = node_of_[position];
    if (node_leader[node] != kNone) {
      joined.push_back(Joined{node_leader[node], 1.0});
      continue;
    }
    Offer& offer = offers[node];
    const FeatureVector& features = nodes_[node].features;
    for (const std::uint64_t feature : prefixes.of(node)) {
      const auto found = ordinals_by_feature.find(feature);
      if (found == ordinals_by_feature.end()) {
        continue;
      }
      // Ordinals are appended in increasing order: the new ones are last.
      for (auto ordinal = found->second.rbegin();
           ordinal != found->second.rend() && *ordinal >= offer.seen; ++ordinal) {
        ++work;
        if (compared_for[*ordinal] == position) {
          continue;
        }
        compared_for[*ordinal] = position;
        const FeatureVector& other = nodes_[node_of_[leaders[*ordinal]]].features;
        if (!may_reach(features, other, threshold)) {
          continue;
        }
        work += features.hashes.size() + other.hashes.size();
        const double similarity = weighted_jaccard(features, other);
        // Ties go to the earlier representative, as in the leader pass.
        if (similarity >= threshold &&
            (offer.leader == kNone || similarity > offer.similarity ||
             (similarity == offer.similarity && *ordinal < offer.leader))) {
          offer.leader = *ordinal;
          offer.similarity = similarity;
        }
      }
      if (work >= kFeaturesBetweenChecks && check) {
        work = 0;
        check();
      }
    }
    offer.seen = static_cast<std::uint32_t>(leaders.size());
    if (offer.leader != kNone) {
      joined.push_back(Joined{leaders[offer.leader], offer.similarity});
      continue;
    }
    node_leader[node] = position;
    for (const std::uint64_t feature : prefixes.of(node)) {
      ordinals_by_feature[feature].push_back(static_cast<std::uint32_t>(leaders.size()));
    }
    leaders.push_back(position);
    compared_for.push_back(kNone);
    joined.push_back(Joined{position, 1.0});
  }
  return rows_of_groups(joined);
}

VerifiedDedup::Prefixes VerifiedDedup::rarest_first_prefixes(double threshold) const {
  // How many distinct rows hold each feature: every feature of every node,
  // flattened in node order, sorted by hash with its place beside it (one
  // radix sort, no lookups); a run of equal hashes gives each place its count.
  std::vector<std::uint64_t> hashes;
  for (const Node& node : nodes_) {
    hashes.insert(hashes.end(), node.features.hashes.begin(), node.features.hashes.end());
  }
  if (hashes.size() >= std::numeric_limits<std::uint32_t>::max()) {
    throw std::length_error("simhash: too many features to join");
  }
  std::vector<std::uint32_t> places(hashes.size());
  for (std::uint32_t place = 0; place < places.size(); ++place) {
    places[place] = place;
  }
  RadixSorter().sort_by_mask(hashes, places, ~std::uint64_t{0});
  std::vector<std::uint32_t> frequency(hashes.size());
  for (std::size_t run = 0, end = 0; run < hashes.size(); run = end) {
    while (end < hashes.size() && hashes[end] == hashes[run]) {
      ++end;
    }
    for (std::size_t i = run; i < end; ++i) {
      frequency[places[i]] = static_cast<std::uint32_t>(end - run);
    }
  }
  hashes = {};
  places = {};

  Prefixes prefixes;
  prefixes.start.reserve(nodes_.size() + 1);
  prefixes.start.push_back(0);
  std::vector<std::pair<std::uint32_t, std::uint64_t>> order;  // (frequency, feature)
  std::size_t place = 0;
  for (const Node& node : nodes_) {
    order.clear();
    for (const std::uint64_t feature : node.features.hashes) {
      order.emplace_back(frequency[place++], feature);
    }
    const std::size_t length = prefix_length(order.size(), threshold);
    // The prefix is a set: which features, not their order, matters.
    std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(length - 1),
                     order.end());
    for (std::size_t i = 0; i < length; ++i) {
      prefixes.features.push_back(order[i].second);
    }
    prefixes.start.push_back(prefixes.features.size());
  }
  return prefixes;
}

std::vector<DedupRow> VerifiedDedup::rows_of_groups(const std::vector<Joined>& joined) const {
  std::vector<std::uint32_t> group_size(ids_.size(), 0);
  for (const Joined& row : joined) {
    ++group_size[row.leader];
  }
  std::vector<DedupRow> rows;
  for (std::uint32_t position = 0; position < ids_.size(); ++position) {
    const Joined& row = joined[position];
    if (group_size[row.leader] >= 2) {
      rows.push_back(DedupRow{ids_[position], ids_[row.leader],
                              hamming_distance(nodes_[node_of_[position]].fingerprint,
                                               nodes_[node_of_[row.leader]].fingerprint),
                              row.similarity});
    }
  }
  return rows;
}

}  // namespace simhash

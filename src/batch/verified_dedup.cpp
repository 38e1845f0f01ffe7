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
#include "fingerprint/feature_hash.h"
#include "fingerprint/hamming.h"

namespace simhash {
namespace {

// The bytes of a span of numbers, for hashing.
template <typename Number>
std::string_view bytes_of(std::span<const Number> numbers) {
  return {reinterpret_cast<const char*>(numbers.data()), numbers.size_bytes()};
}

// The weights hash as binary ones when all are 1, so that a row's key does
// not depend on whether the rows before it were weighted.
bool is_binary(const FeatureVector& features) {
  return std::all_of(features.weights.begin(), features.weights.end(),
                     [](double weight) { return weight == 1.0; });
}

std::uint64_t node_key(std::uint64_t fingerprint, const FeatureVector& features) {
  const std::uint64_t key =
      fingerprint ^ feature_hash(bytes_of(std::span<const std::uint64_t>(features.hashes)));
  if (is_binary(features)) {
    return key;
  }
  return key ^ (feature_hash(bytes_of(std::span<const double>(features.weights))) *
                0x9E3779B97F4A7C15ULL);
}

bool same_features(FeatureView a, FeatureView b) {
  if (!std::equal(a.hashes.begin(), a.hashes.end(), b.hashes.begin(), b.hashes.end())) {
    return false;
  }
  for (std::size_t i = 0; i < a.hashes.size(); ++i) {
    if (a.weight(i) != b.weight(i)) {
      return false;
    }
  }
  return true;
}

// False when the pair cannot reach `threshold`: the sum of minima is at most
// the smaller sum of weights and the sum of maxima at least the larger, so
// their ratio bounds the weighted Jaccard. The margin keeps the bound from
// refusing a pair the exact merge would accept by a rounding.
bool may_reach(FeatureView a, FeatureView b, double threshold) {
  const double smaller = std::min(a.sum_of_weights, b.sum_of_weights);
  const double larger = std::max(a.sum_of_weights, b.sum_of_weights);
  return smaller / larger >= threshold * (1 - 1e-9);
}

// Features merged between two checks: a step of the merge (a compare and a
// branch the predictor often misses) costs a few fingerprint comparisons, so
// a quarter of their count, about 10 ms.
constexpr std::size_t kFeaturesBetweenChecks = kComparisonsBetweenChecks / 4;

// The threshold join's feature slots: 2^10 to 2^24 (a 64 MiB count table).
constexpr int kMinSlotBits = 10;
constexpr int kMaxSlotBits = 24;

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
    if (nodes_[found->second].fingerprint == fingerprint &&
        same_features(features_of(found->second), features)) {
      node = found->second;
      break;
    }
  }
  if (node == nodes_.size()) {
    if (!weighted_ && !is_binary(features)) {
      weights_.assign(hashes_.size(), 1.0);
      weighted_ = true;
    }
    nodes_.push_back(
        Node{fingerprint, hashes_.size(), features.hashes.size(), features.sum_of_weights});
    hashes_.insert(hashes_.end(), features.hashes.begin(), features.hashes.end());
    if (weighted_) {
      weights_.insert(weights_.end(), features.weights.begin(), features.weights.end());
    }
    node_by_key_.emplace(key, node);
  }
  ids_.push_back(id);
  node_of_.push_back(node);
}

FeatureView VerifiedDedup::features_of(std::uint32_t node) const {
  const Node& stored = nodes_[node];
  const std::span<const std::uint64_t> hashes(hashes_.data() + stored.first, stored.size);
  if (!weighted_) {
    return FeatureView(hashes, {}, stored.sum_of_weights);
  }
  return FeatureView(hashes, std::span<const double>(weights_.data() + stored.first, stored.size),
                     stored.sum_of_weights);
}

std::optional<double> VerifiedDedup::similarity_if_at_least(FeatureView a, FeatureView b,
                                                            double threshold) const {
  if (!weighted_) {
    return set_jaccard_if_at_least(a, b, threshold);
  }
  const double similarity = weighted_jaccard(a, b);
  return similarity >= threshold ? std::optional<double>(similarity) : std::nullopt;
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
                                                          const CheckPoint& check,
                                                          DedupCounts* counts) const {
  std::vector<IdFingerprint> records;
  records.reserve(nodes_.size());
  for (std::uint32_t node = 0; node < nodes_.size(); ++node) {
    records.push_back(IdFingerprint{node, nodes_[node].fingerprint});
  }
  PairFinder finder(std::move(records), radius, check);

  // The verified pairs.
  DedupCounts counted;
  std::vector<NodeLink> links;
  std::vector<NearPair> candidates;
  std::size_t work = 0;  // feature comparisons since the last check
  while (finder.next(candidates)) {
    counted.candidates += candidates.size();
    for (const NearPair& pair : candidates) {
      const FeatureView a = features_of(static_cast<std::uint32_t>(pair.a));
      const FeatureView b = features_of(static_cast<std::uint32_t>(pair.b));
      if (!may_reach(a, b, threshold)) {
        continue;
      }
      ++counted.checked;
      if (const std::optional<double> similarity = similarity_if_at_least(a, b, threshold)) {
        ++counted.verified;
        links.push_back(NodeLink{static_cast<std::uint32_t>(pair.a),
                                 static_cast<std::uint32_t>(pair.b), -*similarity});
      }
      work += a.hashes.size() + b.hashes.size();
      if (work >= kFeaturesBetweenChecks && check) {
        work = 0;
        check();
      }
    }
  }
  if (counts != nullptr) {
    *counts = counted;
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
                                                              const CheckPoint& check,
                                                              DedupCounts* counts) const {
  if (weighted_) {
    throw std::invalid_argument("simhash: the threshold join needs binary weights");
  }
  const Prefixes prefixes = rarest_first_prefixes(threshold);
  constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  // The representatives (by ordinal: the order they became one) indexed by
  // their prefix features: slot f's are postings[begin[f], end[f]), in
  // increasing ordinal. begin comes from how many prefixes hold f, an upper
  // bound, since only representatives are added.
  if (prefixes.slots.size() >= std::numeric_limits<std::uint32_t>::max()) {
    throw std::length_error("simhash: too many features to join");
  }
  std::vector<std::uint32_t> begin(prefixes.slot_count + 1, 0);
  for (const std::uint32_t slot : prefixes.slots) {
    ++begin[slot + 1];
  }
  for (std::size_t feature = 1; feature < begin.size(); ++feature) {
    begin[feature] += begin[feature - 1];
  }
  std::vector<std::uint32_t> end(begin.begin(), begin.end() - 1);
  std::vector<std::uint32_t> postings(prefixes.slots.size());

  // A node's best offer so far, from the representatives before `seen`;
  // later members of the node look only at the representatives made since.
  struct Offer {
    std::uint32_t leader = kNone;  // ordinal
    double similarity = 0;
    std::uint32_t seen = 0;
  };
  std::vector<Offer> offers(nodes_.size());
  std::vector<std::uint32_t> node_leader(nodes_.size(), kNone);  // position
  std::vector<std::uint32_t> leaders;                            // positions, by ordinal
  std::vector<std::uint32_t> compared_for;  // by ordinal: the last position compared with it
  std::vector<Joined> joined;
  joined.reserve(ids_.size());
  DedupCounts counted;
  std::size_t work = 0;
  for (std::uint32_t position = 0; position < ids_.size(); ++position) {
    const std::uint32_t node = node_of_[position];
    if (node_leader[node] != kNone) {
      joined.push_back(Joined{node_leader[node], 1.0});
      continue;
    }
    Offer& offer = offers[node];
    const FeatureView features = features_of(node);
    for (const std::uint32_t feature : prefixes.of(node)) {
      // Newest first, down to the ones this node has already seen.
      for (std::size_t at = end[feature]; at > begin[feature] && postings[at - 1] >= offer.seen;
           --at) {
        const std::uint32_t ordinal = postings[at - 1];
        ++work;
        if (compared_for[ordinal] == position) {
          continue;
        }
        compared_for[ordinal] = position;
        ++counted.candidates;
        const FeatureView other = features_of(node_of_[leaders[ordinal]]);
        if (!may_reach(features, other, threshold)) {
          continue;
        }
        ++counted.checked;
        work += features.hashes.size() + other.hashes.size();
        const std::optional<double> similarity =
            set_jaccard_if_at_least(features, other, threshold);
        if (!similarity) {
          continue;
        }
        ++counted.verified;
        // Ties go to the earlier representative, as in the leader pass.
        if (offer.leader == kNone || *similarity > offer.similarity ||
            (*similarity == offer.similarity && ordinal < offer.leader)) {
          offer.leader = ordinal;
          offer.similarity = *similarity;
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
    for (const std::uint32_t feature : prefixes.of(node)) {
      postings[end[feature]++] = static_cast<std::uint32_t>(leaders.size());
    }
    leaders.push_back(position);
    compared_for.push_back(kNone);
    joined.push_back(Joined{position, 1.0});
  }
  if (counts != nullptr) {
    *counts = counted;
  }
  return rows_of_groups(joined);
}

VerifiedDedup::Prefixes VerifiedDedup::rarest_first_prefixes(double threshold) const {
  // About one slot per four feature occurrences: on real text most
  // occurrences repeat a feature, so most distinct ones get a slot of their own.
  int slot_bits = kMinSlotBits;
  while (slot_bits < kMaxSlotBits && (std::size_t{1} << slot_bits) < hashes_.size() / 4) {
    ++slot_bits;
  }
  const auto slot_of = [slot_bits](std::uint64_t hash) {
    return static_cast<std::uint32_t>(hash >> (64 - slot_bits));
  };
  std::vector<std::uint32_t> occurrences(std::size_t{1} << slot_bits, 0);
  for (const std::uint64_t hash : hashes_) {
    std::uint32_t& count = occurrences[slot_of(hash)];
    count += count < std::numeric_limits<std::uint32_t>::max() ? 1 : 0;  // still one order
  }

  Prefixes prefixes;
  prefixes.slot_count = occurrences.size();
  prefixes.start.reserve(nodes_.size() + 1);
  prefixes.start.push_back(0);
  struct Ranked {
    std::uint32_t occurrences;
    std::uint64_t hash;
    bool operator<(const Ranked& other) const {
      return occurrences != other.occurrences ? occurrences < other.occurrences : hash < other.hash;
    }
  };
  std::vector<Ranked> order;
  for (std::uint32_t node = 0; node < nodes_.size(); ++node) {
    order.clear();
    for (const std::uint64_t hash : features_of(node).hashes) {
      order.push_back(Ranked{occurrences[slot_of(hash)], hash});
    }
    const std::size_t length = prefix_length(order.size(), threshold);
    // The prefix is a set: which features, not their order, matters.
    std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(length - 1),
                     order.end());
    for (std::size_t i = 0; i < length; ++i) {
      prefixes.slots.push_back(slot_of(order[i].hash));
    }
    prefixes.start.push_back(prefixes.slots.size());
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

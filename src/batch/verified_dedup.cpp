// SPDX-License-Identifier: MIT
// Rows to nodes (identical fingerprint and features); then either candidate
// pairs of nodes within the radius, verified as they come, and the leader
// pass over the rows in visit order; or the leader rule applied row by row
// in visit order, each row looking for its representative in an index of
// the representatives' rarest features (the threshold join; given a radius,
// links farther apart are dropped before their check).
#include "batch/verified_dedup.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "batch/leader_groups.h"
#include "batch/pair_finder.h"
#include "batch/prefix_filter.h"
#include "batch/repeated_id.h"
#include "fingerprint/hamming.h"
#include "util/parallel_for.h"

namespace simhash {
namespace {

// Features merged between two checks: a step of the merge (a compare and a
// branch the predictor often misses) costs a few fingerprint comparisons, so
// a quarter of their count, about 10 ms.
constexpr std::size_t kFeaturesBetweenChecks = kComparisonsBetweenChecks / 4;

// The threshold join's blocks: a sixteenth of the rows before them, so
// that on average a row meets 1/32 of its representatives in its own
// block's serial pass; from 16 rows (a few hundred rows make many blocks)
// to 64K. Probes go to the threads a few at a time.
constexpr std::size_t kBlockShare = 16;
constexpr std::size_t kMinBlockRows = 16;
constexpr std::size_t kMaxBlockRows = std::size_t{1} << 16;
constexpr std::size_t kProbesPerRange = 8;

}  // namespace

void VerifiedDedup::add(std::int64_t id, std::uint64_t fingerprint, const FeatureVector& features) {
  if (features.empty()) {
    throw std::invalid_argument("simhash: a row to dedup has no features");
  }
  if (ids_.size() >= LeaderAssignment::kNoLink - 1) {
    throw std::length_error("simhash: too many rows to dedup");
  }
  charge_.grow_to((ids_.size() + 1) * 2 * (sizeof(std::int64_t) + sizeof(std::uint32_t)));
  node_of_.push_back(nodes_.add(fingerprint, features));
  ids_.push_back(id);
}

std::optional<double> VerifiedDedup::similarity_if_at_least(FeatureView a, FeatureView b,
                                                            double threshold) const {
  if (!nodes_.weighted()) {
    return set_jaccard_if_at_least(a, b, threshold);
  }
  const double similarity = weighted_jaccard(a, b);
  return similarity >= threshold ? std::optional<double>(similarity) : std::nullopt;
}

std::optional<std::int64_t> VerifiedDedup::repeated_id(const CheckPoint& check) const {
  const MemoryCharge copy(ids_.size() * sizeof(std::int64_t));  // find_repeated_id sorts a copy
  return find_repeated_id(ids_, check);
}

std::vector<DedupRow> VerifiedDedup::groups_within_radius(double threshold, int radius,
                                                          const CheckPoint& check,
                                                          DedupCounts* counts) const {
  // The records and the leader pass's arrays (per node and per row).
  const MemoryCharge working(nodes_.size() * (sizeof(IdFingerprint) + 32) +
                             ids_.size() * (sizeof(LeaderAssignment) + sizeof(Joined)));
  std::vector<IdFingerprint> records;
  records.reserve(nodes_.size());
  for (std::uint32_t node = 0; node < nodes_.size(); ++node) {
    records.push_back(IdFingerprint{node, nodes_.fingerprint_of(node)});
  }
  report_progress(progress_, "finding candidates within the radius", 0, 0);
  PairFinder finder(std::move(records), radius, check);

  // The verified pairs.
  DedupCounts counted;
  ChunkedArray<NodeLink> links;
  std::vector<NearPair> candidates;
  std::size_t work = 0;  // feature comparisons since the last check
  while (finder.next(candidates)) {
    report_progress(progress_, "verifying candidates", counted.candidates, 0, "pairs");
    counted.candidates += candidates.size();
    for (const NearPair& pair : candidates) {
      const FeatureView a = nodes_.features_of(static_cast<std::uint32_t>(pair.a));
      const FeatureView b = nodes_.features_of(static_cast<std::uint32_t>(pair.b));
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

  report_progress(progress_, "grouping", 0, ids_.size());
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

// With a radius, a pair links when its similarity reaches the threshold
// and its fingerprints are within the radius: every such pair shares a
// prefix feature, so the join finds all of groups_within_radius's links,
// and the leader rule then makes the same groups of them.
//
// Rows are taken a block at a time, in visit order. A row joins the
// representative it is most similar to among those made before it (the
// earlier one on a tie), and a node's best offer from the representatives
// made before the block does not depend on anything the block decides. So
// the threads first find that offer for each node of the block (each probe
// writes only its own node's offer), then one thread runs the rule row by
// row over the block as before, each row looking only at the
// representatives the block has made since. Blocks grow with the rows
// before them (a sixteenth), so the block's own part stays a few percent
// of the work, and their bounds depend on the rows alone: the same probes,
// the same counts, for any thread count.
std::vector<DedupRow> VerifiedDedup::groups_by_threshold_join(double threshold,
                                                              const CheckPoint& check,
                                                              DedupCounts* counts,
                                                              std::optional<int> radius,
                                                              unsigned threads) const {
  if (nodes_.weighted()) {
    throw std::invalid_argument("simhash: the threshold join needs binary weights");
  }
  if (radius && *radius < 0) {
    throw std::invalid_argument("simhash: radius must be at least 0");
  }
  threads = std::max(threads, 1U);
  report_progress(progress_, "ranking features", 0, 0);
  const SlotRanking ranking({&nodes_}, check, threads);
  report_progress(progress_, "indexing prefixes", 0, 0);
  const Prefixes prefixes(nodes_, ranking, threshold, check, threads);
  // The representatives, entries numbered by the order they became one.
  PostingIndex representatives(ranking.slot_count(), prefixes.all(), check);
  constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  // A node's best offer so far, from the representatives before `seen`;
  // later members of the node look only at the representatives made since.
  struct Offer {
    std::uint32_t leader = kNone;  // entry
    double similarity = 0;
    std::uint32_t seen = 0;
  };
  const MemoryCharge working(nodes_.size() * (sizeof(Offer) + 2 * sizeof(std::uint32_t)) +
                             ids_.size() * sizeof(Joined));
  std::vector<Offer> offers(nodes_.size());
  std::vector<std::uint32_t> node_leader(nodes_.size(), kNone);  // position
  std::vector<std::uint32_t> leaders;                            // positions, by entry
  std::vector<Joined> joined;
  joined.reserve(ids_.size());
  struct Worker {
    EntryMarks marks;
    DedupCounts counted;
    std::size_t work = 0;  // since the last check
  };
  std::vector<Worker> workers(threads);

  // Probes `node` for the representatives from its offer's `seen` to the
  // newest, improving its offer. `thread` 0 is the caller's, the only one
  // that checks.
  const auto probe = [&](std::uint32_t node, unsigned thread) {
    Worker& worker = workers[thread];
    Offer& offer = offers[node];
    const FeatureView features = nodes_.features_of(node);
    const std::uint64_t fingerprint = nodes_.fingerprint_of(node);
    const auto newest = static_cast<std::uint32_t>(leaders.size());
    representatives.for_each_entry(
        prefixes.of(node), offer.seen, newest, worker.marks, [&](std::uint32_t entry) {
          ++worker.counted.candidates;
          if (++worker.work >= kFeaturesBetweenChecks) {
            worker.work = 0;
            if (thread == 0 && check) {
              check();
            }
          }
          const std::uint32_t other_node = node_of_[leaders[entry]];
          if (radius &&
              hamming_distance(fingerprint, nodes_.fingerprint_of(other_node)) > *radius) {
            return;
          }
          const FeatureView other = nodes_.features_of(other_node);
          if (!may_reach(features, other, threshold)) {
            return;
          }
          ++worker.counted.checked;
          worker.work += features.hashes.size() + other.hashes.size();
          const std::optional<double> similarity =
              set_jaccard_if_at_least(features, other, threshold);
          if (!similarity) {
            return;
          }
          ++worker.counted.verified;
          // Ties go to the earlier representative, as in the leader pass.
          if (offer.leader == kNone || *similarity > offer.similarity ||
              (*similarity == offer.similarity && entry < offer.leader)) {
            offer.leader = entry;
            offer.similarity = *similarity;
          }
        });
    offer.seen = newest;
  };

  std::vector<std::uint32_t> block_nodes;  // to probe before the block
  for (std::size_t block = 0; block < ids_.size();) {
    const std::size_t block_end = std::min(
        ids_.size(),
        block + std::clamp<std::size_t>(block / kBlockShare, kMinBlockRows, kMaxBlockRows));
    // Each node of the block that is not a representative, once.
    block_nodes.clear();
    for (std::size_t position = block; position < block_end; ++position) {
      if (node_leader[node_of_[position]] == kNone) {
        block_nodes.push_back(node_of_[position]);
      }
    }
    std::sort(block_nodes.begin(), block_nodes.end());
    block_nodes.erase(std::unique(block_nodes.begin(), block_nodes.end()), block_nodes.end());
    parallel_for(block_nodes.size(), kProbesPerRange, threads,
                 [&](unsigned thread, std::size_t begin, std::size_t end) {
                   for (std::size_t i = begin; i < end; ++i) {
                     probe(block_nodes[i], thread);
                   }
                 });
    if (check) {
      check();
    }
    for (auto position = static_cast<std::uint32_t>(block); position < block_end; ++position) {
      const std::uint32_t node = node_of_[position];
      if (node_leader[node] != kNone) {
        joined.push_back(Joined{node_leader[node], 1.0});
        continue;
      }
      probe(node, 0);
      const Offer& offer = offers[node];
      if (offer.leader != kNone) {
        joined.push_back(Joined{leaders[offer.leader], offer.similarity});
        continue;
      }
      node_leader[node] = position;
      representatives.add(prefixes.of(node));
      leaders.push_back(position);
      joined.push_back(Joined{position, 1.0});
    }
    block = block_end;
    report_progress(progress_, "joining", block, ids_.size());
  }
  if (counts != nullptr) {
    DedupCounts counted;
    for (const Worker& worker : workers) {
      counted.candidates += worker.counted.candidates;
      counted.checked += worker.counted.checked;
      counted.verified += worker.counted.verified;
    }
    *counts = counted;
  }
  report_progress(progress_, "grouping", 0, ids_.size());
  return rows_of_groups(joined);
}

std::vector<DedupRow> VerifiedDedup::rows_of_groups(const std::vector<Joined>& joined) const {
  const MemoryCharge working(ids_.size() * (sizeof(std::uint32_t) + 2 * sizeof(DedupRow)));
  std::vector<std::uint32_t> group_size(ids_.size(), 0);
  for (const Joined& row : joined) {
    ++group_size[row.leader];
  }
  std::vector<DedupRow> rows;
  for (std::uint32_t position = 0; position < ids_.size(); ++position) {
    const Joined& row = joined[position];
    if (group_size[row.leader] >= 2) {
      rows.push_back(DedupRow{ids_[position], ids_[row.leader],
                              hamming_distance(nodes_.fingerprint_of(node_of_[position]),
                                               nodes_.fingerprint_of(node_of_[row.leader])),
                              row.similarity});
    }
  }
  return rows;
}

}  // namespace simhash

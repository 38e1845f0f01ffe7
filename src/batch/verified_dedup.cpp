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
#include "batch/leader_rule.h"
#include "batch/pair_finder.h"
#include "batch/prefix_filter.h"
#include "batch/repeated_id.h"
#include "fingerprint/hamming.h"
#include "util/parallel_for.h"

namespace simhash {
namespace {

// The threshold join's blocks: a sixteenth of the rows before them, so
// that on average a row meets 1/32 of its representatives in its own
// block's serial pass; from 16 rows (a few hundred rows make many blocks)
// to 64K. Probes go to the threads a few at a time.
constexpr std::size_t kBlockShare = 16;
constexpr std::size_t kMinBlockRows = 16;
constexpr std::size_t kMaxBlockRows = std::size_t{1} << 16;
constexpr std::size_t kProbesPerRange = 8;

// Within a radius: the candidates verified at once (4 of PairFinder's
// batches, 384 KB; two are held, the one verified and the next found
// meanwhile, with a result each: 0.9 MB), handed to the threads a few
// dozen at a time. A window is some milliseconds of work, so starting the
// threads for each costs little.
constexpr std::size_t kRadiusWindowPairs = 4 * PairFinder::kBatchSize;
constexpr std::size_t kVerifiesPerRange = 64;

}  // namespace

void VerifiedDedup::add(std::int64_t id, std::uint64_t fingerprint, FeatureView features,
                        RowKey key, std::optional<std::uint32_t> adopted_block) {
  if (features.hashes.empty()) {
    throw std::invalid_argument("simhash: a row to dedup has no features");
  }
  if (nodes_.finished()) {
    // Before anything is charged: a refused row changes nothing.
    throw std::logic_error("simhash: a row added after the rows were finished");
  }
  if (ids_.size() >= LeaderAssignment::kNoLink - 1) {
    throw std::length_error("simhash: too many rows to dedup");
  }
  charge_.grow_to((ids_.size() + 1) * 2 * (sizeof(std::int64_t) + sizeof(std::uint32_t)));
  node_of_.push_back(nodes_.add(fingerprint, features, key, adopted_block));
  ids_.push_back(id);
}

void VerifiedDedup::finish_adding() {
  nodes_.finish_adding();
  ids_.shrink_to_fit();
  node_of_.shrink_to_fit();
  charge_.set(ids_.size() * (sizeof(std::int64_t) + sizeof(std::uint32_t)));
}

std::optional<std::int64_t> VerifiedDedup::repeated_id(const CheckPoint& check) const {
  const MemoryCharge copy(ids_.size() * sizeof(std::int64_t));  // find_repeated_id sorts a copy
  return find_repeated_id(ids_, check);
}

// The candidates come from PairFinder's serial search, a window at a time;
// the threads verify a window, each candidate into its own slot, while the
// caller's thread searches for the next window; then the caller settles the
// window in the search's order. So the links, and the groups made of them,
// are those of one thread in the same order, for any thread count.
std::vector<DedupRow> VerifiedDedup::groups_within_radius(double threshold, int radius,
                                                          const CheckPoint& check,
                                                          DedupCounts* counts,
                                                          unsigned threads) const {
  threads = std::max(threads, 1U);
  // The records and the leader pass's arrays (per node and per row), and the
  // two windows of candidates with their results.
  const MemoryCharge working(nodes_.size() * (sizeof(IdFingerprint) + 32) +
                             ids_.size() * (sizeof(LeaderAssignment) + sizeof(Joined)) +
                             kRadiusWindowPairs * (2 * sizeof(NearPair) + sizeof(double)));
  std::vector<IdFingerprint> records;
  records.reserve(nodes_.size());
  for (std::uint32_t node = 0; node < nodes_.size(); ++node) {
    records.push_back(IdFingerprint{node, nodes_.fingerprint_of(node)});
  }
  report_progress(progress_, "finding candidates within the radius", 0, 0);
  PairFinder finder(std::move(records), radius, check);

  std::vector<PairVerifier> verifiers;
  verifiers.reserve(threads);
  for (unsigned thread = 0; thread < threads; ++thread) {
    // Only the caller's thread, 0, may call the check point.
    verifiers.emplace_back(threshold, nodes_.weighted(), thread == 0 ? &check : nullptr);
  }
  // Fills `window` with the next candidates (none once the search is over),
  // reporting each batch found: the pairs before it are verified or being
  // verified.
  std::vector<NearPair> batch;
  bool searched = false;
  std::uint64_t found = 0;
  const auto fill = [&](std::vector<NearPair>& window) {
    window.clear();
    while (!searched && window.size() + PairFinder::kBatchSize <= kRadiusWindowPairs) {
      if (!finder.next(batch)) {
        searched = true;
        break;
      }
      report_progress(progress_, "verifying candidates", found, 0, "pairs");
      found += batch.size();
      window.insert(window.end(), batch.begin(), batch.end());
    }
  };

  // The verified pairs; a similarity below 0 marks a candidate rejected.
  constexpr double kRejected = -1.0;
  ChunkedArray<NodeLink> links;
  std::vector<NearPair> window;
  std::vector<NearPair> ahead;
  std::vector<double> similarities;
  fill(window);
  while (!window.empty()) {
    similarities.assign(window.size(), kRejected);
    parallel_for(
        window.size(), kVerifiesPerRange, threads,
        [&](unsigned thread, std::size_t begin, std::size_t end) {
          PairVerifier& verifier = verifiers[thread];
          for (std::size_t i = begin; i < end; ++i) {
            const NearPair& pair = window[i];
            verifier.count_candidate();
            if (const std::optional<double> similarity =
                    verifier.verify(nodes_.features_of(static_cast<std::uint32_t>(pair.a)),
                                    nodes_.features_of(static_cast<std::uint32_t>(pair.b)))) {
              similarities[i] = *similarity;
            }
          }
        },
        [&] { fill(ahead); });
    for (std::size_t i = 0; i < window.size(); ++i) {
      if (similarities[i] != kRejected) {
        links.push_back(NodeLink{static_cast<std::uint32_t>(window[i].a),
                                 static_cast<std::uint32_t>(window[i].b), -similarities[i]});
      }
    }
    window.swap(ahead);
  }
  if (counts != nullptr) {
    DedupCounts counted;
    for (const PairVerifier& verifier : verifiers) {
      counted += verifier.counts();
    }
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
  // The join's tables live in the scope below only: freed before the
  // grouping allocates its own. `joined` outlives them.
  const MemoryCharge joined_charge(ids_.size() * sizeof(Joined));
  std::vector<Joined> joined;
  joined.reserve(ids_.size());
  {
    report_progress(progress_, "ranking features", 0, 0);
    const SlotRanking ranking({&nodes_}, check, threads);
    report_progress(progress_, "indexing prefixes", 0, 0);
    const Prefixes prefixes(nodes_, ranking, threshold, check, threads);
    // The representatives, entries numbered by the order they became one.
    PostingIndex representatives(ranking.slot_count(), prefixes.all(), check, threads);
    // The rule, `seen` and `leaders` (at most one a node).
    const MemoryCharge working(nodes_.size() *
                               (LeaderRule::kBytesPerNode + 2 * sizeof(std::uint32_t)));
    LeaderRule rule(nodes_.size());
    // Each node's offers come from the representatives before its `seen`;
    // later members of the node look only at the representatives made since.
    std::vector<std::uint32_t> seen(nodes_.size(), 0);
    std::vector<std::uint32_t> leaders;  // positions, by entry
    struct Worker {
      explicit Worker(PairVerifier verifier_in) : verifier(verifier_in) {}

      EntryMarks marks;
      PairVerifier verifier;
    };
    std::vector<Worker> workers;
    workers.reserve(threads);
    for (unsigned thread = 0; thread < threads; ++thread) {
      // Only the caller's thread, 0, may call the check point.
      workers.emplace_back(PairVerifier(threshold, false, thread == 0 ? &check : nullptr));
    }

    // Probes `node` for the representatives from its `seen` to the newest,
    // each verified pair offering its representative to the node. `thread` 0
    // is the caller's.
    const auto probe = [&](std::uint32_t node, unsigned thread) {
      Worker& worker = workers[thread];
      const FeatureView features = nodes_.features_of(node);
      const std::uint64_t fingerprint = nodes_.fingerprint_of(node);
      const auto newest = static_cast<std::uint32_t>(leaders.size());
      representatives.for_each_entry(
          prefixes.of(node), seen[node], newest, worker.marks, [&](std::uint32_t entry) {
            worker.verifier.count_candidate();
            const std::uint32_t leader = leaders[entry];
            const std::uint32_t other_node = node_of_[leader];
            if (radius &&
                hamming_distance(fingerprint, nodes_.fingerprint_of(other_node)) > *radius) {
              return;
            }
            if (const std::optional<double> similarity =
                    worker.verifier.verify(features, nodes_.features_of(other_node))) {
              rule.offer(node, leader, LeaderRule::kNone, -*similarity);
            }
          });
      seen[node] = newest;
    };

    std::vector<std::uint32_t> block_nodes;  // to probe before the block
    for (std::size_t block = 0; block < ids_.size();) {
      const std::size_t block_end = std::min(
          ids_.size(),
          block + std::clamp<std::size_t>(block / kBlockShare, kMinBlockRows, kMaxBlockRows));
      // Each node of the block that is not a representative, once.
      block_nodes.clear();
      for (std::size_t position = block; position < block_end; ++position) {
        if (!rule.has_representative(node_of_[position])) {
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
        if (!rule.has_representative(node)) {
          probe(node, 0);
        }
        const LeaderRule::Place place = rule.place(position, node);
        joined.push_back(Joined{place.leader, place.by_offer ? -place.rank : 1.0});
        if (place.leader == position) {
          representatives.add(prefixes.of(node));
          leaders.push_back(position);
        }
      }
      block = block_end;
      report_progress(progress_, "joining", block, ids_.size());
    }
    if (counts != nullptr) {
      DedupCounts counted;
      for (const Worker& worker : workers) {
        counted += worker.verifier.counts();
      }
      *counts = counted;
    }
  }
  report_progress(progress_, "grouping", 0, ids_.size());
  return rows_of_groups(joined);
}

std::vector<DedupRow> VerifiedDedup::rows_of_groups(const std::vector<Joined>& joined) const {
  // The group sizes, and the result, which is reserved at its size.
  const MemoryCharge working(ids_.size() * (sizeof(std::uint32_t) + sizeof(DedupRow)));
  std::vector<std::uint32_t> group_size(ids_.size(), 0);
  for (const Joined& row : joined) {
    ++group_size[row.leader];
  }
  // Counted first, so that the result takes its size and no more (and no
  // copy while it grows).
  std::size_t in_groups = 0;
  for (const Joined& row : joined) {
    in_groups += group_size[row.leader] >= 2 ? 1 : 0;
  }
  std::vector<DedupRow> rows;
  rows.reserve(in_groups);
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

// SPDX-License-Identifier: MIT
// Rows to nodes (identical fingerprint and features); candidate pairs of
// nodes within the radius, verified as they come, and the leader pass over
// the rows in visit order; the rows of the groups either grouping makes.
// The other grouping, the threshold join (the leader rule applied row by
// row in visit order, each row looking for its representative in an index
// of the representatives' rarest features), is in threshold_join.cpp.
#include "batch/verified_dedup.h"

#include <algorithm>
#include <stdexcept>

#include "batch/leader_groups.h"
#include "batch/pair_finder.h"
#include "batch/repeated_id.h"
#include "fingerprint/hamming.h"
#include "util/thread_team.h"

namespace simhash {
namespace {

// Within a radius: the candidates verified at once (4 of PairFinder's
// batches, 384 KB; two are held, the one verified and the next found
// meanwhile, with a result each: 0.9 MB), handed to the threads a few
// dozen at a time, by a team of threads woken for each window.
constexpr std::size_t kRadiusWindowPairs = 4 * PairFinder::kBatchSize;
constexpr std::size_t kVerifiesPerRange = 64;
// Rows grouped between two checks: each a few lookups in tables as long
// as the rows, which at millions of rows miss the cache.
constexpr std::size_t kGroupedRowsBetweenChecks = std::size_t{1} << 16;

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

  ThreadTeam team(threads, check);  // a loop a window
  std::vector<PairVerifier> verifiers;
  verifiers.reserve(threads);
  for (unsigned thread = 0; thread < threads; ++thread) {
    verifiers.emplace_back(threshold, nodes_.weighted(), &team.check_point(thread));
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
    team.for_each_range(
        window.size(), kVerifiesPerRange,
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
  return rows_of_groups(joined, check);
}

std::vector<DedupRow> VerifiedDedup::rows_of_groups(const std::vector<Joined>& joined,
                                                    const CheckPoint& check) const {
  // The group sizes, and the result, which is reserved at its size.
  const MemoryCharge working(ids_.size() * (sizeof(std::uint32_t) + sizeof(DedupRow)));
  std::vector<std::uint32_t> group_size;
  fill_with_checks(group_size, ids_.size(), std::uint32_t{0}, check);
  for (std::size_t i = 0; i < joined.size(); ++i) {
    ++group_size[joined[i].leader];
    check_after_every(i, kGroupedRowsBetweenChecks, check);
  }
  // Counted first, so that the result takes its size and no more (and no
  // copy while it grows).
  std::size_t in_groups = 0;
  for (std::size_t i = 0; i < joined.size(); ++i) {
    in_groups += group_size[joined[i].leader] >= 2 ? 1 : 0;
    check_after_every(i, kGroupedRowsBetweenChecks, check);
  }
  std::vector<DedupRow> rows;
  rows.reserve(in_groups);
  for (std::uint32_t position = 0; position < ids_.size(); ++position) {
    check_after_every(position, kGroupedRowsBetweenChecks, check);
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

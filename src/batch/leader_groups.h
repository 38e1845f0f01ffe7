// SPDX-License-Identifier: MIT
// Leader grouping ("greedy" clustering), the grouping behind
// simhash_clusters: records are visited in ascending id; each joins the
// nearest representative visited before it (ties: the smallest id), or, with
// none in reach, becomes a representative itself. Unlike single link it never
// chains: every member is directly linked to its representative, so keeping
// the representatives and deleting the rest never deletes a record that is
// not near the one kept. Users choose who survives by the ids they assign.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "batch/batch_plan.h"
#include "batch/fingerprint_groups.h"
#include "util/check_point.h"
#include "util/chunked_array.h"

namespace simhash {

// A record's place in a leader grouping over fingerprints.
struct FingerprintLeader {
  std::int64_t id;
  std::int64_t leader;  // the representative's id (id itself for a representative)
  int distance;         // Hamming distance to the representative (0 for one)

  bool operator==(const FingerprintLeader&) const = default;
};

// Links are "within `radius` bits"; nearer means a smaller distance. Every
// record, in ascending id order. Throws std::invalid_argument for a negative
// radius or repeated ids.
// `check` runs between bounded pieces of the work (check_point.h).
std::vector<FingerprintLeader> find_leader_groups(std::vector<IdFingerprint> records, int radius,
                                                  const CheckPoint& check = {});
// The same with a plan made by the caller (tests exercise several plans).
std::vector<FingerprintLeader> find_leader_groups(const FingerprintGroups& groups,
                                                  const BatchPlan& plan,
                                                  const CheckPoint& check = {});

// A link given by the caller (a verified pair): nearer means a smaller rank.
struct RankedPair {
  std::int64_t a;
  std::int64_t b;
  double rank;
};

// A record's place in a leader grouping over given links.
struct PairLeader {
  static constexpr std::size_t kNoPair = std::numeric_limits<std::size_t>::max();

  std::int64_t id;
  std::int64_t leader;  // id itself for a representative
  std::size_t pair;     // the index of the link to the leader in the input, or kNoPair

  bool operator==(const PairLeader&) const = default;
};

// The leader pass itself, for callers with nodes of their own
// (simhash_dedup: rows grouped by identical fingerprint and features, visited
// in the order of a query). Records are positions 0..n-1 in visit order and
// node_of[p] is p's node; nodes of records with identical links. A record
// joins the first record of its node that became a representative, else the
// best offer (smallest rank; ties: the earliest representative) its node
// received from a representative visited before it, else becomes one.
struct NodeLink {
  std::uint32_t first;  // nodes
  std::uint32_t second;
  double rank;  // smaller is nearer
};
struct LeaderAssignment {
  static constexpr std::uint32_t kNoLink = std::numeric_limits<std::uint32_t>::max();

  std::uint32_t leader;  // the representative's position (its own for one)
  std::uint32_t link;    // the link joined by, or kNoLink (a representative or its node's)
};
// `check` runs between bounded pieces of the pass (check_point.h).
std::vector<LeaderAssignment> assign_leaders(std::span<const std::uint32_t> node_of,
                                             std::size_t node_count,
                                             const ChunkedArray<NodeLink>& links,
                                             const CheckPoint& check = {});

// Every id that appears in a link, in ascending order. Links with a == b are
// ignored; a pair given twice (either way round) counts with its smaller
// rank. A NaN rank throws std::invalid_argument.
std::vector<PairLeader> group_ranked_pairs(std::span<const RankedPair> pairs);

}  // namespace simhash

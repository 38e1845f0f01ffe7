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

// Every id that appears in a link, in ascending order. Links with a == b are
// ignored; a pair given twice (either way round) counts with its smaller
// rank. A NaN rank throws std::invalid_argument.
std::vector<PairLeader> group_ranked_pairs(std::span<const RankedPair> pairs);

}  // namespace simhash

// SPDX-License-Identifier: MIT
// The leader rule, the one copy behind every leader grouping in src/batch
// (leader_groups.h's passes over fingerprints and given links,
// verified_dedup.h's threshold join): rows are visited in order; a row joins
// the nearest representative visited before it (ties: the earliest), or,
// with none in reach, becomes one itself.
//
// Rows are grouped into nodes, rows with identical links (the same
// fingerprint, or the same fingerprint and features): nothing is nearer to
// a row than its own node, so a node's later rows join the node's first row
// to become a representative. A node without one keeps the best offer it
// has had from representatives: callers either push offers from each new
// representative to its neighbours (leader_groups.cpp) or pull them from the
// representatives made since the node last looked (the all-pairs method,
// the threshold join). Either way the rule is the same, and it lives here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "util/check_point.h"

namespace simhash {

class LeaderRule {
 public:
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

  // Where a row went.
  struct Place {
    std::uint32_t leader;  // the representative's position (its own for a new one)
    bool by_offer;         // false: a new representative, or its node's
    std::uint32_t link;    // the offer's link (kNone without an offer)
    double rank;           // the offer's rank (smaller is nearer; 0 without an offer)
  };

  // `check` (check_point.h) between pieces of its tables' first fill:
  // millions of nodes are hundreds of MB of fresh pages.
  explicit LeaderRule(std::size_t node_count, const CheckPoint& check = {});

  // What the rule holds per node, for callers that charge it
  // (memory_budget.h).
  static constexpr std::size_t kBytesPerNode = sizeof(std::uint32_t) + 16;

  // Whether `node` has a representative: its rows need no offers.
  bool has_representative(std::uint32_t node) const { return node_leader_[node] != kNone; }

  // The representative at `leader` (a position) offers itself to `node` at
  // `rank`, through the caller's `link` (any number; kNone where callers
  // need none). The node keeps it if it is nearer than its best so far, or
  // as near from an earlier representative. Each node's offer is its own:
  // threads may offer to distinct nodes at once.
  void offer(std::uint32_t node, std::uint32_t leader, std::uint32_t link, double rank) {
    Offer& best = best_[node];
    if (best.leader == kNone || rank < best.rank || (rank == best.rank && leader < best.leader)) {
      best = Offer{leader, link, rank};
    }
  }

  // Places the row at `position` (ascending from one call to the next), of
  // `node`: its node's representative, else its best offer, else itself.
  Place place(std::uint32_t position, std::uint32_t node);

 private:
  struct Offer {
    std::uint32_t leader = kNone;  // a position
    std::uint32_t link = kNone;
    double rank = 0;
  };

  std::vector<std::uint32_t> node_leader_;  // the position of each node's representative
  std::vector<Offer> best_;                 // each node's best offer
  static_assert(sizeof(Offer) == 16, "kBytesPerNode counts an offer as 16 bytes");
};

}  // namespace simhash

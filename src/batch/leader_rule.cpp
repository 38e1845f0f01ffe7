// SPDX-License-Identifier: MIT
// The row-by-row step of the leader rule (leader_rule.h).
#include "batch/leader_rule.h"

namespace simhash {

LeaderRule::LeaderRule(std::size_t node_count, const CheckPoint& check) {
  fill_with_checks(node_leader_, node_count, kNone, check);
  fill_with_checks(best_, node_count, Offer{}, check);
}

LeaderRule::Place LeaderRule::place(std::uint32_t position, std::uint32_t node) {
  if (node_leader_[node] != kNone) {
    return Place{node_leader_[node], false, kNone, 0};
  }
  const Offer& best = best_[node];
  if (best.leader != kNone) {
    return Place{best.leader, true, best.link, best.rank};
  }
  node_leader_[node] = position;
  return Place{position, false, kNone, 0};
}

}  // namespace simhash

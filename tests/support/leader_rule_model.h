// SPDX-License-Identifier: MIT
// The leader rule of simhash_clusters and simhash_dedup as a brute-force
// model, shared by the engine and SQL tests: rows are visited in order, and
// each joins the most similar earlier representative it is linked to (ties:
// the earliest), or becomes a representative itself. Every pair a row could
// join is asked, nothing is precomputed, so the model has no nodes, no
// candidates and no index to get wrong.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace simhash::testing {

struct ModelLeader {
  std::size_t leader;  // the representative's position (the row's own for one)
  double similarity;   // to the representative (1 for one)
};

// `link(row, leader)` gives the similarity of the link between two
// positions, or nullopt when they are not linked.
template <typename Link>
std::vector<ModelLeader> leader_rule_model(std::size_t rows, Link&& link) {
  std::vector<std::size_t> leaders;
  std::vector<ModelLeader> result;
  for (std::size_t row = 0; row < rows; ++row) {
    std::optional<ModelLeader> best;
    for (const std::size_t leader : leaders) {
      const std::optional<double> similarity = link(row, leader);
      if (similarity && (!best || *similarity > best->similarity)) {
        best = ModelLeader{leader, *similarity};
      }
    }
    if (!best) {
      leaders.push_back(row);
      best = ModelLeader{row, 1.0};
    }
    result.push_back(*best);
  }
  return result;
}

}  // namespace simhash::testing

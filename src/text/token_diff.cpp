// SPDX-License-Identifier: MIT
// token_diff(): Myers' greedy forward search for the furthest-reaching path
// on each diagonal, keeping each round's frontier to walk the path back.
#include "text/token_diff.h"

#include <algorithm>
#include <cstdlib>

namespace simhash {
namespace {

// One insertion or deletion of the path, at the place it leaves.
struct Edit {
  std::size_t a = 0;
  std::size_t b = 0;
  bool deletes = false;  // a[a] is deleted; otherwise b[b] is inserted
};

// The furthest x reached on diagonal k after round d (frontier[d] holds
// diagonals -d..d).
using Frontier = std::vector<std::ptrdiff_t>;

bool goes_down(const Frontier& previous, std::ptrdiff_t d, std::ptrdiff_t k) {
  // previous covers diagonals -(d-1)..(d-1), stored from index 0.
  const auto at = [&](std::ptrdiff_t diagonal) {
    return previous[static_cast<std::size_t>(diagonal + d - 1)];
  };
  return k == -d || (k != d && at(k - 1) < at(k + 1));
}

std::vector<DiffHunk> hunks_of(const std::vector<Edit>& edits) {
  std::vector<DiffHunk> hunks;
  for (const Edit& edit : edits) {
    if (hunks.empty() || hunks.back().a_end != edit.a || hunks.back().b_end != edit.b) {
      hunks.push_back({edit.a, edit.a, edit.b, edit.b});
    }
    DiffHunk& hunk = hunks.back();
    (edit.deletes ? hunk.a_end : hunk.b_end) += 1;
  }
  return hunks;
}

}  // namespace

std::optional<std::vector<DiffHunk>> token_diff(std::span<const std::uint32_t> a,
                                                std::span<const std::uint32_t> b,
                                                std::size_t most_edits) {
  // The common ends are no edit; the search runs on what lies between.
  std::size_t head = 0;
  while (head < a.size() && head < b.size() && a[head] == b[head]) {
    ++head;
  }
  std::size_t tail = 0;
  while (tail < a.size() - head && tail < b.size() - head &&
         a[a.size() - 1 - tail] == b[b.size() - 1 - tail]) {
    ++tail;
  }
  const std::span<const std::uint32_t> x_side = a.subspan(head, a.size() - head - tail);
  const std::span<const std::uint32_t> y_side = b.subspan(head, b.size() - head - tail);
  const auto n = static_cast<std::ptrdiff_t>(x_side.size());
  const auto m = static_cast<std::ptrdiff_t>(y_side.size());
  const auto limit =
      static_cast<std::ptrdiff_t>(std::min<std::size_t>(most_edits, x_side.size() + y_side.size()));
  if (std::abs(n - m) > limit) {
    return std::nullopt;  // the lengths alone need more edits
  }

  std::vector<Frontier> rounds;
  Frontier reach(static_cast<std::size_t>(2 * limit + 3), 0);
  const std::ptrdiff_t offset = limit + 1;
  std::ptrdiff_t last_round = -1;
  for (std::ptrdiff_t d = 0; d <= limit && last_round < 0; ++d) {
    for (std::ptrdiff_t k = -d; k <= d; k += 2) {
      std::ptrdiff_t x = 0;
      if (d == 0) {
        x = 0;
      } else if (k == -d || (k != d && reach[static_cast<std::size_t>(offset + k - 1)] <
                                           reach[static_cast<std::size_t>(offset + k + 1)])) {
        x = reach[static_cast<std::size_t>(offset + k + 1)];
      } else {
        x = reach[static_cast<std::size_t>(offset + k - 1)] + 1;
      }
      std::ptrdiff_t y = x - k;
      while (x < n && y < m &&
             x_side[static_cast<std::size_t>(x)] == y_side[static_cast<std::size_t>(y)]) {
        ++x;
        ++y;
      }
      reach[static_cast<std::size_t>(offset + k)] = x;
      if (x >= n && y >= m) {
        last_round = d;
      }
    }
    rounds.emplace_back(reach.begin() + offset - d, reach.begin() + offset + d + 1);
  }
  if (last_round < 0) {
    return std::nullopt;
  }

  // Walk back from the end, one edit a round.
  std::vector<Edit> edits;
  std::ptrdiff_t x = n;
  std::ptrdiff_t y = m;
  for (std::ptrdiff_t d = last_round; d > 0; --d) {
    const Frontier& previous = rounds[static_cast<std::size_t>(d - 1)];
    const std::ptrdiff_t k = x - y;
    const bool down = goes_down(previous, d, k);
    const std::ptrdiff_t previous_k = down ? k + 1 : k - 1;
    const std::ptrdiff_t previous_x = previous[static_cast<std::size_t>(previous_k + d - 1)];
    const std::ptrdiff_t previous_y = previous_x - previous_k;
    edits.push_back({static_cast<std::size_t>(previous_x) + head,
                     static_cast<std::size_t>(previous_y) + head, !down});
    x = previous_x;
    y = previous_y;
  }
  std::reverse(edits.begin(), edits.end());
  return hunks_of(edits);
}

}  // namespace simhash

// SPDX-License-Identifier: MIT
// The chunks and parts of size_parts.h: chunks cut greedily along the size
// order, then for each chunk the later chunks its largest row can reach,
// in windows cut greedily too.
#include "batch/size_parts.h"

#include <stdexcept>

namespace simhash {

bool sizes_may_reach(std::size_t smaller, std::size_t larger, double threshold) {
  return static_cast<double>(smaller) >= static_cast<double>(larger) * threshold * (1 - 1e-9);
}

SizeParts plan_size_parts(std::span<const std::uint32_t> sizes, std::span<const std::uint64_t> cost,
                          std::uint64_t budget, double threshold) {
  if (sizes.size() != cost.size()) {
    throw std::invalid_argument("simhash: a size part plan needs a cost for every row");
  }
  SizeParts plan;
  const std::uint64_t half = budget / 2;
  std::vector<std::uint64_t> chunk_cost;
  for (std::size_t row = 0; row < sizes.size(); ++row) {
    if (row > 0 && sizes[row] < sizes[row - 1]) {
      throw std::invalid_argument("simhash: a size part plan needs the sizes ascending");
    }
    if (plan.chunks.empty() || chunk_cost.back() + cost[row] > half) {
      plan.chunks.push_back(SizeChunk{row, row});
      chunk_cost.push_back(0);
    }
    ++plan.chunks.back().end;
    chunk_cost.back() += cost[row];
  }
  for (std::size_t chunk = 0; chunk < plan.chunks.size(); ++chunk) {
    plan.parts.push_back(SizePart{chunk, chunk, chunk + 1});
    const std::uint32_t largest = sizes[plan.chunks[chunk].end - 1];
    std::size_t window = chunk + 1;
    while (window < plan.chunks.size() &&
           sizes_may_reach(largest, sizes[plan.chunks[window].begin], threshold)) {
      std::size_t end = window;
      std::uint64_t held = 0;
      while (end < plan.chunks.size() &&
             sizes_may_reach(largest, sizes[plan.chunks[end].begin], threshold) &&
             (end == window || held + chunk_cost[end] <= half)) {
        held += chunk_cost[end];
        ++end;
      }
      plan.parts.push_back(SizePart{chunk, window, end});
      window = end;
    }
  }
  return plan;
}

}  // namespace simhash

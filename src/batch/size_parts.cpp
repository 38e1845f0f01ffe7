// SPDX-License-Identifier: MIT
// The chunks and parts of size_parts.h: chunks cut greedily along the size
// order, then for each chunk the later chunks its largest row can reach,
// in windows cut greedily too.
#include "batch/size_parts.h"

#include <stdexcept>
#include <utility>

namespace simhash {

bool sizes_may_reach(std::size_t smaller, std::size_t larger, double threshold) {
  return static_cast<double>(smaller) >= static_cast<double>(larger) * threshold * (1 - 1e-9);
}

SizeChunks plan_size_chunks(std::span<const std::uint32_t> sizes,
                            std::span<const std::uint64_t> cost, std::uint64_t budget) {
  if (sizes.size() != cost.size()) {
    throw std::invalid_argument("simhash: a size part plan needs a cost for every row");
  }
  SizeChunks plan;
  const std::uint64_t half = budget / 2;
  for (std::size_t row = 0; row < sizes.size(); ++row) {
    if (row > 0 && sizes[row] < sizes[row - 1]) {
      throw std::invalid_argument("simhash: a size part plan needs the sizes ascending");
    }
    if (plan.chunks.empty() || plan.costs.back() + cost[row] > half) {
      plan.chunks.push_back(SizeChunk{row, row});
      plan.costs.push_back(0);
    }
    ++plan.chunks.back().end;
    plan.costs.back() += cost[row];
  }
  return plan;
}

std::vector<SizePart> size_parts_of_chunk(std::span<const std::uint32_t> sizes,
                                          const SizeChunks& chunks, std::size_t chunk,
                                          std::uint64_t budget, double threshold) {
  const std::uint64_t half = budget / 2;
  const std::vector<SizeChunk>& all = chunks.chunks;
  std::vector<SizePart> parts{SizePart{chunk, chunk, chunk + 1}};
  const std::uint32_t largest = sizes[all[chunk].end - 1];
  std::size_t window = chunk + 1;
  while (window < all.size() && sizes_may_reach(largest, sizes[all[window].begin], threshold)) {
    std::size_t end = window;
    std::uint64_t held = 0;
    while (end < all.size() && sizes_may_reach(largest, sizes[all[end].begin], threshold) &&
           (end == window || held + chunks.costs[end] <= half)) {
      held += chunks.costs[end];
      ++end;
    }
    parts.push_back(SizePart{chunk, window, end});
    window = end;
  }
  return parts;
}

SizeParts plan_size_parts(std::span<const std::uint32_t> sizes, std::span<const std::uint64_t> cost,
                          std::uint64_t budget, double threshold) {
  SizeChunks chunks = plan_size_chunks(sizes, cost, budget);
  SizeParts plan;
  for (std::size_t chunk = 0; chunk < chunks.chunks.size(); ++chunk) {
    const std::vector<SizePart> parts =
        size_parts_of_chunk(sizes, chunks, chunk, budget, threshold);
    plan.parts.insert(plan.parts.end(), parts.begin(), parts.end());
  }
  plan.chunks = std::move(chunks.chunks);
  return plan;
}

}  // namespace simhash

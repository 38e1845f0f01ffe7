// SPDX-License-Identifier: MIT
// Sorted a run at a time, then merged run pair by run pair, checking in
// between: one sort of a million ids would be one step longer than the stop
// an interrupt is promised.
#include "batch/repeated_id.h"

#include <algorithm>
#include <cstddef>

namespace simhash {

std::optional<std::int64_t> find_repeated_id(std::vector<std::int64_t> ids,
                                             const CheckPoint& check) {
  constexpr std::size_t kRun = std::size_t{1} << 16;
  const auto at = [&ids](std::size_t index) {
    return ids.begin() + static_cast<std::ptrdiff_t>(std::min(index, ids.size()));
  };
  for (std::size_t run = 0; run < ids.size(); run += kRun) {
    std::sort(at(run), at(run + kRun));
    if (check) {
      check();
    }
  }
  for (std::size_t width = kRun; width < ids.size(); width *= 2) {
    for (std::size_t run = 0; run + width < ids.size(); run += 2 * width) {
      std::inplace_merge(at(run), at(run + width), at(run + 2 * width));
      if (check) {
        check();
      }
    }
  }
  const auto repeated = std::adjacent_find(ids.begin(), ids.end());
  if (repeated == ids.end()) {
    return std::nullopt;
  }
  return *repeated;
}

}  // namespace simhash

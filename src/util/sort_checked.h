// SPDX-License-Identifier: MIT
// A sort that checks for a stop (check_point.h) between bounded pieces:
// std::sort of millions of elements, or of numbers compared through other
// arrays, is seconds without a check.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "util/check_point.h"
#include "util/memory_budget.h"

namespace simhash {

// Sorts `values` by `less` (elements it finds equivalent end in any order),
// calling `check` between pieces: runs of kCheckedSortRun sorted, then merged
// pairwise through a buffer as large as `values` (charged), a piece at a time.
inline constexpr std::size_t kCheckedSortRun = std::size_t{1} << 15;
template <typename T, typename Less>
void sort_checked(std::vector<T>& values, Less less, const CheckPoint& check) {
  const std::size_t size = values.size();
  for (std::size_t begin = 0; begin < size; begin += kCheckedSortRun) {
    std::sort(values.begin() + static_cast<std::ptrdiff_t>(begin),
              values.begin() + static_cast<std::ptrdiff_t>(std::min(size, begin + kCheckedSortRun)),
              less);
    if (check) {
      check();
    }
  }
  if (size <= kCheckedSortRun) {
    return;
  }
  const MemoryCharge buffer_charge(size * sizeof(T));
  std::vector<T> merged(size);
  std::size_t written = 0;
  for (std::size_t run = kCheckedSortRun; run < size; run *= 2) {
    for (std::size_t begin = 0; begin < size; begin += 2 * run) {
      const std::size_t middle = std::min(size, begin + run);
      const std::size_t end = std::min(size, begin + 2 * run);
      std::size_t a = begin;
      std::size_t b = middle;
      for (std::size_t out = begin; out < end; ++out) {
        merged[out] =
            b == end || (a < middle && !less(values[b], values[a])) ? values[a++] : values[b++];
        check_after_every(written++, kCheckedSortRun, check);
      }
    }
    values.swap(merged);
  }
}

}  // namespace simhash

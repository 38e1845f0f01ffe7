// SPDX-License-Identifier: MIT
// The hook long engine loops call between bounded pieces of work (one table
// of the batch search, one slice of comparisons), so that a caller
// can stop them: the SQL glue's hook throws when the statement has been
// interrupted. Everything the engine holds is RAII, so the throw unwinds
// cleanly. An empty hook is never called.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <vector>

namespace simhash {

using CheckPoint = std::function<void()>;

// Fingerprint comparisons between two checks: a few milliseconds of work, so
// a stop comes soon, while a check (a small statement in the glue) costs
// little beside it.
inline constexpr std::size_t kComparisonsBetweenChecks = std::size_t{1} << 22;

// Pairs found between two checks. When most comparisons find a pair (radius
// 64 compares and reports every pair), the work is the caller's per pair (a
// union, a link, a row) and the memory holding the piece, not the
// comparison: 2^16 pairs are a millisecond or two and 768 KB, where a much
// larger piece is memory that a fresh process pays for in page faults.
inline constexpr std::size_t kPairsBetweenChecks = std::size_t{1} << 16;

// Calls `check` (when given) after every `period`-th step of a loop, the
// step numbered `index` from 0.
inline void check_after_every(std::size_t index, std::size_t period, const CheckPoint& check) {
  if (index % period == period - 1 && check) {
    check();
  }
}

// Sets `array` to `size` copies of `value`, calling `check` (when given)
// after each piece of kFillBetweenChecks elements: first touching fresh
// memory is slow (the kernel zeroes each page), so a table of tens of MB
// filled in one step would be one long step.
inline constexpr std::size_t kFillBetweenChecks = std::size_t{1} << 18;
template <typename T>
void fill_with_checks(std::vector<T>& array, std::size_t size, const T& value,
                      const CheckPoint& check) {
  array.clear();
  array.reserve(size);
  while (array.size() < size) {
    array.resize(std::min(size, array.size() + kFillBetweenChecks), value);
    if (check) {
      check();
    }
  }
}

}  // namespace simhash

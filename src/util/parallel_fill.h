// SPDX-License-Identifier: MIT
// Large tables sized without a serial first touch and filled on threads:
// TableVector (a std::vector whose resize leaves trivially constructible
// elements unwritten) and parallel_fill. Touching fresh memory (the
// kernel zeroing each page as it is first written) is most of what filling
// a table of tens of MB costs, and done by one thread it is work on one
// core however many the caller asked for (the join's slot tables are such
// tables).
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "util/check_point.h"
#include "util/parallel_for.h"

namespace simhash {

// std::allocator, except that an element constructed with no value is
// default-initialized (left unwritten for trivial types) rather than
// value-initialized (zeroed).
template <typename T>
class UninitializedAllocator : public std::allocator<T> {
 public:
  template <typename U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <typename U>
  explicit UninitializedAllocator(const UninitializedAllocator<U>& /*other*/) noexcept {}

  template <typename U>
  void construct(U* place) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(place)) U;
  }
  template <typename U, typename... Args>
  void construct(U* place, Args&&... args) {
    ::new (static_cast<void*>(place)) U(std::forward<Args>(args)...);
  }
};

template <typename T>
using TableVector = std::vector<T, UninitializedAllocator<T>>;

// Sets `array` to `size` copies of `value`, written on `threads` threads a
// piece of kFillBetweenChecks at a time, each piece after a check
// (parallel_for.h's, `check` on the caller's thread).
template <typename T>
void parallel_fill(TableVector<T>& array, std::size_t size, const T& value, const CheckPoint& check,
                   unsigned threads) {
  static_assert(std::is_trivially_copyable_v<T>);
  array.clear();
  array.resize(size);  // unwritten: no page touched yet
  parallel_for(size, kFillBetweenChecks, threads, check,
               [&](unsigned, std::size_t begin, std::size_t end, const CheckPoint& worker_check) {
                 worker_check();
                 std::fill(array.begin() + static_cast<std::ptrdiff_t>(begin),
                           array.begin() + static_cast<std::ptrdiff_t>(end), value);
               });
}

}  // namespace simhash

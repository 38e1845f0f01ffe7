// SPDX-License-Identifier: MIT
// An array that grows in fixed blocks which never move, for the batch
// functions' arrays that grow with the input (verified links, feature
// hashes). A std::vector doubles by copying everything into fresh memory
// in one step the caller cannot interrupt: first touching memory is slow
// (the kernel zeroes each page), so a vector of tens of MB growing is one
// step longer than the stop an interrupt is promised. Here a push touches
// at most one new block (256 KiB at most).
// Each block is charged to the memory limit (memory_budget.h) before it is
// allocated: these arrays grow with the pairs found, without bound.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "util/check_point.h"
#include "util/memory_budget.h"

namespace simhash {

template <typename T>
class ChunkedArray {
 public:
  static constexpr std::size_t kBlockBits = 14;
  static constexpr std::size_t kBlockSize = std::size_t{1} << kBlockBits;

  void push_back(const T& value) {
    if ((size_ & (kBlockSize - 1)) == 0) {
      charge_.add(kBlockSize * sizeof(T) + sizeof(std::unique_ptr<T[]>));
      blocks_.push_back(std::make_unique_for_overwrite<T[]>(kBlockSize));
    }
    blocks_.back()[size_ & (kBlockSize - 1)] = value;
    ++size_;
  }

  // Grows to `size` elements, each `value`, calling `check` (when given)
  // as fill_with_checks does: the way to size a large array without one
  // long step.
  void resize(std::size_t size, const T& value, const CheckPoint& check) {
    while (size_ < size) {
      check_after_every(size_, kFillBetweenChecks, check);
      push_back(value);
    }
  }

  T& operator[](std::size_t index) {
    return blocks_[index >> kBlockBits][index & (kBlockSize - 1)];
  }
  const T& operator[](std::size_t index) const {
    return blocks_[index >> kBlockBits][index & (kBlockSize - 1)];
  }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  MemoryCharge charge_;  // declared first: given back after the blocks are freed
  std::vector<std::unique_ptr<T[]>> blocks_;
  std::size_t size_ = 0;
};

}  // namespace simhash

// SPDX-License-Identifier: MIT
// Union-find with union by size and path halving: near-constant time per
// operation, no recursion (component sizes can be in the millions).
#include "batch/union_find.h"

#include <numeric>
#include <utility>

namespace simhash {

UnionFind::UnionFind(std::uint32_t size) : parent_(size), set_size_(size, 1) {
  std::iota(parent_.begin(), parent_.end(), std::uint32_t{0});
}

std::uint32_t UnionFind::find(std::uint32_t x) {
  while (parent_[x] != x) {
    parent_[x] = parent_[parent_[x]];
    x = parent_[x];
  }
  return x;
}

bool UnionFind::unite(std::uint32_t a, std::uint32_t b) {
  a = find(a);
  b = find(b);
  if (a == b) {
    return false;
  }
  if (set_size_[a] < set_size_[b]) {
    std::swap(a, b);
  }
  parent_[b] = a;
  set_size_[a] += set_size_[b];
  return true;
}

}  // namespace simhash

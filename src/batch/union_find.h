// SPDX-License-Identifier: MIT
// Disjoint sets over 0..n-1 (union by size, path halving): the connected
// components of the "within radius" graph for simhash_clusters.
#pragma once

#include <cstdint>
#include <vector>

namespace simhash {

class UnionFind {
 public:
  explicit UnionFind(std::uint32_t size);

  // The representative of x's set.
  std::uint32_t find(std::uint32_t x);
  // The number of elements in the set whose representative is `root`.
  std::uint32_t size_of_root(std::uint32_t root) const { return set_size_[root]; }
  // Joins the sets of a and b; false if they were already one set.
  bool unite(std::uint32_t a, std::uint32_t b);

 private:
  std::vector<std::uint32_t> parent_;
  std::vector<std::uint32_t> set_size_;
};

}  // namespace simhash

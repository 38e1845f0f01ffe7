// SPDX-License-Identifier: MIT
// A stable LSD radix sort of 64-bit keys by the bits of a mask: the batch
// search sorts fingerprints so that those equal on a table's prefix blocks
// (its mask) are adjacent. Only the masked bits are sorted, so a table with
// a 16-bit prefix takes two passes, not eight.
#pragma once

#include <cstdint>
#include <vector>

namespace simhash {

class RadixSorter {
 public:
  // Sorts `keys` by (key & mask), stable; keys equal under the mask end up
  // adjacent. A zero mask leaves the order as it is.
  void sort_by_mask(std::vector<std::uint64_t>& keys, std::uint64_t mask);
  // The same, moving `payload` (same size as `keys`) along.
  void sort_by_mask(std::vector<std::uint64_t>& keys, std::vector<std::uint32_t>& payload,
                    std::uint64_t mask);

  // Number of passes sort_by_mask makes for `mask` (for cost estimates).
  static int pass_count(std::uint64_t mask);

 private:
  std::vector<std::uint64_t> key_scratch_;
  std::vector<std::uint32_t> payload_scratch_;
};

}  // namespace simhash

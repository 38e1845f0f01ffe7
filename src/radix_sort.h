// A stable LSD radix sort of 64-bit keys carrying a 32-bit payload, by the
// keys' most significant bits only: the batch search needs each table sorted
// by its prefix, and sorting fewer bits means fewer passes.
#pragma once

#include <cstdint>
#include <vector>

namespace simhash {

class RadixSorter {
 public:
  // Sorts `keys` (moving `payload` along) by their `top_bits` most significant
  // bits (1 to 64), stable for keys equal in those bits. Both vectors have the
  // same size. The scratch buffers are kept for the next call.
  void sort_by_top_bits(std::vector<std::uint64_t>& keys, std::vector<std::uint32_t>& payload,
                        int top_bits);

 private:
  std::vector<std::uint64_t> key_scratch_;
  std::vector<std::uint32_t> payload_scratch_;
};

}  // namespace simhash

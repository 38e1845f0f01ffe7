// LSD radix sort by the top bits of 64-bit keys, digits of at most 11 bits so
// a pass's counters (2048 of them) stay in the L1 cache.
#include "radix_sort.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <stdexcept>
#include <utility>

namespace simhash {
namespace {

constexpr int kMaxDigitBits = 11;
constexpr int kMaxPasses = (64 + kMaxDigitBits - 1) / kMaxDigitBits;

struct Digit {
  int shift;
  std::uint64_t mask;
};

}  // namespace

void RadixSorter::sort_by_top_bits(std::vector<std::uint64_t>& keys,
                                   std::vector<std::uint32_t>& payload, int top_bits) {
  if (keys.size() != payload.size()) {
    throw std::invalid_argument("radix sort: keys and payload differ in size");
  }
  if (top_bits < 1 || top_bits > 64) {
    throw std::invalid_argument("radix sort: top_bits must be 1 to 64");
  }
  const std::size_t count = keys.size();
  if (count < 2) {
    return;
  }
  // Cut the sorted bits into equal digits, least significant first.
  const int passes = (top_bits + kMaxDigitBits - 1) / kMaxDigitBits;
  const int digit_bits = (top_bits + passes - 1) / passes;
  std::array<Digit, kMaxPasses> digits{};
  int low = 64 - top_bits;
  for (int pass = 0; pass < passes; ++pass) {
    const int width = std::min(digit_bits, 64 - low);
    digits[pass] = Digit{low, (std::uint64_t{1} << width) - 1};
    low += width;
  }

  // One read of the keys counts every pass's digits.
  std::vector<std::array<std::size_t, std::size_t{1} << kMaxDigitBits>> counts(passes);
  for (auto& bucket_counts : counts) {
    bucket_counts.fill(0);
  }
  for (const std::uint64_t key : keys) {
    for (int pass = 0; pass < passes; ++pass) {
      ++counts[pass][(key >> digits[pass].shift) & digits[pass].mask];
    }
  }

  key_scratch_.resize(count);
  payload_scratch_.resize(count);
  for (int pass = 0; pass < passes; ++pass) {
    auto& bucket_counts = counts[pass];
    const std::size_t buckets = digits[pass].mask + 1;
    // A digit that is the same in every key leaves the order as it is.
    if (std::any_of(bucket_counts.begin(),
                    bucket_counts.begin() + static_cast<std::ptrdiff_t>(buckets),
                    [count](std::size_t n) { return n == count; })) {
      continue;
    }
    std::size_t offset = 0;
    for (std::size_t bucket = 0; bucket < buckets; ++bucket) {
      const std::size_t n = bucket_counts[bucket];
      bucket_counts[bucket] = offset;
      offset += n;
    }
    const int shift = digits[pass].shift;
    const std::uint64_t mask = digits[pass].mask;
    for (std::size_t i = 0; i < count; ++i) {
      const std::size_t to = bucket_counts[(keys[i] >> shift) & mask]++;
      key_scratch_[to] = keys[i];
      payload_scratch_[to] = payload[i];
    }
    keys.swap(key_scratch_);
    payload.swap(payload_scratch_);
  }
}

}  // namespace simhash

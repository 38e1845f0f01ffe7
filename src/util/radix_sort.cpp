// SPDX-License-Identifier: MIT
// LSD radix sort by the masked bits of 64-bit keys. Digits are bit ranges of
// the key starting at a masked bit, at most 11 bits wide (2048 counters stay
// in the L1 cache); the width is the smallest that needs no more passes, as
// fewer buckets scatter faster.
#include "util/radix_sort.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <stdexcept>
#include <utility>

namespace simhash {
namespace {

constexpr int kMinDigitBits = 6;
constexpr int kMaxDigitBits = 11;
constexpr int kMaxPasses = 64 / kMinDigitBits + 1;

struct Digit {
  int shift;
  std::uint64_t mask;  // applied after the shift
};

struct DigitPlan {
  int count = 0;
  std::array<Digit, kMaxPasses> digits{};
};

// Digits of `width` bits covering every set bit of `mask`, lowest first.
DigitPlan digits_of_width(std::uint64_t mask, int width) {
  DigitPlan plan;
  while (mask != 0 && plan.count < kMaxPasses) {
    const int low = std::countr_zero(mask);
    const int bits = std::min(width, 64 - low);
    const std::uint64_t digit_mask =
        bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
    plan.digits[plan.count++] = Digit{low, (mask >> low) & digit_mask};
    mask &= ~(digit_mask << low);
  }
  return plan;
}

DigitPlan plan_digits(std::uint64_t mask) {
  const int fewest = digits_of_width(mask, kMaxDigitBits).count;
  for (int width = kMinDigitBits; width < kMaxDigitBits; ++width) {
    const DigitPlan plan = digits_of_width(mask, width);
    if (plan.count <= fewest) {
      return plan;
    }
  }
  return digits_of_width(mask, kMaxDigitBits);
}

// The sort itself; Payload is std::uint32_t, or std::nullptr_t for none.
template <typename Payload>
void sort_masked(std::vector<std::uint64_t>& keys, std::vector<Payload>* payload,
                 std::vector<std::uint64_t>& key_scratch, std::vector<Payload>* payload_scratch,
                 std::uint64_t mask) {
  const std::size_t count = keys.size();
  if (payload != nullptr && payload->size() != count) {
    throw std::invalid_argument("radix sort: keys and payload differ in size");
  }
  if (count < 2 || mask == 0) {
    return;
  }
  const DigitPlan plan = plan_digits(mask);
  // One read of the keys counts every pass's digits.
  std::vector<std::array<std::size_t, std::size_t{1} << kMaxDigitBits>> counts(plan.count);
  for (auto& bucket_counts : counts) {
    bucket_counts.fill(0);
  }
  for (const std::uint64_t key : keys) {
    for (int pass = 0; pass < plan.count; ++pass) {
      ++counts[pass][(key >> plan.digits[pass].shift) & plan.digits[pass].mask];
    }
  }
  key_scratch.resize(count);
  if (payload != nullptr) {
    payload_scratch->resize(count);
  }
  for (int pass = 0; pass < plan.count; ++pass) {
    auto& bucket_counts = counts[pass];
    const int shift = plan.digits[pass].shift;
    const std::uint64_t digit_mask = plan.digits[pass].mask;
    const std::size_t buckets = digit_mask + 1;
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
    const std::uint64_t* from = keys.data();
    std::uint64_t* to = key_scratch.data();
    if (payload != nullptr) {
      const Payload* payload_from = payload->data();
      Payload* payload_to = payload_scratch->data();
      for (std::size_t i = 0; i < count; ++i) {
        const std::size_t slot = bucket_counts[(from[i] >> shift) & digit_mask]++;
        to[slot] = from[i];
        payload_to[slot] = payload_from[i];
      }
      payload->swap(*payload_scratch);
    } else {
      for (std::size_t i = 0; i < count; ++i) {
        to[bucket_counts[(from[i] >> shift) & digit_mask]++] = from[i];
      }
    }
    keys.swap(key_scratch);
  }
}

}  // namespace

void RadixSorter::sort_by_mask(std::vector<std::uint64_t>& keys, std::uint64_t mask) {
  sort_masked<std::uint32_t>(keys, nullptr, key_scratch_, nullptr, mask);
}

void RadixSorter::sort_by_mask(std::vector<std::uint64_t>& keys,
                               std::vector<std::uint32_t>& payload, std::uint64_t mask) {
  sort_masked<std::uint32_t>(keys, &payload, key_scratch_, &payload_scratch_, mask);
}

int RadixSorter::pass_count(std::uint64_t mask) { return plan_digits(mask).count; }

}  // namespace simhash

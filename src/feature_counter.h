// Counts feature occurrences by feature hash in an open-addressing table,
// keeping distinct hashes in first-occurrence order. Keying by the 64-bit
// hash instead of the text means fingerprint() never builds feature strings;
// two different features with equal hashes (odds 2^-64 per pair) count as one
// feature, in features() as in fingerprint(), so the two always agree.
#pragma once

#include <cstdint>
#include <vector>

namespace simhash {

class FeatureCounter {
 public:
  struct Entry {
    std::uint64_t hash;
    std::uint64_t count;
  };

  // Counts one occurrence of `hash`; true when it is the first.
  bool add(std::uint64_t hash);

  // Forgets every count; keeps the memory unless it is far larger than the
  // last text needed.
  void clear();

  // Distinct hashes with their counts, in first-occurrence order.
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  void grow();

  std::vector<std::uint32_t> slots_;  // 0 = empty, otherwise entry index + 1
  std::vector<Entry> entries_;
};

}  // namespace simhash

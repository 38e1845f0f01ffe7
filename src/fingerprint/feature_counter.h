// SPDX-License-Identifier: MIT
// Counts feature occurrences by feature hash in an open-addressing table,
// keeping distinct hashes in first-occurrence order. Keying by the 64-bit
// hash instead of the text means fingerprint() never builds feature strings;
// two different features with equal hashes (odds 2^-64 per pair) count as one
// feature, in features() as in fingerprint(), so the two always agree.
#pragma once

#include <cstddef>
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

  // Forgets every count and sizes the table for about `expected_features`
  // distinct features (a guess: a wrong one only costs memory or a rehash).
  void clear(std::size_t expected_features);

  // Distinct hashes with their counts, in first-occurrence order.
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  void grow();

  // 8 bytes: half the table of a (hash, index) pair, so more of it stays in
  // cache. The tag (the hash's high half) settles almost every probe without
  // visiting entries_; a matching tag is confirmed against the full hash.
  struct Slot {
    std::uint32_t tag;
    std::uint32_t entry;  // 0 = empty, otherwise entry index + 1
  };

  std::vector<Slot> slots_;
  std::vector<Entry> entries_;
};

}  // namespace simhash

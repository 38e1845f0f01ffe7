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
  // When the caller knows that the text has at most `most_features` and
  // that nearly all of them are distinct (shingles of two or more words),
  // a table that outgrows its first size grows once, straight to the size
  // for `most_features`, instead of doubling ten times on a 10 MB text, and
  // the entries are reserved for them (address space only: a page is
  // touched when an entry is written). The doublings made the first 10 MB
  // query of a connection cost three times the second in page faults and
  // copies.
  void clear(std::size_t expected_features, std::size_t most_features = 0);

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
  std::size_t most_features_ = 0;  // clear()'s, 0 when not known
};

}  // namespace simhash

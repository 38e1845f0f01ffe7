// SPDX-License-Identifier: MIT
// The byte form of simhash_similar's postings from format 3 on: a sorted run
// of postings (key, size, id) kept as one BLOB, where the key is the top 32
// bits of a feature hash. The glue keeps such blobs as rows of its postings
// table (docs/format.md); this file is the codec alone (no SQLite): encode,
// decode, merge a sorted batch of changes into a blob's postings, and cut a
// run into blobs of at most a byte bound.
//
// The bytes, the same on every machine (no byte of them depends on the
// machine's byte order or word size). A blob is one or more key groups, in
// ascending key order; a group is its key's postings in ascending
// (size, id) order:
//
//   group   := varint(head) [varint(count - 2)] entry{count}
//   head    := key_delta * 2 + (count > 1 ? 1 : 0)
//   entry   := first entry of a group:  varint(size) varint(zigzag(id))
//              any later entry:         varint(size - previous size), then
//                                       varint(id - previous id - 1) when
//                                       that is 0, else varint(zigzag(id))
//
// key_delta is the group's key less the previous group's (at least 1), or
// the key itself in the first group. A varint is LEB128: 7 bits a byte,
// lowest first, the high bit set on every byte but the last, at most 10
// bytes. zigzag(id) = (id << 1) ^ (id >> 63), so that a small negative id
// is short too. A blob with no group is never stored.
#pragma once

#include <algorithm>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace simhash {

// The posting key of a feature: its top 32 bits. Features that share one
// share its postings (similar_search.h says why that stays exact).
inline std::uint32_t posting_key(std::uint64_t feature) {
  return static_cast<std::uint32_t>(feature >> 32U);
}

struct PostingEntry {
  std::uint32_t key = 0;
  std::int64_t size = 0;
  std::int64_t id = 0;

  auto operator<=>(const PostingEntry&) const = default;
};

// Where a posting sorts, as one signed 64-bit number: its key, then its
// size up to 2^31 - 1 (larger sizes share the last place), so that the
// postings of one key and one size share a position and a run of postings
// can be cut between positions. Ascending with the entries' order.
inline constexpr std::int64_t kLargestPositionSize = (std::int64_t{1} << 31) - 1;
inline std::int64_t posting_position(std::uint32_t key, std::int64_t size) {
  return (static_cast<std::int64_t>(key) << 31) |
         std::min(std::max<std::int64_t>(size, 0), kLargestPositionSize);
}
inline std::int64_t posting_position(const PostingEntry& entry) {
  return posting_position(entry.key, entry.size);
}

// A change to a run of postings: `entry` added (insert) or removed.
struct PostingChange {
  PostingEntry entry;
  bool insert = true;
};

// Appends the bytes of `entries` (ascending, distinct, sizes >= 0) to `out`.
void encode_postings(std::span<const PostingEntry> entries, std::string& out);

// The entries of a blob into `out`; "" when the bytes are a blob, else what
// is wrong with them (and `out` unspecified).
std::string decode_postings(std::span<const unsigned char> bytes, std::vector<PostingEntry>& out);

// `stored` (ascending, distinct) with `changes` (ascending by entry) made,
// into `out`: an insert of an entry already there and a removal of one
// absent change nothing, so a batch applied twice gives what it gave once.
void merge_postings(std::span<const PostingEntry> stored, std::span<const PostingChange> changes,
                    std::vector<PostingEntry>& out);

// Cuts `entries` (ascending, distinct, not empty) into consecutive pieces
// whose bytes are at most `bound` (at least kSmallestPostingBound) each:
// one piece when they fit, else pieces of about equal bytes, each at most
// seven eighths of `bound` (so that a piece has room for the inserts that
// follow before it is cut again). With `between_positions`, a cut falls
// only between two postings of different posting_position(), and the
// postings of one position that alone are more than that are a piece of
// their own, over the bound. The answer is each piece's end index.
inline constexpr std::size_t kSmallestPostingBound = 64;
std::vector<std::size_t> split_postings(std::span<const PostingEntry> entries, std::size_t bound,
                                        bool between_positions);

// The number of bytes encode_postings writes for `entries`.
std::size_t encoded_postings_size(std::span<const PostingEntry> entries);

}  // namespace simhash

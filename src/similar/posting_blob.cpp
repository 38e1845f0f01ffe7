// SPDX-License-Identifier: MIT
// The posting blob codec of posting_blob.h: its varints, the encoder (and
// the byte count it would write), the decoder that names what is wrong with
// a damaged blob, the merge of a batch of changes and the cut into pieces.
#include "similar/posting_blob.h"

#include <algorithm>
#include <limits>

namespace simhash {
namespace {

std::size_t varint_size(std::uint64_t value) {
  std::size_t bytes = 1;
  while (value >= 0x80U) {
    value >>= 7U;
    ++bytes;
  }
  return bytes;
}

void put_varint(std::uint64_t value, std::string& out) {
  while (value >= 0x80U) {
    out.push_back(static_cast<char>(static_cast<unsigned char>((value & 0x7FU) | 0x80U)));
    value >>= 7U;
  }
  out.push_back(static_cast<char>(static_cast<unsigned char>(value)));
}

std::uint64_t zigzag(std::int64_t value) {
  return (static_cast<std::uint64_t>(value) << 1U) ^ static_cast<std::uint64_t>(value >> 63);
}

std::int64_t unzigzag(std::uint64_t value) {
  return static_cast<std::int64_t>((value >> 1U) ^ (~(value & 1U) + 1U));
}

// The bytes of one entry after `previous` in its group (or the group's
// first, when `first`), and the values that write them.
struct EntryCode {
  std::uint64_t size_value;
  std::uint64_t id_value;
};
EntryCode entry_code(const PostingEntry& entry, const PostingEntry* previous) {
  if (previous == nullptr) {
    return {static_cast<std::uint64_t>(entry.size), zigzag(entry.id)};
  }
  const auto size_delta =
      static_cast<std::uint64_t>(entry.size) - static_cast<std::uint64_t>(previous->size);
  if (size_delta == 0) {
    return {0, static_cast<std::uint64_t>(entry.id) - static_cast<std::uint64_t>(previous->id) - 1};
  }
  return {size_delta, zigzag(entry.id)};
}

std::size_t entry_size(const PostingEntry& entry, const PostingEntry* previous) {
  const EntryCode code = entry_code(entry, previous);
  return varint_size(code.size_value) + varint_size(code.id_value);
}

// The bytes of a group's head and count.
std::size_t head_size(std::uint64_t key_delta, std::size_t count) {
  return varint_size(key_delta * 2 + (count > 1 ? 1 : 0)) +
         (count > 1 ? varint_size(count - 2) : 0);
}

// Reads varints from a blob, remembering the first fault.
class Reader {
 public:
  explicit Reader(std::span<const unsigned char> bytes) : bytes_(bytes) {}
  bool done() const { return at_ == bytes_.size(); }
  bool varint(std::uint64_t& value) {
    value = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
      if (at_ == bytes_.size()) {
        return false;
      }
      const unsigned char byte = bytes_[at_++];
      if (shift == 63 && byte > 1) {
        return false;  // more than 64 bits
      }
      value |= static_cast<std::uint64_t>(byte & 0x7FU) << shift;
      if ((byte & 0x80U) == 0) {
        return true;
      }
    }
    return false;
  }

 private:
  std::span<const unsigned char> bytes_;
  std::size_t at_ = 0;
};

constexpr std::uint64_t kLargestSize =
    static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

}  // namespace

std::size_t encoded_postings_size(std::span<const PostingEntry> entries) {
  std::size_t bytes = 0;
  std::uint64_t previous_key = 0;
  for (std::size_t begin = 0; begin < entries.size();) {
    std::size_t end = begin + 1;
    bytes += entry_size(entries[begin], nullptr);
    for (; end < entries.size() && entries[end].key == entries[begin].key; ++end) {
      bytes += entry_size(entries[end], &entries[end - 1]);
    }
    bytes += head_size(entries[begin].key - previous_key, end - begin);
    previous_key = entries[begin].key;
    begin = end;
  }
  return bytes;
}

void encode_postings(std::span<const PostingEntry> entries, std::string& out) {
  std::uint64_t previous_key = 0;
  for (std::size_t begin = 0; begin < entries.size();) {
    std::size_t end = begin + 1;
    while (end < entries.size() && entries[end].key == entries[begin].key) {
      ++end;
    }
    const std::size_t count = end - begin;
    put_varint((entries[begin].key - previous_key) * 2 + (count > 1 ? 1 : 0), out);
    if (count > 1) {
      put_varint(count - 2, out);
    }
    for (std::size_t i = begin; i < end; ++i) {
      const EntryCode code = entry_code(entries[i], i == begin ? nullptr : &entries[i - 1]);
      put_varint(code.size_value, out);
      put_varint(code.id_value, out);
    }
    previous_key = entries[begin].key;
    begin = end;
  }
}

std::string decode_postings(std::span<const unsigned char> bytes, std::vector<PostingEntry>& out) {
  out.clear();
  if (bytes.empty()) {
    return "it holds no posting";
  }
  Reader reader(bytes);
  std::uint64_t key = 0;
  while (!reader.done()) {
    std::uint64_t head = 0;
    std::uint64_t count = 1;
    if (!reader.varint(head) || ((head & 1U) != 0 && !reader.varint(count))) {
      return "a number is cut off or too long";
    }
    if (count > bytes.size()) {
      return "a key's count of postings is more than the bytes hold";
    }
    count = (head & 1U) != 0 ? count + 2 : 1;
    const std::uint64_t delta = head >> 1U;
    if (!out.empty() && delta == 0) {
      return "its keys are not ascending";
    }
    if (delta > std::numeric_limits<std::uint32_t>::max() - key) {
      return "a key is beyond 32 bits";
    }
    key += delta;
    for (std::uint64_t i = 0; i < count; ++i) {
      std::uint64_t size_value = 0;
      std::uint64_t id_value = 0;
      if (!reader.varint(size_value) || !reader.varint(id_value)) {
        return "a number is cut off or too long";
      }
      PostingEntry entry{static_cast<std::uint32_t>(key), 0, 0};
      if (i == 0) {
        entry.size = static_cast<std::int64_t>(size_value);
        entry.id = unzigzag(id_value);
        if (size_value > kLargestSize) {
          return "a size is out of range";
        }
      } else {
        const PostingEntry& previous = out.back();
        if (size_value > kLargestSize - static_cast<std::uint64_t>(previous.size)) {
          return "a size is out of range";
        }
        entry.size = previous.size + static_cast<std::int64_t>(size_value);
        if (size_value == 0) {
          entry.id =
              static_cast<std::int64_t>(static_cast<std::uint64_t>(previous.id) + id_value + 1);
          if (entry.id <= previous.id) {
            return "its postings are not ascending";
          }
        } else {
          entry.id = unzigzag(id_value);
        }
      }
      out.push_back(entry);
    }
  }
  return "";
}

void merge_postings(std::span<const PostingEntry> stored, std::span<const PostingChange> changes,
                    std::vector<PostingEntry>& out) {
  out.clear();
  out.reserve(stored.size() + changes.size());
  std::size_t s = 0;
  for (const PostingChange& change : changes) {
    while (s < stored.size() && stored[s] < change.entry) {
      out.push_back(stored[s++]);
    }
    const bool present = s < stored.size() && stored[s] == change.entry;
    const bool already = !out.empty() && out.back() == change.entry;  // a repeated change
    if (change.insert) {
      if (!present && !already) {
        out.push_back(change.entry);
      }
    } else {
      if (present) {
        ++s;
      }
      if (already) {
        out.pop_back();
      }
    }
  }
  out.insert(out.end(), stored.begin() + static_cast<std::ptrdiff_t>(s), stored.end());
}

namespace {

// Cuts at entries: a piece takes entries while its bytes stay within the
// target. A piece's bytes are its closed groups' plus the open group's (its
// head and count, which grow with it, and its entries).
std::vector<std::size_t> cut_at_entries(std::span<const PostingEntry> entries, std::size_t target) {
  std::vector<std::size_t> ends;
  std::size_t closed = 0;
  std::size_t open_entries = 0;
  std::size_t open_count = 0;
  std::uint64_t previous_key = 0;  // of the piece's group before the open one
  std::uint64_t open_key = 0;
  std::size_t begin = 0;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const bool piece_start = i == begin;
    const bool same_group = !piece_start && entries[i].key == open_key;
    std::size_t next_closed = closed;
    std::size_t next_entries = open_entries;
    std::size_t next_count = open_count;
    std::uint64_t next_previous = previous_key;
    if (!same_group) {
      next_closed =
          piece_start ? 0 : closed + head_size(open_key - previous_key, open_count) + open_entries;
      next_previous = piece_start ? 0 : open_key;
      next_entries = entry_size(entries[i], nullptr);
      next_count = 1;
    } else {
      next_entries += entry_size(entries[i], &entries[i - 1]);
      ++next_count;
    }
    const std::size_t bytes =
        next_closed + head_size(entries[i].key - next_previous, next_count) + next_entries;
    if (!piece_start && bytes > target) {
      ends.push_back(i);
      begin = i;
      --i;  // the entry starts the next piece
      continue;
    }
    closed = next_closed;
    open_entries = next_entries;
    open_count = next_count;
    previous_key = next_previous;
    open_key = entries[i].key;
  }
  ends.push_back(entries.size());
  return ends;
}

// Cuts between positions only: a piece takes the postings of whole
// positions while its bytes stay within the target (a position larger than
// the target is a piece of its own). A piece's bytes are counted as
// cut_at_entries counts them, up to the end of the position.
std::vector<std::size_t> cut_between_positions(std::span<const PostingEntry> entries,
                                               std::size_t target) {
  std::vector<std::size_t> ends;
  std::size_t piece = 0;  // where the piece begins
  for (std::size_t begin = 0; begin < entries.size();) {
    std::size_t end = begin + 1;
    while (end < entries.size() &&
           posting_position(entries[end]) == posting_position(entries[begin])) {
      ++end;
    }
    if (begin != piece && encoded_postings_size(entries.subspan(piece, end - piece)) > target) {
      ends.push_back(begin);
      piece = begin;
    }
    begin = end;
  }
  ends.push_back(entries.size());
  return ends;
}

}  // namespace

std::vector<std::size_t> split_postings(std::span<const PostingEntry> entries, std::size_t bound,
                                        bool between_positions) {
  bound = std::max(bound, kSmallestPostingBound);
  const std::size_t total = encoded_postings_size(entries);
  if (total <= bound) {
    return {entries.size()};
  }
  const std::size_t fill = bound / 8 * 7;
  const std::size_t pieces = (total + fill - 1) / fill;
  const std::size_t target = std::min(fill, (total + pieces - 1) / pieces);
  return between_positions ? cut_between_positions(entries, target)
                           : cut_at_entries(entries, target);
}

}  // namespace simhash

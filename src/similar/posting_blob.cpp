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

// The end of the piece that begins at `begin`: it takes entries while its
// bytes stay within the target (at least one). A piece's bytes are its
// closed groups' plus the open group's (its head and count, which grow
// with it, and its entries).
std::size_t fill_piece(std::span<const PostingEntry> entries, std::size_t begin,
                       std::size_t target) {
  std::size_t closed = 0;
  std::size_t open_entries = entry_size(entries[begin], nullptr);
  std::size_t open_count = 1;
  std::uint64_t previous_key = 0;  // of the group before the open one
  for (std::size_t i = begin + 1; i < entries.size(); ++i) {
    if (entries[i].key == entries[i - 1].key) {
      open_entries += entry_size(entries[i], &entries[i - 1]);
      ++open_count;
    } else {
      closed += head_size(entries[i - 1].key - previous_key, open_count) + open_entries;
      previous_key = entries[i - 1].key;
      open_entries = entry_size(entries[i], nullptr);
      open_count = 1;
    }
    if (closed + head_size(entries[i].key - previous_key, open_count) + open_entries > target) {
      return i;
    }
  }
  return entries.size();
}

// Cuts anywhere: each piece as full as the target allows.
std::vector<std::size_t> cut_at_entries(std::span<const PostingEntry> entries, std::size_t target) {
  std::vector<std::size_t> ends;
  for (std::size_t begin = 0; begin < entries.size();) {
    begin = fill_piece(entries, begin, target);
    ends.push_back(begin);
  }
  return ends;
}

// Cuts between positions only: a piece as full as the target allows, then
// cut back to the last change of position in it; a piece of one position
// goes on to that position's end, over the target.
std::vector<std::size_t> cut_between_positions(std::span<const PostingEntry> entries,
                                               std::size_t target) {
  const auto same_position = [&](std::size_t i) {
    return posting_position(entries[i - 1]) == posting_position(entries[i]);
  };
  std::vector<std::size_t> ends;
  for (std::size_t begin = 0; begin < entries.size();) {
    const std::size_t full = fill_piece(entries, begin, target);
    std::size_t end = full;
    while (end < entries.size() && end > begin && same_position(end)) {
      --end;
    }
    if (end == begin) {
      for (end = full; end < entries.size() && same_position(end); ++end) {
      }
    }
    ends.push_back(end);
    begin = end;
  }
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

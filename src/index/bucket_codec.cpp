// SPDX-License-Identifier: MIT
// Encoding and decoding of packed buckets (see bucket_codec.h for the format).
#include "index/bucket_codec.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include "index/bucket_rests.h"
#include "util/compiler_support.h"
#include "util/cpu_dispatch.h"

namespace simhash {
namespace {

void put_varint(std::uint64_t value, std::string& out) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

// Reads a varint at `data`; nullptr if it runs past `end` or is too long.
const unsigned char* get_varint(const unsigned char* data, const unsigned char* end,
                                std::uint64_t& value) {
  value = 0;
  for (int shift = 0; shift < 64 && data < end; shift += 7) {
    const unsigned char byte = *data++;
    value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      return data;
    }
  }
  return nullptr;
}

std::uint64_t zigzag(std::int64_t value) {
  return (static_cast<std::uint64_t>(value) << 1) ^ static_cast<std::uint64_t>(value >> 63);
}
std::int64_t unzigzag(std::uint64_t value) {
  return static_cast<std::int64_t>(value >> 1) ^ -static_cast<std::int64_t>(value & 1);
}

std::uint64_t low_mask(int bits) {
  return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

// Big-endian rest at `data`; `fast` says 8 bytes may be read there.
inline std::uint64_t load_rest(const unsigned char* data, int rest_bytes, bool fast) {
  if (fast) {
    std::uint64_t word = 0;
    std::memcpy(&word, data, sizeof word);
    if constexpr (std::endian::native == std::endian::little) {
      word = swap_bytes(word);
    }
    return word >> (8 * (8 - rest_bytes));
  }
  std::uint64_t rest = 0;
  for (int byte = 0; byte < rest_bytes; ++byte) {
    rest = (rest << 8) | data[byte];
  }
  return rest;
}

// The bits of `data` (`size` bytes, `total` bits) from `position` on, least
// significant first, and in `valid` how many of them it holds (up to
// 64 - position % 8: one 8-byte load where 8 bytes remain); the bits above
// those are zero. Inline here, not a member call through the module's PLT:
// it runs once a Rice code.
inline std::uint64_t peek_bits(const unsigned char* data, std::uint64_t size, std::uint64_t total,
                               std::uint64_t position, int& valid) {
  const std::uint64_t byte = position / 8;
  const int shift = static_cast<int>(position % 8);
  std::uint64_t word = 0;
  if (byte + 8 <= size) {
    std::memcpy(&word, data + byte, sizeof word);
    if constexpr (std::endian::native == std::endian::big) {
      word = swap_bytes(word);
    }
    valid = 64 - shift;
    return word >> shift;
  }
  // The last bytes: as many as remain (fewer than 8), the bits past them zero.
  for (std::uint64_t at = byte; at < size; ++at) {
    word |= static_cast<std::uint64_t>(data[at]) << (8 * (at - byte));
  }
  valid = position >= total ? 0 : static_cast<int>(total - position);
  return word >> shift;
}

// Packs bit fields least significant bit first.
class BitWriter {
 public:
  explicit BitWriter(std::string& out) : out_(out) {}
  void put(std::uint64_t value, int bits) {  // bits <= 64
    if (bits > 32) {
      put(value & low_mask(32), 32);
      put(value >> 32, bits - 32);
      return;
    }
    buffer_ |= (value & low_mask(bits)) << buffered_;
    buffered_ += bits;
    while (buffered_ >= 8) {
      out_.push_back(static_cast<char>(buffer_ & 0xff));
      buffer_ >>= 8;
      buffered_ -= 8;
    }
  }
  void put_unary(std::uint64_t value) {  // `value` one bits, then a zero bit
    for (; value >= 32; value -= 32) {
      put(0xffffffff, 32);
    }
    put(low_mask(static_cast<int>(value)), static_cast<int>(value) + 1);
  }
  void finish() {
    if (buffered_ > 0) {
      out_.push_back(static_cast<char>(buffer_ & 0xff));
    }
  }

 private:
  std::string& out_;
  std::uint64_t buffer_ = 0;
  int buffered_ = 0;
};

// The Rice parameter with the fewest bits for these gaps, searched among
// three values around log2 of their mean (the optimum for geometric gaps is
// near log2(mean) - 0.5), in one pass.
int choose_rice(std::span<const BucketEntry> entries) {
  if (entries.size() < 2) {
    return 0;
  }
  const std::uint64_t count = entries.size() - 1;
  const std::uint64_t sum = static_cast<std::uint64_t>(entries.back().id) -
                            static_cast<std::uint64_t>(entries.front().id) - count;
  const int lowest = std::max(0, std::min(61, static_cast<int>(std::bit_width(sum / count)) - 2));
  std::uint64_t quotients[3] = {0, 0, 0};
  for (std::size_t i = 1; i < entries.size(); ++i) {
    const std::uint64_t value = static_cast<std::uint64_t>(entries[i].id) -
                                static_cast<std::uint64_t>(entries[i - 1].id) - 1;
    quotients[0] += value >> lowest;
    quotients[1] += value >> (lowest + 1);
    quotients[2] += value >> (lowest + 2);
  }
  int best = lowest;
  std::uint64_t best_bits = std::numeric_limits<std::uint64_t>::max();
  for (int step = 0; step < 3; ++step) {
    const std::uint64_t bits =
        quotients[step] + count * static_cast<std::uint64_t>(lowest + step + 1);
    if (bits < best_bits) {
      best_bits = bits;
      best = lowest + step;
    }
  }
  return best;
}

// The probe's inner loop from entry `first` on: one 8-byte load, XOR and
// popcount per entry. Built twice so CPUs with POPCNT use the instruction.
SIMHASH_POPCNT_CLONES void find_close_rests(const unsigned char* rests, std::size_t first,
                                            std::size_t count, int rest_bytes,
                                            std::size_t available, std::uint64_t query_rest,
                                            std::uint64_t prefix_mask, int radius,
                                            std::vector<CloseEntry>& out) {
  const std::size_t fast =
      available < 8 ? 0
                    : std::min(count, (available - 8) / static_cast<std::size_t>(rest_bytes) + 1);
  const unsigned char* data = rests + first * static_cast<std::size_t>(rest_bytes);
  std::size_t index = first;
  for (; index < fast; ++index, data += rest_bytes) {
    const std::uint64_t difference = load_rest(data, rest_bytes, true) ^ query_rest;
    const int distance = std::popcount(difference);
    if (distance <= radius && (difference & prefix_mask) == 0) {
      out.push_back(CloseEntry{static_cast<std::uint32_t>(index), distance});
    }
  }
  for (; index < count; ++index, data += rest_bytes) {
    const std::uint64_t difference = load_rest(data, rest_bytes, false) ^ query_rest;
    const int distance = std::popcount(difference);
    if (distance <= radius && (difference & prefix_mask) == 0) {
      out.push_back(CloseEntry{static_cast<std::uint32_t>(index), distance});
    }
  }
}

}  // namespace

BucketLayout::BucketLayout(const PermutationPlan& plan, int bucket_bits)
    : bits_(bucket_bits), useful_bits_(0) {
  bucket_bits_.resize(static_cast<std::size_t>(plan.table_count()));
  for (int table = 0; table < plan.table_count(); ++table) {
    bucket_bits_[table] = std::min(plan.prefix_bits(table), bits_);
    useful_bits_ = std::max(useful_bits_, std::min(plan.prefix_bits(table), kMaxBucketBits));
  }
}

int BucketLayout::bits_for_rows(std::int64_t rows) const {
  int bits = bits_;
  while (bits < useful_bits_ && rows > (kMaxAverageEntries << bits)) {
    ++bits;
  }
  return bits;
}

void encode_bucket(std::span<const BucketEntry> entries, int rest_bytes, std::string& out) {
  if (entries.empty()) {
    return;
  }
  put_varint(entries.size(), out);
  const std::size_t rests_at = out.size();
  out.resize(rests_at + entries.size() * static_cast<std::size_t>(rest_bytes) + 8);
  char* rest_out = out.data() + rests_at;
  for (const BucketEntry& entry : entries) {
    // Write 8 big-endian bytes and keep the first rest_bytes of them.
    std::uint64_t word = entry.rest << (64 - 8 * rest_bytes);
    if constexpr (std::endian::native == std::endian::little) {
      word = swap_bytes(word);
    }
    std::memcpy(rest_out, &word, sizeof word);
    rest_out += rest_bytes;
  }
  out.resize(static_cast<std::size_t>(rest_out - out.data()));
  const int rice = choose_rice(entries);
  out.push_back(static_cast<char>(rice));
  put_varint(zigzag(entries.front().id), out);
  BitWriter bits(out);
  for (std::size_t i = 1; i < entries.size(); ++i) {
    const std::uint64_t value = static_cast<std::uint64_t>(entries[i].id) -
                                static_cast<std::uint64_t>(entries[i - 1].id) - 1;
    bits.put_unary(value >> rice);
    bits.put(value, rice);
  }
  bits.finish();
}

bool BucketView::parse(const unsigned char* data, std::size_t size, int rest_bytes) {
  const unsigned char* end = data + size;
  std::uint64_t count = 0;
  const unsigned char* rests = get_varint(data, end, count);
  if (rests == nullptr || count == 0 || rest_bytes < 1 || rest_bytes > 8) {
    return false;
  }
  // The rests, then at least the Rice byte and a one-byte first id.
  const auto available = static_cast<std::uint64_t>(end - rests);
  if (count > available / static_cast<std::uint64_t>(rest_bytes) ||
      available - count * static_cast<std::uint64_t>(rest_bytes) < 2) {
    return false;
  }
  // The id section's size as the count and the Rice parameter require: the
  // parameter byte (0..63), a first id of at least one byte, and count - 1
  // codes of at least r + 1 bits each. A damaged count or parameter byte
  // mostly fails this, found without decoding an id.
  const unsigned char* ids = rests + count * static_cast<std::uint64_t>(rest_bytes);
  const std::uint64_t id_bytes = static_cast<std::uint64_t>(end - ids);
  if (*ids > 63 || id_bytes - 2 < ((count - 1) * (std::uint64_t{*ids} + 1) + 7) / 8) {
    return false;
  }
  rests_ = rests;
  ids_ = ids;
  end_ = end;
  count_ = static_cast<std::size_t>(count);
  rest_bytes_ = rest_bytes;
  return true;
}

std::uint64_t BucketView::rest(std::size_t index) const {
  const unsigned char* data = rests_ + index * static_cast<std::size_t>(rest_bytes_);
  return load_rest(data, rest_bytes_, end_ - data >= 8);
}

void BucketView::find_close(std::uint64_t query_rest, std::uint64_t prefix_mask, int radius,
                            std::vector<CloseEntry>& out, ScanKernel kernel) const {
  const auto available = static_cast<std::size_t>(end_ - rests_);
  std::size_t first = 0;
#if SIMHASH_X86_64_TARGETS
  if (kernel == ScanKernel::kAvx512) {
    first = bucket_rests::find_close_avx512(rests_, count_, rest_bytes_, available, query_rest,
                                            prefix_mask, radius, out);
  }
#else
  (void)kernel;
#endif
  find_close_rests(rests_, first, count_, rest_bytes_, available, query_rest, prefix_mask, radius,
                   out);
}

BucketIdReader::BucketIdReader(const BucketView& view)
    : data_(view.ids_), end_(view.end_), remaining_(view.count_) {}

bool BucketIdReader::start() {
  if (data_ == end_ || *data_ > 63) {
    return false;
  }
  rice_ = *data_++;
  std::uint64_t raw = 0;
  data_ = get_varint(data_, end_, raw);
  if (data_ == nullptr) {
    data_ = end_;
    return false;
  }
  previous_ = unzigzag(raw);
  total_ = static_cast<std::uint64_t>(end_ - data_) * 8;
  started_ = true;
  return true;
}

bool BucketIdReader::read_unary(std::uint64_t& value) {
  value = 0;
  for (;;) {
    int valid = 0;
    const std::uint64_t word =
        peek_bits(data_, static_cast<std::uint64_t>(end_ - data_), total_, position_, valid);
    if (valid == 0) {
      return false;
    }
    // Bits above `valid` are zero, so this counts at most `valid` ones.
    const int ones = std::countr_one(word);
    if (ones < valid) {
      value += static_cast<std::uint64_t>(ones);
      position_ += static_cast<std::uint64_t>(ones) + 1;
      return true;
    }
    value += static_cast<std::uint64_t>(valid);
    position_ += static_cast<std::uint64_t>(valid);
  }
}

bool BucketIdReader::read_bits(int bits, std::uint64_t& value) {
  if (total_ - position_ < static_cast<std::uint64_t>(bits)) {
    return false;
  }
  value = 0;
  // peek gives at least 57 bits where 8 bytes remain: two cover 63.
  for (int have = 0; have < bits;) {
    int valid = 0;
    const std::uint64_t word =
        peek_bits(data_, static_cast<std::uint64_t>(end_ - data_), total_, position_, valid);
    const int take = std::min(valid, bits - have);
    value |= (word & low_mask(take)) << have;
    have += take;
    position_ += static_cast<std::uint64_t>(take);
  }
  return true;
}

bool BucketIdReader::next(std::int64_t& id) {
  if (failed_ || remaining_ == 0) {
    return false;
  }
  failed_ = true;  // until this id is read completely
  if (!started_) {
    if (!start()) {
      return false;
    }
  } else {
    std::uint64_t quotient = 0;
    std::uint64_t low = 0;
    int valid = 0;
    const std::uint64_t word =
        peek_bits(data_, static_cast<std::uint64_t>(end_ - data_), total_, position_, valid);
    const int ones = std::countr_one(word);
    if (ones + 1 + rice_ <= valid) {
      // The whole code in this word: the usual case.
      quotient = static_cast<std::uint64_t>(ones);
      low = rice_ == 0 ? 0 : (word >> (ones + 1)) & low_mask(rice_);  // ones < 63 then
      position_ += static_cast<std::uint64_t>(ones + 1 + rice_);
    } else if (!read_unary(quotient) || !read_bits(rice_, low)) {
      return false;
    }
    if (quotient > (~std::uint64_t{0} >> rice_)) {
      return false;
    }
    const std::uint64_t value = (quotient << rice_) | low;
    // The gap is value + 1 and must keep the id within int64.
    const std::uint64_t room =
        static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) -
        static_cast<std::uint64_t>(previous_);
    if (value >= room) {
      return false;
    }
    previous_ = static_cast<std::int64_t>(static_cast<std::uint64_t>(previous_) + value + 1);
  }
  failed_ = false;
  --remaining_;
  id = previous_;
  return true;
}

bool BucketIdReader::skip_to_clean_end() {
  // Only the lengths of the codes matter here: the unary quotient, its
  // zero and rice_ low bits (the first id is read first, as it sets rice_).
  // The id range checks of next() are left out: they guard ids a reported
  // row would carry, and none of these is reported. This runs on every
  // bucket a probe reports a row from, so it must cost little next to the
  // probe.
  if (!started_) {
    std::int64_t id = 0;
    if (!next(id)) {
      return false;
    }
  }
  if (failed_) {
    return false;
  }
  for (; remaining_ > 0; --remaining_) {
    int valid = 0;
    const std::uint64_t word =
        peek_bits(data_, static_cast<std::uint64_t>(end_ - data_), total_, position_, valid);
    const int ones = std::countr_one(word);
    if (ones < valid) {
      position_ += static_cast<std::uint64_t>(ones) + 1 + static_cast<std::uint64_t>(rice_);
    } else {
      std::uint64_t quotient = 0;
      if (!read_unary(quotient)) {
        failed_ = true;
        return false;
      }
      position_ += static_cast<std::uint64_t>(rice_);
    }
    if (position_ > total_) {
      failed_ = true;
      return false;
    }
  }
  if (!at_clean_end()) {
    failed_ = true;
    return false;
  }
  return true;
}

bool BucketIdReader::at_clean_end() const {
  if (failed_ || remaining_ != 0) {
    return false;
  }
  if (!started_) {
    return data_ == end_;
  }
  // Exactly the section's bytes: fewer than 8 bits left, all zero.
  if (position_ > total_ || total_ - position_ >= 8) {
    return false;
  }
  int valid = 0;
  return position_ == total_ ||
         peek_bits(data_, static_cast<std::uint64_t>(end_ - data_), total_, position_, valid) == 0;
}

bool decode_bucket(const unsigned char* data, std::size_t size, int rest_bytes,
                   std::vector<BucketEntry>& out) {
  if (size == 0) {
    return true;
  }
  BucketView view;
  if (!view.parse(data, size, rest_bytes)) {
    return false;
  }
  BucketIdReader ids(view);
  for (std::size_t index = 0; index < view.count(); ++index) {
    std::int64_t id = 0;
    if (!ids.next(id)) {
      return false;
    }
    out.push_back(BucketEntry{id, view.rest(index)});
  }
  return ids.at_clean_end();
}

}  // namespace simhash

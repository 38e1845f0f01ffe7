// Encoding and decoding of packed buckets (see bucket_codec.h for the format).
#include "bucket_codec.h"

#include <algorithm>
#include <bit>
#include <cstring>

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

}  // namespace

BucketLayout::BucketLayout(const PermutationPlan& plan) {
  bucket_bits_.resize(static_cast<std::size_t>(plan.table_count()));
  for (int table = 0; table < plan.table_count(); ++table) {
    bucket_bits_[table] = std::min(plan.prefix_bits(table), kMaxBucketBits);
  }
}

void encode_bucket(std::span<const BucketEntry> entries, int rest_bytes, std::string& out) {
  bool first = true;
  std::int64_t previous = 0;
  for (const BucketEntry& entry : entries) {
    if (first) {
      put_varint(zigzag(entry.id), out);
      first = false;
    } else {
      put_varint(static_cast<std::uint64_t>(entry.id) - static_cast<std::uint64_t>(previous), out);
    }
    previous = entry.id;
    for (int byte = rest_bytes - 1; byte >= 0; --byte) {
      out.push_back(static_cast<char>((entry.rest >> (8 * byte)) & 0xff));
    }
  }
}

void BucketReader::advance() {
  valid_ = false;
  if (data_ >= end_) {
    return;
  }
  std::uint64_t raw = 0;
  if (*data_ < 0x80) {  // one-byte varint: the common gap in small buckets
    raw = *data_++;
  } else {
    data_ = get_varint(data_, end_, raw);
  }
  if (data_ == nullptr || end_ - data_ < rest_bytes_) {
    error_ = true;
    data_ = end_;
    return;
  }
  if (first_) {
    entry_.id = unzigzag(raw);
    first_ = false;
  } else {
    const std::int64_t next =
        static_cast<std::int64_t>(static_cast<std::uint64_t>(entry_.id) + raw);
    if (raw == 0 || next <= entry_.id) {  // ids must strictly increase
      error_ = true;
      data_ = end_;
      return;
    }
    entry_.id = next;
  }
  std::uint64_t rest = 0;
  if (end_ - data_ >= 8) {
    // Fast path: one unaligned big-endian load, keeping the top rest_bytes_.
    std::uint64_t word = 0;
    std::memcpy(&word, data_, sizeof word);
    if constexpr (std::endian::native == std::endian::little) {
      word = __builtin_bswap64(word);
    }
    rest = word >> (8 * (8 - rest_bytes_));
    data_ += rest_bytes_;
  } else {
    for (int byte = 0; byte < rest_bytes_; ++byte) {
      rest = (rest << 8) | *data_++;
    }
  }
  entry_.rest = rest;
  valid_ = true;
}

bool decode_bucket(const unsigned char* data, std::size_t size, int rest_bytes,
                   std::vector<BucketEntry>& out) {
  BucketReader reader(data, size, rest_bytes);
  for (; reader.valid(); reader.next()) {
    out.push_back(reader.entry());
  }
  return !reader.error();
}

}  // namespace simhash

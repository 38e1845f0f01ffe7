// SPDX-License-Identifier: MIT
// The block-permutation plan of Manku, Jain and Das Sarma (2007): the 64 bits
// of a fingerprint are cut into `blocks` contiguous blocks of near-equal size;
// every choice of `blocks - k` of them is one table whose permuted key puts
// those blocks first. Two fingerprints within k bits differ in at most k
// blocks, so (pigeonhole) they agree on all leading blocks of at least one table.
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace simhash {

class PermutationPlan {
 public:
  // Largest number of tables a plan may have: every insert touches every
  // table, so plans beyond this are refused rather than silently slow.
  static constexpr int kMaxTables = 1024;

  // The blocks are contiguous near-equal bit ranges of the 64 bits (block 0
  // holds the most significant bits); each table takes blocks-k of them as its
  // leading (prefix) blocks; tables = C(blocks, k), in lexicographic order of
  // the leading-block sets. Returns nullopt and sets `error` (naming the
  // option) when k is outside 0..63, blocks is not in k+1..64, or the plan has
  // more than kMaxTables tables.
  static std::optional<PermutationPlan> create(int k, int blocks, std::string& error);

  // The smallest blocks (> k) whose every table has at least 16 prefix bits,
  // limited to plans within kMaxTables tables.
  static int default_blocks(int k);

  int k() const { return k_; }
  int blocks() const { return blocks_; }
  int table_count() const { return static_cast<int>(tables_.size()); }

  // Bits in the table's leading blocks.
  int prefix_bits(int table) const { return tables_[table].prefix_bits; }
  // The fingerprint with the table's leading blocks moved to the top (in block
  // order), followed by its other blocks (in block order).
  std::uint64_t permute(int table, std::uint64_t fp) const;
  std::uint64_t unpermute(int table, std::uint64_t key) const;
  // The leading blocks' bits, in fingerprint bit positions.
  std::uint64_t prefix_mask(int table) const { return tables_[table].prefix_mask; }
  // Whether the leading blocks are the top bits of the fingerprint (table 0,
  // blocks 0, 1, ...): ascending fingerprints are then already grouped by
  // prefix, and a batch search needs no sort for this table.
  bool prefix_is_top_bits(int table) const {
    const std::uint64_t mask = prefix_mask(table);
    return mask == ~std::uint64_t{0} << std::countr_zero(mask);
  }
  // The first table whose leading blocks a and b share; -1 if none.
  int first_shared_table(std::uint64_t a, std::uint64_t b) const;

  // Block `block` covers the bits at positions [block_start, block_start +
  // block_size) counted from the most significant bit.
  int block_start(int block) const { return block * 64 / blocks_; }
  int block_size(int block) const { return block_start(block + 1) - block_start(block); }

 private:
  // One run of contiguous bits moved as a unit: bits [from, from+width) of the
  // fingerprint (counted from the MSB) go to [to, to+width) of the key.
  struct Move {
    int from;
    int to;
    int width;
  };
  struct Table {
    std::vector<Move> moves;
    int prefix_bits = 0;
    std::uint64_t prefix_mask = 0;
  };

  PermutationPlan(int k, int blocks) : k_(k), blocks_(blocks) {}
  void add_table(const std::vector<bool>& leading);

  int k_;
  int blocks_;
  std::vector<Table> tables_;
};

}  // namespace simhash

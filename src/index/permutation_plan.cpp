// SPDX-License-Identifier: MIT
// Builds the tables of a block-permutation plan and moves bits between the
// fingerprint order and each table's key order.
#include "index/permutation_plan.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

namespace simhash {
namespace {

// Bits [start, start+width) counted from the MSB, as a mask.
std::uint64_t range_mask(int start, int width) {
  if (width <= 0) {
    return 0;
  }
  const std::uint64_t low = width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
  return low << (64 - start - width);
}

// Shifts `bits` (already masked) from MSB offset `from` to MSB offset `to`.
std::uint64_t shift_bits(std::uint64_t bits, int from, int to) {
  return from >= to ? bits << (from - to) : bits >> (to - from);
}

// C(n, r) saturated at limit + 1 so huge plans do not overflow.
long long binomial_capped(int n, int r, long long limit) {
  if (r < 0 || r > n) {
    return 0;
  }
  r = std::min(r, n - r);
  long long result = 1;
  for (int i = 1; i <= r; ++i) {
    result = result * (n - r + i) / i;
    if (result > limit) {
      return limit + 1;
    }
  }
  return result;
}

}  // namespace

std::optional<PermutationPlan> PermutationPlan::create(int k, int blocks, std::string& error) {
  if (k < 0 || k > 63) {
    error = "k=" + std::to_string(k) + " is out of range (0 to 63)";
    return std::nullopt;
  }
  if (blocks <= k || blocks > 64) {
    error = "blocks=" + std::to_string(blocks) +
            " is out of range: it must be above k=" + std::to_string(k) + " and at most 64";
    return std::nullopt;
  }
  const long long tables = binomial_capped(blocks, k, kMaxTables);
  if (tables > kMaxTables) {
    error = "blocks=" + std::to_string(blocks) + " with k=" + std::to_string(k) +
            " needs more than " + std::to_string(kMaxTables) +
            " tables (the limit); use fewer blocks";
    return std::nullopt;
  }
  PermutationPlan plan(k, blocks);
  plan.tables_.reserve(static_cast<std::size_t>(tables));
  // Enumerate the (blocks - k)-subsets of leading blocks in lexicographic order.
  const int lead = blocks - k;
  std::vector<int> chosen(lead);
  for (int i = 0; i < lead; ++i) {
    chosen[i] = i;
  }
  while (true) {
    std::vector<bool> leading(blocks, false);
    for (int block : chosen) {
      leading[block] = true;
    }
    plan.add_table(leading);
    int i = lead - 1;
    while (i >= 0 && chosen[i] == blocks - lead + i) {
      --i;
    }
    if (i < 0) {
      break;
    }
    ++chosen[i];
    for (int j = i + 1; j < lead; ++j) {
      chosen[j] = chosen[j - 1] + 1;
    }
  }
  return plan;
}

int PermutationPlan::default_blocks(int k) {
  int best = k + 1;
  for (int blocks = k + 1; blocks <= 64; ++blocks) {
    if (binomial_capped(blocks, k, kMaxTables) > kMaxTables) {
      break;
    }
    best = blocks;
    // The smallest table has (blocks - k) blocks of the smallest size.
    const int smallest_prefix = (blocks - k) * (64 / blocks);
    if (smallest_prefix >= 16) {
      break;
    }
  }
  return best;
}

void PermutationPlan::add_table(const std::vector<bool>& leading) {
  Table table;
  int to = 0;
  // Leading blocks first, then the others; adjacent runs are merged.
  for (int pass = 0; pass < 2; ++pass) {
    const bool want_leading = pass == 0;
    for (int block = 0; block < blocks_; ++block) {
      if (leading[block] != want_leading) {
        continue;
      }
      const int from = block_start(block);
      const int width = block_size(block);
      if (want_leading) {
        table.prefix_bits += width;
        table.prefix_mask |= range_mask(from, width);
      }
      if (!table.moves.empty()) {
        Move& last = table.moves.back();
        if (last.from + last.width == from && last.to + last.width == to) {
          last.width += width;
          to += width;
          continue;
        }
      }
      table.moves.push_back(Move{from, to, width});
      to += width;
    }
  }
  tables_.push_back(std::move(table));
}

std::uint64_t PermutationPlan::permute(int table, std::uint64_t fp) const {
  std::uint64_t key = 0;
  for (const Move& move : tables_[table].moves) {
    key |= shift_bits(fp & range_mask(move.from, move.width), move.from, move.to);
  }
  return key;
}

std::uint64_t PermutationPlan::unpermute(int table, std::uint64_t key) const {
  std::uint64_t fp = 0;
  for (const Move& move : tables_[table].moves) {
    fp |= shift_bits(key & range_mask(move.to, move.width), move.to, move.from);
  }
  return fp;
}

int PermutationPlan::first_shared_table(std::uint64_t a, std::uint64_t b) const {
  const std::uint64_t differing = a ^ b;
  for (int table = 0; table < table_count(); ++table) {
    if ((differing & tables_[table].prefix_mask) == 0) {
      return table;
    }
  }
  return -1;
}

}  // namespace simhash

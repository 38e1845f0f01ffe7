// SPDX-License-Identifier: MIT
// The plan of the partitioned dedup: which rows each part joins. Two sets
// at Jaccard t or more have sizes within a factor t of each other (the
// overlap is at most the smaller, the union at least the larger), so with
// the rows ordered by size, a row only needs the rows of its own size and
// of sizes up to its own / t. The ordered rows are cut into chunks of at
// most half the budget each; a part is a chunk joined with itself, or a
// chunk (the probes) joined with a window of the later chunks it can reach
// (at most half the budget too). So every pair that can reach the threshold
// is in exactly one part, and no part holds more than the budget, however
// the sizes fall: many rows of one size only make more chunks of that size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace simhash {

struct SizeChunk {
  std::size_t begin;  // rows [begin, end) of the size order
  std::size_t end;
};

struct SizePart {
  std::size_t probes;      // a chunk
  std::size_t kept_begin;  // chunks [kept_begin, kept_end); == probes: the chunk with itself
  std::size_t kept_end;

  bool self() const { return kept_begin == probes; }
  bool operator==(const SizePart&) const = default;
};

struct SizeParts {
  std::vector<SizeChunk> chunks;
  std::vector<SizePart> parts;  // by probe chunk, then window
};

// Whether a set of `larger` features may reach Jaccard `threshold` with one
// of `smaller`: larger * threshold <= smaller, with the margin of
// prefix_filter.h's may_reach (a pair never lost to a rounding).
bool sizes_may_reach(std::size_t smaller, std::size_t larger, double threshold);

// `sizes` ascending (a row's features); `cost[i]` what row i holds in a
// part (bytes); `budget` what a part may hold. A row whose cost alone is
// over half the budget is a chunk of its own (the least a part can be).
// Chunks never hold rows no part needs: each chunk is joined with itself.
SizeParts plan_size_parts(std::span<const std::uint32_t> sizes, std::span<const std::uint64_t> cost,
                          std::uint64_t budget, double threshold);

// The same plan a chunk at a time, for a caller that would not hold every
// part (small parts over many rows make chunks times windows of them):
// the chunks and what each holds, then the parts whose probes are one
// chunk, in the order plan_size_parts lists them.
struct SizeChunks {
  std::vector<SizeChunk> chunks;
  std::vector<std::uint64_t> costs;  // by chunk
};
SizeChunks plan_size_chunks(std::span<const std::uint32_t> sizes,
                            std::span<const std::uint64_t> cost, std::uint64_t budget);
std::vector<SizePart> size_parts_of_chunk(std::span<const std::uint32_t> sizes,
                                          const SizeChunks& chunks, std::size_t chunk,
                                          std::uint64_t budget, double threshold);

}  // namespace simhash

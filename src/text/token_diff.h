// SPDX-License-Identifier: MIT
// The shortest edit script between two sequences of token numbers (Myers,
// "An O(ND) difference algorithm and its variations", 1986), as hunks: runs
// where the first sequence has tokens the second lacks, or the reverse, or
// both.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace simhash {

// [a_begin, a_end) of the first sequence stands where [b_begin, b_end) of
// the second does; one side may be empty.
struct DiffHunk {
  std::size_t a_begin = 0;
  std::size_t a_end = 0;
  std::size_t b_begin = 0;
  std::size_t b_end = 0;
};

// Time grows with (size of a + size of b) times the edits, memory with the
// edits squared, so the search stops past this many edits.
inline constexpr std::size_t kMostDiffEdits = 1000;

// The hunks in order, fewest tokens inserted plus deleted; nothing when more
// than `most_edits` tokens would have to be inserted or deleted.
std::optional<std::vector<DiffHunk>> token_diff(std::span<const std::uint32_t> a,
                                                std::span<const std::uint32_t> b,
                                                std::size_t most_edits = kMostDiffEdits);

}  // namespace simhash

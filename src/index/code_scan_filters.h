// SPDX-License-Identifier: MIT
// The filters behind code_scan.h, one per instruction set: each writes the
// offsets (from `keys`) of the codes of one block within `limit` of the
// query, in increasing order, and returns how many. Internal to the
// index's scans; code_scan.cpp picks one.
#pragma once

#include <cstddef>
#include <cstdint>

#include "util/cpu_dispatch.h"

namespace simhash::code_scan {

// Rows a filter sees at once: the limit of the n nearest is lowered between
// blocks, and a block's keys are still in the L1 cache when the few rows
// it passed are compared again.
inline constexpr std::size_t kBlockRows = 2048;

// `size` <= kBlockRows; `out` has room for `size` offsets.
using Filter = std::size_t (*)(const std::uint64_t* keys, std::size_t size, std::uint64_t query,
                               int limit, std::uint32_t* out);

std::size_t filter_scalar(const std::uint64_t* keys, std::size_t size, std::uint64_t query,
                          int limit, std::uint32_t* out);
#if SIMHASH_X86_64_TARGETS
std::size_t filter_avx2(const std::uint64_t* keys, std::size_t size, std::uint64_t query, int limit,
                        std::uint32_t* out);
std::size_t filter_avx512(const std::uint64_t* keys, std::size_t size, std::uint64_t query,
                          int limit, std::uint32_t* out);
#endif
#if SIMHASH_AARCH64_NEON
std::size_t filter_neon(const std::uint64_t* keys, std::size_t size, std::uint64_t query, int limit,
                        std::uint32_t* out);
#endif

}  // namespace simhash::code_scan

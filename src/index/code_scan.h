// SPDX-License-Identifier: MIT
// The scans over an array of 64-bit codes: the positions within a radius of
// a query, and the n nearest by (distance, id). One filter does the work of
// both: it compares a block of codes with a limit, a vector at a time, and
// hands on only the positions within it; the n nearest keep their heap
// outside that loop and lower the limit as it fills. The filter is chosen at
// run time among the instruction sets this build and this CPU have (AVX2 and
// AVX-512 VPOPCNTDQ on x86-64, NEON on aarch64), with a portable loop
// everywhere; every variant gives the same answer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace simhash {

// kAvx512: AVX-512 F, BW, VBMI and VPOPCNTDQ (Ice Lake, Zen 4 and later).
enum class ScanKernel { kScalar, kAvx2, kAvx512, kNeon };

// Whether this build and this CPU run `kernel`; kScalar always does.
bool scan_kernel_runs(ScanKernel kernel);
// The fastest kernel that runs here: what a scan uses unless told.
ScanKernel best_scan_kernel();
// Every kernel that runs here, kScalar first (tests and benchmarks try each).
std::vector<ScanKernel> scan_kernels_that_run();
const char* scan_kernel_name(ScanKernel kernel);

// Appends to `out` every position i of `keys` with popcount(keys[i] ^ query)
// <= radius (radius within 0..64), in increasing order, with its distance.
// `kernel` must run here (scan_kernel_runs).
void scan_within(ScanKernel kernel, std::span<const std::uint64_t> keys, std::uint64_t query,
                 int radius, std::vector<std::pair<std::size_t, int>>& out);

// The positions of the `count` codes nearest to `query` within `bound` bits
// (0..64), ties by the smaller id (`ids[i]` is keys[i]'s; ids distinct), as
// (distance, position) pairs in no particular order. `kernel` as above.
void scan_nearest(ScanKernel kernel, std::span<const std::uint64_t> keys, const std::int64_t* ids,
                  std::uint64_t query, std::size_t count, int bound,
                  std::vector<std::pair<int, std::size_t>>& out);

}  // namespace simhash

// SPDX-License-Identifier: MIT
// The vector half of BucketView::find_close (bucket_codec.h): a bucket's
// rests are big-endian and 1 to 8 bytes wide, so a vector loop must gather
// and byte-swap them before it counts bits. Only AVX-512 does that in one
// instruction (VBMI's byte permute); the other kernels leave the whole
// bucket to the portable loop. Internal to the bucket codec.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "index/bucket_codec.h"
#include "util/cpu_dispatch.h"

namespace simhash::bucket_rests {

#if SIMHASH_X86_64_TARGETS
// Appends the close entries (as find_close) among the first entries of the
// rests at `rests`, eight at a time while 64 bytes can be loaded within
// `available`; returns how many entries it looked at (a multiple of 8), the
// portable loop taking the rest. Only where ScanKernel::kAvx512 runs.
std::size_t find_close_avx512(const unsigned char* rests, std::size_t count, int rest_bytes,
                              std::size_t available, std::uint64_t query_rest,
                              std::uint64_t prefix_mask, int radius, std::vector<CloseEntry>& out);
#endif

}  // namespace simhash::bucket_rests

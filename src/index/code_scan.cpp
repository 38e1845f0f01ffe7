// SPDX-License-Identifier: MIT
// The scans of code_scan.h: the choice of filter, the portable filter, and
// the two scans built on a filter (the rows within a radius; the n nearest
// with a bounded heap fed only what passed the filter).
#include "index/code_scan.h"

#include <algorithm>
#include <array>
#include <bit>

#include "index/code_scan_filters.h"
#include "util/cpu_dispatch.h"

namespace simhash {
namespace code_scan {

// Built twice on x86-64 so that CPUs with POPCNT use the instruction. The
// offset is written whether or not the row passes and the count moves only
// if it does: no branch to mispredict while the limit is still high.
SIMHASH_POPCNT_CLONES std::size_t filter_scalar(const std::uint64_t* keys, std::size_t size,
                                                std::uint64_t query, int limit,
                                                std::uint32_t* out) {
  std::size_t found = 0;
  for (std::size_t i = 0; i < size; ++i) {
    out[found] = static_cast<std::uint32_t>(i);
    found += std::popcount(keys[i] ^ query) <= limit ? 1 : 0;
  }
  return found;
}

}  // namespace code_scan

namespace {

using code_scan::Filter;
using code_scan::kBlockRows;

Filter filter_of(ScanKernel kernel) {
  switch (kernel) {
#if SIMHASH_X86_64_TARGETS
    case ScanKernel::kAvx2:
      return code_scan::filter_avx2;
    case ScanKernel::kAvx512:
      return code_scan::filter_avx512;
#endif
#if SIMHASH_AARCH64_NEON
    case ScanKernel::kNeon:
      return code_scan::filter_neon;
#endif
    default:
      return code_scan::filter_scalar;
  }
}

using Heap = std::vector<std::pair<int, std::size_t>>;

// The heap's order: a max-heap of (distance, position) by (distance, id),
// so its front is the farthest row kept.
struct Farther {
  const std::int64_t* ids;
  bool operator()(const std::pair<int, std::size_t>& a,
                  const std::pair<int, std::size_t>& b) const {
    return a.first != b.first ? a.first < b.first : ids[a.second] < ids[b.second];
  }
};

// Offers row `position`, at `distance` <= `limit` (the bound, then the
// front's distance once `count` rows are kept), to the heap; lowers `limit`
// as the front comes nearer.
void offer(Heap& heap, const std::int64_t* ids, std::size_t count, int distance,
           std::size_t position, int& limit) {
  const Farther farther{ids};
  if (heap.size() < count) {
    heap.emplace_back(distance, position);
    std::push_heap(heap.begin(), heap.end(), farther);
    if (heap.size() == count) {
      limit = heap.front().first;
    }
    return;
  }
  // At the front's distance only a smaller id enters.
  if (distance == heap.front().first && ids[position] > ids[heap.front().second]) {
    return;
  }
  std::pop_heap(heap.begin(), heap.end(), farther);
  heap.back() = {distance, position};
  std::push_heap(heap.begin(), heap.end(), farther);
  limit = heap.front().first;
}

}  // namespace

bool scan_kernel_runs(ScanKernel kernel) {
  switch (kernel) {
    case ScanKernel::kScalar:
      return true;
#if SIMHASH_X86_64_TARGETS
    case ScanKernel::kAvx2: {
      static const bool runs = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
      return runs;
    }
    case ScanKernel::kAvx512: {
      // BW and VBMI too, for the packed rests (bucket_rests.h): every CPU
      // with VPOPCNTDQ but the Xeon Phi has them.
      static const bool runs =
          __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq") &&
          __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vbmi");
      return runs;
    }
#endif
#if SIMHASH_AARCH64_NEON
    case ScanKernel::kNeon:
      return true;
#endif
    default:
      return false;
  }
}

ScanKernel best_scan_kernel() {
  static const ScanKernel best = [] {
    for (const ScanKernel kernel : {ScanKernel::kAvx512, ScanKernel::kAvx2, ScanKernel::kNeon}) {
      if (scan_kernel_runs(kernel)) {
        return kernel;
      }
    }
    return ScanKernel::kScalar;
  }();
  return best;
}

std::vector<ScanKernel> scan_kernels_that_run() {
  std::vector<ScanKernel> kernels;
  for (const ScanKernel kernel :
       {ScanKernel::kScalar, ScanKernel::kAvx2, ScanKernel::kAvx512, ScanKernel::kNeon}) {
    if (scan_kernel_runs(kernel)) {
      kernels.push_back(kernel);
    }
  }
  return kernels;
}

const char* scan_kernel_name(ScanKernel kernel) {
  switch (kernel) {
    case ScanKernel::kAvx2:
      return "avx2";
    case ScanKernel::kAvx512:
      return "avx512";
    case ScanKernel::kNeon:
      return "neon";
    default:
      return "scalar";
  }
}

void scan_within(ScanKernel kernel, std::span<const std::uint64_t> keys, std::uint64_t query,
                 int radius, std::vector<std::pair<std::size_t, int>>& out) {
  const Filter filter = filter_of(kernel);
  std::array<std::uint32_t, kBlockRows> passed;
  for (std::size_t first = 0; first < keys.size(); first += kBlockRows) {
    const std::size_t size = std::min(kBlockRows, keys.size() - first);
    const std::size_t found = filter(keys.data() + first, size, query, radius, passed.data());
    for (std::size_t i = 0; i < found; ++i) {
      const std::size_t position = first + passed[i];
      out.emplace_back(position, std::popcount(keys[position] ^ query));
    }
  }
}

void scan_nearest(ScanKernel kernel, std::span<const std::uint64_t> keys, const std::int64_t* ids,
                  std::uint64_t query, std::size_t count, int bound,
                  std::vector<std::pair<int, std::size_t>>& out) {
  out.clear();
  if (count == 0) {
    return;
  }
  const Filter filter = filter_of(kernel);
  std::array<std::uint32_t, kBlockRows> passed;
  int limit = bound;  // rows farther than this cannot enter
  // The first blocks are short: until the heap is full every row passes
  // the filter, and the limit falls fast over the first few hundred rows.
  std::size_t block = 64;
  for (std::size_t first = 0; first < keys.size();
       first += block, block = std::min(2 * block, kBlockRows)) {
    const std::size_t size = std::min(block, keys.size() - first);
    const std::size_t found = filter(keys.data() + first, size, query, limit, passed.data());
    for (std::size_t i = 0; i < found; ++i) {
      const std::size_t position = first + passed[i];
      // The limit may have come nearer since the block was filtered.
      const int distance = std::popcount(keys[position] ^ query);
      if (distance <= limit) {
        offer(out, ids, count, distance, position, limit);
      }
    }
  }
}

}  // namespace simhash

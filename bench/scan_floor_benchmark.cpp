// SPDX-License-Identifier: MIT
// The index's scans of cached codes beside the loops an application would
// write by hand, in one process over the same codes: the 10 nearest and the
// rows within radius 10 of random queries over N uniform codes, answered by
//   engine   PackedCodes (src/index/packed_codes.h) with the kernel this CPU
//            picks, then with each other kernel it runs (kernels=all)
//   scalar   a plain loop: popcount, compare, a bounded heap (built with POPCNT)
//   avx512   the same with AVX-512 VPOPCNTDQ, eight codes a step (built for
//            that target; only where the CPU runs it)
//   buckets  the 10 nearest by NearestScan over copy 0's packed buckets (held
//            in memory), what serves a connection before it caches the codes
// back to back, and with `traffic` MB of other memory written between two
// queries (the application's other work, which evicts the codes from the
// caches). Every query runs every method in turn, so a slow minute of a
// shared machine falls on all of them; each answer (ids and distances) is
// checked against the scalar loop's. Prints the median and p99 CPU time
// per query (this thread's) and the median wall time, and each method's
// median over the hand-written loops'.
//
// usage: scan_floor_benchmark [rows=1000000] [queries=200] [traffic=64]
//          [kernels=best|all] [seed=1]
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "bench_support.h"
#include "index/bucket_codec.h"
#include "index/code_scan.h"
#include "index/nearest_scan.h"
#include "index/packed_codes.h"
#include "index/permutation_plan.h"
#include "util/cpu_dispatch.h"

#if SIMHASH_X86_64_TARGETS
#include <immintrin.h>
#endif

namespace simhash::bench {
namespace {

constexpr std::size_t kCount = 10;
constexpr int kRadius = 10;

using Answer = std::vector<std::pair<int, std::int64_t>>;  // (distance, id), sorted

// ---- The hand-written loops, over the engine's own arrays (the same
// memory, so that both find it equally cached): `keys` and the query
// permuted alike, ties broken by `ids` as the engine breaks them. ----

struct Codes {
  std::span<const std::uint64_t> keys;
  std::span<const std::int64_t> ids;
};

// Whether row `i`, at `distance`, enters a full heap whose farthest is `front`.
inline bool enters(const Codes& codes, std::size_t i, int distance,
                   const std::pair<int, std::int64_t>& front) {
  return distance < front.first || (distance == front.first && codes.ids[i] < front.second);
}

inline void replace_front(std::vector<std::pair<int, std::int64_t>>& heap, int distance,
                          std::int64_t id) {
  std::pop_heap(heap.begin(), heap.end());
  heap.back() = {distance, id};
  std::push_heap(heap.begin(), heap.end());
}

SIMHASH_POPCNT_CLONES void scalar_nearest(const Codes& codes, std::uint64_t query, Answer& out) {
  std::vector<std::pair<int, std::int64_t>> heap;  // max-heap: the farthest kept on top
  for (std::size_t i = 0; i < codes.keys.size(); ++i) {
    const int distance = std::popcount(codes.keys[i] ^ query);
    if (heap.size() < kCount) {
      heap.emplace_back(distance, codes.ids[i]);
      std::push_heap(heap.begin(), heap.end());
    } else if (distance <= heap.front().first && enters(codes, i, distance, heap.front())) {
      replace_front(heap, distance, codes.ids[i]);
    }
  }
  out.assign(heap.begin(), heap.end());
}

SIMHASH_POPCNT_CLONES void scalar_within(const Codes& codes, std::uint64_t query, Answer& out) {
  out.clear();
  for (std::size_t i = 0; i < codes.keys.size(); ++i) {
    const int distance = std::popcount(codes.keys[i] ^ query);
    if (distance <= kRadius) {
      out.emplace_back(distance, codes.ids[i]);
    }
  }
}

#if SIMHASH_X86_64_TARGETS
[[gnu::target("avx512f,avx512vpopcntdq,popcnt,bmi")]] void avx512_nearest(const Codes& codes,
                                                                          std::uint64_t query,
                                                                          Answer& out) {
  const std::uint64_t* keys = codes.keys.data();
  const std::size_t size = codes.keys.size();
  std::vector<std::pair<int, std::int64_t>> heap;
  const std::size_t first = std::min(kCount, size);
  for (std::size_t i = 0; i < first; ++i) {
    heap.emplace_back(std::popcount(keys[i] ^ query), codes.ids[i]);
  }
  std::make_heap(heap.begin(), heap.end());
  const auto offer = [&](std::size_t i) {
    const int distance = std::popcount(keys[i] ^ query);
    if (enters(codes, i, distance, heap.front())) {
      replace_front(heap, distance, codes.ids[i]);
    }
  };
  const __m512i broadcast = _mm512_set1_epi64(static_cast<long long>(query));
  std::size_t i = first;
  for (; i + 8 <= size; i += 8) {
    const __m512i bits = _mm512_xor_si512(_mm512_loadu_si512(keys + i), broadcast);
    unsigned mask =
        _mm512_cmple_epu64_mask(_mm512_popcnt_epi64(bits), _mm512_set1_epi64(heap.front().first));
    while (mask != 0) {
      offer(i + static_cast<std::size_t>(std::countr_zero(mask)));
      mask &= mask - 1;
    }
  }
  for (; i < size; ++i) {
    offer(i);
  }
  out.assign(heap.begin(), heap.end());
}

[[gnu::target("avx512f,avx512vpopcntdq,popcnt,bmi")]] void avx512_within(const Codes& codes,
                                                                         std::uint64_t query,
                                                                         Answer& out) {
  out.clear();
  const std::uint64_t* keys = codes.keys.data();
  const std::size_t size = codes.keys.size();
  const __m512i broadcast = _mm512_set1_epi64(static_cast<long long>(query));
  const __m512i radius = _mm512_set1_epi64(kRadius);
  std::size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    const __m512i bits = _mm512_xor_si512(_mm512_loadu_si512(keys + i), broadcast);
    unsigned mask = _mm512_cmple_epu64_mask(_mm512_popcnt_epi64(bits), radius);
    while (mask != 0) {
      const std::size_t at = i + static_cast<std::size_t>(std::countr_zero(mask));
      out.emplace_back(std::popcount(keys[at] ^ query), codes.ids[at]);
      mask &= mask - 1;
    }
  }
  for (; i < size; ++i) {
    const int distance = std::popcount(keys[i] ^ query);
    if (distance <= kRadius) {
      out.emplace_back(distance, codes.ids[i]);
    }
  }
}
#endif

// ---- The engine: the codes as an index stores and a connection caches them. ----

// Copy 0's buckets as the index stores them (by row id) under `layout`.
using Blobs = std::vector<std::pair<std::int64_t, std::string>>;

Blobs encode_copy0(const PermutationPlan& plan, const BucketLayout& layout,
                   const std::vector<std::uint64_t>& codes) {
  std::map<std::uint64_t, std::vector<BucketEntry>> buckets;
  for (std::size_t id = 0; id < codes.size(); ++id) {  // id order, as a bucket wants
    const std::uint64_t key = plan.permute(0, codes[id]);
    buckets[layout.bucket_of(0, key)].push_back(
        BucketEntry{static_cast<std::int64_t>(id), layout.rest_of(0, key)});
  }
  Blobs blobs;
  for (const auto& [bucket, entries] : buckets) {
    blobs.emplace_back(layout.row_id(0, bucket), std::string());
    encode_bucket(entries, layout.rest_bytes(0), blobs.back().second);
  }
  return blobs;
}

// The codes a connection caches: the buckets decoded in row id order.
PackedCodes load_engine_codes(const BucketLayout& layout, const Blobs& blobs, std::size_t rows) {
  PackedCodes packed;
  packed.reset(0);
  packed.reserve(rows);
  for (const auto& [row_id, blob] : blobs) {
    if (!packed.add_bucket(layout, row_id, reinterpret_cast<const unsigned char*>(blob.data()),
                           blob.size())) {
      std::fprintf(stderr, "bucket %lld did not decode\n", static_cast<long long>(row_id));
      std::exit(1);
    }
  }
  return packed;
}

Answer answer_of(const std::vector<IndexHit>& hits) {
  Answer out;
  for (const IndexHit& hit : hits) {
    out.emplace_back(hit.distance, hit.id);
  }
  return out;
}

// ---- Timing. ----

struct Method {
  std::string name;
  std::function<void(std::uint64_t, Answer&)> run;
  std::vector<double> cpu = {};
  std::vector<double> wall = {};
};

double percentile(std::vector<double> values, double share) {
  std::sort(values.begin(), values.end());
  const auto at = static_cast<std::size_t>(share * static_cast<double>(values.size() - 1) + 0.5);
  return values[at];
}

// Writes one word of every cache line of `buffer`: the other work of an
// application, which leaves the codes out of the caches.
void other_traffic(std::vector<std::uint64_t>& buffer) {
  for (std::size_t i = 0; i < buffer.size(); i += 8) {
    buffer[i] += i;
  }
}

// Runs every method on every query (the order rotating), checks each answer
// against the first method's, and prints the table.
void measure(const std::string& title, std::vector<Method>& methods,
             const std::vector<std::uint64_t>& queries, std::vector<std::uint64_t>* traffic) {
  int wrong = 0;
  Answer expected;
  Answer found;
  for (std::size_t q = 0; q < queries.size(); ++q) {
    methods[0].run(queries[q], expected);  // the reference, untimed
    std::sort(expected.begin(), expected.end());
    for (std::size_t step = 0; step < methods.size(); ++step) {
      Method& method = methods[(q + step) % methods.size()];
      if (traffic != nullptr) {
        other_traffic(*traffic);
      }
      const Clock::time_point wall = Clock::now();
      const double cpu = thread_seconds();
      method.run(queries[q], found);
      method.cpu.push_back(thread_seconds() - cpu);
      method.wall.push_back(seconds_since(wall));
      std::sort(found.begin(), found.end());
      wrong += found != expected ? 1 : 0;
    }
  }
  std::printf("\n%s (%zu queries, %d wrong answers)\n", title.c_str(), queries.size(), wrong);
  std::printf("%-16s %12s %12s %12s %10s %10s\n", "method", "cpu median", "cpu p99", "wall median",
              "/ scalar", "/ avx512");
  const auto median_of = [&](const std::string& name) {
    for (const Method& method : methods) {
      if (method.name == name) {
        return median(method.cpu);
      }
    }
    return 0.0;
  };
  const double scalar = median_of("scalar");
  const double avx512 = median_of("avx512");
  for (const Method& method : methods) {
    const double cpu = median(method.cpu);
    std::printf("%-16s %9.1f us %9.1f us %9.1f us %10.2f", method.name.c_str(), cpu * 1e6,
                percentile(method.cpu, 0.99) * 1e6, median(method.wall) * 1e6, cpu / scalar);
    if (avx512 > 0) {
      std::printf(" %10.2f", cpu / avx512);
    }
    std::printf("\n");
  }
  if (wrong != 0) {
    std::exit(1);
  }
}

int run(int argc, char** argv) {
  const auto rows = static_cast<std::size_t>(std::stoull(arg(argc, argv, "rows", "1000000")));
  const auto query_count = static_cast<std::size_t>(std::stoull(arg(argc, argv, "queries", "200")));
  const auto traffic_mb = static_cast<std::size_t>(std::stoull(arg(argc, argv, "traffic", "64")));
  const bool all_kernels = arg(argc, argv, "kernels", "best") == "all";
  std::mt19937_64 random(std::stoull(arg(argc, argv, "seed", "1")));

  std::vector<std::uint64_t> codes(rows);
  for (std::uint64_t& code : codes) {
    code = random();
  }
  std::vector<std::uint64_t> queries(query_count);
  for (std::uint64_t& query : queries) {
    query = random();
  }
  std::string error;
  const std::optional<PermutationPlan> plan =
      PermutationPlan::create(3, PermutationPlan::default_blocks(3), error);
  if (!plan) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  const BucketLayout base(*plan, BucketLayout::kDefaultBucketBits);
  const BucketLayout layout(*plan, base.bits_for_rows(static_cast<std::int64_t>(rows)));
  const Blobs blobs = encode_copy0(*plan, layout, codes);
  PackedCodes packed = load_engine_codes(layout, blobs, rows);
  const PendingChanges no_changes(*plan);
  const Codes arrays{packed.keys(), packed.ids()};
  std::vector<std::uint64_t> traffic(traffic_mb * (1 << 20) / sizeof(std::uint64_t), 1);

  std::vector<ScanKernel> kernels{best_scan_kernel()};
  if (all_kernels) {
    for (const ScanKernel kernel : scan_kernels_that_run()) {
      if (kernel != best_scan_kernel()) {
        kernels.push_back(kernel);
      }
    }
  }
#if SIMHASH_X86_64_TARGETS
  const bool avx512 = scan_kernel_runs(ScanKernel::kAvx512);
#else
  const bool avx512 = false;
#endif
  std::printf("%zu uniform codes, k=3; engine kernel %s; other traffic %zu MB\n", rows,
              scan_kernel_name(best_scan_kernel()), traffic_mb);

  for (const bool nearest : {true, false}) {
    const auto hand_scalar = nearest ? scalar_nearest : scalar_within;
    std::vector<Method> methods;
    methods.push_back({"scalar", [&, hand_scalar](std::uint64_t q, Answer& out) {
                         hand_scalar(arrays, plan->permute(0, q), out);
                       }});
#if SIMHASH_X86_64_TARGETS
    if (avx512) {
      const auto hand_avx512 = nearest ? avx512_nearest : avx512_within;
      methods.push_back({"avx512", [&, hand_avx512](std::uint64_t q, Answer& out) {
                           hand_avx512(arrays, plan->permute(0, q), out);
                         }});
    }
#endif
    for (const ScanKernel kernel : kernels) {
      methods.push_back({std::string("engine ") + scan_kernel_name(kernel),
                         [&, kernel, nearest](std::uint64_t q, Answer& out) {
                           std::vector<IndexHit> hits;
                           packed.use_kernel(kernel);
                           if (nearest) {
                             packed.nearest(*plan, q, kCount, 64, hits);
                           } else {
                             packed.within(*plan, q, kRadius, hits);
                           }
                           out = answer_of(hits);
                         }});
    }
    // The pass over the packed buckets that serves a connection before it
    // caches the codes (NearestScan, in memory here: SQLite's reads apart).
    for (const ScanKernel kernel : nearest ? kernels : std::vector<ScanKernel>{}) {
      methods.push_back({std::string("buckets ") + scan_kernel_name(kernel),
                         [&, kernel](std::uint64_t q, Answer& out) {
                           NearestScan scan(*plan, layout, 0, q, kCount, 64, no_changes);
                           scan.use_kernel(kernel);
                           for (const auto& [row_id, blob] : blobs) {
                             scan.add_bucket(row_id,
                                             reinterpret_cast<const unsigned char*>(blob.data()),
                                             blob.size());
                           }
                           std::vector<IndexHit> hits;
                           scan.finish(hits);
                           out = answer_of(hits);
                         }});
    }
    const std::string what = nearest ? "10 nearest" : "radius 10";
    for (const bool interleaved : {false, true}) {
      for (Method& method : methods) {
        method.cpu.clear();
        method.wall.clear();
      }
      measure(what + (interleaved ? ", other traffic between queries" : ", back to back"), methods,
              queries, interleaved ? &traffic : nullptr);
    }
  }
  return 0;
}

}  // namespace
}  // namespace simhash::bench

int main(int argc, char** argv) { return simhash::bench::run(argc, argv); }

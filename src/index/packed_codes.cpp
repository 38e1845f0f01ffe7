// SPDX-License-Identifier: MIT
// PackedCodes (packed_codes.h): decoding one copy's buckets into arrays, and
// the popcount loop with a bounded heap over them (portable, and AVX2 where
// the CPU has it).
#include "index/packed_codes.h"

#include <algorithm>
#include <bit>
#include <utility>

#include "util/cpu_dispatch.h"

#if SIMHASH_X86_64_TARGETS
#include <immintrin.h>
#endif

namespace simhash {

void PackedCodes::reset(int table) {
  table_ = table;
  ids_.clear();
  keys_.clear();
}

void PackedCodes::clear() {
  ids_ = {};
  keys_ = {};
  charge_.release();
}

void PackedCodes::reserve(std::size_t rows) {
  if (rows <= ids_.capacity()) {
    return;
  }
  // Both arrays grow together: charged as one (16 bytes a row), the old
  // buffers included while they are copied.
  constexpr std::size_t kRowBytes = sizeof(std::int64_t) + sizeof(std::uint64_t);
  charge_.grow_to((rows + ids_.capacity()) * kRowBytes);
  ids_.reserve(rows);
  keys_.reserve(rows);
  charge_.set(rows * kRowBytes);
}

bool PackedCodes::add_bucket(const BucketLayout& layout, std::int64_t row_id,
                             const unsigned char* data, std::size_t size) {
  BucketView view;
  if (!view.parse(data, size, layout.rest_bytes(table_))) {
    return false;
  }
  const std::size_t total = ids_.size() + view.count();
  if (total > ids_.capacity()) {
    reserve(std::max(total, 2 * ids_.capacity()));
  }
  const auto bucket = static_cast<std::uint64_t>(row_id - layout.first_row_id(table_));
  // Written in place, not pushed back one by one (the load is priced per
  // row: MultiProbePlan::kCodeLoadCost); a malformed bucket leaves nothing.
  const std::size_t first = ids_.size();
  ids_.resize(total);
  keys_.resize(total);
  std::int64_t* ids = ids_.data() + first;
  std::uint64_t* keys = keys_.data() + first;
  const std::uint64_t key_part = layout.key_part(table_, bucket);
  BucketIdReader reader(view);
  bool sound = true;
  for (std::size_t index = 0; index < view.count() && sound; ++index) {
    sound = reader.next(ids[index]);
    keys[index] = BucketLayout::with_rest(key_part, view.rest(index));
  }
  if (!sound || !reader.at_clean_end()) {
    ids_.resize(first);
    keys_.resize(first);
    return false;
  }
  return true;
}

namespace {

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
inline void offer(Heap& heap, const std::int64_t* ids, std::size_t count, int distance,
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

// Offers every row of [first, size) within `limit`, one popcount a row:
// the whole loop where no vector variant runs, the tail of one that does.
// Only a row at most as far as the front is compared further, so the loop
// is a popcount and a compare for nearly every row.
SIMHASH_POPCNT_CLONES void offer_rows(const std::uint64_t* keys, const std::int64_t* ids,
                                      std::size_t first, std::size_t size, std::uint64_t query,
                                      std::size_t count, int& limit, Heap& heap) {
  for (std::size_t i = first; i < size; ++i) {
    const int distance = std::popcount(keys[i] ^ query);
    if (distance <= limit) {
      offer(heap, ids, count, distance, i, limit);
    }
  }
}

#if SIMHASH_X86_64_TARGETS
// A bit for each of the four keys at `at` whose distance to the query (in
// every lane of `query`) is below `above`.
[[gnu::target("avx2"), gnu::always_inline]] inline unsigned lanes_within(const std::uint64_t* at,
                                                                         __m256i query,
                                                                         __m256i above) {
  const __m256i table = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2,
                                         1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
  const __m256i low = _mm256_set1_epi8(0x0f);
  const __m256i bits =
      _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(at)), query);
  const __m256i counts = _mm256_add_epi8(
      _mm256_shuffle_epi8(table, _mm256_and_si256(bits, low)),
      _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(bits, 4), low)));
  const __m256i distances = _mm256_sad_epu8(counts, _mm256_setzero_si256());  // a sum a lane
  return static_cast<unsigned>(
      _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(above, distances))));
}

// The same with AVX2, eight rows a step: the popcount of each 64-bit lane
// by a nibble table (AVX2 has no vector popcount), one compare with the
// limit for the eight, and the scalar offer only for the rows within it
// (after the first few thousand rows, almost none). About 2.5x the scalar
// loop's speed: the scalar loop is bound by its instructions a row, not
// by memory (bench/BENCH.md, "The n nearest").
[[gnu::target("avx2,popcnt")]] void offer_rows_avx2(const std::uint64_t* keys,
                                                    const std::int64_t* ids, std::size_t size,
                                                    std::uint64_t query, std::size_t count,
                                                    int& limit, Heap& heap) {
  const __m256i broadcast = _mm256_set1_epi64x(static_cast<long long>(query));
  std::size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    const __m256i above = _mm256_set1_epi64x(limit + 1);
    unsigned within = lanes_within(keys + i, broadcast, above) |
                      lanes_within(keys + i + 4, broadcast, above) << 4;
    while (within != 0) {
      const std::size_t position = i + static_cast<std::size_t>(std::countr_zero(within));
      within &= within - 1;
      // The limit may have come nearer since the eight were compared.
      const int distance = std::popcount(keys[position] ^ query);
      if (distance <= limit) {
        offer(heap, ids, count, distance, position, limit);
      }
    }
  }
  offer_rows(keys, ids, i, size, query, count, limit, heap);
}
#endif

// The rows within `bound` nearest to `query`, at most `count`, into `heap`.
void nearest_positions(const std::uint64_t* keys, const std::int64_t* ids, std::size_t size,
                       std::uint64_t query, std::size_t count, int bound, bool vector_loop,
                       Heap& heap) {
  heap.clear();
  int limit = bound;  // rows farther than this cannot enter
#if SIMHASH_X86_64_TARGETS
  if (vector_loop) {
    offer_rows_avx2(keys, ids, size, query, count, limit, heap);
    return;
  }
#else
  (void)vector_loop;
#endif
  offer_rows(keys, ids, 0, size, query, count, limit, heap);
}

}  // namespace

bool PackedCodes::vector_loop_runs() {
#if SIMHASH_X86_64_TARGETS
  static const bool runs = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
  return runs;
#else
  return false;
#endif
}

void PackedCodes::nearest(const PermutationPlan& plan, std::uint64_t query, std::size_t count,
                          int bound, std::vector<IndexHit>& out) const {
  count = std::min(count, ids_.size());
  if (count == 0) {
    return;
  }
  Heap heap;
  heap.reserve(count);
  nearest_positions(keys_.data(), ids_.data(), ids_.size(), plan.permute(table_, query), count,
                    std::clamp(bound, 0, 64), vector_loop_ && vector_loop_runs(), heap);
  const std::size_t first = out.size();
  for (const auto& [distance, position] : heap) {
    out.push_back(IndexHit{ids_[position],
                           static_cast<std::int64_t>(plan.unpermute(table_, keys_[position])),
                           distance});
  }
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(), nearer);
}

}  // namespace simhash

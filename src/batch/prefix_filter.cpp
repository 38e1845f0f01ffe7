// SPDX-License-Identifier: MIT
// The slot table, the prefixes and the posting index of prefix_filter.h.
#include "batch/prefix_filter.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "util/parallel_for.h"

namespace simhash {
namespace {

// 2^10 to 2^24 slots (a 64 MiB count table at most), about one per four
// feature occurrences: on real text most occurrences repeat a feature, so
// most distinct features get a slot of their own.
constexpr int kMinSlotBits = 10;
constexpr int kMaxSlotBits = 24;
constexpr std::size_t kOccurrencesPerSlot = 4;

}  // namespace

bool may_reach(FeatureView a, FeatureView b, double threshold) {
  const double smaller = std::min(a.sum_of_weights, b.sum_of_weights);
  const double larger = std::max(a.sum_of_weights, b.sum_of_weights);
  return smaller / larger >= threshold * (1 - 1e-9);
}

bool positions_allow(std::size_t size_a, std::size_t position_a, std::size_t size_b,
                     std::size_t position_b, double threshold) {
  const std::size_t most =
      std::min(size_a - std::min(position_a, size_a), size_b - std::min(position_b, size_b));
  return most >= needed_overlap(size_a, size_b, threshold);
}

// Nodes ranked or prefixed between two checks: some 60 features each.
constexpr std::uint32_t kNodesBetweenChecks = 1U << 13;
// Features (or postings) counted, or ranked for a prefix, between two
// checks of the caller's thread: each count a miss in a table of millions
// of slots, and long texts make a range of nodes many features.
constexpr std::size_t kCountedBetweenChecks = std::size_t{1} << 17;

namespace {

// Calls a worker's `check` (parallel_for.h) each time `done` passes
// `period` more steps.
void check_within_range(std::size_t& done, std::size_t steps, std::size_t period,
                        const CheckPoint& check) {
  done += steps;
  if (done >= period) {
    done = 0;
    check();
  }
}

}  // namespace

SlotRanking::SlotRanking(std::initializer_list<const FeatureRows*> rows, const CheckPoint& check,
                         unsigned threads) {
  std::size_t occurrences = 0;
  for (const FeatureRows* each : rows) {
    occurrences += each->hash_count();
  }
  slot_bits_ = kMinSlotBits;
  while (slot_bits_ < kMaxSlotBits &&
         (std::size_t{1} << slot_bits_) < occurrences / kOccurrencesPerSlot) {
    ++slot_bits_;
  }
  charge_.grow_to((std::size_t{1} << slot_bits_) * sizeof(std::uint32_t));
  parallel_fill(occurrences_, std::size_t{1} << slot_bits_, 0U, check, threads);
  // On one thread a plain count that stops at the largest count; on more,
  // atomic adds (a sum, whatever the threads' order) that would wrap past
  // 2^32 occurrences of one slot. Either way every row sees one order.
  for (const FeatureRows* each : rows) {
    parallel_for(
        each->size(), kNodesBetweenChecks / 4, threads, check,
        [&](unsigned, std::size_t begin, std::size_t end, const CheckPoint& worker_check) {
          worker_check();
          std::size_t counted = 0;
          for (std::size_t node = begin; node < end; ++node) {
            const FeatureView features = each->features_of(static_cast<std::uint32_t>(node));
            check_within_range(counted, features.hashes.size(), kCountedBetweenChecks,
                               worker_check);
            for (const std::uint64_t hash : features.hashes) {
              std::uint32_t& count = occurrences_[slot_of(hash)];
              if (threads > 1) {
                std::atomic_ref<std::uint32_t>(count).fetch_add(1, std::memory_order_relaxed);
              } else {
                count += count < std::numeric_limits<std::uint32_t>::max() ? 1 : 0;
              }
            }
          }
        });
  }
}

// A match needs an overlap of at least threshold * size, so it shares one
// of any size - ceil(threshold * size) + 1 features. The overlap is taken a
// little lower than that (a longer prefix, only more candidates) so that no
// rounding in the bound or in the final similarity can lose a pair.
std::size_t SlotRanking::prefix_length(std::size_t size, double threshold) {
  const double overlap = std::ceil(threshold * (1 - 1e-9) * static_cast<double>(size) - 1e-6);
  const std::size_t needed =
      std::clamp<std::size_t>(overlap < 1 ? 1 : static_cast<std::size_t>(overlap), 1, size);
  return size - needed + 1;
}

Prefixes::Prefixes(const FeatureRows& rows, const SlotRanking& ranking, double threshold,
                   const CheckPoint& check, unsigned threads) {
  struct Ranked {
    std::uint32_t occurrences;
    std::uint64_t hash;
    bool operator<(const Ranked& other) const {
      return occurrences != other.occurrences ? occurrences < other.occurrences : hash < other.hash;
    }
  };
  // Where each prefix goes, then every prefix written in its place: each
  // node's own, so the threads share nothing and the result is theirs to
  // any count.
  charge_.grow_to((rows.size() + 1) * sizeof(std::size_t));
  fill_with_checks(start_, rows.size() + 1, std::size_t{0}, check);
  for (std::uint32_t node = 0; node < rows.size(); ++node) {
    start_[node + 1] =
        start_[node] + SlotRanking::prefix_length(rows.features_of(node).hashes.size(), threshold);
    check_after_every(node, kFillBetweenChecks, check);
  }
  charge_.grow_to(start_.back() * sizeof(std::uint32_t) + (rows.size() + 1) * sizeof(std::size_t));
  // Left unwritten: the loop below writes every slot of every prefix.
  slots_.resize(start_.back());
  std::vector<std::vector<Ranked>> orders(std::max(threads, 1U));
  parallel_for(
      rows.size(), kNodesBetweenChecks / 4, threads, check,
      [&](unsigned worker, std::size_t begin, std::size_t end, const CheckPoint& worker_check) {
        worker_check();
        std::vector<Ranked>& order = orders[worker];
        std::size_t ranked = 0;
        for (std::size_t node = begin; node < end; ++node) {
          check_within_range(ranked, order.size(), kCountedBetweenChecks, worker_check);
          order.clear();
          for (const std::uint64_t hash :
               rows.features_of(static_cast<std::uint32_t>(node)).hashes) {
            order.push_back(Ranked{ranking.occurrences_[ranking.slot_of(hash)], hash});
          }
          const std::size_t length = start_[node + 1] - start_[node];
          // The prefix's features, then their order (for positions_allow).
          const auto prefix_end = order.begin() + static_cast<std::ptrdiff_t>(length);
          std::nth_element(order.begin(), prefix_end - 1, order.end());
          std::sort(order.begin(), prefix_end);
          for (std::size_t i = 0; i < length; ++i) {
            slots_[start_[node] + i] = ranking.slot_of(order[i].hash);
          }
        }
      });
}

PostingIndex::PostingIndex(std::size_t slot_count,
                           std::span<const std::uint32_t> every_slot_to_come,
                           const CheckPoint& check, unsigned threads)
    : charge_(every_slot_to_come.size() * sizeof(Posting) + (slot_count + 1) * sizeof(Bounds)),
      postings_(std::make_unique_for_overwrite<Posting[]>(every_slot_to_come.size())) {
  if (every_slot_to_come.size() >= std::numeric_limits<std::uint32_t>::max()) {
    throw std::length_error("simhash: too many features to join");
  }
  threads = std::max(threads, 1U);
  parallel_fill(bounds_, slot_count + 1, Bounds{0, 0}, check, threads);
  // The counts per slot (in the next slot's begin): a sum, the same
  // whatever the threads' order (and below 2^32, checked above).
  parallel_for(every_slot_to_come.size(), kCountedBetweenChecks, threads, check,
               [&](unsigned, std::size_t begin, std::size_t end, const CheckPoint& worker_check) {
                 worker_check();
                 for (std::size_t i = begin; i < end; ++i) {
                   std::uint32_t& count = bounds_[every_slot_to_come[i] + 1].begin;
                   if (threads > 1) {
                     std::atomic_ref<std::uint32_t>(count).fetch_add(1, std::memory_order_relaxed);
                   } else {
                     ++count;
                   }
                 }
               });
  for (std::size_t slot = 1; slot < bounds_.size(); ++slot) {
    bounds_[slot].begin += bounds_[slot - 1].begin;
    check_after_every(slot, kFillBetweenChecks, check);
  }
  // Every slot empty: its end at its begin, set on the threads.
  parallel_for(slot_count, kFillBetweenChecks, threads, check,
               [&](unsigned, std::size_t begin, std::size_t end, const CheckPoint& worker_check) {
                 worker_check();
                 for (std::size_t slot = begin; slot < end; ++slot) {
                   bounds_[slot].end = bounds_[slot].begin;
                 }
               });
}

std::uint32_t PostingIndex::add(std::span<const std::uint32_t> slots, std::size_t size) {
  const std::uint32_t entry = number(1);
  each_posting(entry, slots, size,
               [this](std::uint32_t slot, Posting posting) { enter(slot, posting); });
  return entry;
}

}  // namespace simhash

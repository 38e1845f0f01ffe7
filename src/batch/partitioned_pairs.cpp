// SPDX-License-Identifier: MIT
// The steps of partitioned_pairs.h: the rows in size order, the parts
// joined and their pairs written to sorted runs, the runs read back merged.
#include "batch/partitioned_pairs.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "batch/size_parts.h"

namespace simhash {
namespace {

// The pairs' buffer at least (128 KiB): a fan-in of 16 runs.
constexpr std::size_t kLeastBufferPairs = std::size_t{1} << 12;
// A thread's batch of pairs at least.
constexpr std::size_t kLeastBatchPairs = std::size_t{1} << 8;
// Rows read back or ordered between two checks.
constexpr std::size_t kRowsBetweenChecks = std::size_t{1} << 14;
// Chunks whose parts are counted between two checks (each up to as many
// parts as there are chunks).
constexpr std::size_t kChunksBetweenChecks = 64;
// What the plan holds a chunk: the chunk, its cost and its new rows.
constexpr std::size_t kBytesPerChunk = sizeof(SizeChunk) + 2 * sizeof(std::uint64_t);
// The digits of the size order's radix sort.
constexpr unsigned kDigitBits = 16;

// The positions of the rows ordered by (size, position): a stable LSD
// radix sort over the sizes' digits (one pass below 65,536 features),
// calling `check` between pieces.
std::vector<std::uint32_t> order_by_size(const ChunkedArray<std::uint32_t>& sizes,
                                         const CheckPoint& check, MemoryCharge& charge) {
  const std::size_t rows = sizes.size();
  constexpr std::size_t kDigits = std::size_t{1} << kDigitBits;
  charge.grow_to(2 * rows * sizeof(std::uint32_t) + (kDigits + 1) * sizeof(std::size_t));
  std::vector<std::uint32_t> order(rows);
  std::uint32_t largest = 0;
  for (std::size_t position = 0; position < rows; ++position) {
    order[position] = static_cast<std::uint32_t>(position);
    largest = std::max(largest, sizes[position]);
    check_after_every(position, kRowsBetweenChecks, check);
  }
  std::vector<std::uint32_t> sorted(rows);
  std::vector<std::size_t> starts(kDigits + 1);
  for (unsigned shift = 0; shift < 32 && (largest >> shift) != 0; shift += kDigitBits) {
    std::fill(starts.begin(), starts.end(), 0);
    const auto digit = [&](std::uint32_t position) {
      return (sizes[position] >> shift) & (kDigits - 1);
    };
    for (std::size_t i = 0; i < rows; ++i) {
      ++starts[digit(order[i]) + 1];
      check_after_every(i, kRowsBetweenChecks, check);
    }
    for (std::size_t d = 0; d < kDigits; ++d) {
      starts[d + 1] += starts[d];
    }
    for (std::size_t i = 0; i < rows; ++i) {
      sorted[starts[digit(order[i])]++] = order[i];
      check_after_every(i, kRowsBetweenChecks, check);
    }
    order.swap(sorted);
  }
  return order;
}

}  // namespace

void PartitionedPairs::add_row(std::int64_t id, std::uint64_t fingerprint, FeatureView features,
                               bool fresh) {
  if (pairs_) {
    throw std::logic_error("simhash: a row added after the rows were finished");
  }
  rows_.add(id, fingerprint, features);
  fresh_.push_back(fresh ? 1 : 0);
}

void PartitionedPairs::add(std::int64_t id, std::uint64_t fingerprint, FeatureView features) {
  add_row(id, fingerprint, features, false);
}

void PartitionedPairs::add_new(std::int64_t id, std::uint64_t fingerprint, FeatureView features) {
  add_row(id, fingerprint, features, true);
}

struct PartitionedPairs::Plan {
  MemoryCharge charge;               // what the plan holds (memory_budget.h)
  std::vector<std::uint32_t> order;  // positions in size order
  std::vector<std::uint32_t> sizes;  // in size order
  SizeChunks chunks;
  std::vector<std::size_t> fresh_in;  // new rows of each chunk
  std::uint64_t share = 0;            // what a part holds
  double threshold = 1;
  std::size_t part_count = 0;

  std::vector<SizePart> parts_of(std::size_t chunk) const {
    return size_parts_of_chunk(sizes, chunks, chunk, share, threshold);
  }
  const SizeChunk& chunk(std::size_t index) const { return chunks.chunks[index]; }
  // Rows of `side`'s chunks it takes.
  std::size_t taken(Side side) const {
    std::size_t count = 0;
    for (std::size_t index = side.first; index < side.end; ++index) {
      const std::size_t rows = chunk(index).end - chunk(index).begin;
      count += side.take == Take::kAll   ? rows
               : side.take == Take::kNew ? fresh_in[index]
                                         : rows - fresh_in[index];
    }
    return count;
  }
};

// The parts are listed a chunk at a time as they run (size_parts.h), never
// all at once: small parts over many rows make chunks times windows of them.
PartitionedPairs::Plan PartitionedPairs::plan_parts(double threshold, std::uint64_t share,
                                                    const CheckPoint& check) {
  const std::size_t rows = rows_.size();
  Plan plan;
  plan.share = share;
  plan.threshold = threshold;
  plan.order = order_by_size(rows_.sizes(), check, plan.charge);
  {
    const MemoryCharge costs_charge(rows * sizeof(std::uint64_t));
    plan.sizes.resize(rows);
    std::vector<std::uint64_t> costs(rows);
    for (std::size_t i = 0; i < rows; ++i) {
      plan.sizes[i] = rows_.size_of(plan.order[i]);
      costs[i] = SimilarPairs::kBytesPerNode +
                 std::uint64_t{plan.sizes[i]} * SimilarPairs::kBytesPerFeature;
      check_after_every(i, kRowsBetweenChecks, check);
    }
    plan.chunks = plan_size_chunks(plan.sizes, costs, share);
  }
  const std::size_t chunks = plan.chunks.chunks.size();
  plan.charge.set(2 * rows * sizeof(std::uint32_t) + chunks * kBytesPerChunk);
  plan.fresh_in.assign(chunks, 0);
  for (std::size_t index = 0; index < chunks; ++index) {
    for (std::size_t i = plan.chunk(index).begin; i < plan.chunk(index).end; ++i) {
      plan.fresh_in[index] += fresh_[plan.order[i]];
    }
    plan.part_count += plan.parts_of(index).size();
    check_after_every(index, kChunksBetweenChecks, check);
  }
  return plan;
}

void PartitionedPairs::add_side(SimilarPairs& join, const Plan& plan, Side side, bool as_new,
                                const CheckPoint& check) {
  for (std::size_t chunk = side.first; chunk < side.end; ++chunk) {
    for (std::size_t i = plan.chunk(chunk).begin; i < plan.chunk(chunk).end; ++i) {
      check_after_every(i, kRowsBetweenChecks, check);
      const std::uint32_t position = plan.order[i];
      if ((side.take == Take::kNew && fresh_[position] == 0) ||
          (side.take == Take::kKept && fresh_[position] != 0)) {
        continue;
      }
      rows_.read(position, features_read_);
      if (as_new) {
        join.add_new(rows_.id(position), rows_.fingerprint(position), features_read_);
      } else {
        join.add(rows_.id(position), rows_.fingerprint(position), features_read_);
      }
    }
  }
}

void PartitionedPairs::join(const Plan& plan, Side probes, Side kept, bool one_set,
                            const JoinSettings& settings, const std::string& prefix,
                            const CheckPoint& check, PairPartitionCounts& counted) {
  if (plan.taken(probes) == 0 || plan.taken(kept) == 0) {
    return;
  }
  SimilarPairs pairs;
  if (progress_) {
    pairs.set_progress([&](const ProgressStep& step) {
      report_progress(progress_, prefix + std::string(step.phase), step.done, step.total,
                      step.unit);
    });
  }
  report_progress(progress_, prefix + "reading", 0, 0);
  add_side(pairs, plan, probes, !one_set, check);
  if (!one_set) {
    add_side(pairs, plan, kept, false, check);
  }
  ++counted.joins;
  // The pairs go to the runs as the join finds them; one set's pairs of a
  // chunk against a window come probe row first: the smaller id first.
  const bool between = settings.between;
  pairs.for_each_pair(
      !one_set, settings.threshold, settings.batch_pairs,
      [&](std::vector<SimilarPair>& found, MemoryCharge& /*charge*/) {
        for (const SimilarPair& pair : found) {
          pairs_->add(!between && pair.b < pair.a
                          ? SimilarPair{pair.b, pair.a, pair.distance, pair.similarity}
                          : pair);
        }
      },
      check, nullptr, settings.threads);
}

std::uint64_t PartitionedPairs::run(bool between, double threshold, std::uint64_t budget,
                                    const CheckPoint& check, unsigned threads,
                                    PairPartitionCounts* counts,
                                    std::optional<std::uint64_t> part_budget) {
  if (pairs_) {
    throw std::logic_error("simhash: the pairs were found already");
  }
  threads = std::max(threads, 1U);
  // What is left of the budget beside the rows: a half for a part, an
  // eighth for the runs' buffer (and as much for the merges between parts,
  // when no part is held), an eighth for the threads' batches of pairs.
  const std::uint64_t fixed = rows_.size() * kBytesPerRow;
  const std::uint64_t left = budget > fixed ? budget - fixed : 0;
  const std::uint64_t share =
      part_budget.value_or(std::max<std::uint64_t>(left / 2, kLeastWorkingBytes));
  const std::size_t buffer_pairs = std::max<std::size_t>(
      static_cast<std::size_t>(left / 8 / sizeof(SimilarPair)), kLeastBufferPairs);
  const JoinSettings settings{
      between, threshold,
      std::max<std::size_t>(static_cast<std::size_t>(left / 8 / threads / sizeof(SimilarPair)),
                            kLeastBatchPairs),
      threads};
  pairs_.emplace(buffer_pairs, buffer_pairs / PairRuns::kLeastReadRecords,
                 "the verified pairs' spill file");

  const Plan plan = plan_parts(threshold, share, check);
  // The features in size order, so that each part reads a run of the file
  // front to back (once, where each part would seek).
  rows_.lay_out_in_order(plan.order, check);
  PairPartitionCounts counted;
  counted.chunks = plan.chunks.chunks.size();
  counted.parts = plan.part_count;
  const std::string of_parts = " of " + std::to_string(plan.part_count) + ": ";
  std::size_t index = 0;
  for (std::size_t chunk = 0; chunk < plan.chunks.chunks.size(); ++chunk) {
    for (const SizePart& part : plan.parts_of(chunk)) {
      if (check) {
        check();
      }
      const std::string prefix = "part " + std::to_string(++index) + of_parts;
      const std::size_t chunk_end = part.probes + 1;
      if (!between) {
        join(plan, Side{part.probes, chunk_end, Take::kAll},
             Side{part.kept_begin, part.kept_end, Take::kAll}, part.self(), settings, prefix, check,
             counted);
      } else {
        // New rows of the chunk against kept ones of the window (or of
        // itself), then new rows of the window against kept ones of the
        // chunk.
        join(plan, Side{part.probes, chunk_end, Take::kNew},
             Side{part.kept_begin, part.kept_end, Take::kKept}, false, settings, prefix, check,
             counted);
        if (!part.self()) {
          join(plan, Side{part.kept_begin, part.kept_end, Take::kNew},
               Side{part.probes, chunk_end, Take::kKept}, false, settings, prefix, check, counted);
        }
      }
      report_progress(progress_, prefix + "merging", 0, 0);
      pairs_->compact(check);
    }
  }
  pairs_->start_reading(check);
  counted.pairs = pairs_->count();
  counted.runs = pairs_->read_run_count();
  if (counts != nullptr) {
    *counts = counted;
  }
  return counted.pairs;
}

}  // namespace simhash

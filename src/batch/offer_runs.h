// SPDX-License-Identifier: MIT
// The verified pairs of the partitioned dedup, on disk until the grouping:
// each pair as the offers its rows' representatives may make (leader_rule.h),
// "the row at position `from`, if it becomes a representative, offers
// itself to node `to` at this similarity". Offers are gathered in a buffer
// of bounded size, sorted by `from` and written out as a run when it fills;
// the grouping reads every run at once, merged, in the order of `from`,
// which is the visit order it places the rows in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "batch/spill_file.h"
#include "util/memory_budget.h"

namespace simhash {

struct SpilledOffer {
  std::uint32_t from;  // a position: the first row of a node
  std::uint32_t to;    // a node
  double similarity;

  bool operator==(const SpilledOffer&) const = default;
};

class OfferRuns {
 public:
  // Holds at most `buffer_offers` offers in memory while adding (at least
  // one), and while reading a share of them for each run (at least
  // kLeastReadOffers a run).
  explicit OfferRuns(std::size_t buffer_offers);

  static constexpr std::size_t kLeastReadOffers = 256;

  void add(const SpilledOffer& offer);
  // Writes what the buffer holds as a run; add() after the first read()
  // throws std::logic_error.
  std::size_t run_count() const { return runs_.size() + (buffer_.empty() ? 0 : 1); }
  std::uint64_t offer_count() const { return count_; }

  // Calls on_offer(offer) for every offer, ascending by (from, to).
  void read(const std::function<void(const SpilledOffer&)>& on_offer);

 private:
  struct Run {
    std::uint64_t offset;  // in the file
    std::uint64_t count;
  };
  void write_run();

  std::size_t buffer_offers_;
  MemoryCharge charge_;  // the buffer, then the readers' (memory_budget.h)
  std::vector<SpilledOffer> buffer_;
  std::vector<Run> runs_;
  SpillFile file_{"the verified pairs' spill file"};
  std::uint64_t count_ = 0;
  bool read_ = false;
};

}  // namespace simhash

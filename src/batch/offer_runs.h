// SPDX-License-Identifier: MIT
// The verified pairs of the partitioned dedup, on disk until the grouping:
// each pair as the offers its rows' representatives may make (leader_rule.h),
// "the row at position `from`, if it becomes a representative, offers
// itself to node `to` at this similarity". Offers are gathered in a buffer
// of bounded size, sorted by `from` and written out as a run when it fills
// (sorted_runs.h); the grouping reads every run at once, merged, in the
// order of `from`, which is the visit order it places the rows in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <tuple>

#include "batch/sorted_runs.h"

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
  std::size_t run_count() const { return runs_.run_count(); }
  std::uint64_t offer_count() const { return runs_.count(); }

  // Calls on_offer(offer) for every offer, ascending by (from, to).
  void read(const std::function<void(const SpilledOffer&)>& on_offer);

 private:
  struct Before {
    bool operator()(const SpilledOffer& a, const SpilledOffer& b) const {
      return std::tie(a.from, a.to) < std::tie(b.from, b.to);
    }
  };
  // Every run read at once (no fan-in): the grouping reads the offers
  // without a check point of its own between them.
  SortedRuns<SpilledOffer, Before> runs_;
  bool read_ = false;

  static_assert(SortedRuns<SpilledOffer, Before>::kLeastReadRecords == kLeastReadOffers);
};

}  // namespace simhash

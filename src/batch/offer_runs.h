// SPDX-License-Identifier: MIT
// The verified pairs of the partitioned dedup, on disk until the grouping:
// each pair as the offers its rows' representatives may make (leader_rule.h),
// "the row at position `from`, if it becomes a representative, offers
// itself to node `to` at this similarity". Offers are gathered in a buffer
// of bounded size, sorted by `from` and written out as a run when it fills
// (sorted_runs.h), the runs merged by levels between parts so that the
// grouping, which reads them merged in the order of `from` (the visit order
// it places the rows in), never reads more than a fan-in of them at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <tuple>

#include "batch/sorted_runs.h"
#include "util/check_point.h"

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
  // one), and while reading or merging a share of them for each run (at
  // least kLeastReadOffers a run): a fan-in of buffer_offers /
  // kLeastReadOffers runs (none below two).
  explicit OfferRuns(std::size_t buffer_offers);

  static constexpr std::size_t kLeastReadOffers = 256;

  // add() after read() throws std::logic_error.
  void add(const SpilledOffer& offer);
  // Merges each level of runs that holds a fan-in of them into the level
  // above (sorted_runs.h), calling `check` between pieces: between parts,
  // while no part is held.
  void compact(const CheckPoint& check) { runs_.compact(check); }
  std::size_t run_count() const { return runs_.run_count(); }
  std::size_t fan_in() const { return runs_.fan_in(); }
  std::uint64_t offer_count() const { return runs_.count(); }

  // Calls on_offer(offer) for every offer, ascending by (from, to), the
  // runs first merged down to the fan-in (`check` between pieces).
  void read(const std::function<void(const SpilledOffer&)>& on_offer, const CheckPoint& check = {});

 private:
  struct Before {
    bool operator()(const SpilledOffer& a, const SpilledOffer& b) const {
      return std::tie(a.from, a.to) < std::tie(b.from, b.to);
    }
  };
  SortedRuns<SpilledOffer, Before> runs_;
  bool read_ = false;

  static_assert(SortedRuns<SpilledOffer, Before>::kLeastReadRecords == kLeastReadOffers);
};

}  // namespace simhash

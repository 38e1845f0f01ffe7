// SPDX-License-Identifier: MIT
// The runs of offer_runs.h: sorted in memory, merged with a heap of the
// runs' next offers, each run read a buffer at a time.
#include "batch/offer_runs.h"

#include <algorithm>
#include <queue>
#include <stdexcept>
#include <tuple>

namespace simhash {
namespace {

bool before(const SpilledOffer& a, const SpilledOffer& b) {
  return std::tie(a.from, a.to) < std::tie(b.from, b.to);
}

}  // namespace

OfferRuns::OfferRuns(std::size_t buffer_offers)
    : buffer_offers_(std::max<std::size_t>(buffer_offers, 1)) {}

void OfferRuns::add(const SpilledOffer& offer) {
  if (read_) {
    throw std::logic_error("simhash: an offer added after the offers were read");
  }
  if (buffer_.size() >= buffer_offers_) {
    write_run();
  }
  if (buffer_.size() == buffer_.capacity()) {
    reserve_charged(
        buffer_, std::min(buffer_offers_, std::max<std::size_t>(64, 2 * buffer_.size())), charge_);
  }
  buffer_.push_back(offer);
  ++count_;
}

void OfferRuns::write_run() {
  if (buffer_.empty()) {
    return;
  }
  std::sort(buffer_.begin(), buffer_.end(), before);
  const std::uint64_t offset = file_.append(buffer_.data(), buffer_.size() * sizeof(SpilledOffer));
  runs_.push_back(Run{offset, buffer_.size()});
  buffer_.clear();
}

void OfferRuns::read(const std::function<void(const SpilledOffer&)>& on_offer) {
  if (read_) {
    throw std::logic_error("simhash: the offers were read already");
  }
  read_ = true;
  if (runs_.empty()) {
    // One run, never written: read from memory.
    std::sort(buffer_.begin(), buffer_.end(), before);
    for (const SpilledOffer& offer : buffer_) {
      on_offer(offer);
    }
    return;
  }
  write_run();
  buffer_ = {};
  const std::size_t each =
      std::max(kLeastReadOffers, buffer_offers_ / std::max<std::size_t>(runs_.size(), 1));
  struct Reader {
    Run run;
    std::uint64_t read = 0;  // offers of the run read into `offers`
    std::vector<SpilledOffer> offers;
    std::size_t at = 0;
  };
  charge_.set(runs_.size() * each * sizeof(SpilledOffer));
  std::vector<Reader> readers(runs_.size());
  const auto refill = [&](Reader& reader) {
    const auto count =
        static_cast<std::size_t>(std::min<std::uint64_t>(each, reader.run.count - reader.read));
    reader.offers.resize(count);
    file_.read(reader.run.offset + reader.read * sizeof(SpilledOffer), reader.offers.data(),
               count * sizeof(SpilledOffer));
    reader.read += count;
    reader.at = 0;
  };
  const auto later = [&](std::size_t a, std::size_t b) {
    return before(readers[b].offers[readers[b].at], readers[a].offers[readers[a].at]);
  };
  std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(later)> heads(later);
  for (std::size_t run = 0; run < runs_.size(); ++run) {
    readers[run].run = runs_[run];
    refill(readers[run]);
    if (!readers[run].offers.empty()) {
      heads.push(run);
    }
  }
  while (!heads.empty()) {
    const std::size_t run = heads.top();
    heads.pop();
    Reader& reader = readers[run];
    on_offer(reader.offers[reader.at]);
    if (++reader.at == reader.offers.size()) {
      if (reader.read == reader.run.count) {
        continue;
      }
      refill(reader);
    }
    heads.push(run);
  }
  charge_.release();
}

}  // namespace simhash

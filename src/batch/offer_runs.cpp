// SPDX-License-Identifier: MIT
// The runs of offer_runs.h: sorted_runs.h's, read once.
#include "batch/offer_runs.h"

#include <stdexcept>

namespace simhash {

OfferRuns::OfferRuns(std::size_t buffer_offers)
    : runs_(buffer_offers, buffer_offers / kLeastReadOffers, "the verified pairs' spill file") {}

void OfferRuns::add(const SpilledOffer& offer) {
  if (read_) {
    throw std::logic_error("simhash: an offer added after the offers were read");
  }
  runs_.add(offer);
}

void OfferRuns::read(const std::function<void(const SpilledOffer&)>& on_offer,
                     const CheckPoint& check) {
  if (read_) {
    throw std::logic_error("simhash: the offers were read already");
  }
  read_ = true;
  runs_.start_reading(check);
  while (const SpilledOffer* offer = runs_.next()) {
    on_offer(*offer);
  }
  runs_.end_reading();
}

}  // namespace simhash

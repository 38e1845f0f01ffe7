// SPDX-License-Identifier: MIT
// The rows of a join within a memory budget (spilled_rows.h).
#include "batch/spilled_rows.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <utility>

namespace simhash {
namespace {

// Rows written again between two checks.
constexpr std::size_t kRowsBetweenChecks = std::size_t{1} << 14;

}  // namespace

void SpilledRows::add(std::int64_t id, std::uint64_t fingerprint, FeatureView features) {
  if (features.hashes.empty()) {
    throw std::invalid_argument(messages_.no_features);
  }
  if (!features.weights.empty() && std::any_of(features.weights.begin(), features.weights.end(),
                                               [](double weight) { return weight != 1.0; })) {
    throw std::invalid_argument("simhash: the threshold join needs binary weights");
  }
  if (ids_.size() >= std::numeric_limits<std::uint32_t>::max() - 1 ||
      features.hashes.size() > std::numeric_limits<std::uint32_t>::max()) {
    throw std::length_error(messages_.too_many);
  }
  offsets_.push_back(
      features_.append(features.hashes.data(), features.hashes.size() * sizeof(std::uint64_t)));
  sizes_.push_back(static_cast<std::uint32_t>(features.hashes.size()));
  ids_.push_back(id);
  fingerprints_.push_back(fingerprint);
}

void SpilledRows::read(std::size_t position, FeatureVector& features) {
  features.hashes.resize(sizes_[position]);
  features.weights.clear();
  features_.read(offsets_[position], features.hashes.data(),
                 features.hashes.size() * sizeof(std::uint64_t));
  features.sum_of_weights = static_cast<double>(features.hashes.size());
  features.sum_of_squares = features.sum_of_weights;
}

void SpilledRows::lay_out_in_order(const std::vector<std::uint32_t>& order,
                                   const CheckPoint& check) {
  SpillFile ordered("the rows' spill file");
  FeatureVector features;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const std::uint32_t position = order[i];
    read(position, features);
    offsets_[position] =
        ordered.append(features.hashes.data(), features.hashes.size() * sizeof(std::uint64_t));
    check_after_every(i, kRowsBetweenChecks, check);
  }
  features_ = std::move(ordered);
}

void SpilledRows::forget_features() {
  offsets_ = ChunkedArray<std::uint64_t>();
  sizes_ = ChunkedArray<std::uint32_t>();
}

}  // namespace simhash

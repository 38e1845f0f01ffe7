// SPDX-License-Identifier: MIT
// Connected components of the "within radius" graph (single link): every
// record labelled with the smallest id of its component (simhash_clusters).
#pragma once

#include <cstdint>
#include <vector>

#include "batch/batch_plan.h"
#include "batch/fingerprint_groups.h"
#include "util/check_point.h"

namespace simhash {

struct IdCluster {
  std::int64_t id;
  std::int64_t cluster;  // the smallest id in id's component
};

// Every record in ascending id order; a record with no neighbour is its own
// cluster. Throws std::invalid_argument for a negative radius or repeated ids.
// `check` runs between bounded pieces of the work (check_point.h).
std::vector<IdCluster> find_clusters(std::vector<IdFingerprint> records, int radius,
                                     const CheckPoint& check = {});
// The same with a plan made by the caller from the number of distinct
// fingerprints (tests use it to exercise several plans).
std::vector<IdCluster> find_clusters(const FingerprintGroups& groups, const BatchPlan& plan,
                                     const CheckPoint& check = {});

}  // namespace simhash

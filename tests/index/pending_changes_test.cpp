// SPDX-License-Identifier: MIT
// PendingChanges against a brute-force model: a stored set of rows, a random
// sequence of inserts, deletes and updates pushed as IndexStorage pushes them,
// and queries between them; the stored answer corrected by apply_to must equal
// a scan of the current rows. Sizes cross the unsorted limit many times, so
// answers come from the unsorted tail, fresh runs and merged runs alike.
#include "index/pending_changes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "memory_bucket_store.h"
#include "plan_case.h"

namespace simhash::testing {
namespace {

void sort_by_id(std::vector<IndexHit>& hits) {
  std::sort(hits.begin(), hits.end(),
            [](const IndexHit& a, const IndexHit& b) { return a.id < b.id; });
}

// Fingerprints near a few centres, so that radii up to k find rows.
class NearbyFingerprints {
 public:
  explicit NearbyFingerprints(std::mt19937_64& random) : random_(random) {
    for (int i = 0; i < 8; ++i) {
      centres_.push_back(random_());
    }
  }
  std::uint64_t next() {
    std::uint64_t fp = centres_[random_() % centres_.size()];
    const int flips = static_cast<int>(random_() % 6);
    for (int i = 0; i < flips; ++i) {
      fp ^= std::uint64_t{1} << (random_() % 64);
    }
    return fp;
  }

 private:
  std::mt19937_64& random_;
  std::vector<std::uint64_t> centres_;
};

void run_model(int k, int blocks, std::uint64_t seed, int changes) {
  const PermutationPlan plan = make_plan(k, blocks);
  std::mt19937_64 random(seed);
  NearbyFingerprints fingerprints(random);
  std::map<std::int64_t, std::uint64_t> stored;
  for (std::int64_t id = 1; id <= 300; ++id) {
    stored[id] = fingerprints.next();
  }
  std::map<std::int64_t, std::uint64_t> current = stored;
  PendingChanges pending(plan);
  std::int64_t next_id = 100000;  // above the reused ids below
  const auto any_id = [&] {
    auto it = current.begin();
    std::advance(it, static_cast<long>(random() % current.size()));
    return it->first;
  };
  for (int step = 0; step < changes; ++step) {
    const int action = static_cast<int>(random() % 10);
    if (action < 5 || current.size() < 10) {  // insert
      // Sometimes an id that existed before (stored, or deleted since).
      const std::int64_t id =
          random() % 4 == 0 ? static_cast<std::int64_t>(random() % 1500) : next_id++;
      if (current.count(id) == 0) {
        current[id] = fingerprints.next();
        pending.push(id, current[id], true);
      }
    } else if (action < 7) {  // delete
      const std::int64_t id = any_id();
      pending.push(id, current[id], false);
      current.erase(id);
    } else {  // update: a new fingerprint, and sometimes a new rowid
      const std::int64_t id = any_id();
      const std::int64_t new_id = action == 9 ? next_id++ : id;
      pending.push(id, current[id], false);
      current.erase(id);
      current[new_id] = fingerprints.next();
      pending.push(new_id, current[new_id], true);
    }
    if (step % 37 == 0) {
      for (int radius : {0, k / 2, k}) {
        const std::uint64_t query = fingerprints.next();
        std::vector<IndexHit> hits = {IndexHit{-7, 0, 0}};  // the caller's, kept
        const std::vector<IndexHit> stored_hits = rows_within(stored, query, radius);
        hits.insert(hits.end(), stored_hits.begin(), stored_hits.end());
        pending.apply_to(query, radius, hits, 1);
        ASSERT_EQ(hits.front().id, -7);
        hits.erase(hits.begin());
        sort_by_id(hits);
        const std::vector<IndexHit> expected = rows_within(current, query, radius);
        ASSERT_EQ(hits.size(), expected.size()) << "k=" << k << " step " << step << " radius "
                                                << radius << " pending " << pending.size();
        for (std::size_t i = 0; i < hits.size(); ++i) {
          ASSERT_EQ(hits[i].id, expected[i].id) << "step " << step;
          ASSERT_EQ(hits[i].fp, expected[i].fp) << "step " << step;
          ASSERT_EQ(hits[i].distance, expected[i].distance) << "step " << step;
        }
      }
    }
  }
  EXPECT_TRUE(pending.searched());  // the answers above came from sorted runs too
  // Undoing every change from the current rows gives the stored ones back.
  std::vector<std::pair<std::int64_t, std::uint64_t>> rows(current.begin(), current.end());
  pending.undo(rows);
  const std::vector<std::pair<std::int64_t, std::uint64_t>> stored_rows(stored.begin(),
                                                                        stored.end());
  EXPECT_EQ(rows, stored_rows);
}

TEST(PendingChanges, CorrectsStoredAnswersLikeAScanK3) { run_model(3, 4, 1, 6000); }

TEST(PendingChanges, CorrectsStoredAnswersK6ManyTables) { run_model(6, 8, 2, 3000); }

TEST(PendingChanges, CorrectsStoredAnswersK0) { run_model(0, 1, 3, 2000); }

TEST(PendingChanges, RadiusAboveKLooksAtEveryChange) {
  const PermutationPlan plan = make_plan(3, 4);
  PendingChanges pending(plan);
  std::mt19937_64 random(4);
  std::map<std::int64_t, std::uint64_t> current;
  for (std::int64_t id = 0; id < 2000; ++id) {
    current[id] = random();
    pending.push(id, current[id], true);
  }
  const std::uint64_t query = random();
  std::vector<IndexHit> hits;
  pending.apply_to(query, 30, hits, 0);
  sort_by_id(hits);
  const std::vector<IndexHit> expected = rows_within(current, query, 30);
  ASSERT_FALSE(expected.empty());
  ASSERT_EQ(hits.size(), expected.size());
  for (std::size_t i = 0; i < hits.size(); ++i) {
    EXPECT_EQ(hits[i].id, expected[i].id);
  }
}

TEST(PendingChanges, ClearForgetsChangesAndRuns) {
  const PermutationPlan plan = make_plan(3, 4);
  PendingChanges pending(plan);
  for (std::int64_t id = 0; id < 5000; ++id) {
    pending.push(id, 42, true);
  }
  std::vector<IndexHit> hits;
  pending.apply_to(42, 0, hits, 0);  // sorts the changes into runs
  EXPECT_EQ(hits.size(), 5000U);
  pending.clear();
  EXPECT_TRUE(pending.empty());
  pending.push(9, 42, true);
  hits.clear();
  pending.apply_to(42, 0, hits, 0);
  ASSERT_EQ(hits.size(), 1U);
  EXPECT_EQ(hits[0].id, 9);
}

}  // namespace
}  // namespace simhash::testing

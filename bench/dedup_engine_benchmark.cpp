// SPDX-License-Identifier: MIT
// Where simhash_dedup's time goes, engine only (no SQL beyond reading the
// corpus): the features of N real texts built on 1 and on T threads, then
// the exact join and the radius candidates over the same rows, with the
// candidates, exact checks and verified pairs each one makes (DedupCounts)
// and the groups each finds. N grows (the first N rows of the query), so the
// table shows how candidates per row grow with the collection.
//
//   build/dedup_engine_benchmark db=/tmp/simhash-corpus/translations.db
//       query="SELECT id, body FROM texts ORDER BY id" sizes=50000,100000,323256
//       threshold=0.8 radius=10 threads=2      (one command line)
//
// The corpus: bench/corpus/fetch_translations.sh.
#include <sqlite3.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "batch/row_features.h"
#include "batch/verified_dedup.h"
#include "bench_support.h"
#include "fingerprint/simhash_options.h"

namespace simhash::bench {
namespace {

std::vector<std::size_t> sizes_of(const std::string& list, std::size_t all) {
  std::vector<std::size_t> sizes;
  std::stringstream items(list);
  for (std::string item; std::getline(items, item, ',');) {
    sizes.push_back(std::min<std::size_t>(std::stoull(item), all));
  }
  return sizes;
}

// Builds the rows' features on `threads` threads into `dedup`; seconds.
double build(const Corpus& corpus, std::size_t count, const SimhashOptions& verification,
             unsigned threads, VerifiedDedup& dedup) {
  const Clock::time_point start = Clock::now();
  RowFeatureBuilder builder(SimhashOptions{}, verification, threads);
  std::vector<std::string_view> batch;
  std::vector<RowFeatures> rows;
  constexpr std::size_t kBatch = 2048;
  for (std::size_t begin = 0; begin < count; begin += kBatch) {
    batch.clear();
    const std::size_t end = std::min(count, begin + kBatch);
    for (std::size_t i = begin; i < end; ++i) {
      batch.emplace_back(corpus.texts[i]);
    }
    builder.build(batch, rows);
    for (std::size_t i = begin; i < end; ++i) {
      const RowFeatures& row = rows[i - begin];
      if (row.fingerprint && !row.features.empty()) {
        dedup.add(corpus.ids[i], *row.fingerprint, row.features);
      }
    }
  }
  return seconds_since(start);
}

std::size_t removed(const std::vector<DedupRow>& rows) {
  std::size_t count = 0;
  for (const DedupRow& row : rows) {
    count += row.id != row.kept ? 1 : 0;
  }
  return count;
}

}  // namespace
}  // namespace simhash::bench

int main(int argc, char** argv) {
  using namespace simhash;
  using namespace simhash::bench;
  const SearchArgs args = search_args(argc, argv, "2", "n=3 weight=binary");
  const int radius = std::stoi(arg(argc, argv, "radius", "10"));
  const Corpus corpus = read_corpus(args.path, args.query);
  const std::vector<std::size_t> sizes =
      sizes_of(arg(argc, argv, "sizes", std::to_string(corpus.ids.size())), corpus.ids.size());
  std::printf("%zu texts read from %s; threshold %.2f, radius %d, %s\n\n", corpus.ids.size(),
              args.path.c_str(), args.threshold, radius, to_string(args.verification).c_str());
  std::printf(
      "| rows | features, 1 thread | features, %u threads | join | join candidates/row | join "
      "checks/row | join removes | radius %d | radius candidates/row | radius checks/row | "
      "radius removes |\n",
      args.threads, radius);
  std::printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  for (const std::size_t size : sizes) {
    VerifiedDedup one_thread;
    const double features_one = build(corpus, size, args.verification, 1, one_thread);
    VerifiedDedup dedup;
    const double features_many = build(corpus, size, args.verification, args.threads, dedup);

    DedupCounts join_counts;
    Clock::time_point start = Clock::now();
    const std::vector<DedupRow> joined =
        dedup.groups_by_threshold_join(args.threshold, {}, &join_counts);
    const double join_seconds = seconds_since(start);

    DedupCounts radius_counts;
    start = Clock::now();
    const std::vector<DedupRow> within =
        dedup.groups_within_radius(args.threshold, radius, {}, &radius_counts);
    const double radius_seconds = seconds_since(start);

    const auto per_row = [&](std::uint64_t count) {
      return static_cast<double>(count) / static_cast<double>(size);
    };
    std::printf(
        "| %zu | %.2f s | %.2f s | %.2f s | %.2f | %.2f | %zu | %.2f s | %.2f | %.2f | %zu |\n",
        size, features_one, features_many, join_seconds, per_row(join_counts.candidates),
        per_row(join_counts.checked), removed(joined), radius_seconds,
        per_row(radius_counts.candidates), per_row(radius_counts.checked), removed(within));
    std::fflush(stdout);
  }
  return 0;
}

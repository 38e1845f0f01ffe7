// SPDX-License-Identifier: MIT
// How long the in-memory threshold join runs between two calls of its
// check point (check_point.h): the bound a caller's interrupt waits for.
// The check given to the join records the time of each call, wall and the
// caller's thread CPU (which a loaded machine does not stretch); the gaps
// include the join's start to the first call and the last call to its end.
// Each round also gives the join's CPU time and a hash of its groups, so
// that two builds run in turn (interleaved rounds) compare cost and answers.
//
//   build/join_check_gaps db=/tmp/simhash-corpus/translations.db
//       query="SELECT id, body FROM texts ORDER BY id LIMIT 50000"
//       options="unit=char n=4 weight=binary" threshold=0.5 threads=1 rounds=1
//
// With interrupts=N (and seed=S), after the rounds: N joins, each stopped
// at a moment drawn evenly over the last round's wall time by another
// thread setting a flag that the check reads (as the SQL glue's check
// reads sqlite3_interrupt()'s); the wall time from the flag to the join's
// return, median, 90th percentile and largest. On several threads that is
// the time every thread takes to stop, not only the caller's.
//
// The corpus: bench/corpus/fetch_translations.sh.
#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "batch/row_features.h"
#include "batch/verified_dedup.h"
#include "bench_support.h"
#include "fingerprint/simhash_options.h"
#include "util/progress.h"

namespace simhash::bench {
namespace {

void build(const Corpus& corpus, const SimhashOptions& verification, unsigned threads,
           VerifiedDedup& dedup) {
  RowFeatureBuilder builder(SimhashOptions{}, verification, threads);
  std::vector<std::string_view> batch;
  std::vector<RowFeatures> rows;
  constexpr std::size_t kBatch = 2048;
  for (std::size_t begin = 0; begin < corpus.texts.size(); begin += kBatch) {
    batch.clear();
    const std::size_t end = std::min(corpus.texts.size(), begin + kBatch);
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
}

// FNV-1a over the groups' rows: equal across builds when the answers are.
std::uint64_t hash_of(const std::vector<DedupRow>& rows) {
  std::uint64_t hash = 14695981039346656037ULL;
  const auto mix = [&](const void* data, std::size_t bytes) {
    const auto* byte = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < bytes; ++i) {
      hash = (hash ^ byte[i]) * 1099511628211ULL;
    }
  };
  for (const DedupRow& row : rows) {
    mix(&row.id, sizeof(row.id));
    mix(&row.kept, sizeof(row.kept));
    mix(&row.distance, sizeof(row.distance));
    mix(&row.similarity, sizeof(row.similarity));
  }
  return hash;
}

// The gaps between successive times, largest first, each with the index
// of the time it ends at.
std::vector<std::pair<double, std::size_t>> gaps_of(const std::vector<double>& times) {
  std::vector<std::pair<double, std::size_t>> gaps;
  for (std::size_t i = 1; i < times.size(); ++i) {
    gaps.emplace_back(times[i] - times[i - 1], i);
  }
  std::sort(gaps.begin(), gaps.end(), std::greater<>());
  return gaps;
}

double p99_of(const std::vector<std::pair<double, std::size_t>>& descending) {
  return descending.empty() ? 0 : descending[descending.size() / 100].first;
}

struct Interrupted {};

// The wall seconds from an interrupt to the join's return, for each of
// `count` joins stopped at a moment drawn in [0, `within`) seconds (those
// that ended before their interrupt left out).
std::vector<double> interrupt_latencies(const VerifiedDedup& dedup, double threshold,
                                        unsigned threads, int count, double within,
                                        std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<double> latencies;
  for (int run = 0; run < count; ++run) {
    const double delay = std::uniform_real_distribution<double>(0, within)(random);
    std::atomic<bool> interrupted{false};
    Clock::time_point interrupted_at;
    std::thread interrupter([&] {
      std::this_thread::sleep_for(std::chrono::duration<double>(delay));
      interrupted_at = Clock::now();
      interrupted = true;
    });
    bool stopped = false;
    try {
      dedup.groups_by_threshold_join(
          threshold,
          [&] {
            if (interrupted.load(std::memory_order_relaxed)) {
              throw Interrupted{};
            }
          },
          nullptr, std::nullopt, threads);
    } catch (const Interrupted&) {
      stopped = true;
    }
    const Clock::time_point returned = Clock::now();
    interrupter.join();
    if (stopped) {
      latencies.push_back(std::chrono::duration<double>(returned - interrupted_at).count());
    }
  }
  std::sort(latencies.begin(), latencies.end());
  return latencies;
}

}  // namespace
}  // namespace simhash::bench

int main(int argc, char** argv) {
  using namespace simhash;
  using namespace simhash::bench;
  const SearchArgs args = search_args(argc, argv, "1", "n=3 weight=binary symbols=strict");
  const int rounds = std::stoi(arg(argc, argv, "rounds", "1"));
  const std::string label = arg(argc, argv, "label", "");
  const Corpus corpus = read_corpus(args.path, args.query);
  VerifiedDedup dedup;
  build(corpus, args.verification, 2, dedup);
  // The phase last reported, so that the longest gaps say where they were.
  std::string phase = "start";
  dedup.set_progress([&](const ProgressStep& step) {
    phase = std::string(step.phase) + " " + std::to_string(step.done) + "/" +
            std::to_string(step.total);
  });
  double last_wall = 0;  // the last round's
  for (int round = 0; round < rounds; ++round) {
    std::vector<double> walls;
    std::vector<double> cpus;
    std::vector<std::string> phases;
    walls.reserve(1 << 20);
    cpus.reserve(1 << 20);
    const auto mark = [&] {
      walls.push_back(std::chrono::duration<double>(Clock::now().time_since_epoch()).count());
      cpus.push_back(thread_seconds());
      phases.push_back(phase);
    };
    const double process_start = static_cast<double>(std::clock()) / CLOCKS_PER_SEC;
    mark();
    DedupCounts counts;
    const std::vector<DedupRow> rows =
        dedup.groups_by_threshold_join(args.threshold, mark, &counts, std::nullopt, args.threads);
    mark();
    const double process_cpu = static_cast<double>(std::clock()) / CLOCKS_PER_SEC - process_start;
    const auto wall_gaps = gaps_of(walls);
    const auto cpu_gaps = gaps_of(cpus);
    std::printf(
        "%s rows=%zu threshold=%.2f threads=%u join_cpu=%.3f s join_wall=%.3f s checks=%zu "
        "longest_wall=%.1f ms p99_wall=%.1f ms longest_cpu=%.1f ms p99_cpu=%.1f ms "
        "candidates=%llu checked=%llu grouped=%zu groups_hash=%016llx\n",
        label.c_str(), corpus.ids.size(), args.threshold, args.threads, process_cpu,
        walls.back() - walls.front(), walls.size() - 2, wall_gaps.front().first * 1e3,
        p99_of(wall_gaps) * 1e3, cpu_gaps.front().first * 1e3, p99_of(cpu_gaps) * 1e3,
        static_cast<unsigned long long>(counts.candidates),
        static_cast<unsigned long long>(counts.checked), rows.size(),
        static_cast<unsigned long long>(hash_of(rows)));
    for (std::size_t i = 0; i < std::min<std::size_t>(3, cpu_gaps.size()); ++i) {
      const std::size_t end = cpu_gaps[i].second;
      std::printf("  cpu gap %.1f ms, check %zu of %zu, after: %s\n", cpu_gaps[i].first * 1e3, end,
                  cpus.size() - 1, phases[end - 1].c_str());
    }
    std::fflush(stdout);
    last_wall = walls.back() - walls.front();
  }
  const int interrupts = std::stoi(arg(argc, argv, "interrupts", "0"));
  if (interrupts > 0) {
    const std::vector<double> late =
        interrupt_latencies(dedup, args.threshold, args.threads, interrupts, last_wall,
                            std::stoull(arg(argc, argv, "seed", "1")));
    // The latency at `share` of the sorted list, in ms.
    const auto ms_at = [&](double share) {
      if (late.empty()) {
        return 0.0;
      }
      const auto at = static_cast<std::size_t>(share * static_cast<double>(late.size() - 1));
      return late[at] * 1e3;
    };
    std::printf(
        "%s threads=%u interrupts=%d stopped=%zu within %.3f s: median=%.1f ms p90=%.1f ms "
        "max=%.1f ms\n",
        label.c_str(), args.threads, interrupts, late.size(), last_wall,
        late.empty() ? 0 : median(late) * 1e3, ms_at(0.9), ms_at(1.0));
  }
  return 0;
}

// SPDX-License-Identifier: MIT
// The join itself is prefix_filter.h's; what is added here is the pairs of
// rows behind each pair of distinct rows (and the pairs inside one node of
// identical rows, at similarity 1).
#include "batch/similar_pairs.h"

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <tuple>

#include "batch/prefix_filter.h"
#include "fingerprint/hamming.h"
#include "util/thread_team.h"

namespace simhash {
namespace {

// What one small allocation costs beyond its bytes (the allocator's header
// and rounding), for the per-node vectors of ids.
constexpr std::size_t kAllocationBytes = 32;

// Nodes indexed between two checks: about 10 ms.
constexpr std::size_t kWorkBetweenChecks = kComparisonsBetweenChecks / 4;
// Probes handed to a thread at a time.
constexpr std::size_t kProbesPerRange = 8;

}  // namespace

void SimilarPairs::Side::add(std::int64_t id, std::uint64_t fingerprint,
                             const FeatureVector& features) {
  // A node's vector of ids (and room for the outer one to double), an id.
  charge.add(sizeof(std::int64_t));
  const std::uint32_t node = nodes.add(fingerprint, features);
  if (node == ids_of.size()) {
    charge.add(2 * sizeof(std::vector<std::int64_t>) + kAllocationBytes);
    ids_of.emplace_back();
  }
  ids_of[node].push_back(id);
}

void SimilarPairs::add(std::int64_t id, std::uint64_t fingerprint, const FeatureVector& features) {
  kept_.add(id, fingerprint, features);
}

void SimilarPairs::add_new(std::int64_t id, std::uint64_t fingerprint,
                           const FeatureVector& features) {
  new_.add(id, fingerprint, features);
}

std::vector<SimilarPair> SimilarPairs::pairs(double threshold, const CheckPoint& check,
                                             DedupCounts* counts, unsigned threads) const {
  return sorted_pairs(kept_, kept_, threshold, check, counts, threads);
}

std::vector<SimilarPair> SimilarPairs::pairs_between(double threshold, const CheckPoint& check,
                                                     DedupCounts* counts, unsigned threads) const {
  return sorted_pairs(new_, kept_, threshold, check, counts, threads);
}

void SimilarPairs::for_each_pair(bool between, double threshold, std::size_t batch_pairs,
                                 const PairSink& sink, const CheckPoint& check, DedupCounts* counts,
                                 unsigned threads) const {
  join(between ? new_ : kept_, kept_, threshold, check, counts, threads,
       std::max<std::size_t>(batch_pairs, 1), sink);
}

// Each thread's pairs whole, gathered into one vector (the first taken as
// it is), then sorted, which fixes their order whatever the threads.
std::vector<SimilarPair> SimilarPairs::sorted_pairs(const Side& probes, const Side& indexed,
                                                    double threshold, const CheckPoint& check,
                                                    DedupCounts* counts, unsigned threads) const {
  std::vector<SimilarPair> pairs;
  MemoryCharge pairs_charge;
  join(probes, indexed, threshold, check, counts, threads, SIZE_MAX,
       [&](std::vector<SimilarPair>& found, MemoryCharge& charge) {
         if (pairs.empty()) {
           pairs.swap(found);
           std::swap(pairs_charge, charge);
           return;
         }
         reserve_charged(pairs, pairs.size() + found.size(), pairs_charge);
         pairs.insert(pairs.end(), found.begin(), found.end());
       });
  if (check) {
    check();
  }
  // The whole pair as the key, so that even a repeated id leaves no order
  // to the threads.
  std::sort(pairs.begin(), pairs.end(), [](const SimilarPair& x, const SimilarPair& y) {
    return std::tie(x.a, x.b, x.distance, x.similarity) <
           std::tie(y.a, y.b, y.distance, y.similarity);
  });
  return pairs;
}

// Every node is indexed before any probe (entry == node), so the index is
// only read while the threads probe, each node by one thread into that
// thread's own pairs; one side, a node meets the entries before its own.
// A thread's pairs go to the sink when they fill a batch, under a lock,
// and the rest at the end, on the caller's thread.
void SimilarPairs::join(const Side& probes, const Side& indexed, double threshold,
                        const CheckPoint& check, DedupCounts* counts, unsigned threads,
                        std::size_t batch_pairs, const PairSink& sink) const {
  if (probes.nodes.weighted() || indexed.nodes.weighted()) {
    throw std::invalid_argument("simhash: the threshold join needs binary weights");
  }
  threads = std::max(threads, 1U);
  const bool one_side = &probes == &indexed;
  report_progress(progress_, "ranking features", 0, 0);
  const SlotRanking ranking = one_side
                                  ? SlotRanking({&indexed.nodes}, check, threads)
                                  : SlotRanking({&indexed.nodes, &probes.nodes}, check, threads);
  report_progress(progress_, "indexing prefixes", 0, 0);
  const Prefixes indexed_prefixes(indexed.nodes, ranking, threshold, check, threads);
  std::optional<Prefixes> probe_prefixes;
  if (!one_side) {
    probe_prefixes.emplace(probes.nodes, ranking, threshold, check, threads);
  }
  PostingIndex index(ranking.slot_count(), indexed_prefixes.all(), check, threads);
  for (std::uint32_t node = 0; node < indexed.nodes.size(); ++node) {
    index.add(indexed_prefixes.of(node),
              indexed.nodes.features_of(node).hashes.size());  // entry == node
    check_after_every(node, kWorkBetweenChecks, check);
  }

  std::mutex sink_lock;
  struct Worker {
    explicit Worker(PairVerifier verifier_in) : verifier(verifier_in) {}

    PairVerifier verifier;
    MemoryCharge charge;  // for its pairs
    std::vector<SimilarPair> pairs;
    EntryMarks marks;
  };
  // No thread started for want of a probe.
  const std::size_t ranges = (probes.nodes.size() + kProbesPerRange - 1) / kProbesPerRange;
  ThreadTeam team(
      static_cast<unsigned>(std::clamp<std::size_t>(threads, 1, std::max<std::size_t>(ranges, 1))),
      check);
  std::vector<Worker> workers;
  workers.reserve(team.size());
  // The caller's thread's checks also report how far it has come.
  std::uint32_t caller_probe = 0;
  const CheckPoint check_and_report = [&] {
    team.check_point(0)();
    report_progress(progress_, "joining", caller_probe, probes.nodes.size());
  };
  for (unsigned thread = 0; thread < team.size(); ++thread) {
    workers.emplace_back(PairVerifier(threshold, false,
                                      thread == 0 ? &check_and_report : &team.check_point(thread)));
  }
  const auto hand_over = [&](Worker& worker) {
    sink(worker.pairs, worker.charge);
    worker.pairs.clear();
    worker.charge.set(worker.pairs.capacity() * sizeof(SimilarPair));
  };
  const auto add_pair = [&](Worker& worker, const SimilarPair& pair) {
    if (worker.pairs.size() == worker.pairs.capacity()) {
      reserve_charged(worker.pairs,
                      std::min(batch_pairs, std::max<std::size_t>(64, 2 * worker.pairs.size())),
                      worker.charge);
    }
    worker.pairs.push_back(pair);
    worker.verifier.count_steps(1);  // a node of many identical rows writes pairs unverified
    if (worker.pairs.size() >= batch_pairs) {
      const std::lock_guard<std::mutex> hold(sink_lock);
      hand_over(worker);
    }
  };
  team.for_each_range(
      probes.nodes.size(), kProbesPerRange,
      [&](unsigned thread, std::size_t begin, std::size_t end) {
        Worker& worker = workers[thread];
        for (auto probe = static_cast<std::uint32_t>(begin); probe < end; ++probe) {
          if (thread == 0) {
            caller_probe = probe;
          }
          const FeatureView features = probes.nodes.features_of(probe);
          const std::vector<std::int64_t>& probe_ids = probes.ids_of[probe];
          if (one_side) {
            // Identical rows: every pair inside the node.
            for (std::size_t i = 0; i < probe_ids.size(); ++i) {
              for (std::size_t j = i + 1; j < probe_ids.size(); ++j) {
                add_pair(worker, SimilarPair{std::min(probe_ids[i], probe_ids[j]),
                                             std::max(probe_ids[i], probe_ids[j]), 0, 1.0});
              }
            }
          }
          const auto prefix = one_side ? indexed_prefixes.of(probe) : probe_prefixes->of(probe);
          const auto to = one_side ? probe : static_cast<std::uint32_t>(index.size());
          const PostingIndex::Probe probed{prefix, features.hashes.size(), threshold};
          index.for_each_entry(
              probed, 0, to, worker.marks,
              [&](std::uint32_t node) {
                worker.verifier.count_candidate();
                const std::optional<double> similarity =
                    worker.verifier.verify(features, indexed.nodes.features_of(node));
                if (!similarity) {
                  return;
                }
                const int distance = hamming_distance(probes.nodes.fingerprint_of(probe),
                                                      indexed.nodes.fingerprint_of(node));
                for (const std::int64_t a : probe_ids) {
                  for (const std::int64_t b : indexed.ids_of[node]) {
                    // Between two sets a is the new row; in one, the smaller id.
                    add_pair(worker, one_side && b < a ? SimilarPair{b, a, distance, *similarity}
                                                       : SimilarPair{a, b, distance, *similarity});
                  }
                }
              },
              [&](std::size_t postings) { worker.verifier.count_slot(postings); });
        }
      });

  DedupCounts counted;
  for (Worker& worker : workers) {
    if (!worker.pairs.empty()) {
      hand_over(worker);
    }
    counted += worker.verifier.counts();
  }
  if (counts != nullptr) {
    *counts = counted;
  }
}

}  // namespace simhash

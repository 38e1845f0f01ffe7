// SPDX-License-Identifier: MIT
// The join itself is prefix_filter.h's; what is added here is the pairs of
// rows behind each pair of distinct rows (and the pairs inside one node of
// identical rows, at similarity 1).
#include "batch/similar_pairs.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <tuple>

#include "batch/prefix_filter.h"
#include "fingerprint/hamming.h"
#include "util/parallel_for.h"

namespace simhash {
namespace {

// What one small allocation costs beyond its bytes (the allocator's header
// and rounding), for the per-node vectors of ids.
constexpr std::size_t kAllocationBytes = 32;

// Nodes indexed between two checks: about 10 ms.
constexpr std::size_t kWorkBetweenChecks = kComparisonsBetweenChecks / 4;
// Probes handed to a thread at a time.
constexpr std::size_t kProbesPerRange = 8;

void add_row_pairs(const std::vector<std::int64_t>& first, const std::vector<std::int64_t>& second,
                   int distance, double similarity, bool ordered, std::vector<SimilarPair>& pairs,
                   MemoryCharge& charge) {
  reserve_charged(pairs, pairs.size() + first.size() * second.size(), charge);
  for (const std::int64_t a : first) {
    for (const std::int64_t b : second) {
      if (ordered || a < b) {
        pairs.push_back(SimilarPair{a, b, distance, similarity});
      } else {
        pairs.push_back(SimilarPair{b, a, distance, similarity});
      }
    }
  }
}

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
  return join(kept_, kept_, threshold, check, counts, threads);
}

std::vector<SimilarPair> SimilarPairs::pairs_between(double threshold, const CheckPoint& check,
                                                     DedupCounts* counts, unsigned threads) const {
  return join(new_, kept_, threshold, check, counts, threads);
}

// Every node is indexed before any probe (entry == node), so the index is
// only read while the threads probe, each node by one thread into that
// thread's own pairs; one side, a node meets the entries before its own.
// The pairs are then sorted, which fixes their order whatever the threads.
std::vector<SimilarPair> SimilarPairs::join(const Side& probes, const Side& indexed,
                                            double threshold, const CheckPoint& check,
                                            DedupCounts* counts, unsigned threads) const {
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

  struct Worker {
    explicit Worker(PairVerifier verifier_in) : verifier(verifier_in) {}

    PairVerifier verifier;
    MemoryCharge charge;  // for its pairs
    std::vector<SimilarPair> pairs;
    EntryMarks marks;
  };
  std::vector<Worker> workers;
  workers.reserve(threads);
  // Only the caller's thread, 0, may call the check point; its checks also
  // report how far it has come.
  std::uint32_t caller_probe = 0;
  const CheckPoint check_and_report = [&] {
    if (check) {
      check();
    }
    report_progress(progress_, "joining", caller_probe, probes.nodes.size());
  };
  for (unsigned thread = 0; thread < threads; ++thread) {
    workers.emplace_back(PairVerifier(threshold, false, thread == 0 ? &check_and_report : nullptr));
  }
  parallel_for(
      probes.nodes.size(), kProbesPerRange, threads,
      [&](unsigned thread, std::size_t begin, std::size_t end) {
        Worker& worker = workers[thread];
        for (auto probe = static_cast<std::uint32_t>(begin); probe < end; ++probe) {
          if (thread == 0) {
            caller_probe = probe;
          }
          const FeatureView features = probes.nodes.features_of(probe);
          if (one_side) {
            // Identical rows: every pair inside the node.
            const std::vector<std::int64_t>& ids = probes.ids_of[probe];
            reserve_charged(worker.pairs, worker.pairs.size() + ids.size() * (ids.size() - 1) / 2,
                            worker.charge);
            for (std::size_t i = 0; i < ids.size(); ++i) {
              for (std::size_t j = i + 1; j < ids.size(); ++j) {
                worker.pairs.push_back(
                    SimilarPair{std::min(ids[i], ids[j]), std::max(ids[i], ids[j]), 0, 1.0});
              }
            }
          }
          const auto prefix = one_side ? indexed_prefixes.of(probe) : probe_prefixes->of(probe);
          const auto to = one_side ? probe : static_cast<std::uint32_t>(index.size());
          const PostingIndex::Probe probed{prefix, features.hashes.size(), threshold};
          index.for_each_entry(probed, 0, to, worker.marks, [&](std::uint32_t node) {
            worker.verifier.count_candidate();
            if (const std::optional<double> similarity =
                    worker.verifier.verify(features, indexed.nodes.features_of(node))) {
              add_row_pairs(probes.ids_of[probe], indexed.ids_of[node],
                            hamming_distance(probes.nodes.fingerprint_of(probe),
                                             indexed.nodes.fingerprint_of(node)),
                            *similarity, !one_side, worker.pairs, worker.charge);
            }
          });
        }
      });

  std::vector<SimilarPair> pairs = std::move(workers[0].pairs);
  MemoryCharge pairs_charge = std::move(workers[0].charge);
  DedupCounts counted = workers[0].verifier.counts();
  for (std::size_t i = 1; i < workers.size(); ++i) {
    reserve_charged(pairs, pairs.size() + workers[i].pairs.size(), pairs_charge);
    pairs.insert(pairs.end(), workers[i].pairs.begin(), workers[i].pairs.end());
    std::vector<SimilarPair>().swap(workers[i].pairs);
    workers[i].charge = MemoryCharge();
    counted += workers[i].verifier.counts();
  }
  if (check) {
    check();
  }
  // The whole pair as the key, so that even a repeated id leaves no order
  // to the threads.
  std::sort(pairs.begin(), pairs.end(), [](const SimilarPair& x, const SimilarPair& y) {
    return std::tie(x.a, x.b, x.distance, x.similarity) <
           std::tie(y.a, y.b, y.distance, y.similarity);
  });
  if (counts != nullptr) {
    *counts = counted;
  }
  return pairs;
}

}  // namespace simhash

// SPDX-License-Identifier: MIT
// The three steps of partitioned_dedup.h: identical rows to nodes, the
// parts joined and their pairs written out as offers, the leader pass over
// the offers in visit order.
#include "batch/partitioned_dedup.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>

#include "batch/feature_rows.h"
#include "batch/leader_rule.h"
#include "batch/offer_runs.h"
#include "batch/similar_pairs.h"
#include "batch/size_parts.h"
#include "fingerprint/hamming.h"
#include "util/sort_checked.h"

namespace simhash {
namespace {

// Per node while the parts run: its first and last rows, its place in the
// size order, its size there and its cost.
constexpr std::size_t kBytesPerNode = 4 * sizeof(std::uint32_t) + sizeof(std::uint64_t);
// The offers' buffer at least (64 KiB): fewer runs to merge than one an
// offer, whatever the budget.
constexpr std::size_t kLeastBufferOffers = std::size_t{1} << 12;
// Offers read back between two checks: a merge step and an offer each.
constexpr std::size_t kOffersBetweenChecks = std::size_t{1} << 16;
// Rows compared for identity between two checks.
constexpr std::size_t kRowsBetweenChecks = std::size_t{1} << 14;
// Chunks whose parts are counted between two checks (each up to as many
// parts as there are chunks).
constexpr std::size_t kChunksBetweenChecks = 64;
// What the plan holds a chunk: the chunk and its cost.
constexpr std::size_t kBytesPerChunk = sizeof(SizeChunk) + sizeof(std::uint64_t);

// The numbers [0, count) in the order `less` sorts them (sort_checked).
template <typename Less>
std::vector<std::uint32_t> sorted_numbers(std::size_t count, Less less, const CheckPoint& check) {
  std::vector<std::uint32_t> order(count);
  for (std::uint32_t number = 0; number < count; ++number) {
    order[number] = number;
  }
  sort_checked(order, less, check);
  return order;
}

}  // namespace

void PartitionedDedup::add(std::int64_t id, std::uint64_t fingerprint, FeatureView features,
                           std::uint64_t key_hash) {
  rows_.add(id, fingerprint, features);
  keys_.push_back(key_hash);
}

void PartitionedDedup::add(std::int64_t id, std::uint64_t fingerprint,
                           const FeatureVector& features) {
  add(id, fingerprint, FeatureView(features), FeatureRows::key_of(fingerprint, features).hash);
}

// Rows ordered by (size, key, position): identical rows are next to each
// other, among rows whose keys collide. Each run of one key keeps the
// features of its distinct rows so far (almost always one).
std::uint32_t PartitionedDedup::find_nodes(const CheckPoint& check) {
  const std::size_t rows = rows_.size();
  node_charge_.grow_to(rows * sizeof(std::uint32_t));
  const MemoryCharge order_charge(rows * sizeof(std::uint32_t));
  const std::vector<std::uint32_t> order = sorted_numbers(
      rows,
      [&](std::uint32_t a, std::uint32_t b) {
        return std::tuple(rows_.size_of(a), keys_[a], a) <
               std::tuple(rows_.size_of(b), keys_[b], b);
      },
      check);
  node_of_.assign(rows, 0);  // first the first row of each row's node
  struct Variant {
    std::uint32_t first;
    FeatureVector features;
  };
  std::vector<Variant> variants;
  FeatureVector features;
  for (std::size_t begin = 0; begin < rows;) {
    std::size_t end = begin + 1;
    while (end < rows && rows_.size_of(order[end]) == rows_.size_of(order[begin]) &&
           keys_[order[end]] == keys_[order[begin]]) {
      ++end;
    }
    if (end - begin == 1) {
      node_of_[order[begin]] = order[begin];
    } else {
      variants.clear();
      for (std::size_t i = begin; i < end; ++i) {
        const std::uint32_t position = order[i];
        rows_.read(position, features);
        const auto same = std::find_if(variants.begin(), variants.end(), [&](const Variant& v) {
          return rows_.fingerprint(v.first) == rows_.fingerprint(position) &&
                 v.features.hashes == features.hashes;
        });
        if (same != variants.end()) {
          node_of_[position] = same->first;
        } else {
          node_of_[position] = position;
          variants.push_back(Variant{position, features});
        }
        check_after_every(i, kRowsBetweenChecks, check);
      }
    }
    check_after_every(begin, kRowsBetweenChecks, check);
    begin = end;
  }
  keys_ = ChunkedArray<std::uint64_t>();
  // First rows to node numbers, in place: a first row comes before the
  // rows of its node, so it is numbered by then.
  std::uint32_t nodes = 0;
  for (std::uint32_t position = 0; position < rows; ++position) {
    node_of_[position] = node_of_[position] == position ? nodes++ : node_of_[node_of_[position]];
  }
  return nodes;
}

std::vector<DedupRow> PartitionedDedup::groups(double threshold, std::uint64_t budget,
                                               const CheckPoint& check, std::optional<int> radius,
                                               unsigned threads, PartitionCounts* counts,
                                               std::optional<std::uint64_t> part_budget) {
  if (radius && *radius < 0) {
    throw std::invalid_argument("simhash: radius must be at least 0");
  }
  const std::size_t rows = rows_.size();
  PartitionCounts counted;
  report_progress(progress_, "finding identical rows", 0, rows);
  const std::uint32_t node_count = find_nodes(check);
  counted.nodes = node_count;

  // What is left of the budget for the parts (a half), the pairs a part
  // finds (a quarter) and the offers' buffer (a quarter).
  const std::uint64_t fixed = rows * kBytesPerRow + std::uint64_t{node_count} * kBytesPerNode;
  const std::uint64_t left = budget > fixed ? budget - fixed : 0;
  // A part of less than kLeastWorkingBytes costs more in its tables than
  // in its rows: budgets below that still take parts of that size.
  const std::uint64_t parts_share =
      part_budget.value_or(std::max<std::uint64_t>(left / 2, kLeastWorkingBytes));
  OfferRuns offers(std::max<std::size_t>(static_cast<std::size_t>(left / 4 / sizeof(SpilledOffer)),
                                         kLeastBufferOffers));
  join_parts(PartSettings{threshold, parts_share, radius, threads}, node_count, check, offers,
             counted);
  counted.offer_runs = offers.run_count() > 1 ? offers.run_count() : 0;

  // The features are read no more.
  rows_.forget_features();
  report_progress(progress_, "grouping", 0, rows);
  // The rule and where each row went, and the group sizes rows_of_groups counts.
  const MemoryCharge pass_charge(std::size_t{node_count} * LeaderRule::kBytesPerNode +
                                 rows * (sizeof(Joined) + sizeof(std::uint32_t)));
  const std::vector<Joined> joined = place_rows(offers, node_count, check);
  node_of_ = {};
  node_charge_.release();
  std::vector<DedupRow> result = rows_of_groups(joined, check);
  if (counts != nullptr) {
    *counts = counted;
  }
  return result;
}

// The nodes in size order, cut into parts (size_parts.h); each part's nodes
// read back and joined, each pair found written to `offers`.
void PartitionedDedup::join_parts(const PartSettings& settings, std::uint32_t node_count,
                                  const CheckPoint& check, OfferRuns& offers,
                                  PartitionCounts& counted) {
  const std::size_t rows = rows_.size();
  const MemoryCharge nodes_charge(std::size_t{node_count} * kBytesPerNode);
  NodeRows node_rows{std::vector<std::uint32_t>(node_count, 0),
                     std::vector<std::uint32_t>(node_count, 0)};
  for (std::uint32_t position = rows; position-- > 0;) {
    node_rows.first[node_of_[position]] = position;
    check_after_every(position, kRowsBetweenChecks, check);
  }
  for (std::uint32_t position = 0; position < rows; ++position) {
    node_rows.last[node_of_[position]] = position;
    check_after_every(position, kRowsBetweenChecks, check);
  }
  // The nodes in the size order, with their sizes and costs there.
  const std::vector<std::uint32_t> order = sorted_numbers(
      node_count,
      [&](std::uint32_t a, std::uint32_t b) {
        return std::tuple(rows_.size_of(node_rows.first[a]), a) <
               std::tuple(rows_.size_of(node_rows.first[b]), b);
      },
      check);
  std::vector<std::uint32_t> sizes(node_count);
  std::vector<std::uint64_t> costs(node_count);
  for (std::uint32_t i = 0; i < node_count; ++i) {
    sizes[i] = rows_.size_of(node_rows.first[order[i]]);
    costs[i] = kPartBytesPerNode + std::uint64_t{sizes[i]} * kPartBytesPerFeature;
    check_after_every(i, kRowsBetweenChecks, check);
  }
  // The chunks, and the parts listed a chunk at a time as they run
  // (size_parts.h), never all at once: small parts over many nodes make
  // chunks times windows of them.
  const SizeChunks plan = plan_size_chunks(sizes, costs, settings.share);
  const MemoryCharge plan_charge(plan.chunks.size() * kBytesPerChunk);
  const auto parts_of = [&](std::size_t chunk) {
    return size_parts_of_chunk(sizes, plan, chunk, settings.share, settings.threshold);
  };
  counted.chunks = plan.chunks.size();
  counted.parts = 0;
  for (std::size_t chunk = 0; chunk < plan.chunks.size(); ++chunk) {
    counted.parts += parts_of(chunk).size();
    check_after_every(chunk, kChunksBetweenChecks, check);
  }

  FeatureVector features;
  const auto add_chunk = [&](SimilarPairs& join, std::size_t chunk, bool as_new) {
    for (std::size_t i = plan.chunks[chunk].begin; i < plan.chunks[chunk].end; ++i) {
      check_after_every(i, kRowsBetweenChecks, check);
      const std::uint32_t position = node_rows.first[order[i]];
      rows_.read(position, features);
      if (as_new) {
        join.add_new(position, rows_.fingerprint(position), features);
      } else {
        join.add(position, rows_.fingerprint(position), features);
      }
    }
  };
  // A part's nodes read back and joined, its pairs written as offers.
  const auto join_part = [&](const SizePart& part, const std::string& prefix) {
    if (check) {
      check();
    }
    report_progress(progress_, prefix + "reading", 0, 0);
    SimilarPairs join;
    if (progress_) {
      join.set_progress([&](const ProgressStep& step) {
        report_progress(progress_, prefix + std::string(step.phase), step.done, step.total,
                        step.unit);
      });
    }
    add_chunk(join, part.probes, !part.self());
    if (!part.self()) {
      for (std::size_t chunk = part.kept_begin; chunk < part.kept_end; ++chunk) {
        add_chunk(join, chunk, false);
      }
    }
    write_offers(part.self()
                     ? join.pairs(settings.threshold, check, nullptr, settings.threads)
                     : join.pairs_between(settings.threshold, check, nullptr, settings.threads),
                 settings.radius, node_rows, offers, counted);
  };

  const std::string of_parts = " of " + std::to_string(counted.parts) + ": ";
  std::size_t index = 0;
  for (std::size_t chunk = 0; chunk < plan.chunks.size(); ++chunk) {
    for (const SizePart& part : parts_of(chunk)) {
      const std::string prefix = "part " + std::to_string(++index) + of_parts;
      join_part(part, prefix);
      report_progress(progress_, prefix + "merging", 0, 0);
      offers.compact(check);
    }
  }
}

// Each pair within the radius as the offers its two nodes' first rows may
// make.
void PartitionedDedup::write_offers(const std::vector<SimilarPair>& pairs,
                                    std::optional<int> radius, const NodeRows& node_rows,
                                    OfferRuns& offers, PartitionCounts& counted) const {
  for (const SimilarPair& pair : pairs) {
    if (radius && pair.distance > *radius) {
      continue;
    }
    const auto a = static_cast<std::uint32_t>(std::min(pair.a, pair.b));
    const auto b = static_cast<std::uint32_t>(std::max(pair.a, pair.b));
    ++counted.pairs;
    // a's representative offers itself to b's node; b's to a's rows
    // after b, if a's node has any.
    offers.add(SpilledOffer{a, node_of_[b], pair.similarity});
    if (node_rows.last[node_of_[a]] > b) {
      offers.add(SpilledOffer{b, node_of_[a], pair.similarity});
    }
  }
}

// The leader pass, in visit order, the offers read as the rows reach them.
std::vector<PartitionedDedup::Joined> PartitionedDedup::place_rows(OfferRuns& offers,
                                                                   std::uint32_t node_count,
                                                                   const CheckPoint& check) const {
  const std::size_t rows = rows_.size();
  LeaderRule rule(node_count, check);
  std::vector<Joined> joined(rows);
  std::uint32_t next = 0;
  const auto place_before = [&](std::uint64_t end) {
    for (; next < end; ++next) {
      const LeaderRule::Place place = rule.place(next, node_of_[next]);
      joined[next] = Joined{place.leader, place.by_offer ? -place.rank : 1.0};
      check_after_every(next, kRowsBetweenChecks, check);
    }
  };
  std::size_t offers_read = 0;
  offers.read(
      [&](const SpilledOffer& offer) {
        check_after_every(offers_read++, kOffersBetweenChecks, check);
        place_before(std::uint64_t{offer.from} + 1);
        if (joined[offer.from].leader == offer.from) {
          rule.offer(offer.to, offer.from, LeaderRule::kNone, -offer.similarity);
        }
      },
      check);
  place_before(rows);
  return joined;
}

// The rows of groups of two or more, in visit order.
std::vector<DedupRow> PartitionedDedup::rows_of_groups(const std::vector<Joined>& joined,
                                                       const CheckPoint& check) const {
  const std::size_t rows = rows_.size();
  std::vector<std::uint32_t> group_size;
  fill_with_checks(group_size, rows, std::uint32_t{0}, check);
  for (std::size_t i = 0; i < rows; ++i) {
    ++group_size[joined[i].leader];
    check_after_every(i, kRowsBetweenChecks, check);
  }
  std::size_t in_groups = 0;
  for (std::size_t i = 0; i < rows; ++i) {
    in_groups += group_size[joined[i].leader] >= 2 ? 1 : 0;
    check_after_every(i, kRowsBetweenChecks, check);
  }
  const MemoryCharge result_charge(in_groups * sizeof(DedupRow));
  std::vector<DedupRow> result;
  result.reserve(in_groups);
  for (std::uint32_t position = 0; position < rows; ++position) {
    check_after_every(position, kRowsBetweenChecks, check);
    const Joined& row = joined[position];
    if (group_size[row.leader] >= 2) {
      result.push_back(
          DedupRow{rows_.id(position), rows_.id(row.leader),
                   hamming_distance(rows_.fingerprint(position), rows_.fingerprint(row.leader)),
                   row.similarity});
    }
  }
  return result;
}

}  // namespace simhash

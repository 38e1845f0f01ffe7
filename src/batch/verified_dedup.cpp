// SPDX-License-Identifier: MIT
// Rows to nodes (identical fingerprint and features); then either candidate
// pairs of nodes within the radius, verified as they come, and the leader
// pass over the rows in visit order; or the leader rule applied row by row
// in visit order, each row looking for its representative in an index of
// the representatives' rarest features (the threshold join; given a radius,
// links farther apart are dropped before their check).
#include "batch/verified_dedup.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "batch/leader_groups.h"
#include "batch/leader_rule.h"
#include "batch/pair_finder.h"
#include "batch/prefix_filter.h"
#include "batch/repeated_id.h"
#include "fingerprint/hamming.h"
#include "util/thread_team.h"

namespace simhash {
namespace {

// The threshold join's blocks: a sixteenth of the rows before them, so
// that on average a row meets 1/32 of its representatives in its own
// block's serial pass; from 16 rows (a few hundred rows make many blocks)
// to 64K. Probes go to the threads a few at a time.
constexpr std::size_t kBlockShare = 16;
constexpr std::size_t kMinBlockRows = 16;
constexpr std::size_t kMaxBlockRows = std::size_t{1} << 16;
constexpr std::size_t kProbesPerRange = 8;
// A probe of a block's nodes keeps aside the block's entries it meets,
// unless it meets more than kBlockEntryBudget postings of them (a family
// of near copies inside the block, sharing their rare features: the rule
// then probes that node row by row, so what the threads keep aside stays
// within 512 bytes a row of the block). On 323K real texts 1.5% of the
// probes meet more.
constexpr std::size_t kBlockEntryBudget = 128;
// The dropped entries the settling's own probes may meet, a row of the
// block, before it takes them out of the index (a pass over their slots).
constexpr std::size_t kDroppedMetPerRow = 8;

// A node of the block being settled.
struct BlockNode {
  std::uint32_t node = 0;
  std::uint32_t entry = LeaderRule::kNone;  // its entry, when first met in this block
  std::uint32_t last = 0;                   // its last row in the block
  // The block's entries its probe met, ascending:
  // workers[thread].met[begin, end), `begin` moving on as the rule reaches them.
  std::uint32_t thread = 0;
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  // On several threads: the similarity of the first of [begin, end) that
  // links, in workers[thread].link_similarities.
  std::uint32_t next_link = 0;
};

// On several threads, each chunk of a block's entries (and of the last
// block's dropped ones) first sorts what it enters (and takes out) by the
// residue of the slot, modulo the threads; then each thread enters the
// slots of one residue, chunk after chunk, so a slot's entries stay
// ascending. Each thread thus walks a chunk's prefixes, not every entry's
// (walking all of them, each thread took as long as one thread alone).
struct ResidueChunk {
  std::vector<std::vector<PostingIndex::Entering>> postings;  // by residue
  std::vector<std::vector<std::uint32_t>> dropped_slots;      // by residue
  MemoryCharge charge;
};

// Within a radius: the candidates verified at once (4 of PairFinder's
// batches, 384 KB; two are held, the one verified and the next found
// meanwhile, with a result each: 0.9 MB), handed to the threads a few
// dozen at a time, by a team of threads woken for each window.
constexpr std::size_t kRadiusWindowPairs = 4 * PairFinder::kBatchSize;
constexpr std::size_t kVerifiesPerRange = 64;

}  // namespace

void VerifiedDedup::add(std::int64_t id, std::uint64_t fingerprint, FeatureView features,
                        RowKey key, std::optional<std::uint32_t> adopted_block) {
  if (features.hashes.empty()) {
    throw std::invalid_argument("simhash: a row to dedup has no features");
  }
  if (nodes_.finished()) {
    // Before anything is charged: a refused row changes nothing.
    throw std::logic_error("simhash: a row added after the rows were finished");
  }
  if (ids_.size() >= LeaderAssignment::kNoLink - 1) {
    throw std::length_error("simhash: too many rows to dedup");
  }
  charge_.grow_to((ids_.size() + 1) * 2 * (sizeof(std::int64_t) + sizeof(std::uint32_t)));
  node_of_.push_back(nodes_.add(fingerprint, features, key, adopted_block));
  ids_.push_back(id);
}

void VerifiedDedup::finish_adding() {
  nodes_.finish_adding();
  ids_.shrink_to_fit();
  node_of_.shrink_to_fit();
  charge_.set(ids_.size() * (sizeof(std::int64_t) + sizeof(std::uint32_t)));
}

std::optional<std::int64_t> VerifiedDedup::repeated_id(const CheckPoint& check) const {
  const MemoryCharge copy(ids_.size() * sizeof(std::int64_t));  // find_repeated_id sorts a copy
  return find_repeated_id(ids_, check);
}

// The candidates come from PairFinder's serial search, a window at a time;
// the threads verify a window, each candidate into its own slot, while the
// caller's thread searches for the next window; then the caller settles the
// window in the search's order. So the links, and the groups made of them,
// are those of one thread in the same order, for any thread count.
std::vector<DedupRow> VerifiedDedup::groups_within_radius(double threshold, int radius,
                                                          const CheckPoint& check,
                                                          DedupCounts* counts,
                                                          unsigned threads) const {
  threads = std::max(threads, 1U);
  // The records and the leader pass's arrays (per node and per row), and the
  // two windows of candidates with their results.
  const MemoryCharge working(nodes_.size() * (sizeof(IdFingerprint) + 32) +
                             ids_.size() * (sizeof(LeaderAssignment) + sizeof(Joined)) +
                             kRadiusWindowPairs * (2 * sizeof(NearPair) + sizeof(double)));
  std::vector<IdFingerprint> records;
  records.reserve(nodes_.size());
  for (std::uint32_t node = 0; node < nodes_.size(); ++node) {
    records.push_back(IdFingerprint{node, nodes_.fingerprint_of(node)});
  }
  report_progress(progress_, "finding candidates within the radius", 0, 0);
  PairFinder finder(std::move(records), radius, check);

  std::vector<PairVerifier> verifiers;
  verifiers.reserve(threads);
  for (unsigned thread = 0; thread < threads; ++thread) {
    // Only the caller's thread, 0, may call the check point.
    verifiers.emplace_back(threshold, nodes_.weighted(), thread == 0 ? &check : nullptr);
  }
  // Fills `window` with the next candidates (none once the search is over),
  // reporting each batch found: the pairs before it are verified or being
  // verified.
  std::vector<NearPair> batch;
  bool searched = false;
  std::uint64_t found = 0;
  const auto fill = [&](std::vector<NearPair>& window) {
    window.clear();
    while (!searched && window.size() + PairFinder::kBatchSize <= kRadiusWindowPairs) {
      if (!finder.next(batch)) {
        searched = true;
        break;
      }
      report_progress(progress_, "verifying candidates", found, 0, "pairs");
      found += batch.size();
      window.insert(window.end(), batch.begin(), batch.end());
    }
  };

  // The verified pairs; a similarity below 0 marks a candidate rejected.
  constexpr double kRejected = -1.0;
  ChunkedArray<NodeLink> links;
  std::vector<NearPair> window;
  std::vector<NearPair> ahead;
  std::vector<double> similarities;
  fill(window);
  ThreadTeam team(threads);  // a loop a window
  while (!window.empty()) {
    similarities.assign(window.size(), kRejected);
    team.for_each_range(
        window.size(), kVerifiesPerRange,
        [&](unsigned thread, std::size_t begin, std::size_t end) {
          PairVerifier& verifier = verifiers[thread];
          for (std::size_t i = begin; i < end; ++i) {
            const NearPair& pair = window[i];
            verifier.count_candidate();
            if (const std::optional<double> similarity =
                    verifier.verify(nodes_.features_of(static_cast<std::uint32_t>(pair.a)),
                                    nodes_.features_of(static_cast<std::uint32_t>(pair.b)))) {
              similarities[i] = *similarity;
            }
          }
        },
        [&] { fill(ahead); });
    for (std::size_t i = 0; i < window.size(); ++i) {
      if (similarities[i] != kRejected) {
        links.push_back(NodeLink{static_cast<std::uint32_t>(window[i].a),
                                 static_cast<std::uint32_t>(window[i].b), -similarities[i]});
      }
    }
    window.swap(ahead);
  }
  if (counts != nullptr) {
    DedupCounts counted;
    for (const PairVerifier& verifier : verifiers) {
      counted += verifier.counts();
    }
    *counts = counted;
  }

  report_progress(progress_, "grouping", 0, ids_.size());
  const std::vector<LeaderAssignment> assignments =
      assign_leaders(node_of_, nodes_.size(), links, check);
  std::vector<Joined> joined;
  joined.reserve(assignments.size());
  for (const LeaderAssignment& assignment : assignments) {
    joined.push_back(Joined{assignment.leader, assignment.link == LeaderAssignment::kNoLink
                                                   ? 1.0
                                                   : -links[assignment.link].rank});
  }
  return rows_of_groups(joined);
}

// With a radius, a pair links when its similarity reaches the threshold
// and its fingerprints are within the radius: every such pair shares a
// prefix feature, so the join finds all of groups_within_radius's links,
// and the leader rule then makes the same groups of them.
//
// Rows are taken a block at a time, in visit order. A row joins the
// representative it is most similar to among those made before it (the
// earlier one on a tie), and a representative is always the first row of
// its node (a node whose first row took an offer has one for every later
// row). So each block's nodes met for the first time are entered in the
// index at once, in the order of their first rows, as the representatives
// they may become. The threads then probe each node of the block: the
// representatives made before the block are verified there and offer
// themselves (nothing the block decides changes those offers), and the
// block's own entries before the node's last row in the block (a
// first-met node: before its first) are only noted, ascending (on several
// threads, with whether each links, verified there). Then one
// thread runs the rule row by row, taking for each row only the noted
// entries that became representatives before it, the very pairs one
// thread probing row by row would verify (verifying them itself on one
// thread; on several, only counting them and taking the similarity the
// threads found: at 323K real texts the rule took 266,431 of the 356,222
// noted, and 27,340 linked); and the entries that did not
// become representatives leave the index (before the next block's probes,
// or at once when the rule's own probes meet many). Only a node whose probe met
// more than kBlockEntryBudget postings of the block's is probed there row
// by row (every node's way before). Blocks grow with the rows before them
// (a sixteenth), and their bounds depend on the rows alone: the same
// probes, the same counts, for any thread count.
std::vector<DedupRow> VerifiedDedup::groups_by_threshold_join(double threshold,
                                                              const CheckPoint& check,
                                                              DedupCounts* counts,
                                                              std::optional<int> radius,
                                                              unsigned threads) const {
  if (nodes_.weighted()) {
    throw std::invalid_argument("simhash: the threshold join needs binary weights");
  }
  if (radius && *radius < 0) {
    throw std::invalid_argument("simhash: radius must be at least 0");
  }
  threads = std::max(threads, 1U);
  // The join's tables live in the scope below only: freed before the
  // grouping allocates its own. `joined` outlives them.
  const MemoryCharge joined_charge(ids_.size() * sizeof(Joined));
  std::vector<Joined> joined;
  joined.reserve(ids_.size());
  {
    report_progress(progress_, "ranking features", 0, 0);
    const SlotRanking ranking({&nodes_}, check, threads);
    report_progress(progress_, "indexing prefixes", 0, 0);
    const Prefixes prefixes(nodes_, ranking, threshold, check, threads);
    // The first rows of nodes, numbered in visit order; once a block is
    // settled only those that became representatives stay in it.
    PostingIndex entries(ranking.slot_count(), prefixes.all(), check, threads);
    // The rule, `seen`, `first_rows` and `in_block` (each at most one a
    // node), a block's nodes with the entries their probes met, and a bit a
    // slot for each thread (the slots it cleaned).
    const MemoryCharge working(
        nodes_.size() * (LeaderRule::kBytesPerNode + 3 * sizeof(std::uint32_t)) +
        std::clamp<std::size_t>(ids_.size() / kBlockShare, kMinBlockRows, kMaxBlockRows) *
            (sizeof(BlockNode) +
             kBlockEntryBudget * (sizeof(std::uint32_t) + (threads > 1 ? 1 : 0))) +
        threads * ranking.slot_count() / 8);
    LeaderRule rule(nodes_.size());
    // The entries a node has been probed against, [0, seen): kUnmet for a
    // node no block has met yet.
    constexpr std::uint32_t kUnmet = std::numeric_limits<std::uint32_t>::max();
    std::vector<std::uint32_t> seen(nodes_.size(), kUnmet);
    std::vector<std::uint32_t> first_rows;  // positions, by entry
    // A node's place in block_nodes while its block is settled.
    std::vector<std::uint32_t> in_block(nodes_.size(), 0);
    std::vector<BlockNode> block_nodes;
    struct Worker {
      Worker(PairVerifier verifier_in, PairVerifier uncounted_in)
          : verifier(verifier_in), uncounted(uncounted_in) {}

      PairVerifier verifier;
      // For the block's entries it met, on several threads: verified here,
      // counted when the rule takes them, as if verified then.
      PairVerifier uncounted;
      EntryMarks marks;
      std::vector<std::uint32_t> met;  // of the block's entries, by node
      // By index of met: whether the entry links; and the similarities of
      // those that do, in met's order (charged as they grow).
      std::vector<std::uint8_t> met_links;
      std::vector<double> link_similarities;
      MemoryCharge link_similarities_charge;
      EntryMarks visited_slots;  // the slots it cleaned of dropped entries
    };
    std::vector<Worker> workers;
    workers.reserve(threads);
    ThreadTeam team(threads);  // the loops of every block: woken, not started, for each
    for (unsigned thread = 0; thread < threads; ++thread) {
      // Only the caller's thread, 0, may call the check point.
      workers.emplace_back(PairVerifier(threshold, false, thread == 0 ? &check : nullptr),
                           PairVerifier(threshold, false, nullptr));
    }
    // verify(verifier, a, b) for the features of `node` and of the first row
    // of `entry` (the similarity when they link), unless the radius rules
    // the pair out.
    const auto link_by = [&](PairVerifier& verifier, std::uint32_t node, std::uint32_t entry,
                             auto&& verify) -> std::optional<double> {
      const std::uint32_t other_node = node_of_[first_rows[entry]];
      if (radius && hamming_distance(nodes_.fingerprint_of(node),
                                     nodes_.fingerprint_of(other_node)) > *radius) {
        return std::nullopt;
      }
      return verify(verifier, nodes_.features_of(node), nodes_.features_of(other_node));
    };
    const auto verify = [](PairVerifier& verifier, FeatureView a, FeatureView b) {
      return verifier.verify(a, b);
    };
    // The same, counted (a candidate, and what the verification counts).
    const auto link = [&](Worker& worker, std::uint32_t node,
                          std::uint32_t entry) -> std::optional<double> {
      worker.verifier.count_candidate();
      return link_by(worker.verifier, node, entry, verify);
    };
    // Counts what link() counts for a pair another verifier found linked
    // or not.
    const auto count_verified = [&](Worker& worker, std::uint32_t node, std::uint32_t entry,
                                    bool linked) {
      worker.verifier.count_candidate();
      link_by(worker.verifier, node, entry,
              [linked](PairVerifier& verifier, FeatureView a, FeatureView b) {
                verifier.count_verified_elsewhere(a, b, linked);
                return std::optional<double>();
              });
    };
    // Verifies the block's entries `worker` met for `probed`, uncounted.
    const auto verify_met = [&](Worker& worker, BlockNode& probed) {
      probed.next_link = static_cast<std::uint32_t>(worker.link_similarities.size());
      worker.met_links.resize(worker.met.size());
      for (std::uint32_t j = probed.begin; j < probed.end; ++j) {
        const std::optional<double> similarity =
            link_by(worker.uncounted, probed.node, worker.met[j], verify);
        worker.met_links[j] = similarity ? 1 : 0;
        if (!similarity) {
          continue;
        }
        std::vector<double>& similarities = worker.link_similarities;
        if (similarities.size() == similarities.capacity()) {
          const std::size_t more = std::max<std::size_t>(256, 2 * similarities.capacity());
          worker.link_similarities_charge.grow_to(more * sizeof(double));
          similarities.reserve(more);
        }
        similarities.push_back(*similarity);
      }
    };

    // The entries of the block being settled (or the last one) that did
    // not become representatives: by entry - last_block_entry, and listed.
    std::vector<std::uint8_t> dropped;
    std::vector<std::uint32_t> dropped_entries;
    std::uint32_t last_block_entry = 0;
    std::size_t taken_out = 0;  // the first dropped_entries, out of the index already
    const auto slots_of_entry = [&](std::uint32_t entry) {
      return prefixes.of(node_of_[first_rows[entry]]);
    };
    const auto size_of_entry = [&](std::uint32_t entry) {
      return nodes_.features_of(node_of_[first_rows[entry]]).hashes.size();
    };
    // The probe of `node`'s prefix.
    const auto probe_of = [&](std::uint32_t node) {
      return PostingIndex::Probe{prefixes.of(node), nodes_.features_of(node).hashes.size(),
                                 threshold};
    };
    // Takes the dropped entries out of the slots marked in `visited` (each
    // slot once), and clears it.
    const auto take_out_of = [&](EntryMarks& visited) {
      entries.remove_since(visited.marked(), last_block_entry, [&](std::uint32_t other) {
        return dropped[other - last_block_entry] != 0;
      });
      visited.clear();
    };
    // Takes dropped_entries[taken_out, ...) out of their slots.
    const auto take_out = [&](EntryMarks& visited) {
      for (std::size_t i = taken_out; i < dropped_entries.size(); ++i) {
        for (const std::uint32_t slot : slots_of_entry(dropped_entries[i])) {
          visited.mark(slot);
        }
      }
      take_out_of(visited);
    };
    std::vector<ResidueChunk> chunks(threads > 1 ? threads : 0);
    // Chunk `part` of the block's entries [first, end) and of the dropped
    // entries still in the index, sorted by residue.
    const auto sort_by_residue = [&](std::uint32_t part, std::uint32_t first, std::uint32_t end) {
      const auto share = [&](std::size_t from, std::size_t to, std::uint32_t nth) {
        return from + (to - from) * nth / threads;
      };
      // on_slot(dropped, slot, posting) for each posting of the chunk's
      // entries, and each slot of its dropped ones (no posting).
      const auto each_slot = [&](auto&& on_slot) {
        for (auto entry = static_cast<std::uint32_t>(share(first, end, part));
             entry < share(first, end, part + 1); ++entry) {
          PostingIndex::each_posting(entry, slots_of_entry(entry), size_of_entry(entry),
                                     [&](std::uint32_t slot, PostingIndex::Posting posting) {
                                       on_slot(false, slot, posting);
                                     });
        }
        const std::size_t size = dropped_entries.size();
        for (std::size_t i = share(taken_out, size, part); i < share(taken_out, size, part + 1);
             ++i) {
          for (const std::uint32_t slot : slots_of_entry(dropped_entries[i])) {
            on_slot(true, slot, PostingIndex::Posting{});
          }
        }
      };
      // Counted first, so that each list takes its size (charged) and no more.
      std::vector<std::size_t> postings(threads, 0);
      std::vector<std::size_t> dropped_slots(threads, 0);
      each_slot([&](bool dropped_one, std::uint32_t slot, PostingIndex::Posting) {
        ++(dropped_one ? dropped_slots : postings)[slot % threads];
      });
      ResidueChunk& chunk = chunks[part];
      chunk.postings.resize(threads);
      chunk.dropped_slots.resize(threads);
      std::size_t bytes = 0;
      for (unsigned residue = 0; residue < threads; ++residue) {
        bytes += std::max(postings[residue], chunk.postings[residue].capacity()) *
                     sizeof(PostingIndex::Entering) +
                 std::max(dropped_slots[residue], chunk.dropped_slots[residue].capacity()) *
                     sizeof(std::uint32_t);
      }
      chunk.charge.grow_to(bytes);
      for (unsigned residue = 0; residue < threads; ++residue) {
        chunk.postings[residue].clear();
        chunk.postings[residue].reserve(postings[residue]);
        chunk.dropped_slots[residue].clear();
        chunk.dropped_slots[residue].reserve(dropped_slots[residue]);
      }
      each_slot([&](bool dropped_one, std::uint32_t slot, PostingIndex::Posting posting) {
        if (dropped_one) {
          chunk.dropped_slots[slot % threads].push_back(slot);
        } else {
          chunk.postings[slot % threads].push_back({slot, posting});
        }
      });
    };
    for (std::size_t block = 0; block < ids_.size();) {
      const std::size_t block_end = std::min(
          ids_.size(),
          block + std::clamp<std::size_t>(block / kBlockShare, kMinBlockRows, kMaxBlockRows));
      const auto block_entry = static_cast<std::uint32_t>(first_rows.size());
      // Each node of the block that is not a representative, once, in the
      // order of its first row here; the first-met ones entered.
      block_nodes.clear();
      for (auto position = static_cast<std::uint32_t>(block); position < block_end; ++position) {
        const std::uint32_t node = node_of_[position];
        if (rule.has_representative(node)) {
          continue;
        }
        const std::uint32_t place = in_block[node];
        if (place < block_nodes.size() && block_nodes[place].node == node) {
          block_nodes[place].last = position;
          continue;
        }
        in_block[node] = static_cast<std::uint32_t>(block_nodes.size());
        BlockNode& added = block_nodes.emplace_back();
        added.node = node;
        added.last = position;
        if (seen[node] == kUnmet) {
          added.entry = static_cast<std::uint32_t>(first_rows.size());
          first_rows.push_back(position);
        }
      }
      const auto block_entries = static_cast<std::uint32_t>(first_rows.size());
      entries.number(block_entries - block_entry);
      // The last block's entries that did not become representatives leave
      // the index (later probes meet representatives only), and this
      // block's enter it: each thread the slots of one residue, so what a
      // slot holds does not depend on the thread count.
      if (threads == 1) {
        if (check) {
          check();
        }
        take_out(workers[0].visited_slots);
        entries.enter(block_entry, block_entries, slots_of_entry, size_of_entry,
                      [](std::uint32_t) { return true; });
      } else {
        team.for_each_range(threads, 1, [&](unsigned thread, std::size_t begin, std::size_t end) {
          if (thread == 0 && check) {
            check();  // only the caller's thread may ask the caller
          }
          for (auto part = static_cast<std::uint32_t>(begin); part < end; ++part) {
            sort_by_residue(part, block_entry, block_entries);
          }
        });
        team.for_each_range(threads, 1, [&](unsigned thread, std::size_t begin, std::size_t end) {
          EntryMarks& visited = workers[thread].visited_slots;
          for (std::size_t residue = begin; residue < end; ++residue) {
            for (const ResidueChunk& chunk : chunks) {
              for (const std::uint32_t slot : chunk.dropped_slots[residue]) {
                visited.mark(slot);
              }
            }
            take_out_of(visited);
            for (const ResidueChunk& chunk : chunks) {
              entries.enter(chunk.postings[residue]);
            }
          }
        });
      }
      dropped.assign(block_entries - block_entry, 0);
      dropped_entries.clear();
      taken_out = 0;
      last_block_entry = block_entry;
      team.for_each_range(
          block_nodes.size(), kProbesPerRange,
          [&](unsigned thread, std::size_t begin, std::size_t end) {
            Worker& worker = workers[thread];
            for (std::size_t i = begin; i < end; ++i) {
              BlockNode& probed = block_nodes[i];
              const std::uint32_t node = probed.node;
              // The block's entries before its last row here; a first-met
              // node's own first row comes before its later ones.
              const std::uint32_t to =
                  probed.entry != LeaderRule::kNone
                      ? probed.entry
                      : static_cast<std::uint32_t>(
                            std::lower_bound(first_rows.begin() + block_entry,
                                             first_rows.begin() + block_entries, probed.last) -
                            first_rows.begin());
              probed.thread = thread;
              probed.begin = static_cast<std::uint32_t>(worker.met.size());
              const bool noted = entries.for_each_entry(
                  probe_of(node), seen[node] == kUnmet ? 0 : seen[node], block_entry, to,
                  kBlockEntryBudget, worker.marks, [&](std::uint32_t entry) {
                    if (entry >= block_entry) {
                      worker.met.push_back(entry);
                    } else if (const std::optional<double> similarity = link(worker, node, entry)) {
                      rule.offer(node, first_rows[entry], LeaderRule::kNone, -*similarity);
                    }
                  });
              std::sort(worker.met.begin() + probed.begin, worker.met.end());
              probed.end = static_cast<std::uint32_t>(worker.met.size());
              if (threads > 1) {
                verify_met(worker, probed);  // so that the rule only looks them up
              }
              // Past the budget, the rule probes the block's entries row by row.
              seen[node] = noted ? to : block_entry;
            }
          });
      if (check) {
        check();
      }
      // The rule, row by row. `made`: the entries whose first row is
      // before this one.
      std::uint32_t made = block_entry;
      // The dropped entries the row-by-row probes met since the last were
      // taken out: past a few a row of the block (a family of near copies
      // inside it, every row probed here), they are taken out at once, so
      // that those probes do not grow with the square of the family.
      std::size_t met_dropped = 0;
      // The block's `entry` offers itself to `node` if it became a
      // representative and they link (the caller's thread).
      const auto offer_entry = [&](std::uint32_t node, std::uint32_t entry) {
        if (dropped[entry - block_entry] != 0) {
          ++met_dropped;
        } else if (const std::optional<double> similarity = link(workers[0], node, entry)) {
          rule.offer(node, first_rows[entry], LeaderRule::kNone, -*similarity);
        }
      };
      // The same for an entry a thread verified: `similarity` when they link.
      const auto offer_verified_entry = [&](std::uint32_t node, std::uint32_t entry,
                                            std::optional<double> similarity) {
        if (dropped[entry - block_entry] != 0) {
          ++met_dropped;
          return;
        }
        count_verified(workers[0], node, entry, similarity.has_value());
        if (similarity) {
          rule.offer(node, first_rows[entry], LeaderRule::kNone, -*similarity);
        }
      };
      for (auto position = static_cast<std::uint32_t>(block); position < block_end; ++position) {
        while (made < block_entries && first_rows[made] < position) {
          ++made;
        }
        const std::uint32_t node = node_of_[position];
        BlockNode* settled = nullptr;
        if (!rule.has_representative(node)) {
          settled = &block_nodes[in_block[node]];
          const Worker& noted_by = workers[settled->thread];
          for (; settled->begin < settled->end && noted_by.met[settled->begin] < made;
               ++settled->begin) {
            const std::uint32_t entry = noted_by.met[settled->begin];
            if (threads == 1) {
              offer_entry(node, entry);
            } else if (noted_by.met_links[settled->begin] != 0) {
              offer_verified_entry(node, entry, noted_by.link_similarities[settled->next_link++]);
            } else {
              offer_verified_entry(node, entry, std::nullopt);
            }
          }
          if (seen[node] < made) {
            // The block's entries this row may join that the threads left.
            entries.for_each_entry(probe_of(node), seen[node], made, workers[0].marks,
                                   [&](std::uint32_t entry) { offer_entry(node, entry); });
            seen[node] = made;
            if (met_dropped > kDroppedMetPerRow * (block_end - block)) {
              take_out(workers[0].visited_slots);
              taken_out = dropped_entries.size();
              met_dropped = 0;
            }
          }
        }
        const LeaderRule::Place place = rule.place(position, node);
        joined.push_back(Joined{place.leader, place.by_offer ? -place.rank : 1.0});
        if (settled != nullptr && settled->entry != LeaderRule::kNone &&
            first_rows[settled->entry] == position && place.leader != position) {
          dropped[settled->entry - block_entry] = 1;
          dropped_entries.push_back(settled->entry);
        }
      }
      for (Worker& worker : workers) {
        worker.met.clear();
        worker.met_links.clear();
        worker.link_similarities.clear();
      }
      block = block_end;
      report_progress(progress_, "joining", block, ids_.size());
    }
    if (counts != nullptr) {
      DedupCounts counted;
      for (const Worker& worker : workers) {
        counted += worker.verifier.counts();
      }
      *counts = counted;
    }
  }
  report_progress(progress_, "grouping", 0, ids_.size());
  return rows_of_groups(joined);
}

std::vector<DedupRow> VerifiedDedup::rows_of_groups(const std::vector<Joined>& joined) const {
  // The group sizes, and the result, which is reserved at its size.
  const MemoryCharge working(ids_.size() * (sizeof(std::uint32_t) + sizeof(DedupRow)));
  std::vector<std::uint32_t> group_size(ids_.size(), 0);
  for (const Joined& row : joined) {
    ++group_size[row.leader];
  }
  // Counted first, so that the result takes its size and no more (and no
  // copy while it grows).
  std::size_t in_groups = 0;
  for (const Joined& row : joined) {
    in_groups += group_size[row.leader] >= 2 ? 1 : 0;
  }
  std::vector<DedupRow> rows;
  rows.reserve(in_groups);
  for (std::uint32_t position = 0; position < ids_.size(); ++position) {
    const Joined& row = joined[position];
    if (group_size[row.leader] >= 2) {
      rows.push_back(DedupRow{ids_[position], ids_[row.leader],
                              hamming_distance(nodes_.fingerprint_of(node_of_[position]),
                                               nodes_.fingerprint_of(node_of_[row.leader])),
                              row.similarity});
    }
  }
  return rows;
}

}  // namespace simhash

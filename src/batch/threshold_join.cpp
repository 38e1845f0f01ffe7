// SPDX-License-Identifier: MIT
// VerifiedDedup::groups_by_threshold_join, and VerifiedDedup::ThresholdJoin,
// which runs it: the join's tables are its members, and each phase of a
// block is one of its methods (list_block, enter_block, probe_block,
// settle_block).
//
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
// threads found); and the entries that did not
// become representatives leave the index (before the next block's probes,
// or at once when the rule's own probes meet many). Only a node whose probe met
// more than kBlockEntryBudget postings of the block's is probed there row
// by row (every node's way before). Blocks grow with the rows before them
// (a sixteenth), and their bounds depend on the rows alone: the same
// probes, the same counts, for any thread count.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

#include "batch/leader_rule.h"
#include "batch/pair_verifier.h"
#include "batch/prefix_filter.h"
#include "batch/verified_dedup.h"
#include "fingerprint/hamming.h"
#include "util/check_point.h"
#include "util/memory_budget.h"
#include "util/progress.h"
#include "util/thread_team.h"

namespace simhash {
namespace {

// The blocks: a sixteenth of the rows before them, so that on average a
// row meets 1/32 of its representatives in its own block's serial pass;
// from 16 rows (a few hundred rows make many blocks) to 64K. Probes go to
// the threads a few at a time.
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
// Postings entered between two counts of the work (a count may check): a
// block's prefixes are many postings where texts are long or the threshold
// low.
constexpr std::size_t kPostingsPerPiece = std::size_t{1} << 16;
// A posting entered, as steps of the work between checks (pair_verifier.h):
// its slot's bounds and line are asked for ahead, so their misses overlap.
constexpr std::size_t kStepsPerPostingEntered = 4;
// seen_ of a node no block has met yet.
constexpr std::uint32_t kUnmet = std::numeric_limits<std::uint32_t>::max();

}  // namespace

class VerifiedDedup::ThresholdJoin {
 public:
  // Builds the join's tables over `dedup`'s rows (reporting "ranking
  // features" and "indexing prefixes"); `threads` at least 1.
  ThresholdJoin(const VerifiedDedup& dedup, double threshold, std::optional<int> radius,
                const CheckPoint& check, unsigned threads);

  // Places every row, in visit order, at the end of `joined`.
  void run(std::vector<Joined>& joined);
  // What the verifiers counted, every thread's together.
  DedupCounts counts() const;

 private:
  // A node of the block being settled.
  struct BlockNode {
    std::uint32_t node = 0;
    std::uint32_t entry = LeaderRule::kNone;  // its entry, when first met in this block
    std::uint32_t last = 0;                   // its last row in the block
    // The block's entries its probe met, ascending:
    // workers_[thread].met[begin, end), `begin` moving on as the rule reaches them.
    std::uint32_t thread = 0;
    std::uint32_t begin = 0;
    std::uint32_t end = 0;
    // On several threads: the similarity of the first of [begin, end) that
    // links, in workers_[thread].link_similarities.
    std::uint32_t next_link = 0;
  };

  // A thread's own verifier, marks and notes of the block's entries.
  struct Worker {
    explicit Worker(PairVerifier verifier_in) : verifier(verifier_in) {}

    // Counts the thread's work, postings walked included, between the
    // checks of its thread's check point (thread_team.h). The block's
    // entries it met, on several threads, are verified here uncounted and
    // counted when the rule takes them, as if verified then.
    PairVerifier verifier;
    EntryMarks marks;
    std::vector<std::uint32_t> met;  // of the block's entries, by node
    // By index of met: whether the entry links; and the similarities of
    // those that do, in met's order (charged as they grow).
    std::vector<std::uint8_t> met_links;
    std::vector<double> link_similarities;
    MemoryCharge link_similarities_charge;
    EntryMarks visited_slots;  // the slots it cleaned of dropped entries
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

  // The tables the constructor builds, each phase reported first.
  static SlotRanking rank_features(const VerifiedDedup& dedup, const CheckPoint& check,
                                   unsigned threads);
  static Prefixes index_prefixes(const VerifiedDedup& dedup, const SlotRanking& ranking,
                                 double threshold, const CheckPoint& check, unsigned threads);

  // The phases of a block, in the order run() calls them.
  void list_block(std::size_t block);
  void enter_block();
  void sort_by_residue(Worker& worker, std::uint32_t part);
  void probe_block();
  void probe(unsigned thread, BlockNode& probed);
  void settle_block(std::vector<Joined>& joined);
  void offer_to_row(std::uint32_t node, BlockNode& settled);
  void end_block();

  // An entry's prefix and size, for the index.
  std::span<const std::uint32_t> slots_of_entry(std::uint32_t entry) const {
    return prefixes_.of(node_of_[first_rows_[entry]]);
  }
  std::size_t size_of_entry(std::uint32_t entry) const {
    return nodes_.features_of(node_of_[first_rows_[entry]]).hashes.size();
  }
  // The probe of `node`'s prefix.
  PostingIndex::Probe probe_of(std::uint32_t node) const {
    return PostingIndex::Probe{prefixes_.of(node), nodes_.features_of(node).hashes.size(),
                               threshold_};
  }
  // The node of `entry`'s first row, unless the radius rules out its pair
  // with `node`.
  // `verifier` counts the work.
  std::optional<std::uint32_t> node_in_reach(PairVerifier& verifier, std::uint32_t node,
                                             std::uint32_t entry) const;
  // `verifier`'s verdict on `node` and `entry` (the similarity when they
  // link), uncounted as a candidate; with `uncounted`, not in its counts at
  // all (its work between checks only).
  std::optional<double> verify(PairVerifier& verifier, std::uint32_t node, std::uint32_t entry,
                               bool uncounted = false) const;
  // The same, counted by `worker` (a candidate, and what the verification counts).
  std::optional<double> link(Worker& worker, std::uint32_t node, std::uint32_t entry) const;
  // Counts what link() counts for a pair another verifier found linked or not.
  void count_verified(Worker& worker, std::uint32_t node, std::uint32_t entry, bool linked) const;
  // Verifies the block's entries `worker` met for `probed`, uncounted.
  void verify_met(Worker& worker, BlockNode& probed) const;
  // The block's `entry` offers itself to `node` if it became a
  // representative and they link (the caller's thread).
  void offer_entry(std::uint32_t node, std::uint32_t entry);
  // The same for an entry a thread verified: `similarity` when they link.
  void offer_verified_entry(std::uint32_t node, std::uint32_t entry,
                            std::optional<double> similarity);

  // Takes the dropped entries out of the slots marked in `worker`'s
  // visited_slots (each slot once), and clears it.
  void take_out_of(Worker& worker);
  // Takes dropped_entries_[taken_out_, ...) out of their slots.
  void take_out(Worker& worker);
  // Enters the block's entries on one thread, a piece at a time: a block's
  // prefixes may hold millions of postings.
  void enter_block_entries();

  // What the join reads.
  const FeatureRows& nodes_;
  const std::vector<std::uint32_t>& node_of_;  // per row, in visit order
  const ProgressHook& progress_;
  const double threshold_;
  const std::optional<int> radius_;
  const CheckPoint& check_;  // on the caller's thread only
  const unsigned threads_;

  const SlotRanking ranking_;
  const Prefixes prefixes_;
  // The first rows of nodes, numbered in visit order; once a block is
  // settled only those that became representatives stay in it.
  PostingIndex entries_;
  // The rule, seen_, first_rows_ and in_block_ (each at most one a node), a
  // block's nodes with the entries their probes met, and a bit a slot for
  // each thread (the slots it cleaned).
  const MemoryCharge working_;
  LeaderRule rule_;
  // The entries a node has been probed against, [0, seen_): kUnmet for a
  // node no block has met yet.
  std::vector<std::uint32_t> seen_;
  std::vector<std::uint32_t> first_rows_;  // positions, by entry
  // A node's place in block_nodes_ while its block is settled.
  std::vector<std::uint32_t> in_block_;
  std::vector<BlockNode> block_nodes_;
  std::vector<Worker> workers_;  // by thread, 0 the caller's
  ThreadTeam team_;              // the loops of every block: woken, not started, for each

  // The entries of the block being settled (or the last one) that did not
  // become representatives: by entry - last_block_entry_, and listed.
  std::vector<std::uint8_t> dropped_;
  std::vector<std::uint32_t> dropped_entries_;
  std::uint32_t last_block_entry_ = 0;
  std::size_t taken_out_ = 0;         // the first dropped_entries_, out of the index already
  std::vector<ResidueChunk> chunks_;  // by part, on several threads

  // The block being settled: its rows [block_, block_end_) and its entries
  // [block_entry_, block_entries_).
  std::size_t block_ = 0;
  std::size_t block_end_ = 0;
  std::uint32_t block_entry_ = 0;
  std::uint32_t block_entries_ = 0;
  // While its rule runs: the entries whose first row is before the row
  // being placed ([block_entry_, made_)), and the dropped entries the
  // row-by-row probes met since the last were taken out (past a few a row
  // of the block, a family of near copies inside it, every row probed
  // here, they are taken out at once, so that those probes do not grow
  // with the square of the family).
  std::uint32_t made_ = 0;
  std::size_t met_dropped_ = 0;
};

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
  // `joined` outlives the join's tables, which are freed before the
  // grouping allocates its own.
  const MemoryCharge joined_charge(ids_.size() * sizeof(Joined));
  std::vector<Joined> joined;
  joined.reserve(ids_.size());
  {
    ThresholdJoin join(*this, threshold, radius, check, std::max(threads, 1U));
    join.run(joined);
    if (counts != nullptr) {
      *counts = join.counts();
    }
  }
  report_progress(progress_, "grouping", 0, ids_.size());
  return rows_of_groups(joined, check);
}

SlotRanking VerifiedDedup::ThresholdJoin::rank_features(const VerifiedDedup& dedup,
                                                        const CheckPoint& check, unsigned threads) {
  report_progress(dedup.progress_, "ranking features", 0, 0);
  return SlotRanking({&dedup.nodes_}, check, threads);
}

Prefixes VerifiedDedup::ThresholdJoin::index_prefixes(const VerifiedDedup& dedup,
                                                      const SlotRanking& ranking, double threshold,
                                                      const CheckPoint& check, unsigned threads) {
  report_progress(dedup.progress_, "indexing prefixes", 0, 0);
  return Prefixes(dedup.nodes_, ranking, threshold, check, threads);
}

VerifiedDedup::ThresholdJoin::ThresholdJoin(const VerifiedDedup& dedup, double threshold,
                                            std::optional<int> radius, const CheckPoint& check,
                                            unsigned threads)
    : nodes_(dedup.nodes_),
      node_of_(dedup.node_of_),
      progress_(dedup.progress_),
      threshold_(threshold),
      radius_(radius),
      check_(check),
      threads_(threads),
      ranking_(rank_features(dedup, check, threads)),
      prefixes_(index_prefixes(dedup, ranking_, threshold, check, threads)),
      entries_(ranking_.slot_count(), prefixes_.all(), check, threads),
      working_(
          nodes_.size() * (LeaderRule::kBytesPerNode + 3 * sizeof(std::uint32_t)) +
          std::clamp<std::size_t>(node_of_.size() / kBlockShare, kMinBlockRows, kMaxBlockRows) *
              (sizeof(BlockNode) +
               kBlockEntryBudget * (sizeof(std::uint32_t) + (threads > 1 ? 1 : 0))) +
          threads * ranking_.slot_count() / 8),
      rule_(nodes_.size(), check),
      team_(threads, check),
      chunks_(threads > 1 ? threads : 0) {
  fill_with_checks(seen_, nodes_.size(), kUnmet, check);
  fill_with_checks(in_block_, nodes_.size(), std::uint32_t{0}, check);
  workers_.reserve(threads);
  for (unsigned thread = 0; thread < threads; ++thread) {
    workers_.emplace_back(PairVerifier(threshold, false, &team_.check_point(thread)));
  }
}

void VerifiedDedup::ThresholdJoin::run(std::vector<Joined>& joined) {
  for (std::size_t block = 0; block < node_of_.size(); block = block_end_) {
    list_block(block);
    enter_block();
    probe_block();
    if (check_) {
      check_();
    }
    settle_block(joined);
    end_block();
  }
}

DedupCounts VerifiedDedup::ThresholdJoin::counts() const {
  DedupCounts counted;
  for (const Worker& worker : workers_) {
    counted += worker.verifier.counts();
  }
  return counted;
}

// The block from `block` on: each of its nodes that is not a
// representative, once, in the order of its first row here; the first-met
// ones numbered as the block's entries.
void VerifiedDedup::ThresholdJoin::list_block(std::size_t block) {
  block_ = block;
  block_end_ =
      std::min(node_of_.size(),
               block + std::clamp<std::size_t>(block / kBlockShare, kMinBlockRows, kMaxBlockRows));
  block_entry_ = static_cast<std::uint32_t>(first_rows_.size());
  block_nodes_.clear();
  for (auto position = static_cast<std::uint32_t>(block_); position < block_end_; ++position) {
    const std::uint32_t node = node_of_[position];
    if (rule_.has_representative(node)) {
      continue;
    }
    const std::uint32_t place = in_block_[node];
    if (place < block_nodes_.size() && block_nodes_[place].node == node) {
      block_nodes_[place].last = position;
      continue;
    }
    in_block_[node] = static_cast<std::uint32_t>(block_nodes_.size());
    BlockNode& added = block_nodes_.emplace_back();
    added.node = node;
    added.last = position;
    if (seen_[node] == kUnmet) {
      added.entry = static_cast<std::uint32_t>(first_rows_.size());
      first_rows_.push_back(position);
    }
  }
  block_entries_ = static_cast<std::uint32_t>(first_rows_.size());
  entries_.number(block_entries_ - block_entry_);
}

// The last block's entries that did not become representatives leave the
// index (later probes meet representatives only), and this block's enter
// it: each thread the slots of one residue, so what a slot holds does not
// depend on the thread count. Then dropped_ starts over, for this block.
void VerifiedDedup::ThresholdJoin::enter_block() {
  if (threads_ == 1) {
    if (check_) {
      check_();
    }
    take_out(workers_[0]);
    enter_block_entries();
  } else {
    team_.for_each_range(threads_, 1, [&](unsigned thread, std::size_t begin, std::size_t end) {
      team_.check_point(thread)();
      for (auto part = static_cast<std::uint32_t>(begin); part < end; ++part) {
        sort_by_residue(workers_[thread], part);
      }
    });
    team_.for_each_range(threads_, 1, [&](unsigned thread, std::size_t begin, std::size_t end) {
      Worker& worker = workers_[thread];
      for (std::size_t residue = begin; residue < end; ++residue) {
        for (const ResidueChunk& chunk : chunks_) {
          for (const std::uint32_t slot : chunk.dropped_slots[residue]) {
            worker.visited_slots.mark(slot);
          }
          worker.verifier.count_steps(chunk.dropped_slots[residue].size());
        }
        take_out_of(worker);
        for (const ResidueChunk& chunk : chunks_) {
          const std::span<const PostingIndex::Entering> postings = chunk.postings[residue];
          for (std::size_t at = 0; at < postings.size(); at += kPostingsPerPiece) {
            const std::size_t piece = std::min(kPostingsPerPiece, postings.size() - at);
            entries_.enter(postings.subspan(at, piece));
            worker.verifier.count_steps(piece * kStepsPerPostingEntered);
          }
        }
      }
    });
  }
  dropped_.assign(block_entries_ - block_entry_, 0);
  dropped_entries_.clear();
  taken_out_ = 0;
  last_block_entry_ = block_entry_;
}

// Chunk `part` of the block's entries and of the dropped entries still in
// the index, sorted by residue into chunks_[part].
void VerifiedDedup::ThresholdJoin::sort_by_residue(Worker& worker, std::uint32_t part) {
  const auto share = [&](std::size_t from, std::size_t to, std::uint32_t nth) {
    return from + (to - from) * nth / threads_;
  };
  // on_slot(dropped, slot, posting) for each posting of the chunk's
  // entries, and each slot of its dropped ones (no posting).
  const auto each_slot = [&](auto&& on_slot) {
    for (auto entry = static_cast<std::uint32_t>(share(block_entry_, block_entries_, part));
         entry < share(block_entry_, block_entries_, part + 1); ++entry) {
      PostingIndex::each_posting(entry, slots_of_entry(entry), size_of_entry(entry),
                                 [&](std::uint32_t slot, PostingIndex::Posting posting) {
                                   on_slot(false, slot, posting);
                                 });
      worker.verifier.count_steps(slots_of_entry(entry).size());
    }
    const std::size_t size = dropped_entries_.size();
    for (std::size_t i = share(taken_out_, size, part); i < share(taken_out_, size, part + 1);
         ++i) {
      for (const std::uint32_t slot : slots_of_entry(dropped_entries_[i])) {
        on_slot(true, slot, PostingIndex::Posting{});
      }
      worker.verifier.count_steps(slots_of_entry(dropped_entries_[i]).size());
    }
  };
  // Counted first, so that each list takes its size (charged) and no more.
  std::vector<std::size_t> postings(threads_, 0);
  std::vector<std::size_t> dropped_slots(threads_, 0);
  each_slot([&](bool dropped_one, std::uint32_t slot, PostingIndex::Posting) {
    ++(dropped_one ? dropped_slots : postings)[slot % threads_];
  });
  ResidueChunk& chunk = chunks_[part];
  chunk.postings.resize(threads_);
  chunk.dropped_slots.resize(threads_);
  std::size_t bytes = 0;
  for (unsigned residue = 0; residue < threads_; ++residue) {
    bytes += std::max(postings[residue], chunk.postings[residue].capacity()) *
                 sizeof(PostingIndex::Entering) +
             std::max(dropped_slots[residue], chunk.dropped_slots[residue].capacity()) *
                 sizeof(std::uint32_t);
  }
  chunk.charge.grow_to(bytes);
  for (unsigned residue = 0; residue < threads_; ++residue) {
    chunk.postings[residue].clear();
    chunk.postings[residue].reserve(postings[residue]);
    chunk.dropped_slots[residue].clear();
    chunk.dropped_slots[residue].reserve(dropped_slots[residue]);
  }
  each_slot([&](bool dropped_one, std::uint32_t slot, PostingIndex::Posting posting) {
    if (dropped_one) {
      chunk.dropped_slots[slot % threads_].push_back(slot);
    } else {
      chunk.postings[slot % threads_].push_back({slot, posting});
    }
  });
}

void VerifiedDedup::ThresholdJoin::probe_block() {
  team_.for_each_range(block_nodes_.size(), kProbesPerRange,
                       [&](unsigned thread, std::size_t begin, std::size_t end) {
                         for (std::size_t i = begin; i < end; ++i) {
                           probe(thread, block_nodes_[i]);
                         }
                       });
}

// On `thread`: the representatives made before the block offer themselves
// to `probed`'s node; the block's entries its probe meets are noted.
void VerifiedDedup::ThresholdJoin::probe(unsigned thread, BlockNode& probed) {
  Worker& worker = workers_[thread];
  const std::uint32_t node = probed.node;
  const std::uint32_t block_entry = block_entry_;
  // The block's entries before its last row here; a first-met node's own
  // first row comes before its later ones.
  const std::uint32_t to =
      probed.entry != LeaderRule::kNone
          ? probed.entry
          : static_cast<std::uint32_t>(std::lower_bound(first_rows_.begin() + block_entry,
                                                        first_rows_.begin() + block_entries_,
                                                        probed.last) -
                                       first_rows_.begin());
  probed.thread = thread;
  probed.begin = static_cast<std::uint32_t>(worker.met.size());
  const bool noted = entries_.for_each_entry(
      probe_of(node), seen_[node] == kUnmet ? 0 : seen_[node], block_entry, to, kBlockEntryBudget,
      worker.marks,
      [&](std::uint32_t entry) {
        if (entry >= block_entry) {
          worker.met.push_back(entry);
        } else if (const std::optional<double> similarity = link(worker, node, entry)) {
          rule_.offer(node, first_rows_[entry], LeaderRule::kNone, -*similarity);
        }
      },
      [&](std::size_t postings) { worker.verifier.count_slot(postings); });
  std::sort(worker.met.begin() + probed.begin, worker.met.end());
  probed.end = static_cast<std::uint32_t>(worker.met.size());
  if (threads_ > 1) {
    verify_met(worker, probed);  // so that the rule only looks them up
  }
  // Past the budget, the rule probes the block's entries row by row.
  seen_[node] = noted ? to : block_entry;
}

// The rule, row by row, on the caller's thread; a first row that did not
// become a representative drops its entry.
void VerifiedDedup::ThresholdJoin::settle_block(std::vector<Joined>& joined) {
  made_ = block_entry_;
  met_dropped_ = 0;
  for (auto position = static_cast<std::uint32_t>(block_); position < block_end_; ++position) {
    while (made_ < block_entries_ && first_rows_[made_] < position) {
      ++made_;
    }
    const std::uint32_t node = node_of_[position];
    BlockNode* settled = nullptr;
    if (!rule_.has_representative(node)) {
      settled = &block_nodes_[in_block_[node]];
      offer_to_row(node, *settled);
    }
    const LeaderRule::Place place = rule_.place(position, node);
    joined.push_back(Joined{place.leader, place.by_offer ? -place.rank : 1.0});
    if (settled != nullptr && settled->entry != LeaderRule::kNone &&
        first_rows_[settled->entry] == position && place.leader != position) {
      dropped_[settled->entry - block_entry_] = 1;
      dropped_entries_.push_back(settled->entry);
    }
  }
}

// The block's entries made before the row now placed offer themselves to
// its `node`, without a representative yet: first those its probe noted,
// then, where the probe went past its budget, those an index probe meets.
void VerifiedDedup::ThresholdJoin::offer_to_row(std::uint32_t node, BlockNode& settled) {
  const Worker& noted_by = workers_[settled.thread];
  for (; settled.begin < settled.end && noted_by.met[settled.begin] < made_; ++settled.begin) {
    const std::uint32_t entry = noted_by.met[settled.begin];
    if (threads_ == 1) {
      offer_entry(node, entry);
    } else if (noted_by.met_links[settled.begin] != 0) {
      offer_verified_entry(node, entry, noted_by.link_similarities[settled.next_link++]);
    } else {
      offer_verified_entry(node, entry, std::nullopt);
    }
  }
  if (seen_[node] < made_) {
    // The block's entries this row may join that the threads left.
    Worker& worker = workers_[0];
    entries_.for_each_entry(
        probe_of(node), seen_[node], made_, worker.marks,
        [&](std::uint32_t entry) { offer_entry(node, entry); },
        [&](std::size_t postings) { worker.verifier.count_slot(postings); });
    seen_[node] = made_;
    if (met_dropped_ > kDroppedMetPerRow * (block_end_ - block_)) {
      take_out(worker);
      taken_out_ = dropped_entries_.size();
      met_dropped_ = 0;
    }
  }
}

void VerifiedDedup::ThresholdJoin::end_block() {
  for (Worker& worker : workers_) {
    worker.met.clear();
    worker.met_links.clear();
    worker.link_similarities.clear();
  }
  report_progress(progress_, "joining", block_end_, node_of_.size());
}

std::optional<std::uint32_t> VerifiedDedup::ThresholdJoin::node_in_reach(
    PairVerifier& verifier, std::uint32_t node, std::uint32_t entry) const {
  // The entry's first row, its node and that node's features (or
  // fingerprint) are read from anywhere in their tables.
  verifier.count_steps(PairVerifier::kStepsPerMiss);
  const std::uint32_t other_node = node_of_[first_rows_[entry]];
  if (radius_ &&
      hamming_distance(nodes_.fingerprint_of(node), nodes_.fingerprint_of(other_node)) > *radius_) {
    return std::nullopt;
  }
  return other_node;
}

std::optional<double> VerifiedDedup::ThresholdJoin::verify(PairVerifier& verifier,
                                                           std::uint32_t node, std::uint32_t entry,
                                                           bool uncounted) const {
  const std::optional<std::uint32_t> other_node = node_in_reach(verifier, node, entry);
  if (!other_node) {
    return std::nullopt;
  }
  const FeatureView a = nodes_.features_of(node);
  const FeatureView b = nodes_.features_of(*other_node);
  return uncounted ? verifier.verify_uncounted(a, b) : verifier.verify(a, b);
}

std::optional<double> VerifiedDedup::ThresholdJoin::link(Worker& worker, std::uint32_t node,
                                                         std::uint32_t entry) const {
  worker.verifier.count_candidate();
  return verify(worker.verifier, node, entry);
}

void VerifiedDedup::ThresholdJoin::count_verified(Worker& worker, std::uint32_t node,
                                                  std::uint32_t entry, bool linked) const {
  worker.verifier.count_candidate();
  if (const std::optional<std::uint32_t> other_node = node_in_reach(worker.verifier, node, entry)) {
    worker.verifier.count_verified_elsewhere(nodes_.features_of(node),
                                             nodes_.features_of(*other_node), linked);
  }
}

void VerifiedDedup::ThresholdJoin::verify_met(Worker& worker, BlockNode& probed) const {
  probed.next_link = static_cast<std::uint32_t>(worker.link_similarities.size());
  worker.met_links.resize(worker.met.size());
  for (std::uint32_t j = probed.begin; j < probed.end; ++j) {
    const std::optional<double> similarity =
        verify(worker.verifier, probed.node, worker.met[j], true);
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
}

void VerifiedDedup::ThresholdJoin::offer_entry(std::uint32_t node, std::uint32_t entry) {
  if (dropped_[entry - block_entry_] != 0) {
    ++met_dropped_;
    workers_[0].verifier.count_steps(1);
  } else if (const std::optional<double> similarity = link(workers_[0], node, entry)) {
    rule_.offer(node, first_rows_[entry], LeaderRule::kNone, -*similarity);
  }
}

void VerifiedDedup::ThresholdJoin::offer_verified_entry(std::uint32_t node, std::uint32_t entry,
                                                        std::optional<double> similarity) {
  if (dropped_[entry - block_entry_] != 0) {
    ++met_dropped_;
    workers_[0].verifier.count_steps(1);
    return;
  }
  count_verified(workers_[0], node, entry, similarity.has_value());
  if (similarity) {
    rule_.offer(node, first_rows_[entry], LeaderRule::kNone, -*similarity);
  }
}

void VerifiedDedup::ThresholdJoin::take_out_of(Worker& worker) {
  entries_.remove_since(
      worker.visited_slots.marked(), last_block_entry_,
      [&](std::uint32_t other) { return dropped_[other - last_block_entry_] != 0; },
      [&](std::size_t postings) { worker.verifier.count_slot(postings); });
  worker.visited_slots.clear();
}

void VerifiedDedup::ThresholdJoin::take_out(Worker& worker) {
  for (std::size_t i = taken_out_; i < dropped_entries_.size(); ++i) {
    for (const std::uint32_t slot : slots_of_entry(dropped_entries_[i])) {
      worker.visited_slots.mark(slot);
    }
    worker.verifier.count_steps(slots_of_entry(dropped_entries_[i]).size());
  }
  take_out_of(worker);
}

void VerifiedDedup::ThresholdJoin::enter_block_entries() {
  PairVerifier& verifier = workers_[0].verifier;
  for (std::uint32_t begin = block_entry_; begin < block_entries_;) {
    std::size_t postings = 0;
    std::uint32_t end = begin;
    while (end < block_entries_ && postings < kPostingsPerPiece) {
      postings += slots_of_entry(end++).size();
    }
    entries_.enter(
        begin, end, [this](std::uint32_t entry) { return slots_of_entry(entry); },
        [this](std::uint32_t entry) { return size_of_entry(entry); },
        [](std::uint32_t) { return true; });
    verifier.count_steps(postings * kStepsPerPostingEntered);
    begin = end;
  }
}

}  // namespace simhash

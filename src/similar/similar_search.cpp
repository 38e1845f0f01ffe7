// SPDX-License-Identifier: MIT
// The exact search of similar_search.h: the plan's bounds, the byte form of
// a stored row, and the search that reads the rarest postings (or the rows
// of the sizes in the bounds, whichever is fewer) and verifies by merge.
#include "similar/similar_search.h"

#include <algorithm>
#include <cmath>
#include <compare>
#include <utility>

#include "fingerprint/feature_similarity.h"

namespace simhash {

namespace {

// Relative and absolute slack on the bounds: a double product or quotient
// is off by far less, so a row exactly at a bound stays inside.
constexpr double kRelativeSlack = 1e-9;
constexpr double kAbsoluteSlack = 1e-6;
// Sizes are bound as SQL integers (signed 64 bits).
constexpr double kLargestSize = 9.0e18;

// Work between two checks (check_point.h): a feature's postings counted
// (up to kRankingCap steps), a posting read, a candidate verified (a
// B-tree lookup and a merge).
constexpr std::size_t kFeaturesBetweenChecks = 256;
constexpr std::size_t kPostingsBetweenChecks = std::size_t{1} << 14;
constexpr std::size_t kRowsBetweenChecks = 1024;

// A query feature and how many rows hold it (kept, or counted to a cap).
// `none`: its postings in the size range were counted, exactly, as none, so
// the search need not read them (a kept count of 0 is not trusted so far: a
// damaged count only misranks).
struct Ranked {
  std::uint64_t postings = 0;
  std::uint64_t hash = 0;
  bool none = false;
  auto operator<=>(const Ranked&) const = default;
};

// The plan's probe_count features with the fewest holders (then by hash),
// rarest first: `ranked` cut to them.
std::vector<Ranked> keep_rarest(std::vector<Ranked> ranked, std::size_t probe_count) {
  const auto chosen_end = ranked.begin() + static_cast<std::ptrdiff_t>(probe_count);
  std::nth_element(ranked.begin(), chosen_end - 1, ranked.end());
  ranked.erase(chosen_end, ranked.end());
  std::sort(ranked.begin(), ranked.end());
  return ranked;
}

// Ranks where the store keeps counts: the query's features in their order
// (ascending hashes, no order of rarity), each by its postings in the size
// range counted up to kCheapPostings, until p of them hold fewer than that
// there. A count is a B-tree seek to the postings a probe of that feature
// reads next (the same page, or two), so a feature counted costs about a
// page and a feature probed no second one; any p features serve (the
// header), so this only ever stops early. The walk gives up once p below
// the cap cannot be reached, or, after kRankingSampleCheck features, once
// their share so far would not give p in the whole query; then the
// features at the cap are counted again up to kFewPostings (their pages
// are at hand) and the walk goes on at that cap (a templated text's
// features are all held by its family: their kept counts would not rank
// them better). Only when that gives up too are the features at the cap,
// and those not walked, ranked by their kept counts (one lookup each,
// every size: a count only bounds the postings in the range from above).
std::vector<Ranked> rank_by_kept_counts(std::span<const std::uint64_t> query,
                                        const SimilarPlan& plan, SimilarStore& store,
                                        const CheckPoint& check, SimilarCounts& count) {
  std::vector<Ranked> ranked;
  ranked.reserve(query.size());
  const std::size_t p = plan.probe_count;
  std::size_t next = 0;
  std::size_t below = 0;
  for (const std::uint64_t cap : {kCheapPostings, kFewPostings}) {
    if (cap != kCheapPostings) {
      below = 0;
      std::size_t recounted = 0;
      for (Ranked& feature : ranked) {
        if (feature.postings >= kCheapPostings) {
          feature.postings = store.count_postings(feature.hash, plan.sizes, cap);
          ++count.ranking_steps;
          check_after_every(recounted++, kFeaturesBetweenChecks / 4, check);
        }
        below += feature.postings < cap ? 1 : 0;
      }
    }
    for (; next < query.size() && below < p; ++next) {
      if (next - below + p > query.size() ||
          (next >= kRankingSampleCheck && below * query.size() < p * next)) {
        break;
      }
      const std::uint64_t held = store.count_postings(query[next], plan.sizes, cap);
      ranked.push_back({held, query[next], held == 0});
      below += held < cap ? 1 : 0;
      ++count.ranking_steps;
      check_after_every(next, kFeaturesBetweenChecks, check);
    }
    if (below >= p) {
      return keep_rarest(std::move(ranked), p);
    }
  }
  for (Ranked& feature : ranked) {
    if (feature.postings >= kFewPostings) {
      feature.postings = std::max(kFewPostings, store.feature_count(feature.hash));
      ++count.ranking_steps;
    }
  }
  for (; next < query.size(); ++next) {
    ranked.push_back({store.feature_count(query[next]), query[next]});
    ++count.ranking_steps;
    check_after_every(next, kFeaturesBetweenChecks, check);
  }
  return keep_rarest(std::move(ranked), p);
}

// Ranks by postings in the size range counted up to a cap: first up to
// kFirstRankingCap each; only when the rarer ones are too few are the
// features at that cap counted again, up to kRankingCap.
std::vector<Ranked> rank_by_postings(std::span<const std::uint64_t> query, const SimilarPlan& plan,
                                     SimilarStore& store, const CheckPoint& check,
                                     SimilarCounts& count) {
  std::vector<Ranked> ranked;
  ranked.reserve(query.size());
  for (std::size_t i = 0; i < query.size(); ++i) {
    const std::uint64_t held = store.count_postings(query[i], plan.sizes, kFirstRankingCap);
    ranked.push_back({held, query[i], held == 0});
    count.ranking_steps += held;
    check_after_every(i, kFeaturesBetweenChecks, check);
  }
  const auto chosen_end = ranked.begin() + static_cast<std::ptrdiff_t>(plan.probe_count);
  std::nth_element(ranked.begin(), chosen_end - 1, ranked.end());
  if ((chosen_end - 1)->postings >= kFirstRankingCap) {
    std::size_t recounted = 0;
    for (Ranked& feature : ranked) {
      if (feature.postings >= kFirstRankingCap) {
        feature.postings = store.count_postings(feature.hash, plan.sizes, kRankingCap);
        count.ranking_steps += feature.postings;
        check_after_every(recounted++, kFeaturesBetweenChecks / 16, check);
      }
    }
  }
  return keep_rarest(std::move(ranked), plan.probe_count);
}

}  // namespace

void SimilarStore::read_row_pieces(
    std::int64_t id, std::uint64_t /*size*/,
    const std::function<bool(std::span<const std::uint64_t>)>& on_piece) {
  std::vector<std::uint64_t> hashes;
  read_row(id, hashes);
  on_piece(hashes);
}

SimilarPlan plan_similar_query(std::size_t query_size, double threshold) {
  const auto size = static_cast<double>(query_size);
  // m = ceil(t |x|), taken low; at least 1, since J >= t > 0 needs a shared feature.
  const double low = threshold * size * (1 - kRelativeSlack) - kAbsoluteSlack;
  const std::size_t shared =
      std::max<std::size_t>(1, low <= 0 ? 0 : static_cast<std::size_t>(std::ceil(low)));
  SimilarPlan plan;
  plan.probe_count = query_size >= shared ? query_size - shared + 1 : 0;
  plan.sizes.lowest = shared;
  const double high =
      std::min(kLargestSize, size / threshold * (1 + kRelativeSlack) + kAbsoluteSlack);
  plan.sizes.highest = static_cast<std::uint64_t>(std::floor(high));
  return plan;
}

std::string encode_features(std::span<const std::uint64_t> hashes) {
  std::string bytes(hashes.size() * 8, '\0');
  std::size_t at = 0;
  for (std::uint64_t hash : hashes) {
    for (int byte = 0; byte < 8; ++byte) {
      bytes[at++] = static_cast<char>(static_cast<unsigned char>(hash & 0xffU));
      hash >>= 8U;
    }
  }
  return bytes;
}

bool decode_features(std::span<const unsigned char> bytes, std::vector<std::uint64_t>& out) {
  out.clear();
  if (bytes.size() % 8 != 0) {
    return false;
  }
  out.reserve(bytes.size() / 8);
  for (std::size_t at = 0; at < bytes.size(); at += 8) {
    std::uint64_t hash = 0;
    for (int byte = 7; byte >= 0; --byte) {
      hash = (hash << 8U) | bytes[at + static_cast<std::size_t>(byte)];
    }
    if (!out.empty() && hash <= out.back()) {
      return false;
    }
    out.push_back(hash);
  }
  return true;
}

namespace {

// Whether `a` comes before `b` in an answer: most similar first, then by id.
bool earlier(const SimilarMatch& a, const SimilarMatch& b) {
  return a.similarity != b.similarity ? a.similarity > b.similarity : a.id < b.id;
}

// The answer as it is found: every match, or with a limit the `limit`
// earliest so far. Once it holds `limit`, its last similarity is the bar a
// row must reach to enter (a row at the bar with a lower id enters too), so
// the search raises its threshold to it and leaves unread a row whose
// similarity cannot reach it.
class Answer {
 public:
  Answer(double threshold, std::size_t limit) : threshold_(threshold), limit_(limit) {}

  // The threshold a row must reach now.
  double bar() const { return full() ? matches_.back().similarity : threshold_; }
  // Whether a row whose similarity is at most `highest` can enter: false
  // only when it is surely below the bar (highest is a computed bound, so
  // it is raised by the slack before the comparison).
  bool reachable(double highest) const {
    return !full() || highest * (1 + kRelativeSlack) + kAbsoluteSlack >= bar();
  }
  void add(const SimilarMatch& match) {
    if (limit_ == 0) {
      matches_.push_back(match);
      return;
    }
    if (full()) {
      if (!earlier(match, matches_.back())) {
        return;
      }
      matches_.pop_back();
    }
    matches_.insert(std::upper_bound(matches_.begin(), matches_.end(), match, earlier), match);
  }
  // With a limit, add kept the matches in answer order (each one inserted
  // at its place), so only the unlimited answer, appended as found, needs
  // the sort.
  std::vector<SimilarMatch> take() {
    if (limit_ == 0) {
      std::sort(matches_.begin(), matches_.end(), earlier);
    }
    return std::move(matches_);
  }

 private:
  bool full() const { return limit_ != 0 && matches_.size() >= limit_; }

  double threshold_;
  std::size_t limit_;
  std::vector<SimilarMatch> matches_;
};

// The highest set Jaccard a row of `size` features can have with a query of
// `query_size` when at most `overlap` of them can be shared.
double highest_similarity(std::uint64_t overlap, std::uint64_t query_size, std::uint64_t size) {
  overlap = std::min({overlap, query_size, size});
  return static_cast<double>(overlap) / static_cast<double>(query_size + size - overlap);
}

}  // namespace

std::vector<SimilarMatch> find_similar(std::span<const std::uint64_t> query, double threshold,
                                       SimilarStore& store, const CheckPoint& check,
                                       SimilarCounts* counts, std::size_t limit) {
  SimilarCounts local;
  SimilarCounts& count = counts != nullptr ? *counts : local;
  Answer answer(threshold, limit);
  const SimilarPlan plan = plan_similar_query(query.size(), threshold);
  if (query.empty() || plan.probe_count == 0) {
    return answer.take();
  }
  std::size_t verified = 0;
  // A row's size is known before a feature of it is read (its posting's, or
  // its entry among the sizes): the verification reads the row only until
  // its verdict is known (SetJaccardMerge), at the answer's bar.
  const auto verify = [&](std::int64_t id, std::uint64_t size) {
    ++count.checked;
    SetJaccardMerge merge(query, static_cast<std::size_t>(size), answer.bar());
    store.read_row_pieces(id, size, [&](std::span<const std::uint64_t> piece) {
      const bool more = merge.take(piece);
      count.row_features += piece.size();
      return more;
    });
    if (const auto similarity = merge.similarity()) {
      answer.add({id, *similarity});
    }
    check_after_every(verified++, kRowsBetweenChecks, check);
  };
  // A candidate row: its id, size, and the highest similarity it can have.
  struct Candidate {
    std::int64_t id;
    std::uint64_t size;
    double highest;
  };
  // With a limit, the candidates that can be the most similar are verified
  // first, and those that cannot reach the bar once the answer is full are
  // left unread: the rest are no more similar than the one that stopped.
  const auto verify_by_highest = [&](std::vector<Candidate>& candidates) {
    std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
      return a.highest != b.highest ? a.highest > b.highest : a.id < b.id;
    });
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      if (!answer.reachable(candidates[i].highest)) {
        count.beyond_limit += candidates.size() - i;
        return;
      }
      verify(candidates[i].id, candidates[i].size);
    }
  };
  const auto verify_sizes = [&] {
    count.scanned_sizes = true;
    if (limit == 0) {
      store.read_row_sizes(plan.sizes, verify);
      return;
    }
    // The sizes alone bound the similarity: min(|x|, |y|) / max(|x|, |y|).
    std::vector<Candidate> rows;
    store.read_row_sizes(plan.sizes, [&](std::int64_t id, std::uint64_t size) {
      rows.push_back({id, size, highest_similarity(size, query.size(), size)});
    });
    verify_by_highest(rows);
  };

  // A candidate per posting read: a row found in h of the probed lists.
  struct Posting {
    std::int64_t id;
    std::uint64_t size;
  };
  std::vector<Posting> candidates;
  std::size_t probed_lists = 0;
  const std::uint64_t direct_rows = kDirectRows + query.size() / kFeaturesPerDirectRow;
  bool scan = store.count_rows(plan.sizes, direct_rows + 1) <= direct_rows;
  if (!scan) {
    const bool kept = store.keeps_feature_counts();
    const std::vector<Ranked> ranked = kept ? rank_by_kept_counts(query, plan, store, check, count)
                                            : rank_by_postings(query, plan, store, check, count);
    // Bounded work: postings beyond the rows of these sizes are not read;
    // those rows are verified instead. The rows are counted up to what the
    // postings are known to hold, and again, twice as far, each time the
    // postings read pass that (so counting costs at most twice the reading).
    // Kept counts hold every size, so they may be far above the postings in
    // the range: then only the postings read decide (the rows are known to
    // be more than direct_rows).
    std::uint64_t rows_at_least = direct_rows + 1;
    if (!kept) {
      std::uint64_t expected = 0;
      for (const Ranked& feature : ranked) {
        expected += feature.postings;
      }
      rows_at_least = store.count_rows(plan.sizes, expected + 1);
      scan = rows_at_least <= expected;
    }
    std::uint64_t read = 0;
    for (auto it = ranked.begin(); it != ranked.end() && !scan; ++it) {
      ++probed_lists;
      if (it->none) {
        continue;  // counted: no posting in the range
      }
      ++count.probed_features;
      store.read_postings(it->hash, plan.sizes, [&](std::int64_t id, std::uint64_t size) {
        candidates.push_back({id, size});
        ++read;
        check_after_every(static_cast<std::size_t>(read), kPostingsBetweenChecks, check);
        if (read > rows_at_least) {
          rows_at_least = store.count_rows(plan.sizes, 2 * read + 1);
          scan = rows_at_least <= read;
        }
        return !scan;
      });
    }
    count.postings += read;
  }
  if (scan) {
    verify_sizes();
  } else {
    // The count filter: a row of size s at the threshold shares at least
    // t (|x| + s) / (1 + t) features with the query (J >= t rearranged), and
    // shares at most h + (|x| - probed) when it is in h of the probed lists
    // (the features not probed may all be shared). A row that cannot reach
    // it is dropped without reading it; the bound is taken low, so a
    // rounding only keeps a row for the verification to decide.
    std::sort(candidates.begin(), candidates.end(),
              [](const Posting& a, const Posting& b) { return a.id < b.id; });
    const auto query_size = static_cast<double>(query.size());
    const std::size_t not_probed = query.size() - probed_lists;
    std::vector<Candidate> kept;
    for (std::size_t begin = 0; begin < candidates.size();) {
      std::size_t end = begin + 1;
      while (end < candidates.size() && candidates[end].id == candidates[begin].id) {
        ++end;
      }
      const std::size_t hits = end - begin;
      const double shared_at_least =
          threshold * (query_size + static_cast<double>(candidates[begin].size)) / (1 + threshold) *
              (1 - kRelativeSlack) -
          kAbsoluteSlack;
      if (static_cast<double>(hits + not_probed) < shared_at_least) {
        ++count.pruned;
      } else if (limit == 0) {
        verify(candidates[begin].id, candidates[begin].size);
      } else {
        kept.push_back(
            {candidates[begin].id, candidates[begin].size,
             highest_similarity(hits + not_probed, query.size(), candidates[begin].size)});
      }
      begin = end;
    }
    verify_by_highest(kept);
  }
  return answer.take();
}

}  // namespace simhash

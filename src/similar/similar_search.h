// SPDX-License-Identifier: MIT
// The engine of simhash_similar: every stored set of features whose set
// Jaccard with a query set is at least a threshold, none missed, read
// through a SimilarStore (the glue's shadow tables, or a test's model),
// plus the byte form a stored set is kept in.
//
// Why the search is exact (the one-sided prefix principle). Let x be the
// query's distinct features, y a stored row's, t the threshold and
// m = ceil(t |x|). If J(x, y) = |x n y| / |x u y| >= t, then
//   |x n y| >= t |x u y| >= t |x|, so |x n y| >= m;
//   t |x| <= |y| <= |x| / t, since J <= min(|x|, |y|) / max(|x|, |y|).
// Take ANY p = |x| - m + 1 features of x. The other |x| - p = m - 1 cannot
// hold all of the at least m shared ones, so y holds one of the p. Every
// row at the threshold is therefore in the postings of the p chosen
// features within the size bounds; the search reads those postings (or, when
// they are more than the rows of the sizes in the bounds, those rows), and
// verifies each candidate with the number simhash_jaccard() computes. The
// choice of the p features (the rarest, by their postings now) only decides
// the cost, never the answer, so the answer cannot depend on when a row was
// written. m and the bounds are taken a little loose, so a rounding only
// adds candidates: the verification then decides, with the double that
// simhash_jaccard returns compared to t, as a scan of the texts would.
// A store may keep postings under a key of the feature that several
// features share (the top 32 bits of its hash, from format 3): the
// postings of a feature's key hold every row that holds the feature, so
// the shared key only adds candidates, and counts of them only bound the
// feature's from above (a row found in h probed lists shares at most h +
// |x| - p features still, so the count filter below stays exact).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "util/check_point.h"

namespace simhash {

// The stored sizes a row at the threshold can have, inclusive.
struct SizeRange {
  std::uint64_t lowest = 0;
  std::uint64_t highest = 0;
};

// What a query of `query_size` features (at least 1) at `threshold` in
// (0, 1] reads: any `probe_count` of its features, and rows of `sizes`.
struct SimilarPlan {
  std::size_t probe_count = 0;
  SizeRange sizes;
};
SimilarPlan plan_similar_query(std::size_t query_size, double threshold);

// A stored row's features as bytes: each hash as 8 bytes little-endian, in
// ascending order, so a database file is the same on every machine.
std::string encode_features(std::span<const std::uint64_t> hashes);
// The hashes of encode_features' bytes; false (and `out` unspecified) when
// the bytes are not a whole number of hashes in strictly ascending order.
bool decode_features(std::span<const unsigned char> bytes, std::vector<std::uint64_t>& out);

// What the search reads. Postings are (feature, size, id) with `size` the
// row's feature count; every call restricts them to a SizeRange.
class SimilarStore {
 public:
  virtual ~SimilarStore() = default;
  // The rows that hold `feature` (or its shared key: more, never fewer)
  // with a size in `sizes`, counted up to
  // `limit`: exact below it (0: none, and the search then reads none), at
  // least `limit` when there are that many.
  virtual std::uint64_t count_postings(std::uint64_t feature, SizeRange sizes,
                                       std::uint64_t limit) = 0;
  // Calls on_posting for each of them, with the row's size, while it
  // returns true.
  virtual void read_postings(
      std::uint64_t feature, SizeRange sizes,
      const std::function<bool(std::int64_t id, std::uint64_t size)>& on_posting) = 0;
  // The rows with a size in `sizes`, counted up to `limit`.
  virtual std::uint64_t count_rows(SizeRange sizes, std::uint64_t limit) = 0;
  // Calls on_row with each of them: its id and size.
  virtual void read_row_sizes(
      SizeRange sizes, const std::function<void(std::int64_t id, std::uint64_t size)>& on_row) = 0;
  // Row `id`'s ascending hashes into `out`.
  virtual void read_row(std::int64_t id, std::vector<std::uint64_t>& out) = 0;
  // Row `id`'s ascending hashes, `size` of them (as its posting or
  // read_row_sizes gave it), in pieces: on_piece with each next piece, in
  // order, while it returns true. The verification reads every row so: a
  // long row is left once its verdict is known, and the pieces after it are
  // never read (the glue reads a long row's bytes from the file a piece at a
  // time). By default the whole row, as one piece.
  virtual void read_row_pieces(std::int64_t id, std::uint64_t size,
                               const std::function<bool(std::span<const std::uint64_t>)>& on_piece);
  // Whether the store keeps, per feature, how many rows hold it (of any
  // size); then feature_count is that number, one lookup, and the search
  // ranks by it instead of counting postings (count_postings).
  virtual bool keeps_feature_counts() { return false; }
  virtual std::uint64_t feature_count(std::uint64_t /*feature*/) { return 0; }
};

struct SimilarMatch {
  std::int64_t id = 0;
  double similarity = 0;

  bool operator==(const SimilarMatch&) const = default;
};

// What one search did, for tests and benchmarks.
struct SimilarCounts {
  std::uint64_t probed_features = 0;  // features whose postings were read
  std::uint64_t postings = 0;         // postings read
  std::uint64_t checked = 0;          // rows verified
  std::uint64_t row_features = 0;     // features of verified rows read (pieces whole)
  std::uint64_t pruned = 0;           // candidates dropped by their count of probed features
  std::uint64_t ranking_steps = 0;    // kept counts looked up, or postings counted to rank
  std::uint64_t beyond_limit = 0;     // candidates left unread: below the n most similar
  bool scanned_sizes = false;         // verified the rows of the size range instead
};

// Where the store keeps a count per feature (keeps_feature_counts), a
// query is ranked on its first features' postings (kCheapPostings below)
// and, where that is not enough, by the kept counts, one lookup a feature: a
// kept count covers every size, so it only bounds the postings in the size
// range from above, and the search does not use it to choose the size scan
// up front; the postings read decide that (bounded work below). Where it
// keeps none (a table of format 1):
// Postings counted exactly up to this many when ranking a query's features:
// a feature held by more rows is ranked after every rarer one, and among its
// like by hash. Any p features serve (above), so the cap only costs time
// where more than the rare ones are needed. Counted first up to
// kFirstRankingCap, which is enough when the p rarest are below it; the
// others are counted again to kRankingCap only when they are needed. (On
// the changelog benchmark this changed neither median nor tail: its slow
// queries need the second count anyway. A kept count per feature would
// make the ranking one lookup a feature; docs/similar.md.)
inline constexpr std::uint64_t kFirstRankingCap = 16;
inline constexpr std::uint64_t kRankingCap = 256;
// Size ranges of at most kDirectRows rows, plus one row per
// kFeaturesPerDirectRow query features, are verified row by row without
// ranking the query's features (a huge query text meets few rows of its
// size). Ranking a long query costs a B-tree seek per feature it counts
// (at least p of them, p about a fifth of its features at t = 0.8), a page
// each where the pages are not cached; verifying a row costs its leaf page
// and, for a long row, the pieces read before its verdict is known
// (SimilarStore::read_row_pieces), most often one or two pages. On the 1M
// benchmark a 3,400-feature licence with 166 rows of its sizes read 841
// pages ranked and 465 verified directly in pieces (bench/BENCH.md, "Texts
// similar to one: simhash_similar"); at one row per 32 features
// (before the pieces) it was ranked.
inline constexpr std::uint64_t kDirectRows = 16;
inline constexpr std::uint64_t kFeaturesPerDirectRow = 8;
// Where the store keeps counts, a query is ranked, first, on its features
// in their order (ascending hashes, which is no order of rarity), by their
// postings in the size range counted up to kCheapPostings, until p of them
// (p the plan's probe_count) hold fewer than that: those are probed, their
// postings at hand (the count read the same B-tree pages, one or two, so a
// probe costs no second page where a text's pages are not cached). The walk
// gives up once p below the cap cannot be reached, or, after
// kRankingSampleCheck features, once their share so far would not give p
// in the whole query; then it goes on at kFewPostings (a templated text's
// features are all held by the rows of its family, so its kept counts rank
// them no better), and only when that gives up too is every feature at the
// cap or not counted ranked by its kept count. Any p features serve
// (above): the walk only saves lookups, never changes the answer. A kept
// count is a random page of its own (format 2; format 3's is the page of
// the key's postings, a page each all the same), so ranking every feature
// by it would read most of a cold insert's pages (bench/BENCH.md, "Texts
// similar to one: simhash_similar").
// kCheapPostings is a page of postings or less; kFewPostings about two.
inline constexpr std::uint64_t kCheapPostings = 64;
inline constexpr std::uint64_t kFewPostings = 192;
inline constexpr std::size_t kRankingSampleCheck = 16;

// Every stored row whose set Jaccard with `query` (ascending, distinct; empty
// finds nothing) is at least `threshold`, with it, most similar first (then
// by id). `check` runs between bounded pieces of work (check_point.h).
//
// With a `limit` n > 0, the first n of that answer, found with a rising
// threshold: the candidates are verified in the order of the highest
// similarity they can have (from the shared features they can still hold:
// the count filter's bound, or the sizes alone for the rows of a size
// range), each at the similarity of the n-th match so far once n are held,
// and the verification stops at the first that cannot reach it. Exact: a
// row left unread can be at most as similar as its bound, which is below
// the n-th match's (ties with it by id are read, so the lower id wins).
std::vector<SimilarMatch> find_similar(std::span<const std::uint64_t> query, double threshold,
                                       SimilarStore& store, const CheckPoint& check = {},
                                       SimilarCounts* counts = nullptr, std::size_t limit = 0);

}  // namespace simhash

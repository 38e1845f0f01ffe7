// SPDX-License-Identifier: MIT
// simhash_dedup's candidate policy: which pairs a dedup verifies, for the
// verification options and the radius as the user gave them (left out,
// NULL, or a number of bits), and what EXPLAIN QUERY PLAN says of it.
//
//   radius     word, weight=binary    char, weight=binary   weighted
//   left out   the join               within 10 bits        within 10 bits
//   NULL       the join               the join              refused
//   n bits     the join, pairs more   within n bits         within n bits
//              than n apart dropped
//
// "The join" is verified_dedup.h's exact set-similarity join; "within" its
// candidates within a Hamming radius. Why the radius left out differs by
// options: on 323,256 real descriptions the join finds more pairs than
// radius 10 (44,842 rows removed against 44,134) at about the same cost,
// radius 10 taking the join too (7.7 s of CPU against 18.7 s when radius 10
// still checked every pair within it); the join cannot serve weighted
// options, and character shingles share so many features that the join is
// slower than the radius (30,000 English descriptions, char n=4 at 0.75:
// 15.8 s against 2.3 s; bench/BENCH.md, "One-statement dedup on real
// text"). So those keep the recipe's radius.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "fingerprint/simhash_options.h"

namespace simhash {

// The radius taken when it is left out and the join does not serve.
inline constexpr int kDedupFallbackRadius = 10;

// The radius argument as the user gave it.
struct DedupRadius {
  enum class Given { kLeftOut, kNull, kBits };

  Given given = Given::kLeftOut;
  std::int64_t bits = 0;  // for kBits

  static DedupRadius left_out() { return {}; }
  static DedupRadius null() { return {Given::kNull, 0}; }
  static DedupRadius of(std::int64_t bits) { return {Given::kBits, bits}; }
};

enum class DedupPath {
  kThresholdJoin,  // VerifiedDedup::groups_by_threshold_join
  kWithinRadius,   // VerifiedDedup::groups_within_radius
};

struct DedupCandidates {
  DedupPath path;
  // Within the radius: the radius. The join: pairs farther apart are
  // dropped; none means every pair at the threshold counts.
  std::optional<int> radius;

  bool operator==(const DedupCandidates&) const = default;
};

// The candidates for `verification` (the options as parsed) and `radius`
// (bits from 0 to 64). On a refusal (radius NULL with weights, which the
// join cannot serve, or bits out of range) returns nullopt and sets `error`
// to a message naming what was asked for and what to do instead.
std::optional<DedupCandidates> choose_dedup_candidates(const SimhashOptions& verification,
                                                       DedupRadius radius, std::string& error);

// What EXPLAIN QUERY PLAN says of the candidates chosen; `radius_left_out`
// (the radius not given, or given as 'default') says the options chose.
std::string describe_dedup_candidates(const DedupCandidates& chosen, bool radius_left_out);

// What it says when the radius or the options are known only at run time.
std::string describe_dedup_candidates_at_run_time();

}  // namespace simhash

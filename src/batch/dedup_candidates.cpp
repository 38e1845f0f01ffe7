// SPDX-License-Identifier: MIT
// simhash_dedup's candidate policy (dedup_candidates.h).
#include "batch/dedup_candidates.h"

namespace simhash {

std::optional<DedupCandidates> choose_dedup_candidates(const SimhashOptions& verification,
                                                       DedupRadius radius, std::string& error) {
  const bool binary = verification.weight == WeightScheme::binary;
  const bool join_serves = binary && verification.unit == TokenUnit::word;
  switch (radius.given) {
    case DedupRadius::Given::kLeftOut:
      return join_serves ? DedupCandidates{DedupPath::kThresholdJoin, std::nullopt}
                         : DedupCandidates{DedupPath::kWithinRadius, kDedupFallbackRadius};
    case DedupRadius::Given::kNull:
      if (!binary) {
        error =
            "radius NULL (every pair at the threshold) serves set Jaccard, weight=binary, with "
            "any unit and n; the options ask for " +
            to_string(verification) + ": add weight=binary or give a radius";
        return std::nullopt;
      }
      return DedupCandidates{DedupPath::kThresholdJoin, std::nullopt};
    case DedupRadius::Given::kBits:
      break;
  }
  if (radius.bits < 0 || radius.bits > 64) {
    error = "the radius must be from 0 to 64 bits, got " + std::to_string(radius.bits);
    return std::nullopt;
  }
  // Word shingles with binary weights take the join with a radius too: at
  // radius 10 on real text it checks a fraction of the pairs within it.
  return DedupCandidates{join_serves ? DedupPath::kThresholdJoin : DedupPath::kWithinRadius,
                         static_cast<int>(radius.bits)};
}

std::string describe_dedup_candidates(std::optional<DedupRadius> radius) {
  if (!radius) {
    return "candidates within the radius given at run time";
  }
  switch (radius->given) {
    case DedupRadius::Given::kLeftOut:
      return "every pair at the threshold (no radius: a set-similarity join; weighted or "
             "character options: within " +
             std::to_string(kDedupFallbackRadius) + " bits)";
    case DedupRadius::Given::kNull:
      return "every pair at the threshold (radius NULL: a set-similarity join)";
    case DedupRadius::Given::kBits:
      break;
  }
  return "candidates within " + std::to_string(radius->bits) + " bits";
}

}  // namespace simhash

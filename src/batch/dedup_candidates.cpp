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

std::string describe_dedup_candidates(const DedupCandidates& chosen, bool radius_left_out) {
  const std::string chooser = radius_left_out ? "radius left out, for these options " : "";
  if (!chosen.radius) {
    return chooser + "every pair at the threshold (a set-similarity join)";
  }
  const std::string bits = std::to_string(*chosen.radius) + " bits";
  return chooser + (chosen.path == DedupPath::kThresholdJoin
                        ? "the set-similarity join's pairs within " + bits
                        : "candidates within " + bits + " (block-permutation tables)");
}

std::string describe_dedup_candidates_at_run_time() {
  return "candidates by the radius and options given at run time (" +
         describe_dedup_candidates({DedupPath::kThresholdJoin, std::nullopt}, false) + ", or " +
         describe_dedup_candidates({DedupPath::kWithinRadius, kDedupFallbackRadius}, false) + ")";
}

}  // namespace simhash

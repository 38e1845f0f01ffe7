// SPDX-License-Identifier: MIT
// The kernels behind FingerprintAccumulator: add each feature's weight to the
// 64 per-bit totals (+weight where the hash bit is set, -weight where it is
// clear). A portable scalar kernel plus AVX2 and AVX-512 kernels compiled with
// per-function target attributes and chosen at run time from the CPU's
// features, so the build needs no -march flag.
//
// Every kernel gives bit-identical totals: each bit's total receives the
// features' signed weights one by one, in the order given, as the scalar loop
// does (no reassociation, no FMA), and -weight is the exact IEEE negation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace simhash {

// totals[bit] += (hashes[i] bit set ? weights[i] : -weights[i]) for i in
// [0, count), in increasing i.
using VoteFunction = void (*)(double* totals, const std::uint64_t* hashes, const double* weights,
                              std::size_t count);

struct VoteKernel {
  std::string_view name;  // "scalar", "avx2", "avx512"
  VoteFunction vote;
};

// The kernels this CPU can run: scalar first (the portable reference every
// other kernel must agree with), the fastest last.
std::span<const VoteKernel> vote_kernels_on_this_cpu();

// The kernel accumulators use: the fastest one this CPU runs, unless a
// benchmark or test replaced it with use_vote_kernel (process-wide).
const VoteKernel& active_vote_kernel();

// Makes `kernel` (one of vote_kernels_on_this_cpu()) the active kernel for the
// whole process (accumulators created afterwards use it). Meant for
// benchmarks comparing kernels in one run. Throws std::invalid_argument for a
// kernel this CPU cannot run.
void use_vote_kernel(const VoteKernel& kernel);

}  // namespace simhash

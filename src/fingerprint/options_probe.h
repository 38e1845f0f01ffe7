// SPDX-License-Identifier: MIT
// A number that names the features an option set gives: the hash of the
// feature hashes of one fixed probe text under the options. A table that
// stores features (simhash_similar) stores it beside its options, so an
// options text changed by hand, or a tokenizer that cuts the probe
// otherwise, is caught when the table is opened instead of answering wrong.
#pragma once

#include <cstdint>

#include "fingerprint/simhash_options.h"

namespace simhash {

// Equal for two option sets when their features of the probe are equal
// (whatever the weights): words, numbers, operators, brackets, dashes and
// two scripts, so that each option changes it. ICU failures throw
// std::runtime_error.
std::uint64_t options_probe(const SimhashOptions& options);

}  // namespace simhash

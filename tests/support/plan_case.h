// SPDX-License-Identifier: MIT
// A permutation plan and bucket bits as a parameter of the tests that run
// over several of them (tests/index/, tests/sql/), and its test name.
#pragma once

#include <string>

namespace simhash::testing {

struct PlanCase {
  int k;
  int blocks;
  int bucket_bits;  // in the SQL tests, 0: the module's own start (16)
};

// "k3_blocks4_bits16", for INSTANTIATE_TEST_SUITE_P.
inline std::string plan_case_name(const PlanCase& plan) {
  std::string name = "k";  // appends: GCC 12 warns on "k" + std::string
  name += std::to_string(plan.k);
  name += "_blocks";
  name += std::to_string(plan.blocks);
  name += "_bits";
  name += std::to_string(plan.bucket_bits);
  return name;
}

}  // namespace simhash::testing

// SPDX-License-Identifier: MIT
// A permutation plan and bucket bits as a parameter of the tests that run
// over several of them (tests/index/, tests/sql/), and its test name; and
// the plan itself for the engine tests, made from (k, blocks).
#pragma once

#include <stdexcept>
#include <string>

#include "index/permutation_plan.h"

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

// The plan (k, blocks); the test fails if the engine refuses it (thrown, so
// that no test goes on with a plan other than the one it names).
inline PermutationPlan make_plan(int k, int blocks) {
  std::string error;
  auto plan = PermutationPlan::create(k, blocks, error);
  if (!plan) {
    throw std::invalid_argument(error);
  }
  return *plan;
}

}  // namespace simhash::testing

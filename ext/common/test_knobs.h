// SPDX-License-Identifier: MIT
// Whether this build accepts the CREATE options that exist for tests alone:
// simhash_index's packed_scan_limit, flush_after and load_buckets_after,
// simhash_similar's flush_after. They make a test reach a flush, a scan or
// the copy of the buckets with a few rows. A
// build with tests (-DSIMHASH_BUILD_TESTS=ON) defines SIMHASH_TEST_KNOBS for
// the module the tests load; any other build (the README's, the wheel, the
// npm package) reads those keys as unknown at CREATE and ignores them at
// connect, so a table created by a test build still opens.
#pragma once

namespace simhash::sql {

#ifdef SIMHASH_TEST_KNOBS
inline constexpr bool kTestKnobs = true;
#else
inline constexpr bool kTestKnobs = false;
#endif

}  // namespace simhash::sql

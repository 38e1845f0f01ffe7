// SPDX-License-Identifier: MIT
// BucketView::find_close under each kernel this CPU runs against brute force
// over the decoded entries: every rest width (1 to 8 bytes), counts around
// the vector width of eight, prefix masks, radius 0 to 64, and entries near
// the end of the blob (where a 64-byte load would pass it).
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "index/bucket_codec.h"
#include "index/code_scan.h"

namespace simhash::testing {
namespace {

std::vector<std::pair<std::uint32_t, int>> shown(const std::vector<CloseEntry>& entries) {
  std::vector<std::pair<std::uint32_t, int>> out;
  for (const CloseEntry& entry : entries) {
    out.emplace_back(entry.index, entry.distance);
  }
  return out;
}

TEST(BucketRests, FindCloseMatchesBruteForceUnderEveryKernel) {
  std::mt19937_64 random(2718);
  int compared = 0;
  for (int rest_bytes = 1; rest_bytes <= 8; ++rest_bytes) {
    const std::uint64_t rest_mask =
        rest_bytes == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * rest_bytes)) - 1;
    for (const std::size_t count : {1, 7, 8, 9, 15, 16, 17, 31, 63, 64, 65, 200}) {
      const std::uint64_t query = random() & rest_mask;
      std::vector<BucketEntry> entries;
      for (std::size_t i = 0; i < count; ++i) {
        // Half near the query (a few bits flipped), half anywhere.
        std::uint64_t rest = random() & rest_mask;
        if (random() % 2 == 0) {
          rest = query;
          for (int flip = static_cast<int>(random() % 5); flip > 0; --flip) {
            rest ^= (std::uint64_t{1} << (random() % (8 * rest_bytes)));
          }
        }
        entries.push_back(BucketEntry{static_cast<std::int64_t>(i * 3 + random() % 3), rest});
      }
      std::string blob;
      encode_bucket(entries, rest_bytes, blob);
      BucketView view;
      ASSERT_TRUE(
          view.parse(reinterpret_cast<const unsigned char*>(blob.data()), blob.size(), rest_bytes));
      const std::uint64_t high = rest_mask & ~(rest_mask >> 3);  // the top three bits
      for (const std::uint64_t prefix_mask : {std::uint64_t{0}, high}) {
        for (const int radius : {0, 1, 2, 4, 9, 33, 64}) {
          std::vector<std::pair<std::uint32_t, int>> expected;
          for (std::size_t i = 0; i < count; ++i) {
            const std::uint64_t difference = entries[i].rest ^ query;
            if (std::popcount(difference) <= radius && (difference & prefix_mask) == 0) {
              expected.emplace_back(static_cast<std::uint32_t>(i), std::popcount(difference));
            }
          }
          for (const ScanKernel kernel : scan_kernels_that_run()) {
            std::vector<CloseEntry> found;
            view.find_close(query, prefix_mask, radius, found, kernel);
            EXPECT_EQ(shown(found), expected)
                << scan_kernel_name(kernel) << " rest bytes " << rest_bytes << " count " << count
                << " radius " << radius << " prefix " << prefix_mask;
            ++compared;
          }
        }
      }
    }
  }
  EXPECT_EQ(compared, static_cast<int>(8 * 12 * 2 * 7 * scan_kernels_that_run().size()));
}

}  // namespace
}  // namespace simhash::testing

// SPDX-License-Identifier: MIT
// RowFeatureBuilder on 1 to 4 threads gives, text by text, what one pair of
// extractors gives alone: fingerprints and feature vectors identical, texts
// without features or without a fingerprint (but with character features)
// included; and a body that throws reaches the caller.
#include "batch/row_features.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "parsed_options.h"
#include "util/parallel_for.h"

namespace simhash {
namespace {

std::vector<std::string> mixed_texts(std::size_t count) {
  const std::vector<std::string> words = {"the",  "cat",  "sat", "on",  "mat", "über",
                                          "東京", "自然", "!!!", ":-)", "x1",  "Straße"};
  std::mt19937_64 random(20261125);
  std::vector<std::string> texts;
  for (std::size_t i = 0; i < count; ++i) {
    std::string text;
    for (std::size_t length = random() % 40; length > 0; --length) {
      text += words[random() % words.size()];
      text += random() % 5 == 0 ? "\n" : " ";
    }
    texts.push_back(text);  // some empty, some punctuation only
  }
  return texts;
}

TEST(RowFeatureBuilder, EveryThreadCountGivesWhatOneExtractorGives) {
  const std::vector<std::string> texts = mixed_texts(700);
  const std::vector<std::string_view> views(texts.begin(), texts.end());
  for (const char* verification : {"n=3 weight=binary", "unit=char n=4 weight=binary", "n=2"}) {
    FeatureExtractor fingerprints(options_of(""));
    FeatureExtractor features(options_of(verification));
    std::vector<RowFeatures> expected(texts.size());
    int without_fingerprint = 0;
    int features_without_fingerprint = 0;
    for (std::size_t i = 0; i < texts.size(); ++i) {
      expected[i].fingerprint = fingerprints.fingerprint(texts[i]);
      // Features whether or not the text has a fingerprint: "!!!" has
      // character features but no word.
      features.feature_vector(texts[i], expected[i].features);
      without_fingerprint += expected[i].fingerprint ? 0 : 1;
      features_without_fingerprint +=
          !expected[i].fingerprint && !expected[i].features.empty() ? 1 : 0;
    }
    EXPECT_GT(without_fingerprint, 5);
    if (std::string(verification).starts_with("unit=char")) {
      EXPECT_GT(features_without_fingerprint, 2) << "punctuation-only texts";
    }
    for (const unsigned threads : {1U, 2U, 3U, 4U}) {
      RowFeatureBuilder builder(options_of(""), options_of(verification), threads);
      std::vector<RowFeatures> rows;
      // Three times, in uneven batches: buffers reused between batches stay
      // right.
      for (int pass = 0; pass < 3; ++pass) {
        for (std::size_t begin = 0; begin < views.size(); begin += 97) {
          const std::size_t end = std::min(views.size(), begin + 97);
          // The first pass lays the features out, a block per thread; the
          // second does not, and its rows point into no block of the first;
          // the third lays out as simhash_dedup does, a thread's rows only
          // where its texts ran out while the caller was in meanwhile()
          // (here a pause: which rows that is depends on the timing).
          std::vector<FeatureBlock> blocks;
          builder.build(
              std::span(views).subspan(begin, end - begin), rows,
              [pass] {
                if (pass == 2) {
                  std::this_thread::sleep_for(std::chrono::microseconds(300));
                }
              },
              {}, pass == 1 ? nullptr : &blocks,
              pass == 0 ? LayOut::kEveryThread : LayOut::kWhileTheCallerIsBusy);
          ASSERT_EQ(rows.size(), end - begin);
          ASSERT_EQ(blocks.size(), pass == 1 ? 0U : threads);
          if (pass == 2) {
            EXPECT_EQ(blocks[0].size, 0U) << "the caller's thread lays nothing out";
          }
          // Each block holds its rows end to end, all of it used.
          std::vector<std::size_t> laid_out(blocks.size(), 0);
          std::vector<bool> block_weighted(blocks.size(), false);
          bool weighted = false;
          for (std::size_t i = begin; i < end; ++i) {
            const RowFeatures& row = rows[i - begin];
            ASSERT_EQ(row.fingerprint, expected[i].fingerprint) << verification << " " << i;
            weighted = weighted || (!row.features.empty() && !row.key.binary);
            const FeatureView view = row.view();
            if (pass != 2) {
              EXPECT_EQ(row.laid_out.has_value(), pass == 0 && !row.features.empty());
            }
            EXPECT_EQ(row.laid_out_block().has_value(), row.laid_out.has_value());
            if (row.laid_out) {
              EXPECT_FALSE(row.features.empty());
              const std::uint32_t b = row.laid_out->block;
              ASSERT_LT(b, blocks.size());
              const FeatureBlock& block = blocks[b];
              ASSERT_GE(view.hashes.data(), block.hashes.get());
              ASSERT_LE(view.hashes.data() + view.hashes.size(), block.hashes.get() + block.size);
              EXPECT_EQ(view.weights.empty(), block.weights == nullptr);
              laid_out[b] += view.hashes.size();
              block_weighted[b] = block_weighted[b] || !row.key.binary;
            } else {
              EXPECT_EQ(view.hashes.data(), row.features.hashes.data());
            }
            ASSERT_TRUE(std::equal(view.hashes.begin(), view.hashes.end(),
                                   expected[i].features.hashes.begin(),
                                   expected[i].features.hashes.end()))
                << verification << " " << i;
            for (std::size_t j = 0; j < view.hashes.size(); ++j) {
              EXPECT_EQ(view.weight(j), expected[i].features.weights[j]);
            }
            EXPECT_EQ(view.sum_of_weights, expected[i].features.sum_of_weights);
            EXPECT_EQ(row.features.hashes, expected[i].features.hashes);
            EXPECT_EQ(row.features.weights, expected[i].features.weights);
            EXPECT_EQ(row.features.sum_of_weights, expected[i].features.sum_of_weights);
            if (!row.features.empty()) {
              // The key simhash_dedup adds the row by (built on the threads).
              const RowKey key =
                  FeatureRows::key_of(expected[i].fingerprint.value_or(0), expected[i].features);
              EXPECT_EQ(row.key.hash, key.hash) << verification << " " << i;
              EXPECT_EQ(row.key.binary, key.binary) << verification << " " << i;
            }
          }
          for (std::size_t b = 0; b < blocks.size(); ++b) {
            EXPECT_EQ(blocks[b].size, laid_out[b]) << verification;
            // Weights laid out only where some row has one other than 1.
            EXPECT_EQ(blocks[b].weights != nullptr, block_weighted[b]) << verification;
          }
        }
      }
    }
  }
}

TEST(ParallelFor, CoversEveryIndexOnceAndRethrowsTheFirstError) {
  for (const unsigned threads : {1U, 2U, 5U}) {
    std::vector<int> seen(1000, 0);
    parallel_for(seen.size(), 7, threads, [&](unsigned worker, std::size_t begin, std::size_t end) {
      EXPECT_LT(worker, threads);
      for (std::size_t i = begin; i < end; ++i) {
        ++seen[i];
      }
    });
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 1000);
    EXPECT_THROW(parallel_for(100, 3, threads,
                              [](unsigned, std::size_t begin, std::size_t) {
                                if (begin >= 30) throw std::runtime_error("stop");
                              }),
                 std::runtime_error);
  }
  parallel_for(0, 4, 2, [](unsigned, std::size_t, std::size_t) { FAIL() << "no work"; });
}

// finish(worker) runs once on each thread that took part, after its last
// range (what RowFeatureBuilder lays its rows out in): every range a thread
// took is done when it runs, on that thread.
TEST(ParallelFor, FinishRunsOnceOnEachThreadAfterItsRanges) {
  for (const unsigned threads : {1U, 2U, 5U}) {
    std::vector<std::vector<std::size_t>> taken(threads);
    std::vector<int> finished(threads, 0);
    std::vector<std::size_t> done_at_finish(threads, 0);
    std::atomic<bool> meanwhile_ran{false};
    parallel_for(
        1000, 7, threads,
        [&](unsigned worker, std::size_t begin, std::size_t) {
          EXPECT_EQ(finished[worker], 0) << "a range after finish";
          taken[worker].push_back(begin);
        },
        [&] { meanwhile_ran = true; },
        [&](unsigned worker, bool) {
          ++finished[worker];
          done_at_finish[worker] = taken[worker].size();
        });
    EXPECT_TRUE(meanwhile_ran);
    std::size_t ranges = 0;
    for (unsigned worker = 0; worker < threads; ++worker) {
      EXPECT_EQ(finished[worker], 1) << threads << " threads, worker " << worker;
      EXPECT_EQ(done_at_finish[worker], taken[worker].size());
      ranges += taken[worker].size();
    }
    EXPECT_EQ(ranges, (1000U + 6) / 7);
  }
}

// finish's caller_busy says whether the caller's thread was still in
// meanwhile() when that thread's ranges ran out (RowFeatureBuilder lays out
// only then): true where meanwhile() outlasts the loop, false where the
// caller joined the loop first, always false for the caller's own finish.
// Each case forced by waiting on the other thread (bounded, so that a
// broken loop fails instead of hanging).
TEST(ParallelFor, FinishSaysWhetherTheCallerWasStillBusy) {
  const auto wait_for = [](const std::atomic<bool>& flag) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!flag && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::yield();
    }
    return flag.load();
  };
  for (const bool caller_slow : {true, false}) {
    std::atomic<bool> helper_finished{false};
    std::atomic<bool> caller_took_a_range{false};
    std::vector<int> busy(2, -1);
    parallel_for(
        20, 1, 2,
        [&](unsigned worker, std::size_t, std::size_t) {
          if (worker == 0) {
            caller_took_a_range = true;
          } else if (!caller_slow) {
            // The helper's first range waits for the caller to join.
            EXPECT_TRUE(wait_for(caller_took_a_range));
          }
        },
        [&] {
          if (caller_slow) {
            // The caller reads on until the helper has run out of ranges.
            EXPECT_TRUE(wait_for(helper_finished));
          }
        },
        [&](unsigned worker, bool caller_busy) {
          busy[worker] = caller_busy ? 1 : 0;
          if (worker == 1) {
            helper_finished = true;
          }
        });
    EXPECT_EQ(busy[0], 0) << caller_slow;
    EXPECT_EQ(busy[1], caller_slow ? 1 : 0) << caller_slow;
    EXPECT_EQ(caller_took_a_range.load(), !caller_slow);
  }
}

}  // namespace
}  // namespace simhash

// SPDX-License-Identifier: MIT
// The n nearest at scale: the 10 nearest of 200 queries (half
// stored rows with 0-3 bits flipped, "near"; half random 64-bit codes) over
// N fingerprints, uniform or of real text, answered by
//   where    SELECT ... FROM near WHERE query = ?1 AND nearest = 10
//   near64   SELECT ... FROM near(?1, 64, 10)
//   in-txn   the WHERE form inside a transaction with 100 pending inserts
//   hamming  SELECT id, hamming(fp, ?1) AS d FROM near_data ORDER BY d, id LIMIT 10
//            (on the first 20 queries of each half: it is slow)
//   popcount a C++ loop over the same codes in memory with a bounded heap
//   avx512   the same with AVX-512 VPOPCNTDQ, eight codes a step (built for
//            that target; only where the CPU runs it)
// all in one process, each form timed on its second pass over the queries
// (warm pages); every answer (rowid and distance) is checked against the
// popcount loop's. The first random query, which fills the connection's
// cache of packed codes, is timed apart ("cold cache"). Prints the median per query of each, CPU
// time (this thread's, which other processes' load does not inflate) and wall time.
//
// Real fingerprints: simhash() of windows of 8 to 24 words taken at every
// offset of the English corpus (tests/support/corpus.h): neighbouring
// windows share most words, so the codes cluster as duplicates do.
//
// usage: nearest_benchmark rows=1000000 data=uniform|real [db=:memory:]
//          [profile=N] [half=random|near] [form=where|near64|in-txn] [within=64]
//          [detail=N] [hamming=20] [extension=PATH] [radii=4,6,...] [passes=1]
//          [traffic=0] [warm=0] [queries=100]
// A db file that already holds the table `near` is queried as it is (its
// codes read back from near_data), not built again. profile=N runs only the
// WHERE form on one half (`half`, random unless told), N times over, after
// one query that fills the cache, and times nothing else (for perf record;
// form=near64 profiles near(?1, 64, 10) instead, form=in-txn the WHERE form
// with 100 pending inserts as the in-txn column has them);
// within=N keeps only the queries whose 10th nearest is within N bits.
// detail=N prints each query of the half: the least CPU of N warm runs of
// the WHERE form, the radius it ended at and the 10 nearest's distances.
// extension=PATH loads another build of the module (a baseline, same run).
// passes=N times every form N passes over its queries (after the untimed
// one) and gives each query its least time of the N, the popcount loop's
// too: the median of those is robust to a shared machine's slow minutes.
// A wrong answer in any pass counts.
// traffic=MB writes one word of every cache line of MB megabytes before each
// timed query, untimed (the application's other work between queries, which
// evicts the codes and SQLite's pages from the caches); 0, the default: none.
// queries=N asks N queries of each half (the near ones first: not the same
// random codes as with 100).
// hamming=N times the hamming() scan on N queries a half (0: none; at 10M
// rows each takes about a second).
// radii=LIST times, instead, the search within each radius (`radius = r`)
// on one half, warm, and prints the plan EXPLAIN QUERY PLAN gives it (the
// buckets a multi-probe reads): what the cost model's kBucketReadCost and
// kEntryCost are fitted to (bench/BENCH.md, "Radius above k"), with a
// hand-written AVX-512 loop over the same codes beside each query (its
// answers checked; where the CPU runs it); warm=N asks N untimed random
// 10-nearest queries first; slowest=N prints each radius's N slowest
// queries with the rows they return (what makes the tail).
#include <sqlite3.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bench_support.h"
#include "corpus.h"
#include "util/cpu_dispatch.h"

#if SIMHASH_X86_64_TARGETS
#include <immintrin.h>
#endif

namespace simhash::bench {
namespace {

using Answer = std::vector<std::pair<std::int64_t, int>>;  // (rowid, distance)

std::vector<std::string> words_of_corpus() {
  std::vector<std::string> words;
  for (const auto& document : load_english_corpus()) {
    std::istringstream in(document.text);
    std::string word;
    while (in >> word) {
      words.push_back(word);
    }
  }
  return words;
}

// `rows` fingerprints: uniform, or simhash() of text windows.
std::vector<std::uint64_t> make_codes(sqlite3* db, std::int64_t rows, const std::string& data) {
  std::vector<std::uint64_t> codes;
  codes.reserve(static_cast<std::size_t>(rows));
  std::mt19937_64 random(37);
  if (data == "uniform") {
    while (static_cast<std::int64_t>(codes.size()) < rows) {
      codes.push_back(random());
    }
    return codes;
  }
  const std::vector<std::string> words = words_of_corpus();
  std::fprintf(stderr, "corpus: %zu words\n", words.size());
  sqlite3_stmt* hash = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT simhash(?1)", -1, &hash, nullptr) != SQLITE_OK) {
    fail(db, "prepare simhash");
  }
  for (int length = 8; static_cast<std::int64_t>(codes.size()) < rows; ++length) {
    for (std::size_t start = 0; start + static_cast<std::size_t>(length) <= words.size() &&
                                static_cast<std::int64_t>(codes.size()) < rows;
         ++start) {
      std::string text;
      for (int i = 0; i < length; ++i) {
        text += words[start + static_cast<std::size_t>(i)];
        text += ' ';
      }
      sqlite3_bind_text(hash, 1, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
      if (sqlite3_step(hash) != SQLITE_ROW) {
        fail(db, "simhash");
      }
      if (sqlite3_column_type(hash, 0) == SQLITE_INTEGER) {
        codes.push_back(static_cast<std::uint64_t>(sqlite3_column_int64(hash, 0)));
      }
      sqlite3_reset(hash);
    }
  }
  sqlite3_finalize(hash);
  return codes;
}

// The `count` nearest of `codes` (rowid = index + 1), ties by rowid; with
// the POPCNT instruction where the CPU has it, as the index's scan of rests.
SIMHASH_POPCNT_CLONES Answer popcount_nearest(const std::vector<std::uint64_t>& codes,
                                              std::uint64_t query, std::size_t count) {
  // Max-heap on (distance, rowid): its front is the farthest kept.
  std::vector<std::pair<int, std::int64_t>> heap;
  heap.reserve(count + 1);
  for (std::size_t i = 0; i < codes.size(); ++i) {
    const int distance = std::popcount(codes[i] ^ query);
    if (heap.size() < count) {
      heap.emplace_back(distance, static_cast<std::int64_t>(i + 1));
      std::push_heap(heap.begin(), heap.end());
    } else if (distance < heap.front().first) {
      std::pop_heap(heap.begin(), heap.end());
      heap.back() = {distance, static_cast<std::int64_t>(i + 1)};
      std::push_heap(heap.begin(), heap.end());
    }
  }
  std::sort_heap(heap.begin(), heap.end());
  Answer answer;
  for (const auto& [distance, id] : heap) {
    answer.emplace_back(id, distance);
  }
  return answer;
}

#if SIMHASH_X86_64_TARGETS
// popcount_nearest as a hand-written AVX-512 loop: eight codes compared with
// the farthest kept at a time, the heap offered only those nearer.
[[gnu::target("avx512f,avx512vpopcntdq,popcnt,bmi")]] Answer avx512_nearest(
    const std::vector<std::uint64_t>& codes, std::uint64_t query, std::size_t count) {
  std::vector<std::pair<int, std::int64_t>> heap;
  const std::size_t first = std::min(count, codes.size());
  for (std::size_t i = 0; i < first; ++i) {
    heap.emplace_back(std::popcount(codes[i] ^ query), static_cast<std::int64_t>(i + 1));
  }
  std::make_heap(heap.begin(), heap.end());
  const auto offer = [&](std::size_t i) {
    const int distance = std::popcount(codes[i] ^ query);
    if (distance < heap.front().first) {
      std::pop_heap(heap.begin(), heap.end());
      heap.back() = {distance, static_cast<std::int64_t>(i + 1)};
      std::push_heap(heap.begin(), heap.end());
    }
  };
  const __m512i broadcast = _mm512_set1_epi64(static_cast<long long>(query));
  std::size_t i = first;
  for (; i + 8 <= codes.size() && !heap.empty(); i += 8) {
    const __m512i bits = _mm512_xor_si512(_mm512_loadu_si512(codes.data() + i), broadcast);
    unsigned mask =
        _mm512_cmplt_epu64_mask(_mm512_popcnt_epi64(bits), _mm512_set1_epi64(heap.front().first));
    while (mask != 0) {
      offer(i + static_cast<std::size_t>(std::countr_zero(mask)));
      mask &= mask - 1;
    }
  }
  for (; i < codes.size() && !heap.empty(); ++i) {
    offer(i);
  }
  std::sort_heap(heap.begin(), heap.end());
  Answer answer;
  for (const auto& [distance, id] : heap) {
    answer.emplace_back(id, distance);
  }
  return answer;
}
#endif

#if SIMHASH_X86_64_TARGETS
// The rows within `radius` of the query (rowid = index + 1), in rowid
// order, by a hand-written AVX-512 loop: eight codes a step, only those
// within handed on.
[[gnu::target("avx512f,avx512vpopcntdq,popcnt,bmi")]] Answer avx512_within(
    const std::vector<std::uint64_t>& codes, std::uint64_t query, int radius) {
  Answer answer;
  const __m512i broadcast = _mm512_set1_epi64(static_cast<long long>(query));
  const __m512i limit = _mm512_set1_epi64(radius);
  std::size_t i = 0;
  for (; i + 8 <= codes.size(); i += 8) {
    const __m512i bits = _mm512_xor_si512(_mm512_loadu_si512(codes.data() + i), broadcast);
    unsigned mask = _mm512_cmple_epu64_mask(_mm512_popcnt_epi64(bits), limit);
    while (mask != 0) {
      const std::size_t at = i + static_cast<std::size_t>(std::countr_zero(mask));
      answer.emplace_back(static_cast<std::int64_t>(at + 1), std::popcount(codes[at] ^ query));
      mask &= mask - 1;
    }
  }
  for (; i < codes.size(); ++i) {
    if (const int distance = std::popcount(codes[i] ^ query); distance <= radius) {
      answer.emplace_back(static_cast<std::int64_t>(i + 1), distance);
    }
  }
  return answer;
}

bool avx512_runs() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq");
}
#endif

Answer run_query(sqlite3* db, sqlite3_stmt* statement, std::int64_t query) {
  sqlite3_bind_int64(statement, 1, query);
  Answer answer;
  int rc = 0;
  while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {
    answer.emplace_back(sqlite3_column_int64(statement, 0), sqlite3_column_int(statement, 1));
  }
  if (rc != SQLITE_DONE) {
    fail(db, "query");
  }
  sqlite3_reset(statement);
  return answer;
}

struct Result {
  std::vector<double> cpu;
  std::vector<double> wall;
  int wrong = 0;
};

// Each query's least CPU and wall time over the passes (passes=N), handed
// to the Result of its half (the first half near, the second random).
class BestOfPasses {
 public:
  BestOfPasses(std::size_t queries, std::size_t half_size)
      : cpu_(queries, 1e9), wall_(queries, 1e9), half_size_(half_size) {}
  void record(std::size_t query, double cpu, double wall) {
    cpu_[query] = std::min(cpu_[query], cpu);
    wall_[query] = std::min(wall_[query], wall);
  }
  void hand_to(Result* halves, std::size_t query) const {
    halves[query / half_size_].cpu.push_back(cpu_[query]);
    halves[query / half_size_].wall.push_back(wall_[query]);
  }

 private:
  std::vector<double> cpu_;
  std::vector<double> wall_;
  std::size_t half_size_;
};

void print(const char* name, const char* half, const Result& result) {
  if (result.cpu.empty()) {
    return;
  }
  const Latency cpu = latency_of(result.cpu);
  std::printf("%-9s %-6s median %9.3f ms CPU (p99 %9.3f) %9.3f ms wall  (%zu queries, %d wrong)\n",
              name, half, cpu.median_us * 1e3, cpu.p99_us * 1e3, median(result.wall) * 1e3,
              result.cpu.size(), result.wrong);
}

}  // namespace
}  // namespace simhash::bench

int main(int argc, char** argv) {
  using namespace simhash::bench;
  const std::int64_t rows = std::stoll(arg(argc, argv, "rows", "1000000"));
  const std::string data = arg(argc, argv, "data", "uniform");
  const std::string path = arg(argc, argv, "db", ":memory:");
  sqlite3* db = open_with_extension(path, arg(argc, argv, "extension", SIMHASH_EXTENSION_PATH));
  exec(db, "PRAGMA cache_size = -4000000");
  const int profile = std::stoi(arg(argc, argv, "profile", "0"));
  const int detail = std::stoi(arg(argc, argv, "detail", "0"));
  const int passes = std::max(1, std::stoi(arg(argc, argv, "passes", "1")));
  const auto half_size = static_cast<std::size_t>(std::stoul(arg(argc, argv, "queries", "100")));
  const std::size_t profiled_half = arg(argc, argv, "half", "random") == "near" ? 0 : half_size;
  const auto hamming_queries =
      static_cast<std::size_t>(std::stoi(arg(argc, argv, "hamming", "20")));
  const auto build_start = Clock::now();
  std::vector<std::uint64_t> codes;
  const bool stored = count_of(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'near'") == 1;
  if (stored) {
    // Stored with rowids 1..N in order by the build below.
    sqlite3_stmt* read = nullptr;
    sqlite3_prepare_v2(db, "SELECT fp FROM near_data ORDER BY id", -1, &read, nullptr);
    while (sqlite3_step(read) == SQLITE_ROW) {
      codes.push_back(static_cast<std::uint64_t>(sqlite3_column_int64(read, 0)));
    }
    sqlite3_finalize(read);
  } else {
    codes = make_codes(db, rows, data);
    exec(db, "CREATE VIRTUAL TABLE near USING simhash_index(k=3)");
    exec(db, "BEGIN");
    sqlite3_stmt* insert = nullptr;
    sqlite3_prepare_v2(db, "INSERT INTO near(rowid, fp) VALUES (?1, ?2)", -1, &insert, nullptr);
    for (std::size_t i = 0; i < codes.size(); ++i) {
      sqlite3_bind_int64(insert, 1, static_cast<std::int64_t>(i + 1));
      sqlite3_bind_int64(insert, 2, static_cast<std::int64_t>(codes[i]));
      if (sqlite3_step(insert) != SQLITE_DONE) {
        fail(db, "insert");
      }
      sqlite3_reset(insert);
    }
    sqlite3_finalize(insert);
    exec(db, "COMMIT");
  }
  std::printf("%lld %s fingerprints, %s in %.1f s wall; bucket rows %lld\n",
              static_cast<long long>(codes.size()), stored ? "stored" : data.c_str(),
              stored ? "read back" : "built", seconds_since(build_start),
              static_cast<long long>(count_of(db, "SELECT count(*) FROM near_buckets")));
  // Queries: `half_size` stored rows with 0-3 bits flipped, as many random codes.
  std::mt19937_64 random(2037);
  std::vector<std::int64_t> queries;
  for (std::size_t i = 0; i < half_size; ++i) {
    std::uint64_t query = codes[random() % codes.size()];
    for (int flips = static_cast<int>(random() % 4); flips > 0; --flips) {
      query ^= std::uint64_t{1} << (random() % 64);
    }
    queries.push_back(static_cast<std::int64_t>(query));
  }
  for (std::size_t i = 0; i < half_size; ++i) {
    queries.push_back(static_cast<std::int64_t>(random()));
  }
  if (profile > 0) {
    sqlite3_stmt* statement = nullptr;
    const std::string form = arg(argc, argv, "form", "where");
    const bool near64 = form == "near64";
    if (form == "in-txn") {
      exec(db, "BEGIN");
      for (std::size_t i = 1; i <= 100; ++i) {
        exec(db, "INSERT INTO near(rowid, fp) VALUES (" + std::to_string(codes.size() + i) + ", " +
                     std::to_string(static_cast<std::int64_t>(random())) + ")");
      }
    }
    sqlite3_prepare_v2(db,
                       near64
                           ? "SELECT rowid, distance FROM near(?1, 64, 10)"
                           : "SELECT rowid, distance FROM near WHERE query = ?1 AND nearest = 10",
                       -1, &statement, nullptr);
    run_query(db, statement, queries[half_size]);  // loads the cache, as the timed runs do
    // within=N: only the queries whose 10th nearest is within N bits.
    const int within = std::stoi(arg(argc, argv, "within", "64"));
    std::vector<std::int64_t> profiled;
    for (std::size_t q = profiled_half; q < profiled_half + half_size; ++q) {
      const Answer truth = popcount_nearest(codes, static_cast<std::uint64_t>(queries[q]), 10);
      if (within >= 64 || (!truth.empty() && truth.back().second <= within)) {
        profiled.push_back(queries[q]);
      }
    }
    const double cpu_start = thread_seconds();
    for (int pass = 0; pass < profile; ++pass) {
      for (const std::int64_t query : profiled) {
        run_query(db, statement, query);
      }
    }
    std::printf(
        "profile: %.3f ms CPU per query (%zu queries)\n",
        (thread_seconds() - cpu_start) * 1e3 / (static_cast<double>(profiled.size()) * profile),
        profiled.size());
    sqlite3_finalize(statement);
    sqlite3_close(db);
    return 0;
  }
  std::vector<std::uint64_t> traffic(
      static_cast<std::size_t>(std::stoull(arg(argc, argv, "traffic", "0"))) * (1 << 17), 1);
  const auto other_work = [&traffic] {
    for (std::size_t i = 0; i < traffic.size(); i += 8) {
      traffic[i] += i;
    }
  };
  if (const std::string radii = arg(argc, argv, "radii", ""); !radii.empty()) {
    // warm=N: N untimed random 10-nearest queries first, as a connection
    // that keeps asking has made them (the cached codes may then serve).
    sqlite3_stmt* nearest = nullptr;
    sqlite3_prepare_v2(db, "SELECT rowid, distance FROM near WHERE query = ?1 AND nearest = 10", -1,
                       &nearest, nullptr);
    for (int i = std::stoi(arg(argc, argv, "warm", "0")); i > 0; --i) {
      run_query(db, nearest, static_cast<std::int64_t>(random()));
    }
    sqlite3_finalize(nearest);
    std::istringstream list(radii);
    std::string radius;
    while (std::getline(list, radius, ',')) {
      const std::string sql =
          "SELECT rowid, distance FROM near WHERE query = ?1 AND radius = " + radius;
      sqlite3_stmt* plan = nullptr;
      sqlite3_prepare_v2(db, ("EXPLAIN QUERY PLAN " + sql).c_str(), -1, &plan, nullptr);
      std::string shown;
      while (sqlite3_step(plan) == SQLITE_ROW) {
        shown = reinterpret_cast<const char*>(sqlite3_column_text(plan, 3));
      }
      sqlite3_finalize(plan);
      sqlite3_stmt* statement = nullptr;
      sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr);
      std::vector<double> cpu;
      std::vector<double> loop_cpu;
      std::vector<std::size_t> rows;  // of each timed query's answer
      int wrong = 0;
      for (int pass = 0; pass < 2; ++pass) {
        for (std::size_t q = profiled_half; q < profiled_half + half_size; ++q) {
          other_work();
          double cpu_start = thread_seconds();
          Answer answer = run_query(db, statement, queries[q]);
          if (pass == 1) {
            cpu.push_back(thread_seconds() - cpu_start);
            rows.push_back(answer.size());
          }
#if SIMHASH_X86_64_TARGETS
          if (avx512_runs()) {
            other_work();
            cpu_start = thread_seconds();
            const Answer loop =
                avx512_within(codes, static_cast<std::uint64_t>(queries[q]), std::stoi(radius));
            if (pass == 1) {
              loop_cpu.push_back(thread_seconds() - cpu_start);
            }
            std::sort(answer.begin(), answer.end());
            wrong += answer != loop;
          }
#endif
        }
      }
      sqlite3_finalize(statement);
      std::vector<std::size_t> order(cpu.size());
      std::iota(order.begin(), order.end(), std::size_t{0});
      std::sort(order.begin(), order.end(),
                [&](std::size_t a, std::size_t b) { return cpu[a] > cpu[b]; });
      const auto slowest = std::min(
          order.size(), static_cast<std::size_t>(std::stoul(arg(argc, argv, "slowest", "0"))));
      for (std::size_t i = 0; i < slowest; ++i) {
        std::printf("  slow: %8.3f ms CPU, %zu rows\n", cpu[order[i]] * 1e3, rows[order[i]]);
      }
      const Latency latency = latency_of(cpu);
      std::printf("radius %2s: median %8.3f ms CPU (p99 %8.3f)  %s\n", radius.c_str(),
                  latency.median_us * 1e3, latency.p99_us * 1e3, shown.c_str());
      if (!loop_cpu.empty()) {
        const Latency loop = latency_of(loop_cpu);
        std::printf("  avx512 loop: median %8.3f ms CPU (p99 %8.3f); SQL / loop %.2f; %d wrong\n",
                    loop.median_us * 1e3, loop.p99_us * 1e3, latency.median_us / loop.median_us,
                    wrong);
      }
    }
    sqlite3_close(db);
    return 0;
  }
  if (detail > 0) {
    // Per query of one half: the WHERE form's CPU time (the least of
    // `detail` warm runs), the radius it ended at, and the true distance of
    // the 10th nearest (the popcount loop's).
    sqlite3_stmt* statement = nullptr;
    sqlite3_prepare_v2(db,
                       "SELECT rowid, distance, radius FROM near WHERE query = ?1 AND nearest = 10",
                       -1, &statement, nullptr);
    run_query(db, statement, queries[half_size]);
    for (std::size_t q = profiled_half; q < profiled_half + half_size; ++q) {
      const Answer truth = popcount_nearest(codes, static_cast<std::uint64_t>(queries[q]), 10);
      double best = 1e9;
      int radius = -1;
      for (int run = 0; run <= detail; ++run) {
        const double cpu_start = thread_seconds();
        sqlite3_bind_int64(statement, 1, queries[q]);
        while (sqlite3_step(statement) == SQLITE_ROW) {
          radius = sqlite3_column_int(statement, 2);
        }
        sqlite3_reset(statement);
        if (run > 0) {
          best = std::min(best, thread_seconds() - cpu_start);
        }
      }
      // The distances of all 10 nearest show how the radius should grow.
      std::string distances;
      for (const auto& hit : truth) {
        distances += ' ';
        distances += std::to_string(hit.second);
      }
      std::printf("query %3zu: %8.3f ms CPU, radius %2d, 10th nearest at %2d (%s)\n", q, best * 1e3,
                  radius, truth.empty() ? -1 : truth.back().second,
                  distances.c_str() + (distances.empty() ? 0 : 1));
    }
    sqlite3_finalize(statement);
    sqlite3_close(db);
    return 0;
  }
  std::vector<Answer> truth(queries.size());
  Result popcount[2];
  {
    BestOfPasses best(queries.size(), half_size);
    for (int pass = 0; pass < passes; ++pass) {
      for (std::size_t q = 0; q < queries.size(); ++q) {
        other_work();
        const auto start = Clock::now();
        const double cpu_start = thread_seconds();
        truth[q] = popcount_nearest(codes, static_cast<std::uint64_t>(queries[q]), 10);
        best.record(q, thread_seconds() - cpu_start, seconds_since(start));
      }
    }
    for (std::size_t q = 0; q < queries.size(); ++q) {
      best.hand_to(popcount, q);
    }
  }
  Result avx512[2];
#if SIMHASH_X86_64_TARGETS
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq")) {
    BestOfPasses best(queries.size(), half_size);
    for (int pass = 0; pass < passes; ++pass) {
      for (std::size_t q = 0; q < queries.size(); ++q) {
        other_work();
        const auto start = Clock::now();
        const double cpu_start = thread_seconds();
        const Answer answer = avx512_nearest(codes, static_cast<std::uint64_t>(queries[q]), 10);
        best.record(q, thread_seconds() - cpu_start, seconds_since(start));
        avx512[q / half_size].wrong += answer != truth[q];
      }
    }
    for (std::size_t q = 0; q < queries.size(); ++q) {
      best.hand_to(avx512, q);
    }
  }
#endif
  const auto time_sql = [&](const std::string& sql, std::size_t per_half, Result* result) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
      fail(db, sql);
    }
    // Every query once, untimed, first: the forms are timed one after the
    // other, and the first would otherwise pay alone for reading the pages
    // its queries share with the next (from the OS into SQLite's cache): at
    // 10M real rows the WHERE form's near queries measured 0.84 ms first
    // against 0.21 warm, near(?1, 64, 10)'s 0.17-0.19 either way. So each
    // form's figures are its warm cost.
    // The untimed pass's dearest query is reported: where the connection
    // loads the packed codes (PackedCodes), that query pays the load.
    double dearest = 0;
    std::size_t dearest_query = 0;
    for (std::size_t q = 0; q < queries.size(); ++q) {
      if (q % half_size < per_half) {
        const double cpu_start = thread_seconds();
        run_query(db, statement, queries[q]);
        if (thread_seconds() - cpu_start > dearest) {
          dearest = thread_seconds() - cpu_start;
          dearest_query = q;
        }
      }
    }
    std::printf("untimed pass of %s: dearest query %zu, %.3f ms CPU\n", sql.c_str(), dearest_query,
                dearest * 1e3);
    // With passes=N each query's least time over N passes: the passes go
    // over all the queries one after another, so a slow minute of a shared
    // machine inflates one pass of a query, not all of its runs.
    BestOfPasses best(queries.size(), half_size);
    for (int pass = 0; pass < passes; ++pass) {
      for (std::size_t q = 0; q < queries.size(); ++q) {
        if (q % half_size >= per_half) {
          continue;
        }
        other_work();
        const auto start = Clock::now();
        const double cpu_start = thread_seconds();
        const Answer answer = run_query(db, statement, queries[q]);
        best.record(q, thread_seconds() - cpu_start, seconds_since(start));
        result[q / half_size].wrong += answer != truth[q];
      }
    }
    for (std::size_t q = 0; q < queries.size(); ++q) {
      if (q % half_size < per_half) {
        best.hand_to(result, q);
      }
    }
    sqlite3_finalize(statement);
  };
  // The first query that scans, on a fresh connection: it reads copy 0's
  // buckets into the connection's cache of codes (the queries after it
  // reuse them while the database is unchanged). Timed apart.
  {
    sqlite3_stmt* statement = nullptr;
    sqlite3_prepare_v2(db, "SELECT rowid, distance FROM near WHERE query = ?1 AND nearest = 10", -1,
                       &statement, nullptr);
    const auto start = Clock::now();
    const double cpu_start = thread_seconds();
    const Answer answer = run_query(db, statement, queries[half_size]);
    const double cpu = thread_seconds() - cpu_start;
    std::printf("first random query (cold cache): %.3f ms CPU, %.3f ms wall%s\n", cpu * 1e3,
                seconds_since(start) * 1e3, answer == truth[half_size] ? "" : " WRONG");
    sqlite3_finalize(statement);
  }
  Result where[2];
  Result near64[2];
  Result in_transaction[2];
  Result hamming_scan[2];
  time_sql("SELECT rowid, distance FROM near WHERE query = ?1 AND nearest = 10", half_size, where);
  time_sql("SELECT rowid, distance FROM near(?1, 64, 10)", half_size, near64);
  time_sql(
      "SELECT id, hamming(fp, ?1) AS d FROM near_data WHERE fp IS NOT NULL ORDER BY d, id "
      "LIMIT 10",
      hamming_queries, hamming_scan);
  // In a transaction with 100 pending (unflushed) random rows, rowids after
  // the data's; the answers then include them.
  exec(db, "BEGIN");
  std::vector<std::uint64_t> with_pending = codes;
  for (int i = 0; i < 100; ++i) {
    with_pending.push_back(random());
    exec(db, "INSERT INTO near(rowid, fp) VALUES (" + std::to_string(with_pending.size()) + ", " +
                 std::to_string(static_cast<std::int64_t>(with_pending.back())) + ")");
  }
  for (std::size_t q = 0; q < queries.size(); ++q) {
    truth[q] = popcount_nearest(with_pending, static_cast<std::uint64_t>(queries[q]), 10);
  }
  time_sql("SELECT rowid, distance FROM near WHERE query = ?1 AND nearest = 10", half_size,
           in_transaction);
  exec(db, "ROLLBACK");
  const char* halves[] = {"near", "random"};
  for (int half = 0; half < 2; ++half) {
    print("where", halves[half], where[half]);
    print("near64", halves[half], near64[half]);
    print("in-txn", halves[half], in_transaction[half]);
    print("hamming", halves[half], hamming_scan[half]);
    print("popcount", halves[half], popcount[half]);
    print("avx512", halves[half], avx512[half]);
  }
  sqlite3_close(db);
  return 0;
}

// SPDX-License-Identifier: MIT
// Texts are read into a batch of about kBatchBytes (or kBatchRows rows) per
// thread, whose features the threads build while the caller's thread reads
// the next one and another thread hands the last one's rows over, both then
// building with them: reading and handing over (each one thread's work:
// SQLite's steps; the engine's add) overlap the tokenizing and each other,
// and no thread waits for a small batch. On many cores the caller is the
// bound, so it does no more than read. Before each batch's building and
// after the last the interrupt is checked, so a stop comes within one
// batch's work; a batch (128 KiB of text or 256 texts a thread) is small
// enough for the promised stop and large enough that the checks, each a
// small statement, cost little (bench/BENCH.md, "Progress reports,
// interrupts and test stages"). The builder's threads are started once a
// statement and woken for each batch (util/thread_team.h).
#include "ext/batch/text_query.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <utility>
#include <vector>

#include "batch/repeated_id.h"
#include "ext/common/sql_values.h"
#include "util/parallel_for.h"

namespace simhash::sql {
namespace {

constexpr std::size_t kBatchBytes = std::size_t{1} << 17;
constexpr std::size_t kBatchRows = 256;

// Whether `query` is one word of name characters (a table's name, not SQL).
bool is_bare_name(std::string_view query) {
  return !query.empty() && std::all_of(query.begin(), query.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || static_cast<unsigned char>(c) >= 0x80;
  });
}

// `SELECT count(*) FROM (query)` for a prepared query argument.
std::string count_sql(sqlite3_stmt* statement) {
  // The first statement's text alone, without the semicolon that may end
  // it; the newline ends a -- comment before the parenthesis.
  std::string_view text = sqlite3_sql(statement);
  while (!text.empty() &&
         (text.back() == ';' || std::isspace(static_cast<unsigned char>(text.back())))) {
    text.remove_suffix(1);
  }
  return "SELECT count(*) FROM (" + std::string(text) + "\n)";
}

// How many rows a prepared query argument returns, for a progress report's
// total: its SQL run once more under count(*), which reads the rows without
// tokenizing them. nullopt when the count cannot be prepared; throws
// SqliteError on an interrupt.
std::optional<std::uint64_t> count_query_rows(sqlite3* db, sqlite3_stmt* statement) {
  const std::string sql = count_sql(statement);
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), static_cast<int>(sql.size()), &raw, nullptr) !=
      SQLITE_OK) {
    return std::nullopt;
  }
  const Statement count(raw);
  const int rc = sqlite3_step(count.get());
  if (rc == SQLITE_INTERRUPT) {
    throw SqliteError(rc, "interrupted");
  }
  if (rc != SQLITE_ROW) {
    return std::nullopt;  // the query itself will say what fails
  }
  return static_cast<std::uint64_t>(sqlite3_column_int64(count.get(), 0));
}

// The same only where counting costs little beside the reading: when the
// count's program (EXPLAIN) reads no column and calls no function, so it
// walks the table's or an index's pages without decoding a row, let alone
// its text (a table's rows with no ORDER BY, or a WHERE on the rowid).
// nullopt otherwise (ORDER BY over the text's row, a function, a virtual
// table): the report then has no total rather than run the query twice.
std::optional<std::uint64_t> count_query_rows_if_cheap(sqlite3* db, sqlite3_stmt* statement) {
  const std::string explain = "EXPLAIN " + count_sql(statement);
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db, explain.c_str(), static_cast<int>(explain.size()), &raw, nullptr) !=
      SQLITE_OK) {
    return std::nullopt;  // no EXPLAIN in this build: not known to be cheap
  }
  const Statement program(raw);
  // Opcodes that decode a row's values or run code per row: with none of
  // them the count only steps through b-tree cells.
  constexpr std::array<std::string_view, 5> kCostly = {"Column", "VColumn", "VFilter", "Function",
                                                       "PureFunc"};
  int rc = SQLITE_ROW;
  while ((rc = sqlite3_step(program.get())) == SQLITE_ROW) {
    const auto* opcode = reinterpret_cast<const char*>(sqlite3_column_text(program.get(), 1));
    if (opcode != nullptr &&
        std::find(kCostly.begin(), kCostly.end(), std::string_view(opcode)) != kCostly.end()) {
      return std::nullopt;
    }
  }
  if (rc != SQLITE_DONE) {
    return std::nullopt;
  }
  return count_query_rows(db, statement);
}

}  // namespace

Statement prepare_text_query(sqlite3* db, const std::string& query, std::string_view who,
                             std::string_view argument, std::string_view usage) {
  const std::string prefix = std::string(who) + ": " + std::string(argument) + " ";
  sqlite3_stmt* raw = nullptr;
  const char* tail = nullptr;
  int rc = sqlite3_prepare_v2(db, query.c_str(), static_cast<int>(query.size()), &raw, &tail);
  Statement statement(raw);
  if (rc != SQLITE_OK) {
    std::string message = prefix + "does not prepare: " + sqlite3_errmsg(db);
    // A table's name where the SQL text goes (simhash_dedup('texts')) is
    // the usual slip, and "syntax error" alone does not say what was meant.
    if (is_bare_name(query)) {
      message +=
          "; it is SQL text returning (id, text), not a table's name: e.g. 'SELECT rowid, "
          "body FROM " +
          query + "'";
    }
    throw SqliteError(rc, message);
  }
  if (!statement) {
    throw SqliteError(SQLITE_ERROR, prefix + "is empty; " + std::string(usage));
  }
  // What follows the first statement must be nothing but spaces, semicolons
  // or comments: preparing it gives no statement then.
  sqlite3_stmt* rest_raw = nullptr;
  rc = sqlite3_prepare_v2(db, tail, -1, &rest_raw, nullptr);
  const Statement rest(rest_raw);
  if (rc != SQLITE_OK || rest) {
    throw SqliteError(SQLITE_ERROR, prefix + "must be one statement");
  }
  // A batch function reads; a query that writes (DELETE ... RETURNING) would
  // change the rows while they are compared, and surprise whoever wrote it.
  if (sqlite3_stmt_readonly(statement.get()) == 0) {
    throw SqliteError(SQLITE_ERROR, prefix + "must only read (a SELECT)");
  }
  if (const int columns = sqlite3_column_count(statement.get()); columns != 2) {
    throw SqliteError(SQLITE_ERROR, prefix + "must return two columns (id, text), it returns " +
                                        std::to_string(columns));
  }
  // Nothing binds a parameter of the query (the function runs it itself),
  // so it would read as NULL and the call would quietly find nothing.
  if (sqlite3_bind_parameter_count(statement.get()) > 0) {
    // The first one named; "?" has no name (nor has a gap before ?2).
    std::string parameter = "?";
    for (int i = sqlite3_bind_parameter_count(statement.get()); i >= 1; --i) {
      if (const char* name = sqlite3_bind_parameter_name(statement.get(), i)) {
        parameter = name;
      }
    }
    throw SqliteError(SQLITE_ERROR,
                      prefix + "has a parameter (" + parameter +
                          ") that nothing binds (it would read as NULL); write its value into "
                          "the query's text instead, e.g. 'SELECT id, body FROM docs WHERE "
                          "lang = ' || quote(:lang)");
  }
  return statement;
}

void read_text_rows(sqlite3* db, sqlite3_stmt* statement, RowFeatureBuilder& builder,
                    std::string_view who, std::string_view argument,
                    const std::function<void(std::int64_t id, const RowFeatures& row)>& on_row,
                    const ProgressHook& progress,
                    const std::function<void(std::vector<FeatureBlock> blocks)>& on_blocks) {
  // The total only where counting is cheap (the header says why).
  const std::uint64_t total_rows =
      progress ? count_query_rows_if_cheap(db, statement).value_or(0) : 0;
  // Every row's id, with a text or not, for the check that none repeats.
  std::vector<std::int64_t> every_id;
  // A batch: texts copied (a step invalidates the column's pointer) end to
  // end into one buffer, with their ids.
  struct Batch {
    std::string text_bytes;
    std::vector<std::size_t> text_end;
    std::vector<std::int64_t> ids;
    std::vector<std::string_view> texts;
    void clear() {
      text_bytes.clear();
      text_end.clear();
      ids.clear();
    }
  };
  const std::size_t batch_bytes = kBatchBytes * builder.threads();
  const std::size_t batch_rows = kBatchRows * builder.threads();
  std::size_t row = 0;
  bool done = false;
  // Fills `batch` with the next rows (none when the query has ended).
  const auto read = [&](Batch& batch) {
    batch.clear();
    while (!done && batch.text_bytes.size() < batch_bytes && batch.ids.size() < batch_rows) {
      const int rc = sqlite3_step(statement);
      if (rc == SQLITE_INTERRUPT) {
        throw SqliteError(rc, "interrupted");
      }
      if (rc == SQLITE_DONE) {
        done = true;
        break;
      }
      if (rc != SQLITE_ROW) {
        throw SqliteError(
            rc, std::string(who) + ": " + std::string(argument) + " failed: " + sqlite3_errmsg(db));
      }
      ++row;
      sqlite3_value* id = sqlite3_column_value(statement, 0);
      if (sqlite3_value_type(id) != SQLITE_INTEGER) {
        // A table keyed by a URL or a name still has its rowid; say so with
        // the query's own text column.
        const char* text_column = sqlite3_column_name(statement, 1);
        throw SqliteError(SQLITE_ERROR,
                          std::string(who) +
                              ": the query's first column (id) must be an INTEGER, got " +
                              type_name(id) + " in row " + std::to_string(row) +
                              "; a table keyed otherwise still has an INTEGER rowid (unless "
                              "WITHOUT ROWID): 'SELECT rowid, " +
                              (text_column != nullptr ? text_column : "body") + " FROM ...'");
      }
      every_id.push_back(sqlite3_value_int64(id));
      const std::optional<std::string_view> text = text_of(sqlite3_column_value(statement, 1));
      if (!text) {
        continue;
      }
      batch.ids.push_back(sqlite3_value_int64(id));
      batch.text_bytes.append(*text);
      batch.text_end.push_back(batch.text_bytes.size());
    }
    batch.texts.clear();
    for (std::size_t i = 0, start = 0; i < batch.text_end.size(); start = batch.text_end[i++]) {
      batch.texts.emplace_back(batch.text_bytes.data() + start, batch.text_end[i] - start);
    }
  };
  // The header says why one thread lays nothing out.
  const bool lay_out = on_blocks && builder.threads() > 1;
  const auto laid_out_any = [](const std::vector<FeatureBlock>& blocks) {
    return std::any_of(blocks.begin(), blocks.end(),
                       [](const FeatureBlock& block) { return block.size > 0; });
  };
  // Built batches are handed over in order, one behind the one building.
  // A text without a fingerprint may still have features (emoji or symbols
  // under unit=char): a join with no radius compares it too.
  const auto hand_over = [&](const std::vector<std::int64_t>& ids,
                             const std::vector<RowFeatures>& rows,
                             std::vector<FeatureBlock>& blocks) {
    if (lay_out && laid_out_any(blocks)) {
      on_blocks(std::move(blocks));
    }
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (!rows[i].features.empty()) {
        on_row(ids[i], rows[i]);
      }
    }
  };
  // Batches take turns: one building, the next read meanwhile by the
  // caller, the last one built handed over meanwhile by another thread.
  // With one thread the caller hands over, then reads into the batch it
  // handed over: two suffice.
  constexpr std::size_t kMostBatches = 3;
  const std::size_t turns = builder.threads() > 1 ? 3 : 2;
  std::array<Batch, kMostBatches> batches;
  std::array<std::vector<RowFeatures>, kMostBatches> results;
  // With lay_out: the results laid out, a block per thread.
  std::array<std::vector<FeatureBlock>, kMostBatches> blocks;
  std::size_t building = 0;
  bool have_built = false;
  read(batches[building]);
  while (!batches[building].ids.empty()) {
    throw_if_interrupted(db);
    const std::size_t next = (building + 1) % turns;
    const std::size_t last = (building + turns - 1) % turns;
    std::function<void()> hand_over_last;
    if (have_built) {
      hand_over_last = [&] { hand_over(batches[last].ids, results[last], blocks[last]); };
    }
    builder.build(
        batches[building].texts, results[building], [&] { read(batches[next]); }, hand_over_last,
        lay_out ? &blocks[building] : nullptr);
    have_built = true;
    building = next;
    report_progress(progress, "reading and tokenizing", row, total_rows);
  }
  // The loop checks before each batch only (a check after one would be
  // followed at once by the next one's): the last batch's is here.
  throw_if_interrupted(db);
  if (have_built) {
    const std::size_t last = (building + turns - 1) % turns;
    hand_over(batches[last].ids, results[last], blocks[last]);
  }
  if (const std::optional<std::int64_t> repeated =
          find_repeated_id(std::move(every_id), [db] { throw_if_interrupted(db); })) {
    throw SqliteError(SQLITE_ERROR, std::string(who) + ": " + std::string(argument) +
                                        " returns id " + std::to_string(*repeated) +
                                        " more than once; ids must be distinct");
  }
}

unsigned read_thread_count(sqlite3_value* value, std::string_view who) {
  if (value == nullptr || sqlite3_value_type(value) == SQLITE_NULL) {
    return std::min<unsigned>(hardware_threads(), kMaxThreads);
  }
  const std::optional<std::int64_t> threads = integral_value(value);
  if (!threads || *threads < 1 || *threads > kMaxThreads) {
    throw SqliteError(SQLITE_ERROR, std::string(who) + ": threads must be an integer from 1 to " +
                                        std::to_string(kMaxThreads) + " (NULL: every core), got " +
                                        shown(value));
  }
  return static_cast<unsigned>(*threads);
}

}  // namespace simhash::sql

// SPDX-License-Identifier: MIT
// Records sorted on disk, for the batch work that finds more than memory
// may hold (the partitioned dedup's offers, offer_runs.h; the partitioned
// verified pairs, partitioned_pairs.h): they are gathered in a buffer of
// bounded size, sorted and written out as a run when it fills, and read
// back at the end merged, ascending, one record at a time (next()), each
// run read a share of the buffer at a time.
//
// With a fan-in, the runs never pass it when read: runs gather in levels
// (a new run is level 0), and compact() merges the runs of a level that
// has `fan_in` of them into one run of the level above, each level in a
// file of its own that is dropped once merged (the disk holds the records
// at most twice while a level merges). So the merge that reads reads at
// most `fan_in` runs, a buffer's worth in all (fan_in * kLeastReadRecords
// at least), whatever the number of records. Without one (0) every run is
// read at once, a share of the buffer each but at least kLeastReadRecords.
//
// `Record` is trivially copyable, written as its bytes; `Less` orders it
// (a strict weak order; records it finds equivalent come in any order).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "batch/spill_file.h"
#include "util/check_point.h"
#include "util/memory_budget.h"
#include "util/sort_checked.h"

namespace simhash {

template <typename Record, typename Less>
class SortedRuns {
  static_assert(std::is_trivially_copyable_v<Record>);  // written as its bytes

 public:
  static constexpr std::size_t kLeastReadRecords = 256;
  // Records merged between two checks.
  static constexpr std::size_t kRecordsBetweenChecks = std::size_t{1} << 16;

  // Holds at most `buffer_records` records in memory while adding (at least
  // one); `fan_in` 0 for none, else at least 2. `job` names the files in
  // errors (spill_file.h).
  SortedRuns(std::size_t buffer_records, std::size_t fan_in, std::string job)
      : buffer_records_(std::max<std::size_t>(buffer_records, 1)),
        fan_in_(fan_in == 0 ? 0 : std::max<std::size_t>(fan_in, 2)),
        job_(std::move(job)) {}

  // Before start_reading() only.
  void add(const Record& record) {
    if (buffer_.size() >= buffer_records_) {
      write_run();
    }
    if (buffer_.size() == buffer_.capacity()) {
      reserve_charged(buffer_,
                      std::min(buffer_records_, std::max<std::size_t>(64, 2 * buffer_.size())),
                      buffer_charge_);
    }
    buffer_.push_back(record);
    ++count_;
  }

  std::uint64_t count() const { return count_; }
  // The runs on disk, and the buffer's if it holds any.
  std::size_t run_count() const {
    std::size_t runs = buffer_.empty() ? 0 : 1;
    for (const Level& level : levels_) {
      runs += level.runs.size();
    }
    return runs;
  }
  std::size_t fan_in() const { return fan_in_; }
  // The runs the reading merges (0: it reads the buffer, none written).
  std::size_t read_run_count() const { return merge_ ? merge_->run_count() : 0; }

  // With a fan-in, merges each level that holds fan_in() runs into the
  // level above, calling `check` between pieces.
  void compact(const CheckPoint& check) {
    if (fan_in_ == 0) {
      return;
    }
    for (std::size_t level = 0; level < levels_.size(); ++level) {
      if (levels_[level].runs.size() >= fan_in_) {
        merge_levels(level, level, check);
      }
    }
  }

  // Ends the adding: the buffer is written out (unless no run was: then
  // sorted in memory) and, with a fan-in, the runs merged down to at most
  // fan_in(), calling `check` between pieces. Then next() gives every
  // record once.
  void start_reading(const CheckPoint& check) {
    if (levels_.empty()) {
      // Never written: read from memory.
      sort_checked(buffer_, Less(), check);
      return;
    }
    write_run();
    buffer_ = {};
    buffer_charge_.release();
    compact(check);
    while (fan_in_ != 0 && run_count() > fan_in_) {
      // The lowest two levels that hold runs into the one above them.
      std::size_t low = 0;
      while (levels_[low].runs.empty()) {
        ++low;
      }
      std::size_t high = low + 1;
      while (levels_[high].runs.empty()) {
        ++high;
      }
      merge_levels(low, high, check);
    }
    merge_.emplace(runs_of(0, levels_.size() - 1), read_share(run_count()));
  }

  // The next record in `Less` order, or nullptr after the last; valid until
  // the next call. After start_reading() only.
  const Record* next() {
    if (!merge_) {
      return at_ < buffer_.size() ? &buffer_[at_++] : nullptr;
    }
    return merge_->next();
  }

  // Gives back the memory and the files; next() then gives nothing.
  void end_reading() {
    merge_.reset();
    buffer_ = {};
    buffer_charge_.release();
    levels_.clear();
    at_ = 0;
  }

 private:
  struct Run {
    std::uint64_t offset;  // in its level's file
    std::uint64_t count;
  };
  struct Level {
    std::unique_ptr<SpillFile> file;  // made with the level's first run
    std::vector<Run> runs;
  };
  struct PlacedRun {
    SpillFile* file;
    Run run;
  };

  // Several runs read as one: a heap of the runs' next records.
  class Merge {
   public:
    Merge(std::vector<PlacedRun> runs, std::size_t each) : each_(each) {
      charge_.grow_to(runs.size() * each * sizeof(Record));
      readers_.reserve(runs.size());
      for (const PlacedRun& run : runs) {
        readers_.push_back(Reader{run, 0, {}, 0});
        if (refill(readers_.back())) {
          heap_.push_back(readers_.size() - 1);
          std::push_heap(heap_.begin(), heap_.end(), later());
        }
      }
    }

    const Record* next() {
      if (last_) {
        // The reader whose record went last time moves on now.
        Reader& reader = readers_[*last_];
        if (++reader.at < reader.records.size() || refill(reader)) {
          heap_.push_back(*last_);
          std::push_heap(heap_.begin(), heap_.end(), later());
        }
        last_.reset();
      }
      if (heap_.empty()) {
        return nullptr;
      }
      std::pop_heap(heap_.begin(), heap_.end(), later());
      last_ = heap_.back();
      heap_.pop_back();
      const Reader& reader = readers_[*last_];
      return &reader.records[reader.at];
    }

    std::size_t run_count() const { return readers_.size(); }

   private:
    struct Reader {
      PlacedRun placed;
      std::uint64_t read;  // records of the run read into `records`
      std::vector<Record> records;
      std::size_t at;
    };
    // Reads the reader's next share; false at the run's end.
    bool refill(Reader& reader) {
      const auto count = static_cast<std::size_t>(
          std::min<std::uint64_t>(each_, reader.placed.run.count - reader.read));
      if (count == 0) {
        return false;
      }
      reader.records.resize(count);
      reader.placed.file->read(reader.placed.run.offset + reader.read * sizeof(Record),
                               reader.records.data(), count * sizeof(Record));
      reader.read += count;
      reader.at = 0;
      return true;
    }
    // The heap's order: the reader whose record comes first on top.
    auto later() const {
      return [this](std::size_t a, std::size_t b) {
        return Less()(readers_[b].records[readers_[b].at], readers_[a].records[readers_[a].at]);
      };
    }

    std::size_t each_;
    MemoryCharge charge_;  // the readers' records (memory_budget.h)
    std::vector<Reader> readers_;
    std::vector<std::size_t> heap_;
    std::optional<std::size_t> last_;
  };

  // Records a reader of one of `runs` runs holds at a time.
  std::size_t read_share(std::size_t runs) const {
    return std::max(kLeastReadRecords, buffer_records_ / std::max<std::size_t>(runs, 1));
  }

  Level& level(std::size_t index) {
    if (levels_.size() <= index) {
      levels_.resize(index + 1);
    }
    if (!levels_[index].file) {
      levels_[index].file = std::make_unique<SpillFile>(job_);
    }
    return levels_[index];
  }

  void write_run() {
    if (buffer_.empty()) {
      return;
    }
    std::sort(buffer_.begin(), buffer_.end(), Less());
    Level& first = level(0);
    const std::uint64_t offset =
        first.file->append(buffer_.data(), buffer_.size() * sizeof(Record));
    first.runs.push_back(Run{offset, buffer_.size()});
    buffer_.clear();
  }

  std::vector<PlacedRun> runs_of(std::size_t low, std::size_t high) {
    std::vector<PlacedRun> runs;
    for (std::size_t index = low; index <= high && index < levels_.size(); ++index) {
      for (const Run& run : levels_[index].runs) {
        runs.push_back(PlacedRun{levels_[index].file.get(), run});
      }
    }
    return runs;
  }

  // The runs of levels [low, high] merged into one run of level high + 1;
  // their files dropped.
  void merge_levels(std::size_t low, std::size_t high, const CheckPoint& check) {
    std::vector<PlacedRun> runs = runs_of(low, high);
    const std::size_t each = read_share(runs.size());
    Level& target = level(high + 1);
    const std::uint64_t offset = target.file->size();
    std::uint64_t written = 0;
    {
      Merge merge(std::move(runs), each);
      std::vector<Record> out;
      const MemoryCharge out_charge(each * sizeof(Record));
      out.reserve(each);
      const auto flush = [&] {
        target.file->append(out.data(), out.size() * sizeof(Record));
        written += out.size();
        out.clear();
      };
      std::size_t merged = 0;
      while (const Record* record = merge.next()) {
        out.push_back(*record);
        if (out.size() == each) {
          flush();
        }
        check_after_every(merged++, kRecordsBetweenChecks, check);
      }
      flush();
    }
    target.runs.push_back(Run{offset, written});
    for (std::size_t index = low; index <= high; ++index) {
      levels_[index].runs.clear();
      levels_[index].file.reset();
    }
  }

  std::size_t buffer_records_;
  std::size_t fan_in_;
  std::string job_;
  MemoryCharge buffer_charge_;  // the buffer (memory_budget.h)
  std::vector<Record> buffer_;
  std::vector<Level> levels_;
  std::optional<Merge> merge_;
  std::size_t at_ = 0;  // the next record of the buffer, read from memory
  std::uint64_t count_ = 0;
};

}  // namespace simhash

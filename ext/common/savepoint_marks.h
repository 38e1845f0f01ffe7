// SPDX-License-Identifier: MIT
// SavepointMarks: how a module keeps a log of pending writes in memory across
// SQLite's savepoints (xSavepoint, xRelease, xRollbackTo) instead of writing
// them at each. SQLite opens a savepoint for every statement that fires a
// trigger; writing the pending changes there copies every page they touch to
// the statement journal, once per row. Instead each savepoint records where
// it was in the log, and rolling back to it drops what came after.
//
// A merge (the log written to the shadow tables, then emptied) while a
// savepoint is open is undone by SQLite's own journal if the savepoint is
// rolled back; the changes the merge wrote that came before the savepoint
// are then pending again. So before a merge empties the log, before_merge()
// keeps aside the part that open savepoints came after, and rollback_to()
// restores it.
//
// Log: size(); truncate(n) drops changes [n, size()); save(n) returns a
// Log::Saved copy of the first n; restore(saved, n) replaces the log by the
// first n of a saved copy; for PendingWrites also empty() and clear().
//
// PendingWrites is the whole bookkeeping of a module's pending writes over
// a log the module owns: the marks, the savepoint calls, and the flush that
// writes the log out once, never inside itself (simhash_index's IndexStorage
// and simhash_similar's SimilarStorage).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace simhash::sql {

template <typename Log>
class SavepointMarks {
 public:
  // The transaction ended (committed or rolled back).
  void clear() {
    marks_.clear();
    merged_.clear();
  }

  void savepoint(int level, const Log& log) {
    if (level < 0) {
      return;
    }
    const auto at = static_cast<std::size_t>(level);
    const Mark now{merged_.size(), log.size()};
    if (marks_.empty()) {
      // Levels below were opened before the table joined the transaction,
      // when nothing of it was pending (merged_ is empty too).
      marks_.assign(at, Mark{});
    } else if (at > marks_.size()) {
      marks_.resize(at, now);
    } else {
      marks_.resize(at);
    }
    marks_.push_back(now);
  }

  // Level -1 is the savepoint that began the transaction (SAVEPOINT outside
  // one): SQLite passes iSavepoint - 1 for it, and it lies before everything.
  void release(int level) {
    if (level < 0) {
      marks_.clear();
    } else if (static_cast<std::size_t>(level) < marks_.size()) {
      marks_.resize(static_cast<std::size_t>(level));
    }
    // A kept merge matters only to a savepoint opened before it.
    if (marks_.empty()) {
      merged_.clear();
    } else if (merged_.size() > marks_.back().merges + 1) {
      merged_.resize(marks_.back().merges + 1);
    }
  }

  void rollback_to(int level, Log& log) {
    if (level < 0) {
      // Back to the start of the transaction: every merge undone, nothing
      // pending.
      log.truncate(0);
      clear();
      return;
    }
    if (static_cast<std::size_t>(level) >= marks_.size()) {
      return;  // a savepoint the table never saw: nothing of it came after
    }
    const Mark mark = marks_[static_cast<std::size_t>(level)];
    marks_.resize(static_cast<std::size_t>(level) + 1);  // the savepoint stays open
    if (mark.merges < merged_.size()) {
      // SQLite undid every merge since the savepoint; the first of them
      // wrote the changes that were pending when it was opened.
      log.restore(merged_[mark.merges], mark.changes);
      merged_.resize(mark.merges);
    } else {
      log.truncate(mark.changes);
    }
  }

  // Whether a merge wrote changes that a ROLLBACK TO would make pending again.
  bool holds_merges() const { return !merged_.empty(); }

  // Whether a ROLLBACK TO one of the open savepoints but the newest would
  // leave changes pending: those pending when it was opened, whether still
  // in the log or merged since (a merge after it is undone with it). The
  // newest is left out for xDestroy: SQLite runs every DROP TABLE of a
  // virtual table in a transaction under a statement savepoint of its own
  // (OP_VDestroy asserts it), and sends the table xSavepoint for it, at
  // OP_Transaction or at the OP_VBegin that joins it to the transaction,
  // just before the drop; outside a transaction no savepoint is open.
  bool pending_at_an_older_savepoint() const {
    return marks_.size() > 1 && std::any_of(marks_.begin(), marks_.end() - 1,
                                            [](const Mark& mark) { return mark.changes > 0; });
  }

  // Called before a merge empties `log`.
  void before_merge(const Log& log) {
    if (marks_.empty()) {
      return;  // no savepoint open: only a whole rollback undoes the merge
    }
    std::size_t keep = 0;
    for (const Mark& mark : marks_) {
      if (mark.merges == merged_.size()) {
        keep = std::max(keep, mark.changes);
      }
    }
    merged_.push_back(log.save(keep));
  }

 private:
  // Where an open savepoint was: how many merges had happened (the index in
  // merged_ of the first merge after it) and how many changes were pending.
  struct Mark {
    std::size_t merges = 0;
    std::size_t changes = 0;
  };
  // By savepoint level.
  std::vector<Mark> marks_;
  // Per merge since the oldest open savepoint, the changes it wrote that a
  // savepoint opened before it came after (the first `changes` of the
  // latest such mark).
  std::vector<typename Log::Saved> merged_;
};

// A module's pending writes: `log`, which the module owns and reads, with
// the savepoint marks over it and the flush that writes it out.
template <typename Log>
class PendingWrites {
 public:
  explicit PendingWrites(Log& log) : log_(log) {}
  PendingWrites(const PendingWrites&) = delete;
  PendingWrites& operator=(const PendingWrites&) = delete;

  // Forgets the pending writes and the savepoints (the transaction ended).
  void discard() {
    log_.clear();
    marks_.clear();
  }

  // xSavepoint, xRelease, xRollbackTo. A statement the flush runs may open a
  // savepoint inside it; the flush is a step of the caller's statement, so
  // there is nothing to mark.
  void savepoint(int level) {
    if (!flushing_) {
      marks_.savepoint(level, log_);
    }
  }
  void release(int level) { marks_.release(level); }
  void rollback_to(int level) { marks_.rollback_to(level, log_); }

  // Pending writes, or merged ones that a ROLLBACK TO would make pending
  // again: the table was written in this transaction in a way that only
  // this object knows of until it ends (a rename is then refused:
  // ext/common/shared_storage.h).
  bool holds_writes() const { return !log_.empty() || marks_.holds_merges(); }

  // Writes that a ROLLBACK TO a savepoint opened before the newest would
  // make pending again (SavepointMarks::pending_at_an_older_savepoint): a
  // DROP TABLE is then refused, as that ROLLBACK TO would bring the table
  // back without them (SQLite gives a dropped table no later call).
  bool pending_at_an_older_savepoint() const { return marks_.pending_at_an_older_savepoint(); }

  // Runs write() to write the log out, then empties it; nothing when the log
  // is empty or a flush is under way (a statement the flush runs may make
  // SQLite call back into the module, or, through a trigger, write: neither
  // may flush again). The log is kept aside for the open savepoints first,
  // so a copy that fails to allocate fails the flush before anything is
  // written.
  template <typename Write>
  void flush(Write&& write) {
    if (log_.empty() || flushing_) {
      return;
    }
    flushing_ = true;
    struct EndFlush {
      bool& flushing;
      ~EndFlush() { flushing = false; }
    } end_flush{flushing_};
    marks_.before_merge(log_);
    write();
    log_.clear();
  }

  // The log written by other means (a rebuild from the stored rows): kept
  // aside for the open savepoints as a flush would be, then emptied.
  void written_elsewhere() {
    marks_.before_merge(log_);
    log_.clear();
  }

 private:
  Log& log_;
  SavepointMarks<Log> marks_;
  bool flushing_ = false;
};

}  // namespace simhash::sql

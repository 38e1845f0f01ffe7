// SPDX-License-Identifier: MIT
// The extension's share of the memory limit its host sets: the engine's
// large working arrays (feature blocks, links, the join's tables, pending
// index changes, results) are charged here before they are allocated, so
// that a statement that would take more than the limit allows fails with
// MemoryLimitExceeded, at the allocation, instead of running past it. The
// limit and the memory the host uses itself come from a source the glue
// installs (SQLite's hard heap limit and sqlite3_memory_used()); the engine
// knows nothing of them. Without a source nothing is limited, only counted.
// The count is one per process, as SQLite's limit is, and atomic: several
// statements and threads may charge at once.
#pragma once

#include <algorithm>
#include <cstddef>
#include <new>
#include <string>
#include <utility>
#include <vector>

namespace simhash {

// A charge refused: the limit, and what was held when it came.
class MemoryLimitExceeded : public std::bad_alloc {
 public:
  MemoryLimitExceeded(std::size_t requested, std::size_t charged, std::size_t outside,
                      std::size_t limit);
  const char* what() const noexcept override { return message_.c_str(); }
  // "needs 3 MB more working memory (12 MB in use by the host, 40 MB by
  // simhash)": for the glue to say which limit and which function.
  const std::string& details() const { return details_; }
  std::size_t limit() const { return limit_; }

 private:
  std::string details_;
  std::string message_;
  std::size_t limit_;
};

// Where the limit comes from. `limit()` is the most bytes the process may
// use (0: no limit), `used_outside()` what the host holds itself; both are
// called at each charge that grows the total (a few times a megabyte), from
// any thread that charges.
struct MemoryLimitSource {
  std::size_t (*limit)() = nullptr;
  std::size_t (*used_outside)() = nullptr;
};
void set_memory_limit_source(MemoryLimitSource source);

// Bytes charged now by every MemoryCharge of the process.
std::size_t memory_charged();

// Bytes one owner (an array, a table, a result) has charged, given back when
// it is destroyed. A growing charge takes a quarter more than asked (at most
// kStep), so that the limit is asked a few times a megabyte, not at every row.
class MemoryCharge {
 public:
  static constexpr std::size_t kStep = std::size_t{1} << 20;

  MemoryCharge() = default;
  // Charges `bytes` at once (throws MemoryLimitExceeded).
  explicit MemoryCharge(std::size_t bytes) { grow_to(bytes); }
  ~MemoryCharge() { release(); }
  MemoryCharge(MemoryCharge&& other) noexcept
      : asked_(std::exchange(other.asked_, 0)), bytes_(std::exchange(other.bytes_, 0)) {}
  MemoryCharge& operator=(MemoryCharge&& other) noexcept {
    if (this != &other) {
      release();
      asked_ = std::exchange(other.asked_, 0);
      bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
  }
  // A copy charges what the original was asked for again: the copied
  // arrays are that big too.
  MemoryCharge(const MemoryCharge& other) { grow_to(other.asked_); }
  MemoryCharge& operator=(const MemoryCharge& other) {
    if (this != &other) {
      set(other.asked_);
    }
    return *this;
  }

  // Covers at least `bytes` (charging up to kStep more), or throws
  // MemoryLimitExceeded and covers what it did.
  void grow_to(std::size_t bytes) {
    if (bytes > bytes_) {
      reserve_more(bytes);
    }
    asked_ = std::max(asked_, bytes);
  }
  // Covers `bytes` more than asked so far.
  void add(std::size_t bytes) { grow_to(asked_ + bytes); }
  // Covers exactly `bytes`: more is charged, the rest given back.
  void set(std::size_t bytes);
  void release() { set(0); }
  // What is charged (at least what was asked).
  std::size_t bytes() const { return bytes_; }

 private:
  void reserve_more(std::size_t bytes);
  std::size_t asked_ = 0;  // the most asked for since the last set()
  std::size_t bytes_ = 0;  // charged: asked_ rounded up to the next step
};

// Makes room in `array` for `size` elements, charging `charge` (which
// serves this array alone) first: while a vector grows its old and new
// buffers are both held, so both are charged until the copy is done.
template <typename T>
void reserve_charged(std::vector<T>& array, std::size_t size, MemoryCharge& charge) {
  if (size <= array.capacity()) {
    return;
  }
  const std::size_t capacity = std::max(size, 2 * array.capacity());
  charge.grow_to((capacity + array.capacity()) * sizeof(T));
  array.reserve(capacity);
  charge.set(capacity * sizeof(T));
}

}  // namespace simhash

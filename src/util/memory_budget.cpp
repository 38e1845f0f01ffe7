// SPDX-License-Identifier: MIT
// The process's count of charged bytes and the check against the installed
// limit (memory_budget.h).
#include "util/memory_budget.h"

#include <atomic>

namespace simhash {
namespace {

std::atomic<std::size_t> charged{0};
std::atomic<std::size_t (*)()> limit_of{nullptr};
std::atomic<std::size_t (*)()> used_outside_of{nullptr};

std::string megabytes(std::size_t bytes) {
  return std::to_string((bytes + (std::size_t{1} << 19)) >> 20) + " MB";
}

}  // namespace

MemoryLimitExceeded::MemoryLimitExceeded(std::size_t requested, std::size_t charged_now,
                                         std::size_t outside, std::size_t limit)
    : details_("needs " + megabytes(requested) + " more working memory (" + megabytes(outside) +
               " in use by the host, " + megabytes(charged_now) + " by simhash)"),
      message_("simhash: out of memory under a heap limit of " + std::to_string(limit) +
               " bytes: " + details_),
      limit_(limit) {}

void set_memory_limit_source(MemoryLimitSource source) {
  limit_of = source.limit;
  used_outside_of = source.used_outside;
}

std::size_t memory_charged() { return charged.load(std::memory_order_relaxed); }

void MemoryCharge::set(std::size_t bytes) {
  if (bytes > bytes_) {
    reserve_more(bytes);
  } else if (bytes < bytes_) {
    charged.fetch_sub(bytes_ - bytes, std::memory_order_relaxed);
    bytes_ = bytes;
  }
  asked_ = bytes;
}

void MemoryCharge::reserve_more(std::size_t bytes) {
  // Rounded up to a quarter of what is held (at most kStep), so that a
  // charge that grows row by row asks the limit a few times a megabyte;
  // near the limit, just what is needed.
  const std::size_t needed = bytes - bytes_;
  std::size_t more = std::max(needed, std::min(kStep, bytes_ / 4));
  std::size_t (*const limit_source)() = limit_of.load();
  std::size_t (*const outside_source)() = used_outside_of.load();
  const std::size_t limit = limit_source != nullptr ? limit_source() : 0;
  const std::size_t outside = limit != 0 && outside_source != nullptr ? outside_source() : 0;
  // Added only if the sum stays within the limit: the count never passes
  // it, even for a moment, whatever other threads charge.
  std::size_t now = charged.load(std::memory_order_relaxed);
  for (;;) {
    const std::size_t total = now + more;
    if (limit != 0 && (total > limit || outside > limit - total)) {
      if (more > needed) {
        more = needed;
        continue;
      }
      throw MemoryLimitExceeded(more, now, outside, limit);
    }
    if (charged.compare_exchange_weak(now, total, std::memory_order_relaxed)) {
      break;
    }
  }
  bytes_ += more;
}

}  // namespace simhash

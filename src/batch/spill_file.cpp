// SPDX-License-Identifier: MIT
// The temporary file of spill_file.h: one stdio stream, seeked only when a
// read or write is not where the last one ended (appends in a row are one
// buffered stream).
#include "batch/spill_file.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace simhash {

SpillFile::SpillFile(std::string job) : job_(std::move(job)), file_(std::tmpfile()) {
  if (!file_) {
    fail(" could not be created: ");
  }
}

void SpillFile::fail(const char* what) const {
  const int error = errno;
  throw std::runtime_error("simhash: " + job_ + what + std::strerror(error));
}

void SpillFile::seek(std::uint64_t offset, bool writing) {
  if (offset == at_ && writing == writing_) {
    return;
  }
#ifdef _WIN32
  const int result = _fseeki64(file_.get(), static_cast<long long>(offset), SEEK_SET);
#else
  const int result = fseeko(file_.get(), static_cast<off_t>(offset), SEEK_SET);
#endif
  if (result != 0) {
    fail(" could not be read: ");
  }
  at_ = offset;
  writing_ = writing;
}

std::uint64_t SpillFile::append(const void* data, std::size_t bytes) {
  const std::uint64_t offset = size_;
  seek(offset, true);
  errno = 0;
  if (bytes > 0 && std::fwrite(data, 1, bytes, file_.get()) != bytes) {
    fail(" could not be written (is the temporary directory full?): ");
  }
  size_ += bytes;
  at_ = size_;
  return offset;
}

void SpillFile::read(std::uint64_t offset, void* data, std::size_t bytes) {
  if (offset + bytes > size_) {
    throw std::logic_error("simhash: a read past the end of a spill file");
  }
  seek(offset, false);
  errno = 0;
  if (bytes > 0 && std::fread(data, 1, bytes, file_.get()) != bytes) {
    fail(" could not be read: ");
  }
  at_ = offset + bytes;
}

}  // namespace simhash

// SPDX-License-Identifier: MIT
// A temporary file the partitioned dedup writes what it cannot keep in
// memory to (the rows' features, the verified pairs) and reads back at any
// offset. It is std::tmpfile's: removed when closed or when the process
// ends, in the directory the C library chooses. Any failure to write or
// read throws std::runtime_error naming the file's job.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

namespace simhash {

class SpillFile {
 public:
  // `job` names the file in errors ("the rows' spill file").
  explicit SpillFile(std::string job);

  // Appends `bytes` at the end; returns the offset they start at.
  std::uint64_t append(const void* data, std::size_t bytes);
  // Reads `bytes` at `offset` into `data`.
  void read(std::uint64_t offset, void* data, std::size_t bytes);
  std::uint64_t size() const { return size_; }

 private:
  struct Closer {
    void operator()(std::FILE* file) const { std::fclose(file); }
  };
  // Throws "simhash: <job><what><the system's message>".
  [[noreturn]] void fail(const char* what) const;
  // Seeks unless the stream is at `offset` and goes on the same way: C
  // asks for a seek between a write and a read.
  void seek(std::uint64_t offset, bool writing);

  std::string job_;
  std::unique_ptr<std::FILE, Closer> file_;
  std::uint64_t size_ = 0;
  std::uint64_t at_ = 0;  // where the next read or write goes without a seek
  bool writing_ = true;   // the last call wrote
};

}  // namespace simhash

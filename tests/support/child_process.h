// SPDX-License-Identifier: MIT
// A test's body run in a forked child process, for the cases whose
// regression is a crash (a stack overflow, a sanitizer's abort): the crash
// then fails the test that ran it instead of killing the whole run.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <string>

namespace simhash::testing {

// Runs `body` in a child process; its returned text ("" when all went as
// expected) comes back through a pipe. A child killed by a signal, or one
// that exits without answering, is reported as such.
inline std::string run_in_child(const std::function<std::string()>& body) {
  int channel[2];
  if (pipe(channel) != 0) {
    return "pipe failed";
  }
  const pid_t child = fork();
  if (child < 0) {
    return "fork failed";
  }
  if (child == 0) {
    close(channel[0]);
    const std::string problems = body();
    std::size_t written = 0;
    while (written < problems.size()) {
      const ssize_t n = write(channel[1], problems.data() + written, problems.size() - written);
      if (n <= 0) {
        _exit(3);
      }
      written += static_cast<std::size_t>(n);
    }
    _exit(0);
  }
  close(channel[1]);
  std::string answer;
  char buffer[4096];
  ssize_t n = 0;
  while ((n = read(channel[0], buffer, sizeof buffer)) > 0) {
    answer.append(buffer, static_cast<std::size_t>(n));
  }
  close(channel[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (WIFSIGNALED(status)) {
    return answer + "the child was killed by signal " + std::to_string(WTERMSIG(status));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return answer + "the child exited with status " + std::to_string(WEXITSTATUS(status));
  }
  return answer;
}

}  // namespace simhash::testing

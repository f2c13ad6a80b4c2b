#pragma once
// The sweep's progress on standard error: "sweep 12/40 points (30%), 2.1 points/s, ETA 13 s,
// 1 failed". On a terminal one line rewritten in place (at most 10 times a second); elsewhere
// (--progress into a log file) one line per second at most, and always a last line.
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <mutex>
#include <string>

namespace scenarios {

class ProgressLine {
 public:
  // `already`: points done by an earlier run (--resume), counted as done, not in the rate.
  ProgressLine(std::FILE* out, bool terminal, size_t total, size_t already);
  // One more point done (failed or not). Thread-safe.
  void point_done(bool failed);
  // The last line (with its newline).
  void finish();
  // The text of the line as it stands (tests, and what finish prints).
  std::string text() const;

 private:
  using Clock = std::chrono::steady_clock;
  std::FILE* out_;
  bool terminal_;
  size_t total_, already_, done_ = 0, failed_ = 0;
  Clock::time_point start_, last_print_;
  bool printed_ = false;
  mutable std::mutex mutex_;
  std::string text_locked() const;
};

}  // namespace scenarios

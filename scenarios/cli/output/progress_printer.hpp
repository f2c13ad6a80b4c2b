#pragma once
// The one printer of a long command's progress line on standard error (`commsim run`, `commsim
// plan`): on a terminal one line rewritten in place (at most 10 times a second), drawn only once
// the command has taken a second (a quick one prints nothing) and erased when it ends or fails;
// elsewhere (--progress into a log file) one line per second at most from the start, a line at
// once where a new stage begins, and always a last line "WHAT: done in 12.0 s". What the line says is its owner's
// (run_progress.hpp, plan/plan_progress.hpp).
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>

namespace scenarios {

class ProgressPrinter {
 public:
  using Clock = std::chrono::steady_clock;
  // `what`: the line's prefix ("commsim run"); `start`: when the command began.
  ProgressPrinter(std::FILE* out, bool terminal, std::string what, Clock::time_point start = Clock::now());
  // A line left on a terminal by a command that failed is erased (the error message follows it).
  ~ProgressPrinter();
  ProgressPrinter(const ProgressPrinter&) = delete;
  ProgressPrinter& operator=(const ProgressPrinter&) = delete;
  // Prints `text()` ("WHAT: ..." in full) when a line is due at `now` (text is not built otherwise).
  // `new_stage`: the command entered another stage, which a log file gets at once (so every
  // stage a command went through is in it); a terminal still waits for its gap.
  void offer(Clock::time_point now, const std::function<std::string()>& text, bool new_stage = false);
  // Ends the line: erased on a terminal, a last line elsewhere.
  void finish();
  const std::string& what() const { return what_; }
  Clock::time_point start() const { return start_; }

 private:
  std::FILE* out_;
  bool terminal_;
  std::string what_;
  Clock::time_point start_, last_print_;
  bool printed_ = false;
  bool finished_ = false;
};

// One drawing of a progress line: on a terminal rewritten in place (carriage return, the text,
// the rest of the old line erased), elsewhere a line of its own; flushed.
void draw_progress_line(std::FILE* out, bool terminal, const std::string& text);

// Tenths of a second under a minute (the line moves), then minutes and seconds.
std::string progress_seconds(double s);

}  // namespace scenarios

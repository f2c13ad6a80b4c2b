#pragma once
// A long run's progress on standard error: "commsim run: 1.4 s, writing every rank's step
// program" during set-up, then "commsim run: 42 % of the step simulated, 12.0 s, ETA 16 s",
// printed by ProgressPrinter (progress_printer.hpp: when, where and how the line is drawn).
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

#include "scenarios/cli/output/progress_printer.hpp"

namespace scenarios {

class RunProgressLine {
 public:
  using Clock = std::chrono::steady_clock;
  // `what`: the line's prefix ("commsim run"); `start`: when the run began.
  RunProgressLine(std::FILE* out, bool terminal, std::string what, Clock::time_point start = Clock::now());
  RunProgressLine(const RunProgressLine&) = delete;
  RunProgressLine& operator=(const RunProgressLine&) = delete;
  // RunOptions::progress's signature: a finished set-up stage (fraction < 0) or the share simulated.
  void report(std::string_view stage, double fraction);
  // The callback to put in RunOptions::progress (this object must outlive the run).
  std::function<void(std::string_view, double)> callback();
  // Ends the line: erased on a terminal, a last line elsewhere.
  void finish();
  // The line as it stands at `now` (tests, and what is printed).
  std::string text(Clock::time_point now) const;

 private:
  ProgressPrinter printer_;
  Clock::time_point pass_start_;
  std::string stage_;      // the last finished set-up stage while setting up
  double fraction_ = -1;   // the share simulated (< 0: still setting up)
  int pass_ = 0;           // simulations of this run so far (a fold abandoned, stragglers' cost, samples)
};

}  // namespace scenarios

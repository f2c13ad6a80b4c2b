#pragma once
// The plan search's progress on standard error, printed as `commsim run`'s is (ProgressPrinter:
// on a terminal after a second, in place, erased at the end; --progress: one line per second into
// a file, each stage's first line at once, and a last line):
//   commsim plan: enumerating the space, 0.4 s
//   commsim plan: bounding 1,200 of 5,852 candidates, 1.1 s
//   commsim plan: simulating 12 of 40 candidates still able to win, best so far 3.2 d, 14.2 s, ETA 33 s
//   commsim plan: auditing 30 of 2,368 skipped candidates, 40.0 s, ETA 51 min
// "Still able to win": those simulated and those left whose lower bound can still beat the rows
// made exact, a count that falls as better layouts are found, so the ETA (the rate of this stage
// so far over what is left) is a guess that only improves.
#include <string>

#include "models/plan/progress.hpp"
#include "scenarios/cli/output/progress_printer.hpp"

namespace scenarios {

class PlanProgressLine {
 public:
  using Clock = ProgressPrinter::Clock;
  PlanProgressLine(std::FILE* out, bool terminal, Clock::time_point start = Clock::now());
  // PlanOptions::progress's signature (the search calls it from one thread at a time).
  void report(const models::plan::PlanProgress& p);
  // The callback to put in PlanOptions::progress (this object must outlive the search).
  models::plan::PlanProgressFn callback();
  // Ends the line: erased on a terminal, a last line elsewhere.
  void finish();
  // The line as it stands at `now` (tests, and what is printed).
  std::string text(Clock::time_point now) const;

 private:
  ProgressPrinter printer_;
  models::plan::PlanProgress state_;
  Clock::time_point stage_start_;
};

}  // namespace scenarios

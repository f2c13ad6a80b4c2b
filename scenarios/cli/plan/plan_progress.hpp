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
// The search reports only when a candidate finishes, and one simulation of a large layout takes
// tens of seconds: a ticker thread (start_ticking) redraws the last report once a second with the
// time and ETA as they then stand, so the line never freezes; the search and its simulations are
// untouched. The command makes the line only on a terminal or with --progress, so nothing else
// is ever written.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "models/plan/progress.hpp"
#include "scenarios/cli/output/progress_printer.hpp"

namespace scenarios {

class PlanProgressLine {
 public:
  using Clock = ProgressPrinter::Clock;
  PlanProgressLine(std::FILE* out, bool terminal, Clock::time_point start = Clock::now());
  ~PlanProgressLine();  // stops the ticker
  PlanProgressLine(const PlanProgressLine&) = delete;
  PlanProgressLine& operator=(const PlanProgressLine&) = delete;
  // PlanOptions::progress's signature (the search calls it from one thread at a time).
  void report(const models::plan::PlanProgress& p);
  // The callback to put in PlanOptions::progress (this object must outlive the search).
  models::plan::PlanProgressFn callback();
  // The last report again as it stands at `now` (its time and ETA moved on), where the printer has
  // a line due; what the ticker calls.
  void tick(Clock::time_point now);
  // A thread calling tick every `period` until finish (or the destructor).
  void start_ticking(std::chrono::milliseconds period = std::chrono::seconds(1));
  // Ends the line (the ticker first): erased on a terminal, a last line elsewhere.
  void finish();
  // The line as it stands at `now` (tests, and what is printed).
  std::string text(Clock::time_point now) const;

 private:
  void stop_ticking();

  ProgressPrinter printer_;
  models::plan::PlanProgress state_;
  Clock::time_point stage_start_;
  std::mutex mutex_;  // the search's reports and the ticker's redraws, one at a time
  // The ticker: it waits on `wake_` for its period or for `stop_`.
  std::thread ticker_;
  std::mutex ticker_mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
};

}  // namespace scenarios

#pragma once
// Where a plan search stands, for a progress line (`commsim plan` on a terminal, or --progress):
// the stage, how far it is, and the best layout's objective so far. The search reports through
// PlanProgressSink, which calls the user's callback from one thread at a time.
#include <cstdint>
#include <functional>
#include <limits>
#include <mutex>

namespace models::plan {

struct PlanProgress {
  enum class Stage {
    Enumerating,  // building the space (done, total: 0)
    Bounding,     // layout checks and bounds: done of total candidates
    Simulating,   // done simulated of total = those simulated + those left whose bound can still win
    Auditing,     // --audit: done of total skipped candidates simulated
  };
  Stage stage = Stage::Enumerating;
  int64_t done = 0, total = 0;
  // The best objective taken so far that meets the constraints (seconds to train, or dollars
  // under the cost objective); infinite: none yet.
  double best = std::numeric_limits<double>::infinity();
  bool cost = false;  // the objective is cost: `best` is in dollars
};

using PlanProgressFn = std::function<void(const PlanProgress&)>;

// The search's side: one state, updated and reported under a lock (workers report as they finish
// a candidate). Without a callback every call is a no-op.
class PlanProgressSink {
 public:
  explicit PlanProgressSink(PlanProgressFn fn, bool cost) : fn_(std::move(fn)) { state_.cost = cost; }
  // A new stage: done 0 of `total`.
  void stage(PlanProgress::Stage s, int64_t total) {
    if (!fn_) return;
    std::lock_guard<std::mutex> lock(mutex_);
    state_.stage = s;
    state_.done = 0;
    state_.total = total;
    fn_(state_);
  }
  // One more done.
  void step() {
    if (!fn_) return;
    std::lock_guard<std::mutex> lock(mutex_);
    ++state_.done;
    fn_(state_);
  }
  // The count done and the total as the search now knows them (simulating: the total shrinks as
  // the best improves), and the best so far.
  void set(int64_t done, int64_t total, double best) {
    if (!fn_) return;
    std::lock_guard<std::mutex> lock(mutex_);
    state_.done = done;
    state_.total = total;
    state_.best = best;
    fn_(state_);
  }

 private:
  PlanProgressFn fn_;
  std::mutex mutex_;
  PlanProgress state_;
};

}  // namespace models::plan

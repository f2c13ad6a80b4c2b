#pragma once
// --time-limit before the first simulated operation: the wall-clock budget is checked
// between the set-up stages of run_scenario (World, collective engine, every rank's program, the
// memory estimate, rank classes) and after the result fill, so a limit that passes during set-up
// ends the run at the next stage boundary instead of after the whole set-up. The executor checks
// the same budget while it simulates (StepExecutor::set_wall_limit).
#include <chrono>
#include <optional>
#include <string>

namespace models {

class WallBudget {
 public:
  using Clock = std::chrono::steady_clock;
  // `progress`: called with each finished stage's name (may be empty: no one listens).
  using Progress = std::function<void(std::string_view finished_stage)>;
  WallBudget(std::optional<double> limit_s, Clock::time_point start, Progress progress = {})
      : limit_s_(limit_s), start_(start), progress_(std::move(progress)) {}

  double elapsed_s() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  // True once the budget is spent; the first stage found over it is remembered for the notes.
  bool spent(const char* stage) {
    if (progress_) progress_(stage);
    if (!limit_s_ || !stopped_in_.empty()) return !stopped_in_.empty();
    if (elapsed_s() <= *limit_s_) return false;
    stopped_in_ = stage;
    return true;
  }
  const std::string& stopped_in() const { return stopped_in_; }
  Clock::time_point start() const { return start_; }

 private:
  std::optional<double> limit_s_;
  Clock::time_point start_;
  std::string stopped_in_;
  Progress progress_;
};

}  // namespace models

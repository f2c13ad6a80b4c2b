// A long run's progress line (see run_progress.hpp).
#include "scenarios/cli/output/run_progress.hpp"

#include <fmt/format.h>

namespace scenarios {

RunProgressLine::RunProgressLine(std::FILE* out, bool terminal, std::string what, Clock::time_point start)
    : printer_(out, terminal, std::move(what), start), pass_start_(start) {}

std::string RunProgressLine::text(Clock::time_point now) const {
  const double elapsed = std::chrono::duration<double>(now - printer_.start()).count();
  std::string s = printer_.what() + ": ";
  if (fraction_ < 0) {
    s += progress_seconds(elapsed);
    if (!stage_.empty()) s += ", done " + stage_;
    return s;
  }
  s += fmt::format("{:.0f} % of the step simulated", 100 * fraction_);
  if (pass_ > 1) s += fmt::format(" (simulation {})", pass_);
  s += ", " + progress_seconds(elapsed);
  // The rate of this simulation so far; operations are not equally costly, so it is a guess.
  const double simulating = std::chrono::duration<double>(now - pass_start_).count();
  if (fraction_ > 0.02 && fraction_ < 1 && simulating > 0)
    s += ", ETA " + progress_seconds(simulating * (1 - fraction_) / fraction_);
  return s;
}

void RunProgressLine::report(std::string_view stage, double fraction) {
  const auto now = Clock::now();
  if (fraction < 0) {
    stage_ = std::string(stage);
    fraction_ = -1;
  } else {
    if (fraction_ < 0 || fraction < fraction_) {  // a new simulation of the run begins
      ++pass_;
      pass_start_ = now;
    }
    fraction_ = fraction;
  }
  printer_.offer(now, [&] { return text(now); });
}

std::function<void(std::string_view, double)> RunProgressLine::callback() {
  return [this](std::string_view stage, double fraction) { report(stage, fraction); };
}

void RunProgressLine::finish() { printer_.finish(); }

}  // namespace scenarios

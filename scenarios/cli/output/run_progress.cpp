// A long run's progress line (see run_progress.hpp).
#include "scenarios/cli/output/run_progress.hpp"

#include <fmt/format.h>

#include "scenarios/cli/output/result_format.hpp"

namespace scenarios {

namespace {
// Tenths of a second under a minute (the line moves), then minutes and seconds.
std::string progress_seconds(double s) { return s < 60 ? fmt::format("{:.1f} s", s) : format_seconds(s); }
}  // namespace

RunProgressLine::RunProgressLine(std::FILE* out, bool terminal, std::string what, Clock::time_point start)
    : out_(out), terminal_(terminal), what_(std::move(what)), start_(start), last_print_(start), pass_start_(start) {}

std::string RunProgressLine::text(Clock::time_point now) const {
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  std::string s = what_ + ": ";
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
  if (terminal_ && !printed_ && now - start_ < std::chrono::seconds(1)) return;
  const auto gap = terminal_ ? std::chrono::milliseconds(100) : std::chrono::milliseconds(1000);
  if (printed_ && now - last_print_ < gap) return;
  printed_ = true;
  last_print_ = now;
  const std::string s = text(now);
  if (terminal_)
    std::fprintf(out_, "\r%s\033[K", s.c_str());
  else
    std::fprintf(out_, "%s\n", s.c_str());
  std::fflush(out_);
}

std::function<void(std::string_view, double)> RunProgressLine::callback() {
  return [this](std::string_view stage, double fraction) { report(stage, fraction); };
}

RunProgressLine::~RunProgressLine() {
  if (terminal_ && printed_ && !finished_) {
    std::fprintf(out_, "\r\033[K");
    std::fflush(out_);
  }
}

void RunProgressLine::finish() {
  finished_ = true;
  if (terminal_) {
    if (printed_) std::fprintf(out_, "\r\033[K");
  } else {
    std::fprintf(out_, "%s: done in %s\n", what_.c_str(),
                 progress_seconds(std::chrono::duration<double>(Clock::now() - start_).count()).c_str());
  }
  std::fflush(out_);
}

}  // namespace scenarios

// The plan search's progress line (see plan_progress.hpp).
#include "scenarios/cli/plan/plan_progress.hpp"

#include <cmath>

#include <fmt/format.h>

#include "scenarios/cli/output/result_format.hpp"
#include "viz/format.hpp"

namespace scenarios {

PlanProgressLine::PlanProgressLine(std::FILE* out, bool terminal, Clock::time_point start)
    : printer_(out, terminal, "commsim plan", start), stage_start_(start) {}

std::string PlanProgressLine::text(Clock::time_point now) const {
  using Stage = models::plan::PlanProgress::Stage;
  using viz::fmt::count;
  const auto& p = state_;
  std::string s = printer_.what() + ": ";
  switch (p.stage) {
    case Stage::Enumerating: s += "enumerating the space"; break;
    case Stage::Bounding: s += fmt::format("bounding {} of {} candidates", count(p.done), count(p.total)); break;
    case Stage::Simulating:
      s += fmt::format("simulating {} of {} candidates still able to win", count(p.done), count(p.total));
      if (std::isfinite(p.best)) s += ", best so far " + (p.cost ? format_usd(p.best) : format_seconds(p.best));
      break;
    case Stage::Auditing:
      s += fmt::format("auditing {} of {} skipped candidates", count(p.done), count(p.total));
      break;
  }
  s += ", " + progress_seconds(std::chrono::duration<double>(now - printer_.start()).count());
  // This stage's rate so far over what is left of it (candidates are not equally costly: a guess).
  const double in_stage = std::chrono::duration<double>(now - stage_start_).count();
  if (p.stage != models::plan::PlanProgress::Stage::Enumerating && p.done > 0 && p.done < p.total && in_stage > 0)
    s += ", ETA " + progress_seconds(in_stage * double(p.total - p.done) / double(p.done));
  return s;
}

PlanProgressLine::~PlanProgressLine() { stop_ticking(); }

void PlanProgressLine::report(const models::plan::PlanProgress& p) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto now = Clock::now();
  const bool new_stage = p.stage != state_.stage;
  if (new_stage) stage_start_ = now;
  state_ = p;
  printer_.offer(
      now, [&] { return text(now); }, new_stage);
}

models::plan::PlanProgressFn PlanProgressLine::callback() {
  return [this](const models::plan::PlanProgress& p) { report(p); };
}

void PlanProgressLine::tick(Clock::time_point now) {
  std::lock_guard<std::mutex> lock(mutex_);
  printer_.offer(now, [&] { return text(now); });
}

void PlanProgressLine::start_ticking(std::chrono::milliseconds period) {
  if (ticker_.joinable()) return;
  ticker_ = std::thread([this, period] {
    std::unique_lock<std::mutex> lock(ticker_mutex_);
    while (!wake_.wait_for(lock, period, [this] { return stop_; })) tick(Clock::now());
  });
}

void PlanProgressLine::stop_ticking() {
  {
    std::lock_guard<std::mutex> lock(ticker_mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
}

void PlanProgressLine::finish() {
  stop_ticking();
  std::lock_guard<std::mutex> lock(mutex_);
  printer_.finish();
}

}  // namespace scenarios

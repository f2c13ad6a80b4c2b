// The sweep's progress line (see progress_line.hpp).
#include "scenarios/cli/sweep/progress_line.hpp"

#include <fmt/format.h>

#include "scenarios/cli/output/progress_printer.hpp"
#include "scenarios/cli/output/result_format.hpp"

namespace scenarios {

ProgressLine::ProgressLine(std::FILE* out, bool terminal, size_t total, size_t already)
    : out_(out), terminal_(terminal), total_(total), already_(already), start_(Clock::now()), last_print_(start_) {}

std::string ProgressLine::text_locked() const {
  const size_t done = already_ + done_;
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  std::string s = fmt::format("sweep {}/{} points ({:.0f}%)", done, total_, total_ ? 100.0 * done / total_ : 100.0);
  if (already_ > 0) s += fmt::format(", {} from the earlier run", already_);
  if (done_ > 0 && elapsed > 0) {
    const double rate = done_ / elapsed;
    s += rate >= 1 ? fmt::format(", {:.1f} points/s", rate) : fmt::format(", {} per point", format_seconds(1 / rate));
    if (done < total_) s += ", ETA " + format_seconds((total_ - done) / rate);
  }
  s += fmt::format(", {} failed", failed_);
  return s;
}

std::string ProgressLine::text() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return text_locked();
}

void ProgressLine::point_done(bool failed) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++done_;
  failed_ += failed ? 1 : 0;
  const auto now = Clock::now();
  const auto gap = terminal_ ? std::chrono::milliseconds(100) : std::chrono::milliseconds(1000);
  if (printed_ && now - last_print_ < gap) return;
  printed_ = true;
  last_print_ = now;
  draw_progress_line(out_, terminal_, text_locked());
}

void ProgressLine::finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string s = text_locked();
  if (terminal_)
    std::fprintf(out_, "\r%s\033[K\n", s.c_str());
  else
    std::fprintf(out_, "%s\n", s.c_str());
  std::fflush(out_);
}

}  // namespace scenarios

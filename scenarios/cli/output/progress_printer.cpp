// The progress line's printer (see progress_printer.hpp).
#include "scenarios/cli/output/progress_printer.hpp"

#include <fmt/format.h>

#include "scenarios/cli/output/result_format.hpp"

namespace scenarios {

std::string progress_seconds(double s) { return s < 60 ? fmt::format("{:.1f} s", s) : format_seconds(s); }

ProgressPrinter::ProgressPrinter(std::FILE* out, bool terminal, std::string what, Clock::time_point start)
    : out_(out), terminal_(terminal), what_(std::move(what)), start_(start), last_print_(start) {}

void ProgressPrinter::offer(Clock::time_point now, const std::function<std::string()>& text, bool new_stage) {
  if (finished_) return;
  if (terminal_ && !printed_ && now - start_ < std::chrono::seconds(1)) return;
  const auto gap = terminal_ ? std::chrono::milliseconds(100) : std::chrono::milliseconds(1000);
  if (printed_ && now - last_print_ < gap && (terminal_ || !new_stage)) return;
  printed_ = true;
  last_print_ = now;
  const std::string s = text();
  if (terminal_)
    std::fprintf(out_, "\r%s\033[K", s.c_str());
  else
    std::fprintf(out_, "%s\n", s.c_str());
  std::fflush(out_);
}

ProgressPrinter::~ProgressPrinter() {
  if (terminal_ && printed_ && !finished_) {
    std::fprintf(out_, "\r\033[K");
    std::fflush(out_);
  }
}

void ProgressPrinter::finish() {
  if (finished_) return;
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

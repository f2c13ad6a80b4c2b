// The progress line's printer (see progress_printer.hpp).
#include "scenarios/cli/output/progress_printer.hpp"

#include <fmt/format.h>

#include "scenarios/cli/output/result_format.hpp"

namespace scenarios {

std::string progress_seconds(double s) { return s < 60 ? fmt::format("{:.1f} s", s) : format_seconds(s); }

void draw_progress_line(std::FILE* out, bool terminal, const std::string& text) {
  if (terminal)
    std::fprintf(out, "\r%s\033[K", text.c_str());
  else
    std::fprintf(out, "%s\n", text.c_str());
  std::fflush(out);
}

ProgressPrinter::ProgressPrinter(std::FILE* out, bool terminal, std::string what, Clock::time_point start)
    : out_(out), terminal_(terminal), what_(std::move(what)), start_(start), last_print_(start) {}

void ProgressPrinter::offer(Clock::time_point now, const std::function<std::string()>& text, bool new_stage) {
  if (finished_) return;
  if (terminal_ && !printed_ && now - start_ < std::chrono::seconds(1)) return;
  const auto gap = terminal_ ? std::chrono::milliseconds(100) : std::chrono::milliseconds(1000);
  if (printed_ && now - last_print_ < gap && (terminal_ || !new_stage)) return;
  printed_ = true;
  last_print_ = now;
  draw_progress_line(out_, terminal_, text());
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

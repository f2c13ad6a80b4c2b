// The sweep's scaling-efficiency line and its batch note (scaling_line.hpp).
#include "scenarios/cli/sweep/scaling_line.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace scenarios {

std::string batch_note(const std::vector<PointRate>& points) {
  double least = 0, most = 0;
  for (const PointRate& p : points) {
    if (p.tokens_per_step <= 0) continue;
    least = least == 0 ? p.tokens_per_step : std::min(least, p.tokens_per_step);
    most = std::max(most, p.tokens_per_step);
  }
  if (least <= 0 || most <= least * (1 + 1e-9)) return "";
  return fmt::format(
      "the points train different tokens per step ({:.0f} to {:.0f}: the global batch follows the GPUs where "
      "training.global_batch is not set), so an efficiency compares steps of different work",
      least, most);
}

std::string scaling_efficiency_line(const std::vector<PointRate>& points) {
  // The baseline is the first point that fits in GPU memory; points that failed or do not fit print "-".
  size_t base = 0;
  const auto usable = [](const PointRate& p) {
    return p.fits && p.tokens_per_s_per_gpu && *p.tokens_per_s_per_gpu > 0;
  };
  while (base < points.size() && !usable(points[base])) ++base;
  if (points.size() < 2 || base + 1 >= points.size()) return "";
  std::string eff;
  for (const PointRate& p : points)
    eff += (eff.empty() ? "" : ", ") +
           (p.tokens_per_s_per_gpu && p.fits
                ? fmt::format("{:.2f}", *p.tokens_per_s_per_gpu / *points[base].tokens_per_s_per_gpu)
                : std::string("-"));
  const std::string against =
      base == 0 ? std::string("the first point") : fmt::format("point {}, the first that fits", base + 1);
  const std::string note = batch_note(points);
  return fmt::format("scaling efficiency (tokens/s per GPU against {}): {}{}", against, eff,
                     note.empty() ? "" : "; " + note);
}

}  // namespace scenarios

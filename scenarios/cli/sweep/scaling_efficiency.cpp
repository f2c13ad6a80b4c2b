// The sweep's scaling-efficiency line (scaling_efficiency.hpp).
#include "scenarios/cli/sweep/scaling_efficiency.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace scenarios {

std::optional<double> sampled_tokens_per_s(const models::RunResult& r) {
  if (!r.variability.sampled || !r.throughput.estimated || !(r.variability.mean_s > 0)) return std::nullopt;
  return r.throughput.tokens_per_step / r.variability.mean_s;
}

EfficiencyPoint efficiency_point(const models::RunResult* r, int failed_gpus) {
  EfficiencyPoint p;
  p.gpus = r ? static_cast<int>(r->ranks.size()) : failed_gpus;
  if (!r) return p;
  p.fits = r->fits();
  if (!r->throughput.estimated || r->ranks.empty()) return p;
  p.tokens_per_step = r->throughput.tokens_per_step;
  const std::optional<double> sampled = sampled_tokens_per_s(*r);
  p.tokens_per_s_per_gpu = (sampled ? *sampled : r->throughput.tokens_per_s) / double(r->ranks.size());
  return p;
}

std::string scaling_efficiency_line(const std::vector<EfficiencyPoint>& points, int samples) {
  if (points.size() < 2) return "";
  const auto counted = [](const EfficiencyPoint& p) {
    return p.fits && p.tokens_per_s_per_gpu && *p.tokens_per_s_per_gpu > 0;
  };
  size_t base = 0;
  while (base < points.size() && !counted(points[base])) ++base;
  if (base + 1 >= points.size()) return "";
  bool sizes_vary = false;
  for (const auto& p : points) sizes_vary |= p.gpus > 0 && p.gpus != points[base].gpus;
  if (!sizes_vary) return "";
  std::string eff;
  for (const auto& p : points) {
    const std::string gpus = p.gpus > 0 ? fmt::format("{} GPU{} ", p.gpus, p.gpus == 1 ? "" : "s") : "";
    eff += (eff.empty() ? "" : ", ") + gpus +
           (counted(p) ? fmt::format("{:.2f}", *p.tokens_per_s_per_gpu / *points[base].tokens_per_s_per_gpu)
                       : std::string("-"));
  }
  const std::string against =
      base == 0 ? std::string("the first point") : fmt::format("point {}, the first that fits", base + 1);
  const std::string rate = samples > 0 ? fmt::format("tokens/s per GPU at the sampled mean step of {} sample{}",
                                                     samples, samples == 1 ? "" : "s")
                                       : std::string("tokens/s per GPU");
  const std::string note = batch_note(points);
  return fmt::format("scaling efficiency ({} against {}): {}{}", rate, against, eff, note.empty() ? "" : "; " + note);
}

std::string batch_note(const std::vector<EfficiencyPoint>& points) {
  double least = 0, most = 0;
  for (const EfficiencyPoint& p : points) {
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

}  // namespace scenarios

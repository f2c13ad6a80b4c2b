// The `variability` and `goodput` parts of run's outputs (goodput_format.hpp).
#include "scenarios/cli/output/goodput_format.hpp"

#include <cmath>

#include <fmt/format.h>

#include "scenarios/cli/output/result_format.hpp"

namespace scenarios {

using Json = nlohmann::ordered_json;

std::string goodput_duration(double s) {
  if (!std::isfinite(s)) return "never";
  if (s >= 86400)
    return fmt::format("{} d {:02} h", static_cast<long long>(s / 86400),
                       static_cast<long long>(std::fmod(s, 86400) / 3600));
  return format_seconds(s);
}

std::string goodput_usd(double usd) {
  if (!(usd > 0)) return "";
  if (usd >= 1e6) return fmt::format("${:.2f} M", usd / 1e6);
  if (usd >= 1e3) return fmt::format("${:.1f} k", usd / 1e3);
  return fmt::format("${:.2f}", usd);
}

Json variability_json(const models::VariabilityResult& v) {
  if (!v.sampled) return nullptr;
  return {{"samples", v.samples},
          {"samples_asked", v.samples_asked},
          {"seed", v.seed},
          {"exact", v.exact},
          {"gpus", v.ranks},
          {"gpu_speed_cv", v.gpu_speed_cv},
          {"step_jitter_cv", v.step_jitter_cv},
          {"nic_jitter_cv", v.nic_jitter_cv},
          {"deterministic_step_s", v.deterministic_step_s},
          {"step_mean_s", v.mean_s},
          {"step_median_s", v.median_s},
          {"step_p99_s", v.p99_s},
          {"step_min_s", v.min_s},
          {"step_max_s", v.max_s},
          {"slowdown", v.slowdown},
          {"expected_max_z", v.expected_max_z},
          {"closed_form_slowdown", v.closed_form_slowdown},
          {"slowest_rank", v.slowest_rank},
          {"slowest_node", v.slowest_node},
          {"slowest_compute_scale", v.slowest_compute_scale},
          {"steps_s", v.steps_s},
          {"who_waits", v.who_waits}};
}

Json goodput_json(const models::GoodputResult& g) {
  if (!g.estimated) return nullptr;
  Json components = Json::object();
  for (const auto& c : g.components) components[c.name] = c.per_day;
  const bool priced = g.price_per_gpu_hour > 0;
  return {{"gpus", g.gpus},
          {"nodes", g.nodes},
          {"hosts", g.hosts},
          {"interruptions_per_day", g.interruptions_per_day},
          {"mtbf_s", std::isfinite(g.mtbf_s) ? Json(g.mtbf_s) : Json(nullptr)},
          {"interruptions_per_day_by_component", std::move(components)},
          {"checkpoint_bytes", integer_json(g.checkpoint_bytes)},
          {"storage_bandwidth_bytes_per_s", g.storage_bandwidth_bytes_per_s},
          {"checkpoint_write_s", g.checkpoint_write_s},
          {"checkpoint_blocking_s", g.checkpoint_blocking_s},
          {"checkpoint_async", g.checkpoint_async},
          {"restart_s", g.restart_s},
          {"young_interval_s", g.young_interval_s},
          {"daly_interval_s", g.daly_interval_s},
          {"checkpoint_interval_s", g.interval_s},
          {"checkpoint_interval_steps", g.interval_steps},
          {"step_s", g.step_s},
          {"work_s", g.work_s},
          {"expected_wall_s", g.expected_wall_s},
          {"goodput", g.goodput},
          {"expected_interruptions", g.expected_interruptions},
          {"checkpoint_overhead_s", g.checkpoint_overhead_s},
          {"rework_s", g.rework_s},
          {"restart_overhead_s", g.restart_overhead_s},
          {"price_per_gpu_hour_usd", priced ? Json(g.price_per_gpu_hour) : Json(nullptr)},
          {"expected_cost_usd", priced ? Json(g.expected_cost) : Json(nullptr)},
          {"work_cost_usd", priced ? Json(g.work_cost) : Json(nullptr)}};
}

std::vector<std::string> variability_lines(const models::VariabilityResult& v) {
  if (!v.sampled) return {};
  return {
      fmt::format("step over {} samples ({}seed {}, {} GPUs, GPU speed sigma {:.1f} %{}{}): median {}, p99 {}, "
                  "mean {} ({:+.2f} % over every GPU at nominal speed, {})",
                  v.stopped() ? fmt::format("{} of {}", v.samples, v.samples_asked) : std::to_string(v.samples),
                  v.stopped() ? "--time-limit ran out, " : "", v.seed, v.ranks, 100 * v.gpu_speed_cv,
                  v.step_jitter_cv > 0 ? fmt::format(", jitter {:.1f} %", 100 * v.step_jitter_cv) : "",
                  v.nic_jitter_cv > 0 ? fmt::format(", NIC {:.1f} %", 100 * v.nic_jitter_cv) : "",
                  format_seconds(v.median_s), format_seconds(v.p99_s), format_seconds(v.mean_s), 100 * v.slowdown,
                  format_seconds(v.deterministic_step_s)),
      fmt::format("           cause: the slowest of {} GPUs, E[max of {} normals] = {:.2f} sigma = {:+.2f} % slower "
                  "compute; {}",
                  v.ranks, v.ranks, v.expected_max_z, 100 * v.closed_form_slowdown,
                  v.exact ? "every rank at its own speed (--full)" : "every rank at the slowest's speed"),
      "           " + v.who_waits};
}

std::vector<std::string> goodput_lines(const models::GoodputResult& g) {
  if (!g.estimated) return {};
  std::string parts;
  for (const auto& c : g.components)
    if (c.per_day > 0) parts += fmt::format("{}{} {:.2f}", parts.empty() ? "" : ", ", c.name, c.per_day);
  std::vector<std::string> out = {
      fmt::format("failures   {:.2f} interruptions per day on {} GPUs in {} hosts (MTBF {}): {}",
                  g.interruptions_per_day, g.gpus, g.hosts, goodput_duration(g.mtbf_s), parts),
      fmt::format("checkpoint {} every {} steps ({}; Young {}, Daly {}), {} {} to {}/s storage{}; restart {}",
                  format_bytes(g.checkpoint_bytes), g.interval_steps, goodput_duration(g.interval_s),
                  goodput_duration(g.young_interval_s), goodput_duration(g.daly_interval_s),
                  g.checkpoint_async ? "async, blocks" : "blocks", format_seconds(g.checkpoint_blocking_s),
                  format_bytes(g.storage_bandwidth_bytes_per_s),
                  g.checkpoint_async ? fmt::format(", written in {}", format_seconds(g.checkpoint_write_s)) : "",
                  goodput_duration(g.restart_s)),
      fmt::format("goodput    {:.1f} %: expected wall time {} for {} of steps ({:.1f} interruptions: checkpoints "
                  "{}, lost work {}, restarts {})",
                  100 * g.goodput, goodput_duration(g.expected_wall_s), goodput_duration(g.work_s),
                  g.expected_interruptions, goodput_duration(g.checkpoint_overhead_s), goodput_duration(g.rework_s),
                  goodput_duration(g.restart_overhead_s))};
  if (g.price_per_gpu_hour > 0)
    out.push_back(fmt::format("cost       {} expected ({} without failures) at ${:.2f} per GPU-hour x {} GPUs",
                              goodput_usd(g.expected_cost), goodput_usd(g.work_cost), g.price_per_gpu_hour, g.gpus));
  else
    out.push_back("cost       unknown: no price for this instance (give [cluster] price_per_hour or --prices FILE)");
  return out;
}

}  // namespace scenarios

// The `variability` and `goodput` parts of run's outputs (goodput_format.hpp).
#include "scenarios/cli/output/goodput_format.hpp"

#include <cmath>

#include <fmt/format.h>

#include "scenarios/cli/output/result_format.hpp"
#include "viz/format.hpp"

namespace scenarios {

using Json = nlohmann::ordered_json;

std::string goodput_duration(double s) {
  if (!std::isfinite(s)) return "never";
  // Days and hours up to 10,000 days; years beyond, in 3 digits (an expected wall time can be
  // 1e40 s, which no integer count of days holds).
  constexpr double kDay = 86400, kYear = 365.25 * kDay;
  if (s >= 1e4 * kDay) return fmt::format("{:.3g} years", s / kYear);
  if (s >= kDay) {  // to the nearest hour: 48 h 51 min is "2 d 01 h", not "2 d 00 h"
    const long long hours = std::llround(s / 3600);
    return fmt::format("{} d {:02} h", hours / 24, hours % 24);
  }
  return format_seconds(s);
}

std::string goodput_usd(double usd) {
  if (!(usd > 0)) return "";
  if (!std::isfinite(usd)) return "";
  if (usd >= 1e12) return fmt::format("${:.3g}", usd);
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
          // Null below 100 samples, where the nearest-rank 99th percentile is the maximum (step_max_s).
          {"step_p99_s", v.has_p99() ? Json(v.p99_s) : Json(nullptr)},
          {"step_min_s", v.min_s},
          {"step_max_s", v.max_s},
          {"slowdown", v.slowdown},
          {"expected_max_z", v.expected_max_z},
          {"closed_form_slowdown", v.closed_form_slowdown},
          {"slowest_rank", v.slowest_rank},
          {"slowest_node", v.slowest_node},
          {"slowest_compute_scale", v.slowest_compute_scale},
          {"slowest_straggler_factor", v.slowest_straggler_factor},
          {"rule_upper_bound", v.rule_upper_bound},
          {"steps_s", v.steps_s},
          {"who_waits", v.who_waits}};
}

const char* checkpoint_plan_name(models::CheckpointPlan p) {
  switch (p) {
    case models::CheckpointPlan::Interval: return "interval";
    case models::CheckpointPlan::RunShorter: return "run_shorter_than_interval";
    case models::CheckpointPlan::NeverSooner: return "never_sooner";
    case models::CheckpointPlan::NothingFails: return "nothing_fails";
  }
  return "interval";
}

std::string goodput_wall_text(const models::GoodputResult& g) {
  return g.finishes() ? goodput_duration(g.expected_wall_s) : "does not finish";
}

std::string checkpoint_plan_text(const models::GoodputResult& g) {
  switch (g.plan) {
    case models::CheckpointPlan::Interval:
      return fmt::format("{} steps, {}", g.interval_steps, goodput_duration(g.interval_s));
    case models::CheckpointPlan::RunShorter:  // none taken: the run ends before the interval it would use
      return fmt::format("none (run < {} steps)", g.interval_steps);
    case models::CheckpointPlan::NeverSooner: return "none (finishes sooner without)";
    case models::CheckpointPlan::NothingFails: return "none (nothing fails)";
  }
  return "";
}

namespace {
// A number of the JSON that is infinite where the run does not finish: null then (the schema
// says so), never the `null` nlohmann writes for an infinity without saying why.
Json finite_or_null(double x) { return std::isfinite(x) ? Json(x) : Json(nullptr); }

// A count that can reach 1e40 where failures come faster than the work: 3 digits beyond a million.
// One decimal; two significant digits below 0.05, so an expected count above 0 never reads 0.0.
std::string count_text(double x) {
  if (x > 0 && x < 0.05) return fmt::format("{:.2g}", x);
  return x < 1e6 ? fmt::format("{:.1f}", x) : fmt::format("{:.3g}", x);
}
}  // namespace

Json goodput_json(const models::GoodputResult& g) {
  if (!g.estimated) return nullptr;
  Json components = Json::object();
  for (const auto& c : g.components) components[c.name] = c.per_day;
  const bool priced = g.price_per_gpu_hour > 0;
  const bool interval = g.plan == models::CheckpointPlan::Interval;
  return {{"gpus", g.gpus},
          {"nodes", g.nodes},
          {"hosts", g.hosts},
          {"interruptions_per_day", g.interruptions_per_day},
          {"mtbf_s", std::isfinite(g.mtbf_s) ? Json(g.mtbf_s) : Json(nullptr)},
          {"interruptions_per_day_by_component", std::move(components)},
          {"failure_rates_source", g.failure_rates_source},
          {"checkpoint_bytes", integer_json(g.checkpoint_bytes)},
          {"checkpoint_bytes_per_param", g.checkpoint_bytes_per_param},
          {"checkpoint_states", g.checkpoint_states},
          {"storage_bandwidth_bytes_per_s", g.storage_bandwidth_bytes_per_s},
          {"checkpoint_write_s", g.checkpoint_write_s},
          {"checkpoint_blocking_s", g.checkpoint_blocking_s},
          {"checkpoint_async", g.checkpoint_async},
          {"restart_s", g.restart_s},
          {"restart_assumed", g.restart_assumed},
          {"young_interval_s", g.young_interval_s},
          {"daly_interval_s", g.daly_interval_s},
          {"checkpointing", checkpoint_plan_name(g.plan)},
          {"checkpoint_interval_s", interval ? Json(g.interval_s) : Json(nullptr)},
          {"checkpoint_interval_steps", interval ? Json(g.interval_steps) : Json(nullptr)},
          {"step_s", g.step_s},
          {"work_s", g.work_s},
          {"finishes", g.finishes()},
          {"expected_wall_s", finite_or_null(g.expected_wall_s)},
          {"goodput", g.goodput},
          {"expected_interruptions", finite_or_null(g.expected_interruptions)},
          // No split of an infinity: null, as the wall time (the model leaves them 0).
          {"checkpoint_overhead_s", g.finishes() ? Json(g.checkpoint_overhead_s) : Json(nullptr)},
          {"rework_s", g.finishes() ? Json(g.rework_s) : Json(nullptr)},
          {"restart_overhead_s", g.finishes() ? Json(g.restart_overhead_s) : Json(nullptr)},
          {"price_per_gpu_hour_usd", priced ? Json(g.price_per_gpu_hour) : Json(nullptr)},
          {"expected_cost_usd", priced ? finite_or_null(g.expected_cost) : Json(nullptr)},
          {"work_cost_usd", priced ? Json(g.work_cost) : Json(nullptr)}};
}

std::vector<std::string> variability_lines(const models::VariabilityResult& v) {
  if (!v.sampled) return {};
  // Each sample draws every GPU's speed anew: another allocation of GPUs, not another step. Its
  // spread is the median and the maximum; a 99th percentile only from 100 samples (below, the
  // nearest-rank p99 is the maximum).
  const std::string spread =
      v.has_p99() ? fmt::format("median {}, p99 {}, max {}", format_seconds(v.median_s), format_seconds(v.p99_s),
                                format_seconds(v.max_s))
                  : fmt::format("median {}, max {}", format_seconds(v.median_s), format_seconds(v.max_s));
  const std::string rule = v.exact ? "every rank at its own speed (--full)"
                           : v.rule_upper_bound
                               ? "every rank at the slowest's speed: an upper bound with tensor/pipeline groups; "
                                 "--full for the exact figure"
                               : "every rank at the slowest's speed";
  // A [[stragglers]] entry slower than every drawn GPU sets the step: E[max of N] is not its cause.
  const std::string cause =
      v.slowest_is_straggler()
          ? fmt::format(
                "           cause: a [[stragglers]] entry is the slowest GPU: rank {} (node {}) computes "
                "x{:.4f} (compute_slowdown {:.4g} x its drawn x{:.4f}); it sets the step, not the slowest of "
                "{} drawn speeds; {}",
                v.slowest_rank, v.slowest_node, v.slowest_compute_scale, v.slowest_straggler_factor,
                v.slowest_compute_scale / v.slowest_straggler_factor, v.ranks, rule)
          : fmt::format(
                "           cause: the slowest of {} GPUs, E[max of {} normals] = {:.2f} sigma = {:+.2f} % "
                "slower compute; {}",
                v.ranks, v.ranks, v.expected_max_z, 100 * v.closed_form_slowdown, rule);
  return {fmt::format("step over {} allocations (--samples: every GPU's speed drawn anew for each; {}seed {}, {} GPUs, "
                      "GPU speed sigma {:.1f} %{}{}): {}, mean {} ({:+.2f} % over every GPU at nominal speed, {})",
                      v.stopped() ? fmt::format("{} of {}", v.samples, v.samples_asked) : std::to_string(v.samples),
                      v.stopped() ? "--time-limit ran out, " : "", v.seed, v.ranks, 100 * v.gpu_speed_cv,
                      v.step_jitter_cv > 0 ? fmt::format(", jitter {:.1f} %", 100 * v.step_jitter_cv) : "",
                      v.nic_jitter_cv > 0 ? fmt::format(", NIC {:.1f} %", 100 * v.nic_jitter_cv) : "", spread,
                      format_seconds(v.mean_s), 100 * v.slowdown, format_seconds(v.deterministic_step_s)),
          cause, "           " + v.who_waits};
}

std::vector<std::string> goodput_lines(const models::RunResult& r) {
  const models::GoodputResult& g = r.goodput;
  if (!g.estimated) return {};
  // With --samples the goodput's steps are the sampled mean step, not the simulated one that the
  // run's time and $ per run use: each figure says which step it rests on.
  const bool mean_step = r.variability.sampled && g.step_s != r.step_time_s;
  const std::string of_steps = mean_step ? fmt::format(" at the sampled mean step {}", format_seconds(g.step_s)) : "";
  using models::CheckpointPlan;
  std::string parts;
  for (const auto& c : g.components)
    if (c.per_day > 0) parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", c.name, viz::fmt::per_day(c.per_day));
  std::vector<std::string> out = {
      fmt::format("failures   {} interruptions per day on {} GPU{} in {} host{} (MTBF {}): {}; rates: {}",
                  viz::fmt::per_day(g.interruptions_per_day), g.gpus, g.gpus == 1 ? "" : "s", g.hosts,
                  g.hosts == 1 ? "" : "s", goodput_duration(g.mtbf_s), parts, g.failure_rates_source)};
  // The restart is an assumption unless the scenario sets it (models/params_goodput.hpp restart.time).
  const std::string restart =
      goodput_duration(g.restart_s) +
      (g.restart_assumed ? " (assumed: Daly 2006's example R; set restart.time)" : " (restart.time)");
  const std::string laws =
      fmt::format("Young {}, Daly {}", goodput_duration(g.young_interval_s), goodput_duration(g.daly_interval_s));
  const std::string writes =
      fmt::format("{} {} to {}/s storage{}", g.checkpoint_async ? "async, blocks" : "blocks",
                  format_seconds(g.checkpoint_blocking_s), format_bytes(g.storage_bandwidth_bytes_per_s),
                  g.checkpoint_async ? fmt::format(", written in {}", format_seconds(g.checkpoint_write_s)) : "");
  // "14 B per parameter: weights 2 + fp32 master 4 + Adam m, v 8"
  const std::string per_param =
      fmt::format("{:g} B per parameter: {}", g.checkpoint_bytes_per_param, g.checkpoint_states);
  switch (g.plan) {
    case CheckpointPlan::Interval:
      out.push_back(fmt::format("checkpoint {} ({}) every {} steps ({}; {}), {}; restart {}{}",
                                format_bytes(g.checkpoint_bytes), per_param, g.interval_steps,
                                goodput_duration(g.interval_s), laws, writes, restart,
                                // Both plans' T_w overflow: the interval is kept (a tie), but helps nothing.
                                g.finishes() ? "" : "; neither this nor never checkpointing finishes (below)"));
      break;
    case CheckpointPlan::RunShorter:
      out.push_back(
          fmt::format("checkpoint none: the run ({} of steps) is no longer than one checkpoint interval ({} "
                      "steps, {}; {}), so a failure restarts it from its first step; restart {}",
                      goodput_duration(g.work_s), g.interval_steps, goodput_duration(g.interval_s), laws, restart));
      break;
    case CheckpointPlan::NeverSooner:
      out.push_back(
          fmt::format("checkpoint none: one ({}, {}) {} against a failure every {}; with one every {} the run "
                      "would take {} expected, without {} (Daly's T_w with and without checkpoints); "
                      "restart {}",
                      format_bytes(g.checkpoint_bytes), per_param, writes, goodput_duration(g.mtbf_s),
                      goodput_duration(g.interval_s),
                      std::isfinite(g.interval_wall_s) ? goodput_duration(g.interval_wall_s) : "forever",
                      goodput_wall_text(g), restart));
      break;
    case CheckpointPlan::NothingFails: out.push_back("checkpoint none: nothing fails (every failure rate is 0)"); break;
  }
  if (g.finishes())
    out.push_back(
        fmt::format("goodput    {:.1f} %: expected wall time {} for {} of steps{} ({} interruptions: "
                    "checkpoints {}, lost work {}, restarts {})",
                    100 * g.goodput, goodput_duration(g.expected_wall_s), goodput_duration(g.work_s), of_steps,
                    count_text(g.expected_interruptions), goodput_duration(g.checkpoint_overhead_s),
                    goodput_duration(g.rework_s), goodput_duration(g.restart_overhead_s)));
  else {  // Daly's T_w overflows a double: e^(x/M) or e^(R/M) with an exponent past ~709
    const bool interval = g.plan == CheckpointPlan::Interval;
    const double x = interval ? g.interval_s + g.checkpoint_blocking_s : g.work_s;  // one failure-free stretch
    const std::string what = g.restart_s >= x ? fmt::format("each restart ({})", goodput_duration(g.restart_s))
                             : interval
                                 ? fmt::format("each {} of steps and its checkpoint", goodput_duration(g.interval_s))
                                 : fmt::format("all {} of steps (no checkpoint)", goodput_duration(g.work_s));
    out.push_back(
        fmt::format("goodput    0 %: does not finish: a failure comes every {} on average (MTBF) and {} "
                    "must run without one: Daly's expected wall time M e^(R/M) (e^(x/M) - 1) T_s / x "
                    "(x = {}) is beyond 1e308 s",
                    goodput_duration(g.mtbf_s), what, goodput_duration(x)));
  }
  // "without failures at the sampled mean step; the run's $4.91 per run is at the simulated step"
  const std::string work_step =
      mean_step && r.cost.known
          ? fmt::format(" at the sampled mean step; the run's {} per run is at the simulated step {}",
                        format_usd(r.cost.usd_per_run), format_seconds(r.step_time_s))
          : "";
  // The GPUs paid for: whole nodes, so idle GPUs of a node count ("x 16 GPUs billed, 8 in use").
  const std::string billed = g.billed_gpus > g.gpus ? fmt::format("{} GPUs billed, {} in use", g.billed_gpus, g.gpus)
                                                    : fmt::format("{} GPUs", g.gpus);
  if (g.price_per_gpu_hour > 0 && g.finishes())
    out.push_back(fmt::format("cost       {} expected ({} without failures{}) at ${:.2f} per GPU-hour x {}",
                              goodput_usd(g.expected_cost), goodput_usd(g.work_cost), work_step, g.price_per_gpu_hour,
                              billed));
  else if (g.price_per_gpu_hour > 0)
    out.push_back(
        fmt::format("cost       none expected: the run does not finish ({} without failures{} at ${:.2f} per "
                    "GPU-hour x {})",
                    goodput_usd(g.work_cost), work_step.empty() ? "" : work_step + ";", g.price_per_gpu_hour, billed));
  else
    out.push_back("cost       unknown: no price for this instance (give [cluster] price_per_hour or --prices FILE)");
  return out;
}

}  // namespace scenarios

// Seeded samples of every GPU's speed, and the step over them (variability.hpp).
#include "models/run/variability.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>

#include "models/goodput/draws.hpp"
#include "models/goodput/extreme.hpp"
#include "models/params.hpp"
#include "models/run/stragglers.hpp"
#include "models/topology/resolve.hpp"

namespace models {

namespace {
// Draw streams: 2k sample k's GPU speeds, 2k + 1 its jitter, 2^32 + k its NIC factors.
constexpr uint64_t kNicStream = uint64_t{1} << 32;
constexpr double kFloor = 0.05;

double cv_param(const ScenarioSpec& spec, const char* name) {
  return param_or(spec.cluster.params, name, param_default(name));
}
}  // namespace

SpeedDraw draw_speeds(uint64_t seed, int sample, const std::vector<int>& node_of, double gpu_cv, double jitter_cv,
                      double nic_cv) {
  SpeedDraw d;
  const int n = static_cast<int>(node_of.size());
  d.compute_scale.resize(n);
  int nodes = 0;
  for (int r = 0; r < n; ++r) {
    const double persistent = std::max(kFloor, 1 + gpu_cv * goodput::normal_draw(seed, 2 * uint64_t(sample), r));
    const double jitter = jitter_cv > 0 ? std::max(kFloor, 1 + jitter_cv * goodput::normal_draw(seed, 2 * uint64_t(sample) + 1, r))
                                        : 1.0;
    d.compute_scale[r] = persistent * jitter;
    if (d.compute_scale[r] > d.compute_scale[d.slowest_rank]) d.slowest_rank = r;
    nodes = std::max(nodes, node_of[r] + 1);
  }
  d.max_scale = n > 0 ? d.compute_scale[d.slowest_rank] : 1;
  d.nic_factor.assign(nodes, 1.0);
  if (nic_cv > 0)
    for (int k = 0; k < nodes; ++k) {
      d.nic_factor[k] = std::max(kFloor, 1 - std::fabs(nic_cv * goodput::normal_draw(seed, kNicStream + sample, k)));
      d.min_nic = std::min(d.min_nic, d.nic_factor[k]);
    }
  return d;
}

SlowestGpu slowest_gpu(const SpeedDraw& d, const std::vector<double>& straggler_scale,
                       const std::vector<double>& compute_s) {
  SlowestGpu out;
  double slowest_key = 0;
  const bool timed = std::any_of(compute_s.begin(), compute_s.end(), [](double t) { return t > 0; });
  for (int r = 0; r < static_cast<int>(d.compute_scale.size()); ++r) {
    const double s = d.compute_scale[r] * (r < static_cast<int>(straggler_scale.size()) ? straggler_scale[r] : 1.0);
    // compute_s already holds the straggler's factor: a GPU's drawn compute time is compute_s x c_r.
    const double key = timed ? (r < static_cast<int>(compute_s.size()) ? compute_s[r] : 0.0) * d.compute_scale[r] : s;
    if (r == 0 || key > slowest_key) {
      out = {r, s};
      slowest_key = key;
    }
  }
  return out;
}

double sample_quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  if (q == 0.5) return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  const std::size_t rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(n)));
  return v[std::clamp<std::size_t>(rank, 1, n) - 1];
}

void add_variability(RunResult& result, const ScenarioSpec& spec, const RunOptions& options,
                     const std::function<double()>& elapsed_s) {
  VariabilityResult& v = result.variability;
  v.sampled = true;
  v.seed = options.seed;
  v.samples_asked = options.samples;
  v.exact = options.full;
  v.gpu_speed_cv = cv_param(spec, "variability.gpu_speed_cv");
  v.step_jitter_cv = cv_param(spec, "variability.step_jitter_cv");
  v.nic_jitter_cv = cv_param(spec, "variability.nic_jitter_cv");
  v.deterministic_step_s = result.step_time_s;
  std::vector<int> node_of;
  std::vector<double> compute_s;  // the deterministic step's, per rank: [[stragglers]] and GPU kinds in it
  for (const auto& r : result.ranks) {
    node_of.push_back(r.node);
    compute_s.push_back(r.compute_s);
  }
  v.ranks = static_cast<int>(node_of.size());
  const std::vector<double> straggler = straggler_compute_scales(spec, node_of);

  RunOptions each = options;
  each.samples = 0;
  each.timeline = false;
  each.straggler_cost = false;
  const double nic_line =
      v.nic_jitter_cv > 0 ? param_or(spec.cluster.params, "nic.bandwidth", topology::resolve_node(spec.cluster).nic_bytes_per_s)
                          : 0;
  std::vector<SpeedDraw> draws;
  for (int k = 0; k < options.samples; ++k) {
    if (options.time_limit_s) {  // one budget for the run: this sample gets what is left
      each.time_limit_s = *options.time_limit_s - elapsed_s();
      if (*each.time_limit_s <= 0) break;
    }
    SpeedDraw d = draw_speeds(options.seed, k, node_of, v.gpu_speed_cv, v.step_jitter_cv, v.nic_jitter_cv);
    ScenarioSpec s = spec;
    if (options.full) {  // exact: every rank and node at its own speed
      each.rank_compute_scale = d.compute_scale;
      for (int n = 0; n < static_cast<int>(d.nic_factor.size()); ++n)
        if (d.nic_factor[n] < 1)
          s.stragglers.push_back({.ranks = {}, .node = n, .link = {}, .nic_bandwidth_factor = d.nic_factor[n]});
    } else {  // the slowest-rank rule: every rank at the slowest's speed, every NIC at the slowest's
      // Every rank at the largest draw c_max, a straggler at min(c_max s_r, max_q c_q s_q): at least
      // its own c_r s_r (an upper bound, as the rule is), never a healthy GPU's draw on top of its
      // factor where the slowest GPU is another, and never the healthy ranks slowed to a straggler's
      // speed (a pipeline's other stages do not wait for it at every op). The step multiplies s_r
      // back in (step_build.cpp), so it is divided out here.
      const double slowest = slowest_gpu(d, straggler).scale;  // max_q c_q s_q
      each.rank_compute_scale.resize(d.compute_scale.size());
      for (std::size_t r = 0; r < d.compute_scale.size(); ++r) {
        const double s_r = r < straggler.size() ? straggler[r] : 1.0;
        each.rank_compute_scale[r] = std::min(d.max_scale * s_r, slowest) / s_r;
      }
      if (d.min_nic < 1 && nic_line > 0) s.cluster.params["nic.bandwidth"] = nic_line * d.min_nic;
    }
    const RunResult one = run_scenario(s, each);
    if (one.partial) break;  // stopped by --time-limit: part of a step is no sample
    v.steps_s.push_back(one.step_time_s);
    draws.push_back(std::move(d));
  }
  v.samples = static_cast<int>(v.steps_s.size());
  if (v.samples < v.samples_asked) {
    char line[200];
    std::snprintf(line, sizeof line, "variability: --time-limit ran out after %d of %d samples%s", v.samples,
                  v.samples_asked, v.samples > 0 ? "; the step's statistics are over those" : ": no statistics");
    result.notes.push_back(line);
  }
  if (v.samples == 0) {  // nothing to say about the distribution
    v.sampled = false;
    return;
  }
  const auto& st = v.steps_s;
  v.mean_s = std::accumulate(st.begin(), st.end(), 0.0) / std::max<std::size_t>(1, st.size());
  v.median_s = sample_quantile(st, 0.5);
  v.p99_s = sample_quantile(st, 0.99);
  v.min_s = *std::min_element(st.begin(), st.end());
  v.max_s = *std::max_element(st.begin(), st.end());
  v.slowdown = v.deterministic_step_s > 0 ? v.mean_s / v.deterministic_step_s - 1 : 0;
  const double sigma = std::hypot(v.gpu_speed_cv, v.step_jitter_cv);
  v.expected_max_z = goodput::expected_max_normal(v.ranks);
  v.closed_form_slowdown = sigma * v.expected_max_z;
  // The median sample's slowest GPU.
  std::vector<int> order(st.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return st[a] < st[b]; });
  const SpeedDraw& mid = draws[order[(order.size() - 1) / 2]];
  const SlowestGpu slowest = slowest_gpu(mid, straggler, compute_s);
  v.slowest_rank = slowest.rank;
  v.slowest_node = node_of.empty() ? 0 : node_of[slowest.rank];
  v.slowest_compute_scale = slowest.scale;
  v.slowest_straggler_factor = slowest.rank < static_cast<int>(straggler.size()) ? straggler[slowest.rank] : 1.0;
  v.rule_upper_bound = !options.full && (spec.parallel.tp > 1 || spec.parallel.pp > 1);
  const double drawn = mid.compute_scale.empty() ? 1.0 : mid.compute_scale[slowest.rank];
  char line[1024];  // the longest note: its fixed text, the spread and the cause
  char parts[120] = "";
  if (slowest.scale != drawn)
    std::snprintf(parts, sizeof parts, " (x%.4f drawn, x%.4g [[stragglers]])", drawn, slowest.scale / drawn);
  std::snprintf(line, sizeof line,
                "in the median sample rank %d (node %d) is the slowest GPU, its compute x%.4f%s; every collective "
                "that includes it starts when it arrives, so its group's other ranks wait there, and every other "
                "rank waits at the next collective it shares with them (in a data-parallel step: each one)",
                v.slowest_rank, v.slowest_node, v.slowest_compute_scale, parts);
  v.who_waits = line;
  // Each sample is another allocation of GPUs: below 100 of them the 99th percentile is their maximum.
  char spread[96];
  if (v.has_p99())
    std::snprintf(spread, sizeof spread, "median %.6g s, p99 %.6g s, max %.6g s", v.median_s, v.p99_s, v.max_s);
  else
    std::snprintf(spread, sizeof spread, "median %.6g s, max %.6g s", v.median_s, v.max_s);
  char cause[200];
  if (v.slowest_is_straggler())  // the straggler sets the step, not the largest of N draws
    std::snprintf(cause, sizeof cause,
                  "the slowest GPU is a [[stragglers]] entry's, rank %d at x%.4g (x%.4g of it "
                  "[[stragglers]])",
                  v.slowest_rank, v.slowest_compute_scale, v.slowest_straggler_factor);
  else
    std::snprintf(cause, sizeof cause,
                  "the slowest of %d GPUs is E[max of %d normals] = %.3f sigma = %+.2f %% slower "
                  "(closed form)",
                  v.ranks, v.ranks, v.expected_max_z, 100 * v.closed_form_slowdown);
  std::snprintf(line, sizeof line,
                "variability: %d samples, each its own allocation of GPUs (seed %llu, %s%s): step %s, mean %+.2f %% "
                "over the deterministic %.6g s; %s",
                v.samples, static_cast<unsigned long long>(v.seed),
                v.exact ? "every rank at its own speed" : "every rank at the slowest rank's speed",
                v.rule_upper_bound ? ", an upper bound with tensor/pipeline groups" : "", spread, 100 * v.slowdown,
                v.deterministic_step_s, cause);
  result.notes.push_back(line);
}

std::string unsampled_variability_note(const ScenarioSpec& spec, const RunOptions& options) {
  if (options.samples > 0) return "";
  std::string what;
  for (const auto& [name, value] : spec.cluster.params)
    if (name.rfind("variability.", 0) == 0 && find_param(name) && value != param_default(name))
      what += (what.empty() ? "" : ", ") + name;
  if (options.seed_given) what += what.empty() ? "--seed" : " and --seed";
  if (what.empty()) return "";
  const bool one = what.find(',') == std::string::npos && what.find(" and ") == std::string::npos;
  return what + (one ? " acts" : " act") +
         " only with --samples N: this result is deterministic, every GPU at nominal speed";
}

}  // namespace models

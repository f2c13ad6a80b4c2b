// The HTML page of one run (report_html), and the parts of it the comparison shares
// (report_parts.hpp). Inline CSS and SVG only, no script, no web font, nothing fetched: the file
// works offline and in mail clients.
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string_view>

#include "viz/charts/charts.hpp"
#include "viz/format.hpp"
#include "viz/pages/page.hpp"
#include "viz/pages/report_parts.hpp"
#include "viz/palette.hpp"
#include "viz/svg.hpp"
#include "viz/viz.hpp"

namespace viz {
namespace {

using svg::esc;

std::string stat(const std::string& value, const std::string& key) {
  return "<div class=\"stat\"><div class=\"v\">" + esc(value) + "</div><div class=\"k\">" + esc(key) + "</div></div>";
}

// One tile per part of the mean rank's step that is large (>= 1 % of it), in the breakdown's
// order, so the headline adds up: compute lost to communication, the bubble and host work are
// on tiles beside exposed communication and barrier wait (exposed communication always is).
std::string breakdown_tiles(const models::RunResult& r) {
  const double step = r.step_time_s;
  if (!(step > 0)) return "";
  const auto values = charts::breakdown_values(r.step_breakdown);
  const auto& parts = charts::breakdown_parts();
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    const double share = values[i] / step;
    const bool exposed = std::string(parts[i].css) == "exposed";
    if (share < 0.01 && !exposed) continue;
    out += stat(fmt::percent(share), std::string(parts[i].short_name) + " (share of the step, mean rank)");
  }
  return out;
}

}  // namespace

namespace report_parts {

using svg::esc;

double mean_of(const models::RunResult& r, double models::RankResult::*field) {
  if (r.ranks.empty()) return 0;
  double s = 0;
  for (const auto& k : r.ranks) s += std::isfinite(k.*field) ? k.*field : 0;
  return s / static_cast<double>(r.ranks.size());
}

std::string title_of(const models::RunResult& r, const ReportInputs& in, size_t index) {
  if (!in.title.empty()) return in.title;
  if (!r.scenario.empty()) return r.scenario;
  return "run " + std::to_string(index + 1);
}

std::string scenario_block(const models::RunResult& r, const ReportInputs& in) {
  std::ostringstream o;
  o << "<table class=\"summary\">";
  if (!in.source_file.empty()) o << "<tr><th>scenario file</th><td>" << esc(in.source_file) << "</td></tr>";
  for (const auto& [k, v] : in.summary) o << "<tr><th>" << esc(k) << "</th><td>" << esc(v) << "</td></tr>";
  o << "<tr><th>NCCL transports</th><td>";
  if (r.transports.empty()) o << "none (single rank)";
  for (size_t i = 0; i < r.transports.size(); ++i)
    o << (i ? "; " : "") << esc(r.transports[i].label) << " × " << r.transports[i].pairs << " pairs";
  o << "</td></tr></table>";
  const double step = r.step_time_s;
  o << "<div class=\"stats\">" << stat(fmt::seconds(step), "step time")
    << stat(fmt::duration_hms(r.run_time_s), "run time (" + std::to_string(r.steps) + " steps)")
    << stat(fmt::count(static_cast<long long>(r.gpus > 0 ? r.gpus : static_cast<int>(r.ranks.size()))), "GPUs");
  // $ beside the times, as `run` prints them (models/run/cost.hpp): the cluster's price per hour
  // over the step and the run; per million tokens for a training step.
  if (const models::CostResult& c = r.cost; c.known) {
    o << stat(fmt::usd(c.usd_per_step), "cost per step")
      << stat(fmt::usd(c.usd_per_run), "cost per run (" + std::to_string(c.nodes) + " node" +
                                           (c.nodes == 1 ? "" : "s") + " at " + fmt::usd(c.usd_per_hour) + "/h: " +
                                           c.source + (in.billed_window.empty() ? "" : "; " + in.billed_window) + ")");
    if (c.usd_per_million_tokens > 0) o << stat(fmt::usd(c.usd_per_million_tokens), "cost per million tokens");
  }
  o << breakdown_tiles(r);
  if (r.throughput.estimated) {
    char mfu[64];
    std::snprintf(mfu, sizeof mfu, "%.0f TFLOP/s, MFU %.1f%%", r.throughput.model_tflops_per_gpu,
                  100 * r.throughput.mfu);
    o << stat(fmt::count(std::llround(r.throughput.tokens_per_s)), "tokens/s")
      << stat(mfu, "per GPU (Megatron's FLOP count)");
  }
  const models::MemoryResult& m = r.memory;
  if (m.estimated) {
    const std::string v = fmt::bytes(m.peak_bytes) + " / " + fmt::bytes(m.capacity_bytes);
    const std::string k = "GPU memory peak (rank " + std::to_string(m.peak_rank) + ", " + m.phase + ")";
    o << (m.fits ? stat(v, k)
                 : "<div class=\"stat over\"><div class=\"v\">" + esc(v) + "</div><div class=\"k\">" + esc(k) +
                       "</div></div>");
  }
  if (r.variability.sampled) {  // run --samples: the step as a distribution
    const models::VariabilityResult& v = r.variability;
    o << stat(fmt::seconds(v.median_s) + " / " + fmt::seconds(v.p99_s),
              "step median / p99 over " + std::to_string(v.samples) + " samples of GPU speeds");
  }
  if (const models::GoodputResult& g = r.goodput; g.estimated) {
    char gp[96];
    std::snprintf(gp, sizeof gp, "%.1f%%", 100 * g.goodput);
    const std::string per_day = fmt::per_day(g.interruptions_per_day);  // as run prints it, never "0.00"
    const std::string why = g.plan == models::CheckpointPlan::Interval
                                ? "goodput (" + per_day + " interruptions/day, checkpoint every " +
                                      std::to_string(g.interval_steps) + " steps)"
                                : "goodput (" + per_day + " interruptions/day, no checkpoint)";
    o << stat(gp, why)
      << stat(g.finishes() ? fmt::duration_hms(g.expected_wall_s) : std::string("does not finish"),
              "expected wall time with failures");
    if (g.price_per_gpu_hour > 0 && g.finishes()) o << stat(fmt::usd(g.expected_cost), "expected cost with failures");
  }
  o << "</div>";
  if (m.estimated && !m.fits && !m.terms.empty())
    o << "<p class=\"oom\">Does not fit: rank " << m.peak_rank << " needs " << esc(fmt::bytes(m.peak_bytes))
      << " at its " << esc(m.phase) << " peak, over the " << esc(m.gpu) << "'s " << esc(fmt::bytes(m.capacity_bytes))
      << "; the biggest term is " << esc(m.terms.front().name) << " (" << esc(fmt::bytes(m.terms.front().bytes))
      << "). The step time below is what this layout would take if it fitted.</p>";
  if (r.partial) o << "<p class=\"what\"><b>Partial result:</b> the run stopped at its time limit.</p>";
  return o.str();
}

// What each number of the scenario block means, one line each (a page read without the
// README must not be misread).
std::string numbers_key() {
  static constexpr const char* kKey[][2] = {
      {"step time", "simulated time of one training step (the slowest rank's)"},
      {"run time", "step time × training.steps"},
      {"exposed comm", "share of the mean rank's step its compute stream waits for communication"},
      {"barrier wait", "share of the mean rank's step spent idle at a collective another rank has not reached"},
      {"tokens/s", "tokens of the global batch per step over the step time"},
      {"per GPU", "model TFLOP/s per GPU (Megatron's FLOP count); MFU = that over the GPU's dense bf16 peak"},
      {"GPU memory peak", "the largest estimated peak over the ranks against the GPU's memory (red: does not fit)"},
      {"goodput", "failure-free time over the expected wall time with interruptions (Llama 3's rates per "
                  "component), checkpoints at Daly's interval and restarts (docs/goodput.md)"},
      {"step median / p99", "with --samples: the step over seeded draws of every GPU's speed (the slowest GPU "
                            "paces every collective)"},
  };
  std::string s = "<ul class=\"notes key\">";
  for (const auto& k : kKey) s += "<li><b>" + esc(k[0]) + "</b>: " + esc(k[1]) + "</li>";
  return s + "</ul>";
}

std::string notes_block(const models::RunResult& r) {
  if (r.notes.empty()) return "";
  std::string s = "<ul class=\"notes\">";
  for (const auto& n : r.notes) s += "<li>" + esc(n) + "</li>";
  return s + "</ul>";
}

// Several jobs on one fabric (RunResult::jobs): each job's step alone and together, and what
// it lost to the others.
std::string jobs_block(const models::RunResult& r) {
  if (r.jobs.empty()) return "";
  std::ostringstream o;
  o << "<section id=\"jobs\"><h2>Jobs on one fabric</h2><p class=\"what\">Each job simulated alone (the "
       "other jobs' nodes idle) and together with the others, one step each from t = 0; lost = together − "
       "alone.</p><table class=\"points\"><tr><th>job</th><th>nodes</th><th>GPUs</th><th>step alone</th>"
       "<th>step together</th><th>lost</th><th>% lost</th></tr>";
  for (const auto& j : r.jobs)
    o << "<tr><td>" << esc(j.name) << "</td><td>" << j.first_node << "–" << j.last_node << "</td><td>" << j.gpus
      << "</td><td>" << esc(fmt::seconds(j.step_alone_s)) << "</td><td>" << esc(fmt::seconds(j.step_together_s))
      << "</td><td>" << esc(fmt::seconds(j.lost_s())) << "</td><td>"
      << esc(fmt::percent(j.step_alone_s > 0 ? j.lost_s() / j.step_alone_s : 0)) << "</td></tr>";
  o << "</table></section>";
  return o.str();
}

std::string chart_svg(const char* id, const models::RunResult& r, const ReportInputs& in, const charts::Shared& sh) {
  const std::string c = id;
  if (c == "topology") return charts::topology(r);
  if (c == "ranks") return charts::rank_bars(r, sh);
  if (c == "timeline") return charts::timeline(r, sh);
  if (c == "links") return charts::links(r, sh);
  return charts::busbw(in.busbw, sh);
}

}  // namespace report_parts

using namespace report_parts;

std::string report_html(const models::RunResult& r, const ReportInputs& in) {
  const std::string title = title_of(r, in, 0);
  std::ostringstream o;
  o << page::open("commsim report: " + title, 1180) << "<header><h1>" << esc(title)
    << "</h1><p class=\"sub\">commsim report — predicted step time, communication and transports</p></header>";
  o << "<section id=\"scenario\"><h2>Scenario</h2>" << scenario_block(r, in) << notes_block(r) << numbers_key()
    << "</section>" << jobs_block(r);
  for (const auto& c : kCharts) {
    // A bare collective's run is its iterations one after another, not one step of training.
    const bool iterations = std::string(c.id) == "timeline" && charts::timeline_of_iterations(r);
    const std::string heading =
        iterations ? "Timeline of the " + std::to_string(r.steps) + " iterations" : std::string(c.heading);
    o << "<section id=\"" << c.id << "\"><h2>" << esc(heading) << "</h2><p class=\"what\">" << c.what << "</p>"
      << page::figure(chart_svg(c.id, r, in, {}), page::slug(title) + "-" + c.id) << "</section>";
  }
  o << page::close();
  return o.str();
}

}  // namespace viz

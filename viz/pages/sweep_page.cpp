// The sweep page (sweep_html): how a layout scales over the sweep's first --vary key (nodes,
// typically). Throughput with the linear-scaling line, scaling efficiency, the step's breakdown per
// point and a table of the points with each column explained in one line. Same page rules as the
// report: inline CSS and SVG, no script, nothing fetched.
#include <algorithm>
#include <array>
#include <cmath>
#include <sstream>

#include "viz/charts/charts.hpp"
#include "viz/format.hpp"
#include "viz/pages/page.hpp"
#include "viz/svg.hpp"
#include "viz/viz.hpp"

namespace viz {
namespace {

using svg::esc;

// The table's columns and what each means, in one line each (shown above the table).
constexpr const char* kColumns[][2] = {
    {"point", "the value of the first --vary key, then the other keys' values"},
    {"GPUs", "ranks of the run"},
    {"step time", "simulated time of one training step (slowest rank)"},
    {"tokens/s", "tokens of the global batch per step over the step time"},
    {"efficiency", "tokens/s per GPU over that of the series' first point (100 % = linear scaling)"},
    {"MFU", "model FLOPs per second per GPU over the GPU's dense bf16 peak"},
    {"compute ... other", "the mean rank's step breakdown, adding up to the step time"},
    {"fits", "whether the estimated GPU memory peak fits in the GPU's memory"},
};
// Shown only where some point has a price: $ beside the time, as the sweep's cost columns say.
constexpr const char* kCostColumns[][2] = {
    {"$ per run", "what the run's steps cost at the point's price per hour (the CSV's cost_per_run_usd)"},
    {"$ / M tokens", "$ per million tokens trained (cost_per_million_tokens_usd)"},
};

std::string cell(const std::string& s, const char* cls = "") {
  return std::string("<td") + (*cls ? std::string(" class=\"") + cls + "\"" : "") + ">" + esc(s) + "</td>";
}

std::string points_table(const SweepReport& s) {
  const auto eff = charts::scaling_efficiencies(s.points);
  const auto& parts = charts::breakdown_parts();
  bool priced = false;
  for (const auto& p : s.points) priced = priced || (p.ok && p.usd_per_run >= 0);
  // A part of the step that is zero at every point gets no column (as the charts' legends leave
  // it out): three columns of "0 s" push the table out of its card.
  std::array<bool, charts::kBreakdownParts> present{};
  for (const auto& p : s.points) {
    const auto v = charts::breakdown_values(p.breakdown);
    for (size_t k = 0; p.ok && k < v.size(); ++k) present[k] = present[k] || v[k] > 0;
  }
  const size_t shown = static_cast<size_t>(std::count(present.begin(), present.end(), true));
  std::ostringstream o;
  o << "<ul class=\"notes columns\">";
  for (const auto& c : kColumns) o << "<li><b>" << esc(c[0]) << "</b>: " << esc(c[1]) << "</li>";
  for (const auto& c : kCostColumns)
    if (priced) o << "<li><b>" << esc(c[0]) << "</b>: " << esc(c[1]) << "</li>";
  o << "</ul><div class=\"table-scroll\"><table class=\"points\"><thead><tr><th>" << esc(s.axis)
    << "</th><th>GPUs</th><th>step time</th>" << (priced ? "<th>$ per run</th><th>$ / M tokens</th>" : "")
    << "<th>tokens/s</th><th>efficiency</th><th>MFU</th>";
  for (size_t k = 0; k < parts.size(); ++k)
    if (present[k]) o << "<th>" << esc(parts[k].short_name) << "</th>";
  o << "<th>fits</th></tr></thead><tbody>";
  for (size_t i = 0; i < s.points.size(); ++i) {
    const auto& p = s.points[i];
    o << "<tr class=\"point-row" << (p.fits ? "" : " over") << "\">"
      << cell(p.x + (p.series.empty() ? "" : " · " + p.series));
    if (!p.ok) {
      o << "<td colspan=\"" << 6 + (priced ? 2 : 0) + shown << "\" class=\"failed\">failed: " << esc(p.error)
        << "</td></tr>";
      continue;
    }
    const bool rate = p.tokens_per_s > 0;
    o << cell(std::to_string(p.gpus)) << cell(fmt::seconds(p.step_time_s));
    if (priced)
      o << cell(p.usd_per_run >= 0 ? fmt::usd(p.usd_per_run) : "no price", "usd")
        << cell(p.usd_per_million_tokens >= 0 ? fmt::usd(p.usd_per_million_tokens) : "-", "usd");
    o << cell(rate ? fmt::count(std::llround(p.tokens_per_s)) : "-") << cell(eff[i] > 0 ? fmt::percent(eff[i]) : "-")
      << cell(rate ? fmt::percent(p.mfu) : "-");
    const auto v = charts::breakdown_values(p.breakdown);
    for (size_t k = 0; k < v.size(); ++k)
      if (present[k]) o << cell(fmt::seconds(v[k]));
    o << cell(p.fits ? "yes" : "no: does not fit in GPU memory") << "</tr>";
  }
  o << "</tbody></table></div>";
  return o.str();
}

struct SweepChart {
  const char *id, *heading, *what;
};
constexpr SweepChart kSweepCharts[] = {
    {"scaling-throughput", "Throughput",
     "Simulated tokens/s at each point, one line per series; dashed: linear scaling from the series' first point "
     "(its tokens/s times GPUs over its GPUs). Hover a point for its numbers."},
    {"scaling-efficiency", "Scaling efficiency",
     "Tokens/s per GPU over that of the series' first point: 100 % is linear scaling; below it, what the added "
     "GPUs lose to communication, bubbles and waiting."},
    {"scaling-breakdown", "Where the step goes",
     "The mean rank's step at each point, split into compute, interference, exposed communication, host work, "
     "pipeline bubble, barrier wait and other; the parts add up to the step time."},
};

}  // namespace

std::string sweep_html(const SweepReport& s) {
  const std::string title = s.title.empty() ? std::string("sweep") : s.title;
  size_t ok = 0, over = 0;
  for (const auto& p : s.points) ok += p.ok, over += p.ok && !p.fits;
  std::ostringstream o;
  o << page::open("commsim sweep: " + title, 1180) << "<header><h1>" << esc(title)
    << "</h1><p class=\"sub\">commsim sweep — how throughput scales over " << esc(s.axis) << "</p></header>";
  o << "<section id=\"scenario\"><h2>Sweep</h2><table class=\"summary\">";
  if (!s.source_file.empty()) o << "<tr><th>scenario file</th><td>" << esc(s.source_file) << "</td></tr>";
  for (const auto& [k, v] : s.summary) o << "<tr><th>" << esc(k) << "</th><td>" << esc(v) << "</td></tr>";
  o << "<tr><th>points</th><td>" << s.points.size() << " (" << ok << " ran";
  if (ok < s.points.size()) o << ", " << s.points.size() - ok << " failed";
  if (over > 0) o << ", " << over << " do not fit in GPU memory";
  o << ")</td></tr></table>";
  if (over > 0)
    o << "<p class=\"oom\">" << over
      << " point(s) do not fit in GPU memory (red): their times are what the layout would take if it fitted.</p>";
  // An efficiency of a larger batch is not one of the same work: said above the charts and under
  // the efficiency chart's heading.
  const std::string batch =
      s.batch_note.empty() ? "" : "<p class=\"gpu-note batch-note\">Note: " + esc(s.batch_note) + ".</p>";
  o << batch << "</section>";
  for (const auto& c : kSweepCharts) {
    const std::string id = c.id;
    const std::string svg = id == "scaling-throughput"   ? charts::scaling_throughput(s.points, s.axis)
                            : id == "scaling-efficiency" ? charts::scaling_efficiency(s.points, s.axis)
                                                         : charts::scaling_breakdown(s.points);
    o << "<section id=\"" << c.id << "\"><h2>" << c.heading << "</h2><p class=\"what\">" << c.what << "</p>"
      << (id == "scaling-efficiency" ? batch : "") << page::figure(svg, page::slug(title) + "-" + c.id) << "</section>";
  }
  o << "<section id=\"points\"><h2>Points</h2>" << points_table(s) << "</section>";
  o << page::close();
  return o.str();
}

}  // namespace viz

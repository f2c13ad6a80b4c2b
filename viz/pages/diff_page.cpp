// `commsim diff`'s page (diff_html): one horizontal bar per row, simulated / measured - 1 (left of
// the zero line the model is fast, right of it slow) on a logarithmic axis of the ratio, so that a
// row 25 times off and rows 2 % off are all seen (a linear axis drew the latter as hairlines), then
// the table with the measured and
// simulated seconds and the parameter that would explain each difference. Same page rules as the
// report: inline CSS and SVG, no script, nothing fetched.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "viz/format.hpp"
#include "viz/pages/page.hpp"
#include "viz/svg.hpp"
#include "viz/viz.hpp"

namespace viz {
namespace {

using svg::esc;

double relative_of(const DiffPoint& p) { return p.measured_s > 0 ? p.simulated_s / p.measured_s - 1 : 0; }

// As the text table of `commsim diff` prints it: "+275.0%".
std::string percent_text(double r) {
  char b[32];
  std::snprintf(b, sizeof b, "%+.1f%%", r * 100);
  return b;
}

// Where a bar ends: log(simulated / measured), so -50 % and +100 % lie as far from the zero line.
double log_ratio(double r) { return std::log(std::max(1 + r, 1e-6)); }

std::string diff_bars(const DiffReport& d) {
  const double row_h = 26, left = 330, right = 90, top = 30, W = 960;
  const double H = top + row_h * double(std::max<std::size_t>(d.points.size(), 1)) + 30;
  svg::Writer w(W, H, "chart chart-diff", "Simulated against measured, one bar per row: simulated / measured - 1");
  if (d.points.empty()) {
    w.text(W / 2, H / 2, "nothing measured could be compared with the scenario", {.anchor = "middle", .fill = "#555"});
    return w.finish();
  }
  double span = std::log(1.05);  // the axis reaches at least -4.8 .. +5 %
  for (const auto& p : d.points) span = std::max(span, std::fabs(log_ratio(relative_of(p))));
  span *= 1.1;
  const svg::Scale x{-span, span, left, W - right};
  // Ticks at round percents inside the axis, labelled under it.
  for (const double t : {-0.99, -0.9, -0.5, -0.2, -0.1, 0.0, 0.1, 0.25, 1.0, 4.0, 9.0, 99.0}) {
    if (std::fabs(log_ratio(t)) > span) continue;
    const double tx = x(log_ratio(t));
    w.line(tx, top - 4, tx, H - 24, t == 0 ? "#444" : "#ddd", t == 0 ? 1 : 0.5);
    w.text(tx, H - 10, t == 0 ? "0" : percent_text(t), {.size = 11, .anchor = "middle", .fill = "#555"});
  }
  w.text(x(-span), top - 12, "model fast", {.size = 12, .fill = "#555"});
  w.text(x(span), top - 12, "model slow", {.size = 12, .anchor = "end", .fill = "#555"});
  for (std::size_t i = 0; i < d.points.size(); ++i) {
    const DiffPoint& p = d.points[i];
    const double r = relative_of(p), y = top + row_h * double(i);
    w.text(left - 8, y + row_h * 0.65, p.kind + ": " + p.name, {.size = 12, .anchor = "end"});
    const double x0 = std::min(x(0), x(log_ratio(r))), x1 = std::max(x(0), x(log_ratio(r)));
    w.rect(x0, y + 4, std::max(x1 - x0, 1.0), row_h - 8, r < 0 ? "#4878a8" : "#c8553d", "",
           p.kind + " " + p.name + ": measured " + fmt::seconds(p.measured_s) + ", simulated " +
               fmt::seconds(p.simulated_s));
    w.text(r < 0 ? x0 - 4 : x1 + 4, y + row_h * 0.65, percent_text(r),
           {.size = 12, .anchor = r < 0 ? "end" : "start"});
  }
  return w.finish();
}

std::string diff_table(const DiffReport& d) {
  std::ostringstream o;
  o << "<table class=\"points\"><thead><tr><th>kind</th><th>what</th><th>measured</th><th>simulated</th>"
       "<th>sim / meas - 1</th><th>parameter</th><th>why</th></tr></thead><tbody>";
  for (const auto& p : d.points)
    o << "<tr><td>" << esc(p.kind) << "</td><td>" << esc(p.name) << "</td><td>" << esc(fmt::seconds(p.measured_s))
      << "</td><td>" << esc(fmt::seconds(p.simulated_s)) << "</td><td>" << esc(percent_text(relative_of(p)))
      << "</td><td>" << esc(p.parameter) << "</td><td>" << esc(p.explain) << "</td></tr>";
  o << "</tbody></table>";
  return o.str();
}

}  // namespace

std::string diff_html(const DiffReport& d) {
  std::ostringstream o;
  o << page::open("commsim diff: " + d.title, 1180) << "<header><h1>" << esc(d.title)
    << "</h1><p>A measured run against the simulated one.</p></header>";
  o << "<section id=\"scenario\"><h2>What was compared</h2><table class=\"summary\">";
  for (const auto& [k, v] : d.summary) o << "<tr><th>" << esc(k) << "</th><td>" << esc(v) << "</td></tr>";
  o << "</table></section>";
  o << "<section id=\"bars\"><h2>Simulated against measured</h2>"
    << page::figure(diff_bars(d), page::slug(d.title) + "-diff") << "</section>";
  o << "<section id=\"rows\"><h2>Rows</h2>" << diff_table(d) << "</section>";
  if (!d.skipped.empty()) {
    o << "<section id=\"skipped\"><h2>Measured, not compared</h2><ul>";
    for (const auto& s : d.skipped) o << "<li>" << esc(s) << "</li>";
    o << "</ul></section>";
  }
  o << page::close();
  return o.str();
}

}  // namespace viz

// The planner's page (plan_html): time to train (x, log) against cost (y, log) for every ranked
// layout, the time/cost Pareto front as a line through its points, the winner and the user's own
// layout (--include) marked, then the ranked table. Same page rules as the report: inline CSS and
// SVG, no script, nothing fetched.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "viz/format.hpp"
#include "viz/pages/page.hpp"
#include "viz/palette.hpp"
#include "viz/svg.hpp"
#include "viz/viz.hpp"

namespace viz {
namespace {

using svg::esc;

// As the text's table prints them (plan_report.cpp format_duration, viz::fmt::usd): fixed
// decimals, so a column never drops trailing zeros in some rows ("42 d" under "41.6 d").
std::string days(double s) {
  if (!std::isfinite(s)) return "never";
  if (s >= 2 * 86400) return fmt::fixed(s / 86400, 1) + " d";
  if (s >= 2 * 3600) return fmt::fixed(s / 3600, 1) + " h";
  if (s >= 120) return fmt::fixed(s / 60, 1) + " min";
  return fmt::seconds(s);
}

std::string dollars(double usd) { return usd < 0 ? "-" : fmt::usd(usd); }

std::string pareto_chart(const PlanReport& p) {
  std::vector<const PlanPoint*> priced;
  for (const auto& q : p.points)
    if (q.cost_usd > 0 && q.train_s > 0 && std::isfinite(q.train_s) && std::isfinite(q.cost_usd)) priced.push_back(&q);
  const double W = 900, H = 520, left = 80, right = 20, top = 20, bottom = 90;
  svg::Writer w(W, H, "chart chart-pareto", "Time to train against cost, one point per ranked layout");
  if (priced.empty()) {
    w.text(W / 2, H / 2, "no layout has a price: the chart needs $ per hour (--prices FILE or price_per_hour)",
           {.size = 13, .anchor = "middle", .fill = "#555"});
    return w.finish();
  }
  double t0 = 1e300, t1 = 0, c0 = 1e300, c1 = 0;
  for (const auto* q : priced) {
    t0 = std::min(t0, q->train_s), t1 = std::max(t1, q->train_s);
    c0 = std::min(c0, q->cost_usd), c1 = std::max(c1, q->cost_usd);
  }
  const svg::Scale x{t0 / 1.2, t1 * 1.2, left, W - right, true};
  const svg::Scale y{c0 / 1.2, c1 * 1.2, H - bottom, top, true};
  w.line(left, H - bottom, W - right, H - bottom, "#444", 1);
  w.line(left, top, left, H - bottom, "#444", 1);
  // Ticks at round numbers of the unit they are read in (40 d, not 3e6 s = 34.7 d), without the
  // table's trailing zeros.
  const double unit = t0 >= 2 * 86400 ? 86400 : t0 >= 2 * 3600 ? 3600 : 1;
  const char* unit_name = unit == 86400 ? " d" : unit == 3600 ? " h" : " s";
  auto compact = [](double v, double scale, const char* prefix, const char* suffix) {
    char b[48];
    std::snprintf(b, sizeof b, "%s%g%s", prefix, std::round(v / scale * 1000) / 1000, suffix);
    return std::string(b);
  };
  for (double t : svg::log_ticks(t0 / unit / 1.2, t1 / unit * 1.2, 10)) {
    w.line(x(t * unit), H - bottom, x(t * unit), H - bottom + 5, "#444", 1);
    w.text(x(t * unit), H - bottom + 18, compact(t, 1, "", unit_name), {.size = 11, .anchor = "middle"});
  }
  for (double c : svg::log_ticks(c0 / 1.2, c1 * 1.2, 10)) {
    w.line(left - 5, y(c), left, y(c), "#444", 1);
    const std::string label = c >= 1e6   ? compact(c, 1e6, "$", " M")
                              : c >= 1e3 ? compact(c, 1e3, "$", " k")
                                         : compact(c, 1, "$", "");
    w.text(left - 8, y(c) + 4, label, {.size = 11, .anchor = "end"});
  }
  w.text((left + W - right) / 2, H - bottom + 40, "expected time to train, failures included (log)",
         {.size = 12, .anchor = "middle"});
  w.text(18, (top + H - bottom) / 2, "cost of the run (log)", {.size = 12, .anchor = "middle", .vertical = true});
  std::vector<const PlanPoint*> front;
  for (const auto* q : priced)
    if (q->pareto) front.push_back(q);
  std::sort(front.begin(), front.end(), [](auto* a, auto* b) { return a->train_s < b->train_s; });
  std::vector<std::pair<double, double>> line;
  for (const auto* q : front) line.push_back({x(q->train_s), y(q->cost_usd)});
  w.polyline(line, okabe_ito::kVermillion, 2, "class=\"pareto-front\"");
  for (const auto* q : priced) {
    const std::string tip = (q->yours ? std::string("yours: ") : "#" + std::to_string(q->rank) + ": ") + q->layout +
                            " on " + q->hardware + " — " + days(q->train_s) + ", " + dollars(q->cost_usd);
    const char* fill = q->yours ? okabe_ito::kGreen : q->rank == 1 ? okabe_ito::kVermillion
                       : q->pareto                       ? okabe_ito::kOrange
                                                         : okabe_ito::kGrey;
    w.circle(x(q->train_s), y(q->cost_usd), q->rank == 1 || q->yours ? 6.5 : 4, fill, "#fff", tip,
             q->pareto ? "plan-point plan-pareto" : "plan-point");
  }
  std::vector<svg::LegendItem> legend = {
      {"the winner", okabe_ito::kVermillion},
      {p.front_exact ? "on the Pareto front (line)" : "on the front of the layouts simulated (line)",
       okabe_ito::kOrange},
      {"other ranked layouts", okabe_ito::kGrey}};
  if (std::any_of(priced.begin(), priced.end(), [](const PlanPoint* q) { return q->yours; }))
    legend.push_back({"your layout (--include)", okabe_ito::kGreen});  // only where one is drawn
  svg::legend(w, left, H - bottom + 56, W - left - right, legend);
  return w.finish();
}

// "99.9%", "50.9%": the text's precision, where whole percents would round 99.9 % of goodput to
// 100 % and tell two rows' MFU apart less finely than the table beside the page.
std::string tenths_percent(double fraction) { return fmt::fixed(100 * fraction, 1) + "%"; }

std::string table(const PlanReport& p) {
  std::ostringstream o;
  o << "<div class=\"table-scroll\"><table class=\"points\"><thead><tr><th>rank</th><th>expected time to "
       "train</th><th>goodput</th>"
       "<th>cost</th><th>pricing</th><th>tokens/s</th>"
       "<th>MFU</th><th>memory headroom</th><th>GPUs</th><th>hardware</th><th>layout</th><th>"
    << (p.front_exact ? "Pareto" : "Pareto (of the simulated)") << "</th></tr></thead><tbody>";
  for (const auto& q : p.points) {
    o << "<tr class=\"point-row\"><td>" << (q.yours ? std::string("yours") : std::to_string(q.rank)) << "</td><td>"
      << esc(days(q.train_s)) << "</td><td>" << tenths_percent(q.goodput) << "</td><td>"
      << esc(std::isfinite(q.cost_usd) ? dollars(q.cost_usd) : std::string("never")) << "</td><td>" << esc(q.pricing)
      << "</td><td>" << fmt::count(std::llround(q.tokens_per_s)) << "</td><td>" << tenths_percent(q.mfu) << "</td><td>"
      << esc(q.headroom) << "</td><td>" << q.gpus << "</td><td>" << esc(q.hardware) << "</td><td class=\"wrap\">"
      << esc(q.layout) << "</td><td>" << (q.pareto ? "yes" : "") << "</td></tr>";
  }
  o << "</tbody></table></div>";
  return o.str();
}

// The text's "why #1 wins over #2" as a table, and its near-tie line under it.
std::string why_first_wins(const PlanReport& p) {
  std::ostringstream o;
  o << "<section id=\"why\"><h2>Why #1 wins</h2><p class=\"what\">" << esc(p.why_heading)
    << "</p><table class=\"points why\"><thead><tr><th></th><th>#1</th><th>#2</th><th>difference</th></tr></thead>"
       "<tbody>";
  for (const auto& row : p.why_rows) {
    o << "<tr>";
    for (size_t i = 0; i < 4; ++i)
      o << (i == 0 ? "<th>" : "<td>") << esc(i < row.size() ? row[i] : "") << (i == 0 ? "</th>" : "</td>");
    o << "</tr>";
  }
  o << "</tbody></table>";
  if (!p.near_tie.empty()) o << "<p class=\"near-tie\">" << esc(p.near_tie) << "</p>";
  o << "</section>";
  return o.str();
}

}  // namespace

std::string plan_html(const PlanReport& p) {
  const std::string title = p.title.empty() ? std::string("plan") : p.title;
  std::ostringstream o;
  o << page::open("commsim plan: " + title, 1180) << "<header><h1>" << esc(title)
    << "</h1><p class=\"sub\">commsim plan — the best layout and instance, with its cost</p></header>";
  o << "<section id=\"scenario\"><h2>Plan</h2><table class=\"summary\">";
  if (!p.source_file.empty()) o << "<tr><th>scenario file</th><td>" << esc(p.source_file) << "</td></tr>";
  for (const auto& [k, v] : p.summary) o << "<tr><th>" << esc(k) << "</th><td>" << esc(v) << "</td></tr>";
  o << "</table></section>";
  o << "<section id=\"pareto\"><h2>Time against cost</h2><p class=\"what\">Every ranked layout; the line joins the "
    << esc(p.front) << ". Hover a point for its layout.</p>"
    << page::figure(pareto_chart(p), page::slug(title) + "-pareto");
  if (!p.front_notes.empty()) {
    o << "<ul class=\"notes front-notes\">";
    for (const auto& note : p.front_notes) o << "<li>" << esc(note) << "</li>";
    o << "</ul>";
  }
  o << "</section>";
  o << "<section id=\"ranked\"><h2>Ranked layouts</h2>" << table(p) << "</section>";
  if (!p.why_heading.empty()) o << why_first_wins(p);
  if (!p.caveats.empty()) {
    o << "<section id=\"caveats\"><h2>Caveats</h2><p class=\"what\">Where these rows' machines at their size "
         "are known to differ from the model, with what was measured.</p><ul>";
    for (const auto& [who, caveat] : p.caveats) o << "<li><b>" << esc(who) << "</b>: " << esc(caveat) << "</li>";
    o << "</ul></section>";
  }
  o << page::close();
  return o.str();
}

}  // namespace viz

// A sweep's scaling, three charts over the points of `commsim sweep --html`:
// - throughput: tokens/s per point, one line per series, with the linear-scaling line from the
//   series' first point (tokens/s x GPUs / first GPUs), so the gap to ideal is seen;
// - scaling efficiency: E = (tokens/s / GPUs) / (first tokens/s / first GPUs), 100 % = linear;
// - the step: the mean rank's breakdown per point as stacked bars (adds up to the step time).
// The x positions are the values of the sweep's first --vary key in sweep order (categories, as
// typed: "1", "2", "4" nodes); the series are the combinations of the other keys' values.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "viz/charts/charts.hpp"
#include "viz/format.hpp"
#include "viz/palette.hpp"
#include "viz/svg.hpp"

namespace viz::charts {
namespace {

constexpr const char* kOomColor = "#c0392b";

size_t index_of(const std::vector<std::string>& v, const std::string& s) {
  return static_cast<size_t>(std::find(v.begin(), v.end(), s) - v.begin());
}
void add_unique(std::vector<std::string>& v, const std::string& s) {
  if (index_of(v, s) == v.size()) v.push_back(s);
}

bool has_rate(const ScalingPoint& p) { return p.ok && std::isfinite(p.tokens_per_s) && p.tokens_per_s > 0; }

// "950", "12.5k", "3.4M": tokens/s on an axis.
std::string compact(double v) {
  char b[32];
  if (v >= 1e6)
    std::snprintf(b, sizeof b, "%gM", std::round(v / 1e4) / 100);
  else if (v >= 1e3)
    std::snprintf(b, sizeof b, "%gk", std::round(v / 10) / 100);
  else
    std::snprintf(b, sizeof b, "%g", std::round(v * 100) / 100);
  return b;
}

// The plot area shared by the two line charts: categorical x (the first key's values), linear y.
struct Frame {
  double W = 900, left = 84, right = 24, top = 16, plot_h = 250;
  std::vector<std::string> xs, series;
  std::vector<int> gpus_at;  // per x: the GPU count all its points run on; 0 where they differ
  double plot_w() const { return W - left - right; }
  double x_of(const std::string& x) const {
    const double n = static_cast<double>(std::max<size_t>(xs.size(), 1));
    return left + plot_w() * (static_cast<double>(index_of(xs, x)) + 0.5) / n;
  }
  const char* color_of(const std::string& s) const {
    return kSeriesColors[index_of(series, s) % std::size(kSeriesColors)];
  }
};

Frame frame_of(const std::vector<ScalingPoint>& points) {
  Frame f;
  for (const auto& p : points) add_unique(f.xs, p.x), add_unique(f.series, p.series);
  f.gpus_at.assign(f.xs.size(), -1);
  for (const auto& p : points) {
    if (!p.ok || p.gpus <= 0) continue;
    int& g = f.gpus_at[index_of(f.xs, p.x)];
    g = g < 0 || g == p.gpus ? p.gpus : 0;
  }
  return f;
}

// Grid, y ticks with `label`, x labels (every k-th when they would crowd), axis titles.
template <typename Label>
void draw_axes(svg::Writer& w, const Frame& f, const svg::Scale& y, const std::vector<double>& ticks, Label label,
               const std::string& x_title, const std::string& y_title) {
  for (double t : ticks) {
    w.line(f.left, y(t), f.left + f.plot_w(), y(t), "#e6e6e6", 1);
    w.text(f.left - 6, y(t) + 4, label(t), {.size = 11, .anchor = "end"});
  }
  size_t widest = 1;
  for (const auto& x : f.xs) widest = std::max(widest, x.size());
  const double slot = f.plot_w() / static_cast<double>(std::max<size_t>(f.xs.size(), 1));
  const size_t every =
      std::max<size_t>(1, static_cast<size_t>(std::ceil((7.0 * static_cast<double>(widest) + 10) / slot)));
  for (size_t i = 0; i < f.xs.size(); i += every) {
    std::string t = f.xs[i];
    if (t.size() > 24) t = t.substr(0, 23) + "…";
    w.text(f.x_of(f.xs[i]), f.top + f.plot_h + 16, t, {.size = 11, .anchor = "middle", .css_class = "scaling-x"});
    // The GPU count under the value: a review reads "16 nodes" as "128 GPUs" only if told.
    if (const int g = f.gpus_at[i]; g > 0)
      w.text(f.x_of(f.xs[i]), f.top + f.plot_h + 30, fmt::count(g) + (g == 1 ? " GPU" : " GPUs"),
             {.size = 10, .anchor = "middle", .fill = "#555", .css_class = "scaling-x-gpus"});
  }
  w.line(f.left, f.top + f.plot_h, f.left + f.plot_w(), f.top + f.plot_h, "#444", 1);
  w.line(f.left, f.top, f.left, f.top + f.plot_h, "#444", 1);
  // The values are categories, evenly spaced as typed: doubling nodes looks linear on this axis and
  // the linear-scaling line bends, so the title says the axis is not to scale.
  w.text(f.left + f.plot_w() / 2, f.top + f.plot_h + 48, x_title + " (values as swept, evenly spaced: not to scale)",
         {.size = 12, .anchor = "middle", .css_class = "axis-title"});
  w.text(18, f.top + f.plot_h / 2, y_title,
         {.size = 12, .anchor = "middle", .css_class = "axis-title", .vertical = true});
}

// Legend entries of the series (their values, or `single` when there is one series).
std::vector<svg::LegendItem> series_legend(const Frame& f, const std::string& single) {
  std::vector<svg::LegendItem> items;
  for (const auto& s : f.series) items.push_back({s.empty() ? single : s, f.color_of(s)});
  return items;
}

std::string point_tip(const ScalingPoint& p, double efficiency) {
  std::string t = p.x + (p.series.empty() ? "" : " · " + p.series) + ": " + compact(p.tokens_per_s) + " tokens/s, " +
                  std::to_string(p.gpus) + " GPUs, step " + fmt::seconds(p.step_time_s) + ", MFU " +
                  fmt::percent(p.mfu) + ", scaling efficiency " + fmt::percent(efficiency);
  if (!p.fits) t += " — does not fit in GPU memory (the time is what it would take if it fitted)";
  return t;
}

}  // namespace

std::vector<double> scaling_efficiencies(const std::vector<ScalingPoint>& points) {
  std::vector<double> eff(points.size(), 0);
  std::vector<std::string> seen;
  std::vector<double> base_rate;  // tokens/s per GPU of each series' first point with a rate
  for (size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    if (!has_rate(p) || p.gpus <= 0) continue;
    const double per_gpu = p.tokens_per_s / p.gpus;
    const size_t s = index_of(seen, p.series);
    if (s == seen.size()) seen.push_back(p.series), base_rate.push_back(per_gpu);
    eff[i] = per_gpu / base_rate[s];
  }
  return eff;
}

std::string scaling_throughput(const std::vector<ScalingPoint>& points, const std::string& axis) {
  Frame f = frame_of(points);
  const auto eff = scaling_efficiencies(points);
  // Per series: its first point with a rate sets the linear-scaling line.
  std::vector<const ScalingPoint*> first(f.series.size(), nullptr);
  double ymax = 0;
  bool any_oom = false;
  for (const auto& p : points) {
    if (!has_rate(p) || p.gpus <= 0) continue;
    auto& b = first[index_of(f.series, p.series)];
    if (!b) b = &p;
    ymax = std::max({ymax, p.tokens_per_s, b->tokens_per_s * p.gpus / b->gpus});
    any_oom |= !p.fits;
  }
  const bool empty = !(ymax > 0);
  auto legend = series_legend(f, "simulated tokens/s");
  if (!empty)
    legend.push_back(
        {"dashed: linear scaling from the series' first point", okabe_ito::kGrey, svg::Mark::Stroke, "6 4"});
  if (any_oom) legend.push_back({"does not fit in GPU memory (time as if it did)", kOomColor, svg::Mark::Hollow});
  const double legend_y = f.top + f.plot_h + 64;
  const double H = legend_y + svg::legend_height(f.plot_w(), legend) + 8;
  svg::Writer w(f.W, H, "chart chart-scaling-throughput", "Throughput in tokens per second at each sweep point");
  const auto ticks = svg::linear_ticks(0, empty ? 1 : ymax * 1.05, 5);
  const svg::Scale y{0, ticks.empty() ? 1 : std::max(ticks.back(), ymax), f.top + f.plot_h, f.top};
  draw_axes(w, f, y, ticks, compact, axis, "throughput (tokens/s)");
  if (empty)
    w.text(f.left + f.plot_w() / 2, f.top + f.plot_h / 2,
           "no throughput: the points run no training step (tokens/s are not estimated)",
           {.size = 13, .anchor = "middle", .fill = "#555"});
  for (size_t s = 0; s < f.series.size(); ++s) {
    if (!first[s]) continue;
    const ScalingPoint& b = *first[s];
    std::vector<std::pair<double, double>> ideal, actual;
    for (const auto& p : points)
      if (p.series == f.series[s] && has_rate(p) && p.gpus > 0) {
        ideal.push_back({f.x_of(p.x), y(b.tokens_per_s * p.gpus / b.gpus)});
        actual.push_back({f.x_of(p.x), y(p.tokens_per_s)});
      }
    w.open_group("scaling-series", "data-series=\"" + svg::esc(f.series[s]) + "\"");
    w.polyline(ideal, f.color_of(f.series[s]), 1.5, "class=\"scaling-ideal\" stroke-dasharray=\"6 4\" opacity=\"0.7\"");
    w.polyline(actual, f.color_of(f.series[s]), 2.5, "class=\"scaling-throughput\"");
    for (size_t i = 0; i < points.size(); ++i) {
      const auto& p = points[i];
      if (p.series != f.series[s] || !has_rate(p) || p.gpus <= 0) continue;
      w.circle(f.x_of(p.x), y(p.tokens_per_s), p.fits ? 4 : 5.5, p.fits ? f.color_of(p.series) : "#fff",
               p.fits ? "#fff" : kOomColor, point_tip(p, eff[i]),
               p.fits ? "scaling-point" : "scaling-point scaling-oom");
    }
    w.close_group();
  }
  svg::legend(w, f.left, legend_y, f.plot_w(), legend);
  return w.finish();
}

std::string scaling_efficiency(const std::vector<ScalingPoint>& points, const std::string& axis) {
  Frame f = frame_of(points);
  const auto eff = scaling_efficiencies(points);
  double emax = 1;
  bool empty = true;
  for (size_t i = 0; i < points.size(); ++i)
    if (eff[i] > 0) emax = std::max(emax, eff[i]), empty = false;
  auto legend = series_legend(f, "scaling efficiency");
  // The ring drawn on a point over its GPUs' memory is named, as on the throughput chart.
  if (std::any_of(points.begin(), points.end(), [&](const ScalingPoint& p) { return !p.fits; }))
    legend.push_back({"does not fit in GPU memory (time as if it did)", kOomColor, svg::Mark::Hollow});
  const double legend_y = f.top + f.plot_h + 64;
  const double H = legend_y + svg::legend_height(f.plot_w(), legend) + 8;
  svg::Writer w(f.W, H, "chart chart-scaling-efficiency",
                "Scaling efficiency: tokens per second per GPU against the first point");
  const double top = std::ceil(emax * 10 + 0.5) / 10;  // at least 10 points of headroom over 100 %
  const auto ticks = svg::linear_ticks(0, top, 5);
  const svg::Scale y{0, std::max(top, ticks.empty() ? top : ticks.back()), f.top + f.plot_h, f.top};
  draw_axes(
      w, f, y, ticks, [](double t) { return fmt::fixed(100 * t, 0) + "%"; }, axis,
      "scaling efficiency (vs first point)");
  w.line(f.left, y(1), f.left + f.plot_w(), y(1), "#777", 1, "stroke-dasharray=\"4 3\" class=\"scaling-linear\"");
  if (empty)
    w.text(f.left + f.plot_w() / 2, f.top + f.plot_h / 2, "no throughput, so no scaling efficiency",
           {.size = 13, .anchor = "middle", .fill = "#555"});
  // Values written above the points only with one series and room for them.
  const bool values = f.series.size() == 1 && f.plot_w() / static_cast<double>(std::max<size_t>(f.xs.size(), 1)) >= 44;
  for (const auto& s : f.series) {
    std::vector<std::pair<double, double>> line;
    for (size_t i = 0; i < points.size(); ++i)
      if (points[i].series == s && eff[i] > 0) line.push_back({f.x_of(points[i].x), y(eff[i])});
    w.open_group("scaling-series", "data-series=\"" + svg::esc(s) + "\"");
    w.polyline(line, f.color_of(s), 2.5, "class=\"scaling-efficiency\"");
    for (size_t i = 0; i < points.size(); ++i) {
      const auto& p = points[i];
      if (p.series != s || !(eff[i] > 0)) continue;
      w.circle(f.x_of(p.x), y(eff[i]), p.fits ? 4 : 5.5, p.fits ? f.color_of(s) : "#fff", p.fits ? "#fff" : kOomColor,
               point_tip(p, eff[i]), p.fits ? "scaling-point" : "scaling-point scaling-oom");
      if (values)
        w.text(f.x_of(p.x), y(eff[i]) - 9, fmt::fixed(100 * eff[i], 0) + "%",
               {.size = 11, .anchor = "middle", .css_class = "scaling-value"});
    }
    w.close_group();
  }
  svg::legend(w, f.left, legend_y, f.plot_w(), legend);
  return w.finish();
}

std::string scaling_breakdown(const std::vector<ScalingPoint>& points) {
  const double W = 900, left = 240, right = 150, top = 8, row = 24;
  const double plot_w = W - left - right;
  const auto& parts = breakdown_parts();
  double vmax = 0;
  std::array<bool, kBreakdownParts> present{};
  for (const auto& p : points) {
    if (!p.ok) continue;
    vmax = std::max(vmax, std::isfinite(p.step_time_s) ? p.step_time_s : 0);
    const auto v = breakdown_values(p.breakdown);
    for (size_t k = 0; k < v.size(); ++k) present[k] = present[k] || v[k] > 0;
  }
  if (!(vmax > 0)) vmax = 1;
  std::vector<svg::LegendItem> legend;
  for (size_t k = 0; k < parts.size(); ++k)
    if (present[k]) legend.push_back({parts[k].name, parts[k].color});
  const double bars_h = row * static_cast<double>(points.size());
  const double axis_y = top + bars_h + 4, legend_y = axis_y + 40;
  const double H = legend_y + svg::legend_height(plot_w, legend) + 8;
  svg::Writer w(W, H, "chart chart-scaling-breakdown", "Step time of each sweep point, mean rank, by part");
  const auto unit = fmt::time_unit(vmax);
  const auto ticks = svg::linear_ticks(0, vmax * unit.per_s, 5);
  const double dmax = std::max(vmax, ticks.empty() ? vmax : ticks.back() / unit.per_s);
  const svg::Scale x{0, dmax, left, left + plot_w};
  for (double t : ticks) {
    w.line(x(t / unit.per_s), top, x(t / unit.per_s), axis_y, "#e6e6e6", 1);
    w.text(x(t / unit.per_s), axis_y + 14, fmt::fixed(t, t < 10 && t != std::floor(t) ? 1 : 0),
           {.size = 11, .anchor = "middle"});
  }
  w.text(left + plot_w / 2, axis_y + 30, std::string("step time, mean rank (") + unit.name + ")",
         {.size = 12, .anchor = "middle", .css_class = "axis-title"});
  for (size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    const double y = top + row * static_cast<double>(i);
    std::string label = p.x + (p.series.empty() ? "" : " · " + p.series);
    if (label.size() > 34) label = label.substr(0, 33) + "…";
    w.text(left - 8, y + 16, label, {.size = 12, .anchor = "end", .fill = p.fits ? "#222" : kOomColor});
    if (!p.ok) {
      std::string e = "failed: " + p.error;
      if (e.size() > 80) e = e.substr(0, 79) + "…";
      w.text(left + 4, y + 16, e, {.size = 11, .fill = "#777", .css_class = "scaling-failed"});
      continue;
    }
    w.open_group("scaling-bar");
    const auto v = breakdown_values(p.breakdown);
    double acc = 0;
    for (size_t k = 0; k < v.size(); ++k) {
      if (!(v[k] > 0)) continue;
      w.rect(x(acc), y + 4, x(acc + v[k]) - x(acc), row - 8, parts[k].color, std::string("seg seg-") + parts[k].css,
             std::string(parts[k].name) + ": " + fmt::seconds(v[k]));
      acc += v[k];
    }
    w.close_group();
    const std::string cost = p.usd_per_run >= 0 ? " · " + fmt::usd(p.usd_per_run) : "";
    w.text(x(std::max(acc, p.step_time_s)) + 6, y + 16,
           fmt::seconds(p.step_time_s) + cost + (p.fits ? "" : " (no fit)"),
           {.size = 11, .fill = p.fits ? "#222" : kOomColor});
  }
  svg::legend(w, left, legend_y, plot_w, legend);
  return w.finish();
}

}  // namespace viz::charts

// Bus bandwidth vs message size, the way nccl-tests reports it (busbw, log-log axes): predicted
// curves as lines, measured points as hollow markers over them, one colour per collective; with
// several series (compared layouts, measured files) one colour per series and one dash per collective.
// Each curve names the communicator it ran on (BusBwPoint::group): a TP all-gather over 8 GPUs
// and a data-parallel one over the cluster are different curves.
#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "viz/charts/charts.hpp"
#include "viz/format.hpp"
#include "viz/palette.hpp"
#include "viz/svg.hpp"

namespace viz::charts {

std::string busbw(const std::vector<BusBwPoint>& points, const Shared& shared) {
  // A curve is (series, op, group): one run's collectives, or several layouts / measured files on one axis.
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<const BusBwPoint*>> curves;
  std::vector<std::string> series_order, op_order;
  double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = shared.busbw_max_bytes_per_s;
  for (const auto& p : points) {
    if (p.size_bytes <= 0) continue;
    curves[{p.series, p.op, p.group}].push_back(&p);
    if (std::find(series_order.begin(), series_order.end(), p.series) == series_order.end())
      series_order.push_back(p.series);
    const std::string kind = p.op + '\x1f' + p.group;  // dash per (op, group) in several series
    if (std::find(op_order.begin(), op_order.end(), kind) == op_order.end()) op_order.push_back(kind);
    xmin = std::min(xmin, static_cast<double>(p.size_bytes));
    xmax = std::max(xmax, static_cast<double>(p.size_bytes));
    for (double v : {p.predicted_bytes_per_s, p.measured_bytes_per_s})
      if (std::isfinite(v) && v > 0) ymin = std::min(ymin, v), ymax = std::max(ymax, v);
  }
  // One series: colour by op (stable across charts). Several: colour by series, dash by op.
  const bool by_series = series_order.size() > 1;
  auto index_of = [](const std::vector<std::string>& v, const std::string& s) {
    return static_cast<size_t>(std::find(v.begin(), v.end(), s) - v.begin());
  };
  // One series whose op runs on several groups (a TP and a data-parallel all-gather): colour by
  // curve, as one colour per op would give both the same.
  std::map<std::string, int> groups_of_op;
  for (const auto& [key, pts] : curves) ++groups_of_op[std::get<1>(key)];
  const bool by_curve =
      !by_series && std::any_of(groups_of_op.begin(), groups_of_op.end(), [](const auto& g) { return g.second > 1; });
  std::map<std::tuple<std::string, std::string, std::string>, std::size_t> curve_index;
  for (const auto& [key, pts] : curves) curve_index.emplace(key, curve_index.size());
  auto color_of = [&](const std::string& series, const std::string& op, const std::string& group) -> std::string {
    if (by_curve) return kSeriesColors[curve_index.at({series, op, group}) % std::size(kSeriesColors)];
    if (!by_series) return op_color(op);
    return kSeriesColors[index_of(series_order, series) % std::size(kSeriesColors)];
  };
  auto name_of = [&](const std::string& series, const std::string& op, const std::string& group) {
    const std::string what = group.empty() ? op : op + ", " + group;
    return series.empty() ? what : series + " · " + what;
  };
  // Dash by op when colour is the series'; otherwise later curves dashed and thinner, so a curve
  // lying on another still shows both colours. Five patterns before one repeats.
  static constexpr const char* kDashes[] = {"", "8 5", "3 3", "12 3 2 3", "1 3"};
  std::map<std::tuple<std::string, std::string, std::string>, std::string> dash_of;
  for (const auto& [key, pts] : curves) {
    const bool has_line = std::any_of(pts.begin(), pts.end(), [](const BusBwPoint* p) {
      return std::isfinite(p->predicted_bytes_per_s) && p->predicted_bytes_per_s > 0;
    });
    if (!has_line) continue;
    const size_t index = by_series ? index_of(op_order, std::get<1>(key) + '\x1f' + std::get<2>(key)) : dash_of.size();
    dash_of.emplace(key, kDashes[index % std::size(kDashes)]);
  }
  const bool empty = curves.empty() || !(ymax > 0) || !std::isfinite(ymin);
  if (empty) xmin = 8, xmax = 1 << 30, ymin = 1e8, ymax = 1e11;
  if (xmax <= xmin) xmax = xmin * 2;
  // Decades of GB/s around the data.
  const double y_lo = std::pow(10, std::floor(std::log10(ymin / 1e9))) * 1e9;
  const double y_hi = std::pow(10, std::ceil(std::log10(ymax / 1e9) + 1e-9)) * 1e9;
  const double x_lo = std::pow(2, std::floor(std::log2(xmin))), x_hi = std::pow(2, std::ceil(std::log2(xmax)));

  const double W = shared.width, left = 80, right = 20, top_pad = 14, plot_h = 280;
  const double plot_w = W - left - right;
  std::vector<svg::LegendItem> legend;
  for (const auto& [key, pts] : curves) {
    const auto& [series, op, group] = key;
    bool predicted = false, measured = false;
    for (const auto* p : pts) {
      predicted |= p->predicted_bytes_per_s > 0;
      measured |= p->measured_bytes_per_s > 0;
    }
    if (predicted)
      legend.push_back({.label = name_of(series, op, group) + " predicted",
                        .color = color_of(series, op, group),
                        .mark = svg::Mark::Stroke,
                        .dash = dash_of.count(key) ? dash_of.at(key) : ""});
    if (measured)
      legend.push_back({name_of(series, op, group) + " measured", color_of(series, op, group), svg::Mark::Hollow});
  }
  if (empty) legend.push_back({"no bandwidth curve given", okabe_ito::kGrey});
  const double legend_y = top_pad + plot_h + 46;
  const double H = legend_y + svg::legend_height(plot_w, legend) + 8;

  svg::Writer w(W, H, "chart chart-busbw", "Bus bandwidth versus message size, log axes");
  const svg::Scale x{x_lo, x_hi, left, left + plot_w, true};
  const svg::Scale y{y_lo, y_hi, top_pad + plot_h, top_pad, true};
  // Ticks: every power of 2 would crowd the axis; label every 4th (x16) and grid the others lightly.
  const auto xt = svg::log_ticks(x_lo, x_hi, 2);
  // Label exponents that are multiples of 1, 2, 5 or 10, so 1 KiB, 1 MiB, 1 GiB get labels.
  int every = 1;
  for (int e : {1, 2, 5, 10})
    if (every = e; xt.size() / static_cast<double>(e) <= 9) break;
  for (size_t i = 0; i < xt.size(); ++i) {
    const bool major = static_cast<long>(std::lround(std::log2(xt[i]))) % every == 0;
    w.line(x(xt[i]), top_pad, x(xt[i]), top_pad + plot_h, major ? "#e0e0e0" : "#f3f3f3", 1);
    if (major) w.text(x(xt[i]), top_pad + plot_h + 15, fmt::bytes_binary_axis(xt[i]), {.size = 11, .anchor = "middle"});
  }
  for (double t : svg::log_ticks(y_lo, y_hi, 10)) {
    w.line(left, y(t), left + plot_w, y(t), "#e0e0e0", 1);
    const double g = t / 1e9;
    w.text(left - 6, y(t) + 4, g >= 1 ? fmt::fixed(g, 0) : fmt::fixed(g, static_cast<int>(std::ceil(-std::log10(g)))),
           {.size = 11, .anchor = "end"});
  }
  w.text(left + plot_w / 2, top_pad + plot_h + 32, "message size (bytes, log scale; nccl-tests size)",
         {.size = 12, .anchor = "middle", .css_class = "axis-title"});
  w.text(18, top_pad + plot_h / 2, "bus bandwidth (GB/s, log scale)",
         {.size = 12, .anchor = "middle", .css_class = "axis-title", .vertical = true});
  if (empty)
    w.text(left + plot_w / 2, top_pad + plot_h / 2, "no bus bandwidth data given for this report",
           {.size = 13, .anchor = "middle", .fill = "#555"});
  for (auto& [key, pts] : curves) {
    const auto& [series, op, group] = key;
    const std::string color = color_of(series, op, group);
    std::stable_sort(pts.begin(), pts.end(), [](auto* a, auto* b) { return a->size_bytes < b->size_bytes; });
    std::vector<std::pair<double, double>> line;
    for (const auto* p : pts)
      if (std::isfinite(p->predicted_bytes_per_s) && p->predicted_bytes_per_s > 0)
        line.push_back({x(static_cast<double>(p->size_bytes)), y(p->predicted_bytes_per_s)});
    w.open_group("busbw-series", "data-op=\"" + svg::esc(op) + "\" data-series=\"" + svg::esc(series) +
                                     "\" data-group=\"" + svg::esc(group) + "\"");
    const std::string dash = dash_of.count(key) ? dash_of.at(key) : "";
    const std::string style = dash.empty() ? "" : " stroke-dasharray=\"" + dash + "\"";
    if (!line.empty()) w.polyline(line, color, dash.empty() ? 3 : 2, "class=\"busbw-predicted\"" + style);
    for (const auto* p : pts)
      if (std::isfinite(p->measured_bytes_per_s) && p->measured_bytes_per_s > 0)
        w.circle(x(static_cast<double>(p->size_bytes)), y(p->measured_bytes_per_s), 4, "#fff", color,
                 name_of(series, op, group) + " " + fmt::bytes(static_cast<double>(p->size_bytes)) + ": measured " +
                     fmt::rate(p->measured_bytes_per_s) +
                     (p->predicted_bytes_per_s > 0 ? ", predicted " + fmt::rate(p->predicted_bytes_per_s) : ""),
                 "busbw-measured");
    w.close_group();
  }
  w.line(left, top_pad + plot_h, left + plot_w, top_pad + plot_h, "#444", 1);
  w.line(left, top_pad, left, top_pad + plot_h, "#444", 1);
  svg::legend(w, left, legend_y, plot_w, legend);
  return w.finish();
}

}  // namespace viz::charts

// Bus bandwidth vs message size, the way nccl-tests reports it (busbw, log-log axes): predicted
// curves as lines, measured points as hollow markers over them, one colour per collective.
#include <algorithm>
#include <cmath>
#include <map>

#include "viz/charts.hpp"
#include "viz/format.hpp"
#include "viz/palette.hpp"
#include "viz/svg.hpp"

namespace viz::charts {

std::string busbw(const std::vector<BusBwPoint>& points, const Shared& shared) {
  std::map<std::string, std::vector<const BusBwPoint*>> by_op;
  double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = shared.busbw_max_bytes_per_s;
  bool any_measured = false;
  for (const auto& p : points) {
    if (p.size_bytes <= 0) continue;
    by_op[p.op].push_back(&p);
    xmin = std::min(xmin, static_cast<double>(p.size_bytes));
    xmax = std::max(xmax, static_cast<double>(p.size_bytes));
    for (double v : {p.predicted_bytes_per_s, p.measured_bytes_per_s})
      if (std::isfinite(v) && v > 0) ymin = std::min(ymin, v), ymax = std::max(ymax, v);
    any_measured |= std::isfinite(p.measured_bytes_per_s) && p.measured_bytes_per_s > 0;
  }
  const bool empty = by_op.empty() || !(ymax > 0) || !std::isfinite(ymin);
  if (empty) xmin = 8, xmax = 1 << 30, ymin = 1e8, ymax = 1e11;
  if (xmax <= xmin) xmax = xmin * 2;
  // Decades of GB/s around the data.
  const double y_lo = std::pow(10, std::floor(std::log10(ymin / 1e9))) * 1e9;
  const double y_hi = std::pow(10, std::ceil(std::log10(ymax / 1e9) + 1e-9)) * 1e9;
  const double x_lo = std::pow(2, std::floor(std::log2(xmin))), x_hi = std::pow(2, std::ceil(std::log2(xmax)));

  const double W = shared.width, left = 80, right = 20, top_pad = 14, plot_h = 280;
  const double plot_w = W - left - right;
  std::vector<svg::LegendItem> legend;
  for (const auto& [op, _] : by_op) {
    legend.push_back({op + " predicted", op_color(op)});
    bool measured = false;
    for (const auto* p : _) measured |= p->measured_bytes_per_s > 0;
    if (measured) legend.push_back({op + " measured", op_color(op), true});
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
  int series = 0;
  for (auto& [op, pts] : by_op) {
    std::stable_sort(pts.begin(), pts.end(), [](auto* a, auto* b) { return a->size_bytes < b->size_bytes; });
    std::vector<std::pair<double, double>> line;
    for (const auto* p : pts)
      if (std::isfinite(p->predicted_bytes_per_s) && p->predicted_bytes_per_s > 0)
        line.push_back({x(static_cast<double>(p->size_bytes)), y(p->predicted_bytes_per_s)});
    w.open_group("busbw-series", "data-op=\"" + svg::esc(op) + "\"");
    // Later series dashed and thinner, so a curve lying on another still shows both colours.
    const std::string style =
        series == 0 ? "" : " stroke-dasharray=\"" + std::string(series % 2 ? "8 5" : "3 3") + "\"";
    w.polyline(line, op_color(op), series == 0 ? 3 : 2, "class=\"busbw-predicted\"" + style);
    ++series;
    for (const auto* p : pts)
      if (std::isfinite(p->measured_bytes_per_s) && p->measured_bytes_per_s > 0)
        w.circle(x(static_cast<double>(p->size_bytes)), y(p->measured_bytes_per_s), 4, "#fff", op_color(op),
                 op + " " + fmt::bytes(static_cast<double>(p->size_bytes)) + ": measured " +
                     fmt::rate(p->measured_bytes_per_s) + ", predicted " + fmt::rate(p->predicted_bytes_per_s),
                 "busbw-measured");
    w.close_group();
  }
  w.line(left, top_pad + plot_h, left + plot_w, top_pad + plot_h, "#444", 1);
  w.line(left, top_pad, left, top_pad + plot_h, "#444", 1);
  (void)any_measured;
  svg::legend(w, left, legend_y, plot_w, legend);
  return w.finish();
}

}  // namespace viz::charts

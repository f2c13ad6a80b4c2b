// Link utilisation: the busiest links, as horizontal bars of their share of the step. The solid
// bar is the average utilisation (bytes / (capacity x step time)); the outline is the share of
// the step during which the link carried any traffic, so "busy all step at half rate" and
// "saturated half the step" look different.
#include <algorithm>
#include <cmath>
#include <set>

#include "viz/charts.hpp"
#include "viz/format.hpp"
#include "viz/palette.hpp"
#include "viz/svg.hpp"

namespace viz::charts {
namespace {
double fin(double v) { return std::isfinite(v) && v > 0 ? v : 0; }
}  // namespace

std::string links(const models::RunResult& r, const Shared& shared) {
  std::vector<const models::LinkResult*> order;
  for (const auto& l : r.links) order.push_back(&l);
  std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) {
    return fin(a->utilization) > fin(b->utilization) ||
           (fin(a->utilization) == fin(b->utilization) && fin(a->bytes) > fin(b->bytes));
  });
  if (order.size() > static_cast<size_t>(kMaxLinks)) order.resize(kMaxLinks);

  const double W = shared.width, left = W * 0.28, right = 190, top_pad = 10, row_h = 24;
  const double plot_w = W - left - right;
  const double plot_h = std::max<size_t>(1, order.size()) * row_h;
  std::vector<svg::LegendItem> legend;
  std::set<TransportClass> classes;
  for (const auto* l : order) classes.insert(classify_link_kind(l->kind));
  for (TransportClass c : classes) legend.push_back({std::string(link_class_label(c)) + " link", transport_color(c)});
  legend.push_back({"busy share of the step (outline)", "#444", true});
  const double legend_y = top_pad + plot_h + 42;
  const double H = legend_y + svg::legend_height(W - 20, legend) + 8;

  svg::Writer w(W, H, "chart chart-links", "Busiest links and their share of the step");
  const svg::Scale x{0, 1, left, left + plot_w};
  for (double t : svg::linear_ticks(0, 1, 5)) {
    w.line(x(t), top_pad, x(t), top_pad + plot_h, "#e6e6e6", 1);
    w.text(x(t), top_pad + plot_h + 15, fmt::fixed(t * 100, 0), {.size = 11, .anchor = "middle"});
  }
  w.text(left + plot_w / 2, top_pad + plot_h + 32, "share of the step (%)",
         {.size = 12, .anchor = "middle", .css_class = "axis-title"});
  if (order.empty())
    w.text(left + plot_w / 2, top_pad + row_h * 0.65, "no link traffic recorded",
           {.size = 12, .anchor = "middle", .fill = "#555"});
  double y = top_pad;
  for (const auto* l : order) {
    const TransportClass c = classify_link_kind(l->kind);
    const double util = std::min(1.0, fin(l->utilization));
    const double busy = r.step_time_s > 0 ? std::min(1.0, fin(l->busy_s) / r.step_time_s) : 0;
    w.open_group("link-row");
    // Fit the label to the space left of the bars (~6.4 px per character at 11.5 px).
    const std::string kind = l->kind.empty() ? "" : " (" + l->kind + ")";
    const size_t room = static_cast<size_t>(std::max(8.0, (left - 14) / 6.4));
    std::string name = l->name;
    if (name.size() + kind.size() > room)
      name =
          "…" + name.substr(name.size() - std::min(name.size(), room > kind.size() + 2 ? room - kind.size() - 1 : 1));
    w.text(left - 8, y + 15, name + kind, {.size = 11.5, .anchor = "end"});
    const std::string tip = l->name + " (" + l->kind + ")\nutilisation " + fmt::percent(fin(l->utilization)) + " of " +
                            fmt::rate(fin(l->capacity_bytes_per_s)) + "\n" + fmt::bytes(fin(l->bytes)) +
                            " moved, busy " + fmt::seconds(fin(l->busy_s));
    w.rect(x(0), y + 4, x(util) - x(0), row_h - 8, transport_color(c), "link-bar", tip);
    if (busy > 0)
      w.rect(x(0), y + 3, x(busy) - x(0), row_h - 6, "none", "link-busy", "", "stroke=\"#444\" stroke-width=\"1\"");
    w.text(left + plot_w + 8, y + 15,
           fmt::percent(fin(l->utilization)) + " util · " + fmt::bytes(fin(l->bytes)) + " · busy " + fmt::percent(busy),
           {.size = 11});
    w.close_group();
    y += row_h;
  }
  w.line(left, top_pad, left, top_pad + plot_h, "#444", 1);
  svg::legend(w, 10, legend_y, W - 20, legend);
  return w.finish();
}

}  // namespace viz::charts

// Link utilisation, in two parts. First one row per link class (NVLink, EFA, PCIe, ...): the bar is
// the busiest link of the class, the tick its mean over the class's links, so the bottleneck class
// is read at a glance even when thousands of links exist. Then the busiest individual links, where
// links with identical traffic (the 12 NVLink ports of a symmetric ring) collapse into one row
// "× N like it" instead of repeating one bar. Solid bar = average utilisation over the step
// (bytes / (capacity x step time)); outline = share of the step during which the link carried
// traffic, so "busy all step at half rate" and "saturated half the step" look different.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "viz/charts/charts.hpp"
#include "viz/format.hpp"
#include "viz/palette.hpp"
#include "viz/svg.hpp"

namespace viz::charts {
namespace {
double fin(double v) { return std::isfinite(v) && v > 0 ? v : 0; }

struct ClassRow {
  std::string kind;
  int links = 0;
  double max_util = 0, sum_util = 0, bytes = 0;
  const models::LinkResult* busiest = nullptr;
};

struct LinkRow {
  const models::LinkResult* link = nullptr;
  int alike = 1;  // links with the same kind, bytes and busy time as this one
};

}  // namespace

std::string fit_label(const std::string& s, size_t room) {
  if (s.size() <= room || room < 5) return s;
  // Keep both ends: link names differ at the end ("node3/gpu5 -> nvswitch") and start ("node3/...").
  const size_t tail = (room - 1) / 2, head = room - 1 - tail;
  return s.substr(0, head) + "…" + s.substr(s.size() - tail);
}

std::string links(const models::RunResult& r, const Shared& shared) {
  // Per class.
  std::map<std::string, ClassRow> by_kind;
  for (const auto& l : r.links) {
    auto& c = by_kind[l.kind];
    c.kind = l.kind;
    ++c.links;
    c.sum_util += fin(l.utilization);
    c.bytes += fin(l.bytes);
    if (!c.busiest || fin(l.utilization) > c.max_util) c.busiest = &l, c.max_util = fin(l.utilization);
  }
  std::vector<ClassRow> classes;
  // The run's own per-kind figures cover every link; r.links holds only the busiest 32.
  for (const auto& k : r.link_classes) {
    ClassRow& c = by_kind[k.kind];
    c.kind = k.kind;
    c.links = static_cast<int>(k.links);
    c.sum_util = k.mean_utilization * static_cast<double>(k.links);
    c.bytes = k.bytes;
    c.max_util = std::max(c.max_util, fin(k.max_utilization));
  }
  for (auto& [_, c] : by_kind) classes.push_back(c);
  std::stable_sort(classes.begin(), classes.end(),
                   [](const auto& a, const auto& b) { return a.max_util > b.max_util; });

  // Busiest links, identical ones collapsed.
  std::vector<const models::LinkResult*> order;
  for (const auto& l : r.links) order.push_back(&l);
  std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) {
    return fin(a->utilization) > fin(b->utilization) ||
           (fin(a->utilization) == fin(b->utilization) && fin(a->bytes) > fin(b->bytes));
  });
  std::vector<LinkRow> rows;
  for (const auto* l : order) {
    if (!rows.empty()) {
      const auto* p = rows.back().link;
      if (p->kind == l->kind && fin(p->bytes) == fin(l->bytes) && fin(p->busy_s) == fin(l->busy_s) &&
          fin(p->utilization) == fin(l->utilization)) {
        ++rows.back().alike;
        continue;
      }
    }
    if (rows.size() == static_cast<size_t>(kMaxLinks)) break;
    rows.push_back({l, 1});
  }

  const double W = shared.width, left = W * 0.30, right = 190, top_pad = 10, row_h = 24, head_h = 22;
  const double plot_w = W - left - right;
  const bool any = !r.links.empty();
  const double n_rows = any ? static_cast<double>(classes.size() + rows.size()) : 1;
  const double plot_h = n_rows * row_h + (any ? 2 * head_h : 0);
  std::vector<svg::LegendItem> legend;
  std::set<TransportClass> seen;
  for (const auto& c : classes) seen.insert(classify_link_kind(c.kind));
  for (TransportClass c : seen) legend.push_back({std::string(link_class_label(c)) + " link", transport_color(c)});
  legend.push_back({"busy share of the step (outline)", "#444", svg::Mark::Outline});
  if (!classes.empty()) legend.push_back({"class mean (tick)", "#111", svg::Mark::Tick});
  const double legend_y = top_pad + plot_h + 42;
  const double H = legend_y + svg::legend_height(W - 20, legend) + 8;

  svg::Writer w(W, H, "chart chart-links", "Link utilisation per link class, then the busiest links");
  const svg::Scale x{0, 1, left, left + plot_w};
  for (double t : svg::linear_ticks(0, 1, 5)) {
    w.line(x(t), top_pad, x(t), top_pad + plot_h, "#e6e6e6", 1);
    w.text(x(t), top_pad + plot_h + 15, fmt::fixed(t * 100, 0), {.size = 11, .anchor = "middle"});
  }
  w.text(left + plot_w / 2, top_pad + plot_h + 32, "share of the step (%)",
         {.size = 12, .anchor = "middle", .css_class = "axis-title"});
  if (!any)
    w.text(left + plot_w / 2, top_pad + row_h * 0.65, "no link traffic recorded",
           {.size = 12, .anchor = "middle", .fill = "#555"});
  // ~6.4 px per character at 11.5 px: what fits left of the bars.
  const size_t room = static_cast<size_t>(std::max(8.0, (left - 14) / 6.4));
  double y = top_pad;
  auto heading = [&](const std::string& s) {
    w.text(8, y + 15, s, {.size = 12, .weight = "bold", .css_class = "links-heading"});
    y += head_h;
  };
  auto busy_of = [&](const models::LinkResult& l) {
    return r.step_time_s > 0 ? std::min(1.0, fin(l.busy_s) / r.step_time_s) : 0.0;
  };
  if (any) heading("per link class: busiest link (bar) and mean (tick)");
  for (const auto& c : classes) {
    const TransportClass tc = classify_link_kind(c.kind);
    const double mean = c.links ? c.sum_util / c.links : 0;
    w.open_group("link-class-row", "data-kind=\"" + svg::esc(c.kind) + "\"");
    const std::string kind = c.kind.empty() ? "unnamed" : c.kind;
    w.text(left - 8, y + 15, fit_label(kind + " · " + fmt::count(c.links) + (c.links == 1 ? " link" : " links"), room),
           {.size = 11.5, .anchor = "end", .weight = "bold"});
    const std::string tip = kind + ": " + fmt::count(c.links) + " links, " + fmt::bytes(c.bytes) + " moved\nbusiest " +
                            (c.busiest ? c.busiest->name : "") + " at " + fmt::percent(c.max_util) + ", mean " +
                            fmt::percent(mean);
    w.rect(x(0), y + 4, x(std::min(1.0, c.max_util)) - x(0), row_h - 8, transport_color(tc), "link-class-bar", tip);
    if (c.busiest && busy_of(*c.busiest) > 0)
      w.rect(x(0), y + 3, x(busy_of(*c.busiest)) - x(0), row_h - 6, "none", "link-busy", "",
             "stroke=\"#444\" stroke-width=\"1\"");
    w.line(x(std::min(1.0, mean)), y + 1, x(std::min(1.0, mean)), y + row_h - 1, "#111", 2.5);
    w.text(left + plot_w + 8, y + 15, "max " + fmt::percent(c.max_util) + " · mean " + fmt::percent(mean),
           {.size = 11});
    w.close_group();
    y += row_h;
  }
  if (any) heading("busiest links");
  for (const auto& row : rows) {
    const auto& l = *row.link;
    const TransportClass c = classify_link_kind(l.kind);
    const double util = std::min(1.0, fin(l.utilization));
    const double busy = busy_of(l);
    w.open_group("link-row");
    const std::string kind = l.kind.empty() ? "" : " (" + l.kind + ")";
    const std::string more = row.alike > 1 ? " × " + fmt::count(row.alike) : "";
    const size_t name_room = room > kind.size() + more.size() + 6 ? room - kind.size() - more.size() : 6;
    w.text(left - 8, y + 15, fit_label(l.name, name_room) + kind + more, {.size = 11.5, .anchor = "end"});
    std::string tip = l.name + " (" + l.kind + ")\nutilisation " + fmt::percent(fin(l.utilization)) + " of " +
                      fmt::rate(fin(l.capacity_bytes_per_s)) + "\n" + fmt::bytes(fin(l.bytes)) + " moved, busy " +
                      fmt::seconds(fin(l.busy_s));
    if (row.alike > 1) tip += "\nand " + fmt::count(row.alike - 1) + " more links with the same traffic";
    w.rect(x(0), y + 4, x(util) - x(0), row_h - 8, transport_color(c), "link-bar", tip);
    if (busy > 0)
      w.rect(x(0), y + 3, x(busy) - x(0), row_h - 6, "none", "link-busy", "", "stroke=\"#444\" stroke-width=\"1\"");
    w.text(left + plot_w + 8, y + 15,
           fmt::percent(fin(l.utilization)) + " util · " + fmt::bytes(fin(l.bytes)) + " · busy " + fmt::percent(busy),
           {.size = 11});
    w.close_group();
    y += row_h;
  }
  w.line(left, top_pad, left, top_pad + plot_h, "#444", 1);
  svg::legend(w, 10, legend_y, W - 20, legend);
  return w.finish();
}

}  // namespace viz::charts

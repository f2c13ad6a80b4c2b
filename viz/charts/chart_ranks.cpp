// Per-rank step time as stacked bars of the rank's step breakdown (models::RankBreakdown: compute,
// interference, exposed communication, host work, pipeline bubble, barrier wait, other), which
// adds up to the step; a result without a breakdown (hand-made) shows compute, exposed
// communication, barrier wait and offload.
// Beyond kMaxRankBars ranks, one bar per node (or per range of ranks) with the group's mean
// components and a marker at its slowest rank, so 1,024 ranks still read as a chart.
#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <map>

#include "viz/charts/charts.hpp"
#include "viz/format.hpp"
#include "viz/palette.hpp"
#include "viz/svg.hpp"

namespace viz::charts {
namespace {

// The stacked components, bottom to top: name in the legend and tooltip, CSS class, colour.
constexpr std::array<BreakdownPart, kBreakdownParts> kComponents = {
    {{"compute", "compute", kComputeColor, "compute"},
     {"interference (compute lost to overlapping communication)", "interference", kInterferenceColor, "interference"},
     {"exposed communication", "exposed", kExposedCommColor, "exposed communication"},
     {"host work the GPU waits for (CPU offload)", "offload", kOffloadColor, "host work (CPU offload)"},
     {"pipeline bubble", "bubble", kBubbleColor, "pipeline bubble"},
     {"barrier wait", "barrier", kBarrierColor, "barrier wait"},
     {"other", "other", kOtherColor, "other"}}};
constexpr std::size_t kParts = std::size(kComponents);

struct Bar {
  std::string label, tooltip_head;
  double part[kParts] = {};
  double max_total = 0;
  int members = 0;
  int first_rank = 0;
};

double finite(double v) { return std::isfinite(v) && v > 0 ? v : 0; }
// The rank's components in kComponents order.
std::array<double, kParts> parts_of(const models::RankResult& k) {
  if (k.breakdown.total() > 0) return breakdown_values(k.breakdown);
  return {finite(k.compute_s), 0, finite(k.exposed_comm_s), finite(k.offload_s), 0, finite(k.barrier_wait_s), 0};
}
double total(const models::RankResult& k) {
  double t = 0;
  for (double v : parts_of(k)) t += v;
  return t;
}

std::vector<Bar> make_bars(const models::RunResult& r) {
  std::vector<Bar> bars;
  const int n = static_cast<int>(r.ranks.size());
  std::map<int, std::vector<const models::RankResult*>> groups;
  std::string kind;
  if (n <= kMaxRankBars) {
    for (const auto& k : r.ranks) groups[k.rank].push_back(&k);
    kind = "rank";
  } else {
    std::map<int, int> nodes;
    for (const auto& k : r.ranks) nodes[k.node]++;
    const bool by_node = static_cast<int>(nodes.size()) <= kMaxRankBars && nodes.size() > 1;
    const int per = (n + kMaxRankBars - 1) / kMaxRankBars;
    for (int i = 0; i < n; ++i) groups[by_node ? r.ranks[i].node : i / per].push_back(&r.ranks[i]);
    kind = by_node ? "node" : "range";
  }
  for (const auto& [key, members] : groups) {
    Bar b;
    b.members = static_cast<int>(members.size());
    int lo = members.front()->rank, hi = lo;
    for (const auto* k : members) {
      const auto p = parts_of(*k);
      for (std::size_t c = 0; c < kParts; ++c) b.part[c] += p[c];
      b.max_total = std::max(b.max_total, total(*k));
      lo = std::min(lo, k->rank);
      hi = std::max(hi, k->rank);
    }
    for (double& v : b.part) v /= b.members;
    b.first_rank = lo;
    if (kind == "rank") {
      b.label = std::to_string(key);
      b.tooltip_head = "rank " + std::to_string(key) + " (node " + std::to_string(members[0]->node) + ", pod " +
                       std::to_string(members[0]->pod) + ", GPU " + std::to_string(members[0]->gpu) + ")";
    } else if (kind == "node") {
      b.label = "n" + std::to_string(key);
      b.tooltip_head = "node " + std::to_string(key) + ": mean of " + std::to_string(b.members) + " ranks";
    } else {
      b.label = std::to_string(lo) + "-" + std::to_string(hi);
      b.tooltip_head = "ranks " + b.label + ": mean of " + std::to_string(b.members) + " ranks";
    }
    bars.push_back(std::move(b));
  }
  return bars;
}

}  // namespace

std::string rank_bars(const models::RunResult& r, const Shared& shared) {
  const std::vector<Bar> bars = make_bars(r);
  const bool grouped = !bars.empty() && bars.front().members > 1;
  double vmax = std::max(shared.step_time_max_s, finite(r.step_time_s));
  for (const auto& b : bars) vmax = std::max(vmax, b.max_total);
  if (vmax <= 0) vmax = 1e-3;
  const fmt::TimeUnit unit = fmt::time_unit(vmax);
  const std::vector<double> ticks = svg::linear_ticks(0, vmax * unit.per_s, 5);
  const double top = ticks.empty() ? vmax : std::max(vmax, ticks.back() / unit.per_s);

  const double W = shared.width, left = 70, right = 20, top_pad = 16, plot_h = 240;
  const double plot_w = W - left - right;
  const double legend_y = top_pad + plot_h + 44;
  // Compute, exposed communication and barrier wait always; the others where a bar has them.
  std::vector<svg::LegendItem> legend;
  for (std::size_t c = 0; c < kParts; ++c) {
    bool any = c == 0 || c == 2 || c == 5;
    for (const auto& b : bars) any |= b.part[c] > 0;
    if (any) legend.push_back({kComponents[c].name, kComponents[c].color});
  }
  if (grouped) legend.push_back({"slowest rank of the group", okabe_ito::kBlack, svg::Mark::Stroke});
  legend.push_back({"step time", "#444", svg::Mark::Stroke, "6 4"});
  const double H = legend_y + svg::legend_height(plot_w, legend) + 8;

  svg::Writer w(W, H, "chart chart-ranks", "Step time per rank: where it goes (the parts add up to the step)");
  const svg::Scale y{0, top, top_pad + plot_h, top_pad};
  // Grid and y axis.
  for (double t : ticks) {
    const double py = y(t / unit.per_s);
    w.line(left, py, left + plot_w, py, "#e3e3e3", 1);
    w.text(left - 6, py + 4, fmt::fixed(t, t < 10 && t != std::floor(t) ? 1 : 0), {.size = 11, .anchor = "end"});
  }
  w.text(16, top_pad + plot_h / 2, std::string("time per step (") + unit.name + ")",
         {.size = 12, .anchor = "middle", .css_class = "axis-title", .vertical = true});
  // Bars.
  const double slot = plot_w / std::max<size_t>(1, bars.size());
  const double bw = std::max(1.0, std::min(48.0, slot * 0.72));
  size_t longest = 1;
  for (const auto& b : bars) longest = std::max(longest, b.label.size());
  // Every k-th label, so labels (~6.5 px per character at 11 px) never touch.
  const int label_every = std::max(1, static_cast<int>(std::ceil((6.5 * static_cast<double>(longest) + 8) / slot)));
  for (size_t i = 0; i < bars.size(); ++i) {
    const Bar& b = bars[i];
    const double x = left + slot * i + (slot - bw) / 2;
    w.open_group(grouped ? "bar-group" : "bar-rank", "data-rank=\"" + std::to_string(b.first_rank) + "\"");
    double acc = 0;
    for (std::size_t c = 0; c < kParts; ++c) {
      const double v = b.part[c];
      if (v <= 0) continue;
      const double y0 = y(acc), y1 = y(acc + v);
      w.rect(x, y1, bw, y0 - y1, kComponents[c].color, std::string("seg seg-") + kComponents[c].css,
             b.tooltip_head + "\n" + kComponents[c].name + ": " + fmt::seconds(v));
      acc += v;
    }
    if (grouped && b.max_total > 0) w.line(x - 1, y(b.max_total), x + bw + 1, y(b.max_total), okabe_ito::kBlack, 2);
    if (static_cast<int>(i) % label_every == 0)
      w.text(x + bw / 2, top_pad + plot_h + 15, b.label, {.size = 11, .anchor = "middle"});
    w.close_group();
  }
  // Step time reference.
  if (r.step_time_s > 0) {
    const double py = y(r.step_time_s);
    w.line(left, py, left + plot_w, py, "#444", 1.5, "stroke-dasharray=\"6 4\"");
    w.text(left + plot_w - 2, py - 4, "step " + fmt::seconds(r.step_time_s),
           {.size = 11, .anchor = "end", .fill = "#444"});
  }
  w.line(left, top_pad + plot_h, left + plot_w, top_pad + plot_h, "#444", 1);
  w.line(left, top_pad, left, top_pad + plot_h, "#444", 1);
  const std::string xtitle = grouped ? (bars.front().label[0] == 'n' ? "node (bars: mean of its ranks)"
                                                                     : "rank range (bars: mean of its ranks)")
                                     : "rank";
  w.text(left + plot_w / 2, top_pad + plot_h + 32, xtitle, {.size = 12, .anchor = "middle", .css_class = "axis-title"});
  svg::legend(w, left, legend_y, plot_w, legend);
  return w.finish();
}

const std::array<BreakdownPart, kBreakdownParts>& breakdown_parts() { return kComponents; }

std::array<double, kBreakdownParts> breakdown_values(const models::RankBreakdown& b) {
  return {finite(b.compute_s), finite(b.interference_s), finite(b.exposed_comm_s), finite(b.host_s),
          finite(b.bubble_s),  finite(b.barrier_wait_s), finite(b.other_s)};
}

}  // namespace viz::charts

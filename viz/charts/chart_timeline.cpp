// Gantt timeline of one step: a row per rank and stream (compute, comm, offload), collectives
// labelled with op and size. Beyond kMaxTimelineRanks ranks, only the ranks with the least,
// median and most waiting are drawn (the straggler and the ones waiting on it are what a reader
// looks for), and spans narrower than a pixel are merged so the SVG stays small.
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

double wait_of(const models::RankResult& k) {
  const double v = k.exposed_comm_s + k.barrier_wait_s;
  return std::isfinite(v) ? v : 0;
}

int stream_order(const std::string& s) {
  if (s == "compute") return 0;
  if (s == "comm") return 1;
  if (s == "offload") return 2;
  return 3;
}

const char* event_color(const models::TimelineEvent& e) {
  if (!e.op.empty()) return op_color(e.op);
  if (e.stream == "compute") return kComputeColor;
  if (e.stream == "offload" || e.stream == "cpu") return kOffloadColor;  // host work
  return okabe_ito::kGrey;
}

// Dark fills get white text; light ones (sky blue, yellow, orange, grey) get near-black text.
const char* text_on(const char* fill) {
  const std::string f = fill;
  return (f == okabe_ito::kBlue || f == okabe_ito::kVermillion || f == okabe_ito::kBlack || f == okabe_ito::kGreen ||
          f == okabe_ito::kPurple)
             ? "#fff"
             : "#111";
}

std::string event_label(const models::TimelineEvent& e) {
  if (!e.name.empty()) return e.name;
  if (!e.op.empty()) return e.op + (e.bytes > 0 ? " " + fmt::bytes(static_cast<double>(e.bytes)) : "");
  return e.stream;
}

std::string short_label(const models::TimelineEvent& e) {
  static const std::map<std::string, std::string> kShort = {
      {"all_gather", "AG"}, {"reduce_scatter", "RS"}, {"all_reduce", "AR"}, {"broadcast", "BC"},
      {"reduce", "RD"},     {"alltoall", "A2A"},      {"sendrecv", "SR"}};
  auto it = kShort.find(e.op);
  return it == kShort.end() ? std::string() : it->second;
}

std::string tooltip(const models::TimelineEvent& e, double t0) {
  std::string t = "rank " + std::to_string(e.rank) + " · " + e.stream + "\n" + event_label(e);
  if (!e.op.empty()) {
    t += "\nop: " + e.op + ", " + fmt::bytes(static_cast<double>(e.bytes));
    if (!e.algo.empty()) t += ", " + e.algo + "/" + e.proto;
  }
  t += "\nstart " + fmt::seconds(e.start_s - t0) + ", duration " + fmt::seconds(e.end_s - e.start_s);
  return t;
}

}  // namespace

std::vector<TimelineRank> timeline_ranks(const models::RunResult& r) {
  std::vector<TimelineRank> out;
  if (r.ranks.empty()) {
    std::set<int> seen;
    for (const auto& e : r.timeline) seen.insert(e.rank);
    for (int k : seen) {
      if (static_cast<int>(out.size()) >= kMaxTimelineRanks) break;
      out.push_back({k, "rank " + std::to_string(k)});
    }
    return out;
  }
  if (static_cast<int>(r.ranks.size()) <= kMaxTimelineRanks) {
    for (const auto& k : r.ranks) out.push_back({k.rank, "rank " + std::to_string(k.rank)});
    return out;
  }
  // A run may record the timeline of a few ranks only (one per program and compute speed: models/run/
  // result_fill.hpp timeline_ranks): choose among those.
  std::set<int> recorded;
  for (const auto& e : r.timeline) recorded.insert(e.rank);
  std::vector<const models::RankResult*> order;
  for (const auto& k : r.ranks)
    if (recorded.empty() || recorded.count(k.rank)) order.push_back(&k);
  if (order.empty()) return out;
  if (order.size() <= 3) {
    for (const auto* k : order) out.push_back({k->rank, "rank " + std::to_string(k->rank)});
    return out;
  }
  std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return wait_of(*a) < wait_of(*b); });
  const struct {
    const models::RankResult* k;
    const char* what;
  } picks[] = {{order.front(), "least wait"}, {order[order.size() / 2], "median wait"}, {order.back(), "most wait"}};
  std::set<int> used;
  for (const auto& p : picks)
    if (used.insert(p.k->rank).second) out.push_back({p.k->rank, "rank " + std::to_string(p.k->rank) + " · " + p.what});
  return out;
}

// Spans under 2 px that alternate colours (a compute stream interleaving its kernels with the
// tensor-parallel collectives it launches, every few hundred microseconds over a 17 s step) merge
// by colour only where one colour runs on; drawn one each they are tens of thousands of slivers,
// megabytes of SVG that render as a hatch. A run of them up to kMixedBlockPx wide is drawn as
// one block split into bands by each colour's share of the busy time: the mix stays visible at
// the resolution the chart has.
constexpr double kMixedBlockPx = 8;

template <typename Scale>
double width_px(const Scale& x, const models::TimelineEvent* e, double t0) {
  return x(e->end_s - t0) - x(e->start_s - t0);
}

// The end of the run of narrow back-to-back spans starting at i, if they hold two colours or
// more; i (no run) otherwise.
template <typename Scale>
size_t mixed_run_end(const std::vector<const models::TimelineEvent*>& events, size_t i, const Scale& x, double t0) {
  if (width_px(x, events[i], t0) >= 2) return i;
  const double x0 = x(events[i]->start_s - t0);
  double x1 = x(events[i]->end_s - t0);
  bool mixed = false;
  size_t j = i + 1;
  while (j < events.size() && width_px(x, events[j], t0) < 2 && x(events[j]->start_s - t0) <= x1 + 0.75 &&
         x(events[j]->end_s - t0) - x0 <= kMixedBlockPx) {
    mixed = mixed || std::string(event_color(*events[j])) != event_color(*events[i]);
    x1 = std::max(x1, x(events[j++]->end_s - t0));
  }
  return mixed ? j : i;
}

template <typename Scale>
void draw_mixed_block(svg::Writer& w, const std::vector<const models::TimelineEvent*>& events, size_t i, size_t j,
                      const Scale& x, double t0, double y, double h) {
  std::vector<std::pair<std::string, double>> busy;  // (colour, seconds), in order of appearance
  std::vector<std::string> names;
  double total = 0, x0 = x(events[i]->start_s - t0), x1 = x0;
  for (size_t k = i; k < j; ++k) {
    const auto* e = events[k];
    const std::string color = event_color(*e);
    auto it = std::find_if(busy.begin(), busy.end(), [&](const auto& b) { return b.first == color; });
    if (it == busy.end())
      busy.push_back({color, 0}), names.push_back(e->op.empty() ? e->stream : e->op), it = busy.end() - 1;
    it->second += e->end_s - e->start_s;
    total += e->end_s - e->start_s;
    x1 = std::max(x1, x(e->end_s - t0));
  }
  std::string tip = std::to_string(j - i) + " spans from " + fmt::seconds(events[i]->start_s - t0) + " to " +
                    fmt::seconds(events[j - 1]->end_s - t0) + ", too short to draw one by one:";
  for (size_t b = 0; b < busy.size(); ++b) tip += "\n" + names[b] + " " + fmt::seconds(busy[b].second) + " busy";
  double band_y = y;
  for (size_t b = 0; b < busy.size(); ++b) {
    const double band_h = total > 0 ? h * busy[b].second / total : h / static_cast<double>(busy.size());
    w.rect(x0, band_y, std::max(0.6, x1 - x0), band_h, busy[b].first, "ev ev-mixed", tip);
    band_y += band_h;
  }
}

bool timeline_of_iterations(const models::RunResult& r) {
  return !r.memory.estimated && r.steps > 1 && !r.timeline.empty() &&
         std::all_of(r.timeline.begin(), r.timeline.end(),
                     [](const models::TimelineEvent& e) { return !e.op.empty(); });
}

std::string timeline(const models::RunResult& r, const Shared& shared) {
  const std::vector<TimelineRank> shown = timeline_ranks(r);
  std::map<int, std::map<std::string, std::vector<const models::TimelineEvent*>>> rows;  // rank -> stream
  double t0 = INFINITY, t1 = -INFINITY;
  for (const auto& e : r.timeline) {
    if (!std::isfinite(e.start_s) || !std::isfinite(e.end_s)) continue;
    t0 = std::min(t0, e.start_s);
    t1 = std::max(t1, e.end_s);
  }
  if (!std::isfinite(t0)) t0 = 0, t1 = 0;
  std::set<int> shown_set;
  for (const auto& s : shown) shown_set.insert(s.rank);
  for (const auto& e : r.timeline)
    if (shown_set.count(e.rank) && std::isfinite(e.start_s) && std::isfinite(e.end_s))
      rows[e.rank][e.stream].push_back(&e);
  double span = std::max({t1 - t0, r.step_time_s, shared.step_time_max_s, 1e-9});
  const fmt::TimeUnit unit = fmt::time_unit(span);
  const std::vector<double> ticks = svg::linear_ticks(0, span * unit.per_s, 8);

  // Each rank opens with a header line of its own (its label, e.g. "rank 17 · median wait"), and its
  // stream rows follow, labelled left of the plot: the two labels never share a line, so they cannot
  // overprint however long the rank label is.
  const double W = shared.width, left = 78, right = 20, top_pad = 10, row_h = 20, rank_gap = 4, head_h = 16;
  const double plot_w = W - left - right;
  int nrows = 0;
  for (const auto& s : shown) nrows += std::max<size_t>(1, rows[s.rank].size());
  const double plot_h = nrows * row_h + static_cast<double>(shown.size()) * (rank_gap + head_h);
  // Legend: every colour that appears.
  std::vector<svg::LegendItem> legend;
  std::set<std::string> seen;
  for (const auto& e : r.timeline) {
    if (!shown_set.count(e.rank)) continue;
    const std::string key = e.op.empty() ? e.stream : e.op;
    if (seen.insert(key).second)
      legend.push_back(
          {e.op.empty() ? (e.stream == "compute" ? std::string("compute") : e.stream) : e.op, event_color(e)});
  }
  std::stable_sort(legend.begin(), legend.end(),
                   [](const auto& a, const auto& b) { return (a.label == "compute") > (b.label == "compute"); });
  const double legend_y = top_pad + plot_h + 46;
  if (legend.empty()) legend.push_back({"no timeline recorded", okabe_ito::kGrey});
  const double H = legend_y + svg::legend_height(plot_w, legend) + 8;
  // A bare collective's timeline holds all its iterations (the step is one iteration's mean).
  const bool iterations = timeline_of_iterations(r);
  svg::Writer w(W, H, "chart chart-timeline",
                iterations ? "Timeline of the " + std::to_string(r.steps) + " iterations, a row per rank and stream"
                           : std::string("Timeline of one step, a row per rank and stream"));
  const svg::Scale x{0, span, left, left + plot_w};
  for (double t : ticks) {
    const double px = x(t / unit.per_s);
    w.line(px, top_pad, px, top_pad + plot_h, "#ececec", 1);
    w.text(px, top_pad + plot_h + 15, fmt::fixed(t, t != std::floor(t) ? 1 : 0), {.size = 11, .anchor = "middle"});
  }
  w.text(left + plot_w / 2, top_pad + plot_h + 32,
         std::string(iterations ? "time since the first iteration's start (" : "time since step start (") + unit.name +
             ")",
         {.size = 12, .anchor = "middle", .css_class = "axis-title"});

  double y = top_pad;
  for (const auto& s : shown) {
    auto& streams = rows[s.rank];
    std::vector<std::string> names;
    for (const auto& [name, _] : streams) names.push_back(name);
    std::stable_sort(names.begin(), names.end(),
                     [](const auto& a, const auto& b) { return stream_order(a) < stream_order(b); });
    if (names.empty()) names.push_back("compute");
    w.text(8, y + 12, s.label, {.size = 12, .weight = "bold", .css_class = "rank-label"});
    y += head_h;
    for (const auto& stream : names) {
      w.open_group("timeline-row",
                   "data-rank=\"" + std::to_string(s.rank) + "\" data-stream=\"" + svg::esc(stream) + "\"");
      w.rect(left, y + 1, plot_w, row_h - 2, "#f6f6f6");
      w.text(left - 6, y + 14, stream, {.size = 11, .anchor = "end", .fill = "#555", .css_class = "stream-label"});
      auto events = streams[stream];
      std::stable_sort(events.begin(), events.end(), [](auto* a, auto* b) { return a->start_s < b->start_s; });
      // Merge runs of sub-2-pixel spans of one colour: at 1,024 ranks a row may hold thousands.
      for (size_t i = 0; i < events.size();) {
        const auto* e = events[i];
        double x0 = x(e->start_s - t0), x1 = x(e->end_s - t0);
        const char* color = event_color(*e);
        if (const size_t j = mixed_run_end(events, i, x, t0); j > i + 1) {
          draw_mixed_block(w, events, i, j, x, t0, y + 2, row_h - 4);
          i = j;
          continue;
        }
        size_t j = i + 1;
        // Back-to-back spans of one colour, each too narrow for a label (< 24 px), read as one block.
        auto narrow = [&](const models::TimelineEvent* ev) { return x(ev->end_s - t0) - x(ev->start_s - t0) < 24; };
        while (j < events.size() && narrow(e) && narrow(events[j]) && event_color(*events[j]) == std::string(color) &&
               x(events[j]->start_s - t0) <= x1 + 0.75)
          x1 = std::max(x1, x(events[j++]->end_s - t0));
        std::string tip = tooltip(*e, t0);
        if (j - i > 1) {
          double busy = 0;
          for (size_t k = i; k < j; ++k) busy += events[k]->end_s - events[k]->start_s;
          tip = std::to_string(j - i) + " back-to-back spans (" + (e->op.empty() ? e->stream : e->op) + "), " +
                fmt::seconds(busy) + " busy over " + fmt::seconds(events[j - 1]->end_s - e->start_s) +
                "\nfirst: " + tip;
        }
        w.rect(x0, y + 2, std::max(0.6, x1 - x0), row_h - 4, color, e->op.empty() ? "ev ev-compute" : "ev ev-coll",
               tip);
        if (j - i == 1) {
          const std::string full = event_label(*e), brief = short_label(*e);
          const double room = x1 - x0 - 6;
          std::string label = room >= 6.2 * full.size()                        ? full
                              : (!brief.empty() && room >= 6.5 * brief.size()) ? brief
                                                                               : "";
          if (!label.empty())
            w.text(x0 + 3, y + 14, label, {.size = 10.5, .fill = text_on(color), .css_class = "ev-label"});
        }
        i = j;
      }
      w.close_group();
      y += row_h;
    }
    y += rank_gap;
  }
  w.line(left, top_pad + plot_h, left + plot_w, top_pad + plot_h, "#444", 1);
  if (static_cast<int>(r.ranks.size()) > kMaxTimelineRanks)
    w.text(8, top_pad + plot_h + 32,  // the axis-title line: the tick labels' line starts at `left`
           "showing " + std::to_string(shown.size()) + " of " + fmt::count(static_cast<long long>(r.ranks.size())) +
               " ranks",
           {.size = 11, .fill = "#555"});
  svg::legend(w, left, legend_y, plot_w, legend);
  return w.finish();
}

}  // namespace viz::charts

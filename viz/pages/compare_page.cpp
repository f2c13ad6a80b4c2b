// The HTML page of several runs side by side (compare_html): ratios against the first, the
// headline bars, and each chart per run (report_parts.hpp). Inline CSS and SVG only.
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string_view>

#include "viz/charts/charts.hpp"
#include "viz/format.hpp"
#include "viz/pages/page.hpp"
#include "viz/pages/report_parts.hpp"
#include "viz/palette.hpp"
#include "viz/svg.hpp"
#include "viz/viz.hpp"

namespace viz {
namespace {

using svg::esc;
using namespace report_parts;

// "(NET/Libfabric/0/GDRDMA instead of P2P/CUMEM/read)": the most used transport of each run.
std::string transports_line(const models::RunResult& r, const models::RunResult& base) {
  auto top = [](const models::RunResult& x) {
    const models::TransportCount* best = nullptr;
    for (const auto& t : x.transports)
      if (!best || t.pairs > best->pairs) best = &t;
    return best ? best->label : std::string();
  };
  const std::string a = top(r), b = top(base);
  if (a.empty() || b.empty() || a == b) return "";
  return " — " + a + " instead of " + b;
}

// Titles often share a long prefix ("p4d: Llama-3-8B ZeRO-3 offload, "): label by what differs.
// A what-if of one file ("NAME" against "NAME [cluster.instance=p5en.48xlarge]", compare appending a
// column's overrides to its name) shares the whole of one title: that column is the one without
// overrides, so it says so; cutting it back to a word boundary would label it by its last word.
std::vector<std::string> distinct_titles(const std::vector<std::string>& titles) {
  size_t common = titles.empty() ? 0 : titles[0].size();
  for (const auto& t : titles) {
    size_t k = 0;
    while (k < common && k < t.size() && t[k] == titles[0][k]) ++k;
    common = k;
  }
  bool whole = false, overrides_only = true;  // some title is all prefix; the rest differ by " [k=v]"
  for (const auto& t : titles) {
    whole = whole || t.size() == common;
    if (t.size() > common) overrides_only = overrides_only && t.compare(common, 2, " [") == 0 && t.back() == ']';
  }
  std::vector<std::string> distinct;
  if (titles.size() > 1 && whole) {
    for (const auto& t : titles)
      distinct.push_back(!overrides_only ? t : t.size() == common ? "no overrides" : t.substr(common + 1));
    return distinct;
  }
  while (common > 0 && titles[0][common - 1] != ' ') --common;  // back to a word boundary
  for (const auto& t : titles) {
    const bool cut = common > 0 && common < t.size() && titles.size() > 1;
    distinct.push_back(cut ? t.substr(common) : t);
  }
  return distinct;
}

// Column labels for the charts: what differs in the titles, and the GPU count when the columns'
// counts differ (a what-if of cluster.nodes reads "p5 [cluster.nodes=4] (32 GPUs)", not "p5 ...").
std::vector<std::string> column_labels(const std::vector<models::RunResult>& results,
                                       const std::vector<std::string>& titles) {
  std::vector<std::string> labels = distinct_titles(titles);
  bool differ = false;
  for (const auto& r : results) differ = differ || r.gpus != results.front().gpus;
  for (size_t i = 0; differ && i < labels.size() && i < results.size(); ++i)
    labels[i] += " (" + std::to_string(results[i].gpus) + " GPU" + (results[i].gpus == 1 ? ")" : "s)");
  return labels;
}

// The headline bars' components: the mean rank's breakdown (models::RankBreakdown, adding up to the
// step); a hand-made result without one shows compute, exposed communication, barrier wait, offload.
std::array<double, charts::kBreakdownParts> parts_of(const models::RunResult& r) {
  if (r.step_breakdown.total() > 0) return charts::breakdown_values(r.step_breakdown);
  std::array<double, charts::kBreakdownParts> p{};
  p[0] = mean_of(r, &models::RankResult::compute_s);
  p[2] = mean_of(r, &models::RankResult::exposed_comm_s);
  p[3] = mean_of(r, &models::RankResult::offload_s);
  p[5] = mean_of(r, &models::RankResult::barrier_wait_s);
  return p;
}

// The headline's picture: one stacked bar per run (the mean rank's breakdown, which adds up to the
// step) on one scale, so the ratio above it is seen as well as read. Each bar is named above it, in
// full width: its number, what differs in its title and its layout line (GPUs, nodes, instance,
// parallel layout), so a slide of the bars alone says which is which; $ per run stands beside
// the step time where the price is known.
std::string headline_bars(const std::vector<models::RunResult>& results, const std::vector<std::string>& titles) {
  const double W = 1000, left = 10, right = 230, row = 50;
  double vmax = 0;
  for (const auto& r : results) vmax = std::max(vmax, std::isfinite(r.step_time_s) ? r.step_time_s : 0);
  if (vmax <= 0) vmax = 1;
  const auto& legend = charts::breakdown_parts();
  const std::vector<std::string> distinct = distinct_titles(titles);
  // The legend names only what some bar shows (an "offload" swatch on runs without offload
  // misleads), in short words, wrapped under the bars.
  struct Key {
    double x, y;
    size_t part;
  };
  std::vector<Key> keys;
  double lx = left, ly = 0;
  for (size_t k = 0; k < legend.size(); ++k) {
    bool present = false;
    for (const auto& r : results) present |= parts_of(r)[k] > 0;
    if (!present) continue;
    const double width = 30 + 7 * static_cast<double>(std::string_view(legend[k].short_name).size());
    if (lx + width > W && lx > left) lx = left, ly += 18;
    keys.push_back({lx, ly, k});
    lx += width;
  }
  const double bars_h = row * static_cast<double>(results.size());
  const double H = bars_h + 30 + ly;
  svg::Writer w(W, H, "headline-bars", "Step time of each layout, mean rank, on one scale");
  const svg::Scale x{0, vmax, left, W - right};
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    const double y = 4 + row * static_cast<double>(i);
    std::string name = "[" + std::to_string(i + 1) + "] " + distinct[i];
    std::string layout = !r.layout.empty() ? r.layout : std::to_string(r.gpus) + " GPU" + (r.gpus == 1 ? "" : "s");
    if (name.size() > 70) name = name.substr(0, 69) + "…";
    if (name.size() + layout.size() > 128) layout = layout.substr(0, 128 - std::min<size_t>(name.size(), 100)) + "…";
    w.text(left, y + 13, name + "  ·  " + layout, {.size = 13, .fill = "#fff", .css_class = "headline-label"});
    double acc = 0;
    const auto parts = parts_of(r);
    for (size_t k = 0; k < legend.size(); ++k) {
      const double part = parts[k];
      if (!(part > 0)) continue;
      w.rect(x(acc), y + 19, x(acc + part) - x(acc), row - 26, legend[k].color, "",
             std::string(legend[k].name) + ": " + fmt::seconds(part));
      acc += part;
    }
    const std::string cost = r.cost.known ? " · " + fmt::usd(r.cost.usd_per_run) + " per run" : "";
    w.text(x(std::max(acc, r.step_time_s)) + 8, y + 36, fmt::seconds(r.step_time_s) + cost,
           {.size = 14, .fill = "#fff", .weight = "bold", .css_class = "headline-value"});
  }
  for (const auto& key : keys) {
    const auto& it = legend[key.part];
    const double y = bars_h + 12 + key.y;
    w.rect(key.x, y, 11, 11, it.color);
    w.text(key.x + 16, y + 9.5, it.short_name, {.size = 12, .fill = "#d7e3ee", .css_class = "headline-legend"});
  }
  return w.finish();
}

// The ratio of what the runs cost, where both prices are known: per run, or per million tokens
// where the steps train different tokens (a run of another batch is not the same work). A time
// ratio alone would call a layout twice as fast and leave out that it costs more.
struct CostRatio {
  double ratio = NAN;
  std::string words;  // "$ per run: $34.99 M vs $30.62 M (dearer)"
};
CostRatio cost_ratio(const models::RunResult& r, const models::RunResult& base) {
  if (!r.cost.known || !base.cost.known) return {};
  const double tokens = r.throughput.tokens_per_step, base_tokens = base.throughput.tokens_per_step;
  const bool per_token = r.throughput.estimated && base.throughput.estimated && tokens > 0 && base_tokens > 0 &&
                         std::fabs(tokens - base_tokens) > 1e-9 * base_tokens;
  const double a = per_token ? r.cost.usd_per_million_tokens : r.cost.usd_per_run;
  const double b = per_token ? base.cost.usd_per_million_tokens : base.cost.usd_per_run;
  if (!(a > 0) || !(b > 0)) return {};
  const double ratio = a / b;
  return {ratio, std::string(per_token ? "$ per million tokens: " : "$ per run: ") + fmt::usd(a) + " vs " +
                     fmt::usd(b) +
                     (ratio > 1   ? " (dearer)"
                      : ratio < 1 ? " (cheaper)"
                                  : " (the same)")};
}

// Two ratios within 0.5 % of each other are one number: said once, large (a relative test:
// 0.00023 against 0.00057 differs, though both are under 0.005).
bool same_ratio(double a, double b) {
  return std::isfinite(a) && std::isfinite(b) && (a == b || (b != 0 && std::fabs(a / b - 1) < 0.005));
}

}  // namespace

std::string compare_html(const std::vector<models::RunResult>& results, const std::vector<ReportInputs>& inputs,
                         const std::vector<std::string>& within_error) {
  static const ReportInputs kEmpty;
  auto in_of = [&](size_t i) -> const ReportInputs& { return i < inputs.size() ? inputs[i] : kEmpty; };
  std::vector<std::string> titles;
  for (size_t i = 0; i < results.size(); ++i) titles.push_back(title_of(results[i], in_of(i), i));
  // Shared axes, so equal lengths mean equal times across columns.
  charts::Shared sh;
  for (const auto& r : results) {
    sh.step_time_max_s = std::max(sh.step_time_max_s, std::isfinite(r.step_time_s) ? r.step_time_s : 0);
    for (const auto& k : r.ranks)
      sh.step_time_max_s =
          std::max(sh.step_time_max_s, k.compute_s + k.exposed_comm_s + k.barrier_wait_s + k.offload_s);
  }
  for (size_t i = 0; i < results.size(); ++i)
    for (const auto& p : in_of(i).busbw)
      sh.busbw_max_bytes_per_s = std::max({sh.busbw_max_bytes_per_s, p.predicted_bytes_per_s, p.measured_bytes_per_s});

  // Columns of about 720 px on a 1,600 px screen: draw at that width so text is not shrunk.
  sh.width = results.size() <= 1 ? 900 : std::max(560.0, 1440.0 / static_cast<double>(results.size()));
  std::ostringstream o;
  std::string page_title = "commsim compare";
  for (size_t i = 0; i < titles.size(); ++i) page_title += (i ? " vs " : ": ") + titles[i];
  o << page::open(page_title, results.size() <= 1 ? 1180 : 1900) << "<header><h1>Comparison of " << results.size()
    << " layouts</h1><p class=\"sub\">commsim compare — the first column is the baseline</p></header>";
  if (results.size() >= 2) {
    const auto& base = results[0];
    o << "<section class=\"headline\" id=\"ratios\">";
    for (size_t i = 1; i < results.size(); ++i) {
      const auto& r = results[i];
      const double step_ratio = base.step_time_s > 0 ? r.step_time_s / base.step_time_s : NAN;
      const double run_ratio = base.run_time_s > 0 ? r.run_time_s / base.run_time_s : NAN;
      // The ratio is printed once, large, in its card; the line above says what is compared.
      o << "<p class=\"vs\"><b>" << esc(titles[i]) << "</b> vs <b>" << esc(titles[0]) << "</b>"
        << esc(transports_line(r, base)) << "</p>";
      // As the text says before its table: a what-if that changed the GPU count compares unlike runs.
      if (r.gpus != base.gpus)
        o << "<p class=\"gpu-note\">" << esc(titles[i]) << " runs on " << r.gpus << " GPU" << (r.gpus == 1 ? "" : "s")
          << ", the baseline on " << base.gpus << ": its ratios compare different GPU counts</p>";
      // A step of other work (another batch) is not a faster or slower step: say what one token costs.
      const double tokens = r.throughput.tokens_per_step, base_tokens = base.throughput.tokens_per_step;
      if (r.throughput.estimated && base.throughput.estimated && tokens > 0 && base_tokens > 0 &&
          std::fabs(tokens - base_tokens) > 1e-9 * base_tokens)
        o << "<p class=\"gpu-note\">" << esc(titles[i]) << " trains " << esc(fmt::count((long long)tokens))
          << " tokens a step, the baseline " << esc(fmt::count((long long)base_tokens))
          << ": its step does other work; "
          << "tokens/s " << esc(fmt::fixed(r.throughput.tokens_per_s / base.throughput.tokens_per_s, 2))
          << "× the baseline's</p>";
      if (i < within_error.size() && !within_error[i].empty())
        o << "<p class=\"gpu-note\">" << esc(within_error[i]) << "</p>";
      for (const auto* x : {&r, &base})  // a layout over its GPUs' memory is not an answer
        if (!x->fits())
          o << "<p class=\"gpu-note\">DOES NOT FIT: " << esc(titles[x == &r ? i : 0]) << " needs "
            << esc(fmt::bytes(x->memory.peak_bytes)) << " per GPU of " << esc(fmt::bytes(x->memory.capacity_bytes))
            << " (" << esc(x->memory.gpu) << ")</p>";
      o << "<div class=\"cards\">"
        << "<div><div class=\"ratio step-ratio\">" << esc(fmt::two_decimals(step_ratio))
        << "×</div><div class=\"lbl\">step time: " << esc(fmt::seconds(r.step_time_s)) << " vs "
        << esc(fmt::seconds(base.step_time_s))
        << (step_ratio > 1   ? " (slower)"
            : step_ratio < 1 ? " (faster)"
                             : " (the same)");
      // With equal step counts the run-time ratio is the step ratio again: say the times, not the
      // same number twice. It gets its own card only when it differs, by more than 0.5 % of it.
      // So does the cost ratio: at one price per hour it is the run-time ratio.
      const CostRatio cost = cost_ratio(r, base);
      const bool run_same = same_ratio(run_ratio, step_ratio);
      const bool cost_same = std::isfinite(cost.ratio) && same_ratio(cost.ratio, run_same ? step_ratio : run_ratio);
      if (run_same)
        o << "; run time " << esc(fmt::duration_hms(r.run_time_s)) << " vs " << esc(fmt::duration_hms(base.run_time_s))
          << (cost_same ? "; " + esc(cost.words) : "") << "</div></div>";
      else
        o << "</div></div><div><div class=\"ratio small run-ratio\">" << esc(fmt::two_decimals(run_ratio))
          << "×</div><div class=\"lbl\">run time: " << esc(fmt::duration_hms(r.run_time_s)) << " vs "
          << esc(fmt::duration_hms(base.run_time_s)) << (cost_same ? "; " + esc(cost.words) : "") << "</div></div>";
      if (std::isfinite(cost.ratio) && !cost_same)
        o << "<div><div class=\"ratio small cost-ratio\">" << esc(fmt::two_decimals(cost.ratio))
          << "×</div><div class=\"lbl\">" << esc(cost.words) << "</div></div>";
      o << "</div>";
    }
    o << "<div class=\"hbars\">" << headline_bars(results, titles) << "</div></section>";
  }
  const std::string cols = "style=\"grid-template-columns:repeat(" +
                           std::to_string(std::max<size_t>(1, results.size())) + ",minmax(0,1fr))\"";
  o << "<section id=\"scenario\"><h2>Scenarios</h2><div class=\"grid\" " << cols << ">";
  for (size_t i = 0; i < results.size(); ++i)
    o << "<div><h3>" << esc(titles[i]) << "</h3>" << scenario_block(results[i], in_of(i)) << notes_block(results[i])
      << "</div>";
  o << "</div>" << numbers_key() << "</section>";
  for (const auto& c : kCharts) {
    const std::string id = c.id;
    if (id == "busbw" && results.size() >= 2) {
      // One axis for every layout's curves (side-by-side panels hide a 2x gap behind two y scales).
      std::vector<BusBwPoint> all;
      const std::vector<std::string> names = column_labels(results, titles);
      for (size_t i = 0; i < results.size(); ++i)
        for (BusBwPoint p : in_of(i).busbw) {
          // Numbered as the columns are, so two scenarios of one name never merge into one curve.
          const std::string name = "[" + std::to_string(i + 1) + "] " + names[i];
          p.series = p.series.empty() ? name : name + " · " + p.series;
          all.push_back(std::move(p));
        }
      charts::Shared wide = sh;
      wide.width = 1100;
      o << "<section id=\"busbw\"><h2>" << c.heading << "</h2><p class=\"what\">" << c.what
        << " Every layout on one axis: one colour per layout, one dash per collective and group.</p>"
        << page::figure(charts::busbw(all, wide), "compare-busbw") << "</section>";
      continue;
    }
    o << "<section id=\"" << c.id << "\"><h2>" << c.heading << "</h2><p class=\"what\">" << c.what
      << (id == "ranks" || id == "timeline" ? " Time axes are shared across columns." : "")
      << "</p><div class=\"grid\" " << cols << ">";
    for (size_t i = 0; i < results.size(); ++i)
      o << "<div><h3>" << esc(titles[i]) << "</h3>"
        << page::figure(chart_svg(c.id, results[i], in_of(i), sh), page::slug(titles[i]) + "-" + c.id) << "</div>";
    o << "</div></section>";
  }
  o << page::close();
  return o.str();
}

}  // namespace viz

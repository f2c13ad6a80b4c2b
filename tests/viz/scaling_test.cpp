// The sweep page's scaling charts (viz/charts/chart_scaling.cpp, viz/pages/sweep_page.cpp) on hand-made points:
// scaling efficiency in closed form, one line per series, the linear-scaling line, points that do
// not fit marked, failed points said in words, and the table's columns explained.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "viz/charts/charts.hpp"
#include "viz/viz.hpp"

namespace {
size_t count_in(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + needle.size())) ++n;
  return n;
}

viz::ScalingPoint point(const std::string& x, const std::string& series, int gpus, double tokens_per_s, double step_s) {
  viz::ScalingPoint p;
  p.x = x;
  p.series = series;
  p.ok = true;
  p.gpus = gpus;
  p.tokens_per_s = tokens_per_s;
  p.step_time_s = step_s;
  p.mfu = 0.4;
  p.breakdown.compute_s = 0.6 * step_s;
  p.breakdown.exposed_comm_s = 0.3 * step_s;
  p.breakdown.barrier_wait_s = 0.1 * step_s;
  return p;
}

// 1, 2, 4 nodes of 8 GPUs: tokens/s 1,000, 1,800, 3,200 -> efficiency 1, 0.9, 0.8.
std::vector<viz::ScalingPoint> nodes_sweep() {
  return {point("1", "", 8, 1000, 1.0), point("2", "", 16, 1800, 1.1), point("4", "", 32, 3200, 1.25)};
}
}  // namespace

TEST_CASE("viz: scaling efficiency is tokens/s per GPU over the series' first point", "[viz]") {
  const auto eff = viz::charts::scaling_efficiencies(nodes_sweep());
  REQUIRE(eff.size() == 3);
  CHECK(eff[0] == Approx(1.0));
  CHECK(eff[1] == Approx(0.9));  // (1800 / 16) / (1000 / 8)
  CHECK(eff[2] == Approx(0.8));  // (3200 / 32) / (1000 / 8)

  // Two series (the second --vary key) each against their own first point, interleaved as a sweep
  // writes them (first key slowest); a failed point and one without throughput get 0.
  std::vector<viz::ScalingPoint> two = {point("1", "tp=1", 8, 1000, 1), point("1", "tp=2", 8, 500, 2),
                                        point("2", "tp=1", 16, 1500, 1), point("2", "tp=2", 16, 1000, 2)};
  two.push_back(point("4", "tp=1", 32, 0, 1));
  viz::ScalingPoint failed;
  failed.x = "4";
  failed.series = "tp=2";
  failed.error = "tp=2 does not divide 3 heads";
  two.push_back(failed);
  const auto e2 = viz::charts::scaling_efficiencies(two);
  CHECK(e2[0] == Approx(1.0));
  CHECK(e2[1] == Approx(1.0));
  CHECK(e2[2] == Approx(0.75));
  CHECK(e2[3] == Approx(1.0));
  CHECK(e2[4] == 0);
  CHECK(e2[5] == 0);
}

TEST_CASE("viz: the throughput chart draws each series with its linear-scaling line", "[viz]") {
  const std::string svg = viz::charts::scaling_throughput(nodes_sweep(), "cluster.nodes");
  CHECK(count_in(svg, "class=\"scaling-series\"") == 1);
  CHECK(count_in(svg, "class=\"scaling-throughput\"") == 1);
  CHECK(count_in(svg, "class=\"scaling-ideal\"") == 1);
  CHECK(count_in(svg, "class=\"scaling-point\"") == 3);
  CHECK(svg.find("cluster.nodes") != std::string::npos);  // the x axis is the first --vary key
  CHECK(svg.find("linear scaling") != std::string::npos);
  CHECK(svg.find("scaling efficiency 90%") != std::string::npos);  // the tooltip of the 2-node point
  CHECK(svg.find("scaling-oom") == std::string::npos);

  auto over = nodes_sweep();
  over[2].fits = false;
  const std::string oom = viz::charts::scaling_throughput(over, "cluster.nodes");
  CHECK(count_in(oom, "scaling-oom") == 1);
  CHECK(oom.find("does not fit in GPU memory") != std::string::npos);

  // A bare collective has no tokens: the chart says so instead of drawing a flat line at zero.
  auto bare = nodes_sweep();
  for (auto& p : bare) p.tokens_per_s = 0;
  const std::string none = viz::charts::scaling_throughput(bare, "cluster.nodes");
  CHECK(none.find("no throughput") != std::string::npos);
  CHECK(count_in(none, "class=\"scaling-point\"") == 0);
}

TEST_CASE("viz: the efficiency chart marks 100 % and writes each point's efficiency", "[viz]") {
  const std::string svg = viz::charts::scaling_efficiency(nodes_sweep(), "cluster.nodes");
  CHECK(count_in(svg, "scaling-linear") == 1);
  CHECK(count_in(svg, "class=\"scaling-point\"") == 3);
  CHECK(count_in(svg, "scaling-value") == 3);
  CHECK(svg.find(">90%<") != std::string::npos);  // not a tick (ticks step by 20 %)
  CHECK(svg.find("does not fit in GPU memory") == std::string::npos);
  // A point over its GPUs' memory gets a ring, and the legend names it.
  auto over = nodes_sweep();
  over[2].fits = false;
  const std::string oom = viz::charts::scaling_efficiency(over, "cluster.nodes");
  CHECK(oom.find("scaling-oom") != std::string::npos);
  CHECK(oom.find("does not fit in GPU memory") != std::string::npos);
}

TEST_CASE("viz: the sweep's breakdown bars add up to each point's step and failures are said", "[viz]") {
  auto pts = nodes_sweep();
  viz::ScalingPoint failed;
  failed.x = "8";
  failed.error = "does not divide";
  pts.push_back(failed);
  const std::string svg = viz::charts::scaling_breakdown(pts);
  CHECK(count_in(svg, "class=\"scaling-bar\"") == 3);
  CHECK(count_in(svg, "seg seg-compute") == 3);
  CHECK(count_in(svg, "seg seg-exposed") == 3);
  CHECK(count_in(svg, "seg seg-bubble") == 0);  // absent parts are neither drawn nor in the legend
  CHECK(svg.find("pipeline bubble") == std::string::npos);
  CHECK(svg.find("failed: does not divide") != std::string::npos);
}

TEST_CASE("viz: the sweep page holds three charts, the points and each column explained", "[viz]") {
  viz::SweepReport s{"p4d x N", "a.toml", "cluster.nodes", {{"--vary", "cluster.nodes=1,2,4"}}, nodes_sweep()};
  const std::string html = viz::sweep_html(s);
  for (const char* chart : {"chart-scaling-throughput", "chart-scaling-efficiency", "chart-scaling-breakdown"})
    CHECK(html.find(chart) != std::string::npos);
  CHECK(count_in(html, "class=\"svg-download\"") == 3);
  CHECK(count_in(html, "class=\"point-row\"") == 3);
  for (const char* col :
       {"<b>GPUs</b>", "<b>step time</b>", "<b>tokens/s</b>", "<b>efficiency</b>", "<b>MFU</b>", "<b>fits</b>"})
    CHECK(html.find(col) != std::string::npos);
  CHECK(html.find("cluster.nodes=1,2,4") != std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
  // Nothing fetched: no address but the SVG namespace.
  std::string rest = html;
  for (size_t at; (at = rest.find("http://www.w3.org/2000/svg")) != std::string::npos;) rest.erase(at, 26);
  for (size_t at; (at = rest.find("data:image/svg+xml;base64,")) != std::string::npos;)
    rest.erase(at, rest.find('"', at) - at);
  CHECK(rest.find("http") == std::string::npos);
}

TEST_CASE("viz: the sweep page puts $ beside the time where the points have a price", "[viz]") {
  auto points = nodes_sweep();
  const double per_run[] = {30.62e6, 31.5e6, 33.9e6};
  for (size_t i = 0; i < points.size(); ++i)
    points[i].usd_per_run = per_run[i], points[i].usd_per_million_tokens = 2.04 + i;
  const viz::SweepReport s{"70B", "a.toml", "cluster.nodes", {}, points};
  const std::string html = viz::sweep_html(s);
  CHECK(html.find("<th>$ per run</th><th>$ / M tokens</th>") != std::string::npos);
  CHECK(html.find("<td class=\"usd\">$30.62 M</td><td class=\"usd\">$2.04</td>") != std::string::npos);
  CHECK(html.find("<b>$ per run</b>") != std::string::npos);
  // The breakdown bars end with the step and its $ per run.
  CHECK(viz::charts::scaling_breakdown(points).find("1.25 s · $33.90 M") != std::string::npos);
  // A part of the step zero at every point gets no column; one some point has keeps it.
  CHECK(html.find("<th>barrier wait</th>") != std::string::npos);
  CHECK(html.find("<th>pipeline bubble</th>") == std::string::npos);
  CHECK(html.find("class=\"table-scroll\"") != std::string::npos);
  // Without a price, no $ column (and no empty one).
  const std::string unpriced = viz::sweep_html({"70B", "a.toml", "cluster.nodes", {}, nodes_sweep()});
  CHECK(unpriced.find("$ per run") == std::string::npos);
}

TEST_CASE("viz: the sweep's x axis gives each value's GPUs and says it is not to scale", "[viz]") {
  const std::string svg = viz::charts::scaling_throughput(nodes_sweep(), "cluster.nodes");
  for (const char* g : {">8 GPUs<", ">16 GPUs<", ">32 GPUs<"}) CHECK(svg.find(g) != std::string::npos);
  CHECK(svg.find("cluster.nodes (values as swept, evenly spaced: not to scale)") != std::string::npos);
  // A value whose series run on different GPU counts gets no single count.
  auto mixed = nodes_sweep();
  mixed.push_back(point("1", "parallel.tp=2", 16, 900, 1.0));
  const std::string m = viz::charts::scaling_efficiency(mixed, "cluster.nodes");
  CHECK(m.find(">8 GPUs<") == std::string::npos);
  CHECK(m.find(">16 GPUs<") != std::string::npos);  // the value "2": 16 GPUs in its one series
}

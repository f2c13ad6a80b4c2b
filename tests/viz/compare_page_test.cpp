// The compare page (viz::compare_html), checked on its HTML with hand-made results
// (tests/viz/fixtures.hpp): the ratio cards on top (step, run time, cost), the headline bars (each
// the mean rank's breakdown, named by what differs and its layout), and no NaN.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "tests/viz/fixtures.hpp"
#include "tests/viz/html_checks.hpp"
#include "viz/format.hpp"
#include "viz/viz.hpp"

using viz_test::count_of;
using viz_test::has_non_finite;

TEST_CASE("viz: comparison page puts the step and run time ratios on top", "[viz]") {
  const auto a = viz_test::make_run(viz_test::one_pod_four_gpus());
  const auto b = viz_test::make_run(viz_test::four_pods_one_gpu());
  const std::string html = viz::compare_html({a, b}, {viz_test::inputs_for(viz_test::one_pod_four_gpus(), true),
                                                      viz_test::inputs_for(viz_test::four_pods_one_gpu(), false)});
  // Ratio = step(B) / step(A), printed with two decimals before the charts.
  const std::string ratio = viz::fmt::fixed(b.step_time_s / a.step_time_s, 2) + "×";
  const size_t at = html.find("class=\"ratio step-ratio\">" + ratio);
  REQUIRE(at != std::string::npos);
  CHECK(at < html.find("<svg"));
  // Same number of steps: the run-time ratio equals the step ratio and is not printed a second time.
  REQUIRE(a.steps == b.steps);
  CHECK(count_of(html, ">" + ratio + "<") == 1);
  CHECK(html.find("run-ratio") == std::string::npos);
  CHECK(html.find("; run time ") != std::string::npos);
  // Four charts per column, and one bus-bandwidth chart with every layout on one axis.
  CHECK(count_of(html, "class=\"chart chart-") == 9);
  CHECK(count_of(html, "class=\"chart chart-busbw\"") == 1);
  CHECK(count_of(html, "class=\"busbw-series\"") == 4);  // 2 layouts x 2 collectives
  // Each chart can be saved as SVG.
  CHECK(count_of(html, "class=\"svg-download\"") == 9);
  CHECK(count_of(html, "class=\"headline-bars\"") == 1);
  CHECK(b.step_time_s > a.step_time_s);  // EFA between pods is slower than NVLink inside one
  CHECK_FALSE(has_non_finite(html));
}

TEST_CASE("viz: a different step count gives the run-time ratio its own card", "[viz]") {
  auto a = viz_test::make_run(viz_test::one_pod_four_gpus());
  auto b = viz_test::make_run(viz_test::four_pods_one_gpu());
  b.steps = a.steps * 2;
  b.run_time_s = b.step_time_s * b.steps;
  const std::string html = viz::compare_html({a, b}, {});
  CHECK(html.find("class=\"ratio small run-ratio\">" + viz::fmt::fixed(b.run_time_s / a.run_time_s, 2) + "×") !=
        std::string::npos);
}

TEST_CASE("viz: the headline legend names only the components some layout has", "[viz]") {
  auto a = viz_test::make_run(viz_test::one_pod_four_gpus());
  auto b = viz_test::make_run(viz_test::four_pods_one_gpu());
  for (auto* r : {&a, &b})
    for (auto& k : r->ranks) k.offload_s = 0, k.barrier_wait_s = 0;
  const std::string html = viz::compare_html({a, b}, {});
  const std::string bars = html.substr(html.find("class=\"headline-bars\""));
  const std::string head = bars.substr(0, bars.find("</svg>"));
  CHECK(head.find(">compute</text>") != std::string::npos);
  CHECK(head.find(">host work (CPU offload)</text>") == std::string::npos);
  CHECK(head.find(">barrier wait</text>") == std::string::npos);
}

TEST_CASE("viz: the headline bars are the mean rank's breakdown, adding up to the step", "[viz]") {
  // A pipeline layout against a ZeRO-Offload one: bubble and interference in one, host work in the other.
  std::vector<models::RunResult> runs(2);
  runs[0].scenario = "tp8 pp4";
  runs[0].step_breakdown = {2.0, 0.25, 0.5, 0.0, 1.25, 0.0, 0.0};
  runs[1].scenario = "zero3 offload";
  runs[1].step_breakdown = {2.0, 0.0, 0.25, 11.0, 0.0, 0.0, 0.0};
  for (auto& r : runs) {
    r.step_time_s = r.run_time_s = r.step_breakdown.total();
    models::RankResult k;
    k.breakdown = r.step_breakdown;
    r.ranks.push_back(k);
  }
  const std::string html = viz::compare_html(runs, {});
  const std::string bars = html.substr(html.find("class=\"headline-bars\""));
  const std::string head = bars.substr(0, bars.find("</svg>"));
  for (const char* part :
       {"compute", "interference", "exposed communication", "host work (CPU offload)", "pipeline bubble"})
    CHECK(head.find(std::string("class=\"headline-legend\">") + part + "</text>") != std::string::npos);
  for (const char* absent : {"barrier wait", "other"})
    CHECK(head.find(std::string("class=\"headline-legend\">") + absent + "</text>") == std::string::npos);
  CHECK(head.find("<title>pipeline bubble: 1.25 s</title>") != std::string::npos);
  CHECK(head.find("<title>host work the GPU waits for (CPU offload): 11.0 s</title>") != std::string::npos);
  CHECK(count_of(head, "</title></rect>") == 4 + 3);  // the bars' segments (with tooltips): 4 and 3
}

TEST_CASE("viz: a ratio under 0.01 keeps two significant digits, and a run ratio that differs gets its card", "[viz]") {
  CHECK(viz::fmt::two_decimals(0.00057) == "0.00057");
  CHECK(viz::fmt::two_decimals(0.0038) == "0.0038");
  CHECK(viz::fmt::two_decimals(0.57) == "0.57");
  CHECK(viz::fmt::two_decimals(0) == "0.00");
  // A rate a day keeps two significant digits below 1, as run prints it: 0.0152 and 0.0227 are not both "0.02".
  CHECK(viz::fmt::per_day(0.0152) == "0.015");
  CHECK(viz::fmt::per_day(0.0227) == "0.023");
  CHECK(viz::fmt::per_day(1.5) == "1.50");
  CHECK(viz::fmt::per_day(0) == "0.00");
  CHECK(viz::fmt::usd(0.0982) == "$0.0982");
  CHECK(viz::fmt::usd(4.9097) == "$4.91");
  // Thousands grouped below a million, which reads "M".
  CHECK(viz::fmt::usd(14180) == "$14,180");
  CHECK(viz::fmt::usd(178334.4) == "$178,334");
  CHECK(viz::fmt::usd(1000) == "$1,000");
  CHECK(viz::fmt::usd(999999.7) == "$1.00 M");
  CHECK(viz::fmt::usd(2.56e6) == "$2.56 M");
  auto a = viz_test::make_run(viz_test::one_pod_four_gpus());
  auto b = viz_test::make_run(viz_test::one_pod_four_gpus());
  // 4.56 ms against 8.00 s a step (x0.00057); run time 0.00023 of the baseline's (other step counts).
  a.step_time_s = 8.0;
  a.run_time_s = 8.0 * 50;
  b.step_time_s = 4.56e-3;
  b.steps = 20;
  b.run_time_s = 4.56e-3 * 20;
  const std::string html = viz::compare_html({a, b}, {});
  CHECK(html.find("class=\"ratio step-ratio\">0.00057×") != std::string::npos);
  CHECK(html.find("class=\"ratio small run-ratio\">0.00023×") != std::string::npos);
  CHECK(html.find(">0.00×") == std::string::npos);
}

namespace {
// A what-if of one file: compare appends each column's overrides to the scenario's name.
std::vector<models::RunResult> what_if_runs() {
  std::vector<models::RunResult> runs;
  const char* suffixes[] = {"", " [cluster.instance=p5en.48xlarge]", " [cluster.instance=p6-b200.48xlarge]"};
  const char* instances[] = {"p5.48xlarge", "p5en.48xlarge", "p6-b200.48xlarge"};
  const double steps[] = {17.5, 17.39, 8.794}, per_hour[] = {3523, 4051, 7292};
  for (int i = 0; i < 3; ++i) {
    auto r = viz_test::make_run(viz_test::one_pod_four_gpus());
    r.scenario = std::string("Llama-3-70B, 15 T tokens: what to run, on what, at what cost") + suffixes[i];
    r.layout = std::string("512 GPUs: 64 nodes ") + instances[i] + ", 64 pods x 8 GPUs; megatron tp 8 pp 4 dp 16";
    r.step_time_s = steps[i];
    r.run_time_s = steps[i] * r.steps;
    r.cost.known = true;
    r.cost.usd_per_hour = per_hour[i];
    r.cost.usd_per_run = per_hour[i] * r.run_time_s / 3600;
    runs.push_back(r);
  }
  return runs;
}
std::string headline_of(const std::string& html) {
  const std::string bars = html.substr(html.find("class=\"headline-bars\""));
  return bars.substr(0, bars.find("</svg>"));
}
}  // namespace

TEST_CASE("viz: the headline bars of a what-if name each column by its overrides and its layout", "[viz]") {
  std::vector<viz::ReportInputs> inputs(3, viz_test::inputs_for(viz_test::one_pod_four_gpus(), false));
  for (auto& in : inputs) in.title.clear();  // the columns' own names, as compare gives them
  const std::string html = viz::compare_html(what_if_runs(), inputs);
  const std::string head = headline_of(html);
  // Not "cost" (the last word of the shared name) and not cut on the left: number, what differs,
  // then the layout line with the GPU count.
  CHECK(head.find(">[1] no overrides  ·  512 GPUs: 64 nodes p5.48xlarge,") != std::string::npos);
  CHECK(head.find(">[2] [cluster.instance=p5en.48xlarge]  ·  512 GPUs: 64 nodes p5en.48xlarge,") != std::string::npos);
  CHECK(head.find(">[3] [cluster.instance=p6-b200.48xlarge]  ·  512 GPUs: 64 nodes p6-b200.48xlarge,") !=
        std::string::npos);
  CHECK(head.find(">cost") == std::string::npos);
  // Labels start at the left edge of the chart, above their bars (text-anchor start, not end).
  CHECK(count_of(head, "class=\"headline-label\"") == 3);
  CHECK(head.find("text-anchor=\"end\"") == std::string::npos);
  // The bus bandwidth legend numbers the columns the same way.
  CHECK(html.find("[1] no overrides · ") != std::string::npos);
  CHECK(html.find("[1] cost") == std::string::npos);
}

TEST_CASE("viz: the compare headline puts the cost ratio beside the time ratio where prices are known", "[viz]") {
  const auto runs = what_if_runs();
  const std::string html = viz::compare_html(runs, {});
  // p6-b200: half the time, but dearer per run; the card says both.
  const double ratio = runs[2].cost.usd_per_run / runs[0].cost.usd_per_run;
  REQUIRE(ratio > 1);
  CHECK(html.find("class=\"ratio small cost-ratio\">" + viz::fmt::fixed(ratio, 2) +
                  "×</div><div class=\"lbl\">$ per run: " + viz::fmt::usd(runs[2].cost.usd_per_run) + " vs " +
                  viz::fmt::usd(runs[0].cost.usd_per_run) + " (dearer)") != std::string::npos);
  CHECK(count_of(html, "class=\"ratio small cost-ratio\"") == 2);
  // $ per run beside each bar's step time.
  CHECK(headline_of(html).find(viz::fmt::seconds(runs[2].step_time_s) + " · " +
                               viz::fmt::usd(runs[2].cost.usd_per_run) + " per run") != std::string::npos);
  // Without a price for one column, no cost card and no $ in its bar.
  auto unpriced = runs;
  unpriced[1].cost.known = false;
  const std::string without = viz::compare_html({unpriced[0], unpriced[1]}, {});
  CHECK(without.find("cost-ratio") == std::string::npos);
  CHECK(without.find("$ per run:") == std::string::npos);
  // At one price per hour the cost ratio is the time ratio: said in words, not a second big number.
  auto same_price = runs;
  same_price[1].cost.usd_per_run = same_price[0].cost.usd_per_run * same_price[1].run_time_s / same_price[0].run_time_s;
  const std::string once = viz::compare_html({same_price[0], same_price[1]}, {});
  CHECK(once.find("cost-ratio") == std::string::npos);
  CHECK(once.find("; $ per run: " + viz::fmt::usd(same_price[1].cost.usd_per_run) + " vs ") != std::string::npos);
}

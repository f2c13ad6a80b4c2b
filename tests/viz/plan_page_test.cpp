// The plan page's ranked table on hand-made rows: times and dollars with the text's fixed
// decimals, so a column never mixes "42 d" with "41.6 d", and a layout cell that wraps rather
// than pushing the table out of its card.
#include <catch2/catch.hpp>
#include <string>

#include "viz/viz.hpp"

namespace {
viz::PlanPoint row(int rank, double days, double usd) {
  viz::PlanPoint p;
  p.rank = rank;
  p.layout = "megatron tp4 pp4 vp4 cp2 dp64 sp dist-opt mb2";
  p.hardware = "256 x p6-b200.48xlarge";
  p.gpus = 2048;
  p.train_s = days * 86400;
  p.goodput = 0.984;
  p.cost_usd = usd;
  p.tokens_per_s = 4.2e6;
  p.mfu = 0.439;
  p.pricing = "on-demand";
  p.headroom = "97.39 GB";
  return p;
}
}  // namespace

TEST_CASE("viz: the plan table prints days and dollars with the text's fixed decimals", "[viz]") {
  viz::PlanReport p;
  p.title = "70B";
  p.points = {row(1, 41.6, 29.15e6), row(2, 42.0, 30.2e6), row(3, 1.5, 45600)};
  const std::string html = viz::plan_html(p);
  CHECK(html.find("<td>42.0 d</td>") != std::string::npos);
  CHECK(html.find("<td>$30.20 M</td>") != std::string::npos);
  CHECK(html.find("<td>41.6 d</td>") != std::string::npos);
  CHECK(html.find("<td>36.0 h</td>") != std::string::npos);  // 1.5 days: hours, as the text prints them
  CHECK(html.find("<td>$45,600</td>") != std::string::npos);  // viz::fmt::usd, as the text
  CHECK(html.find("<td>42 d</td>") == std::string::npos);
  // The layout column wraps inside the card.
  CHECK(html.find("<td class=\"wrap\">megatron tp4 pp4 vp4 cp2 dp64 sp dist-opt mb2</td>") != std::string::npos);
  CHECK(html.find("table.points td.wrap") != std::string::npos);
}

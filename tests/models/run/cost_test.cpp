// What a run costs (models/run/cost.hpp): the price's precedence and the three figures.
#include <catch2/catch.hpp>

#include <cmath>

#include "models/hw/prices.hpp"
#include "models/run/cost.hpp"
#include "models/run/run.hpp"

namespace {
models::ScenarioSpec p4d_cost(int nodes) {
  models::ScenarioSpec s;
  s.cluster.instance = "p4d.24xlarge";
  s.cluster.nodes = nodes;
  return s;
}
}  // namespace

TEST_CASE("run: a node's price comes from the scenario, then the price file, then the catalog", "[models][run]") {
  auto s = p4d_cost(2);
  REQUIRE(models::hw::find_price("p4d.24xlarge"));
  CHECK(models::node_price(s, "p4d.24xlarge")->usd_per_hour == 21.957642);
  // The catalog's figure says how it is sold, where and when (models/hw/prices.cpp).
  CHECK(models::node_price(s, "p4d.24xlarge")->pricing == "on-demand");
  CHECK(models::node_price(s, "p4d.24xlarge")->source.find("catalog: on-demand, us-east-1, ") == 0);
  CHECK(models::node_price(s, "p5e.48xlarge")->pricing == "capacity block");
  CHECK(models::node_price(s, "p5e.48xlarge")->source.find("catalog: capacity block, ") == 0);
  s.cluster.prices["p4d.24xlarge"] = {20, "file:1:1"};
  CHECK(models::node_price(s, "p4d.24xlarge")->usd_per_hour == 20);
  CHECK(models::node_price(s, "p4d.24xlarge")->pricing == "given");
  s.cluster.price = models::PriceSpec{15, "scenario"};
  CHECK(models::node_price(s, "p4d.24xlarge")->usd_per_hour == 15);
  // The cluster: 2 nodes x $15.
  CHECK(models::cluster_price(s)->usd_per_hour == 30);
  // No price: nothing guessed, the instance named.
  auto t = p4d_cost(1);
  t.cluster.instance = "dgx-h100";
  std::string missing;
  CHECK(!models::cluster_price(t, &missing));
  CHECK(missing == "dgx-h100");
}

TEST_CASE("run: cost per step, run and million tokens from the step time", "[models][run]") {
  auto s = p4d_cost(4);
  models::RunResult r;
  r.step_time_s = 2;
  r.run_time_s = 200;
  r.throughput.estimated = true;
  r.throughput.tokens_per_step = 1e6;
  const auto c = models::make_cost(s, r);
  REQUIRE(c.known);
  // 4 x $21.957642/h = $87.830568/h; a 2 s step costs 87.830568 x 2 / 3600.
  CHECK(c.usd_per_hour == Approx(87.830568));
  CHECK(c.usd_per_step == Approx(87.830568 * 2 / 3600));
  CHECK(c.usd_per_run == Approx(87.830568 * 200 / 3600));
  CHECK(c.usd_per_million_tokens == Approx(87.830568 * 2 / 3600));
  CHECK(c.pricing == "on-demand");
}

TEST_CASE("run: training.tokens sets the run's steps", "[models][run]") {
  models::ScenarioSpec s = p4d_cost(1);
  s.training.tokens = 1e9;
  models::RunResult r;
  r.step_time_s = 1;
  r.throughput.estimated = true;
  r.throughput.tokens_per_step = 65536;
  models::apply_token_target(s, r);
  CHECK(r.steps == 15259);  // ceil(1e9 / 65,536)
  CHECK(r.run_time_s == 15259);
  CHECK(models::steps_for_tokens(65536, 65536) == 1);
}

// A Capacity Block is sold as a window paid up front: 1-day increments to 14 days, 7-day
// increments to 182 days, extended in 1-day increments (EC2 user guide): a run pays its whole days.
TEST_CASE("cost: a Capacity Block run pays its whole windows, an on-demand run its seconds", "[models]") {
  const std::string block = "capacity block";
  constexpr double kDay = 86400;
  CHECK(models::billed_seconds("on-demand", 1234.5) == 1234.5);
  CHECK(models::billed_seconds("given", 1234.5) == 1234.5);
  CHECK(models::billed_seconds(block, 60) == kDay);
  CHECK(models::billed_seconds(block, kDay) == kDay);
  CHECK(models::billed_seconds(block, kDay + 1) == 2 * kDay);
  CHECK(models::billed_seconds(block, 14 * kDay) == 14 * kDay);
  // Past 14 days a window is whole weeks, but a 1-day extension of it is sold too: a 15-day run
  // pays 15 days (14 and 1), a 27-day run 27 (21 and 6), not the 21 and 28 of whole weeks.
  CHECK(models::billed_seconds(block, 14.5 * kDay) == 15 * kDay);
  CHECK(models::billed_seconds(block, 26.2 * kDay) == 27 * kDay);
  CHECK(models::billed_seconds(block, 182 * kDay) == 182 * kDay);
  CHECK(models::billed_seconds(block, 183 * kDay) == 183 * kDay);  // 182, then a 1-day window
  CHECK(models::billed_seconds(block, 199.5 * kDay) == 200 * kDay);  // 182, 14 and 4
  // Never less than the run, and never decreasing as the run grows.
  double last = 0;
  for (double d = 0.1; d < 400; d += 0.7) {
    const double b = models::billed_seconds(block, d * kDay);
    CHECK(b >= d * kDay * (1 - 1e-12));
    CHECK(b < (d + 1) * kDay);  // never a day more than the run
    CHECK(b >= last);
    last = b;
  }
  // An expected wall time of millions of years (goodput with failures faster than checkpoints) is
  // counted in windows, not looped over: 1e6 windows of 182 days, then a 1-day one; infinity stays.
  CHECK(models::billed_seconds(block, (182e6 + 1) * kDay) == (182e6 + 1) * kDay);
  CHECK(models::billed_seconds(block, 1e300) >= 1e300);
  CHECK(std::isinf(models::billed_seconds(block, INFINITY)));
}

TEST_CASE("cost: a short run on a Capacity Block instance is billed one day, which its steps and tokens carry",
          "[models]") {
  models::ScenarioSpec s;
  s.cluster.instance = "p5e.48xlarge";
  s.model = models::ModelSpec{};
  s.model->preset = "sc21-1.7b";
  s.model->seq = 1024;
  s.training.steps = 10;
  s.parallel.strategy = "fsdp";
  const models::RunResult r = models::run_scenario(s, {});
  REQUIRE(r.cost.known);
  REQUIRE(r.cost.pricing == "capacity block");
  CHECK(r.cost.billed_s == 86400);
  CHECK(r.cost.usd_per_run == Approx(r.cost.usd_per_hour * 24));
  // $ per step and per million tokens agree with $ per run: the day spread over 10 steps, far
  // above the step's seconds at the hourly rate.
  CHECK(r.cost.usd_per_step == Approx(r.cost.usd_per_run / 10));
  CHECK(r.cost.usd_per_step > 100 * r.step_time_s * r.cost.usd_per_hour / 3600);
  CHECK(r.cost.usd_per_million_tokens == Approx(r.cost.usd_per_run / (10 * r.throughput.tokens_per_step) * 1e6));
  CHECK(r.goodput.work_cost == Approx(r.cost.usd_per_run));
}

// Azure sells its GB200 NVL72 rack per VM of 4 GPUs (hw::InstancePrice::unit_gpus): a run on 64
// of the 72 GPUs pays 16 of the 18 VMs, where a node sold whole (AWS's UltraServer) is paid whole.
TEST_CASE("cost: a node sold in units pays the units its used GPUs need, a node sold whole all of it", "[models]") {
  models::ScenarioSpec s;
  s.cluster.instance = "nd-gb200-v6-nvl72";
  s.cluster.nodes = 2;
  s.placement.gpus_per_pod = 64;
  const auto* vm = models::hw::find_price("nd-gb200-v6-nvl72");
  REQUIRE(vm);
  REQUIRE(vm->unit_gpus == 4);
  auto price = models::cluster_price(s);
  REQUIRE(price);
  CHECK(price->usd_per_hour == Approx(2 * vm->usd_per_hour * 16 / 18));
  CHECK(price->gpus == 2 * 64);
  CHECK(price->source.find("16 of 18 units of 4 GPUs billed per node") != std::string::npos);
  // 62 GPUs still need 16 VMs (ceil(62 / 4)); the whole rack, all 18.
  s.placement.gpus_per_pod = 62;
  CHECK(models::cluster_price(s)->usd_per_hour == Approx(2 * vm->usd_per_hour * 16 / 18));
  s.placement.gpus_per_pod = 0;
  CHECK(models::cluster_price(s)->usd_per_hour == Approx(2 * vm->usd_per_hour));
  // AWS's UltraServer is sold whole: 64 GPUs pay for 72.
  s.cluster.instance = "u-p6e-gb200x72";
  s.placement.gpus_per_pod = 64;
  const auto* whole = models::hw::find_price("u-p6e-gb200x72");
  REQUIRE(whole);
  CHECK(whole->unit_gpus == 0);
  CHECK(models::cluster_price(s)->usd_per_hour == Approx(2 * whole->usd_per_hour));
  CHECK(models::billed_gpus_per_node(models::PriceSpec{1, "", "given", 4}, 72, 5) == 8);
  CHECK(models::billed_gpus_per_node(models::PriceSpec{1, "", "given", 0}, 8, 4) == 8);
}

// A mixed cluster bills each group under its own pricing: the Capacity Block group its windows,
// the on-demand group its seconds (not the whole cluster by the second).
TEST_CASE("cost: a mixed cluster bills its Capacity Block nodes by whole windows, the rest by the second", "[models]") {
  models::ScenarioSpec s;
  s.cluster.groups = {{"p5.48xlarge", 2}, {"p5e.48xlarge", 2}};
  s.cluster.instance = "p5.48xlarge";
  s.cluster.nodes = 4;
  models::RunResult r;
  r.step_time_s = 1;
  r.run_time_s = 60;
  const auto c = models::make_cost(s, r);
  REQUIRE(c.known);
  CHECK(c.pricing == "mixed");
  const double p5 = models::hw::find_price("p5.48xlarge")->usd_per_hour;
  const double p5e = models::hw::find_price("p5e.48xlarge")->usd_per_hour;
  CHECK(c.usd_per_run == Approx(2 * p5 * 60 / 3600 + 2 * p5e * 24));
  CHECK(c.billed_s == Approx(c.usd_per_run * 3600 / c.usd_per_hour));
  CHECK(models::usd_for_seconds(c, 60) == Approx(c.usd_per_run));
}

// A price the user gave far from the catalog's (a per-GPU figure typed per node) is said, naming
// both figures; a discount within 3x is not.
TEST_CASE("cost: a given price more than 3x from the catalog's is said, a per-GPU figure named", "[models]") {
  models::ScenarioSpec s;
  s.cluster.instance = "p5.48xlarge";
  s.cluster.prices["p5.48xlarge"] = {4.4, "mine.toml:2:17"};
  const std::string caveat = models::price_caveat(s);
  CHECK(caveat.rfind("p5.48xlarge: the given $4.40 per node-hour (mine.toml:2:17) is 0.08 x the catalog's $55.04", 0) ==
        0);
  CHECK(caveat.find("a price per GPU-hour?") != std::string::npos);
  s.cluster.prices["p5.48xlarge"] = {25, "mine.toml:2:17"};  // a 55 % discount: plausible, silent
  CHECK(models::price_caveat(s).empty());
  s.cluster.prices.clear();  // the catalog's own: nothing to say
  CHECK(models::price_caveat(s).empty());
  // The scenario's per-GPU price wins over the file's: the file's figure is said not used.
  s.cluster.prices["p5.48xlarge"] = {30, "mine.toml:2:17"};
  s.cluster.params["price.gpu_hour"] = 5;
  CHECK(models::price_caveat(s) ==
        "p5.48xlarge: priced by cluster.params \"price.gpu_hour\" x 8 GPUs per node at $40.00 per node-hour; the price "
        "file's $30.00 (mine.toml:2:17) is not used");
}

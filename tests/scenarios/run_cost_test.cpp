// A run's price has one home (models/run/cost.hpp): the $ per run and the goodput's expected cost
// rest on the same price per hour, over the same steps (a training.tokens target included).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "models/run/run.hpp"
#include "scenarios/cli/output/result_format.hpp"
#include "scenarios/load/loader.hpp"
#include "tests/scenarios/command_runner.hpp"

namespace {
const std::string kSeedDir = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/seeds";
const std::string kSeedOfRunCost = kSeedDir + "/p4d_1pod_4gpu.toml";

// The seed with a token target in place of its step count.
scenarios::LoadedScenario seed_with_tokens(const std::string& tokens) {
  std::string text = scenarios_test::slurp(kSeedOfRunCost);
  const auto at = text.find("\nsteps = ");
  REQUIRE(at != std::string::npos);
  text.replace(at + 1, text.find('\n', at + 1) - at - 1, "tokens = " + tokens);
  return scenarios::load_scenario_text(text, kSeedOfRunCost, {}, kSeedDir);
}
}  // namespace

TEST_CASE("scenarios: the goodput's cost and the run's $ per run use one price over the same steps", "[scenarios]") {
  for (int variant = 0; variant < 4; ++variant) {
    INFO("variant " << variant
                    << ": the seed, with a token target, with a price per GPU-hour, past 2e9 steps of tokens");
    const std::vector<std::string> per_gpu_price = {"cluster.params.price.gpu_hour=2.5"};
    const auto loaded = variant == 1   ? seed_with_tokens("2e8")
                        : variant == 3 ? seed_with_tokens("1e18")
                                       : scenarios::load_scenario(
                                             kSeedOfRunCost, variant == 2 ? per_gpu_price : std::vector<std::string>{});
    const models::RunResult r = models::run_scenario(loaded.spec, {});
    REQUIRE(r.cost.known);
    REQUIRE(r.goodput.estimated);
    // Failure-free work is the run: steps x step (no --samples here).
    CHECK(r.goodput.work_s == Approx(r.run_time_s).epsilon(1e-12));
    CHECK(r.goodput.work_cost == Approx(r.cost.usd_per_run).epsilon(1e-12));
    // With failures: the expected wall time at the same $ per hour.
    CHECK(r.goodput.expected_cost == Approx(r.goodput.expected_wall_s / 3600 * r.cost.usd_per_hour).epsilon(1e-12));
    // Per GPU paid for: the node's 8, of which the seed uses 4.
    CHECK(r.gpus == 4);
    CHECK(r.goodput.billed_gpus == 8);
    CHECK(r.goodput.price_per_gpu_hour * 8 == Approx(r.cost.usd_per_hour).epsilon(1e-12));
    if (variant == 2) CHECK(r.goodput.price_per_gpu_hour == Approx(2.5));
    if (variant == 3) CHECK(r.steps == 2'000'000'000);  // the count stops there; the run time does not
  }
  // p4d.24xlarge from the catalog: one whole node ($21.957642/h) though the run uses 4 of its 8 GPUs.
  CHECK(models::run_scenario(scenarios::load_scenario(kSeedOfRunCost).spec, {}).cost.usd_per_hour == Approx(21.957642));
  // A price per GPU-hour: x the node's 8 GPUs, paid for whole like the catalog's price.
  const auto per_gpu = scenarios::load_scenario(kSeedOfRunCost, {"cluster.params.price.gpu_hour=2.5"});
  CHECK(models::run_scenario(per_gpu.spec, {}).cost.usd_per_hour == Approx(20.0));
  // The run's steps follow the token target: ceil(tokens / tokens per step).
  const auto tokens = seed_with_tokens("2e8");
  const models::RunResult t = models::run_scenario(tokens.spec, {});
  REQUIRE(t.throughput.tokens_per_step > 0);
  CHECK(t.steps == static_cast<int>(std::ceil(2e8 / t.throughput.tokens_per_step - 1e-9)));
}

TEST_CASE("scenarios: host failures count an NVL72 rack's trays, not the rack", "[scenarios]") {
  // 144 GPUs on two GB200 NVL72 racks are 36 trays, each its own host: as many hosts fail as on
  // 36 nodes of 4 GPUs, twice the 18 hosts of 18 eight-GPU nodes. The GPU failure rate is the same.
  const std::string text = R"(name = "two racks"
[cluster]
instance = "gb200-nvl72"
nodes = 2
[model]
preset = "qwen3-8b"
seq = 4096
[training]
micro_batch = 1
grad_accum = 1
steps = 10
[parallel]
strategy = "fsdp"
)";
  auto run = [&](const std::vector<std::string>& sets) {
    return models::run_scenario(scenarios::load_scenario_text(text, "racks.toml", sets, kSeedDir).spec, {}).goodput;
  };
  const models::GoodputResult racks = run({});
  const models::GoodputResult nodes = run({"cluster.instance=p6-b200.48xlarge", "cluster.nodes=18"});
  REQUIRE(racks.estimated);
  CHECK(racks.gpus == 144);
  CHECK(racks.nodes == 2);
  CHECK(racks.hosts == 36);
  CHECK(nodes.hosts == 18);
  auto rate = [](const models::GoodputResult& g, const std::string& name) {
    for (const auto& c : g.components)
      if (c.name == name) return c.per_day;
    return -1.0;
  };
  CHECK(rate(racks, "host") == Approx(2 * rate(nodes, "host")));
  CHECK(rate(racks, "gpu") == Approx(rate(nodes, "gpu")));
}

TEST_CASE("scenarios: the cost line names the nodes and GPUs it bills, not the ranks placed", "[scenarios]") {
  // The seed places 4 ranks on one p4d.24xlarge of 8 GPUs: the price is the whole node's.
  const auto loaded = scenarios::load_scenario(kSeedOfRunCost);
  const models::RunResult r = models::run_scenario(loaded.spec, {});
  REQUIRE(r.cost.known);
  CHECK(r.ranks.size() == 4);
  CHECK(r.cost.nodes == 1);
  CHECK(r.cost.gpus == 8);
  CHECK_THAT(scenarios::cost_line(r), Catch::Contains(" (1 node, 8 GPUs at $"));
}

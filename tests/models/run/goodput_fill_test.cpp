// RunResult::goodput from a run (models/run/goodput_fill.hpp): what its checkpoint holds, where its
// failure rates and restart come from.
#include <catch2/catch.hpp>

#include <string>
#include <utility>

#include "models/model/model_shape.hpp"
#include "models/run/run.hpp"

namespace {
// A small model's 10 steps on one p5e node: enough for a checkpoint and a failure model.
models::ScenarioSpec small_run() {
  models::ScenarioSpec s;
  s.cluster.instance = "p5e.48xlarge";
  s.model = models::ModelSpec{};
  s.model->preset = "sc21-1.7b";
  s.model->seq = 1024;
  s.training.steps = 10;
  return s;
}
}  // namespace

TEST_CASE("goodput: a checkpoint holds the strategy's states, checkpoint.bytes_per_param overrides them", "[models]") {
  models::ScenarioSpec s = small_run();
  const double params = double(models::model::resolve_model(*s.model).total_params());
  for (const auto& [strategy, bytes] : {std::pair{"fsdp", 6.0}, {"ddp", 6.0}, {"zero3", 14.0}, {"megatron", 14.0}}) {
    INFO(strategy);
    s.parallel.strategy = strategy;
    const models::GoodputResult g = models::run_scenario(s, {}).goodput;
    CHECK(g.checkpoint_bytes_per_param == bytes);
    CHECK(g.checkpoint_bytes == Approx(bytes * params));
  }
  s.parallel.strategy = "fsdp";
  s.cluster.params["checkpoint.bytes_per_param"] = 10;
  const models::GoodputResult g = models::run_scenario(s, {}).goodput;
  CHECK(g.checkpoint_bytes == Approx(10 * params));
  CHECK(g.checkpoint_states == "checkpoint.bytes_per_param");
}

TEST_CASE("goodput: the failure rates name their source, the restart says whether it is assumed", "[models]") {
  models::ScenarioSpec s = small_run();
  s.parallel.strategy = "fsdp";
  models::GoodputResult g = models::run_scenario(s, {}).goodput;
  CHECK(g.failure_rates_source ==
        "Llama 3 paper (Dubey et al. 2024) Table 5: 419 interruptions in 54 days on 16,384 H100");
  CHECK(g.restart_assumed);
  CHECK(g.restart_s == 600);
  s.cluster.params["failures.gpu"] = 5;
  s.cluster.params["failures.host"] = 5;
  s.cluster.params["restart.time"] = 300;
  g = models::run_scenario(s, {}).goodput;
  CHECK(g.failure_rates_source ==
        "failures.gpu, failures.host set in [cluster.params]; the others Llama 3 paper (Dubey et al. 2024) Table 5: "
        "419 interruptions in 54 days on 16,384 H100");
  CHECK_FALSE(g.restart_assumed);
  CHECK(g.restart_s == 300);
  for (const char* c : {"hbm", "nic", "network", "software"}) s.cluster.params[std::string("failures.") + c] = 1;
  CHECK(models::run_scenario(s, {}).goodput.failure_rates_source ==
        "failures.gpu, failures.hbm, failures.nic, failures.network, failures.software, failures.host set in "
        "[cluster.params]");
}

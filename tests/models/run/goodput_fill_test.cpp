// RunResult::goodput from a run (models/run/goodput_fill.hpp): what its checkpoint holds, where its
// failure rates and restart come from.
#include <catch2/catch.hpp>

#include <utility>

#include "models/model/model_shape.hpp"
#include "models/run/run.hpp"

TEST_CASE("goodput: a checkpoint holds the strategy's states, checkpoint.bytes_per_param overrides them", "[models]") {
  models::ScenarioSpec s;
  s.cluster.instance = "p5e.48xlarge";
  s.model = models::ModelSpec{};
  s.model->preset = "sc21-1.7b";
  s.model->seq = 1024;
  s.training.steps = 10;
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

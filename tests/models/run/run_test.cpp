// run_scenario's pipeline options (models/run/run.hpp).
#include <catch2/catch.hpp>

#include "models/run/run.hpp"

// --time-limit counts the set-up (World, plans, programs) too: a budget the set-up already spent
// stops the run before its first op, marked partial (issue 21; issue 19 decides the exit code).
TEST_CASE("run: --time-limit covers the set-up", "[models]") {
  models::ScenarioSpec s;
  s.cluster.instance = "h200x4";
  s.collective = models::CollectiveSpec{};
  s.collective->op = "all_reduce";
  s.collective->bytes = 1 << 20;
  models::RunOptions options;
  options.time_limit_s = 1e-9;
  const auto stopped = models::run_scenario(s, options);
  CHECK(stopped.partial);
  options.time_limit_s = 60;
  const auto done = models::run_scenario(s, options);
  CHECK_FALSE(done.partial);
  CHECK(done.step_time_s > 0);
}

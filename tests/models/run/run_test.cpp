// run_scenario's pipeline options (models/run/run.hpp).
#include <catch2/catch.hpp>

#include "models/run/run.hpp"

// --time-limit counts the set-up (World, plans, programs) too: a budget the set-up already spent
// stops the run at the next set-up stage boundary, before its first op, marked partial.
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
  // Stopped at the first stage boundary, before anything else was built, and the notes say so.
  REQUIRE(stopped.notes.size() == 1);
  CHECK(stopped.notes[0].find("of set-up, while building the world") != std::string::npos);
  CHECK(stopped.notes[0].find("no operation simulated") != std::string::npos);
  CHECK(stopped.ranks.empty());
  CHECK(stopped.breakdown.at("simulated_fraction") == 0);
  options.time_limit_s = 60;
  const auto done = models::run_scenario(s, options);
  CHECK_FALSE(done.partial);
  CHECK(done.step_time_s > 0);
}

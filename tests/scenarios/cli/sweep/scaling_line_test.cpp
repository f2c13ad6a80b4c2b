// The sweep's scaling-efficiency line (scenarios/cli/sweep/scaling_line.hpp): against the first
// point that fits, "-" where a point failed or does not fit, and the batch note where the points
// train different tokens per step.
#include <catch2/catch.hpp>

#include "scenarios/cli/sweep/scaling_line.hpp"

using scenarios::PointRate;

TEST_CASE("sweep: the efficiency line is against the first point that fits", "[scenarios]") {
  const std::vector<PointRate> points = {
      {std::nullopt, 0, false}, {100.0, 4096, true}, {90.0, 4096, true}, {80.0, 4096, false}};
  CHECK(scenarios::scaling_efficiency_line(points) ==
        "scaling efficiency (tokens/s per GPU against point 2, the first that fits): -, 1.00, 0.90, -");
  CHECK(scenarios::batch_note(points).empty());
}

TEST_CASE("sweep: the efficiency line says when the points train different tokens per step", "[scenarios]") {
  const std::vector<PointRate> points = {{100.0, 131072, true}, {98.0, 262144, true}, {std::nullopt, 0, false}};
  CHECK(scenarios::scaling_efficiency_line(points) ==
        "scaling efficiency (tokens/s per GPU against the first point): 1.00, 0.98, -; the points train different "
        "tokens per step (131072 to 262144: the global batch follows the GPUs where training.global_batch is not "
        "set), so an efficiency compares steps of different work");
}

TEST_CASE("sweep: no efficiency line without a second point after the first that fits", "[scenarios]") {
  CHECK(scenarios::scaling_efficiency_line({{100.0, 4096, true}}).empty());
  CHECK(scenarios::scaling_efficiency_line({{std::nullopt, 0, false}, {100.0, 4096, true}}).empty());
}

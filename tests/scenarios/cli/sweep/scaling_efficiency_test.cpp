// The sweep's scaling-efficiency line (scenarios/cli/sweep/scaling_efficiency.hpp): labelled by GPU
// count, at the sampled mean step with --samples, and only where the GPU count varies; and the
// sampled tokens/s column it rests on, through the real binary.
#include "scenarios/cli/sweep/scaling_efficiency.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/scenarios/command_runner.hpp"

using scenarios::EfficiencyPoint;
using scenarios::scaling_efficiency_line;

TEST_CASE("sweep: each efficiency is labelled with its GPU count, against the first point that fits", "[scenarios]") {
  const std::vector<EfficiencyPoint> points = {{64, true, 100.0}, {256, true, 98.0}, {1024, true, 95.0}};
  CHECK(scaling_efficiency_line(points, 0) ==
        "scaling efficiency (tokens/s per GPU against the first point): 64 GPUs 1.00, 256 GPUs 0.98, 1024 GPUs 0.95");
  CHECK(scaling_efficiency_line(points, 8) ==
        "scaling efficiency (tokens/s per GPU at the sampled mean step of 8 samples against the first point): "
        "64 GPUs 1.00, 256 GPUs 0.98, 1024 GPUs 0.95");
  // A first point that does not fit has no real time; a failed point has no rate.
  const std::vector<EfficiencyPoint> later = {{8, false, 50.0}, {16, true, 40.0}, {32, true, 30.0}, {64, false, {}}};
  CHECK(scaling_efficiency_line(later, 0) ==
        "scaling efficiency (tokens/s per GPU against point 2, the first that fits): 8 GPUs -, 16 GPUs 1.00, "
        "32 GPUs 0.75, 64 GPUs -");
}

TEST_CASE("sweep: no efficiency line where every point runs on one GPU count", "[scenarios]") {
  CHECK(scaling_efficiency_line({{256, true, 100.0}, {256, true, 97.0}}, 8).empty());
  CHECK(scaling_efficiency_line({{64, true, 100.0}}, 0).empty());
  CHECK(scaling_efficiency_line({{64, false, 100.0}, {128, true, 97.0}}, 0).empty());  // nothing to compare with
}

TEST_CASE("sweep: with --samples the efficiency and tokens_per_s_sampled use the sampled mean step", "[scenarios]") {
  const std::string ws = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/goodput_weak_scaling.toml";
  const auto r = scenarios_test::run_commsim(
      {"sweep", ws, "--vary", "cluster.nodes=1,2", "--samples", "4", "--json", "--jobs", "1"});
  REQUIRE(r.exit_code == 0);
  std::vector<nlohmann::json> rows;
  for (size_t at = 0, nl; (nl = r.out.find('\n', at)) != std::string::npos; at = nl + 1)
    rows.push_back(nlohmann::json::parse(r.out.substr(at, nl - at)));
  REQUIRE(rows.size() == 2);
  double rate[2];
  for (int i = 0; i < 2; ++i) {
    const auto& row = rows[i];
    // tokens per step (tokens_per_s x step_time_s) over the mean of the samples.
    const double tokens_per_step = row["tokens_per_s"].get<double>() * row["step_time_s"].get<double>();
    CHECK(row["tokens_per_s_sampled"].get<double>() ==
          Approx(tokens_per_step / row["step_mean_s"].get<double>()).epsilon(1e-6));
    CHECK(row["tokens_per_s_sampled"].get<double>() < row["tokens_per_s"].get<double>());  // the spread slows it
    CHECK(row["step_p99_s"].is_null());  // 4 samples: no 99th percentile, their maximum instead
    CHECK(row["step_max_s"].get<double>() >= row["step_median_s"].get<double>());
    rate[i] = row["tokens_per_s_sampled"].get<double>() / row["gpus"].get<double>();
  }
  char expected[64];
  std::snprintf(expected, sizeof expected, "8 GPUs 1.00, 16 GPUs %.2f; ", rate[1] / rate[0]);
  // Weak scaling: the batch grows with the GPUs, which the line says after the efficiencies.
  CHECK(r.err.find("sweep: scaling efficiency (tokens/s per GPU at the sampled mean step of 4 samples against the "
                   "first point): " +
                   std::string(expected) + "the points train different tokens per step (65536 to 131072") !=
        std::string::npos);
  // A spread swept on one GPU count: no efficiency line, however the spread moves the rate.
  const auto cv = scenarios_test::run_commsim(
      {"sweep", ws, "--vary", "cluster.params.variability.gpu_speed_cv=0,0.03", "--samples", "2", "--jobs", "1"});
  REQUIRE(cv.exit_code == 0);
  CHECK(cv.err.find("scaling efficiency") == std::string::npos);
}

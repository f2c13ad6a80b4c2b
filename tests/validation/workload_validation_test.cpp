// Validation of the workload model against real measurements, each with its source.
#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>

#include "models/run/run.hpp"
#include "scenarios/load/loader.hpp"

namespace {
double run_step(const std::string& rel) {
  const auto loaded = scenarios::load_scenario(std::string(COMMSIM_SOURCE_DIR) + "/" + rel);
  return models::run_scenario(loaded.spec).step_time_s;
}
double measured_mean(const std::string& json_rel) {
  std::ifstream in(std::string(COMMSIM_SOURCE_DIR) + "/" + json_rel);
  REQUIRE(in.good());
  return nlohmann::json::parse(in).at("mean_step_s").get<double>();
}
}  // namespace

TEST_CASE("workload: z3_n1 reproduces the measured single-GPU FSDP2 step within 5 %", "[validation][workload]") {
  // scenarios/validation/h200x4/measured/torch/z3_n1.json: mean step of 6 timed steps.
  const double measured = measured_mean("scenarios/validation/h200x4/measured/torch/z3_n1.json");
  const double predicted = run_step("scenarios/validation/h200x4/z3_n1.toml");
  CHECK(std::abs(predicted / measured - 1) < 0.05);
}

TEST_CASE("workload: tp_n1 reproduces the measured single-GPU bf16 step within 5 %", "[validation][workload]") {
  // scenarios/validation/h200x4/measured/torch/tp_n1.json: mean step of 5 timed steps.
  const double measured = measured_mean("scenarios/validation/h200x4/measured/torch/tp_n1.json");
  const double predicted = run_step("scenarios/validation/h200x4/tp_n1.toml");
  CHECK(std::abs(predicted / measured - 1) < 0.05);
}

// Predicted 2.09 (14.5 s vs 30.4 s per step against the measured 19.6 s vs 47.4 s): -13.6 %, inside
// the band with 1.4 points to spare. Both absolute times are under-predicted (README, seeds' study).
TEST_CASE("workload: seed 002 ratio of 4 pods x 1 GPU (EFA) to 1 pod x 4 GPUs within 15 % of 2.42",
          "[validation][workload]") {
  // scenarios/seeds/notes/002_*: 50 steps in 0:16:21 (1 pod, P2P) and 0:39:32 (4 pods, EFA GDRDMA).
  const double measured = (39 * 60 + 32) / double(16 * 60 + 21);
  const double one_pod = run_step("scenarios/seeds/p4d_1pod_4gpu.toml");
  const double four_pods = run_step("scenarios/seeds/p4d_4pod_1gpu_efa.toml");
  INFO("1 pod " << one_pod << " s/step, 4 pods " << four_pods << " s/step, measured ratio " << measured);
  CHECK(std::abs((four_pods / one_pod) / measured - 1) < 0.15);
}
